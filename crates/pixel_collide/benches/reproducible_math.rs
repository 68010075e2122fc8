//! What taking sines and cosines from `libm` rather than the platform costs (#55), on the
//! paths that call them every frame. The `reproducible_math` group:
//!
//! - `sprite_to_world_1000`: 1,000 sprites' transforms from their angles, one sine and
//!   cosine each: the whole of the change, with nothing around it.
//! - `crowd_contacts`: a frame of 400 turned, scaled and flipped sprites: their
//!   transforms, then the contact and manifold of each of the ~130 pairs whose boxes
//!   overlap (found once, outside the timing). The sine is one part in many here.
//! - `shape_tables_64`: the support tables of a 64 × 64 sprite, a unit vector per bin.
//!
//! The terrain bench's `time_of_impact/ball_turns_and_lands` (a turning cast: a rotation
//! per chord and an arccosine) and `character_walk/move_character` (a tangent per move)
//! time the other two paths. Compare with the parent commit by running this file there:
//!
//!   CARGO_TARGET_DIR=$HOME/.cache/pixel-collide/target-bench \
//!     cargo bench -p pixel_collide --bench reproducible_math

use std::hint::black_box;

use bevy_math::bounding::IntersectsVolume;
use bevy_math::{Affine2, Vec2};
use criterion::{Criterion, criterion_group, criterion_main};
use pixel_collide::pair::SpriteInfo;
use pixel_collide::{BitMask, sprite_to_world, transformed_manifold, world_bounds};
use pixel_collide_support::rng::SplitMix64;

/// A few overlapping discs in a `size`-pixel square.
fn blob(rng: &mut SplitMix64, size: u32) -> BitMask {
    let mut mask = BitMask::new(size, size);
    for _ in 0..4 {
        let r = rng.range(3.0, size as f32 / 2.0);
        let (x, y) = (rng.range(r, size as f32 - r), rng.range(r, size as f32 - r));
        mask.fill_circle(f64::from(x), f64::from(y), f64::from(r));
    }
    mask
}

struct Placed {
    center: Vec2,
    angle: f32,
    scale: Vec2,
}

fn placed(rng: &mut SplitMix64, n: usize, arena: f32) -> Vec<Placed> {
    (0..n)
        .map(|_| {
            let size = rng.range(0.7, 1.5);
            let flip = if rng.below(4) == 0 { -1.0 } else { 1.0 };
            Placed {
                center: Vec2::new(rng.range(0.0, arena), rng.range(0.0, arena)),
                angle: rng.range(-4.0, 4.0),
                scale: Vec2::new(size * flip, size),
            }
        })
        .collect()
}

fn reproducible_math(c: &mut Criterion) {
    let mut rng = SplitMix64(55);
    let sprite = blob(&mut rng, 32);
    let mut group = c.benchmark_group("reproducible_math");

    let many = placed(&mut rng, 1_000, 1_000.0);
    group.bench_function("sprite_to_world_1000", |b| {
        b.iter(|| {
            black_box(&many)
                .iter()
                .map(|p| sprite_to_world(p.center, p.angle, p.scale, sprite.size()))
                .fold(Vec2::ZERO, |sum, t| sum + t.translation)
        })
    });

    let crowd = placed(&mut rng, 400, 900.0);
    let poses: Vec<Affine2> = crowd
        .iter()
        .map(|p| sprite_to_world(p.center, p.angle, p.scale, sprite.size()))
        .collect();
    let boxes: Vec<_> = poses
        .iter()
        .map(|&t| world_bounds(sprite.size(), t))
        .collect();
    let pairs: Vec<(usize, usize)> = (0..crowd.len())
        .flat_map(|i| (i + 1..crowd.len()).map(move |j| (i, j)))
        .filter(|&(i, j)| boxes[i].intersects(&boxes[j]))
        .collect();
    let mut points = Vec::new();
    group.bench_function("crowd_contacts", |b| {
        b.iter(|| {
            let poses: Vec<Affine2> = black_box(&crowd)
                .iter()
                .map(|p| sprite_to_world(p.center, p.angle, p.scale, sprite.size()))
                .collect();
            pairs
                .iter()
                .filter_map(|&(i, j)| {
                    transformed_manifold(&sprite, poses[i], &sprite, poses[j], &mut points)
                })
                .count()
        })
    });

    let large = blob(&mut rng, 64);
    group.bench_function("shape_tables_64", |b| {
        b.iter(|| SpriteInfo::new(black_box(&large)))
    });
    group.finish();
}

criterion_group!(benches, reproducible_math);
criterion_main!(benches);
