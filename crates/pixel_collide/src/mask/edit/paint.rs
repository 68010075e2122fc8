//! Drawing or erasing another mask: [`BitMask::paint`] and its word loops, a column at a
//! time over contiguous words, built for each instruction set the CPU may have, and the
//! painted rows' spans joined with the other mask's without reading a word. Apart from
//! the circle edits and the lookups' updates because these loops are the hot path of a
//! destructible terrain, kept together to be read and measured as one.

use super::Changed;
use crate::mask::overlap::b_bits;
use crate::mask::{BitMask, WordKernel, overlap_region, word_index};
use crate::overlap_kernel::{Runnable, with_word_kernel};

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

/// The words of [`BitMask::paint`]: in A's columns of `window`, rows `y0..y0 + rows`, sets
/// (`ON`) or clears the bits of B that line up with them (A's word takes bits
/// `shift..64` of B's word under it and `0..shift` of the next column's), the last column
/// only the bits in `keep`. `a` is A's words with its column length and columns, `b` B's.
/// Returns the changed pixels' columns `x0..x1`, `None` when nothing changed. `kernel` is
/// the build running, a constant in each copy (see `with_word_kernel!`): the AVX2 and
/// AVX-512 builds paint shifted columns by kernels of their own.
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
    (shift, kernel): (u32, WordKernel),
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
    let by_register = kernel == WordKernel::Avx2 && WordKernel::avx2_shifts_by_register();
    #[cfg(not(target_arch = "x86_64"))]
    let by_register = false;
    let kernel_paints = SHIFTED && (kernel == WordKernel::Avx512 || by_register);
    for (i, k) in (k0..k1).enumerate() {
        let keep = if k + 1 == wpr { keep } else { u64::MAX };
        let a = &mut words[word_index(k, y0, h)..][..rows];
        let low = &b_words[(j + i) * hb + yb0..][..rows];
        let high = &b_words[(j + i + 1) * hb + yb0..][..rows];
        let mut column = 0;
        // Only an erase across every column can leave its rows all clear.
        let track = !ON && rows >= min_rows && k0 == 0 && k1 == wpr;
        #[cfg(target_arch = "x86_64")]
        if SHIFTED && kernel == WordKernel::Avx512 {
            // SAFETY: `kernel` is the AVX-512 build only in that build's copy, which runs
            // only on a CPU with every feature of its list, VBMI2's among them.
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
            // SAFETY: `by_register` needs `kernel` to be the AVX2 build, which it is only in
            // that build's copy, run only on a CPU with AVX2.
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
pub(super) const CLEAR_COLUMN_MIN_ROWS: usize = 256;

/// The same for a mask of one or two words a row, where the note spares, when all its
/// columns are clear, the map over every row that finds their spans otherwise; it cost
/// the erases of 32 px masks at their edge a tenth more time.
pub(super) const SMALL_CLEAR_COLUMN_MIN_ROWS: usize = 64;

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
    shift: (u32, WordKernel),
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

/// [`paint_of`] for the direction and alignment, in `kernel`'s build (a constant in each
/// copy, see `with_word_kernel!`).
#[inline(always)]
fn paint_dispatch(
    kernel: WordKernel,
    on: bool,
    shifted: bool,
    (a, spans, b, w, r, shift): PaintArgs<'_>,
) -> Changed {
    let s = (shift, kernel);
    match (on, shifted) {
        (true, false) => paint_of::<true, false>(a, spans, b, w, r, s),
        (true, true) => paint_of::<true, true>(a, spans, b, w, r, s),
        (false, false) => paint_of::<false, false>(a, spans, b, w, r, s),
        (false, true) => paint_of::<false, true>(a, spans, b, w, r, s),
    }
}

/// The argument list of [`paint_of`] but the build, for [`paint_dispatch`].
type PaintArgs<'a> = (
    (&'a mut [u64], usize, usize, u64),
    Option<&'a mut Vec<(u32, u32)>>,
    PaintB<'a>,
    (Window, i64),
    (usize, usize),
    // The shift.
    u32,
);

// Throughout, `on` means the edit only set pixels, and `!on` that it only cleared them:
// which way a lookup can move depends on it.
impl BitMask {
    pub(super) fn paint(
        &mut self,
        other: &BitMask,
        offset: (i32, i32),
        on: bool,
        kernel: Runnable,
    ) {
        // The rectangles first: a stamp beside the mask, a common edit, then returns before
        // `other`'s bounding rectangle is looked up.
        let Some((x0, y0, x1, y1)) = overlap_region(self, other, offset) else {
            return;
        };
        let Some(b) = other.cached_bounds() else {
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
            shift,
        );
        let changed = with_word_kernel!(
            kernel,
            paint_dispatch(WordKernel, on: bool, shifted: bool, args: PaintArgs<'_>) -> Changed
        );
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
}
