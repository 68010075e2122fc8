//! The transcendental functions whose results feed answers (a sprite's rotation, the
//! contact's fallback directions, the sprite tables' support directions, a turning cast's
//! poses and chord count, the character's slope limit), taken from the `libm` crate rather
//! than the platform's maths library. `std`'s `sin`, `tan` or `acos` (and glam's
//! `from_angle`, which calls them) are whatever the target's C library or LLVM's lowering
//! gives, and glibc, macOS, Windows and the wasm build differ in the last bit now and
//! then: enough for a contact's normal, and so a rollback peer's whole simulation, to
//! drift. `libm` is plain Rust, so one input gives one output on every target and CPU.
//! Everything else the core computes with floats is `+ - * /`, `sqrt` and comparisons,
//! which IEEE 754 rounds the same everywhere. Only this module may call the platform's
//! transcendental functions on a path to an answer: swapping the source here swaps it for
//! the whole crate.

use bevy_math::{DMat2, Vec2};

/// `(cos angle, sin angle)`, as `Vec2::from_angle` makes it.
pub(crate) fn unit_vector(angle: f32) -> Vec2 {
    let (sin, cos) = libm::sincosf(angle);
    Vec2::new(cos, sin)
}

/// The counterclockwise turn by `angle` radians, as `DMat2::from_angle` makes it.
pub(crate) fn rotation_f64(angle: f64) -> DMat2 {
    let (sin, cos) = libm::sincos(angle);
    DMat2::from_cols_array(&[cos, sin, -sin, cos])
}

/// `tan x`.
pub(crate) fn tan(x: f32) -> f32 {
    libm::tanf(x)
}

/// `acos x`.
pub(crate) fn acos(x: f64) -> f64 {
    libm::acos(x)
}
