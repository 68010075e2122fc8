//! The engine-agnostic collision core: no ECS, no rendering.
//!
//! - [`mask`]: [`BitMask`], one bit per pixel in `u64` words, and axis-aligned overlap.
//! - [`transformed`]: overlap of rotated, scaled or flipped masks, with a [`Contact`].
//! - [`gap`]: how far apart two placed masks are, for a solver's speculative contacts.
//! - [`ray`]: the first set pixel of a mask along a ray.
//! - [`shapes`]: the tutorials' hitboxes (boxes, circles, points, oriented boxes, sweeps).
//! - [`terrain`]: destructible terrain: craters, pieces cut loose that fall and merge back.
//!
//! The tutorials' pixel loops (`baseline`, the references that tests and benches compare
//! with) and the seeded generator (`rng`) are scaffolding, not API: public only with the
//! `internals` feature, which the crate's own tests and benches turn on.

pub mod ball;
#[cfg(feature = "internals")]
pub mod baseline;
pub mod broad_phase;
pub mod crowd;
pub mod gap;
pub mod mask;
mod overlap_kernel;
pub mod ray;
#[cfg(feature = "internals")]
pub mod rng;
// Without `internals` only the game draws from it, and not every method.
#[cfg(not(feature = "internals"))]
#[allow(dead_code)]
pub(crate) mod rng;
pub mod shapes;
pub mod terrain;
pub mod transformed;

pub use gap::{Gap, MAX_SIDES, transformed_gap, transformed_gaps};
pub use mask::{BitMask, Connectivity, MaskError, MaskLimits, MaskRect, WordKernel};
pub use ray::MaskRayHit;
pub use transformed::{
    Contact, sprite_to_world, transformed_intersects, transformed_overlap, world_bounds,
};
