//! Fat boxes kept between frames around any broad phase: the inner one runs only when
//! a box leaves its fat copy.

use super::*;

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

    /// Fat boxes around `inner`'s broad phase, none kept yet.
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
