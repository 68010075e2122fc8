//! The game's one time model (`game::motion`): bodies step at one fixed rate that no scene
//! changes, and are drawn between their last two fixed poses.

use std::f32::consts::PI;
use std::time::Duration;

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use pixel_collide_game::GameScene;
use pixel_collide_game::headless::{ASSET_DIR, headless_app};
use pixel_collide_game::motion::{self, FIXED_HZ, FIXED_STEP, FixedPose};

#[test]
fn interpolation_runs_from_previous_to_current_and_turns_the_short_way() {
    let mut pose = FixedPose::at(Vec2::new(10.0, 0.0), 350f32.to_radians());
    pose.previous = pose.current;
    pose.set(Vec2::new(20.0, 4.0), 10f32.to_radians());
    let start = pose.interpolated(0.0);
    let middle = pose.interpolated(0.5);
    let end = pose.interpolated(1.0);
    assert_eq!(start.translation, Vec2::new(10.0, 0.0));
    assert_eq!(middle.translation, Vec2::new(15.0, 2.0));
    assert_eq!(end.translation, Vec2::new(20.0, 4.0));
    // From 350° to 10° through 0°, not back through 180°.
    assert!(middle.rotation.as_radians().abs() < 1e-4, "{middle:?}");
    assert!((end.rotation.as_degrees() - 10.0).abs() < 1e-3);
    // Out-of-range and NaN fractions never put the body off its path.
    assert_eq!(pose.interpolated(-3.0).translation, start.translation);
    assert_eq!(pose.interpolated(7.0).translation, end.translation);
    assert_eq!(pose.interpolated(f32::NAN).translation, end.translation);

    pose.teleport(Vec2::new(-100.0, 0.0), PI);
    assert_eq!(pose.interpolated(0.5).translation, Vec2::new(-100.0, 0.0));
}

#[derive(Component)]
struct Mover;

fn step_right(mut bodies: Query<&mut FixedPose, With<Mover>>) {
    for mut pose in &mut bodies {
        let next = pose.current.translation + Vec2::new(12.0, 0.0);
        pose.set(next, 0.0);
    }
}

/// Frames twice as fast as the fixed rate: a body stepped 12 px per fixed step is drawn
/// every 6 px, half of the frames between two steps, never ahead of its last step.
#[test]
fn a_body_is_drawn_between_its_last_two_fixed_steps() {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, TransformPlugin, motion::plugin))
        .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
            0.5 / FIXED_HZ,
        )))
        .add_systems(FixedUpdate, step_right);
    let body = app
        .world_mut()
        .spawn((
            Mover,
            FixedPose::at(Vec2::ZERO, 0.0),
            Transform::from_xyz(0.0, 0.0, 3.0),
        ))
        .id();
    let mut drawn = Vec::new();
    for _ in 0..12 {
        app.update();
        let transform = app.world().get::<Transform>(body).unwrap();
        assert_eq!(
            transform.translation.z, 3.0,
            "the depth is the sprite's own"
        );
        drawn.push(transform.translation.x);
    }
    let steps = app
        .world()
        .get::<FixedPose>(body)
        .unwrap()
        .current
        .translation
        .x
        / 12.0;
    assert!(steps >= 4.0, "fixed steps ran: {steps}");
    for pair in drawn.windows(2) {
        let moved = pair[1] - pair[0];
        assert!(
            (moved - 6.0).abs() < 0.01 || moved.abs() < 0.01,
            "{drawn:?}"
        );
    }
    let last = app.world().get::<FixedPose>(body).unwrap();
    assert!(*drawn.last().unwrap() <= last.current.translation.x + 1e-3);
    assert!(*drawn.last().unwrap() >= last.previous.translation.x - 1e-3);
    // Smooth: over the frames, the body moved in half steps, not whole ones.
    let half_steps = drawn
        .windows(2)
        .filter(|p| (p[1] - p[0] - 6.0).abs() < 0.01)
        .count();
    assert!(half_steps >= drawn.len() / 2, "{drawn:?}");
}

/// Every scene runs at the game's one rate; none sets its own.
#[test]
fn no_scene_changes_the_fixed_rate() {
    let mut app = headless_app(
        GameScene::PixelAccurate,
        ASSET_DIR,
        Duration::from_millis(16),
    );
    for scene in [
        GameScene::Basketball,
        GameScene::Hitboxes,
        GameScene::Larry,
        GameScene::Crowd,
        GameScene::Rotated,
        GameScene::PixelAccurate,
    ] {
        app.world_mut()
            .resource_mut::<NextState<GameScene>>()
            .set(scene);
        for _ in 0..5 {
            app.update();
        }
        let step = app.world().resource::<Time<Fixed>>().timestep();
        assert_eq!(step, Duration::from_secs_f64(1.0 / FIXED_HZ), "{scene:?}");
        assert!((step.as_secs_f32() - FIXED_STEP).abs() < 1e-8, "{scene:?}");
    }
}
