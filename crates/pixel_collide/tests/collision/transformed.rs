//! Transformed overlap against brute-force center sampling, contacts, bad transforms, and
//! the tutorials' baselines.

use bevy_math::{Affine2, Vec2};
use pixel_collide::{BitMask, DEPTH_RESOLUTION, transformed_intersects, transformed_overlap};
use pixel_collide::{MANIFOLD_MAX_SAMPLES, transformed_manifold};
use pixel_collide::{transformed_first_hit, transformed_overlap_area, world_bounds};
use pixel_collide_support::baseline::{self, ColorArray};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};

/// The contract for one pixel of A, literally: set, and its center, to world, to B,
/// floored, lands on a set pixel.
fn lands_on_b(
    a: &BitMask,
    a_to_world: Affine2,
    b: &BitMask,
    b_to_world: Affine2,
    [i, j]: [u32; 2],
) -> bool {
    let center = Vec2::new(i as f32 + 0.5, j as f32 + 0.5);
    let p = b_to_world
        .inverse()
        .transform_point2(a_to_world.transform_point2(center));
    a.get(i.into(), j.into())
        && p.x >= 0.0
        && p.y >= 0.0
        && p.x < b.width() as f32
        && p.y < b.height() as f32
        && b.get(p.x as i64, p.y as i64)
}

/// How many more of A's set pixels around the overlap (within the pixels one of B's
/// spans in A, rounded, plus one, of the landing pixels' box) land on B, each moved one of
/// B's pixels along each of B's axes, than moved one back: literally, pixel by pixel.
fn count_change_around(
    a: &BitMask,
    ta: Affine2,
    b: &BitMask,
    tb: Affine2,
    landing: &[[u32; 2]],
) -> Vec2 {
    let world_to_b = tb.inverse();
    let b_to_a = (world_to_b * ta).inverse();
    // B's pixel in A: the largest singular value of the map from B into A.
    let m = b_to_a.matrix2.as_dmat2();
    let half_frobenius = (m.x_axis.length_squared() + m.y_axis.length_squared()) / 2.0;
    let det = m.determinant().abs();
    let spread = (half_frobenius * half_frobenius - det * det)
        .max(0.0)
        .sqrt();
    let reach = ((half_frobenius + spread).sqrt().round() as u32).max(1) + 1;
    let (i0, i1) = (
        landing.iter().map(|p| p[0]).min().unwrap(),
        landing.iter().map(|p| p[0]).max().unwrap(),
    );
    let (j0, j1) = (
        landing.iter().map(|p| p[1]).min().unwrap(),
        landing.iter().map(|p| p[1]).max().unwrap(),
    );
    let on_b = |p: Vec2| p.x >= 0.0 && p.y >= 0.0 && b.get(p.x.floor() as i64, p.y.floor() as i64);
    let lands = |p: Vec2| f32::from(u8::from(on_b(p)));
    let mut change = Vec2::ZERO;
    for j in j0.saturating_sub(reach)..=(j1 + reach).min(a.height() - 1) {
        for i in i0.saturating_sub(reach)..=(i1 + reach).min(a.width() - 1) {
            if a.get(i.into(), j.into()) {
                let p = world_to_b.transform_point2(
                    ta.transform_point2(Vec2::new(i as f32 + 0.5, j as f32 + 0.5)),
                );
                change.x += lands(p + Vec2::X) - lands(p - Vec2::X);
                change.y += lands(p + Vec2::Y) - lands(p - Vec2::Y);
            }
        }
    }
    change
}

/// Every pixel of A through [`lands_on_b`].
fn brute_force(a: &BitMask, a_to_world: Affine2, b: &BitMask, b_to_world: Affine2) -> u64 {
    let pixels = (0..a.height()).flat_map(|j| (0..a.width()).map(move |i| [i, j]));
    pixels
        .filter(|&p| lands_on_b(a, a_to_world, b, b_to_world, p))
        .count() as u64
}

/// `transformed_first_hit` agrees with the count and names a pixel that really lands.
fn check_first_hit(
    a: &BitMask,
    ta: Affine2,
    b: &BitMask,
    tb: Affine2,
    expected: u64,
) -> Result<(), TestCaseError> {
    let hit = transformed_first_hit(a, ta, b, tb);
    prop_assert_eq!(hit.is_some(), expected > 0);
    if let Some(pixel) = hit {
        prop_assert!(lands_on_b(a, ta, b, tb, pixel), "{:?} does not land", pixel);
    }
    Ok(())
}

/// A random blob: a filled ellipse with holes, so runs of samples are long inside and
/// the distance field has edges everywhere.
fn blob(w: u32, h: u32, holes: u64) -> BitMask {
    let mut m = BitMask::new(w, h);
    let (cx, cy) = (w as f32 / 2.0, h as f32 / 2.0);
    let mut state = holes | 1;
    for y in 0..h {
        for x in 0..w {
            let (u, v) = ((x as f32 + 0.5 - cx) / cx, (y as f32 + 0.5 - cy) / cy);
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let hole = holes != 0 && state.is_multiple_of(23);
            m.set(x.into(), y.into(), u * u + v * v <= 1.0 && !hole);
        }
    }
    m
}

fn sprite(center: Vec2, angle: f32, scale: Vec2, size: (u32, u32)) -> Affine2 {
    Affine2::from_scale_angle_translation(scale, angle, center)
        * Affine2::from_translation(-Vec2::new(size.0 as f32, size.1 as f32) / 2.0)
}

fn config(cases: u32) -> Config {
    Config {
        cases,
        rng_seed: RngSeed::Fixed(0x5eed_0002),
        failure_persistence: None,
        ..Config::default()
    }
}

fn scale_strategy() -> impl Strategy<Value = f32> {
    prop_oneof![0.3f32..3.0, -3.0f32..-0.3, Just(1.0), Just(-1.0), Just(2.0)]
}

proptest! {
    #![proptest_config(config(200))]

    #[test]
    fn transformed_matches_brute_force(
        wa in 1u32..=130, ha in 1u32..=70, wb in 1u32..=130, hb in 1u32..=70,
        holes_a in 0u64..1000, holes_b in 0u64..1000,
        angle_a in -7.0f32..7.0, angle_b in -7.0f32..7.0,
        sax in scale_strategy(), say in scale_strategy(),
        sbx in scale_strategy(), sby in scale_strategy(),
        dx in -200.0f32..200.0, dy in -200.0f32..200.0,
    ) {
        let (a, b) = (blob(wa, ha, holes_a), blob(wb, hb, holes_b));
        let ta = sprite(Vec2::ZERO, angle_a, Vec2::new(sax, say), (wa, ha));
        let tb = sprite(Vec2::new(dx, dy), angle_b, Vec2::new(sbx, sby), (wb, hb));
        let expected = brute_force(&a, ta, &b, tb);
        prop_assert_eq!(transformed_overlap_area(&a, ta, &b, tb), expected);
        prop_assert_eq!(transformed_intersects(&a, ta, &b, tb), expected > 0);
        check_first_hit(&a, ta, &b, tb, expected)?;
        let contact = transformed_overlap(&a, ta, &b, tb);
        prop_assert_eq!(contact.map_or(0, |c| u64::from(c.count)), expected);
        if let Some(c) = contact {
            prop_assert!(c.normal.is_normalized() && c.depth > 0.0 && c.point.is_finite());
            // Moving A by the depth along the normal separates them.
            let moved = Affine2::from_translation(c.normal * c.depth) * ta;
            prop_assert!(!transformed_intersects(&a, moved, &b, tb));
        }
    }

    /// Each part of a contact against its definition, on filled ellipses (convex, so that
    /// moving along the normal overlaps less and less) turned, scaled and flipped:
    /// - the point is the mean world position of A's overlapping pixel centers;
    /// - the normal is minus the gradient of the count as A moves one of B's pixels along
    ///   each of B's axes (per world px), over A's pixels around the overlap (see
    ///   [`count_change_around`]), where that gradient is not zero;
    /// - the depth separates, and [`DEPTH_RESOLUTION`] of A's pixel less does not: it is
    ///   not overlarge;
    /// - the manifold has the same contact, and one or two points among the overlapping
    ///   samples, none deeper than the contact, the deepest less than a resolution step
    ///   short of it.
    #[test]
    fn contacts_match_their_definitions(
        wa in 2u32..=90, ha in 2u32..=60, wb in 2u32..=90, hb in 2u32..=60,
        angle_a in -7.0f32..7.0, angle_b in -7.0f32..7.0,
        sax in scale_strategy(), say in scale_strategy(),
        sbx in scale_strategy(), sby in scale_strategy(),
        dx in -80.0f32..80.0, dy in -80.0f32..80.0,
    ) {
        let (a, b) = (blob(wa, ha, 0), blob(wb, hb, 0));
        let ta = sprite(Vec2::ZERO, angle_a, Vec2::new(sax, say), (wa, ha));
        let tb = sprite(Vec2::new(dx, dy), angle_b, Vec2::new(sbx, sby), (wb, hb));
        let Some(c) = transformed_overlap(&a, ta, &b, tb) else {
            prop_assume!(false);
            unreachable!()
        };
        // The point.
        let landing: Vec<[u32; 2]> = (0..ha)
            .flat_map(|j| (0..wa).map(move |i| [i, j]))
            .filter(|&p| lands_on_b(&a, ta, &b, tb, p))
            .collect();
        let mean = landing.iter().fold(bevy_math::DVec2::ZERO, |sum, &[i, j]| {
            sum + bevy_math::DVec2::new(f64::from(i) + 0.5, f64::from(j) + 0.5)
        }) / landing.len() as f64;
        let expected_point = ta.transform_point2(mean.as_vec2());
        prop_assert!(c.point.distance(expected_point) < 1e-3, "{:?} against {}", c, expected_point);
        // The normal.
        let pixel = ta.matrix2.x_axis.length().max(ta.matrix2.y_axis.length());
        let per_b_pixel = count_change_around(&a, ta, &b, tb, &landing);
        let gradient = tb.matrix2.inverse().transpose() * per_b_pixel;
        if let Some(way_out) = (-gradient).try_normalize() {
            prop_assert!(c.normal.dot(way_out) > 0.9999, "{:?} against {}", c, way_out);
        }
        // The depth: enough, and not a resolution step too much.
        let moved = |d: f32| Affine2::from_translation(c.normal * d) * ta;
        prop_assert!(!transformed_intersects(&a, moved(c.depth), &b, tb), "{:?}", c);
        let step = pixel * DEPTH_RESOLUTION;
        if c.depth > step {
            prop_assert!(transformed_intersects(&a, moved(c.depth - step), &b, tb), "{:?}, pixel {}", c, pixel);
        }
        // The manifold.
        let mut points = Vec::new();
        prop_assert_eq!(transformed_manifold(&a, ta, &b, tb, &mut points), Some(c));
        // Parts numbered from 0 in order, one or two points each, each with one normal.
        let parts = points.last().map_or(0, |p| p.part + 1);
        for part in 0..parts {
            let of_part: Vec<_> = points.iter().filter(|p| p.part == part).collect();
            prop_assert!((1..=2).contains(&of_part.len()), "{:?}", points);
            prop_assert!(of_part.iter().all(|p| p.normal == of_part[0].normal), "{:?}", points);
            prop_assert!((of_part[0].normal.length() - 1.0).abs() < 1e-3, "{:?}", points);
        }
        prop_assert!(points.windows(2).all(|w| w[0].part <= w[1].part), "{:?}", points);
        let world: Vec<Vec2> = landing
            .iter()
            .map(|&[i, j]| ta.transform_point2(Vec2::new(i as f32 + 0.5, j as f32 + 0.5)))
            .collect();
        let lo = world.iter().copied().reduce(Vec2::min).unwrap();
        let hi = world.iter().copied().reduce(Vec2::max).unwrap();
        let slack = 1e-3 * (1.0 + lo.abs().max(hi.abs()).max_element());
        if parts == 1 {
            // One part: the whole contact's normal and depth.
            let deepest = points.iter().map(|p| p.depth).fold(0.0, f32::max);
            prop_assert!(deepest >= c.depth - step - 1e-4 * c.depth, "{:?} in {:?}", points, c);
            prop_assert!(points.iter().all(|p| p.normal == c.normal), "{:?} in {:?}", points, c);
        }
        for p in &points {
            prop_assert!(p.depth >= 0.0 && p.depth.is_finite(), "{:?} in {:?}", p, c);
            if parts == 1 {
                prop_assert!(p.depth <= c.depth, "{:?} in {:?}", p, c);
            }
            prop_assert!(p.point.cmpge(lo - slack).all() && p.point.cmple(hi + slack).all(), "{:?} outside {} to {}", p, lo, hi);
        }
    }

    #[test]
    fn pure_translation_equals_overlap_area(
        wa in 1u32..=130, ha in 1u32..=40, wb in 1u32..=130, hb in 1u32..=40,
        holes_a in 0u64..1000, holes_b in 0u64..1000,
        dx in -140i32..140, dy in -50i32..50,
    ) {
        let (a, b) = (blob(wa, ha, holes_a), blob(wb, hb, holes_b));
        let tb = Affine2::from_translation(Vec2::new(dx as f32, dy as f32));
        prop_assert_eq!(
            transformed_overlap_area(&a, Affine2::IDENTITY, &b, tb),
            a.overlap_area(&b, (dx, dy))
        );
        // Moving both by the same amount changes nothing.
        let shift = Affine2::from_translation(Vec2::new(-317.0, 45.0));
        prop_assert_eq!(
            transformed_overlap_area(&a, shift, &b, shift * tb),
            a.overlap_area(&b, (dx, dy))
        );
    }

    #[test]
    fn cached_rotation_equals_transformed(
        wa in 1u32..=100, ha in 1u32..=70, wb in 1u32..=100, hb in 1u32..=70,
        holes_b in 0u64..1000, angle in -7.0f32..7.0,
        dx in -90.0f32..90.0, dy in -90.0f32..90.0,
    ) {
        let (a, b) = (blob(wa, ha, 0), blob(wb, hb, holes_b));
        let tb = sprite(Vec2::new(dx, dy), angle, Vec2::ONE, (wb, hb));
        let (rotated, offset) = b.transformed(tb).unwrap();
        prop_assert_eq!(
            a.overlap_area(&rotated, offset),
            transformed_overlap_area(&a, Affine2::IDENTITY, &b, tb)
        );
    }
}

/// A frame around a bar, its top edge a row into the bar's top and its bottom edge just
/// under the bar: the overlap alone clears a pixel up, but the frame's bottom edge then
/// meets the bar, so the depth is found over the whole frame, past the bar's far side.
#[test]
fn a_frame_around_a_bar_clears_it_past_its_far_side() {
    let mut frame = BitMask::new(24, 8);
    for x in 0..24 {
        frame.set(x, 0, true);
        frame.set(x, 7, true);
    }
    for y in 0..8 {
        frame.set(0, y, true);
        frame.set(23, y, true);
    }
    let bar = BitMask::solid(20, 7).unwrap();
    // The bar fills the frame's rows 0 to 6, between its side edges.
    let frame_to_world = pixel_collide::sprite_to_world(Vec2::ZERO, 0.0, Vec2::ONE, frame.size());
    let bar_to_world =
        pixel_collide::sprite_to_world(Vec2::new(0.0, 0.5), 0.0, Vec2::ONE, bar.size());
    let contact = transformed_overlap(&frame, frame_to_world, &bar, bar_to_world).unwrap();
    assert_eq!(contact.count, 20, "{contact:?}");
    assert!(contact.normal.y > 0.99, "out through the top: {contact:?}");
    let moved = |d: f32| Affine2::from_translation(contact.normal * d) * frame_to_world;
    assert!(
        transformed_intersects(&frame, moved(1.0), &bar, bar_to_world),
        "a pixel up, the bottom edge is in the bar"
    );
    assert!(contact.depth > 7.0, "{contact:?}");
    assert!(!transformed_intersects(
        &frame,
        moved(contact.depth),
        &bar,
        bar_to_world
    ));
    assert!(transformed_intersects(
        &frame,
        moved(contact.depth - DEPTH_RESOLUTION),
        &bar,
        bar_to_world
    ));
}

#[test]
fn bad_transforms_give_none() {
    let a = BitMask::solid(16, 16).unwrap();
    let b = BitMask::solid(16, 16).unwrap();
    let bad = [
        Affine2::from_scale(Vec2::ZERO),
        Affine2::from_scale(Vec2::new(1.0, 0.0)),
        Affine2::from_translation(Vec2::NAN),
        Affine2::from_translation(Vec2::new(f32::INFINITY, 0.0)),
        Affine2::from_angle(f32::NAN),
        Affine2::from_scale(Vec2::splat(f32::MAX)),
        Affine2::from_scale(Vec2::splat(1e-30)),
    ];
    for t in bad {
        assert!(
            !transformed_intersects(&a, t, &b, Affine2::IDENTITY),
            "{t:?}"
        );
        assert!(
            !transformed_intersects(&a, Affine2::IDENTITY, &b, t),
            "{t:?}"
        );
        assert!(transformed_overlap(&a, t, &b, Affine2::IDENTITY).is_none());
        assert!(transformed_overlap(&a, Affine2::IDENTITY, &b, t).is_none());
        assert!(b.transformed(t).is_none() || t.is_finite());
    }
    let empty = BitMask::new(0, 9);
    assert!(transformed_overlap(&empty, Affine2::IDENTITY, &b, Affine2::IDENTITY).is_none());
    assert!(!transformed_intersects(
        &a,
        Affine2::IDENTITY,
        &empty,
        Affine2::IDENTITY
    ));
    // Far away is simply a miss.
    let far = Affine2::from_translation(Vec2::splat(1e30));
    assert!(!transformed_intersects(&a, far, &b, Affine2::IDENTITY));
    assert!(!transformed_intersects(
        &a,
        Affine2::from_translation(Vec2::splat(-3e9)),
        &b,
        far
    ));
}

/// A squashed so flat in B's space that the way back (B into A) overflows f32, though
/// the way there is usable: the walk's shortcuts, which map B into A, cannot bound
/// anything, and the answer is still the definition.
#[test]
fn a_squashed_past_f32_in_b_still_overlaps_by_the_definition() {
    let a = BitMask::solid(4, 4).unwrap();
    let b = BitMask::solid(8, 1).unwrap();
    let a_to_world = Affine2::from_scale(Vec2::new(1.0, 1e-20));
    let b_to_world = Affine2::from_scale(Vec2::new(1.0, 1e20));
    // A's rows land 1e-40 apart in B, all in B's one row: every sample lands.
    assert!(!(b_to_world.inverse() * a_to_world).inverse().is_finite());
    assert_eq!(brute_force(&a, a_to_world, &b, b_to_world), 16);
    assert_eq!(transformed_overlap_area(&a, a_to_world, &b, b_to_world), 16);
    let contact = transformed_overlap(&a, a_to_world, &b, b_to_world).unwrap();
    assert_eq!(contact.count, 16);
    assert!(contact.depth.is_finite() && contact.normal.is_finite());
    let hit = transformed_first_hit(&a, a_to_world, &b, b_to_world).unwrap();
    assert!(lands_on_b(&a, a_to_world, &b, b_to_world, hit));
}

/// Corners past f32's range make infinite sides, not NaN (a huge term cancelling another),
/// and the box holds every corner, even where f32 would round a corner inwards.
#[test]
fn world_bounds_hold_every_corner_and_are_never_nan_for_a_finite_transform() {
    let huge = Affine2::from_cols(
        Vec2::new(-3.374065e38, 2.0e-22),
        Vec2::new(3.557847e37, 9.55e-12),
        Vec2::new(7.0e-15, 9.0e-41),
    );
    let bounds = world_bounds((18, 11), huge);
    assert_eq!(
        (bounds.min.x, bounds.max.x),
        (f32::NEG_INFINITY, f32::INFINITY)
    );
    assert!(
        bounds.min.y.is_finite() && bounds.max.y.is_finite(),
        "{bounds:?}"
    );
    let mut rng = pixel_collide_support::rng::SplitMix64(77);
    for _ in 0..1_000 {
        let mut value = || rng.range(-1e4, 1e4) * 10f32.powi(rng.below(9) as i32 - 4);
        let t = Affine2::from_cols(
            Vec2::new(value(), value()),
            Vec2::new(value(), value()),
            Vec2::new(value(), value()),
        );
        let bounds = world_bounds((37, 5), t);
        for corner in [(0.0, 0.0), (37.0, 0.0), (0.0, 5.0), (37.0, 5.0)] {
            let exact = bevy_math::DAffine2::from_cols(
                t.matrix2.x_axis.as_dvec2(),
                t.matrix2.y_axis.as_dvec2(),
                t.translation.as_dvec2(),
            )
            .transform_point2(bevy_math::DVec2::new(corner.0, corner.1));
            assert!(
                bounds.min.as_dvec2().cmple(exact).all()
                    && exact.cmple(bounds.max.as_dvec2()).all(),
                "{exact:?} outside {bounds:?}"
            );
        }
    }
}

#[test]
fn contact_normal_points_out_of_b() {
    // B is a wide floor; A a box resting 3 pixels into it from above (y down in world).
    let a = BitMask::solid(10, 10).unwrap();
    let b = BitMask::solid(100, 10).unwrap();
    let ta = Affine2::from_translation(Vec2::new(40.0, -7.0));
    let c = transformed_overlap(&a, ta, &b, Affine2::IDENTITY).unwrap();
    assert_eq!(c.count, 30);
    assert!(c.normal.abs_diff_eq(Vec2::NEG_Y, 1e-6), "{c:?}");
    // Its samples are rows 0.5, 1.5 and 2.5 deep: moving more than 2.5 up clears them.
    assert!(c.depth > 2.5 && c.depth <= 2.5 + DEPTH_RESOLUTION, "{c:?}");
    assert!(c.point.abs_diff_eq(Vec2::new(45.0, 1.5), 1e-4), "{c:?}");

    // From the right side, rotated by 90 degrees: the normal follows the side.
    let side = Affine2::from_translation(Vec2::new(98.0, 0.0));
    let c = transformed_overlap(&a, side, &b, Affine2::IDENTITY).unwrap();
    assert!(c.normal.abs_diff_eq(Vec2::X, 1e-6), "{c:?}");
    assert!(c.depth >= 1.5 && c.depth <= 1.5 + DEPTH_RESOLUTION, "{c:?}");
}

/// A crate lying on a floor turned any way, or standing on one corner on it, at any depth
/// and place along it: the normal is the floor's, to within a degree. (With the count's
/// gradient taken along the world's axes, a 10° floor gave 10° or 17° off by turns as the
/// crate sank, and a pile on a slope crept.) The depths miss the floor's pixel edges: a
/// crate lying flat with its samples exactly on one is decided sample by sample by the
/// rounding, either way.
#[test]
fn a_crate_on_a_turned_floor_gets_the_floors_normal() {
    let crate_mask = BitMask::solid(24, 24).unwrap();
    let floor = BitMask::solid(400, 20).unwrap();
    for floor_degrees in [0.0f32, 5.0, 10.0, 20.0, 33.0, -14.0] {
        for crate_turn in [0.0f32, 20.0, 45.0] {
            let (turn, crate_angle) = (
                floor_degrees.to_radians(),
                (floor_degrees + crate_turn).to_radians(),
            );
            let floor_to_world = sprite(Vec2::ZERO, turn, Vec2::ONE, floor.size());
            let (up, along) = (
                Vec2::new(-turn.sin(), turn.cos()),
                Vec2::new(turn.cos(), turn.sin()),
            );
            // From the crate's center to its lowest point, across the floor.
            let reach = 12.0 * (crate_turn.to_radians().cos() + crate_turn.to_radians().sin());
            for k in 0..12 {
                let sink = 0.83 + 0.1 * k as f32;
                let at = up * (10.0 + reach - sink) + along * (0.37 * k as f32 - 2.0);
                let crate_to_world = sprite(at, crate_angle, Vec2::ONE, crate_mask.size());
                let contact =
                    transformed_overlap(&crate_mask, crate_to_world, &floor, floor_to_world)
                        .unwrap_or_else(|| {
                            panic!("floor {floor_degrees}°, crate {crate_turn}°, sink {sink}: none")
                        });
                let off = contact.normal.angle_to(up).to_degrees();
                assert!(
                    off.abs() < 1.0,
                    "floor {floor_degrees}°, crate {crate_turn}°, sink {sink}: normal {off}° off"
                );
            }
        }
    }
}

#[test]
fn a_box_lying_on_a_floor_is_held_at_both_ends() {
    // As above: A's bottom three rows in the floor, columns 40 to 49.
    let a = BitMask::solid(10, 10).unwrap();
    let b = BitMask::solid(100, 10).unwrap();
    let ta = Affine2::from_translation(Vec2::new(40.0, -7.0));
    let mut points = Vec::new();
    let c = transformed_manifold(&a, ta, &b, Affine2::IDENTITY, &mut points).unwrap();
    assert_eq!(points.len(), 2, "{points:?}");
    // Each end: the columns within two pixels of it (40.5 to 42.5, 47.5 to 49.5), all
    // three rows, as deep as the whole contact.
    let mut xs: Vec<f32> = points.iter().map(|p| p.point.x).collect();
    xs.sort_by(f32::total_cmp);
    assert!(
        (xs[0] - 41.5).abs() < 1e-4 && (xs[1] - 48.5).abs() < 1e-4,
        "{points:?}"
    );
    // Both as deep as A still touched the floor: under a resolution step short of the
    // contact's depth (past 2.5 rows, 2.5 itself still touches).
    for p in &points {
        assert!((p.point.y - 1.5).abs() < 1e-4, "{p:?}");
        assert!(
            p.depth <= c.depth && p.depth >= c.depth - DEPTH_RESOLUTION,
            "{p:?}, {c:?}"
        );
        assert_eq!(p.depth, points[0].depth);
    }
}

#[test]
fn a_tilted_box_is_held_deeper_at_its_lower_end() {
    // A 40 × 10 plank turned a little, its right end lower (y down), sunk into the floor.
    let a = BitMask::solid(40, 10).unwrap();
    let b = BitMask::solid(200, 20).unwrap();
    let ta = sprite(Vec2::new(100.0, -3.0), 0.06, Vec2::ONE, (40, 10));
    let mut points = Vec::new();
    let c = transformed_manifold(&a, ta, &b, Affine2::IDENTITY, &mut points).unwrap();
    assert!(c.normal.y < -0.99, "out is up: {c:?}");
    assert_eq!(points.len(), 2, "{points:?}");
    let (left, right) = if points[0].point.x < points[1].point.x {
        (points[0], points[1])
    } else {
        (points[1], points[0])
    };
    assert!(
        right.depth <= c.depth && right.depth >= c.depth - DEPTH_RESOLUTION,
        "the lower end is the deepest: {points:?}, {c:?}"
    );
    assert!(left.depth < 0.5 * right.depth, "{points:?}");
    // The overlap reaches from the plank's right end leftwards, where it runs out.
    assert!(
        right.point.x > 115.0 && left.point.x < right.point.x - 10.0,
        "{points:?}"
    );
}

/// A bar on two legs over a V: each leg's outer corner a pixel or two into its slope. The
/// whole overlap's normal is straight up (the slopes' sum); each part gets its own slope's
/// way out, so that as one leg's overlap comes and goes the other's normal stays put.
#[test]
fn an_overlap_in_two_parts_gets_a_normal_for_each() {
    let mut a = BitMask::new(40, 8);
    for y in 0..8 {
        for x in 0..40 {
            a.set(x, y, y < 3 || !(6..34).contains(&x));
        }
    }
    // The valley's floor: row 20 in its middle, 12.8 at its ends (y down).
    let mut b = BitMask::new(60, 30);
    for y in 0..30 {
        for x in 0..60 {
            let surface = 20.0 - 0.36 * (x as f32 + 0.5 - 30.0).abs();
            b.set(x, y, y as f32 + 0.5 > surface);
        }
    }
    let ta = Affine2::from_translation(Vec2::new(10.0, 6.0));
    let mut points = Vec::new();
    let c = transformed_manifold(&a, ta, &b, Affine2::IDENTITY, &mut points).unwrap();
    assert!(c.normal.x.abs() < 0.05 && c.normal.y < -0.99, "{c:?}");
    let parts = points.last().map_or(0, |p| p.part + 1);
    assert_eq!(parts, 2, "{points:?}");
    for p in &points {
        // Up the slope under it: rightwards over the left leg, leftwards over the right.
        let outwards = if p.point.x < 30.0 { 1.0 } else { -1.0 };
        assert!(
            p.normal.x * outwards > 0.1 && p.normal.y < -0.5,
            "{p:?} in {points:?}"
        );
        assert!(p.depth >= 0.0 && p.depth <= 2.0, "{p:?}");
        assert!((12.0..15.0).contains(&p.point.y), "{p:?}");
    }
    assert_ne!(points[0].part, points.last().unwrap().part);
}

#[test]
fn short_or_huge_overlaps_are_held_at_one_point() {
    let floor = BitMask::solid(100, 10).unwrap();
    let mut points = Vec::new();
    // A single pixel, one sample in the floor.
    let dot = BitMask::solid(1, 1).unwrap();
    let ta = Affine2::from_translation(Vec2::new(50.0, 0.0));
    let c = transformed_manifold(&dot, ta, &floor, Affine2::IDENTITY, &mut points).unwrap();
    assert_eq!(points.len(), 1);
    assert_eq!(points[0].point, c.point);
    assert!(points[0].depth <= c.depth && points[0].depth >= c.depth - DEPTH_RESOLUTION);
    // A mask sunk whole into a larger one: its overlap's box is past the scan's limit.
    let side = (MANIFOLD_MAX_SAMPLES as f64).sqrt() as u32 + 1;
    let big = BitMask::solid(side, side).unwrap();
    let ground = BitMask::solid(4 * side, 4 * side).unwrap();
    let inside = Affine2::from_translation(Vec2::splat(side as f32));
    let c = transformed_manifold(&big, inside, &ground, Affine2::IDENTITY, &mut points).unwrap();
    assert_eq!(points.len(), 1);
    assert_eq!(points[0].point, c.point);
    assert!(points[0].depth <= c.depth && points[0].depth >= c.depth - DEPTH_RESOLUTION);
}

#[test]
fn tutorial_baselines_agree_on_clear_cases() {
    let a = blob(60, 50, 7);
    let b = blob(45, 70, 11);
    let rgba = |m: &BitMask| -> Vec<u8> {
        (0..m.height())
            .flat_map(|y| (0..m.width()).map(move |x| (x, y)))
            .flat_map(|(x, y)| [9, 9, 9, if m.get(x.into(), y.into()) { 255 } else { 0 }])
            .collect()
    };
    let (ra, rb) = (rgba(&a), rgba(&b));
    let ca = ColorArray {
        width: 60,
        height: 50,
        rgba: &ra,
    };
    let cb = ColorArray {
        width: 45,
        height: 70,
        rgba: &rb,
    };
    for (dx, dy) in [(0, 0), (10, -5), (-30, 20), (55, 45), (61, 0), (-200, 3)] {
        assert_eq!(
            baseline::intersect_pixels(ca, cb, (dx, dy), 0),
            a.overlap(&b, (dx, dy)).is_some()
        );
        assert_eq!(
            baseline::overlap_area_pixels(ca, cb, (dx, dy), 0),
            a.overlap_area(&b, (dx, dy))
        );
        let tb = Affine2::from_translation(Vec2::new(dx as f32, dy as f32));
        assert_eq!(
            baseline::overlap_area_pixels_transformed(ca, Affine2::IDENTITY, cb, tb, 0),
            a.overlap_area(&b, (dx, dy))
        );
    }
    let tb = sprite(Vec2::new(30.0, 25.0), 0.7, Vec2::ONE, (45, 70));
    let exact = transformed_overlap_area(&a, Affine2::IDENTITY, &b, tb);
    let stepped = baseline::overlap_area_pixels_transformed(ca, Affine2::IDENTITY, cb, tb, 0);
    // Stepping rounds differently only at pixel edges.
    assert!(
        exact.abs_diff(stepped) * 100 <= exact,
        "{exact} vs {stepped}"
    );
    assert!(baseline::intersect_pixels_transformed(
        ca,
        Affine2::IDENTITY,
        cb,
        tb,
        0
    ));
}

/// A ring: set between radii `inner` and `outer` around the center.
fn ring(side: u32, inner: f32, outer: f32) -> BitMask {
    let mut m = BitMask::new(side, side);
    let c = side as f32 / 2.0;
    for y in 0..side {
        for x in 0..side {
            let r = Vec2::new(x as f32 + 0.5 - c, y as f32 + 0.5 - c).length();
            m.set(x.into(), y.into(), (inner..outer).contains(&r));
        }
    }
    m
}

proptest! {
    #![proptest_config(config(300))]

    /// A disc in (or reaching out of) a ring's hole: the case where one lookup in A's
    /// distance field can prove there is nothing to find.
    #[test]
    fn disc_in_a_ring_hole_matches_brute_force(
        diameter in 1u32..=70,
        dx in -25.0f32..25.0, dy in -25.0f32..25.0,
        angle in -7.0f32..7.0, scale in 0.5f32..2.0,
    ) {
        let a = ring(100, 30.0, 45.0);
        let b = blob(diameter, diameter, 0);
        let tb = sprite(Vec2::new(50.0 + dx, 50.0 + dy), angle, Vec2::splat(scale), (diameter, diameter));
        let expected = brute_force(&a, Affine2::IDENTITY, &b, tb);
        prop_assert_eq!(transformed_overlap_area(&a, Affine2::IDENTITY, &b, tb), expected);
        prop_assert_eq!(transformed_intersects(&a, Affine2::IDENTITY, &b, tb), expected > 0);
    }
}

/// Noise: every run of samples crosses B's edges, so each sample is mapped on its own.
fn noise(w: u32, h: u32, seed: u64) -> BitMask {
    let mut rng = pixel_collide_support::rng::SplitMix64(seed);
    let mut m = BitMask::new(w, h);
    for y in 0..h {
        for x in 0..w {
            m.set(x.into(), y.into(), rng.chance(0.5));
        }
    }
    m
}

proptest! {
    #![proptest_config(config(120))]

    /// Far from the origin an f32 holds only a few bits below the pixel, so the two-step
    /// mapping rounds many samples to the other side of a pixel edge from the exact
    /// result: the shortcut that maps samples in f64 must hand those back to it.
    #[test]
    fn far_from_the_origin_matches_brute_force(
        wa in 1u32..=90, ha in 1u32..=40, wb in 1u32..=90, hb in 1u32..=40,
        seed in any::<u64>(),
        angle_a in -7.0f32..7.0, angle_b in -7.0f32..7.0,
        sa in scale_strategy(), sb in scale_strategy(),
        x in -40_000.0f32..40_000.0, y in -40_000.0f32..40_000.0,
        dx in -60.0f32..60.0, dy in -60.0f32..60.0,
    ) {
        let (a, b) = (noise(wa, ha, seed), noise(wb, hb, !seed));
        let ta = sprite(Vec2::new(x, y), angle_a, Vec2::splat(sa), (wa, ha));
        let tb = sprite(Vec2::new(x + dx, y + dy), angle_b, Vec2::new(sb, -sb), (wb, hb));
        let expected = brute_force(&a, ta, &b, tb);
        prop_assert_eq!(transformed_overlap_area(&a, ta, &b, tb), expected);
        prop_assert_eq!(transformed_intersects(&a, ta, &b, tb), expected > 0);
        check_first_hit(&a, ta, &b, tb, expected)?;
    }
}

/// A scale of either sign, its magnitude spread evenly over decades `lo..hi` (powers of ten).
fn decades(lo: f32, hi: f32) -> impl Strategy<Value = f32> {
    (lo..hi, any::<bool>()).prop_map(|(e, flip)| 10f32.powf(e) * if flip { -1.0 } else { 1.0 })
}

proptest! {
    #![proptest_config(config(150))]

    /// World pixels far below an f32 step of the position (scale 1e-4 at 1e4, 1e-3 at
    /// 1e6): most samples round to another B pixel than the exact mapping would give, and
    /// the clipping's rounding margin, counted in B's pixels, must keep every one of them
    /// for the literal two-step definition to decide.
    #[test]
    fn tiny_pixels_far_away_match_brute_force(
        wa in 1u32..=40, ha in 1u32..=40, wb in 1u32..=40, hb in 1u32..=40,
        seed in any::<u64>(),
        angle_a in -7.0f32..7.0, angle_b in -7.0f32..7.0,
        sa in decades(-6.0, 1.0), sb in decades(-6.0, 1.0),
        x in decades(0.0, 8.0), y in decades(0.0, 8.0),
        dx in -1.0f32..1.0, dy in -1.0f32..1.0,
    ) {
        let (a, b) = (noise(wa, ha, seed), noise(wb, hb, !seed));
        let ta = sprite(Vec2::new(x, y), angle_a, Vec2::splat(sa), (wa, ha));
        // B within reach of A: the offset in units of B's world size.
        let reach = sb.abs() * wb.max(hb) as f32;
        let tb = sprite(Vec2::new(x + dx * reach, y + dy * reach), angle_b, Vec2::new(sb, -sb), (wb, hb));
        let expected = brute_force(&a, ta, &b, tb);
        prop_assert_eq!(transformed_overlap_area(&a, ta, &b, tb), expected);
        prop_assert_eq!(transformed_intersects(&a, ta, &b, tb), expected > 0);
        check_first_hit(&a, ta, &b, tb, expected)?;
    }

    /// The contact's depth search ends and gives a finite positive depth and a unit normal
    /// for any usable scales: A's pixels far below the f32 spacing at the depth (the
    /// bisection's midpoint rounds to an end) or scales near f32's range (the diagonals
    /// overflow).
    #[test]
    fn contact_depth_ends_finite_at_any_scale(
        sa in prop_oneof![decades(-12.0, -3.0), decades(3.0, 30.0)],
        sb in prop_oneof![Just(1.0f32), decades(-3.0, 3.0), decades(3.0, 30.0)],
        wa in 1u32..=8, wb in 1u32..=70,
        angle_a in -7.0f32..7.0, angle_b in -7.0f32..7.0,
        u in -0.5f32..0.5, v in -0.5f32..0.5,
    ) {
        let (a, b) = (BitMask::solid(wa, wa).unwrap(), blob(wb, wb, 0));
        let tb = sprite(Vec2::ZERO, angle_b, Vec2::splat(sb), (wb, wb));
        // A's center somewhere over B.
        let center = Vec2::new(u, v) * sb.abs() * wb as f32;
        let ta = sprite(center, angle_a, Vec2::splat(sa), (wa, wa));
        if let Some(c) = transformed_overlap(&a, ta, &b, tb) {
            prop_assert!(c.depth.is_finite() && c.depth > 0.0, "{:?}", c);
            prop_assert!(c.normal.is_normalized(), "{:?}", c);
            prop_assert_eq!(u64::from(c.count), brute_force(&a, ta, &b, tb));
        }
    }
}

proptest! {
    #![proptest_config(config(300))]

    /// Any usable transforms, however lopsided (one axis stretched by 1e30, the other
    /// shrunk by as much), with A's center over B: a contact, when there is one, is finite
    /// throughout.
    #[test]
    fn contacts_are_finite_for_any_usable_transform(
        sx in decades(-30.0, 30.0), sy in decades(-30.0, 30.0), angle in -4.0f32..4.0,
        x in 0.0f32..20.0, y in 0.0f32..20.0,
        wa in 1u32..=6, ha in 1u32..=6,
    ) {
        let a = BitMask::solid(2 * wa - 1, 2 * ha - 1).unwrap();
        let b = blob(20, 20, 0);
        let ta = sprite(Vec2::new(x, y), angle, Vec2::new(sx, sy), a.size());
        if let Some(c) = transformed_overlap(&a, ta, &b, Affine2::IDENTITY) {
            prop_assert!(c.point.is_finite() && c.depth.is_finite() && c.depth > 0.0, "{:?}", c);
            prop_assert!(c.normal.is_normalized(), "{:?}", c);
        }
    }
}

/// The cases: a 4×4 mask at scale 1e-6 inside a 64×64 mask (a bisection that
/// never ended), and a scale of 1e19 (an infinite depth).
#[test]
fn contact_depth_of_the_reported_cases() {
    let (a, b) = (
        BitMask::solid(4, 4).unwrap(),
        BitMask::solid(64, 64).unwrap(),
    );
    for (scale, b_scale) in [(1e-6, 1.0), (1e19, 1e19), (1e-6, 1e3)] {
        let ta = sprite(Vec2::new(3.0, 5.0), 0.3, Vec2::splat(scale), (4, 4));
        let tb = sprite(Vec2::ZERO, 0.0, Vec2::splat(b_scale), (64, 64));
        let c = transformed_overlap(&a, ta, &b, tb)
            .unwrap_or_else(|| panic!("A lies inside B at {scale}, {b_scale}"));
        assert!(c.depth.is_finite() && c.depth > 0.0, "{c:?}");
    }
}

/// The tallest and widest masks the limit allows: sizes and pixel centers stay exact in
/// f32 (a size above 2^24 rounded up and the walk read a row past the end), so the last
/// rows and columns are walked like any other. Each case's brute force walks a million
/// pixels, so under an emulator only a share runs (`crate::cases`): still every size, each
/// at a different placement.
#[test]
fn the_largest_sides_walk_to_their_last_pixel() {
    let side = BitMask::MAX_SIDE;
    let b = BitMask::solid(5, 5).unwrap();
    let sizes = [(1, side), (side, 1), (3, side), (side, 2)];
    let placements = [(0.0, 0.0), (0.4, 0.3), (-1.2, -0.7), (3.0, 0.5)];
    let cases =
        (0..4).flat_map(|round| (0..4).map(move |k| (sizes[k], placements[(round + k) % 4])));
    for ((w, h), (angle, shift)) in cases.take(crate::cases(16).max(4) as usize) {
        let a = BitMask::solid(w, h).unwrap();
        // B over A's far corner, turned.
        let corner = Vec2::new(w as f32, h as f32) - Vec2::splat(1.0 + shift);
        let tb = sprite(corner, angle, Vec2::ONE, (5, 5));
        let expected = brute_force(&a, Affine2::IDENTITY, &b, tb);
        assert!(expected > 0, "{w}×{h}, {angle}");
        assert_eq!(
            transformed_overlap_area(&a, Affine2::IDENTITY, &b, tb),
            expected
        );
        // And A as B, walked by B's samples.
        let expected = brute_force(&b, tb, &a, Affine2::IDENTITY);
        assert_eq!(
            transformed_overlap_area(&b, tb, &a, Affine2::IDENTITY),
            expected
        );
    }
}
