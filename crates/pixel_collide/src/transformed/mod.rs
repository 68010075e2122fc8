//! Overlap of two masks under arbitrary affine transforms (rotation, non-uniform scale,
//! flips), with a [`Contact`] a physics response can use.
//!
//! Convention: mask space has x right, y down, and pixel `(i, j)` covers
//! `[i, i + 1) × [j, j + 1)`. A's pixel `(i, j)` is sampled at its center
//! `(i + 0.5, j + 0.5)`, mapped by `a_to_world`, then by the inverse of `b_to_world`; it
//! overlaps when the B pixel containing that point is set.
//!
//! Word speed instead of the tutorials' loop over every pixel: each row of A is clipped to
//! the span that can land inside B, empty words of A are skipped, and a run of A's samples
//! whose B pixels are all further than the run's length from any pixel of the other state
//! (B's cached distance field) is settled at once with popcounts. Only samples near B's
//! edges are mapped one by one: stepped along the row in fixed point, without branches,
//! with the exact two-step mapping above for the few that land too near a pixel edge for
//! the rounding to be sure.
//!
//! # Range
//!
//! - Answers are the definition above, literally, at any position and scale: far from the
//!   origin, or with pixels much smaller than an f32 step of the position (scale 1e-3 at
//!   1e6), the shortcuts' rounding margins, counted in B's pixels, grow until every sample
//!   they cannot vouch for takes the exact path. Slower there, never wrong.
//! - A transform that is not finite, or whose determinant, or that of A's transform into
//!   B's space, is zero or not finite in f32 (for uniform scales, below about 1e-22 or
//!   above 1.8e19, or a ratio of the two beyond those), is refused: no overlap, no
//!   contact.
//! - Mask sizes are exact in f32 because no mask is wider or taller than
//!   [`BitMask::MAX_SIDE`] (2^20).
//! - Every loop over floats (the contact's depth search) is bounded by a count that does
//!   not depend on the floats converging.
//!
//! # Files
//!
//! - here: the public queries and their types;
//! - `mapping.rs`: A's samples in B's space and the bounds that clip the walk;
//! - `row_walk.rs`: the walk over A's rows and words, the hot loops;
//! - `contact.rs`: the contact's normal and depth, searches over whole walks;
//! - `manifold.rs`: the manifold's ends and parts;
//! - `world.rs`: sprite transforms, world boxes, resampling.

use bevy_math::{Affine2, DAffine2, Vec2};

use super::mask::BitMask;

mod contact;
mod manifold;
mod mapping;
mod row_walk;
mod world;

use contact::contact_and_sums;
use mapping::Mapping;
use row_walk::Sums;
pub use world::{sprite_to_world, sprite_to_world_rotated, world_bounds, world_bounds_of_corners};

/// Where and how deeply A touches B, in world space.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Contact {
    /// Mean world position of A's overlapping samples.
    pub point: Vec2,
    /// Unit world vector along which A should move to leave B (B's outward normal).
    pub normal: Vec2,
    /// World distance A must move along `normal` to separate, found to within
    /// [`DEPTH_RESOLUTION`] of A's pixel (or f32's spacing at that distance, when that is
    /// coarser). Always positive and finite.
    pub depth: f32,
    /// Number of A's samples that overlap B.
    pub count: u32,
}

/// Whether any pixel of A lands on a set pixel of B. Stops at the first hit.
/// A non-invertible or non-finite transform gives `false`.
pub fn transformed_intersects(
    a: &BitMask,
    a_to_world: Affine2,
    b: &BitMask,
    b_to_world: Affine2,
) -> bool {
    transformed_first_hit(a, a_to_world, b, b_to_world).is_some()
}

/// The first pixel of A, as `[column, row]` in A's mask, whose sample lands on a set
/// pixel of B, in row-major order of the rows and runs the walk visits: a witness that
/// [`transformed_intersects`] is true, which a caller can try first next frame.
pub fn transformed_first_hit(
    a: &BitMask,
    a_to_world: Affine2,
    b: &BitMask,
    b_to_world: Affine2,
) -> Option<[u32; 2]> {
    let sums = walk(a, a_to_world, b, b_to_world, true);
    // In first-only mode the walk stops at the first hit and counts only it.
    (sums.count > 0).then_some([sums.sum_i as u32, sums.sum_j as u32])
}

/// Number of A's pixels that land on a set pixel of B (0 for a bad transform).
/// With pure translations this equals [`BitMask::overlap_area`].
pub fn transformed_overlap_area(
    a: &BitMask,
    a_to_world: Affine2,
    b: &BitMask,
    b_to_world: Affine2,
) -> u64 {
    walk(a, a_to_world, b, b_to_world, false).count
}

/// The contact of A with B, or `None` when no pixel overlaps or a transform is
/// non-invertible or non-finite.
///
/// The normal is the direction that most reduces the overlap: minus the gradient of the
/// overlap count as A moves one of B's pixels along each of B's axes, per world px (so a
/// straight face of B gives its own normal, however it is turned), counted over A's
/// pixels around the overlap (within as many pixels as one of B's spans, plus one, of its
/// box; over all of A when that box is larger than [`MANIFOLD_MAX_SAMPLES`]). Far from
/// the overlap, a pixel of A that a move of one pixel would put on B is beside B, not in
/// it: counted, the edge A lies along beyond the contact tipped the normal. When that
/// gradient vanishes (A deep inside B, or A's pixel on a line one pixel thin, where moving
/// a pixel either way clears it) it is the direction of least separation depth among
/// [`FALLBACK_DIRECTIONS`] evenly spaced ones, ties going to the one nearest the
/// direction from B's center to A's.
/// The depth is the distance along the normal that separates the masks, to within
/// [`DEPTH_RESOLUTION`] of a pixel: first the overlapping pixels are moved out of B alone
/// (a pixel at a time, doubling, then bisecting), and that answer kept if it holds for
/// every pixel of A; otherwise A is stepped along the normal, doubling the step until the
/// masks separate, then bisecting. Every loop in it is bounded by a count.
///
/// ```
/// use bevy_math::Vec2;
/// use pixel_collide::{BitMask, sprite_to_world, transformed_overlap};
///
/// let a = BitMask::solid(10, 10).unwrap();
/// let b = BitMask::solid(20, 4).unwrap();
/// // A's center at the origin; B lying across A's top edge, turned a little.
/// let a_to_world = sprite_to_world(Vec2::ZERO, 0.0, Vec2::ONE, a.size());
/// let b_to_world = sprite_to_world(Vec2::new(0.0, 6.0), 0.1, Vec2::ONE, b.size());
/// let contact = transformed_overlap(&a, a_to_world, &b, b_to_world).unwrap();
/// assert!(contact.normal.y < -0.9, "A leaves B downwards: {:?}", contact.normal);
/// assert!(contact.depth > 0.0 && contact.count > 0);
/// ```
pub fn transformed_overlap(
    a: &BitMask,
    a_to_world: Affine2,
    b: &BitMask,
    b_to_world: Affine2,
) -> Option<Contact> {
    contact_and_sums(a, a_to_world, b, b_to_world).map(|(contact, ..)| contact)
}

/// One point of a contact manifold: where the solver holds A and B apart, and how far A
/// is inside B there.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ManifoldPoint {
    /// World position: the mean of the overlapping samples at this end of the overlap.
    pub point: Vec2,
    /// How far A is into B here, along the contact's normal: the last distance at which A
    /// still touched B (up to a [`DEPTH_RESOLUTION`] step short of the contact's depth,
    /// and 0 for a hair's overlap), in the share of the thicker end's thickness this end
    /// has. Short of the depth rather than past it: a body resting a hair into another is
    /// held there, where one pushed out by the step fell back and was pushed out again,
    /// and never lay still.
    pub depth: f32,
    /// The way A leaves B here: the contact's normal, unless the overlap falls apart into
    /// separate parts (see [`transformed_manifold`]), each with its own.
    pub normal: Vec2,
    /// Which part of the overlap the point belongs to: points of one part share a normal,
    /// and a solver holds each part as a manifold of its own.
    pub part: u32,
}

/// Largest box of overlapping samples [`transformed_manifold`] scans for the overlap's
/// ends; beyond it (one mask sunk deep into another, which a solver pushes out whatever
/// the points) the manifold is the contact's point alone.
pub const MANIFOLD_MAX_SAMPLES: u64 = 4096;

/// The contact of A with B, as [`transformed_overlap`] gives it, and the points a
/// rigid-body solver should hold apart (`points` is cleared first): the two ends of the
/// overlap along the contact's tangent, each the mean of the samples within two pixels of
/// that end, with its own depth (see [`ManifoldPoint::depth`]). The contact's point alone
/// when the overlap is less than two of A's pixels long, or when its box holds more than
/// [`MANIFOLD_MAX_SAMPLES`].
///
/// Where the overlap falls into parts more than [`PART_GAP`] pixels apart (a clover's
/// leaves on a flower's petals), each part gets its own points, normal and depth, found
/// from that part's neighbourhood alone, and its own [`ManifoldPoint::part`].
///
/// Why two ends: held at one point, the overlap's middle, a body lying on another is
/// balanced on that point, and a pile of them rocks and sinks; held at both ends, it lies
/// still, as a polygon does on parry's two-point manifolds. Why parts: one normal for the
/// whole is the sum of the parts' gradients, and as one part comes and goes by a hair the
/// normal swings between them and the points jump, a kick each time, which kept piles of
/// concave sprites stirring for good; and the whole's depth along that normal is how far
/// A must move to clear B entirely, 11 px for a petal tip a pixel into an interlock, which
/// the solver applied and undid step after step. Each part, like a polygon's convex piece,
/// keeps its own normal and a depth of its own whatever the others do. Concave sprites may
/// then rest interlocked, a pixel into each other, where the whole's depth pushed them
/// apart.
pub fn transformed_manifold(
    a: &BitMask,
    a_to_world: Affine2,
    b: &BitMask,
    b_to_world: Affine2,
    points: &mut Vec<ManifoldPoint>,
) -> Option<Contact> {
    points.clear();
    let (contact, sums, touching, overlapping) = contact_and_sums(a, a_to_world, b, b_to_world)?;
    let whole = |point: Vec2| ManifoldPoint {
        point,
        depth: touching,
        normal: contact.normal,
        part: 0,
    };
    let Some(mapping) = Mapping::new(a, a_to_world, b, b_to_world) else {
        points.push(whole(contact.point));
        return Some(contact);
    };
    // Scanned once for the contact, the parts and the ends: each sample is an exact
    // mapping, up to MANIFOLD_MAX_SAMPLES (the contact's scan covers a wider box, and
    // gives none when that one is too large).
    let overlapping = overlapping.or_else(|| mapping.overlapping_samples(&sums));
    if let Some(samples) = &overlapping
        && sums.count <= PART_MAX_SAMPLES as u64
        && mapping.overlap_parts(&contact, samples, points)
    {
        return Some(contact);
    }
    match overlapping.and_then(|samples| mapping.overlap_ends(&contact, &samples, touching)) {
        Some(ends) => points.extend(ends),
        None => points.push(whole(contact.point)),
    }
    Some(contact)
}

/// Overlapping samples farther apart than this (in A's pixels, along either axis) belong
/// to separate parts of an overlap: a ragged edge's gaps of a pixel or two do not split
/// one contact.
pub const PART_GAP: u32 = 3;

/// Most overlapping samples [`transformed_manifold`] sorts into parts; beyond, one part.
const PART_MAX_SAMPLES: usize = 512;

/// The share of A's pixel to which [`transformed_overlap`] finds the depth. Finer than a
/// pixel because a solver pushes a body out by the depth: a body resting on another sinks
/// a hair, and a depth rounded up to a whole pixel threw it a pixel up every time, so a
/// pile never came to rest. Three more steps of the search than a whole pixel takes.
pub const DEPTH_RESOLUTION: f32 = 0.125;

/// Directions [`transformed_overlap`] tries when the overlap gradient vanishes.
pub const FALLBACK_DIRECTIONS: usize = 16;

/// The sums over A's samples that land on B (nothing for a transform the walk refuses),
/// walking A's rows, or its columns when fewer of them cross B.
///
/// A row crosses the overlap of two sprites side by side for a pixel or two but costs a
/// clip each, so when B's center lies more to A's side than above or below it, the walk
/// runs on A transposed, whose rows are A's columns. Pixel `(i, j)` of the transposed
/// mask is pixel `(j, i)` of A, and its transform is A's with the matrix columns swapped,
/// so each sample's world point is the same two products added the other way round
/// (which is exact), and every answer is the same.
fn walk(
    a: &BitMask,
    a_to_world: Affine2,
    b: &BitMask,
    b_to_world: Affine2,
    first_only: bool,
) -> Sums {
    let Some(mapping) = Mapping::new(a, a_to_world, b, b_to_world) else {
        return Sums::default();
    };
    // Sprites apart, the common case, end here: before any choice of orientation.
    let Some(prefers_columns) = mapping.placement() else {
        return Sums::default();
    };
    if prefers_columns && let Some(transposed) = a.transposed() {
        let m = a_to_world.matrix2;
        let swapped = Affine2::from_cols(m.y_axis, m.x_axis, a_to_world.translation);
        if let Some(by_columns) = Mapping::new(transposed, swapped, b, b_to_world) {
            let sums = by_columns.walk(first_only);
            return Sums {
                count: sums.count,
                sum_i: sums.sum_j,
                sum_j: sums.sum_i,
                i_range: sums.j_range,
                j_range: sums.i_range,
            };
        }
    }
    mapping.walk(first_only)
}

/// Whether the walk accepts a transform: finite, with a finite non-zero determinant.
/// Callers that sample on their own ([`crate::pair::first_hit_with_hints`]) check the same.
pub(crate) fn is_usable(t: Affine2) -> bool {
    let det = t.matrix2.determinant();
    t.is_finite() && det.is_finite() && det != 0.0
}

/// The largest factor by which `m` lengthens a vector (its spectral norm), rounded up: a
/// rotation and uniform scale stretch by the scale, where the Frobenius norm, the easy
/// bound, says √2 times that. From the singular values of a 2×2 matrix:
/// `σ² = F²/2 ± √((F²/2)² − det²)`.
pub fn largest_stretch(m: bevy_math::Mat2) -> f32 {
    let m = m.as_dmat2();
    let det = m.determinant().abs();
    let half_frobenius = (m.x_axis.length_squared() + m.y_axis.length_squared()) / 2.0;
    let spread = (half_frobenius * half_frobenius - det * det)
        .max(0.0)
        .sqrt();
    // f64 keeps the subtraction's cancellation far below the relative slack.
    ((half_frobenius + spread).sqrt() * (1.0 + 1e-6)) as f32
}

pub(crate) fn to_f64(t: Affine2) -> DAffine2 {
    DAffine2::from_mat2_translation(t.matrix2.as_dmat2(), t.translation.as_dvec2())
}

#[cfg(test)]
mod tests {
    use super::*;
    use pixel_collide_seeded::rng::SplitMix64;

    #[test]
    fn largest_stretch_bounds_every_direction_tightly() {
        let mut rng = SplitMix64(8);
        for _ in 0..2_000 {
            let m = bevy_math::Mat2::from_cols_array(&[
                rng.range(-5.0, 5.0),
                rng.range(-5.0, 5.0),
                rng.range(-5.0, 5.0),
                rng.range(-5.0, 5.0),
            ]);
            let stretch = largest_stretch(m);
            let most = (0..3_600)
                .map(|k| {
                    (m * Vec2::from_angle(k as f32 / 3_600.0 * std::f32::consts::TAU)).length()
                })
                .fold(0.0f32, f32::max);
            assert!(most <= stretch * (1.0 + 1e-6), "{m:?}: {most} > {stretch}");
            // Sampling every 0.1° finds the largest stretch to within 2e-6 of it.
            assert!(
                stretch <= most * 1.001 + 1e-6,
                "{m:?}: {stretch} far above {most}"
            );
        }
        let turn = bevy_math::Mat2::from_angle(0.7) * 3.0;
        assert!((largest_stretch(turn) - 3.0).abs() < 1e-4);
    }

    fn noise(w: u32, h: u32, rng: &mut SplitMix64) -> BitMask {
        let mut m = BitMask::new(w, h);
        let (cx, cy) = (w as f32 / 2.0, h as f32 / 2.0);
        for y in 0..h {
            for x in 0..w {
                let (u, v) = ((x as f32 + 0.5 - cx) / cx, (y as f32 + 0.5 - cy) / cy);
                m.set(x.into(), y.into(), u * u + v * v <= 1.0 && rng.chance(0.85));
            }
        }
        m
    }

    /// Walking A's rows and walking its columns (A transposed, with swapped matrix
    /// columns) give the same sums for any placement, whichever the chooser would pick.
    #[test]
    fn both_walk_orientations_agree() {
        let mut rng = SplitMix64(21);
        let (mut compared, mut overlapping) = (0, 0);
        for _ in 0..400 {
            let (wa, ha) = (rng.below(90) as u32 + 1, rng.below(90) as u32 + 1);
            let (wb, hb) = (rng.below(90) as u32 + 1, rng.below(90) as u32 + 1);
            let (a, b) = (noise(wa, ha, &mut rng), noise(wb, hb, &mut rng));
            let place = |rng: &mut SplitMix64, at: Vec2, size: (u32, u32)| {
                let scale = Vec2::new(rng.range(0.4, 2.5), rng.range(0.4, 2.5));
                sprite_to_world(at, rng.range(-7.0, 7.0), scale, size)
            };
            let origin = Vec2::new(rng.range(-5e4, 5e4), rng.range(-5e4, 5e4));
            let ta = place(&mut rng, origin, (wa, ha));
            let offset = Vec2::new(rng.range(-120.0, 120.0), rng.range(-120.0, 120.0));
            let tb = place(&mut rng, origin + offset, (wb, hb));
            let m = ta.matrix2;
            let swapped = Affine2::from_cols(m.y_axis, m.x_axis, ta.translation);
            let transposed = a.transposed().expect("small");
            let (Some(rows), Some(columns)) = (
                Mapping::new(&a, ta, &b, tb),
                Mapping::new(transposed, swapped, &b, tb),
            ) else {
                continue;
            };
            let (by_rows, by_columns) = (rows.walk(false), columns.walk(false));
            assert_eq!(by_rows.count, by_columns.count);
            assert_eq!(by_rows.sum_i, by_columns.sum_j);
            assert_eq!(by_rows.sum_j, by_columns.sum_i);
            compared += 1;
            overlapping += usize::from(by_rows.count > 0);
        }
        assert!(
            compared > 350 && overlapping > 100,
            "{compared} compared, {overlapping} overlap"
        );
    }
}
