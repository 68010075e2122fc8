//! `transformed_gap`: the gap between two placed masks that do not touch, against the
//! nearest pair of pixel centers found by brute force, turned, scaled and flipped.

use bevy_math::Vec2;
use pixel_collide::{
    BitMask, GAP_BULGE, GAP_END_APART, Gap, MAX_GAP_SIDES, sprite_to_world,
    transformed_contact_or_gaps, transformed_gap, transformed_gaps, transformed_gaps_beside,
    transformed_intersects,
};
use pixel_collide_support::ellipse_mask;
use pixel_collide_support::rng::SplitMix64;
use proptest::prelude::*;

fn solid(w: u32, h: u32) -> BitMask {
    BitMask::solid(w, h).unwrap()
}

/// Centers of the set pixels in the world.
fn centers(mask: &BitMask, to_world: bevy_math::Affine2) -> Vec<Vec2> {
    let (w, h) = mask.size();
    let mut points = Vec::new();
    for y in 0..h {
        for x in 0..w {
            if mask.get(i64::from(x), i64::from(y)) {
                points.push(to_world.transform_point2(Vec2::new(x as f32 + 0.5, y as f32 + 0.5)));
            }
        }
    }
    points
}

#[test]
fn two_boxes_side_by_side_are_their_gap_apart_and_the_normal_points_across() {
    let a = solid(10, 10);
    let b = solid(30, 20);
    // A's right edge at x 5, B's left edge at x 12: 7 px apart.
    let a_to_world = sprite_to_world(Vec2::ZERO, 0.0, Vec2::ONE, a.size());
    let b_to_world = sprite_to_world(Vec2::new(27.0, 0.0), 0.0, Vec2::ONE, b.size());
    let gap = transformed_gap(&a, a_to_world, &b, b_to_world, 20.0).unwrap();
    assert!((gap.distance - 7.0).abs() < 1e-3, "{gap:?}");
    assert!((gap.normal - Vec2::X).length() < 1e-3, "{gap:?}");
    // At the middle of the facing sides, not at one corner.
    assert!((gap.point - Vec2::new(8.5, 0.0)).length() < 1e-3, "{gap:?}");
    // Asked the other way round, the normal turns: it points from the first to the second.
    let back = transformed_gap(&b, b_to_world, &a, a_to_world, 20.0).unwrap();
    assert!((back.normal + Vec2::X).length() < 1e-3, "{back:?}");
    assert_eq!(back.distance, gap.distance);
    // Farther than asked: none.
    assert_eq!(transformed_gap(&a, a_to_world, &b, b_to_world, 6.0), None);
}

#[test]
fn touching_and_nonsense_give_none() {
    let a = solid(10, 10);
    let at = |x: f32| sprite_to_world(Vec2::new(x, 0.0), 0.0, Vec2::ONE, a.size());
    assert_eq!(transformed_gap(&a, at(0.0), &a, at(5.0), 50.0), None);
    assert_eq!(transformed_gap(&a, at(0.0), &a, at(f32::NAN), 50.0), None);
    assert_eq!(transformed_gap(&a, at(0.0), &a, at(20.0), f32::NAN), None);
    assert_eq!(transformed_gap(&a, at(0.0), &a, at(20.0), -1.0), None);
    let flat = bevy_math::Affine2::from_scale(Vec2::new(1.0, 0.0));
    assert_eq!(transformed_gap(&a, at(0.0), &a, flat, 50.0), None);
    let empty = BitMask::new(8, 8);
    assert_eq!(transformed_gap(&a, at(0.0), &empty, at(20.0), 50.0), None);
    // Absurd but finite: far past i64 in the other's pixels, and pixels so small that
    // the reach in them is infinite. No overflow, and the answers still hold.
    let big = solid(20, 20);
    let tiny = |x: f32| {
        bevy_math::Affine2::from_scale_angle_translation(Vec2::splat(1e-18), 0.0, Vec2::new(x, 0.0))
    };
    assert_eq!(transformed_gap(&a, at(0.0), &big, tiny(1e-17), 50.0), None);
    // Gaps are looked for within 128 of the larger mask's pixels: none here.
    assert_eq!(transformed_gap(&a, at(0.0), &big, tiny(10.0), 50.0), None);
    assert_eq!(transformed_gap(&a, at(0.0), &big, tiny(1e30), 50.0), None);
    assert_eq!(transformed_gap(&big, tiny(1e30), &a, at(0.0), 50.0), None);
}

/// A post standing in the middle of a slot is as near one wall as the other: the gap is
/// one of them, not none because their directions cancel.
#[test]
fn a_post_midway_in_a_slot_has_a_gap() {
    let post = solid(4, 30);
    let mut walls = solid(30, 20);
    walls.erase(&solid(10, 20), (10, 0));
    let post_to_world = sprite_to_world(Vec2::ZERO, 0.0, Vec2::ONE, post.size());
    let walls_to_world = sprite_to_world(Vec2::ZERO, 0.0, Vec2::ONE, walls.size());
    // The post covers x -2..2, the slot -5..5: 3 px each side.
    let gap = transformed_gap(&post, post_to_world, &walls, walls_to_world, 10.0).unwrap();
    assert!((gap.distance - 3.0).abs() < 1e-3, "{gap:?}");
    assert!(gap.normal.x.abs() > 0.999, "{gap:?}");
    let mut gaps = Vec::new();
    transformed_gaps(
        &post,
        post_to_world,
        &walls,
        walls_to_world,
        10.0,
        &mut gaps,
    );
    // Both walls, nearest first (then the walls' far corners, past the post's ends).
    assert!(
        gaps.len() >= 2 && gaps[1].distance == gap.distance,
        "{gaps:?}"
    );
    assert!(gaps[0].normal.dot(gaps[1].normal) < -0.999, "{gaps:?}");
}

/// Sampling is one way: here A's one pixel lands on B while none of B's lands on A. That
/// is a touch (`transformed_overlap` has a contact), so there is no gap either way round.
#[test]
fn a_touch_only_a_sees_is_no_gap() {
    let mut a = BitMask::new(20, 20);
    a.set(10, 10, true);
    let b = solid(4, 4);
    let a_to_world = bevy_math::Affine2::IDENTITY;
    // B's 3-px pixels cover [5, 17)², A's pixel center (10.5, 10.5) among them; B's centers
    // (6.5, 9.5, 12.5, 15.5 on each axis) miss A's pixel [10, 11)².
    let b_to_world =
        bevy_math::Affine2::from_scale_angle_translation(Vec2::splat(3.0), 0.0, Vec2::splat(5.0));
    assert!(transformed_intersects(&a, a_to_world, &b, b_to_world));
    assert!(!transformed_intersects(&b, b_to_world, &a, a_to_world));
    assert_eq!(transformed_gap(&a, a_to_world, &b, b_to_world, 10.0), None);
    let mut gaps = Vec::new();
    transformed_gaps(&a, a_to_world, &b, b_to_world, 10.0, &mut gaps);
    assert!(gaps.is_empty(), "{gaps:?}");
    // The physics step's query gives the contact instead.
    let mut points = Vec::new();
    let contact =
        transformed_contact_or_gaps(&a, a_to_world, &b, b_to_world, 10.0, &mut points, &mut gaps);
    assert_eq!(contact.map(|c| c.count), Some(1));
    assert!(gaps.is_empty());
    // One pixel is one point: the contact's own, as deep as A still touched B.
    let contact = contact.unwrap();
    assert_eq!(points.len(), 1);
    assert_eq!(points[0].point, contact.point);
    assert!(points[0].depth >= 0.0 && points[0].depth <= contact.depth);
}

/// A mask scaled unevenly has cells shorter one way than the other: the gap is still
/// found, as near as brute force says, in every direction and both ways round.
#[test]
fn an_unevenly_scaled_mask_is_found_as_far_as_an_even_one() {
    let probe = solid(4, 4);
    let field = solid(64, 64);
    // Cells a quarter of a pixel wide and four tall: 1 px on average.
    let field_to_world = sprite_to_world(Vec2::ZERO, 0.3, Vec2::new(0.25, 4.0), field.size());
    // Only the field's outline can be nearest.
    let pb: Vec<Vec2> = field
        .outline()
        .into_iter()
        .map(|(x, y)| field_to_world.transform_point2(Vec2::new(x as f32 + 0.5, y as f32 + 0.5)))
        .collect();
    for k in 0..16 {
        let direction = Vec2::from_angle(k as f32 * std::f32::consts::TAU / 16.0);
        // Out from the middle until 10 px clear of the field's pixel centers.
        let (mut at, mut clear) = (Vec2::ZERO, 0.0);
        while clear < 10.0 {
            at += direction * 0.5;
            let probe_to_world = sprite_to_world(at, -0.7, Vec2::ONE, probe.size());
            clear = centers(&probe, probe_to_world)
                .iter()
                .flat_map(|&p| pb.iter().map(move |&q| p.distance(q)))
                .fold(f32::INFINITY, f32::min)
                - 1.0;
        }
        let probe_to_world = sprite_to_world(at, -0.7, Vec2::ONE, probe.size());
        for (gap, way) in [
            (
                transformed_gap(&probe, probe_to_world, &field, field_to_world, 30.0),
                "probe first",
            ),
            (
                transformed_gap(&field, field_to_world, &probe, probe_to_world, 30.0),
                "field first",
            ),
        ] {
            let gap = gap.unwrap_or_else(|| panic!("{way}, direction {k}: no gap, {clear} apart"));
            assert!(
                (gap.distance - clear).abs() <= 1.5,
                "{way}, direction {k}: {gap:?}, {clear}"
            );
        }
    }
}

/// A ball a little off the middle of a V whose slopes rise at 45°, near both: one gap per
/// slope, their normals pointing down each slope's way (apart by about 90°), the nearer
/// first and the one `transformed_gap` gives.
#[test]
fn a_ball_in_a_v_gets_a_gap_per_slope() {
    let (w, h) = (120u32, 60u32);
    let mut valley = BitMask::new(w, h);
    for y in 0..h {
        for x in 0..w {
            // Row 0 is the top of the image: set below the two slopes.
            let depth = h as f32 - (y as f32 + 0.5);
            valley.set(
                i64::from(x),
                i64::from(y),
                depth < (x as f32 + 0.5 - 60.0).abs(),
            );
        }
    }
    let mut ball = BitMask::new(13, 13);
    ball.fill_circle(6.5, 6.5, 6.5);
    let valley_to_world = sprite_to_world(Vec2::ZERO, 0.0, Vec2::ONE, valley.size());
    // The V's bottom is at (0, -30); the ball 2 px right of the middle, above the bottom.
    let ball_to_world = sprite_to_world(Vec2::new(2.0, -30.0 + 14.0), 0.0, Vec2::ONE, ball.size());
    assert!(!transformed_intersects(
        &ball,
        ball_to_world,
        &valley,
        valley_to_world
    ));
    let mut gaps = Vec::new();
    transformed_gaps(
        &ball,
        ball_to_world,
        &valley,
        valley_to_world,
        10.0,
        &mut gaps,
    );
    assert!((2..=MAX_GAP_SIDES).contains(&gaps.len()), "{gaps:?}");
    let right = gaps.iter().find(|g| g.normal.x > 0.5 && g.normal.y < -0.5);
    let left = gaps.iter().find(|g| g.normal.x < -0.5 && g.normal.y < -0.5);
    let (Some(right), Some(left)) = (right, left) else {
        panic!("a gap down each slope: {gaps:?}");
    };
    // Right of the middle, the right slope is nearer.
    assert!(right.distance < left.distance, "{gaps:?}");
    assert!(
        gaps.windows(2).all(|g| g[0].distance <= g[1].distance),
        "{gaps:?}"
    );
    let nearest = transformed_gap(&ball, ball_to_world, &valley, valley_to_world, 10.0).unwrap();
    // The same gap but for the ends and bulges, which only the search for every side names.
    assert_eq!(
        Gap {
            ends: [None, None],
            bulges: [None, None],
            ..gaps[0]
        },
        nearest
    );
    assert_eq!(nearest.ends, [None, None]);
    // Out of reach of both: none.
    transformed_gaps(
        &ball,
        ball_to_world,
        &valley,
        valley_to_world,
        0.5,
        &mut gaps,
    );
    assert!(gaps.is_empty(), "{gaps:?}");
}

/// A bar flat over a floor: its side's ends are its two ends, each as far above the
/// floor as the middle.
#[test]
fn a_level_bar_over_a_floor_is_held_at_both_ends() {
    let bar = solid(60, 6);
    let (floor, floor_to_world) = floor_at_origin();
    // The floor's top at y 10; the bar's bottom 3 px above it.
    let bar_to_world = sprite_to_world(Vec2::new(0.0, 16.0), 0.0, Vec2::ONE, bar.size());
    let mut gaps = Vec::new();
    transformed_gaps(&bar, bar_to_world, &floor, floor_to_world, 10.0, &mut gaps);
    assert_eq!(gaps.len(), 1, "{gaps:?}");
    let gap = gaps[0];
    assert!((gap.distance - 3.0).abs() < 1e-3, "{gap:?}");
    assert!((gap.normal + Vec2::Y).length() < 1e-3, "{gap:?}");
    let [Some(first), Some(second)] = gap.ends else {
        panic!("both ends: {gap:?}");
    };
    let (left, right) = if first.point.x < second.point.x {
        (first, second)
    } else {
        (second, first)
    };
    // The outermost pixel columns' centers, 29.5 px either side.
    assert!((left.point.x + 29.5).abs() < 1e-3, "{gap:?}");
    assert!((right.point.x - 29.5).abs() < 1e-3, "{gap:?}");
    for end in [left, right] {
        assert!((end.distance - 3.0).abs() < 1e-3, "{gap:?}");
    }
    assert_eq!(gap.bulges, [None, None], "a flat side has no bulge");
}

/// The floor the bars and the stone come down on: 200 × 20, centered on the origin, so
/// its top lies at y 10.
fn floor_at_origin() -> (BitMask, bevy_math::Affine2) {
    let floor = solid(200, 20);
    let floor_to_world = sprite_to_world(Vec2::ZERO, 0.0, Vec2::ONE, floor.size());
    (floor, floor_to_world)
}

/// How far above the [`floor_at_origin`]'s top (y 10) the bottom of `bar`'s lowest pixel
/// lies at `x`.
fn bottom_above_floor(bar: &BitMask, bar_to_world: bevy_math::Affine2, x: f32) -> f32 {
    let lowest = centers(bar, bar_to_world)
        .into_iter()
        .filter(|c| (c.x - x).abs() < 1.0)
        .map(|c| c.y)
        .reduce(f32::min)
        .unwrap();
    lowest - 0.5 - 10.0
}

/// A bar coming down tilted meets the floor at its low end first: its high end is its
/// side's other end, as far above the floor as its lowest pixel there, so that a solver
/// holds it as it turns onto it.
#[test]
fn a_tilted_bar_over_a_floor_names_its_high_end() {
    let bar = solid(60, 6);
    let (floor, floor_to_world) = floor_at_origin();
    // Turned counter-clockwise: the right end up by 60 sin(0.1), 6 px.
    let bar_to_world = sprite_to_world(Vec2::new(0.0, 18.0), 0.1, Vec2::ONE, bar.size());
    assert!(!transformed_intersects(
        &bar,
        bar_to_world,
        &floor,
        floor_to_world
    ));
    let mut gaps = Vec::new();
    transformed_gaps(&bar, bar_to_world, &floor, floor_to_world, 12.0, &mut gaps);
    assert_eq!(gaps.len(), 1, "{gaps:?}");
    let gap = gaps[0];
    assert!(gap.point.x < -20.0, "nearest at the low end: {gap:?}");
    let high = gap
        .ends
        .iter()
        .flatten()
        .max_by(|p, q| p.point.x.total_cmp(&q.point.x))
        .copied()
        .unwrap_or_else(|| panic!("an end: {gap:?}"));
    assert!(high.point.x > 20.0, "{gap:?}");
    assert!(
        (high.point.x - gap.point.x).abs() > GAP_END_APART,
        "{gap:?}"
    );
    // Above the floor's top (y 10) by its lowest pixel's bottom there, to within a pixel
    // (the pair's centers, along the normal, less one pixel).
    let height = bottom_above_floor(&bar, bar_to_world, high.point.x);
    assert!((high.distance - height).abs() <= 1.0, "{height} {gap:?}");
    assert!(high.distance > gap.distance + 3.0, "{gap:?}");
    // A straight side drawn aslant: its steps lie within a pixel of the line.
    assert_eq!(gap.bulges, [None, None], "{gap:?}");
}

/// A stone coming down tilted meets the floor at its low end: its rounded side bulges
/// towards the floor between that and its high end, and is named there, as near to the
/// floor as its lowest pixel there, so that a solver holds the stone as it turns: held at
/// its ends alone, the bulge sinks in first.
#[test]
fn a_tilted_stone_over_a_floor_names_the_bulge_of_its_rounded_side() {
    let stone = ellipse_mask(64, 32);
    let (floor, floor_to_world) = floor_at_origin();
    let stone_to_world = sprite_to_world(Vec2::new(0.0, 32.0), 0.3, Vec2::ONE, stone.size());
    let mut gaps = Vec::new();
    transformed_gaps(
        &stone,
        stone_to_world,
        &floor,
        floor_to_world,
        16.0,
        &mut gaps,
    );
    assert_eq!(gaps.len(), 1, "{gaps:?}");
    let gap = gaps[0];
    let across = gap.normal.perp();
    let along = |point: Vec2| (point - gap.point).dot(across);
    let named: Vec<_> = gap.bulges.iter().flatten().collect();
    assert!(!named.is_empty(), "a bulge: {gap:?}");
    for bulge in named {
        let end = gap
            .ends
            .iter()
            .flatten()
            .find(|end| along(end.point).signum() == along(bulge.point).signum())
            .unwrap_or_else(|| panic!("a bulge's end on its side: {gap:?}"));
        let (at, end_at) = (along(bulge.point).abs(), along(end.point).abs());
        assert!(
            at > GAP_END_APART && end_at - at > GAP_END_APART,
            "between the nearest and its end: {gap:?}"
        );
        let t = at / end_at;
        let line = gap.distance + t * (end.distance - gap.distance);
        assert!(bulge.distance < line - GAP_BULGE, "{gap:?}");
        let height = bottom_above_floor(&stone, stone_to_world, bulge.point.x);
        assert!((bulge.distance - height).abs() <= 1.0, "{height} {gap:?}");
    }
}

/// A bar come down tilted onto a floor, its low corner in it: beside the overlap, its
/// side's high end is as far above the floor as its lowest pixel there. The gap search
/// for masks apart finds nothing here.
#[test]
fn a_bar_landed_on_its_corner_names_its_high_end_beside_the_overlap() {
    let bar = solid(60, 6);
    let (floor, floor_to_world) = floor_at_origin();
    let bar_to_world = sprite_to_world(Vec2::new(0.0, 14.5), 0.1, Vec2::ONE, bar.size());
    assert!(transformed_intersects(
        &bar,
        bar_to_world,
        &floor,
        floor_to_world
    ));
    let mut gaps = Vec::new();
    transformed_gaps(&bar, bar_to_world, &floor, floor_to_world, 12.0, &mut gaps);
    assert!(gaps.is_empty(), "{gaps:?}");
    transformed_gaps_beside(&bar, bar_to_world, &floor, floor_to_world, 12.0, &mut gaps);
    let high = gaps
        .iter()
        .flat_map(|gap| gap.ends.iter().flatten())
        .max_by(|p, q| p.point.x.total_cmp(&q.point.x))
        .copied()
        .unwrap_or_else(|| panic!("an end: {gaps:?}"));
    assert!(high.point.x > 20.0, "{gaps:?}");
    let height = bottom_above_floor(&bar, bar_to_world, high.point.x);
    assert!(height > 3.0, "{height}");
    assert!((high.distance - height).abs() <= 1.0, "{height} {gaps:?}");
}

fn noise(rng: &mut SplitMix64, w: u32, h: u32) -> BitMask {
    let mut mask = BitMask::new(w, h);
    let (cx, cy) = (w as f32 / 2.0, h as f32 / 2.0);
    for y in 0..h {
        for x in 0..w {
            // A blob with ragged edges.
            let r = ((x as f32 + 0.5 - cx) / cx).powi(2) + ((y as f32 + 0.5 - cy) / cy).powi(2);
            mask.set(
                i64::from(x),
                i64::from(y),
                r < 0.6 + 0.5 * rng.range(0.0, 1.0),
            );
        }
    }
    mask
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: crate::cases(200),
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x5eed_0ca9),
        ..ProptestConfig::default()
    })]

    /// On random blobs, turned, scaled and flipped, apart: the gap is within a pixel and a
    /// half of the nearest pair of pixel centers (less one pixel), found when that is in
    /// reach, and across a gap of more than a pixel the normal points from A's side to B's.
    #[test]
    fn the_gap_matches_brute_force(
        seed in any::<u64>(),
        sizes in (4u32..40, 4u32..40, 4u32..90, 4u32..90),
        pose in (-3.2f32..3.2, -3.2f32..3.2, 0.0f32..6.3, 5.0f32..60.0),
        flips in (any::<bool>(), any::<bool>()),
        scale in 1.0f32..2.0,
    ) {
        let mut rng = SplitMix64(seed);
        let a = noise(&mut rng, sizes.0, sizes.1);
        let b = noise(&mut rng, sizes.2, sizes.3);
        let (angle_a, angle_b, direction, distance) = pose;
        let flip = Vec2::new(if flips.0 { -1.0 } else { 1.0 }, if flips.1 { -1.0 } else { 1.0 });
        let a_to_world = sprite_to_world(Vec2::ZERO, angle_a, Vec2::ONE, a.size());
        let reach = (sizes.0.max(sizes.1) as f32) / 2.0 + scale * sizes.2.max(sizes.3) as f32 / 2.0;
        let b_at = Vec2::from_angle(direction) * (reach * 0.5 + distance);
        let b_to_world = sprite_to_world(b_at, angle_b, flip * scale, b.size());
        prop_assume!(!transformed_intersects(&a, a_to_world, &b, b_to_world));
        let (pa, pb) = (centers(&a, a_to_world), centers(&b, b_to_world));
        prop_assume!(!pa.is_empty() && !pb.is_empty());
        let (brute, from, to) = pa
            .iter()
            .flat_map(|&p| pb.iter().map(move |&q| (p.distance(q), p, q)))
            .min_by(|x, y| x.0.total_cmp(&y.0))
            .unwrap();
        // Less one pixel of the larger mask, as the gap counts it.
        let larger = if sizes.0 * sizes.1 <= sizes.2 * sizes.3 { scale } else { 1.0 };
        let expected = (brute - larger).max(0.0);
        let max = 30.0;
        match transformed_gap(&a, a_to_world, &b, b_to_world, max) {
            Some(gap) => {
                prop_assert!(gap.distance <= max);
                prop_assert!((gap.distance - expected).abs() <= 1.5 * scale,
                    "gap {} against {expected}", gap.distance);
                // Touching but for a sliver, pixels on several sides are about as near, and
                // the normal is their mean: its direction is checked only across a real gap.
                // There it points from A to B along a pair of pixels as near as the gap
                // says: not always the nearest pair's way, as the gap is the nearest of
                // the pairs the distance field picks, and another pair, a tenth of a pixel
                // nearer, may lie at right angles to it (a corner of B between two sides
                // of A).
                if expected > 1.0 {
                    let along_a_near_pair = pa.iter().any(|&p| {
                        pb.iter().any(|&q| {
                            p.distance(q) - larger <= gap.distance + 0.5 * scale
                                && gap.normal.dot((q - p).normalize()) > 0.7
                        })
                    });
                    prop_assert!(along_a_near_pair && gap.normal.dot(to - from) > -0.5 * (to - from).length(),
                        "{:?} against {}", gap, to - from);
                }
            }
            None => prop_assert!(expected > max - 1.5 * scale, "none, though {expected} apart"),
        }
        // Every side's gap: none nearer than the true gap, none past the limit, nearest
        // first, and the first no farther than the single nearest gap.
        let mut gaps = Vec::new();
        transformed_gaps(&a, a_to_world, &b, b_to_world, max, &mut gaps);
        prop_assert!(gaps.len() <= MAX_GAP_SIDES);
        for gap in &gaps {
            prop_assert!(gap.distance <= max && gap.distance >= expected - 1.5 * scale,
                "{gap:?} against {expected}");
            // Each end: across the normal from the gap's point, and within reach along it.
            for end in gap.ends.iter().flatten() {
                let across = (end.point - gap.point).dot(gap.normal.perp()).abs();
                prop_assert!(across > GAP_END_APART, "{gap:?}");
                prop_assert!((0.0..=max).contains(&end.distance), "{gap:?}");
            }
            // Each bulge: between the gap's point and an end, nearer than the line
            // between them.
            let across = gap.normal.perp();
            for bulge in gap.bulges.iter().flatten() {
                let at = (bulge.point - gap.point).dot(across);
                let end = gap.ends.iter().flatten().find(|end| {
                    let end_at = (end.point - gap.point).dot(across);
                    at * end_at > 0.0
                        && at.abs() > GAP_END_APART
                        && end_at.abs() - at.abs() > GAP_END_APART
                });
                prop_assert!(end.is_some(), "{gap:?}");
                prop_assert!((0.0..=max).contains(&bulge.distance), "{gap:?}");
                prop_assert!(bulge.distance < max.max(end.unwrap().distance) - GAP_BULGE, "{gap:?}");
            }
        }
        prop_assert!(gaps.windows(2).all(|g| g[0].distance <= g[1].distance), "{gaps:?}");
        match (gaps.first(), transformed_gap(&a, a_to_world, &b, b_to_world, max)) {
            (Some(first), Some(single)) => prop_assert!(first.distance <= single.distance),
            (None, Some(single)) => prop_assert!(false, "no sides, though {single:?}"),
            _ => {}
        }
    }
}
