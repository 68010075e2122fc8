//! The terrain scene's moving bodies on avian2d: balls and the pieces craters cut loose
//! are rigid bodies whose colliders are their pixel masks ([`MaskCollider`]), as is the
//! terrain itself (a static body, its collider replaced after every edit). avian's solver
//! makes them tumble, bounce, rest and push each other; contacts come from the masks.
//!
//! A piece that has come to rest is laid back into the terrain pixel for pixel
//! ([`TerrainWorld::settle`](pixel_collide::terrain::TerrainWorld::settle)), its colors
//! with it. A ball at rest, or set off by the player, explodes.

use std::sync::Arc;

use avian2d::prelude::*;
use bevy::prelude::*;

use super::texture::paste_settled;
use super::{FallingPiece, TerrainSim, TerrainSprite};
use crate::scene::GameScene;
use bevy_pixel_collide::PixelCollider;
use bevy_pixel_collide::avian::MaskCollider;
use pixel_collide::BitMask;

/// Grass and earth, and the ball on them: bouncy enough to see, rough enough to stop on a
/// slope.
const EARTH_FRICTION: f32 = 0.7;
const EARTH_RESTITUTION: f32 = 0.45;
const PIECE_RESTITUTION: f32 = 0.1;
/// A body slower than this (px/s, and rad/s turning) for [`REST_STEPS`] fixed steps has
/// come to rest: a ball explodes, a piece settles into the terrain.
pub const REST_SPEED: f32 = 25.0;
const REST_TURN: f32 = 0.3;
pub const REST_STEPS: u32 = 30;
/// A body that has not come to rest after this many fixed steps (a piece rocking on a
/// point, a ball caught between two pieces) rests anyway.
const MOST_STEPS: u32 = 60 * 12;
/// Walls beyond the terrain's left, right and bottom edges keep bodies in play; this thick.
const WALL: u32 = 64;

/// A ball in flight, thrown by the player.
#[derive(Component, Debug, Clone, Copy, Default)]
pub struct FlyingBall {
    /// When it was thrown, so the oldest is set off first.
    pub thrown: u32,
    pub rest: RestClock,
}

/// Fixed steps a body has been at rest, and has lived.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RestClock {
    pub still: u32,
    pub age: u32,
}

impl RestClock {
    /// Counts one step; true once the body has rested long enough.
    fn tick(&mut self, velocity: Vec2, spin: f32) -> bool {
        let still = velocity.is_finite()
            && spin.is_finite()
            && velocity.length() < REST_SPEED
            && spin.abs() < REST_TURN;
        self.still = if still { self.still + 1 } else { 0 };
        self.age += 1;
        self.still >= REST_STEPS || self.age >= MOST_STEPS
    }
}

/// The static walls round the terrain.
#[derive(Component, Debug, Clone, Copy)]
pub struct TerrainWall;

/// The terrain's collider, walls and a body's physics parts.
fn earth() -> (Friction, Restitution) {
    (
        Friction::new(EARTH_FRICTION),
        Restitution::new(EARTH_RESTITUTION),
    )
}

/// Walls left, right and below a terrain of `size` px centered on the origin.
pub fn spawn_walls(commands: &mut Commands, size: (u32, u32)) {
    let (w, h) = (size.0 as f32, size.1 as f32);
    let wall = WALL as f32;
    let side = Arc::new(BitMask::solid(WALL, size.1 + 2 * WALL).expect("a small mask"));
    let floor = Arc::new(BitMask::solid(size.0 + 2 * WALL, WALL).expect("a small mask"));
    for (at, mask) in [
        (Vec2::new(-(w + wall) / 2.0, 0.0), &side),
        (Vec2::new((w + wall) / 2.0, 0.0), &side),
        (Vec2::new(0.0, -(h + wall) / 2.0), &floor),
    ] {
        commands.spawn((
            Name::new("Wall"),
            TerrainWall,
            RigidBody::Static,
            MaskCollider::fixed(Arc::clone(mask)),
            earth(),
            Transform::from_translation(at.extend(0.0)),
            DespawnOnExit(GameScene::Terrain),
        ));
    }
}

/// The terrain's own collider: its current mask, on the terrain sprite.
pub fn terrain_collider(sim: &TerrainSim) -> impl Bundle + use<> {
    (
        RigidBody::Static,
        MaskCollider::fixed(Arc::clone(sim.terrain.terrain_shared())),
        earth(),
    )
}

/// A ball thrown from `at` with `velocity`.
pub fn ball_bundle(sim: &TerrainSim, at: Vec2, velocity: Vec2, thrown: u32) -> impl Bundle + use<> {
    (
        Name::new("Ball"),
        Sprite::from_image(sim.ball_image.clone()),
        Transform::from_translation(at.extend(3.0)),
        RigidBody::Dynamic,
        MaskCollider::new(Arc::clone(&sim.ball_mask)),
        LinearVelocity(velocity),
        earth(),
        // Resting is ours to decide: a ball at rest explodes.
        SleepingDisabled,
        TransformInterpolation,
        // Through the collision plugin it hits targets.
        PixelCollider::default(),
        FlyingBall {
            thrown,
            ..default()
        },
        DespawnOnExit(GameScene::Terrain),
    )
}

/// A piece cut loose, its center at `center` (world px), with its own texture.
pub fn piece_bundle(mask: BitMask, center: Vec2, image: Handle<Image>) -> impl Bundle {
    (
        Name::new("Falling piece"),
        Sprite::from_image(image.clone()),
        Transform::from_translation(center.extend(1.0)),
        RigidBody::Dynamic,
        MaskCollider::new(Arc::new(mask)),
        Friction::new(EARTH_FRICTION),
        Restitution::new(PIECE_RESTITUTION),
        SleepingDisabled,
        TransformInterpolation,
        FallingPiece {
            image,
            rest: RestClock::default(),
        },
        DespawnOnExit(GameScene::Terrain),
    )
}

/// Balls at rest explode; pieces at rest are laid back into the terrain, mask and
/// texture; bodies that left the world (a non-finite pose) are dropped.
pub fn rest_bodies(
    mut commands: Commands,
    sim: Option<ResMut<TerrainSim>>,
    mut images: ResMut<Assets<Image>>,
    mut balls: Query<(
        Entity,
        &mut FlyingBall,
        &Position,
        &LinearVelocity,
        &AngularVelocity,
    )>,
    mut pieces: Query<(
        Entity,
        &mut FallingPiece,
        &MaskCollider,
        &Position,
        &Rotation,
        &LinearVelocity,
        &AngularVelocity,
    )>,
) {
    let Some(mut sim) = sim else { return };
    let sim = &mut *sim;
    for (entity, mut ball, position, velocity, spin) in &mut balls {
        if !position.0.is_finite() {
            commands.entity(entity).despawn();
            continue;
        }
        if ball.rest.tick(velocity.0, spin.0) {
            sim.explode_ball(entity, position.0);
        }
    }
    let mut settled_any = false;
    for (entity, mut piece, collider, position, rotation, velocity, spin) in &mut pieces {
        if !position.0.is_finite() || !rotation.as_radians().is_finite() {
            // Out of the world: its pixels are gone, and said so in the overlay.
            sim.terrain.lost_in_settling += collider.mask().count();
            commands.entity(entity).despawn();
            continue;
        }
        if !piece.rest.tick(velocity.0, spin.0) {
            continue;
        }
        let to_world = collider.to_world(position.0, *rotation);
        let settled = sim.terrain.settle(collider.mask(), to_world);
        paste_settled(&mut images, &sim.texture, &piece.image, &settled);
        commands.entity(entity).despawn();
        settled_any = true;
    }
    if settled_any {
        sim.terrain_edited();
    }
}

/// After an edit, the terrain's collider is its new mask.
pub fn sync_terrain_collider(
    sim: Option<ResMut<TerrainSim>>,
    mut terrain: Query<&mut MaskCollider, With<TerrainSprite>>,
) {
    let Some(mut sim) = sim else { return };
    if !sim.collider_stale {
        return;
    }
    sim.collider_stale = false;
    if let Ok(mut collider) = terrain.single_mut() {
        *collider = MaskCollider::fixed(Arc::clone(sim.terrain.terrain_shared()));
    }
}

/// The velocity a blast at `at`, of a crater of `radius`, adds to a body at `position`:
/// away from the blast, `strength` px/s at its center, fading to nothing at three radii.
pub fn blast_push(at: Vec2, radius: f32, strength: f32, position: Vec2) -> Vec2 {
    let away = position - at;
    let falloff = 1.0 - away.length() / (3.0 * radius);
    if falloff.is_nan() || falloff <= 0.0 {
        return Vec2::ZERO;
    }
    away.normalize_or(Vec2::Y) * strength * falloff
}
