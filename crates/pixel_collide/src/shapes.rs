//! The tutorials' hitboxes: axis-aligned boxes, circles, points, oriented boxes and sweeps.
//!
//! Boxes are [`Aabb2d`] and circles are [`BoundingCircle`] from `bevy_math`, so game code can
//! pass the same values it already uses for broad phases; [`Obb2d`] adds a rotated rectangle.
//!
//! # Conventions
//!
//! - **Edges**: every overlap test takes an [`EdgeRule`]. [`EdgeRule::Strict`] (`<`) says two
//!   shapes that only touch do not collide; [`EdgeRule::Inclusive`] (`<=`) says they do.
//! - **Minimum translation vectors** (`*_mtv`) move the **first** shape out of the second: add
//!   the vector to the first shape's position. They point away from the second shape, their
//!   length is the penetration depth (always `> 0`), and they are `None` unless the shapes
//!   overlap with positive depth (touching is not overlapping here, whatever the rule).
//! - **Sweeps** (`segment_aabb`, `sweep_*`) report a [`SweepHit`]: `toi` is the fraction of
//!   the motion in `[0, 1]` at first contact, `normal` is the unit outward normal of the static
//!   shape's surface at that contact, so it points against the motion (towards the mover).
//! - **Bad input**: a NaN or infinite coordinate, a size or radius that is zero or negative, an
//!   unnormalizable rotation, or a zero-length motion makes every test return `false` or
//!   `None`. Nothing here panics on input values.
//!
//! Coordinates are whatever the caller uses; "left"/"right" in the docs assume x grows right.
//!
//! `Aabb2d::new` and `BoundingCircle::new` `debug_assert!` non-negative sizes, and a NaN fails
//! that assertion; build shapes from untrusted numbers with struct literals
//! (`Aabb2d { min, max }`) and let the tests below reject them instead.

use bevy_math::Vec2;
use bevy_math::bounding::{Aabb2d, BoundingCircle, BoundingVolume, IntersectsVolume};

/// Whether shapes that only touch (share an edge, a corner or a tangent point) collide.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum EdgeRule {
    /// Compare with `<`: touching is not colliding. The default, because tiles and platforms
    /// laid edge to edge must not snag a box sliding across them.
    #[default]
    Strict,
    /// Compare with `<=`: touching is colliding (`bevy_math`'s `IntersectsVolume` behaves so).
    Inclusive,
}

impl EdgeRule {
    /// `a < b` under [`Strict`](Self::Strict), `a <= b` under [`Inclusive`](Self::Inclusive);
    /// `false` if either is NaN.
    #[inline]
    pub fn less(self, a: f32, b: f32) -> bool {
        match self {
            EdgeRule::Strict => a < b,
            EdgeRule::Inclusive => a <= b,
        }
    }

    /// Whether `value` lies between `min` and `max`, ends included only when inclusive.
    #[inline]
    fn between(self, min: f32, value: f32, max: f32) -> bool {
        self.less(min, value) && self.less(value, max)
    }
}

/// A rectangle of positive, finite size with finite corners.
#[inline]
pub fn aabb_is_valid(aabb: &Aabb2d) -> bool {
    aabb.min.is_finite()
        && aabb.max.is_finite()
        && aabb.min.x < aabb.max.x
        && aabb.min.y < aabb.max.y
}

/// A circle with a finite center and a finite radius `> 0`.
#[inline]
pub fn circle_is_valid(circle: &BoundingCircle) -> bool {
    let r = circle.radius();
    circle.center.is_finite() && r.is_finite() && r > 0.0
}

/// `v` scaled to length 1, or `None` if it is zero or not finite.
///
/// Dividing by the larger component first keeps the result unit length for tiny vectors,
/// whose squared length would otherwise underflow to a subnormal and lose its precision.
fn unit(v: Vec2) -> Option<Vec2> {
    let largest = v.abs().max_element();
    if !largest.is_finite() || largest <= 0.0 {
        return None;
    }
    (v / largest).try_normalize()
}

// ---------------------------------------------------------------------------------------------
// Points
// ---------------------------------------------------------------------------------------------

/// Whether `point` is inside `aabb`; on its boundary counts only under
/// [`EdgeRule::Inclusive`].
pub fn point_in_aabb(point: Vec2, aabb: &Aabb2d, rule: EdgeRule) -> bool {
    point.is_finite()
        && aabb_is_valid(aabb)
        && rule.between(aabb.min.x, point.x, aabb.max.x)
        && rule.between(aabb.min.y, point.y, aabb.max.y)
}

/// Whether `point` is inside `circle`; on its circumference counts only under
/// [`EdgeRule::Inclusive`].
pub fn point_in_circle(point: Vec2, circle: &BoundingCircle, rule: EdgeRule) -> bool {
    point.is_finite()
        && circle_is_valid(circle)
        && rule.less(
            point.distance_squared(circle.center),
            circle.radius() * circle.radius(),
        )
}

/// Whether `point` is inside the oriented rectangle; on its boundary counts only under
/// [`EdgeRule::Inclusive`].
pub fn point_in_obb(point: Vec2, obb: &Obb2d, rule: EdgeRule) -> bool {
    let Some([ax, ay]) = obb.frame() else {
        return false;
    };
    if !point.is_finite() {
        return false;
    }
    let d = point - obb.center;
    rule.less(d.dot(ax).abs(), obb.half_size.x) && rule.less(d.dot(ay).abs(), obb.half_size.y)
}

// ---------------------------------------------------------------------------------------------
// Boxes and circles
// ---------------------------------------------------------------------------------------------

/// Whether two axis-aligned boxes overlap. Boxes sharing only an edge or a corner collide
/// only under [`EdgeRule::Inclusive`].
pub fn aabb_aabb(a: &Aabb2d, b: &Aabb2d, rule: EdgeRule) -> bool {
    if !aabb_is_valid(a) || !aabb_is_valid(b) {
        return false;
    }
    match rule {
        EdgeRule::Inclusive => a.intersects(b),
        EdgeRule::Strict => {
            a.min.x < b.max.x && b.min.x < a.max.x && a.min.y < b.max.y && b.min.y < a.max.y
        }
    }
}

/// Whether two circles overlap: center distance `< r1 + r2` (strict) or `<=` (inclusive).
pub fn circle_circle(a: &BoundingCircle, b: &BoundingCircle, rule: EdgeRule) -> bool {
    if !circle_is_valid(a) || !circle_is_valid(b) {
        return false;
    }
    match rule {
        EdgeRule::Inclusive => a.intersects(b),
        EdgeRule::Strict => {
            let reach = a.radius() + b.radius();
            a.center.distance_squared(b.center) < reach * reach
        }
    }
}

/// Whether a circle and a box overlap, judged by the point of the box closest to the center.
pub fn circle_aabb(circle: &BoundingCircle, aabb: &Aabb2d, rule: EdgeRule) -> bool {
    circle_aabb_closest_point(circle, aabb, rule).is_some()
}

/// The point of `aabb` closest to the circle's center, if the circle and the box collide
/// (distance from the center `< r`, or `<= r` when inclusive).
///
/// When the center is inside the box the closest point is the center itself.
pub fn circle_aabb_closest_point(
    circle: &BoundingCircle,
    aabb: &Aabb2d,
    rule: EdgeRule,
) -> Option<Vec2> {
    if !circle_is_valid(circle) || !aabb_is_valid(aabb) {
        return None;
    }
    let closest = aabb.closest_point(circle.center);
    let r = circle.radius();
    rule.less(closest.distance_squared(circle.center), r * r)
        .then_some(closest)
}

// ---------------------------------------------------------------------------------------------
// Minimum translation vectors for boxes and circles
// ---------------------------------------------------------------------------------------------

/// The cheaper of the two ways out along one axis: `(sign, distance)` to move the interval
/// `[a_min, a_max]` clear of `[b_min, b_max]`. Ties go to `+`.
#[inline]
fn interval_push(a_min: f32, a_max: f32, b_min: f32, b_max: f32) -> (f32, f32) {
    let forward = b_max - a_min;
    let backward = a_max - b_min;
    if forward <= backward {
        (1.0, forward)
    } else {
        (-1.0, backward)
    }
}

/// The least-depth axis along which `a` leaves `b`: unit normal (from `b` towards `a`) and
/// depth, which is `<= 0` when they do not overlap. Ties go to x.
fn aabb_push(a: &Aabb2d, b: &Aabb2d) -> (Vec2, f32) {
    let (sx, dx) = interval_push(a.min.x, a.max.x, b.min.x, b.max.x);
    let (sy, dy) = interval_push(a.min.y, a.max.y, b.min.y, b.max.y);
    if dx <= dy {
        (Vec2::new(sx, 0.0), dx)
    } else {
        (Vec2::new(0.0, sy), dy)
    }
}

/// Grows `depth` by a few ulps until `edge ± depth` reaches `target`: the rounded sum can fall
/// one ulp short, which would leave the boxes overlapping by that ulp after the push.
fn settle(mut depth: f32, edge: f32, target: f32, sign: f32) -> f32 {
    for _ in 0..8 {
        let reached = if sign > 0.0 {
            edge + depth >= target
        } else {
            edge - depth <= target
        };
        if reached {
            break;
        }
        depth = depth.next_up();
    }
    depth
}

/// The smallest vector that moves `a` out of `b` (see the [module conventions](self)).
///
/// Only the x or y axis is considered; ties go to x, and to `+` when the centers coincide.
/// The result is exact: after `a.min += mtv; a.max += mtv` the strict test reports no overlap.
pub fn aabb_mtv(a: &Aabb2d, b: &Aabb2d) -> Option<Vec2> {
    if !aabb_aabb(a, b, EdgeRule::Strict) {
        return None;
    }
    let (normal, depth) = aabb_push(a, b);
    let depth = match (normal.x != 0.0, normal.x + normal.y > 0.0) {
        (true, true) => settle(depth, a.min.x, b.max.x, 1.0),
        (true, false) => settle(depth, a.max.x, b.min.x, -1.0),
        (false, true) => settle(depth, a.min.y, b.max.y, 1.0),
        (false, false) => settle(depth, a.max.y, b.min.y, -1.0),
    };
    let mtv = normal * depth;
    (mtv.is_finite() && depth > 0.0).then_some(mtv)
}

/// The smallest vector that moves circle `a` out of circle `b`, along the line of centers.
/// Concentric circles are pushed along `+y`.
pub fn circle_circle_mtv(a: &BoundingCircle, b: &BoundingCircle) -> Option<Vec2> {
    if !circle_circle(a, b, EdgeRule::Strict) {
        return None;
    }
    let offset = a.center - b.center;
    let distance = offset.length();
    let normal = unit(offset).unwrap_or(Vec2::Y);
    let mtv = normal * (a.radius() + b.radius() - distance);
    (mtv.is_finite() && mtv != Vec2::ZERO).then_some(mtv)
}

/// Unit push-out normal and depth of a circle against a box, whether or not they overlap.
fn circle_aabb_push(circle: &BoundingCircle, aabb: &Aabb2d) -> (Vec2, f32) {
    let closest = aabb.closest_point(circle.center);
    let offset = circle.center - closest;
    if offset != Vec2::ZERO {
        let distance = offset.length();
        (unit(offset).unwrap_or(Vec2::Y), circle.radius() - distance)
    } else {
        // The center is inside: leave through the nearest face, so the depth adds the radius.
        let center = Aabb2d {
            min: circle.center,
            max: circle.center,
        };
        let (normal, inner) = aabb_push(&center, aabb);
        (normal, circle.radius() + inner)
    }
}

/// The smallest vector that moves the circle out of the box. From outside the box it runs
/// from the closest point through the center; with the center inside, it leaves through the
/// nearest face (ties: x before y, `+` before `-`).
pub fn circle_aabb_mtv(circle: &BoundingCircle, aabb: &Aabb2d) -> Option<Vec2> {
    if !circle_aabb(circle, aabb, EdgeRule::Strict) {
        return None;
    }
    let (normal, depth) = circle_aabb_push(circle, aabb);
    let mtv = normal * depth;
    (mtv.is_finite() && depth > 0.0).then_some(mtv)
}

// ---------------------------------------------------------------------------------------------
// Oriented boxes
// ---------------------------------------------------------------------------------------------

/// An oriented rectangle: `half_size` along its own axes, turned by `rotation` about `center`.
///
/// `rotation` need not be exactly normalized (accumulated rounding is fine): every method
/// normalizes it first, so any non-zero `Rot2 { cos, sin }` works as a direction. A zero or non-finite rotation makes the box invalid.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Obb2d {
    /// Center of the rectangle, which it rotates about.
    pub center: Vec2,
    /// Half the width and height, measured along the rectangle's own axes.
    pub half_size: Vec2,
    /// Turn from the world axes to the rectangle's axes (counter-clockwise when y is up).
    pub rotation: bevy_math::Rot2,
}

impl Obb2d {
    /// A rectangle of `2 * half_size`, turned by `rotation` about `center`.
    pub fn new(center: Vec2, half_size: Vec2, rotation: bevy_math::Rot2) -> Self {
        Self {
            center,
            half_size,
            rotation,
        }
    }

    /// The same rectangle as `aabb`, unrotated.
    pub fn from_aabb(aabb: &Aabb2d) -> Self {
        Self::new(aabb.center(), aabb.half_size(), bevy_math::Rot2::IDENTITY)
    }

    /// Finite center, finite positive half sizes, normalizable rotation.
    pub fn is_valid(&self) -> bool {
        self.frame().is_some()
    }

    /// The unit axes if the box is valid.
    fn frame(&self) -> Option<[Vec2; 2]> {
        if !self.center.is_finite()
            || !self.half_size.is_finite()
            || self.half_size.x <= 0.0
            || self.half_size.y <= 0.0
        {
            return None;
        }
        // Not `Rot2::try_normalize`: it `debug_assert!`s its result, which a subnormal input
        // can fail.
        let x = unit(Vec2::new(self.rotation.cos, self.rotation.sin))?;
        Some([x, x.perp()])
    }

    /// The box's local x and y axes in world space, as unit vectors. NaN if the box is
    /// invalid.
    pub fn axes(&self) -> [Vec2; 2] {
        self.frame().unwrap_or([Vec2::NAN; 2])
    }

    /// The corners, counter-clockwise when y points up, starting at local `(-x, -y)`.
    /// NaN if the box is invalid.
    pub fn corners(&self) -> [Vec2; 4] {
        let [ax, ay] = self.axes();
        let x = ax * self.half_size.x;
        let y = ay * self.half_size.y;
        let c = self.center;
        [c - x - y, c + x - y, c + x + y, c - x + y]
    }

    /// The smallest axis-aligned box around this one. NaN if the box is invalid.
    ///
    /// Build it from the original `Obb2d` every frame rather than rotating the previous
    /// `Aabb2d`: an enclosing box of a rotated box only ever grows.
    pub fn aabb(&self) -> Aabb2d {
        let [ax, ay] = self.axes();
        let extent = ax.abs() * self.half_size.x + ay.abs() * self.half_size.y;
        Aabb2d {
            min: self.center - extent,
            max: self.center + extent,
        }
    }
}

/// What the separating axis theorem found for two convex shapes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Sat {
    /// `axis` (unit, pointing from the second shape towards the first) separates them:
    /// their projections on it are `gap >= 0` apart. The axis with the widest gap is reported,
    /// which is the most telling one to draw.
    Separated {
        /// The separating axis, unit length.
        axis: Vec2,
        /// How far apart the projections are, `>= 0`.
        gap: f32,
    },
    /// The projections overlap on every candidate axis. `mtv` moves the first shape out along
    /// the axis of least overlap, pointing away from the second; it is zero when they only
    /// touch under [`EdgeRule::Inclusive`].
    Overlapping {
        /// The minimum translation that separates them.
        mtv: Vec2,
    },
}

/// Separating axis test between two oriented boxes. `None` if either is invalid (or the
/// coordinates are so large that the projections overflow).
///
/// The candidate axes are the four edge normals; on each, the projections overlap when the
/// center distance is `<` (strict) or `<=` (inclusive) the sum of the projected half extents.
pub fn obb_obb_sat(a: &Obb2d, b: &Obb2d, rule: EdgeRule) -> Option<Sat> {
    let frame_a = a.frame()?;
    let frame_b = b.frame()?;
    let offset = a.center - b.center;

    let mut widest: Option<(Vec2, f32)> = None;
    let mut least: Option<(Vec2, f32)> = None;
    for axis in frame_a.into_iter().chain(frame_b) {
        let along = offset.dot(axis);
        // Orient the axis from b towards a, so both the gap axis and the MTV point away from b.
        let axis = if along < 0.0 { -axis } else { axis };
        let distance = along.abs();
        let reach =
            projected_half_extent(a, &frame_a, axis) + projected_half_extent(b, &frame_b, axis);
        if !distance.is_finite() || !reach.is_finite() {
            return None;
        }
        if rule.less(distance, reach) {
            let depth = reach - distance;
            if least.is_none_or(|(_, d)| depth < d) {
                least = Some((axis, depth));
            }
        } else {
            let gap = distance - reach;
            if widest.is_none_or(|(_, g)| gap > g) {
                widest = Some((axis, gap));
            }
        }
    }
    match (widest, least) {
        (Some((axis, gap)), _) => Some(Sat::Separated { axis, gap }),
        (None, Some((axis, depth))) => Some(Sat::Overlapping { mtv: axis * depth }),
        (None, None) => None,
    }
}

/// Half the length of the box's shadow on the unit `axis`.
#[inline]
fn projected_half_extent(obb: &Obb2d, frame: &[Vec2; 2], axis: Vec2) -> f32 {
    obb.half_size.x * frame[0].dot(axis).abs() + obb.half_size.y * frame[1].dot(axis).abs()
}

/// Separating axis test between an oriented box and an axis-aligned one.
pub fn obb_aabb_sat(a: &Obb2d, b: &Aabb2d, rule: EdgeRule) -> Option<Sat> {
    if !aabb_is_valid(b) {
        return None;
    }
    obb_obb_sat(a, &Obb2d::from_aabb(b), rule)
}

/// Whether two oriented boxes overlap (see [`obb_obb_sat`] for the edge rule).
pub fn obb_obb(a: &Obb2d, b: &Obb2d, rule: EdgeRule) -> bool {
    matches!(obb_obb_sat(a, b, rule), Some(Sat::Overlapping { .. }))
}

/// Whether an oriented box and an axis-aligned box overlap.
pub fn obb_aabb(a: &Obb2d, b: &Aabb2d, rule: EdgeRule) -> bool {
    matches!(obb_aabb_sat(a, b, rule), Some(Sat::Overlapping { .. }))
}

/// The smallest vector that moves oriented box `a` out of `b`, along one of the four edge
/// normals (for two convex polygons no other direction is shorter).
///
/// Rotated axes round, so after the push the boxes may still share a sliver a few ulps
/// thick; add a small skin if exact separation matters.
pub fn obb_obb_mtv(a: &Obb2d, b: &Obb2d) -> Option<Vec2> {
    match obb_obb_sat(a, b, EdgeRule::Strict)? {
        Sat::Overlapping { mtv } if mtv != Vec2::ZERO => Some(mtv),
        _ => None,
    }
}

/// The smallest vector that moves oriented box `a` out of axis-aligned box `b`.
pub fn obb_aabb_mtv(a: &Obb2d, b: &Aabb2d) -> Option<Vec2> {
    if !aabb_is_valid(b) {
        return None;
    }
    obb_obb_mtv(a, &Obb2d::from_aabb(b))
}

// ---------------------------------------------------------------------------------------------
// Sweeps
// ---------------------------------------------------------------------------------------------

/// First contact of a moving shape with a static one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SweepHit {
    /// Fraction of the motion, in `[0, 1]`, at which the shapes first touch. The mover's
    /// position at contact is `start + toi * delta`.
    pub toi: f32,
    /// Unit outward normal of the static shape where it is hit, so `normal · delta <= 0`.
    /// If the shapes already overlap at the start, `toi` is 0 and this is the direction that
    /// pushes the mover out by the shortest way (that of the MTV).
    pub normal: Vec2,
}

/// The parameter interval during which `start + t * delta` is inside a box, with the normal of
/// the face it enters through. `None` if the line misses it. Along an axis the motion does not
/// use, the edge rule decides whether sliding exactly along a face counts as inside.
fn slab_interval(start: Vec2, delta: Vec2, aabb: &Aabb2d, rule: EdgeRule) -> Option<Interval> {
    let mut enter = f32::NEG_INFINITY;
    let mut exit = f32::INFINITY;
    let mut normal = Vec2::ZERO;
    for (s, d, lo, hi, unit) in [
        (start.x, delta.x, aabb.min.x, aabb.max.x, Vec2::X),
        (start.y, delta.y, aabb.min.y, aabb.max.y, Vec2::Y),
    ] {
        if d == 0.0 {
            if !rule.between(lo, s, hi) {
                return None;
            }
            continue;
        }
        // Dividing (not multiplying by a reciprocal) keeps a tiny `d` from turning 0 into NaN.
        let (near, far, face) = if d > 0.0 {
            ((lo - s) / d, (hi - s) / d, -unit)
        } else {
            ((hi - s) / d, (lo - s) / d, unit)
        };
        // The first moving axis always sets the normal: with a tiny `d`, or coordinates
        // far apart, `near` is `-∞`, which is not above the starting `enter`, and a hit at
        // time 0 would keep a zero normal.
        if near > enter || normal == Vec2::ZERO {
            enter = enter.max(near);
            normal = face;
        }
        exit = exit.min(far);
    }
    Some(Interval {
        enter,
        exit,
        normal,
    })
}

/// The parameter interval during which `start + t * delta` is inside a circle; the normal is
/// filled in by the caller once the entry time is known.
fn circle_interval(start: Vec2, delta: Vec2, center: Vec2, radius: f32) -> Option<Interval> {
    let m = start - center;
    let a = delta.dot(delta);
    let half_b = m.dot(delta);
    let c = m.dot(m) - radius * radius;
    let discriminant = half_b * half_b - a * c;
    if discriminant.is_nan() || discriminant < 0.0 || a.is_nan() || a <= 0.0 {
        return None;
    }
    let root = discriminant.sqrt();
    Some(Interval {
        enter: (-half_b - root) / a,
        exit: (-half_b + root) / a,
        normal: Vec2::ZERO,
    })
}

#[derive(Debug, Clone, Copy)]
struct Interval {
    enter: f32,
    exit: f32,
    normal: Vec2,
}

impl Interval {
    /// Whether the time spent inside meets `[0, 1]`: with a positive length when strict (so a
    /// graze is a miss), possibly a single instant when inclusive.
    fn meets_step(&self, rule: EdgeRule) -> bool {
        rule.less(self.enter, self.exit) && rule.less(self.enter, 1.0) && rule.less(0.0, self.exit)
    }
}

/// The motion of a sweep, if it is usable: finite and not zero.
#[inline]
fn usable_motion(start: Vec2, delta: Vec2) -> bool {
    start.is_finite() && delta.is_finite() && delta != Vec2::ZERO && (start + delta).is_finite()
}

/// First point where the segment `start → end` meets `aabb`, so a bullet that crosses a thin
/// wall within one step is still caught. `toi` is the fraction of the way from `start` to
/// `end`; `normal` is the face entered. A start inside the box gives `toi = 0` and the normal
/// of the nearest face. Grazing along a face or through a corner hits only when inclusive.
/// A zero-length segment is `None`: use [`point_in_aabb`] for points.
///
/// `bevy_math`'s `RayCast2d` answers the inclusive question too (the tests check that they
/// agree), but it reports no normal and needs a unit direction and a length; this slab test
/// gives the normal and honours the edge rule.
pub fn segment_aabb(start: Vec2, end: Vec2, aabb: &Aabb2d, rule: EdgeRule) -> Option<SweepHit> {
    let delta = end - start;
    if !usable_motion(start, delta) || !end.is_finite() || !aabb_is_valid(aabb) {
        return None;
    }
    if point_in_aabb(start, aabb, rule) {
        let at = Aabb2d {
            min: start,
            max: start,
        };
        let (normal, _) = aabb_push(&at, aabb);
        return Some(SweepHit { toi: 0.0, normal });
    }
    let hit = slab_interval(start, delta, aabb, rule)?;
    hit.meets_step(rule).then(|| SweepHit {
        toi: hit.enter.clamp(0.0, 1.0),
        normal: hit.normal,
    })
}

/// Box cast: first contact of `moving`, translated by `delta` over the step, with the static
/// `target`. The moving box's center is cast against `target` grown by the moving box's half
/// size (their Minkowski sum), which is what `bevy_math`'s `AabbCast2d` does as well.
pub fn sweep_aabb_aabb(
    moving: &Aabb2d,
    delta: Vec2,
    target: &Aabb2d,
    rule: EdgeRule,
) -> Option<SweepHit> {
    if !aabb_is_valid(moving) || !aabb_is_valid(target) {
        return None;
    }
    let start = moving.center();
    if !usable_motion(start, delta) {
        return None;
    }
    if aabb_aabb(moving, target, rule) {
        let (normal, _) = aabb_push(moving, target);
        return Some(SweepHit { toi: 0.0, normal });
    }
    let half = moving.half_size();
    let grown = Aabb2d {
        min: target.min - half,
        max: target.max + half,
    };
    if !aabb_is_valid(&grown) {
        return None;
    }
    let hit = slab_interval(start, delta, &grown, rule)?;
    hit.meets_step(rule).then(|| SweepHit {
        toi: hit.enter.clamp(0.0, 1.0),
        normal: hit.normal,
    })
}

/// First contact of `circle`, translated by `delta`, with the static `target`.
///
/// The center is cast against the box rounded by the radius, taken as the union of the box
/// grown sideways, the box grown up and down, and a circle on each corner; the earliest entry
/// into any of them is the contact. At a corner the normal runs from the corner to the center.
pub fn sweep_circle_aabb(
    circle: &BoundingCircle,
    delta: Vec2,
    target: &Aabb2d,
    rule: EdgeRule,
) -> Option<SweepHit> {
    if !circle_is_valid(circle) || !aabb_is_valid(target) {
        return None;
    }
    let start = circle.center;
    if !usable_motion(start, delta) {
        return None;
    }
    if circle_aabb(circle, target, rule) {
        let (normal, _) = circle_aabb_push(circle, target);
        return Some(SweepHit { toi: 0.0, normal });
    }
    let r = circle.radius();
    let wide = Aabb2d {
        min: target.min - Vec2::new(r, 0.0),
        max: target.max + Vec2::new(r, 0.0),
    };
    let tall = Aabb2d {
        min: target.min - Vec2::new(0.0, r),
        max: target.max + Vec2::new(0.0, r),
    };
    if !aabb_is_valid(&wide) || !aabb_is_valid(&tall) {
        return None;
    }
    let corners = [
        target.min,
        Vec2::new(target.max.x, target.min.y),
        target.max,
        Vec2::new(target.min.x, target.max.y),
    ];

    let mut best: Option<SweepHit> = None;
    let mut consider = |interval: Interval, corner: Option<Vec2>| {
        if !interval.meets_step(rule) {
            return;
        }
        let toi = interval.enter.clamp(0.0, 1.0);
        let normal = match corner {
            Some(corner) => unit(start + delta * toi - corner).unwrap_or(Vec2::ZERO),
            None => interval.normal,
        };
        if normal != Vec2::ZERO && best.is_none_or(|b| toi < b.toi) {
            best = Some(SweepHit { toi, normal });
        }
    };
    // Corners first so they win ties: where a grown box's edge ends at a corner circle, the
    // corner's normal is the true one.
    for corner in corners {
        if let Some(interval) = circle_interval(start, delta, corner, r) {
            consider(interval, Some(corner));
        }
    }
    for side in [wide, tall] {
        if let Some(interval) = slab_interval(start, delta, &side, rule) {
            consider(interval, None);
        }
    }
    best
}
