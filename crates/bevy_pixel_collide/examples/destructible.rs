//! Destructible ground on avian2d: click to carve a crater. What a crater cuts loose from
//! the ground's bottom row falls as a body, comes to rest and merges back in, pixel for
//! pixel. The overlay line counts the pixels: none are lost but those carved away.
//!
//!   cargo run -p bevy_pixel_collide --example destructible --features avian

use avian2d::prelude::*;
use bevy::asset::RenderAssetUsages;
use bevy::prelude::*;
use bevy::render::render_resource::{Extent3d, TextureDimension, TextureFormat};
use bevy::window::PrimaryWindow;
use bevy_pixel_collide::avian::{MaskColliderPlugin, SettlePieces};
use bevy_pixel_collide::prelude::*;

/// The ground's size, px, and a crater's radius.
pub const GROUND: UVec2 = UVec2::new(480, 240);
pub const CRATER: f32 = 18.0;

fn main() {
    App::new()
        .add_plugins((
            DefaultPlugins,
            PixelCollisionPlugins::default(),
            PhysicsPlugins::default().with_length_unit(20.0),
            MaskColliderPlugin,
        ))
        .add_systems(Startup, |mut commands: Commands| {
            commands.spawn(Camera2d);
        })
        .add_systems(Update, (carve_where_clicked, show_the_count))
        .add_plugins(game)
        .run();
}

/// The ground and gravity: all but the window, the mouse and the title.
pub fn game(app: &mut App) {
    app.insert_resource(Gravity(Vec2::NEG_Y * 600.0))
        .add_systems(Startup, spawn_ground);
}

/// Grass on earth, with a tower whose cap overhangs it: carve the tower's foot and the
/// rest of it falls.
pub fn ground_pixel(x: u32, y: u32) -> Option<[u8; 4]> {
    let hills = 150.0 + 18.0 * (x as f32 / 40.0).sin();
    let tower = (220..260).contains(&x) && y > 60;
    let cap = (170..310).contains(&x) && (50..75).contains(&y);
    if y as f32 > hills || tower || cap {
        let grass = y as f32 - hills < 6.0 && !tower && !cap;
        let speck = (x * 7 + y * 13).is_multiple_of(11);
        Some(match (grass, speck) {
            (true, _) => [90, 170, 60, 255],
            (false, true) => [120, 80, 50, 255],
            (false, false) => [150, 105, 65, 255],
        })
    } else {
        None
    }
}

fn spawn_ground(mut commands: Commands, mut images: ResMut<Assets<Image>>) {
    let (w, h) = (GROUND.x, GROUND.y);
    let pixels = (0..w * h)
        .flat_map(|i| ground_pixel(i % w, i / w).unwrap_or([0; 4]))
        .collect();
    let size = Extent3d {
        width: w,
        height: h,
        depth_or_array_layers: 1,
    };
    let image = Image::new(
        size,
        TextureDimension::D2,
        pixels,
        TextureFormat::Rgba8UnormSrgb,
        RenderAssetUsages::default(),
    );
    commands.spawn((
        Name::new("Ground"),
        Sprite::from_image(images.add(image)),
        DestructibleSprite::default(),
        // Its collider follows each edit; its pieces fall as bodies and settle back.
        RigidBody::Static,
        SettlePieces::default(),
        Friction::new(0.7),
    ));
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
    let clicked = buttons.pressed(MouseButton::Left);
    if let Some(point) = window
        .cursor_position()
        .filter(|_| clicked)
        .and_then(|cursor| camera.viewport_to_world_2d(at, cursor).ok())
        && let Err(err) = edits.carve_circle(*ground, point, CRATER)
    {
        warn!("no crater: {err}");
    }
}

/// The ground's pixel accounts, in the window's title.
fn show_the_count(
    ground: Single<(&DestructibleState, &PixelColliderMask)>,
    pieces: Query<(), With<DetachedPiece>>,
    mut window: Single<&mut Window, With<PrimaryWindow>>,
) {
    let (state, placed) = *ground;
    let count = placed.mask.as_ref().map_or(0, |m| m.count());
    let title = format!(
        "ground {count} px · carved {} · pieces {} · crumbs {} · lost {}",
        state.removed,
        pieces.iter().count(),
        state.crumbs,
        state.lost
    );
    if window.title != title {
        window.title = title;
    }
}
