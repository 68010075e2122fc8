//! A dense uniform grid over the boxes' bounds, one cell per box by its center.

use super::*;

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

    /// An empty grid; its cell size is chosen from the boxes at each update.
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

    /// Notes each box's cell (in `cells`, and a count per cell in `starts`, turned into
    /// running totals), or, for a box too large for a cell, inverted, infinite or off
    /// the grid, puts it with the boxes tested against every box. Returns how many boxes
    /// the grid holds.
    fn place_in_cells(
        &mut self,
        boxes: &[Aabb2d],
        n: u32,
        (lo, inv, limit): (Vec2, f32, f32),
        (columns, rows): (u32, u32),
    ) -> u32 {
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
        total
    }

    /// Counting-sorts the grid's boxes by cell into `sorted`.
    fn sort_by_cell(&mut self, boxes: &[Aabb2d], n: u32, total: u32) {
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

        let total = self.place_in_cells(boxes, n, (lo, inv, limit), (columns, rows));
        self.sort_by_cell(boxes, n, total);
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
