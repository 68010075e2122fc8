//! Tests of the engine-agnostic core, one binary for all of them: each integration test
//! binary links the whole crate, so one link instead of seven.

mod broad_phase;
mod cast;
mod character;
mod determinism;
mod gap;
mod mask;
mod mask_edit;
mod pieces;
mod projection;
mod ray;
mod shapes;
mod terrain;
mod transformed;

use pixel_collide_support::cases;
