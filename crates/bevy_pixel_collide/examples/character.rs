//! A character on destructible ground: the arrows walk it (up the hills' slopes and over
//! small ledges, stopped by walls), space jumps, a click carves a crater to walk into. The
//! character is a `PixelCharacterController`; the ground a `DestructibleSprite`, so every
//! crater changes what the character stands on at once.
//!
//!   cargo run -p bevy_pixel_collide --example character

use bevy::asset::RenderAssetUsages;
use bevy::prelude::*;
use bevy::render::render_resource::{Extent3d, TextureDimension, TextureFormat};
use bevy::window::PrimaryWindow;
use bevy_pixel_collide::prelude::*;

/// The ground's size, px, and a crater's radius.
const GROUND: UVec2 = UVec2::new(480, 240);
const CRATER: f32 = 14.0;
const WALK_SPEED: f32 = 120.0;
const JUMP_SPEED: f32 = 260.0;
const GRAVITY: f32 = 700.0;

/// The character's vertical speed, px/s (walking is asked afresh each step).
#[derive(Component, Default)]
struct Fall(f32);

fn main() {
    App::new()
        .add_plugins((DefaultPlugins, PixelCollisionPlugins::default()))
        .add_systems(Startup, spawn)
        .add_systems(FixedUpdate, walk)
        .add_systems(Update, carve_where_clicked)
        .run();
}

/// Rolling hills with a wall too high to step over and a low ledge.
fn ground_pixel(x: u32, y: u32) -> bool {
    let hills = 160.0 + 30.0 * (x as f32 / 50.0).sin();
    let wall = (400..410).contains(&x) && y > 90;
    let ledge = (300..340).contains(&x) && y as f32 > hills - 3.0;
    y as f32 > hills || wall || ledge
}

fn image(size: UVec2, pixel: impl Fn(u32, u32) -> Option<[u8; 4]>) -> Image {
    let data = (0..size.x * size.y)
        .flat_map(|i| pixel(i % size.x, i / size.x).unwrap_or([0; 4]))
        .collect();
    let extent = Extent3d {
        width: size.x,
        height: size.y,
        depth_or_array_layers: 1,
    };
    Image::new(
        extent,
        TextureDimension::D2,
        data,
        TextureFormat::Rgba8UnormSrgb,
        RenderAssetUsages::default(),
    )
}

fn spawn(mut commands: Commands, mut images: ResMut<Assets<Image>>) {
    commands.spawn(Camera2d);
    let ground = image(GROUND, |x, y| {
        ground_pixel(x, y).then_some([150, 105, 65, 255])
    });
    commands.spawn((
        Name::new("Ground"),
        Sprite::from_image(images.add(ground)),
        DestructibleSprite::default(),
    ));
    let body = image(UVec2::new(12, 24), |_, _| Some([230, 200, 60, 255]));
    commands.spawn((
        Name::new("Character"),
        Sprite::from_image(images.add(body)),
        Transform::from_xyz(-200.0, 60.0, 1.0),
        PixelCollider::default(),
        PixelCharacterController::default(),
        Fall::default(),
    ));
}

/// Arrows walk, space jumps from the ground; gravity otherwise.
fn walk(
    keys: Res<ButtonInput<KeyCode>>,
    time: Res<Time>,
    mut character: Single<(
        &mut PixelCharacterController,
        &PixelCharacterOutput,
        &mut Fall,
    )>,
) {
    let (controller, last, fall) = &mut *character;
    let dt = time.delta_secs();
    let walk = keys.pressed(KeyCode::ArrowRight) as i32 - keys.pressed(KeyCode::ArrowLeft) as i32;
    fall.0 = if last.grounded {
        if keys.pressed(KeyCode::Space) {
            JUMP_SPEED
        } else {
            0.0
        }
    } else {
        fall.0 - GRAVITY * dt
    };
    // Stopped by a ceiling: the jump is over.
    if last.desired_translation.y > 0.0 && last.effective_translation.y < last.desired_translation.y
    {
        fall.0 = fall.0.min(0.0);
    }
    controller.translation = Some(Vec2::new(walk as f32 * WALK_SPEED, fall.0) * dt);
}

/// A left click carves a crater under the mouse.
fn carve_where_clicked(
    buttons: Res<ButtonInput<MouseButton>>,
    window: Single<&Window, With<PrimaryWindow>>,
    camera: Single<(&Camera, &GlobalTransform)>,
    ground: Single<Entity, With<DestructibleSprite>>,
    mut edits: PixelEdits,
) {
    let (camera, at) = *camera;
    if let Some(point) = window
        .cursor_position()
        .filter(|_| buttons.pressed(MouseButton::Left))
        .and_then(|cursor| camera.viewport_to_world_2d(at, cursor).ok())
        && let Err(err) = edits.carve_circle(*ground, point, CRATER)
    {
        warn!("no crater: {err}");
    }
}
