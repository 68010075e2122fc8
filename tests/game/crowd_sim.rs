//! The crowd's collision step (`sim::crowd`): its touching flags against every pair
//! tested with `transformed_intersects`, with each broad phase, in parallel and serially,
//! for tiny sprites far from the origin.

use bevy::math::{Rect, Vec2};
use pixel_collide::broad_phase::{BroadPhase, SweepAndPrune};
use pixel_collide::pair::tested_first;
use pixel_collide::{BitMask, sprite_to_world, transformed_intersects};
use pixel_collide_game::sim::crowd::{CrowdBody, CrowdWorld};
use pixel_collide_support::rng::SplitMix64 as Rng;

fn draw(w: u32, h: u32, inside: impl Fn(f32, f32) -> bool) -> BitMask {
    let mut m = BitMask::new(w, h);
    for y in 0..h {
        for x in 0..w {
            // Centered coordinates in [-1, 1].
            let u = (x as f32 + 0.5) / w as f32 * 2.0 - 1.0;
            let v = (y as f32 + 0.5) / h as f32 * 2.0 - 1.0;
            m.set(x.into(), y.into(), inside(u, v));
        }
    }
    m
}

fn sprites() -> Vec<BitMask> {
    let star = |u: f32, v: f32| {
        let r = (u * u + v * v).sqrt();
        let a = v.atan2(u);
        r < 0.45 + 0.5 * (2.5 * a).cos().abs().powf(3.0)
    };
    vec![
        draw(64, 64, |u, v| u * u + v * v <= 1.0),
        draw(64, 64, |u, v| (0.6..=1.0).contains(&(u * u + v * v).sqrt())),
        draw(64, 64, star),
        // Off-center pixels, odd sizes, a word boundary, a single pixel, an empty mask.
        draw(70, 13, |u, v| u > 0.3 && v < 0.0),
        draw(1, 1, |_, _| true),
        BitMask::new(20, 20),
    ]
}

fn crowd_bodies(rng: &mut Rng, n: usize, side: f32, sprites: usize) -> Vec<CrowdBody> {
    (0..n)
        .map(|k| {
            let mut body = CrowdBody {
                position: Vec2::new(rng.range(0.0, side), rng.range(0.0, side)),
                velocity: Vec2::new(rng.range(-80.0, 80.0), rng.range(-80.0, 80.0)),
                angle: rng.range(0.0, 6.3),
                angular_velocity: rng.range(-3.0, 3.0),
                scale: rng.range(0.4, 1.6) * if rng.chance(0.1) { -1.0 } else { 1.0 },
                sprite: rng.below(sprites as u64) as usize,
            };
            match k % 97 {
                // Bad bodies: no sprite, NaN position, zero scale.
                5 => body.sprite = 1000,
                6 => body.position.x = f32::NAN,
                7 => body.scale = 0.0,
                _ => {}
            }
            body
        })
        .collect()
}

/// Every pair, the body further left as A, with the world's own transforms.
fn brute_touching<B: BroadPhase>(world: &CrowdWorld<B>) -> (Vec<bool>, usize) {
    let sprites = world.sprites();
    let bodies = &world.bodies;
    let transforms: Vec<_> = bodies
        .iter()
        .map(|b| {
            let (w, h) = sprites.get(b.sprite).map_or((0, 0), |m| m.size());
            sprite_to_world(b.position, b.angle, Vec2::splat(b.scale), (w, h))
        })
        .collect();
    let mut touching = vec![false; bodies.len()];
    let mut contacts = 0;
    for i in 0..bodies.len() {
        for j in i + 1..bodies.len() {
            let (Some(a), Some(b)) = (sprites.get(bodies[i].sprite), sprites.get(bodies[j].sprite))
            else {
                continue;
            };
            // A is the body further left, as the crowd and the plugin pick it.
            let i_first = tested_first(bodies[i].position, bodies[j].position).unwrap_or(true);
            let hit = if i_first {
                transformed_intersects(a, transforms[i], b, transforms[j])
            } else {
                transformed_intersects(b, transforms[j], a, transforms[i])
            };
            if hit {
                touching[i] = true;
                touching[j] = true;
                contacts += 1;
            }
        }
    }
    (touching, contacts)
}

fn check_crowd<B: BroadPhase>(mut world: CrowdWorld<B>, frames: usize) {
    let mut total_contacts = 0;
    for frame in 0..frames {
        world.step(1.0 / 30.0);
        let (touching, contacts) = brute_touching(&world);
        let stats = world.stats();
        assert_eq!(world.touching(), &touching[..], "frame {frame}");
        assert_eq!(stats.contacts, contacts, "frame {frame}");
        assert!(stats.contacts <= stats.pixel_tests && stats.pixel_tests <= stats.candidate_pairs);
        total_contacts += contacts;

        // The same step with the narrow phase on threads, and through a custom executor.
        world.collide_par(3);
        assert_eq!(world.touching(), &touching[..], "frame {frame}, par");
        let (sprites, bodies) = (world.sprites().to_vec(), world.bodies.clone());
        let transforms = world.transforms().to_vec();
        world.collide_with(|narrow, pairs, hits| {
            for (p, h) in pairs.chunks(5).zip(hits.chunks_mut(5)).rev() {
                narrow.run(p, h);
            }
            // Each hit's pixel is one the contract itself says lands.
            for (&(i, j), hit) in pairs.iter().zip(hits.iter()) {
                if let &Some([x, y]) = hit {
                    let (i, j) = (i as usize, j as usize);
                    let (a, b) = (&sprites[bodies[i].sprite], &sprites[bodies[j].sprite]);
                    let center = Vec2::new(x as f32 + 0.5, y as f32 + 0.5);
                    let p = transforms[j]
                        .inverse()
                        .transform_point2(transforms[i].transform_point2(center));
                    let lands = p.x >= 0.0
                        && p.y >= 0.0
                        && p.x < b.width() as f32
                        && p.y < b.height() as f32
                        && b.get(p.x as i64, p.y as i64);
                    assert!(
                        a.get(x.into(), y.into()) && lands,
                        "frame {frame}: ({i}, {j}) at ({x}, {y})"
                    );
                }
            }
        });
        assert_eq!(
            world.touching(),
            &touching[..],
            "frame {frame}, collide_with"
        );
        assert_eq!(world.stats().contacts, contacts);
    }
    assert!(total_contacts > 0, "the scene should have contacts");
}

#[test]
fn crowd_touching_matches_all_pairs_pixel_tests() {
    let sprites = sprites();
    for seed in 0..3 {
        let mut rng = Rng(1000 + seed);
        // Dense: 250 bodies of ~64 px in a 700 px square.
        let bodies = crowd_bodies(&mut rng, 250, 700.0, sprites.len());
        let bounds = Rect::new(0.0, 0.0, 700.0, 700.0);
        check_crowd(CrowdWorld::new(sprites.clone(), bounds, bodies.clone()), 4);
        check_crowd(
            CrowdWorld::with_broad_phase(sprites.clone(), bounds, bodies, SweepAndPrune::new()),
            4,
        );
    }
}

#[test]
fn crowd_boxes_do_not_grow_with_rotation() {
    let sprites = sprites();
    let body = CrowdBody {
        position: Vec2::new(50.0, 50.0),
        velocity: Vec2::ZERO,
        angle: 0.0,
        angular_velocity: 1.0,
        scale: 1.0,
        sprite: 0,
    };
    let mut world = CrowdWorld::new(sprites, Rect::new(0.0, 0.0, 100.0, 100.0), vec![body]);
    world.collide();
    let first = world.boxes()[0];
    // 2000 steps of 1/60 s then exactly back to the start angle.
    for _ in 0..2000 {
        world.step(1.0 / 60.0);
        let b = world.boxes()[0];
        // The disc's box is at most its circumscribed square's box, rotated, plus the
        // rounding slack: 1e-5 of the coordinates (here under 150) on each side.
        let slack = 2.0 * 1e-5 * 150.0;
        assert!((b.max - b.min).max_element() <= 64.0 * std::f32::consts::SQRT_2 + slack + 1e-3);
    }
    world.bodies[0].angle = 0.0;
    world.collide();
    assert_eq!(world.boxes()[0], first);
}

#[test]
fn parallel_narrow_phase_matches_serial_on_a_large_crowd() {
    let sprites = sprites();
    let mut rng = Rng(77);
    let bodies = crowd_bodies(&mut rng, 3000, 2200.0, sprites.len());
    let mut world = CrowdWorld::new(sprites, Rect::new(0.0, 0.0, 2200.0, 2200.0), bodies);
    for frame in 0..3 {
        world.step(1.0 / 30.0);
        let (serial, stats) = (world.touching().to_vec(), world.stats());
        assert!(
            stats.pixel_tests >= 1024,
            "enough pairs to use threads: {stats:?}"
        );
        for threads in [2, 3, 8] {
            world.collide_par(threads);
            assert_eq!(
                world.touching(),
                &serial[..],
                "frame {frame}, {threads} threads"
            );
            assert_eq!(world.stats().contacts, stats.contacts);
        }
    }
}

/// Tiny sprites far from the origin (a pixel of 1e-3 at 1e5, of 1e-4 at 1e4): the
/// boxes and circles must keep the narrow phase's rounding as slack, or they drop pairs
/// that `transformed_intersects` reports.
#[test]
fn tiny_sprites_far_away_lose_no_pairs() {
    let sprites = sprites();
    // Each of the three scales at least once, however few the cases.
    for seed in 0..u64::from(crate::cases(6).max(3)) {
        let mut rng = Rng(7000 + seed);
        let scale = [1e-3, 1e-4, 3e-3][seed as usize % 3];
        let origin = Vec2::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0))
            * [1e5, 1e4, 3e5][seed as usize % 3];
        // Dense: 150 bodies of ~64 pixels in a square 8 bodies wide.
        let side = 64.0 * scale * 8.0;
        let mut bodies = crowd_bodies(&mut rng, 150, side, sprites.len());
        for body in &mut bodies {
            body.position += origin;
            body.velocity *= scale;
            body.scale *= scale;
        }
        let bounds = Rect::from_corners(origin, origin + Vec2::splat(side));
        check_crowd(CrowdWorld::new(sprites.clone(), bounds, bodies), 3);
    }
}
