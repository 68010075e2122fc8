//! The engine-agnostic collision core: no ECS, no rendering.
//!
//! - [`mask`]: [`BitMask`], one bit per pixel in `u64` words, and axis-aligned overlap.
//! - [`transformed`]: overlap of rotated, scaled or flipped masks, with a [`Contact`].
//! - [`ray`]: the first set pixel of a mask along a ray.
//! - [`shapes`]: the tutorials' hitboxes (boxes, circles, points, oriented boxes, sweeps).
//! - [`baseline`]: the tutorials' pixel loops, kept as references for tests and benches.

pub mod ball;
pub mod baseline;
pub mod broad_phase;
pub mod crowd;
pub mod mask;
mod overlap_kernel;
pub mod ray;
pub mod rng;
pub mod shapes;
pub mod transformed;

pub use mask::{BitMask, Connectivity, MaskError, MaskLimits, MaskRect, WordKernel};
pub use ray::MaskRayHit;
pub use transformed::{
    Contact, sprite_to_world, transformed_intersects, transformed_overlap, world_bounds,
};
