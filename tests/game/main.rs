//! Tests of the game: its engine-free simulations and its scenes in headless apps, one
//! binary for all of them: each integration test binary links Bevy, so one link instead
//! of ten. (The soak test has a binary of its own: it measures the process's memory.)

mod ball;
mod basketball;
mod crowd;
mod crowd_sim;
mod determinism;
mod hitboxes;
mod larry;
mod motion;
mod readme;
mod scenes;
mod soak_replay;
mod stay_on_screen;
mod terrain;
mod terrain_sim;

use bevy::prelude::*;
use pixel_collide_support::cases;

/// One frame with Space just pressed, as the input plugin would report it.
fn press_space(app: &mut App) {
    app.world_mut()
        .resource_mut::<ButtonInput<KeyCode>>()
        .press(KeyCode::Space);
    app.update();
    let mut keys = app.world_mut().resource_mut::<ButtonInput<KeyCode>>();
    keys.release(KeyCode::Space);
    // Headless there is no input plugin to end the "just pressed" frame.
    keys.clear();
}
