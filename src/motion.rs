//! The game's one time model.
//!
//! Anything that moves by itself (a body with a velocity that bounces off borders or
//! platforms, a bullet, the basketball) steps in `FixedUpdate` at [`FIXED_HZ`], the same
//! rate in every scene and never changed by one, so what happens does not depend on the
//! frame rate and a seeded run replays exactly. Its sprite is drawn between its last two
//! fixed poses ([`FixedPose`]), so the motion looks smooth at any frame rate, and the
//! collision plugin, which runs after transforms propagate, tests the pose that is drawn.
//!
//! What the player steers directly (the sprites moved by keys, Larry walking, the hitbox
//! shapes dragged by the mouse) moves in `Update` by the frame's time instead: nothing
//! integrates there, and the sprite answers the input in the frame it arrives.

use bevy::app::RunFixedMainLoopSystems;
use bevy::math::{Isometry2d, Rot2};
use bevy::prelude::*;

/// Fixed steps per second, for every scene.
pub const FIXED_HZ: f64 = 60.0;

/// The length of one fixed step, seconds.
pub const FIXED_STEP: f32 = (1.0 / FIXED_HZ) as f32;

/// A body moved in `FixedUpdate`: its pose after the last fixed step and the one before.
/// Its `Transform`'s translation (x and y; z is the sprite's depth and is kept) and
/// rotation are set between the two every frame; its scale is left alone.
///
/// A fixed-step system writes [`FixedPose::current`] (or calls [`FixedPose::teleport`] for
/// a jump that must not be drawn as motion); `previous` is kept by this module.
#[derive(Component, Debug, Clone, Copy, PartialEq)]
#[require(Transform)]
pub struct FixedPose {
    pub previous: Isometry2d,
    pub current: Isometry2d,
}

impl FixedPose {
    /// At rest at `position`, turned by `angle` radians.
    pub fn at(position: Vec2, angle: f32) -> Self {
        let pose = Isometry2d::new(position, Rot2::radians(angle));
        FixedPose {
            previous: pose,
            current: pose,
        }
    }

    /// Moves to `position` and `angle` without passing through the poses between.
    pub fn teleport(&mut self, position: Vec2, angle: f32) {
        *self = FixedPose::at(position, angle);
    }

    /// Sets the pose after this fixed step.
    pub fn set(&mut self, position: Vec2, angle: f32) {
        self.current = Isometry2d::new(position, Rot2::radians(angle));
    }

    /// The pose `alpha` of the way from `previous` to `current` (`0..=1`, clamped; NaN is
    /// `current`). Turns take the short way round.
    pub fn interpolated(&self, alpha: f32) -> Isometry2d {
        let alpha = if alpha.is_nan() {
            1.0
        } else {
            alpha.clamp(0.0, 1.0)
        };
        let (from, to) = (self.previous.translation, self.current.translation);
        Isometry2d::new(
            // Not `lerp`, whose `from * (1 - alpha) + to * alpha` rounds: a body at rest
            // must be drawn exactly where it rests.
            from + (to - from) * alpha,
            self.previous.rotation.slerp(self.current.rotation, alpha),
        )
    }
}

/// The fixed rate, and the interpolation of every [`FixedPose`]: part of the game's
/// `LogicPlugin`.
pub fn plugin(app: &mut App) {
    app.insert_resource(Time::<Fixed>::from_hz(FIXED_HZ))
        .add_systems(FixedFirst, remember_previous)
        .add_systems(
            RunFixedMainLoop,
            draw_between.in_set(RunFixedMainLoopSystems::AfterFixedMainLoop),
        );
}

/// Before each fixed step, the pose it starts from.
fn remember_previous(mut poses: Query<&mut FixedPose>) {
    poses.par_iter_mut().for_each(|mut pose| {
        if pose.previous != pose.current {
            pose.previous = pose.current;
        }
    });
}

/// After the frame's fixed steps, every body where the time since its last step puts it.
fn draw_between(fixed: Res<Time<Fixed>>, mut bodies: Query<(&FixedPose, &mut Transform)>) {
    let alpha = fixed.overstep_fraction();
    bodies.par_iter_mut().for_each(|(pose, mut transform)| {
        let drawn = pose.interpolated(alpha);
        let translation = drawn.translation.extend(transform.translation.z);
        let rotation = Quat::from_rotation_z(drawn.rotation.as_radians());
        // Read first: writing marks the transform changed, and a body at rest would then be
        // propagated and re-tested every frame for nothing.
        if transform.translation != translation || transform.rotation != rotation {
            transform.translation = translation;
            transform.rotation = rotation;
        }
    });
}
