//! The shapes as sprites the pointer picks: each movable shape is drawn faintly as a sprite
//! of its own pixels with a [`PixelCollider`], so a press grabs the shape whose pixels are
//! under the pointer, as the game's picking backend
//! ([`PixelPickingPlugin`](bevy_pixel_collide::picking::PixelPickingPlugin)) sees them.
//! The shapes stay analytic in [`HitboxShapes`]; their sprites follow them.

use bevy::asset::RenderAssetUsages;
use bevy::picking::events::{Pointer, Press};
use bevy::picking::pointer::PointerButton;
use bevy::render::render_resource::{Extent3d, TextureDimension, TextureFormat};
use bevy_pixel_collide::debug::HiddenFromPixelDebug;
use bevy_pixel_collide::prelude::*;

use super::*;

/// The sprite that stands for a movable shape under the pointer.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShapeHandle(pub ShapeId);

/// The collision layer the handles are in: picked, never in a touching pair (they filter
/// nothing), so the scene's own tests are the only collisions it shows.
pub const HANDLE_LAYER: u32 = 1 << 7;

/// How strongly a shape's pixels are tinted: enough to see what the pointer can grab.
const HANDLE_ALPHA: f32 = 0.12;

pub(super) fn spawn_handles(
    mut commands: Commands,
    mut images: ResMut<Assets<Image>>,
    shapes: Res<HitboxShapes>,
) {
    for id in ShapeId::MOVABLE {
        let Some(image) = shapes.geometry(id).and_then(shape_image) else {
            continue;
        };
        commands.spawn((
            Name::new(id.name()),
            ShapeHandle(id),
            Sprite {
                image: images.add(image),
                color: Color::WHITE.with_alpha(HANDLE_ALPHA),
                ..default()
            },
            handle_transform(&shapes, id),
            PixelCollider::default(),
            PixelCollisionLayers::new(HANDLE_LAYER, 0),
            // The scene draws its shapes' own boxes; the collider's would repeat them.
            HiddenFromPixelDebug,
            DespawnOnExit(GameScene::Hitboxes),
        ));
    }
}

/// Keeps each handle where its shape is, turned with it.
pub(super) fn place_handles(
    shapes: Res<HitboxShapes>,
    mut handles: Query<(&ShapeHandle, &mut Transform)>,
) {
    for (handle, mut transform) in &mut handles {
        let placed = handle_transform(&shapes, handle.0);
        if *transform != placed && placed.is_finite() {
            *transform = placed;
        }
    }
}

fn handle_transform(shapes: &HitboxShapes, id: ShapeId) -> Transform {
    let center = shapes.center(id).unwrap_or_default();
    let turn = match id {
        ShapeId::Oriented => shapes.oriented.rotation.as_radians(),
        _ => 0.0,
    };
    // Stacked in the order `HitboxShapes::shape_at` prefers (the rectangle on top), below
    // the clover.
    let rank = ShapeId::MOVABLE.iter().position(|&s| s == id).unwrap_or(0);
    let z = 0.5 + 0.1 * rank as f32;
    Transform::from_translation(center.extend(z)).with_rotation(Quat::from_rotation_z(turn))
}

/// A press of the primary button on a handle grabs its shape where it was pressed, unless
/// the pointer is over the overlay. One observer for every press, not one per handle: an
/// entity's observer is an entity of its own, outside the scene.
pub(super) fn grab(
    press: On<Pointer<Press>>,
    handles: Query<&ShapeHandle>,
    mut pointer: ResMut<HitboxPointer>,
    mut shapes: ResMut<HitboxShapes>,
) {
    if press.button != PointerButton::Primary || pointer.over_ui {
        return;
    }
    let Ok(&ShapeHandle(id)) = handles.get(press.entity) else {
        return;
    };
    let at = press.hit.position.map(|p| p.truncate()).or(shapes.cursor);
    let Some(at) = at.filter(|at| at.is_finite()) else {
        return;
    };
    if let Some(center) = shapes.center(id) {
        shapes.active = id;
        pointer.drag = Some((id, center - at));
    }
}

/// The shape's pixels, one a world pixel, centered on its center and unturned (its sprite
/// is turned): solid where a pixel's center is inside. `None` for a point or a shape of no
/// pixels or of absurd size.
pub fn shape_image(geometry: Geometry) -> Option<Image> {
    let (half, inside): (Vec2, Box<dyn Fn(Vec2) -> bool>) = match geometry {
        Geometry::Aabb(b) => (b.half_size(), Box::new(|_| true)),
        Geometry::Circle(c) => {
            let r = c.radius();
            (Vec2::splat(r), Box::new(move |p: Vec2| p.length() <= r))
        }
        Geometry::Obb(o) => (o.half_size, Box::new(|_| true)),
        Geometry::Point(_) => return None,
    };
    let size = (half * 2.0).round();
    if !(size.cmpge(Vec2::ONE).all() && size.cmple(Vec2::splat(4096.0)).all()) {
        return None;
    }
    let (w, h) = (size.x as u32, size.y as u32);
    let mut rgba = vec![0u8; (w * h * 4) as usize];
    for y in 0..h {
        for x in 0..w {
            // Row 0 is the image's top, world y up.
            let p = Vec2::new(x as f32 + 0.5, (h - y) as f32 - 0.5) - size / 2.0;
            if inside(p) {
                rgba[((y * w + x) * 4) as usize..][..4].copy_from_slice(&[255; 4]);
            }
        }
    }
    Some(Image::new(
        Extent3d {
            width: w,
            height: h,
            depth_or_array_layers: 1,
        },
        TextureDimension::D2,
        rgba,
        TextureFormat::Rgba8UnormSrgb,
        RenderAssetUsages::default(),
    ))
}
