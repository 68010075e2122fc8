//! [`PixelCollisions`]: this pass's results and pixel-accurate queries, as one system
//! parameter.

use bevy::ecs::entity::EntityHashSet;
use bevy::ecs::system::SystemParam;
use bevy::math::bounding::{Aabb2d, IntersectsVolume};
use bevy::math::{Affine2, Dir2, Vec2};
use bevy::prelude::*;

use super::collider::{PixelCollider, PixelColliderMask, PixelCollisionLayers, solid_at};
use super::pipeline::{PixelCollisionState, PixelCollisionStats};
use pixel_collide::{
    BitMask, Contact, MaskMotion, convex_polygon_touches, nearest_solid_pixel,
    transformed_intersects, transformed_overlap, transformed_time_of_impact, world_bounds,
};

/// Which colliders a query considers: those in any of the `layers` (by their
/// [`PixelCollisionLayers::memberships`]), less the `excluded` entities (the caster
/// itself, its owner), as avian's `SpatialQueryFilter`. A collider without
/// [`PixelCollisionLayers`] is in every layer; one in [`PixelCollisionLayers::NONE`] in
/// none, so only [`PixelCollisions::solid_at`] finds it. A collider that should be found
/// but never paired has memberships and no filters: `PixelCollisionLayers::new(1 << 5, 0)`.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_pixel_collide::prelude::*;
///
/// # let (player, bullet) = (Entity::PLACEHOLDER, Entity::PLACEHOLDER);
/// const WALLS: u32 = 0b10;
/// let walls_only = PixelQueryFilter::from_layers(WALLS).excluding([player, bullet]);
/// # let _ = walls_only;
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PixelQueryFilter {
    /// Layers whose members are considered (`u32::MAX`: every collider in a layer).
    pub layers: u32,
    /// Colliders never considered.
    pub excluded: EntityHashSet,
}

impl Default for PixelQueryFilter {
    /// Every collider.
    fn default() -> Self {
        PixelQueryFilter {
            layers: u32::MAX,
            excluded: EntityHashSet::default(),
        }
    }
}

impl PixelQueryFilter {
    /// Colliders in any of `layers`.
    pub fn from_layers(layers: u32) -> Self {
        PixelQueryFilter {
            layers,
            ..default()
        }
    }

    /// The same filter, never considering `entities`.
    pub fn excluding(mut self, entities: impl IntoIterator<Item = Entity>) -> Self {
        self.excluded.extend(entities);
        self
    }

    /// Whether a collider with these layers (the default when it has none) is considered.
    pub fn accepts(&self, entity: Entity, layers: Option<&PixelCollisionLayers>) -> bool {
        let memberships = layers.copied().unwrap_or_default().memberships;
        !self.excluded.contains(&entity) && self.layers & memberships != 0
    }
}

/// The solid pixel nearest a point (see [`PixelCollisions::project_point`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PixelPointProjection {
    /// The collider it belongs to.
    pub entity: Entity,
    /// Its nearest world point (the query point itself when inside it).
    pub point: Vec2,
    /// World distance to it, zero inside.
    pub distance: f32,
    /// Unit world vector from it towards the query point: the outward normal there (zero
    /// inside).
    pub normal: Vec2,
    /// Whether the query point is inside a solid pixel.
    pub inside: bool,
}

/// A shape to ask which colliders' solid pixels it covers
/// ([`PixelCollisions::shape_intersections`]), in world space.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PixelQueryShape<'a> {
    /// A mask where `to_world` places it: it covers a collider when the center of one of
    /// its set pixels lies in a solid pixel (the overlap's definition, the mask as A).
    Mask {
        /// The shape's pixels.
        mask: &'a BitMask,
        /// Its mask-to-world transform, as [`pixel_collide::sprite_to_world`] makes them.
        to_world: Affine2,
    },
    /// A disc: it covers a pixel it reaches any part of.
    Circle {
        /// World center.
        center: Vec2,
        /// World radius.
        radius: f32,
    },
    /// A box turned by `rotation` radians about its center (0: axis-aligned): it covers a
    /// pixel it overlaps or touches.
    Box {
        /// World center.
        center: Vec2,
        /// Half its width and height, before turning.
        half_size: Vec2,
        /// Counter-clockwise turn, in radians.
        rotation: f32,
    },
}

impl PixelQueryShape<'_> {
    /// A world box holding the shape; `None` when an input is not finite or negative.
    fn bounds(&self) -> Option<Aabb2d> {
        let bounds = match *self {
            PixelQueryShape::Mask { mask, to_world } => {
                mask.bounding_rect()?;
                world_bounds(mask.size(), to_world)
            }
            PixelQueryShape::Circle { center, radius } => {
                (radius >= 0.0).then_some(())?;
                Aabb2d::new(center, Vec2::splat(radius))
            }
            PixelQueryShape::Box {
                center,
                half_size,
                rotation,
            } => {
                (half_size.cmpge(Vec2::ZERO).all() && rotation.is_finite()).then_some(())?;
                let turn = Vec2::from_angle(rotation);
                let reach = turn
                    .rotate(half_size)
                    .abs()
                    .max(turn.rotate(half_size * Vec2::new(1.0, -1.0)).abs());
                Aabb2d::new(center, reach)
            }
        };
        (bounds.min.is_finite() && bounds.max.is_finite()).then_some(bounds)
    }

    /// A circle's or a box's world pixels as a mask, one pixel a world px on the world's
    /// grid: the pixels whose centers it covers (the one under its center when it covers
    /// none). `None` for a mask shape, input that is not finite, or a shape over 4,096 px
    /// across.
    fn pixels(&self) -> Option<(BitMask, Affine2)> {
        const MOST_ACROSS: f32 = 4096.0;
        let bounds = self.bounds()?;
        let (center, covers): (Vec2, Box<dyn Fn(Vec2) -> bool>) = match *self {
            PixelQueryShape::Mask { .. } => return None,
            PixelQueryShape::Circle { center, radius } => (
                center,
                Box::new(move |p: Vec2| p.distance_squared(center) <= radius * radius),
            ),
            PixelQueryShape::Box {
                center,
                half_size,
                rotation,
            } => {
                let unturn = Vec2::from_angle(-rotation);
                (
                    center,
                    Box::new(move |p: Vec2| {
                        let local = unturn.rotate(p - center);
                        local.abs().cmple(half_size).all()
                    }),
                )
            }
        };
        let size = bounds.max - bounds.min;
        if !(size.x <= MOST_ACROSS && size.y <= MOST_ACROSS) {
            return None;
        }
        let (x0, y0) = (bounds.min.x.floor(), bounds.min.y.floor());
        let (x1, y1) = (
            bounds.max.x.ceil().max(x0 + 1.0),
            bounds.max.y.ceil().max(y0 + 1.0),
        );
        let (w, h) = ((x1 - x0) as u32, (y1 - y0) as u32);
        let mut mask = BitMask::try_new(w, h).ok()?;
        // Mask rows run down from the box's top: pixel (i, j) is the world pixel whose
        // lower left corner is (x0 + i, y1 - j - 1).
        let to_world = Affine2::from_cols(Vec2::X, Vec2::NEG_Y, Vec2::new(x0, y1));
        for j in 0..h {
            for i in 0..w {
                let at = to_world.transform_point2(Vec2::new(i as f32 + 0.5, j as f32 + 0.5));
                if covers(at) {
                    mask.set(i.into(), j.into(), true);
                }
            }
        }
        if mask.count() == 0 {
            let at = to_world.inverse().transform_point2(center);
            mask.set(at.x as i64, at.y as i64, true);
        }
        Some((mask, to_world))
    }

    fn touches(&self, target: &BitMask, to_world: Affine2) -> bool {
        match *self {
            PixelQueryShape::Mask {
                mask,
                to_world: shape_to_world,
            } => transformed_intersects(mask, shape_to_world, target, to_world),
            PixelQueryShape::Circle { center, radius } => {
                nearest_solid_pixel(target, to_world, center, radius).is_some()
            }
            PixelQueryShape::Box {
                center,
                half_size,
                rotation,
            } => {
                let turn = Vec2::from_angle(rotation);
                let corners = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
                    .map(|(u, v)| center + turn.rotate(half_size * Vec2::new(u, v)));
                convex_polygon_touches(target, to_world, &corners)
            }
        }
    }
}

/// Where a moving mask first touches a collider (see [`PixelCollisions::cast_mask`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PixelCastHit {
    /// The collider touched.
    pub entity: Entity,
    /// The fraction of the motion, in `0..=1`, at which it touches: placed by
    /// [`MaskMotion::pose_at`] there, the mask meets the collider's edge.
    pub fraction: f32,
    /// World point where they meet.
    pub point: Vec2,
    /// The collider's outward unit normal there, in world space (zero when the mask
    /// started inside it and no normal was found).
    pub normal: Vec2,
    /// The moving mask's pixel that touched, as `[column, row]`.
    pub pixel: [u32; 2],
    /// Whether the mask overlapped the collider at the start of the motion.
    pub started_inside: bool,
}

/// The first solid pixel a ray meets.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PixelRayHit {
    /// The collider hit.
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

    /// Every collider with a solid pixel at a world point, whatever its layers (those in
    /// [`PixelCollisionLayers::NONE`] too), in entity order: pixel-accurate picking.
    pub fn solid_at(&self, point: Vec2) -> Vec<Entity> {
        let mut found = Vec::new();
        self.points_at(
            point,
            |_, _| true,
            |entity| {
                found.push(entity);
                true
            },
        );
        found.sort();
        found
    }

    /// The first solid pixel along a ray within `max_distance`, among the colliders
    /// `filter` accepts. Ties go to the lower entity.
    pub fn cast_ray(
        &self,
        origin: Vec2,
        direction: Dir2,
        max_distance: f32,
        filter: &PixelQueryFilter,
    ) -> Option<PixelRayHit> {
        self.cast_ray_predicate(origin, direction, max_distance, filter, &|_| true)
    }

    /// [`PixelCollisions::cast_ray`] among the colliders `filter` accepts for which
    /// `predicate` is also true (asked only of colliders the ray reaches), as avian's
    /// `SpatialQuery::cast_ray_predicate`: a bullet that passes through its own team.
    pub fn cast_ray_predicate(
        &self,
        origin: Vec2,
        direction: Dir2,
        max_distance: f32,
        filter: &PixelQueryFilter,
        predicate: &dyn Fn(Entity) -> bool,
    ) -> Option<PixelRayHit> {
        let mut first: Option<PixelRayHit> = None;
        self.ray_hits_within(origin, direction, max_distance, filter, |hit, reach| {
            let earlier = first.is_none_or(|f| (hit.distance, hit.entity) < (f.distance, f.entity));
            if earlier && predicate(hit.entity) {
                first = Some(hit);
                *reach = hit.distance;
            }
            true
        });
        first
    }

    /// Every collider `filter` accepts that the ray meets within `max_distance`, each at
    /// its first solid pixel, nearest first (ties by entity), at most `max_hits`.
    pub fn ray_hits(
        &self,
        origin: Vec2,
        direction: Dir2,
        max_distance: f32,
        max_hits: usize,
        filter: &PixelQueryFilter,
    ) -> Vec<PixelRayHit> {
        let mut hits = Vec::new();
        self.ray_hits_callback(origin, direction, max_distance, filter, |hit| {
            hits.push(hit);
            true
        });
        hits.sort_by(|a, b| {
            (a.distance, a.entity)
                .partial_cmp(&(b.distance, b.entity))
                .unwrap()
        });
        hits.truncate(max_hits);
        hits
    }

    /// Each collider `filter` accepts that the ray meets within `max_distance`, at its
    /// first solid pixel, handed to `callback` as found (in no particular order) until
    /// it returns `false`. Allocates nothing.
    pub fn ray_hits_callback(
        &self,
        origin: Vec2,
        direction: Dir2,
        max_distance: f32,
        filter: &PixelQueryFilter,
        mut callback: impl FnMut(PixelRayHit) -> bool,
    ) {
        self.ray_hits_within(origin, direction, max_distance, filter, |hit, _| {
            callback(hit)
        });
    }

    /// Each accepted collider's first hit within the reach, which `found` may shorten.
    fn ray_hits_within(
        &self,
        origin: Vec2,
        direction: Dir2,
        max_distance: f32,
        filter: &PixelQueryFilter,
        mut found: impl FnMut(PixelRayHit, &mut f32) -> bool,
    ) {
        if !origin.is_finite() || max_distance.is_nan() || max_distance < 0.0 {
            return;
        }
        let d = direction.as_vec2();
        let mut reach = max_distance;
        for (entity, aabb, mask, to_world) in self.placed(filter) {
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
            let hit = PixelRayHit {
                entity,
                point: origin + d * hit.t,
                normal,
                distance: hit.t,
            };
            if !found(hit, &mut reach) {
                return;
            }
        }
    }

    /// The colliders `filter` accepts with a solid pixel at a world point, in entity
    /// order: what a click picks.
    pub fn point_intersections(&self, point: Vec2, filter: &PixelQueryFilter) -> Vec<Entity> {
        let mut found = Vec::new();
        self.point_intersections_callback(point, filter, |entity| {
            found.push(entity);
            true
        });
        found.sort();
        found
    }

    /// Each collider `filter` accepts with a solid pixel at a world point, handed to
    /// `callback` as found (in no particular order) until it returns `false`. Allocates
    /// nothing.
    pub fn point_intersections_callback(
        &self,
        point: Vec2,
        filter: &PixelQueryFilter,
        callback: impl FnMut(Entity) -> bool,
    ) {
        self.points_at(
            point,
            |entity, layers| filter.accepts(entity, layers),
            callback,
        );
    }

    fn points_at(
        &self,
        point: Vec2,
        accepts: impl Fn(Entity, Option<&PixelCollisionLayers>) -> bool,
        mut callback: impl FnMut(Entity) -> bool,
    ) {
        if !point.is_finite() {
            return;
        }
        for (entity, aabb, mask, to_world) in self.placed_where(accepts) {
            if point.cmplt(aabb.min).any() || point.cmpgt(aabb.max).any() {
                continue;
            }
            if solid_at(mask, to_world, point) && !callback(entity) {
                return;
            }
        }
    }

    /// The solid pixel nearest a world point among the colliders `filter` accepts, within
    /// `max_distance`: its collider, the nearest point, the distance and the outward
    /// normal (see [`pixel_collide::nearest_solid_pixel`]). Ties go to the lower entity.
    pub fn project_point(
        &self,
        point: Vec2,
        max_distance: f32,
        filter: &PixelQueryFilter,
    ) -> Option<PixelPointProjection> {
        self.project_point_predicate(point, max_distance, filter, &|_| true)
    }

    /// [`PixelCollisions::project_point`] among the colliders `filter` accepts for which
    /// `predicate` is also true, as avian's `SpatialQuery::project_point_predicate`.
    pub fn project_point_predicate(
        &self,
        point: Vec2,
        max_distance: f32,
        filter: &PixelQueryFilter,
        predicate: &dyn Fn(Entity) -> bool,
    ) -> Option<PixelPointProjection> {
        if !point.is_finite() || max_distance.is_nan() || max_distance < 0.0 {
            return None;
        }
        let mut nearest: Option<PixelPointProjection> = None;
        let accepted =
            self.placed_where(|entity, layers| filter.accepts(entity, layers) && predicate(entity));
        for (entity, aabb, mask, to_world) in accepted {
            let reach = nearest.map_or(max_distance, |n| n.distance);
            if aabb.closest_point(point).distance(point) > reach {
                continue;
            }
            let Some(found) = nearest_solid_pixel(mask, to_world, point, reach) else {
                continue;
            };
            let nearer = nearest.is_none_or(|n| (found.distance, entity) < (n.distance, n.entity));
            if nearer {
                nearest = Some(PixelPointProjection {
                    entity,
                    point: found.point,
                    distance: found.distance,
                    normal: found.normal,
                    inside: found.inside,
                });
            }
        }
        nearest
    }

    /// The colliders `filter` accepts whose solid pixels `shape` covers, in entity order:
    /// what an explosion hits, what a sword's swing cuts, whether a character fits.
    pub fn shape_intersections(
        &self,
        shape: &PixelQueryShape,
        filter: &PixelQueryFilter,
    ) -> Vec<Entity> {
        let mut found = Vec::new();
        self.shape_intersections_callback(shape, filter, |entity| {
            found.push(entity);
            true
        });
        found.sort();
        found
    }

    /// Each collider `filter` accepts whose solid pixels `shape` covers, handed to
    /// `callback` as found (in no particular order) until it returns `false`. Allocates
    /// nothing.
    pub fn shape_intersections_callback(
        &self,
        shape: &PixelQueryShape,
        filter: &PixelQueryFilter,
        mut callback: impl FnMut(Entity) -> bool,
    ) {
        let Some(bounds) = shape.bounds() else {
            return;
        };
        for (entity, aabb, mask, to_world) in self.placed(filter) {
            if !aabb.intersects(&bounds) {
                continue;
            }
            if shape.touches(mask, to_world) && !callback(entity) {
                return;
            }
        }
    }

    /// Where `mask`, placed by `mask_to_world` and moved by `motion`, first touches a
    /// collider's solid pixels, among those `filter` accepts: a bullet, a dash or a thrown
    /// ball that no speed carries through a wall. Exact for straight motions at any speed
    /// (see [`pixel_collide::transformed_time_of_impact`], which this runs against each
    /// collider whose box the motion sweeps). The colliders are where the last pass put
    /// them. A collider the mask overlaps at the start is hit at fraction 0. Ties go to
    /// the lower entity. `None` when nothing is touched or an input is not finite.
    ///
    /// ```
    /// use bevy::prelude::*;
    /// use bevy_pixel_collide::prelude::*;
    ///
    /// /// Moves each bullet by its velocity; one that meets a wall on the way stops there.
    /// fn fly(
    ///     mut bullets: Query<(Entity, &mut Transform, &Velocity)>,
    ///     collisions: PixelCollisions,
    ///     time: Res<Time>,
    ///     mut commands: Commands,
    /// ) {
    ///     for (bullet, mut transform, velocity) in &mut bullets {
    ///         let motion = MaskMotion::translation(velocity.0 * time.delta_secs());
    ///         let hit = collisions.cast_collider(bullet, motion, &PixelQueryFilter::default());
    ///         let fraction = hit.map_or(1.0, |hit| hit.fraction);
    ///         transform.translation += (motion.translation * fraction).extend(0.0);
    ///         if hit.is_some() {
    ///             commands.entity(bullet).remove::<Velocity>();
    ///         }
    ///     }
    /// }
    /// # #[derive(Component)]
    /// # struct Velocity(Vec2);
    /// # bevy::ecs::system::assert_is_system(fly);
    /// ```
    pub fn cast_mask(
        &self,
        mask: &BitMask,
        mask_to_world: Affine2,
        motion: MaskMotion,
        filter: &PixelQueryFilter,
    ) -> Option<PixelCastHit> {
        self.cast_mask_predicate(mask, mask_to_world, motion, filter, &|_| true)
    }

    /// [`PixelCollisions::cast_mask`] against the colliders `filter` accepts for which
    /// `predicate` is also true, as avian's `SpatialQuery::cast_shape_predicate`.
    pub fn cast_mask_predicate(
        &self,
        mask: &BitMask,
        mask_to_world: Affine2,
        motion: MaskMotion,
        filter: &PixelQueryFilter,
        predicate: &dyn Fn(Entity) -> bool,
    ) -> Option<PixelCastHit> {
        let mut first: Option<PixelCastHit> = None;
        let accepts =
            |entity, layers: Option<&_>| filter.accepts(entity, layers) && predicate(entity);
        self.casts_within(mask, mask_to_world, motion, accepts, |hit, reach| {
            let earlier = first.is_none_or(|f| {
                hit.fraction < f.fraction || (hit.fraction == f.fraction && hit.entity < f.entity)
            });
            if earlier {
                first = Some(hit);
                *reach = hit.fraction;
            }
            true
        });
        first
    }

    /// Every collider `filter` accepts that `mask`, moved from `mask_to_world` by
    /// `motion`, touches, each where it first does, earliest first (ties by entity), at
    /// most `max_hits`: what a piercing shot passes through, as avian's
    /// `SpatialQuery::shape_hits`.
    pub fn cast_mask_hits(
        &self,
        mask: &BitMask,
        mask_to_world: Affine2,
        motion: MaskMotion,
        max_hits: usize,
        filter: &PixelQueryFilter,
    ) -> Vec<PixelCastHit> {
        let mut hits = Vec::new();
        self.cast_mask_hits_callback(mask, mask_to_world, motion, filter, |hit| {
            hits.push(hit);
            true
        });
        hits.sort_by(|a, b| {
            a.fraction
                .total_cmp(&b.fraction)
                .then(a.entity.cmp(&b.entity))
        });
        hits.truncate(max_hits);
        hits
    }

    /// Each collider `filter` accepts that the moving `mask` touches, where it first does,
    /// handed to `callback` as found (in no particular order) until it returns `false`.
    /// Allocates nothing.
    pub fn cast_mask_hits_callback(
        &self,
        mask: &BitMask,
        mask_to_world: Affine2,
        motion: MaskMotion,
        filter: &PixelQueryFilter,
        mut callback: impl FnMut(PixelCastHit) -> bool,
    ) {
        let accepts = |entity, layers: Option<&_>| filter.accepts(entity, layers);
        self.casts_within(mask, mask_to_world, motion, accepts, |hit, _| callback(hit));
    }

    /// Each collider `accepts` takes that `mask`, moved by `motion`, touches, where it
    /// first does, handed to `found` until it returns `false`. Each is cast only as far as
    /// the reach (a fraction of the motion) `found` may shorten: the pose is linear in the
    /// fraction, so the motion cut short is the same path's beginning.
    fn casts_within(
        &self,
        mask: &BitMask,
        mask_to_world: Affine2,
        motion: MaskMotion,
        accepts: impl Fn(Entity, Option<&PixelCollisionLayers>) -> bool,
        mut found: impl FnMut(PixelCastHit, &mut f32) -> bool,
    ) {
        let Some(swept) = swept_bounds(mask, mask_to_world, &motion) else {
            return;
        };
        let mut reach = 1.0f32;
        for (entity, aabb, target, to_world) in self.placed_where(accepts) {
            if !aabb.intersects(&swept) {
                continue;
            }
            let shortened = MaskMotion {
                translation: motion.translation * reach,
                rotation: motion.rotation * reach,
                ..motion
            };
            let Some(hit) =
                transformed_time_of_impact(mask, mask_to_world, shortened, target, to_world)
            else {
                continue;
            };
            let hit = PixelCastHit {
                entity,
                fraction: hit.fraction * reach,
                point: hit.point,
                normal: hit.normal,
                pixel: hit.pixel,
                started_inside: hit.started_inside,
            };
            if !found(hit, &mut reach) {
                return;
            }
        }
    }

    /// [`PixelCollisions::cast_mask_hits`] of a query shape, as
    /// [`PixelCollisions::cast_shape`] casts one: every collider it touches, earliest first.
    pub fn cast_shape_hits(
        &self,
        shape: &PixelQueryShape,
        motion: MaskMotion,
        max_hits: usize,
        filter: &PixelQueryFilter,
    ) -> Vec<PixelCastHit> {
        match *shape {
            PixelQueryShape::Mask { mask, to_world } => {
                self.cast_mask_hits(mask, to_world, motion, max_hits, filter)
            }
            _ => shape.pixels().map_or_else(Vec::new, |(mask, to_world)| {
                self.cast_mask_hits(&mask, to_world, motion, max_hits, filter)
            }),
        }
    }

    /// [`PixelCollisions::cast_mask`] of a query shape: a mask as it is; a circle or a
    /// box as the mask of the world pixels whose centers it covers (one mask pixel a
    /// world px, on the world's pixel grid), so a ball or a hitbox casts as the pixels it
    /// would collide with. `None` also for a shape that is not finite, or over
    /// 4,096 px across.
    pub fn cast_shape(
        &self,
        shape: &PixelQueryShape,
        motion: MaskMotion,
        filter: &PixelQueryFilter,
    ) -> Option<PixelCastHit> {
        self.cast_shape_predicate(shape, motion, filter, &|_| true)
    }

    /// [`PixelCollisions::cast_shape`] against the colliders `filter` accepts for which
    /// `predicate` is also true, as avian's `SpatialQuery::cast_shape_predicate`.
    pub fn cast_shape_predicate(
        &self,
        shape: &PixelQueryShape,
        motion: MaskMotion,
        filter: &PixelQueryFilter,
        predicate: &dyn Fn(Entity) -> bool,
    ) -> Option<PixelCastHit> {
        match *shape {
            PixelQueryShape::Mask { mask, to_world } => {
                self.cast_mask_predicate(mask, to_world, motion, filter, predicate)
            }
            _ => {
                let (mask, to_world) = shape.pixels()?;
                self.cast_mask_predicate(&mask, to_world, motion, filter, predicate)
            }
        }
    }

    /// [`PixelCollisions::cast_mask`] of a collider's own mask from where the last pass
    /// placed it, never hitting the collider itself. `None` also when `entity` has no
    /// placed mask.
    pub fn cast_collider(
        &self,
        entity: Entity,
        motion: MaskMotion,
        filter: &PixelQueryFilter,
    ) -> Option<PixelCastHit> {
        let (_, collider, _) = self.colliders.get(entity).ok()?;
        let (mask, to_world) = collider.placed()?;
        if filter.excluded.contains(&entity) {
            return self.cast_mask(mask, to_world, motion, filter);
        }
        let filter = PixelQueryFilter {
            excluded: filter.excluded.iter().copied().chain([entity]).collect(),
            layers: filter.layers,
        };
        self.cast_mask(mask, to_world, motion, &filter)
    }

    /// Each collider `filter` accepts that the last pass placed: its entity, world box,
    /// mask and mask-to-world transform.
    fn placed<'a>(
        &'a self,
        filter: &'a PixelQueryFilter,
    ) -> impl Iterator<Item = (Entity, Aabb2d, &'a BitMask, Affine2)> + 'a {
        self.placed_where(move |entity, layers| filter.accepts(entity, layers))
    }

    /// [`Self::placed`], for the colliders `accepts` takes.
    fn placed_where<'a>(
        &'a self,
        accepts: impl Fn(Entity, Option<&PixelCollisionLayers>) -> bool + 'a,
    ) -> impl Iterator<Item = (Entity, Aabb2d, &'a BitMask, Affine2)> + 'a {
        self.colliders
            .iter()
            .filter(move |(entity, _, layers)| accepts(*entity, *layers))
            .filter_map(|(entity, collider, _)| {
                let (mask, to_world) = collider.placed()?;
                Some((entity, collider.aabb?, mask, to_world))
            })
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

/// A box holding every place `mask` passes through over `motion`: its boxes at the start
/// and the end, and while turning, the circle its farthest corner sweeps about the pivot
/// along the way. `None` for an empty mask or input that is not finite.
fn swept_bounds(mask: &BitMask, mask_to_world: Affine2, motion: &MaskMotion) -> Option<Aabb2d> {
    if !(mask_to_world.is_finite()
        && motion.translation.is_finite()
        && motion.rotation.is_finite()
        && motion.pivot.is_finite())
    {
        return None;
    }
    let rect = mask.bounding_rect()?;
    let start = world_bounds(mask.size(), mask_to_world);
    let end_pose = motion.pose_at(mask_to_world, 1.0);
    let end = world_bounds(mask.size(), end_pose);
    let mut swept = Aabb2d {
        min: start.min.min(end.min),
        max: start.max.max(end.max),
    };
    if motion.rotation != 0.0 {
        let (x0, y0) = (rect.x as f32, rect.y as f32);
        let (x1, y1) = (x0 + rect.width as f32, y0 + rect.height as f32);
        let radius = [(x0, y0), (x1, y0), (x0, y1), (x1, y1)]
            .map(|(x, y)| {
                mask_to_world
                    .transform_point2(Vec2::new(x, y))
                    .distance(motion.pivot)
            })
            .into_iter()
            .fold(0.0, f32::max);
        let path_end = motion.pivot + motion.translation;
        swept.min = swept.min.min(motion.pivot.min(path_end) - radius);
        swept.max = swept.max.max(motion.pivot.max(path_end) + radius);
    }
    (swept.min.is_finite() && swept.max.is_finite()).then_some(swept)
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
