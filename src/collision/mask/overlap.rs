//! Axis-aligned overlap: the word range two masks share, walked row by row with the
//! word kernels.

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

/// Overlaps at most this many words wide run loops that know their width at compile time.
pub(super) const SMALL_WORDS: usize = 3;

/// Runs `$body` for every row of `$walk` (an [`OverlapWalk`]), with `$a` and `$b` bound
/// to A's `$n` words and B's `$n + 1`. A macro rather than an iterator or a visitor
/// closure: the loop is then written out in the `#[target_feature]` function that uses
/// it, where its row loop calls inline (a closure there would inherit the features, and
/// LLVM does not inline it back into the generic walk that calls it).
macro_rules! for_each_overlap_row {
    ($walk:expr, $n:expr, |$y:ident, $a:ident, $b:ident| $body:block) => {{
        let walk: &OverlapWalk<'_> = $walk;
        let n: usize = $n;
        // Exactly one stride per row (the masks end with a zero row, so there are enough
        // words): the chunks have a length fixed for the whole loop, and the checks on
        // the words within a row move out of it.
        let a_rows = walk.a_words[..walk.rows * walk.strides.0].chunks_exact(walk.strides.0);
        let b_rows = walk.b_words[..walk.rows * walk.strides.1].chunks_exact(walk.strides.1);
        for ($y, (a_row, b_row)) in (walk.y0..).zip(a_rows.zip(b_rows)) {
            let ($a, $b) = (&a_row[..n], &b_row[..=n]);
            $body
        }
    }};
    // Only the rows where the masks' set pixels can meet: for first-hit scans, where a
    // near miss would otherwise scan every row below the few that can meet.
    (meeting $walk:expr, $n:expr, |$y:ident, $a:ident, $b:ident| $body:block) => {{
        let walk: &OverlapWalk<'_> = $walk;
        let n: usize = $n;
        let a_rows = walk.a_words[..walk.rows * walk.strides.0].chunks_exact(walk.strides.0);
        let b_rows = walk.b_words[..walk.rows * walk.strides.1].chunks_exact(walk.strides.1);
        let spans = walk.spans.0.iter().zip(walk.spans.1);
        for ($y, ((a_row, b_row), spans)) in (walk.y0..).zip(a_rows.zip(b_rows).zip(spans)) {
            if !walk.meets(spans) {
                continue;
            }
            let ($a, $b) = (&a_row[..n], &b_row[..=n]);
            $body
        }
    }};
}

/// The words of an axis-aligned overlap: in every row, A's `n` words from `first_word`
/// on (the overlap of both masks' bounding rectangles, in whole words), and B's `n + 1`
/// words under them.
///
/// Every row has the same words, rather than each row clipped to its own set pixels:
/// per-row clipping, or even a per-row test, costs more than the words it skips (a disc
/// fills 79% of its square), while a loop of fixed width has next to no per-row set-up.
/// Only the rows at the top and bottom where the masks' set pixels cannot meet are
/// trimmed off once, which settles a near miss of two round sprites in a few compares;
/// first-hit scans of 3 words or more also skip the rows that cannot meet as they go.
#[derive(Clone, Copy)]
pub(super) struct OverlapWalk<'m> {
    /// A's words from `first_word` in row `y0` on, and B's words under them (its guard
    /// words included), with both row strides.
    a_words: &'m [u64],
    b_words: &'m [u64],
    strides: (usize, usize),
    /// Both masks' pixel spans in each of these rows.
    spans: (&'m [(u32, u32)], &'m [(u32, u32)]),
    dx: i64,
    rows: usize,
    y0: u32,
    first_word: usize,
    n: usize,
    /// In each row, A's word `i` meets B's words `i` and `i + 1` from here, shifted right
    /// by `shift` bits (0 for a word-aligned offset).
    shift: u32,
}

impl<'m> OverlapWalk<'m> {
    /// This overlap without its rows at the top and bottom where the set pixels of both
    /// masks (their spans) cannot meet, or `None` when no row's can. Done for first-hit
    /// scans too, whose hits usually come before the bottom rows: it costs such a hit
    /// 10% to 25% more (two 512 to 2048-pixel discs) and saves a near miss about a third.
    /// Inline: as a call of its own it wrote the walk's fields one by one and then copied
    /// the walk out 16 bytes at a time, loads that had to wait for those stores to retire
    /// (a failed store-to-load forward), about a third of a small overlap's time.
    #[inline(always)]
    fn trimmed(mut self) -> Option<Self> {
        let spans = || self.spans.0.iter().zip(self.spans.1);
        let top = spans().position(|s| self.meets(s))?;
        let bottom = spans().rposition(|s| self.meets(s))?;
        self.a_words = &self.a_words[top * self.strides.0..];
        self.b_words = &self.b_words[top * self.strides.1..];
        self.spans = (&self.spans.0[top..=bottom], &self.spans.1[top..=bottom]);
        self.y0 += top as u32;
        self.rows = bottom + 1 - top;
        Some(self)
    }

    /// Whether the set pixels of a row of both masks (their spans) can meet:
    /// max(a_first, b_first + dx) < min(a_end, b_end + dx), as four compares and no
    /// branches, so that a scan runs at a few instructions per row. An all-clear row's
    /// span (0, 0) meets nothing.
    #[inline(always)]
    fn meets(&self, (&(a_first, a_end), &(b_first, b_end)): (&(u32, u32), &(u32, u32))) -> bool {
        let (a_first, a_end) = (i64::from(a_first), i64::from(a_end));
        let (b_first, b_end) = (i64::from(b_first) + self.dx, i64::from(b_end) + self.dx);
        (a_first < a_end) & (a_first < b_end) & (b_first < a_end) & (b_first < b_end)
    }

    #[inline(always)]
    fn area_of<const SHIFTED: bool, const N: usize>(&self) -> u64 {
        let mut area = 0;
        for_each_overlap_row!(self, N, |_y, a, b| {
            area += overlap_kernel::area_row::<SHIFTED>(a, b, self.shift);
        });
        area
    }

    /// The overlap area when it is at most [`SMALL_WORDS`] wide, with the width known at
    /// compile time; `None` for wider ones, which are the vector loops' work.
    #[inline(always)]
    fn small_area(&self) -> Option<u64> {
        Some(match (self.shift != 0, self.n) {
            (true, 1) => self.area_of::<true, 1>(),
            (true, 2) => self.area_of::<true, 2>(),
            (true, SMALL_WORDS) => self.area_of::<true, SMALL_WORDS>(),
            (false, 1) => self.area_of::<false, 1>(),
            (false, 2) => self.area_of::<false, 2>(),
            (false, SMALL_WORDS) => self.area_of::<false, SMALL_WORDS>(),
            _ => return None,
        })
    }

    /// In `self`'s coordinates, the first pixel of a row's hit: word `i` of the row's
    /// words and the bits both masks have set in it.
    #[inline(always)]
    fn hit_at(&self, y: u32, (i, bits): (usize, u64)) -> (u32, u32) {
        (
            ((self.first_word + i) * 64) as u32 + bits.trailing_zeros(),
            y,
        )
    }

    #[inline(always)]
    fn first_hit_of<const SHIFTED: bool, const N: usize>(&self) -> Option<(u32, u32)> {
        for_each_overlap_row!(self, N, |y, a, b| {
            if let Some(hit) = overlap_kernel::first_hit_row::<SHIFTED>(a, b, self.shift) {
                return Some(self.hit_at(y, hit));
            }
        });
        None
    }

    #[inline(always)]
    fn first_hit_any<const SHIFTED: bool>(&self) -> Option<(u32, u32)> {
        for_each_overlap_row!(meeting self, self.n, |y, a, b| {
            if let Some(hit) = overlap_kernel::first_hit_row::<SHIFTED>(a, b, self.shift) {
                return Some(self.hit_at(y, hit));
            }
        });
        None
    }

    /// The first pixel set in both, in row-major order.
    #[inline(always)]
    fn first_hit(&self) -> Option<(u32, u32)> {
        match (self.shift != 0, self.n) {
            (true, 1) => self.first_hit_of::<true, 1>(),
            (true, 2) => self.first_hit_of::<true, 2>(),
            (true, _) => self.first_hit_any::<true>(),
            (false, 1) => self.first_hit_of::<false, 1>(),
            (false, 2) => self.first_hit_of::<false, 2>(),
            (false, _) => self.first_hit_any::<false>(),
        }
    }
}

impl BitMask {
    /// The words where both masks can have set pixels in the overlap; `None` when they
    /// cannot meet at all.
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
        let (a_stride, b_stride) = (self.words_per_row + 2, other.words_per_row + 2);
        let (ay0, by0) = (y0 as usize, (i64::from(y0) - dy) as usize);
        // A's word k meets B's bits from 64k - dx: B's words k + shift_words and the next.
        // Inside both bounding rectangles these are inside B's guarded row.
        let b_first = (k_first as i64 + (-dx).div_euclid(64) + 1) as usize;
        let rows = (y1 - y0) as usize;
        OverlapWalk {
            a_words: &self.words[ay0 * a_stride + k_first + 1..],
            b_words: &other.words[by0 * b_stride + b_first..],
            strides: (a_stride, b_stride),
            spans: (
                &self.pixel_spans()[ay0..][..rows],
                &other.pixel_spans()[by0..][..rows],
            ),
            dx,
            rows,
            y0,
            first_word: k_first,
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
        self.overlap_using(other, offset, WordKernel::best())
    }

    /// [`BitMask::overlap`] with the given build of the word loops; one this CPU lacks
    /// runs as [`WordKernel::Portable`]. For tests and benchmarks.
    pub fn overlap_using(
        &self,
        other: &BitMask,
        offset: (i32, i32),
        kernel: WordKernel,
    ) -> Option<(u32, u32)> {
        #[cfg(target_arch = "x86_64")]
        if kernel.is_available() {
            match kernel {
                WordKernel::Portable => {}
                // SAFETY: the CPU has popcnt, checked just above.
                #[allow(unsafe_code)]
                WordKernel::Popcnt => return unsafe { self.overlap_popcnt(other, offset) },
                // SAFETY: the CPU has every feature of the AVX2 build, checked just above
                // (the AVX-512 kernel's include them).
                #[allow(unsafe_code)]
                WordKernel::Avx2 | WordKernel::Avx512 => {
                    return unsafe { self.overlap_avx2(other, offset) };
                }
            }
        }
        let _ = kernel;
        self.overlap_portable(other, offset)
    }

    /// The first-hit scan counts nothing, so this build gains little over the portable
    /// one; it exists so that forcing [`WordKernel::Popcnt`] runs code compiled for
    /// exactly the features that kernel checks for, as the area does.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt")]
    pub(super) fn overlap_popcnt(&self, other: &BitMask, offset: (i32, i32)) -> Option<(u32, u32)> {
        self.overlap_portable(other, offset)
    }

    /// With AVX2 the OR of a wide row's words is vectorised, and BMI2's flag-free shifts
    /// (`shrx`, `shlx`) shorten the narrow rows.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
    pub(super) fn overlap_avx2(&self, other: &BitMask, offset: (i32, i32)) -> Option<(u32, u32)> {
        self.overlap_portable(other, offset)
    }

    #[inline(always)]
    pub(super) fn overlap_portable(
        &self,
        other: &BitMask,
        offset: (i32, i32),
    ) -> Option<(u32, u32)> {
        self.overlap_walk(other, offset)?.first_hit()
    }

    /// Number of pixels set in both masks. Builds the same cached lookups as
    /// [`BitMask::overlap`].
    pub fn overlap_area(&self, other: &BitMask, offset: (i32, i32)) -> u64 {
        self.overlap_area_using(other, offset, WordKernel::best())
    }

    /// [`BitMask::overlap_area`] with the given build of the word loops; one this CPU
    /// lacks runs as [`WordKernel::Portable`]. For tests and benchmarks.
    pub fn overlap_area_using(
        &self,
        other: &BitMask,
        offset: (i32, i32),
        kernel: WordKernel,
    ) -> u64 {
        #[cfg(target_arch = "x86_64")]
        if kernel.is_available() {
            match kernel {
                WordKernel::Portable => {}
                // SAFETY: the CPU has popcnt, checked just above.
                #[allow(unsafe_code)]
                WordKernel::Popcnt => return unsafe { self.overlap_area_popcnt(other, offset) },
                // SAFETY: the CPU has avx2, bmi1, bmi2 and popcnt, checked just above.
                #[allow(unsafe_code)]
                WordKernel::Avx2 => return unsafe { self.overlap_area_avx2(other, offset) },
                // SAFETY: the CPU has every feature of the AVX-512 build, checked just
                // above.
                #[allow(unsafe_code)]
                WordKernel::Avx512 => {
                    return unsafe { self.overlap_area_avx512(other, offset) };
                }
            }
        }
        let _ = kernel;
        self.overlap_area_portable(other, offset)
    }

    /// The portable loops compiled with the hardware popcount, but for shifted rows wider
    /// than [`SMALL_WORDS`], whose words are shifted two at a time in SSE2 vectors.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "sse2,popcnt")]
    pub(super) fn overlap_area_popcnt(&self, other: &BitMask, offset: (i32, i32)) -> u64 {
        let Some(walk) = self.overlap_walk(other, offset) else {
            return 0;
        };
        if let Some(area) = walk.small_area() {
            return area;
        }
        let mut area = 0u64;
        if walk.shift != 0 {
            for_each_overlap_row!(&walk, walk.n, |_y, a, b| {
                area += overlap_kernel::sse2::shifted_area_row(a, b, walk.shift);
            });
        } else {
            for_each_overlap_row!(&walk, walk.n, |_y, a, b| {
                area += overlap_kernel::area_row::<false>(a, b, walk.shift);
            });
        }
        area
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
    pub(super) fn overlap_area_avx2(&self, other: &BitMask, offset: (i32, i32)) -> u64 {
        use overlap_kernel::avx2;
        let Some(walk) = self.overlap_walk(other, offset) else {
            return 0;
        };
        if let Some(area) = walk.small_area() {
            return area;
        }
        // From here on rows are at least 4 words: whole vectors.
        let mut lanes = std::arch::x86_64::_mm256_setzero_si256();
        let tail = avx2::tail_lanes(walk.n);
        if walk.shift != 0 {
            for_each_overlap_row!(&walk, walk.n, |_y, a, b| {
                avx2::area_row::<true>(&mut lanes, a, b, walk.shift, tail);
            });
        } else {
            for_each_overlap_row!(&walk, walk.n, |_y, a, b| {
                avx2::area_row::<false>(&mut lanes, a, b, walk.shift, tail);
            });
        }
        avx2::sum_lanes(lanes)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512vpopcntdq,avx512vbmi2,avx2,bmi1,bmi2,popcnt")]
    pub(super) fn overlap_area_avx512(&self, other: &BitMask, offset: (i32, i32)) -> u64 {
        use overlap_kernel::avx512;
        let Some(walk) = self.overlap_walk(other, offset) else {
            return 0;
        };
        if let Some(area) = walk.small_area() {
            return area;
        }
        let mut lanes = std::arch::x86_64::_mm512_setzero_si512();
        if walk.shift != 0 {
            for_each_overlap_row!(&walk, walk.n, |_y, a, b| {
                avx512::area_row::<true>(&mut lanes, a, b, walk.shift);
            });
        } else {
            for_each_overlap_row!(&walk, walk.n, |_y, a, b| {
                avx512::area_row::<false>(&mut lanes, a, b, walk.shift);
            });
        }
        avx512::sum_lanes(lanes)
    }

    #[inline(always)]
    pub(super) fn overlap_area_portable(&self, other: &BitMask, offset: (i32, i32)) -> u64 {
        let Some(walk) = self.overlap_walk(other, offset) else {
            return 0;
        };
        if let Some(area) = walk.small_area() {
            return area;
        }
        let mut area = 0u64;
        // Word-aligned offsets (0 included) need no shifting at all.
        if walk.shift != 0 {
            for_each_overlap_row!(&walk, walk.n, |_y, a, b| {
                area += overlap_kernel::area_row::<true>(a, b, walk.shift);
            });
        } else {
            for_each_overlap_row!(&walk, walk.n, |_y, a, b| {
                area += overlap_kernel::area_row::<false>(a, b, walk.shift);
            });
        }
        area
    }

    /// A mask of `self`'s size with the pixels set in both.
    pub fn overlap_mask(&self, other: &BitMask, offset: (i32, i32)) -> BitMask {
        let mut out = Self::new(self.width, self.height);
        let Some(walk) = self.overlap_walk(other, offset) else {
            return out;
        };
        for_each_overlap_row!(&walk, walk.n, |y, a, b| {
            let out_row = &mut out.row_mut(y)[walk.first_word..];
            let both = overlap_kernel::triples(a, b).map(|(a, low, high)| {
                a & ((u128::from(high) << 64 | u128::from(low)) >> walk.shift) as u64
            });
            for (o, bits) in out_row.iter_mut().zip(both) {
                *o = bits;
            }
        });
        out
    }
}
