//! Headless app tests of the plugin, one binary for all of them: each integration test
//! binary links Bevy, so one link instead of two.

#[cfg(feature = "avian")]
mod avian;
mod character;
mod destructible;
mod determinism;
#[cfg(feature = "picking")]
mod picking;
mod pixels;
mod queries;
mod surface;
