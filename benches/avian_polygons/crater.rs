//! The crater: craters carved in the terrain scene's ground under bodies at rest, each
//! side rebuilding its ground's collider.

use std::time::{Duration, Instant};

use bevy::prelude::*;
use image::RgbaImage;
use pixel_collide::BitMask;
use pixel_collide_support::rng::SplitMix64;

use crate::app::{ContactSettings, StepTime, physics_app, step};
use crate::colliders::{Shape, asset, measured};
use crate::judge::{Judgement, judge};
use crate::scene::{Ground, spawn_body, spawn_ground};
use crate::{SEED, Side, TERRAIN_SIZE};

/// The terrain scene's ground (`assets/terrain.png`, 1,280 × 720) drawn at 2,048 × 1,024.
pub fn terrain_image() -> RgbaImage {
    image::imageops::resize(
        &asset("terrain.png"),
        TERRAIN_SIZE.0,
        TERRAIN_SIZE.1,
        image::imageops::FilterType::Nearest,
    )
}

/// The top of the ground in column `x` of `mask`, world y, if the column has any.
fn surface(mask: &BitMask, x: f32) -> Option<f32> {
    let (w, h) = mask.size();
    let i = (x + w as f32 / 2.0).floor();
    if !(0.0..w as f32).contains(&i) {
        return None;
    }
    let top = (0..h).find(|&j| mask.get(i as i64, i64::from(j)))?;
    Some(h as f32 / 2.0 - top as f32)
}

pub struct CraterRun {
    pub side: Side,
    /// Rebuilding the ground's collider after each crater.
    pub rebuilds: Vec<Duration>,
    /// The step right after each rebuild (avian takes in the new collider).
    pub first_steps: Vec<Duration>,
    pub settled_steps: Vec<StepTime>,
    pub after_steps: Vec<StepTime>,
    pub end: Judgement,
    pub collider_bytes: i64,
}

pub fn run_crater(
    shapes: &[Shape],
    terrain: &RgbaImage,
    side: Side,
    craters: &[f32],
    contacts: ContactSettings,
) -> CraterRun {
    let mut ground = Ground::new(terrain.clone());
    let mut app = physics_app(side, contacts);
    let entity = spawn_ground(&mut app, &ground, side);
    // Balls and stones along the ground, a little above it.
    let ball = shapes.iter().position(|s| s.name == "basketball").unwrap();
    let stone = shapes.iter().position(|s| s.name == "stone").unwrap();
    let mut rng = SplitMix64(SEED ^ 0xc7a7);
    for k in 0..40 {
        let x = -900.0 + 45.0 * k as f32 + rng.range(-5.0, 5.0);
        let Some(top) = surface(&ground.mask, x) else {
            continue;
        };
        let sprite = if k % 4 == 3 { stone } else { ball };
        spawn_body(
            &mut app,
            shapes,
            side,
            sprite,
            Vec2::new(x, top + 40.0),
            0.0,
        );
    }
    let settled_steps: Vec<StepTime> = (0..180).map(|_| step(&mut app)).collect();

    let (w, h) = ground.mask.size();
    let mut rebuilds = Vec::new();
    let mut first_steps = Vec::new();
    let mut after_steps = Vec::new();
    let mut collider_bytes = 0;
    for &x in craters {
        let Some(top) = surface(&ground.mask, x) else {
            continue;
        };
        let (cx, cy) = (x + w as f32 / 2.0, h as f32 / 2.0 - top);
        // Theirs starts from the edited image: the same pixels cleared in it first.
        if side == Side::Polygons {
            ground.carve_mask(cx, cy);
            ground.clear_image_to_mask();
        }
        let start = Instant::now();
        let (collider, bytes) = measured(|| {
            if side == Side::Masks {
                ground.carve_mask(cx, cy);
            }
            ground.collider(side)
        });
        rebuilds.push(start.elapsed());
        collider_bytes = bytes;
        collider.insert_on(&mut app.world_mut().entity_mut(entity));
        first_steps.push(step(&mut app).total);
        after_steps.extend((0..30).map(|_| step(&mut app)));
    }
    let end = judge(&mut app, shapes, &ground.mask, true);
    CraterRun {
        side,
        rebuilds,
        first_steps,
        settled_steps,
        after_steps,
        end,
        collider_bytes,
    }
}
