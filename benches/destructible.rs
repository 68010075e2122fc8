//! A crater in a destructible sprite, through the plugin: a 2,048 × 1,024 terrain (hills
//! over caves) that is a static avian body with `SettlePieces`, in a headless Bevy app
//! (MinimalPlugins, assets, transforms, the collision plugin, avian with the mask
//! colliders). Craters of radius 40 px bite into the surface at seeded places; what they
//! cut loose falls and settles back as in a game.
//!
//! Per crater it reports, as median and 95th percentile over `CRATERS` craters:
//! - `edit`: `PixelEdits::carve_circle`, the mask and the picture (`DestructibleState::
//!   last_edit_micros` also counts cutting loose what the crater separated);
//! - `edit + cut`: that figure, the plugin's whole work for the crater but the GPU upload;
//! - `crater frame − quiet frame`: one `App::update` after a crater, less the median of
//!   frames without one, so the collider swap and everything else a crater costs the frame
//!   are in it (pieces falling make it noisy).
//!
//!   cargo bench --bench destructible
//!
//! The same craters in WebAssembly, built as the web build is and run by Node, without a
//! browser's renderer sharing the cores: `benches/web_destructible.sh`.

use std::time::Duration;

use avian2d::prelude::*;
use bevy::asset::RenderAssetUsages;
use bevy::ecs::system::RunSystemOnce;
// A clock the web has too (performance.now there).
use bevy::platform::time::Instant;
use bevy::prelude::*;
use bevy::render::render_resource::{Extent3d, TextureDimension, TextureFormat};
use bevy::time::TimeUpdateStrategy;
use bevy_pixel_collide::avian::{MaskColliderPlugin, SettlePieces};
use bevy_pixel_collide::prelude::*;
use pixel_collide_support::rng::SplitMix64;

const SIZE: UVec2 = UVec2::new(2048, 1024);
const RADIUS: f32 = 40.0;
const CRATERS: usize = 300;
const FRAME: f64 = 1.0 / 60.0;

/// The terrain's surface in column `x`: a row that waves round 400.
fn surface(x: f32) -> f32 {
    400.0 + 120.0 * (x / 150.0).sin() + 40.0 * (x / 47.0).sin()
}

/// Hills over caves: the ground below `surface`, with round caves under it.
fn terrain() -> Image {
    let (w, h) = (SIZE.x, SIZE.y);
    let mut rng = SplitMix64(0x0de5_70c7);
    let caves: Vec<(f32, f32, f32)> = (0..40)
        .map(|_| {
            (
                rng.range(0.0, w as f32),
                rng.range(550.0, h as f32 - 60.0),
                rng.range(15.0, 60.0),
            )
        })
        .collect();
    let data = (0..w * h)
        .flat_map(|i| {
            let (x, y) = ((i % w) as f32, (i / w) as f32);
            let cave = caves
                .iter()
                .any(|&(cx, cy, r)| (x - cx).powi(2) + (y - cy).powi(2) < r * r);
            if y > surface(x) && !cave {
                [150, 105, 65, 255]
            } else {
                [0; 4]
            }
        })
        .collect();
    Image::new(
        Extent3d {
            width: w,
            height: h,
            depth_or_array_layers: 1,
        },
        TextureDimension::D2,
        data,
        TextureFormat::Rgba8UnormSrgb,
        RenderAssetUsages::default(),
    )
}

fn app() -> (App, Entity) {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin::default(),
        bevy::image::ImagePlugin::default(),
        TransformPlugin,
        PixelCollisionPlugin::default(),
        PhysicsPlugins::default().with_length_unit(20.0),
        MaskColliderPlugin,
    ));
    // On the web the report goes to the console, which Bevy's log writes to.
    #[cfg(target_arch = "wasm32")]
    app.add_plugins(bevy::log::LogPlugin::default());
    app.insert_resource(Gravity(Vec2::NEG_Y * 600.0))
        .insert_resource(Time::<Fixed>::from_seconds(FRAME))
        .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
            FRAME,
        )));
    app.finish();
    app.cleanup();
    let image = app
        .world_mut()
        .resource_mut::<Assets<Image>>()
        .add(terrain());
    let ground = app
        .world_mut()
        .spawn((
            Sprite::from_image(image),
            DestructibleSprite::default(),
            RigidBody::Static,
            SettlePieces::default(),
        ))
        .id();
    for _ in 0..5 {
        app.update();
    }
    assert!(
        app.world()
            .get::<DestructibleState>(ground)
            .unwrap()
            .is_ready(),
        "the terrain took its pixels"
    );
    (app, ground)
}

/// A line of the report: standard output natively, the console on the web.
macro_rules! report {
    ($($line:tt)*) => {
        #[cfg(not(target_arch = "wasm32"))]
        println!($($line)*);
        #[cfg(target_arch = "wasm32")]
        info!($($line)*);
    };
}

/// Median and 95th percentile, microseconds.
fn summary(mut micros: Vec<f32>) -> (f32, f32) {
    micros.sort_by(f32::total_cmp);
    let at = |q: f32| micros[((micros.len() - 1) as f32 * q).round() as usize];
    (at(0.5), at(0.95))
}

fn main() {
    let (mut app, ground) = app();
    let mut rng = SplitMix64(0xc4a7e4);
    let (mut edit, mut total, mut frame, mut quiet) = (vec![], vec![], vec![], vec![]);
    let mut pieces = 0;
    for _ in 0..CRATERS {
        // On the surface of the column, within the crater's reach of it.
        let x = rng.range(RADIUS, SIZE.x as f32 - RADIUS);
        let y = surface(x) + rng.range(-20.0, 60.0);
        let at = Vec2::new(x - SIZE.x as f32 / 2.0, SIZE.y as f32 / 2.0 - y);
        let started = Instant::now();
        app.world_mut()
            .run_system_once(move |mut edits: PixelEdits| {
                edits.carve_circle(ground, at, RADIUS).unwrap();
            })
            .unwrap();
        edit.push(started.elapsed().as_secs_f32() * 1e6);
        let started = Instant::now();
        app.update();
        frame.push(started.elapsed().as_secs_f32() * 1e6);
        let state = app.world().get::<DestructibleState>(ground).unwrap();
        total.push(state.last_edit_micros);
        pieces += app
            .world()
            .resource::<Messages<PixelPieceDetached>>()
            .iter_current_update_messages()
            .count();
        for _ in 0..3 {
            let started = Instant::now();
            app.update();
            quiet.push(started.elapsed().as_secs_f32() * 1e6);
        }
    }
    let (quiet_median, _) = summary(quiet.clone());
    let extra: Vec<f32> = frame.iter().map(|f| f - quiet_median).collect();
    let state = app.world().get::<DestructibleState>(ground).unwrap();
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.into());
    report!(
        "destructible terrain {}×{}, {CRATERS} craters of radius {RADIUS} px, {cpu}",
        SIZE.x,
        SIZE.y
    );
    for (name, micros) in [
        ("edit (carve_circle: mask and picture)", edit),
        ("edit + cut (last_edit_micros)", total),
        ("crater frame − quiet frame", extra),
        ("quiet frame", quiet),
    ] {
        let (median, p95) = summary(micros);
        report!("  {name:<40} median {median:>8.1} µs   p95 {p95:>8.1} µs");
    }
    report!(
        "  {pieces} pieces cut loose; removed {} px, settled back {} px, lost {} px",
        state.removed,
        state.settled,
        state.lost
    );
}
