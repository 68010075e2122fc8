//! The plugin's answers depend on its inputs only: a seeded crowd of turned, scaled and
//! flipped sprites moving for a hundred frames gives one hash of every frame's start and
//! end messages, touching pairs and contacts, whatever the compute pool's thread count,
//! with the narrow phase on the pool or not, under each build of the word loops, and with
//! the sprites spawned in the opposite order (other entity ids, as a rollback peer may
//! have). Pairs are hashed by the game's own key for each sprite, sorted by it: what a
//! rollback game would do with its own ids.
//!
//! The compute pool is made once per process, so each setting runs in a process of its
//! own: this test binary again, asked for one test through the environment.

use std::process::Command;

use bevy::app::TaskPoolOptions;
use bevy::ecs::message::MessageCursor;
use bevy::ecs::system::RunSystemOnce;
use bevy::prelude::*;
use bevy_pixel_collide::prelude::*;
use bevy_pixel_collide::{PixelCollisionConfig, PixelCollisionEnd};
use pixel_collide::WordKernel;
use pixel_collide_support::rng::SplitMix64;

use super::pixels::{add_image, app_on_pool, image};

const SPRITES: usize = 400;
const FRAMES: usize = 100;
/// The hash on x86-64, where glam's vector paths (which place the sprites through
/// `GlobalTransform`) are the same on every CPU. Another target may place them
/// differently in the last bit.
const EXPECTED: u64 = 0x6df0_898b_ff0c_1383;

/// What the child process is asked for: `threads,parallel,build,reversed`.
const SETTING: &str = "PIXEL_COLLIDE_DETERMINISM_SETTING";

#[derive(Component, Clone, Copy)]
struct Key(u32);

#[derive(Clone, Copy)]
struct Body {
    image: usize,
    at: Vec2,
    velocity: Vec2,
    angle: f32,
    spin: f32,
    scale: f32,
    flip: (bool, bool),
}

fn bodies() -> Vec<Body> {
    let mut rng = SplitMix64(0x5eed_0fc0_ffee);
    (0..SPRITES)
        .map(|_| Body {
            image: rng.below(3) as usize,
            at: Vec2::new(rng.range(-450.0, 450.0), rng.range(-350.0, 350.0)),
            velocity: Vec2::new(rng.range(-90.0, 90.0), rng.range(-90.0, 90.0)),
            angle: rng.range(0.0, std::f32::consts::TAU),
            spin: rng.range(-2.0, 2.0),
            scale: rng.range(0.7, 1.6),
            flip: (rng.chance(0.3), rng.chance(0.3)),
        })
        .collect()
}

/// A turn about z from `libm`'s sine and cosine, the same on every target (`Quat`'s own
/// constructor calls the platform's).
fn turn(angle: f32) -> Quat {
    let (sin, cos) = libm::sincosf(angle / 2.0);
    Quat::from_xyzw(0.0, 0.0, sin, cos)
}

fn transform(body: &Body) -> Transform {
    Transform::from_translation(body.at.extend(0.0))
        .with_rotation(turn(body.angle))
        .with_scale(Vec3::splat(body.scale))
}

/// FNV-1a over bytes: the same everywhere, unlike std's seeded hasher.
struct Fnv(u64);

impl Fnv {
    fn bytes(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = (self.0 ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    fn u32(&mut self, v: u32) {
        self.bytes(&v.to_le_bytes());
    }

    fn f32(&mut self, v: f32) {
        self.u32(v.to_bits());
    }
}

/// Runs the crowd for [`FRAMES`] frames with `threads` on the compute pool (Bevy's
/// default when `None`), the narrow phase on it or not, and the sprites spawned in reverse
/// when asked; the hash of every frame's answers.
fn run(threads: Option<usize>, parallel: bool, reversed: bool) -> u64 {
    let pool = match threads {
        Some(n) => TaskPoolOptions::with_num_threads(n),
        None => TaskPoolOptions::default(),
    };
    let mut app = app_on_pool(
        pool,
        AssetPlugin::default(),
        PixelCollisionPlugin::default(),
        |app| {
            app.world_mut()
                .resource_mut::<PixelCollisionConfig>()
                .parallel = parallel;
        },
    );
    let images = [
        image(24, 24, |x, y| {
            let d = Vec2::new(x as f32 - 11.5, y as f32 - 11.5).length();
            d < 12.0
        }),
        image(32, 32, |x, y| {
            let d = Vec2::new(x as f32 - 15.5, y as f32 - 15.5).length();
            (8.0..16.0).contains(&d)
        }),
        image(30, 20, |x, y| x < 8 || y >= 14),
    ]
    .map(|img| add_image(&mut app, img));
    let mut bodies = bodies();
    let mut order: Vec<usize> = (0..SPRITES).collect();
    if reversed {
        order.reverse();
    }
    let mut entity_of = vec![Entity::PLACEHOLDER; SPRITES];
    for &k in &order {
        let body = &bodies[k];
        entity_of[k] = app
            .world_mut()
            .spawn((
                Sprite {
                    flip_x: body.flip.0,
                    flip_y: body.flip.1,
                    ..Sprite::from_image(images[body.image].clone())
                },
                transform(body),
                PixelCollider::default(),
                Key(k as u32),
            ))
            .id();
    }
    let mut hash = Fnv(0xcbf2_9ce4_8422_2325);
    // Messages stay readable until a fixed step has run, which real time decides: each
    // frame reads only what is new since the last.
    let mut cursors = Cursors {
        starts: app
            .world()
            .resource::<Messages<PixelCollisionStart>>()
            .get_cursor(),
        ends: app
            .world()
            .resource::<Messages<PixelCollisionEnd>>()
            .get_cursor(),
    };
    let dt = 1.0 / 60.0;
    for _ in 0..FRAMES {
        for (k, body) in bodies.iter_mut().enumerate() {
            body.at += body.velocity * dt;
            body.angle += body.spin * dt;
            // Wrapped round a box, the same way on every run.
            if body.at.x.abs() > 460.0 {
                body.at.x = -body.at.x.signum() * 450.0;
            }
            if body.at.y.abs() > 360.0 {
                body.at.y = -body.at.y.signum() * 350.0;
            }
            *app.world_mut().get_mut::<Transform>(entity_of[k]).unwrap() = transform(body);
        }
        app.update();
        hash_frame(&mut app, &mut cursors, &mut hash);
    }
    hash.0
}

/// Where each frame's reading of the messages ended.
struct Cursors {
    starts: MessageCursor<PixelCollisionStart>,
    ends: MessageCursor<PixelCollisionEnd>,
}

/// This frame's starts, ends, touching pairs and contacts, by the sprites' keys: each pair
/// as (lower key, higher key), the lists sorted, each contact the lower key's against the
/// higher's.
fn hash_frame(app: &mut App, cursors: &mut Cursors, hash: &mut Fnv) {
    let world = app.world_mut();
    let mut keys = world.query::<&Key>();
    let mut key = |world: &World, e: Entity| keys.get(world, e).map_or(u32::MAX, |k| k.0);
    let mut pair_keys = |world: &World, pairs: &mut dyn Iterator<Item = (Entity, Entity)>| {
        let mut keyed: Vec<(u32, u32, Entity, Entity)> = pairs
            .map(|(a, b)| {
                let (ka, kb) = (key(world, a), key(world, b));
                if ka < kb {
                    (ka, kb, a, b)
                } else {
                    (kb, ka, b, a)
                }
            })
            .collect();
        keyed.sort_unstable_by_key(|p| (p.0, p.1));
        keyed
    };
    let starts = pair_keys(
        world,
        &mut cursors
            .starts
            .read(world.resource::<Messages<PixelCollisionStart>>())
            .map(|m| (m.collider1, m.collider2)),
    );
    let ends = pair_keys(
        world,
        &mut cursors
            .ends
            .read(world.resource::<Messages<PixelCollisionEnd>>())
            .map(|m| (m.collider1, m.collider2)),
    );
    let touching: Vec<(Entity, Entity)> = world
        .run_system_once(|c: PixelCollisions| c.touching_pairs().collect::<Vec<_>>())
        .unwrap();
    let touching = pair_keys(world, &mut touching.into_iter());
    for list in [&starts, &ends, &touching] {
        hash.u32(list.len() as u32);
        for &(ka, kb, _, _) in list {
            hash.u32(ka);
            hash.u32(kb);
        }
    }
    let pairs: Vec<(Entity, Entity)> = touching.iter().map(|p| (p.2, p.3)).collect();
    let contacts = world
        .run_system_once(move |c: PixelCollisions| {
            pairs
                .iter()
                .map(|&(a, b)| c.contact(a, b))
                .collect::<Vec<_>>()
        })
        .unwrap();
    for contact in contacts {
        match contact {
            Some(c) => {
                hash.f32(c.point.x);
                hash.f32(c.point.y);
                hash.f32(c.normal.x);
                hash.f32(c.normal.y);
                hash.f32(c.depth);
                hash.u32(c.count);
            }
            None => hash.u32(u32::MAX),
        }
    }
}

/// In a child process: runs the setting asked for and prints its hash. Otherwise: the
/// scenario as a game runs it (Bevy's pool, the narrow phase on it) gives the committed
/// hash on x86-64.
#[test]
fn the_scenario_gives_the_committed_hash() {
    if let Ok(setting) = std::env::var(SETTING) {
        let fields: Vec<&str> = setting.split(',').collect();
        let [threads, parallel, build, reversed] = fields[..] else {
            panic!("{SETTING}={setting}: want threads,parallel,build,reversed");
        };
        let build = WordKernel::ALL
            .into_iter()
            .find(|k| format!("{k:?}") == build);
        WordKernel::force_process_wide(build);
        let hash = run(
            threads.parse().ok(),
            parallel == "on",
            reversed == "reversed",
        );
        println!("determinism hash {hash:#018x}");
        return;
    }
    let hash = run(None, true, false);
    println!("determinism hash {hash:#018x}");
    if cfg!(target_arch = "x86_64") {
        assert_eq!(hash, EXPECTED, "{hash:#018x} against {EXPECTED:#018x}");
    }
}

/// One thread, two and four on the pool, the narrow phase off the pool, each build of the
/// word loops this CPU has, and the sprites spawned in reverse: one hash, each in a
/// process of its own.
#[test]
fn threads_builds_and_entity_ids_change_nothing() {
    if std::env::var(SETTING).is_ok() {
        return;
    }
    let mut settings = vec![
        "1,on,best,forward".to_string(),
        "2,on,best,forward".to_string(),
        "4,on,best,forward".to_string(),
        "2,off,best,forward".to_string(),
        "2,on,best,reversed".to_string(),
    ];
    for build in WordKernel::ALL.into_iter().filter(|k| k.is_available()) {
        settings.push(format!("2,on,{build:?},forward"));
    }
    let exe = std::env::current_exe().expect("this test binary");
    let hashes: Vec<(String, String)> = settings
        .into_iter()
        .map(|setting| {
            let out = Command::new(&exe)
                .args([
                    "--exact",
                    "determinism::the_scenario_gives_the_committed_hash",
                    "--nocapture",
                    "--test-threads=1",
                ])
                .env(SETTING, &setting)
                .output()
                .expect("the test binary runs");
            let stdout = String::from_utf8_lossy(&out.stdout);
            let hash = stdout
                .lines()
                .find_map(|l| l.split("determinism hash ").nth(1))
                .unwrap_or_else(|| {
                    panic!(
                        "{setting}: no hash; {stdout}{}",
                        String::from_utf8_lossy(&out.stderr)
                    )
                })
                .to_string();
            (setting, hash)
        })
        .collect();
    let first = &hashes[0].1;
    for (setting, hash) in &hashes {
        assert_eq!(hash, first, "{setting} against {}: {hashes:?}", hashes[0].0);
    }
}
