//! The plugin beside avian2d in one game, both preludes glob-imported: a crate whose pixel
//! mask is its avian collider falls onto a pixel-mask floor, while two sprites with a
//! `PixelCollider` report their touches through an observer.
//!
//! `cargo run -p bevy_pixel_collide --features avian --example with_avian`
//!
//! It is also the check that every item of our prelude keeps a name of its own next to
//! avian's: [`every_name`] names each one (and avian's items of the same roles), so a name
//! that both preludes export would fail to build here (rustc's `ambiguous_glob_imports`),
//! and CI builds this example with warnings as errors.

use std::any::type_name;
use std::sync::Arc;

use avian2d::prelude::*;
use bevy::prelude::*;
use bevy_pixel_collide::avian::{MaskCollider, MaskColliderPlugin};
use bevy_pixel_collide::prelude::*;

fn main() {
    App::new()
        .add_plugins(DefaultPlugins.set(AssetPlugin {
            file_path: concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets").into(),
            ..default()
        }))
        .add_plugins((
            PhysicsPlugins::default().with_length_unit(20.0),
            MaskColliderPlugin,
            PixelCollisionPlugins::default(),
            PixelCollisionDebugPlugin,
        ))
        .insert_resource(Gravity(Vec2::NEG_Y * 600.0))
        .add_systems(Startup, (setup, print_names))
        .add_systems(Update, slide_flower)
        .add_observer(|touch: On<PixelCollisionStart>| {
            info!("pixels of {} touch {}", touch.collider1, touch.collider2);
        })
        .add_observer(|touch: On<CollisionStart>| {
            info!("avian: {} touches {}", touch.collider1, touch.collider2);
        })
        .run();
}

#[derive(Component)]
struct Sliding;

fn setup(mut commands: Commands, assets: Res<AssetServer>) {
    commands.spawn(Camera2d);
    // Avian's side: rigid bodies whose colliders are pixel masks.
    let floor = BitMask::solid(600, 20).expect("a 600×20 mask is within the limits");
    commands.spawn((
        RigidBody::Static,
        MaskCollider::new(Arc::new(floor)),
        Transform::from_xyz(0.0, -200.0, 0.0),
    ));
    let mut ring = BitMask::new(40, 40);
    for y in 0..40 {
        for x in 0..40 {
            let d = Vec2::new(x as f32 - 19.5, y as f32 - 19.5).length();
            ring.set(x, y, (12.0..=19.5).contains(&d));
        }
    }
    commands.spawn((
        RigidBody::Dynamic,
        MaskCollider::new(Arc::new(ring)),
        Transform::from_xyz(0.0, 150.0, 0.0).with_rotation(Quat::from_rotation_z(0.3)),
        CollisionEventsEnabled,
    ));
    // Ours: sprites whose shown pixels collide, no physics.
    commands.spawn((
        Sprite::from_image(assets.load("flower.png")),
        Transform::from_xyz(-300.0, 50.0, 0.0),
        PixelCollider::default(),
        PixelCollisionEventsEnabled,
        Sliding,
    ));
    commands.spawn((
        Sprite::from_image(assets.load("target.png")),
        Transform::from_xyz(150.0, 50.0, 0.0),
        PixelCollider::default(),
        PixelCollisionLayers::default(),
    ));
}

fn slide_flower(time: Res<Time>, mut flower: Single<&mut Transform, With<Sliding>>) {
    flower.translation.x = -300.0 + 250.0 * (1.0 - (time.elapsed_secs() * 0.8).cos());
}

/// Every item of `bevy_pixel_collide::prelude`, named through the glob next to avian's.
fn every_name() -> [&'static str; 23] {
    [
        // Ours.
        type_name::<BitMask>(),
        type_name::<PixelColliderMask>(),
        type_name::<Contact>(),
        type_name::<HiddenFromPixelDebug>(),
        type_name::<PixelCollider>(),
        type_name::<PixelCollidingEntities>(),
        type_name::<PixelCollisionConfig>(),
        type_name::<PixelCollisionDebugPlugin>(),
        type_name::<PixelCollisionEnd>(),
        type_name::<PixelCollisionEventsEnabled>(),
        type_name::<PixelCollisionLayers>(),
        type_name::<PixelCollisionPlugin>(),
        type_name::<PixelCollisionStart>(),
        type_name::<PixelCollisionSystems>(),
        type_name::<PixelCollisions<'static, 'static>>(),
        type_name::<PixelDebugSettings>(),
        type_name::<PixelMasks>(),
        type_name::<PixelRayHit>(),
        // Avian's of the same roles.
        type_name::<CollidingEntities>(),
        type_name::<CollisionEnd>(),
        type_name::<CollisionEventsEnabled>(),
        type_name::<CollisionLayers>(),
        type_name::<CollisionStart>(),
    ]
}

fn print_names() {
    for name in every_name() {
        debug!("{name}");
    }
}
