//! Pixel masks as colliders in [avian2d](https://docs.rs/avian2d/0.7) (feature `avian`):
//! give a rigid body a [`MaskCollider`] and avian's solver makes it tumble, bounce, rest
//! and push others with pixel-accurate contacts.
//!
//! - The collider's box is the world box of the convex hull of the mask's set pixels (of
//!   their rectangle, for a [`MaskCollider::fixed`] one).
//! - Contacts come from [`transformed_contact_or_gaps`]: touching masks get the
//!   [`transformed_overlap`] contact's normal (the way out) and the
//!   [`transformed_manifold`] points: the overlap's two ends along the surface, each with
//!   its own depth, so a body lies still on another rather than rocking on one point (or
//!   the overlap's middle alone, when it is under two pixels long); an overlap in parts
//!   (a clover's leaves on a flower's petals) gets a manifold a part, each with its own
//!   normal, as a polygon's convex pieces do. Masks that are apart but within the
//!   distance avian predicts they may close in a step get speculative contacts from their
//!   [`transformed_gaps`], so fast bodies stop at surfaces rather than in or past them:
//!   for each side its nearest point, and in a manifold of their own its two ends (a body
//!   landing tilted turns onto the far one). Touching masks get those ends too, beside
//!   the overlap ([`transformed_gaps_beside`]), for a body that lands on a corner. Like avian's own shapes, only pairs of the same collider type meet: masks
//!   collide with masks.
//! - A pair's contact is kept with where the two masks were, and carried along by their
//!   motion (each point moved with both masks, its depth by how far one moved into the
//!   other) while no pixel of one has moved more than [`MaskContacts::tolerance`] (1/2 px
//!   by default) relative to the other; then it is found again. A resting pile asks the
//!   same question of each pair every step, and the answer takes several walks over its
//!   pixels: carried, it costs a few multiplications.
//! - Mass, center of mass and angular inertia are summed over the mask's pixels (each a
//!   unit square), so a hollow or lopsided sprite spins as it should.
//!
//! The mask is placed as a sprite with a centered anchor: its center at the body's
//! position, turned by its rotation, scaled by its `Transform`'s scale.
//!
//! avian 0.7 runs one collider type per app: each type's `ColliderTreePlugin` adds its own
//! copy of the trees' update systems, and its physics schedule refuses two of them at the
//! first step ("systems with conflicting data access"). With avian2d's default features
//! (its parry `Collider` built in), disable that collider's `ColliderBackendPlugin`,
//! `ColliderTreePlugin` and `NarrowPhasePlugin` in `PhysicsPlugins` for the masks to take
//! its place; without `parry-f32`, as below, there is nothing to disable.
//!
//! ```no_run
//! use std::sync::Arc;
//! use avian2d::prelude::*;
//! use bevy::prelude::*;
//! use bevy_pixel_collide::avian::{MaskCollider, MaskColliderPlugin};
//! use pixel_collide::BitMask;
//!
//! App::new()
//!     .add_plugins((DefaultPlugins, PhysicsPlugins::default(), MaskColliderPlugin))
//!     .add_systems(Startup, |mut commands: Commands| {
//!         let crate_mask = Arc::new(BitMask::solid(32, 32).unwrap());
//!         commands.spawn((RigidBody::Dynamic, MaskCollider::new(crate_mask)));
//!     })
//!     .run();
//! ```

mod pieces;
mod predicted;
mod reuse;

use std::sync::Arc;

use avian2d::math::{Scalar, Vector};
use avian2d::prelude::*;
use bevy::ecs::system::lifetimeless::SRes;
use bevy::prelude::*;

pub use pieces::{PixelPieceSettled, SettlePieces, SettlingPiece};
pub use predicted::record_motions;
use reuse::Placed;
pub use reuse::{DEFAULT_PREDICTION_THRESHOLD, DEFAULT_TOLERANCE, MaskContacts, forget_unasked};

use pixel_collide::{BitMask, sprite_to_world_rotated, world_bounds_of_corners};
#[cfg(doc)]
use pixel_collide::{
    transformed_contact_or_gaps, transformed_gaps, transformed_gaps_beside, transformed_manifold,
    transformed_overlap,
};

/// What `PhysicsPlugins` adds for avian's own collider, for [`MaskCollider`]: the collider
/// backend, the tree of collider boxes its broad phase reads, and the narrow phase, in
/// avian's default schedule; and the [`MaskContacts`] kept between steps. With the
/// collision plugin, destructible sprites that are rigid bodies keep their collider equal
/// to their edited mask, their pieces fall as bodies, and [`SettlePieces`] lays pieces at
/// rest back in. Add it beside `PhysicsPlugins`.
pub struct MaskColliderPlugin;

impl Plugin for MaskColliderPlugin {
    fn build(&self, app: &mut App) {
        app.add_plugins((
            ColliderBackendPlugin::<MaskCollider>::default(),
            avian2d::collider_tree::ColliderTreePlugin::<MaskCollider>::default(),
            NarrowPhasePlugin::<MaskCollider>::default(),
        ))
        .add_message::<crate::destructible::PixelPieceDetached>()
        .add_plugins(pieces::plugin)
        .init_resource::<MaskContacts>()
        .add_systems(
            PhysicsSchedule,
            (
                record_motions.in_set(NarrowPhaseSystems::First),
                forget_unasked.in_set(NarrowPhaseSystems::Last),
            ),
        );
    }
}

/// A collider shaped by a pixel mask.
#[derive(Component, Debug, Clone)]
pub struct MaskCollider {
    mask: Arc<BitMask>,
    /// The body's `Transform` scale, as avian last set it.
    scale: Vector,
    /// Pixel count, centroid (mask coordinates, pixel centers) and the sum of squared
    /// distances of pixel centers from it, measured once.
    moments: Moments,
    /// The corners whose turned box is the collider's (none for an empty mask): the set
    /// pixels' convex hull, as a round sprite's rectangle, turned, boxes up to twice its
    /// area, and every pair of boxes that overlap costs the narrow phase a search; their
    /// rectangle's for a static collider (it does not turn, and an edited terrain's hull
    /// would cost each edit).
    outline: Arc<[[u32; 2]]>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct Moments {
    count: f64,
    centroid: (f64, f64),
    spread: f64,
}

impl Moments {
    /// No pixels counted: no mass, the centroid at the mask's center.
    fn none(mask: &BitMask) -> Self {
        let (w, h) = mask.size();
        Moments {
            count: 0.0,
            centroid: (f64::from(w) / 2.0, f64::from(h) / 2.0),
            spread: 0.0,
        }
    }
}

impl MaskCollider {
    /// A collider of `mask`'s set pixels for a moving body (see [`MaskCollider::fixed`] for ground).
    pub fn new(mask: Arc<BitMask>) -> Self {
        let moments = moments(&mask);
        MaskCollider {
            outline: mask.convex_hull().into(),
            mask,
            scale: Vector::ONE,
            moments,
        }
    }

    /// A collider for a static body, which no force moves: its mass properties are not
    /// measured (they would cost a pass over every pixel, each time a terrain's mask is
    /// edited) and are zero.
    pub fn fixed(mask: Arc<BitMask>) -> Self {
        let moments = Moments::none(&mask);
        let outline: Arc<[[u32; 2]]> = match mask.bounding_rect() {
            Some(r) => {
                let (x1, y1) = (r.x + r.width, r.y + r.height);
                Arc::new([[r.x, r.y], [x1, r.y], [r.x, y1], [x1, y1]])
            }
            None => Arc::new([]),
        };
        MaskCollider {
            mask,
            scale: Vector::ONE,
            moments,
            outline,
        }
    }

    /// The pixels it collides with.
    pub fn mask(&self) -> &Arc<BitMask> {
        &self.mask
    }

    /// Mask space to world space at a body's position and rotation, from the rotation's
    /// cosine and sine as avian keeps them ([`sprite_to_world_rotated`]): every box needs
    /// one of these and every pair the narrow phase asks about two, and going through the
    /// angle costs an arctangent, a sine and a cosine each time.
    pub fn to_world(&self, position: Vector, rotation: Rotation) -> bevy::math::Affine2 {
        sprite_to_world_rotated(
            position,
            Vec2::new(rotation.cos, rotation.sin),
            self.scale,
            self.mask.size(),
        )
    }

    /// The centroid in the body's local space (y up, scaled).
    fn local_centroid(&self) -> Vec2 {
        let (w, h) = self.mask.size();
        let (cx, cy) = self.moments.centroid;
        Vec2::new(
            (cx - f64::from(w) / 2.0) as f32,
            (f64::from(h) / 2.0 - cy) as f32,
        ) * self.scale
    }
}

/// Count, centroid and spread of the set pixels' centers, row by row.
fn moments(mask: &BitMask) -> Moments {
    let (w, h) = mask.size();
    let (mut count, mut sx, mut sy, mut sxx, mut syy) = (0.0f64, 0.0, 0.0, 0.0, 0.0);
    for y in 0..h {
        let cy = f64::from(y) + 0.5;
        for x in 0..w {
            if mask.get(i64::from(x), i64::from(y)) {
                let cx = f64::from(x) + 0.5;
                count += 1.0;
                sx += cx;
                sy += cy;
                sxx += cx * cx;
                syy += cy * cy;
            }
        }
    }
    if count == 0.0 {
        return Moments::none(mask);
    }
    let centroid = (sx / count, sy / count);
    // Σ|p - c|² = Σ|p|² - n|c|².
    let spread = (sxx + syy - count * (centroid.0 * centroid.0 + centroid.1 * centroid.1)).max(0.0);
    Moments {
        count,
        centroid,
        spread,
    }
}

impl ComputeMassProperties2d for MaskCollider {
    fn mass(&self, density: f32) -> f32 {
        density * (self.moments.count as f32) * (self.scale.x * self.scale.y).abs()
    }

    fn unit_angular_inertia(&self) -> f32 {
        let m = &self.moments;
        if m.count == 0.0 {
            return 0.0;
        }
        // Per unit mass: the pixel centers' mean squared distance from the centroid, plus
        // each unit square's own (1² + 1²) / 12; non-uniform scale stretches both axes.
        let (sx, sy) = (f64::from(self.scale.x), f64::from(self.scale.y));
        let mean = m.spread / m.count;
        // Split the spread evenly between the axes only when the scale is uniform; for a
        // non-uniform one the mask's own axis spreads are needed.
        let per_axis = if (sx.abs() - sy.abs()).abs() < 1e-6 {
            mean * sx * sx
        } else {
            let (xx, yy) = axis_spreads(&self.mask, m);
            (xx * sx * sx + yy * sy * sy) / m.count
        };
        let own = (sx * sx + sy * sy) / 12.0;
        (per_axis + own) as f32
    }

    fn center_of_mass(&self) -> Vec2 {
        self.local_centroid()
    }
}

/// The spreads along x and along y of the pixel centers about the centroid.
fn axis_spreads(mask: &BitMask, m: &Moments) -> (f64, f64) {
    let (w, h) = mask.size();
    let (mut xx, mut yy) = (0.0, 0.0);
    for y in 0..h {
        for x in 0..w {
            if mask.get(i64::from(x), i64::from(y)) {
                let dx = f64::from(x) + 0.5 - m.centroid.0;
                let dy = f64::from(y) + 0.5 - m.centroid.1;
                xx += dx * dx;
                yy += dy * dy;
            }
        }
    }
    (xx, yy)
}

impl ScalableCollider for MaskCollider {
    fn scale(&self) -> Vector {
        self.scale
    }

    fn set_scale(&mut self, scale: Vector, _detail: u32) {
        if scale.is_finite() && scale.x != 0.0 && scale.y != 0.0 {
            self.scale = scale;
        }
    }
}

impl AnyCollider for MaskCollider {
    type Context = SRes<MaskContacts>;

    fn aabb_with_context(
        &self,
        position: Vector,
        rotation: impl Into<Rotation>,
        _: AabbContext<Self::Context>,
    ) -> ColliderAabb {
        let to_world = self.to_world(position, rotation.into());
        let bounds = if self.outline.is_empty() {
            // Nothing set: a point, which meets nothing.
            let at = to_world.translation;
            bevy::math::bounding::Aabb2d { min: at, max: at }
        } else {
            world_bounds_of_corners(&self.outline, to_world)
        };
        ColliderAabb {
            min: bounds.min,
            max: bounds.max,
        }
    }

    fn contact_manifolds_with_context(
        &self,
        other: &Self,
        position1: Vector,
        rotation1: impl Into<Rotation>,
        position2: Vector,
        rotation2: impl Into<Rotation>,
        prediction_distance: Scalar,
        manifolds: &mut Vec<ContactManifold>,
        context: ContactManifoldContext<Self::Context>,
    ) {
        let (rotation1, rotation2): (Rotation, Rotation) = (rotation1.into(), rotation2.into());
        let a = Placed::new(self, context.entity1, position1, rotation1);
        let b = Placed::new(other, context.entity2, position2, rotation2);
        let step_ends = predicted::step_ends(&context, &a, &b);
        let (a_to_world, b_to_world) = (a.to_world, b.to_world);
        reuse::contact_manifolds(
            &context,
            a,
            b,
            prediction_distance,
            step_ends.is_some(),
            manifolds,
            |reach, points, gaps| {
                // Apart, but near enough to meet within the step, the gaps become
                // speculative contacts (a negative depth), so the solver stops a fast body
                // at the surface instead of finding it inside, or past a thin wall, a step
                // later. One per side: a ball dropping into a V given only the nearest
                // slope's sinks into the other.
                let contact = reuse::contact_or_sides(
                    &self.mask,
                    a_to_world,
                    &other.mask,
                    b_to_world,
                    reach,
                    points,
                    gaps,
                );
                let searched = gaps.len();
                // Touching, a pair is held by its overlap and, beside it, by its sides'
                // ends and bulges: tested at the step's end too, the slowest steps'
                // narrow phase took about a tenth longer, and piles sank no less.
                if let Some(ends) = step_ends
                    && contact.is_none()
                {
                    predicted::add_gaps(
                        &self.mask,
                        a_to_world,
                        &other.mask,
                        b_to_world,
                        ends,
                        gaps,
                    );
                }
                (contact, searched)
            },
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pixel_collide::sprite_to_world;

    /// Built from the rotation's cosine and sine, the placement is the one the angle
    /// gives: turned, scaled, flipped and centered alike.
    #[test]
    fn the_placement_from_a_rotation_is_the_sprites_at_its_angle() {
        let mask = Arc::new(BitMask::solid(30, 12).unwrap());
        for scale in [Vec2::ONE, Vec2::new(2.0, 0.5), Vec2::new(-1.0, 3.0)] {
            let mut collider = MaskCollider::new(mask.clone());
            collider.set_scale(scale, 0);
            for angle in [0.0, 0.3, -2.0, std::f32::consts::PI, 5.5] {
                let position = Vec2::new(-40.0, 250.0);
                let ours = collider.to_world(position, Rotation::radians(angle));
                let theirs = sprite_to_world(position, angle, scale, mask.size());
                for corner in [Vec2::ZERO, Vec2::new(30.0, 0.0), Vec2::new(7.5, 12.0)] {
                    let (a, b) = (
                        ours.transform_point2(corner),
                        theirs.transform_point2(corner),
                    );
                    assert!(
                        a.distance(b) < 1e-4,
                        "scale {scale}, angle {angle}, corner {corner}: {a} against {b}"
                    );
                }
            }
        }
    }
}
