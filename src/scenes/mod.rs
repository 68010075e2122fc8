//! The playable scenes, one module each, each a Bevy plugin on its [`GameScene`] state.
//!
//! [`GameScene`]: super::GameScene

pub mod basketball;
pub mod crowd;
pub mod hitboxes;
pub mod larry;
pub mod sprites;
pub mod terrain;
