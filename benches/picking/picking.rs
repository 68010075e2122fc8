//! Picking 10,000 sprites under one pointer: our `PixelPickingPlugin` (the colliders'
//! masks) against Bevy's `SpritePickingPlugin` (the textures' alpha), in two headless apps
//! alike in all else. 64 × 64 rings (a hole in the middle, transparent corners), turned,
//! scaled and at random depths over a 2,000 × 2,000 field; the pointer's ray at the field's
//! middle, where a few overlap. Each sprite is `Pickable` (blocking), so both backends stop
//! at the first sprite hit.
//!
//! `backend/pixel_masks` and `backend/bevy_sprite_alpha` time one `PreUpdate`: the picking
//! backend and the asset systems, which are idle. Before timing, both must pick the same
//! sprite.
//!
//!   cargo bench --manifest-path benches/picking/Cargo.toml

use std::hint::black_box;

use bevy::asset::RenderAssetUsages;
use bevy::camera::visibility::ViewVisibility;
use bevy::camera::{NormalizedRenderTarget, RenderTarget};
use bevy::image::{CompressedImageFormats, ImageLoader, ImagePlugin, TextureAtlasPlugin};
use bevy::picking::backend::prelude::*;
use bevy::picking::backend::ray::RayId;
use bevy::picking::pointer::Location;
use bevy::prelude::*;
use bevy::sprite::SpritePickingPlugin;
use bevy::window::{PrimaryWindow, WindowRef};
use bevy_pixel_collide::picking::PixelPickingPlugin;
use bevy_pixel_collide::prelude::*;
use criterion::Criterion;
use wgpu_types::{Extent3d, TextureDimension, TextureFormat};

const SPRITES: usize = 10_000;
const FIELD: f32 = 2_000.0;
const SIDE: u32 = 64;

#[derive(Clone, Copy, PartialEq, Debug)]
enum Backend {
    PixelMasks,
    BevySpriteAlpha,
}

/// A 64 × 64 ring: opaque between radii 12 and 32, clear in the hole and the corners.
fn ring() -> Image {
    let data = (0..SIDE * SIDE)
        .flat_map(|i| {
            let (x, y) = ((i % SIDE) as f32 + 0.5, (i / SIDE) as f32 + 0.5);
            let r = Vec2::new(x - 32.0, y - 32.0).length();
            if (12.0..32.0).contains(&r) {
                [200, 100, 50, 255]
            } else {
                [0, 0, 0, 0]
            }
        })
        .collect();
    Image::new(
        Extent3d {
            width: SIDE,
            height: SIDE,
            depth_or_array_layers: 1,
        },
        TextureDimension::D2,
        data,
        TextureFormat::Rgba8UnormSrgb,
        RenderAssetUsages::default(),
    )
}

/// A seeded stream of numbers in `0..1` (a 64-bit LCG's high bits): the same field for
/// both apps.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }
}

fn app(backend: Backend) -> (App, Entity) {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin::default(),
        ImagePlugin::default(),
        TextureAtlasPlugin,
        TransformPlugin,
        PixelCollisionPlugin::default(),
    ))
    .register_asset_loader(ImageLoader::new(CompressedImageFormats::NONE))
    .add_message::<PointerHits>()
    .init_resource::<RayMap>();
    match backend {
        Backend::PixelMasks => app.add_plugins(PixelPickingPlugin),
        Backend::BevySpriteAlpha => app.add_plugins(SpritePickingPlugin),
    };
    app.finish();
    app.cleanup();
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
    let image = app.world_mut().resource_mut::<Assets<Image>>().add(ring());
    let mut rng = Lcg(0x51C4);
    for _ in 0..SPRITES {
        let at = Vec3::new(
            (rng.next() - 0.5) * FIELD,
            (rng.next() - 0.5) * FIELD,
            rng.next() * 100.0,
        );
        app.world_mut().spawn((
            Sprite::from_image(image.clone()),
            Transform::from_translation(at)
                .with_rotation(Quat::from_rotation_z(rng.next() * 6.3))
                .with_scale(Vec3::splat(0.5 + rng.next() * 1.5)),
            PixelCollider::default(),
            Pickable::default(),
            ViewVisibility::VISIBLE,
        ));
    }
    let target =
        NormalizedRenderTarget::Window(WindowRef::Primary.normalize(Some(window)).unwrap());
    app.world_mut().spawn((
        PointerId::Mouse,
        PointerLocation::new(Location {
            target,
            position: Vec2::ZERO,
        }),
    ));
    // The masks are built in the plugin's pass, after the images are in.
    app.update();
    app.update();
    let ray = Ray3d::new(Vec3::new(3.0, -2.0, 500.0), Dir3::NEG_Z);
    app.world_mut()
        .resource_mut::<RayMap>()
        .map
        .insert(RayId::new(camera, PointerId::Mouse), ray);
    (app, camera)
}

/// The backend's picks for the ray, one `PreUpdate` run.
fn pick(app: &mut App) -> Vec<Entity> {
    let world = app.world_mut();
    world.resource_mut::<Messages<PointerHits>>().clear();
    world.run_schedule(PreUpdate);
    let hits = world.resource::<Messages<PointerHits>>();
    hits.iter_current_update_messages()
        .flat_map(|hits| hits.picks.iter().map(|(entity, _)| *entity))
        .collect()
}

fn main() {
    let mut criterion = Criterion::default().configure_from_args();
    let (mut ours, _) = app(Backend::PixelMasks);
    let (mut bevys, _) = app(Backend::BevySpriteAlpha);
    let (picked, bevy_picked) = (pick(&mut ours), pick(&mut bevys));
    eprintln!("picked: ours {picked:?}, Bevy's {bevy_picked:?}");
    // Spawned in the same order, so the same entities in both worlds.
    assert!(!picked.is_empty(), "the pointer is over a ring");
    assert_eq!(picked, bevy_picked, "both backends pick the same sprite");
    let mut group = criterion.benchmark_group("backend");
    group.bench_function("pixel_masks", |b| b.iter(|| black_box(pick(&mut ours))));
    group.bench_function("bevy_sprite_alpha", |b| {
        b.iter(|| black_box(pick(&mut bevys)))
    });
    group.finish();
    criterion.final_summary();
}
