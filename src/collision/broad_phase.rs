//! Broad phase: the pairs of axis-aligned boxes that overlap, without testing every pair.
//!
//! Implementations of one contract, [`BroadPhase::update`]:
//!
//! - [`SweepAndPrune`]: boxes sorted on `min.x`, then each box scans forward while the next
//!   box starts before it ends. The order is kept between frames and re-sorted by insertion
//!   sort, which is linear when bodies moved little (avian's broad phase does the same).
//! - [`SpatialHash`]: a uniform grid of cells about the size of a box, stored as a hash
//!   table rebuilt every frame by counting sort; only boxes sharing a cell are compared.
//! - [`UniformGrid`]: a dense grid of cells as large as the boxes, one cell per box, each
//!   box compared with the boxes of its own and neighbouring cells.
//! - [`FatBoxes`]: temporal coherence around any of them: boxes are kept with enlarged
//!   copies, the inner phase runs only when a box leaves its copy, and every frame filters
//!   the stored pairs exactly.
//!
//! [`DefaultBroadPhase`] is the fastest of them on the crowd bench (numbers there).
//!
//! # Contract
//!
//! - **Exact**: the pairs are exactly those for which [`Aabb2d::intersects`]
//!   (`IntersectsVolume`) holds, the same set [`all_pairs`] finds by testing every pair.
//! - **Touching counts**: the test is inclusive, like `Aabb2d::intersects`: boxes that only
//!   share an edge or a corner are a pair. The narrow phase decides whether pixels touch.
//! - **Pairs** are `(i, j)` with `i < j`, indices into the slice, each pair once, in no
//!   particular order. `pairs` is cleared first.
//! - **Bad boxes**: a box with a NaN coordinate never intersects anything under
//!   `Aabb2d::intersects`, so it is skipped. Infinite and inverted (`min > max`) boxes are
//!   compared literally, as `Aabb2d::intersects` would. Nothing panics on box values.
//! - **Bounded memory**: every broad phase here keeps `O(N)` memory plus the pairs it
//!   finds, whatever the boxes' sizes and positions (a box spanning ±1e9, a box at 1e30).

use bevy_math::Vec2;
use bevy_math::bounding::{Aabb2d, IntersectsVolume};

/// The broad phase the crowd uses: [`FatBoxes`] around a [`UniformGrid`], the fastest at
/// every size measured.
///
/// `cargo bench --no-default-features --bench crowd -- broad` times the four on recorded
/// frames of rotating sprites (README, Performance, has the figures).
///
/// Sweep and prune sweeps on x only, so each box scans every box in its vertical strip of
/// the world: about `√N` of them at a fixed density, `N·√N` overall (×23 from 1k to 10k).
/// The hash and the grid compare a box with the few boxes near it, `N` overall; the grid
/// puts each box in one cell instead of up to four and needs no hashing, and its neighbour
/// cells are contiguous slices. Fat boxes skip the grid on most frames, since boxes move a
/// pixel or two a frame, and only filter the pairs they keep. The hash suits worlds of far-apart clusters better
/// than the grid.
pub type DefaultBroadPhase = FatBoxes<UniformGrid>;

/// Finds the overlapping pairs among a set of boxes, reusing its buffers between frames.
pub trait BroadPhase {
    /// Replaces `pairs` with every `(i, j)`, `i < j`, whose boxes intersect (inclusive, as
    /// [`Aabb2d::intersects`]). See the [module docs](self) for the contract.
    ///
    /// # Panics
    /// When there are more than `u32::MAX` boxes.
    fn update(&mut self, boxes: &[Aabb2d], pairs: &mut Vec<(u32, u32)>);
}

/// The reference: tests every pair with [`Aabb2d::intersects`]. `O(N²)`.
pub fn all_pairs(boxes: &[Aabb2d], pairs: &mut Vec<(u32, u32)>) {
    pairs.clear();
    let n = index_count(boxes);
    for i in 0..n {
        for j in i + 1..n {
            if boxes[i as usize].intersects(&boxes[j as usize]) {
                pairs.push((i, j));
            }
        }
    }
}

fn index_count(boxes: &[Aabb2d]) -> u32 {
    u32::try_from(boxes.len()).expect("a broad phase takes at most u32::MAX boxes")
}

#[inline]
fn has_nan(b: &Aabb2d) -> bool {
    b.min.is_nan() || b.max.is_nan()
}

/// `x.floor()` as an integer, without a libm call on CPUs before SSE4.1. Saturates at
/// `±2⁶²` so that a difference of two results cannot overflow; NaN gives 0.
#[inline]
pub(crate) fn floor_i64(x: f32) -> i64 {
    let x = x.clamp(-(2.0f32.powi(62)), 2.0f32.powi(62));
    let t = x as i64;
    if (t as f32) > x { t - 1 } else { t }
}

/// A box's larger side, for a box that is finite and not inverted on that side; `None`
/// for the boxes a grid cannot size its cells by.
#[inline]
fn finite_extent(b: &Aabb2d) -> Option<f32> {
    let extent = (b.max - b.min).max_element();
    (b.min.is_finite() && b.max.is_finite() && extent >= 0.0).then_some(extent)
}

/// Boxes sampled, evenly spaced, for [`typical_extent`] and [`core_range`] when outliers
/// call for them: enough for a median and outer quantiles within a few percent, at `O(1)`
/// whatever the number of boxes.
const SAMPLE: usize = 256;

/// The boxes at a fixed stride, at most [`SAMPLE`] of them.
fn sample(boxes: &[Aabb2d]) -> impl Iterator<Item = &Aabb2d> {
    boxes.iter().step_by(boxes.len().div_ceil(SAMPLE).max(1))
}

/// The extent that sizes cells and margins: the mean finite extent, unless the largest
/// is more than [`OUTLIER_RATIO`] times it, which only a few outliers can do (a
/// population of large boxes raises the mean with it); then the median of an evenly
/// spaced sample, which they cannot move. One box spanning ±1e9 among 10,000 small ones
/// made the mean 200,000, and every cell or margin sized by it covered the whole crowd.
/// `(largest, typical)`, or `None` when no box is finite.
fn typical_extent(boxes: &[Aabb2d], scratch: &mut Vec<f32>) -> Option<(f32, f32)> {
    let (mut largest, mut sum, mut finite) = (0.0f32, 0.0f64, 0usize);
    for extent in boxes.iter().filter_map(finite_extent) {
        largest = largest.max(extent);
        sum += f64::from(extent);
        finite += 1;
    }
    if finite == 0 {
        return None;
    }
    let mean = (sum / finite as f64) as f32;
    if largest <= OUTLIER_RATIO * mean {
        return Some((largest, mean));
    }
    scratch.clear();
    scratch.extend(sample(boxes).filter_map(finite_extent));
    if scratch.is_empty() {
        return Some((largest, mean));
    }
    let mid = scratch.len() / 2;
    let median = *scratch.select_nth_unstable_by(mid, f32::total_cmp).1;
    Some((largest, median.min(mean)))
}

/// See [`typical_extent`].
const OUTLIER_RATIO: f32 = 4.0;

/// Where the sampled boxes' `min` corners lie, per axis, trimmed of the outer sixteenth on
/// each side and then widened by its own size plus `pad` each way (which covers the
/// whole of an evenly or normally spread world): a grid sized by it is not stretched over
/// the empty space to a few far-away boxes, which it leaves out (they are tested against
/// every box instead). `None` when no sampled box is finite.
fn core_range(boxes: &[Aabb2d], pad: f32, scratch: &mut Vec<f32>) -> Option<(Vec2, Vec2)> {
    let mut axis = |get: fn(&Aabb2d) -> f32| {
        scratch.clear();
        scratch.extend(
            sample(boxes)
                .filter(|b| finite_extent(b).is_some())
                .map(get),
        );
        let n = scratch.len();
        if n == 0 {
            return None;
        }
        let trim = n / 16;
        let low = *scratch.select_nth_unstable_by(trim, f32::total_cmp).1;
        let high = *scratch
            .select_nth_unstable_by(n - 1 - trim, f32::total_cmp)
            .1;
        let spread = high - low + pad;
        Some((low - spread, high + spread))
    };
    let (x0, x1) = axis(|b| b.min.x)?;
    let (y0, y1) = axis(|b| b.min.y)?;
    Some((Vec2::new(x0, y0), Vec2::new(x1, y1)))
}

/// `Aabb2d::intersects` on two boxes' corners, without a branch: in a broad phase the
/// answers come in no pattern a branch predictor can learn.
#[inline]
fn corners_meet((a_min, a_max): (Vec2, Vec2), (b_min, b_max): (Vec2, Vec2)) -> bool {
    (a_min.x <= b_max.x) & (a_max.x >= b_min.x) & (a_min.y <= b_max.y) & (a_max.y >= b_min.y)
}

/// Replaces `kept` with the pairs for which `keep` holds, in order, without a branch per
/// pair: every pair is written past the kept ones and only a kept one moves that end on.
/// For filters that pass about half the pairs at random.
pub(crate) fn retain_pairs(
    pairs: &[(u32, u32)],
    kept: &mut Vec<(u32, u32)>,
    mut keep: impl FnMut(u32, u32) -> bool,
) {
    kept.clear();
    kept.resize(pairs.len(), (0, 0));
    let mut end = 0;
    for &(i, j) in pairs {
        kept[end] = (i, j);
        end += usize::from(keep(i, j));
    }
    kept.truncate(end);
}

/// Boxes left out of a grid or hash (`outside`, marked in `is_outside`) against every
/// box, literally; a pair of two such boxes is reported once, from the lower index.
fn pairs_with_outsiders(
    boxes: &[Aabb2d],
    outside: &[u32],
    is_outside: &[bool],
    pairs: &mut Vec<(u32, u32)>,
) {
    for &a in outside {
        let box_a = &boxes[a as usize];
        for (j, box_b) in (0..index_count(boxes)).zip(boxes) {
            if j == a || (is_outside[j as usize] && j < a) {
                continue;
            }
            if box_a.intersects(box_b) {
                pairs.push(ordered(a, j));
            }
        }
    }
}

#[inline]
fn ordered(a: u32, b: u32) -> (u32, u32) {
    if a < b { (a, b) } else { (b, a) }
}

/// One box in sweep order.
#[derive(Debug, Clone, Copy)]
struct SweepEntry {
    /// `min.x`, or `+∞` for a NaN box so that the sort never meets a NaN.
    key: f32,
    min: Vec2,
    max: Vec2,
    index: u32,
}

/// Sweep and prune on the x axis with a persistent, insertion-sorted order.
///
/// Each update refreshes the boxes in last frame's order and restores the order by
/// insertion sort: `O(N + moves)`, so linear when bodies moved little. When the order
/// changed a lot (the first frame, a different number of boxes, a teleport of many bodies)
/// insertion sort gives up after a budget of moves and a full sort takes over.
#[derive(Debug, Clone, Default)]
pub struct SweepAndPrune {
    sorted: Vec<SweepEntry>,
    keys: Vec<f32>,
    /// `min.x, max.x, min.y, max.y` in sweep order.
    rest: Vec<(f32, f32, f32, f32)>,
    /// Whether the last update fell back to a full sort (for tests and stats).
    full_sort: bool,
}

impl SweepAndPrune {
    /// Element moves allowed per box before insertion sort gives up.
    const MOVES_PER_BOX: usize = 16;

    pub fn new() -> SweepAndPrune {
        SweepAndPrune::default()
    }

    /// Whether the last [`update`](BroadPhase::update) sorted from scratch instead of
    /// repairing last frame's order.
    pub fn used_full_sort(&self) -> bool {
        self.full_sort
    }

    /// Insertion sort on `key`; `false` (order partly restored) when over the budget.
    fn insertion_sort(entries: &mut [SweepEntry], budget: usize) -> bool {
        let mut moves = 0;
        for i in 1..entries.len() {
            let entry = entries[i];
            let mut j = i;
            while j > 0 && entries[j - 1].key > entry.key {
                entries[j] = entries[j - 1];
                j -= 1;
            }
            entries[j] = entry;
            moves += i - j;
            if moves > budget {
                return false;
            }
        }
        true
    }
}

impl BroadPhase for SweepAndPrune {
    fn update(&mut self, boxes: &[Aabb2d], pairs: &mut Vec<(u32, u32)>) {
        pairs.clear();
        let n = index_count(boxes);
        let entry = |index: u32| {
            let b = boxes[index as usize];
            if has_nan(&b) {
                // NaN bounds fail every comparison below: the box finds no pair and no box
                // pairs with it.
                SweepEntry {
                    key: f32::INFINITY,
                    min: Vec2::NAN,
                    max: Vec2::NAN,
                    index,
                }
            } else {
                SweepEntry {
                    key: b.min.x,
                    min: b.min,
                    max: b.max,
                    index,
                }
            }
        };
        let reuse = self.sorted.len() == boxes.len();
        if reuse {
            for e in &mut self.sorted {
                *e = entry(e.index);
            }
        } else {
            self.sorted.clear();
            self.sorted.extend((0..n).map(entry));
        }
        let budget = Self::MOVES_PER_BOX * boxes.len();
        self.full_sort = !(reuse && Self::insertion_sort(&mut self.sorted, budget));
        if self.full_sort {
            // Keys are never NaN, so total order agrees with `<` (up to -0 before +0).
            self.sorted.sort_unstable_by(|a, b| a.key.total_cmp(&b.key));
        }

        // The scan reads keys alone until it stops, so they get an array of their own.
        self.keys.clear();
        self.keys.extend(self.sorted.iter().map(|e| e.key));
        self.rest.clear();
        self.rest.extend(
            self.sorted
                .iter()
                .map(|e| (e.min.x, e.max.x, e.min.y, e.max.y)),
        );
        for (k, &(min_x, max_x, min_y, max_y)) in self.rest.iter().enumerate() {
            if max_x.is_nan() {
                continue;
            }
            let later = self.keys[k + 1..].iter().zip(&self.rest[k + 1..]);
            for (m, (&key, b)) in later.enumerate() {
                // Sorted on min.x: once a box starts after `a` ends, so do all the rest.
                if key > max_x {
                    break;
                }
                // `b.min.x <= a.max.x` holds; test the other three sides literally (an
                // inverted `b` can end before `a` starts; NaN fails every test).
                if b.1 >= min_x && b.2 <= max_y && b.3 >= min_y {
                    let (a, b) = (self.sorted[k].index, self.sorted[k + 1 + m].index);
                    pairs.push(ordered(a, b));
                }
            }
        }
    }
}

/// One box in one cell of the hash.
#[derive(Debug, Clone, Copy)]
struct CellEntry {
    cell: (i32, i32),
    /// The box's lowest cell: a pair is reported only in the cell at the max of the two
    /// boxes' lowest cells, which both boxes cover when they intersect, so exactly once.
    first: (i32, i32),
    min: Vec2,
    max: Vec2,
    index: u32,
}

/// A uniform spatial hash: boxes go into every grid cell they cover, only boxes sharing a
/// cell are compared.
///
/// The grid cell is [`cell_factor`](Self::with_cell_factor) times the median box extent
/// (the larger side), recomputed each update, unless [a size is
/// fixed](Self::with_cell_size). Cells are hashed (Fibonacci hashing) into a table of at
/// least as many buckets as entries, filled by counting sort, so an update is `O(N)` and
/// allocation-free once the buffers have grown. A pair is compared in every cell both
/// boxes cover but reported only from one: the cell at the larger of their lowest cells.
///
/// Boxes that may cover more than [`MAX_CELL_SPAN`](Self::MAX_CELL_SPAN) cells on an axis,
/// and infinite or inverted boxes, are not hashed: they are tested against every box.
#[derive(Debug, Clone)]
pub struct SpatialHash {
    cell_size: Option<f32>,
    cell_factor: f32,
    /// The cell size of the last update.
    last_cell: f32,
    extents: Vec<f32>,
    entries: Vec<(u32, CellEntry)>,
    table: Vec<CellEntry>,
    starts: Vec<u32>,
    big: Vec<u32>,
    is_big: Vec<bool>,
}

impl Default for SpatialHash {
    fn default() -> SpatialHash {
        SpatialHash {
            cell_size: None,
            cell_factor: Self::DEFAULT_CELL_FACTOR,
            last_cell: 0.0,
            extents: Vec::new(),
            entries: Vec::new(),
            table: Vec::new(),
            starts: Vec::new(),
            big: Vec::new(),
            is_big: Vec::new(),
        }
    }
}

impl SpatialHash {
    /// Cells wider than this many cells on an axis make a box "big".
    pub const MAX_CELL_SPAN: f32 = 8.0;
    /// Cell size over median box extent, when the size is automatic.
    pub const DEFAULT_CELL_FACTOR: f32 = 2.0;

    /// Automatic cell size: [`DEFAULT_CELL_FACTOR`](Self::DEFAULT_CELL_FACTOR) × the median
    /// box extent.
    pub fn new() -> SpatialHash {
        SpatialHash::default()
    }

    /// A fixed cell size; a non-finite or non-positive size means automatic.
    pub fn with_cell_size(cell_size: f32) -> SpatialHash {
        SpatialHash {
            cell_size: (cell_size.is_finite() && cell_size > 0.0).then_some(cell_size),
            ..SpatialHash::default()
        }
    }

    /// Automatic cell size, `factor` × the median box extent.
    pub fn with_cell_factor(factor: f32) -> SpatialHash {
        SpatialHash {
            cell_factor: if factor.is_finite() && factor > 0.0 {
                factor
            } else {
                Self::DEFAULT_CELL_FACTOR
            },
            ..SpatialHash::default()
        }
    }

    /// The cell size the last update used.
    pub fn cell_size(&self) -> f32 {
        self.last_cell
    }

    fn choose_cell(&mut self, boxes: &[Aabb2d]) -> f32 {
        if let Some(size) = self.cell_size {
            return size;
        }
        self.extents.clear();
        // Corners far apart can still overflow the extent: leave those out of the median.
        self.extents.extend(
            boxes
                .iter()
                .filter_map(finite_extent)
                .filter(|e| e.is_finite()),
        );
        if self.extents.is_empty() {
            return 1.0;
        }
        let mid = self.extents.len() / 2;
        let (_, median, _) = self.extents.select_nth_unstable_by(mid, f32::total_cmp);
        let size = *median * self.cell_factor;
        // Points only, or extents so small or large that the grid would be meaningless.
        if size.is_finite() && size > f32::MIN_POSITIVE * 1e6 {
            size
        } else {
            1.0
        }
    }

    #[inline]
    fn bucket(cell: (i32, i32), shift: u32) -> u32 {
        let key = (u64::from(cell.0 as u32) << 32) | u64::from(cell.1 as u32);
        // Fibonacci hashing: the top bits of the product.
        (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> shift) as u32
    }
}

impl BroadPhase for SpatialHash {
    fn update(&mut self, boxes: &[Aabb2d], pairs: &mut Vec<(u32, u32)>) {
        pairs.clear();
        let n = index_count(boxes);
        let cell = self.choose_cell(boxes);
        self.last_cell = cell;
        let inv = 1.0 / cell;
        // Far enough from i32's range that `as i32` and `+ 1` never saturate or overflow.
        let limit = (1u32 << 30) as f32;

        self.entries.clear();
        self.big.clear();
        self.is_big.clear();
        self.is_big.resize(boxes.len(), false);
        // First pass: cell ranges; buckets are assigned once the table size is known.
        for (i, b) in (0..n).zip(boxes) {
            if has_nan(b) {
                continue;
            }
            // Multiplying by a positive constant and flooring are both monotonic, so two
            // boxes that share a point get cell ranges that share a cell.
            let (lo, hi) = (b.min * inv, b.max * inv);
            let span = hi - lo;
            // Written so that NaN and infinities fail.
            let hashable = lo.abs().max_element() < limit
                && hi.abs().max_element() < limit
                && span.x >= 0.0
                && span.y >= 0.0
                && span.max_element() < Self::MAX_CELL_SPAN - 1.0;
            if !hashable {
                self.big.push(i);
                self.is_big[i as usize] = true;
                continue;
            }
            // Hashable boxes are within ±2³⁰ cells, where the cast is exact.
            let first = (floor_i64(lo.x) as i32, floor_i64(lo.y) as i32);
            let last = (floor_i64(hi.x) as i32, floor_i64(hi.y) as i32);
            for cy in first.1..=last.1 {
                for cx in first.0..=last.0 {
                    self.entries.push((
                        0,
                        CellEntry {
                            cell: (cx, cy),
                            first,
                            min: b.min,
                            max: b.max,
                            index: i,
                        },
                    ));
                }
            }
        }

        // Counting sort into a table of ≥ entries buckets.
        let bits = self
            .entries
            .len()
            .next_power_of_two()
            .trailing_zeros()
            .max(4);
        let shift = 64 - bits;
        let buckets = 1usize << bits;
        self.starts.clear();
        self.starts.resize(buckets + 1, 0);
        for (bucket, e) in &mut self.entries {
            *bucket = Self::bucket(e.cell, shift);
            self.starts[*bucket as usize + 1] += 1;
        }
        let mut total = 0;
        for start in &mut self.starts {
            total += *start;
            *start = total;
        }
        if let Some(&(_, filler)) = self.entries.first() {
            self.table.clear();
            self.table.resize(self.entries.len(), filler);
        }
        // `starts[b]` serves as the write cursor of bucket `b`, leaving `starts[b]` = end of
        // bucket `b`; the start of bucket `b` is then `starts[b - 1]` (0 for the first).
        for &(bucket, e) in &self.entries {
            let slot = &mut self.starts[bucket as usize];
            self.table[*slot as usize] = e;
            *slot += 1;
        }

        let mut begin = 0usize;
        for &end in &self.starts[..buckets] {
            let end = end as usize;
            let bucket = &self.table[begin..end];
            for (k, a) in bucket.iter().enumerate() {
                for b in &bucket[k + 1..] {
                    // Different cells can share a bucket; and only the owner cell reports.
                    if a.cell != b.cell
                        || a.cell != (a.first.0.max(b.first.0), a.first.1.max(b.first.1))
                    {
                        continue;
                    }
                    if a.min.x <= b.max.x
                        && a.max.x >= b.min.x
                        && a.min.y <= b.max.y
                        && a.max.y >= b.min.y
                    {
                        pairs.push(ordered(a.index, b.index));
                    }
                }
            }
            begin = end;
        }

        pairs_with_outsiders(boxes, &self.big, &self.is_big, pairs);
    }
}

/// One box in [`UniformGrid`]'s cell order.
#[derive(Debug, Clone, Copy)]
struct GridEntry {
    min: Vec2,
    max: Vec2,
    index: u32,
}

/// A dense uniform grid whose cell is as large as the boxes: each box goes into the one
/// cell holding its `min` corner, and a box can only meet boxes in its own and the eight
/// neighbouring cells.
///
/// Why that holds whatever the rounding: a box is hashed only when `floor(max / cell)` is
/// at most one more than `floor(min / cell)` on each axis (checked on the computed values).
/// If boxes A and B intersect, `B.min ≤ A.max`, and multiplying by a positive constant and
/// flooring are monotonic, so B's cell is at most A's `floor(max / cell)`, which is at most
/// A's cell + 1; the same the other way round.
///
/// Cells are numbered row by row and boxes counting-sorted into them, so the three cells of
/// a neighbouring row are one contiguous slice. Each box scans the rest of its own cell,
/// the cell to its right and the three cells below: every neighbouring pair of cells is
/// visited once, so every pair is found once. An update is `O(N + cells)` with no hashing
/// and no allocation once the buffers have grown.
///
/// The cell is the largest box extent, capped at [`EXTENT_CAP`](Self::EXTENT_CAP) times the
/// mean, or, when a few huge boxes drive the mean, times the median of at most 256 evenly
/// spaced boxes, so that they cannot coarsen the grid for everyone; boxes larger than a
/// cell, and infinite or inverted boxes, are tested against every box. The grid covers the
/// boxes' `min` corners and grows its cells when that would take more than
/// [`MAX_CELLS_PER_BOX`](Self::MAX_CELLS_PER_BOX) cells per box; before growing them it
/// leaves out a few far-away boxes (outside the central seven eighths of the sampled
/// corners, widened by their spread and a cell each way; also tested against every box),
/// so a sparse world costs memory in proportion to the boxes, not to the space
/// between them (clustered worlds then crowd more boxes into a cell: [`SpatialHash`]
/// suits them better).
///
/// Memory is `O(N)` plus the pairs found, whatever the boxes' sizes and positions; time is
/// `O(N)` plus the comparisons within neighbouring cells plus `N` per box left out of the
/// grid, which a few outliers (one box spanning ±1e9) keep small.
#[derive(Debug, Clone, Default)]
pub struct UniformGrid {
    /// The cell size of the last update.
    last_cell: f32,
    /// Per box, its cell, or `u32::MAX` when it is not in the grid.
    cells: Vec<u32>,
    starts: Vec<u32>,
    sorted: Vec<GridEntry>,
    big: Vec<u32>,
    is_big: Vec<bool>,
    scratch: Vec<f32>,
}

impl UniformGrid {
    /// The cell is at most this many times the typical (mean, or median) box extent.
    pub const EXTENT_CAP: f32 = 4.0;
    /// Cells allowed per box before the cell grows.
    pub const MAX_CELLS_PER_BOX: usize = 4;

    pub fn new() -> UniformGrid {
        UniformGrid::default()
    }

    /// The cell size the last update used.
    pub fn cell_size(&self) -> f32 {
        self.last_cell
    }

    /// The cell size: the largest extent (capped), then grown until the grid over the
    /// boxes' `min` corners (less far outliers) has few enough cells. `None` when no box
    /// is finite.
    fn choose_cell(boxes: &[Aabb2d], scratch: &mut Vec<f32>) -> Option<(f32, Vec2, Vec2)> {
        let (largest, typical) = typical_extent(boxes, scratch)?;
        let (mut lo, mut hi, mut finite) = (Vec2::INFINITY, Vec2::NEG_INFINITY, 0usize);
        for b in boxes {
            if finite_extent(b).is_some() {
                finite += 1;
                lo = lo.min(b.min);
                hi = hi.max(b.min);
            }
        }
        let cell = largest.min(Self::EXTENT_CAP * typical);
        // Room for the cells: a grid of `range / cell + 1` cells a side within budget.
        let budget = (finite * Self::MAX_CELLS_PER_BOX + 64) as f32;
        let fit = |lo: Vec2, hi: Vec2| {
            let range = (hi - lo).max(Vec2::ZERO);
            cell.max((range.x * range.y / budget).sqrt())
                .max(range.max_element() / budget)
        };
        let mut grown = fit(lo, hi);
        // Cells grown for the space out to a few far boxes: leave those out of the grid.
        if grown > cell
            && let Some((core_lo, core_hi)) = core_range(boxes, cell, scratch)
        {
            lo = lo.max(core_lo);
            hi = hi.min(core_hi).max(lo);
            grown = fit(lo, hi);
        }
        let mut cell = grown;
        // All boxes at one point, or extents so small the grid would be meaningless.
        if !(cell.is_finite() && cell > f32::MIN_POSITIVE * 1e6) {
            cell = (hi - lo).max(Vec2::ZERO).max_element().max(1.0);
        }
        Some((cell, lo, hi))
    }
}

impl BroadPhase for UniformGrid {
    fn update(&mut self, boxes: &[Aabb2d], pairs: &mut Vec<(u32, u32)>) {
        pairs.clear();
        let n = index_count(boxes);
        self.cells.clear();
        self.big.clear();
        self.is_big.clear();
        self.is_big.resize(boxes.len(), false);
        let Some((cell, lo, hi)) = Self::choose_cell(boxes, &mut self.scratch) else {
            // No finite box: only infinite or inverted ones can still meet.
            self.last_cell = 0.0;
            for (i, b) in (0..n).zip(boxes) {
                if !has_nan(b) {
                    self.big.push(i);
                    self.is_big[i as usize] = true;
                }
            }
            pairs_with_outsiders(boxes, &self.big, &self.is_big, pairs);
            return;
        };
        self.last_cell = cell;
        let inv = 1.0 / cell;
        // Cells are counted from `lo`, the lowest `min` corner, so every grid box's cell
        // coordinates are `≥ 0` and truncation is floor. `x ↦ ⌊(x − lo)·inv⌋` is still
        // monotonic (each rounded step is), which is all the proof above needs.
        let extent = (hi - lo) * inv;
        // Far below u32's range, so casts and `+ 1` are exact and no cell index overflows.
        let limit = (1u32 << 24) as f32;
        let limit_cells = (boxes.len() * (Self::MAX_CELLS_PER_BOX + 2) + 256) as u64;
        if !(extent.x < limit && extent.y < limit)
            || (extent.x as u64 + 1) * (extent.y as u64 + 1) > limit_cells
        {
            // Only rounding at absurd coordinates gets here: test every pair.
            all_pairs(boxes, pairs);
            return;
        }
        let (columns, rows) = (extent.x as u32 + 1, extent.y as u32 + 1);
        let count = (columns * rows) as usize;

        self.starts.clear();
        self.starts.resize(count + 1, 0);
        self.cells.resize(boxes.len(), u32::MAX);
        for ((i, b), cell_of) in (0..n).zip(boxes).zip(&mut self.cells) {
            let (low, high) = ((b.min - lo) * inv, (b.max - lo) * inv);
            // Written so that NaN fails every test.
            let in_grid = b.min.x <= b.max.x
                && b.min.y <= b.max.y
                && low.x >= 0.0
                && low.y >= 0.0
                && high.x < limit
                && high.y < limit;
            let (cx, cy) = (low.x as u32, low.y as u32);
            if in_grid
                && (high.x as u32) - cx <= 1
                && (high.y as u32) - cy <= 1
                && cx < columns
                && cy < rows
            {
                let index = cy * columns + cx;
                *cell_of = index;
                self.starts[index as usize + 1] += 1;
            } else {
                *cell_of = u32::MAX;
                if !has_nan(b) {
                    self.big.push(i);
                    self.is_big[i as usize] = true;
                }
            }
        }
        let mut total = 0;
        for start in &mut self.starts {
            total += *start;
            *start = total;
        }
        // Counting sort; `starts[c]` is the write cursor of cell `c` and ends as the start
        // of cell `c + 1`, so the cell ranges are then `starts[c - 1]..starts[c]`.
        let filler = GridEntry {
            min: Vec2::ZERO,
            max: Vec2::ZERO,
            index: 0,
        };
        self.sorted.clear();
        self.sorted.resize(total as usize, filler);
        for ((i, b), &c) in (0..n).zip(boxes).zip(&self.cells) {
            if c != u32::MAX {
                let slot = &mut self.starts[c as usize];
                self.sorted[*slot as usize] = GridEntry {
                    min: b.min,
                    max: b.max,
                    index: i,
                };
                *slot += 1;
            }
        }
        let cell_start = |c: i64| {
            if c == 0 {
                0
            } else {
                self.starts[c as usize - 1] as usize
            }
        };
        let cell_end = |c: i64| self.starts[c as usize] as usize;

        let (columns, rows) = (i64::from(columns), i64::from(rows));
        // About one comparison in five is a hit, in no pattern a branch predictor can
        // learn: every comparison writes its pair past the end of the found ones and only
        // a hit moves that end on.
        let mut found = 0;
        let mut scan = |a: &GridEntry, others: &[GridEntry], pairs: &mut Vec<(u32, u32)>| {
            if pairs.len() < found + others.len() {
                pairs.resize((found + others.len()).max(2 * pairs.len()), (0, 0));
            }
            for b in others {
                let meets = corners_meet((a.min, a.max), (b.min, b.max));
                pairs[found] = (a.index.min(b.index), a.index.max(b.index));
                found += usize::from(meets);
            }
        };
        for row in 0..rows {
            for column in 0..columns {
                let c = row * columns + column;
                let (begin, end) = (cell_start(c), cell_end(c));
                if begin == end {
                    continue;
                }
                // The rest of this cell and the cell to the right, one slice; then the
                // three cells below, another.
                let right_end = if column + 1 < columns {
                    cell_end(c + 1)
                } else {
                    end
                };
                let below = if row + 1 < rows {
                    let first = c + columns - i64::from(column > 0);
                    let last = c + columns + i64::from(column + 1 < columns);
                    cell_start(first)..cell_end(last)
                } else {
                    0..0
                };
                for k in begin..end {
                    let a = &self.sorted[k];
                    scan(a, &self.sorted[k + 1..right_end], pairs);
                    scan(a, &self.sorted[below.clone()], pairs);
                }
            }
        }
        pairs.truncate(found);
        pairs_with_outsiders(boxes, &self.big, &self.is_big, pairs);
    }
}

/// Temporal coherence around any broad phase: each box is kept with an enlarged copy (its
/// fat box, grown on every side by [`MARGIN`](Self::MARGIN) times the mean box extent, or,
/// when a few huge boxes drive the mean, the median of at most 256 evenly spaced boxes:
/// one huge box must not fatten every other box until they all overlap, which made
/// 10,000 small boxes 50 million fat pairs),
/// and the inner broad phase runs on the fat boxes only when some box has left its fat
/// box. Every update filters the stored fat pairs with the exact test on this frame's
/// boxes. Box2D's dynamic tree keeps fat boxes for the same reason: boxes move a little
/// each frame, so the expensive search is needed only now and then.
///
/// Why it is exact: while every box lies inside its fat box (checked on the stored values,
/// every update), two boxes that intersect have fat boxes that intersect, because growing
/// both boxes only widens each inequality of [`Aabb2d::intersects`]; the inner broad phase
/// finds every such fat pair, and the filter keeps exactly the ones whose boxes intersect.
/// A box with a NaN coordinate never intersects anything, so it stays "inside" as long as
/// it keeps one; a change in the number of boxes rebuilds.
///
/// The cost comes in bursts: most updates are a containment check per box and one box
/// test per fat pair, and an update that rebuilds costs the inner phase on the larger fat
/// boxes as well. Boxes that jump further than the margin every frame make every update a
/// rebuild, slower than the inner phase alone.
#[derive(Debug, Clone, Default)]
pub struct FatBoxes<B: BroadPhase = UniformGrid> {
    inner: B,
    fat: Vec<Aabb2d>,
    fat_pairs: Vec<(u32, u32)>,
    rebuilds: u64,
    margin: f32,
    scratch: Vec<f32>,
}

impl<B: BroadPhase> FatBoxes<B> {
    /// Fat boxes grow by this fraction of the typical (mean, or median) finite box extent
    /// on every side.
    pub const MARGIN: f32 = 0.25;

    pub fn new(inner: B) -> FatBoxes<B> {
        FatBoxes {
            inner,
            fat: Vec::new(),
            fat_pairs: Vec::new(),
            rebuilds: 0,
            margin: 0.0,
            scratch: Vec::new(),
        }
    }

    /// How many updates so far ran the inner broad phase.
    pub fn rebuilds(&self) -> u64 {
        self.rebuilds
    }

    /// The margin of the last rebuild.
    pub fn margin(&self) -> f32 {
        self.margin
    }

    /// The inner broad phase (for its statistics, e.g. [`UniformGrid::cell_size`]).
    pub fn inner(&self) -> &B {
        &self.inner
    }

    /// How many pairs of fat boxes the last rebuild found: what every update filters.
    pub fn fat_pair_count(&self) -> usize {
        self.fat_pairs.len()
    }

    fn all_inside(&self, boxes: &[Aabb2d]) -> bool {
        self.fat.len() == boxes.len()
            && boxes.iter().zip(&self.fat).all(|(b, fat)| {
                // `&` rather than `&&`: no branch per coordinate.
                let inside = (b.min.x >= fat.min.x)
                    & (b.min.y >= fat.min.y)
                    & (b.max.x <= fat.max.x)
                    & (b.max.y <= fat.max.y);
                inside | (has_nan(b) & has_nan(fat))
            })
    }

    fn rebuild(&mut self, boxes: &[Aabb2d]) {
        let margin = typical_extent(boxes, &mut self.scratch).map_or(0.0, |(_, typical)| typical)
            * Self::MARGIN;
        // Subtracting or adding a non-negative margin never moves a bound inwards, so each
        // box starts inside its fat box whatever the rounding.
        let margin = if margin.is_finite() { margin } else { 0.0 };
        self.margin = margin;
        self.fat.clear();
        self.fat.extend(boxes.iter().map(|b| Aabb2d {
            min: b.min - margin,
            max: b.max + margin,
        }));
        self.inner.update(&self.fat, &mut self.fat_pairs);
        self.rebuilds += 1;
    }
}

impl<B: BroadPhase> BroadPhase for FatBoxes<B> {
    fn update(&mut self, boxes: &[Aabb2d], pairs: &mut Vec<(u32, u32)>) {
        index_count(boxes);
        if !self.all_inside(boxes) {
            self.rebuild(boxes);
        }
        // About half the fat pairs are real, at random.
        retain_pairs(&self.fat_pairs, pairs, |i, j| {
            let (a, b) = (&boxes[i as usize], &boxes[j as usize]);
            corners_meet((a.min, a.max), (b.min, b.max))
        });
    }
}
