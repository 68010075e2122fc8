//! Headless tests of the "Crowd" scene: the sprite entities follow the settings' count, the
//! tints follow the world's touching flags, and the narrow phase on Bevy's task pool gives
//! the serial answers. One ignored test times the collision step at 5,000 and 10,000
//! sprites with the parallel narrow phase on and off:
//!
//!   cargo test --release --test crowd_scene -- --ignored --nocapture
#![cfg(feature = "game")]

use std::time::Duration;

use bevy::prelude::*;
use bevy::tasks::{ComputeTaskPool, TaskPoolBuilder};
use pixel_collide::game::Scene;
use pixel_collide::game::crowd_scene::{
    CrowdMember, CrowdSettings, CrowdSim, DEFAULT_COUNT, MAX_COUNT, MIN_COUNT, PAR_MIN_PAIRS,
    TOUCH_TINT, narrow_on_task_pool,
};
use pixel_collide::game::headless::{ASSET_DIR, headless_app, wait_for_masks};
use pixel_collide::game::{CollisionStats, StatusLine};

const DT: f32 = 1.0 / 60.0;

/// The scene with its masks loaded and its crowd built.
fn crowd_app() -> App {
    let mut app = headless_app(Scene::Crowd, ASSET_DIR, Duration::from_secs_f32(DT));
    assert!(wait_for_masks(&mut app), "masks did not load");
    // One frame builds the world, the next has spawned and placed its sprites.
    for _ in 0..3 {
        app.update();
    }
    app
}

fn member_count(app: &mut App) -> usize {
    let world = app.world_mut();
    world.query::<&CrowdMember>().iter(world).count()
}

fn set_count(app: &mut App, count: usize) {
    app.world_mut().resource_mut::<CrowdSettings>().count = count;
    app.update();
    app.update();
}

fn body_count(app: &App) -> usize {
    app.world()
        .resource::<CrowdSim>()
        .world()
        .expect("the crowd is built")
        .bodies
        .len()
}

#[test]
fn spawns_the_default_crowd_and_follows_the_count() {
    let mut app = crowd_app();
    assert_eq!(member_count(&mut app), DEFAULT_COUNT);
    assert_eq!(body_count(&app), DEFAULT_COUNT);
    assert!(
        app.world()
            .resource::<StatusLine>()
            .0
            .starts_with("1000 sprites"),
        "{:?}",
        app.world().resource::<StatusLine>().0
    );

    for (asked, expected) in [
        (2_500, 2_500),
        (37, 37),
        // Absurd values are clamped, never obeyed or panicked on.
        (0, MIN_COUNT),
        (usize::MAX, MAX_COUNT),
        (DEFAULT_COUNT, DEFAULT_COUNT),
    ] {
        set_count(&mut app, asked);
        assert_eq!(member_count(&mut app), expected, "asked for {asked}");
        assert_eq!(body_count(&app), expected);
        assert_eq!(
            app.world().resource::<CrowdSettings>().count,
            expected,
            "the setting shows the clamped count"
        );
        // Body order: entity k shows body k.
        let entities = app.world().resource::<CrowdSim>().entities().to_vec();
        assert_eq!(entities.len(), expected);
        for (k, &entity) in entities.iter().enumerate() {
            assert_eq!(
                app.world().get::<CrowdMember>(entity),
                Some(&CrowdMember(k))
            );
        }
    }
}

#[test]
fn leaving_the_scene_removes_the_crowd_and_coming_back_rebuilds_it() {
    let mut app = crowd_app();
    set_count(&mut app, 300);
    app.world_mut()
        .resource_mut::<NextState<Scene>>()
        .set(Scene::PixelAccurate);
    app.update();
    app.update();
    assert_eq!(member_count(&mut app), 0);
    assert!(app.world().get_resource::<CrowdSim>().is_none());

    app.world_mut()
        .resource_mut::<NextState<Scene>>()
        .set(Scene::Crowd);
    for _ in 0..500 {
        app.update();
        if member_count(&mut app) == 300 {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    // The count chosen is kept across visits.
    assert_eq!(member_count(&mut app), 300);
}

#[test]
fn tints_and_transforms_follow_the_world() {
    let mut app = crowd_app();
    let mut tinted_seen = 0;
    for frame in 0..30 {
        app.update();
        let sim = app.world().resource::<CrowdSim>();
        let crowd = sim.world().unwrap();
        let touching = crowd.touching().to_vec();
        let bodies = crowd.bodies.clone();
        let stats = crowd.stats();
        let entities = sim.entities().to_vec();
        assert_eq!(touching.len(), bodies.len());
        for (k, &entity) in entities.iter().enumerate() {
            let sprite = app.world().get::<Sprite>(entity).unwrap();
            let expected = if touching[k] {
                TOUCH_TINT
            } else {
                Color::WHITE
            };
            assert_eq!(sprite.color, expected, "body {k}, frame {frame}");
            let transform = app.world().get::<Transform>(entity).unwrap();
            assert_eq!(transform.translation.truncate(), bodies[k].position);
            assert_eq!(transform.scale.x, bodies[k].scale);
        }
        tinted_seen += touching.iter().filter(|&&t| t).count();
        // The main overlay's figures are this step's.
        let shown = *app.world().resource::<CollisionStats>();
        assert_eq!(shown.broad_pairs as usize, stats.candidate_pairs);
        assert_eq!(shown.pixel_tests as usize, stats.pixel_tests);
        assert_eq!(shown.contacts as usize, stats.contacts);
    }
    // A crowd at this density always has some sprites touching, and never all of them.
    let per_frame = tinted_seen / 30;
    println!("about {per_frame} of {DEFAULT_COUNT} sprites tinted per frame");
    assert!(
        per_frame > 20 && per_frame < DEFAULT_COUNT / 2,
        "{per_frame} tinted"
    );
}

#[test]
fn sprites_stay_inside_the_window() {
    let mut app = crowd_app();
    let mut near_walls = 0;
    for _ in 0..240 {
        app.update();
        let crowd = app.world().resource::<CrowdSim>().world().unwrap();
        let bounds = crowd.bounds;
        // A little slack for f32 rounding.
        let inside = |p: Vec2| p.cmpge(bounds.min - 0.01).all() && p.cmple(bounds.max + 0.01).all();
        for (k, (body, aabb)) in crowd.bodies.iter().zip(crowd.boxes()).enumerate() {
            // The box holds every set pixel, but turned it also holds some empty corners:
            // only a box reaching out needs the pixels checked.
            if inside(aabb.min) && inside(aabb.max) {
                continue;
            }
            near_walls += 1;
            let mask = &crowd.sprites()[body.sprite];
            let to_world = crowd.transforms()[k];
            for (x, y) in mask.outline() {
                for corner in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                    let p = Vec2::new((x + corner.0) as f32, (y + corner.1) as f32);
                    let p = to_world.transform_point2(p);
                    assert!(inside(p), "body {k}'s pixel ({x}, {y}) at {p} is outside");
                }
            }
        }
    }
    // Some sprites did meet the walls.
    assert!(near_walls > 100, "{near_walls}");
}

#[test]
fn task_pool_and_serial_narrow_phases_agree() {
    let mut app = crowd_app();
    set_count(&mut app, 5_000);
    for _ in 0..5 {
        for _ in 0..7 {
            app.update();
        }
        let mut sim = app.world_mut().resource_mut::<CrowdSim>();
        let crowd = sim.world_mut().unwrap();
        crowd.collide();
        let (serial, serial_stats) = (crowd.touching().to_vec(), crowd.stats());
        assert!(
            serial_stats.pixel_tests >= 4 * PAR_MIN_PAIRS,
            "enough pairs to be split: {serial_stats:?}"
        );
        let mut tested = 0;
        crowd.collide_with(|narrow, pairs, hits| {
            narrow_on_task_pool(narrow, pairs, hits);
            // Pair by pair, not just the flags they add up to.
            let mut one_thread = vec![None; pairs.len()];
            narrow.run(pairs, &mut one_thread);
            assert_eq!(hits, &one_thread[..]);
            tested = pairs.len();
        });
        assert_eq!(tested, serial_stats.pixel_tests);
        assert_eq!(crowd.touching(), &serial[..]);
        assert_eq!(crowd.stats().contacts, serial_stats.contacts);
    }
}

/// Times the game's collision step (the scene's own systems, Bevy's task pool) at 5,000
/// and 10,000 sprites, narrow phase serial and parallel, and, for reference, the core's
/// own scoped threads ([`CrowdWorld::collide_par`]) on the same crowd. Prints means and
/// medians per step.
///
/// Bevy gives its compute pool the cores left after one IO and one async thread, at least
/// one: a single thread on a 2-core machine. `CROWD_COMPUTE_THREADS=2` builds the pool
/// with that many threads instead (as `TaskPoolOptions` in the game could), before the
/// app's own plugin would.
#[test]
#[ignore = "a measurement, not a check: run with --ignored --nocapture"]
fn measure_parallel_gain() {
    const WARM_UP: usize = 20;
    const FRAMES: usize = 120;
    if let Some(threads) = std::env::var("CROWD_COMPUTE_THREADS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
    {
        ComputeTaskPool::get_or_init(|| TaskPoolBuilder::new().num_threads(threads).build());
    }
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let cores = bevy::tasks::available_parallelism();
    let mut app = crowd_app();
    println!(
        "cores: {cores}; compute pool threads: {}; load average before: {}",
        ComputeTaskPool::get().thread_num(),
        load.trim()
    );
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    for count in [5_000, 10_000] {
        for parallel in [false, true, false, true] {
            {
                let mut settings = app.world_mut().resource_mut::<CrowdSettings>();
                settings.count = count;
                settings.parallel = parallel;
            }
            for _ in 0..WARM_UP {
                app.update();
            }
            let (mut broad, mut narrow) = (Vec::new(), Vec::new());
            let mut pairs = 0;
            for _ in 0..FRAMES {
                app.update();
                let stats = app.world().resource::<CrowdSim>().world().unwrap().stats();
                broad.push(stats.broad_ns as f64 / 1e6);
                narrow.push(stats.narrow_ns as f64 / 1e6);
                pairs = stats.pixel_tests;
            }
            println!(
                "N={count:>6} {:>8}: broad {:.3} ms (median {:.3}), narrow {:.3} ms \
                 (median {:.3}); {pairs} pixel tests",
                if parallel { "parallel" } else { "serial" },
                mean(&broad),
                median(&mut broad),
                mean(&narrow),
                median(&mut narrow),
            );
        }
        let mut narrow = Vec::new();
        let mut sim = app.world_mut().resource_mut::<CrowdSim>();
        let crowd = sim.world_mut().unwrap();
        for _ in 0..FRAMES {
            crowd.advance(DT);
            crowd.collide_par(cores);
            narrow.push(crowd.stats().narrow_ns as f64 / 1e6);
        }
        println!(
            "N={count:>6} collide_par({cores}) outside the app: narrow {:.3} ms (median {:.3})",
            mean(&narrow),
            median(&mut narrow),
        );
    }
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!("load average after: {}", load.trim());
}
