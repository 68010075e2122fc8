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
//! [`DefaultBroadPhase`] is the fastest of them on thousands of moving sprites (the
//! measurements are in the workspace's `benches/README.md`).
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

mod fat_boxes;
mod spatial_hash;
mod sweep_and_prune;
mod uniform_grid;

pub use fat_boxes::FatBoxes;
pub use spatial_hash::SpatialHash;
pub use sweep_and_prune::SweepAndPrune;
pub use uniform_grid::UniformGrid;

/// The broad phase to use unless you know better: [`FatBoxes`] around a [`UniformGrid`],
/// the fastest at every size measured on frames of rotating sprites (the workspace's
/// `benches/README.md`, "Crowd").
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
/// made the mean 200,000, and every cell or margin sized by it covered every box.
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
pub fn retain_pairs(
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
