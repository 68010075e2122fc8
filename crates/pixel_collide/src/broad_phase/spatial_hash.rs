//! A spatial hash: each box in the cells it covers, cells in a hash map.

use super::*;

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

    /// Lists every cell each box covers (its bucket assigned later, once the table size
    /// is known), or, for a box too large or too far to hash, puts it with the boxes
    /// tested against every box.
    fn list_cells(&mut self, boxes: &[Aabb2d], n: u32, inv: f32, limit: f32) {
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
    }

    /// Counting-sorts the listed cells into `table` by bucket: bucket `b` is then
    /// `starts[b - 1]..starts[b]` (from 0 for the first). Returns the number of buckets.
    fn sort_into_buckets(&mut self) -> usize {
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
        buckets
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
        self.list_cells(boxes, n, inv, limit);

        let buckets = self.sort_into_buckets();

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
