//! The crowd benches' sprites and bodies, shared so that the core's step and the
//! plugin's frame are measured on the same scene.
#![allow(dead_code)]

use bevy_math::{Rect, Vec2};
use pixel_collide::BitMask;
use pixel_collide_game::sim::crowd::CrowdBody;
use pixel_collide_support::rng::SplitMix64 as Rng;

pub const SIDE: u32 = 64;

/// A 64×64 RGBA image, opaque where `inside(u, v)` with `u, v` in `[-1, 1]`.
pub fn draw(inside: impl Fn(f32, f32) -> bool) -> Vec<u8> {
    let mut rgba = vec![0u8; (SIDE * SIDE * 4) as usize];
    for y in 0..SIDE {
        for x in 0..SIDE {
            let u = (x as f32 + 0.5) / SIDE as f32 * 2.0 - 1.0;
            let v = (y as f32 + 0.5) / SIDE as f32 * 2.0 - 1.0;
            if inside(u, v) {
                let i = ((y * SIDE + x) * 4) as usize;
                rgba[i..i + 4].copy_from_slice(&[200, 120, 40, 255]);
            }
        }
    }
    rgba
}

/// Disc, five-pointed star, ring.
pub fn images() -> Vec<Vec<u8>> {
    vec![
        draw(|u, v| u * u + v * v <= 0.95),
        draw(|u, v| {
            let (r, a) = ((u * u + v * v).sqrt(), v.atan2(u));
            r <= 0.4 + 0.55 * (2.5 * a).cos().abs().powi(3)
        }),
        draw(|u, v| (0.6..=0.97).contains(&(u * u + v * v).sqrt())),
    ]
}

pub fn masks(images: &[Vec<u8>]) -> Vec<BitMask> {
    images
        .iter()
        .map(|rgba| BitMask::from_rgba8(SIDE, SIDE, rgba, 0).expect("64×64 RGBA"))
        .collect()
}

pub fn bounds(n: usize) -> Rect {
    let side = (n as f32 * 4.0 * (SIDE * SIDE) as f32).sqrt();
    Rect::new(0.0, 0.0, side, side)
}

pub fn bodies(n: usize, seed: u64, sprites: usize) -> Vec<CrowdBody> {
    let mut rng = Rng(seed);
    let side = bounds(n).max.x;
    (0..n)
        .map(|k| {
            let heading = rng.range(0.0, std::f32::consts::TAU);
            CrowdBody {
                position: Vec2::new(rng.range(0.0, side), rng.range(0.0, side)),
                velocity: Vec2::from_angle(heading) * rng.range(20.0, 120.0),
                angle: rng.range(0.0, std::f32::consts::TAU),
                angular_velocity: rng.range(-2.0, 2.0),
                scale: rng.range(0.8, 1.2),
                sprite: k % sprites,
            }
        })
        .collect()
}
