//! Axis-aligned overlap: the columns of words two masks share, each a run of contiguous
//! words walked eight rows a vector (by LLVM, in the build the CPU picks).

use super::*;

/// The overlapping region of two masks, in `a`'s coordinates, or `None` when they miss.
/// Computed in `i64` so that any `i32` offset is valid.
pub(super) fn overlap_region(
    a: &BitMask,
    b: &BitMask,
    offset: (i32, i32),
) -> Option<(u32, u32, u32, u32)> {
    let (dx, dy) = (i64::from(offset.0), i64::from(offset.1));
    let x0 = dx.max(0);
    let y0 = dy.max(0);
    let x1 = (dx + i64::from(b.width)).min(i64::from(a.width));
    let y1 = (dy + i64::from(b.height)).min(i64::from(a.height));
    (x0 < x1 && y0 < y1).then_some((x0 as u32, y0 as u32, x1 as u32, y1 as u32))
}

/// Where the set pixels of both masks can meet, in `a`'s coordinates: the overlap of their
/// bounding rectangles, or `None`.
pub(super) fn set_pixel_region(
    a: &BitMask,
    b: &BitMask,
    offset: (i32, i32),
) -> Option<(u32, u32, u32, u32)> {
    let (ra, rb) = (a.cached_bounds()?, b.cached_bounds()?);
    let (dx, dy) = (i64::from(offset.0), i64::from(offset.1));
    let x0 = i64::from(ra.x).max(dx + i64::from(rb.x));
    let y0 = i64::from(ra.y).max(dy + i64::from(rb.y));
    let x1 = i64::from(ra.x + ra.width).min(dx + i64::from(rb.x + rb.width));
    let y1 = i64::from(ra.y + ra.height).min(dy + i64::from(rb.y + rb.height));
    (x0 < x1 && y0 < y1).then_some((x0 as u32, y0 as u32, x1 as u32, y1 as u32))
}

/// Overlaps at least this many rows tall first try to prove one mask clear over the whole
/// region (a sprite inside a ring's hole) with one distance lookup: below it the row scan
/// is cheap anyway, and a one-off test on fresh masks need not build the distance field.
pub(super) const CLEAR_SPACE_MIN_ROWS: u32 = 32;

/// The most rows a first-hit scan of three columns or more tests at a time, over the
/// columns where both masks' spans meet, before it looks for the first row with a hit:
/// its blocks grow from one row to this many, so a hit near the top costs about what it
/// does row by row, and a miss a test per block and column.
const FIRST_HIT_BLOCK: usize = 16;

/// The words of an axis-aligned overlap: A's columns `first_word..first_word + n` (the
/// overlap of both masks' bounding rectangles, in whole words) in rows `y0..y0 + rows`,
/// and under each, B's two columns whose bits it meets, in B's rows `by0..`.
///
/// Every column has the same rows, rather than each row clipped to its own set pixels:
/// per-row clipping costs more than the words it skips (a disc fills 79% of its square),
/// while a column is one run of contiguous words. Only the rows at the top and bottom
/// where the masks' set pixels cannot meet are trimmed off once, which settles a near
/// miss of two round sprites in a few compares.
#[derive(Clone, Copy)]
pub(super) struct OverlapWalk<'m> {
    /// Both masks' words and column lengths ([`BitMask::words_and_stride`]).
    a_words: &'m [u64],
    b_words: &'m [u64],
    strides: (usize, usize),
    /// Both masks' pixel spans in each of these rows.
    spans: (&'m [(u32, u32)], &'m [(u32, u32)]),
    dx: i64,
    rows: usize,
    y0: u32,
    by0: usize,
    first_word: usize,
    /// B's column (counting its left guard column) whose bits A's column `first_word`
    /// meets first; A's column `first_word + i` meets B's `b_first + i` and the next.
    b_first: usize,
    n: usize,
    /// B's columns' bits, shifted right by `shift` bits (0 for a word-aligned offset).
    shift: u32,
}

/// The bits of B under one word of A, from B's word there (`low`) and the next (`high`).
#[inline(always)]
pub(super) fn b_bits<const SHIFTED: bool>(low: u64, high: u64, shift: u32) -> u64 {
    if SHIFTED {
        (low >> shift) | (high << (64 - shift))
    } else {
        low
    }
}

/// Pixels set in both of a column of A's words and B's bits under them.
#[inline(always)]
fn column_area<const SHIFTED: bool>(a: &[u64], low: &[u64], high: &[u64], shift: u32) -> u64 {
    let n = a.len();
    let (low, high) = (&low[..n], &high[..n]);
    let mut area = 0;
    for i in 0..n {
        area += u64::from((a[i] & b_bits::<SHIFTED>(low[i], high[i], shift)).count_ones());
    }
    area
}

/// Whether any pixel is set in both of a column of A's words and B's bits under them.
#[inline(always)]
fn column_meets<const SHIFTED: bool>(a: &[u64], low: &[u64], high: &[u64], shift: u32) -> bool {
    let n = a.len();
    let (low, high) = (&low[..n], &high[..n]);
    let mut any = 0;
    for i in 0..n {
        any |= a[i] & b_bits::<SHIFTED>(low[i], high[i], shift);
    }
    any != 0
}

/// The fewest rows for which [`column_area_uniform`] counts a walk's columns: it takes
/// four words a step with one vector of sums, where LLVM's loop unrolls; on the Zen 1 it
/// gained from 64 rows up (`benches/README.md`).
#[cfg(target_arch = "x86_64")]
const UNIFORM_MIN_ROWS: usize = 64;

/// [`column_area`] of a shifted B with AVX2, B's bits shifted by one count for all lanes
/// (`vpsrlq`/`vpsllq` with the count in a register) and counted by nibble lookups. From
/// the plain loop LLVM builds per-lane variable shifts (`vpsrlvq`), one uop on Intel, but
/// twice the time of a by-register shift on AMD Zen 1 (3.8 cycles a 256-bit shift against
/// 1.9), where they were the loop's limit. Run only where
/// [`WordKernel::avx2_shifts_by_register`] says it pays.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt")]
#[inline]
fn column_area_uniform(a: &[u64], low: &[u64], high: &[u64], shift: u32) -> u64 {
    use std::arch::x86_64::*;
    let n = a.len();
    let (low, high) = (&low[..n], &high[..n]);
    let right = _mm_cvtsi64_si128(i64::from(shift));
    let left = _mm_cvtsi64_si128(64 - i64::from(shift));
    let nibbles = _mm256_setr_epi8(
        0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3,
        3, 4,
    );
    let low_nibble = _mm256_set1_epi8(0x0f);
    let mut sums = _mm256_setzero_si256();
    let mut i = 0;
    while i + 4 <= n {
        // SAFETY: words `i..i + 4` lie in all three slices, `n` words long.
        #[allow(unsafe_code)]
        let (w, l, h) = unsafe {
            (
                _mm256_loadu_si256(a.as_ptr().add(i).cast()),
                _mm256_loadu_si256(low.as_ptr().add(i).cast()),
                _mm256_loadu_si256(high.as_ptr().add(i).cast()),
            )
        };
        let b = _mm256_or_si256(_mm256_srl_epi64(l, right), _mm256_sll_epi64(h, left));
        let both = _mm256_and_si256(w, b);
        let lo = _mm256_and_si256(both, low_nibble);
        let hi = _mm256_and_si256(_mm256_srli_epi16::<4>(both), low_nibble);
        let bytes = _mm256_add_epi8(
            _mm256_shuffle_epi8(nibbles, lo),
            _mm256_shuffle_epi8(nibbles, hi),
        );
        sums = _mm256_add_epi64(sums, _mm256_sad_epu8(bytes, _mm256_setzero_si256()));
        i += 4;
    }
    let sums = _mm_add_epi64(
        _mm256_castsi256_si128(sums),
        _mm256_extracti128_si256::<1>(sums),
    );
    let mut area = (_mm_cvtsi128_si64(sums) + _mm_extract_epi64::<1>(sums)) as u64;
    for i in i..n {
        area += u64::from((a[i] & b_bits::<true>(low[i], high[i], shift)).count_ones());
    }
    area
}

impl<'m> OverlapWalk<'m> {
    /// [`Self::area`] of a shifted walk by [`column_area_uniform`]: a function of its own,
    /// called only for walks of at least [`UNIFORM_MIN_ROWS`] rows, so that the plain
    /// loop's code, which shorter walks run, stays as it was (inlined beside it, the
    /// kernel slowed the short walks).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,popcnt")]
    #[inline(never)]
    fn area_uniform(&self) -> u64 {
        let mut area = 0;
        for i in 0..self.n {
            let (a, low, high) = self.column(i);
            area += column_area_uniform(a, low, high, self.shift);
        }
        area
    }

    /// This overlap without its rows at the top and bottom where the set pixels of both
    /// masks (their spans) cannot meet, or `None` when no row's can.
    #[inline(always)]
    fn trimmed(mut self) -> Option<Self> {
        let spans = || self.spans.0.iter().zip(self.spans.1);
        let top = spans().position(|s| self.meets(s))?;
        let bottom = spans().rposition(|s| self.meets(s))?;
        self.spans = (&self.spans.0[top..=bottom], &self.spans.1[top..=bottom]);
        self.y0 += top as u32;
        self.by0 += top;
        self.rows = bottom + 1 - top;
        Some(self)
    }

    /// Whether the set pixels of a row of both masks (their spans) can meet:
    /// max(a_first, b_first + dx) < min(a_end, b_end + dx), as four compares and no
    /// branches. An all-clear row's span (0, 0) meets nothing.
    #[inline(always)]
    fn meets(&self, (&(a_first, a_end), &(b_first, b_end)): (&(u32, u32), &(u32, u32))) -> bool {
        let (a_first, a_end) = (i64::from(a_first), i64::from(a_end));
        let (b_first, b_end) = (i64::from(b_first) + self.dx, i64::from(b_end) + self.dx);
        (a_first < a_end) & (a_first < b_end) & (b_first < a_end) & (b_first < b_end)
    }

    /// Column `i` of the walk: A's words in its rows, and B's two columns under them.
    #[inline(always)]
    fn column(&self, i: usize) -> (&'m [u64], &'m [u64], &'m [u64]) {
        let (ha, hb) = self.strides;
        let a = &self.a_words[word_index(self.first_word + i, self.y0 as usize, ha)..][..self.rows];
        let c = self.b_first + i;
        let low = &self.b_words[c * hb + self.by0..][..self.rows];
        let high = &self.b_words[(c + 1) * hb + self.by0..][..self.rows];
        (a, low, high)
    }

    // Loops, not closures, throughout: a closure is compiled as a function of its own,
    // without the caller's target features, and the loops inlined into it are then
    // built for the baseline target (overlap_area took 6.6 times as long).
    #[inline(always)]
    fn area_of<const SHIFTED: bool>(&self) -> u64 {
        let mut area = 0;
        for i in 0..self.n {
            let (a, low, high) = self.column(i);
            area += column_area::<SHIFTED>(a, low, high, self.shift);
        }
        area
    }

    #[inline(always)]
    fn area(&self) -> u64 {
        if self.shift != 0 {
            self.area_of::<true>()
        } else {
            self.area_of::<false>()
        }
    }

    #[inline(always)]
    fn first_hit_of<const SHIFTED: bool>(&self) -> Option<(u32, u32)> {
        match self.n {
            1 => return self.narrow_first_hit::<SHIFTED, 1>(),
            2 => return self.narrow_first_hit::<SHIFTED, 2>(),
            _ => {}
        }
        let (mut start, mut len) = (0, 1);
        while start < self.rows {
            let block = start..start + len.min(self.rows - start);
            start = block.end;
            // Blocks grow from one row: a hit in the first rows costs about what it
            // does row by row, a long scan a test per block and column.
            len = (len * 2).min(FIRST_HIT_BLOCK);
            // Only the columns where the two masks' spans meet in some row of the block:
            // a near miss of two round or star-shaped sprites meets in few of them.
            let Some((i0, i1)) = self.meeting_columns(block.clone()) else {
                continue;
            };
            let mut hit = false;
            for i in i0..i1 {
                let (a, low, high) = self.column(i);
                let (a, low, high) = (&a[block.clone()], &low[block.clone()], &high[block.clone()]);
                if column_meets::<SHIFTED>(a, low, high, self.shift) {
                    hit = true;
                    break;
                }
            }
            if hit {
                for r in block {
                    for i in i0..i1 {
                        let (a, low, high) = self.column(i);
                        let bits = a[r] & b_bits::<SHIFTED>(low[r], high[r], self.shift);
                        if bits != 0 {
                            let x = ((self.first_word + i) * 64) as u32 + bits.trailing_zeros();
                            return Some((x, self.y0 + r as u32));
                        }
                    }
                }
            }
        }
        None
    }

    /// [`Self::first_hit_of`] for a walk of `N` columns, one or two: row by row, a few
    /// instructions a row, as blocks of rows would cost more to set up than they save.
    #[inline(always)]
    fn narrow_first_hit<const SHIFTED: bool, const N: usize>(&self) -> Option<(u32, u32)> {
        let columns: [_; N] = std::array::from_fn(|i| self.column(i));
        for r in 0..self.rows {
            for (i, &(a, low, high)) in columns.iter().enumerate() {
                let bits = a[r] & b_bits::<SHIFTED>(low[r], high[r], self.shift);
                if bits != 0 {
                    let x = ((self.first_word + i) * 64) as u32 + bits.trailing_zeros();
                    return Some((x, self.y0 + r as u32));
                }
            }
        }
        None
    }

    /// The walk's columns `i0..i1` where both masks' spans meet in some of `rows`, or
    /// `None` where they meet in none.
    #[inline(always)]
    fn meeting_columns(&self, rows: std::ops::Range<usize>) -> Option<(usize, usize)> {
        let (mut lo, mut hi) = (i64::MAX, i64::MIN);
        let spans = self.spans.0[rows.clone()].iter().zip(&self.spans.1[rows]);
        for (&(a_first, a_end), &(b_first, b_end)) in spans {
            let from = i64::from(a_first).max(i64::from(b_first) + self.dx);
            let to = i64::from(a_end).min(i64::from(b_end) + self.dx);
            let meets = from < to && a_first < a_end && b_first < b_end;
            lo = lo.min(if meets { from } else { i64::MAX });
            hi = hi.max(if meets { to } else { i64::MIN });
        }
        if lo >= hi {
            return None;
        }
        let base = self.first_word as i64;
        let i0 = (lo / 64 - base).max(0) as usize;
        let i1 = (((hi - 1) / 64 - base + 1) as usize).min(self.n);
        (i0 < i1).then_some((i0, i1))
    }

    /// The first pixel set in both, in row-major order.
    #[inline(always)]
    fn first_hit(&self) -> Option<(u32, u32)> {
        if self.shift != 0 {
            self.first_hit_of::<true>()
        } else {
            self.first_hit_of::<false>()
        }
    }
}

impl BitMask {
    /// The words where both masks can have set pixels in the overlap; `None` when they
    /// cannot meet at all. Inline: as a call of its own it returned the walk through
    /// memory, a third of a 32 px overlap's time.
    #[inline(always)]
    pub(super) fn overlap_walk<'m>(
        &'m self,
        other: &'m BitMask,
        offset: (i32, i32),
    ) -> Option<OverlapWalk<'m>> {
        let (x0, y0, x1, y1) = set_pixel_region(self, other, offset)?;
        let (dx, dy) = (i64::from(offset.0), i64::from(offset.1));
        if y1 - y0 >= CLEAR_SPACE_MIN_ROWS {
            let region = [x0, y0, x1, y1].map(i64::from);
            let in_other = [
                region[0] - dx,
                region[1] - dy,
                region[2] - dx,
                region[3] - dy,
            ];
            if self.rectangle_is_clear(region) || other.rectangle_is_clear(in_other) {
                return None;
            }
        }
        let (k_first, k_last) = ((x0 / 64) as usize, ((x1 - 1) / 64) as usize);
        let (ay0, by0) = (y0 as usize, (i64::from(y0) - dy) as usize);
        // A's word k meets B's bits from 64k - dx: B's words k + shift_words and the next.
        // Inside both bounding rectangles these are inside B's guarded columns.
        let b_first = (k_first as i64 + (-dx).div_euclid(64) + 1) as usize;
        let rows = (y1 - y0) as usize;
        OverlapWalk {
            a_words: &self.words,
            b_words: &other.words,
            strides: (self.height as usize, other.height as usize),
            spans: (
                &self.pixel_spans()[ay0..][..rows],
                &other.pixel_spans()[by0..][..rows],
            ),
            dx,
            rows,
            y0,
            by0,
            first_word: k_first,
            b_first,
            n: k_last - k_first + 1,
            shift: (-dx).rem_euclid(64) as u32,
        }
        .trimmed()
    }

    /// A pixel set in both masks, in `self`'s coordinates (the first in row-major order),
    /// with `other`'s top-left at `offset`. Any offset, however far, is valid.
    ///
    /// Masks are meant to live as long as their sprites: the first overlap builds lookups
    /// that later calls reuse, and that edits ([`BitMask::erase_circle`], [`BitMask::draw`],
    /// [`BitMask::set`]…) keep up to date (bounds and per-row pixel spans, and, when the
    /// overlap is 32 rows or taller and its middle pixel is clear, the distance field, a
    /// few passes over the mask's pixels).
    pub fn overlap(&self, other: &BitMask, offset: (i32, i32)) -> Option<(u32, u32)> {
        self.overlap_with(other, offset, WordKernel::in_use())
    }

    /// [`BitMask::overlap`] with the given build of the word loops; one this CPU lacks
    /// runs as [`WordKernel::Portable`]. For tests and benchmarks.
    pub fn overlap_using(
        &self,
        other: &BitMask,
        offset: (i32, i32),
        kernel: WordKernel,
    ) -> Option<(u32, u32)> {
        self.overlap_with(other, offset, kernel.runnable())
    }

    /// [`BitMask::overlap_using`] in a build already checked.
    #[inline(always)]
    fn overlap_with(
        &self,
        other: &BitMask,
        offset: (i32, i32),
        kernel: Runnable,
    ) -> Option<(u32, u32)> {
        let this = self;
        with_word_kernel!(
            kernel,
            overlap_first_hit(this: &BitMask, other: &BitMask, offset: (i32, i32))
                -> Option<(u32, u32)>
        )
    }

    /// Number of pixels set in both masks. Builds the same cached lookups as
    /// [`BitMask::overlap`].
    pub fn overlap_area(&self, other: &BitMask, offset: (i32, i32)) -> u64 {
        self.overlap_area_with(other, offset, WordKernel::in_use())
    }

    /// [`BitMask::overlap_area`] with the given build of the word loops; one this CPU
    /// lacks runs as [`WordKernel::Portable`]. For tests and benchmarks.
    pub fn overlap_area_using(
        &self,
        other: &BitMask,
        offset: (i32, i32),
        kernel: WordKernel,
    ) -> u64 {
        self.overlap_area_with(other, offset, kernel.runnable())
    }

    /// [`BitMask::overlap_area_using`] in a build already checked.
    #[inline(always)]
    fn overlap_area_with(&self, other: &BitMask, offset: (i32, i32), kernel: Runnable) -> u64 {
        let this = self;
        with_word_kernel!(
            kernel,
            overlap_area_in(WordKernel, this: &BitMask, other: &BitMask, offset: (i32, i32)) -> u64
        )
    }

    /// A mask of `self`'s size with the pixels set in both.
    pub fn overlap_mask(&self, other: &BitMask, offset: (i32, i32)) -> BitMask {
        let mut out = Self::new(self.width, self.height);
        let Some(walk) = self.overlap_walk(other, offset) else {
            return out;
        };
        let h = self.height as usize;
        for i in 0..walk.n {
            let (a, low, high) = walk.column(i);
            let start = word_index(walk.first_word + i, walk.y0 as usize, h);
            let column = &mut out.words[start..][..walk.rows];
            for (o, ((&a, &low), &high)) in column.iter_mut().zip(a.iter().zip(low).zip(high)) {
                let b = if walk.shift == 0 {
                    low
                } else {
                    b_bits::<true>(low, high, walk.shift)
                };
                *o = a & b;
            }
        }
        out
    }
}

/// [`BitMask::overlap`]'s work, for each build.
#[inline(always)]
fn overlap_first_hit(a: &BitMask, b: &BitMask, offset: (i32, i32)) -> Option<(u32, u32)> {
    a.overlap_walk(b, offset)?.first_hit()
}

/// [`BitMask::overlap_area`]'s work in `kernel`'s build, which is a constant in each copy
/// (see `with_word_kernel!`). AVX2 has no vector popcount: LLVM counts the bits of four
/// words a step by nibble lookups (`vpshufb`) and byte sums (`vpsadbw`), and on the CPUs
/// where per-lane shifts are slow a kernel of its own shifts by register.
#[inline(always)]
fn overlap_area_in(kernel: WordKernel, a: &BitMask, b: &BitMask, offset: (i32, i32)) -> u64 {
    let Some(walk) = a.overlap_walk(b, offset) else {
        return 0;
    };
    #[cfg(target_arch = "x86_64")]
    if kernel == WordKernel::Avx2
        && walk.shift != 0
        && walk.rows >= UNIFORM_MIN_ROWS
        && WordKernel::avx2_shifts_by_register()
    {
        // SAFETY: `kernel` is the AVX2 build only in that build's copy, which runs only on
        // a CPU with every feature of its list, `area_uniform`'s among them.
        #[allow(unsafe_code)]
        return unsafe { walk.area_uniform() };
    }
    let _ = kernel;
    walk.area()
}
