//! [`BitMask`]: one bit per pixel, packed in `u64` words, and axis-aligned overlap.
//!
//! Layout: by columns of 64 pixels, as pygame's `bitmask_t`. Pixel `x` of row `y` is bit
//! `x % 64` (least significant bit = leftmost pixel) of word `y` of column `x / 64`, and a
//! column's words, one a row, are contiguous. An edit or an overlap of one mask's
//! rectangle with another's then walks a few runs of contiguous words, eight rows a
//! vector, where rows of one to four words would take a vector step for one or two rows
//! (`cargo bench --bench layout`). Padding bits past the last pixel are always zero, which
//! lets overlap work on whole words without masking the row ends. A zero guard column on
//! each side lets the loops read the columns either side of the other mask's without
//! bounds checks, and one more zero word follows, so that every mask (a zero-sized one
//! too) has a clear word 0 for reads outside it.
//!
//! Offsets follow pygame's convention: `offset` is the other mask's top-left corner in this
//! mask's coordinates (x right, y down).

use std::fmt;
use std::sync::OnceLock;

pub use super::overlap_kernel::WordKernel;

use crate::overlap_kernel::{Runnable, with_word_kernel};

mod chamfer;
mod components;
mod edit;
mod hull;
mod leading_edges;
mod lookups;
mod outline_tiles;
mod overlap;
mod words;

pub(crate) use leading_edges::LeadingEdges;
use lookups::*;
pub(crate) use outline_tiles::OutlineTiles;
use overlap::*;

pub use components::Connectivity;
pub(crate) use hull::convex_hull_of_points;
pub(crate) use words::{Row, bit_range, word_index, word_position_sum};
use words::{RowMut, pixel_span, row_bits_at};

/// Why a mask could not be built.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum MaskError {
    /// The pixel buffer does not hold `width × height` RGBA pixels.
    BufferSize {
        /// Width asked for, pixels.
        width: u32,
        /// Height asked for, pixels.
        height: u32,
        /// Bytes `width × height` RGBA pixels take.
        expected: u64,
        /// Bytes given.
        actual: usize,
    },
    /// `width × height` is over the size limit ([`MaskLimits`]; [`BitMask::MAX_SIDE`] and
    /// [`BitMask::MAX_PIXELS`] for every mask), or does not fit in memory on this platform.
    /// Nothing is allocated for such a size.
    TooLarge {
        /// Width asked for, pixels.
        width: u32,
        /// Height asked for, pixels.
        height: u32,
    },
}

impl fmt::Display for MaskError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MaskError::BufferSize {
                width,
                height,
                expected,
                actual,
            } => write!(
                f,
                "RGBA buffer for a {width}×{height} mask must be {expected} bytes, got {actual}"
            ),
            MaskError::TooLarge { width, height } => write!(
                f,
                "a {width}×{height} mask is over the size limit (at most {} a side and {} \
                 pixels) or does not fit in memory",
                BitMask::MAX_SIDE,
                BitMask::MAX_PIXELS
            ),
        }
    }
}

impl std::error::Error for MaskError {}

/// The largest mask a caller accepts, checked before anything is allocated: sizes come
/// from files, and a 1 KB image header can claim 100,000 × 100,000 pixels.
///
/// Every mask the core builds is within [`MaskLimits::DEFAULT`] (the hard limit); a caller
/// that decodes images can check its own, lower limit with [`MaskLimits::check`] before it
/// decodes, and pass it to [`BitMask::from_rgba8_within`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct MaskLimits {
    /// Largest width and largest height, in pixels.
    pub max_side: u32,
    /// Largest `width × height`.
    pub max_pixels: u64,
}

impl MaskLimits {
    /// [`BitMask::MAX_SIDE`] and [`BitMask::MAX_PIXELS`].
    pub const DEFAULT: MaskLimits = MaskLimits {
        max_side: BitMask::MAX_SIDE,
        max_pixels: BitMask::MAX_PIXELS,
    };

    /// At most `max_side` pixels a side and `max_pixels` in all (each capped at
    /// [`BitMask::MAX_SIDE`] and [`BitMask::MAX_PIXELS`] when checked).
    pub const fn new(max_side: u32, max_pixels: u64) -> MaskLimits {
        MaskLimits {
            max_side,
            max_pixels,
        }
    }

    /// `Ok` when a `width × height` mask is within these limits and the hard ones (a
    /// caller's limits can only lower them). Zero sizes count as one pixel a side, so a
    /// zero-width mask cannot have unbounded rows (each row costs two guard-column words).
    pub fn check(self, width: u32, height: u32) -> Result<(), MaskError> {
        let max_side = self.max_side.min(BitMask::MAX_SIDE);
        let max_pixels = self.max_pixels.min(BitMask::MAX_PIXELS);
        let pixels = u64::from(width.max(1)) * u64::from(height.max(1));
        if width > max_side || height > max_side || pixels > max_pixels {
            Err(MaskError::TooLarge { width, height })
        } else {
            Ok(())
        }
    }
}

impl Default for MaskLimits {
    fn default() -> MaskLimits {
        MaskLimits::DEFAULT
    }
}

/// A rectangle of pixels: `x..x + width`, `y..y + height`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MaskRect {
    /// Left column.
    pub x: u32,
    /// Top row.
    pub y: u32,
    /// Columns.
    pub width: u32,
    /// Rows.
    pub height: u32,
}

/// One bit per pixel; a set bit is a solid pixel. Pixel `(x, y)` has x right and y down
/// from the top-left corner, as in an image.
///
/// ```
/// use pixel_collide::BitMask;
///
/// // Alpha above the threshold is solid: here a 4 × 2 image whose left half is opaque.
/// let rgba: Vec<u8> = (0..8).flat_map(|i| [9, 9, 9, if i % 4 < 2 { 255 } else { 0 }]).collect();
/// let a = BitMask::from_rgba8(4, 2, &rgba, 0).unwrap();
/// assert_eq!(a.count(), 4);
///
/// // `b`'s top-left corner at `offset` in `a`'s pixels, as pygame's `Mask.overlap`.
/// let b = BitMask::solid(2, 2).unwrap();
/// assert_eq!(a.overlap(&b, (1, 1)), Some((1, 1)));
/// assert_eq!(a.overlap_area(&b, (1, 0)), 2);
/// assert_eq!(a.overlap(&b, (2, 0)), None);
///
/// // Sizes the library refuses are errors, never an abort.
/// assert!(BitMask::try_new(u32::MAX, u32::MAX).is_err());
/// ```
#[derive(Clone)]
pub struct BitMask {
    width: u32,
    height: u32,
    /// Columns of 64 pixels: the words of a row.
    words_per_row: usize,
    /// The guard column, then each column's `height` words, then the other guard column
    /// and one zero word.
    words: Vec<u64>,
    /// Per row, the pixels `first..end` outside which the row is clear (`(0, 0)` when it
    /// is all clear): overlap skips the rows, and the ends of rows, where both masks
    /// cannot have set pixels, with a compare or two per row, and the transformed walk
    /// the words outside it. Built before `bounds` and `circle`, which are derived from
    /// it (and kept up to date from it by edits). Exact (the first set pixel and the end
    /// of the last) except in `loose_rows`.
    pixel_spans: OnceLock<Vec<(u32, u32)>>,
    /// Rows `.0...1` whose spans a mask edit may have left wider than their pixels (see
    /// [`BitMask::note_loose_rows`]); empty when every span is exact. `bounds` and
    /// `circle` then still hold every set pixel, but may be larger than the smallest.
    loose_rows: (u32, u32),
    /// Rows that edits have left loose since the spans were last exact, a row once per
    /// edit: what decides when they are made exact again.
    loose_debt: u64,
    /// The smallest rectangle and circle, while some spans are loose: found from the
    /// exact spans on first use after an edit (see [`BitMask::bounding_rect`]).
    exact_bounds: OnceLock<(Option<MaskRect>, Option<(f64, f64, f64)>)>,
    /// A rectangle holding every set pixel, the smallest unless some spans are loose:
    /// overlap starts at the first row both can meet.
    bounds: OnceLock<Option<MaskRect>>,
    /// Distance to the nearest pixel of the other state, built on first use by transformed
    /// overlap. Exact when built; an edit keeps it a lower bound of the true distance
    /// (what every reader needs: a proof that nearby pixels share a state), exact again
    /// near the edit (see `edit/refresh.rs`).
    distance: OnceLock<Option<Vec<u8>>>,
    /// Work edits have spent on the distance field since it was built, in pixels of
    /// rebuild-equivalent work: past the mask's size, a rebuild is cheaper than going on,
    /// so the field is dropped and built again on next use.
    distance_debt: u64,
    /// A circle about `bounds`' center holding every set pixel whole, as
    /// [`BitMask::bounding_circle`] (which it is unless some spans are loose).
    circle: OnceLock<Option<(f64, f64, f64)>>,
    /// This mask with rows and columns swapped, built on first use: transformed overlap
    /// walks A's columns as rows when fewer of them cross B. Edits update the columns they
    /// changed, and its own caches in turn.
    transposed: OnceLock<Option<Box<BitMask>>>,
    /// [`BitMask::outline`], built on first use by the gap queries, which probe the
    /// other mask's distance field with it on every call (avian's speculative contacts
    /// ask every step); `None` when it would take more bytes than the mask has pixels.
    /// Any edit drops it.
    outline: OnceLock<Option<Vec<(u32, u32)>>>,
    /// The kept `outline` in tiles ([`OutlineTiles`]), for the gap queries. Any edit
    /// drops it.
    outline_tiles: OnceLock<Option<Box<OutlineTiles>>>,
    /// [`LeadingEdges`], built on first use by a cast of this mask that steps a pixel at
    /// a time; `None` for masks over [`LEADING_EDGES_MAX_PIXELS`]. Any edit drops it.
    leading_edges: OnceLock<Option<Box<LeadingEdges>>>,
}

/// The largest mask, in pixels, whose [`LeadingEdges`] are kept: a character or a
/// bullet, not a terrain.
pub(crate) const LEADING_EDGES_MAX_PIXELS: u64 = 1 << 16;

impl PartialEq for BitMask {
    fn eq(&self, other: &Self) -> bool {
        self.width == other.width && self.height == other.height && self.words == other.words
    }
}

impl Eq for BitMask {}

impl fmt::Debug for BitMask {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "BitMask({}×{}, {} set)",
            self.width,
            self.height,
            self.count()
        )
    }
}

/// How many times as many rows as are loose edits may leave loose before their spans
/// are made exact again (see [`BitMask::note_loose_rows`]).
const LOOSE_DEBT_FACTOR: u64 = 64;

// The loops over row spans below run in the word loops' build: SSE2, the baseline, has no
// 32-bit minimum or maximum (it compares and blends), and the AVX-512 build measured faster
// than the AVX2 one on them (`benches/logs/peer.md`, the edit runs).

/// Joins column `k` into each row's first and last column with a set pixel (`u32::MAX`
/// and 0 until one is found), from the column's words, one a row.
fn note_set_columns(columns: &mut [(u32, u32)], words: &[u64], k: u32) {
    with_word_kernel!(
        WordKernel::in_use(),
        note_set_columns_of(columns: &mut [(u32, u32)], words: &[u64], k: u32)
    )
}

#[inline(always)]
fn note_set_columns_of(columns: &mut [(u32, u32)], words: &[u64], k: u32) {
    for (c, &w) in columns.iter_mut().zip(words) {
        let set = w != 0;
        *c = (
            if set { c.0.min(k) } else { c.0 },
            if set { k } else { c.1 },
        );
    }
}

/// [`BitMask::bounding_rect`] from the rows' pixel spans. One pass with no branch per row
/// (a clear row, `(0, 0)`, takes no part in any of the four), so that it runs as vector
/// code: an erase at the rectangle's edge calls it over every row.
///
/// With AVX2 when the CPU has it: SSE2 has no 32-bit min or max, so its build compares
/// and blends, and an erase at the edge of a 512 px disc's rectangle spent a sixth of its
/// time here.
fn bounds_from_spans(spans: &[(u32, u32)]) -> Option<MaskRect> {
    with_word_kernel!(
        WordKernel::in_use(),
        bounds_from_spans_of(spans: &[(u32, u32)]) -> Option<MaskRect>
    )
}

#[inline(always)]
fn bounds_from_spans_of(spans: &[(u32, u32)]) -> Option<MaskRect> {
    // In i32 (sizes are at most 2^20): in u32, LLVM leaves it scalar.
    let (mut top, mut bottom, mut left, mut right) = (i32::MAX, 0i32, i32::MAX, 0i32);
    for (y, &(first, end)) in (0i32..).zip(spans) {
        let (first, end) = (first as i32, end as i32);
        let set = first < end;
        top = top.min(if set { y } else { i32::MAX });
        bottom = bottom.max(if set { y + 1 } else { 0 });
        left = left.min(if set { first } else { i32::MAX });
        right = right.max(end);
    }
    (top < bottom).then(|| MaskRect {
        x: left as u32,
        y: top as u32,
        width: (right - left) as u32,
        height: (bottom - top) as u32,
    })
}

/// [`BitMask::bounding_circle`] from the bounding rectangle and the rows' pixel spans:
/// in one row the farthest pixel is the leftmost or the rightmost, and its farthest
/// corner the one away from the center. Worked out in half pixels, in integers (below
/// 2^22, their squares' sums below 2^45): the squared distance in half pixels is four
/// times the one in pixels and exact in f64, and the square root of four times a number
/// is twice its root, bit for bit, so the one rounding is the square root at the end, as
/// in floats, and an edit's recomputation gives the same radius as a fresh mask's. In
/// floats the running maximum was a chain of `maxsd` a row, four cycles each, that no
/// build could vectorise; in integers it is a vector maximum.
fn circle_from_spans(rect: MaskRect, spans: &[(u32, u32)]) -> (f64, f64, f64) {
    with_word_kernel!(
        WordKernel::in_use(),
        circle_from_spans_of(rect: MaskRect, spans: &[(u32, u32)]) -> (f64, f64, f64)
    )
}

#[inline(always)]
fn circle_from_spans_of(rect: MaskRect, spans: &[(u32, u32)]) -> (f64, f64, f64) {
    let cx = f64::from(rect.x) + f64::from(rect.width) / 2.0;
    let cy = f64::from(rect.y) + f64::from(rect.height) / 2.0;
    let (cx2, cy2) = (
        2 * i64::from(rect.x) + i64::from(rect.width),
        2 * i64::from(rect.y) + i64::from(rect.height),
    );
    let rows = &spans[rect.y as usize..][..rect.height as usize];
    let farthest = rows
        .iter()
        .zip(i64::from(rect.y)..)
        .map(|(&(first, end), y)| {
            let dx = (cx2 - 2 * i64::from(first)).max(2 * i64::from(end) - cx2);
            let dy = (cy2 - 2 * y).abs().max((2 * y + 2 - cy2).abs());
            if first < end { dx * dx + dy * dy } else { 0 }
        })
        .max()
        .unwrap_or(0);
    (cx, cy, (farthest as f64).sqrt() / 2.0)
}

#[cfg(test)]
impl BitMask {
    /// Checks the spans, rectangle and circle this mask has built against `fresh`, a
    /// mask of the same pixels with none built: outside the loose rows the spans equal
    /// its spans, and inside they hold them; with no loose rows the rectangle and circle
    /// equal its own, and otherwise hold every set pixel; the public
    /// [`BitMask::bounding_rect`] and [`BitMask::bounding_circle`] always equal its own.
    pub(crate) fn assert_span_lookups_hold(&self, fresh: &BitMask, what: &str) {
        let exact = fresh.pixel_spans();
        let (a, b) = self.loose_rows;
        assert!(
            a <= b && b <= self.height,
            "{what}: loose rows {a}..{b} out of the mask"
        );
        if let Some(spans) = self.pixel_spans.get() {
            for (y, (&got, &want)) in spans.iter().zip(exact).enumerate() {
                assert!(got.1 <= self.width, "{what}: span {got:?} past the mask");
                if !(a as usize..b as usize).contains(&y) {
                    assert_eq!(got, want, "{what}: span of exact row {y}");
                    continue;
                }
                // A clear row's loose span may be anything within the mask.
                if want.0 >= want.1 {
                    continue;
                }
                assert!(
                    got.0 <= want.0 && got.1 >= want.1,
                    "{what}: loose span {got:?} of row {y} does not hold {want:?}"
                );
            }
        }
        let (rect, circle) = (fresh.bounding_rect(), fresh.bounding_circle());
        if let Some(&bounds) = self.bounds.get() {
            if self.has_loose_rows() {
                let holds = match (bounds, rect) {
                    (_, None) => true,
                    (Some(g), Some(w)) => {
                        g.x <= w.x
                            && g.y <= w.y
                            && g.x + g.width >= w.x + w.width
                            && g.y + g.height >= w.y + w.height
                    }
                    (None, Some(_)) => false,
                };
                assert!(holds, "{what}: bounds {bounds:?} do not hold {rect:?}");
            } else {
                assert_eq!(bounds, rect, "{what}: bounds");
            }
        }
        if let Some(&got) = self.circle.get() {
            if self.has_loose_rows() {
                if let (Some(r), Some(w)) = (rect, got) {
                    // The same test as the circle's own: every pixel's far corners.
                    let (cx2, cy2, r2) = (2.0 * w.0, 2.0 * w.1, 2.0 * w.2);
                    for (y, &(first, end)) in exact.iter().enumerate() {
                        if first >= end {
                            continue;
                        }
                        let dx = (cx2 - 2.0 * f64::from(first)).max(2.0 * f64::from(end) - cx2);
                        let dy = (cy2 - 2.0 * y as f64)
                            .abs()
                            .max((2.0 * y as f64 + 2.0 - cy2).abs());
                        assert!(
                            (dx * dx + dy * dy).sqrt() <= r2 + 1e-9,
                            "{what}: circle {w:?} misses row {y} of {r:?}"
                        );
                    }
                } else {
                    assert!(rect.is_none() || got.is_some(), "{what}: no circle");
                }
            } else {
                assert_eq!(got, circle, "{what}: circle");
            }
        }
        assert_eq!(self.bounding_rect(), rect, "{what}: bounding_rect");
        assert_eq!(self.bounding_circle(), circle, "{what}: bounding_circle");
        assert_eq!(&*self.exact_spans(), exact, "{what}: exact spans");
    }
}

impl BitMask {
    /// Largest width and height of any mask, 2^20 pixels. Far below 2^24, so every pixel
    /// coordinate and size, and every pixel center (`x + 0.5`), is exact in `f32`: the
    /// transformed walk converts sizes to `f32` and would round a larger one up, a pixel
    /// past the end.
    pub const MAX_SIDE: u32 = 1 << 20;
    /// Largest `width × height` of any mask, 2^28 pixels (16,384 × 16,384): at most
    /// 32 MiB of words (a 1 × 2^20 mask, mostly guard-column words, takes 24 MiB), plus the
    /// caches built on first use: 16 bytes a row, and for masks of at most 2^26 pixels a
    /// distance field (a byte a pixel) and a transposed copy. Whole-mask operations
    /// (building, scaling, resampling) are linear in it: about a second at the limit.
    pub const MAX_PIXELS: u64 = 1 << 28;

    /// An all-clear mask. Zero sizes are allowed: such a mask never overlaps anything.
    ///
    /// # Panics
    /// When the size is over [`MaskLimits::DEFAULT`] or cannot be allocated; use
    /// [`BitMask::try_new`] for sizes that come from outside.
    pub fn new(width: u32, height: u32) -> BitMask {
        match Self::try_new(width, height) {
            Ok(mask) => mask,
            Err(err) => panic!("{err}"),
        }
    }

    /// Like [`BitMask::new`], but an error, before anything is allocated, for sizes over
    /// [`MaskLimits::DEFAULT`] or that cannot fit in memory.
    pub fn try_new(width: u32, height: u32) -> Result<BitMask, MaskError> {
        MaskLimits::DEFAULT.check(width, height)?;
        let words_per_row = (width as usize).div_ceil(64);
        let too_large = MaskError::TooLarge { width, height };
        let len = (words_per_row + 2)
            .checked_mul(height as usize)
            .and_then(|n| n.checked_add(1))
            .ok_or(too_large.clone())?;
        // Sizes can come from files: a failed allocation is an error, not an abort.
        let mut words = Vec::new();
        words.try_reserve_exact(len).map_err(|_| too_large)?;
        words.resize(len, 0);
        Ok(BitMask {
            width,
            height,
            words_per_row,
            words,
            pixel_spans: OnceLock::new(),
            loose_rows: (0, 0),
            loose_debt: 0,
            exact_bounds: OnceLock::new(),
            bounds: OnceLock::new(),
            distance: OnceLock::new(),
            distance_debt: 0,
            circle: OnceLock::new(),
            transposed: OnceLock::new(),
            outline: OnceLock::new(),
            outline_tiles: OnceLock::new(),
            leading_edges: OnceLock::new(),
        })
    }

    /// A mask with a bit set where alpha > `threshold` (0 is the tutorials' "alpha != 0",
    /// pygame's default is 127). `rgba` holds `width × height` pixels, 4 bytes each.
    /// Sizes over [`MaskLimits::DEFAULT`] are [`MaskError::TooLarge`].
    pub fn from_rgba8(
        width: u32,
        height: u32,
        rgba: &[u8],
        threshold: u8,
    ) -> Result<BitMask, MaskError> {
        Self::from_rgba8_within(width, height, rgba, threshold, MaskLimits::DEFAULT)
    }

    /// [`BitMask::from_rgba8`] with the caller's own size limit (which can only lower
    /// the default one).
    pub fn from_rgba8_within(
        width: u32,
        height: u32,
        rgba: &[u8],
        threshold: u8,
        limits: MaskLimits,
    ) -> Result<BitMask, MaskError> {
        limits.check(width, height)?;
        let Some(expected) = u64::from(width)
            .checked_mul(u64::from(height))
            .and_then(|n| n.checked_mul(4))
        else {
            return Err(MaskError::TooLarge { width, height });
        };
        if rgba.len() as u64 != expected {
            return Err(MaskError::BufferSize {
                width,
                height,
                expected,
                actual: rgba.len(),
            });
        }
        let mut mask = Self::try_new(width, height)?;
        if width == 0 {
            return Ok(mask);
        }
        let row_bytes = width as usize * 4;
        for (y, pixels) in rgba.chunks_exact(row_bytes).enumerate() {
            let mut row = mask.row_mut(y as u32);
            for (k, chunk) in pixels.chunks(64 * 4).enumerate() {
                row[k] = chunk.chunks_exact(4).enumerate().fold(0, |bits, (i, px)| {
                    bits | (u64::from(px[3] > threshold) << i)
                });
            }
        }
        Ok(mask)
    }

    /// [`BitMask::from_rgba8`] on an `image` buffer; an image over [`MaskLimits::DEFAULT`]
    /// gives an empty 0 × 0 mask, which collides with nothing: use
    /// [`BitMask::try_from_image`] to tell that apart.
    pub fn from_image(image: &image::RgbaImage, threshold: u8) -> BitMask {
        Self::try_from_image(image, threshold).unwrap_or_else(|_| BitMask::new(0, 0))
    }

    /// [`BitMask::from_rgba8`] on an `image` buffer (which always holds exactly
    /// `width × height` pixels, so the only error is [`MaskError::TooLarge`]).
    pub fn try_from_image(image: &image::RgbaImage, threshold: u8) -> Result<BitMask, MaskError> {
        Self::from_rgba8(image.width(), image.height(), image.as_raw(), threshold)
    }

    /// A mask with every pixel set: what a sprite without an alpha channel collides as.
    pub fn solid(width: u32, height: u32) -> Result<BitMask, MaskError> {
        let mut mask = Self::try_new(width, height)?;
        mask.fill();
        Ok(mask)
    }

    /// Columns, pixels.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Rows, pixels.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// `(width, height)`, pixels.
    pub fn size(&self) -> (u32, u32) {
        (self.width, self.height)
    }

    /// Whether the pixel is set; false outside the mask.
    #[inline]
    pub fn get(&self, x: i64, y: i64) -> bool {
        if x < 0 || y < 0 || x >= i64::from(self.width) || y >= i64::from(self.height) {
            return false;
        }
        let (x, y) = (x as usize, y as usize);
        self.column(x / 64)[y] >> (x % 64) & 1 == 1
    }

    /// Sets or clears a pixel; ignored outside the mask. Built lookups are updated for
    /// that pixel (see [`BitMask::fill_circle`] for what that costs), not thrown away;
    /// setting a pixel to the state it has costs nothing more.
    pub fn set(&mut self, x: i64, y: i64, on: bool) {
        if x < 0 || y < 0 || x >= i64::from(self.width) || y >= i64::from(self.height) {
            return;
        }
        let (x, y) = (x as u32, y as u32);
        let mut changed = edit::Changed::default();
        self.apply_bits(y, x as usize / 64, 1u64 << (x % 64), on, &mut changed);
        self.refresh_caches(changed, on);
    }

    /// Number of set pixels.
    pub fn count(&self) -> u64 {
        self.words.iter().map(|w| u64::from(w.count_ones())).sum()
    }

    /// The words of row `y` (padding bits are zero).
    #[inline]
    pub(crate) fn row(&self, y: u32) -> Row<'_> {
        Row::of(&self.words, self.layout(), y as usize)
    }

    /// Words a column and columns, as [`Row::of`] takes them.
    #[inline]
    pub(crate) fn layout(&self) -> (usize, usize) {
        (self.height as usize, self.words_per_row)
    }

    #[inline]
    fn row_mut(&mut self, y: u32) -> RowMut<'_> {
        RowMut {
            first: self.height as usize + y as usize,
            stride: self.height as usize,
            len: self.words_per_row,
            words: &mut self.words,
        }
    }

    /// Column `k`'s words, one a row.
    #[inline]
    pub(crate) fn column(&self, k: usize) -> &[u64] {
        let h = self.height as usize;
        &self.words[word_index(k, 0, h)..][..h]
    }

    /// Every word, the guard columns' included: word `y` of column `k` is at
    /// `(k + 1) × stride + y`, the stride returned with it; word 0 is always clear.
    pub(crate) fn words_and_stride(&self) -> (&[u64], usize) {
        (&self.words, self.height as usize)
    }

    /// Drops every cached lookup: for changes to the whole mask, where rebuilding on next
    /// use costs no more than updating.
    fn invalidate(&mut self) {
        self.pixel_spans = OnceLock::new();
        self.loose_rows = (0, 0);
        self.loose_debt = 0;
        self.exact_bounds = OnceLock::new();
        self.bounds = OnceLock::new();
        self.distance = OnceLock::new();
        self.distance_debt = 0;
        self.circle = OnceLock::new();
        self.transposed = OnceLock::new();
        self.outline = OnceLock::new();
        self.outline_tiles = OnceLock::new();
        self.leading_edges = OnceLock::new();
    }

    pub(crate) fn cached_bounds(&self) -> Option<MaskRect> {
        *self
            .bounds
            .get_or_init(|| bounds_from_spans(self.pixel_spans()))
    }

    /// The rows' pixel spans, each holding its row's pixels, exact outside
    /// `loose_rows`: what filters read.
    pub(crate) fn pixel_spans(&self) -> &[(u32, u32)] {
        self.pixel_spans
            .get_or_init(|| self.spans_of_rows(0..self.height as usize))
    }

    /// The circle edits keep up to date: [`BitMask::bounding_circle`] when no spans are
    /// loose, and one holding it otherwise. Transformed overlap reads the exact one, as
    /// the order of its walk (and so the first hit it reports) follows the circles.
    fn cached_circle(&self) -> Option<(f64, f64, f64)> {
        *self.circle.get_or_init(|| {
            let rect = self.cached_bounds()?;
            Some(circle_from_spans(rect, self.pixel_spans()))
        })
    }

    /// Whether some rows' spans may be wider than their pixels.
    pub(crate) fn has_loose_rows(&self) -> bool {
        self.loose_rows.0 < self.loose_rows.1
    }

    /// Every row's exact pixel span: the cached spans, with the loose rows' found again
    /// from the words when there are any.
    pub(crate) fn exact_spans(&self) -> std::borrow::Cow<'_, [(u32, u32)]> {
        let spans = self.pixel_spans();
        if !self.has_loose_rows() {
            return std::borrow::Cow::Borrowed(spans);
        }
        let rows = self.loose_rows.0 as usize..self.loose_rows.1 as usize;
        let mut exact = spans.to_vec();
        exact[rows.clone()].copy_from_slice(&self.spans_of_rows(rows));
        std::borrow::Cow::Owned(exact)
    }

    /// Notes that a mask edit left the spans of rows `y0..y1` holding their pixels but
    /// maybe wider: filters then skip a little less, and the exact bounding rectangle
    /// and circle are found from the words of the loose rows when asked for. Once edits
    /// have left [`LOOSE_DEBT_FACTOR`] times as many rows loose as the loose range
    /// holds, its spans are found again from the words, with the rectangle and circle:
    /// one column scan of those rows per that many edits of them, where finding each
    /// edit's exact ends cost more than its painting.
    pub(crate) fn note_loose_rows(&mut self, y0: u32, y1: u32) {
        let (a, b) = self.loose_rows;
        self.loose_rows = if a < b {
            (a.min(y0), b.max(y1))
        } else {
            (y0, y1)
        };
        self.loose_debt += u64::from(y1 - y0);
        let (a, b) = self.loose_rows;
        if self.loose_debt >= LOOSE_DEBT_FACTOR * u64::from(b - a) {
            self.tighten_loose_rows();
        }
    }

    /// Makes the loose rows' spans exact again, and the rectangle and circle built from
    /// them.
    fn tighten_loose_rows(&mut self) {
        let (a, b) = std::mem::take(&mut self.loose_rows);
        self.loose_debt = 0;
        self.exact_bounds = OnceLock::new();
        let exact = self.spans_of_rows(a as usize..b as usize);
        let Some(spans) = self.pixel_spans.get_mut() else {
            return;
        };
        spans[a as usize..b as usize].copy_from_slice(&exact);
        let spans = &*spans;
        let rect = bounds_from_spans(spans);
        if let Some(bounds) = self.bounds.get_mut() {
            *bounds = rect;
        }
        if let Some(circle) = self.circle.get_mut() {
            *circle = rect.map(|r| circle_from_spans(r, spans));
        }
    }

    /// The pixel spans of rows `rows`: first the first and last column with a set pixel
    /// of each row, a column at a time (a compare and two selects a word, in vectors
    /// where the CPU has them; a row at a time would read each word from another cache
    /// line), then the bit counts of those two words a row. Counting every word's bits
    /// in the column loop cost the loose rows' rescan after edits four times as much
    /// with AVX2, which counts them in vectors with a nibble lookup.
    fn spans_of_rows(&self, rows: std::ops::Range<usize>) -> Vec<(u32, u32)> {
        let mut columns = vec![(u32::MAX, 0u32); rows.len()];
        for k in 0..self.words_per_row {
            let words = &self.column(k)[rows.clone()];
            note_set_columns(&mut columns, words, k as u32);
        }
        columns
            .iter()
            .zip(rows)
            .map(|(&(first, last), y)| {
                if first > last {
                    return (0, 0);
                }
                let (w0, w1) = (
                    self.column(first as usize)[y],
                    self.column(last as usize)[y],
                );
                (
                    first * 64 + w0.trailing_zeros(),
                    last * 64 + 64 - w1.leading_zeros(),
                )
            })
            .collect()
    }

    /// The last word of a row keeps only the bits inside the mask.
    fn last_word_bits(&self) -> u64 {
        match self.width % 64 {
            0 => u64::MAX,
            r => (1u64 << r) - 1,
        }
    }

    /// Sets every pixel.
    pub fn fill(&mut self) {
        self.invalidate();
        let (last, h, n) = (
            self.last_word_bits(),
            self.height as usize,
            self.words_per_row,
        );
        for k in 0..n {
            let keep = if k + 1 == n { last } else { u64::MAX };
            self.words[word_index(k, 0, h)..][..h].fill(keep);
        }
    }

    /// Clears every pixel.
    pub fn clear(&mut self) {
        self.invalidate();
        self.words.fill(0);
    }

    /// Flips every pixel.
    pub fn invert(&mut self) {
        self.invalidate();
        let (last, h, n) = (
            self.last_word_bits(),
            self.height as usize,
            self.words_per_row,
        );
        for k in 0..n {
            let keep = if k + 1 == n { last } else { u64::MAX };
            for w in &mut self.words[word_index(k, 0, h)..][..h] {
                *w = !*w & keep;
            }
        }
    }

    /// A copy resized to `width × height` by nearest-neighbour sampling of pixel centers
    /// (pygame's `Mask.scale`). A size over [`MaskLimits::DEFAULT`] is
    /// [`MaskError::TooLarge`], refused before any work.
    pub fn scale(&self, width: u32, height: u32) -> Result<BitMask, MaskError> {
        let mut out = Self::try_new(width, height)?;
        if self.width == 0 || self.height == 0 {
            return Ok(out);
        }
        for y in 0..height {
            let sy = (u64::from(y) * 2 + 1) * u64::from(self.height) / (u64::from(height) * 2);
            for x in 0..width {
                let sx = (u64::from(x) * 2 + 1) * u64::from(self.width) / (u64::from(width) * 2);
                if self.get(sx as i64, sy as i64) {
                    out.row_mut(y)[x as usize / 64] |= 1 << (x % 64);
                }
            }
        }
        Ok(out)
    }

    /// The smallest rectangle holding every set pixel, or `None` for an empty mask. Cached;
    /// edits keep it up to date, except that after mask edits which left row spans loose
    /// (see [`BitMask::draw`]) it is found again, from the words of those rows only, on
    /// first use.
    pub fn bounding_rect(&self) -> Option<MaskRect> {
        if !self.has_loose_rows() {
            return self.cached_bounds();
        }
        self.exact_lookups().0
    }

    /// The exact bounding rectangle and circle while some spans are loose.
    fn exact_lookups(&self) -> (Option<MaskRect>, Option<(f64, f64, f64)>) {
        *self.exact_bounds.get_or_init(|| {
            let spans = self.exact_spans();
            let rect = bounds_from_spans(&spans);
            (rect, rect.map(|r| circle_from_spans(r, &spans)))
        })
    }

    /// A circle holding every set pixel whole, about the center of
    /// [`BitMask::bounding_rect`]: `(center x, center y, radius)` in pixels, or `None` for an
    /// empty mask. Round and star-shaped sprites fill much less of it than of their
    /// rectangle, so transformed overlap clips A's samples to it. Cached and kept up to
    /// date as [`BitMask::bounding_rect`] is.
    pub fn bounding_circle(&self) -> Option<(f64, f64, f64)> {
        if !self.has_loose_rows() {
            return self.cached_circle();
        }
        self.exact_lookups().1
    }

    /// Mean position of the set pixels' indices, `(mean x, mean y)` (pygame's convention:
    /// add 0.5 for the mean of pixel centers), or `None` for an empty mask.
    pub fn centroid(&self) -> Option<(f64, f64)> {
        let (mut n, mut sx, mut sy) = (0u64, 0u64, 0u64);
        for k in 0..self.words_per_row {
            for (y, &w) in (0u64..).zip(self.column(k)) {
                let c = u64::from(w.count_ones());
                n += c;
                sx += word_position_sum(w) + c * k as u64 * 64;
                sy += c * y;
            }
        }
        (n > 0).then(|| (sx as f64 / n as f64, sy as f64 / n as f64))
    }

    /// [`BitMask::outline`], kept from the last call while the mask is unedited (unless
    /// it is larger, in bytes, than the mask in pixels and than 4 KiB: then made again).
    /// A small sprite's outline (a character's, cast each frame) is kept whatever its
    /// shape: 4 KiB is the memory of a few rows of words of a large mask.
    pub(crate) fn cached_outline(&self) -> std::borrow::Cow<'_, [(u32, u32)]> {
        const ALWAYS_KEPT_BYTES: u64 = 4096;
        let kept = self.outline.get_or_init(|| {
            let outline = self.outline();
            let bytes = outline.len() as u64 * std::mem::size_of::<(u32, u32)>() as u64;
            let pixels = u64::from(self.width) * u64::from(self.height);
            (bytes <= pixels.max(ALWAYS_KEPT_BYTES)).then_some(outline)
        });
        match kept {
            Some(outline) => std::borrow::Cow::Borrowed(outline),
            None => std::borrow::Cow::Owned(self.outline()),
        }
    }

    /// Set pixels with at least one of their 4 neighbours clear or outside the mask, in
    /// row-major order: the outline a debug view draws.
    pub fn outline(&self) -> Vec<(u32, u32)> {
        let mut points = Vec::new();
        for y in 0..self.height {
            let row = self.row(y);
            let above = (y > 0).then(|| self.row(y - 1));
            let below = (y + 1 < self.height).then(|| self.row(y + 1));
            for (k, w) in row.iter().enumerate() {
                if w == 0 {
                    continue;
                }
                let start = k as i64 * 64;
                let left = row_bits_at(row, start - 1);
                let right = row_bits_at(row, start + 1);
                let up = above.map_or(0, |r| r[k]);
                let down = below.map_or(0, |r| r[k]);
                let mut edge = w & !(left & right & up & down);
                while edge != 0 {
                    points.push((k as u32 * 64 + edge.trailing_zeros(), y));
                    edge &= edge - 1;
                }
            }
        }
        points
    }
}

#[cfg(test)]
mod tests;
