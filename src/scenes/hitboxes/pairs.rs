//! Every pair of shapes under the settings: which test, touching or not, the minimum
//! translation vector, and pushing overlapping shapes apart.

use super::*;

/// Which test a pair was judged with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PairTest {
    AabbAabb,
    CircleCircle,
    /// Circle against box through the box's point closest to the center.
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
    /// For circle pairs with a box: the box's point closest to the circle's center, whether
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
pub(super) struct Verdict {
    test: PairTest,
    touching: bool,
    closest: Option<Vec2>,
    separating: Option<(Vec2, f32)>,
    mtv: Option<Vec2>,
}

impl Verdict {
    pub(super) fn hit(test: PairTest, touching: bool) -> Self {
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
    pub(super) fn swapped(self) -> Self {
        Verdict {
            separating: self.separating.map(|(axis, gap)| (-axis, gap)),
            mtv: self.mtv.map(|m| -m),
            ..self
        }
    }
}

/// Circle against box by the closest point; `closest` is given even when apart.
pub(super) fn circle_box(
    c: &BoundingCircle,
    b: &Aabb2d,
    rule: EdgeRule,
    test: PairTest,
) -> Verdict {
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

pub(super) fn sat_verdict(sat: Option<Sat>, mtv: Option<Vec2>) -> Verdict {
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
pub(super) fn verdict(a: &Geometry, b: &Geometry, rule: EdgeRule, approx: bool) -> Option<Verdict> {
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
pub(super) fn circle_obb_local(c: &BoundingCircle, o: &Obb2d, rule: EdgeRule) -> Verdict {
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

pub(super) fn other_rule(rule: EdgeRule) -> EdgeRule {
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
/// window's center). On a side it is placed back against it and its speed towards that side
/// becomes zero; its speed away from the side is kept, so it can always leave (never stuck).
///
/// A window smaller than the object centers it on that axis and stops it there. NaN or
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
