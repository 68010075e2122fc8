//! `nearest_solid_pixel` and `convex_polygon_touches` against brute force over every set
//! pixel's square carried into the world: the least point-to-quadrilateral distance, and
//! separating axes between the polygon and each square. Transforms are sprites' (turned,
//! scaled unevenly, flipped) and sheared ones, which take the search's other path.

use bevy_math::{Affine2, Mat2, Vec2};
use pixel_collide::{
    BitMask, PointProjection, convex_polygon_touches, nearest_solid_pixel, sprite_to_world,
};
use pixel_collide_support::rng::SplitMix64;

use super::cases;

fn random_mask(rng: &mut SplitMix64) -> BitMask {
    let (w, h) = (1 + rng.below(70) as u32, 1 + rng.below(40) as u32);
    let density = rng.range(0.0, 0.3);
    let mut mask = BitMask::new(w, h);
    for y in 0..h {
        for x in 0..w {
            if rng.chance(density) {
                mask.set(x.into(), y.into(), true);
            }
        }
    }
    mask
}

fn random_transform(rng: &mut SplitMix64, mask: &BitMask) -> Affine2 {
    let center = Vec2::new(rng.range(-30.0, 30.0), rng.range(-30.0, 30.0));
    if rng.chance(0.25) {
        // Sheared: a child turned under a parent scaled unevenly.
        let m = Mat2::from_cols(
            Vec2::new(rng.range(-2.0, 2.0), rng.range(-2.0, 2.0)),
            Vec2::new(rng.range(-2.0, 2.0), rng.range(-2.0, 2.0)),
        );
        if m.determinant().abs() > 0.2 {
            return Affine2::from_mat2_translation(m, center);
        }
    }
    let scale = Vec2::new(
        rng.range(0.4, 3.0) * if rng.chance(0.3) { -1.0 } else { 1.0 },
        rng.range(0.4, 3.0) * if rng.chance(0.3) { -1.0 } else { 1.0 },
    );
    sprite_to_world(center, rng.range(-3.2, 3.2), scale, mask.size())
}

fn square(to_world: Affine2, x: u32, y: u32) -> [Vec2; 4] {
    let (x, y) = (x as f32, y as f32);
    [(x, y), (x + 1.0, y), (x + 1.0, y + 1.0), (x, y + 1.0)]
        .map(|(u, v)| to_world.transform_point2(Vec2::new(u, v)))
}

/// Distance from a point to a convex quadrilateral (zero inside), in f64.
fn distance_to_quad(point: Vec2, quad: [Vec2; 4]) -> f64 {
    let p = point.as_dvec2();
    let q = quad.map(|c| c.as_dvec2());
    let sides: Vec<f64> = (0..4)
        .map(|k| (q[(k + 1) % 4] - q[k]).perp_dot(p - q[k]))
        .collect();
    if sides.iter().all(|&s| s >= 0.0) || sides.iter().all(|&s| s <= 0.0) {
        return 0.0;
    }
    (0..4)
        .map(|k| {
            let (a, b) = (q[k], q[(k + 1) % 4]);
            let t = ((p - a).dot(b - a) / (b - a).length_squared()).clamp(0.0, 1.0);
            p.distance(a + (b - a) * t)
        })
        .fold(f64::INFINITY, f64::min)
}

fn brute_nearest(mask: &BitMask, to_world: Affine2, point: Vec2) -> Option<f64> {
    let mut best: Option<f64> = None;
    for y in 0..mask.height() {
        for x in 0..mask.width() {
            if mask.get(x.into(), y.into()) {
                let d = distance_to_quad(point, square(to_world, x, y));
                best = Some(best.map_or(d, |b| b.min(d)));
            }
        }
    }
    best
}

/// The world position of a random solid pixel's center, if the mask has one.
fn solid_pixel_center(mask: &BitMask, to_world: Affine2, rng: &mut SplitMix64) -> Option<Vec2> {
    let solid: Vec<(u32, u32)> = (0..mask.height())
        .flat_map(|y| (0..mask.width()).map(move |x| (x, y)))
        .filter(|&(x, y)| mask.get(x.into(), y.into()))
        .collect();
    let (x, y) = *solid.get(rng.below(solid.len().max(1) as u64) as usize)?;
    Some(to_world.transform_point2(Vec2::new(x as f32 + 0.5, y as f32 + 0.5)))
}

/// The nearest solid pixel's distance is the brute force's (to 1e-4 px), within the
/// reach asked and not beyond it; its point lies on the reported pixel at that distance,
/// and its normal points from there to the query point.
#[test]
fn the_nearest_solid_pixel_is_the_brute_forces() {
    let mut rng = SplitMix64(0x9e11);
    let (mut found, mut inside, mut sheared) = (0, 0, 0);
    for case in 0..cases(1_500) {
        let mask = random_mask(&mut rng);
        let to_world = random_transform(&mut rng, &mask);
        let m = to_world.matrix2;
        if m.x_axis.dot(m.y_axis).abs() > 1e-3 {
            sheared += 1;
        }
        // Every eighth point on a solid pixel's center, so that a run of any length (qemu's
        // cut ones among them) checks points inside.
        let on_solid = if case % 8 == 0 {
            solid_pixel_center(&mask, to_world, &mut rng)
        } else {
            None
        };
        let point = on_solid
            .unwrap_or_else(|| Vec2::new(rng.range(-120.0, 120.0), rng.range(-120.0, 120.0)));
        let reach = if rng.chance(0.2) {
            f32::INFINITY
        } else {
            rng.range(0.0, 80.0)
        };
        let expected = brute_nearest(&mask, to_world, point).filter(|&d| d <= f64::from(reach));
        let got = nearest_solid_pixel(&mask, to_world, point, reach);
        match (got, expected) {
            (None, None) => {}
            (Some(got), Some(expected)) => {
                found += 1;
                let PointProjection {
                    point: on,
                    distance,
                    normal,
                    pixel: [x, y],
                    inside: is_inside,
                } = got;
                assert!(
                    (f64::from(distance) - expected).abs() < 1e-4,
                    "case {case}: {distance} against {expected}"
                );
                assert!(mask.get(x.into(), y.into()), "case {case}");
                let to_pixel = distance_to_quad(point, square(to_world, x, y));
                assert!(
                    (to_pixel - expected).abs() < 1e-4,
                    "case {case}: pixel {x}, {y}"
                );
                if is_inside {
                    inside += 1;
                    assert_eq!((distance, on, normal), (0.0, point, Vec2::ZERO));
                } else {
                    assert!((on.distance(point) - distance).abs() < 1e-3, "case {case}");
                    assert!(distance_to_quad(on, square(to_world, x, y)) < 1e-3);
                    let away = (point - on).normalize();
                    assert!(normal.distance(away) < 1e-3, "case {case}: {normal:?}");
                }
            }
            (got, expected) => panic!("case {case}: {got:?} against {expected:?}"),
        }
    }
    assert!(found > cases(1_500) / 3 && inside > 0 && sheared > cases(1_500) / 10);
}

/// Whether two convex polygons overlap (touching counts), by separating axes.
fn convex_overlap(a: &[Vec2], b: &[Vec2]) -> bool {
    let separated_by = |edges_of: &[Vec2]| {
        (0..edges_of.len()).any(|k| {
            let edge = edges_of[(k + 1) % edges_of.len()] - edges_of[k];
            let axis = Vec2::new(-edge.y, edge.x).as_dvec2();
            if axis.length_squared() == 0.0 {
                return false;
            }
            let span = |poly: &[Vec2]| {
                poly.iter()
                    .map(|c| c.as_dvec2().dot(axis))
                    .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), d| {
                        (lo.min(d), hi.max(d))
                    })
            };
            let ((a0, a1), (b0, b1)) = (span(a), span(b));
            a1 < b0 - 1e-9 || b1 < a0 - 1e-9
        })
    };
    !separated_by(a) && !separated_by(b)
}

/// Turned boxes and triangles against random masks: the polygon touches the mask exactly
/// when it touches one of its set pixels' squares, by separating axes; cases within a
/// hair of touching (where f32 and f64 can disagree) are left out.
#[test]
fn convex_polygons_touch_what_separating_axes_say() {
    let mut rng = SplitMix64(0xb0c5);
    let (mut touching, mut apart) = (0, 0);
    for case in 0..cases(1_500) {
        let mask = random_mask(&mut rng);
        let to_world = random_transform(&mut rng, &mask);
        let center = Vec2::new(rng.range(-80.0, 80.0), rng.range(-80.0, 80.0));
        let polygon: Vec<Vec2> = if rng.chance(0.5) {
            let (half, turn) = (
                Vec2::new(rng.range(0.1, 20.0), rng.range(0.1, 20.0)),
                Vec2::from_angle(rng.range(-3.2, 3.2)),
            );
            [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
                .map(|(u, v)| center + turn.rotate(half * Vec2::new(u, v)))
                .to_vec()
        } else {
            (0..3)
                .map(|_| center + Vec2::new(rng.range(-20.0, 20.0), rng.range(-20.0, 20.0)))
                .collect()
        };
        let mut expected = false;
        let mut near_miss = false;
        for y in 0..mask.height() {
            for x in 0..mask.width() {
                if !mask.get(x.into(), y.into()) {
                    continue;
                }
                let quad = square(to_world, x, y);
                expected |= convex_overlap(&polygon, &quad);
                // Grown or shrunk by a hair about its center, does the answer change?
                let c = (quad[0] + quad[2]) / 2.0;
                let grown = quad.map(|q| c + (q - c) * 1.0005);
                let shrunk = quad.map(|q| c + (q - c) * 0.9995);
                near_miss |= convex_overlap(&polygon, &grown) != convex_overlap(&polygon, &shrunk);
            }
        }
        if near_miss {
            continue;
        }
        let got = convex_polygon_touches(&mask, to_world, &polygon);
        assert_eq!(got, expected, "case {case}: {polygon:?}");
        if got {
            touching += 1;
        } else {
            apart += 1;
        }
    }
    assert!(touching > cases(1_500) / 10 && apart > cases(1_500) / 10);
}

/// Bad input: `None` or `false`, no panic.
#[test]
fn point_and_polygon_queries_refuse_bad_input() {
    let mask = BitMask::solid(10, 10).unwrap();
    let empty = BitMask::new(10, 10);
    let here = Affine2::IDENTITY;
    let flat = Affine2::from_scale(Vec2::new(1.0, 0.0));
    let nan = Affine2::from_translation(Vec2::NAN);
    for (m, t, p, d) in [
        (&empty, here, Vec2::ZERO, 100.0),
        (&mask, flat, Vec2::ZERO, 100.0),
        (&mask, nan, Vec2::ZERO, 100.0),
        (&mask, here, Vec2::NAN, 100.0),
        (&mask, here, Vec2::ZERO, f32::NAN),
        (&mask, here, Vec2::ZERO, -1.0),
        (&mask, here, Vec2::new(1e30, 0.0), 100.0),
    ] {
        assert!(nearest_solid_pixel(m, t, p, d).is_none(), "{t:?} {p:?} {d}");
    }
    // Far away with an infinite reach: still the nearest pixel.
    let far = nearest_solid_pixel(&mask, here, Vec2::new(1e6, 5.5), f32::INFINITY).unwrap();
    assert_eq!(far.pixel, [9, 5]);
    let square = [Vec2::ZERO, Vec2::X * 5.0, Vec2::ONE * 5.0, Vec2::Y * 5.0];
    assert!(convex_polygon_touches(&mask, here, &square));
    assert!(!convex_polygon_touches(&mask, here, &[]));
    assert!(!convex_polygon_touches(&empty, here, &square));
    assert!(!convex_polygon_touches(&mask, flat, &square));
    assert!(!convex_polygon_touches(&mask, here, &[Vec2::NAN; 3]));
    let huge = square.map(|c| c * 1e30);
    assert!(convex_polygon_touches(&mask, here, &huge));
}
