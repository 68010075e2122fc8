//! `transformed_time_of_impact` against brute force: for straight motions, the earliest
//! entry of any of A's pixel centers into any of B's set pixels (each pair's segment
//! clipped to the pixel's square, in B's mask space); for turning ones, the overlap's own
//! definition (`transformed_intersects`) at fractions so close that no sample moves a
//! twentieth of a pixel between two.

use bevy_math::{Affine2, DAffine2, DVec2, Mat2, Vec2};
use pixel_collide::{
    BitMask, MaskMotion, sprite_to_world, transformed_intersects, transformed_overlap,
    transformed_time_of_impact,
};
use pixel_collide_support::rng::SplitMix64;

use super::cases;
use super::ray::entry_into_pixel;

fn random_mask(rng: &mut SplitMix64, max_side: u32, density: f32) -> BitMask {
    let (w, h) = (
        1 + rng.below(u64::from(max_side)) as u32,
        1 + rng.below(u64::from(max_side)) as u32,
    );
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

/// A sprite's placement: turned, scaled (unevenly at times), flipped at times.
fn random_pose(rng: &mut SplitMix64, mask: &BitMask, center: Vec2) -> Affine2 {
    let mut scale = Vec2::splat(rng.range(0.5, 3.0));
    if rng.chance(0.3) {
        scale.y = rng.range(0.5, 3.0);
    }
    if rng.chance(0.3) {
        scale.x = -scale.x;
    }
    if rng.chance(0.3) {
        scale.y = -scale.y;
    }
    let angle = if rng.chance(0.3) {
        0.0
    } else {
        rng.range(-3.2, 3.2)
    };
    sprite_to_world(center, angle, scale, mask.size())
}

fn to_f64(t: Affine2) -> DAffine2 {
    DAffine2::from_mat2_translation(t.matrix2.as_dmat2(), t.translation.as_dvec2())
}

/// The earliest entry of A's pixel centers into B's set pixels as A moves by `shift`.
fn brute_force_straight(
    a: &BitMask,
    a_to_world: Affine2,
    shift: Vec2,
    b: &BitMask,
    b_to_world: Affine2,
) -> Option<f64> {
    let world_to_b = to_f64(b_to_world).inverse();
    let along = world_to_b.transform_vector2(shift.as_dvec2());
    let mut first: Option<f64> = None;
    for j in 0..a.height() {
        for i in 0..a.width() {
            if !a.get(i.into(), j.into()) {
                continue;
            }
            let center = DVec2::new(f64::from(i) + 0.5, f64::from(j) + 0.5);
            let start = world_to_b.transform_point2(to_f64(a_to_world).transform_point2(center));
            for y in 0..b.height() {
                for x in 0..b.width() {
                    if b.get(x.into(), y.into())
                        && let Some(t) = entry_into_pixel(start, along, 1.0, x, y)
                    {
                        first = Some(first.map_or(t, |f| f.min(t)));
                    }
                }
            }
        }
    }
    first
}

/// Straight casts of random sprites at random placements and speeds (up to 10,000 px)
/// find the brute force's first entry, to a hundredth of a pixel of travel; none where it
/// finds none. Sprites that overlap at the start are reported so, at fraction 0.
#[test]
fn straight_casts_find_the_first_entry() {
    let mut rng = SplitMix64(0x7011);
    let (mut hits, mut misses, mut inside, mut aligned_hits) = (0, 0, 0, 0);
    for case in 0..cases(600) {
        let a = random_mask(&mut rng, 8, 0.6);
        // Sparse at times: long clear stretches, where rays are skipped by the distance
        // field.
        let density = if rng.chance(0.5) { 0.15 } else { 0.01 };
        let b = random_mask(&mut rng, 60, density);
        let b_to_world = random_pose(&mut rng, &b, Vec2::ZERO);
        // Outside B's rectangle, or within it.
        let spread = if rng.chance(0.5) { 120.0 } else { 30.0 };
        let start = Vec2::new(rng.range(-spread, spread), rng.range(-spread, spread));
        let mut a_to_world = random_pose(&mut rng, &a, start);
        // At times turned and scaled as B is, its pixels onto B's one for one (a character
        // on a terrain): the case the cast answers by whole-pixel offsets.
        let one_for_one = rng.chance(0.35);
        if one_for_one {
            a_to_world = Affine2::from_mat2_translation(b_to_world.matrix2, a_to_world.translation);
        }
        // Aimed near B, at speeds from a pixel to 10,000 px a cast.
        let speed = 10f32.powf(rng.range(0.0, 4.0));
        let aim = Vec2::new(rng.range(-30.0, 30.0), rng.range(-30.0, 30.0)) - start;
        let shift = aim.normalize_or(Vec2::X) * speed;
        let found = transformed_time_of_impact(
            &a,
            a_to_world,
            MaskMotion::translation(shift),
            &b,
            b_to_world,
        );
        if transformed_intersects(&a, a_to_world, &b, b_to_world) {
            let found = found.expect("overlapping at the start");
            assert!(found.started_inside && found.fraction == 0.0, "case {case}");
            inside += 1;
            continue;
        }
        let expected = brute_force_straight(&a, a_to_world, shift, &b, b_to_world);
        match (found, expected) {
            (None, None) => misses += 1,
            (Some(found), Some(expected)) => {
                aligned_hits += u32::from(one_for_one);
                let travel = (f64::from(found.fraction) - expected).abs() * f64::from(speed);
                assert!(
                    travel < 1e-2,
                    "case {case}: fraction {} against {expected} ({travel} px of travel)",
                    found.fraction
                );
                assert!(!found.started_inside);
                assert!(
                    (found.normal.length() - 1.0).abs() < 1e-4
                        && found.normal.dot(shift) <= 1e-3 * speed,
                    "case {case}: normal {:?} against the motion {shift:?}",
                    found.normal
                );
                // The point is A's touching sample, where the motion has carried it.
                let [i, j] = found.pixel;
                assert!(a.get(i.into(), j.into()));
                let sample = MaskMotion::translation(shift)
                    .pose_at(a_to_world, found.fraction)
                    .transform_point2(Vec2::new(i as f32 + 0.5, j as f32 + 0.5));
                assert!(
                    sample.distance(found.point) < 1e-2 + 1e-6 * speed,
                    "case {case}: point {:?}, sample {sample:?}",
                    found.point
                );
                hits += 1;
            }
            (found, expected) => {
                panic!("case {case}: found {found:?}, brute force {expected:?}")
            }
        }
    }
    assert!(hits > cases(600) / 5 && misses > cases(600) / 10 && inside > 0);
    assert!(
        aligned_hits > cases(600) / 20,
        "{aligned_hits} one-for-one hits"
    );
}

/// A one-pixel body fired at a wall one pixel thick (a column of B, turned and moved at
/// random), at up to 10,000 px a step, stops at the wall's near side: never past it.
#[test]
fn a_one_pixel_body_never_passes_a_one_pixel_wall() {
    let mut rng = SplitMix64(0x3a11);
    let body = BitMask::solid(1, 1).unwrap();
    let mut wall = BitMask::new(1, 400);
    for y in 0..400 {
        wall.set(0, y, true);
    }
    for case in 0..cases(2_000) {
        let angle = rng.range(-3.2, 3.2);
        let wall_to_world = sprite_to_world(
            Vec2::new(rng.range(-500.0, 500.0), rng.range(-500.0, 500.0)),
            angle,
            Vec2::ONE,
            wall.size(),
        );
        // The wall's across (its mask's x) and along (y) directions in the world.
        let across = wall_to_world.transform_vector2(Vec2::X);
        let along = wall_to_world.transform_vector2(Vec2::Y);
        let middle = wall_to_world.transform_point2(Vec2::new(0.5, 200.0));
        let speed = 10f32.powf(rng.range(0.0, 4.0));
        let start_side = rng.range(1.0, speed.clamp(1.0, 1_000.0));
        // Through a point of the wall within its length, at up to 84° from square on, so
        // that the body meets the near side within the wall's length too.
        let target_along = rng.range(-150.0, 150.0);
        let start_along = target_along + rng.range(-10.0, 10.0) * start_side;
        let start = middle - across * (0.5 + start_side) + along * start_along;
        let target = middle + along * target_along;
        // Far enough to pass the wall by `speed` px.
        let shift = (target - start).normalize() * ((target - start).length() + speed);
        let body_to_world = Affine2::from_translation(start - Vec2::splat(0.5));
        let hit = transformed_time_of_impact(
            &body,
            body_to_world,
            MaskMotion::translation(shift),
            &wall,
            wall_to_world,
        )
        .unwrap_or_else(|| panic!("case {case}: passed through the wall"));
        let at = start + shift * hit.fraction;
        // Distance into the wall from its near side (mask x = 0), in px.
        let depth = (at - middle).dot(across) + 0.5;
        assert!(
            depth.abs() < 1e-2 + 1e-6 * speed * 10.0,
            "case {case}: stopped {depth} px into the wall at {speed} px a step"
        );
        assert!(
            hit.normal.dot(across) < -0.999,
            "case {case}: {:?}",
            hit.normal
        );
    }
}

/// Overlap episodes of a turning motion, found by stepping: each as the fractions it
/// starts and ends at.
fn stepped_episodes(
    a: &BitMask,
    a_to_world: Affine2,
    motion: MaskMotion,
    b: &BitMask,
    b_to_world: Affine2,
    steps: u32,
) -> Vec<(f32, f32)> {
    let mut episodes: Vec<(f32, f32)> = Vec::new();
    let mut inside = false;
    for k in 0..=steps {
        let t = k as f32 / steps as f32;
        let now = transformed_intersects(a, motion.pose_at(a_to_world, t), b, b_to_world);
        match (inside, now) {
            (false, true) => episodes.push((t, t)),
            (true, true) => episodes.last_mut().unwrap().1 = t,
            _ => {}
        }
        inside = now;
    }
    episodes
}

/// Turning casts against the overlap's definition, stepped finely: the impact is within
/// a pixel of travel of an overlap, never later than a pixel past the first overlap that
/// lasts a pixel of travel (a wall crossed), and found whenever such an overlap exists.
#[test]
fn turning_casts_agree_with_stepped_overlap() {
    let mut rng = SplitMix64(0x7e11);
    let mut hits = 0;
    for case in 0..cases(120) {
        let a = random_mask(&mut rng, 8, 0.6);
        let b = random_mask(&mut rng, 24, 0.2);
        let b_to_world = random_pose(&mut rng, &b, Vec2::ZERO);
        let start = Vec2::new(rng.range(-60.0, 60.0), rng.range(-60.0, 60.0));
        let a_to_world = random_pose(&mut rng, &a, start);
        if transformed_intersects(&a, a_to_world, &b, b_to_world) {
            continue;
        }
        let shift = (Vec2::new(rng.range(-20.0, 20.0), rng.range(-20.0, 20.0)) - start)
            * rng.range(0.5, 2.0);
        let pivot = start + Vec2::new(rng.range(-10.0, 10.0), rng.range(-10.0, 10.0));
        let motion = MaskMotion::translation(shift).turning(rng.range(-3.0, 3.0), pivot);
        // How far a sample can travel over the whole motion: its path's length bound.
        let reach = [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 1.0)]
            .map(|(u, v)| {
                let corner = Vec2::new(u * a.width() as f32, v * a.height() as f32);
                a_to_world.transform_point2(corner).distance(pivot)
            })
            .into_iter()
            .fold(0.0, f32::max);
        let travel = shift.length() + motion.rotation.abs() * reach;
        let steps = (travel / 0.05).ceil() as u32;
        let episodes = stepped_episodes(&a, a_to_world, motion, &b, b_to_world, steps);
        // A pixel of travel, in fractions: the smaller of the two sprites' pixels.
        let pixel = |t: Affine2| t.matrix2.determinant().abs().sqrt();
        let one_pixel = pixel(a_to_world).min(pixel(b_to_world)).min(1.0) / travel;
        let first_long = episodes
            .iter()
            .find(|(from, to)| to - from >= one_pixel)
            .map(|e| e.0);
        let hit = transformed_time_of_impact(&a, a_to_world, motion, &b, b_to_world);
        match hit {
            Some(hit) => {
                hits += 1;
                let t = hit.fraction;
                assert!(
                    episodes
                        .iter()
                        .any(|&(from, to)| from - one_pixel <= t && t <= to + one_pixel),
                    "case {case}: impact at {t} with no overlap within a pixel: {episodes:?}"
                );
                if let Some(first) = first_long {
                    assert!(
                        t <= first + one_pixel,
                        "case {case}: impact at {t}, after the overlap from {first}"
                    );
                }
            }
            None => assert!(
                first_long.is_none(),
                "case {case}: no impact, but overlaps {episodes:?}"
            ),
        }
    }
    assert!(hits > cases(120) / 5, "{hits} hits");
}

/// A motion that starts in B reports fraction 0 and the contact's own normal and point.
#[test]
fn a_cast_that_starts_inside_reports_the_contact() {
    let a = BitMask::solid(10, 10).unwrap();
    let b = BitMask::solid(40, 10).unwrap();
    let a_to_world = sprite_to_world(Vec2::new(0.0, 8.0), 0.0, Vec2::ONE, a.size());
    let b_to_world = sprite_to_world(Vec2::ZERO, 0.0, Vec2::ONE, b.size());
    let motion = MaskMotion::translation(Vec2::new(0.0, -50.0));
    let hit = transformed_time_of_impact(&a, a_to_world, motion, &b, b_to_world).unwrap();
    let contact = transformed_overlap(&a, a_to_world, &b, b_to_world).unwrap();
    assert!(hit.started_inside);
    assert_eq!(hit.fraction, 0.0);
    assert_eq!((hit.point, hit.normal), (contact.point, contact.normal));
}

/// Bad input: no panic, and a sane answer.
#[test]
fn bad_input_gets_none_or_a_sane_answer() {
    let a = BitMask::solid(4, 4).unwrap();
    let b = BitMask::solid(30, 30).unwrap();
    let empty = BitMask::new(5, 5);
    let here = Affine2::from_translation(Vec2::new(-100.0, 0.0));
    let there = Affine2::IDENTITY;
    let toward = MaskMotion::translation(Vec2::new(200.0, 0.0));
    let cast = |a: &BitMask, at: Affine2, motion: MaskMotion, b: &BitMask, b_at: Affine2| {
        transformed_time_of_impact(a, at, motion, b, b_at)
    };
    assert!(cast(&a, here, toward, &b, there).is_some());
    assert!(cast(&empty, here, toward, &b, there).is_none());
    assert!(cast(&a, here, toward, &empty, there).is_none());
    let nan = Affine2::from_translation(Vec2::NAN);
    assert!(cast(&a, nan, toward, &b, there).is_none());
    assert!(cast(&a, here, toward, &b, nan).is_none());
    let flat = Affine2::from_scale(Vec2::new(1.0, 0.0));
    assert!(cast(&a, flat, toward, &b, there).is_none());
    assert!(cast(&a, here, MaskMotion::translation(Vec2::NAN), &b, there).is_none());
    assert!(
        cast(
            &a,
            here,
            toward.turning(f32::INFINITY, Vec2::ZERO),
            &b,
            there
        )
        .is_none()
    );
    assert!(
        cast(
            &a,
            here,
            MaskMotion::translation(Vec2::splat(1e30)),
            &b,
            there
        )
        .is_none()
    );
    assert!(cast(&a, here, MaskMotion::translation(Vec2::ZERO), &b, there).is_none());
    // An absurd turn is followed by at most `MAX_TURN_CHORDS` chords: bounded, and an
    // impact found is within the motion.
    if let Some(hit) = cast(&a, here, toward.turning(1e30, Vec2::ZERO), &b, there) {
        assert!((0.0..=1.0).contains(&hit.fraction));
    }
    // Far from the origin, the answer still in the right place.
    let far = Vec2::new(1e6, -1e6);
    let hit = cast(
        &a,
        Affine2::from_translation(far + Vec2::new(-100.0, 0.0)),
        toward,
        &b,
        Affine2::from_translation(far),
    )
    .unwrap();
    assert!(
        (hit.fraction * 200.0 - 96.5).abs() < 0.2,
        "{}",
        hit.fraction
    );
}

/// Pixels are half-open: a sample on a pixel's right or bottom side is outside it, and
/// moving left or up enters it at once. A one-pixel body whose center is on a wall's side,
/// moving into it, touches at fraction 0 without starting inside (it passed through before
/// the fix: the aligned cast did not test the offset it was in at fraction 0, and rays
/// clipped to the wall's box took its far side as inside); moving away, it touches nothing.
#[test]
fn a_body_on_a_pixel_side_enters_it_at_once() {
    let body = BitMask::solid(1, 1).unwrap();
    let mut block = BitMask::new(12, 12);
    block.set(5, 5, true);
    // The block's pixel (5, 5) as B turned a quarter (its sides map onto the world's axes),
    // scaled, or neither: the aligned cast and the rays.
    let placements = [
        Affine2::IDENTITY,
        Affine2::from_scale(Vec2::splat(2.0)),
        Affine2::from_angle(std::f32::consts::FRAC_PI_2),
        Affine2::from_scale(Vec2::new(-1.0, 1.0)),
    ];
    for (p, b_to_world) in placements.into_iter().enumerate() {
        // Each side of the pixel in mask space, as the point on it and the way into it.
        let sides = [
            (Vec2::new(6.0, 5.5), Vec2::NEG_X),
            (Vec2::new(5.0, 5.5), Vec2::X),
            (Vec2::new(5.5, 6.0), Vec2::NEG_Y),
            (Vec2::new(5.5, 5.0), Vec2::Y),
        ];
        for (side, into) in sides {
            let center = b_to_world.transform_point2(side);
            let body_to_world = Affine2::from_translation(center - Vec2::splat(0.5));
            let into = b_to_world.transform_vector2(into).normalize() * 20.0;
            let inside = transformed_intersects(&body, body_to_world, &block, b_to_world);
            for (motion, towards) in [(into, true), (-into, false)] {
                let hit = transformed_time_of_impact(
                    &body,
                    body_to_world,
                    MaskMotion::translation(motion),
                    &block,
                    b_to_world,
                );
                let case = format!("placement {p}, side {side}, moving {motion}");
                if inside {
                    let hit = hit.unwrap_or_else(|| panic!("{case}: inside at the start"));
                    assert!(hit.started_inside, "{case}");
                } else if towards {
                    let hit = hit.unwrap_or_else(|| panic!("{case}: passed through"));
                    assert_eq!(hit.fraction, 0.0, "{case}");
                    assert!(!hit.started_inside, "{case}");
                    assert!(
                        hit.normal.dot(motion.normalize()) < -0.999,
                        "{case}: normal {}",
                        hit.normal
                    );
                } else {
                    assert!(hit.is_none(), "{case}: {hit:?}");
                }
            }
        }
    }
}

/// A set pixel of `mask` at random (its top-left corner), if it has any.
fn random_set_pixel(rng: &mut SplitMix64, mask: &BitMask) -> Option<Vec2> {
    let set: Vec<Vec2> = (0..mask.height())
        .flat_map(|y| (0..mask.width()).map(move |x| (x, y)))
        .filter(|&(x, y)| mask.get(x.into(), y.into()))
        .map(|(x, y)| Vec2::new(x as f32, y as f32))
        .collect();
    (!set.is_empty()).then(|| set[rng.below(set.len() as u64) as usize])
}

/// The parameters in `0..=1` at which `o + d t` is in the half-open square of pixel
/// `(x, y)`: the entry (the least), and whether any beyond it is (false for a path that
/// only grazes the square's corner or sides, either answer then being right).
fn half_open_entry(o: DVec2, d: DVec2, x: u32, y: u32) -> Option<(f64, bool)> {
    let (mut low, mut high) = (0.0f64, 1.0f64);
    for axis in 0..2 {
        let lo = f64::from(if axis == 0 { x } else { y });
        let hi = lo + 1.0;
        if d[axis] == 0.0 {
            if o[axis] < lo || o[axis] >= hi {
                return None;
            }
            continue;
        }
        let (a, b) = ((lo - o[axis]) / d[axis], (hi - o[axis]) / d[axis]);
        low = low.max(a.min(b));
        high = high.min(a.max(b));
    }
    (low <= high).then_some((low, low < high))
}

/// Straight casts whose samples start on pixel sides and corners (A and B at whole and
/// half pixel places, B unturned at scales 1 and 2 or flipped) find the first entry of the
/// half-open pixels' definition: along an axis and at random angles.
#[test]
fn casts_from_pixel_sides_find_the_first_entry() {
    let mut rng = SplitMix64(0x51de);
    let (mut hits, mut at_once) = (0, 0);
    for case in 0..cases(800) {
        let a = random_mask(&mut rng, 6, 0.6);
        let b = random_mask(&mut rng, 30, 0.2);
        let scale = if rng.chance(0.5) { 1.0 } else { 2.0 };
        let flip = if rng.chance(0.3) { -1.0 } else { 1.0 };
        let b_to_world = Affine2::from_scale(Vec2::new(scale * flip, scale));
        let half =
            |rng: &mut SplitMix64, spread: f32| (rng.range(-spread, spread) * 2.0).round() / 2.0;
        let start = Vec2::new(half(&mut rng, 40.0), half(&mut rng, 40.0));
        let matrix = if rng.chance(0.5) {
            b_to_world.matrix2
        } else {
            Mat2::IDENTITY
        };
        let mut a_to_world = Affine2::from_mat2_translation(matrix, start);
        // Towards a point of B's box: along the axis nearer that way, or straight at it.
        let size = Vec2::new(b.width() as f32, b.height() as f32);
        let aim = b_to_world
            .transform_point2(Vec2::new(rng.range(0.0, size.x), rng.range(0.0, size.y)))
            - start;
        let mut way = if rng.chance(0.6) {
            if aim.x.abs() > aim.y.abs() {
                Vec2::new(aim.x.signum(), 0.0)
            } else {
                Vec2::new(0.0, aim.y.signum())
            }
        } else {
            aim.normalize_or(Vec2::X)
        };
        // Every fourth case, whatever the number of cases: one of A's pixel centers on the
        // right or bottom side of one of B's set pixels, moving into it.
        if case % 4 == 0
            && let (Some(into), Some(from)) = (
                random_set_pixel(&mut rng, &b),
                random_set_pixel(&mut rng, &a),
            )
        {
            let (side, inward) = if rng.chance(0.5) {
                (Vec2::new(1.0, 0.5), Vec2::NEG_X)
            } else {
                (Vec2::new(0.5, 1.0), Vec2::NEG_Y)
            };
            let on_side = b_to_world.transform_point2(into + side);
            a_to_world.translation = on_side - matrix * (from + Vec2::splat(0.5));
            way = b_to_world.transform_vector2(inward).normalize();
        }
        let shift = way * rng.range(1.0, 80.0);
        let found = transformed_time_of_impact(
            &a,
            a_to_world,
            MaskMotion::translation(shift),
            &b,
            b_to_world,
        );
        if transformed_intersects(&a, a_to_world, &b, b_to_world) {
            assert!(found.is_some_and(|f| f.started_inside), "case {case}");
            continue;
        }
        let world_to_b = to_f64(b_to_world).inverse();
        let along = world_to_b.transform_vector2(shift.as_dvec2());
        // The first entry, and whether a graze ties with it.
        let mut first: Option<(f64, bool)> = None;
        for (i, j) in (0..a.height()).flat_map(|j| (0..a.width()).map(move |i| (i, j))) {
            if !a.get(i.into(), j.into()) {
                continue;
            }
            let center = DVec2::new(f64::from(i) + 0.5, f64::from(j) + 0.5);
            let o = world_to_b.transform_point2(to_f64(a_to_world).transform_point2(center));
            for (x, y) in (0..b.height()).flat_map(|y| (0..b.width()).map(move |x| (x, y))) {
                if !b.get(x.into(), y.into()) {
                    continue;
                }
                if let Some((t, through)) = half_open_entry(o, along, x, y) {
                    first = match first {
                        Some((f, g)) if f < t => Some((f, g)),
                        Some((f, g)) if f == t => Some((f, g && through)),
                        _ => Some((t, through)),
                    };
                }
            }
        }
        match (found, first) {
            (None, None) => {}
            // Only a graze at the earliest entry: either answer is right.
            (_, Some((_, false))) => {}
            (Some(found), Some((expected, true))) => {
                let travel =
                    (f64::from(found.fraction) - expected).abs() * f64::from(shift.length());
                assert!(
                    travel < 1e-3,
                    "case {case}: fraction {} against {expected}",
                    found.fraction
                );
                hits += 1;
                at_once += u32::from(expected == 0.0);
            }
            (found, expected) => panic!("case {case}: found {found:?}, half-open {expected:?}"),
        }
    }
    assert!(hits > cases(800) / 6, "{hits} hits");
    assert!(at_once > 0, "no cast entered at once");
}
