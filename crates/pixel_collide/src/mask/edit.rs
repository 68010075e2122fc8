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

use super::overlap::b_bits;
use super::{
    BitMask, DISTANCE_FIELD_MAX_PIXELS, MaskRect, Row, WordKernel, bit_range, bounds_from_spans,
    chamfer, circle_from_spans, overlap_region, pixel_span, relax_from_row, word_index,
};

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

/// Sets (`ON`) or clears `bits` in `word`; the bits that changed.
#[inline(always)]
fn paint_word<const ON: bool>(word: &mut u64, bits: u64) -> u64 {
    let old = *word;
    *word = if ON { old | bits } else { old & !bits };
    old ^ *word
}

/// Where an edit's column loops read, the same in every build: A's columns `k0..k1` (those
/// of B's rectangle, pixels `x0..x1`), `j`, B's column under A's column k0 (counting B's
/// left guard column), and `yb0`, B's row under A's row `y0`. `j` is at least 0, as A's
/// word k0 starts less than 64 pixels before B's first set pixel, and the column after the
/// last read is B's right guard column at most.
#[derive(Debug, Clone, Copy)]
struct Window {
    k0: usize,
    k1: usize,
    j: usize,
    yb0: usize,
    /// The pixels `x0..x1` themselves, to which a draw clips B's row spans.
    x0: u32,
    x1: u32,
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
            x0,
            x1,
        }
    }
}

/// Which build of the edit loops runs: the same generic code is compiled for each
/// instruction set, and a few steps are written differently where one makes them cheap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
// Off x86-64 only the portable build exists.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
enum EditBuild {
    /// Plain Rust, for any CPU.
    Portable,
    /// AVX2 with BMI1, BMI2 and LZCNT: shifted columns by one shift count where that
    /// pays (see [`WordKernel::avx2_shifts_by_register`]).
    Avx2,
    /// AVX-512 with VBMI2 and CD: a funnel shift for shifted columns.
    Avx512,
}

/// The words of [`BitMask::paint`]: in A's columns of `window`, rows `y0..y0 + rows`, sets
/// (`ON`) or clears the bits of B that line up with them (A's word takes bits
/// `shift..64` of B's word under it and `0..shift` of the next column's), the last column
/// only the bits in `keep`. `a` is A's words with its column length and columns, `b` B's.
/// Returns the changed pixels' columns `x0..x1`, `None` when nothing changed.
///
/// Each column is one run of contiguous words in A and two in B, so the loop is a plain
/// shift, OR and store over three slices that LLVM turns into vector code of whatever
/// width the build has, eight rows a step with AVX-512.
///
/// An erase across every column also returns which of its first 64 columns it left all
/// clear in these rows (bit `k - k0`), found by one more OR a word on words already in
/// registers: when every column is, the rows' spans are set clear and the bounding
/// rectangle's search skips them.
#[inline(always)]
fn paint_words<const ON: bool, const SHIFTED: bool>(
    (words, h, wpr, keep): (&mut [u64], usize, usize, u64),
    (b_words, hb): (&[u64], usize),
    Window { k0, k1, j, yb0, .. }: Window,
    (y0, rows): (usize, usize),
    (shift, build): (u32, EditBuild),
) -> (Option<(u32, u32)>, u64) {
    let (mut x0, mut x1) = (u32::MAX, 0);
    let mut clear_columns = 0;
    let min_rows = if wpr <= 2 {
        SMALL_CLEAR_COLUMN_MIN_ROWS
    } else {
        CLEAR_COLUMN_MIN_ROWS
    };
    // Whether a loop of its own paints shifted columns: AVX-512's funnel shift, or AVX2's
    // shifts by one count on the CPUs where they pay.
    #[cfg(target_arch = "x86_64")]
    let by_register = build == EditBuild::Avx2 && WordKernel::avx2_shifts_by_register();
    #[cfg(not(target_arch = "x86_64"))]
    let by_register = false;
    let kernel_paints = SHIFTED && (build == EditBuild::Avx512 || by_register);
    for (i, k) in (k0..k1).enumerate() {
        let keep = if k + 1 == wpr { keep } else { u64::MAX };
        let a = &mut words[word_index(k, y0, h)..][..rows];
        let low = &b_words[(j + i) * hb + yb0..][..rows];
        let high = &b_words[(j + i + 1) * hb + yb0..][..rows];
        let mut column = 0;
        // Only an erase across every column can leave its rows all clear.
        let track = !ON && rows >= min_rows && k0 == 0 && k1 == wpr;
        #[cfg(target_arch = "x86_64")]
        if SHIFTED && build == EditBuild::Avx512 {
            // SAFETY: only the AVX-512 build sets `EditBuild::Avx512`, and it runs only on a CPU
            // with every feature it is built with, VBMI2's among them.
            #[allow(unsafe_code)]
            let (changed, set) = unsafe {
                if track {
                    paint_column_funnel::<ON, true>(a, (low, high), shift, keep)
                } else {
                    paint_column_funnel::<ON, false>(a, (low, high), shift, keep)
                }
            };
            column = changed;
            if track && set == 0 && i < 64 {
                clear_columns |= 1 << i;
            }
        }
        #[cfg(target_arch = "x86_64")]
        if SHIFTED && by_register {
            // SAFETY: only the AVX2 build sets `EditBuild::Avx2`, which `by_register`
            // needs, and it runs only on a CPU with AVX2.
            #[allow(unsafe_code)]
            let (changed, set) = unsafe {
                if track {
                    paint_column_uniform::<ON, true>(a, (low, high), shift, keep)
                } else {
                    paint_column_uniform::<ON, false>(a, (low, high), shift, keep)
                }
            };
            column = changed;
            if track && set == 0 && i < 64 {
                clear_columns |= 1 << i;
            }
        }
        if kernel_paints {
            // Painted above.
        } else if track {
            let mut set = 0;
            for ((word, &low), &high) in a.iter_mut().zip(low).zip(high) {
                column |= paint_word::<ON>(word, b_bits::<SHIFTED>(low, high, shift) & keep);
                set |= *word;
            }
            if set == 0 && i < 64 {
                clear_columns |= 1 << i;
            }
        } else {
            for ((word, &low), &high) in a.iter_mut().zip(low).zip(high) {
                column |= paint_word::<ON>(word, b_bits::<SHIFTED>(low, high, shift) & keep);
            }
        }
        if column != 0 {
            let base = k as u32 * 64;
            x0 = x0.min(base + column.trailing_zeros());
            x1 = base + 64 - column.leading_zeros();
        }
    }
    ((x0 < x1).then_some((x0, x1)), clear_columns)
}

/// One column of [`paint_words`] with a shifted B, with AVX2: four of A's words a step,
/// B's bits under them shifted by one count for all lanes (`vpsrlq`/`vpsllq` with the
/// count in a register). From plain shifts LLVM builds per-lane variable shifts
/// (`vpsrlvq`), as fast on Intel, but on AMD Zen 1 they take twice as long: 3.8 cycles a
/// 256-bit shift against 1.9, the shifts then the loop's limit. Run only where
/// [`WordKernel::avx2_shifts_by_register`] says it pays. Returns what
/// [`paint_column_funnel`] returns.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn paint_column_uniform<const ON: bool, const TRACK: bool>(
    a: &mut [u64],
    (low, high): (&[u64], &[u64]),
    shift: u32,
    keep: u64,
) -> (u64, u64) {
    use std::arch::x86_64::*;
    let n = a.len();
    let (low, high) = (&low[..n], &high[..n]);
    let right = _mm_cvtsi64_si128(i64::from(shift));
    let left = _mm_cvtsi64_si128(64 - i64::from(shift));
    let keep_bits = _mm256_set1_epi64x(keep as i64);
    let (mut changed, mut set) = (_mm256_setzero_si256(), _mm256_setzero_si256());
    // Four words at `i`: painted, their changed bits and new values gathered.
    let mut step = |i: usize| {
        // SAFETY: the callers pass `i + 4 <= n`, so words `i..i + 4` lie in all three
        // slices, `n` words long.
        #[allow(unsafe_code)]
        let (l, h, old) = unsafe {
            (
                _mm256_loadu_si256(low.as_ptr().add(i).cast()),
                _mm256_loadu_si256(high.as_ptr().add(i).cast()),
                _mm256_loadu_si256(a.as_ptr().add(i).cast()),
            )
        };
        let b = _mm256_or_si256(_mm256_srl_epi64(l, right), _mm256_sll_epi64(h, left));
        let b = _mm256_and_si256(b, keep_bits);
        let new = if ON {
            _mm256_or_si256(old, b)
        } else {
            _mm256_andnot_si256(b, old)
        };
        // SAFETY: as for the loads.
        #[allow(unsafe_code)]
        unsafe {
            _mm256_storeu_si256(a.as_mut_ptr().add(i).cast(), new)
        };
        changed = _mm256_or_si256(changed, _mm256_xor_si256(old, new));
        if TRACK {
            set = _mm256_or_si256(set, new);
        }
    };
    let mut i = 0;
    while i + 8 <= n {
        step(i);
        step(i + 4);
        i += 8;
    }
    if i + 4 <= n {
        step(i);
        i += 4;
    }
    let or_lanes = |v: __m256i| {
        let v = _mm_or_si128(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v));
        (_mm_cvtsi128_si64(v) | _mm_extract_epi64::<1>(v)) as u64
    };
    let (mut changed, mut set) = (or_lanes(changed), or_lanes(set));
    for ((word, &low), &high) in a[i..].iter_mut().zip(&low[i..]).zip(&high[i..]) {
        changed |= paint_word::<ON>(word, b_bits::<true>(low, high, shift) & keep);
        set |= *word;
    }
    (changed, set)
}

/// One column of [`paint_words`] with a shifted B, with AVX-512 VBMI2: B's bits under
/// eight of A's words by one funnel shift (`vpshrdvq`) of B's two columns. LLVM builds
/// the portable loop's two shifts and OR as three instructions, and on this CPU family
/// both shifts take the one port that does them. Returns the changed bits of the
/// column's words ORed together and, with `TRACK`, their new values ORed together.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vbmi2")]
#[inline]
fn paint_column_funnel<const ON: bool, const TRACK: bool>(
    a: &mut [u64],
    (low, high): (&[u64], &[u64]),
    shift: u32,
    keep: u64,
) -> (u64, u64) {
    use std::arch::x86_64::*;
    let n = a.len();
    let (low, high) = (&low[..n], &high[..n]);
    let count = _mm512_set1_epi64(i64::from(shift));
    let keep_bits = _mm512_set1_epi64(keep as i64);
    let (mut changed, mut set) = (_mm512_setzero_si512(), _mm512_setzero_si512());
    // Eight words at `i` (those of them in `lanes`): painted, their changed bits and
    // new values gathered. Lanes left out read as zero and are not written, so they
    // change nothing; with all eight, the loads and store are plain ones.
    let mut step = |i: usize, lanes: __mmask8| {
        // SAFETY: the callers pass `i + 8 <= n`, so words `i..i + 8` lie in all three
        // slices, `n` words long.
        #[allow(unsafe_code)]
        let (l, h, old) = unsafe {
            (
                _mm512_maskz_loadu_epi64(lanes, low.as_ptr().add(i).cast()),
                _mm512_maskz_loadu_epi64(lanes, high.as_ptr().add(i).cast()),
                _mm512_maskz_loadu_epi64(lanes, a.as_ptr().add(i).cast()),
            )
        };
        let b = _mm512_and_si512(_mm512_shrdv_epi64(l, h, count), keep_bits);
        let new = if ON {
            _mm512_or_si512(old, b)
        } else {
            _mm512_andnot_si512(b, old)
        };
        // SAFETY: as for the loads.
        #[allow(unsafe_code)]
        unsafe {
            _mm512_mask_storeu_epi64(a.as_mut_ptr().add(i).cast(), lanes, new)
        };
        changed = _mm512_or_si512(changed, _mm512_xor_si512(old, new));
        if TRACK {
            set = _mm512_or_si512(set, new);
        }
    };
    const ALL: __mmask8 = 0xff;
    // From where B's low column reaches a 64-byte boundary on, so that its loads, and the
    // high column's when B's column length is a multiple of 8, do not each span two cache
    // lines (A's words lie where they lie): the words before it in a step of their own.
    // With A's words aligned instead, the 512 and 2,048 px shifted edits gained about as
    // much (benches/README.md).
    let mut i = 0;
    let before_boundary = (8 - (low.as_ptr() as usize / 8) % 8) % 8;
    if before_boundary != 0 && n >= 16 {
        step(0, (1u8 << before_boundary) - 1);
        i = before_boundary;
    }
    // Two steps an iteration: one left the loads of the next waiting on the loop's end.
    while i + 16 <= n {
        step(i, ALL);
        step(i + 8, ALL);
        i += 16;
    }
    if i + 8 <= n {
        step(i, ALL);
        i += 8;
    }
    let (mut changed, mut set) = (
        _mm512_reduce_or_epi64(changed) as u64,
        _mm512_reduce_or_epi64(set) as u64,
    );
    for ((word, &low), &high) in a[i..].iter_mut().zip(&low[i..]).zip(&high[i..]) {
        changed |= paint_word::<ON>(word, b_bits::<true>(low, high, shift) & keep);
        set |= *word;
    }
    (changed, set)
}

/// The fewest rows for which an erase of a mask over two words wide notes the columns it
/// left clear (see [`paint_words`]): the note costs a column a reduction of a vector,
/// which shorter erases measured slower with.
const CLEAR_COLUMN_MIN_ROWS: usize = 256;

/// The same for a mask of one or two words a row, where the note spares, when all its
/// columns are clear, the map over every row that finds their spans otherwise; it cost
/// the erases of 32 px masks at their edge a tenth more time.
const SMALL_CLEAR_COLUMN_MIN_ROWS: usize = 64;

/// The spans of rows after a draw of B's rows, their spans `b_spans` moved by `dx` into A
/// and clipped to A's painted pixels `x0..x1`: each joined with B's pixels in it, or kept
/// where that part of B's row is clear; no word is read. Where A's edge does not cut B's
/// row, the join is exact (B's first and last pixels are painted); where it does, it
/// may be wider than the row's pixels. Returns the first and past-the-last rows
/// (relative to the first) that B's clipped spans reach, `None` if none.
#[inline(always)]
fn join_b_spans(
    spans: &mut [(u32, u32)],
    b_spans: &[(u32, u32)],
    dx: i64,
    (x0, x1): (u32, u32),
) -> Option<(usize, usize)> {
    // In i32: sizes are at most 2^20, and LLVM keeps the loop in vectors (it stays
    // scalar with the first and last rows tracked in it: they are found after).
    let (dx, x0, x1) = (dx as i32, x0 as i32, x1 as i32);
    let clipped = move |(bf, be): (u32, u32)| {
        let (lo, hi) = ((bf as i32 + dx).max(x0), (be as i32 + dx).min(x1));
        (lo, hi, bf < be && lo < hi)
    };
    for (span, &b) in spans.iter_mut().zip(b_spans) {
        let (lo, hi, reached) = clipped(b);
        let (f, e) = *span;
        *span = if !reached {
            (f, e)
        } else if f < e {
            (f.min(lo as u32), e.max(hi as u32))
        } else {
            (lo as u32, hi as u32)
        };
    }
    let b_spans = &b_spans[..spans.len()];
    let top = b_spans.iter().position(|&b| clipped(b).2)?;
    let bottom = b_spans.iter().rposition(|&b| clipped(b).2)?;
    Some((top, bottom + 1))
}

/// B as [`paint_of`] reads it: its words and column length, its row spans from the row
/// under the edit's first, and whether a draw joined from those spans gives A's exact
/// spans (A's edge does not cut B's rectangle, and B's spans are exact).
type PaintB<'a> = ((&'a [u64], usize), &'a [(u32, u32)], bool);

/// [`BitMask::paint`]'s work on A's words and row spans, for one direction (`ON`) and
/// alignment: the words, then the spans of the painted rows, which no word is read for.
/// An erase that left its rows all clear sets them clear. Otherwise a draw joins each
/// row's span with B's, clipped to A; an erase keeps them, as no pixel moved out of
/// them. Both can
/// leave spans wider than their rows' pixels (the `loose` of the result): finding the
/// exact ends cost a 512 px draw that A's edge cuts more than its painting with AVX2,
/// and half of it with AVX-512 (see `benches/README.md`); the mask makes them exact again
/// once such edits have cost it enough (see [`BitMask::note_loose_rows`]).
///
/// Returns the changed pixels' box: the changed columns exactly, and the painted rows
/// (for a draw, those B's clipped spans reach). Which rows changed is not tracked: a
/// scratch word a row cost as much as the painting.
#[inline(always)]
fn paint_of<const ON: bool, const SHIFTED: bool>(
    (words, h, wpr, keep): (&mut [u64], usize, usize, u64),
    spans: Option<&mut Vec<(u32, u32)>>,
    (b_words, b_spans, exact_join): PaintB<'_>,
    (window, dx): (Window, i64),
    (y0, y1): (usize, usize),
    shift: (u32, EditBuild),
) -> Changed {
    let (painted, clear_columns) = paint_words::<ON, SHIFTED>(
        (&mut *words, h, wpr, keep),
        b_words,
        window,
        (y0, y1 - y0),
        shift,
    );
    let Some((x0, x1)) = painted else {
        return Changed::default();
    };
    let mut changed = Changed {
        x0,
        y0: y0 as u32,
        x1,
        y1: y1 as u32,
        rows_clear: false,
        loose: false,
    };
    let Window { k0, k1, .. } = window;
    let every_column = u64::MAX >> (64 - wpr.clamp(1, 64));
    if !ON && k0 == 0 && k1 == wpr && wpr <= 64 && clear_columns == every_column {
        // The erase left its rows all clear (a crater that takes all of a piece, say):
        // their spans are clear ones, with nothing to search.
        if let Some(spans) = spans {
            spans[y0..y1].fill((0, 0));
        }
        changed.rows_clear = true;
        return changed;
    }
    let Some(spans) = spans else {
        return changed;
    };
    let spans = &mut spans[y0..y1];
    changed.loose = !ON || !exact_join;
    if ON {
        let reached = join_b_spans(spans, b_spans, dx, (window.x0, window.x1));
        if let Some((top, bottom)) = reached {
            (changed.y0, changed.y1) = ((y0 + top) as u32, (y0 + bottom) as u32);
        }
    }
    changed
}

/// [`paint_of`] for the direction and alignment, built for the caller's features.
#[inline(always)]
fn paint_dispatch(on: bool, shifted: bool, (a, spans, b, w, r, s): PaintArgs<'_>) -> Changed {
    match (on, shifted) {
        (true, false) => paint_of::<true, false>(a, spans, b, w, r, s),
        (true, true) => paint_of::<true, true>(a, spans, b, w, r, s),
        (false, false) => paint_of::<false, false>(a, spans, b, w, r, s),
        (false, true) => paint_of::<false, true>(a, spans, b, w, r, s),
    }
}

/// The argument list of [`paint_of`], for the builds below.
type PaintArgs<'a> = (
    (&'a mut [u64], usize, usize, u64),
    Option<&'a mut Vec<(u32, u32)>>,
    PaintB<'a>,
    (Window, i64),
    (usize, usize),
    // The shift, and the build running.
    (u32, EditBuild),
);

/// [`paint_of`] with AVX-512: eight rows a vector, the shift a funnel shift (`vpshrdvq`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512cd,avx512vpopcntdq,avx512vbmi2,avx2,bmi1,bmi2,lzcnt")]
fn paint_avx512(on: bool, shifted: bool, mut args: PaintArgs<'_>) -> Changed {
    args.5.1 = EditBuild::Avx512;
    paint_dispatch(on, shifted, args)
}

/// [`paint_of`] with AVX2: four rows a vector.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
fn paint_avx2(on: bool, shifted: bool, mut args: PaintArgs<'_>) -> Changed {
    args.5.1 = EditBuild::Avx2;
    paint_dispatch(on, shifted, args)
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
        self.paint(other, offset, true, WordKernel::best());
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
        // its spans do not tell A's exactly.
        let (w, h) = (i64::from(self.width), i64::from(self.height));
        let cut = dx + i64::from(b.x) < 0
            || dx + i64::from(b.x + b.width) > w
            || dy + i64::from(b.y) < 0
            || dy + i64::from(b.y + b.height) > h;
        let window = Window::of((dx, dy), (x0, y0, x1));
        let shift = (-dx).rem_euclid(64) as u32;
        let shifted = shift != 0;
        // Built here if no query has built them yet: edits keep them, and the next query
        // would build them anyway.
        self.pixel_spans();
        let (h, wpr, keep) = (
            self.height as usize,
            self.words_per_row,
            self.last_word_bits(),
        );
        let args: PaintArgs<'_> = (
            (&mut self.words, h, wpr, keep),
            self.pixel_spans.get_mut(),
            (
                other.words_and_stride(),
                &other.pixel_spans()[window.yb0..],
                !cut && !other.has_loose_rows(),
            ),
            (window, dx),
            (y0 as usize, y1 as usize),
            (shift, EditBuild::Portable),
        );
        // Off x86-64 only the portable build is left, and no `break` names the label.
        #[cfg_attr(not(target_arch = "x86_64"), allow(unused_labels))]
        let changed = 'painted: {
            #[cfg(target_arch = "x86_64")]
            if kernel == WordKernel::Avx512 {
                // SAFETY: the CPU has every feature of the AVX-512 build: `kernel` is
                // `WordKernel::best` or checked available by `paint_using`, and either
                // is the AVX-512 kernel only after `is_available` checked its whole list,
                // which `paint_avx512`'s features are within.
                #[allow(unsafe_code)]
                break 'painted unsafe { paint_avx512(on, shifted, args) };
            }
            #[cfg(target_arch = "x86_64")]
            if matches!(kernel, WordKernel::Avx2 | WordKernel::Avx512) {
                // SAFETY: as above, for the AVX2 build's features, which the AVX-512
                // kernel's include.
                #[allow(unsafe_code)]
                break 'painted unsafe { paint_avx2(on, shifted, args) };
            }
            let _ = kernel;
            paint_dispatch(on, shifted, args)
        };
        // An erase's pixels were set: within the bounding rectangle before it, which
        // narrows the painted rows.
        let changed = match self.bounds.get() {
            Some(&bounds) if !on => changed.within(bounds),
            _ => changed,
        };
        self.refresh_derived(changed, on);
        if changed.loose
            && let Some((_, y0, _, y1)) = changed.rect()
        {
            self.note_loose_rows(y0, y1);
        }
    }

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
    fn refresh_derived(&mut self, changed: Changed, on: bool) {
        if let Some((x0, y0, x1, y1)) = changed.rect() {
            // Rebuilt on the next gap query rather than patched: an edit's neighbourhood
            // can add and remove outline pixels anywhere along the changed rows.
            if self.outline.get().is_some() {
                self.outline = std::sync::OnceLock::new();
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
    with_vector_build!(x_extent_of_spans_of(spans: &[(u32, u32)]) -> (u32, u32))
}

#[inline(always)]
/// The right side of the set pixels in rows with these spans: their ends' maximum (a
/// clear row's end is 0). With AVX-512 or AVX2 as [`x_extent_of_spans`].
fn right_of_spans(spans: &[(u32, u32)]) -> u32 {
    with_vector_build!(right_of_spans_of(spans: &[(u32, u32)]) -> u32)
}

#[inline(always)]
fn right_of_spans_of(spans: &[(u32, u32)]) -> u32 {
    spans.iter().fold(0, |right, &(_, end)| right.max(end))
}

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
        let mut rng = pixel_collide_support::rng::SplitMix64(seed);
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
    /// Every build this CPU has, the AVX2 one with both forms of its shifts (see
    /// [`WordKernel::avx2_shifts_by_register`]), forced.
    fn available_kernels() -> Vec<(WordKernel, Option<bool>)> {
        WordKernel::ALL
            .into_iter()
            .filter(|k| k.is_available())
            .flat_map(|k| match k {
                WordKernel::Avx2 => vec![(k, Some(false)), (k, Some(true))],
                _ => vec![(k, None)],
            })
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
    /// every mask has the same pixels, and row spans, bounding rectangle and circle that
    /// hold those of a mask rebuilt from them (equal where no span is loose).
    fn paint_with_every_kernel_and_check(
        masks: &mut [BitMask],
        kernels: &[(WordKernel, Option<bool>)],
        stamp: &BitMask,
        (ox, oy): (i32, i32),
        on: bool,
    ) {
        for (m, &(kernel, by_register)) in masks.iter_mut().zip(kernels) {
            WordKernel::force_avx2_shifts_by_register(by_register);
            m.paint_using(stamp, (ox, oy), on, kernel);
        }
        WordKernel::force_avx2_shifts_by_register(None);
        let (w, h, bw, bh) = (masks[0].width, masks[0].height, stamp.width, stamp.height);
        let fresh = BitMask {
            words: masks[0].words.clone(),
            ..BitMask::new(w, h)
        };
        for (m, kernel) in masks.iter().zip(kernels) {
            let what = format!("{kernel:?}, {w} x {h}, {bw} x {bh} at ({ox}, {oy}), on {on}");
            assert!(*m == masks[0], "{what}: pixels");
            assert!(m.pixel_spans.get().is_some(), "{what}: spans dropped");
            assert!(m.bounds.get().is_some(), "{what}: bounds dropped");
            assert!(m.circle.get().is_some(), "{what}: circle dropped");
            m.assert_span_lookups_hold(&fresh, &what);
        }
    }

    /// Every kernel this CPU has draws and erases masks into masks of three words a row
    /// and more (and narrower ones) as every other, and leaves row spans, bounding
    /// rectangle and circle equal to those of a mask rebuilt from the same pixels, or
    /// holding them where spans are loose (and the exact ones found on demand equal to
    /// them; see `BitMask::assert_span_lookups_hold`): edits whose
    /// stamps cover up to 8 words and more, cut by A's edges or not, erasing rows' ends
    /// and whole words.
    #[test]
    fn every_kernel_paints_and_keeps_span_lookups_sound() {
        let kernels = available_kernels();
        let mut rng = pixel_collide_support::rng::SplitMix64(0x5EED_5BA5);
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
    fn two_word_masks_stamped_with_two_word_masks_keep_span_lookups_sound() {
        let kernels = available_kernels();
        let mut rng = pixel_collide_support::rng::SplitMix64(0x2_5EED);
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
    fn one_word_masks_stamped_with_one_word_masks_keep_span_lookups_sound() {
        let kernels = available_kernels();
        let mut rng = pixel_collide_support::rng::SplitMix64(0x1_5EED);
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
    fn tall_erases_that_clear_whole_columns_keep_span_lookups_sound() {
        // Erases of enough rows across every column note the columns they leave clear:
        // when every column is, the rows' spans are set clear and the bounding
        // rectangle's search skips them. Solid stamps clear
        // whole columns, or every column of some rows at the top or bottom, while the
        // pixels around them stay; some stamps miss a column's pixels by a row.
        let kernels = available_kernels();
        let mut rng = pixel_collide_support::rng::SplitMix64(0xC1EA_C0F5);
        for case in 0..80u64 {
            let w = [40, 128, 200, 257, 513, 1100][case as usize % 6];
            let min_rows = if w <= 128 {
                SMALL_CLEAR_COLUMN_MIN_ROWS
            } else {
                CLEAR_COLUMN_MIN_ROWS
            } as u32;
            let h = min_rows + (rng.next_u64() % 300) as u32;
            let start = sample(w, h, rng.next_u64());
            let mut masks = copies_with_lookups(&start, kernels.len());
            for step in 0..6 {
                let bw = 1 + (rng.next_u64() % u64::from(w + 64)) as u32;
                let (bh, oy) = if step % 3 == 2 {
                    let bh = min_rows + (rng.next_u64() % u64::from(h - min_rows + 1)) as u32;
                    (bh, if rng.next_u64() & 1 == 0 { 0 } else { h - bh })
                } else {
                    (h - (rng.next_u64() % 3) as u32, (rng.next_u64() % 3) as u32)
                };
                let stamp = if step % 2 == 0 {
                    BitMask::solid(bw, bh).expect("a small solid stamp")
                } else {
                    sample(bw, bh, rng.next_u64())
                };
                let ox = (rng.next_u64() % u64::from(w)) as i32 - (bw / 2) as i32;
                let at = (ox, oy as i32);
                paint_with_every_kernel_and_check(&mut masks, &kernels, &stamp, at, false);
            }
            let whole = masks[0].clone();
            paint_with_every_kernel_and_check(&mut masks, &kernels, &whole, (0, 0), false);
            assert_eq!(
                masks[0].count(),
                0,
                "an erase of the mask by itself clears it"
            );
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
