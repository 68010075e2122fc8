//! Connected components of a mask's set pixels, found a row run at a time: what a
//! destructible terrain uses to find the pieces a crater cut loose.

use super::edit::word_bits_in;
use super::{BitMask, MaskRect, word_index};

/// Which neighbours of a pixel join it to the same component.
///
/// ```text
///  4-connected      8-connected
///     . # .           # # #
///     # @ #           # @ #
///     . # .           # # #
/// ```
///
/// With [`Connectivity::Four`] two pixels touching only at a corner are apart; with
/// [`Connectivity::Eight`] (pygame's `Mask.connected_components`) they are joined. A
/// diagonal line one pixel thin is one piece with eight and many with four.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Connectivity {
    /// Pixels sharing an edge: left, right, up, down.
    Four,
    /// Pixels sharing an edge or a corner, as pygame does.
    #[default]
    Eight,
}

/// A maximal run of set pixels `x0..x1` in row `y`.
#[derive(Debug, Clone, Copy)]
struct Run {
    y: u32,
    x0: u32,
    x1: u32,
}

/// Flood fill over runs: `seen` (laid out like the mask's words) marks every run already
/// given to a component, and a stack holds the runs whose neighbours are still to visit.
struct Labeller<'m> {
    mask: &'m BitMask,
    seen: Vec<u64>,
    reach: u32,
    stack: Vec<Run>,
}

impl<'m> Labeller<'m> {
    fn new(mask: &'m BitMask, connectivity: Connectivity) -> Labeller<'m> {
        Labeller {
            mask,
            seen: vec![0; mask.words.len()],
            reach: match connectivity {
                Connectivity::Four => 0,
                Connectivity::Eight => 1,
            },
            stack: Vec::new(),
        }
    }

    fn seen_row(&self, y: u32) -> super::Row<'_> {
        super::Row::of(&self.seen, self.mask.layout(), y as usize)
    }

    /// The first pixel at or after `x` and before `end` in row `y` that is set and not
    /// yet in a component, a word at a time.
    fn next_unseen(&self, y: u32, x: u32, end: u32) -> Option<u32> {
        if x >= end {
            return None;
        }
        let (row, seen) = (self.mask.row(y), self.seen_row(y));
        let mut k = (x / 64) as usize;
        let mut bits = (row[k] & !seen[k]) & (u64::MAX << (x % 64));
        loop {
            if bits != 0 {
                let found = k as u32 * 64 + bits.trailing_zeros();
                return (found < end).then_some(found);
            }
            k += 1;
            if k as u32 * 64 >= end {
                return None;
            }
            bits = row[k] & !seen[k];
        }
    }

    /// The whole run of set pixels in row `y` through the set pixel `x`.
    fn run_through(&self, y: u32, x: u32) -> Run {
        let row = self.mask.row(y);
        // Left end: just after the last clear pixel below x.
        let mut k = (x / 64) as usize;
        let mut clear = !row[k] & ((1u64 << (x % 64)) - 1);
        let x0 = loop {
            if clear != 0 {
                break k as u32 * 64 + 64 - clear.leading_zeros();
            }
            if k == 0 {
                break 0;
            }
            k -= 1;
            clear = !row[k];
        };
        // Right end: the first clear pixel after x (padding bits are clear).
        let mut k = (x / 64) as usize;
        let mut clear = !row[k] & (u64::MAX << (x % 64));
        let x1 = loop {
            if clear != 0 {
                break k as u32 * 64 + clear.trailing_zeros();
            }
            k += 1;
            if k == row.len() {
                break k as u32 * 64;
            }
            clear = !row[k];
        };
        Run {
            y,
            x0,
            x1: x1.min(self.mask.width),
        }
    }

    fn mark(&mut self, run: Run) {
        let h = self.mask.height as usize;
        let (first, last) = ((run.x0 / 64) as usize, ((run.x1 - 1) / 64) as usize);
        for k in first..=last {
            self.seen[word_index(k, run.y as usize, h)] |= word_bits_in(k, run.x0, run.x1);
        }
    }

    /// The component through the unseen set pixel `(x, y)`: its runs, each marked seen.
    fn component(&mut self, y: u32, x: u32) -> Vec<Run> {
        let first = self.run_through(y, x);
        self.mark(first);
        self.stack.push(first);
        let mut runs = vec![first];
        let (w, h) = (self.mask.width, self.mask.height);
        while let Some(run) = self.stack.pop() {
            let (lo, hi) = (
                run.x0.saturating_sub(self.reach),
                (run.x1 + self.reach).min(w),
            );
            for ny in [run.y.checked_sub(1), (run.y + 1 < h).then_some(run.y + 1)]
                .into_iter()
                .flatten()
            {
                let mut x = lo;
                while let Some(found) = self.next_unseen(ny, x, hi) {
                    let next = self.run_through(ny, found);
                    self.mark(next);
                    self.stack.push(next);
                    runs.push(next);
                    x = next.x1;
                }
            }
        }
        runs
    }

    /// Whether a set pixel of row `y` in columns `lo..hi` is marked in `bits` (laid out
    /// like the mask's words), a word at a time.
    fn any_marked(&self, bits: &[u64], y: u32, lo: u32, hi: u32) -> bool {
        if lo >= hi {
            return false;
        }
        let (row, marked) = (
            self.mask.row(y),
            super::Row::of(bits, self.mask.layout(), y as usize),
        );
        ((lo / 64) as usize..=((hi - 1) / 64) as usize)
            .any(|k| row[k] & marked[k] & word_bits_in(k, lo, hi) != 0)
    }

    /// The component through the unseen set pixel `(x, y)`, unless it holds to an anchor:
    /// a run for which `anchored` is true, or a run an earlier fill found held (marked in
    /// `held`). Then the fill stops there, its runs so far are marked held, and `None`.
    /// Down first: a fill from near a terrain's surface reaches its bottom row in about
    /// as many runs as rows between.
    fn loose_component(
        &mut self,
        y: u32,
        x: u32,
        anchored: &impl Fn(u32, u32, u32) -> bool,
        held: &mut [u64],
    ) -> Option<Vec<Run>> {
        let first = self.run_through(y, x);
        self.mark(first);
        let mut runs = vec![first];
        let (w, h) = (self.mask.width, self.mask.height);
        let mut holds = anchored(first.y, first.x0, first.x1);
        if !holds {
            self.stack.push(first);
        }
        'fill: while let Some(run) = self.stack.pop() {
            let (lo, hi) = (
                run.x0.saturating_sub(self.reach),
                (run.x1 + self.reach).min(w),
            );
            // Up first, so that the run below is the next one filled from.
            for ny in [run.y.checked_sub(1), (run.y + 1 < h).then_some(run.y + 1)]
                .into_iter()
                .flatten()
            {
                if self.any_marked(held, ny, lo, hi) {
                    holds = true;
                    break 'fill;
                }
                let mut x = lo;
                while let Some(found) = self.next_unseen(ny, x, hi) {
                    let next = self.run_through(ny, found);
                    self.mark(next);
                    runs.push(next);
                    if anchored(next.y, next.x0, next.x1) {
                        holds = true;
                        break 'fill;
                    }
                    self.stack.push(next);
                    x = next.x1;
                }
            }
        }
        if !holds {
            return Some(runs);
        }
        self.stack.clear();
        let height = self.mask.height as usize;
        for run in runs {
            let (first, last) = ((run.x0 / 64) as usize, ((run.x1 - 1) / 64) as usize);
            for k in first..=last {
                held[word_index(k, run.y as usize, height)] |= word_bits_in(k, run.x0, run.x1);
            }
        }
        None
    }

    /// Every component with a set pixel in columns `x0..x1` of rows `y0..y1`, in the
    /// order of their first such pixel (row-major).
    fn components_from(&mut self, (x0, y0, x1, y1): (u32, u32, u32, u32)) -> Vec<Vec<Run>> {
        let mut found = Vec::new();
        for y in y0..y1 {
            let mut x = x0;
            while let Some(start) = self.next_unseen(y, x, x1) {
                found.push(self.component(y, start));
                x = start + 1;
            }
        }
        found
    }
}

/// A component's runs as its own mask and the mask's top-left in the parent.
fn to_mask(runs: &[Run]) -> (BitMask, (i32, i32)) {
    let (mut x0, mut y0, mut x1, mut y1) = (u32::MAX, u32::MAX, 0, 0);
    for r in runs {
        (x0, y0) = (x0.min(r.x0), y0.min(r.y));
        (x1, y1) = (x1.max(r.x1), y1.max(r.y + 1));
    }
    // Never larger than the parent, which was within the limits.
    let mut mask = BitMask::try_new(x1 - x0, y1 - y0).unwrap_or_else(|_| BitMask::new(0, 0));
    let mut changed = super::edit::Changed::default();
    for r in runs {
        let (a, b) = (r.x0 - x0, r.x1 - x0);
        for k in (a / 64) as usize..=((b - 1) / 64) as usize {
            mask.apply_bits(r.y - y0, k, word_bits_in(k, a, b), true, &mut changed);
        }
    }
    (mask, (x0 as i32, y0 as i32))
}

/// The first pixel of a component in row-major order.
fn first_pixel(runs: &[Run]) -> (u32, u32) {
    runs.iter().map(|r| (r.y, r.x0)).min().unwrap_or_default()
}

impl BitMask {
    /// The components with a set pixel in `region` that hold to no anchor: none of their
    /// runs (a row `y`'s set pixels `x0..x1`) makes `anchored(y, x0, x1)` true. Each as in
    /// [`BitMask::connected_components_in`], in the same order. A component that holds
    /// is filled only until it reaches an anchor, not whole: what cutting a crater's
    /// pieces loose from a terrain's bottom row needs, without filling the ground.
    pub(crate) fn loose_components_in(
        &self,
        region: MaskRect,
        connectivity: Connectivity,
        anchored: impl Fn(u32, u32, u32) -> bool,
    ) -> Vec<(BitMask, (i32, i32))> {
        let x1 = (u64::from(region.x) + u64::from(region.width)).min(u64::from(self.width)) as u32;
        let y1 =
            (u64::from(region.y) + u64::from(region.height)).min(u64::from(self.height)) as u32;
        if region.x >= x1 || region.y >= y1 {
            return Vec::new();
        }
        let mut labeller = Labeller::new(self, connectivity);
        let mut held = vec![0u64; self.words.len()];
        let mut found = Vec::new();
        for y in region.y..y1 {
            let mut x = region.x;
            while let Some(start) = labeller.next_unseen(y, x, x1) {
                if let Some(runs) = labeller.loose_component(y, start, &anchored, &mut held) {
                    found.push(runs);
                }
                x = start + 1;
            }
        }
        found.sort_by_key(|runs| first_pixel(runs));
        found.iter().map(|runs| to_mask(runs)).collect()
    }

    /// Every connected component of the set pixels, each as its own mask (the size of its
    /// bounding rectangle) and the offset of that mask's top-left in this one, ready for
    /// [`BitMask::erase`] or [`BitMask::overlap`]; offsets are never negative. Components
    /// come in the order of their first pixel, row by row from the top, left to right.
    ///
    /// pygame's `Mask.connected_components` is [`Connectivity::Eight`].
    ///
    /// Cost: one pass over the mask's words, plus a few word operations per run of set
    /// pixels (a row's maximal stretch) and per word of the runs' neighbourhoods, not per
    /// pixel (`benches/terrain.rs` times a whole terrain). Memory, besides the output masks: a second mask's worth of words (the
    /// runs already labelled) and up to 24 bytes per run of the component being filled,
    /// so at most linear in the mask's size (a run takes a pixel and the gap after it).
    ///
    /// ```
    /// use pixel_collide::{BitMask, Connectivity};
    ///
    /// // Two pixels touching at a corner.
    /// let mut m = BitMask::new(4, 4);
    /// m.set(1, 1, true);
    /// m.set(2, 2, true);
    /// assert_eq!(m.connected_components(Connectivity::Eight).len(), 1);
    /// let apart = m.connected_components(Connectivity::Four);
    /// assert_eq!(apart.len(), 2);
    /// assert_eq!(apart[1].1, (2, 2));
    /// ```
    pub fn connected_components(&self, connectivity: Connectivity) -> Vec<(BitMask, (i32, i32))> {
        let whole = MaskRect {
            x: 0,
            y: 0,
            width: self.width,
            height: self.height,
        };
        self.connected_components_in(whole, connectivity)
    }

    /// The whole connected components that have at least one set pixel in `region`
    /// (clipped to the mask; an empty or outside region finds none), found by flood
    /// filling from the region's set pixels: what a crater's neighbourhood needs to tell
    /// whether it cut a piece loose, without labelling the rest of the terrain. Each
    /// component is complete, reaching as far outside the region as it goes, and comes
    /// as in [`BitMask::connected_components`]: its own mask and offset, in the order of
    /// its first pixel in the whole mask (row-major).
    ///
    /// Cost: as [`BitMask::connected_components`], but only for the components found
    /// (and the region's words): a piece that spans the whole terrain is filled whole.
    ///
    /// ```
    /// use pixel_collide::{BitMask, Connectivity, MaskRect};
    ///
    /// let mut terrain = BitMask::solid(64, 32).unwrap();
    /// // Cut a disc loose: a clear ring between radii 5 and 9 around (25, 10).
    /// terrain.erase_circle(25.0, 10.0, 9.0);
    /// terrain.fill_circle(25.0, 10.0, 5.0);
    /// let near = MaskRect { x: 15, y: 0, width: 20, height: 20 };
    /// let pieces = terrain.connected_components_in(near, Connectivity::Eight);
    /// assert_eq!(pieces.len(), 2);
    /// // The loose piece is the one that does not reach the bottom.
    /// let loose = pieces.iter().find(|(m, (_, y))| *y as u32 + m.height() < 32).unwrap();
    /// terrain.erase(&loose.0, loose.1);
    /// assert_eq!(terrain.connected_components(Connectivity::Eight).len(), 1);
    /// ```
    pub fn connected_components_in(
        &self,
        region: MaskRect,
        connectivity: Connectivity,
    ) -> Vec<(BitMask, (i32, i32))> {
        let x1 = u64::from(region.x) + u64::from(region.width);
        let y1 = u64::from(region.y) + u64::from(region.height);
        let x1 = x1.min(u64::from(self.width)) as u32;
        let y1 = y1.min(u64::from(self.height)) as u32;
        if region.x >= x1 || region.y >= y1 {
            return Vec::new();
        }
        let mut labeller = Labeller::new(self, connectivity);
        let mut found = labeller.components_from((region.x, region.y, x1, y1));
        // A component found from the region's left edge can start higher up in the mask
        // than one found before it.
        found.sort_by_key(|runs| first_pixel(runs));
        found.iter().map(|runs| to_mask(runs)).collect()
    }
}
