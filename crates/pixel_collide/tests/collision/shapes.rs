//! Hitbox shapes: exact edge cases under both edge rules, and properties checked against
//! brute force (polygon clipping, binary searches, fine time stepping) and against
//! `bevy_math`'s own casts. Random cases come from proptest with a fixed seed.

use bevy_math::bounding::{Aabb2d, AabbCast2d, BoundingCircle, RayCast2d};
use bevy_math::primitives::Circle;
use bevy_math::{Dir2, Rot2, Vec2};
use pixel_collide::shapes::*;
use proptest::prelude::*;
use proptest::test_runner::RngSeed;

const STRICT: EdgeRule = EdgeRule::Strict;
const INCLUSIVE: EdgeRule = EdgeRule::Inclusive;

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        rng_seed: RngSeed::Fixed(0x5EED_C011_1DE5),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

fn aabb(min_x: f32, min_y: f32, max_x: f32, max_y: f32) -> Aabb2d {
    Aabb2d {
        min: Vec2::new(min_x, min_y),
        max: Vec2::new(max_x, max_y),
    }
}

/// A struct literal, because `BoundingCircle::new` asserts on the bad radii tested here.
fn circle(x: f32, y: f32, radius: f32) -> BoundingCircle {
    BoundingCircle {
        center: Vec2::new(x, y),
        circle: Circle { radius },
    }
}

fn obb(x: f32, y: f32, half_x: f32, half_y: f32, radians: f32) -> Obb2d {
    Obb2d::new(
        Vec2::new(x, y),
        Vec2::new(half_x, half_y),
        Rot2::radians(radians),
    )
}

fn translate(a: &Aabb2d, by: Vec2) -> Aabb2d {
    Aabb2d {
        min: a.min + by,
        max: a.max + by,
    }
}

fn moved(o: &Obb2d, by: Vec2) -> Obb2d {
    Obb2d {
        center: o.center + by,
        ..*o
    }
}

// ---------------------------------------------------------------------------------------------
// Brute-force references
// ---------------------------------------------------------------------------------------------

/// Cross product sign test against each edge of a counter-clockwise convex polygon.
fn point_in_convex(p: Vec2, poly: &[Vec2]) -> bool {
    (0..poly.len()).all(|i| {
        let a = poly[i];
        let b = poly[(i + 1) % poly.len()];
        (b - a).perp_dot(p - a) > 0.0
    })
}

/// Area of the intersection of two counter-clockwise convex polygons (Sutherland–Hodgman).
fn overlap_area(subject: &[Vec2], clip: &[Vec2]) -> f64 {
    let mut out: Vec<[f64; 2]> = subject
        .iter()
        .map(|p| [f64::from(p.x), f64::from(p.y)])
        .collect();
    for i in 0..clip.len() {
        let a = [f64::from(clip[i].x), f64::from(clip[i].y)];
        let j = (i + 1) % clip.len();
        let b = [f64::from(clip[j].x), f64::from(clip[j].y)];
        let side = |p: [f64; 2]| (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]);
        let input = std::mem::take(&mut out);
        for k in 0..input.len() {
            let p = input[k];
            let q = input[(k + 1) % input.len()];
            let (sp, sq) = (side(p), side(q));
            if sp >= 0.0 {
                out.push(p);
            }
            if (sp >= 0.0) != (sq >= 0.0) {
                let t = sp / (sp - sq);
                out.push([p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])]);
            }
        }
        if out.is_empty() {
            return 0.0;
        }
    }
    let mut twice = 0.0;
    for k in 0..out.len() {
        let p = out[k];
        let q = out[(k + 1) % out.len()];
        twice += p[0] * q[1] - q[0] * p[1];
    }
    twice.abs() / 2.0
}

/// `[min, max]` of the polygon's shadow on `axis`.
fn project(poly: &[Vec2], axis: Vec2) -> (f32, f32) {
    poly.iter()
        .map(|p| p.dot(axis))
        .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), d| {
            (lo.min(d), hi.max(d))
        })
}

/// Overlap of two polygons' shadows on `axis` (negative when apart).
fn shadow_overlap(a: &[Vec2], b: &[Vec2], axis: Vec2) -> f32 {
    let (a_lo, a_hi) = project(a, axis);
    let (b_lo, b_hi) = project(b, axis);
    (a_hi - b_lo).min(b_hi - a_lo)
}

/// Smallest distance along `dir` after which `overlaps(distance)` turns false, by bisection.
fn exit_distance(dir: Vec2, limit: f32, overlaps: impl Fn(Vec2) -> bool) -> f32 {
    let (mut inside, mut outside) = (0.0f32, limit);
    assert!(!overlaps(dir * outside), "limit too small");
    for _ in 0..60 {
        let mid = (inside + outside) / 2.0;
        if overlaps(dir * mid) {
            inside = mid;
        } else {
            outside = mid;
        }
    }
    outside
}

// ---------------------------------------------------------------------------------------------
// Edge rule
// ---------------------------------------------------------------------------------------------

#[test]
fn edge_rule_compares_and_rejects_nan() {
    assert!(!STRICT.less(1.0, 1.0));
    assert!(INCLUSIVE.less(1.0, 1.0));
    assert!(STRICT.less(0.5, 1.0));
    assert!(!INCLUSIVE.less(f32::NAN, 1.0));
    assert!(!STRICT.less(0.0, f32::NAN));
    assert_eq!(EdgeRule::default(), STRICT);
}

// ---------------------------------------------------------------------------------------------
// Points
// ---------------------------------------------------------------------------------------------

#[test]
fn point_in_aabb_edges() {
    let b = aabb(0.0, 0.0, 2.0, 1.0);
    assert!(point_in_aabb(Vec2::new(1.0, 0.5), &b, STRICT));
    for edge in [
        Vec2::new(0.0, 0.5),
        Vec2::new(2.0, 0.5),
        Vec2::new(1.0, 0.0),
        Vec2::new(1.0, 1.0),
        Vec2::new(2.0, 1.0),
    ] {
        assert!(!point_in_aabb(edge, &b, STRICT), "{edge}");
        assert!(point_in_aabb(edge, &b, INCLUSIVE), "{edge}");
    }
    assert!(!point_in_aabb(Vec2::new(2.0001, 0.5), &b, INCLUSIVE));
}

#[test]
fn point_in_circle_edges() {
    let c = circle(1.0, 1.0, 5.0);
    assert!(point_in_circle(Vec2::new(1.0, 1.0), &c, STRICT));
    // 3-4-5: exactly on the circumference in floating point.
    let rim = Vec2::new(4.0, 5.0);
    assert!(!point_in_circle(rim, &c, STRICT));
    assert!(point_in_circle(rim, &c, INCLUSIVE));
    assert!(!point_in_circle(Vec2::new(4.0, 5.001), &c, INCLUSIVE));
}

#[test]
fn point_in_obb_edges() {
    // A quarter turn is exact in `Rot2::FRAC_PI_2`, so edges stay exact.
    let o = Obb2d::new(Vec2::ZERO, Vec2::new(2.0, 1.0), Rot2::FRAC_PI_2);
    assert!(point_in_obb(Vec2::new(0.0, 1.9), &o, STRICT));
    assert!(!point_in_obb(Vec2::new(0.0, 2.0), &o, STRICT));
    assert!(point_in_obb(Vec2::new(0.0, 2.0), &o, INCLUSIVE));
    assert!(!point_in_obb(Vec2::new(1.0, 0.0), &o, STRICT));
    assert!(point_in_obb(Vec2::new(1.0, 0.0), &o, INCLUSIVE));
    assert!(!point_in_obb(Vec2::new(1.5, 0.0), &o, INCLUSIVE));
}

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn point_in_obb_matches_polygon(
        cx in -10.0f32..10.0, cy in -10.0f32..10.0,
        hx in 0.1f32..5.0, hy in 0.1f32..5.0, angle in -7.0f32..7.0,
        px in -15.0f32..15.0, py in -15.0f32..15.0,
    ) {
        let o = obb(cx, cy, hx, hy, angle);
        let p = Vec2::new(px, py);
        let corners = o.corners();
        let inside = point_in_convex(p, &corners);
        // Skip points within rounding distance of an edge.
        let near_edge = (0..4).any(|i| {
            let a = corners[i];
            let b = corners[(i + 1) % 4];
            ((b - a).perp_dot(p - a) / (b - a).length()).abs() < 1e-3
        });
        prop_assume!(!near_edge);
        prop_assert_eq!(point_in_obb(p, &o, STRICT), inside);
        prop_assert_eq!(point_in_obb(p, &o, INCLUSIVE), inside);
    }
}

// ---------------------------------------------------------------------------------------------
// Boxes and circles
// ---------------------------------------------------------------------------------------------

#[test]
fn aabb_aabb_edges_and_corners() {
    let a = aabb(0.0, 0.0, 1.0, 1.0);
    let right = aabb(1.0, 0.0, 2.0, 1.0);
    let above = aabb(0.0, 1.0, 1.0, 2.0);
    let corner = aabb(1.0, 1.0, 2.0, 2.0);
    for b in [right, above, corner] {
        assert!(!aabb_aabb(&a, &b, STRICT));
        assert!(aabb_aabb(&a, &b, INCLUSIVE));
        assert!(!aabb_aabb(&b, &a, STRICT));
        assert!(aabb_aabb(&b, &a, INCLUSIVE));
    }
    let overlapping = aabb(0.5, 0.5, 1.5, 1.5);
    let apart = aabb(1.01, 0.0, 2.0, 1.0);
    assert!(aabb_aabb(&a, &overlapping, STRICT));
    assert!(!aabb_aabb(&a, &apart, INCLUSIVE));
    // Containment is overlap.
    assert!(aabb_aabb(&a, &aabb(0.25, 0.25, 0.75, 0.75), STRICT));
}

#[test]
fn circle_circle_tangent() {
    let a = circle(0.0, 0.0, 1.0);
    let b = circle(3.0, 0.0, 2.0);
    assert!(!circle_circle(&a, &b, STRICT));
    assert!(circle_circle(&a, &b, INCLUSIVE));
    // Diagonal tangent via 3-4-5.
    let c = circle(3.0, 4.0, 4.0);
    assert!(!circle_circle(&a, &c, STRICT));
    assert!(circle_circle(&a, &c, INCLUSIVE));
    assert!(circle_circle(&a, &circle(2.9, 0.0, 2.0), STRICT));
    assert!(!circle_circle(&a, &circle(3.1, 0.0, 2.0), INCLUSIVE));
}

#[test]
fn circle_aabb_face_and_corner() {
    let b = aabb(0.0, 0.0, 1.0, 1.0);
    let face = circle(2.0, 0.5, 1.0);
    assert!(!circle_aabb(&face, &b, STRICT));
    assert_eq!(
        circle_aabb_closest_point(&face, &b, INCLUSIVE),
        Some(Vec2::new(1.0, 0.5))
    );
    assert_eq!(circle_aabb_closest_point(&face, &b, STRICT), None);
    // Corner (1, 1) is exactly 5 away from (4, 5).
    let corner = circle(4.0, 5.0, 5.0);
    assert!(!circle_aabb(&corner, &b, STRICT));
    assert_eq!(
        circle_aabb_closest_point(&corner, &b, INCLUSIVE),
        Some(Vec2::new(1.0, 1.0))
    );
    let near = circle(1.5, 0.5, 1.0);
    assert_eq!(
        circle_aabb_closest_point(&near, &b, STRICT),
        Some(Vec2::new(1.0, 0.5))
    );
    // A center inside is its own closest point.
    let inside = circle(0.3, 0.6, 0.1);
    assert_eq!(
        circle_aabb_closest_point(&inside, &b, STRICT),
        Some(Vec2::new(0.3, 0.6))
    );
    assert!(!circle_aabb(&circle(2.5, 0.5, 1.0), &b, INCLUSIVE));
}

// ---------------------------------------------------------------------------------------------
// Oriented boxes
// ---------------------------------------------------------------------------------------------

#[test]
fn obb_geometry() {
    let o = Obb2d::new(Vec2::new(1.0, 2.0), Vec2::new(3.0, 1.0), Rot2::FRAC_PI_2);
    let [ax, ay] = o.axes();
    assert!(ax.distance(Vec2::Y) < 1e-6 && ay.distance(-Vec2::X) < 1e-6);
    let bounds = o.aabb();
    assert!(bounds.min.distance(Vec2::new(0.0, -1.0)) < 1e-6);
    assert!(bounds.max.distance(Vec2::new(2.0, 5.0)) < 1e-6);
    for corner in o.corners() {
        assert!(point_in_aabb(corner, &bounds, INCLUSIVE));
    }
    // Counter-clockwise: positive signed area, equal to the rectangle's.
    let c = o.corners();
    let twice: f32 = (0..4).map(|i| c[i].perp_dot(c[(i + 1) % 4])).sum();
    assert!((twice / 2.0 - 12.0).abs() < 1e-4);

    // A 45° square's bounds reach out to the half diagonal.
    let diamond = obb(0.0, 0.0, 1.0, 1.0, std::f32::consts::FRAC_PI_4);
    let reach = diamond.aabb().max;
    assert!((reach.x - 2f32.sqrt()).abs() < 1e-5 && (reach.y - 2f32.sqrt()).abs() < 1e-5);

    // An unnormalized rotation is a direction, not a scale.
    let scaled = Obb2d::new(Vec2::ZERO, Vec2::ONE, Rot2 { cos: 3.0, sin: 0.0 });
    assert_eq!(scaled.axes(), [Vec2::X, Vec2::Y]);
    assert_eq!(
        Obb2d::from_aabb(&aabb(0.0, 0.0, 2.0, 4.0)).aabb(),
        aabb(0.0, 0.0, 2.0, 4.0)
    );
}

#[test]
fn obb_touching_edges() {
    for rotation in [Rot2::IDENTITY, Rot2::FRAC_PI_2, Rot2::PI] {
        let a = Obb2d::new(Vec2::ZERO, Vec2::ONE, rotation);
        let b = Obb2d::new(Vec2::new(2.0, 0.0), Vec2::ONE, rotation);
        assert!(!obb_obb(&a, &b, STRICT));
        assert!(obb_obb(&a, &b, INCLUSIVE));
        assert_eq!(obb_obb_mtv(&a, &b), None);
        match obb_obb_sat(&a, &b, STRICT) {
            Some(Sat::Separated { axis, gap }) => {
                // The axis points from b towards a.
                assert!(axis.distance(-Vec2::X) < 1e-6, "{axis}");
                assert_eq!(gap, 0.0);
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            obb_obb_sat(&a, &b, INCLUSIVE),
            Some(Sat::Overlapping { mtv }) if mtv.length() < 1e-6
        ));
        let square = aabb(1.0, -1.0, 3.0, 1.0);
        assert!(!obb_aabb(&a, &square, STRICT));
        assert!(obb_aabb(&a, &square, INCLUSIVE));
    }
    // A 45° square's tip against a box's face, just overlapping and just apart.
    let diamond = obb(0.0, 0.0, 1.0, 1.0, std::f32::consts::FRAC_PI_4);
    let tip = 2f32.sqrt();
    assert!(obb_aabb(
        &diamond,
        &aabb(tip - 1e-3, -1.0, 5.0, 1.0),
        STRICT
    ));
    assert!(!obb_aabb(
        &diamond,
        &aabb(tip + 1e-3, -1.0, 5.0, 1.0),
        INCLUSIVE
    ));
}

#[test]
fn obb_rotated_beats_its_bounds() {
    // The enclosing boxes overlap, the rotated boxes do not: SAT must find the diagonal.
    let a = obb(0.0, 0.0, 2.0, 0.2, std::f32::consts::FRAC_PI_4);
    let b = obb(1.5, -1.0, 0.5, 0.5, 0.0);
    assert!(aabb_aabb(&a.aabb(), &b.aabb(), STRICT));
    assert!(!obb_obb(&a, &b, INCLUSIVE));
    match obb_obb_sat(&a, &b, STRICT) {
        Some(Sat::Separated { axis, gap }) => {
            let overlap = shadow_overlap(&a.corners(), &b.corners(), axis);
            assert!((overlap + gap).abs() < 1e-5, "{overlap} {gap}");
        }
        other => panic!("{other:?}"),
    }
}

fn arb_obb() -> impl Strategy<Value = Obb2d> {
    (
        -6.0f32..6.0,
        -6.0f32..6.0,
        0.1f32..4.0,
        0.1f32..4.0,
        -7.0f32..7.0,
    )
        .prop_map(|(x, y, hx, hy, angle)| obb(x, y, hx, hy, angle))
}

fn arb_aabb() -> impl Strategy<Value = Aabb2d> {
    (-6.0f32..6.0, -6.0f32..6.0, 0.1f32..4.0, 0.1f32..4.0)
        .prop_map(|(x, y, hx, hy)| aabb(x - hx, y - hy, x + hx, y + hy))
}

proptest! {
    #![proptest_config(config(2048))]

    #[test]
    fn obb_sat_matches_polygon_clipping(a in arb_obb(), b in arb_obb()) {
        let sat = obb_obb_sat(&a, &b, STRICT).expect("valid boxes");
        let borderline = match sat {
            Sat::Separated { gap, .. } => gap < 1e-3,
            Sat::Overlapping { mtv } => mtv.length() < 1e-3,
        };
        prop_assume!(!borderline);
        let area = overlap_area(&a.corners(), &b.corners());
        prop_assert_eq!(matches!(sat, Sat::Overlapping { .. }), area > 1e-9, "area {}", area);
        prop_assert_eq!(obb_obb(&a, &b, INCLUSIVE), obb_obb(&a, &b, STRICT));
        prop_assert_eq!(obb_obb(&b, &a, STRICT), obb_obb(&a, &b, STRICT));
        if let Sat::Separated { axis, gap } = sat {
            // The reported axis really separates, by the reported gap, with `a` on its + side.
            let (a_lo, _) = project(&a.corners(), axis);
            let (_, b_hi) = project(&b.corners(), axis);
            prop_assert!((a_lo - b_hi - gap).abs() < 1e-4, "{} {} {}", a_lo, b_hi, gap);
        }
    }

    #[test]
    fn obb_with_identity_rotation_is_an_aabb(a in arb_aabb(), b in arb_aabb()) {
        for rule in [STRICT, INCLUSIVE] {
            prop_assert_eq!(obb_aabb(&Obb2d::from_aabb(&a), &b, rule), aabb_aabb(&a, &b, rule));
        }
        let mtv_obb = obb_aabb_mtv(&Obb2d::from_aabb(&a), &b);
        let mtv_aabb = aabb_mtv(&a, &b);
        prop_assert_eq!(mtv_obb.is_some(), mtv_aabb.is_some());
        if let (Some(x), Some(y)) = (mtv_obb, mtv_aabb) {
            prop_assert!((x.length() - y.length()).abs() < 1e-4, "{} {}", x, y);
        }
    }

    #[test]
    fn obb_aabb_matches_polygon_clipping(a in arb_obb(), b in arb_aabb()) {
        let sat = obb_aabb_sat(&a, &b, STRICT).expect("valid boxes");
        let borderline = match sat {
            Sat::Separated { gap, .. } => gap < 1e-3,
            Sat::Overlapping { mtv } => mtv.length() < 1e-3,
        };
        prop_assume!(!borderline);
        let area = overlap_area(&a.corners(), &Obb2d::from_aabb(&b).corners());
        prop_assert_eq!(obb_aabb(&a, &b, STRICT), area > 1e-9);
    }
}

// ---------------------------------------------------------------------------------------------
// Minimum translation vectors
// ---------------------------------------------------------------------------------------------

#[test]
fn aabb_mtv_examples() {
    let a = aabb(0.0, 0.0, 2.0, 2.0);
    // b overlaps a's right side by 0.5: push a left.
    assert_eq!(
        aabb_mtv(&a, &aabb(1.5, -1.0, 4.0, 3.0)),
        Some(Vec2::new(-0.5, 0.0))
    );
    // b overlaps a's top by 0.25: push a down.
    assert_eq!(
        aabb_mtv(&a, &aabb(-1.0, 1.75, 3.0, 3.0)),
        Some(Vec2::new(0.0, -0.25))
    );
    // Touching or apart: nothing to resolve.
    assert_eq!(aabb_mtv(&a, &aabb(2.0, 0.0, 3.0, 2.0)), None);
    assert_eq!(aabb_mtv(&a, &aabb(5.0, 0.0, 6.0, 2.0)), None);
}

#[test]
fn circle_mtv_examples() {
    let a = circle(0.0, 0.0, 1.0);
    let b = circle(1.5, 0.0, 1.0);
    assert_eq!(circle_circle_mtv(&a, &b), Some(Vec2::new(-0.5, 0.0)));
    assert_eq!(circle_circle_mtv(&b, &a), Some(Vec2::new(0.5, 0.0)));
    assert_eq!(circle_circle_mtv(&a, &a), Some(Vec2::new(0.0, 2.0)));
    assert_eq!(circle_circle_mtv(&a, &circle(2.0, 0.0, 1.0)), None);

    let wall = aabb(0.0, 0.0, 10.0, 1.0);
    // Outside, above the top face, sunk by 0.25.
    let over = circle(5.0, 1.75, 1.0);
    assert_eq!(circle_aabb_mtv(&over, &wall), Some(Vec2::new(0.0, 0.25)));
    // Center inside, 0.25 below the top: out through the top by 0.25 + r.
    let sunk = circle(5.0, 0.75, 1.0);
    assert_eq!(circle_aabb_mtv(&sunk, &wall), Some(Vec2::new(0.0, 1.25)));
    assert_eq!(circle_aabb_mtv(&circle(5.0, 2.0, 1.0), &wall), None);
}

/// Boxes with awkward decimal coordinates, so the push distance rounds.
fn arb_decimal_aabb() -> impl Strategy<Value = Aabb2d> {
    (-300i32..300, -300i32..300, 1i32..200, 1i32..200).prop_map(|(x, y, w, h)| {
        let s = 0.1f32;
        aabb(
            x as f32 * s,
            y as f32 * s,
            (x + w) as f32 * s,
            (y + h) as f32 * s,
        )
    })
}

proptest! {
    #![proptest_config(config(2048))]

    #[test]
    fn aabb_mtv_separates_exactly_and_is_minimal(
        a in prop_oneof![arb_aabb(), arb_decimal_aabb()],
        b in prop_oneof![arb_aabb(), arb_decimal_aabb()],
    ) {
        let mtv = aabb_mtv(&a, &b);
        prop_assert_eq!(mtv.is_some(), aabb_aabb(&a, &b, STRICT));
        let Some(mtv) = mtv else { return Ok(()) };
        prop_assert!(mtv.x == 0.0 || mtv.y == 0.0);
        // Exact: no tolerance.
        prop_assert!(!aabb_aabb(&translate(&a, mtv), &b, STRICT));
        // Pointing away from b: it never moves a's center towards b's along its axis.
        prop_assert!(mtv.dot(a.min + a.max - b.min - b.max) >= 0.0);
        let brute = [Vec2::X, -Vec2::X, Vec2::Y, -Vec2::Y]
            .into_iter()
            .map(|dir| exit_distance(dir, 100.0, |by| aabb_aabb(&translate(&a, by), &b, STRICT)))
            .fold(f32::INFINITY, f32::min);
        prop_assert!((mtv.length() - brute).abs() < 1e-4, "{} vs {}", mtv.length(), brute);
    }

    #[test]
    fn obb_mtv_separates_and_is_minimal(a in arb_obb(), b in arb_obb()) {
        let mtv = obb_obb_mtv(&a, &b);
        prop_assert_eq!(mtv.is_some(), obb_obb(&a, &b, STRICT));
        let Some(mtv) = mtv else { return Ok(()) };
        let depth = mtv.length();
        prop_assume!(depth > 1e-3);
        let (ca, cb) = (a.corners(), b.corners());
        // Brute force over the four edge normals, from the corners alone.
        let edges = [ca[1] - ca[0], ca[2] - ca[1], cb[1] - cb[0], cb[2] - cb[1]];
        let brute = edges
            .iter()
            .map(|e| shadow_overlap(&ca, &cb, e.normalize()))
            .fold(f32::INFINITY, f32::min);
        prop_assert!((depth - brute).abs() < 1e-4, "{} vs {}", depth, brute);
        // No direction at all does better.
        for k in 0..720 {
            let dir = Vec2::from_angle(k as f32 * std::f32::consts::TAU / 720.0);
            prop_assert!(shadow_overlap(&ca, &cb, dir) >= depth - 1e-4);
        }
        // A hair more than the MTV separates; a little less does not.
        let past = moved(&a, mtv * (1.0 + 1e-4) + mtv.normalize() * 1e-4);
        prop_assert!(!obb_obb(&past, &b, STRICT));
        prop_assert!(overlap_area(&past.corners(), &cb) < 1e-6);
        let short = moved(&a, mtv * 0.9);
        prop_assert!(obb_obb(&short, &b, STRICT));
    }

    #[test]
    fn obb_aabb_mtv_separates(a in arb_obb(), b in arb_aabb()) {
        let Some(mtv) = obb_aabb_mtv(&a, &b) else {
            prop_assert!(!obb_aabb(&a, &b, STRICT));
            return Ok(());
        };
        prop_assume!(mtv.length() > 1e-3);
        prop_assert!(!obb_aabb(&moved(&a, mtv * (1.0 + 1e-4) + mtv.normalize() * 1e-4), &b, STRICT));
        prop_assert!(obb_aabb(&moved(&a, mtv * 0.9), &b, STRICT));
    }

    #[test]
    fn circle_mtvs_separate_and_are_minimal(
        x in -4.0f32..4.0, y in -4.0f32..4.0, r in 0.1f32..3.0,
        ox in -4.0f32..4.0, oy in -4.0f32..4.0, or in 0.1f32..3.0,
        b in arb_aabb(),
    ) {
        let c = circle(x, y, r);
        let other = circle(ox, oy, or);
        let shift = |c: &BoundingCircle, by: Vec2| circle(c.center.x + by.x, c.center.y + by.y, c.radius());

        if let Some(mtv) = circle_circle_mtv(&c, &other) {
            let d = mtv.length();
            prop_assume!(d > 1e-3);
            prop_assert!(!circle_circle(&shift(&c, mtv * (1.0 + 1e-4)), &other, STRICT));
            prop_assert!(circle_circle(&shift(&c, mtv * 0.9), &other, STRICT));
        } else {
            prop_assert!(!circle_circle(&c, &other, STRICT));
        }

        let Some(mtv) = circle_aabb_mtv(&c, &b) else {
            prop_assert!(!circle_aabb(&c, &b, STRICT));
            return Ok(());
        };
        let d = mtv.length();
        prop_assume!(d > 1e-3);
        prop_assert!(!circle_aabb(&shift(&c, mtv * (1.0 + 1e-4)), &b, STRICT));
        prop_assert!(circle_aabb(&shift(&c, mtv * 0.9), &b, STRICT));
        // Brute force over directions: none escapes in less.
        let brute = (0..360)
            .map(|k| Vec2::from_angle(k as f32 * std::f32::consts::TAU / 360.0))
            .chain([Vec2::X, -Vec2::X, Vec2::Y, -Vec2::Y])
            .map(|dir| exit_distance(dir, 50.0, |by| circle_aabb(&shift(&c, by), &b, STRICT)))
            .fold(f32::INFINITY, f32::min);
        prop_assert!(brute >= d - 1e-3, "{} < {}", brute, d);
        prop_assert!(brute <= d * 1.001 + 1e-3, "{} > {}", brute, d);
    }
}

// ---------------------------------------------------------------------------------------------
// Sweeps
// ---------------------------------------------------------------------------------------------

#[test]
fn bullet_crossing_thin_wall_is_caught() {
    let wall = aabb(10.0, -50.0, 11.0, 50.0);
    let (start, end) = (Vec2::new(0.0, 0.0), Vec2::new(20.0, 0.0));
    // A discrete test at both ends of the step sees nothing...
    for rule in [STRICT, INCLUSIVE] {
        assert!(!point_in_aabb(start, &wall, rule) && !point_in_aabb(end, &wall, rule));
        // ...the sweep sees the wall halfway, on its left face.
        let hit = segment_aabb(start, end, &wall, rule).expect("bullet tunnelled");
        assert_eq!(hit.toi, 0.5);
        assert_eq!(hit.normal, -Vec2::X);
    }

    // Same for a small box and a small circle moving 20 units in one step.
    let bullet = aabb(-0.25, -0.25, 0.25, 0.25);
    let delta = Vec2::new(20.0, 0.0);
    assert!(!aabb_aabb(&bullet, &wall, INCLUSIVE));
    assert!(!aabb_aabb(&translate(&bullet, delta), &wall, INCLUSIVE));
    let hit = sweep_aabb_aabb(&bullet, delta, &wall, STRICT).expect("box tunnelled");
    assert!((hit.toi - 9.75 / 20.0).abs() < 1e-6);
    assert_eq!(hit.normal, -Vec2::X);

    let ball = circle(0.0, 0.0, 0.25);
    assert!(!circle_aabb(&circle(20.0, 0.0, 0.25), &wall, INCLUSIVE));
    let hit = sweep_circle_aabb(&ball, delta, &wall, STRICT).expect("ball tunnelled");
    assert!((hit.toi - 9.75 / 20.0).abs() < 1e-6);
    assert_eq!(hit.normal, -Vec2::X);

    // Coming from the other side, going up, going down: the face met is the one reported.
    let hit = segment_aabb(Vec2::new(20.0, 0.0), Vec2::new(0.0, 0.0), &wall, STRICT).unwrap();
    assert_eq!((hit.toi, hit.normal), (0.45, Vec2::X));
    let slab = aabb(-5.0, 3.0, 5.0, 3.5);
    let hit = segment_aabb(Vec2::ZERO, Vec2::new(0.0, 10.0), &slab, STRICT).unwrap();
    assert_eq!((hit.toi, hit.normal), (0.3, -Vec2::Y));
    let hit = segment_aabb(Vec2::new(0.0, 10.0), Vec2::ZERO, &slab, STRICT).unwrap();
    assert_eq!((hit.toi, hit.normal), (0.65, Vec2::Y));
}

#[test]
fn segment_grazes_and_end_contacts_follow_the_rule() {
    let b = aabb(0.0, 0.0, 1.0, 1.0);
    // Along the top edge.
    let along = (Vec2::new(-1.0, 1.0), Vec2::new(3.0, 1.0));
    assert_eq!(segment_aabb(along.0, along.1, &b, STRICT), None);
    let hit = segment_aabb(along.0, along.1, &b, INCLUSIVE).unwrap();
    assert_eq!((hit.toi, hit.normal), (0.25, -Vec2::X));
    // Through the corner (0, 1) only.
    let diagonal = (Vec2::new(-1.0, 0.0), Vec2::new(1.0, 2.0));
    assert_eq!(segment_aabb(diagonal.0, diagonal.1, &b, STRICT), None);
    assert_eq!(
        segment_aabb(diagonal.0, diagonal.1, &b, INCLUSIVE).map(|h| h.toi),
        Some(0.5)
    );
    // Ending exactly on the face.
    let short = (Vec2::new(-1.0, 0.5), Vec2::new(0.0, 0.5));
    assert_eq!(segment_aabb(short.0, short.1, &b, STRICT), None);
    assert_eq!(
        segment_aabb(short.0, short.1, &b, INCLUSIVE),
        Some(SweepHit {
            toi: 1.0,
            normal: -Vec2::X
        })
    );
    // Falling short and pointing away.
    assert_eq!(
        segment_aabb(Vec2::new(-2.0, 0.5), Vec2::new(-0.5, 0.5), &b, INCLUSIVE),
        None
    );
    assert_eq!(
        segment_aabb(Vec2::new(-0.5, 0.5), Vec2::new(-2.0, 0.5), &b, INCLUSIVE),
        None
    );
    // Starting inside: time zero, out through the nearest face (the right one, 0.1 away).
    assert_eq!(
        segment_aabb(Vec2::new(0.9, 0.5), Vec2::new(0.2, 0.5), &b, STRICT),
        Some(SweepHit {
            toi: 0.0,
            normal: Vec2::X
        })
    );
}

#[test]
fn box_cast_edges() {
    let floor = aabb(-10.0, -1.0, 10.0, 0.0);
    let crate_ = aabb(-0.5, 2.0, 0.5, 3.0);
    let hit = sweep_aabb_aabb(&crate_, Vec2::new(0.0, -4.0), &floor, STRICT).unwrap();
    assert_eq!((hit.toi, hit.normal), (0.5, Vec2::Y));
    // Sliding along the floor while resting on it is not a hit when strict.
    let resting = aabb(-0.5, 0.0, 0.5, 1.0);
    assert_eq!(
        sweep_aabb_aabb(&resting, Vec2::new(3.0, 0.0), &floor, STRICT),
        None
    );
    assert_eq!(
        sweep_aabb_aabb(&resting, Vec2::new(3.0, 0.0), &floor, INCLUSIVE).map(|h| h.toi),
        Some(0.0)
    );
    // Already sunk in: time zero, pushed up.
    let sunk = aabb(-0.5, -0.2, 0.5, 0.8);
    assert_eq!(
        sweep_aabb_aabb(&sunk, Vec2::new(1.0, 0.0), &floor, STRICT),
        Some(SweepHit {
            toi: 0.0,
            normal: Vec2::Y
        })
    );
}

#[test]
fn circle_cast_corner_and_tangent() {
    let b = aabb(0.0, 0.0, 1.0, 1.0);
    // Heading straight for corner (1, 1) along the diagonal.
    let ball = circle(3.0, 3.0, 1.0);
    let hit = sweep_circle_aabb(&ball, Vec2::new(-2.0, -2.0), &b, STRICT).unwrap();
    let expected = (2.0 * 2f32.sqrt() - 1.0) / (2.0 * 2f32.sqrt());
    assert!((hit.toi - expected).abs() < 1e-6, "{}", hit.toi);
    assert!(hit.normal.distance(Vec2::ONE.normalize()) < 1e-6);
    // Passing the corner at exactly the radius: a tangent graze.
    let passing = circle(2.0, 5.0, 1.0);
    let down = Vec2::new(0.0, -10.0);
    assert_eq!(sweep_circle_aabb(&passing, down, &b, STRICT), None);
    let graze = sweep_circle_aabb(&passing, down, &b, INCLUSIVE).unwrap();
    assert!((graze.toi - 0.4).abs() < 1e-6);
    assert!(graze.normal.distance(Vec2::X) < 1e-6);
    // Just inside the radius it hits the corner, not the face.
    let clipping = circle(1.9, 5.0, 1.0);
    let hit = sweep_circle_aabb(&clipping, down, &b, STRICT).unwrap();
    assert!(hit.normal.x > 0.5 && hit.normal.y > 0.0, "{}", hit.normal);
}

fn arb_point() -> impl Strategy<Value = Vec2> {
    (-12.0f32..12.0, -12.0f32..12.0).prop_map(|(x, y)| Vec2::new(x, y))
}

fn grow(b: &Aabb2d, by: f32) -> Aabb2d {
    aabb(b.min.x - by, b.min.y - by, b.max.x + by, b.max.y + by)
}

proptest! {
    #![proptest_config(config(2048))]

    #[test]
    fn segment_aabb_agrees_with_raycast2d(start in arb_point(), end in arb_point(), b in arb_aabb()) {
        let delta = end - start;
        let length = delta.length();
        prop_assume!(length > 1e-3);
        let ray = RayCast2d::new(start, Dir2::new(delta).unwrap(), length);
        let theirs = ray.aabb_intersection_at(&b).map(|d| d / length);
        let ours = segment_aabb(start, end, &b, INCLUSIVE);
        match (ours, theirs) {
            (Some(hit), Some(t)) => {
                prop_assert!((hit.toi - t).abs() < 1e-4, "{} vs {}", hit.toi, t);
                prop_assert!((0.0..=1.0).contains(&hit.toi));
                prop_assert!(hit.toi == 0.0 || hit.normal.dot(delta) < 0.0);
                // At the contact the point is on the box's boundary.
                let p = start + delta * hit.toi;
                prop_assert!(point_in_aabb(p, &grow(&b, 1e-4), STRICT));
                prop_assert!(hit.toi == 0.0 || !point_in_aabb(p, &grow(&b, -1e-4), STRICT));
            }
            (None, None) => {}
            // Disagreement is allowed only within rounding of a graze.
            _ => {
                let shrunk = segment_aabb(start, end, &grow(&b, -1e-4), INCLUSIVE);
                let grown = segment_aabb(start, end, &grow(&b, 1e-4), INCLUSIVE);
                prop_assert!(shrunk.is_none() && grown.is_some(), "{:?} vs {:?}", ours, theirs);
            }
        }
        // Strict never hits where inclusive misses.
        prop_assert!(segment_aabb(start, end, &b, STRICT).is_none() || ours.is_some());
    }

    #[test]
    fn box_cast_agrees_with_aabbcast2d(
        moving in arb_aabb(), delta in arb_point(), target in arb_aabb(),
    ) {
        let length = delta.length();
        prop_assume!(length > 1e-3);
        let half = (moving.max - moving.min) / 2.0;
        let cast = AabbCast2d::new(
            Aabb2d { min: -half, max: half },
            (moving.min + moving.max) / 2.0,
            Dir2::new(delta).unwrap(),
            length,
        );
        let theirs = cast.aabb_collision_at(target).map(|d| d / length);
        let ours = sweep_aabb_aabb(&moving, delta, &target, INCLUSIVE);
        match (ours, theirs) {
            (Some(hit), Some(t)) => {
                prop_assert!((hit.toi - t).abs() < 1e-4, "{} vs {}", hit.toi, t);
                if hit.toi > 0.0 {
                    prop_assert!(hit.normal.dot(delta) < 0.0);
                    // Touching, not overlapping, at the time of impact.
                    let at = translate(&moving, delta * hit.toi);
                    prop_assert!(!aabb_aabb(&grow(&at, -1e-4), &target, STRICT));
                    prop_assert!(aabb_aabb(&grow(&at, 1e-4), &target, INCLUSIVE));
                }
            }
            (None, None) => {}
            _ => {
                let shrunk = sweep_aabb_aabb(&moving, delta, &grow(&target, -1e-4), INCLUSIVE);
                let grown = sweep_aabb_aabb(&moving, delta, &grow(&target, 1e-4), INCLUSIVE);
                prop_assert!(shrunk.is_none() && grown.is_some(), "{:?} vs {:?}", ours, theirs);
            }
        }
    }

    #[test]
    fn circle_cast_matches_fine_stepping(
        c in arb_point(), r in 0.1f32..2.0, delta in arb_point(), target in arb_aabb(),
    ) {
        prop_assume!(delta.length() > 1e-3);
        let ball = circle(c.x, c.y, r);
        let hit = sweep_circle_aabb(&ball, delta, &target, STRICT);
        // Brute force: the first of 4000 sub-steps at which the ball overlaps.
        let steps = 4000;
        let first = (0..=steps).find(|&i| {
            let p = c + delta * (i as f32 / steps as f32);
            circle_aabb(&circle(p.x, p.y, r), &target, STRICT)
        });
        match (hit, first) {
            (Some(hit), Some(i)) => {
                let t = i as f32 / steps as f32;
                prop_assert!(hit.toi <= t + 1e-5, "{} after {}", hit.toi, t);
                prop_assert!(hit.toi >= t - 2.0 / steps as f32, "{} before {}", hit.toi, t);
                prop_assert!((hit.normal.length() - 1.0).abs() < 1e-4);
                prop_assert!(hit.toi == 0.0 || hit.normal.dot(delta) <= 1e-4);
            }
            (None, None) => {}
            // A graze shallower than one sub-step can be missed by stepping, never by the sweep.
            (Some(hit), None) => {
                let p = c + delta * hit.toi;
                let dist = target.closest_point(p).distance(p);
                prop_assert!((dist - r).abs() < 1e-3, "ghost hit {:?}", hit);
            }
            (None, Some(i)) => prop_assert!(false, "missed a hit at step {}", i),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Bad input
// ---------------------------------------------------------------------------------------------

#[test]
fn nan_infinite_and_degenerate_inputs_are_rejected() {
    let good_box = aabb(0.0, 0.0, 1.0, 1.0);
    let good_circle = circle(0.5, 0.5, 1.0);
    let good_obb = obb(0.5, 0.5, 1.0, 1.0, 0.3);
    let nan = f32::NAN;
    let inf = f32::INFINITY;
    let bad_boxes = [
        aabb(nan, 0.0, 1.0, 1.0),
        aabb(0.0, 0.0, nan, 1.0),
        aabb(-inf, -inf, inf, inf),
        aabb(0.0, 0.0, 0.0, 1.0),
        aabb(0.0, 0.0, 1.0, 0.0),
        aabb(1.0, 1.0, 0.0, 0.0),
    ];
    let bad_circles = [
        circle(nan, 0.0, 1.0),
        circle(0.0, inf, 1.0),
        circle(0.0, 0.0, nan),
        circle(0.0, 0.0, inf),
        circle(0.0, 0.0, 0.0),
        circle(0.0, 0.0, -1.0),
    ];
    let bad_obbs = [
        obb(nan, 0.0, 1.0, 1.0, 0.0),
        obb(0.0, 0.0, 0.0, 1.0, 0.0),
        obb(0.0, 0.0, 1.0, -1.0, 0.0),
        obb(0.0, 0.0, inf, 1.0, 0.0),
        Obb2d::new(Vec2::ZERO, Vec2::ONE, Rot2 { cos: 0.0, sin: 0.0 }),
        Obb2d::new(Vec2::ZERO, Vec2::ONE, Rot2 { cos: nan, sin: 0.0 }),
        Obb2d::new(Vec2::ZERO, Vec2::ONE, Rot2 { cos: inf, sin: 1.0 }),
    ];
    let bad_points = [Vec2::NAN, Vec2::new(0.5, nan), Vec2::new(inf, 0.5)];
    let delta = Vec2::new(1.0, 0.0);

    for rule in [STRICT, INCLUSIVE] {
        for b in &bad_boxes {
            assert!(!aabb_aabb(b, &good_box, rule) && !aabb_aabb(&good_box, b, rule));
            assert!(!circle_aabb(&good_circle, b, rule));
            assert!(!point_in_aabb(Vec2::splat(0.5), b, rule));
            assert!(!obb_aabb(&good_obb, b, rule));
            assert_eq!(obb_aabb_sat(&good_obb, b, rule), None);
            assert_eq!(segment_aabb(Vec2::ZERO, Vec2::ONE, b, rule), None);
            assert_eq!(sweep_aabb_aabb(b, delta, &good_box, rule), None);
            assert_eq!(sweep_aabb_aabb(&good_box, delta, b, rule), None);
            assert_eq!(sweep_circle_aabb(&good_circle, delta, b, rule), None);
            assert_eq!(aabb_mtv(b, &good_box), None);
            assert_eq!(aabb_mtv(&good_box, b), None);
            assert_eq!(circle_aabb_mtv(&good_circle, b), None);
            assert_eq!(obb_aabb_mtv(&good_obb, b), None);
        }
        for c in &bad_circles {
            assert!(!circle_circle(c, &good_circle, rule) && !circle_circle(&good_circle, c, rule));
            assert!(!circle_aabb(c, &good_box, rule));
            assert_eq!(circle_aabb_closest_point(c, &good_box, rule), None);
            assert!(!point_in_circle(Vec2::ZERO, c, rule));
            assert_eq!(circle_circle_mtv(c, &good_circle), None);
            assert_eq!(circle_aabb_mtv(c, &good_box), None);
            assert_eq!(sweep_circle_aabb(c, delta, &good_box, rule), None);
        }
        for o in &bad_obbs {
            assert!(!o.is_valid());
            assert!(!obb_obb(o, &good_obb, rule) && !obb_obb(&good_obb, o, rule));
            assert!(!obb_aabb(o, &good_box, rule));
            assert_eq!(obb_obb_sat(o, &good_obb, rule), None);
            assert_eq!(obb_obb_mtv(o, &good_obb), None);
            assert_eq!(obb_aabb_mtv(o, &good_box), None);
            assert!(!point_in_obb(Vec2::ZERO, o, rule));
        }
        for p in bad_points {
            assert!(!point_in_aabb(p, &good_box, rule));
            assert!(!point_in_circle(p, &good_circle, rule));
            assert!(!point_in_obb(p, &good_obb, rule));
            assert_eq!(segment_aabb(p, Vec2::splat(0.5), &good_box, rule), None);
            assert_eq!(segment_aabb(Vec2::splat(-1.0), p, &good_box, rule), None);
        }
        // Zero and non-finite motions.
        for d in [Vec2::ZERO, Vec2::NAN, Vec2::new(inf, 0.0)] {
            assert_eq!(sweep_aabb_aabb(&good_box, d, &good_box, rule), None);
            assert_eq!(sweep_circle_aabb(&good_circle, d, &good_box, rule), None);
        }
        let p = Vec2::splat(0.5);
        assert_eq!(segment_aabb(p, p, &good_box, rule), None);
    }
    assert!(good_obb.is_valid());
    assert!(bad_obbs[0].corners().iter().all(|c| c.is_nan()));
}

/// Any bit pattern at all, NaNs, infinities and subnormals included.
fn any_f32() -> impl Strategy<Value = f32> {
    prop_oneof![
        any::<u32>().prop_map(f32::from_bits),
        Just(0.0),
        Just(f32::MIN_POSITIVE / 4.0),
        Just(1e-22),
        -3.0f32..3.0,
        Just(f32::MAX),
    ]
}

fn any_vec() -> impl Strategy<Value = Vec2> {
    (any_f32(), any_f32()).prop_map(|(x, y)| Vec2::new(x, y))
}

proptest! {
    #![proptest_config(config(4096))]

    /// Nothing panics, and whatever comes back is finite and follows the conventions.
    #[test]
    fn arbitrary_floats_never_panic(
        p in any_vec(), q in any_vec(), r in any_vec(), s in any_vec(),
        t in any_vec(), u in any_vec(), w in any_vec(), k in any_f32(),
    ) {
        let a = Aabb2d { min: p, max: q };
        let b = Aabb2d { min: r, max: s };
        let c = circle(t.x, t.y, k);
        let d = circle(u.x, u.y, w.x);
        let o = Obb2d::new(t, u, Rot2 { cos: w.x, sin: w.y });
        let o2 = Obb2d::new(p, q, Rot2 { cos: k, sin: r.x });
        for rule in [STRICT, INCLUSIVE] {
            let _ = (aabb_aabb(&a, &b, rule), circle_circle(&c, &d, rule), circle_aabb(&c, &a, rule));
            let _ = (point_in_aabb(r, &a, rule), point_in_circle(r, &c, rule), point_in_obb(r, &o, rule));
            let _ = (obb_obb(&o, &o2, rule), obb_aabb(&o, &a, rule), obb_aabb_sat(&o2, &b, rule));
            if let Some(point) = circle_aabb_closest_point(&c, &a, rule) {
                prop_assert!(point.is_finite());
            }
            if let Some(Sat::Separated { axis, gap }) = obb_obb_sat(&o, &o2, rule) {
                prop_assert!(axis.is_finite() && gap >= 0.0);
            }
            for hit in [
                segment_aabb(r, s, &a, rule),
                sweep_aabb_aabb(&a, w, &b, rule),
                sweep_circle_aabb(&c, w, &a, rule),
            ]
            .into_iter()
            .flatten()
            {
                prop_assert!((0.0..=1.0).contains(&hit.toi), "{:?}", hit);
                prop_assert!((hit.normal.length() - 1.0).abs() < 1e-3, "{:?}", hit);
            }
        }
        for mtv in [
            aabb_mtv(&a, &b),
            circle_circle_mtv(&c, &d),
            circle_aabb_mtv(&c, &a),
            obb_obb_mtv(&o, &o2),
            obb_aabb_mtv(&o, &b),
        ]
        .into_iter()
        .flatten()
        {
            prop_assert!(mtv.is_finite() && mtv != Vec2::ZERO, "{}", mtv);
        }
        let _ = (o.corners(), o.axes(), o.aabb(), o2.is_valid());
    }
}

/// Any sign and any magnitude from subnormal to near `f32::MAX`, evenly over decades, and
/// zero: the inputs whose quotients under- or overflow.
fn any_magnitude() -> impl Strategy<Value = f32> {
    prop_oneof![
        (-45.0f32..38.5, any::<bool>())
            .prop_map(|(e, neg)| 10f32.powf(e) * if neg { -1.0 } else { 1.0 }),
        Just(0.0),
        -3.0f32..3.0,
    ]
}

fn magnitude_vec() -> impl Strategy<Value = Vec2> {
    (any_magnitude(), any_magnitude()).prop_map(|(x, y)| Vec2::new(x, y))
}

proptest! {
    #![proptest_config(config(4096))]

    /// Every sweep hit has a unit normal and a `toi` in `[0, 1]`, whatever the magnitudes:
    /// with a tiny motion or coordinates far apart, the slab quotients are infinite, and
    /// an entry at `-∞` used to leave the normal at zero (an inclusive box cast at time 0).
    #[test]
    fn sweep_normals_are_unit_at_any_magnitude(
        p in magnitude_vec(), q in magnitude_vec(), r in magnitude_vec(), s in magnitude_vec(),
        delta in magnitude_vec(), k in any_magnitude(),
    ) {
        let (a, b) = (aabb(p.x, p.y, q.x, q.y), aabb(r.x, r.y, s.x, s.y));
        let c = circle(r.x, r.y, k);
        for rule in [STRICT, INCLUSIVE] {
            for hit in [
                segment_aabb(r, r + delta, &a, rule),
                sweep_aabb_aabb(&a, delta, &b, rule),
                sweep_aabb_aabb(&b, delta, &a, rule),
                sweep_circle_aabb(&c, delta, &a, rule),
            ]
            .into_iter()
            .flatten()
            {
                prop_assert!((0.0..=1.0).contains(&hit.toi), "{:?}", hit);
                prop_assert!((hit.normal.length() - 1.0).abs() < 1e-3, "{:?}", hit);
            }
        }
    }
}
