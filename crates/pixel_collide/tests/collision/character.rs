//! `character::move_character` on pixel ground drawn in a y-up world: level ground,
//! slopes either side of the climb angle, ledges either side of the step height, snapping
//! down slopes and not off cliffs, a wall one pixel thick at any speed, a body buried by a
//! piece, and seeded random moves over random ground that never end inside it.

use bevy_math::{Affine2, Vec2};
use pixel_collide::character::{CharacterSettings, MaskWorld, move_character};
use pixel_collide::{BitMask, transformed_intersects};
use pixel_collide_support::rng::SplitMix64;

use super::cases;

const W: u32 = 400;
const H: u32 = 200;

/// A mask drawn y-up: row `y` of the mask at world height `H - y`.
fn y_up(height: u32, at: Vec2) -> Affine2 {
    Affine2::from_cols(Vec2::X, Vec2::NEG_Y, at + Vec2::new(0.0, height as f32))
}

/// Ground solid below `height(x)` (world, y up) in every column.
fn ground(height: impl Fn(f32) -> f32) -> BitMask {
    let mut mask = BitMask::new(W, H);
    for x in 0..W {
        let top = height(x as f32 + 0.5).clamp(0.0, H as f32);
        for y in 0..top as u32 {
            mask.set(x.into(), (H - 1 - y).into(), true);
        }
    }
    mask
}

struct Scene {
    terrain: BitMask,
    body: BitMask,
    settings: CharacterSettings,
}

impl Scene {
    fn new(terrain: BitMask) -> Scene {
        Scene {
            terrain,
            body: BitMask::solid(10, 20).unwrap(),
            settings: CharacterSettings::default(),
        }
    }

    fn pose(&self, corner: Vec2) -> Affine2 {
        y_up(self.body.height(), corner)
    }

    /// The terrain as the controller's world, drawn y up from the origin.
    fn world(&self) -> MaskWorld<'_> {
        MaskWorld {
            mask: &self.terrain,
            to_world: y_up(H, Vec2::ZERO),
        }
    }

    fn overlaps(&self, corner: Vec2) -> bool {
        transformed_intersects(
            &self.body,
            self.pose(corner),
            &self.terrain,
            y_up(H, Vec2::ZERO),
        )
    }

    /// Walks from `corner` for `frames` moves of `desired` each, with gravity's pull down
    /// when not grounded; the body's corner after each.
    fn walk(&self, mut corner: Vec2, desired: Vec2, frames: usize) -> (Vec2, bool) {
        let mut world = self.world();
        let mut grounded = true;
        for frame in 0..frames {
            let fall = if grounded { -1.0 } else { -6.0 };
            let step = move_character(
                &mut world,
                &self.body,
                self.pose(corner),
                desired + Vec2::new(0.0, fall),
                grounded,
                &self.settings,
            );
            corner += step.translation;
            grounded = step.grounded;
            assert!(
                !self.overlaps(corner),
                "frame {frame}: inside the ground at {corner}"
            );
        }
        (corner, grounded)
    }
}

/// On level ground a walk of 2 px a frame goes 100 px in 50 frames, grounded throughout,
/// its bottom pixels' centers resting on the surface: the overlap samples pixel centers,
/// so the drawn edge rests half a pixel lower.
#[test]
fn it_walks_level_ground() {
    let scene = Scene::new(ground(|_| 50.0));
    let (end, grounded) = scene.walk(Vec2::new(20.0, 50.02), Vec2::new(2.0, 0.0), 50);
    assert!((end.x - 120.0).abs() < 1e-3, "{end}");
    assert!((end.y + 0.5 - 50.0).abs() < 0.05 && grounded, "{end}");
}

/// The ground's normal is up on level ground, leans with a 30° ramp (from the ground's
/// height either side, not the pixel face under the body, which is level), is `None` at a
/// cliff's edge and in the air, and is not looked for when the settings say so.
#[test]
fn the_ground_normal_follows_the_slope() {
    let level = Scene::new(ground(|_| 50.0));
    let ramp = Scene::new(ground(|x| {
        50.0 + (x - 100.0).max(0.0) * 30f32.to_radians().tan()
    }));
    let cliff = Scene::new(ground(|x| if x < 100.0 { 80.0 } else { 20.0 }));
    let normal_at = |scene: &Scene, corner: Vec2, settings: &CharacterSettings| {
        let step = move_character(
            &mut scene.world(),
            &scene.body,
            scene.pose(corner),
            Vec2::ZERO,
            true,
            settings,
        );
        step.ground_normal
    };
    let settings = CharacterSettings::default();
    assert_eq!(
        normal_at(&level, Vec2::new(20.0, 49.52), &settings),
        Some(Vec2::Y)
    );
    let (corner, _) = ramp.walk(Vec2::new(90.0, 49.52), Vec2::new(1.0, 0.0), 60);
    let leaning = normal_at(&ramp, corner, &settings).expect("a normal on the ramp");
    let angle = leaning.angle_to(Vec2::Y).to_degrees().abs();
    assert!((20.0..=40.0).contains(&angle), "{leaning:?} at {corner}");
    assert_eq!(normal_at(&cliff, Vec2::new(98.0, 79.52), &settings), None);
    assert_eq!(normal_at(&level, Vec2::new(20.0, 70.0), &settings), None);
    let unasked = CharacterSettings {
        find_ground_normal: false,
        ..settings
    };
    assert_eq!(normal_at(&level, Vec2::new(20.0, 49.52), &unasked), None);
}

/// Ramps of 30° and 45° are climbed, one of 60° is not (the limit is 50°; no autostep,
/// which would climb a 60° staircase a riser at a time). A climb keeps the walk's pace at
/// any speed, a fraction of a pixel a frame included: the ramp is a staircase of pixels,
/// and a move that ends short of a riser must still get over it next frame.
#[test]
fn slopes_are_climbed_up_to_the_angle() {
    for (degrees, climbs) in [(30.0f32, true), (45.0, true), (60.0, false)] {
        for speed in [0.4f32, 1.3, 2.0, 7.0 / 3.0] {
            let rise = degrees.to_radians().tan();
            let mut scene = Scene::new(ground(move |x| 40.0 + (x - 100.0).max(0.0) * rise));
            scene.settings.autostep = None;
            let frames = (120.0 / speed).ceil() as usize;
            let (end, _) = scene.walk(Vec2::new(60.0, 40.02), Vec2::new(speed, 0.0), frames);
            let label = format!("{degrees}° at {speed} px a frame");
            if climbs {
                let paced = 60.0 + speed * frames as f32;
                assert!(end.x > paced - 1.0, "{label}: at {end}, not {paced}");
                let ground_there = 40.0 + (end.x - 100.0) * rise;
                assert!(end.y > ground_there - 2.0, "{label}: {end}");
            } else {
                assert!(end.x < 92.0, "{label}: climbed to {end}");
            }
        }
    }
}

/// A ledge of 3 px is stepped up (autostep 4 px); one of 6 px stops the walk.
#[test]
fn ledges_are_stepped_up_to_the_height() {
    for (height, steps) in [(3.0f32, true), (6.0, false)] {
        let scene = Scene::new(ground(
            move |x| if x > 100.0 { 40.0 + height } else { 40.0 },
        ));
        let (end, _) = scene.walk(Vec2::new(60.0, 40.02), Vec2::new(2.0, 0.0), 50);
        assert_eq!(end.x > 120.0, steps, "{height} px ledge: {end}");
    }
}

/// Walking down a 30° slope keeps the body on it (snapped each frame); walking off a
/// cliff of 30 px leaves the ground.
#[test]
fn it_snaps_down_slopes_but_not_off_cliffs() {
    let down = 30f32.to_radians().tan();
    let scene = Scene::new(ground(move |x| 150.0 - (x - 100.0).max(0.0) * down));
    let mut world = scene.world();
    let mut corner = Vec2::new(95.0, 150.02);
    for _ in 0..40 {
        let step = move_character(
            &mut world,
            &scene.body,
            scene.pose(corner),
            Vec2::new(2.0, 0.0),
            true,
            &scene.settings,
        );
        corner += step.translation;
        assert!(step.grounded, "left the slope at {corner}");
        if corner.x > 115.0 {
            let normal = step.ground_normal.expect("a normal on the slope");
            assert!(normal.x > 0.3, "{normal:?}");
        }
    }
    let cliff = Scene::new(ground(|x| if x < 100.0 { 80.0 } else { 50.0 }));
    let mut world = cliff.world();
    let step = move_character(
        &mut world,
        &cliff.body,
        cliff.pose(Vec2::new(95.0, 80.02)),
        Vec2::new(10.0, 0.0),
        true,
        &cliff.settings,
    );
    assert!(
        !step.grounded && (step.translation.y).abs() < 1e-3,
        "{step:?}"
    );
}

/// A wall one pixel thick stops a body moved into it at up to 10,000 px a frame, and a
/// body buried under a piece is lifted out.
#[test]
fn walls_stop_it_at_any_speed_and_it_climbs_out_of_a_piece() {
    let mut terrain = ground(|_| 10.0);
    for y in 0..H - 12 {
        terrain.set(200, y.into(), true);
    }
    let mut scene = Scene::new(terrain);
    scene.settings.autostep = None;
    for speed in [3.0f32, 50.0, 700.0, 10_000.0] {
        let frames = (110.0 / speed).ceil() as usize + 1;
        let (end, _) = scene.walk(Vec2::new(100.0, 10.02), Vec2::new(speed, 0.0), frames);
        // The body's right column's centers stop at the wall's near side.
        let right = end.x + 9.5;
        assert!(right < 200.0 && right > 199.9, "{speed}: {end}");
    }
    let mut world = scene.world();
    let buried = scene.pose(Vec2::new(100.0, 5.0));
    let step = move_character(
        &mut world,
        &scene.body,
        buried,
        Vec2::ZERO,
        true,
        &scene.settings,
    );
    assert!(step.started_inside);
    assert!(
        !scene.overlaps(Vec2::new(100.0, 5.0) + step.translation),
        "{step:?}"
    );
    let nan = move_character(
        &mut world,
        &scene.body,
        scene.pose(Vec2::new(50.0, 10.02)),
        Vec2::NAN,
        true,
        &scene.settings,
    );
    // Settings that are not numbers: no move, no panic.
    let broken = CharacterSettings {
        skin: f32::NAN,
        climb_step: f32::NAN,
        max_slope_climb_angle: f32::NAN,
        ..scene.settings
    };
    let step = move_character(
        &mut world,
        &scene.body,
        scene.pose(Vec2::new(50.0, 10.02)),
        Vec2::new(30.0, -3.0),
        true,
        &broken,
    );
    assert!(step.translation.is_finite(), "{step:?}");
    // No move asked: it only settles onto the ground it stood a hair above.
    assert!(
        nan.translation.x == 0.0 && nan.translation.y.abs() < 0.6,
        "{nan:?}"
    );
}

/// Random hills, with `flips` random pixels set or cleared: holes in the ground and specks
/// in the air.
fn hills_with_holes(rng: &mut SplitMix64, flips: u32) -> BitMask {
    let phase = rng.range(0.0, 6.0);
    let mut terrain = ground(move |x| 60.0 + 30.0 * (x / 23.0 + phase).sin());
    for _ in 0..flips {
        let (x, y) = (rng.below(u64::from(W)), rng.below(u64::from(H)));
        terrain.set(x as i64, y as i64, rng.chance(0.5));
    }
    terrain
}

/// Seeded random moves (up to 300 px a frame, any direction) over random hills with
/// holes never end inside the ground.
#[test]
fn random_moves_never_end_inside() {
    let mut rng = SplitMix64(0xc4a2);
    for case in 0..cases(40) {
        let mut scene = Scene::new(hills_with_holes(&mut rng, 300));
        scene.body = BitMask::solid(1 + rng.below(12) as u32, 1 + rng.below(24) as u32).unwrap();
        let mut corner = Vec2::new(rng.range(20.0, 360.0), 150.0);
        if scene.overlaps(corner) {
            continue;
        }
        let mut world = scene.world();
        let mut grounded = false;
        for frame in 0..60 {
            let desired = Vec2::from_angle(rng.range(-3.2, 3.2)) * 10f32.powf(rng.range(-1.0, 2.5));
            let step = move_character(
                &mut world,
                &scene.body,
                scene.pose(corner),
                desired,
                grounded,
                &scene.settings,
            );
            corner += step.translation;
            grounded = step.grounded;
            assert!(
                !scene.overlaps(corner),
                "case {case} frame {frame}: inside after {desired} ({step:?})"
            );
        }
    }
}

/// `MaskWorld::overlaps_from_clear`, which tests only the body's leading edge a step from
/// where it was clear, answers as `overlaps` for every step of a pixel or less, any way
/// (the controller lifts so), from clear places over random ground, y up and y down.
#[test]
fn a_test_from_clear_answers_as_the_whole_test() {
    use pixel_collide::character::CharacterWorld;
    let mut rng = SplitMix64(0x57e9);
    let mut blocked = 0;
    for case in 0..cases(400) {
        let mask = hills_with_holes(&mut rng, 2_000);
        let to_world = if rng.chance(0.5) {
            Affine2::IDENTITY
        } else {
            y_up(H, Vec2::ZERO)
        };
        let mut world = MaskWorld {
            mask: &mask,
            to_world,
        };
        let body = {
            let (w, h) = (1 + rng.below(30) as u32, 1 + rng.below(30) as u32);
            let mut body = BitMask::new(w, h);
            for y in 0..h {
                for x in 0..w {
                    if rng.chance(0.7) {
                        body.set(x.into(), y.into(), true);
                    }
                }
            }
            body
        };
        let at = Vec2::new(rng.range(-10.0, W as f32), rng.range(-10.0, H as f32));
        let clear = Affine2::from_cols(to_world.matrix2.x_axis, to_world.matrix2.y_axis, at);
        if world.overlaps(&body, clear) {
            continue;
        }
        for _ in 0..16 {
            let step = Vec2::from_angle(rng.range(-3.2, 3.2)) * rng.range(0.0, 1.0);
            let step = if rng.chance(0.5) { step.round() } else { step };
            let moved = Affine2::from_translation(step) * clear;
            let whole = world.overlaps(&body, moved);
            assert_eq!(
                world.overlaps_from_clear(&body, clear, moved),
                whole,
                "case {case}: from {at} by {step}"
            );
            blocked += u32::from(whole);
        }
    }
    assert!(blocked > cases(400) / 20, "{blocked} steps blocked");
}
