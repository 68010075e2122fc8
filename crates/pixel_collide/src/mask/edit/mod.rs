//! Editing a mask in place, as a destructible terrain does: circles and other masks drawn
//! or erased at word speed, with every lookup already built brought up to date for the
//! pixels the edit changed rather than thrown away.
//!
//! What each lookup costs an edit that changed the pixels of a `w × h` rectangle:
//!
//! - row spans: the `h` changed rows rescanned by circles. A drawn or erased mask's
//!   words are painted a column at a time (see `paint_words`), and then the painted
//!   rows' spans are brought up to date (see `paint_of`), no word read: for a draw,
//!   each joined with the other mask's span, clipped to the mask; an erase keeps them
//!   (one that left its rows all clear sets them clear). Where A's edge
//!   cut the drawn mask, and after an erase, a span may be wider than its row's pixels
//!   (still holding them all, which is what filters need); such loose rows are made
//!   exact again by a rescan of their words once edits have left 64 times as many rows
//!   loose as there are (see [`BitMask::note_loose_rows`]), and the exact bounding
//!   rectangle and circle are found from them on first use in the meantime.
//! - bounding rectangle: joined with the changed pixels' box when pixels were set; when
//!   pixels were cleared, unchanged unless the rectangle reaches its edge, and then found
//!   again from the row spans of its rows (a compare per row, no words read); larger
//!   than the smallest while some spans are loose.
//! - bounding circle: kept when the rectangle stayed and the change lies strictly inside
//!   the circle (the farthest pixel, on the circle, is then untouched); otherwise found
//!   again from the row spans, a few vectorised integer operations per row of the
//!   rectangle.
//! - transposed copy: the changed columns' words rebuilt by 64 × 64 bit-block
//!   transposes, and the copy's own lookups updated the same way.
//! - distance field: see [`BitMask::update_distance_field`]; a bound on its work falls
//!   back to a rebuild on next use when edits have cost as much as one.
//!
//! Files: here the edits' entry points and what they share (the changed box, word ranges,
//! transposes); `paint.rs` the word loops of drawing or erasing a mask; `refresh.rs` the
//! lookups' updates.

use super::{BitMask, MaskRect, WordKernel, bit_range, word_index};

mod paint;
mod refresh;
#[cfg(test)]
mod tests;

/// Where the pixels an edit changed are: columns `x0..x1`, rows `y0..y1`; empty until a
/// change is noted. Their bounding box, or a larger one that still lies within the
/// bounding rectangle of the set pixels after the edit when it set pixels (and before it
/// when it cleared them), which is all the lookups' updates need. `rows_clear`: the
/// edit left rows `y0..y1` all clear, which spares the bounding rectangle's search them.
/// `loose`: the edit left the spans of rows `y0..y1` holding their pixels but maybe
/// wider (see [`BitMask::note_loose_rows`]); the box is then only known to hold the
/// changed pixels, as the spans give no more.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Changed {
    x0: u32,
    y0: u32,
    x1: u32,
    y1: u32,
    rows_clear: bool,
    loose: bool,
}

impl Default for Changed {
    fn default() -> Changed {
        Changed {
            x0: u32::MAX,
            y0: u32::MAX,
            x1: 0,
            y1: 0,
            rows_clear: false,
            loose: false,
        }
    }
}

impl Changed {
    /// Notes the changed `bits` of word `k` of row `y`.
    #[inline]
    fn note(&mut self, y: u32, k: usize, bits: u64) {
        if bits == 0 {
            return;
        }
        let base = k as u32 * 64;
        self.x0 = self.x0.min(base + bits.trailing_zeros());
        self.x1 = self.x1.max(base + 64 - bits.leading_zeros());
        self.y0 = self.y0.min(y);
        self.y1 = self.y1.max(y + 1);
    }

    /// This box cut to `bounds` (none for an empty mask).
    fn within(self, bounds: Option<MaskRect>) -> Changed {
        let Some(b) = bounds else {
            return Changed::default();
        };
        Changed {
            x0: self.x0.max(b.x),
            y0: self.y0.max(b.y),
            x1: self.x1.min(b.x + b.width),
            y1: self.y1.min(b.y + b.height),
            rows_clear: self.rows_clear,
            loose: self.loose,
        }
    }

    fn rect(self) -> Option<(u32, u32, u32, u32)> {
        (self.x0 < self.x1 && self.y0 < self.y1).then_some((self.x0, self.y0, self.x1, self.y1))
    }
}

/// The bits of word `k` that lie in pixels `lo..hi` of a row (zero when none do).
#[inline]
pub(super) fn word_bits_in(k: usize, lo: u32, hi: u32) -> u64 {
    let base = k as u32 * 64;
    let (a, b) = (lo.max(base), hi.min(base + 64));
    if a < b {
        bit_range(a - base, b - base)
    } else {
        0
    }
}

/// Transposes a 64 × 64 bit matrix in place (word `i` is row `i`, bit `j` column `j`):
/// swap the off-diagonal 32 × 32 blocks, then within each the 16 × 16 ones, and so on,
/// 6 rounds of 32 word operations instead of 4,096 bit moves.
fn transpose64(a: &mut [u64; 64]) {
    let mut j = 32;
    let mut m: u64 = 0x0000_0000_FFFF_FFFF;
    while j != 0 {
        let mut k = 0;
        while k < 64 {
            let t = ((a[k] >> j) ^ a[k + j]) & m;
            a[k] ^= t << j;
            a[k + j] ^= t;
            k = (k + j + 1) & !j;
        }
        j >>= 1;
        m ^= m << j;
    }
}

/// Copies the pixels of `src` in columns `x0..x1`, rows `y0..y1` into `dst`, its
/// transpose (pixel `(x, y)` of `src` is pixel `(y, x)` of `dst`), a 64 × 64 block at a
/// time.
pub(crate) fn transpose_region(
    src: &BitMask,
    dst: &mut BitMask,
    (x0, y0, x1, y1): (u32, u32, u32, u32),
) {
    if x0 >= x1 || y0 >= y1 {
        return;
    }
    let mut block = [0u64; 64];
    for by in y0 / 64..=(y1 - 1) / 64 {
        let rows = word_bits_in(by as usize, y0, y1);
        for bx in (x0 / 64) as usize..=((x1 - 1) / 64) as usize {
            for (i, word) in block.iter_mut().enumerate() {
                let y = by * 64 + i as u32;
                *word = if y < src.height { src.row(y)[bx] } else { 0 };
            }
            transpose64(&mut block);
            let base = bx as u32 * 64;
            let column = &mut dst.words[(by as usize + 1) * dst.height as usize..];
            for x in base.max(x0)..(base + 64).min(x1) {
                let word = &mut column[x as usize];
                *word = (*word & !rows) | (block[(x - base) as usize] & rows);
            }
        }
    }
}

// Throughout, `on` means the edit only set pixels, and `!on` that it only cleared them:
// which way a lookup can move depends on it.
impl BitMask {
    /// Sets (`on`) or clears `bits` of word `k` of row `y`, noting what changed.
    #[inline]
    pub(crate) fn apply_bits(
        &mut self,
        y: u32,
        k: usize,
        bits: u64,
        on: bool,
        changed: &mut Changed,
    ) {
        let word = &mut self.words[word_index(k, y as usize, self.height as usize)];
        let old = *word;
        *word = if on { old | bits } else { old & !bits };
        changed.note(y, k, old ^ *word);
    }

    /// Sets or clears pixels `a..b` of row `y` (`a < b ≤ width`), a word at a time.
    fn apply_span(&mut self, y: u32, a: u32, b: u32, on: bool, changed: &mut Changed) {
        for k in (a / 64) as usize..=((b - 1) / 64) as usize {
            self.apply_bits(y, k, word_bits_in(k, a, b), on, changed);
        }
    }

    /// Sets every pixel whose center lies within `radius` of `(cx, cy)`: pixel `(x, y)`
    /// when `dx * dx + dy * dy <= radius * radius` in `f64`, with `dx = x + 0.5 - cx` and
    /// `dy = y + 0.5 - cy` (so a center on a pixel corner and radius 1 fills the 2 × 2
    /// pixels around it). Clipped to the mask.
    ///
    /// A non-finite center or radius, or a negative radius, changes nothing; any finite
    /// value is safe (the work is at most a binary search and a few words per row of the
    /// mask).
    ///
    /// Built lookups are kept, updated only where the circle changed pixels: the changed
    /// rows' spans, the bounding rectangle and circle, the changed columns of the
    /// transposed copy, and the distance field around the edit (left a lower bound
    /// further out; see the module's notes). `benches/terrain.rs` times a crater with
    /// those updates against dropping the lookups (README has the figures).
    ///
    /// ```
    /// use pixel_collide::BitMask;
    ///
    /// let mut terrain = BitMask::solid(100, 50).unwrap();
    /// terrain.erase_circle(50.0, 0.0, 10.0);
    /// assert!(!terrain.get(50, 5) && terrain.get(50, 15));
    /// terrain.fill_circle(50.0, 0.0, 10.0);
    /// assert_eq!(terrain.count(), 100 * 50);
    /// // Nonsense is a no-op, never a panic.
    /// terrain.erase_circle(f64::NAN, 1e300, -3.0);
    /// assert_eq!(terrain.count(), 100 * 50);
    /// ```
    pub fn fill_circle(&mut self, cx: f64, cy: f64, radius: f64) {
        self.draw_circle(cx, cy, radius, true);
    }

    /// Clears the pixels [`BitMask::fill_circle`] would set: carves a crater. Keeps the
    /// built lookups the same way.
    pub fn erase_circle(&mut self, cx: f64, cy: f64, radius: f64) {
        self.draw_circle(cx, cy, radius, false);
    }

    /// [`BitMask::fill_circle`] when `on`, [`BitMask::erase_circle`] otherwise.
    pub fn draw_circle(&mut self, cx: f64, cy: f64, radius: f64, on: bool) {
        if !(cx.is_finite() && cy.is_finite() && radius.is_finite() && radius >= 0.0) {
            return;
        }
        if self.width == 0 || self.height == 0 {
            return;
        }
        let r2 = radius * radius;
        let dy2 = |y: u32| {
            let dy = f64::from(y) + 0.5 - cy;
            dy * dy
        };
        // Rows where dy² ≤ r² can hold pixels (dx² ≥ 0 only adds): an interval around
        // the row nearest the center, since rounding keeps dy² monotone on either side.
        let Some((top, bottom)) = true_interval(self.height, cy, |y| dy2(y) <= r2) else {
            return;
        };
        let mut changed = Changed::default();
        for y in top..=bottom {
            let dy2 = dy2(y);
            let inside = |x: u32| {
                let dx = f64::from(x) + 0.5 - cx;
                dx * dx + dy2 <= r2
            };
            if let Some((a, b)) = true_interval(self.width, cx, inside) {
                self.apply_span(y, a, b + 1, on, &mut changed);
            }
        }
        self.refresh_caches(changed, on);
    }

    /// Sets every pixel that is set in `other` placed at `offset` (pygame's `Mask.draw`).
    /// Keeps the built lookups as [`BitMask::fill_circle`] does, updated only for the
    /// pixels that changed; the work is a few word operations per word of `other`'s
    /// bounding rectangle inside this mask.
    pub fn draw(&mut self, other: &BitMask, offset: (i32, i32)) {
        self.paint(other, offset, true, WordKernel::in_use());
    }

    /// Clears every pixel that is set in `other` placed at `offset` (pygame's
    /// `Mask.erase`). Keeps the built lookups as [`BitMask::erase_circle`] does.
    ///
    /// ```
    /// use pixel_collide::BitMask;
    ///
    /// let mut a = BitMask::solid(8, 8).unwrap();
    /// let hole = BitMask::solid(2, 2).unwrap();
    /// a.erase(&hole, (3, 3));
    /// assert_eq!(a.count(), 60);
    /// assert!(!a.get(4, 4));
    /// a.draw(&hole, (3, 3));
    /// assert_eq!(a.count(), 64);
    /// ```
    pub fn erase(&mut self, other: &BitMask, offset: (i32, i32)) {
        self.paint(other, offset, false, WordKernel::in_use());
    }

    /// [`BitMask::draw`] (`on`) or [`BitMask::erase`] with the given build of the word
    /// loops; one this CPU lacks runs as [`WordKernel::Portable`]. For tests and
    /// benchmarks.
    pub fn paint_using(
        &mut self,
        other: &BitMask,
        offset: (i32, i32),
        on: bool,
        kernel: WordKernel,
    ) {
        self.paint(other, offset, on, kernel.runnable());
    }
}

/// The `i` in `0..n` where `inside(i)` holds, given that it holds on an interval around
/// the index nearest `center` (`i + 0.5` nearest it, clamped to `0..n`), or `None`.
///
/// Two binary searches rather than a square root: `inside` is evaluated exactly as the
/// documented predicate, so rounding can never put a pixel in that the predicate leaves
/// out. `n > 0`.
fn true_interval(n: u32, center: f64, inside: impl Fn(u32) -> bool) -> Option<(u32, u32)> {
    // `floor` of a finite center, clamped: rounding is monotone, so no other index is
    // nearer in f64 either.
    let nearest = center.floor().clamp(0.0, f64::from(n - 1)) as u32;
    if !inside(nearest) {
        return None;
    }
    // First inside index in 0..=nearest.
    let (mut lo, mut hi) = (0u32, nearest);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if inside(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    let first = lo;
    // Last inside index in nearest..n.
    let (mut lo, mut hi) = (nearest, n - 1);
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if inside(mid) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    Some((first, lo))
}
