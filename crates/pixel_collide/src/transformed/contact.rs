//! The contact's normal and depth, once the walk has counted the overlap: the normal from
//! the gradient of the overlap count (or, where it vanishes, the least deep of a few
//! directions), the depth by doubling then bisecting a step along it. Apart from the walk
//! because it is a search over whole walks, bounded by counts, not a loop over words.

use bevy_math::{Affine2, DVec2, Vec2};

use super::mapping::{Around, Mapping};
use super::row_walk::Sums;
#[cfg(doc)]
use super::transformed_overlap;
use super::{
    Contact, DEPTH_RESOLUTION, FALLBACK_DIRECTIONS, to_f64, transformed_intersects,
    transformed_overlap_area, walk,
};
use crate::mask::BitMask;
use crate::reproducible_math;

/// [`transformed_overlap`], with the sums of the walk that found it, the last distance
/// along the normal at which A still touched B, at most a resolution step short of the
/// depth (0 when the first step cleared it), and A's overlapping pixels in row order when
/// they were listed (see [`Mapping::samples_around`]).
pub(super) fn contact_and_sums(
    a: &BitMask,
    a_to_world: Affine2,
    b: &BitMask,
    b_to_world: Affine2,
) -> Option<(Contact, Sums, f32, Option<Vec<(u32, u32)>>)> {
    let sums = walk(a, a_to_world, b, b_to_world, false);
    if sums.count == 0 {
        return None;
    }
    let point = mean_point(&sums, a_to_world);

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
        _ => count_change_by_walks(a, a_to_world, b, b_to_world),
    };
    // Per world px: through the inverse transpose of B's matrix (usable, so invertible).
    let gradient = b_to_world.matrix2.inverse().transpose() * per_b_pixel;
    let (normal, (touching, depth)) = match (-gradient).try_normalize() {
        Some(normal) => {
            let resolution = pixel * DEPTH_RESOLUTION;
            let local = mapping
                .as_ref()
                .zip(near.as_ref())
                .and_then(|(mapping, near)| {
                    let placed = (a, a_to_world, b, b_to_world);
                    depth_of_samples(placed, mapping, near, normal, pixel, resolution)
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

/// The world point of the mean of A's overlapping samples' centers. In f64 and saturated:
/// a usable transform can still stretch one axis past f32's range (a scale of 1e38 by
/// 1e-38), and the point must stay finite.
fn mean_point(sums: &Sums, a_to_world: Affine2) -> Vec2 {
    let n = sums.count as f64;
    let mean = DVec2::new(sums.sum_i as f64 / n + 0.5, sums.sum_j as f64 / n + 0.5);
    to_f64(a_to_world)
        .transform_point2(mean)
        .clamp(
            DVec2::splat(-f64::from(f32::MAX)),
            DVec2::splat(f64::from(f32::MAX)),
        )
        .as_vec2()
}

/// [`Mapping::count_change`] by whole walks, for when the samples around the overlap
/// were not listed (no mapping, or an overlap's box too large): the overlap counted with
/// A moved one of B's pixels each way along each of B's axes.
fn count_change_by_walks(
    a: &BitMask,
    a_to_world: Affine2,
    b: &BitMask,
    b_to_world: Affine2,
) -> Vec2 {
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

/// The depth bracket along `normal` from the overlapping samples alone, moved out of B,
/// when the walks on every sample confirm it (A still touches at the low end, is clear
/// at the high end, and the two are within `resolution`); `None` otherwise, and the
/// caller searches with whole walks. Two walks where the search from a pixel took six
/// or seven.
fn depth_of_samples(
    (a, a_to_world, b, b_to_world): (&BitMask, Affine2, &BitMask, Affine2),
    mapping: &Mapping,
    near: &Around,
    normal: Vec2,
    pixel: f32,
    resolution: f32,
) -> Option<(f32, f32)> {
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
    (lo < hi && hi - lo <= resolution && (lo == 0.0 || hits(lo)) && !hits(hi)).then_some((lo, hi))
}

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
        let direction = reproducible_math::unit_vector(angle);
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
pub(super) const MAX_BISECTIONS: u32 = 64;

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
