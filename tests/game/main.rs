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
