//! `PixelCollisionPlugin` on the crowd benches' scene: N rotating 64×64 sprites at the
//! same density, moved as the core's `CrowdWorld::advance` moves them, in a headless Bevy
//! app (MinimalPlugins, assets, transforms, the plugin). Beside it, in the same run, the
//! core's crowd step at the same N.
//!
//! Groups: `plugin/frame/N` (one `App::update`: moving the sprites, transform propagation
//! and the plugin's pass), `core/step/N`. After them, a summary on stderr: per N, the mean
//! frame, the plugin's own time (its broad and narrow phase, from its stats), the core's
//! step, and the ratio.
//!
//!   cargo bench --bench plugin

mod common;

use std::hint::black_box;
use std::time::Instant;

use bevy::asset::RenderAssetUsages;
use bevy::ecs::system::RunSystemOnce;
use bevy::prelude::*;
use bevy::render::render_resource::{Extent3d, TextureDimension, TextureFormat};
use common::{SIDE, bodies, bounds, images, masks};
use criterion::{BenchmarkId, Criterion};
use pixel_collide::collision::crowd::{CrowdBody, CrowdWorld};
use pixel_collide::prelude::*;

const SIZES: [usize; 2] = [1_000, 10_000];
const DT: f32 = 1.0 / 60.0;

#[derive(Component, Clone, Copy)]
struct Body(CrowdBody);

#[derive(Resource, Clone, Copy)]
struct Walls(Rect);

/// The core's `CrowdWorld::advance`, on each sprite's own body.
fn advance(walls: Res<Walls>, mut bodies: Query<(&mut Body, &mut Transform)>) {
    let (min, max) = (walls.0.min, walls.0.max);
    for (mut body, mut transform) in &mut bodies {
        let b = &mut body.0;
        b.position += b.velocity * DT;
        b.angle = (b.angle + b.angular_velocity * DT).rem_euclid(std::f32::consts::TAU);
        for axis in 0..2 {
            if b.position[axis] < min[axis] {
                b.position[axis] = (2.0 * min[axis] - b.position[axis]).min(max[axis]);
                b.velocity[axis] = b.velocity[axis].abs();
            } else if b.position[axis] > max[axis] {
                b.position[axis] = (2.0 * max[axis] - b.position[axis]).max(min[axis]);
                b.velocity[axis] = -b.velocity[axis].abs();
            }
        }
        *transform = Transform::from_translation(b.position.extend(0.0))
            .with_rotation(Quat::from_rotation_z(b.angle))
            .with_scale(Vec3::new(b.scale, b.scale, 1.0));
    }
}

fn app(n: usize) -> App {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut options = TaskPoolOptions::default();
    // As the game does: the compute pool gets every core (see `game::GamePlugin`).
    options.compute.min_threads = cores;
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins.set(TaskPoolPlugin {
            task_pool_options: options,
        }),
        AssetPlugin::default(),
        bevy::image::ImagePlugin::default(),
        TransformPlugin,
        PixelCollisionPlugin::default(),
    ))
    .insert_resource(Walls(bounds(n)))
    .add_systems(Update, advance);
    app.finish();
    app.cleanup();
    let handles: Vec<Handle<Image>> = images()
        .into_iter()
        .map(|rgba| {
            let image = Image::new(
                Extent3d {
                    width: SIDE,
                    height: SIDE,
                    depth_or_array_layers: 1,
                },
                TextureDimension::D2,
                rgba,
                TextureFormat::Rgba8UnormSrgb,
                RenderAssetUsages::default(),
            );
            app.world_mut().resource_mut::<Assets<Image>>().add(image)
        })
        .collect();
    for body in bodies(n, 7, handles.len()) {
        app.world_mut().spawn((
            Sprite::from_image(handles[body.sprite].clone()),
            Transform::default(),
            PixelCollider::default(),
            Body(body),
        ));
    }
    // Warm up: masks built, the broad phase's first full sort, witnesses.
    for _ in 0..4 {
        app.update();
    }
    app
}

fn core_world(n: usize) -> CrowdWorld {
    let masks = masks(&images());
    let mut world = CrowdWorld::new(masks.clone(), bounds(n), bodies(n, 7, masks.len()));
    for _ in 0..4 {
        world.step(DT);
    }
    world
}

/// The plugin's own timing of its last pass: (boxes and broad phase, per-pixel tests), µs.
fn plugin_time(app: &mut App) -> (f32, f32) {
    app.world_mut()
        .run_system_once(|c: PixelCollisions| {
            let s = c.stats();
            (s.broad_micros, s.narrow_micros)
        })
        .unwrap_or((f32::NAN, f32::NAN))
}

fn summary() {
    eprintln!("\nplugin frame vs core step (mean of 300 consecutive frames, best of 3 rounds)");
    for n in SIZES {
        let mut app = app(n);
        let mut world = core_world(n);
        let (mut frame, mut own, mut step) = (f64::INFINITY, f64::INFINITY, f64::INFINITY);
        let mut split = (0.0, 0.0);
        let mut touching = (0, 0);
        for _ in 0..3 {
            let (mut f, mut broad, mut narrow) = (0.0, 0.0, 0.0);
            for _ in 0..300 {
                let start = Instant::now();
                app.update();
                f += start.elapsed().as_secs_f64();
                let (b, n) = plugin_time(&mut app);
                broad += f64::from(b) * 1e-6;
                narrow += f64::from(n) * 1e-6;
            }
            frame = frame.min(f / 300.0);
            if (broad + narrow) / 300.0 < own {
                own = (broad + narrow) / 300.0;
                split = (broad / 300.0, narrow / 300.0);
            }
            let start = Instant::now();
            for _ in 0..300 {
                world.step(DT);
            }
            step = step.min(start.elapsed().as_secs_f64() / 300.0);
            touching = (
                app.world_mut()
                    .run_system_once(|c: PixelCollisions| c.stats().touching)
                    .unwrap_or(0),
                world.stats().contacts,
            );
        }
        eprintln!(
            "N = {n:>6}: frame {:.3} ms, plugin's pass {:.3} ms (broad {:.3}, narrow {:.3}), \
             core step {:.3} ms (broad {:.3}, narrow {:.3}); frame / step {:.2}, \
             pass / step {:.2}; touching pairs {} (plugin), {} (core)",
            frame * 1e3,
            own * 1e3,
            split.0 * 1e3,
            split.1 * 1e3,
            step * 1e3,
            world.stats().broad_ns as f64 * 1e-6,
            world.stats().narrow_ns as f64 * 1e-6,
            frame / step,
            own / step,
            touching.0,
            touching.1,
        );
    }
}

fn benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("plugin");
    group.sample_size(20);
    for n in SIZES {
        let mut app = app(n);
        group.bench_with_input(BenchmarkId::new("frame", n), &n, |b, _| {
            b.iter(|| {
                app.update();
                black_box(app.world().entities().len())
            })
        });
        let mut world = core_world(n);
        group.bench_with_input(BenchmarkId::new("core_step", n), &n, |b, _| {
            b.iter(|| {
                world.step(DT);
                black_box(world.stats().contacts)
            })
        });
    }
    group.finish();
}

fn main() {
    let mut criterion = Criterion::default().configure_from_args();
    benches(&mut criterion);
    criterion.final_summary();
    summary();
}
