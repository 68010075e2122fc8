//! Do pieces that break off a destructible sprite draw where their pixels were? Patterned
//! destructible sprites (scaled, flipped and turned, stretched by `custom_size`, an atlas
//! frame) in a real window; once every sprite has taken its pixels, a screenshot, then a
//! ring erased in each, which cuts its middle loose as a piece of its own (no physics: the
//! pieces stay put), then a second screenshot.
//!
//! The two must be the same picture but for the rings: outside each ring (grown by
//! [`RING_MARGIN`] screen pixels for the GPU's rounding at their edges) at most
//! [`MAX_DIFFERENT`] screen pixels may differ. A piece drawn a pixel off, flipped the
//! wrong way or at the wrong scale differs along all its edges. Prints the counts and
//! exits 1 otherwise. The smoke test runs it under Xvfb:
//!
//!   cargo run --example pieces_in_place [-- BEFORE.png AFTER.png]

use std::sync::Arc;

use bevy::asset::RenderAssetUsages;
use bevy::image::ImageSampler;
use bevy::math::Affine2;
use bevy::prelude::*;
use bevy::render::render_resource::{Extent3d, TextureDimension, TextureFormat};
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured};
use bevy::window::WindowResolution;
use bevy_pixel_collide::prelude::*;
use pixel_collide::BitMask;

/// Frames to wait for each step before failing.
const TIMEOUT_FRAMES: u32 = 600;
/// Screen pixels round a ring where the two pictures may differ.
const RING_MARGIN: f32 = 2.0;
/// Screen pixels outside the rings that may differ (a pixel's center on a texel border).
const MAX_DIFFERENT: usize = 40;
/// The erased ring, in world px around each sprite's center: its inner and outer radius.
const RING: (f32, f32) = (26.0, 34.0);

fn main() -> AppExit {
    App::new()
        .add_plugins(DefaultPlugins.set(WindowPlugin {
            primary_window: Some(Window {
                title: "pieces in place".into(),
                resolution: WindowResolution::new(1280, 720).with_scale_factor_override(1.0),
                ..default()
            }),
            ..default()
        }))
        .add_plugins(PixelCollisionPlugins::default())
        .insert_resource(ClearColor(Color::BLACK))
        .init_resource::<Check>()
        .add_systems(Startup, setup)
        .add_systems(Update, run_the_check)
        .run()
}

/// A pattern no shift, flip or scale leaves unchanged: stripes, a gradient, a notch.
fn patterned(w: u32, h: u32) -> Image {
    let data = (0..w * h)
        .flat_map(|i| {
            let (x, y) = (i % w, i / w);
            let notch = x > w * 3 / 4 && y < h / 4;
            if notch {
                [0; 4]
            } else {
                [
                    (x * 255 / w) as u8,
                    if (x / 3 + y / 5) % 2 == 0 { 220 } else { 40 },
                    (y * 255 / h) as u8,
                    255,
                ]
            }
        })
        .collect();
    let mut image = Image::new(
        Extent3d {
            width: w,
            height: h,
            depth_or_array_layers: 1,
        },
        TextureDimension::D2,
        data,
        TextureFormat::Rgba8UnormSrgb,
        RenderAssetUsages::default(),
    );
    image.sampler = ImageSampler::nearest();
    image
}

fn setup(
    mut commands: Commands,
    mut images: ResMut<Assets<Image>>,
    mut layouts: ResMut<Assets<TextureAtlasLayout>>,
) {
    commands.spawn(Camera2d);
    let picture = images.add(patterned(80, 80));
    let sheet = images.add(patterned(160, 80));
    let layout = layouts.add(TextureAtlasLayout::from_grid(
        UVec2::splat(80),
        2,
        1,
        None,
        None,
    ));
    let sprites = [
        (
            Sprite::from_image(picture.clone()),
            Transform::from_xyz(-450.0, 120.0, 0.0).with_scale(Vec3::splat(2.0)),
        ),
        (
            Sprite {
                flip_x: true,
                flip_y: true,
                ..Sprite::from_image(picture.clone())
            },
            Transform::from_xyz(-150.0, 120.0, 0.0)
                .with_scale(Vec3::splat(2.0))
                .with_rotation(Quat::from_rotation_z(0.5)),
        ),
        (
            Sprite {
                custom_size: Some(Vec2::new(200.0, 120.0)),
                flip_x: true,
                ..Sprite::from_image(picture)
            },
            Transform::from_xyz(150.0, 120.0, 0.0),
        ),
        (
            Sprite::from_atlas_image(sheet, TextureAtlas { layout, index: 1 }),
            Transform::from_xyz(-300.0, -170.0, 0.0).with_scale(Vec3::new(2.5, 2.0, 1.0)),
        ),
    ];
    for (sprite, transform) in sprites {
        commands.spawn((sprite, transform, DestructibleSprite::default()));
    }
}

#[derive(Resource, Default)]
struct Check {
    frame: u32,
    step: u32,
    before: Option<Image>,
    after: Option<Image>,
}

fn run_the_check(
    mut commands: Commands,
    mut check: ResMut<Check>,
    sprites: Query<(Entity, &GlobalTransform), With<DestructibleSprite>>,
    pieces: Query<(), With<DetachedPiece>>,
    mut edits: PixelEdits,
    mut exit: MessageWriter<AppExit>,
) {
    check.frame += 1;
    if check.frame > TIMEOUT_FRAMES {
        error!(
            "no verdict after {TIMEOUT_FRAMES} frames (step {})",
            check.step
        );
        exit.write(AppExit::error());
        return;
    }
    let ready = sprites
        .iter()
        .all(|(entity, _)| edits.state(entity).is_some_and(DestructibleState::is_ready));
    match check.step {
        // Every sprite has its own pixels, and has been drawn with them a while.
        0 if ready && check.frame > 30 => {
            check.step = 1;
            commands.spawn(Screenshot::primary_window()).observe(
                |shot: On<ScreenshotCaptured>, mut check: ResMut<Check>| {
                    check.before = Some(shot.image.clone());
                },
            );
        }
        1 if check.before.is_some() => {
            let ring = ring_stamp();
            for (entity, global) in &sprites {
                let center = global.translation().truncate();
                let (w, h) = ring.size();
                let pose =
                    Affine2::from_translation(center + Vec2::new(-(w as f32), h as f32) / 2.0)
                        * Affine2::from_scale(Vec2::new(1.0, -1.0));
                if let Err(err) = edits.erase_mask(entity, &ring, pose) {
                    error!("{entity}: {err}");
                    exit.write(AppExit::error());
                }
            }
            check.step = 2;
            check.frame = check.frame.min(TIMEOUT_FRAMES - 100);
        }
        2 if pieces.iter().count() >= sprites.iter().count() => {
            check.step = 3;
            check.frame = 0;
        }
        // The pieces' images are on the GPU.
        3 if check.frame > 10 => {
            check.step = 4;
            commands.spawn(Screenshot::primary_window()).observe(
                |shot: On<ScreenshotCaptured>, mut check: ResMut<Check>| {
                    check.after = Some(shot.image.clone());
                },
            );
        }
        4 if check.after.is_some() => {
            let centers: Vec<Vec2> = sprites
                .iter()
                .map(|(_, g)| g.translation().truncate())
                .collect();
            let ok = compare(&check, &centers);
            exit.write(if ok {
                AppExit::Success
            } else {
                AppExit::error()
            });
            check.step = 5;
        }
        _ => {}
    }
}

/// A ring of `RING`'s radii, one mask pixel a world px.
fn ring_stamp() -> Arc<BitMask> {
    let side = (2.0 * RING.1).ceil() as u32 + 2;
    let mut ring = BitMask::new(side, side);
    let c = f64::from(side) / 2.0;
    ring.fill_circle(c, c, f64::from(RING.1));
    ring.erase_circle(c, c, f64::from(RING.0));
    Arc::new(ring)
}

/// Counts the screen pixels outside the rings where the pictures differ.
fn compare(check: &Check, centers: &[Vec2]) -> bool {
    let (Some(before), Some(after)) = (&check.before, &check.after) else {
        return false;
    };
    let (Ok(before), Ok(after)) = (
        before.clone().try_into_dynamic().map(|i| i.to_rgba8()),
        after.clone().try_into_dynamic().map(|i| i.to_rgba8()),
    ) else {
        error!("cannot read the screenshots");
        return false;
    };
    if let (Some(a), Some(b)) = (std::env::args().nth(1), std::env::args().nth(2)) {
        let _ = before.save(a);
        let _ = after.save(b);
    }
    let (w, h) = before.dimensions();
    // Screen pixel to world: the camera at the origin, y up, one px a pixel.
    let world = |x: u32, y: u32| {
        Vec2::new(
            x as f32 + 0.5 - w as f32 / 2.0,
            h as f32 / 2.0 - y as f32 - 0.5,
        )
    };
    let mut in_rings = 0;
    let mut outside = Vec::new();
    for y in 0..h {
        for x in 0..w {
            let near_ring = centers.iter().any(|c| {
                let d = world(x, y).distance(*c);
                d > RING.0 - RING_MARGIN && d < RING.1 + RING_MARGIN
            });
            let differs = before.get_pixel(x, y).0[..3]
                .iter()
                .zip(&after.get_pixel(x, y).0[..3])
                .any(|(a, b)| a.abs_diff(*b) > 8);
            match (differs, near_ring) {
                (true, true) => in_rings += 1,
                (true, false) => outside.push((x, y)),
                _ => {}
            }
        }
    }
    println!(
        "pieces in place: {} pixels changed in the rings, {} elsewhere (at most {MAX_DIFFERENT}){}",
        in_rings,
        outside.len(),
        if outside.is_empty() {
            String::new()
        } else {
            format!(", first at {:?}", &outside[..outside.len().min(5)])
        }
    );
    in_rings > 0 && outside.len() <= MAX_DIFFERENT
}
