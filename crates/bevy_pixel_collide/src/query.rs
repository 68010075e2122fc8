//! [`PixelCollisions`]: this pass's results and pixel-accurate queries, as one system
//! parameter.

use bevy::ecs::system::SystemParam;
use bevy::math::{Dir2, Vec2};
use bevy::prelude::*;

use super::collider::{PixelCollider, PixelColliderMask, PixelCollisionLayers};
use super::pipeline::{PixelCollisionState, PixelCollisionStats};
use pixel_collide::{Contact, transformed_intersects, transformed_overlap};

/// The first solid pixel a ray meets.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PixelRayHit {
    pub entity: Entity,
    /// World point where the ray enters the pixel.
    pub point: Vec2,
    /// Unit world normal of the pixel side entered (against the ray); zero when the ray
    /// starts inside a solid pixel.
    pub normal: Vec2,
    /// World distance from the ray's origin.
    pub distance: f32,
}

/// Which colliders touch, their contacts, and queries against every collider's pixels.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_pixel_collide::prelude::*;
///
/// fn report(collisions: PixelCollisions) {
///     for (a, b) in collisions.touching_pairs() {
///         if let Some(contact) = collisions.contact(a, b) {
///             info!("{a} touches {b} at {} (push {} by {})", contact.point, contact.normal, contact.depth);
///         }
///     }
///     let under_cursor = collisions.solid_at(Vec2::new(10.0, 20.0));
///     # let _ = under_cursor;
/// }
/// # bevy::ecs::system::assert_is_system(report);
/// ```
#[derive(SystemParam)]
pub struct PixelCollisions<'w, 's> {
    state: Res<'w, PixelCollisionState>,
    colliders: Query<
        'w,
        's,
        (
            Entity,
            &'static PixelColliderMask,
            Option<&'static PixelCollisionLayers>,
        ),
        (With<PixelCollider>, With<Sprite>),
    >,
}

impl PixelCollisions<'_, '_> {
    /// Pairs whose pixels touched at the last pass, `(a, b)` with `a < b`, sorted.
    pub fn touching_pairs(&self) -> impl ExactSizeIterator<Item = (Entity, Entity)> + '_ {
        self.state.touching.iter().copied()
    }

    /// Whether the two touched at the last pass (in either order).
    pub fn touching(&self, a: Entity, b: Entity) -> bool {
        let pair = if a < b { (a, b) } else { (b, a) };
        self.state.touching.binary_search(&pair).is_ok()
    }

    /// The contact of `a` against `b` as they are now: point, the normal along which `a`
    /// leaves `b`, depth, and the count of `a`'s pixels inside `b` (see
    /// [`transformed_overlap`]). Computed on the first request in a pass and kept for the
    /// rest of it, so a game pays only for the contacts it reads. `None` when they do
    /// not touch or one cannot collide.
    pub fn contact(&self, a: Entity, b: Entity) -> Option<Contact> {
        let mut cache = self
            .state
            .contacts
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(known) = cache.get(&(a, b)) {
            return *known;
        }
        let contact = self
            .placed_pair(a, b)
            .and_then(|((ma, ta), (mb, tb))| transformed_overlap(ma, ta, mb, tb));
        cache.insert((a, b), contact);
        contact
    }

    /// Each touching pair with its contact, `a` against `b`.
    pub fn contacts(&self) -> impl Iterator<Item = (Entity, Entity, Contact)> + '_ {
        self.touching_pairs()
            .filter_map(|(a, b)| Some((a, b, self.contact(a, b)?)))
    }

    /// Whether the pixels of two colliders touch as they are now, whatever their layers
    /// and the last pass said.
    pub fn intersects(&self, a: Entity, b: Entity) -> bool {
        let (lower, higher) = (a.min(b), a.max(b));
        lower != higher
            && self
                .placed_pair(lower, higher)
                .is_some_and(|((ma, ta), (mb, tb))| transformed_intersects(ma, ta, mb, tb))
    }

    /// The colliders with a solid pixel at a world point: pixel-accurate picking.
    pub fn solid_at(&self, point: Vec2) -> Vec<Entity> {
        if !point.is_finite() {
            return Vec::new();
        }
        self.colliders
            .iter()
            .filter(|(_, collider, _)| {
                collider
                    .aabb
                    .is_some_and(|b| point.cmpge(b.min).all() && point.cmple(b.max).all())
            })
            .filter(|(_, collider, _)| {
                collider.placed().is_some_and(|(mask, to_world)| {
                    let p = to_world.inverse().transform_point2(point);
                    p.is_finite() && p.x >= 0.0 && p.y >= 0.0 && mask.get(p.x as i64, p.y as i64)
                })
            })
            .map(|(entity, _, _)| entity)
            .collect()
    }

    /// The first solid pixel along a ray within `max_distance`, among colliders whose
    /// layers interact with `layers` ([`PixelCollisionLayers::ALL`] for every collider).
    pub fn cast_ray(
        &self,
        origin: Vec2,
        direction: Dir2,
        max_distance: f32,
        layers: PixelCollisionLayers,
    ) -> Option<PixelRayHit> {
        if !origin.is_finite() || max_distance.is_nan() || max_distance < 0.0 {
            return None;
        }
        let d = direction.as_vec2();
        let mut best: Option<PixelRayHit> = None;
        for (entity, collider, own_layers) in &self.colliders {
            if !layers.interacts_with(own_layers.copied().unwrap_or_default()) {
                continue;
            }
            let (Some(aabb), Some((mask, to_world))) = (collider.aabb, collider.placed()) else {
                continue;
            };
            let reach = best.map_or(max_distance, |b| b.distance);
            if !ray_meets_box(origin, d, reach, aabb) {
                continue;
            }
            // The ray parameter is the same in both spaces, since the map is affine.
            let to_mask = to_world.inverse();
            let Some(hit) = mask.ray_cast(
                to_mask.transform_point2(origin),
                to_mask.transform_vector2(d),
                reach,
            ) else {
                continue;
            };
            // A mask normal becomes a world normal through the inverse transpose.
            let normal = (to_mask.matrix2.transpose() * hit.normal).normalize_or_zero();
            best = Some(PixelRayHit {
                entity,
                point: origin + d * hit.t,
                normal,
                distance: hit.t,
            });
        }
        best
    }

    /// The last pass's counts and timings.
    pub fn stats(&self) -> PixelCollisionStats {
        self.state.stats
    }

    /// A collider's mask, transform and box as of the last pass.
    pub fn collider(&self, entity: Entity) -> Option<&PixelColliderMask> {
        self.colliders.get(entity).ok().map(|(_, c, _)| c)
    }

    fn placed_pair(
        &self,
        a: Entity,
        b: Entity,
    ) -> Option<(
        (&pixel_collide::BitMask, bevy::math::Affine2),
        (&pixel_collide::BitMask, bevy::math::Affine2),
    )> {
        let ((_, ca, _), (_, cb, _)) = (self.colliders.get(a).ok()?, self.colliders.get(b).ok()?);
        Some((ca.placed()?, cb.placed()?))
    }
}

/// Whether the segment `origin + d·t`, `t` in `0..=reach`, meets the box (slab test).
fn ray_meets_box(origin: Vec2, d: Vec2, reach: f32, aabb: bevy::math::bounding::Aabb2d) -> bool {
    let (mut t0, mut t1) = (0.0f32, reach);
    for axis in 0..2 {
        if d[axis] == 0.0 {
            if origin[axis] < aabb.min[axis] || origin[axis] > aabb.max[axis] {
                return false;
            }
            continue;
        }
        let (a, b) = (
            (aabb.min[axis] - origin[axis]) / d[axis],
            (aabb.max[axis] - origin[axis]) / d[axis],
        );
        t0 = t0.max(a.min(b));
        t1 = t1.min(a.max(b));
    }
    t0 <= t1
}
