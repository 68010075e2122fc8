//! The scenes' simulations that need no engine: each runs on the `pixel_collide` core and
//! is fed and drawn by its scene.
//!
//! - [`ball`]: the basketball's integrator on pixel-mask platforms (the basketball scene).
//! - [`crowd`]: thousands of moving, rotating sprites and their collision step (the crowd
//!   scene, and the benches' reference for the plugin).
//! - [`determinism`]: a seeded crowd and terrain whose hash must be the same on every
//!   machine, thread count and build.

pub mod ball;
pub mod crowd;
pub mod determinism;
