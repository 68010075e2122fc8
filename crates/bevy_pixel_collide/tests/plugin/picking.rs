//! `PixelPickingPlugin`: a pointer over a ring's hole picks the sprite behind it, over the
//! ring the ring (which blocks what is below unless its `Pickable` says not), each hit's
//! depth nearer for the sprite in front; the settings' layers leave colliders out.

use bevy::camera::visibility::ViewVisibility;
use bevy::camera::{NormalizedRenderTarget, RenderTarget};
use bevy::picking::backend::prelude::*;
use bevy::picking::backend::ray::RayId;
use bevy::picking::pointer::Location;
use bevy::prelude::*;
use bevy::window::{PrimaryWindow, WindowRef};
use bevy_pixel_collide::picking::{PixelPickingPlugin, PixelPickingSettings};
use bevy_pixel_collide::prelude::*;

use super::pixels::{add_image, app_with_more, image};

struct Scene {
    app: App,
    camera: Entity,
    ring: Entity,
    square: Entity,
}

fn scene() -> Scene {
    let mut app = app_with_more(
        AssetPlugin::default(),
        PixelCollisionPlugin::default(),
        |app| {
            app.add_message::<PointerHits>()
                .init_resource::<RayMap>()
                .add_plugins(PixelPickingPlugin);
        },
    );
    let window = app
        .world_mut()
        .spawn((Window::default(), PrimaryWindow))
        .id();
    let camera = app
        .world_mut()
        .spawn((
            Camera2d,
            Transform::from_xyz(0.0, 0.0, 500.0),
            RenderTarget::Window(WindowRef::Primary),
        ))
        .id();
    // A ring of outer radius 20 and inner 10 in front of a 60 px square.
    let ring_image = add_image(
        &mut app,
        image(40, 40, |x, y| {
            let d = Vec2::new(x as f32 + 0.5 - 20.0, y as f32 + 0.5 - 20.0).length();
            (10.0..20.0).contains(&d)
        }),
    );
    let square_image = add_image(&mut app, image(60, 60, |_, _| true));
    let ring = app
        .world_mut()
        .spawn((
            Sprite::from_image(ring_image),
            Transform::from_xyz(0.0, 0.0, 1.0),
            PixelCollider::default(),
            PixelCollisionLayers::new(0b10, u32::MAX),
            ViewVisibility::VISIBLE,
        ))
        .id();
    let square = app
        .world_mut()
        .spawn((
            Sprite::from_image(square_image),
            Transform::from_xyz(0.0, 0.0, 0.0),
            PixelCollider::default(),
            ViewVisibility::VISIBLE,
        ))
        .id();
    app.update();
    app.update();
    let target =
        NormalizedRenderTarget::Window(WindowRef::Primary.normalize(Some(window)).unwrap());
    app.world_mut().spawn((
        PointerId::Mouse,
        PointerLocation::new(Location {
            target,
            position: Vec2::ZERO,
        }),
    ));
    Scene {
        app,
        camera,
        ring,
        square,
    }
}

/// What the pointer's ray at world `at` picks: entities and depths, in the order sent.
fn picks(scene: &mut Scene, at: Vec2) -> Vec<(Entity, f32)> {
    let ray = Ray3d::new(at.extend(500.0), Dir3::NEG_Z);
    let id = RayId::new(scene.camera, PointerId::Mouse);
    let mut rays = scene.app.world_mut().resource_mut::<RayMap>();
    rays.map.clear();
    rays.map.insert(id, ray);
    // Messages are kept until a fixed step has read them; only this frame's are wanted.
    scene
        .app
        .world_mut()
        .resource_mut::<Messages<PointerHits>>()
        .clear();
    scene.app.update();
    let hits = scene.app.world().resource::<Messages<PointerHits>>();
    let sent: Vec<&PointerHits> = hits.iter_current_update_messages().collect();
    assert_eq!(sent.len(), 1, "one message for the one ray: {sent:?}");
    sent[0]
        .picks
        .iter()
        .map(|(e, hit)| (*e, hit.depth))
        .collect()
}

#[test]
fn pointers_pick_what_the_masks_cover() {
    let mut scene = scene();
    let (ring, square) = (scene.ring, scene.square);
    // The ring's hole: only the square, though the ring's box covers the point.
    assert_eq!(
        picks(&mut scene, Vec2::new(2.0, 3.0))
            .iter()
            .map(|p| p.0)
            .collect::<Vec<_>>(),
        vec![square]
    );
    // On the ring: the ring alone, since it blocks what is below.
    assert_eq!(
        picks(&mut scene, Vec2::new(15.0, 0.5))
            .iter()
            .map(|p| p.0)
            .collect::<Vec<_>>(),
        vec![ring]
    );
    // Beside both: the square's corner only.
    assert_eq!(
        picks(&mut scene, Vec2::new(28.0, 28.0))
            .iter()
            .map(|p| p.0)
            .collect::<Vec<_>>(),
        vec![square]
    );
    assert!(picks(&mut scene, Vec2::new(40.0, 0.0)).is_empty());
    // Not blocking: both, the ring nearer.
    scene.app.world_mut().entity_mut(ring).insert(Pickable {
        should_block_lower: false,
        is_hoverable: true,
    });
    let both = picks(&mut scene, Vec2::new(15.0, 0.5));
    assert_eq!(
        both.iter().map(|p| p.0).collect::<Vec<_>>(),
        vec![ring, square]
    );
    assert!(both[0].1 < both[1].1, "the ring is nearer: {both:?}");
    // Layers: the ring's left out.
    scene
        .app
        .world_mut()
        .resource_mut::<PixelPickingSettings>()
        .layers = 0b01;
    let (square_only, _): (Vec<Entity>, Vec<f32>) =
        picks(&mut scene, Vec2::new(15.0, 0.5)).into_iter().unzip();
    assert_eq!(square_only, vec![square]);
}
