//! Editing a mask in place, as a destructible terrain does: circles and other masks drawn
//! or erased at word speed, with every lookup already built brought up to date for the
//! pixels the edit changed rather than thrown away.
//!
//! What each lookup costs an edit that changed the pixels of a `w × h` rectangle:
//!
//! - row spans: the `h` changed rows rescanned by circles; a drawn or erased mask's
//!   rows updated from their old spans as they are painted (see `span_after`), a look
//!   at a row's words only where an erase took away one of its ends.
//! - bounding rectangle: joined with the changed pixels' box when pixels were set; when
//!   pixels were cleared, unchanged unless the rectangle reaches its edge, and then found
//!   again from the row spans of its rows (a compare per row, no words read).
//! - bounding circle: kept when the rectangle stayed and the change lies strictly inside
//!   the circle (the farthest pixel, on the circle, is then untouched); otherwise found
//!   again from the row spans, a few flops per row of the rectangle.
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
fn first_set(row: &[u64], from: u32, end: u32) -> Option<u32> {
    if from >= end {
        return None;
    }
    let (k, last) = ((from / 64) as usize, ((end - 1) / 64) as usize);
    let x = match row[k] & (u64::MAX << (from % 64)) {
        0 => {
            let k = k + 1 + first_nonzero(&row[k + 1..=last])?;
            k as u32 * 64 + row[k].trailing_zeros()
        }
        bits => k as u32 * 64 + bits.trailing_zeros(),
    };
    (x < end).then_some(x)
}

/// The last set pixel in `lo..end` of a row, if any (`end` within the row's width).
fn last_set_before(row: &[u64], lo: u32, end: u32) -> Option<u32> {
    if lo >= end {
        return None;
    }
    let (first, k) = ((lo / 64) as usize, ((end - 1) / 64) as usize);
    let x = match row[k] & (u64::MAX >> (63 - (end - 1) % 64)) {
        0 => {
            let k = first + last_nonzero(&row[first..k])?;
            k as u32 * 64 + 63 - row[k].leading_zeros()
        }
        bits => k as u32 * 64 + 63 - bits.leading_zeros(),
    };
    (x >= lo).then_some(x)
}

/// Rows an erase took an end from are searched for their new end, often across a
/// stretch it cleared: 8 words are ORed at a time before one is looked at, a test per 8
/// words rather than per word.
const SCAN_CHUNK: usize = 8;

/// The index of the first nonzero word.
fn first_nonzero(words: &[u64]) -> Option<usize> {
    let chunks = words.chunks_exact(SCAN_CHUNK);
    let done = words.len() - chunks.remainder().len();
    let skipped = chunks
        .take_while(|c| c.iter().fold(0, |any, &w| any | w) == 0)
        .count()
        * SCAN_CHUNK;
    let rest = if skipped < done {
        &words[skipped..skipped + SCAN_CHUNK]
    } else {
        &words[done..]
    };
    rest.iter().position(|&w| w != 0).map(|i| skipped + i)
}

/// The index of the last nonzero word.
fn last_nonzero(words: &[u64]) -> Option<usize> {
    let chunks = words.rchunks_exact(SCAN_CHUNK);
    let head = chunks.remainder().len();
    let skipped = chunks
        .take_while(|c| c.iter().fold(0, |any, &w| any | w) == 0)
        .count()
        * SCAN_CHUNK;
    let end = words.len() - skipped;
    let rest = if end > head {
        &words[end - SCAN_CHUNK..end]
    } else {
        &words[..head]
    };
    let base = end - rest.len();
    rest.iter().rposition(|&w| w != 0).map(|i| base + i)
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

/// [`BitMask::paint`] in rows `y0..y1`, columns `x0..x1` of A (`words`, with `wpr` words a
/// row and `keep`, the bits of a row's last word inside the mask), for one direction
/// (`ON`) and word alignment: A's words and pixel spans. B is its words, their stride and
/// its pixel spans.
///
/// A's words and B's are arguments of their own so that LLVM knows they are apart (`&mut`
/// and `&`) and turns the word loop into vector code; inside one function, behind two
/// `Vec`s, it could not tell and left it scalar.
///
/// Each changed row's span is updated in the same pass, while its words are at hand (see
/// [`span_after`]).
#[inline(always)]
fn paint_rows<const ON: bool, const SHIFTED: bool>(
    words: &mut [u64],
    (wpr, keep): (usize, u64),
    spans: &mut [(u32, u32)],
    (b_words, b_stride, b_spans): (&[u64], usize, &[(u32, u32)]),
    offset: (i32, i32),
    (x0, y0, x1, y1): (u32, u32, u32, u32),
) -> Changed {
    let (dx, dy) = (i64::from(offset.0), i64::from(offset.1));
    let shift = (-dx).rem_euclid(64) as u32;
    let stride = wpr + 2;
    let (k0, k1) = ((x0 / 64) as usize, x1.div_ceil(64) as usize);
    // A few words a row cost less painted whole than cut to each row's own pixels.
    let whole = k1 - k0 <= 4;
    let yb0 = (i64::from(y0) - dy) as usize;
    let mut changed = Changed::default();
    for (yb, y) in (yb0..).zip(y0..y1) {
        // B's set pixels of this row, in A's pixels (`b_first..b_end`) and cut to A
        // (`lo..hi`): all that can change. A clear row of B, (0, 0), gives nothing, as
        // x0 >= dx >= x1 - width.
        let (bf, be) = b_spans[yb];
        let (b_first, b_end) = (i64::from(bf) + dx, i64::from(be) + dx);
        let (lo, hi) = (b_first.max(i64::from(x0)), b_end.min(i64::from(x1)));
        if lo >= hi {
            continue;
        }
        let (lo, hi) = (lo as u32, hi as u32);
        let (ka, kb) = if whole {
            (k0, k1)
        } else {
            ((lo / 64) as usize, hi.div_ceil(64) as usize)
        };
        // B's word under A's word ka: at least -1 (its left guard word), as A's word ka
        // starts less than 64 pixels before B's first set pixel, and then the one after
        // the last read is B's right guard word at most.
        let j = (1 + (ka as i64 * 64 - dx).div_euclid(64)) as usize;
        let b_row = &b_words[yb * b_stride + j..][..kb - ka + 1];
        let row = &mut words[y as usize * stride + 1..][..wpr];
        let row_keep = if kb == wpr { keep } else { u64::MAX };
        let (differs, left) = paint_row::<ON, SHIFTED>(&mut row[ka..kb], b_row, shift, row_keep);
        if differs == 0 {
            continue;
        }
        let (f, e) = spans[y as usize];
        let cleared = left == 0 && f >= ka as u32 * 64 && e <= kb as u32 * 64;
        let span = span_after::<ON>(row, (f, e), (lo, hi), (b_first, b_end), cleared);
        spans[y as usize] = span;
        // Pixels change only where they were set (erase) or are now (draw).
        let (a, b) = if ON { span } else { (f, e) };
        changed.note_span(y, a.max(lo), b.min(hi));
    }
    changed
}

/// [`paint_rows_of`] for any x86-64 (SSE2 vectors), or for any other target.
fn paint_rows_portable<const ON: bool, const SHIFTED: bool>(
    words: &mut [u64],
    a: (usize, u64),
    spans: &mut [(u32, u32)],
    b: (&[u64], usize, &[(u32, u32)]),
    offset: (i32, i32),
    region: (u32, u32, u32, u32),
) -> Changed {
    paint_rows_of::<ON, SHIFTED>(words, a, spans, b, offset, region)
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
    region: (u32, u32, u32, u32),
) -> Changed {
    paint_rows_of::<ON, SHIFTED>(words, a, spans, b, offset, region)
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
    region: (u32, u32, u32, u32),
) -> Changed {
    if a.0 <= 2 {
        paint_narrow_rows::<ON, SHIFTED>(words, a, spans, (b_words, b_stride), offset, region)
    } else {
        paint_rows::<ON, SHIFTED>(
            words,
            a,
            spans,
            (b_words, b_stride, b_spans),
            offset,
            region,
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
    (b_words, b_stride): (&[u64], usize),
    offset: (i32, i32),
    (x0, y0, x1, y1): (u32, u32, u32, u32),
) -> Changed {
    let (dx, dy) = (i64::from(offset.0), i64::from(offset.1));
    let shift = (-dx).rem_euclid(64) as u32;
    let stride = wpr + 2;
    let (k0, k1) = ((x0 / 64) as usize, x1.div_ceil(64) as usize);
    let two = k1 - k0 == 2;
    // As in `paint_rows`: B's word under A's word k0, its left guard word at the least.
    let j = (1 + (k0 as i64 * 64 - dx).div_euclid(64)) as usize;
    let yb0 = (i64::from(y0) - dy) as usize;
    let last_keep = if k1 == wpr { keep } else { u64::MAX };
    let (mut first_row, mut end_row, mut columns) = (u32::MAX, 0, [0u64; 2]);
    for (yb, y) in (yb0..).zip(y0..y1) {
        let b = &b_words[yb * b_stride + j..][..3];
        let a = &mut words[y as usize * stride + 1..][..wpr];
        let (d0, d1) = if two {
            let low = b_bits::<SHIFTED>(b[0], b[1], shift);
            let high = b_bits::<SHIFTED>(b[1], b[2], shift) & last_keep;
            (
                paint_word::<ON>(&mut a[k0], low),
                paint_word::<ON>(&mut a[k0 + 1], high),
            )
        } else {
            let bits = b_bits::<SHIFTED>(b[0], b[1], shift) & last_keep;
            (paint_word::<ON>(&mut a[k0], bits), 0)
        };
        columns[0] |= d0;
        columns[1] |= d1;
        let differs = d0 | d1 != 0;
        first_row = first_row.min(if differs { y } else { u32::MAX });
        end_row = end_row.max(if differs { y + 1 } else { 0 });
    }
    if first_row >= end_row {
        return Changed::default();
    }
    // A loop of its own: in the one above it cost more than the painting, for want of
    // registers.
    let rows = words[first_row as usize * stride..end_row as usize * stride].chunks_exact(stride);
    for (span, row) in spans[first_row as usize..end_row as usize]
        .iter_mut()
        .zip(rows)
    {
        *span = span_of_two(row[1], if wpr == 2 { row[2] } else { 0 });
    }
    // Exactly the changed pixels' box: the columns from the changed bits.
    let base = k0 as u32 * 64;
    let (cx0, cx1) = match columns {
        [0, c1] => (
            base + 64 + c1.trailing_zeros(),
            base + 128 - c1.leading_zeros(),
        ),
        [c0, 0] => (base + c0.trailing_zeros(), base + 64 - c0.leading_zeros()),
        [c0, c1] => (base + c0.trailing_zeros(), base + 128 - c1.leading_zeros()),
    };
    Changed {
        x0: cx0,
        y0: first_row,
        x1: cx1,
        y1: end_row,
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

/// A row's pixel span after an edit, from its span before, `(f, e)`, rather than by
/// scanning the row: drawing joins the old span with B's pixels, and erasing leaves an
/// end in place unless it was erased. B's pixels in the row are `b_first..b_end` in A,
/// `lo..hi` once cut to A's edges; `cleared`, that an erase left clear all the words
/// the row had pixels in.
#[inline(always)]
fn span_after<const ON: bool>(
    row: &[u64],
    (f, e): (u32, u32),
    (lo, hi): (u32, u32),
    (b_first, b_end): (i64, i64),
    cleared: bool,
) -> (u32, u32) {
    if ON {
        // B's own ends, unless A's edge cut them off.
        let first = if b_first >= i64::from(lo) {
            lo
        } else {
            first_set(row, lo, hi).unwrap_or(hi)
        };
        let end = if b_end <= i64::from(hi) {
            hi
        } else {
            last_set_before(row, lo, hi).map_or(hi, |x| x + 1)
        };
        return if f < e {
            (f.min(first), e.max(end))
        } else {
            (first, end)
        };
    }
    if cleared || f >= e {
        return (0, 0);
    }
    let first = if is_set(row, f) {
        f
    } else {
        first_set(row, f + 1, e).unwrap_or(e)
    };
    if first == e {
        (0, 0)
    } else if is_set(row, e - 1) {
        (first, e)
    } else {
        (
            first,
            last_set_before(row, first, e - 1).map_or(first, |x| x + 1),
        )
    }
}

/// Sets (`ON`) or clears in `a`, a row's words, the bits of `b` that line up with them:
/// word `i` of `a` takes bits `shift..64` of `b[i]` and `0..shift` of `b[i + 1]` (`b` is
/// one word longer than `a`; `shift` is 0 unless `SHIFTED`), and the last word only
/// those in `keep`. Returns the bits that changed and the bits left set, each ORed over
/// the words.
#[inline(always)]
fn paint_row<const ON: bool, const SHIFTED: bool>(
    a: &mut [u64],
    b: &[u64],
    shift: u32,
    keep: u64,
) -> (u64, u64) {
    let Some((last, body)) = a.split_last_mut() else {
        return (0, 0);
    };
    let n = body.len();
    let (mut differs, mut left) = (0, 0);
    for ((word, &low), &high) in body.iter_mut().zip(&b[..n]).zip(&b[1..=n]) {
        differs |= paint_word::<ON>(word, b_bits::<SHIFTED>(low, high, shift));
        left |= *word;
    }
    differs |= paint_word::<ON>(last, b_bits::<SHIFTED>(b[n], b[n + 1], shift) & keep);
    (differs, left | *last)
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
        let dy = i64::from(offset.1);
        // Only `other`'s set pixels can change anything: its rows outside its bounding
        // rectangle are clear (and each row is clipped to its own pixels below).
        let y0 = i64::from(y0).max(dy + i64::from(b.y)) as u32;
        let y1 = i64::from(y1).min(dy + i64::from(b.y + b.height)) as u32;
        if y0 >= y1 {
            return;
        }
        let region = (x0, y0, x1, y1);
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
        #[cfg(target_arch = "x86_64")]
        if matches!(WordKernel::best(), WordKernel::Avx2 | WordKernel::Avx512) {
            let paint = match (on, shifted) {
                (true, false) => paint_rows_avx2::<true, false>,
                (true, true) => paint_rows_avx2::<true, true>,
                (false, false) => paint_rows_avx2::<false, false>,
                (false, true) => paint_rows_avx2::<false, true>,
            };
            // SAFETY: the CPU has every feature of the AVX2 build: `WordKernel::best`
            // picks either kernel only after checking them (the AVX-512 one's include
            // them).
            #[allow(unsafe_code)]
            let changed = unsafe { paint(words, a, spans, b, offset, region) };
            self.refresh_derived(changed, on);
            return;
        }
        let paint = match (on, shifted) {
            (true, false) => paint_rows_portable::<true, false>,
            (true, true) => paint_rows_portable::<true, true>,
            (false, false) => paint_rows_portable::<false, false>,
            (false, true) => paint_rows_portable::<false, true>,
        };
        let changed = paint(words, a, spans, b, offset, region);
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
    fn refresh_derived(&mut self, changed: Changed, on: bool) {
        let Some(rect) = changed.rect() else {
            return;
        };
        let (x0, y0, x1, y1) = rect;
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
