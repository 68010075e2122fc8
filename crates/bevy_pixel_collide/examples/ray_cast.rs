//! Ray casts against the solid pixels of every collider, as avian's `SpatialQuery`: a
//! laser from the flower towards the mouse stops at the first opaque pixel it meets (a
//! sprite's clear corners let it pass), skipping the flower itself, and shows the normal
//! there; where the whole ray enters each sprite it crosses is marked too.
//!
//! `cargo run -p bevy_pixel_collide --example ray_cast`

use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use bevy_pixel_collide::prelude::*;

fn main() {
    App::new()
        .add_plugins(DefaultPlugins.set(AssetPlugin {
            file_path: concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets").into(),
            ..default()
        }))
        .add_plugins(PixelCollisionPlugins::default())
        .add_systems(Startup, setup)
        .add_systems(Update, (spin, laser))
        .run();
}

#[derive(Component)]
struct Laser;

#[derive(Component)]
struct Spin(f32);

fn setup(mut commands: Commands, assets: Res<AssetServer>) {
    commands.spawn(Camera2d);
    commands.spawn((
        Sprite::from_image(assets.load("flower.png")),
        Transform::from_xyz(-350.0, 0.0, 0.0),
        PixelCollider::default(),
        Laser,
    ));
    for (x, y, image, spin) in [
        (0.0, 60.0, "target.png", 0.4),
        (200.0, -80.0, "crate.png", -0.3),
        (350.0, 100.0, "gem.png", 0.8),
    ] {
        commands.spawn((
            Sprite::from_image(assets.load(image)),
            Transform::from_xyz(x, y, 0.0),
            PixelCollider::default(),
            Spin(spin),
        ));
    }
}

fn spin(time: Res<Time>, mut spinning: Query<(&Spin, &mut Transform)>) {
    for (spin, mut transform) in &mut spinning {
        transform.rotate_z(spin.0 * time.delta_secs());
    }
}

fn laser(
    window: Single<&Window, With<PrimaryWindow>>,
    camera: Single<(&Camera, &GlobalTransform)>,
    source: Single<(Entity, &Transform), With<Laser>>,
    collisions: PixelCollisions,
    mut gizmos: Gizmos,
) {
    let (camera, camera_at) = *camera;
    let Some(aim) = window
        .cursor_position()
        .and_then(|p| camera.viewport_to_world_2d(camera_at, p).ok())
    else {
        return;
    };
    let (flower, at) = *source;
    let origin = at.translation.truncate();
    let Ok(direction) = Dir2::new(aim - origin) else {
        return;
    };
    let range = 2_000.0;
    // Never the flower the laser starts in.
    let filter = PixelQueryFilter::default().excluding([flower]);
    let end = match collisions.cast_ray(origin, direction, range, &filter) {
        Some(hit) => {
            gizmos.arrow_2d(
                hit.point,
                hit.point + hit.normal * 30.0,
                Color::srgb(0.3, 0.9, 1.0),
            );
            hit.point
        }
        None => origin + direction * range,
    };
    gizmos.line_2d(origin, end, Color::srgb(1.0, 0.3, 0.3));
    // Every collider the whole ray passes, each where it enters it.
    for hit in collisions.ray_hits(origin, direction, range, 8, &filter) {
        gizmos.circle_2d(hit.point, 6.0, Color::srgb(1.0, 0.85, 0.3));
    }
}
