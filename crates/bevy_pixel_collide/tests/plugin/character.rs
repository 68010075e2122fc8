//! `PixelCharacterController` in an app: a character dropped over the ground lands, walks
//! right, climbs a ramp, stops at a wall one pixel thick, and never ends a step inside a
//! collider; its output names what it touched. With a body of its own, the same.

use std::sync::Arc;
use std::time::Duration;

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_pixel_collide::prelude::*;

use super::pixels::{add_image, app, collisions, image};

/// Walks right at 90 px/s, falling at 240 px/s when off the ground.
fn walk_right(
    time: Res<Time>,
    mut characters: Query<(&mut PixelCharacterController, &PixelCharacterOutput)>,
) {
    for (mut controller, last) in &mut characters {
        let dt = time.delta_secs();
        let fall = if last.grounded { -1.0 } else { -240.0 * dt };
        controller.translation = Some(Vec2::new(90.0 * dt, fall));
    }
}

fn scene(body: Option<Arc<BitMask>>) -> (App, Entity, Entity, Entity) {
    let mut app = app();
    app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
        1.0 / 64.0,
    )))
    .add_systems(FixedUpdate, walk_right);
    // Ground 400 px wide with its top at y = 0, rising as a 30° ramp from x = 0 to 60.
    let rise = 30f32.to_radians().tan();
    let ground_image = add_image(
        &mut app,
        image(400, 100, move |x, y| {
            let top = 60.0 + ((x as f32 - 200.0).clamp(0.0, 60.0)) * rise;
            (100 - y) as f32 <= top
        }),
    );
    let ground = app
        .world_mut()
        .spawn((
            Sprite::from_image(ground_image),
            Transform::from_xyz(0.0, -60.0 + 50.0, 0.0),
            PixelCollider::default(),
        ))
        .id();
    let wall_image = add_image(&mut app, image(1, 200, |_, _| true));
    let wall = app
        .world_mut()
        .spawn((
            Sprite::from_image(wall_image),
            Transform::from_xyz(150.5, 100.0, 0.0),
            PixelCollider::default(),
        ))
        .id();
    let character_image = add_image(&mut app, image(10, 20, |_, _| true));
    let character = app
        .world_mut()
        .spawn((
            Sprite::from_image(character_image),
            Transform::from_xyz(-150.0, 40.0, 0.0),
            PixelCollider::default(),
            PixelCharacterController { body, ..default() },
        ))
        .id();
    app.update();
    (app, character, ground, wall)
}

fn check_walk(body: Option<Arc<BitMask>>) {
    let (mut app, character, ground, wall) = scene(body);
    let mut landed_at = None;
    for frame in 0..400 {
        app.update();
        let output = app
            .world()
            .get::<PixelCharacterOutput>(character)
            .unwrap()
            .clone();
        if output.grounded && landed_at.is_none() {
            landed_at = Some(frame);
        }
        let inside = collisions(&mut app, move |c| {
            c.intersects(character, ground) || c.intersects(character, wall)
        });
        assert!(!inside, "frame {frame}: inside a collider, {output:?}");
    }
    let x = app
        .world()
        .get::<Transform>(character)
        .unwrap()
        .translation
        .x;
    let output = app.world().get::<PixelCharacterOutput>(character).unwrap();
    assert!(landed_at.is_some_and(|f| f < 40), "landed at {landed_at:?}");
    // Up the ramp (from x = 0 to 60, 30 px up) and on to the wall at x = 150.
    assert!((140.0..150.0).contains(&x), "stopped at {x}");
    assert!(output.grounded);
    assert!(
        output.collisions.iter().any(|c| c.entity == wall),
        "{:?}",
        output.collisions
    );
}

#[test]
fn a_character_lands_walks_climbs_and_stops_at_a_wall() {
    check_walk(None);
}

#[test]
fn a_character_with_a_body_of_its_own_does_the_same() {
    check_walk(Some(Arc::new(BitMask::solid(10, 20).unwrap())));
}
