//! The "Bouncing basketball" scene, headless through the Bevy app: the physics stepped by
//! `FixedUpdate` at a fixed rate whatever the frame rate, launches from the keyboard, the
//! overlay's settings wired into the physics (and sanitised), the ball removed off screen.
//! The physics' own properties (friction, tunnelling, bad input) are in tests/ball.rs.

use std::time::Duration;

use bevy::prelude::*;
use bevy_pixel_collide::PixelColliderMask;
use pixel_collide_game::headless::{ASSET_DIR, headless_app, run_until};
use pixel_collide_game::scenes::basketball::{
    BallSim, BallSprite, BasketballSettings, LAUNCH_SPEED_RANGE, PlatformSprite,
};
use pixel_collide_game::sim::ball::LAUNCH_START;
use pixel_collide_game::{GameScene, StatusLine};

use crate::press_space;

/// An app showing the scene, rendering `fps` frames per simulated second, with the
/// automatic launch on entering switched off so each test launches its own ball.
fn app(fps: f32) -> App {
    app_in(GameScene::Basketball, fps)
}

/// [`app`], starting in `scene`.
fn app_in(scene: GameScene, fps: f32) -> App {
    let mut app = headless_app(scene, ASSET_DIR, Duration::from_secs_f32(1.0 / fps));
    app.world_mut()
        .resource_mut::<BasketballSettings>()
        .launch_on_enter = false;
    app
}

/// Runs frames until the masks have loaded and the scene built its world.
fn wait_until_ready(app: &mut App) {
    run_until(app, "the basketball scene's world", |app| {
        app.world().contains_resource::<BallSim>()
    });
}

fn sim(app: &App) -> &BallSim {
    app.world().resource::<BallSim>()
}

/// Updates until `steps` fixed steps have run since the launch.
fn run_steps(app: &mut App, steps: u32) {
    for _ in 0..10_000 {
        if sim(app).steps_since_launch >= steps {
            return;
        }
        app.update();
    }
    panic!("fixed steps did not advance");
}

fn ball_position(app: &App) -> Vec2 {
    sim(app)
        .world
        .ball
        .as_ref()
        .expect("a ball in play")
        .position
}

fn ball_sprites(app: &mut App) -> Vec<Transform> {
    let world = app.world_mut();
    world
        .query_filtered::<&Transform, With<BallSprite>>()
        .iter(world)
        .copied()
        .collect()
}

#[test]
fn the_scene_waits_for_its_masks_then_space_launches_a_ball() {
    // Entered from another scene, the textures start loading after this frame's asset
    // processing (PreUpdate), so at least this frame is spent waiting. (Entered at startup
    // they may all arrive within the first frame.)
    let mut app = app_in(GameScene::PixelAccurate, 60.0);
    app.update();
    app.world_mut()
        .resource_mut::<NextState<GameScene>>()
        .set(GameScene::Basketball);
    let mut loading_frames = 0;
    for _ in 0..500 {
        app.update();
        let world = app.world_mut();
        let images: Vec<bool> = world
            .query_filtered::<&PixelColliderMask, Or<(With<PlatformSprite>, With<BallSprite>)>>()
            .iter(world)
            .map(|c| c.mask.is_some())
            .collect();
        let have_masks = images.iter().all(|&m| m);
        let ready = world.contains_resource::<BallSim>();
        // Once ready without a ball in play, the ball's sprite is gone: three images.
        assert_eq!(
            ready,
            have_masks && images.len() >= 3,
            "the world exists exactly when the masks do"
        );
        if ready {
            break;
        }
        loading_frames += 1;
        let status = &world.resource::<StatusLine>().0;
        assert!(status.to_lowercase().contains("loading"), "{status}");
        std::thread::sleep(Duration::from_millis(10));
    }
    println!("ready after {loading_frames} loading frames");
    assert!(loading_frames > 0);
    wait_until_ready(&mut app);
    assert_eq!(sim(&app).world.platforms.len(), 3);
    let platforms = app
        .world_mut()
        .query::<&PlatformSprite>()
        .iter(app.world())
        .count();
    assert_eq!(platforms, 3);
    app.update();
    assert!(sim(&app).world.ball.is_none(), "no automatic launch here");
    assert!(ball_sprites(&mut app).is_empty());

    press_space(&mut app);
    let ball = sim(&app).world.ball.clone().expect("Space launched a ball");
    assert_eq!(ball.position, LAUNCH_START);
    assert_eq!(ball.velocity.y, 0.0);
    let (lo, hi) = BasketballSettings::default().launch_speed;
    assert!((lo..=hi).contains(&ball.velocity.x), "{}", ball.velocity.x);
    assert_eq!(ball_sprites(&mut app).len(), 1, "the ball has a sprite");
    run_steps(&mut app, 5);
    let status = app.world().resource::<StatusLine>().0.clone();
    assert!(
        status.starts_with("Space / A launches · speed "),
        "{status}"
    );
}

#[test]
fn free_fall_through_fixed_update_matches_half_g_t_squared() {
    let mut app = app(60.0);
    app.world_mut()
        .resource_mut::<BasketballSettings>()
        .launch_speed = (0.0, 0.0);
    wait_until_ready(&mut app);
    press_space(&mut app);
    // Half a second: 112.5 px, clear of the brick below the start.
    let steps = 30;
    run_steps(&mut app, steps);
    let t = steps as f32 / 60.0;
    let g = BasketballSettings::default().gravity;
    let fallen = LAUNCH_START.y - ball_position(&app).y;
    let expected = 0.5 * g * t * t;
    let error = (fallen - expected).abs() / expected;
    println!("fell {fallen} px in {t} s, expected {expected}, error {error:e}");
    assert!(error < 0.01, "fell {fallen}, expected {expected}");
    assert_eq!(ball_position(&app).x, LAUNCH_START.x, "no horizontal speed");
}

#[test]
fn a_bounce_on_brick_in_the_app_rises_to_e_squared_of_the_drop() {
    let mut app = app(60.0);
    wait_until_ready(&mut app);
    // Over the brick's middle, dropped straight down.
    let start = Vec2::new(-440.0, 250.0);
    app.world_mut().resource_mut::<BallSim>().launch(start, 0.0);
    run_steps(&mut app, 120);
    let trail: Vec<f32> = sim(&app).trail.iter().map(|p| p.y).collect();
    let bottom = (1..trail.len() - 1)
        .find(|&i| trail[i] <= trail[i - 1] && trail[i] < trail[i + 1])
        .expect("the ball bounced");
    let apex = (bottom + 1..trail.len() - 1)
        .find(|&i| trail[i] >= trail[i - 1] && trail[i] > trail[i + 1])
        .expect("the ball rose and fell again");
    // The resting height, where the drop's and the rise's heights are measured from.
    run_steps(&mut app, 600);
    let ball = sim(&app)
        .world
        .ball
        .clone()
        .expect("the ball stays on the brick");
    assert!(ball.velocity.length() < 1.0, "at rest: {}", ball.velocity);
    let rest = ball.position.y;
    let drop = start.y - rest;
    let rise = trail[apex] - rest;
    let e = sim(&app).world.platforms[0].material.elasticity;
    let ratio = rise / (e * e * drop);
    println!(
        "drop {drop} px, first apex {rise} px, e²h = {}, ratio {ratio}",
        e * e * drop
    );
    assert!((ratio - 1.0).abs() < 0.05, "ratio {ratio}");
}

/// The positions after each fixed step, and the ball's sprite position, for a launch with
/// Space in an app rendering `fps` frames per second.
fn launch_and_record(fps: f32, steps: u32) -> (Vec<Vec2>, App) {
    let mut app = app(fps);
    wait_until_ready(&mut app);
    press_space(&mut app);
    run_steps(&mut app, steps);
    assert_eq!(sim(&app).steps_since_launch, steps);
    (sim(&app).trail.iter().copied().collect(), app)
}

#[test]
fn the_trajectory_is_the_same_at_30_and_144_frames_per_second() {
    // Four seconds: the first launch bounces on the brick and reaches the stone.
    let steps = 240;
    let (slow, slow_app) = launch_and_record(30.0, steps);
    let (fast, mut fast_app) = launch_and_record(144.0, steps);
    assert_eq!(slow.len(), steps as usize + 1);
    println!(
        "after {steps} steps: {} at 30 fps, {} at 144 fps",
        slow[steps as usize], fast[steps as usize]
    );
    assert_eq!(slow, fast, "same fixed steps, same positions");
    assert!(
        slow.iter().any(|p| p.y < 0.0),
        "the ball bounced down to the stone"
    );
    assert_eq!(
        sim(&slow_app).world.contacts_last_step,
        sim(&fast_app).world.contacts_last_step
    );

    // At 144 fps a frame usually ends between steps: the sprite is drawn between them.
    for _ in 0..10 {
        fast_app.update();
        let alpha = fast_app
            .world()
            .resource::<Time<Fixed>>()
            .overstep_fraction();
        let Some(ball) = sim(&fast_app).world.ball.clone() else {
            break;
        };
        let drawn = ball_sprites(&mut fast_app)[0].translation.truncate();
        let expected = ball.previous_position.lerp(ball.position, alpha);
        assert!(drawn.distance(expected) < 1e-3, "{drawn} vs {expected}");
    }
}

#[test]
fn the_ball_is_removed_off_screen_and_can_be_relaunched() {
    let mut app = app(60.0);
    // Fast enough to fly over the whole staircase and out on the right.
    let fastest = *LAUNCH_SPEED_RANGE.end();
    app.world_mut()
        .resource_mut::<BasketballSettings>()
        .launch_speed = (fastest, fastest);
    wait_until_ready(&mut app);
    press_space(&mut app);
    let mut gone_after = None;
    for frame in 0..300 {
        app.update();
        if sim(&app).world.ball.is_none() {
            gone_after = Some(frame);
            break;
        }
    }
    let frames = gone_after.expect("the ball left the screen");
    println!("the ball left after {frames} frames");
    assert!(ball_sprites(&mut app).is_empty(), "its sprite is gone too");
    let status = app.world().resource::<StatusLine>().0.clone();
    assert!(status.contains("no ball"), "{status}");

    press_space(&mut app);
    assert_eq!(ball_position(&app), LAUNCH_START);
    assert_eq!(ball_sprites(&mut app).len(), 1);
}

#[test]
fn rotating_a_platform_turns_its_sprite_and_its_contact_normal() {
    let mut app = app(60.0);
    wait_until_ready(&mut app);
    let angle = 0.3;
    app.world_mut().resource_mut::<BasketballSettings>().angles[0] = angle;
    app.world_mut()
        .resource_mut::<BallSim>()
        .launch(Vec2::new(-440.0, 250.0), 0.0);
    app.update();
    let world = app.world_mut();
    let sprite_angle = world
        .query::<(&PlatformSprite, &Transform)>()
        .iter(world)
        .find(|(p, _)| p.0 == 0)
        .unwrap()
        .1
        .rotation
        .to_euler(EulerRot::ZYX)
        .0;
    assert!(
        (sprite_angle - angle).abs() < 1e-5,
        "sprite at {sprite_angle}"
    );
    let touched = (0..200).find_map(|_| {
        app.update();
        sim(&app).touching
    });
    let (platform, contact) = touched.expect("the ball reached the brick");
    assert_eq!(platform, 0);
    assert!((sim(&app).world.platforms[0].angle - angle).abs() < 1e-6);
    // The brick's surface normal, rotated by the angle, points up and to the left.
    let expected = Vec2::from_angle(angle).rotate(Vec2::Y);
    println!(
        "contact normal {} for a surface normal {expected}",
        contact.normal
    );
    assert!(contact.normal.dot(expected) > 0.95, "{}", contact.normal);
    let later = sim(&app).steps_since_launch + 30;
    run_steps(&mut app, later);
    let v = sim(&app).world.ball.as_ref().unwrap().velocity;
    assert!(v.x < -10.0, "the ball goes downhill, to the left: {v}");
}

#[test]
fn absurd_settings_are_clamped_and_never_break_the_simulation() {
    let mut app = app(60.0);
    wait_until_ready(&mut app);
    {
        let mut settings = app.world_mut().resource_mut::<BasketballSettings>();
        settings.gravity = f32::NAN;
        settings.materials[0].friction = f32::INFINITY;
        settings.materials[0].elasticity = 1e9;
        settings.materials[1].friction = -5.0;
        settings.materials[2].elasticity = f32::NAN;
        settings.angles = [f32::NAN, 100.0, f32::NEG_INFINITY];
        settings.launch_speed = (f32::INFINITY, -1e30);
    }
    let clean = app.world().resource::<BasketballSettings>().sanitised();
    assert_eq!(clean.gravity, BasketballSettings::default().gravity);
    assert_eq!(clean.materials[0].friction, 1.0);
    assert_eq!(clean.materials[0].elasticity, 1.0);
    assert_eq!(clean.launch_speed.0, *LAUNCH_SPEED_RANGE.start());
    assert!(clean.launch_speed.0 <= clean.launch_speed.1);
    press_space(&mut app);
    for _ in 0..300 {
        app.update();
        if let Some(ball) = &sim(&app).world.ball {
            assert!(ball.position.is_finite() && ball.velocity.is_finite());
        }
    }
}

#[test]
fn entering_the_scene_launches_one_ball_by_itself_once_ready() {
    let mut app = app(60.0);
    app.world_mut()
        .resource_mut::<BasketballSettings>()
        .launch_on_enter = true;
    wait_until_ready(&mut app);
    let speed = sim(&app).launch_speed;
    println!("first launch at {speed} px/s");
    let (lo, hi) = BasketballSettings::default().launch_speed;
    assert!((lo..=hi).contains(&speed));
    assert!(sim(&app).world.ball.is_some());
    run_steps(&mut app, 60);
    assert_eq!(ball_sprites(&mut app).len(), 1);
}
