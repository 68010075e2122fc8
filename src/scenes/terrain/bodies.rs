//! The terrain scene's moving bodies on avian2d: balls are rigid bodies whose colliders are
//! their pixel masks ([`MaskCollider`]), the terrain a static one (the collision plugin
//! keeps its collider equal to its edited mask, and makes the pieces craters cut loose
//! bodies of their own). avian's solver makes them tumble, bounce, rest and push each
//! other; contacts come from the masks. A ball at rest, or set off by the player,
//! explodes.

use std::sync::Arc;

use avian2d::prelude::*;
use bevy::prelude::*;

use super::TerrainSim;
use crate::scene::GameScene;
use bevy_pixel_collide::PixelCollider;
use bevy_pixel_collide::avian::MaskCollider;
use pixel_collide::BitMask;

/// Grass and earth, and the ball on them: bouncy enough to see, rough enough to stop on a
/// slope.
const EARTH_FRICTION: f32 = 0.7;
const EARTH_RESTITUTION: f32 = 0.45;
/// Pieces cut loose bounce less than the earth they broke off.
pub(super) const PIECE_RESTITUTION: f32 = 0.1;
/// A ball slower than this (px/s, and rad/s turning) for [`REST_STEPS`] fixed steps has
/// come to rest and explodes (pieces settle by the plugin's `SettlePieces`, alike).
pub const REST_SPEED: f32 = 25.0;
const REST_TURN: f32 = 0.3;
pub const REST_STEPS: u32 = 30;
/// A ball that has not come to rest after this many fixed steps (caught between two
/// pieces) rests anyway.
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

/// The terrain's body: static, of earth. Its collider is its mask, given and kept by the
/// collision plugin.
pub fn terrain_body() -> impl Bundle {
    (RigidBody::Static, earth())
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

/// Balls at rest explode; balls that left the world (a non-finite pose) are dropped.
pub fn rest_bodies(
    mut commands: Commands,
    sim: Option<ResMut<TerrainSim>>,
    mut balls: Query<(
        Entity,
        &mut FlyingBall,
        &Position,
        &LinearVelocity,
        &AngularVelocity,
    )>,
) {
    let Some(mut sim) = sim else { return };
    for (entity, mut ball, position, velocity, spin) in &mut balls {
        if !position.0.is_finite() {
            commands.entity(entity).despawn();
            continue;
        }
        if ball.rest.tick(velocity.0, spin.0) {
            sim.explode_ball(entity, position.0);
        }
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
