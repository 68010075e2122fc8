//! The bouncing-basketball physics, headless at fixed steps with seeded launches: free
//! fall, restitution, friction, rolling, frame-rate independence, and no tunnelling over
//! ten thousand launches through the tutorial's staircase.

use std::f32::consts::{FRAC_PI_4, PI, TAU};
use std::sync::Arc;

use bevy_math::{Affine2, Rect, Vec2};
use pixel_collide::sprite_to_world;
use pixel_collide::{BitMask, transformed_intersects};
use pixel_collide_game::sim::ball::{
    BRICK, BallWorld, FixedStepper, LAUNCH_SPEED, LAUNCH_START, Material, Platform, SLOW_STONE,
    STONE, disc_mask, staircase,
};
use pixel_collide_support::rng::SplitMix64;

const BALL: u32 = 48;
const RADIUS: f32 = BALL as f32 / 2.0;
const HALF_THICKNESS: f32 = 16.0;

fn ball_mask() -> Arc<BitMask> {
    Arc::new(disc_mask(BALL))
}

fn slab(width: u32) -> Arc<BitMask> {
    Arc::new(BitMask::solid(width, 32).unwrap())
}

/// A world with one flat platform whose top is at y = 16.
fn floor(width: u32, material: Material) -> BallWorld {
    let platform = Platform {
        mask: slab(width),
        center: Vec2::ZERO,
        angle: 0.0,
        material,
    };
    let mut world = BallWorld::new(ball_mask(), vec![platform]);
    world.bounds = Rect::new(-1e5, -1e5, 1e5, 1e5);
    world
}

fn tutorial_world() -> BallWorld {
    BallWorld::new(ball_mask(), staircase(slab(320), slab(320), slab(320)))
}

fn ball(world: &BallWorld) -> &pixel_collide_game::sim::ball::Ball {
    world.ball.as_ref().expect("ball in play")
}

fn overlaps(world: &BallWorld, platform: &Platform) -> bool {
    let b = ball(world);
    transformed_intersects(&b.mask, b.to_world(), &platform.mask, platform.to_world())
}

#[test]
fn free_fall_matches_half_g_t_squared() {
    let mut world = floor(32, BRICK);
    world.platforms.clear();
    world.launch(Vec2::ZERO, 0.0);
    let dt = 1.0 / 60.0;
    for _ in 0..60 {
        world.step(dt);
    }
    let fallen = -ball(&world).position.y;
    let expected = 0.5 * 900.0 * 1.0f32.powi(2);
    let error = (fallen - expected).abs() / expected;
    println!("free fall 1 s at 60 Hz: {fallen} px, expected {expected}, error {error:e}");
    assert!(error < 0.01, "fell {fallen}, expected {expected}");
    // Semi-implicit Euler would be 0.5 g t dt = 7.5 px (1.7 %) short; it is not.
    assert!(error < 1e-4);
    assert!((ball(&world).velocity.y + 900.0).abs() < 0.01);
}

/// Height of the ball's bottom above the platform top (y = 16).
fn clearance(world: &BallWorld) -> f32 {
    ball(world).position.y - RADIUS - HALF_THICKNESS
}

#[test]
fn a_bounce_on_brick_rises_to_e_squared_of_the_drop() {
    for dt in [1.0 / 60.0, 1.0 / 20.0] {
        let drop = 200.0;
        let mut world = floor(320, BRICK);
        world.launch(Vec2::new(0.0, HALF_THICKNESS + RADIUS + drop), 0.0);
        let mut steps = 0;
        while world.contacts_last_step == 0 {
            world.step(dt);
            steps += 1;
            assert!(steps < 1000, "never landed");
        }
        assert!(ball(&world).velocity.y > 0.0, "did not bounce");
        let mut apex = clearance(&world);
        while ball(&world).velocity.y > 0.0 || world.contacts_last_step > 0 {
            world.step(dt);
            apex = apex.max(clearance(&world));
            assert!(!overlaps(&world, &world.platforms[0]));
        }
        // Sampled apex misses the top by up to v·dt/2 with v ≈ g dt/2: refine from the
        // state at the step where vertical speed turned negative.
        let b = ball(&world);
        let refined = clearance(&world) + b.velocity.y.powi(2) / (2.0 * 900.0);
        let apex = apex.max(refined);
        let expected = BRICK.elasticity.powi(2) * drop;
        let error = (apex - expected).abs() / expected;
        println!("dt {dt:.4}: apex {apex:.2} px, expected e²h = {expected:.2}, error {error:.4}");
        assert!(error < 0.05, "apex {apex}, expected {expected}");
        assert!(
            ball(&world).velocity.x.abs() < 1e-3,
            "a flat floor pushed sideways"
        );
    }
}

#[test]
fn slow_stone_cuts_tangential_speed_by_its_friction_every_contact_step() {
    let mut world = floor(1280, SLOW_STONE);
    world.launch(Vec2::new(-500.0, HALF_THICKNESS + RADIUS + 0.05), 300.0);
    let dt = 1.0 / 60.0;
    let mut contact_steps = 0;
    for _ in 0..40 {
        let before = ball(&world).velocity.x;
        world.step(dt);
        let after = ball(&world).velocity.x;
        if world.contacts_last_step > 0 {
            contact_steps += 1;
            let ratio = after / before;
            assert!(
                (ratio - SLOW_STONE.friction).abs() < 1e-5,
                "tangential ratio {ratio} in a contact step"
            );
        } else {
            assert_eq!(after, before, "friction without contact");
        }
        // Sliding, not bouncing.
        assert!(clearance(&world).abs() < 1.0, "left the surface");
        assert!(!overlaps(&world, &world.platforms[0]));
    }
    println!("slow stone: {contact_steps} contact steps of 40");
    assert!(contact_steps >= 35);
    let left = ball(&world).velocity.x;
    assert!((left - 300.0 * 0.9f32.powi(contact_steps)).abs() < 1e-2);
}

#[test]
fn friction_per_second_does_not_depend_on_the_step_rate() {
    let speed_after_one_second = |hz: u32| {
        let mut world = floor(1280, STONE);
        world.launch(Vec2::new(-500.0, HALF_THICKNESS + RADIUS + 0.05), 300.0);
        for _ in 0..hz {
            world.step(1.0 / hz as f32);
        }
        ball(&world).velocity.x
    };
    let (v60, v120) = (speed_after_one_second(60), speed_after_one_second(120));
    println!("stone after 1 s: {v60} px/s at 60 Hz, {v120} at 120 Hz");
    assert!((v60 - 300.0 * STONE.friction.powi(60)).abs() < 3.0);
    assert!((v60 - v120).abs() / v60 < 0.02);
}

#[test]
fn rolling_turns_by_distance_over_radius() {
    let mut world = floor(2000, STONE);
    world.launch(Vec2::new(-900.0, HALF_THICKNESS + RADIUS + 0.05), 300.0);
    // Rolling starts at the first contact.
    world.step(1.0 / 60.0);
    let start = ball(&world).position.x;
    let mut turned = 0.0;
    for _ in 0..90 {
        world.step(1.0 / 60.0);
        let b = ball(&world);
        turned += ((b.angle - b.previous_angle + PI).rem_euclid(TAU)) - PI;
    }
    let rolled = ball(&world).position.x - start;
    let expected = -rolled / RADIUS;
    println!("rolled {rolled:.1} px, turned {turned:.3} rad, expected {expected:.3}");
    assert!(turned < 0.0, "rolling right must turn clockwise");
    assert!((turned - expected).abs() / expected.abs() < 0.03);
}

#[test]
fn rotated_platform_deflects_downhill() {
    // Surface rising to the right at 45°: its normal is (−1, 1)/√2.
    let platform = Platform {
        mask: slab(320),
        center: Vec2::ZERO,
        angle: FRAC_PI_4,
        material: BRICK,
    };
    let mut world = BallWorld::new(ball_mask(), vec![platform]);
    world.bounds = Rect::new(-1e5, -1e5, 1e5, 1e5);
    world.launch(Vec2::new(0.0, 150.0), 0.0);
    while world.contacts_last_step == 0 {
        let impact = ball(&world).velocity.y;
        world.step(1.0 / 60.0);
        if world.contacts_last_step > 0 {
            // Reflect about n = (−1, 1)/√2, normal part scaled by e, tangential by μ:
            // v = (−(1 + e)/2, (e − 1)/2)·|v| ≈ (−0.925, −0.075)·|v| (gravity aside).
            let v = ball(&world).velocity / impact.abs();
            println!("45° brick: impact {impact:.1} px/s, velocity after / |impact| = {v}");
            assert!((v.x + 0.925).abs() < 0.1, "{v}");
            assert!(v.y.abs() < 0.15, "{v}");
        }
        assert!(!overlaps(&world, &world.platforms[0]));
    }
}

#[test]
fn side_hit_reflects_horizontal_speed() {
    let mut world = floor(320, BRICK);
    world.gravity = Vec2::ZERO;
    world.launch(Vec2::new(-300.0, 0.0), 600.0);
    let mut steps = 0;
    while world.contacts_last_step == 0 {
        world.step(1.0 / 30.0);
        steps += 1;
        assert!(steps < 100);
        assert!(!overlaps(&world, &world.platforms[0]));
    }
    let v = ball(&world).velocity;
    println!("side hit at 600 px/s: velocity after {v}");
    assert!((v.x + 0.85 * 600.0).abs() < 5.0, "{v}");
    assert!(v.y.abs() < 5.0, "{v}");
    assert!(ball(&world).position.x < -160.0 - RADIUS + 1.0);
}

#[test]
fn rendering_at_30_or_144_fps_gives_the_same_steps() {
    let run = |fps: f32| {
        let mut world = tutorial_world();
        world.launch(LAUNCH_START, 200.0);
        let mut stepper = FixedStepper::new(1.0 / 60.0);
        let mut positions = Vec::new();
        let mut contacts = 0;
        let frames = (6.0 * fps).round() as u32;
        for _ in 0..frames {
            for _ in 0..stepper.advance(1.0 / fps) {
                world.step(stepper.dt());
                contacts += world.contacts_last_step;
                positions.push(world.ball.as_ref().map(|b| (b.position, b.angle)));
            }
            assert!((0.0..1.0).contains(&stepper.alpha()));
        }
        (positions, contacts)
    };
    let (slow, contacts) = run(30.0);
    let (fast, _) = run(144.0);
    println!(
        "6 s: {} steps at 30 fps, {} at 144 fps, {contacts} contacts",
        slow.len(),
        fast.len()
    );
    // 360 steps either way, give or take one for rounding at the last frame boundary.
    for n in [slow.len(), fast.len()] {
        assert!((359..=360).contains(&n), "{n} steps");
    }
    assert!(contacts >= 3, "the run should bounce");
    for (k, (a, b)) in slow.iter().zip(&fast).enumerate() {
        assert_eq!(a, b, "step {k} (t = {:.3} s)", (k + 1) as f32 / 60.0);
    }
}

#[test]
fn no_tunnelling_over_ten_thousand_launches() {
    let mut world = tutorial_world();
    let platforms = world.platforms.clone();
    let frames: Vec<Affine2> = platforms.iter().map(Platform::to_world).collect();
    let mut rng = SplitMix64(0x5EED_BA11);
    let dt = 1.0 / 30.0;
    let speed = *LAUNCH_SPEED.end();
    let (mut steps, mut contacts) = (0u64, 0u64);
    let mut max_substep = 0.0f32;
    for launch in 0..crate::cases(10_000) {
        // Vary where it starts and, every third launch, step at 20 Hz instead.
        let jitter = Vec2::new(rng.range(-30.0, 30.0), rng.range(-60.0, 40.0));
        let dt = if launch % 3 == 0 { 1.0 / 20.0 } else { dt };
        world.launch(LAUNCH_START + jitter, speed);
        for _ in 0..150 {
            let Some(before) = world.ball.as_ref().map(|b| b.position) else {
                break;
            };
            world.step(dt);
            steps += 1;
            contacts += u64::from(world.contacts_last_step);
            let Some(b) = world.ball.as_ref() else {
                break;
            };
            max_substep = max_substep
                .max(b.position.distance(before) / world.substeps_last_step.max(1) as f32);
            let to_world = sprite_to_world(b.position, b.angle, Vec2::ONE, (BALL, BALL));
            for (platform, frame) in platforms.iter().zip(&frames) {
                assert!(
                    !transformed_intersects(&b.mask, to_world, &platform.mask, *frame),
                    "launch {launch}: ends a step inside the platform at {}",
                    platform.center
                );
                // The center may not cross a platform's midline above or below it: a
                // 48 px ball cannot do that through a 32 px slab without tunnelling.
                let local = |p: Vec2| Vec2::from_angle(-platform.angle).rotate(p - platform.center);
                let (a, z) = (local(before), local(b.position));
                let half = platform.mask.width() as f32 / 2.0;
                assert!(
                    !(a.x.abs() <= half && z.x.abs() <= half && (a.y > 0.0) != (z.y > 0.0)),
                    "launch {launch}: crossed the platform at {} from {before} to {}",
                    platform.center,
                    b.position
                );
            }
        }
    }
    println!(
        "10 000 launches: {steps} steps, {contacts} contacts, max {max_substep:.2} px per sub-step"
    );
    assert!(contacts > 10_000, "the launches should hit the platforms");
    assert!(max_substep <= RADIUS / 4.0 + 0.5);
}

#[test]
fn bad_input_never_panics_or_goes_nan() {
    let mut world = tutorial_world();
    world.launch(LAUNCH_START, 400.0);
    for dt in [
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        -1.0,
        0.0,
        1e9,
        1e-30,
    ] {
        world.step(dt);
        let b = ball(&world);
        assert!(b.position.is_finite() && b.velocity.is_finite(), "dt {dt}");
    }
    for gravity in [
        Vec2::NAN,
        Vec2::new(f32::INFINITY, 0.0),
        Vec2::new(0.0, -1e30),
        Vec2::new(0.0, 1e30),
    ] {
        world.launch(LAUNCH_START, 400.0);
        world.gravity = gravity;
        for _ in 0..30 {
            world.step(1.0 / 20.0);
            if let Some(b) = world.ball.as_ref() {
                assert!(
                    b.position.is_finite() && b.velocity.is_finite(),
                    "{gravity}"
                );
                assert!(b.velocity.length() <= pixel_collide_game::sim::ball::MAX_SPEED * 1.001);
                for platform in &world.platforms {
                    assert!(!overlaps(&world, platform), "{gravity}");
                }
            }
        }
    }
    world.gravity = Vec2::new(0.0, -900.0);
    world.launch(Vec2::NAN, 100.0);
    world.launch(LAUNCH_START, f32::NAN);
    assert_eq!(ball(&world).velocity, Vec2::ZERO);
    world.ball.as_mut().unwrap().velocity = Vec2::new(f32::NAN, 1.0);
    world.step(1.0 / 60.0);
    assert!(ball(&world).velocity.is_finite());
    world.ball.as_mut().unwrap().position = Vec2::INFINITY;
    world.step(1.0 / 60.0);
    assert!(world.ball.is_none(), "a ball at infinity is removed");
    world.step(1.0 / 60.0);

    // Launched straight into a platform, it is out after one step.
    world.launch(world.platforms[0].center + Vec2::new(0.0, 10.0), 0.0);
    world.step(1.0 / 60.0);
    let first = world.platforms[0].clone();
    assert!(!overlaps(&world, &first));
    assert!(ball(&world).position.y > first.center.y);
}

#[test]
fn the_ball_leaves_the_screen_and_relaunch_replaces_it() {
    let mut world = tutorial_world();
    world.launch(LAUNCH_START, *LAUNCH_SPEED.end());
    let mut steps = 0;
    while world.ball.is_some() {
        world.step(1.0 / 60.0);
        steps += 1;
        assert!(steps < 60 * 60, "still in play after a minute");
    }
    println!("the fastest launch leaves the screen after {steps} steps");
    world.launch(LAUNCH_START, 200.0);
    world.step(1.0 / 60.0);
    world.launch(LAUNCH_START, 250.0);
    let b = ball(&world);
    assert_eq!((b.position, b.velocity.x), (LAUNCH_START, 250.0));
}

#[test]
fn seeded_launch_speeds_cover_the_range_deterministically() {
    let speeds = |seed| {
        let mut rng = SplitMix64(seed);
        let mut world = tutorial_world();
        (0..1000)
            .map(|_| {
                let speed = rng.range(*LAUNCH_SPEED.start(), *LAUNCH_SPEED.end());
                world.launch(LAUNCH_START, speed);
                world.ball.as_ref().map_or(f32::NAN, |b| b.velocity.x)
            })
            .collect::<Vec<_>>()
    };
    let a = speeds(7);
    assert_eq!(a, speeds(7));
    assert_ne!(a, speeds(8));
    let (lo, hi) = (*LAUNCH_SPEED.start(), *LAUNCH_SPEED.end());
    assert!(a.iter().all(|s| LAUNCH_SPEED.contains(s)));
    let min = a.iter().copied().fold(f32::INFINITY, f32::min);
    let max = a.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    assert!(min < lo + 0.02 * (hi - lo) && max > hi - 0.02 * (hi - lo));
}

#[test]
fn sprite_to_world_centers_the_mask_with_y_up() {
    let t = sprite_to_world(Vec2::new(10.0, 20.0), 0.0, Vec2::ONE, (4, 2));
    // Mask top-left (y down) is the sprite's top-left in the world (y up).
    assert!(
        t.transform_point2(Vec2::ZERO)
            .abs_diff_eq(Vec2::new(8.0, 21.0), 1e-6)
    );
    assert!(
        t.transform_point2(Vec2::new(2.0, 1.0))
            .abs_diff_eq(Vec2::new(10.0, 20.0), 1e-6)
    );
    let turned = sprite_to_world(Vec2::ZERO, PI / 2.0, Vec2::ONE, (4, 2));
    // The mask's +x (right) turns to world +y.
    let dir = turned.transform_vector2(Vec2::X);
    assert!(dir.abs_diff_eq(Vec2::Y, 1e-6), "{dir}");
}

#[test]
fn fixed_stepper_ignores_bad_frames_and_caps_hitches() {
    let mut stepper = FixedStepper::new(1.0 / 60.0);
    for bad in [f32::NAN, f32::INFINITY, -1.0, 0.0] {
        assert_eq!(stepper.advance(bad), 0, "{bad}");
    }
    assert_eq!(stepper.advance(10.0), stepper.max_steps_per_frame);
    assert!(stepper.alpha() < 1.0);
    // The dropped time is gone: the next frame runs one step, not a backlog.
    assert_eq!(stepper.advance(1.0 / 60.0), 1);
    assert_eq!(FixedStepper::new(f32::NAN).dt(), 1.0 / 60.0);
}

#[test]
fn the_game_sprites_bounce_without_overlap() {
    let load = |name: &str| {
        let path = format!("{}/assets/{name}.png", env!("CARGO_MANIFEST_DIR"));
        let image = image::open(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        Arc::new(BitMask::from_image(&image.to_rgba8(), 0))
    };
    let mut world = BallWorld::tutorial(
        load("basketball"),
        load("brick"),
        load("stone"),
        load("slow_stone"),
    );
    let mut rng = SplitMix64(42);
    let (mut touched, mut stopped, mut left) = ([0u32; 3], [0u32; 3], 0);
    let launches = crate::cases(300);
    for _ in 0..launches {
        world.launch(
            LAUNCH_START,
            rng.range(*LAUNCH_SPEED.start(), *LAUNCH_SPEED.end()),
        );
        let mut under = None;
        for _ in 0..20 * 30 {
            world.step(1.0 / 30.0);
            let Some(b) = world.ball.as_ref() else {
                break;
            };
            under = None;
            for (k, platform) in world.platforms.iter().enumerate() {
                let to_world = platform.to_world();
                assert!(!transformed_intersects(
                    &b.mask,
                    b.to_world(),
                    &platform.mask,
                    to_world
                ));
                let below = Affine2::from_translation(Vec2::new(0.0, -1.0)) * b.to_world();
                if transformed_intersects(&b.mask, below, &platform.mask, to_world) {
                    touched[k] += 1;
                    under = Some(k);
                }
            }
        }
        match world.ball.as_ref() {
            None => left += 1,
            Some(b) => {
                // Still in play after 20 s only by resting on a platform.
                assert_eq!(b.velocity, Vec2::ZERO, "at {}", b.position);
                stopped[under.expect("at rest but on nothing")] += 1;
            }
        }
    }
    println!(
        "{launches} launches: steps on brick, stone, slow stone {touched:?}; \
         came to rest there {stopped:?}; left the screen {left}"
    );
    assert!(touched.iter().all(|&n| n > 0), "{touched:?}");
}

/// A `side × side` ring: the pixels whose centers lie between radius `side / 2 − wall`
/// and `side / 2`.
fn ring_mask(side: u32, wall: f32) -> BitMask {
    let mut mask = BitMask::new(side, side);
    let r = side as f32 / 2.0;
    for j in 0..side {
        for i in 0..side {
            let d = Vec2::new(i as f32 + 0.5 - r, j as f32 + 0.5 - r).length();
            mask.set(i.into(), j.into(), d <= r && d >= r - wall);
        }
    }
    mask
}

/// Drops a ball of `mask` from random heights and sideways speeds onto one thin flat
/// platform and checks every step: the ball never ends a step overlapping the platform,
/// none of its samples (its pixel centers in the world) passes from above the platform to
/// below it, or back, while over it, and, with `max_sideways`, over the platform it never
/// moves sideways further than its own horizontal speed explains.
///
/// Steps are 1/240 s, a few pixels of motion at most, so that a sample that changes
/// sides over the platform, away from its ends, cannot have gone round an end (a bar
/// hanging over an end may swing under it legitimately).
fn drops_onto_a_thin_platform(
    mask: BitMask,
    thickness: u32,
    drops: u32,
    seed: u64,
    max_sideways: Option<f32>,
) {
    let width = 160.0;
    let platform = Platform {
        mask: Arc::new(BitMask::solid(width as u32, thickness).unwrap()),
        center: Vec2::ZERO,
        angle: 0.0,
        material: STONE,
    };
    let (top, bottom) = (thickness as f32 / 2.0, -(thickness as f32) / 2.0);
    let reach = Vec2::new(mask.width() as f32, mask.height() as f32).length() / 2.0;
    let pixels: Vec<Vec2> = (0..mask.height())
        .flat_map(|j| (0..mask.width()).map(move |i| (i, j)))
        .filter(|&(i, j)| mask.get(i.into(), j.into()))
        .map(|(i, j)| Vec2::new(i as f32 + 0.5, j as f32 + 0.5))
        .collect();
    let samples = |b: &pixel_collide_game::sim::ball::Ball| -> Vec<Vec2> {
        let to_world = b.to_world();
        pixels
            .iter()
            .map(|&p| to_world.transform_point2(p))
            .collect()
    };
    // +1 above, -1 below, 0 level with the platform (an overlap, checked on its own).
    let side = |p: Vec2| {
        if p.y >= top {
            1
        } else if p.y < bottom {
            -1
        } else {
            0
        }
    };
    let mut world = BallWorld::new(Arc::new(mask), vec![platform.clone()]);
    world.bounds = Rect::new(-1e4, -1e4, 1e4, 1e4);
    let mut rng = SplitMix64(seed);
    let dt = 1.0 / 240.0;
    let mut touched = 0;
    for drop in 0..drops {
        let mut contacts = 0;
        let start = Vec2::new(rng.range(-60.0, 60.0), top + reach + rng.range(1.0, 150.0));
        let speed = max_sideways.unwrap_or(60.0);
        world.launch(start, rng.range(-speed, speed));
        for step in 0..360 {
            let (before, was) = (ball(&world).position, samples(ball(&world)));
            world.step(dt);
            let b = ball(&world);
            let context = format!(
                "{}x{} ball, drop {drop} from {start}, step {step}: {before} to {}, angle {}",
                b.mask.width(),
                b.mask.height(),
                b.position,
                b.angle
            );
            assert!(!overlaps(&world, &platform), "ends inside, {context}");
            contacts += world.contacts_last_step;
            let away_from_ends = |p: Vec2| p.x.abs() < width / 2.0 - 4.0;
            for (p, q) in was.iter().zip(samples(b)) {
                if away_from_ends(*p) && away_from_ends(q) {
                    assert!(
                        side(*p) * side(q) >= 0,
                        "went through: a sample from {p} to {q}, {context}"
                    );
                }
            }
            // Away from the platform's corners, which may deflect it: sideways at most as
            // fast as it was launched or moves now (plus a hair of rounding).
            let inside = |x: f32| x.abs() < width / 2.0 - reach;
            if let Some(speed) = max_sideways
                && inside(b.position.x)
                && inside(before.x)
            {
                let sideways = (b.position.x - before.x).abs();
                assert!(
                    sideways <= speed.max(b.velocity.x.abs()) * dt + 0.01,
                    "shoved {sideways} px sideways, {context}"
                );
            }
        }
        touched += u32::from(contacts > 0);
    }
    // Most drops land on it: the test means something.
    assert!(
        touched > drops / 2,
        "{touched} of {drops} touched the platform"
    );
}

/// A one-pixel ball on one- and two-pixel platforms: the overlap gradient of a single
/// pixel on a thin line vanishes, and the old fallback normal (from the platform's
/// center) shoved it up to 132 px sideways, or through the platform in 28 of 200 drops.
#[test]
fn a_one_pixel_ball_rests_on_a_one_pixel_platform() {
    let dot = BitMask::solid(1, 1).unwrap();
    for (thickness, seed) in [(1, 1), (2, 2)] {
        drops_onto_a_thin_platform(dot.clone(), thickness, crate::cases(100), seed, Some(0.0));
    }
}

/// A ring with a 1.5 px wall on one- and two-pixel platforms: sub-steps a quarter of its
/// radius let the wall jump the platform (51 of 200 drops); they now follow the wall.
#[test]
fn a_thin_ring_never_tunnels_through_a_thin_platform() {
    for (side, thickness, seed) in [(40, 1, 3), (33, 2, 4)] {
        drops_onto_a_thin_platform(ring_mask(side, 1.5), thickness, 60, seed, Some(120.0));
    }
}

/// Any mask: noise, bars and blobs of random sizes, each dropped onto thin platforms.
#[test]
fn random_ball_masks_never_tunnel_through_thin_platforms() {
    let mut rng = SplitMix64(0xBA5E);
    for case in 0..u64::from(crate::cases(24)) {
        let (w, h) = (
            1 + rng.range(0.0, 30.0) as u32,
            1 + rng.range(0.0, 30.0) as u32,
        );
        let density = rng.range(0.05, 1.0);
        let mut mask = BitMask::new(w, h);
        for y in 0..h {
            for x in 0..w {
                mask.set(x.into(), y.into(), rng.next_f32() < density);
            }
        }
        if mask.count() == 0 {
            mask.set(0, 0, true);
        }
        let thickness = 1 + (case % 2) as u32;
        drops_onto_a_thin_platform(mask, thickness, 6, case, None);
    }
}

#[test]
fn thinnest_part_follows_the_thin_wall() {
    use pixel_collide_game::sim::ball::thinnest_part;
    assert_eq!(thinnest_part(&BitMask::new(5, 5)), 1.0);
    assert_eq!(thinnest_part(&BitMask::solid(1, 1).unwrap()), 1.0);
    assert!(thinnest_part(&ring_mask(40, 1.5)) <= 2.0);
    // A disc is thinnest at its top and bottom rows, still several pixels.
    assert!(thinnest_part(&disc_mask(48)) >= 6.0);
}

/// Far from the origin a pixel is below f32's spacing, so moves of a pixel round to
/// nothing or to several: steps still end (every loop in one is bounded by a count) and
/// the ball stays finite, however far out the scene is.
#[test]
fn far_scenes_step_without_hanging() {
    let mut rng = SplitMix64(99);
    for _ in 0..24 {
        let far = 10f32.powf(rng.range(5.0, 12.0));
        let center = Vec2::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0)) * far;
        let platform = Platform {
            mask: slab(320),
            center,
            angle: rng.range(-0.5, 0.5),
            material: BRICK,
        };
        let mut world = BallWorld::new(ball_mask(), vec![platform]);
        world.bounds = Rect::from_center_half_size(center, Vec2::splat(far));
        world.launch(center + Vec2::new(0.0, rng.range(0.0, 60.0)), 100.0);
        for _ in 0..30 {
            world.step(1.0 / 60.0);
            if let Some(b) = &world.ball {
                assert!(b.position.is_finite() && b.velocity.is_finite());
            }
        }
    }
}
