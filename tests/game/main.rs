//! Headless app tests of the collision plugin and the game's scenes, one binary for all
//! of them: each integration test binary links Bevy, so one link instead of seven. (The
//! soak test has a binary of its own: it measures the process's memory.)

mod plugin;

#[cfg(feature = "game")]
mod basketball;
#[cfg(feature = "game")]
mod crowd;
#[cfg(feature = "game")]
mod hitboxes;
#[cfg(feature = "game")]
mod larry;
#[cfg(feature = "game")]
mod motion;
#[cfg(feature = "game")]
mod scenes;
#[cfg(feature = "game")]
mod soak_replay;
#[cfg(feature = "game")]
mod terrain;

#[cfg(feature = "game")]
use bevy::prelude::*;

/// One frame with Space just pressed, as the input plugin would report it.
#[cfg(feature = "game")]
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
