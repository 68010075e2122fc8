//! The smallest game on `PixelCollisionPlugin`: two sprites, the flower moved with the
//! arrow keys or WASD; a line is printed when their opaque pixels start or stop
//! touching, and the debug plugin draws boxes and the contact.
//!
//! `cargo run --example minimal`

use bevy::prelude::*;
use bevy_pixel_collide::prelude::*;

fn main() {
    App::new()
        .add_plugins(DefaultPlugins.set(AssetPlugin {
            file_path: concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets").into(),
            ..default()
        }))
        .add_plugins((PixelCollisionPlugins::default(), PixelCollisionDebugPlugin))
        .add_systems(Startup, setup)
        .add_systems(Update, (move_flower, report_touches))
        .run();
}

#[derive(Component)]
struct Player;

fn setup(mut commands: Commands, assets: Res<AssetServer>) {
    commands.spawn(Camera2d);
    commands.spawn((
        Sprite::from_image(assets.load("flower.png")),
        Transform::from_xyz(-200.0, 0.0, 0.0),
        PixelCollider::default(),
        Player,
    ));
    commands.spawn((
        Sprite::from_image(assets.load("target.png")),
        Transform::from_xyz(100.0, 0.0, 0.0).with_rotation(Quat::from_rotation_z(0.5)),
        PixelCollider::default(),
    ));
}

fn move_flower(
    keys: Res<ButtonInput<KeyCode>>,
    time: Res<Time>,
    mut player: Single<&mut Transform, With<Player>>,
) {
    let mut direction = Vec2::ZERO;
    for (key, alt, step) in [
        (KeyCode::ArrowLeft, KeyCode::KeyA, Vec2::NEG_X),
        (KeyCode::ArrowRight, KeyCode::KeyD, Vec2::X),
        (KeyCode::ArrowUp, KeyCode::KeyW, Vec2::Y),
        (KeyCode::ArrowDown, KeyCode::KeyS, Vec2::NEG_Y),
    ] {
        if keys.pressed(key) || keys.pressed(alt) {
            direction += step;
        }
    }
    player.translation += (direction * 300.0 * time.delta_secs()).extend(0.0);
}

fn report_touches(
    mut started: MessageReader<PixelCollisionStart>,
    mut ended: MessageReader<PixelCollisionEnd>,
    collisions: PixelCollisions,
) {
    for touch in started.read() {
        let contact = collisions.contact(touch.collider1, touch.collider2);
        println!(
            "touch: {} and {} at {:?}",
            touch.collider1,
            touch.collider2,
            contact.map(|c| c.point)
        );
    }
    for touch in ended.read() {
        println!("apart: {} and {}", touch.collider1, touch.collider2);
    }
}
