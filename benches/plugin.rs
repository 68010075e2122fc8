//! `PixelCollisionPlugin` on the crowd benches' scene: N rotating 64×64 sprites at the
//! same density, moved as the core's `CrowdWorld::advance` moves them, in a headless Bevy
//! app (MinimalPlugins, assets, transforms, the plugin). Beside it, in the same run, the
//! core's crowd step at the same N.
//!
//! Groups: `plugin/frame/N` (one `App::update`: moving the sprites, transform propagation
//! and the plugin's pass), `core/step/N`. After them, a summary on stderr: per N and
//! with the narrow phase on one thread and then on the task pool, the mean frame, the
//! plugin's systems (`PixelCollisionStats::pass_micros`: wall time from the start of its
//! first system to the end of its last), the core's collision step in the same mode
//! (`collide` / `collide_with` on the same task pool), and their ratio.
//!
//!   cargo bench --bench plugin

mod common;

use std::hint::black_box;
use std::time::Instant;

use bevy::asset::RenderAssetUsages;
use bevy::ecs::system::RunSystemOnce;
use bevy::math::Affine2;
use bevy::prelude::*;
use bevy::render::render_resource::{Extent3d, TextureDimension, TextureFormat};
use bevy_pixel_collide::prelude::*;
use common::{SIDE, bodies, bounds, images, masks};
use criterion::{BenchmarkId, Criterion};
use pixel_collide_game::sim::crowd::{CrowdBody, CrowdWorld};

const SIZES: [usize; 2] = [1_000, 10_000];
const DT: f32 = 1.0 / 60.0;

#[derive(Component, Clone, Copy)]
struct Body(CrowdBody, u32);

#[derive(Resource, Clone, Copy)]
struct Walls(Rect);

/// The core's `CrowdWorld::advance`, on each sprite's own body.
fn advance(walls: Res<Walls>, mut bodies: Query<(&mut Body, &mut Transform)>) {
    for (mut body, mut transform) in &mut bodies {
        let b = &mut body.0;
        b.advance(DT, walls.0);
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
    if single_threaded_post_update() {
        app.edit_schedule(PostUpdate, |schedule| {
            schedule.set_executor(bevy::ecs::schedule::SingleThreadedExecutor::new());
        });
    }
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
    for (index, body) in (0u32..).zip(bodies(n, 7, handles.len())) {
        app.world_mut().spawn((
            Sprite::from_image(handles[body.sprite].clone()),
            Transform::default(),
            PixelCollider::default(),
            Body(body, index),
        ));
    }
    // Warm up: masks built, the broad phase's first full sort, witnesses.
    for _ in 0..4 {
        app.update();
    }
    app
}

/// `PLUGIN_BENCH_EXECUTOR=single` runs `PostUpdate`, where the plugin is, on one thread
/// without the multi-threaded executor's hand-offs between systems: what they cost.
fn single_threaded_post_update() -> bool {
    std::env::var("PLUGIN_BENCH_EXECUTOR").is_ok_and(|v| v == "single")
}

fn core_world(n: usize) -> CrowdWorld {
    let masks = masks(&images());
    let mut world = CrowdWorld::new(masks.clone(), bounds(n), bodies(n, 7, masks.len()));
    for _ in 0..4 {
        world.step(DT);
    }
    world
}

/// Frame, plugin systems and core collision step, in seconds: means of 300 consecutive
/// frames, each the best of three rounds.
struct Round {
    frame: f64,
    plugin: f64,
    /// The plugin's own timing of its broad and narrow phase (its stats).
    phases: f64,
    core: f64,
}

fn measure(app: &mut App, world: &mut CrowdWorld, parallel: bool) -> Round {
    app.world_mut()
        .resource_mut::<PixelCollisionConfig>()
        .parallel = parallel;
    let pool = bevy::tasks::ComputeTaskPool::get();
    let mut best = Round {
        frame: f64::INFINITY,
        plugin: f64::INFINITY,
        phases: f64::INFINITY,
        core: f64::INFINITY,
    };
    for _ in 0..3 {
        let (mut frame, mut plugin, mut phases, mut core) = (0.0, 0.0, 0.0, 0.0);
        for _ in 0..300 {
            let start = Instant::now();
            app.update();
            frame += start.elapsed().as_secs_f64();
            let stats = app
                .world_mut()
                .run_system_once(|c: PixelCollisions| c.stats())
                .unwrap_or_default();
            plugin += f64::from(stats.pass_micros) * 1e-6;
            phases += f64::from(stats.broad_micros + stats.narrow_micros) * 1e-6;
            // The core's collision step alone (its moving is the bench's `advance`).
            world.advance(DT);
            let start = Instant::now();
            if parallel {
                world.collide_with(|narrow, pairs, hits| {
                    pool.scope(|scope| {
                        for (pairs, hits) in pairs.chunks(64).zip(hits.chunks_mut(64)) {
                            scope.spawn(async move { narrow.run(pairs, hits) });
                        }
                    });
                });
            } else {
                world.collide();
            }
            core += start.elapsed().as_secs_f64();
        }
        best.frame = best.frame.min(frame / 300.0);
        best.plugin = best.plugin.min(plugin / 300.0);
        best.phases = best.phases.min(phases / 300.0);
        best.core = best.core.min(core / 300.0);
    }
    best
}

fn summary() {
    eprintln!(
        "\nplugin's systems vs core collision step (mean of 300 frames, best of 3 rounds; \
         {} compute threads; PostUpdate executor {})",
        bevy::tasks::ComputeTaskPool::get().thread_num(),
        if single_threaded_post_update() {
            "single-threaded"
        } else {
            "multi-threaded"
        }
    );
    for n in SIZES {
        let mut app = app(n);
        let mut world = core_world(n);
        let serial = measure(&mut app, &mut world, false);
        let parallel = measure(&mut app, &mut world, true);
        let touching = app
            .world_mut()
            .run_system_once(|c: PixelCollisions| c.stats().touching)
            .unwrap_or(0);
        for (mode, r) in [("one thread", &serial), ("task pool", &parallel)] {
            eprintln!(
                "N = {n:>6}, {mode:>10}: frame {:.3} ms, plugin's systems {:.3} ms \
                 (broad and narrow phase {:.3}), core step {:.3} ms; plugin / core {:.2}",
                r.frame * 1e3,
                r.plugin * 1e3,
                r.phases * 1e3,
                r.core * 1e3,
                r.plugin / r.core,
            );
        }
        eprintln!(
            "N = {n:>6}: task pool gain, plugin's systems x{:.2}, core step x{:.2}; \
             touching pairs {} (plugin), {} (core)",
            serial.plugin / parallel.plugin,
            serial.core / parallel.core,
            touching,
            world.stats().contacts,
        );
        pairs_apart(&mut app, &mut world);
    }
}

/// The pairs one side finds touching and the other not, each tested again with the masks
/// placed both ways: the plugin's placement (through `Transform`'s quaternion and
/// `GlobalTransform`) and the core's (`sprite_to_world` from the body's angle).
fn pairs_apart(app: &mut App, world: &mut CrowdWorld) {
    use pixel_collide::transformed_intersects;
    use std::collections::{BTreeSet, HashMap};
    // Each placed sprite's body index, and its transform by that index.
    let mut index_of = HashMap::new();
    let mut plugin_to_world = HashMap::new();
    {
        let w = app.world_mut();
        let mut query = w.query::<(Entity, &Body, &PixelColliderMask)>();
        for (entity, body, mask) in query.iter(w) {
            if let Some((_, to_world)) = mask.placed() {
                index_of.insert(entity, body.1);
                plugin_to_world.insert(body.1, to_world);
            }
        }
    }
    let plugin: BTreeSet<(u32, u32)> = app
        .world_mut()
        .run_system_once(|c: PixelCollisions| c.touching_pairs().collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .filter_map(|(a, b)| {
            let (&i, &j) = (index_of.get(&a)?, index_of.get(&b)?);
            Some((i.min(j), i.max(j)))
        })
        .collect();
    let mut core = BTreeSet::new();
    world.collide_with(|narrow, pairs, hits| {
        narrow.run(pairs, hits);
        core.extend(
            pairs
                .iter()
                .zip(hits.iter())
                .filter(|(_, hit)| hit.is_some())
                .map(|(&(i, j), _)| (i.min(j), i.max(j))),
        );
    });
    let masks = world.sprites().to_vec();
    let transforms = world.transforms().to_vec();
    for &(i, j) in plugin.symmetric_difference(&core) {
        let (bi, bj) = (world.bodies[i as usize], world.bodies[j as usize]);
        let (ma, mb) = (&masks[bi.sprite], &masks[bj.sprite]);
        let (Some(&pa), Some(&pb)) = (plugin_to_world.get(&i), plugin_to_world.get(&j)) else {
            continue;
        };
        let (ca, cb) = (transforms[i as usize], transforms[j as usize]);
        let differs = |p: Affine2, c: Affine2| {
            (p.to_cols_array().iter())
                .zip(c.to_cols_array().iter())
                .map(|(x, y)| (x - y).abs())
                .fold(0.0f32, f32::max)
        };
        eprintln!(
            "  pair ({i}, {j}): plugin {}, core {}; {i}'s pixels in {j}: {} placed as the \
             plugin does, {} as the core does; {j}'s in {i}: {}, {}; placements differ by \
             up to {:.1e} ({i}), {:.1e} ({j})",
            plugin.contains(&(i, j)),
            core.contains(&(i, j)),
            transformed_intersects(ma, pa, mb, pb),
            transformed_intersects(ma, ca, mb, cb),
            transformed_intersects(mb, pb, ma, pa),
            transformed_intersects(mb, cb, ma, ca),
            differs(pa, ca),
            differs(pb, cb),
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
