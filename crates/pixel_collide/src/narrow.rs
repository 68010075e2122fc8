//! One narrow phase for every pipeline that tests the same placed masks pass after pass
//! (the Bevy plugin's, a crowd's): the world box and its rounding slack, which collider of
//! a pair is A, the per-pixel test with its hints and separating axes and their slack, and
//! the answers kept from one pass to the next. Each pipeline keeps its own broad phase,
//! threads and bookkeeping; what decides a verdict is here, once.
//!
//! ```
//! use bevy_math::Vec2;
//! use pixel_collide::narrow::{NarrowCollider, Witnesses, a_first, test_pair};
//! use pixel_collide::pair::{PairSide, SpriteInfo};
//! use pixel_collide::{BitMask, sprite_to_world};
//!
//! let disc = {
//!     let mut m = BitMask::new(20, 20);
//!     m.fill_circle(10.0, 10.0, 10.0);
//!     m
//! };
//! let info = SpriteInfo::new(&disc);
//! let collider = |at: Vec2| {
//!     let to_world = sprite_to_world(at, 0.0, Vec2::ONE, disc.size());
//!     NarrowCollider {
//!         side: PairSide {
//!             mask: &disc,
//!             to_world,
//!             to_mask: to_world.inverse(),
//!             circle: (at, info.radius()),
//!         },
//!         center: at,
//!         shape: Some((&info, 1.0)),
//!     }
//! };
//! let (left, right) = (collider(Vec2::ZERO), collider(Vec2::new(15.0, 0.0)));
//! let mut witnesses = Witnesses::<u32>::default();
//! // Pass after pass: A by place, last pass's answer as the hint, this pass's kept.
//! for _ in 0..2 {
//!     assert!(a_first(&left, &right, true));
//!     let hit = test_pair(&left, &right, witnesses.hint(0, 0, 1));
//!     assert!(hit.is_some());
//!     witnesses.start_pass(2);
//!     witnesses.record(0, 0, 1, hit);
//! }
//! ```

use bevy_math::bounding::Aabb2d;
use bevy_math::{Affine2, Vec2};

use crate::pair::{
    MISSED_PIXEL, PairHit, PairSide, SIMILARITY_SLACK, SpriteInfo, first_hit_with_hints,
    rounding_slack, separated_similar, tested_first,
};

/// One collider as a pass sees it.
#[derive(Debug, Clone, Copy)]
pub struct NarrowCollider<'m> {
    /// Its mask, transforms and world bounding circle.
    pub side: PairSide<'m>,
    /// Its mask's center (the middle of its image) in the world: which of a pair is A.
    pub center: Vec2,
    /// Its shape tables and scale when its transform is a similarity (rotation, uniform
    /// scale, flips; see [`similarity_scale`](crate::pair::similarity_scale)): then the
    /// separating axes may prove a miss before any pixel is probed.
    pub shape: Option<(&'m SpriteInfo, f32)>,
}

/// Whether `a` is tested as A against `b` ([`tested_first`]: the one further left);
/// `a_on_tie` at the same place.
#[inline]
pub fn a_first(a: &NarrowCollider<'_>, b: &NarrowCollider<'_>, a_on_tie: bool) -> bool {
    tested_first(a.center, b.center).unwrap_or(a_on_tie)
}

/// A pixel of A that lands on B, or `None`: [`first_hit_with_hints`] with `hint` (last
/// pass's answer for the pair, from [`Witnesses::hint`]) and, for two similarities, the
/// separating axes with the slack of f32 rounding and of transforms only similar to within
/// [`SIMILARITY_SLACK`].
#[inline]
pub fn test_pair(
    a: &NarrowCollider<'_>,
    b: &NarrowCollider<'_>,
    hint: Option<[u32; 2]>,
) -> PairHit {
    first_hit_with_hints(a.side, b.side, hint, || proven_apart(a, b))
}

/// Whether the separating axes prove that no pixel of `a` can touch `b`: for two
/// similarities only ([`separated_similar`]), with the slack of f32 rounding and of
/// transforms only similar to within [`SIMILARITY_SLACK`]. `false` proves nothing.
#[inline]
pub fn proven_apart(a: &NarrowCollider<'_>, b: &NarrowCollider<'_>) -> bool {
    let (Some((shape_a, scale_a)), Some((shape_b, scale_b))) = (a.shape, b.shape) else {
        return false;
    };
    let slack = rounding_slack(a.side.circle, b.side.circle)
        + SIMILARITY_SLACK * (shape_a.radius() * scale_a + shape_b.radius() * scale_b);
    separated_similar(
        (shape_a, a.side.to_world.matrix2, a.center),
        (shape_b, b.side.to_world.matrix2, b.center),
        slack,
    )
}

/// The world box of a mask's box (`center` and `half` its size, mask space) placed by
/// `to_world`, widened by the rounding of f32 coordinates so that no pair the per-pixel
/// test would find is dropped by the box test; `None` for a transform that is not finite.
#[inline]
pub fn world_box(center: Vec2, half: Vec2, to_world: Affine2) -> Option<Aabb2d> {
    let center = to_world.transform_point2(center);
    let reach = to_world.matrix2.abs() * half;
    let slack = BOX_SLACK * (center.abs().max_element() + reach.max_element()) + BOX_SLACK_MIN;
    let aabb = Aabb2d {
        min: center - reach - slack,
        max: center + reach + slack,
    };
    (aabb.min.is_finite() && aabb.max.is_finite()).then_some(aabb)
}

/// [`world_box`]'s slack relative to the coordinates: the per-pixel test rounds each
/// sample's world point and its mapping into B to f32, a few units in the last place of
/// the coordinates involved.
const BOX_SLACK: f32 = 1e-5;
/// And at least this, near the origin.
const BOX_SLACK_MIN: f32 = 1e-4;

/// Answers kept per collider (as A) from one pass to the next.
const WITNESS_SLOTS: usize = 2;

/// Last pass's answers, per collider index as A: each partner (by an id the pipeline
/// keeps stable, an entity or an index) and the pixel of A that landed on it, or
/// [`MISSED_PIXEL`]. Sprites move a pixel or two a pass, so last pass's hit usually lands
/// again; a collider whose index now holds another id gets no hint.
#[derive(Debug, Clone)]
pub struct Witnesses<Id> {
    slots: Vec<Slots<Id>>,
}

#[derive(Debug, Clone, Copy)]
struct Slots<Id> {
    owner: Option<Id>,
    partners: [Option<(Id, [u32; 2])>; WITNESS_SLOTS],
}

impl<Id> Default for Witnesses<Id> {
    fn default() -> Self {
        Witnesses { slots: Vec::new() }
    }
}

impl<Id: Copy + PartialEq> Witnesses<Id> {
    /// Last pass's answer for A at `a` (whose id is `a_id`) against `b_id`.
    pub fn hint(&self, a: usize, a_id: Id, b_id: Id) -> Option<[u32; 2]> {
        let slots = self.slots.get(a).filter(|s| s.owner == Some(a_id))?;
        slots
            .partners
            .iter()
            .flatten()
            .find(|(partner, _)| *partner == b_id)
            .map(|&(_, pixel)| pixel)
    }

    /// Forgets last pass's answers, for `colliders` of this one: after the pass's tests
    /// have read them.
    pub fn start_pass(&mut self, colliders: usize) {
        let empty = Slots {
            owner: None,
            partners: [None; WITNESS_SLOTS],
        };
        self.slots.clear();
        self.slots.resize(colliders, empty);
    }

    /// Keeps this pass's answer for A at `a` against `b_id`: in the first free slot, or
    /// over the last. Out of range (more colliders than [`Witnesses::start_pass`] said),
    /// nothing is kept.
    pub fn record(&mut self, a: usize, a_id: Id, b_id: Id, hit: PairHit) {
        let Some(slots) = self.slots.get_mut(a) else {
            return;
        };
        slots.owner = Some(a_id);
        let free = slots.partners.iter().position(Option::is_none);
        slots.partners[free.unwrap_or(WITNESS_SLOTS - 1)] =
            Some((b_id, hit.unwrap_or(MISSED_PIXEL)));
    }
}
