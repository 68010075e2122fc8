//! Editing a mask in place, as a destructible terrain does: circles and other masks drawn
//! or erased at word speed, with every lookup already built brought up to date for the
//! pixels the edit changed rather than thrown away.
//!
//! What each lookup costs an edit that changed the pixels of a `w × h` rectangle:
//!
//! - row spans (words and pixels): the `h` changed rows rescanned.
//! - bounding rectangle: grown from those rows when pixels were set; when pixels were
//!   cleared, unchanged unless the rectangle reaches its edge, and then found again from
//!   the row spans (a compare per row, no words read).
//! - bounding circle: kept when the rectangle stayed and the change lies strictly inside
//!   the circle (the farthest pixel, on the circle, is then untouched); otherwise found
//!   again from the row spans, a few flops per row of the rectangle.
//! - transposed copy: the changed columns' words rebuilt by 64 × 64 bit-block
//!   transposes, and the copy's own lookups updated the same way.
//! - distance field: see [`BitMask::update_distance_field`]; a bound on its work falls
//!   back to a rebuild on next use when edits have cost as much as one.

use super::{
    BitMask, DISTANCE_FIELD_MAX_PIXELS, MaskRect, bounds_from_spans, circle_from_spans,
    overlap_region, pixel_span, relax_from_row, row_bits_at,
};

/// Where the pixels an edit changed are: columns `x0..x1`, rows `y0..y1`; empty until a
/// change is noted. Their bounding box, or a larger one that still lies within the
/// bounding rectangle of the set pixels after the edit when it set pixels (and before it
/// when it cleared them), which is all the lookups' updates need.
#[derive(Debug, Clone, Copy)]
pub(in crate::collision) struct Changed {
    x0: u32,
    y0: u32,
    x1: u32,
    y1: u32,
}

impl Default for Changed {
    fn default() -> Changed {
        Changed {
            x0: u32::MAX,
            y0: u32::MAX,
            x1: 0,
            y1: 0,
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

    fn rect(self) -> Option<(u32, u32, u32, u32)> {
        (self.x0 < self.x1 && self.y0 < self.y1).then_some((self.x0, self.y0, self.x1, self.y1))
    }
}

/// Bits `lo..hi` of a word (`lo < hi ≤ 64`).
#[inline]
fn bit_range(lo: u32, hi: u32) -> u64 {
    let below_hi = if hi >= 64 { u64::MAX } else { (1u64 << hi) - 1 };
    below_hi & !((1u64 << lo) - 1)
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
pub(in crate::collision) fn transpose_region(
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
            for x in base.max(x0)..(base + 64).min(x1) {
                let word = &mut dst.row_mut(x)[by as usize];
                *word = (*word & !rows) | (block[(x - base) as usize] & rows);
            }
        }
    }
}

/// The first pixel in `from..end` of a row whose state is `set`, or `end` (`end` within
/// the row's width).
fn next_with(row: &[u64], from: u32, end: u32, set: bool) -> u32 {
    if from >= end {
        return end;
    }
    let flip = if set { 0 } else { u64::MAX };
    let mut k = (from / 64) as usize;
    let mut bits = (row[k] ^ flip) & (u64::MAX << (from % 64));
    loop {
        if bits != 0 {
            return (k as u32 * 64 + bits.trailing_zeros()).min(end);
        }
        k += 1;
        if k as u32 * 64 >= end {
            return end;
        }
        bits = row[k] ^ flip;
    }
}

/// Chessboard gap from `v` to the interval `lo..hi`, capped at 255.
#[inline]
fn gap(v: u32, lo: u32, hi: u32) -> u8 {
    let d = if v < lo {
        lo - v
    } else if v >= hi {
        v - hi + 1
    } else {
        0
    };
    d.min(255) as u8
}

/// How far around an edit the distance field is computed again from the pixels, rather
/// than only lowered to stay a bound. Outside it, clear pixels an erase moved away from
/// the ground keep their old, smaller distances, and the walks near a crater settle fewer
/// runs at once. A wider window costs more per edit and leaves fewer such pixels
/// (`benches/terrain.rs` times queries over fresh craters against a rebuilt field).
const FIELD_WINDOW_MARGIN: u32 = 24;

/// A pixel of the clamp pass costs about this fraction of a rebuilt pixel (a vector
/// min/max against two passes of scalar chamfer): what it adds to the debt.
const CLAMP_COST_DIVISOR: u64 = 16;

// Throughout, `on` means the edit only set pixels, and `!on` that it only cleared them:
// which way a lookup can move depends on it.
impl BitMask {
    /// Sets (`on`) or clears `bits` of word `k` of row `y`, noting what changed.
    #[inline]
    pub(in crate::collision) fn apply_bits(
        &mut self,
        y: u32,
        k: usize,
        bits: u64,
        on: bool,
        changed: &mut Changed,
    ) {
        let word = &mut self.row_mut(y)[k];
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

    /// Sets every pixel whose centre lies within `radius` of `(cx, cy)`: pixel `(x, y)`
    /// when `dx * dx + dy * dy <= radius * radius` in `f64`, with `dx = x + 0.5 - cx` and
    /// `dy = y + 0.5 - cy` (so a centre on a pixel corner and radius 1 fills the 2 × 2
    /// pixels around it). Clipped to the mask.
    ///
    /// A non-finite centre or radius, or a negative radius, changes nothing; any finite
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
    /// use pixel_collide::collision::BitMask;
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
        // the row nearest the centre, since rounding keeps dy² monotone on either side.
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
        self.paint(other, offset, true);
    }

    /// Clears every pixel that is set in `other` placed at `offset` (pygame's
    /// `Mask.erase`). Keeps the built lookups as [`BitMask::erase_circle`] does.
    ///
    /// ```
    /// use pixel_collide::collision::BitMask;
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
        self.paint(other, offset, false);
    }

    fn paint(&mut self, other: &BitMask, offset: (i32, i32), on: bool) {
        let (Some((x0, y0, x1, y1)), Some(b)) =
            (overlap_region(self, other, offset), other.cached_bounds())
        else {
            return;
        };
        let (dx, dy) = (i64::from(offset.0), i64::from(offset.1));
        // Only `other`'s set pixels can change anything: clip to its bounding rectangle.
        let clip = |lo: u32, hi: u32, at: i64, b_lo: u32, b_len: u32| {
            let b_lo = at + i64::from(b_lo);
            let lo = i64::from(lo).max(b_lo);
            let hi = i64::from(hi).min(b_lo + i64::from(b_len));
            (lo < hi).then_some((lo as u32, hi as u32))
        };
        let (Some((x0, x1)), Some((y0, y1))) = (
            clip(x0, x1, dx, b.x, b.width),
            clip(y0, y1, dy, b.y, b.height),
        ) else {
            return;
        };
        let keep = self.last_word_bits();
        let wpr = self.words_per_row;
        let mut changed = Changed::default();
        for y in y0..y1 {
            let b_row = other.row((i64::from(y) - dy) as u32);
            for k in (x0 / 64) as usize..=((x1 - 1) / 64) as usize {
                let mut bits = row_bits_at(b_row, k as i64 * 64 - dx);
                if k + 1 == wpr {
                    bits &= keep;
                }
                if bits != 0 {
                    self.apply_bits(y, k, bits, on, &mut changed);
                }
            }
        }
        self.refresh_caches(changed, on);
    }

    /// Brings every built lookup up to date after an edit that set (`on`) or cleared
    /// the pixels noted in `changed`, and no others.
    pub(in crate::collision) fn refresh_caches(&mut self, changed: Changed, on: bool) {
        let Some(rect) = changed.rect() else {
            return;
        };
        let (x0, y0, x1, y1) = rect;
        let stride = self.words_per_row + 2;
        let wpr = self.words_per_row;
        let words = &self.words;
        let row = |y: u32| &words[y as usize * stride + 1..][..wpr];
        if let Some(spans) = self.pixel_spans.get_mut() {
            for y in y0..y1 {
                spans[y as usize] = pixel_span(row(y));
            }
        }
        match self.pixel_spans.get() {
            Some(spans) => {
                let mut moved = true;
                if let Some(bounds) = self.bounds.get_mut() {
                    let old = *bounds;
                    *bounds = updated_bounds(old, spans, rect, on);
                    moved = *bounds != old;
                }
                if let Some(circle) = self.circle.get_mut() {
                    // Same centre, and every changed pixel strictly inside: the farthest
                    // pixel, which sits on the circle, is neither removed nor passed.
                    let kept = !moved && circle.is_some_and(|c| strictly_inside(c, rect));
                    if !kept {
                        let bounds = match self.bounds.get() {
                            Some(&bounds) => bounds,
                            None => bounds_from_spans(spans),
                        };
                        *circle = bounds.map(|b| circle_from_spans(b, spans));
                    }
                }
            }
            // Both are derived from the spans, so they are never built without them; if
            // they were, dropping them is correct.
            None => {
                self.bounds = std::sync::OnceLock::new();
                self.circle = std::sync::OnceLock::new();
            }
        }
        // Taken out to be updated from `self`; `Some(None)` (too large for a copy) stays.
        if let Some(Some(_)) = self.transposed.get()
            && let Some(Some(mut t)) = self.transposed.take()
        {
            transpose_region(self, &mut t, rect);
            let mut t_changed = Changed::default();
            (t_changed.x0, t_changed.y0, t_changed.x1, t_changed.y1) = (y0, x0, y1, x1);
            t.refresh_caches(t_changed, on);
            self.transposed = std::sync::OnceLock::from(Some(t));
        }
        if let Some(Some(_)) = self.distance.get()
            && let Some(Some(mut field)) = self.distance.take()
        {
            let cost = self.update_distance_field(&mut field, rect, on);
            self.distance_debt = self.distance_debt.saturating_add(cost);
            let pixels = u64::from(self.width) * u64::from(self.height);
            if self.distance_debt <= pixels {
                self.distance = std::sync::OnceLock::from(Some(field));
            } else {
                // Edits have cost as much as a rebuild: build it afresh on next use.
                self.distance_debt = 0;
            }
        }
    }

    /// Keeps the distance field a lower bound of the true distance after an edit changed
    /// pixels in `rect` only, and makes it exact-from-the-pixels near the edit. Returns
    /// the work done, in rebuilt-pixel equivalents.
    ///
    /// Why not exact everywhere: moving a terrain's surface down 40 px changes the
    /// distance of every pixel up to 255 px below it, so an exact update touches about as
    /// many pixels as a third of a rebuild. Every reader only needs a lower bound (a
    /// proof that the pixels closer than the value share a state), so:
    ///
    /// 1. Outside `rect`, a pixel's distance can only drop to at least its gap to `rect`
    ///    (every pixel that changed lies in `rect`), and only for pixels of the state the
    ///    edit took away (clearing pixels brings clear pixels nearer to set ones, never
    ///    set ones nearer to set ones). So those pixels, within 255 of `rect`, become
    ///    `min(old, gap)`: one vector min per row, and whole words of the other state are
    ///    skipped.
    /// 2. In `rect` grown by [`FIELD_WINDOW_MARGIN`] the field is computed again: seeds
    ///    from the pixels, then the two chamfer passes over it and a one-pixel ring
    ///    around it, which brings in the (lower-bound) values from outside. Any pixel's
    ///    nearest seed is either inside or reached through the ring, so the result is
    ///    again a lower bound, and exact where the nearest other state is near.
    fn update_distance_field(
        &self,
        field: &mut [u8],
        (x0, y0, x1, y1): (u32, u32, u32, u32),
        on: bool,
    ) -> u64 {
        let (w, h) = (self.width, self.height);
        let width = w as usize;
        if field.len() != width * h as usize || field.len() > DISTANCE_FIELD_MAX_PIXELS {
            return u64::MAX;
        }
        // 1. Lower the pixels around the edit to their gap from it.
        let (cx0, cy0) = (x0.saturating_sub(255), y0.saturating_sub(255));
        let (cx1, cy1) = (x1.saturating_add(255).min(w), y1.saturating_add(255).min(h));
        let x_gap: Vec<u8> = (cx0..cx1).map(|x| gap(x, x0, x1)).collect();
        for y in cy0..cy1 {
            let dy = gap(y, y0, y1);
            let (row, out) = (self.row(y), &mut field[y as usize * width..][..width]);
            // A whole run of such pixels at a time, across words: one vector min over
            // a row under the ground, one or two runs where a row crosses the surface.
            let mut x = cx0;
            while x < cx1 {
                let lo = next_with(row, x, cx1, !on);
                let hi = next_with(row, lo, cx1, on);
                let gaps = &x_gap[(lo - cx0) as usize..(hi - cx0) as usize];
                for (f, &g) in out[lo as usize..hi as usize].iter_mut().zip(gaps) {
                    *f = (*f).min(g.max(dy));
                }
                x = hi;
            }
        }
        // 2. The window: seeds afresh, then both chamfer passes over it and its ring.
        let m = FIELD_WINDOW_MARGIN;
        let (wx0, wy0) = (x0.saturating_sub(m), y0.saturating_sub(m));
        let (wx1, wy1) = (x1.saturating_add(m).min(w), y1.saturating_add(m).min(h));
        for y in wy0..wy1 {
            let out = &mut field[y as usize * width..][..width];
            out[wx0 as usize..wx1 as usize].fill(u8::MAX);
            for k in (wx0 / 64) as usize..=((wx1 - 1) / 64) as usize {
                let mut seeds = self.seed_bits(y, k) & word_bits_in(k, wx0, wx1);
                while seeds != 0 {
                    out[k * 64 + seeds.trailing_zeros() as usize] = 1;
                    seeds &= seeds - 1;
                }
            }
        }
        let (rx0, ry0) = (wx0.saturating_sub(1), wy0.saturating_sub(1));
        let (rx1, ry1) = (wx1.saturating_add(1).min(w), wy1.saturating_add(1).min(h));
        let (rx0, rx1) = (rx0 as usize, rx1 as usize);
        for y in ry0 as usize..ry1 as usize {
            let (done, rest) = field.split_at_mut(y * width);
            let row = &mut rest[..width];
            if y > 0 {
                relax_window(row, &done[(y - 1) * width..][..width], rx0, rx1);
            }
            // The running value stays in a register: reading it back from the row would
            // chain every pixel through a store and a load.
            let mut run = if rx0 > 0 { row[rx0 - 1] } else { u8::MAX };
            for v in &mut row[rx0..rx1] {
                run = (*v).min(run.saturating_add(1));
                *v = run;
            }
        }
        for y in (ry0 as usize..ry1 as usize).rev() {
            let (rest, done) = field.split_at_mut((y + 1) * width);
            let row = &mut rest[y * width..];
            if y + 1 < h as usize {
                relax_window(row, &done[..width], rx0, rx1);
            }
            let mut run = if rx1 < width { row[rx1] } else { u8::MAX };
            for v in row[rx0..rx1].iter_mut().rev() {
                run = (*v).min(run.saturating_add(1));
                *v = run;
            }
        }
        let clamped = u64::from(cx1 - cx0) * u64::from(cy1 - cy0);
        let window = (rx1 - rx0) as u64 * u64::from(ry1 - ry0);
        window + clamped / CLAMP_COST_DIVISOR
    }
}

/// One chamfer step from a neighbouring row for pixels `lo..hi` of `row`, reading the
/// neighbour row's pixels `lo - 1..=hi` where they exist.
fn relax_window(row: &mut [u8], neighbour: &[u8], lo: usize, hi: usize) {
    relax_from_row(&mut row[lo..hi], &neighbour[lo..hi]);
    if lo > 0 {
        row[lo] = row[lo].min(neighbour[lo - 1].saturating_add(1));
    }
    if hi < row.len() {
        row[hi - 1] = row[hi - 1].min(neighbour[hi].saturating_add(1));
    }
}

/// Whether every corner of the pixels in `rect` lies strictly inside the circle. The
/// radius is a rounded square root; comparing square roots (monotone, correctly rounded)
/// keeps the test strict for the exact values too.
fn strictly_inside((cx, cy, r): (f64, f64, f64), (x0, y0, x1, y1): (u32, u32, u32, u32)) -> bool {
    let dx = (cx - f64::from(x0)).abs().max((f64::from(x1) - cx).abs());
    let dy = (cy - f64::from(y0)).abs().max((f64::from(y1) - cy).abs());
    (dx * dx + dy * dy).sqrt() < r
}

/// The bounding rectangle after an edit in `rect` that set (`on`) or cleared pixels,
/// from the updated row spans.
fn updated_bounds(
    old: Option<MaskRect>,
    spans: &[(u32, u32)],
    (x0, y0, x1, y1): (u32, u32, u32, u32),
    on: bool,
) -> Option<MaskRect> {
    if on {
        // Setting pixels only grows it: the old one joined with the changed pixels'.
        // `rect` may be larger than those, but every row's part of it lies within the
        // row's set pixels (see `Changed`), so the join is the same.
        let grown = Some(MaskRect {
            x: x0,
            y: y0,
            width: x1 - x0,
            height: y1 - y0,
        });
        return match (old, grown) {
            (Some(a), Some(b)) => {
                let (left, top) = (a.x.min(b.x), a.y.min(b.y));
                let right = (a.x + a.width).max(b.x + b.width);
                let bottom = (a.y + a.height).max(b.y + b.height);
                Some(MaskRect {
                    x: left,
                    y: top,
                    width: right - left,
                    height: bottom - top,
                })
            }
            (a, b) => a.or(b),
        };
    }
    let b = old?;
    // Clearing pixels can only shrink it, and only by clearing a pixel on its edge.
    let (bx1, by1) = (b.x + b.width, b.y + b.height);
    let meets = x0 < bx1 && b.x < x1 && y0 < by1 && b.y < y1;
    let on_edge = x0 <= b.x || x1 >= bx1 || y0 <= b.y || y1 >= by1;
    if meets && on_edge {
        bounds_from_spans(&spans[b.y as usize..by1 as usize])
            .map(|r| MaskRect { y: r.y + b.y, ..r })
    } else {
        Some(b)
    }
}

/// The `i` in `0..n` where `inside(i)` holds, given that it holds on an interval around
/// the index nearest `centre` (`i + 0.5` nearest it, clamped to `0..n`), or `None`.
///
/// Two binary searches rather than a square root: `inside` is evaluated exactly as the
/// documented predicate, so rounding can never put a pixel in that the predicate leaves
/// out. `n > 0`.
fn true_interval(n: u32, centre: f64, inside: impl Fn(u32) -> bool) -> Option<(u32, u32)> {
    // `floor` of a finite centre, clamped: rounding is monotone, so no other index is
    // nearer in f64 either.
    let nearest = centre.floor().clamp(0.0, f64::from(n - 1)) as u32;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transpose64_swaps_every_bit() {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut a = [0u64; 64];
        for w in a.iter_mut() {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            *w = state;
        }
        let mut t = a;
        transpose64(&mut t);
        for (i, row) in a.iter().enumerate() {
            for (j, column) in t.iter().enumerate() {
                assert_eq!(column >> i & 1, row >> j & 1, "({i}, {j})");
            }
        }
    }

    #[test]
    fn true_interval_finds_the_ends() {
        for n in 1..40u32 {
            for lo in 0..n {
                for hi in lo..n {
                    let c = f64::from(lo + hi) / 2.0 + 0.5;
                    assert_eq!(
                        true_interval(n, c, |i| (lo..=hi).contains(&i)),
                        Some((lo, hi))
                    );
                }
            }
            assert_eq!(true_interval(n, 3.0, |_| false), None);
        }
    }
}
