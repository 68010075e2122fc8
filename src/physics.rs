//! avian2d for the scenes whose bodies need a rigid-body solver (the terrain scene's balls
//! and falling pieces), with pixel masks as their colliders ([`bevy_pixel_collide::avian`]).
//!
//! avian steps in `FixedPostUpdate`, at the game's one fixed rate
//! ([`super::motion::FIXED_HZ`]), and draws its bodies between steps through
//! `TransformInterpolation`, as [`super::motion::FixedPose`] does for everything else.

use avian2d::prelude::*;
use bevy::prelude::*;

use bevy_pixel_collide::avian::{MaskColliderPlugin, MaskContacts};

/// Downward gravity, px/s²: the basketball scene's and the terrain pieces' own.
pub const GRAVITY: f32 = 900.0;

/// Sprites are about 20 to 60 px across: avian's tolerances and sleep thresholds are in
/// that unit.
const LENGTH_UNIT: f32 = 20.0;

/// Balls and pieces spin as they hit: pairs whose turns swing their pixels more than this
/// in a step are also held where they would meet by its end
/// (`MaskContacts::prediction_threshold`, 3 px by default). The scene has a few dozen
/// bodies, so testing more of them than the default would costs little.
const PREDICT_PAST: f32 = 1.5;

pub fn plugin(app: &mut App) {
    let mut contacts = MaskContacts::default();
    contacts.prediction_threshold = PREDICT_PAST;
    app.insert_resource(contacts)
        .add_plugins((
            PhysicsPlugins::default().with_length_unit(LENGTH_UNIT),
            MaskColliderPlugin,
        ))
        .insert_resource(Gravity(Vec2::new(0.0, -GRAVITY)));
}
