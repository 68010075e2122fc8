//! Collision layers and observers: the player's bullets hit enemies and walls, never the
//! player or each other; an enemy hit by a bullet flashes, through an observer on that
//! enemy alone. Space fires, the arrow keys move the player.
//!
//! `cargo run -p bevy_pixel_collide --example layers`

use bevy::prelude::*;
use bevy_pixel_collide::prelude::*;

/// What each kind of sprite is, as a bit of `PixelCollisionLayers`.
const PLAYER: u32 = 1 << 0;
const BULLET: u32 = 1 << 1;
const ENEMY: u32 = 1 << 2;
const WALL: u32 = 1 << 3;

fn main() {
    App::new()
        .add_plugins(DefaultPlugins.set(AssetPlugin {
            file_path: concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets").into(),
            ..default()
        }))
        .add_plugins(PixelCollisionPlugins::default())
        .add_systems(Startup, setup)
        .add_systems(Update, (steer, fire, fly, fade))
        .run();
}

#[derive(Component)]
struct Player;

#[derive(Component)]
struct Bullet;

#[derive(Component, Default)]
struct Flash(f32);

fn setup(mut commands: Commands, assets: Res<AssetServer>) {
    commands.spawn(Camera2d);
    commands.spawn((
        Sprite::from_image(assets.load("flower.png")),
        Transform::from_xyz(-400.0, 0.0, 0.0),
        PixelCollider::default(),
        // In the player's layer, touched by enemies and walls only: never its own bullets.
        PixelCollisionLayers::new(PLAYER, ENEMY | WALL),
        Player,
    ));
    for (k, y) in [-150.0, 0.0, 150.0].into_iter().enumerate() {
        commands
            .spawn((
                Sprite::from_image(assets.load("target.png")),
                Transform::from_xyz(250.0, y, 0.0).with_rotation(Quat::from_rotation_z(k as f32)),
                PixelCollider::default(),
                PixelCollisionLayers::new(ENEMY, PLAYER | BULLET),
                // Observer events on this entity, as avian's `CollisionEventsEnabled`.
                PixelCollisionEventsEnabled,
                Flash::default(),
            ))
            .observe(
                |touch: On<PixelCollisionStart>,
                 bullets: Query<(), With<Bullet>>,
                 mut flashes: Query<&mut Flash>,
                 mut commands: Commands| {
                    // `collider1` is the observed enemy, `collider2` what touched it.
                    if bullets.contains(touch.collider2) {
                        commands.entity(touch.collider2).despawn();
                        if let Ok(mut flash) = flashes.get_mut(touch.collider1) {
                            flash.0 = 1.0;
                        }
                    }
                },
            );
    }
    commands.spawn((
        Sprite::from_image(assets.load("brick.png")),
        Transform::from_xyz(0.0, 200.0, 0.0),
        PixelCollider::default(),
        PixelCollisionLayers::new(WALL, PLAYER | BULLET),
    ));
}

fn steer(
    keys: Res<ButtonInput<KeyCode>>,
    time: Res<Time>,
    mut player: Single<&mut Transform, With<Player>>,
) {
    let up = keys.pressed(KeyCode::ArrowUp) as i32 - keys.pressed(KeyCode::ArrowDown) as i32;
    player.translation.y += up as f32 * 300.0 * time.delta_secs();
}

fn fire(
    keys: Res<ButtonInput<KeyCode>>,
    assets: Res<AssetServer>,
    player: Single<&Transform, With<Player>>,
    mut commands: Commands,
) {
    if keys.just_pressed(KeyCode::Space) {
        commands.spawn((
            Sprite {
                custom_size: Some(Vec2::splat(16.0)),
                ..Sprite::from_image(assets.load("soccer_ball.png"))
            },
            Transform::from_translation(player.translation + Vec3::X * 60.0),
            PixelCollider::default(),
            // Bullets hit enemies and walls; they are not in a layer the player filters.
            PixelCollisionLayers::new(BULLET, ENEMY | WALL),
            Bullet,
        ));
    }
}

/// Bullets fly right; one that reached a wall stops there, one past the screen goes.
fn fly(
    time: Res<Time>,
    mut bullets: Query<(Entity, &mut Transform, &PixelCollidingEntities), With<Bullet>>,
    mut commands: Commands,
) {
    for (bullet, mut at, touching) in &mut bullets {
        if touching.0.is_empty() {
            at.translation.x += 600.0 * time.delta_secs();
        }
        if at.translation.x > 700.0 {
            commands.entity(bullet).despawn();
        }
    }
}

fn fade(time: Res<Time>, mut enemies: Query<(&mut Flash, &mut Sprite)>) {
    for (mut flash, mut sprite) in &mut enemies {
        flash.0 = (flash.0 - 1.5 * time.delta_secs()).max(0.0);
        sprite.color = Color::WHITE.mix(&Color::srgb(1.0, 0.2, 0.2), flash.0);
    }
}
