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

use bevy_math::bounding::Aabb2d;
use bevy_math::{Affine2, DAffine2, DVec2, Vec2};

use super::mask::{BitMask, MaskLimits, bit_range, word_index, word_position_sum};

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

/// [`transformed_overlap`], with the sums of the walk that found it, the last distance
/// along the normal at which A still touched B, at most a resolution step short of the
/// depth (0 when the first step cleared it), and A's overlapping pixels in row order when
/// they were listed (see [`Mapping::samples_around`]).
fn contact_and_sums(
    a: &BitMask,
    a_to_world: Affine2,
    b: &BitMask,
    b_to_world: Affine2,
) -> Option<(Contact, Sums, f32, Option<Vec<(u32, u32)>>)> {
    let sums = walk(a, a_to_world, b, b_to_world, false);
    if sums.count == 0 {
        return None;
    }
    let n = sums.count as f64;
    let mean = DVec2::new(sums.sum_i as f64 / n + 0.5, sums.sum_j as f64 / n + 0.5);
    // In f64 and saturated: a usable transform can still stretch one axis past f32's range
    // (a scale of 1e38 by 1e-38), and the point must stay finite.
    let point = to_f64(a_to_world)
        .transform_point2(mean)
        .clamp(
            DVec2::splat(-f64::from(f32::MAX)),
            DVec2::splat(f64::from(f32::MAX)),
        )
        .as_vec2();

    // In f64: the squared length of a tiny or huge axis under- or overflows f32.
    let matrix = a_to_world.matrix2.as_dmat2();
    let pixel = (matrix.x_axis.length().max(matrix.y_axis.length()) as f32)
        .clamp(f32::MIN_POSITIVE, f32::MAX);
    let mapping = Mapping::new(a, a_to_world, b, b_to_world);
    // A's set samples around the overlap, in B's space: what moving A by a pixel or by
    // the depth changes, unless the overlap's box is too large to go through sample by
    // sample (one mask sunk deep into another).
    let near = mapping
        .as_ref()
        .and_then(|mapping| mapping.samples_around(&sums, mapping.around_overlap()));
    // A moved one of B's pixels along each of B's axes: its samples cross B's pixel edges
    // along one axis at a time, so a face of B, turned any way, changes the count along
    // its normal only. Moved along the world's axes instead, a sample crossed an edge or
    // not by where it sat in its pixel, and a crate lying on a floor turned 10° got a
    // normal 10° or 17° off, turn about, as it settled: a push sideways each time. Only
    // the samples around the overlap can change the count by a pixel's move; far from
    // it, a sample beside B that a pixel's move would put on it is a gap, not this
    // contact.
    let per_b_pixel = match (&mapping, &near) {
        (Some(mapping), Some(near)) => mapping.count_change(&near.all),
        _ => {
            let count_shifted = |shift: Vec2| {
                transformed_overlap_area(
                    a,
                    Affine2::from_translation(shift) * a_to_world,
                    b,
                    b_to_world,
                ) as f64
            };
            let (along_x, along_y) = (b_to_world.matrix2.x_axis, b_to_world.matrix2.y_axis);
            Vec2::new(
                (count_shifted(along_x) - count_shifted(-along_x)) as f32,
                (count_shifted(along_y) - count_shifted(-along_y)) as f32,
            )
        }
    };
    // Per world px: through the inverse transpose of B's matrix (usable, so invertible).
    let gradient = b_to_world.matrix2.inverse().transpose() * per_b_pixel;
    let (normal, (touching, depth)) = match (-gradient).try_normalize() {
        Some(normal) => {
            let resolution = pixel * DEPTH_RESOLUTION;
            // The overlapping samples moved alone out of B, then the answer checked on
            // every sample: two walks where the search from a pixel took six or seven.
            let local = mapping
                .as_ref()
                .zip(near.as_ref())
                .and_then(|(mapping, near)| {
                    let limit = clear_distance(a, a_to_world, b, b_to_world, pixel);
                    let (lo, hi) = mapping.samples_depth(&near.overlapping, normal, pixel, limit);
                    let hits = |d: f32| {
                        transformed_intersects(
                            a,
                            Affine2::from_translation(normal * d) * a_to_world,
                            b,
                            b_to_world,
                        )
                    };
                    (lo < hi && hi - lo <= resolution && (lo == 0.0 || hits(lo)) && !hits(hi))
                        .then_some((lo, hi))
                });
            (
                normal,
                local.unwrap_or_else(|| {
                    separation_bracket(a, a_to_world, b, b_to_world, normal, pixel, resolution)
                }),
            )
        }
        None => {
            let (normal, depth) = least_depth(a, a_to_world, b, b_to_world, pixel);
            (normal, (depth, depth))
        }
    };
    let contact = Contact {
        point,
        normal,
        depth,
        count: u32::try_from(sums.count).unwrap_or(u32::MAX),
    };
    Some((
        contact,
        sums,
        touching,
        near.map(|near| near.overlapping_pixels),
    ))
}

/// The share of A's pixel to which [`transformed_overlap`] finds the depth. Finer than a
/// pixel because a solver pushes a body out by the depth: a body resting on another sinks
/// a hair, and a depth rounded up to a whole pixel threw it a pixel up every time, so a
/// pile never came to rest. Three more steps of the search than a whole pixel takes.
pub const DEPTH_RESOLUTION: f32 = 0.125;

/// Directions [`transformed_overlap`] tries when the overlap gradient vanishes.
pub const FALLBACK_DIRECTIONS: usize = 16;

/// The direction of least separation depth among [`FALLBACK_DIRECTIONS`], and that depth;
/// ties go to the direction nearest the line from B's center to A's. (The old fallback,
/// that line alone, pushed a one-pixel ball on a one-pixel platform out sideways, up to
/// the platform's end.) Depths here are found to a thousandth of themselves, not to a
/// pixel: a pixel that only just entered a line clears it within a pixel in most
/// directions, and only the finer depth tells straight out from slantwise.
fn least_depth(
    a: &BitMask,
    a_to_world: Affine2,
    b: &BitMask,
    b_to_world: Affine2,
    pixel: f32,
) -> (Vec2, f32) {
    let center = |m: &BitMask, to_world: Affine2| {
        to_world.transform_point2(Vec2::new(m.width() as f32, m.height() as f32) * 0.5)
    };
    let towards_a = (center(a, a_to_world) - center(b, b_to_world))
        .try_normalize()
        .unwrap_or(Vec2::Y);
    let mut best: Option<(Vec2, f32)> = None;
    for k in 0..FALLBACK_DIRECTIONS {
        let angle = std::f32::consts::TAU * k as f32 / FALLBACK_DIRECTIONS as f32;
        let direction = Vec2::from_angle(angle);
        // Relative only: a pixel that only just entered a line clears it within a hair in
        // every direction but the edge-on ones, and an absolute tolerance would call them
        // all a tie and let the tie-break push it out sideways.
        let (_, depth) = separation_bracket(a, a_to_world, b, b_to_world, direction, pixel, 0.0);
        let better = best.is_none_or(|(best_direction, best_depth)| {
            let tie = best_depth * RELATIVE_DEPTH_RESOLUTION * 2.0;
            depth < best_depth - tie
                || (depth <= best_depth + tie
                    && direction.dot(towards_a) > best_direction.dot(towards_a))
        });
        if better {
            best = Some((direction, depth));
        }
    }
    best.unwrap_or((Vec2::Y, pixel))
}

/// Most doublings of the step in [`separation_bracket`]: from the smallest positive f32 to
/// the largest takes 277, so the limit is always reached first; the count bounds the loop
/// whatever the floats do.
const MAX_DOUBLINGS: u32 = 300;

/// How close, relative to the depth, [`least_depth`] brackets each direction's depth.
const RELATIVE_DEPTH_RESOLUTION: f32 = 1e-3;

/// Most bisection rounds in [`separation_bracket`]: 64 halvings take any f32 interval to
/// adjacent floats, where the midpoint rounds to an end and the loop stops anyway.
const MAX_BISECTIONS: u32 = 64;

/// The last distance along `normal` at which A still touches B (0 if the first step
/// clears it), and the distance that separates them: doubles a step until A is clear,
/// then bisects between the last hit and the first miss until they are `resolution` apart
/// (when that is a pixel; finer ones stop at [`RELATIVE_DEPTH_RESOLUTION`] of the depth),
/// or as close as f32 can tell them apart when that is coarser. Both loops have fixed
/// bounds ([`MAX_DOUBLINGS`], [`MAX_BISECTIONS`]) that do not depend on the floats
/// converging. The separating distance is finite and positive for any usable transforms.
fn separation_bracket(
    a: &BitMask,
    a_to_world: Affine2,
    b: &BitMask,
    b_to_world: Affine2,
    normal: Vec2,
    pixel: f32,
    resolution: f32,
) -> (f32, f32) {
    let hits = |d: f32| {
        transformed_intersects(
            a,
            Affine2::from_translation(normal * d) * a_to_world,
            b,
            b_to_world,
        )
    };
    let limit = clear_distance(a, a_to_world, b, b_to_world, pixel);
    let pixel = pixel.clamp(f32::MIN_POSITIVE, limit);
    let (mut lo, mut hi) = (0.0f32, pixel);
    let mut doublings = 0;
    while hits(hi) {
        if hi >= limit || doublings == MAX_DOUBLINGS {
            return (lo, limit);
        }
        doublings += 1;
        lo = hi;
        hi = (hi * 2.0).min(limit);
    }
    let relative = if resolution < pixel {
        RELATIVE_DEPTH_RESOLUTION
    } else {
        0.0
    };
    for _ in 0..MAX_BISECTIONS {
        if hi - lo <= resolution.max(hi * relative) {
            break;
        }
        let mid = 0.5 * (lo + hi);
        // A pixel below the float spacing here: the ends are adjacent floats.
        if mid <= lo || mid >= hi {
            break;
        }
        if hits(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (lo, hi)
}

/// A distance along any direction that takes A clear of B: beyond the sum of the two world
/// diagonals the boxes cannot touch. In f64: with scales near f32's range the diagonals
/// overflow f32, and the depth must stay finite.
fn clear_distance(
    a: &BitMask,
    a_to_world: Affine2,
    b: &BitMask,
    b_to_world: Affine2,
    pixel: f32,
) -> f32 {
    let diagonal = |m: &BitMask, t: Affine2| {
        let (w, h) = (f64::from(m.width()), f64::from(m.height()));
        let matrix = t.matrix2.as_dmat2();
        (matrix * DVec2::new(w, h)).length() + (matrix * DVec2::new(w, -h)).length()
    };
    let limit = diagonal(a, a_to_world) + diagonal(b, b_to_world) + f64::from(pixel);
    (limit as f32).clamp(f32::MIN_POSITIVE, f32::MAX)
}

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

/// Fewest set samples in a run for which settling it through B's distance field is worth
/// a lookup: below this, mapping each sample costs less than a lookup that fails, which it
/// often does in the thin edge rows where two sprites nearly meet.
const SETTLE_MIN_SAMPLES: u32 = 4;

/// The same for an A one word wide (a sprite), where a run is a whole row's overlap: its
/// fields are a few pixels deep, so a lookup rarely settles a run of fewer than this.
/// Measured on near misses of 64-px sprites, 8% faster than [`SETTLE_MIN_SAMPLES`]; on
/// large masks the lower bound is the faster one.
const SETTLE_MIN_SAMPLES_NARROW: u32 = 32;

/// A's rows as lines of sample positions in B's space.
struct RowLines {
    /// Sample (0, 0)'s position.
    origin: DVec2,
    /// From one row to the next.
    row_step: DVec2,
    /// 1 / (from one column to the next), per axis; 0 where the row is parallel to it.
    inverse_step: DVec2,
    size: DVec2,
    margin: f64,
    /// From one column to the next, and 1 / its squared length.
    column_step: DVec2,
    inverse_step_squared: f64,
    /// B's bounding circle: center, and radius plus the margin.
    circle: Option<(DVec2, f64)>,
}

/// A's set samples around an overlap, in B's space ([`Mapping::samples_around`]).
#[derive(Default)]
struct Around {
    all: Vec<Vec2>,
    /// Those that land on B, and their pixels in A.
    overlapping: Vec<Vec2>,
    overlapping_pixels: Vec<(u32, u32)>,
}

/// Sums over A's overlapping samples, in A's pixel indices, and the box they lie in
/// (inclusive; meaningless while `count` is 0).
#[derive(Debug, Clone, Copy)]
struct Sums {
    count: u64,
    sum_i: u64,
    sum_j: u64,
    i_range: (u32, u32),
    j_range: (u32, u32),
}

impl Default for Sums {
    fn default() -> Self {
        Sums {
            count: 0,
            sum_i: 0,
            sum_j: 0,
            i_range: (u32::MAX, 0),
            j_range: (u32::MAX, 0),
        }
    }
}

struct Mapping<'m> {
    a: &'m BitMask,
    b: &'m BitMask,
    a_to_world: Affine2,
    world_to_b: Affine2,
    /// The two mappings composed: only for spans and step sizes, which keep a margin for
    /// the rounding between it and the exact two-step mapping.
    a_to_b: Affine2,
    margin: f32,
    /// The same two f32 mappings composed in f64: a sample from it is the exact two-step
    /// result up to that result's own rounding, which is below `fixed_guard`.
    a_to_b_f64: DAffine2,
    /// For [`Mapping::map_one_by_one`], once per mapping: the column step in 32.32 fixed
    /// point, and the guard in the same units: [`rounding_bound`] (a sample further than
    /// it from every pixel edge lands in the same pixel by the two-step f32 mapping and
    /// by this one) plus the stepping's own rounding; `None` when it is too wide to trust
    /// the fixed-point path at all.
    fixed_step: (i64, i64),
    fixed_guard: Option<u32>,
    /// [`SETTLE_MIN_SAMPLES`] or, for an A one word wide, [`SETTLE_MIN_SAMPLES_NARROW`].
    settle_min_samples: u32,
    /// `a_to_b`'s inverse, for the clipping that works in A's space.
    b_to_a: Affine2,
    /// B's bounding circle mapped into A: its center, and a radius (plus the margin) no
    /// smaller than the ellipse it maps to, the radius times the largest stretch of
    /// `b_to_a`. `None` for an empty B.
    b_circle_in_a: Option<(Vec2, f32)>,
    /// `b_to_a` overflows (A squashed to almost nothing in B): the shortcuts, which all
    /// map B into A, cannot bound anything, so every sample takes the exact path.
    every_sample: bool,
}

impl<'m> Mapping<'m> {
    fn new(
        a: &'m BitMask,
        a_to_world: Affine2,
        b: &'m BitMask,
        b_to_world: Affine2,
    ) -> Option<Mapping<'m>> {
        if !is_usable(a_to_world) || !is_usable(b_to_world) {
            return None;
        }
        let world_to_b = b_to_world.inverse();
        let a_to_b = world_to_b * a_to_world;
        if !world_to_b.is_finite() || !is_usable(a_to_b) {
            return None;
        }
        if a.width() == 0 || a.height() == 0 || b.width() == 0 || b.height() == 0 {
            return None;
        }
        // f32 keeps ~7 digits: far from the origin the two mappings round differently by
        // more than a pixel, so the margin grows with the coordinates involved. It is in
        // B's pixels, so world distances count as many B pixels as they span: with B's
        // pixels far below an f32 step of the world position, that is thousands.
        let world = f64::from(
            a_to_world.translation.abs().max_element() + b_to_world.translation.abs().max_element(),
        );
        let world_in_b = world * f64::from(largest_stretch(world_to_b.matrix2));
        let in_b = f64::from(a_to_b.translation.abs().max_element());
        let guard = rounding_bound(a, a_to_world, world_to_b);
        // Saturated rather than infinite: the clipping then keeps every sample, and each
        // one takes the exact path, which is the definition.
        let margin =
            (2.0 + ((world_in_b + in_b) * 1e-5).max(4.0 * guard)).min(f64::from(f32::MAX)) as f32;
        let a_to_b_f64 = to_f64(world_to_b) * to_f64(a_to_world);
        let step = a_to_b_f64.matrix2.x_axis * FIXED_ONE;
        // Stepping in fixed point adds at most 64 roundings of 2^-32 to the f64 rounding.
        let fixed_guard = (guard + 1.0 / f64::from(1 << 24)) * FIXED_ONE;
        let b_to_a = a_to_b.inverse();
        let b_circle_in_a = b.bounding_circle().map(|(x, y, r)| {
            let center = b_to_a.transform_point2(Vec2::new(x as f32, y as f32));
            (
                center,
                (r as f32 + margin) * largest_stretch(b_to_a.matrix2),
            )
        });
        Some(Mapping {
            a,
            b,
            a_to_world,
            world_to_b,
            a_to_b,
            margin,
            a_to_b_f64,
            fixed_step: (step.x as i64, step.y as i64),
            fixed_guard: (fixed_guard < FIXED_ONE / 4.0).then_some(fixed_guard as u32),
            settle_min_samples: if a.width() <= 64 {
                SETTLE_MIN_SAMPLES_NARROW
            } else {
                SETTLE_MIN_SAMPLES
            },
            every_sample: !b_to_a.is_finite(),
            b_to_a,
            b_circle_in_a,
        })
    }

    /// Whether A's pixel `(i, j)`, set or not, lands on a set pixel of B, by the exact
    /// two-step mapping: the definition every shortcut answers to.
    #[inline]
    fn lands_on_b(&self, i: u32, j: u32) -> bool {
        self.on_b(self.sample(i, j))
    }

    /// The exact sample position of A's pixel `(i, j)` in B's space.
    #[inline]
    fn sample(&self, i: u32, j: u32) -> Vec2 {
        let center = Vec2::new(i as f32 + 0.5, j as f32 + 0.5);
        self.world_to_b
            .transform_point2(self.a_to_world.transform_point2(center))
    }

    #[inline]
    fn b_pixel(&self, p: Vec2) -> Option<(u32, u32)> {
        // Written so that NaN fails the test.
        if p.x >= 0.0 && p.y >= 0.0 && p.x < self.b.width() as f32 && p.y < self.b.height() as f32 {
            Some((p.x as u32, p.y as u32))
        } else {
            None
        }
    }

    /// `None` when the bounding circles of A and of B (mapped into A, as in
    /// [`Mapping::row_range`]) are apart, so that no sample can land; otherwise whether B's
    /// center lies more to A's side than above or below it (see [`walk`]).
    fn placement(&self) -> Option<bool> {
        if self.every_sample {
            return Some(false);
        }
        let (Some((ax, ay, ar)), Some((b_center, reach))) =
            (self.a.bounding_circle(), self.b_circle_in_a)
        else {
            return Some(false);
        };
        let a_center = Vec2::new(ax as f32, ay as f32);
        lens_rows(a_center, ar as f32, b_center, reach)?;
        let towards_b = b_center - a_center;
        Some(towards_b.x.abs() > towards_b.y.abs())
    }

    /// A's rows whose samples can land in B: B's rectangle mapped into A, plus the margin.
    fn row_range(&self) -> Option<(u32, u32)> {
        let b_to_a = self.b_to_a;
        let (w, h) = (self.b.width() as f32, self.b.height() as f32);
        let corners = [
            Vec2::ZERO,
            Vec2::new(w, 0.0),
            Vec2::new(0.0, h),
            Vec2::new(w, h),
        ]
        .map(|c| b_to_a.transform_point2(c));
        let (min_y, max_y) = corners
            .iter()
            .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), c| {
                (lo.min(c.y), hi.max(c.y))
            });
        // The margin is in B's pixels; a B pixel spans up to this many A rows.
        let scale = b_to_a.matrix2.x_axis.abs().max(b_to_a.matrix2.y_axis.abs());
        let pad = self.margin * (scale.x + scale.y).max(1.0);
        let (mut min_y, mut max_y) = (min_y - pad, max_y + pad);
        // B's bounding circle, usually much tighter for round or star-shaped sprites.
        if let Some((center, reach)) = self.b_circle_in_a {
            // Row j's samples sit at y = j + 0.5.
            min_y = min_y.max(center.y - reach - 0.5);
            max_y = max_y.min(center.y + reach - 0.5);
            // A's samples also lie in A's own bounding circle, so only the rows crossing
            // the lens of the two circles can land; when sprites nearly meet, that is a
            // thin sliver of the rows either circle spans.
            if let Some((ax, ay, ar)) = self.a.bounding_circle() {
                let a_center = Vec2::new(ax as f32, ay as f32);
                let (low, high) = lens_rows(a_center, ar as f32, center, reach)?;
                min_y = min_y.max(low - 0.5);
                max_y = max_y.min(high - 0.5);
            }
        }
        // Floor and ceil by casts (no libm call on CPUs before SSE4.1): a cast truncates,
        // which floors a positive number, and saturates; NaN bounds mean no bound.
        let top = if min_y > 0.0 { min_y as u32 } else { 0 };
        let max_y = max_y.min(self.a.height() as f32 - 1.0);
        if max_y < 0.0 {
            return None;
        }
        let bottom = max_y as u32 + u32::from((max_y as u32 as f32) < max_y);
        (top <= bottom).then_some((top, bottom))
    }

    /// The columns of row `j` whose samples can land in B: where the row's line of sample
    /// positions crosses B's rectangle and B's bounding circle (each plus the margin). `lines` comes from
    /// [`Mapping::row_lines`], computed once per query.
    fn column_span(&self, j: u32, lines: &RowLines) -> Option<(u32, u32)> {
        let start = lines.origin + lines.row_step * f64::from(j);
        let (mut lo, mut hi) = (0.0f64, f64::from(self.a.width() - 1));
        for axis in 0..2 {
            let (s, inverse) = (start[axis], lines.inverse_step[axis]);
            let (near, far) = (-lines.margin, lines.size[axis] + lines.margin);
            if inverse == 0.0 {
                // The row runs parallel to this side: all in or all out.
                if s < near || s > far {
                    return None;
                }
                continue;
            }
            let (t0, t1) = ((near - s) * inverse, (far - s) * inverse);
            lo = lo.max(t0.min(t1));
            hi = hi.min(t0.max(t1));
        }
        if let Some((center, radius)) = lines.circle {
            // Where the row's line is within `radius` of the center: a quadratic in t.
            let (v, w) = (lines.column_step, start - center);
            let (a, b) = (v.length_squared(), v.dot(w));
            let disc = b * b - a * (w.length_squared() - radius * radius);
            if disc.is_nan() || disc < 0.0 {
                return None;
            }
            let root = disc.sqrt();
            lo = lo.max((-b - root) * lines.inverse_step_squared);
            hi = hi.min((-b + root) * lines.inverse_step_squared);
        }
        // `lo ≥ 0` and `hi ≤ width − 1` here (`max` and `min` drop NaN), so casts floor
        // and a compare ceils, with no libm call on CPUs before SSE4.1.
        if lo > hi {
            return None;
        }
        let last = hi as u32 + u32::from((hi as u32 as f64) < hi);
        Some((lo as u32, last))
    }

    /// What [`Mapping::column_span`] needs for every row, in f64 so that long rows and far
    /// offsets keep their precision; reciprocals so a row costs no division.
    fn row_lines(&self) -> RowLines {
        let step = self.a_to_b.matrix2.x_axis.as_dvec2();
        let reciprocal = |d: f64| if d.abs() < 1e-12 { 0.0 } else { 1.0 / d };
        RowLines {
            origin: self.a_to_b.transform_point2(Vec2::splat(0.5)).as_dvec2(),
            row_step: self.a_to_b.matrix2.y_axis.as_dvec2(),
            inverse_step: DVec2::new(reciprocal(step.x), reciprocal(step.y)),
            size: DVec2::new(f64::from(self.b.width()), f64::from(self.b.height())),
            margin: f64::from(self.margin),
            column_step: step,
            inverse_step_squared: 1.0 / step.length_squared(),
            circle: self
                .b
                .bounding_circle()
                .map(|(x, y, r)| (DVec2::new(x, y), r + f64::from(self.margin))),
        }
    }

    /// Whether B's set pixels all map into a clear part of A (B in a ring's hole, say): A's
    /// distance field at the center of B's set pixels reaches further than they do. One
    /// lookup instead of a walk over every row.
    fn b_sits_in_clear_space(&self) -> bool {
        let Some(bounds) = self.b.cached_bounds() else {
            return true;
        };
        let half = Vec2::new(bounds.width as f32, bounds.height as f32) / 2.0;
        let center = Vec2::new(bounds.x as f32, bounds.y as f32) + half;
        let b_to_a = self.b_to_a;
        let p = b_to_a.transform_point2(center);
        if !(p.x >= 0.0
            && p.y >= 0.0
            && p.x < self.a.width() as f32
            && p.y < self.a.height() as f32)
        {
            return false;
        }
        let (x, y) = (p.x as u32, p.y as u32);
        if self.a.get(i64::from(x), i64::from(y)) {
            return false;
        }
        // Every A pixel whose center lands in B's set pixels lies within `reach` of p in
        // chessboard distance: B's rectangle maps to a parallelogram whose farthest points
        // are its corners. Pixels closer than `clear` to p are all clear.
        let m = b_to_a.matrix2;
        let corner = |v: Vec2| (m * v).abs().max_element();
        // The margin is in B's pixels; in A's it is as long as `b_to_a` stretches it.
        let margin = self.margin * largest_stretch(m);
        let reach = corner(half).max(corner(Vec2::new(half.x, -half.y))) + 1.0 + margin;
        let Some(field) = self.a.distance_field() else {
            return false;
        };
        let clear = field[y as usize * self.a.width() as usize + x as usize];
        reach < f32::from(clear)
    }

    /// How far, in A's pixels, a sample can be from the overlap and still land on B or
    /// leave it when A moves one of B's pixels: the most A's pixels one of B's spans,
    /// rounded (a stretch of exactly 2 that rounding made 2.0000002 is 2), plus one.
    fn around_overlap(&self) -> u32 {
        (largest_stretch(self.b_to_a.matrix2).round() as u32)
            .max(1)
            .saturating_add(1)
    }

    /// The box of the walk's overlapping samples widened by `reach` pixels (within A),
    /// as `[i0, i1, j0, j1]` inclusive; `None` for no overlap or a box of more than
    /// [`MANIFOLD_MAX_SAMPLES`].
    fn box_around(&self, sums: &Sums, reach: u32) -> Option<[u32; 4]> {
        let (i0, i1) = sums.i_range;
        let (j0, j1) = sums.j_range;
        if sums.count == 0 || i0 > i1 || j0 > j1 {
            return None;
        }
        let (i0, i1) = (
            i0.saturating_sub(reach),
            i1.saturating_add(reach).min(self.a.width() - 1),
        );
        let (j0, j1) = (
            j0.saturating_sub(reach),
            j1.saturating_add(reach).min(self.a.height() - 1),
        );
        let area = u64::from(i1 - i0 + 1) * u64::from(j1 - j0 + 1);
        (area <= MANIFOLD_MAX_SAMPLES).then_some([i0, i1, j0, j1])
    }

    /// A's set pixels in a box (`[i0, i1, j0, j1]`, inclusive), in row order.
    fn set_pixels_in(&self, [i0, i1, j0, j1]: [u32; 4]) -> impl Iterator<Item = (u32, u32)> {
        (j0..=j1)
            .flat_map(move |j| (i0..=i1).map(move |i| (i, j)))
            .filter(|&(i, j)| self.a.get(i.into(), j.into()))
    }

    /// A's set samples within `reach` pixels of the box of the walk's overlapping
    /// samples, in B's space, and those of them that land on B; `None` when that box
    /// holds more than [`MANIFOLD_MAX_SAMPLES`].
    fn samples_around(&self, sums: &Sums, reach: u32) -> Option<Around> {
        let mut around = Around::default();
        for (i, j) in self.set_pixels_in(self.box_around(sums, reach)?) {
            let p = self.sample(i, j);
            around.all.push(p);
            if self.on_b(p) {
                around.overlapping.push(p);
                around.overlapping_pixels.push((i, j));
            }
        }
        Some(around)
    }

    /// Whether a point of B's space lies on a set pixel of B.
    #[inline]
    fn on_b(&self, p: Vec2) -> bool {
        self.b_pixel(p)
            .is_some_and(|(x, y)| self.b.get(x.into(), y.into()))
    }

    /// How many more of `samples` land on B with A moved one of B's pixels along each of
    /// B's axes than moved one back: the overlap count's gradient in B's space.
    fn count_change(&self, samples: &[Vec2]) -> Vec2 {
        let lands = |p: Vec2| f32::from(u8::from(self.on_b(p)));
        samples.iter().fold(Vec2::ZERO, |change, &p| {
            change
                + Vec2::new(
                    lands(p + Vec2::X) - lands(p - Vec2::X),
                    lands(p + Vec2::Y) - lands(p - Vec2::Y),
                )
        })
    }

    /// The last distance along `normal` (world) at which one of `samples` (B's space),
    /// moved alone, still lands on B, and the first at which none does, to
    /// [`DEPTH_RESOLUTION`] of `pixel`: doubling from a pixel up to `limit`, then halving.
    /// Both are `limit` when they still land there.
    fn samples_depth(&self, samples: &[Vec2], normal: Vec2, pixel: f32, limit: f32) -> (f32, f32) {
        let along_b = self.world_to_b.transform_vector2(normal);
        let hits = |d: f32| samples.iter().any(|&p| self.on_b(p + along_b * d));
        let (mut lo, mut hi) = (0.0f32, pixel);
        while hits(hi) {
            lo = hi;
            if hi >= limit {
                break;
            }
            hi = (hi * 2.0).min(limit);
        }
        for _ in 0..MAX_BISECTIONS {
            if hi - lo <= pixel * DEPTH_RESOLUTION {
                break;
            }
            let mid = 0.5 * (lo + hi);
            if hits(mid) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        (lo, hi)
    }

    /// A's set samples in `sums`' box that land on B, each tested exactly, in row order;
    /// `None` for no overlap or a box of more than [`MANIFOLD_MAX_SAMPLES`].
    fn overlapping_samples(&self, sums: &Sums) -> Option<Vec<(u32, u32)>> {
        let overlap_box = self.box_around(sums, 0)?;
        Some(
            self.set_pixels_in(overlap_box)
                .filter(|&(i, j)| self.lands_on_b(i, j))
                .collect(),
        )
    }

    /// The longest world length of one of A's pixels.
    fn pixel(&self) -> f32 {
        self.a_to_world
            .matrix2
            .x_axis
            .length()
            .max(self.a_to_world.matrix2.y_axis.length())
    }

    /// The overlap's two ends along the contact's tangent (see [`transformed_manifold`]),
    /// from its overlapping samples; `None` when it is shorter than two pixels along the
    /// tangent.
    fn overlap_ends(
        &self,
        contact: &Contact,
        overlapping: &[(u32, u32)],
        touching: f32,
    ) -> Option<[ManifoldPoint; 2]> {
        // Relative to the contact's point: world coordinates far from the origin would
        // leave the projections few digits.
        let offsets = overlapping.iter().map(|&(i, j)| {
            let center = Vec2::new(i as f32 + 0.5, j as f32 + 0.5);
            self.a_to_world.transform_point2(center) - contact.point
        });
        let (ends, thickness) = ends_along(offsets, contact.normal, self.pixel())?;
        // Each end as deep as A still touched B in the share of the thicker end's
        // thickness along the normal it has: a plank lying flat is as deep at both, a
        // tilted one deeper at its lower end.
        let thickest = thickness[0].max(thickness[1]);
        let mut share = thickness.map(|t| t / thickest).into_iter();
        Some(ends.map(|end| ManifoldPoint {
            point: contact.point + end.sum / end.count as f32,
            depth: touching * share.next().unwrap_or(1.0),
            normal: contact.normal,
            part: 0,
        }))
    }

    /// When the overlap falls into parts more than [`PART_GAP`] apart, each part's points
    /// with its own normal and depth (see [`transformed_manifold`] for why); `false`, and
    /// `points` untouched, for an overlap in one part.
    fn overlap_parts(
        &self,
        contact: &Contact,
        overlapping: &[(u32, u32)],
        points: &mut Vec<ManifoldPoint>,
    ) -> bool {
        // Union-find over samples within PART_GAP of each other.
        let mut parent: Vec<usize> = (0..overlapping.len()).collect();
        fn root(parent: &mut [usize], mut k: usize) -> usize {
            while parent[k] != k {
                parent[k] = parent[parent[k]];
                k = parent[k];
            }
            k
        }
        for k in 0..overlapping.len() {
            for m in k + 1..overlapping.len() {
                let (p, q) = (overlapping[k], overlapping[m]);
                // In row order: past PART_GAP rows down, no later sample is near.
                if q.1 > p.1 + PART_GAP {
                    break;
                }
                if p.0.abs_diff(q.0) <= PART_GAP {
                    let (rk, rm) = (root(&mut parent, k), root(&mut parent, m));
                    parent[rk] = rm;
                }
            }
        }
        let roots: Vec<usize> = (0..overlapping.len())
            .map(|k| root(&mut parent, k))
            .collect();
        let mut labels: Vec<usize> = roots.clone();
        labels.sort_unstable();
        labels.dedup();
        if labels.len() < 2 {
            return false;
        }
        let pixel = self.pixel();
        let mut parts = Vec::new();
        for (part, &label) in (0u32..).zip(&labels) {
            let members: Vec<(u32, u32)> = overlapping
                .iter()
                .zip(&roots)
                .filter(|&(_, &r)| r == label)
                .map(|(&s, _)| s)
                .collect();
            let Some(part_points) = self.part_points(contact, &members, pixel, part) else {
                return false;
            };
            parts.extend(part_points);
        }
        points.extend(parts);
        true
    }

    /// One part's points: its normal from the count's gradient over the part's
    /// neighbourhood (A's set samples within [`PART_GAP`] of it), its depth the last
    /// distance along that normal at which a sample of the neighbourhood still lands on B,
    /// and its ends as [`Mapping::overlap_ends`] finds them. `None` for an empty part.
    fn part_points(
        &self,
        contact: &Contact,
        members: &[(u32, u32)],
        pixel: f32,
        part: u32,
    ) -> Option<Vec<ManifoldPoint>> {
        let lo_i = members.iter().map(|m| m.0).min()?.saturating_sub(PART_GAP);
        let hi_i = (members.iter().map(|m| m.0).max()? + PART_GAP).min(self.a.width() - 1);
        let lo_j = members.iter().map(|m| m.1).min()?.saturating_sub(PART_GAP);
        let hi_j = (members.iter().map(|m| m.1).max()? + PART_GAP).min(self.a.height() - 1);
        let near: Vec<Vec2> = self
            .set_pixels_in([lo_i, hi_i, lo_j, hi_j])
            .map(|(i, j)| self.sample(i, j))
            .collect();
        let per_b_pixel = self.count_change(&near);
        let b_to_world = self.world_to_b.inverse();
        let gradient = b_to_world.matrix2.inverse().transpose() * per_b_pixel;
        let normal = (-gradient).try_normalize().unwrap_or(contact.normal);
        // The part's depth: the neighbourhood's samples moved alone.
        let limit = pixel * (PART_GAP as f32 * 2.0 + (hi_i - lo_i + hi_j - lo_j) as f32 + 2.0);
        let (lo, _) = self.samples_depth(&near, normal, pixel, limit);
        let touching = lo;
        let center = |(i, j): (u32, u32)| {
            self.a_to_world
                .transform_point2(Vec2::new(i as f32 + 0.5, j as f32 + 0.5))
        };
        let mean = members.iter().map(|&m| center(m)).sum::<Vec2>() / members.len() as f32;
        let offsets = members.iter().map(|&m| center(m) - mean);
        let Some((ends, thickness)) = ends_along(offsets, normal, pixel) else {
            return Some(vec![ManifoldPoint {
                point: mean,
                depth: touching,
                normal,
                part,
            }]);
        };
        let thickest = thickness[0].max(thickness[1]);
        Some(
            ends.iter()
                .zip(thickness)
                .map(|(end, t)| ManifoldPoint {
                    point: mean + end.sum / end.count as f32,
                    depth: touching * t / thickest,
                    normal,
                    part,
                })
                .collect(),
        )
    }

    /// Every set sample of A through the exact mapping, as the tutorials' loop does: the
    /// walk's fallback where the shortcuts cannot bound anything. Bounded by A's size.
    fn walk_every_sample(&self, first_only: bool) -> Sums {
        let mut sums = Sums::default();
        for j in 0..self.a.height() {
            for i in 0..self.a.width() {
                let lands = self.a.get(i.into(), j.into()) && self.lands_on_b(i, j);
                if lands {
                    sums.add(i, j, 1);
                    if first_only {
                        return sums;
                    }
                }
            }
        }
        sums
    }

    /// Visits every sample of A that can land in B; with `first_only`, stops at the first
    /// overlap.
    fn walk(&self, first_only: bool) -> Sums {
        if self.every_sample {
            return self.walk_every_sample(first_only);
        }
        let mut sums = Sums::default();
        let Some((top, bottom)) = self.row_range() else {
            return sums;
        };
        if self.b_sits_in_clear_space() {
            return sums;
        }
        let distance = self.b.distance_field();
        let lines = self.row_lines();
        let step = self.a_to_b.matrix2.x_axis.abs().max_element();
        let spans = self.a.pixel_spans();
        // From the middle row outwards: two sprites that touch usually overlap deepest
        // in the middle of the lens, so a first-only walk stops sooner; a full count
        // visits every row either way.
        let middle = top + (bottom - top) / 2;
        let outwards = (0..=bottom - top).map(|k| {
            let half = k.div_ceil(2);
            if k % 2 == 1 {
                middle + half
            } else {
                middle - half
            }
        });
        for j in outwards {
            // An empty row of A needs no clipping.
            let (first, end) = spans[j as usize];
            if first == end {
                continue;
            }
            let row = self.a.row(j);
            let Some((lo, hi)) = self.column_span(j, &lines) else {
                continue;
            };
            let (lo, hi) = (lo.max(first), hi.min(end - 1));
            if lo > hi {
                continue;
            }
            let words = row.iter().enumerate().take(hi as usize / 64 + 1);
            for (k, word) in words.skip(lo as usize / 64) {
                let first = (k as u32 * 64).max(lo);
                let last = (k as u32 * 64 + 63).min(hi);
                let bits = word & bit_range(first % 64, last % 64 + 1);
                if bits != 0 {
                    let run = Run {
                        j,
                        word: k as u32,
                        bits,
                        lo: first % 64,
                        hi: last % 64,
                    };
                    self.settle(run, distance, step, first_only, &mut sums);
                    if first_only && sums.count > 0 {
                        return sums;
                    }
                }
            }
        }
        sums
    }

    /// Adds the overlapping samples of one run of a row to `sums`, settling the whole run
    /// at once when B's distance field says every sample lands in the same state.
    fn settle(
        &self,
        run: Run,
        distance: Option<&[u8]>,
        step: f32,
        first_only: bool,
        sums: &mut Sums,
    ) {
        if run.bits == 0 || (first_only && sums.count > 0) {
            return;
        }
        let base = run.word * 64;
        if let Some(distance) = distance
            && run.bits.count_ones() >= self.settle_min_samples
        {
            let mid = (run.lo + run.hi) / 2;
            let clear = match self.b_pixel(self.sample(base + mid, run.j)) {
                Some((x, y)) => {
                    let clear = distance[y as usize * self.b.width() as usize + x as usize];
                    let reach = (run.hi - mid).max(mid - run.lo) as f32 * step + self.margin;
                    if reach < f32::from(clear) {
                        if self.b.get(i64::from(x), i64::from(y)) {
                            if first_only {
                                sums.add(base + run.bits.trailing_zeros(), run.j, 1);
                                return;
                            }
                            sums.add_bits(base, run.j, run.bits);
                        }
                        return;
                    }
                    f32::from(clear)
                }
                None => f32::INFINITY,
            };
            // Where B changes state within a few samples (noise, a thin line), halving
            // would only add lookups: map the run's samples one by one.
            if clear > self.margin + 4.0 * step {
                let (left, right) = run.split(mid);
                self.settle(left, Some(distance), step, first_only, sums);
                self.settle(right, Some(distance), step, first_only, sums);
                return;
            }
        }
        self.map_one_by_one(run, first_only, sums);
    }

    /// Maps each of the run's set samples into B on its own. Positions step along the row
    /// in 32.32 fixed point from the f64 mapping, which decides the pixel unless a sample
    /// lies within `fixed_guard` of a pixel edge; there the exact two-step mapping decides.
    fn map_one_by_one(&self, run: Run, first_only: bool, sums: &mut Sums) {
        const ONE: f64 = FIXED_ONE;
        let base = run.word * 64;
        let center = DVec2::new(f64::from(base) + 0.5, f64::from(run.j) + 0.5);
        let start = self.a_to_b_f64.transform_point2(center);
        let step = self.a_to_b_f64.matrix2.x_axis;
        // Fixed point holds ±2^31 pixels; column spans keep samples within a few pixels of
        // B, so only absurd sizes and scales land here, and take the exact path.
        let end = start + step * 64.0;
        let fits = start.abs().max_element().max(end.abs().max_element()) < f64::from(1 << 30);
        let exact = |i: u32| self.lands_on_b(i, run.j);
        let mut bits = run.bits;
        let guard = match self.fixed_guard {
            Some(guard) if fits => guard,
            _ => {
                while bits != 0 {
                    let i = base + bits.trailing_zeros();
                    bits &= bits - 1;
                    if exact(i) {
                        sums.add(i, run.j, 1);
                        if first_only {
                            return;
                        }
                    }
                }
                return;
            }
        };
        // True when the fraction is within `guard` of 0 or of 1.
        let near_edge = |fraction: u32| fraction.wrapping_add(guard) < 2 * guard;
        let (x0, y0) = ((start.x * ONE) as i64, (start.y * ONE) as i64);
        let (dx, dy) = self.fixed_step;
        let (width, height) = (u64::from(self.b.width()), u64::from(self.b.height()));
        let (words, stride) = self.b.words_and_stride();
        // Branch-free: a hit, and a sample too near an edge to trust, each set a bit.
        let (mut hits, mut near_edges) = (0u64, 0u64);
        while bits != 0 {
            let k = bits.trailing_zeros();
            bits &= bits - 1;
            let (x, y) = (x0 + dx * i64::from(k), y0 + dy * i64::from(k));
            near_edges |= u64::from(near_edge(x as u32) | near_edge(y as u32)) << k;
            // The shift floors; a negative pixel turns huge and fails the bounds test.
            let (px, py) = ((x >> 32) as u64, (y >> 32) as u64);
            let inside = px < width && py < height;
            // Outside B, read word 0, always clear.
            let index = if inside {
                word_index((px / 64) as usize, py as usize, stride)
            } else {
                0
            };
            hits |= ((words[index] >> (px % 64)) & 1) << k;
        }
        while near_edges != 0 {
            let k = near_edges.trailing_zeros();
            near_edges &= near_edges - 1;
            if exact(base + k) {
                hits |= 1 << k;
            } else {
                hits &= !(1 << k);
            }
        }
        if hits == 0 {
            return;
        }
        if first_only {
            sums.add(base + hits.trailing_zeros(), run.j, 1);
            return;
        }
        sums.add_bits(base, run.j, hits);
    }
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

/// The y range of the lens where two circles overlap (with a little slack for f32
/// rounding), `None` when they are apart, or everything when the centers coincide or the
/// inputs are not finite (the caller's other bounds still hold).
///
/// With `u` the unit vector from A's center to B's at distance `d`, every point of the
/// lens lies at `t ∈ [d − r_B, r_A]` along `u`, and at most `h` across it, `h` being half
/// the common chord, found `a = (d² + r_A² − r_B²) / 2d` along `u`: on the chord's A
/// side, B's bound shrinks with distance from it, on the far side A's does. When the
/// chord is not between the centers (`a ∉ [0, d]`), the smaller radius bounds the width.
fn lens_rows(a_center: Vec2, a_radius: f32, b_center: Vec2, b_radius: f32) -> Option<(f32, f32)> {
    let everything = Some((f32::NEG_INFINITY, f32::INFINITY));
    let between = b_center - a_center;
    let d = between.length();
    let slack = 1e-2 + 1e-4 * (a_radius + b_radius + d);
    if !(d.is_finite() && a_radius.is_finite() && b_radius.is_finite()) || d == 0.0 {
        return everything;
    }
    if d > a_radius + b_radius + slack {
        return None;
    }
    let u = between / d;
    let chord = (d * d + a_radius * a_radius - b_radius * b_radius) / (2.0 * d);
    let (near, far) = ((d - b_radius).max(-a_radius), a_radius.min(d + b_radius));
    let across = if (0.0..=d).contains(&chord) {
        (a_radius * a_radius - chord * chord).max(0.0).sqrt()
    } else {
        a_radius.min(b_radius)
    };
    let middle = a_center.y + u.y * (near + far) / 2.0;
    let extent = u.y.abs() * (far - near).max(0.0) / 2.0 + u.x.abs() * across + slack;
    Some((middle - extent, middle + extent))
}

/// 1 in 32.32 fixed point.
const FIXED_ONE: f64 = (1u64 << 32) as f64;

pub(crate) fn to_f64(t: Affine2) -> DAffine2 {
    DAffine2::from_mat2_translation(t.matrix2.as_dmat2(), t.translation.as_dvec2())
}

/// How far, in B's pixels, A's samples mapped by the two f32 steps can be from the same
/// mapping done exactly: each step rounds its products and sums to within a few units in
/// the last place of the largest term, and B's matrix scales the first step's error.
fn rounding_bound(a: &BitMask, a_to_world: Affine2, world_to_b: Affine2) -> f64 {
    let row_sum = |m: bevy_math::Mat2| -> f64 {
        let t = m.transpose();
        f64::from((t.x_axis.abs().element_sum()).max(t.y_axis.abs().element_sum()))
    };
    let extent = f64::from(a.width().max(a.height())) + 1.0;
    let world = row_sum(a_to_world.matrix2) * extent
        + f64::from(a_to_world.translation.abs().max_element());
    let in_b =
        row_sum(world_to_b.matrix2) * world + f64::from(world_to_b.translation.abs().max_element());
    // Each step's two products and two sums round by at most 4·2^-24 of its largest term;
    // the first step's error reaches B scaled by B's matrix. 2^-20 is four times that.
    (in_b + row_sum(world_to_b.matrix2) * world) * (2.0f64).powi(-20) + 1e-9
}

impl Sums {
    fn add(&mut self, i: u32, j: u32, n: u64) {
        self.count += n;
        self.sum_i += u64::from(i) * n;
        self.sum_j += u64::from(j) * n;
        self.widen(i, i, j);
    }

    /// Adds the set bits of a word whose bit 0 is column `base` of row `j` (not 0).
    fn add_bits(&mut self, base: u32, j: u32, bits: u64) {
        let n = u64::from(bits.count_ones());
        self.count += n;
        self.sum_i += word_position_sum(bits) + n * u64::from(base);
        self.sum_j += n * u64::from(j);
        self.widen(
            base + bits.trailing_zeros(),
            base + 63 - bits.leading_zeros(),
            j,
        );
    }

    fn widen(&mut self, first: u32, last: u32, j: u32) {
        self.i_range = (self.i_range.0.min(first), self.i_range.1.max(last));
        self.j_range = (self.j_range.0.min(j), self.j_range.1.max(j));
    }
}

/// The samples within two pixels of each end of an overlap along `normal`'s tangent, from
/// their world offsets, and each end's thickness along the normal (plus a pixel); `None`
/// when the overlap is shorter than two pixels along the tangent.
fn ends_along(
    offsets: impl Iterator<Item = Vec2> + Clone,
    normal: Vec2,
    pixel: f32,
) -> Option<([End; 2], [f32; 2])> {
    let tangent = normal.perp();
    let (low, high) = offsets
        .clone()
        .map(|offset| offset.dot(tangent))
        .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), u| {
            (lo.min(u), hi.max(u))
        });
    let length = high - low;
    if !(length.is_finite() && pixel.is_finite()) || length < 2.0 * pixel {
        return None;
    }
    let band = 2.0 * pixel;
    let mut ends = [End::default(); 2];
    for offset in offsets {
        let u = offset.dot(tangent);
        if u <= low + band {
            ends[0].add(offset, offset.dot(normal));
        }
        if u >= high - band {
            ends[1].add(offset, offset.dot(normal));
        }
    }
    let thickness = ends.map(|end| end.normal_range.1 - end.normal_range.0 + pixel);
    Some((ends, thickness))
}

/// The overlapping samples near one end of the overlap, for [`ends_along`]:
/// how many, their offsets' sum, and the range of their offsets along the normal.
#[derive(Clone, Copy)]
struct End {
    count: u32,
    sum: Vec2,
    normal_range: (f32, f32),
}

impl Default for End {
    fn default() -> Self {
        End {
            count: 0,
            sum: Vec2::ZERO,
            normal_range: (f32::INFINITY, f32::NEG_INFINITY),
        }
    }
}

impl End {
    fn add(&mut self, offset: Vec2, along_normal: f32) {
        self.count += 1;
        self.sum += offset;
        self.normal_range = (
            self.normal_range.0.min(along_normal),
            self.normal_range.1.max(along_normal),
        );
    }
}

/// A's set bits `lo..=hi` of word `word` in row `j`.
#[derive(Clone, Copy)]
struct Run {
    j: u32,
    word: u32,
    bits: u64,
    lo: u32,
    hi: u32,
}

impl Run {
    fn split(self, mid: u32) -> (Run, Run) {
        (
            Run {
                bits: self.bits & bit_range(self.lo, mid + 1),
                hi: mid,
                ..self
            },
            Run {
                bits: self.bits & bit_range(mid + 1, self.hi + 1),
                lo: mid + 1,
                ..self
            },
        )
    }
}

impl BitMask {
    /// This mask resampled into a pixel grid through `to_grid`: grid pixel `(u, v)` is set
    /// when the mask pixel containing the inverse image of its center is set. Returns the
    /// new mask and the grid position of its top-left pixel, or `None` for a non-invertible
    /// or non-finite transform or a result over the mask size limit
    /// ([`MaskLimits::DEFAULT`](super::mask::MaskLimits::DEFAULT)), refused before any work.
    ///
    /// It is what a sprite whose angle did not change since the last frame can keep: an
    /// axis-aligned [`BitMask::overlap`] with the result at that offset gives exactly what
    /// [`transformed_intersects`] gives with the other mask at the identity.
    pub fn transformed(&self, to_grid: Affine2) -> Option<(BitMask, (i32, i32))> {
        if !is_usable(to_grid) {
            return None;
        }
        let from_grid = to_grid.inverse();
        if !from_grid.is_finite() {
            return None;
        }
        let (w, h) = (self.width() as f32, self.height() as f32);
        let corners = [
            Vec2::ZERO,
            Vec2::new(w, 0.0),
            Vec2::new(0.0, h),
            Vec2::new(w, h),
        ]
        .map(|c| to_grid.transform_point2(c));
        let min = corners
            .iter()
            .copied()
            .fold(Vec2::INFINITY, Vec2::min)
            .floor()
            - 1.0;
        let max = corners
            .iter()
            .copied()
            .fold(Vec2::NEG_INFINITY, Vec2::max)
            .ceil()
            + 1.0;
        // Written so that NaN fails too. Within ±2^24 every bound is an exact integer, and
        // the size is then checked against the mask limits before anything is allocated.
        let limit = (1u32 << 24) as f32;
        if !(min.x >= -limit && min.y >= -limit && max.x <= limit && max.y <= limit) {
            return None;
        }
        let size = max - min;
        let (width, height) = (size.x as u32, size.y as u32);
        MaskLimits::DEFAULT.check(width, height).ok()?;
        let mut out = BitMask::try_new(width, height).ok()?;
        let (ox, oy) = (min.x as i32, min.y as i32);
        for v in 0..out.height() {
            for u in 0..out.width() {
                let center = Vec2::new((u as i32 + ox) as f32 + 0.5, (v as i32 + oy) as f32 + 0.5);
                let p = from_grid.transform_point2(center);
                if p.x >= 0.0
                    && p.y >= 0.0
                    && p.x < w
                    && p.y < h
                    && self.get(p.x as i64, p.y as i64)
                {
                    out.set(i64::from(u), i64::from(v), true);
                }
            }
        }
        Some((out, (ox, oy)))
    }
}

/// The mask-to-world transform of a sprite in a y-up world (Bevy's): the mask's center at
/// `center`, turned by `angle` radians counterclockwise, scaled by `scale` (negative
/// flips), with the mask's rows (y down) flipped to world y up.
pub fn sprite_to_world(center: Vec2, angle: f32, scale: Vec2, mask_size: (u32, u32)) -> Affine2 {
    sprite_to_world_rotated(center, Vec2::from_angle(angle), scale, mask_size)
}

/// [`sprite_to_world`] with the turn given as its cosine and sine, `rotation = (cos,
/// sin)`, as [`Vec2::from_angle`] makes it and physics engines keep it: a body placed
/// every step need not go through its angle, an arctangent, a sine and a cosine.
pub fn sprite_to_world_rotated(
    center: Vec2,
    rotation: Vec2,
    scale: Vec2,
    mask_size: (u32, u32),
) -> Affine2 {
    let size = Vec2::new(mask_size.0 as f32, mask_size.1 as f32);
    // Mask rows run down, the world's y up.
    let scale = scale * Vec2::new(1.0, -1.0);
    let turned = bevy_math::Mat2::from_cols(
        Vec2::new(rotation.x, rotation.y) * scale.x,
        Vec2::new(-rotation.y, rotation.x) * scale.y,
    );
    Affine2::from_mat2_translation(turned, center) * Affine2::from_translation(-size / 2.0)
}

/// The world-space axis-aligned box of a mask's whole rectangle under `to_world`.
///
/// The corners are mapped in f64, so a finite transform whose corners fall past f32's
/// range gives a box with infinite sides (it reaches that far), never NaN from one huge
/// term cancelling another. A non-finite transform gives a box of NaN.
pub fn world_bounds(mask_size: (u32, u32), to_world: Affine2) -> Aabb2d {
    let (w, h) = mask_size;
    world_bounds_of_corners(&[[0, 0], [w, 0], [0, h], [w, h]], to_world)
}

/// The world box of points of mask space (pixel corners, as [`BitMask::convex_hull`] gives
/// them) placed by `to_world`, mapped and rounded as [`world_bounds`] does; a box from
/// +∞ to −∞ (holding nothing) for no points.
pub fn world_bounds_of_corners(corners: &[[u32; 2]], to_world: Affine2) -> Aabb2d {
    let to_world = to_f64(to_world);
    let corners = corners
        .iter()
        .map(|&[x, y]| to_world.transform_point2(DVec2::new(f64::from(x), f64::from(y))));
    let min = corners.clone().fold(DVec2::INFINITY, DVec2::min);
    let max = corners.fold(DVec2::NEG_INFINITY, DVec2::max);
    // Rounded outwards to f32, so the box still holds every corner.
    let outwards = |v: f64, up: bool| {
        let r = v as f32;
        match f64::from(r).partial_cmp(&v) {
            Some(std::cmp::Ordering::Less) if up => r.next_up(),
            Some(std::cmp::Ordering::Greater) if !up => r.next_down(),
            _ => r,
        }
    };
    Aabb2d {
        min: Vec2::new(outwards(min.x, false), outwards(min.y, false)),
        max: Vec2::new(outwards(max.x, true), outwards(max.y, true)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pixel_collide_support::rng::SplitMix64;

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
