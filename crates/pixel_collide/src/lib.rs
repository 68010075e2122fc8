//! Pixel-accurate 2D collision on bit masks: one bit per pixel in `u64` words, tested a
//! word at a time. Engine-agnostic: it needs only `bevy_math` (for `Vec2`, `Affine2` and
//! `Aabb2d`, the types Bevy games already use) and `image` (to read PNGs); the Bevy plugin
//! is the `bevy_pixel_collide` crate.
//!
//! ```
//! use bevy_math::{Affine2, Vec2};
//! use pixel_collide::{BitMask, transformed_overlap};
//!
//! // Two 8×8 squares, the second 6 px to the right: their last two columns overlap.
//! let square = BitMask::from_rgba8(8, 8, &[255; 8 * 8 * 4], 128).unwrap();
//! assert_eq!(square.overlap_area(&square, (6, 0)), 2 * 8);
//!
//! // The same, placed in a world by transforms: the contact's normal is the way the first
//! // moves to leave the second.
//! let a = Affine2::IDENTITY;
//! let b = Affine2::from_translation(Vec2::new(6.0, 0.0));
//! let contact = transformed_overlap(&square, a, &square, b).unwrap();
//! assert!(contact.normal.x < -0.9);
//! ```
//!
//! - [`BitMask`]: masks from RGBA pixels, axis-aligned overlap (a yes, the first pixel, the
//!   area), edits in place (draw, erase, circles), connected components, distance fields,
//!   ray casts ([`MaskRayHit`]).
//! - [`transformed_overlap`] and friends: overlap of rotated, scaled or flipped masks, with
//!   a [`Contact`]; [`transformed_gaps`]: how far apart two placed masks are.
//! - [`shapes`]: the tutorials' hitboxes (boxes, circles, points, oriented boxes, sweeps).
//! - [`broad_phase`]: candidate pairs from world boxes (sweep and prune, uniform grid,
//!   spatial hash).
//! - [`pair`]: the per-pixel test of one pair, with hints a caller can keep between frames.
//! - [`terrain`]: destructible terrain: craters, pieces cut loose that fall and merge back.
//! - [`png_declared_size`]: a PNG's size before it is decoded, so a loader can refuse a
//!   file that would ask for more memory than it allows.
//!
//! # Conventions
//!
//! - Mask space has x right, y down, and pixel `(i, j)` covers `[i, i + 1) × [j, j + 1)`.
//! - Axis-aligned offsets follow pygame's convention: `offset` is the other mask's top-left
//!   corner in this mask's coordinates.
//! - Placed masks: a transform takes mask space to the world (y up in Bevy;
//!   [`sprite_to_world`] builds one as Bevy draws a centered sprite). A's pixel `(i, j)` is
//!   sampled at its center `(i + 0.5, j + 0.5)`, mapped by A's transform, then by the
//!   inverse of B's; it overlaps when the B pixel containing that point is set. A
//!   [`Contact`]'s normal is the way A moves to leave B, its depth how far.
//!
//! # Range
//!
//! - Answers are the definition above, literally, at any position and scale: far from the
//!   origin, or with pixels much smaller than an f32 step of the position, the shortcuts'
//!   rounding margins grow until every sample they cannot vouch for takes the exact path.
//!   Slower there, never wrong.
//! - A transform that is not finite, or whose determinant (or that of A's transform into
//!   B's space) is zero or not finite in f32 (for uniform scales, below about 1e-22 or
//!   above 1.8e19), is refused: no overlap, no contact.
//! - Masks are at most [`BitMask::MAX_SIDE`] a side and [`BitMask::MAX_PIXELS`] in all;
//!   larger sizes are a [`MaskError`], never an allocation. Every loop over floats is
//!   bounded by a count.
//!
//! # Determinism
//!
//! Given the same calls, in the same order, on masks built and edited the same way (or
//! cloned from such), every answer is the same, bit for bit, on every machine: overlaps, contacts and manifolds
//! ([`transformed_overlap`] and its siblings), gaps ([`transformed_gaps`],
//! [`transformed_contact_or_gaps`]), casts ([`transformed_time_of_impact`], turning ones
//! too, and [`BitMask`]'s rays), projections ([`nearest_solid_pixel`]),
//! [`character::move_character`], [`sprite_to_world`], [`pair`]'s tests, the
//! [`broad_phase`]s' pair lists (their order too), mask edits, and [`terrain`]'s craters,
//! pieces (their ids and order) and steps. The core starts no threads.
//!
//! - **Across**: every build of the word loops ([`WordKernel`]), and CPUs and targets. The
//!   float work is `+ − × ÷`, `sqrt` and comparisons, which IEEE 754 rounds one way;
//!   the few sines, cosines, tangents and arccosines come from the `libm` crate (plain
//!   Rust), not the platform's maths library, whose last bit differs between C
//!   libraries.
//! - **Tested**: `tests/collision/determinism.rs` hashes every answer of a seeded
//!   scenario (turned, scaled and flipped sprites; a cratered terrain with falling pieces;
//!   casts; a walking character) against one committed value, under each build the CPU
//!   has; `tests/determinism_cross.sh` runs it on x86-64 with AVX-512, under qemu's
//!   Nehalem and Haswell models, on aarch64 under qemu-user, and as wasm32 under Node's
//!   WASI. The game's own check (a crowd of 2,000 and a cratered terrain) gives its
//!   committed hash natively and in the web build in Chromium, wasm SIMD and all.
//! - **Not covered**: what the caller computes before passing it in. A transform built
//!   with `Affine2::from_angle`, `Vec2::from_angle`, `Rot2::radians` or any `sin` or
//!   `cos` of `std` uses the platform's maths: pass the angle to [`sprite_to_world`], or
//!   build the rotation with `libm`. The order of the inputs is part of them (a broad
//!   phase's indices are the slice's order), and a new release of this crate may change
//!   answers.

#![warn(missing_docs)]
#![warn(unreachable_pub)]
// README's examples, run as doctests so that they stay true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

pub mod broad_phase;
mod cast;
pub mod character;
mod gap;
mod mask;
mod overlap_kernel;
pub mod pair;
pub mod pieces;
mod png;
mod projection;
mod ray;
mod reproducible_math;
pub mod shapes;
pub mod terrain;
mod transformed;

pub use cast::{
    MAX_TURN_CHORDS, MaskMotion, TURN_CHORD_TOLERANCE, TimeOfImpact, transformed_time_of_impact,
};
pub use gap::{
    GAP_BULGE, GAP_END_APART, Gap, GapEnd, MAX_GAP_SIDES, surely_farther_apart,
    transformed_contact_or_gaps, transformed_gap, transformed_gaps, transformed_gaps_beside,
};
pub use mask::{BitMask, Connectivity, MaskError, MaskLimits, MaskRect, WordKernel};
pub use png::png_declared_size;
pub use projection::{PointProjection, convex_polygon_touches, nearest_solid_pixel};
pub use ray::MaskRayHit;
pub use transformed::{
    Contact, DEPTH_RESOLUTION, FALLBACK_DIRECTIONS, MANIFOLD_MAX_SAMPLES, ManifoldPoint, PART_GAP,
    sprite_to_world, sprite_to_world_rotated, transformed_first_hit, transformed_intersects,
    transformed_manifold, transformed_overlap, transformed_overlap_area, world_bounds,
    world_bounds_of_corners,
};

/// Not API: hooks for this workspace's tests and benches (`pixel_collide_support`). They
/// may change in any release.
#[doc(hidden)]
pub mod __private {
    /// Pixels set in both of two runs of words, with `kernel`'s instruction set: the
    /// physical limit the row loops are measured against.
    pub fn contiguous_area(a: &[u64], b: &[u64], kernel: crate::WordKernel) -> u64 {
        crate::overlap_kernel::contiguous_area(a, b, kernel)
    }

    /// The mask's words as stored, guard columns and all: what the determinism test hashes,
    /// every bit of a mask's state that answers are read from.
    pub fn mask_words(mask: &crate::BitMask) -> &[u64] {
        mask.words_and_stride().0
    }
}
