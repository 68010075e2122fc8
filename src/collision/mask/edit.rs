//! Editing a mask in place, as a destructible terrain does: circles and other masks drawn
//! or erased at word speed, with every lookup already built brought up to date for the
//! pixels the edit changed rather than thrown away.
//!
//! What each lookup costs an edit that changed the pixels of a `w × h` rectangle:
//!
//! - row spans: the `h` changed rows rescanned by circles; a drawn or erased mask's
//!   rows updated from their old spans and the other mask's, after its words are
//!   painted (see `paint_rows`), a look at a row's words only where an erase took away
//!   one of its ends or the mask's edge cut the other's row off. With AVX-512 or AVX2,
//!   rows of three words and more where the other mask's rectangle covers up to 32 words
//!   take their spans from the painted words while they are in registers, from the old
//!   span for the ends outside them (`avx512::paint_rows_fused`, `avx2::paint_rows_fused`
//!   in 4-word steps), and only a row whose
//!   painted words were all erased with one end among them reads its words again.
//! - bounding rectangle: joined with the changed pixels' box when pixels were set; when
//!   pixels were cleared, unchanged unless the rectangle reaches its edge, and then found
//!   again from the row spans of its rows (a compare per row, no words read).
//! - bounding circle: kept when the rectangle stayed and the change lies strictly inside
//!   the circle (the farthest pixel, on the circle, is then untouched); otherwise found
//!   again from the row spans, a few vectorised integer operations per row of the
//!   rectangle.
//! - transposed copy: the changed columns' words rebuilt by 64 × 64 bit-block
//!   transposes, and the copy's own lookups updated the same way.
//! - distance field: see [`BitMask::update_distance_field`]; a bound on its work falls
//!   back to a rebuild on next use when edits have cost as much as one.

use super::{
    BitMask, DISTANCE_FIELD_MAX_PIXELS, MaskRect, WordKernel, bounds_from_spans, circle_from_spans,
    overlap_region, pixel_span, relax_from_row,
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

    /// Notes changes in pixels `lo..hi` of row `y` (none when the range is empty).
    #[inline]
    fn note_span(&mut self, y: u32, lo: u32, hi: u32) {
        if lo < hi {
            self.x0 = self.x0.min(lo);
            self.x1 = self.x1.max(hi);
            self.y0 = self.y0.min(y);
            self.y1 = self.y1.max(y + 1);
        }
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
        }
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

/// The first set pixel in `from..end` of a row, if any (`end` within the row's width).
/// A word at a time: the rows that need it have their pixel within a word or two, or
/// are a few words long.
#[inline(always)]
fn first_set(row: &[u64], from: u32, end: u32) -> Option<u32> {
    if from >= end {
        return None;
    }
    let (mut k, last) = ((from / 64) as usize, ((end - 1) / 64) as usize);
    let mut bits = row[k] & (u64::MAX << (from % 64));
    while bits == 0 {
        k += 1;
        if k > last {
            return None;
        }
        bits = row[k];
    }
    let x = k as u32 * 64 + bits.trailing_zeros();
    (x < end).then_some(x)
}

/// The last set pixel in `lo..end` of a row, if any (`end` within the row's width).
#[inline(always)]
fn last_set_before(row: &[u64], lo: u32, end: u32) -> Option<u32> {
    if lo >= end {
        return None;
    }
    let (first, mut k) = ((lo / 64) as usize, ((end - 1) / 64) as usize);
    let mut bits = row[k] & (u64::MAX >> (63 - (end - 1) % 64));
    while bits == 0 {
        if k == first {
            return None;
        }
        k -= 1;
        bits = row[k];
    }
    let x = k as u32 * 64 + 63 - bits.leading_zeros();
    (x >= lo).then_some(x)
}

#[inline]
fn is_set(row: &[u64], x: u32) -> bool {
    row[(x / 64) as usize] >> (x % 64) & 1 == 1
}

/// The bits of B under one word of A, from B's word there (`low`) and the next (`high`).
#[inline(always)]
fn b_bits<const SHIFTED: bool>(low: u64, high: u64, shift: u32) -> u64 {
    if SHIFTED {
        (low >> shift) | (high << (64 - shift))
    } else {
        low
    }
}

/// Sets (`ON`) or clears `bits` in `word`; the bits that changed.
#[inline(always)]
fn paint_word<const ON: bool>(word: &mut u64, bits: u64) -> u64 {
    let old = *word;
    *word = if ON { old | bits } else { old & !bits };
    old ^ *word
}

/// Where an edit's row loops read, the same in every build: A's words `k0..k1` of each
/// row (those of B's rectangle, columns `x0..x1`), `j`, B's word under A's word k0
/// (counting B's left guard word), and `yb0`, B's row under A's row `y0`. `j` is at least
/// 0, as A's word k0 starts less than 64 pixels before B's first set pixel, and the word
/// after the last read is B's right guard word at most.
#[derive(Debug, Clone, Copy)]
struct Window {
    k0: usize,
    k1: usize,
    j: usize,
    yb0: usize,
}

impl Window {
    /// The window of B at `(dx, dy)` over A's columns `x0..x1` from row `y0` on.
    #[inline(always)]
    fn of((dx, dy): (i64, i64), (x0, y0, x1): (u32, u32, u32)) -> Window {
        let k0 = (x0 / 64) as usize;
        Window {
            k0,
            k1: x1.div_ceil(64) as usize,
            j: (1 + (k0 as i64 * 64 - dx).div_euclid(64)) as usize,
            yb0: (i64::from(y0) - dy) as usize,
        }
    }
}

/// The changed columns `x0..x1` of rows of two words from A's word `k0` on, from the
/// changed bits of each word ORed over the rows (not both zero).
#[inline(always)]
fn two_word_columns(k0: usize, columns: [u64; 2]) -> (u32, u32) {
    let base = k0 as u32 * 64;
    match columns {
        [0, c1] => (
            base + 64 + c1.trailing_zeros(),
            base + 128 - c1.leading_zeros(),
        ),
        [c0, 0] => (base + c0.trailing_zeros(), base + 64 - c0.leading_zeros()),
        [c0, c1] => (base + c0.trailing_zeros(), base + 128 - c1.leading_zeros()),
    }
}

/// [`BitMask::paint`] in rows `y0..y1`, columns `x0..x1` of A (`words`, with `wpr` words a
/// row and `keep`, the bits of a row's last word inside the mask), for one direction
/// (`ON`) and word alignment: A's words and pixel spans. B is its words, their stride and
/// its pixel spans. `make_row` sets up the word loop of one row ([`paint_row`] or an
/// AVX-512 build of it).
///
/// Two passes, each a short loop with nothing in it that the other needs:
///
/// 1. The words. Every row is painted over the same words, those of `x0..x1` (B's
///    bounding rectangle cut to A), so a row costs its word loop and nothing worked out
///    to find its words (B's clear words change nothing).
/// 2. The spans, from the old spans and B's alone (see [`draw_spans`] and
///    [`erase_spans`]): a few compares a row, over two arrays, with no branch; only the
///    rows whose new end that cannot tell (an end erased, or B's row cut off by A's
///    edge) read their words, in a loop of their own.
///
/// A's words and B's are arguments of their own so that LLVM knows they are apart (`&mut`
/// and `&`) and turns the word loop into vector code; inside one function, behind two
/// `Vec`s, it could not tell and left it scalar.
#[inline(always)]
fn paint_rows<const ON: bool, const SHIFTED: bool>(
    words: &mut [u64],
    (wpr, keep): (usize, u64),
    spans: &mut [(u32, u32)],
    (b_words, b_stride, b_spans): (&[u64], usize, &[(u32, u32)]),
    offset: (i32, i32),
    (x0, y0, x1, y1): (u32, u32, u32, u32),
    (cut, exact): (bool, bool),
    make_row: impl MakeRow,
) -> Changed {
    let (dx, dy) = (i64::from(offset.0), i64::from(offset.1));
    let shift = (-dx).rem_euclid(64) as u32;
    let stride = wpr + 2;
    let Window { k0, k1, j, yb0 } = Window::of((dx, dy), (x0, y0, x1));
    let n = k1 - k0;
    let row_keep = if k1 == wpr { keep } else { u64::MAX };
    let mut paint_row = make_row(n, shift, row_keep);
    let rows = (y1 - y0) as usize;
    let a_rows = words[y0 as usize * stride..][..rows * stride].chunks_exact_mut(stride);
    let b_rows = b_words[yb0 * b_stride..][..rows * b_stride].chunks_exact(b_stride);
    // The first and last rows that changed: the others keep their spans.
    let (mut first, mut last) = (usize::MAX, 0);
    for (i, (a_row, b_row)) in a_rows.zip(b_rows).enumerate() {
        // Word k of A's row is at k + 1, after its guard word; B's words from j on, up
        // to its right guard word at most (so within the row).
        let differs = paint_row(&mut a_row[1 + k0..1 + k1], &b_row[j..j + n + 1]) != 0;
        first = first.min(if differs { i } else { usize::MAX });
        last = if differs { i } else { last };
    }
    if first > last {
        return Changed::default();
    }
    let (y0, y1) = (y0 + first as u32, y0 + last as u32 + 1);
    let spans = &mut spans[y0 as usize..y1 as usize];
    let b_spans = &b_spans[yb0 + first..=yb0 + last];
    let a_rows = words[y0 as usize * stride..].chunks_exact(stride);
    // In i32: sizes are at most 2^20 and the region is not empty, so |dx| < 2^21.
    let (dx, x0i, x1i) = (dx as i32, x0 as i32, x1 as i32);
    // The changed pixels' box: the changed rows, and in them B's pixels (and A's, for an
    // erase), when `exact`; else all of B's rectangle's columns, which costs no work per
    // row (the caller cuts an erase's to the bounding rectangle).
    // A draw that A's edge cut needs them too: its rectangle's columns may hold none of
    // B's pixels in A.
    let by_row = exact || (ON && cut);
    let (mut left, mut right) = if by_row { (i32::MAX, 0) } else { (x0i, x1i) };
    if !ON {
        // A row's span stays unless an end of it was in B's pixels: then the new end is
        // the next set pixel inward.
        for ((span, &b_span), row) in spans.iter_mut().zip(b_spans).zip(a_rows) {
            let (_, _, lo, hi) = b_in_a(b_span, dx, x0i, x1i);
            let (f, e) = (span.0 as i32, span.1 as i32);
            let (a, b) = (lo.max(f), hi.min(e));
            if exact && a < b {
                (left, right) = (left.min(a), right.max(b));
            }
            if a < b && (f >= lo || e <= hi) {
                *span = erase_span_after(&row[1..=wpr], *span, (lo as u32, hi as u32));
            }
        }
        return Changed {
            x0: left as u32,
            y0,
            x1: right as u32,
            y1,
        };
    }
    // A draw: each row's span joined with B's pixels, unless A's edge cut B's row off;
    // then they are found in the row's words.
    let mut box_of_cut = Changed::default();
    // Rows whose B pixels are all in A, the first and the last (for a cut B's box).
    let mut whole_rows = (u32::MAX, 0);
    for (((span, &b_span), row), y) in spans.iter_mut().zip(b_spans).zip(a_rows).zip(y0..) {
        let (b_first, b_end, lo, hi) = b_in_a(b_span, dx, x0i, x1i);
        if lo >= hi {
            continue;
        }
        if b_first < lo || b_end > hi {
            let ends = (b_first >= lo, b_end <= hi);
            let (new, drawn) = drawn_span(&row[1..=wpr], *span, (lo as u32, hi as u32), ends);
            *span = new;
            if let Some((a, b)) = drawn {
                box_of_cut.note_span(y, a, b);
            }
            continue;
        }
        if by_row {
            (left, right) = (left.min(lo), right.max(hi));
            whole_rows = (whole_rows.0.min(y), y + 1);
        }
        let (f, e) = (span.0 as i32, span.1 as i32);
        let (f, e) = if f < e {
            (f.min(lo), e.max(hi))
        } else {
            (lo, hi)
        };
        *span = (f as u32, e as u32);
    }
    if !cut {
        // B's pixels, all inside A and all set now: the changed rows, and B's columns
        // (B's rectangle's, or those of its pixels in these rows when `exact`).
        return Changed {
            x0: left as u32,
            y0,
            x1: right as u32,
            y1,
        };
    }
    // A's edge cut B: its rectangle's rows and columns may hold none of its pixels in A.
    // The box of those found, in the rows cut and the others.
    if whole_rows.0 < whole_rows.1 {
        box_of_cut.note_span(whole_rows.0, left as u32, right as u32);
        box_of_cut.note_span(whole_rows.1 - 1, left as u32, right as u32);
    }
    box_of_cut
}

/// B's pixels of a row in A's pixels, `b_first..b_end`, and cut to `x0..x1`, `lo..hi`
/// (empty for a clear row of B: `lo >= hi`).
#[inline(always)]
fn b_in_a((bf, be): (u32, u32), dx: i32, x0: i32, x1: i32) -> (i32, i32, i32, i32) {
    let (b_first, b_end) = (bf as i32 + dx, be as i32 + dx);
    let (lo, hi) = (b_first.max(x0), b_end.min(x1));
    // A clear row of B, (0, 0), gives nothing, as x0 >= dx >= x1 - width.
    let hi = if bf < be { hi } else { lo };
    (b_first, b_end, lo, hi)
}

/// The span of a row after a draw of B's pixels cut to `lo..hi` (cut off by A's edge),
/// from its span before, `(f, e)`, and B's pixels now set in the row, which it also
/// returns (`None` when B has none in `lo..hi`). `whole` tells which of B's ends, left
/// and right, lie inside A: those are set pixels, `lo` and `hi - 1`.
#[inline(always)]
fn drawn_span(
    row: &[u64],
    (f, e): (u32, u32),
    (lo, hi): (u32, u32),
    whole: (bool, bool),
) -> ((u32, u32), Option<(u32, u32)>) {
    // B's pixels in `lo..hi`, now set with A's own there: from A's edge to B's end, where
    // they begin and end (at the edge, most often).
    let first = if whole.0 || is_set(row, lo) {
        lo
    } else {
        match first_set(row, lo, hi) {
            Some(x) => x,
            None => return ((f, e), None),
        }
    };
    let end = if whole.1 || is_set(row, hi - 1) {
        hi
    } else {
        last_set_before(row, first, hi).map_or(first + 1, |x| x + 1)
    };
    let span = if f < e {
        (f.min(first), e.max(end))
    } else {
        (first, end)
    };
    (span, Some((first, end)))
}

/// A row's span after an edit that left all its painted words, pixels `p0..p1`, clear,
/// from its span before, `(f, e)`, in the fused loops: where the span ran from inside
/// them to beyond them (`left` or `right`: it began left of them, or ended right of
/// them), the new end is found in the row's words, `row`; where it lay inside them, the
/// row is clear now.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn span_after_cleared_window(
    row: &[u64],
    (f, e): (u32, u32),
    (p0, p1): (u32, u32),
    (left, right): (bool, bool),
) -> (u32, u32) {
    if right && f >= p0 && f < p1 {
        (first_set(row, p1, e).unwrap_or(e - 1), e)
    } else if left && e > p0 && e <= p1 {
        let last = last_set_before(row, f, p0);
        (f, last.map_or(f + 1, |x| x + 1))
    } else if left || right {
        (f, e)
    } else {
        (0, 0)
    }
}

/// A row's span after a fused loop painted its window, pixels `p0..` (`set`: a bit for
/// each painted word still set, not all clear), from its span before, `(f, e)`: an end
/// that lay outside the window (`left`, `right`) stays, the other is the first or last
/// set pixel of the painted words, `word_at(k)` the k-th of them.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn painted_span(
    (f, e): (u32, u32),
    p0: u32,
    (left, right): (bool, bool),
    set: u32,
    word_at: impl Fn(u32) -> u64,
) -> (u32, u32) {
    let first = if left {
        f
    } else {
        let lf = set.trailing_zeros();
        p0 + lf * 64 + word_at(lf).trailing_zeros()
    };
    let end = if right {
        e
    } else {
        let ll = 31 - set.leading_zeros();
        p0 + ll * 64 + 64 - word_at(ll).leading_zeros()
    };
    (first, end)
}

/// The changed pixels' box of a fused loop's edit: rows `first..=last` from `y0`, and the
/// columns of the changed bits ORed over them, `columns`, a word each from A's pixel
/// `p0` (not all zero).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn changed_in_columns(columns: &[u64], p0: u32, y0: u32, (first, last): (usize, usize)) -> Changed {
    let lo = columns.iter().position(|&w| w != 0).unwrap_or(0);
    let hi = columns.iter().rposition(|&w| w != 0).unwrap_or(0);
    Changed {
        x0: p0 + lo as u32 * 64 + columns[lo].trailing_zeros(),
        y0: y0 + first as u32,
        x1: p0 + hi as u32 * 64 + 64 - columns[hi].leading_zeros(),
        y1: y0 + last as u32 + 1,
    }
}

/// The spans of rows after a draw of B's rows whose pixels all lie in A (their spans in
/// `b_spans`, moved by `dx` into A): each joined with B's pixels in it, or kept where
/// B's row is clear. A row all of whose B pixels were set already keeps its span: they
/// lay inside it.
#[inline(always)]
fn join_b_spans(spans: &mut [(u32, u32)], b_spans: &[(u32, u32)], dx: i32) {
    for (span, &(bf, be)) in spans.iter_mut().zip(b_spans) {
        let (lo, hi) = ((bf as i32 + dx) as u32, (be as i32 + dx) as u32);
        let (f, e) = *span;
        *span = if bf >= be {
            (f, e)
        } else if f < e {
            (f.min(lo), e.max(hi))
        } else {
            (lo, hi)
        };
    }
}

/// A row's span after an erase of B's pixels `lo..hi` from its span before, `(f, e)`,
/// rescanning only from the ends that were erased.
#[inline(always)]
fn erase_span_after(row: &[u64], (f, e): (u32, u32), (lo, hi): (u32, u32)) -> (u32, u32) {
    let first = if f < lo || is_set(row, f) {
        f
    } else {
        match first_set(row, f + 1, e) {
            Some(x) => x,
            None => return (0, 0),
        }
    };
    if e > hi || is_set(row, e - 1) {
        (first, e)
    } else {
        (
            first,
            last_set_before(row, first, e - 1).map_or(first + 1, |x| x + 1),
        )
    }
}

/// Sets up the word loop of one row for [`paint_rows`], once per edit: called with the
/// words a row (`n`), B's `shift` and the `keep` mask of the last word, it gives the
/// loop, which takes the row's `n` words and B's `n + 1` under them and returns nonzero
/// when any word changed (as [`paint_row`]). A closure made inside a function with
/// target features, so that the loop is built with them.
trait MakeRow: FnOnce(usize, u32, u64) -> Self::Row {
    type Row: FnMut(&mut [u64], &[u64]) -> u64;
}

impl<F: FnOnce(usize, u32, u64) -> R, R: FnMut(&mut [u64], &[u64]) -> u64> MakeRow for F {
    type Row = R;
}

/// [`MakeRow`] for [`paint_row`].
#[inline(always)]
fn portable_rows<const ON: bool, const SHIFTED: bool>(
    _: usize,
    shift: u32,
    keep: u64,
) -> impl FnMut(&mut [u64], &[u64]) -> u64 {
    move |a: &mut [u64], b: &[u64]| paint_row::<ON, SHIFTED>(a, b, shift, keep)
}

/// [`paint_rows_of`] for any x86-64 (SSE2 vectors), or for any other target.
fn paint_rows_portable<const ON: bool, const SHIFTED: bool>(
    words: &mut [u64],
    a: (usize, u64),
    spans: &mut [(u32, u32)],
    b: (&[u64], usize, &[(u32, u32)]),
    offset: (i32, i32),
    region: ((u32, u32, u32, u32), bool, bool),
) -> Changed {
    paint_rows_of::<ON, SHIFTED>(
        words,
        a,
        spans,
        b,
        offset,
        region,
        portable_rows::<ON, SHIFTED>,
    )
}

/// [`paint_narrow_rows`] with AVX2, on its own: built inside [`paint_rows_avx2`] beside
/// the wide rows' loops, its span loop came out slower (32 px edits took 10% longer).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
fn paint_narrow_rows_avx2<const ON: bool, const SHIFTED: bool>(
    words: &mut [u64],
    a: (usize, u64),
    spans: &mut [(u32, u32)],
    b: (&[u64], usize, &[(u32, u32)]),
    offset: (i32, i32),
    (region, cut, _): ((u32, u32, u32, u32), bool, bool),
) -> Changed {
    if a.0 == 2 && b.1 == 4 {
        return avx2::paint_two_word_rows::<ON, SHIFTED>(
            words,
            a.1,
            spans,
            (b.0, b.2),
            offset,
            (region, cut),
        );
    }
    paint_narrow_rows::<ON, SHIFTED>(words, a, spans, b, offset, (region, cut))
}

/// [`paint_rows_of`] with AVX2: four words a step in the word loop of wide rows (the
/// rows of a 2,048 px mask take two thirds of the time of the SSE2 build).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
fn paint_rows_avx2<const ON: bool, const SHIFTED: bool>(
    words: &mut [u64],
    a: (usize, u64),
    spans: &mut [(u32, u32)],
    b: (&[u64], usize, &[(u32, u32)]),
    offset: (i32, i32),
    region: ((u32, u32, u32, u32), bool, bool),
) -> Changed {
    let (x0, x1) = (region.0.0, region.0.2);
    let n = (x1.div_ceil(64) - x0 / 64) as usize;
    if a.0 > 2 && n <= avx2::FUSED_WORDS {
        let paint = match n.div_ceil(4) {
            1 => avx2::paint_rows_fused::<ON, SHIFTED, 1>,
            2 => avx2::paint_rows_fused::<ON, SHIFTED, 2>,
            3 => avx2::paint_rows_fused::<ON, SHIFTED, 3>,
            4 => avx2::paint_rows_fused::<ON, SHIFTED, 4>,
            5 => avx2::paint_rows_fused::<ON, SHIFTED, 5>,
            6 => avx2::paint_rows_fused::<ON, SHIFTED, 6>,
            7 => avx2::paint_rows_fused::<ON, SHIFTED, 7>,
            _ => avx2::paint_rows_fused::<ON, SHIFTED, 8>,
        };
        // This function's features are those of `paint_rows_fused`.
        return paint(words, a, spans, b, offset, (region.0, region.1));
    }
    // The row closure is written here, not taken from [`portable_rows`]: a closure
    // inherits the target features of the function it is written in, and one written in
    // `portable_rows` was built for baseline x86-64, scalar, with shifts by `cl`, and
    // called once per row rather than inlined (`perf` on `ring_512_edge` `draw`).
    paint_rows_of::<ON, SHIFTED>(words, a, spans, b, offset, region, |_, shift, keep| {
        move |a: &mut [u64], b: &[u64]| paint_row::<ON, SHIFTED>(a, b, shift, keep)
    })
}

/// [`paint_rows_of`] with AVX-512: a row of up to 8 words is one masked vector step
/// ([`avx512::paint_row`]), with no loop or remainder to set up per row.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt,avx512f,avx512vpopcntdq,avx512vbmi2")]
fn paint_rows_avx512<const ON: bool, const SHIFTED: bool>(
    words: &mut [u64],
    a: (usize, u64),
    spans: &mut [(u32, u32)],
    b: (&[u64], usize, &[(u32, u32)]),
    offset: (i32, i32),
    region: ((u32, u32, u32, u32), bool, bool),
) -> Changed {
    use std::arch::x86_64::*;
    if a.0 == 1 && b.1 == 3 {
        // This function's features include those of `paint_one_word_rows`.
        return avx512::paint_one_word_rows::<ON, SHIFTED>(
            words,
            a.1,
            spans,
            (b.0, b.2),
            offset,
            (region.0, region.1),
        );
    }
    if a.0 == 2 && b.1 == 4 && std::arch::is_x86_feature_detected!("avx512cd") {
        let (words, keep, b_words) = (words, a.1, b.0);
        // SAFETY: this function's features, checked by its caller, and AVX-512 CD,
        // checked just above, are all the features of `paint_two_word_rows`.
        #[allow(unsafe_code)]
        return unsafe {
            avx512::paint_two_word_rows::<ON, SHIFTED>(
                words,
                keep,
                spans,
                (b_words, b.2),
                offset,
                (region.0, region.1),
            )
        };
    }
    let (x0, x1) = (region.0.0, region.0.2);
    let n = (x1.div_ceil(64) - x0 / 64) as usize;
    if a.0 > 2 && n <= 4 && std::arch::is_x86_feature_detected!("avx512vl") {
        // SAFETY: this function's features, and AVX-512 VL, checked just above, are all
        // the features of `ymm::paint_rows_fused`.
        #[allow(unsafe_code)]
        return unsafe {
            avx512::ymm::paint_rows_fused::<ON, SHIFTED, 1>(
                words,
                a,
                spans,
                b,
                offset,
                (region.0, region.1),
            )
        };
    }
    if a.0 > 2 && n <= avx512::WIDE_WORDS {
        let paint = match n.div_ceil(8) {
            1 => avx512::zmm::paint_rows_fused::<ON, SHIFTED, 1>,
            2 => avx512::zmm::paint_rows_fused::<ON, SHIFTED, 2>,
            3 => avx512::zmm::paint_rows_fused::<ON, SHIFTED, 3>,
            _ => avx512::zmm::paint_rows_fused::<ON, SHIFTED, 4>,
        };
        // This function's features are those of `paint_rows_fused`.
        return paint(words, a, spans, b, offset, (region.0, region.1));
    }
    let make_row = |n: usize, shift: u32, keep: u64| {
        // Whole steps of 8 words, then a last step of 1 to 8 (the only one in rows of up
        // to 8 words), whose last word keeps only the bits of `keep`.
        let whole = (n - 1) / 8 * 8;
        let rest = n - whole;
        let step = avx512::Step {
            whole,
            lanes: (u16::MAX >> (16 - rest)) as u8,
            keep: _mm512_mask_set1_epi64(_mm512_set1_epi64(-1), 1 << (rest - 1), keep as i64),
            shift: _mm512_set1_epi64(i64::from(shift)),
        };
        move |a: &mut [u64], b: &[u64]| avx512::paint_row::<ON, SHIFTED>(a, b, &step)
    };
    paint_rows_of::<ON, SHIFTED>(words, a, spans, b, offset, region, make_row)
}

/// [`paint_narrow_rows`] or [`paint_rows`], for one direction (`ON`) and one word
/// alignment: B's pixels are as far from a word boundary in every row, so one shift (or
/// none) serves them all.
#[inline(always)]
fn paint_rows_of<const ON: bool, const SHIFTED: bool>(
    words: &mut [u64],
    a: (usize, u64),
    spans: &mut [(u32, u32)],
    (b_words, b_stride, b_spans): (&[u64], usize, &[(u32, u32)]),
    offset: (i32, i32),
    (region, cut, exact): ((u32, u32, u32, u32), bool, bool),
    make_row: impl MakeRow,
) -> Changed {
    if a.0 <= 2 {
        let b = (b_words, b_stride, b_spans);
        paint_narrow_rows::<ON, SHIFTED>(words, a, spans, b, offset, (region, cut))
    } else {
        paint_rows::<ON, SHIFTED>(
            words,
            a,
            spans,
            (b_words, b_stride, b_spans),
            offset,
            region,
            (cut, exact),
            make_row,
        )
    }
}

/// [`paint_rows`] for masks of one or two words a row (up to 128 px wide, most sprites),
/// where a row costs a few instructions and anything worked out per row would cost as
/// much as the row: every row of B's rectangle is painted and its span taken from its
/// words, with no branch but the loop's.
#[inline(always)]
fn paint_narrow_rows<const ON: bool, const SHIFTED: bool>(
    words: &mut [u64],
    (wpr, keep): (usize, u64),
    spans: &mut [(u32, u32)],
    (b_words, b_stride, b_spans): (&[u64], usize, &[(u32, u32)]),
    offset: (i32, i32),
    ((x0, y0, x1, y1), cut): ((u32, u32, u32, u32), bool),
) -> Changed {
    let (dx, dy) = (i64::from(offset.0), i64::from(offset.1));
    let shift = (-dx).rem_euclid(64) as u32;
    let stride = wpr + 2;
    let Window { k0, k1, j, yb0 } = Window::of((dx, dy), (x0, y0, x1));
    let two = k1 - k0 == 2;
    let last_keep = if k1 == wpr { keep } else { u64::MAX };
    // A's rows and B's words under them, from B's row `yb0` on.
    let a = &mut words[y0 as usize * stride..y1 as usize * stride];
    let b = &b_words[yb0 * b_stride + j..][..(y1 - y0 - 1) as usize * b_stride + 3];
    let paint = (a, (b, b_stride), shift, last_keep);
    // The row's width and B's word under A's first one fixed at compile time: the loop
    // then has no branch on them and no bounds check on the words of a row (with them
    // it kept half its values on the stack).
    let (first_row, end_row, columns) = match (wpr, two, k0) {
        (1, _, _) => paint_narrow::<ON, SHIFTED, 3, 0, false>(paint),
        (_, true, _) => paint_narrow::<ON, SHIFTED, 4, 0, true>(paint),
        (_, false, 0) => paint_narrow::<ON, SHIFTED, 4, 0, false>(paint),
        _ => paint_narrow::<ON, SHIFTED, 4, 1, false>(paint),
    };
    if first_row >= end_row {
        return Changed::default();
    }
    let b_rows = yb0 + first_row as usize..yb0 + end_row as usize;
    let (first_row, end_row) = (y0 + first_row, y0 + end_row);
    let spans = &mut spans[first_row as usize..end_row as usize];
    if ON && !cut {
        // B's pixels, all inside A, are all set now: each span joined with B's.
        join_b_spans(spans, &b_spans[b_rows], dx as i32);
    } else {
        // A loop of its own: in the one above it cost more than the painting, for want
        // of registers.
        let rows = &words[first_row as usize * stride..end_row as usize * stride];
        if wpr == 1 {
            narrow_spans::<3>(spans, rows);
        } else {
            narrow_spans::<4>(spans, rows);
        }
    }
    // Exactly the changed pixels' box: the columns from the changed bits.
    let (cx0, cx1) = two_word_columns(k0, columns);
    Changed {
        x0: cx0,
        y0: first_row,
        x1: cx1,
        y1: end_row,
    }
}

/// [`paint_narrow_rows`]' word loop for rows of `STRIDE` words (guards included), B's
/// rectangle over A's word `K0`, and `TWO` words of it: `a` is A's rows, `b` B's words
/// under the first, then each row `b_stride` on. Returns the first and past-the-last
/// changed row (relative to the first) and the changed bits of each word, ORed.
#[inline(always)]
fn paint_narrow<
    const ON: bool,
    const SHIFTED: bool,
    const STRIDE: usize,
    const K0: usize,
    const TWO: bool,
>(
    (a, (b, b_stride), shift, last_keep): (&mut [u64], (&[u64], usize), u32, u64),
) -> (u32, u32, [u64; 2]) {
    let (mut first_row, mut end_row, mut columns) = (u32::MAX, 0, [0u64; 2]);
    let (a_rows, _) = a.as_chunks_mut::<STRIDE>();
    let b_rows = b.windows(3).step_by(b_stride);
    for ((row, b), y) in a_rows.iter_mut().zip(b_rows).zip(0u32..) {
        let (d0, d1) = if TWO {
            let low = b_bits::<SHIFTED>(b[0], b[1], shift);
            let high = b_bits::<SHIFTED>(b[1], b[2], shift) & last_keep;
            (
                paint_word::<ON>(&mut row[1 + K0], low),
                paint_word::<ON>(&mut row[2 + K0], high),
            )
        } else {
            let bits = b_bits::<SHIFTED>(b[0], b[1], shift) & last_keep;
            (paint_word::<ON>(&mut row[1 + K0], bits), 0)
        };
        columns[0] |= d0;
        columns[1] |= d1;
        let differs = d0 | d1 != 0;
        first_row = first_row.min(if differs { y } else { u32::MAX });
        end_row = end_row.max(if differs { y + 1 } else { 0 });
    }
    (first_row, end_row, columns)
}

/// The spans of rows of one or two words (`rows`, `STRIDE` words a row with their guard
/// words), word by word.
///
/// Not inlined, so that it is built for the baseline target whatever edit loop calls it:
/// inlined into the AVX2 build, LLVM vectorised this loop with a count of leading zeros
/// made of two dozen vector operations (AVX2 has no vector `lzcnt`), and on 32 px masks
/// it took as long as the painting. The row's length is a constant because `chunks_exact`
/// by a length known only at run time divides by it, a fifth of this loop's time there.
#[inline(never)]
fn narrow_spans<const STRIDE: usize>(spans: &mut [(u32, u32)], rows: &[u64]) {
    let (rows, _) = rows.as_chunks::<STRIDE>();
    for (span, row) in spans.iter_mut().zip(rows) {
        *span = span_of_two(row[1], if STRIDE == 4 { row[2] } else { 0 });
    }
}

/// [`pixel_span`] of a row of two words (the second 0 for a one-word row), with selects
/// rather than branches.
#[inline(always)]
fn span_of_two(w0: u64, w1: u64) -> (u32, u32) {
    let first = if w0 != 0 {
        w0.trailing_zeros()
    } else {
        64 + w1.trailing_zeros()
    };
    let end = if w1 != 0 {
        128 - w1.leading_zeros()
    } else {
        64 - w0.leading_zeros()
    };
    if w0 | w1 == 0 { (0, 0) } else { (first, end) }
}

/// Sets (`ON`) or clears in `a`, a row's words, the bits of `b` that line up with them:
/// word `i` of `a` takes bits `shift..64` of `b[i]` and `0..shift` of `b[i + 1]` (`b` is
/// one word longer than `a`; `shift` is 0 unless `SHIFTED`), and the last word only
/// those in `keep`. Returns the bits that changed, ORed over the words.
#[inline(always)]
fn paint_row<const ON: bool, const SHIFTED: bool>(
    a: &mut [u64],
    b: &[u64],
    shift: u32,
    keep: u64,
) -> u64 {
    let Some((last, body)) = a.split_last_mut() else {
        return 0;
    };
    let n = body.len();
    let mut differs = 0;
    for ((word, &low), &high) in body.iter_mut().zip(&b[..n]).zip(&b[1..=n]) {
        differs |= paint_word::<ON>(word, b_bits::<SHIFTED>(low, high, shift));
    }
    differs | paint_word::<ON>(last, b_bits::<SHIFTED>(b[n], b[n + 1], shift) & keep)
}

/// [`paint_row`] on AVX-512: eight words a step, the last step (the only one for rows of
/// up to 8 words) by masked loads and a masked store, which touch only the lanes inside
/// the row.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    /// The most of A's words a row [`paint_rows_fused`] paints (2,048 px), in up to 8
    /// steps. Past 4 steps the painted words and changed bits no longer all fit in the
    /// 16 vector registers, yet 2,048 px erases still took a third to a half less time
    /// than with the two-pass loop (`disc_2048_centred` `erase` 118-150 µs → 67-94 µs,
    /// alternating runs on an AMD EPYC Zen 3).
    pub(super) const FUSED_WORDS: usize = 4 * 8;

    /// The lanes whose 64-bit value is nonzero, a bit each (`vmovmskpd` of a compare).
    #[inline]
    #[target_feature(enable = "avx2")]
    fn nonzero_lanes(v: __m256i) -> u32 {
        let zero = _mm256_cmpeq_epi64(v, _mm256_setzero_si256());
        !(_mm256_movemask_pd(_mm256_castsi256_pd(zero)) as u32) & 0xf
    }

    /// [`super::paint_narrow_rows`] for a mask of two words a row (65 to 128 px) and
    /// another as wide, one row a vector: both have rows of 4 words with their guard
    /// words, so B's word under each of A's is the same distance on in memory, row after
    /// row, and each row is one unmasked load, paint and store of its 4 words, a lane mask
    /// keeping the guard words and those outside B's rectangle as they are. The spans of
    /// the changed rows are then taken from their words as in the scalar build. (The
    /// scalar row loop kept its values on the stack, with bounds checks per row: a 128 px
    /// erase took 3.8 times pygame's time on an AMD EPYC Zen 3.)
    #[inline]
    #[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
    pub(super) fn paint_two_word_rows<const ON: bool, const SHIFTED: bool>(
        words: &mut [u64],
        keep: u64,
        spans: &mut [(u32, u32)],
        (b_words, b_spans): (&[u64], &[(u32, u32)]),
        offset: (i32, i32),
        ((x0, y0, x1, y1), cut): ((u32, u32, u32, u32), bool),
    ) -> super::Changed {
        let (dx, dy) = (i64::from(offset.0), i64::from(offset.1));
        let super::Window { k0, k1, j, yb0 } = super::Window::of((dx, dy), (x0, y0, x1));
        let rows = (y1 - y0) as usize;
        let width = (k1 - k0) as i64;
        // Row r's vector is A's 4 words from word k0 of row r on: lanes below `width` are
        // painted, the others (guard words, the next row's first) written back unchanged.
        // The last row's vector reaches into the zero row after the mask's last row, and
        // B's (and one word more for the shifted bits) into B's.
        let a = &mut words[4 * y0 as usize + 1 + k0..][..4 * rows];
        let b = &b_words[4 * yb0 + j..][..4 * rows + 1];
        let lanes = _mm256_setr_epi64x(0, 1, 2, 3);
        let painted = _mm256_cmpgt_epi64(_mm256_set1_epi64x(width), lanes);
        let keep = if k1 == 2 {
            let last = _mm256_cmpeq_epi64(_mm256_set1_epi64x(1 - k0 as i64), lanes);
            _mm256_blendv_epi8(painted, _mm256_set1_epi64x(keep as i64), last)
        } else {
            painted
        };
        let shift = (-dx).rem_euclid(64);
        let (right, left) = (_mm256_set1_epi64x(shift), _mm256_set1_epi64x(64 - shift));
        let (a_base, b_base) = (a.as_mut_ptr(), b.as_ptr());
        let mut columns = _mm256_setzero_si256();
        let (mut first, mut last) = (usize::MAX, 0);
        for r in 0..rows {
            // SAFETY: A's 4 words from 4 r on are in `a` (4 × rows long), B's 4 from 4 r
            // and 4 r + 1 on in `b` (4 × rows + 1).
            #[allow(unsafe_code)]
            let (old, new) = unsafe {
                let row = a_base.add(4 * r).cast::<__m256i>();
                let low = b_base.add(4 * r).cast::<__m256i>();
                let old = _mm256_loadu_si256(row);
                let bits = if SHIFTED {
                    _mm256_or_si256(
                        _mm256_srlv_epi64(_mm256_loadu_si256(low), right),
                        _mm256_sllv_epi64(_mm256_loadu_si256(b_base.add(4 * r + 1).cast()), left),
                    )
                } else {
                    _mm256_loadu_si256(low)
                };
                let bits = _mm256_and_si256(bits, keep);
                let new = if ON {
                    _mm256_or_si256(old, bits)
                } else {
                    _mm256_andnot_si256(bits, old)
                };
                _mm256_storeu_si256(row, new);
                (old, new)
            };
            let changed = _mm256_xor_si256(old, new);
            columns = _mm256_or_si256(columns, changed);
            let differs = nonzero_lanes(changed) != 0;
            first = first.min(if differs { r } else { usize::MAX });
            last = if differs { r } else { last };
        }
        if first == usize::MAX {
            return super::Changed::default();
        }
        let mut c = [0u64; 4];
        // SAFETY: a 32-byte store into a 4-word array.
        #[allow(unsafe_code)]
        unsafe {
            _mm256_storeu_si256(c.as_mut_ptr().cast(), columns)
        };
        let (cx0, cx1) = super::two_word_columns(k0, [c[0], c[1]]);
        let (ya, yb) = (y0 as usize + first, y0 as usize + last + 1);
        if ON && !cut {
            // B's pixels, all inside A, are all set now: each span joined with B's.
            let b_rows = yb0 + first..yb0 + last + 1;
            super::join_b_spans(&mut spans[ya..yb], &b_spans[b_rows], dx as i32);
        } else {
            super::narrow_spans::<4>(&mut spans[ya..yb], &words[4 * ya..4 * yb]);
        }
        super::Changed {
            x0: cx0,
            y0: ya as u32,
            x1: cx1,
            y1: yb as u32,
        }
    }

    /// [`super::avx512::zmm::paint_rows_fused`] with AVX2: rows of three words and more where
    /// B's rectangle covers at most [`FUSED_WORDS`] of A's words, each row in `STEPS`
    /// (1 to 8) steps of 4 words, and its new span worked out from the painted words while
    /// they are in registers, by the same rules. The last step reads B's words with its
    /// lanes past the window masked (`vpmaskmovq`), but loads and stores all 4 of A's,
    /// those past the window unchanged: on AMD cores a masked store is slow, and with
    /// one it took a third of this loop's time (`perf`, Zen 3). Before it, an AVX2 CPU
    /// painted the rows in one pass and found the spans of rows whose ends were erased or
    /// cut in a second that read the words again: 512 px edits took 1.3 to 4.8 times
    /// pygame's time on an AMD EPYC Zen 3 (benches/README.md).
    #[inline]
    #[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
    pub(super) fn paint_rows_fused<const ON: bool, const SHIFTED: bool, const STEPS: usize>(
        words: &mut [u64],
        (wpr, keep): (usize, u64),
        spans: &mut [(u32, u32)],
        (b_words, b_stride, b_spans): (&[u64], usize, &[(u32, u32)]),
        offset: (i32, i32),
        ((x0, y0, x1, y1), cut): ((u32, u32, u32, u32), bool),
    ) -> super::Changed {
        let (dx, dy) = (i64::from(offset.0), i64::from(offset.1));
        let stride = wpr + 2;
        let super::Window { k0, k1, j, yb0 } = super::Window::of((dx, dy), (x0, y0, x1));
        let n = k1 - k0;
        assert!(n.div_ceil(4) == STEPS);
        // Steps of 4 words, the last of 1 to 4, whose last word keeps only `keep`.
        let rest = (n - (STEPS - 1) * 4) as i64;
        let last_lanes =
            _mm256_cmpgt_epi64(_mm256_set1_epi64x(rest), _mm256_setr_epi64x(0, 1, 2, 3));
        let keep_in_row = if k1 == wpr {
            let is_last =
                _mm256_cmpeq_epi64(_mm256_set1_epi64x(rest - 1), _mm256_setr_epi64x(0, 1, 2, 3));
            _mm256_blendv_epi8(
                _mm256_set1_epi64x(-1),
                _mm256_set1_epi64x(keep as i64),
                is_last,
            )
        } else {
            _mm256_set1_epi64x(-1)
        };
        // B's bits past the window are cleared, so that those words of A stay as they are.
        let last_keep = _mm256_and_si256(keep_in_row, last_lanes);
        let shift = (-dx).rem_euclid(64);
        let (right, left) = (_mm256_set1_epi64x(shift), _mm256_set1_epi64x(64 - shift));
        let (p0, p1) = (k0 as u32 * 64, k1 as u32 * 64);
        let rows = (y1 - y0) as usize;
        // As in the AVX-512 loop: raw pointers into slices checked here to hold every row,
        // and for A the 2 words after the last row that its last step's full vector can
        // reach (the zero row after the mask's last row holds them).
        let a = &mut words[y0 as usize * stride..][..rows * stride + 2];
        let b = &b_words[yb0 * b_stride + j..][..(rows - 1) * b_stride + n + 1];
        let spans = &mut spans[y0 as usize..y1 as usize];
        let (a_base, b_base) = (a.as_mut_ptr(), b.as_ptr());
        // A draw of B's pixels all inside A: each changed row's new span is its old one
        // joined with B's row, after the loop, from B's spans alone and with no work
        // in this loop.
        let spans_from_b = ON && !cut;
        let (mut first_row, mut last_row) = (usize::MAX, 0);
        let mut columns = [_mm256_setzero_si256(); STEPS];
        for (i, span) in spans.iter_mut().enumerate() {
            let mut news = [_mm256_setzero_si256(); STEPS];
            let mut differs = 0u32;
            for (st, (columns, news)) in columns.iter_mut().zip(&mut news).enumerate() {
                let last = st + 1 == STEPS;
                // SAFETY: row i's words k0 + 4 st.. are at i × stride + 1 + k0 + 4 st on in
                // `a`: 4 of them, the last step's up to k1 + 3 ≤ wpr + 3, which for the
                // last row is at most rows × stride + 1, inside `a` as sliced above. B's
                // under them (4, or in the last step the lanes of `last_lanes`, within
                // k0..k1, and one more) lie in `b`; its masked-off lanes are not read (nor
                // can they fault).
                #[allow(unsafe_code)]
                let (old, new) = unsafe {
                    let row = a_base.add(i * stride + 1 + k0 + 4 * st).cast::<i64>();
                    let low = b_base.add(i * b_stride + 4 * st).cast::<i64>();
                    let load = |at: *const i64| {
                        if last {
                            _mm256_maskload_epi64(at, last_lanes)
                        } else {
                            _mm256_loadu_si256(at.cast())
                        }
                    };
                    let old = _mm256_loadu_si256(row.cast());
                    let bits = if SHIFTED {
                        _mm256_or_si256(
                            _mm256_srlv_epi64(load(low), right),
                            _mm256_sllv_epi64(load(low.add(1)), left),
                        )
                    } else {
                        load(low)
                    };
                    let bits = if last {
                        _mm256_and_si256(bits, last_keep)
                    } else {
                        bits
                    };
                    let new = if ON {
                        _mm256_or_si256(old, bits)
                    } else {
                        _mm256_andnot_si256(bits, old)
                    };
                    _mm256_storeu_si256(row.cast(), new);
                    (old, new)
                };
                let changed = _mm256_xor_si256(old, new);
                differs |= nonzero_lanes(changed);
                *columns = _mm256_or_si256(*columns, changed);
                *news = new;
            }
            if differs == 0 {
                continue;
            }
            first_row = first_row.min(i);
            last_row = i;
            if spans_from_b {
                continue;
            }
            let (f, e) = *span;
            let (left, right) = (f < e && f < p0, f < e && e > p1);
            if left && right {
                continue;
            }
            // The set words of the painted ones, a bit each (the last step's lanes past
            // the window hold A's words there, which are not painted).
            let mut set = 0u32;
            for (st, new) in news.iter().enumerate() {
                set |= nonzero_lanes(*new) << (4 * st);
            }
            set &= u32::MAX >> (32 - n);
            if set == 0 {
                let a_row = &a[i * stride + 1..][..wpr];
                *span = super::span_after_cleared_window(a_row, *span, (p0, p1), (left, right));
                continue;
            }
            // The row's painted words, now stored: read back as plain words.
            let painted = &a[i * stride + 1 + k0..][..n];
            *span = super::painted_span(*span, p0, (left, right), set, |k| painted[k as usize]);
        }
        if first_row > last_row {
            return super::Changed::default();
        }
        if spans_from_b {
            let rows = first_row..=last_row;
            let b_rows = yb0 + first_row..=yb0 + last_row;
            super::join_b_spans(&mut spans[rows], &b_spans[b_rows], dx as i32);
        }
        // The changed columns: the first and last word with changed bits.
        let mut c = [0u64; FUSED_WORDS];
        for (st, v) in columns.iter().enumerate() {
            // SAFETY: `c` holds 4 words from 4 st on.
            #[allow(unsafe_code)]
            unsafe {
                _mm256_storeu_si256(c[4 * st..][..4].as_mut_ptr().cast(), *v)
            };
        }
        super::changed_in_columns(&c, p0, y0, (first_row, last_row))
    }
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use std::arch::x86_64::*;

    /// The most of A's words a row [`paint_rows_fused`] paints (2,048 px); wider
    /// rectangles take [`super::paint_rows`].
    pub(super) const WIDE_WORDS: usize = 4 * 8;

    /// What is the same in every row of an edit: the words in whole steps before the
    /// last, the last step's lanes and `keep` mask (all ones but in the row's last word),
    /// and B's shift in every lane.
    pub(super) struct Step {
        pub(super) whole: usize,
        pub(super) lanes: __mmask8,
        pub(super) keep: __m512i,
        pub(super) shift: __m512i,
    }

    /// One step of [`paint_one_word_rows`] and [`paint_two_word_rows`], whose rows' words
    /// are one run in A and in B: the lanes of `lanes` of A's 8 words from `a` set (`ON`)
    /// or cleared where B's, from `b` (with the word after, shifted right by `shift`
    /// when `SHIFTED`) and `keep` have bits. Returns the words before and after.
    ///
    /// # Safety
    ///
    /// Every lane of `lanes` must be a word of A at `a` and of B at `b` (and at `b + 1`
    /// when `SHIFTED`). Masked-off lanes are neither read nor written (nor can they
    /// fault).
    #[inline]
    #[target_feature(enable = "avx512f,avx512vbmi2")]
    #[allow(unsafe_code)]
    unsafe fn paint_run_step<const ON: bool, const SHIFTED: bool>(
        a: *mut u64,
        b: *const u64,
        lanes: u8,
        (shift, keep): (__m512i, __m512i),
    ) -> (__m512i, __m512i) {
        // SAFETY: the caller's, above.
        unsafe {
            let old = _mm512_maskz_loadu_epi64(lanes, a.cast());
            let low = _mm512_maskz_loadu_epi64(lanes, b.cast());
            let bits = if SHIFTED {
                let high = _mm512_maskz_loadu_epi64(lanes, b.add(1).cast());
                _mm512_shrdv_epi64(low, high, shift)
            } else {
                low
            };
            let bits = _mm512_and_si512(bits, keep);
            let new = if ON {
                _mm512_or_si512(old, bits)
            } else {
                _mm512_andnot_si512(bits, old)
            };
            _mm512_mask_storeu_epi64(a.cast(), lanes, new);
            (old, new)
        }
    }

    /// [`super::paint_narrow_rows`] for a mask of one word a row (up to 64 px) and
    /// another as narrow: both have rows of 3 words with their guard words, so, as in
    /// [`paint_two_word_rows`], B's word under each of A's is the same distance on in
    /// memory row after row, and the edit is one loop over the words of all the rows,
    /// eight words (two or three rows) a vector, with a lane mask that leaves out the
    /// guard words; the rows' one word lies every third word, so the mask repeats every
    /// three vectors. Row by row, the loop cost some twenty instructions a row, as many
    /// for the rows' bookkeeping as for their word.
    #[inline]
    #[target_feature(enable = "avx512f,avx512vbmi2")]
    pub(super) fn paint_one_word_rows<const ON: bool, const SHIFTED: bool>(
        words: &mut [u64],
        keep: u64,
        spans: &mut [(u32, u32)],
        (b_words, b_spans): (&[u64], &[(u32, u32)]),
        offset: (i32, i32),
        ((x0, y0, x1, y1), cut): ((u32, u32, u32, u32), bool),
    ) -> super::Changed {
        let (dx, dy) = (i64::from(offset.0), i64::from(offset.1));
        let super::Window { j, yb0, .. } = super::Window::of((dx, dy), (x0, y0, x1));
        let rows = (y1 - y0) as usize;
        // From A's word of the first row: row r's word is word 3r, B's under it 3r on.
        let len = 3 * (rows - 1) + 1;
        let a = &mut words[3 * y0 as usize + 1..][..len];
        let b = &b_words[3 * yb0 + j..][..len + 1];
        // Every painted word is its row's last.
        let keep = _mm512_set1_epi64(keep as i64);
        let shift = _mm512_set1_epi64((-dx).rem_euclid(64));
        let (a_base, b_base) = (a.as_mut_ptr(), b.as_ptr());
        let mut columns = _mm512_setzero_si512();
        let (mut first, mut last) = ((usize::MAX, 0u8), (0usize, 0u8));
        // The painted lanes of steps 0, 1 and 2 (words 3r: lanes 0, 3, 6; then 1, 4, 7;
        // then 2, 5), in turn, a byte each.
        let mut turns = 0x24_92_49u32;
        for s in (0..len).step_by(8) {
            let lanes = (turns as u8) & (u16::MAX >> (16 - (len - s).min(8))) as u8;
            turns = (turns >> 8) | ((turns & 0xFF) << 16);
            // SAFETY: lane l is read or written only when its bit of `lanes` is set, only
            // when s + l < len: `a` holds it, and `b` holds it and the word after.
            #[allow(unsafe_code)]
            let (old, new) = unsafe {
                paint_run_step::<ON, SHIFTED>(a_base.add(s), b_base.add(s), lanes, (shift, keep))
            };
            columns = _mm512_or_si512(columns, _mm512_xor_si512(old, new));
            let differs = _mm512_cmpneq_epi64_mask(old, new);
            if differs != 0 {
                if first.0 == usize::MAX {
                    first = (s, differs);
                }
                last = (s, differs);
            }
        }
        if first.0 == usize::MAX {
            return super::Changed::default();
        }
        let first = (first.0 + first.1.trailing_zeros() as usize) / 3;
        let last = (last.0 + 7 - last.1.leading_zeros() as usize) / 3;
        let c = _mm512_reduce_or_epi64(columns) as u64;
        let (ya, yb) = (y0 as usize + first, y0 as usize + last + 1);
        if ON && !cut {
            // B's pixels, all inside A, are all set now: each span joined with B's.
            let b_rows = yb0 + first..yb0 + last + 1;
            super::join_b_spans(&mut spans[ya..yb], &b_spans[b_rows], dx as i32);
        } else if std::arch::is_x86_feature_detected!("avx512cd") {
            // SAFETY: this function's features, and CD, checked just above, are all the
            // features of `one_word_spans`.
            #[allow(unsafe_code)]
            unsafe {
                one_word_spans(&words[3 * ya..3 * yb], &mut spans[ya..yb])
            };
        } else {
            super::narrow_spans::<3>(&mut spans[ya..yb], &words[3 * ya..3 * yb]);
        }
        super::Changed {
            x0: c.trailing_zeros(),
            y0: ya as u32,
            x1: 64 - c.leading_zeros(),
            y1: yb as u32,
        }
    }

    /// [`super::paint_narrow_rows`] for a mask of two words a row (65 to 128 px) and
    /// another as wide: both have rows of 4 words with their guard words, so B's word
    /// under each of A's is the same distance on in memory, row after row, and the edit
    /// is one loop over the words of all the rows, two rows a vector, with a lane mask
    /// that leaves out the guard words and the words outside B's rectangle. The spans of
    /// the changed rows are then taken from their words two rows a vector (first and last
    /// set pixel by lane counts), with no branch per row. `b_words` are B's words.
    #[inline]
    #[target_feature(enable = "avx512f,avx512cd,avx512vpopcntdq,avx512vbmi2")]
    pub(super) fn paint_two_word_rows<const ON: bool, const SHIFTED: bool>(
        words: &mut [u64],
        keep: u64,
        spans: &mut [(u32, u32)],
        (b_words, b_spans): (&[u64], &[(u32, u32)]),
        offset: (i32, i32),
        ((x0, y0, x1, y1), cut): ((u32, u32, u32, u32), bool),
    ) -> super::Changed {
        let (dx, dy) = (i64::from(offset.0), i64::from(offset.1));
        let super::Window { k0, k1, j, yb0 } = super::Window::of((dx, dy), (x0, y0, x1));
        let rows = (y1 - y0) as usize;
        // From A's word k0 of the first row: lane l of a step is word k0 + l % 4 (a guard
        // word past 1) of row 2 × step + l / 4, and in B the word under it.
        let width = k1 - k0;
        let len = 4 * (rows - 1) + width;
        let a = &mut words[4 * y0 as usize + 1 + k0..][..len];
        let b = &b_words[4 * yb0 + j..][..len + 1];
        let painted = ((1u8 << width) - 1) * 0x11;
        let keep = if k1 == 2 {
            let last = 1 - k0 as u8;
            _mm512_mask_set1_epi64(
                _mm512_set1_epi64(-1),
                (1 << last) | (16 << last),
                keep as i64,
            )
        } else {
            _mm512_set1_epi64(-1)
        };
        let shift = _mm512_set1_epi64((-dx).rem_euclid(64));
        let (a_base, b_base) = (a.as_mut_ptr(), b.as_ptr());
        let mut columns = _mm512_setzero_si512();
        // One step of two rows: the lanes of `lanes` painted, the changed ones returned.
        let mut step = |s: usize, lanes: u8| {
            // SAFETY: lane l is read or written only when its bit of `lanes` is set, and
            // the callers set it only when s + l < len: `a` holds it and `b` holds it and
            // the word after.
            #[allow(unsafe_code)]
            let (old, new) = unsafe {
                paint_run_step::<ON, SHIFTED>(a_base.add(s), b_base.add(s), lanes, (shift, keep))
            };
            columns = _mm512_or_si512(columns, _mm512_xor_si512(old, new));
            _mm512_cmpneq_epi64_mask(old, new)
        };
        // The first and last steps that changed a word, and which lanes: the rows they
        // changed are worked out once, after the loop, rather than per row in it.
        let (mut first, mut last) = ((usize::MAX, 0u8), (0usize, 0u8));
        let mut note = |s: usize, differs: u8| {
            if differs != 0 {
                if first.0 == usize::MAX {
                    first = (s, differs);
                }
                last = (s, differs);
            }
        };
        // Whole steps with one lane mask, then the last (its lanes cut to `len`).
        let whole = len / 8 * 8;
        for s in (0..whole).step_by(8) {
            note(s, step(s, painted));
        }
        if whole < len {
            note(
                whole,
                step(whole, painted & (u16::MAX >> (16 - (len - whole))) as u8),
            );
        }
        if first.0 == usize::MAX {
            return super::Changed::default();
        }
        // A step's rows are s / 4 (lanes 0 to 3) and the one after (lanes 4 to 7).
        let first = first.0 / 4 + usize::from(first.1 & 0x0F == 0);
        let last = last.0 / 4 + usize::from(last.1 & 0xF0 != 0);
        // The changed columns, from the changed bits of each of the two words.
        let c0 = _mm512_mask_reduce_or_epi64(0x11, columns) as u64;
        let c1 = _mm512_mask_reduce_or_epi64(0x22, columns) as u64;
        let (cx0, cx1) = super::two_word_columns(k0, [c0, c1]);
        let (ya, yb) = (y0 as usize + first, y0 as usize + last + 1);
        if ON && !cut {
            // B's pixels, all inside A, are all set now: each span joined with B's.
            let b_rows = yb0 + first..yb0 + last + 1;
            super::join_b_spans(&mut spans[ya..yb], &b_spans[b_rows], dx as i32);
        } else {
            two_word_spans(&words[4 * ya..4 * yb], &mut spans[ya..yb]);
        }
        super::Changed {
            x0: cx0,
            y0: ya as u32,
            x1: cx1,
            y1: yb as u32,
        }
    }

    // `two_word_spans` stores spans as pairs of `u32` lanes: first, then end.
    const _: () = assert!(
        std::mem::size_of::<(u32, u32)>() == 8
            && std::mem::offset_of!((u32, u32), 0) == 0
            && std::mem::offset_of!((u32, u32), 1) == 4
    );

    /// The spans of rows of one word (`rows`, 3 words a row with their guard words),
    /// eight rows a vector: their words packed into one from three, each word's first set
    /// pixel (the ones below its lowest set bit, counted) and end by lane counts, and the
    /// eight spans stored at once, with no branch per row.
    #[inline]
    #[target_feature(enable = "avx512f,avx512cd,avx512vpopcntdq")]
    fn one_word_spans(rows: &[u64], spans: &mut [(u32, u32)]) {
        assert_eq!(rows.len(), 3 * spans.len());
        // Row r's word is word 3r + 1: rows 0 to 4 in the first two vectors, 5 to 7 in
        // the third.
        let low_rows = _mm512_setr_epi64(1, 4, 7, 10, 13, 0, 0, 0);
        let high_rows = _mm512_setr_epi64(0, 0, 0, 0, 0, 0, 3, 6);
        let eight = |z0: __m512i, z1: __m512i, z2: __m512i| {
            let w = _mm512_permutex2var_epi64(z0, low_rows, z1);
            let w = _mm512_mask_permutexvar_epi64(w, 0xE0, high_rows, z2);
            let set = _mm512_test_epi64_mask(w, w);
            let below = _mm512_andnot_si512(w, _mm512_sub_epi64(w, _mm512_set1_epi64(1)));
            let first = _mm512_popcnt_epi64(below);
            let end = _mm512_sub_epi64(_mm512_set1_epi64(64), _mm512_lzcnt_epi64(w));
            // A clear row is (0, 0).
            _mm512_maskz_mov_epi64(set, _mm512_or_si512(first, _mm512_slli_epi64::<32>(end)))
        };
        let (base, out) = (rows.as_ptr(), spans.as_mut_ptr());
        let whole = spans.len() / 8 * 8;
        for r in (0..whole).step_by(8) {
            // SAFETY: rows r..r + 8 are words 3r..3r + 24 of `rows`, and their spans
            // elements r..r + 8 of `spans` (the assert above), 8 bytes each, first then
            // end (the const assert below).
            #[allow(unsafe_code)]
            unsafe {
                let at = base.add(3 * r);
                let (z0, z1, z2) = (
                    _mm512_loadu_epi64(at.cast()),
                    _mm512_loadu_epi64(at.add(8).cast()),
                    _mm512_loadu_epi64(at.add(16).cast()),
                );
                _mm512_storeu_epi64(out.add(r).cast(), eight(z0, z1, z2));
            }
        }
        let rest = spans.len() - whole;
        if rest > 0 {
            // The rows left only: the words 3 × rest of them, in up to three vectors.
            let words = 3 * rest;
            let lanes = |q: usize| ((1u16 << words.saturating_sub(8 * q).min(8)) - 1) as u8;
            // SAFETY: as above, for the rows left: masked-off lanes are neither read nor
            // written. A vector's address past the end of `rows` is formed by
            // `wrapping_add` (`add` may not go past the end); none of its lanes is read.
            #[allow(unsafe_code)]
            unsafe {
                let at = base.add(3 * whole);
                let z = |q: usize| {
                    if lanes(q) == 0 {
                        _mm512_setzero_si512()
                    } else {
                        _mm512_maskz_loadu_epi64(lanes(q), at.wrapping_add(8 * q).cast())
                    }
                };
                let stored = (u16::MAX >> (16 - rest)) as u8;
                _mm512_mask_storeu_epi64(out.add(whole).cast(), stored, eight(z(0), z(1), z(2)));
            }
        }
    }

    /// The spans of rows of two words (`rows`, 4 words a row with their guard words),
    /// four rows a vector: their eight words packed into one, each word's first set pixel
    /// (the ones below its lowest set bit, counted) and end by lane counts, the two of a
    /// row joined, and the four spans stored at once, with no branch per row.
    #[inline]
    #[target_feature(enable = "avx512f,avx512cd,avx512vpopcntdq")]
    fn two_word_spans(rows: &[u64], spans: &mut [(u32, u32)]) {
        assert_eq!(rows.len(), 4 * spans.len());
        // Lanes 1, 2 of each row of two vectors of two rows; then per row, its first and
        // its end as the two `u32` halves of a span.
        let pack = _mm512_set_epi64(14, 13, 10, 9, 6, 5, 2, 1);
        let pair = _mm512_set_epi32(0, 0, 0, 0, 0, 0, 0, 0, 28, 12, 24, 8, 20, 4, 16, 0);
        let offset = _mm512_set_epi64(64, 0, 64, 0, 64, 0, 64, 0);
        let none = _mm512_set1_epi64(i64::from(u32::MAX));
        let swap = |v: __m512i| _mm512_permutex_epi64::<0xB1>(v);
        let four = |w: __m512i| {
            let set = _mm512_test_epi64_mask(w, w);
            let below = _mm512_andnot_si512(w, _mm512_sub_epi64(w, _mm512_set1_epi64(1)));
            let firsts = _mm512_add_epi64(offset, _mm512_popcnt_epi64(below));
            let ends = _mm512_sub_epi64(
                _mm512_add_epi64(offset, _mm512_set1_epi64(64)),
                _mm512_lzcnt_epi64(w),
            );
            let firsts = _mm512_mask_blend_epi64(set, none, firsts);
            let ends = _mm512_maskz_mov_epi64(set, ends);
            let ends = _mm512_max_epu64(ends, swap(ends));
            // A clear row's first is `none` and its end 0: the smaller, 0, makes (0, 0).
            let firsts = _mm512_min_epu64(_mm512_min_epu64(firsts, swap(firsts)), ends);
            _mm512_permutex2var_epi32(firsts, pair, ends)
        };
        let (base, out) = (rows.as_ptr(), spans.as_mut_ptr());
        let whole = spans.len() / 4 * 4;
        for r in (0..whole).step_by(4) {
            // SAFETY: rows r..r + 4 are words 4r..4r + 16 of `rows`, and their spans
            // elements r..r + 4 of `spans` (the assert above), 8 bytes each, first then
            // end (the const assert above).
            #[allow(unsafe_code)]
            unsafe {
                let w = _mm512_permutex2var_epi64(
                    _mm512_loadu_epi64(base.add(4 * r).cast()),
                    pack,
                    _mm512_loadu_epi64(base.add(4 * r + 8).cast()),
                );
                _mm512_mask_storeu_epi32(out.add(r).cast(), 0xFF, four(w));
            }
        }
        let rest = spans.len() - whole;
        if rest > 0 {
            // The two words of each row left (lanes 1 and 2 of its four) only.
            let lanes = 0x6666u16 & !(u16::MAX << (4 * rest));
            // SAFETY: as above, for the rows left: masked-off lanes are neither read nor
            // written. The second vector's address lies past the end of `rows` when one
            // row is left, so it is formed by `wrapping_add` (`add` may not go past the
            // end); none of its lanes is then read.
            #[allow(unsafe_code)]
            unsafe {
                let w = _mm512_permutex2var_epi64(
                    _mm512_maskz_loadu_epi64(lanes as u8, base.add(4 * whole).cast()),
                    pack,
                    _mm512_maskz_loadu_epi64(
                        (lanes >> 8) as u8,
                        base.wrapping_add(4 * whole + 8).cast(),
                    ),
                );
                let stored = !(u16::MAX << (2 * rest));
                _mm512_mask_storeu_epi32(out.add(whole).cast(), stored, four(w));
            }
        }
    }

    /// Builds `paint_rows_fused` (see the function's own doc) in a module of its own for
    /// one vector width: the 512-bit and the 256-bit loops are the same but for the
    /// vector type and the intrinsics, which each module names by the aliases the body
    /// uses. One body, so that the two cannot drift apart; a macro rather than a trait
    /// over the width, so that each build is the code written, with no call that LLVM
    /// could leave un-inlined inside the row loop.
    macro_rules! fused_rows {
        (
            $(#[$module_doc:meta])*
            mod $width:ident: $vector:ty, $lanes:literal lanes, features $features:literal,
            { $($alias:ident = $intrinsic:ident),* $(,)? }
        ) => {
            $(#[$module_doc])*
            pub(super) mod $width {
                use std::arch::x86_64::*;
                $(use std::arch::x86_64::$intrinsic as $alias;)*

                /// A's words in one vector step.
                const LANES: usize = $lanes;

                /// [`super::super::paint_rows`] for rows of three words and more where
                /// B's rectangle covers at most [`super::WIDE_WORDS`] of A's words
                /// (`x0..x1`): each row in `STEPS` vector steps of `LANES` words, the
                /// last masked, and its new span is worked out from the painted words
                /// while they are still in registers, with no second pass over the rows
                /// (a loop over a runtime count of steps kept them in memory, and 2,048
                /// px edits that changed nothing took twice as long). The words outside
                /// the painted ones are unchanged, so the old span tells what lies
                /// there: a row's first pixel is its old first when that lies left of
                /// them, else the first in them, else (all clear now) its old first on
                /// their right; its end likewise. Only a row whose painted words were
                /// all erased while its old span ran from inside them to beyond them (an
                /// end erased, the other outside) reads its words again. A draw of B's
                /// pixels all inside A (not `cut`) takes no span work in the row loop:
                /// the changed rows' spans are then joined with B's after it. The changed
                /// pixels' box is exact: the changed bits ORed over the rows, per word.
                #[inline]
                #[target_feature(enable = $features)]
                pub(in super::super) fn paint_rows_fused<
                    const ON: bool,
                    const SHIFTED: bool,
                    const STEPS: usize,
                >(
                    words: &mut [u64],
                    (wpr, keep): (usize, u64),
                    spans: &mut [(u32, u32)],
                    (b_words, b_stride, b_spans): (&[u64], usize, &[(u32, u32)]),
                    offset: (i32, i32),
                    ((x0, y0, x1, y1), cut): ((u32, u32, u32, u32), bool),
                ) -> super::super::Changed {
                    let (dx, dy) = (i64::from(offset.0), i64::from(offset.1));
                    let stride = wpr + 2;
                    let super::super::Window { k0, k1, j, yb0 } =
                        super::super::Window::of((dx, dy), (x0, y0, x1));
                    let n = k1 - k0;
                    assert!(n.div_ceil(LANES) == STEPS && STEPS * LANES <= super::WIDE_WORDS);
                    // Steps of LANES words, the last of 1 to LANES, whose last word keeps
                    // only `keep`.
                    let rest = n - (STEPS - 1) * LANES;
                    let last_lanes = (u16::MAX >> (16 - rest)) as u8;
                    let last_keep = if k1 == wpr {
                        mask_splat(splat(-1), 1 << (rest - 1), keep as i64)
                    } else {
                        splat(-1)
                    };
                    let shift = splat((-dx).rem_euclid(64));
                    let (p0, p1) = (k0 as u32 * 64, k1 as u32 * 64);
                    let rows = (y1 - y0) as usize;
                    // The rows' words and B's, from A's word k0 of the first row and B's
                    // word under it: row i's at i × stride and i × b_stride on. Raw
                    // pointers into slices checked to hold every row once, here: sliced
                    // row by row, the loop kept a dozen instructions of bounds checks and
                    // iterator state per row.
                    let a = &mut words[y0 as usize * stride..][..rows * stride];
                    let b = &b_words[yb0 * b_stride + j..][..(rows - 1) * b_stride + n + 1];
                    let spans = &mut spans[y0 as usize..y1 as usize];
                    let (a_base, b_base) = (a.as_mut_ptr(), b.as_ptr());
                    // A draw of B's pixels all inside A: each changed row's new span is its old one
                    // joined with B's row, after the loop, from B's spans alone and with no work
                    // in this loop.
                    let spans_from_b = ON && !cut;
                    let (mut first_row, mut last_row) = (usize::MAX, 0);
                    let mut columns = [zero(); STEPS];
                    let word = |v: $vector, lane: u32| {
                        let v = permute(splat(i64::from(lane)), v);
                        _mm_cvtsi128_si64(low_128(v)) as u64
                    };
                    for (i, span) in spans.iter_mut().enumerate() {
                        let mut news = [zero(); STEPS];
                        let mut differs = 0u8;
                        for (st, (columns, news)) in columns.iter_mut().zip(&mut news).enumerate()
                        {
                            let (lanes, keep) = if st + 1 == STEPS {
                                (last_lanes, last_keep)
                            } else {
                                (u8::MAX, splat(-1))
                            };
                            // SAFETY: row i's words k0 + LANES st.. (the lanes of `lanes`,
                            // within k0..k1) are at i × stride + 1 + k0 + LANES st on in
                            // `a`, and (rows - 1) × stride + 1 + k1 ≤ rows × stride as k1 ≤
                            // wpr; B's under them (and one more) lie in `b`, as sliced
                            // above. Masked-off lanes are neither read nor written (nor can
                            // they fault).
                            #[allow(unsafe_code)]
                            let (old, new) = unsafe {
                                let row = a_base.add(i * stride + 1 + k0 + LANES * st);
                                let low = b_base.add(i * b_stride + LANES * st);
                                let old = load(lanes, row.cast());
                                let bits = load(lanes, low.cast());
                                let bits = if SHIFTED {
                                    let high = load(lanes, low.add(1).cast());
                                    funnel_shift(bits, high, shift)
                                } else {
                                    bits
                                };
                                let bits = and(bits, keep);
                                let new = if ON { or(old, bits) } else { and_not(bits, old) };
                                store(row.cast(), lanes, new);
                                (old, new)
                            };
                            differs |= lanes_differ(old, new);
                            *columns = or(*columns, xor(old, new));
                            *news = new;
                        }
                        if differs == 0 {
                            continue;
                        }
                        first_row = first_row.min(i);
                        last_row = i;
                        if spans_from_b {
                            continue;
                        }
                        let (f, e) = *span;
                        let (left, right) = (f < e && f < p0, f < e && e > p1);
                        if left && right {
                            continue;
                        }
                        // The set words of the painted ones, a bit each.
                        let mut set = 0u32;
                        for (st, new) in news.iter().enumerate() {
                            set |= u32::from(lanes_set(*new, *new)) << (LANES * st);
                        }
                        if set == 0 {
                            let a_row = &a[i * stride + 1..][..wpr];
                            *span = super::super::span_after_cleared_window(
                                a_row,
                                *span,
                                (p0, p1),
                                (left, right),
                            );
                            continue;
                        }
                        let word_at = |k: u32| word(news[k as usize / LANES], k % LANES as u32);
                        *span =
                            super::super::painted_span(*span, p0, (left, right), set, word_at);
                    }
                    if first_row > last_row {
                        return super::super::Changed::default();
                    }
                    if spans_from_b {
                        let rows = first_row..=last_row;
                        let b_rows = yb0 + first_row..=yb0 + last_row;
                        super::super::join_b_spans(&mut spans[rows], &b_spans[b_rows], dx as i32);
                    }
                    // The changed columns: the first and last word with changed bits.
                    let mut c = [0u64; super::WIDE_WORDS];
                    for (st, v) in columns.iter().enumerate() {
                        // SAFETY: `c` holds LANES words from LANES st on, as STEPS ×
                        // LANES ≤ WIDE_WORDS.
                        #[allow(unsafe_code)]
                        unsafe {
                            store_all(c[LANES * st..].as_mut_ptr().cast(), *v)
                        };
                    }
                    super::super::changed_in_columns(&c[..STEPS * LANES], p0, y0, (first_row, last_row))
                }
            }
        };
    }

    fused_rows! {
        /// The fused loop in 512-bit vectors: 1 to 4 steps of 8 words (up to 2,048 px).
        mod zmm: __m512i, 8 lanes,
        features "avx2,bmi1,bmi2,lzcnt,popcnt,avx512f,avx512vpopcntdq,avx512vbmi2",
        {
            splat = _mm512_set1_epi64,
            mask_splat = _mm512_mask_set1_epi64,
            zero = _mm512_setzero_si512,
            load = _mm512_maskz_loadu_epi64,
            store = _mm512_mask_storeu_epi64,
            store_all = _mm512_storeu_epi64,
            funnel_shift = _mm512_shrdv_epi64,
            and = _mm512_and_si512,
            or = _mm512_or_si512,
            and_not = _mm512_andnot_si512,
            xor = _mm512_xor_si512,
            lanes_differ = _mm512_cmpneq_epi64_mask,
            lanes_set = _mm512_test_epi64_mask,
            permute = _mm512_permutexvar_epi64,
            low_128 = _mm512_castsi512_si128,
        }
    }

    fused_rows! {
        /// The fused loop in 256-bit vectors, for windows of up to 4 words (B's
        /// rectangle within 256 px of A's words): on this Intel core 512-bit operations
        /// run on two ports and 256-bit ones on three, and a 4-word window fills only
        /// half a 512-bit vector anyway. The 512 px partial, edge, touching and hole
        /// edits of the peer bench took 18-28% less time than in the 512-bit loop (same
        /// results).
        mod ymm: __m256i, 4 lanes,
        features "avx2,bmi1,bmi2,lzcnt,popcnt,avx512f,avx512vpopcntdq,avx512vbmi2,avx512vl",
        {
            splat = _mm256_set1_epi64x,
            mask_splat = _mm256_mask_set1_epi64,
            zero = _mm256_setzero_si256,
            load = _mm256_maskz_loadu_epi64,
            store = _mm256_mask_storeu_epi64,
            store_all = _mm256_storeu_epi64,
            funnel_shift = _mm256_shrdv_epi64,
            and = _mm256_and_si256,
            or = _mm256_or_si256,
            and_not = _mm256_andnot_si256,
            xor = _mm256_xor_si256,
            lanes_differ = _mm256_cmpneq_epi64_mask,
            lanes_set = _mm256_test_epi64_mask,
            permute = _mm256_permutexvar_epi64,
            low_128 = _mm256_castsi256_si128,
        }
    }

    /// [`super::paint_row`] for rows of `step.whole` words and the last step's; nonzero
    /// when a word changed (a bit per changed word of a step).
    #[inline]
    #[target_feature(enable = "avx512f,avx512vpopcntdq,avx512vbmi2")]
    pub(super) fn paint_row<const ON: bool, const SHIFTED: bool>(
        a: &mut [u64],
        b: &[u64],
        step: &Step,
    ) -> u64 {
        let bits = |low: __m512i, high: __m512i| {
            if SHIFTED {
                // Per lane, the low 64 bits of (high:low) >> shift: one instruction.
                _mm512_shrdv_epi64(low, high, step.shift)
            } else {
                low
            }
        };
        let paint = |old: __m512i, bits: __m512i| {
            if ON {
                _mm512_or_si512(old, bits)
            } else {
                _mm512_andnot_si512(bits, old)
            }
        };
        let mut differs = 0u8;
        let whole = step.whole;
        for i in (0..whole).step_by(8) {
            let (row, low, high) = (&mut a[i..i + 8], &b[i..i + 8], &b[i + 1..i + 9]);
            // SAFETY: each load reads the 8 words of a slice of 8 words, and the store
            // writes the 8 words of one.
            #[allow(unsafe_code)]
            let (old, new) = unsafe {
                let old = _mm512_loadu_epi64(row.as_ptr().cast());
                let low = _mm512_loadu_epi64(low.as_ptr().cast());
                let high = if SHIFTED {
                    _mm512_loadu_epi64(high.as_ptr().cast())
                } else {
                    low
                };
                let new = paint(old, bits(low, high));
                _mm512_storeu_epi64(row.as_mut_ptr().cast(), new);
                (old, new)
            };
            differs |= _mm512_cmpneq_epi64_mask(old, new);
        }
        let (last, b_last) = (&mut a[whole..], &b[whole..]);
        let rest = step.lanes.count_ones() as usize;
        let (row, low, high) = (&mut last[..rest], &b_last[..rest], &b_last[1..=rest]);
        // SAFETY: the mask selects the first `rest` lanes, and each slice holds `rest`
        // words; masked-off lanes are neither read nor written (nor can they fault).
        #[allow(unsafe_code)]
        let (old, new) = unsafe {
            let old = _mm512_maskz_loadu_epi64(step.lanes, row.as_ptr().cast());
            let low = _mm512_maskz_loadu_epi64(step.lanes, low.as_ptr().cast());
            let high = if SHIFTED {
                _mm512_maskz_loadu_epi64(step.lanes, high.as_ptr().cast())
            } else {
                low
            };
            let new = paint(old, _mm512_and_si512(bits(low, high), step.keep));
            _mm512_mask_storeu_epi64(row.as_mut_ptr().cast(), step.lanes, new);
            (old, new)
        };
        u64::from(differs | _mm512_cmpneq_epi64_mask(old, new))
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
        self.paint(other, offset, true, WordKernel::best());
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
        self.paint(other, offset, false, WordKernel::best());
    }

    /// [`BitMask::draw`] (`on`) or [`BitMask::erase`] with the given build of the word
    /// loops; one this CPU lacks runs as [`WordKernel::Portable`], and
    /// [`WordKernel::Popcnt`] has no build of its own here (it runs the portable one). For
    /// tests and benchmarks.
    pub fn paint_using(
        &mut self,
        other: &BitMask,
        offset: (i32, i32),
        on: bool,
        kernel: WordKernel,
    ) {
        let kernel = if kernel.is_available() {
            kernel
        } else {
            WordKernel::Portable
        };
        self.paint(other, offset, on, kernel);
    }

    fn paint(&mut self, other: &BitMask, offset: (i32, i32), on: bool, kernel: WordKernel) {
        let (Some((x0, y0, x1, y1)), Some(b)) =
            (overlap_region(self, other, offset), other.cached_bounds())
        else {
            return;
        };
        let dy = i64::from(offset.1);
        // Only `other`'s set pixels can change anything: its rows outside its bounding
        // rectangle are clear (and each row is clipped to its own pixels below).
        let y0 = i64::from(y0).max(dy + i64::from(b.y));
        let y1 = i64::from(y1).min(dy + i64::from(b.y + b.height));
        // And its columns outside it: the word loops then cover only those of B's
        // rectangle, the same in every row.
        let dx = i64::from(offset.0);
        let x0 = i64::from(x0).max(dx + i64::from(b.x));
        let x1 = i64::from(x1).min(dx + i64::from(b.x + b.width));
        // Compared before the casts: B's rectangle may end left of A or above it (its
        // set pixels all outside A while its box meets A's).
        if y0 >= y1 || x0 >= x1 {
            return;
        }
        let (x0, y0, x1, y1) = (x0 as u32, y0 as u32, x1 as u32, y1 as u32);
        // Whether A's edge cuts B's rectangle: B's pixels are then not all painted, and
        // its rectangle is not theirs in A. Uncut, a draw's new spans are its old ones
        // joined with B's.
        // Only rows of three words and more read `exact`: narrow rows note their changes
        // exactly, word by word.
        let wide = self.words_per_row > 2;
        let (w, h) = (i64::from(self.width), i64::from(self.height));
        let cut = dx + i64::from(b.x) < 0
            || dx + i64::from(b.x + b.width) > w
            || dy + i64::from(b.y) < 0
            || dy + i64::from(b.y + b.height) > h;
        // With a transposed copy or a distance field to update, whose work grows with the
        // changed box, the box is worth its compares per row.
        let exact = wide
            && (matches!(self.transposed.get(), Some(Some(_)))
                || matches!(self.distance.get(), Some(Some(_))));
        let region = ((x0, y0, x1, y1), cut, exact);
        let (b_words, b_stride) = other.words_and_stride();
        let b = (b_words, b_stride, other.pixel_spans());
        let a = (self.words_per_row, self.last_word_bits());
        // Built here if no query has built them yet: edits keep them, and the next query
        // would build them anyway.
        self.pixel_spans();
        let Some(spans) = self.pixel_spans.get_mut().map(Vec::as_mut_slice) else {
            return;
        };
        let words = &mut self.words;
        let shifted = offset.0.rem_euclid(64) != 0;
        // Off x86-64 only the portable build is left, and no `break` names the label.
        #[cfg_attr(not(target_arch = "x86_64"), allow(unused_labels))]
        let changed = 'painted: {
            // Masks of one or two words a row take the AVX2 build, whose span loop over a
            // few dozen rows is the faster (32 px edits took 15% longer in the AVX-512
            // build's row loop), but for those stamped with masks as narrow: their
            // words are then one run, edited as such in the AVX-512 build.
            #[cfg(target_arch = "x86_64")]
            if kernel == WordKernel::Avx512
                && (a.0 > 2
                    || (a.0 == 1 && b_stride == 3)
                    || (a.0 == 2
                        && b_stride == 4
                        && std::arch::is_x86_feature_detected!("avx512cd")))
            {
                let paint = match (on, shifted) {
                    (true, false) => paint_rows_avx512::<true, false>,
                    (true, true) => paint_rows_avx512::<true, true>,
                    (false, false) => paint_rows_avx512::<false, false>,
                    (false, true) => paint_rows_avx512::<false, true>,
                };
                // SAFETY: the CPU has every feature of the AVX-512 build: `kernel` is
                // `WordKernel::best` or checked available by `paint_using`, and either
                // is the AVX-512 kernel only after checking them (and the AVX2 build's).
                #[allow(unsafe_code)]
                break 'painted unsafe { paint(words, a, spans, b, offset, region) };
            }
            #[cfg(target_arch = "x86_64")]
            if matches!(kernel, WordKernel::Avx2 | WordKernel::Avx512) && a.0 <= 2 {
                let paint = match (on, shifted) {
                    (true, false) => paint_narrow_rows_avx2::<true, false>,
                    (true, true) => paint_narrow_rows_avx2::<true, true>,
                    (false, false) => paint_narrow_rows_avx2::<false, false>,
                    (false, true) => paint_narrow_rows_avx2::<false, true>,
                };
                // SAFETY: as below.
                #[allow(unsafe_code)]
                break 'painted unsafe { paint(words, a, spans, b, offset, region) };
            }
            #[cfg(target_arch = "x86_64")]
            if matches!(kernel, WordKernel::Avx2 | WordKernel::Avx512) {
                let paint = match (on, shifted) {
                    (true, false) => paint_rows_avx2::<true, false>,
                    (true, true) => paint_rows_avx2::<true, true>,
                    (false, false) => paint_rows_avx2::<false, false>,
                    (false, true) => paint_rows_avx2::<false, true>,
                };
                // SAFETY: the CPU has every feature of the AVX2 build: `kernel` is either
                // one only after checking them (`WordKernel::best` or `paint_using`; the
                // AVX-512 kernel's include them).
                #[allow(unsafe_code)]
                break 'painted unsafe { paint(words, a, spans, b, offset, region) };
            }
            let paint = match (on, shifted) {
                (true, false) => paint_rows_portable::<true, false>,
                (true, true) => paint_rows_portable::<true, true>,
                (false, false) => paint_rows_portable::<false, false>,
                (false, true) => paint_rows_portable::<false, true>,
            };
            let _ = kernel;
            paint(words, a, spans, b, offset, region)
        };
        // An erase's pixels were set: within the bounding rectangle before it, which
        // narrows B's rectangle, what wide rows note.
        let changed = match self.bounds.get() {
            Some(&bounds) if wide && !on => changed.within(bounds),
            _ => changed,
        };
        self.refresh_derived(changed, on);
    }

    /// Brings every built lookup up to date after an edit that set (`on`) or cleared
    /// the pixels noted in `changed`, and no others.
    pub(in crate::collision) fn refresh_caches(&mut self, changed: Changed, on: bool) {
        let Some((_, y0, _, y1)) = changed.rect() else {
            return;
        };
        let stride = self.words_per_row + 2;
        let wpr = self.words_per_row;
        let words = &self.words;
        let row = |y: u32| &words[y as usize * stride + 1..][..wpr];
        if let Some(spans) = self.pixel_spans.get_mut() {
            for y in y0..y1 {
                spans[y as usize] = pixel_span(row(y));
            }
        }
        self.refresh_derived(changed, on);
    }

    /// [`BitMask::refresh_caches`] once the row spans of the changed rows are up to date.
    #[inline(always)]
    fn refresh_derived(&mut self, changed: Changed, on: bool) {
        if let Some((x0, y0, x1, y1)) = changed.rect() {
            self.refresh_derived_in(x0, y0, x1, y1, on);
        }
    }

    /// [`Self::refresh_derived`] of a changed rectangle, taken as four scalars: passed as
    /// a `Changed`, the edit loops wrote it to memory a field at a time and this read it
    /// back eight bytes at a time, a load that had to wait for those stores to retire (a
    /// failed store-to-load forward), a fifth of this function's time on 32 px edits.
    fn refresh_derived_in(&mut self, x0: u32, y0: u32, x1: u32, y1: u32, on: bool) {
        let rect = (x0, y0, x1, y1);
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

    /// A mask of `w × h` from a seed: solid discs, solid bands and noise, so that edits
    /// erase whole words and rows' ends as well as scattered pixels.
    fn sample(w: u32, h: u32, seed: u64) -> BitMask {
        let mut rng = crate::collision::rng::SplitMix64(seed);
        let mut m = BitMask::new(w, h);
        match rng.next_u64() % 4 {
            0 => m.fill_circle(
                f64::from(w) / 2.0,
                f64::from(h) / 2.0,
                f64::from(w.min(h)) / 2.0,
            ),
            1 => m.fill(),
            2 => {
                let p = rng.next_u64() % 100;
                for y in 0..h {
                    for x in 0..w {
                        if rng.next_u64() % 100 < p {
                            m.set(x.into(), y.into(), true);
                        }
                    }
                }
            }
            _ => {
                for y in 0..h {
                    let (a, b) = (rng.next_u64() % u64::from(w), rng.next_u64() % u64::from(w));
                    for x in a.min(b)..=a.max(b) {
                        m.set(x as i64, y.into(), true);
                    }
                }
            }
        }
        m
    }

    /// The kernels this CPU can run, each painting its own copy in the tests below.
    fn available_kernels() -> Vec<WordKernel> {
        WordKernel::ALL
            .into_iter()
            .filter(|k| k.is_available())
            .collect()
    }

    /// `n` copies of `start` with their bounding rectangle and circle built, which edits
    /// then keep up to date.
    fn copies_with_lookups(start: &BitMask, n: usize) -> Vec<BitMask> {
        let masks: Vec<BitMask> = (0..n).map(|_| start.clone()).collect();
        for m in &masks {
            m.bounding_rect();
            m.bounding_circle();
        }
        masks
    }

    /// Paints `stamp` at `offset` into `masks[i]` with `kernels[i]`, then checks that
    /// every mask has the same pixels and the row spans, bounding rectangle and circle of
    /// a mask rebuilt from them.
    fn paint_with_every_kernel_and_check(
        masks: &mut [BitMask],
        kernels: &[WordKernel],
        stamp: &BitMask,
        (ox, oy): (i32, i32),
        on: bool,
    ) {
        for (m, &kernel) in masks.iter_mut().zip(kernels) {
            m.paint_using(stamp, (ox, oy), on, kernel);
        }
        let (w, h, bw, bh) = (masks[0].width, masks[0].height, stamp.width, stamp.height);
        let fresh = BitMask {
            words: masks[0].words.clone(),
            ..BitMask::new(w, h)
        };
        for (m, kernel) in masks.iter().zip(kernels) {
            let what = format!("{kernel:?}, {w} x {h}, {bw} x {bh} at ({ox}, {oy}), on {on}");
            assert!(*m == masks[0], "{what}: pixels");
            assert_eq!(m.pixel_spans.get().unwrap(), fresh.pixel_spans(), "{what}");
            assert_eq!(m.bounds.get(), Some(&fresh.bounding_rect()), "{what}");
            assert_eq!(m.circle.get(), Some(&fresh.bounding_circle()), "{what}");
        }
    }

    /// Every kernel this CPU has draws and erases masks into masks of three words a row
    /// and more (and narrower ones) as every other, and leaves row spans, bounding
    /// rectangle and circle as those of a mask rebuilt from the same pixels: edits whose
    /// stamps cover up to 8 words and more, cut by A's edges or not, erasing rows' ends
    /// and whole words.
    #[test]
    fn every_kernel_paints_and_keeps_spans_exact() {
        let kernels = available_kernels();
        let mut rng = crate::collision::rng::SplitMix64(0x5EED_5BA5);
        for case in 0..400u64 {
            let w = [65, 128, 129, 191, 200, 256, 300, 513, 600, 1100, 2100][case as usize % 11];
            let h = 1 + (rng.next_u64() % 40) as u32;
            let start = sample(w, h, rng.next_u64());
            let mut masks = copies_with_lookups(&start, kernels.len());
            for _ in 0..12 {
                let bw = 1 + (rng.next_u64() % [700, 700, 2200][case as usize % 3]) as u32;
                let bh = 1 + (rng.next_u64() % 45) as u32;
                let stamp = sample(bw, bh, rng.next_u64());
                let ox = (rng.next_u64() % u64::from(w + bw)) as i32 - bw as i32 + 1;
                let oy = (rng.next_u64() % u64::from(h + bh)) as i32 - bh as i32 + 1;
                let on = rng.next_u64() & 1 == 0;
                paint_with_every_kernel_and_check(&mut masks, &kernels, &stamp, (ox, oy), on);
            }
        }
    }

    /// Masks of two words a row stamped with masks as wide, AVX-512's two-rows-a-vector
    /// loop (few of the test above's stamps are that wide): every kernel leaves
    /// the pixels, spans, bounding rectangle and circle of a rebuilt mask.
    #[test]
    fn two_word_masks_stamped_with_two_word_masks_keep_spans_exact() {
        let kernels = available_kernels();
        let mut rng = crate::collision::rng::SplitMix64(0x2_5EED);
        for case in 0..200u64 {
            let w = [65, 100, 127, 128][case as usize % 4];
            let h = 1 + (rng.next_u64() % 40) as u32;
            let start = sample(w, h, rng.next_u64());
            let mut masks = copies_with_lookups(&start, kernels.len());
            for _ in 0..12 {
                let bw = 65 + (rng.next_u64() % 64) as u32;
                let bh = 1 + (rng.next_u64() % 45) as u32;
                let stamp = sample(bw, bh, rng.next_u64());
                // Half of them word-aligned or starting in A's first word.
                let ox = match rng.next_u64() % 4 {
                    0 => 0,
                    1 => (rng.next_u64() % 64) as i32 - 63,
                    _ => (rng.next_u64() % u64::from(w + bw)) as i32 - bw as i32 + 1,
                };
                let oy = (rng.next_u64() % u64::from(h + bh)) as i32 - bh as i32 + 1;
                let on = rng.next_u64() & 1 == 0;
                paint_with_every_kernel_and_check(&mut masks, &kernels, &stamp, (ox, oy), on);
            }
        }
    }

    /// Masks of one word a row stamped with masks as narrow, AVX-512's loop over the
    /// rows' words in one run (the tests above stamp none so narrow into masks so
    /// narrow): every kernel leaves the pixels, spans, bounding rectangle and circle of a
    /// rebuilt mask.
    #[test]
    fn one_word_masks_stamped_with_one_word_masks_keep_spans_exact() {
        let kernels = available_kernels();
        let mut rng = crate::collision::rng::SplitMix64(0x1_5EED);
        for case in 0..300u64 {
            let w = [1, 2, 13, 32, 63, 64][case as usize % 6];
            let h = 1 + (rng.next_u64() % 40) as u32;
            let start = sample(w, h, rng.next_u64());
            let mut masks = copies_with_lookups(&start, kernels.len());
            for _ in 0..12 {
                let bw = 1 + (rng.next_u64() % 64) as u32;
                let bh = 1 + (rng.next_u64() % 45) as u32;
                let stamp = sample(bw, bh, rng.next_u64());
                // A quarter word-aligned, a quarter starting left of A.
                let ox = match rng.next_u64() % 4 {
                    0 => 0,
                    1 => (rng.next_u64() % 64) as i32 - 63,
                    _ => (rng.next_u64() % u64::from(w + bw)) as i32 - bw as i32 + 1,
                };
                let oy = (rng.next_u64() % u64::from(h + bh)) as i32 - bh as i32 + 1;
                let on = rng.next_u64() & 1 == 0;
                paint_with_every_kernel_and_check(&mut masks, &kernels, &stamp, (ox, oy), on);
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
