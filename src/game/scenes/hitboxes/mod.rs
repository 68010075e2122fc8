//! Scene "Hitboxes": the tutorials' shape tests, live. Two boxes, two circles, an oriented
//! rectangle and the mouse cursor are tested pair by pair with the core's
//! [`shapes`](crate::collision::shapes) functions; the overlay window switches the edge rule,
//! the push-apart resolution, the swept bullet test and the "rotated box as its AABB"
//! shortcut. A clover runs at high speed and stays inside the window, whatever its size.
//!
//! Everything the player decides or sees is decided here as pure functions
//! ([`evaluate`], [`resolve`], [`step_bullet`], [`clamp_to_borders`]) over plain resources,
//! so the tests call them directly; the systems only feed them input and time.

use std::time::Instant;

use bevy::math::bounding::{Aabb2d, BoundingCircle, BoundingVolume};
use bevy::math::primitives::Circle;
use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};

use super::input::Controls;
use super::play_area::PlayArea;
use super::scene::Scene;
use super::{AppSystems, CollisionStats, StatusLine};
use crate::collision::shapes::{
    EdgeRule, Obb2d, Sat, aabb_aabb, aabb_is_valid, aabb_mtv, circle_aabb_closest_point,
    circle_aabb_mtv, circle_circle, circle_circle_mtv, circle_is_valid, obb_aabb_mtv, obb_aabb_sat,
    obb_obb_mtv, obb_obb_sat, point_in_aabb, point_in_circle, point_in_obb, sweep_circle_aabb,
};
use crate::plugin::{PixelDebugGizmos, PixelDebugSettings};

/// Pixels per second at full stick for the active shape.
pub const SHAPE_SPEED: f32 = 260.0;
/// Radians per second at full button for the oriented rectangle.
pub const TURN_SPEED: f32 = 1.5;
/// Top speed of the clover, pixels per second: fast enough to hit a border in a blink.
pub const RUNNER_SPEED: f32 = 1500.0;
/// How quickly the clover reaches its top speed, pixels per second squared.
pub const RUNNER_ACCEL: f32 = 9000.0;
/// Half the clover's drawn size (the sprite is 32×32).
pub const RUNNER_HALF_SIZE: Vec2 = Vec2::splat(16.0);

/// The bullet's speed, pixels per second.
pub const BULLET_SPEED: f32 = 1200.0;
pub const BULLET_RADIUS: f32 = 4.0;
/// The bullet moves in fixed steps of this many seconds, whatever the frame rate, so the
/// lesson is the same on every machine: each step jumps `BULLET_SPEED * BULLET_STEP` = 20 px,
/// more than the wall plus the bullet are thick (14 px).
pub const BULLET_STEP: f32 = 1.0 / 60.0;
/// Seconds between automatic shots.
pub const FIRE_PERIOD: f32 = 1.5;
/// Where every shot starts: left of the window, in a lane clear of the overlay windows.
pub const BULLET_START: Vec2 = Vec2::new(-620.0, -110.0);
/// The thin wall across the bullet's lane. Its centre (x = 190) lies halfway between two of
/// the bullet's discrete positions (180 and 200), so without the sweep it always tunnels.
pub const WALL: Aabb2d = Aabb2d {
    min: Vec2::new(187.0, -170.0),
    max: Vec2::new(193.0, -50.0),
};
/// Steps a single frame may run, so a long stall does not freeze the game catching up.
const MAX_BULLET_STEPS_PER_FRAME: u32 = 8;

/// Passes of pairwise pushes per frame; each pass pushes every overlapping pair once.
const RESOLVE_PASSES: u32 = 8;
/// Extra distance added to every push: rotated axes and halved vectors round, and a push of
/// exactly the depth can leave a sliver a few ulps thick that still overlaps strictly.
const RESOLVE_SKIN: f32 = 0.01;

/// One of the scene's shapes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ShapeId {
    Box1,
    Box2,
    Circle1,
    Circle2,
    /// The rotatable rectangle.
    Oriented,
    /// The mouse cursor, a point.
    Cursor,
}

impl ShapeId {
    pub const ALL: [ShapeId; 6] = [
        ShapeId::Box1,
        ShapeId::Box2,
        ShapeId::Circle1,
        ShapeId::Circle2,
        ShapeId::Oriented,
        ShapeId::Cursor,
    ];
    /// The shapes the player moves (the cursor moves with the mouse).
    pub const MOVABLE: [ShapeId; 5] = [
        ShapeId::Box1,
        ShapeId::Box2,
        ShapeId::Circle1,
        ShapeId::Circle2,
        ShapeId::Oriented,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ShapeId::Box1 => "Box1",
            ShapeId::Box2 => "Box2",
            ShapeId::Circle1 => "Circle1",
            ShapeId::Circle2 => "Circle2",
            ShapeId::Oriented => "OBB",
            ShapeId::Cursor => "Mouse",
        }
    }

    /// The next movable shape, wrapping around: what Space selects.
    pub fn next_movable(self) -> ShapeId {
        let i = ShapeId::MOVABLE
            .iter()
            .position(|&s| s == self)
            .map_or(0, |i| i + 1);
        ShapeId::MOVABLE[i % ShapeId::MOVABLE.len()]
    }
}

/// A shape's geometry, as the core's tests take it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Geometry {
    Aabb(Aabb2d),
    Circle(BoundingCircle),
    Obb(Obb2d),
    Point(Vec2),
}

/// The shapes as they stand, and which one the keyboard moves.
#[derive(Resource, Debug, Clone, PartialEq)]
pub struct HitboxShapes {
    pub boxes: [Aabb2d; 2],
    pub circles: [BoundingCircle; 2],
    pub oriented: Obb2d,
    /// In world coordinates; `None` while the mouse is outside the window.
    pub cursor: Option<Vec2>,
    /// What WASD / the left stick moves; never [`ShapeId::Cursor`].
    pub active: ShapeId,
}

fn circle(center: Vec2, radius: f32) -> BoundingCircle {
    // A struct literal: `BoundingCircle::new` asserts on the radius.
    BoundingCircle {
        center,
        circle: Circle { radius },
    }
}

impl Default for HitboxShapes {
    /// A layout that teaches at first sight: the boxes share an edge (apart under `<`,
    /// touching under `<=`), a circle overlaps a box's corner, the other circle touches the
    /// rotated rectangle, which is separated from Box2 although its enclosing box is not.
    fn default() -> Self {
        let mut shapes = HitboxShapes {
            boxes: [
                Aabb2d {
                    min: Vec2::new(-330.0, 60.0),
                    max: Vec2::new(-190.0, 160.0),
                },
                Aabb2d {
                    min: Vec2::new(-150.0, 80.0),
                    max: Vec2::new(-50.0, 180.0),
                },
            ],
            circles: [
                circle(Vec2::new(-175.0, 30.0), 45.0),
                circle(Vec2::new(105.0, 115.0), 45.0),
            ],
            oriented: Obb2d::new(
                Vec2::new(-10.0, 40.0),
                Vec2::new(100.0, 28.0),
                Rot2::degrees(30.0),
            ),
            cursor: None,
            active: ShapeId::Box1,
        };
        shapes.snap_boxes_edge_to_edge();
        shapes
    }
}

impl HitboxShapes {
    pub fn geometry(&self, id: ShapeId) -> Option<Geometry> {
        Some(match id {
            ShapeId::Box1 => Geometry::Aabb(self.boxes[0]),
            ShapeId::Box2 => Geometry::Aabb(self.boxes[1]),
            ShapeId::Circle1 => Geometry::Circle(self.circles[0]),
            ShapeId::Circle2 => Geometry::Circle(self.circles[1]),
            ShapeId::Oriented => Geometry::Obb(self.oriented),
            ShapeId::Cursor => Geometry::Point(self.cursor?),
        })
    }

    pub fn center(&self, id: ShapeId) -> Option<Vec2> {
        Some(match self.geometry(id)? {
            Geometry::Aabb(b) => b.center(),
            Geometry::Circle(c) => c.center,
            Geometry::Obb(o) => o.center,
            Geometry::Point(p) => p,
        })
    }

    /// Half the width and height of the shape's axis-aligned bounds.
    pub fn half_extent(&self, id: ShapeId) -> Vec2 {
        match self.geometry(id) {
            Some(Geometry::Aabb(b)) => b.half_size(),
            Some(Geometry::Circle(c)) => Vec2::splat(c.radius()),
            Some(Geometry::Obb(o)) => o.aabb().half_size(),
            Some(Geometry::Point(_)) | None => Vec2::ZERO,
        }
    }

    pub fn translate(&mut self, id: ShapeId, by: Vec2) {
        match id {
            ShapeId::Box1 | ShapeId::Box2 => {
                let b = &mut self.boxes[usize::from(id == ShapeId::Box2)];
                b.min += by;
                b.max += by;
            }
            ShapeId::Circle1 | ShapeId::Circle2 => {
                self.circles[usize::from(id == ShapeId::Circle2)].center += by;
            }
            ShapeId::Oriented => self.oriented.center += by,
            ShapeId::Cursor => {
                if let Some(c) = &mut self.cursor {
                    *c += by;
                }
            }
        }
    }

    pub fn set_center(&mut self, id: ShapeId, center: Vec2) {
        if let Some(now) = self.center(id) {
            self.translate(id, center - now);
        }
    }

    /// Turns the oriented rectangle counter-clockwise by `radians`.
    pub fn rotate_oriented(&mut self, radians: f32) {
        if radians.is_finite() && radians != 0.0 {
            // Renormalized so a long session of small turns does not drift off the unit circle.
            self.oriented.rotation =
                (Rot2::radians(radians) * self.oriented.rotation).fast_renormalize();
        }
    }

    /// Whether `point` is on or inside the shape (for grabbing it with the mouse).
    pub fn contains(&self, id: ShapeId, point: Vec2) -> bool {
        match self.geometry(id) {
            Some(Geometry::Aabb(b)) => point_in_aabb(point, &b, EdgeRule::Inclusive),
            Some(Geometry::Circle(c)) => point_in_circle(point, &c, EdgeRule::Inclusive),
            Some(Geometry::Obb(o)) => point_in_obb(point, &o, EdgeRule::Inclusive),
            Some(Geometry::Point(_)) | None => false,
        }
    }

    /// The top-most movable shape under `point` (the rectangle is drawn last, so it wins).
    pub fn shape_at(&self, point: Vec2) -> Option<ShapeId> {
        ShapeId::MOVABLE
            .into_iter()
            .rev()
            .find(|&id| self.contains(id, point))
    }

    /// Places Box2 exactly against Box1's right edge, vertically centred on it: the two
    /// share the line `x = Box1.max.x`, so only the edge rule decides whether they touch.
    pub fn snap_boxes_edge_to_edge(&mut self) {
        let [a, b] = self.boxes;
        let size = b.max - b.min;
        let min = Vec2::new(a.max.x, a.center().y - size.y / 2.0);
        self.boxes[1] = Aabb2d {
            min,
            max: min + size,
        };
    }
}

/// The overlay's switches, read by the logic every frame.
#[derive(Resource, Debug, Clone, Copy, PartialEq, Eq)]
pub struct HitboxSettings {
    /// Strict `<` or inclusive `<=` on touching edges.
    pub edge_rule: EdgeRule,
    /// Push overlapping shapes apart along their minimum translation vector.
    pub resolve: bool,
    /// Sweep the bullet over each step instead of testing where it lands.
    pub swept_bullet: bool,
    /// Fire a bullet every [`FIRE_PERIOD`] seconds.
    pub auto_fire: bool,
    /// Test the rotated rectangle as its enclosing axis-aligned box.
    pub obb_as_aabb: bool,
}

impl Default for HitboxSettings {
    fn default() -> Self {
        HitboxSettings {
            edge_rule: EdgeRule::Strict,
            resolve: false,
            swept_bullet: false,
            auto_fire: true,
            obb_as_aabb: false,
        }
    }
}

/// Which test a pair was judged with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PairTest {
    AabbAabb,
    CircleCircle,
    /// Circle against box through the box's point closest to the centre.
    CircleAabb,
    /// Separating axis theorem on the edge normals.
    Sat,
    /// Circle against the rectangle's box in the rectangle's own frame.
    CircleObbLocal,
    /// The rotated rectangle replaced by its enclosing axis-aligned box.
    EnclosingAabb,
    PointInAabb,
    PointInCircle,
    PointInObb,
}

/// What one pair test found. `a` comes before `b` in [`ShapeId::ALL`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairResult {
    pub a: ShapeId,
    pub b: ShapeId,
    pub test: PairTest,
    /// Colliding under the settings' edge rule (and approximation, if on).
    pub touching: bool,
    /// Touching under `<=` but not under `<`: they share an edge, a corner or a tangent.
    pub edge_only: bool,
    /// Touching only because the rotated rectangle was taken as its enclosing box.
    pub false_hit: bool,
    /// For circle pairs with a box: the box's point closest to the circle's centre, whether
    /// or not they touch (for drawing).
    pub closest: Option<Vec2>,
    /// For separating-axis tests that found a gap: the unit axis (from `b` towards `a`) and
    /// the gap along it.
    pub separating: Option<(Vec2, f32)>,
    /// The smallest vector moving `a` out of `b`, when they overlap with positive depth.
    pub mtv: Option<Vec2>,
}

/// The result of one test, for the shapes in the order it was asked.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Verdict {
    test: PairTest,
    touching: bool,
    closest: Option<Vec2>,
    separating: Option<(Vec2, f32)>,
    mtv: Option<Vec2>,
}

impl Verdict {
    fn hit(test: PairTest, touching: bool) -> Self {
        Verdict {
            test,
            touching,
            closest: None,
            separating: None,
            mtv: None,
        }
    }

    /// The same finding with the shapes' roles exchanged: vectors that pointed away from the
    /// second shape now point away from the first.
    fn swapped(self) -> Self {
        Verdict {
            separating: self.separating.map(|(axis, gap)| (-axis, gap)),
            mtv: self.mtv.map(|m| -m),
            ..self
        }
    }
}

/// Circle against box by the closest point; `closest` is given even when apart.
fn circle_box(c: &BoundingCircle, b: &Aabb2d, rule: EdgeRule, test: PairTest) -> Verdict {
    let hit = circle_aabb_closest_point(c, b, rule);
    // `Aabb2d::closest_point` clamps, which asserts `min <= max`: only valid shapes get here.
    let closest =
        hit.or_else(|| (circle_is_valid(c) && aabb_is_valid(b)).then(|| b.closest_point(c.center)));
    Verdict {
        test,
        touching: hit.is_some(),
        closest,
        separating: None,
        mtv: circle_aabb_mtv(c, b),
    }
}

fn sat_verdict(sat: Option<Sat>, mtv: Option<Vec2>) -> Verdict {
    Verdict {
        test: PairTest::Sat,
        touching: matches!(sat, Some(Sat::Overlapping { .. })),
        closest: None,
        separating: match sat {
            Some(Sat::Separated { axis, gap }) => Some((axis, gap)),
            _ => None,
        },
        mtv,
    }
}

/// The right test for two shapes. With `approx`, a rotated rectangle stands in as its
/// enclosing box. `None` for two points, which have nothing to test.
fn verdict(a: &Geometry, b: &Geometry, rule: EdgeRule, approx: bool) -> Option<Verdict> {
    use Geometry::{Aabb, Circle, Obb, Point};
    Some(match (a, b) {
        (Aabb(a), Aabb(b)) => Verdict {
            mtv: aabb_mtv(a, b),
            ..Verdict::hit(PairTest::AabbAabb, aabb_aabb(a, b, rule))
        },
        (Circle(a), Circle(b)) => Verdict {
            mtv: circle_circle_mtv(a, b),
            ..Verdict::hit(PairTest::CircleCircle, circle_circle(a, b, rule))
        },
        (Circle(c), Aabb(b)) => circle_box(c, b, rule, PairTest::CircleAabb),
        (Obb(o), Aabb(b)) if approx => Verdict {
            test: PairTest::EnclosingAabb,
            ..verdict(&Aabb(o.aabb()), &Aabb(*b), rule, false)?
        },
        (Obb(o), Aabb(b)) => sat_verdict(obb_aabb_sat(o, b, rule), obb_aabb_mtv(o, b)),
        (Obb(o), Obb(p)) if approx => Verdict {
            test: PairTest::EnclosingAabb,
            ..verdict(&Aabb(o.aabb()), &Aabb(p.aabb()), rule, false)?
        },
        (Obb(o), Obb(p)) => sat_verdict(obb_obb_sat(o, p, rule), obb_obb_mtv(o, p)),
        (Circle(c), Obb(o)) if approx => circle_box(c, &o.aabb(), rule, PairTest::EnclosingAabb),
        (Circle(c), Obb(o)) => circle_obb_local(c, o, rule),
        (Point(p), Aabb(b)) => Verdict::hit(PairTest::PointInAabb, point_in_aabb(*p, b, rule)),
        (Point(p), Circle(c)) => {
            Verdict::hit(PairTest::PointInCircle, point_in_circle(*p, c, rule))
        }
        (Point(p), Obb(o)) if approx => {
            Verdict::hit(PairTest::EnclosingAabb, point_in_aabb(*p, &o.aabb(), rule))
        }
        (Point(p), Obb(o)) => Verdict::hit(PairTest::PointInObb, point_in_obb(*p, o, rule)),
        (Point(_), Point(_)) => return None,
        // Every other order is one of the above reversed.
        _ => verdict(b, a, rule, approx)?.swapped(),
    })
}

/// Circle against the rectangle, in the rectangle's frame: there the rectangle is the box
/// `[-half_size, half_size]` and the circle-box test by closest point applies unchanged.
/// Results go back to world space through the rectangle's axes.
fn circle_obb_local(c: &BoundingCircle, o: &Obb2d, rule: EdgeRule) -> Verdict {
    // NaN axes for an invalid rectangle make the local circle invalid, so every test says no.
    let [ax, ay] = o.axes();
    let offset = c.center - o.center;
    let local_circle = BoundingCircle {
        center: Vec2::new(offset.dot(ax), offset.dot(ay)),
        circle: c.circle,
    };
    let local_box = Aabb2d {
        min: -o.half_size,
        max: o.half_size,
    };
    let to_world = |v: Vec2| ax * v.x + ay * v.y;
    let local = circle_box(&local_circle, &local_box, rule, PairTest::CircleObbLocal);
    Verdict {
        closest: local.closest.map(|p| o.center + to_world(p)),
        mtv: local.mtv.map(to_world),
        ..local
    }
}

fn other_rule(rule: EdgeRule) -> EdgeRule {
    match rule {
        EdgeRule::Strict => EdgeRule::Inclusive,
        EdgeRule::Inclusive => EdgeRule::Strict,
    }
}

/// One pair under the settings; `None` if a shape is missing (no cursor) or both are points.
pub fn evaluate_pair(
    shapes: &HitboxShapes,
    a: ShapeId,
    b: ShapeId,
    settings: &HitboxSettings,
) -> Option<PairResult> {
    let (ga, gb) = (shapes.geometry(a)?, shapes.geometry(b)?);
    let rule = settings.edge_rule;
    let approx =
        settings.obb_as_aabb && (matches!(ga, Geometry::Obb(_)) || matches!(gb, Geometry::Obb(_)));
    let shown = verdict(&ga, &gb, rule, approx)?;
    let exact = if approx {
        verdict(&ga, &gb, rule, false)?
    } else {
        shown
    };
    let other = verdict(&ga, &gb, other_rule(rule), approx)?;
    let (strict, inclusive) = match rule {
        EdgeRule::Strict => (shown.touching, other.touching),
        EdgeRule::Inclusive => (other.touching, shown.touching),
    };
    Some(PairResult {
        a,
        b,
        test: shown.test,
        touching: shown.touching,
        edge_only: inclusive && !strict,
        false_hit: shown.touching && !exact.touching,
        closest: shown.closest,
        separating: shown.separating,
        mtv: shown.mtv,
    })
}

/// Every pair of shapes, each with its proper test, in [`ShapeId::ALL`] order.
pub fn evaluate(shapes: &HitboxShapes, settings: &HitboxSettings) -> Vec<PairResult> {
    ShapeId::ALL
        .iter()
        .enumerate()
        .flat_map(|(i, &a)| {
            ShapeId::ALL[i + 1..]
                .iter()
                .filter_map(move |&b| evaluate_pair(shapes, a, b, settings))
        })
        .collect()
}

/// Pushes overlapping movable shapes apart along their minimum translation vectors, a few
/// passes over all pairs; returns how many pushes it made (0 once nothing overlaps).
///
/// The active shape is what the player holds, so it does not give way: the other shape of
/// the pair takes the whole push. Two passive shapes take half each. The cursor is never
/// pushed, and never pushes: a point has no depth, and shapes fleeing the mouse would make
/// them impossible to grab.
pub fn resolve(shapes: &mut HitboxShapes, settings: &HitboxSettings) -> u32 {
    let mut pushes = 0;
    for _ in 0..RESOLVE_PASSES {
        let before = pushes;
        for (i, &a) in ShapeId::MOVABLE.iter().enumerate() {
            for &b in &ShapeId::MOVABLE[i + 1..] {
                let Some(mtv) = evaluate_pair(shapes, a, b, settings).and_then(|p| p.mtv) else {
                    continue;
                };
                let push = mtv + mtv.normalize_or_zero() * RESOLVE_SKIN;
                let (share_a, share_b) = if a == shapes.active {
                    (0.0, 1.0)
                } else if b == shapes.active {
                    (1.0, 0.0)
                } else {
                    (0.5, 0.5)
                };
                shapes.translate(a, push * share_a);
                shapes.translate(b, -push * share_b);
                pushes += 1;
            }
        }
        if pushes == before {
            break;
        }
    }
    pushes
}

/// Keeps something of `half_size` inside a window of `window_half` (world origin at the
/// window's centre). On a side it is placed back against it and its speed towards that side
/// becomes zero; its speed away from the side is kept, so it can always leave (never stuck).
///
/// A window smaller than the object centres it on that axis and stops it there. NaN or
/// infinite positions, velocities and sizes count as zero, so nothing runs away.
pub fn clamp_to_borders(
    position: Vec2,
    velocity: Vec2,
    half_size: Vec2,
    window_half: Vec2,
) -> (Vec2, Vec2) {
    let finite_or_zero = |v: f32| if v.is_finite() { v } else { 0.0 };
    let axis = |p: f32, v: f32, half: f32, window: f32| -> (f32, f32) {
        let (p, v) = (finite_or_zero(p), finite_or_zero(v));
        let limit = finite_or_zero(window) - finite_or_zero(half).max(0.0);
        if limit <= 0.0 {
            (0.0, 0.0)
        } else if p >= limit {
            (limit, v.min(0.0))
        } else if p <= -limit {
            (-limit, v.max(0.0))
        } else {
            (p, v)
        }
    };
    let (x, vx) = axis(position.x, velocity.x, half_size.x, window_half.x);
    let (y, vy) = axis(position.y, velocity.y, half_size.y, window_half.y);
    (Vec2::new(x, y), Vec2::new(vx, vy))
}

/// One fixed step of a bullet (radius [`BULLET_RADIUS`]) against the wall. Returns where the
/// bullet ends the step and, if it hit, the point of the wall it hit.
///
/// Discrete: the bullet jumps to its new place and only that place is tested, so a step
/// longer than wall plus bullet can land on the far side without ever overlapping (the
/// tunnel). Swept: the whole step is cast against the wall and the bullet stops where it
/// first touches.
pub fn step_bullet(
    position: Vec2,
    velocity: Vec2,
    dt: f32,
    wall: &Aabb2d,
    swept: bool,
    rule: EdgeRule,
) -> (Vec2, Option<Vec2>) {
    let delta = velocity * dt;
    if !delta.is_finite() || !position.is_finite() {
        return (position, None);
    }
    if swept
        && let Some(hit) = sweep_circle_aabb(&circle(position, BULLET_RADIUS), delta, wall, rule)
    {
        let at = position + delta * hit.toi;
        return (at, Some(at - hit.normal * BULLET_RADIUS));
    }
    let next = position + delta;
    (
        next,
        circle_aabb_closest_point(&circle(next, BULLET_RADIUS), wall, rule),
    )
}

/// The bullet lane: one shot at a time across a thin wall.
#[derive(Resource, Debug, Clone, PartialEq)]
pub struct Bullet {
    pub position: Vec2,
    /// Where it was one step earlier (its trail).
    pub previous: Vec2,
    pub velocity: Vec2,
    pub wall: Aabb2d,
    /// Moving (not stopped by the wall, not yet off screen).
    pub in_flight: bool,
    /// Where it hit the wall, this shot.
    pub hit: Option<Vec2>,
    /// The step that carried it from before the wall to past it without a hit.
    pub tunnel: Option<(Vec2, Vec2)>,
    /// The previous shot's tunnel, shown until this shot reaches the wall, so the jump
    /// stays on screen long enough to be seen.
    pub last_tunnel: Option<(Vec2, Vec2)>,
    /// Seconds since the shot.
    pub since_fire: f32,
    /// Time not yet simulated, less than one step.
    lag: f32,
}

impl Default for Bullet {
    /// A shot just fired, so the scene opens with a bullet in flight.
    fn default() -> Self {
        let mut bullet = Bullet {
            position: BULLET_START,
            previous: BULLET_START,
            velocity: Vec2::ZERO,
            wall: WALL,
            in_flight: false,
            hit: None,
            tunnel: None,
            last_tunnel: None,
            since_fire: 0.0,
            lag: 0.0,
        };
        bullet.fire();
        bullet
    }
}

impl Bullet {
    pub fn fire(&mut self) {
        *self = Bullet {
            position: BULLET_START,
            previous: BULLET_START,
            velocity: Vec2::new(BULLET_SPEED, 0.0),
            in_flight: true,
            hit: None,
            tunnel: None,
            last_tunnel: self.tunnel.or(self.last_tunnel),
            since_fire: 0.0,
            lag: 0.0,
            wall: self.wall,
        };
    }

    /// Runs the fixed steps `dt` seconds hold; stops at a hit or past `right_border`.
    pub fn advance(&mut self, dt: f32, swept: bool, rule: EdgeRule, right_border: f32) {
        if !self.in_flight || !dt.is_finite() {
            return;
        }
        self.lag = (self.lag + dt.max(0.0)).min(BULLET_STEP * MAX_BULLET_STEPS_PER_FRAME as f32);
        while self.in_flight && self.lag >= BULLET_STEP {
            self.lag -= BULLET_STEP;
            let before = self.position;
            let (after, hit) =
                step_bullet(before, self.velocity, BULLET_STEP, &self.wall, swept, rule);
            self.previous = before;
            self.position = after;
            if hit.is_some() {
                self.hit = hit;
                self.in_flight = false;
                self.last_tunnel = None;
            } else if before.x - BULLET_RADIUS < self.wall.max.x
                && after.x - BULLET_RADIUS >= self.wall.max.x
            {
                self.tunnel = Some((before, after));
                self.last_tunnel = None;
            }
            if after.x - BULLET_RADIUS > right_border {
                self.in_flight = false;
            }
        }
    }

    /// This shot's story, for the status line.
    pub fn outcome(&self) -> &'static str {
        match (self.hit, self.tunnel, self.in_flight) {
            (Some(_), _, _) => "stopped at wall",
            (None, Some(_), _) => "tunnelled through wall",
            (None, None, true) => "in flight",
            (None, None, false) => "gone",
        }
    }
}

/// The clover that stays inside the window.
#[derive(Component, Debug, Clone, Copy, Default, PartialEq)]
pub struct BorderRunner {
    pub velocity: Vec2,
}

/// The mouse, as far as the scene cares.
#[derive(Resource, Debug, Clone, Copy, Default, PartialEq)]
pub struct HitboxPointer {
    /// The shape being dragged and the offset from the cursor to its centre.
    pub drag: Option<(ShapeId, Vec2)>,
    /// The pointer is over the overlay (written by the overlay), so a click is not a grab.
    pub over_ui: bool,
}

/// This frame's pair results, for the status line and the gizmos.
#[derive(Resource, Debug, Clone, Default, PartialEq)]
pub struct HitboxReport {
    pub pairs: Vec<PairResult>,
    /// Pushes the resolution made this frame.
    pub pushes: u32,
}

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<HitboxShapes>()
        .init_resource::<HitboxSettings>()
        .init_resource::<HitboxPointer>()
        .init_resource::<HitboxReport>()
        .init_resource::<Bullet>()
        .add_systems(OnEnter(Scene::Hitboxes), spawn_scene)
        .add_systems(
            Update,
            (
                read_cursor,
                drag_shapes,
                drive_shapes,
                run_clover,
                fly_bullet,
            )
                .chain()
                .in_set(AppSystems::Update)
                .run_if(in_state(Scene::Hitboxes)),
        )
        .add_systems(
            Update,
            (collide, write_status)
                .chain()
                .in_set(AppSystems::Collide)
                .run_if(in_state(Scene::Hitboxes)),
        );
}

fn spawn_scene(
    mut commands: Commands,
    assets: Res<AssetServer>,
    mut shapes: ResMut<HitboxShapes>,
    mut bullet: ResMut<Bullet>,
    mut pointer: ResMut<HitboxPointer>,
    mut report: ResMut<HitboxReport>,
) {
    *shapes = HitboxShapes::default();
    *bullet = Bullet::default();
    *pointer = HitboxPointer::default();
    *report = HitboxReport::default();
    commands.spawn((
        Name::new("Clover"),
        Sprite {
            image: assets.load("clover.png"),
            custom_size: Some(RUNNER_HALF_SIZE * 2.0),
            ..default()
        },
        Transform::from_xyz(-200.0, -250.0, 2.0),
        BorderRunner::default(),
        DespawnOnExit(Scene::Hitboxes),
    ));
}

fn read_cursor(
    windows: Query<&Window, With<PrimaryWindow>>,
    cameras: Query<(&Camera, &GlobalTransform), With<Camera2d>>,
    mut shapes: ResMut<HitboxShapes>,
) {
    // Without a camera there is no screen to point at (headless tests set the cursor
    // themselves, if they want one).
    let Some((camera, camera_transform)) = cameras.iter().next() else {
        return;
    };
    let cursor = windows
        .iter()
        .next()
        .and_then(Window::cursor_position)
        .and_then(|p| camera.viewport_to_world_2d(camera_transform, p).ok());
    if shapes.cursor != cursor {
        shapes.cursor = cursor;
    }
}

fn drag_shapes(
    mouse: Option<Res<ButtonInput<MouseButton>>>,
    mut pointer: ResMut<HitboxPointer>,
    mut shapes: ResMut<HitboxShapes>,
) {
    let Some(mouse) = mouse else {
        return;
    };
    if !mouse.pressed(MouseButton::Left) {
        pointer.drag = None;
        return;
    }
    let Some(cursor) = shapes.cursor else {
        return;
    };
    if mouse.just_pressed(MouseButton::Left)
        && !pointer.over_ui
        && let Some(id) = shapes.shape_at(cursor)
        && let Some(center) = shapes.center(id)
    {
        shapes.active = id;
        pointer.drag = Some((id, center - cursor));
    }
    if let Some((id, offset)) = pointer.drag {
        shapes.set_center(id, cursor + offset);
    }
}

fn drive_shapes(time: Res<Time>, controls: Res<Controls>, mut shapes: ResMut<HitboxShapes>) {
    let dt = time.delta_secs();
    if controls.action {
        shapes.active = shapes.active.next_movable();
    }
    if controls.move_primary != Vec2::ZERO {
        let active = shapes.active;
        shapes.translate(active, controls.move_primary * SHAPE_SPEED * dt);
    }
    if controls.rotate_primary != 0.0 {
        shapes.rotate_oriented(controls.rotate_primary * TURN_SPEED * dt);
    }
}

fn run_clover(
    time: Res<Time>,
    controls: Res<Controls>,
    area: Res<PlayArea>,
    mut runners: Query<(&mut Transform, &mut BorderRunner)>,
) {
    let dt = time.delta_secs();
    let window_half = area.half_size();
    let wanted = controls.move_secondary * RUNNER_SPEED;
    for (mut transform, mut runner) in &mut runners {
        let velocity = runner.velocity.move_towards(wanted, RUNNER_ACCEL * dt);
        let moved = transform.translation.truncate() + velocity * dt;
        let (position, velocity) = clamp_to_borders(moved, velocity, RUNNER_HALF_SIZE, window_half);
        transform.translation.x = position.x;
        transform.translation.y = position.y;
        runner.velocity = velocity;
    }
}

fn fly_bullet(
    time: Res<Time>,
    settings: Res<HitboxSettings>,
    area: Res<PlayArea>,
    mut bullet: ResMut<Bullet>,
) {
    let dt = time.delta_secs();
    bullet.since_fire += dt;
    if settings.auto_fire && bullet.since_fire >= FIRE_PERIOD {
        bullet.fire();
    }
    let right = area.half_size().x;
    bullet.advance(dt, settings.swept_bullet, settings.edge_rule, right);
}

fn collide(
    settings: Res<HitboxSettings>,
    area: Res<PlayArea>,
    mut shapes: ResMut<HitboxShapes>,
    mut report: ResMut<HitboxReport>,
    mut stats: ResMut<CollisionStats>,
) {
    let started = Instant::now();
    let pushes = if settings.resolve {
        resolve(&mut shapes, &settings)
    } else {
        0
    };
    // After the pushes, so no shape is left off screen; a shape pinned against a border
    // stays overlapping, which is the truth.
    let window_half = area.half_size();
    for id in ShapeId::MOVABLE {
        if let Some(center) = shapes.center(id) {
            let (inside, _) =
                clamp_to_borders(center, Vec2::ZERO, shapes.half_extent(id), window_half);
            if inside != center {
                shapes.set_center(id, inside);
            }
        }
    }
    let pairs = evaluate(&shapes, &settings);
    let contacts = pairs.iter().filter(|p| p.touching).count();
    *stats = CollisionStats {
        broad_pairs: pairs.len() as u32,
        pixel_tests: 0,
        contacts: contacts as u32,
        micros: started.elapsed().as_secs_f32() * 1e6,
    };
    *report = HitboxReport { pairs, pushes };
}

fn pair_names<'a>(pairs: impl Iterator<Item = &'a PairResult>) -> Vec<String> {
    pairs
        .map(|p| format!("{}-{}", p.a.name(), p.b.name()))
        .collect()
}

fn write_status(
    settings: Res<HitboxSettings>,
    shapes: Res<HitboxShapes>,
    report: Res<HitboxReport>,
    bullet: Res<Bullet>,
    mut status: ResMut<StatusLine>,
) {
    let touching = pair_names(report.pairs.iter().filter(|p| p.touching));
    let mut parts = vec![format!(
        "Touching: {}",
        if touching.is_empty() {
            "none".to_owned()
        } else {
            touching.join(", ")
        }
    )];
    // Under `<` the pairs that only share an edge are the lesson; under `<=` they touch.
    let edges = pair_names(report.pairs.iter().filter(|p| p.edge_only && !p.touching));
    if !edges.is_empty() {
        parts.push(format!("edge only: {}", edges.join(", ")));
    }
    let false_hits = pair_names(report.pairs.iter().filter(|p| p.false_hit));
    if !false_hits.is_empty() {
        parts.push(format!("false hits: {}", false_hits.join(", ")));
    }
    parts.push(format!("active: {}", shapes.active.name()));
    parts.push(
        match settings.edge_rule {
            EdgeRule::Strict => "strict <",
            EdgeRule::Inclusive => "inclusive <=",
        }
        .to_owned(),
    );
    parts.push(format!(
        "{} bullet: {}",
        if settings.swept_bullet {
            "swept"
        } else {
            "discrete"
        },
        bullet.outcome()
    ));
    status.0 = parts.join(" | ");
}

// ---------------------------------------------------------------------------------------------
// Overlay: the settings window, the gizmos and the shape labels (only with a window)
// ---------------------------------------------------------------------------------------------

/// A shape's name drawn on it.
#[derive(Component, Debug, Clone, Copy)]
struct ShapeLabel(ShapeId);

/// The scene's overlay window (egui): added only with a window, never in headless tests.
pub(super) fn overlay_plugin(app: &mut App) {
    app.add_systems(OnEnter(Scene::Hitboxes), spawn_labels)
        .add_systems(
            Update,
            place_labels
                .after(AppSystems::Collide)
                .run_if(in_state(Scene::Hitboxes)),
        )
        .add_systems(
            EguiPrimaryContextPass,
            settings_window.run_if(in_state(Scene::Hitboxes)),
        )
        .add_systems(
            PostUpdate,
            draw_hitboxes
                .after(TransformSystems::Propagate)
                .run_if(in_state(Scene::Hitboxes)),
        );
}

fn spawn_labels(mut commands: Commands) {
    for id in ShapeId::MOVABLE {
        commands.spawn((
            Name::new(format!("{} label", id.name())),
            Text2d::new(id.name()),
            TextFont {
                font_size: FontSize::Px(14.0),
                ..default()
            },
            TextColor(Color::srgba(1.0, 1.0, 1.0, 0.8)),
            Transform::from_xyz(0.0, 0.0, 3.0),
            ShapeLabel(id),
            DespawnOnExit(Scene::Hitboxes),
        ));
    }
}

fn place_labels(shapes: Res<HitboxShapes>, mut labels: Query<(&ShapeLabel, &mut Transform)>) {
    for (label, mut transform) in &mut labels {
        if let Some(center) = shapes.center(label.0).filter(|c| c.is_finite()) {
            transform.translation.x = center.x;
            transform.translation.y = center.y;
        }
    }
}

fn settings_window(
    mut contexts: EguiContexts,
    mut settings: ResMut<HitboxSettings>,
    mut shapes: ResMut<HitboxShapes>,
    mut bullet: ResMut<Bullet>,
    mut pointer: ResMut<HitboxPointer>,
) -> Result {
    let ctx = contexts.ctx_mut()?;
    let mut edited = *settings;
    // Anchored, so that it is back in its place whatever the window went through.
    egui::Window::new("Hitboxes")
        .anchor(egui::Align2::LEFT_BOTTOM, [8.0, -8.0])
        .default_width(230.0)
        .resizable(false)
        .show(ctx, |ui| {
            ui.horizontal(|ui| {
                ui.label("Edges:");
                ui.radio_value(&mut edited.edge_rule, EdgeRule::Strict, "strict <");
                ui.radio_value(&mut edited.edge_rule, EdgeRule::Inclusive, "inclusive <=");
            });
            if ui.button("Snap boxes edge to edge").clicked() {
                shapes.snap_boxes_edge_to_edge();
            }
            ui.checkbox(&mut edited.resolve, "Resolve: push apart by MTV");
            ui.checkbox(&mut edited.obb_as_aabb, "Rotated box as its AABB");
            ui.horizontal(|ui| {
                ui.checkbox(&mut edited.swept_bullet, "Swept bullet");
                if ui.button("Fire").clicked() {
                    bullet.fire();
                }
            });
            ui.checkbox(&mut edited.auto_fire, "Auto-fire every 1.5 s");
            ui.separator();
            ui.small("Space: next shape · WASD: move it · Q/E: turn OBB");
            ui.small("Mouse: drag a shape · Arrows: the clover");
        });
    if edited != *settings {
        *settings = edited;
    }
    let over_ui = ctx.is_pointer_over_egui() || ctx.egui_wants_pointer_input();
    if pointer.over_ui != over_ui {
        pointer.over_ui = over_ui;
    }
    Ok(())
}

const IDLE: Color = Color::srgb(0.2, 0.9, 0.3);
const HIT: Color = Color::srgb(1.0, 0.25, 0.2);
const FALSE_HIT: Color = Color::srgb(1.0, 0.6, 0.1);
const ACTIVE: Color = Color::srgba(1.0, 1.0, 1.0, 0.55);
const ENCLOSING: Color = Color::srgba(0.3, 0.6, 1.0, 0.6);
const CLOSEST: Color = Color::srgba(1.0, 1.0, 1.0, 0.35);
const CLOSEST_HIT: Color = Color::srgb(1.0, 1.0, 1.0);
const AXIS: Color = Color::srgb(0.95, 0.85, 0.2);
const MTV: Color = Color::srgb(0.4, 0.9, 1.0);
const BULLET: Color = Color::srgb(1.0, 0.95, 0.5);
/// A circle's closest point on a box it does not touch is drawn within this gap, in pixels.
const CLOSEST_SHOWN_WITHIN: f32 = 60.0;

/// How a shape looks: red if any real contact, orange if only false hits, else green.
fn shape_colour(id: ShapeId, pairs: &[PairResult]) -> Color {
    let mut colour = IDLE;
    for p in pairs
        .iter()
        .filter(|p| p.touching && (p.a == id || p.b == id))
    {
        if !p.false_hit {
            return HIT;
        }
        colour = FALSE_HIT;
    }
    colour
}

fn draw_geometry(
    gizmos: &mut Gizmos<PixelDebugGizmos>,
    geometry: Geometry,
    grow: f32,
    colour: Color,
) {
    match geometry {
        Geometry::Aabb(b) => {
            gizmos.rect_2d(b.center(), b.max - b.min + Vec2::splat(grow * 2.0), colour);
        }
        Geometry::Circle(c) => {
            gizmos
                .circle_2d(c.center, c.radius() + grow, colour)
                .resolution(64);
        }
        Geometry::Obb(o) => {
            let [ax, _] = o.axes();
            if ax.is_finite() {
                let iso = Isometry2d::new(o.center, Rot2::from_sin_cos(ax.y, ax.x));
                gizmos.rect_2d(iso, o.half_size * 2.0 + Vec2::splat(grow * 2.0), colour);
            }
        }
        Geometry::Point(p) => gizmos.cross_2d(p, 8.0 + grow, colour),
    }
}

/// Half the shadow of a shape on a unit axis, for placing the separating line in the gap.
fn shadow_half(geometry: Geometry, axis: Vec2) -> f32 {
    match geometry {
        Geometry::Aabb(b) => b.half_size().dot(axis.abs()),
        Geometry::Circle(c) => c.radius(),
        Geometry::Obb(o) => {
            let [ax, ay] = o.axes();
            o.half_size.x * ax.dot(axis).abs() + o.half_size.y * ay.dot(axis).abs()
        }
        Geometry::Point(_) => 0.0,
    }
}

fn draw_hitboxes(
    shapes: Res<HitboxShapes>,
    settings: Res<HitboxSettings>,
    debug: Res<PixelDebugSettings>,
    report: Res<HitboxReport>,
    bullet: Res<Bullet>,
    mut gizmos: Gizmos<PixelDebugGizmos>,
) {
    let pairs = &report.pairs;
    for id in ShapeId::ALL {
        let Some(geometry) = shapes.geometry(id) else {
            continue;
        };
        draw_geometry(&mut gizmos, geometry, 0.0, shape_colour(id, pairs));
        if id == shapes.active {
            draw_geometry(&mut gizmos, geometry, 4.0, ACTIVE);
        }
    }
    if debug.aabb || settings.obb_as_aabb {
        let b = shapes.oriented.aabb();
        if b.min.is_finite() && b.max.is_finite() {
            let colour = if settings.obb_as_aabb {
                FALSE_HIT
            } else {
                ENCLOSING
            };
            gizmos.rect_2d(b.center(), b.max - b.min, colour);
        }
    }
    if debug.contacts {
        for p in pairs {
            draw_pair(&mut gizmos, &shapes, p);
        }
    }
    draw_bullet(&mut gizmos, &bullet);
}

fn draw_pair(gizmos: &mut Gizmos<PixelDebugGizmos>, shapes: &HitboxShapes, p: &PairResult) {
    let (Some(ga), Some(gb)) = (shapes.geometry(p.a), shapes.geometry(p.b)) else {
        return;
    };
    // The circle is whichever of the two is one; the line runs from its centre.
    let round = [ga, gb].into_iter().find_map(|g| match g {
        Geometry::Circle(c) => Some(c),
        _ => None,
    });
    if let (Some(point), Some(round)) = (p.closest, round) {
        // Far-off boxes' closest points would only clutter: show those about to matter.
        let gap = point.distance(round.center) - round.radius();
        if p.touching || gap < CLOSEST_SHOWN_WITHIN {
            let colour = if p.touching { CLOSEST_HIT } else { CLOSEST };
            gizmos.line_2d(round.center, point, colour);
            gizmos.circle_2d(point, 4.0, colour);
        }
    }
    if let (Some((axis, gap)), Some(cb)) = (p.separating, shapes.center(p.b)) {
        // The separating line sits in the middle of the gap, across the axis.
        let on_line = cb + axis * (shadow_half(gb, axis) + gap / 2.0);
        let along = axis.perp() * 70.0;
        gizmos.line_2d(on_line - along, on_line + along, AXIS);
        gizmos.arrow_2d(on_line, on_line + axis * 25.0, AXIS);
    }
    if p.touching
        && let Some(mtv) = p.mtv
    {
        // Drawn on the shape "resolve" would move (the active one holds still), from its
        // centre; short pushes are still worth seeing, so at least 20 px long.
        let (moved, push) = if p.a == shapes.active {
            (p.b, -mtv)
        } else {
            (p.a, mtv)
        };
        if let Some(from) = shapes.center(moved) {
            gizmos.arrow_2d(
                from,
                from + push.normalize_or_zero() * push.length().max(20.0),
                MTV,
            );
        }
    }
}

fn draw_bullet(gizmos: &mut Gizmos<PixelDebugGizmos>, bullet: &Bullet) {
    let wall = bullet.wall;
    let wall_colour = if bullet.hit.is_some() { HIT } else { IDLE };
    gizmos.rect_2d(wall.center(), wall.max - wall.min, wall_colour);
    if let Some((from, to)) = bullet.tunnel.or(bullet.last_tunnel) {
        // The step that jumped the wall: neither end overlaps it.
        gizmos.line_2d(from, to, FALSE_HIT);
        gizmos.circle_2d(from, BULLET_RADIUS, FALSE_HIT);
        gizmos.circle_2d(to, BULLET_RADIUS, FALSE_HIT);
    }
    if bullet.in_flight || bullet.hit.is_some() {
        gizmos.line_2d(bullet.previous, bullet.position, CLOSEST);
        gizmos.circle_2d(bullet.position, BULLET_RADIUS, BULLET);
    }
    if let Some(hit) = bullet.hit {
        gizmos.cross_2d(hit, 10.0, HIT);
        gizmos.circle_2d(hit, 7.0, HIT);
    }
}
