//! Bringing the lookups up to date after an edit, for the pixels it changed only: row
//! spans, bounding rectangle and circle, the transposed copy and the distance field (see
//! the costs in [`super`]). Apart from the edits themselves because every edit, of words
//! or of circles, ends here, and this is where a lookup's soundness is decided.

use super::{Changed, transpose_region, word_bits_in};
use crate::mask::{
    BitMask, DISTANCE_FIELD_MAX_PIXELS, MaskRect, Row, WordKernel, bounds_from_spans, chamfer,
    circle_from_spans, pixel_span, relax_from_row,
};
use crate::overlap_kernel::with_word_kernel;

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
    /// Brings every built lookup up to date after an edit that set (`on`) or cleared
    /// the pixels noted in `changed`, and no others.
    pub(crate) fn refresh_caches(&mut self, changed: Changed, on: bool) {
        let Some((_, y0, _, y1)) = changed.rect() else {
            return;
        };
        let (words, layout) = (&self.words, self.layout());
        let row = |y: u32| Row::of(words, layout, y as usize);
        let mut changed = changed;
        if let Some(spans) = self.pixel_spans.get_mut() {
            for y in y0..y1 {
                spans[y as usize] = pixel_span(row(y));
            }
            if on && changed.loose {
                // A box only known to hold the set pixels (a transposed copy's, whose
                // columns are the loose rows of a mask): cut to the rows' exact spans,
                // it lies within the set pixels' bounding rectangle, as the bounding
                // rectangle's join needs.
                let (first, end) = x_extent_of_spans(&spans[y0 as usize..y1 as usize]);
                changed.x0 = changed.x0.max(first);
                changed.x1 = changed.x1.min(end);
                changed.loose = false;
            }
        }
        self.refresh_derived(changed, on);
    }

    /// [`BitMask::refresh_caches`] once the row spans of the changed rows are up to date.
    #[inline(always)]
    pub(super) fn refresh_derived(&mut self, changed: Changed, on: bool) {
        if let Some((x0, y0, x1, y1)) = changed.rect() {
            // Rebuilt on the next gap query rather than patched: an edit's neighbourhood
            // can add and remove outline pixels anywhere along the changed rows.
            if self.outline.get().is_some() {
                self.outline = std::sync::OnceLock::new();
            }
            if self.leading_edges.get().is_some() {
                self.leading_edges = std::sync::OnceLock::new();
            }
            let flags = (changed.rows_clear, changed.loose);
            self.refresh_derived_in(x0, y0, x1, y1, on, flags);
        }
    }

    /// [`Self::refresh_derived`] of a changed rectangle, taken as four scalars: passed as
    /// a `Changed`, the edit loops wrote it to memory a field at a time and this read it
    /// back eight bytes at a time, a load that had to wait for those stores to retire (a
    /// failed store-to-load forward), a fifth of this function's time on 32 px edits.
    fn refresh_derived_in(
        &mut self,
        x0: u32,
        y0: u32,
        x1: u32,
        y1: u32,
        on: bool,
        (rows_clear, loose): (bool, bool),
    ) {
        let rect = (x0, y0, x1, y1);
        self.exact_bounds = std::sync::OnceLock::new();
        match self.pixel_spans.get() {
            Some(spans) => {
                let mut moved = true;
                if let Some(bounds) = self.bounds.get_mut() {
                    let old = *bounds;
                    *bounds = updated_bounds(old, spans, (rect, rows_clear), on);
                    moved = *bounds != old;
                }
                if let Some(circle) = self.circle.get_mut() {
                    // Same center, and every changed pixel strictly inside: the farthest
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
            let mut t_changed = Changed {
                loose,
                ..Changed::default()
            };
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
                let lo = row.next_with(x, cx1, !on);
                let hi = row.next_with(lo, cx1, on);
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
            let carry = if rx0 > 0 { row[rx0 - 1] } else { u8::MAX };
            chamfer::sweep_right(&mut row[rx0..rx1], carry);
        }
        for y in (ry0 as usize..ry1 as usize).rev() {
            let (rest, done) = field.split_at_mut((y + 1) * width);
            let row = &mut rest[y * width..];
            if y + 1 < h as usize {
                relax_window(row, &done[..width], rx0, rx1);
            }
            let carry = if rx1 < width { row[rx1] } else { u8::MAX };
            chamfer::sweep_left(&mut row[rx0..rx1], carry);
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
/// from the updated row spans. Inline: as a call it returned the rectangle through
/// memory, and the caller's reload of it waited for the stores (a failed store-to-load
/// forward), a twelfth of a 128 px edit's time.
#[inline(always)]
fn updated_bounds(
    old: Option<MaskRect>,
    spans: &[(u32, u32)],
    ((x0, y0, x1, y1), rows_clear): ((u32, u32, u32, u32), bool),
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
    if !(meets && on_edge) {
        return Some(b);
    }
    // Only the sides the edit reached can move: a side it did not reach keeps the pixels
    // that put it there. The top and bottom move inward to the first row still set (at
    // once, unless the edit cleared whole rows); the left and right are found again from
    // the spans of the rows between, which cost an erase at a 128 px mask's edge a fifth
    // of its time when all four were.
    let rows = &spans[b.y as usize..by1 as usize];
    let set = |&(f, e): &(u32, u32)| f < e;
    // Rows the edit left all clear need no look: they are within the rectangle's (the
    // caller cut the edit's to it), and start at its top when the top moves.
    let (clear_from, clear_to) = if rows_clear {
        ((y0 - b.y) as usize, (y1 - b.y) as usize)
    } else {
        (0, 0)
    };
    let top = if y0 <= b.y {
        clear_to + rows[clear_to..].iter().position(set)?
    } else {
        0
    };
    let bottom = if y1 >= by1 {
        let above = if rows_clear { clear_from } else { rows.len() };
        rows[..above].iter().rposition(set)? + 1
    } else {
        rows.len()
    };
    let rows = &rows[top..bottom];
    let (left, right) = match (x0 <= b.x, x1 >= bx1) {
        (true, true) => x_extent_of_spans(rows),
        (true, false) => (x_extent_of_spans(rows).0, bx1),
        // The right side alone, an erase at a mask's right edge: the ends' maximum, with
        // no firsts looked at.
        (false, true) => (b.x, right_of_spans(rows)),
        (false, false) => (b.x, bx1),
    };
    Some(MaskRect {
        x: left,
        y: b.y + top as u32,
        width: right - left,
        height: (bottom - top) as u32,
    })
}

/// The first set pixel and the end of the last over rows' spans (not all clear), with
/// AVX2 when the CPU has it, as [`bounds_from_spans`]: two quantities a row rather than
/// its four.
fn x_extent_of_spans(spans: &[(u32, u32)]) -> (u32, u32) {
    with_word_kernel!(
        WordKernel::in_use(),
        x_extent_of_spans_of(spans: &[(u32, u32)]) -> (u32, u32)
    )
}

/// The right side of the set pixels in rows with these spans: their ends' maximum (a
/// clear row's end is 0). With AVX-512 or AVX2 as [`x_extent_of_spans`].
fn right_of_spans(spans: &[(u32, u32)]) -> u32 {
    with_word_kernel!(
        WordKernel::in_use(),
        right_of_spans_of(spans: &[(u32, u32)]) -> u32
    )
}

#[inline(always)]
fn right_of_spans_of(spans: &[(u32, u32)]) -> u32 {
    spans.iter().fold(0, |right, &(_, end)| right.max(end))
}

#[inline(always)]
fn x_extent_of_spans_of(spans: &[(u32, u32)]) -> (u32, u32) {
    // In i32 (sizes are at most 2^20): in u32, LLVM leaves it scalar. A clear row's span,
    // (0, 0), adds nothing to the right, and is kept out of the left.
    let (mut left, mut right) = (i32::MAX, 0i32);
    for &(first, end) in spans {
        let (first, end) = (first as i32, end as i32);
        left = left.min(if first < end { first } else { i32::MAX });
        right = right.max(end);
    }
    (left as u32, right as u32)
}
