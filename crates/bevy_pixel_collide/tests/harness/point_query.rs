//! Does the plugin's point query agree with what the GPU draws? White sprites on black, one
//! per sprite setting the plugin honours (anchor, both flips, custom size, `rect`, an atlas
//! frame, a turned and scaled parent), in a real window. Once every mask is built it takes
//! a screenshot and asks `PixelCollisions::solid_at` about the center of every screen pixel.
//!
//! A pixel agrees when the query says solid exactly where the screenshot is bright. Where
//! they disagree, the pixel's center must lie on a texel border of a sprite (within
//! [`BORDER_TEXELS`] of one, in that sprite's texels), since the GPU's and the plugin's
//! rounding of a point on a border can differ, and there must be at most
//! [`MAX_BORDER_DISAGREEMENTS`] of them: a sprite drawn or queried a pixel off would
//! disagree along all its edges. Prints the counts per sprite and exits 1 otherwise. The
//! smoke test runs it under Xvfb:
//!
//!   cargo run --example point_query [-- PICTURE.png]
//!
//! With a path, it also writes the screenshot there with the disagreements painted: red
//! where only the query says solid, blue where only the screen shows a pixel.

use bevy::asset::RenderAssetUsages;
use bevy::image::ImageSampler;
use bevy::prelude::*;
use bevy::render::render_resource::{Extent3d, TextureDimension, TextureFormat};
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured};
use bevy::sprite::Anchor;
use bevy::window::{PrimaryWindow, WindowResolution};
use bevy_pixel_collide::prelude::*;

/// Frames to wait for the masks, and then for the screenshot, before failing.
const TIMEOUT_FRAMES: u32 = 600;

fn main() -> AppExit {
    App::new()
        .add_plugins(DefaultPlugins.set(WindowPlugin {
            primary_window: Some(Window {
                title: "point query check".into(),
                resolution: WindowResolution::new(1280, 720).with_scale_factor_override(1.0),
                ..default()
            }),
            ..default()
        }))
        .add_plugins(PixelCollisionPlugins::default())
        .insert_resource(ClearColor(Color::BLACK))
        .add_systems(Startup, setup)
        .add_systems(Update, take_screenshot_when_ready)
        .run()
}

/// Which setting a sprite shows, for the report.
#[derive(Component)]
struct Setting(&'static str);

/// An image white where `inside(x, y)` and transparent elsewhere, sampled without
/// filtering so that every screen pixel shows exactly one texel.
fn white_shape(w: u32, h: u32, inside: impl Fn(u32, u32) -> bool) -> Image {
    let data = (0..w * h)
        .flat_map(|i| {
            if inside(i % w, i / w) {
                [255u8; 4]
            } else {
                [0; 4]
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

/// A lopsided shape, so that a wrong flip or anchor shows: an "F" with a disc below it.
fn lopsided(x: u32, y: u32) -> bool {
    let (x, y) = (x % 64, y % 64);
    let stem = (8..18).contains(&x) && (4..44).contains(&y);
    let top = (8..52).contains(&x) && (4..13).contains(&y);
    let middle = (8..38).contains(&x) && (20..28).contains(&y);
    let (dx, dy) = (x as f32 - 40.0, y as f32 - 50.0);
    stem || top || middle || dx * dx + dy * dy < 100.0
}

fn setup(
    mut commands: Commands,
    mut images: ResMut<Assets<Image>>,
    mut layouts: ResMut<Assets<TextureAtlasLayout>>,
) {
    commands.spawn(Camera2d);
    let shape = images.add(white_shape(64, 64, lopsided));
    // Four frames of 64², each the shape with a different frame-sized bar cut out.
    let sheet = images.add(white_shape(128, 128, |x, y| {
        let frame = (y / 64) * 2 + x / 64;
        lopsided(x, y) && !((x % 64) / 16 == frame && (y % 64) > 30)
    }));
    let layout = layouts.add(TextureAtlasLayout::from_grid(
        UVec2::splat(64),
        2,
        2,
        None,
        None,
    ));
    let atlas_frame = Sprite::from_atlas_image(sheet, TextureAtlas { layout, index: 3 });
    for (name, sprite, transform, anchor) in settings(&shape, atlas_frame) {
        commands.spawn((
            sprite,
            transform,
            anchor,
            PixelCollider::default(),
            Setting(name),
        ));
    }
    let child = commands
        .spawn((
            Sprite::from_image(shape),
            Transform::from_xyz(20.0, -10.0, 0.0).with_rotation(Quat::from_rotation_z(-0.3)),
            Anchor::BOTTOM_RIGHT,
            PixelCollider::default(),
            Setting("child of a turned, scaled parent"),
        ))
        .id();
    commands
        .spawn((
            at(2.6, 1.0)
                .with_rotation(Quat::from_rotation_z(0.9))
                .with_scale(Vec3::new(1.7, 1.7, 1.0)),
            Visibility::default(),
        ))
        .add_child(child);
}

/// Where the sprite in `column` and `row` of the window's grid stands.
fn at(column: f32, row: f32) -> Transform {
    Transform::from_xyz(-480.0 + column * 240.0, 170.0 - row * 300.0, 0.0)
}

/// Each setting the plugin honours on a sprite of `shape`, named for the report, and a
/// frame of a sprite sheet.
fn settings(
    shape: &Handle<Image>,
    atlas_frame: Sprite,
) -> [(&'static str, Sprite, Transform, Anchor); 7] {
    let sprite = || Sprite::from_image(shape.clone());
    let doubled = |column, row| at(column, row).with_scale(Vec3::splat(2.0));
    [
        (
            "plain, scaled 2",
            sprite(),
            doubled(0.0, 0.0),
            Anchor::CENTER,
        ),
        (
            "anchor top left",
            sprite(),
            doubled(1.0, 0.0),
            Anchor::TOP_LEFT,
        ),
        (
            "flip x",
            Sprite {
                flip_x: true,
                ..sprite()
            },
            doubled(2.0, 0.0),
            Anchor::CENTER,
        ),
        (
            "flip y, turned",
            Sprite {
                flip_y: true,
                ..sprite()
            },
            doubled(3.0, 0.0).with_rotation(Quat::from_rotation_z(0.4)),
            Anchor::CENTER,
        ),
        (
            "custom size 170×90",
            Sprite {
                custom_size: Some(Vec2::new(170.0, 90.0)),
                ..sprite()
            },
            at(4.0, 0.0),
            Anchor::CENTER,
        ),
        (
            "rect 8..52 × 0..40",
            Sprite {
                rect: Some(Rect::new(8.0, 0.0, 52.0, 40.0)),
                ..sprite()
            },
            at(0.0, 1.0).with_scale(Vec3::splat(2.5)),
            Anchor::CENTER,
        ),
        (
            "atlas frame 3",
            atlas_frame,
            doubled(1.0, 1.0),
            Anchor::CENTER,
        ),
    ]
}

#[derive(Default)]
struct Progress {
    frame: u32,
    asked: bool,
    ready_frames: u32,
}

fn take_screenshot_when_ready(
    mut commands: Commands,
    colliders: Query<&PixelColliderMask, With<Setting>>,
    mut progress: Local<Progress>,
    mut exit: MessageWriter<AppExit>,
) {
    progress.frame += 1;
    if progress.frame > TIMEOUT_FRAMES {
        error!("no verdict after {TIMEOUT_FRAMES} frames");
        exit.write(AppExit::error());
        return;
    }
    if progress.asked || colliders.iter().any(|c| c.mask.is_none()) {
        return;
    }
    // A few frames more, so that what is on screen is the final placement.
    progress.ready_frames += 1;
    if progress.ready_frames < 20 {
        return;
    }
    progress.asked = true;
    commands
        .spawn(Screenshot::primary_window())
        .observe(compare);
}

/// How near a texel border, in the sprite's texels, a screen pixel's center must be for
/// the GPU and the query to round it differently.
const BORDER_TEXELS: f32 = 0.01;

/// Disagreements allowed on texel borders, in all: the sprites here put a few dozen pixel
/// centers exactly on borders (at scale 2.5), a shifted sprite thousands.
const MAX_BORDER_DISAGREEMENTS: u64 = 200;

/// Distance, in texels, from a world point to the nearest texel border of a collider whose
/// mask's rectangle (grown by half a texel) holds it; infinite when none does.
fn texels_from_a_border(point: Vec2, colliders: &Query<&PixelColliderMask>) -> f32 {
    colliders
        .iter()
        .filter_map(|collider| collider.placed())
        .filter_map(|(mask, to_world)| {
            let p = to_world.inverse().transform_point2(point);
            let (w, h) = (mask.width() as f32, mask.height() as f32);
            let inside =
                p.is_finite() && p.x >= -0.5 && p.y >= -0.5 && p.x <= w + 0.5 && p.y <= h + 0.5;
            inside.then(|| (p - p.round()).abs().min_element())
        })
        .fold(f32::INFINITY, f32::min)
}

fn compare(
    captured: On<ScreenshotCaptured>,
    collisions: PixelCollisions,
    colliders: Query<&PixelColliderMask>,
    camera: Single<(&Camera, &GlobalTransform)>,
    window: Single<&Window, With<PrimaryWindow>>,
    settings: Query<&Setting>,
    mut exit: MessageWriter<AppExit>,
) {
    let shot = match captured.image.clone().try_into_dynamic() {
        Ok(image) => image.to_luma8(),
        Err(err) => {
            error!("cannot read the screenshot: {err}");
            exit.write(AppExit::error());
            return;
        }
    };
    let (camera, at) = *camera;
    let (w, h) = (shot.width(), shot.height());
    let scale = window.scale_factor();
    let drawn = |x: i64, y: i64| {
        x >= 0
            && y >= 0
            && x < w as i64
            && y < h as i64
            && shot.get_pixel(x as u32, y as u32).0[0] > 127
    };
    // Per sprite: pixels it covers by the query, agreeing, disagreeing on an edge, off one.
    let mut counts: std::collections::BTreeMap<&str, [u64; 4]> = Default::default();
    let mut picture = image::RgbImage::from_fn(w, h, |x, y| {
        let v = shot.get_pixel(x, y).0[0];
        image::Rgb([v, v, v])
    });
    let (mut agree, mut edge, mut wrong) = (0u64, 0u64, 0u64);
    let mut farthest_from_border = 0.0f32;
    for y in 0..h as i64 {
        for x in 0..w as i64 {
            let logical = Vec2::new(x as f32 + 0.5, y as f32 + 0.5) / scale;
            let Ok(point) = camera.viewport_to_world_2d(at, logical) else {
                continue;
            };
            let hits = collisions.solid_at(point);
            let solid = !hits.is_empty();
            let mut on_edge = || {
                let border = texels_from_a_border(point, &colliders);
                farthest_from_border = farthest_from_border.max(border);
                border <= BORDER_TEXELS
            };
            let verdict = if solid == drawn(x, y) {
                agree += 1;
                1
            } else {
                let color = if solid { [255, 0, 0] } else { [0, 80, 255] };
                picture.put_pixel(x as u32, y as u32, image::Rgb(color));
                if on_edge() {
                    edge += 1;
                    2
                } else {
                    wrong += 1;
                    warn!("pixel ({x}, {y}), world {point}: query says {solid}");
                    3
                }
            };
            if let Some(&entity) = hits.first()
                && let Ok(setting) = settings.get(entity)
            {
                let c = counts.entry(setting.0).or_default();
                c[0] += 1;
                c[verdict] += 1;
            }
        }
    }
    if let Some(path) = std::env::args().nth(1)
        && let Err(err) = picture.save(&path)
    {
        error!("cannot write {path}: {err}");
    }
    for (name, [covered, ok, near, bad]) in &counts {
        info!("{name}: {covered} solid by the query; {ok} agree, {near} on an edge, {bad} off one");
    }
    let total = u64::from(w) * u64::from(h);
    let solid: u64 = counts.values().map(|c| c[0]).sum();
    println!(
        "point query vs screen: {total} pixels ({solid} solid), {agree} agree ({:.4}%), {edge} differ on a texel border (at most {MAX_BORDER_DISAGREEMENTS}; each within {farthest_from_border:.4} texel of one), {wrong} differ off one",
        agree as f64 * 100.0 / total as f64
    );
    if counts.len() < settings.iter().count() || solid == 0 {
        error!(
            "some sprites were not found by the query: {:?}",
            counts.keys()
        );
        exit.write(AppExit::error());
    } else if wrong > 0 || edge > MAX_BORDER_DISAGREEMENTS {
        exit.write(AppExit::error());
    } else {
        exit.write(AppExit::Success);
    }
}
