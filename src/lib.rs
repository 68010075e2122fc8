//! Pixel-accurate 2D collision and the Bevy demo game built on it.
//!
//! [`collision`] is the engine-agnostic core (bit masks, transformed overlap with contacts,
//! hitbox shapes); it needs only `bevy_math` and `image`, so it builds without the `game`
//! feature. [`plugin`] is `PixelCollisionPlugin` for any Bevy game (feature `plugin`), and
//! [`game`] the demo built on it (feature `game`, the default). `avian` (feature `avian`)
//! makes masks colliders in the avian2d physics engine.

#[cfg(feature = "avian")]
pub mod avian;

pub mod collision;

#[cfg(feature = "game")]
pub mod game;

#[cfg(feature = "plugin")]
pub mod plugin;

/// `use pixel_collide::prelude::*;`: the plugin, its components and results, and the
/// core's mask and contact types.
#[cfg(feature = "plugin")]
pub mod prelude {
    pub use crate::plugin::prelude::*;
}
