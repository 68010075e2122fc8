//! Queries of one placed mask by a point or a convex shape: the nearest solid pixel to a
//! point (its distance and the outward normal), and whether a convex polygon covers any
//! of its solid pixels. Exact: each pixel is its whole square `[i, i + 1) × [j, j + 1)`
//! carried into the world by the mask's transform, distances are Euclidean in the world.
//!
//! Both search a word at a time: rows outward from the point until a row's strip lies
//! farther than the nearest pixel found, the set pixels nearest the point in each; the
//! polygon's span in each row it crosses, scanned for a set bit.

use bevy_math::{Affine2, DAffine2, DVec2, Vec2};

use super::mask::BitMask;
use super::transformed::{is_usable, to_f64};

/// The solid pixel of a mask nearest a point, in world space.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PointProjection {
    /// The nearest world point of the nearest solid pixel (the query point itself when it
    /// is inside one).
    pub point: Vec2,
    /// World distance from the query point to it: zero inside a solid pixel.
    pub distance: f32,
    /// Unit world vector from that pixel towards the query point, the pixel's outward
    /// normal there (zero inside a solid pixel).
    pub normal: Vec2,
    /// The nearest pixel, as `[column, row]`.
    pub pixel: [u32; 2],
    /// Whether the query point is inside a solid pixel.
    pub inside: bool,
}

/// The solid pixel of `mask`, placed by `mask_to_world`, nearest the world `point`, if one
/// lies within `max_distance` (which may be infinite); `None` for an empty mask, a point
/// or transform that is not finite, a transform that is not invertible, or a negative or
/// NaN distance. Ties go to the pixel first in row order.
///
/// ```
/// use bevy_math::{Affine2, Vec2};
/// use pixel_collide::{BitMask, nearest_solid_pixel};
///
/// let ground = BitMask::solid(100, 10).unwrap();
/// // Drawn at twice the size, its top edge at y = 0 of the world (y down, as the mask).
/// let to_world = Affine2::from_scale(Vec2::splat(2.0));
/// let above = nearest_solid_pixel(&ground, to_world, Vec2::new(31.0, -5.0), 50.0).unwrap();
/// assert_eq!(above.distance, 5.0);
/// assert_eq!(above.normal, Vec2::new(0.0, -1.0));
/// assert_eq!(above.pixel, [15, 0]);
/// ```
pub fn nearest_solid_pixel(
    mask: &BitMask,
    mask_to_world: Affine2,
    point: Vec2,
    max_distance: f32,
) -> Option<PointProjection> {
    let bad_distance = max_distance.is_nan() || max_distance < 0.0;
    if !(is_usable(mask_to_world) && point.is_finite()) || bad_distance {
        return None;
    }
    let rect = mask.bounding_rect()?;
    let to_world = to_f64(mask_to_world);
    let to_mask = to_world.inverse();
    let world_point = point.as_dvec2();
    let p = to_mask.transform_point2(world_point);
    if !p.is_finite() {
        return None;
    }
    let a = to_world.matrix2;
    // World distance across one row's strip: the parallelogram's height over its base.
    let per_row = a.determinant().abs() / a.x_axis.length();
    // Axes at right angles in the world (rotation, scale and flips, as sprites have):
    // along a row, the nearest pixel either side of the point is the nearest there.
    let square_axes = a.x_axis.dot(a.y_axis).abs() <= 1e-9 * a.x_axis.length() * a.y_axis.length();
    // A sheared map: every set pixel of a row within the ellipse of world points as near as
    // the best found, across columns.
    let inverse_metric = (a.transpose() * a).inverse();
    let columns_per_world = inverse_metric.x_axis.x.max(0.0).sqrt();

    let (y_lo, y_hi) = (rect.y, rect.y + rect.height - 1);
    let start_row = p.y.floor().clamp(f64::from(y_lo), f64::from(y_hi)) as u32;
    let mut best: Option<(f64, [u32; 2], DVec2)> = None;
    let limit = f64::from(max_distance);
    let (x_lo, x_hi) = (rect.x, rect.x + rect.width - 1);
    let gap = |y: u32| (f64::from(y) - p.y).max(p.y - f64::from(y + 1)).max(0.0);
    for offset in 0u32.. {
        // A row's strip lies farther from the point the farther the row is from it, and
        // the reach only shrinks: a side whose row is out of reach is done.
        let below = start_row.checked_sub(offset).filter(|&y| y >= y_lo);
        let above = start_row
            .checked_add(offset)
            .filter(|&y| y <= y_hi && offset > 0);
        let within = |y: &u32, best: &Option<(f64, [u32; 2], DVec2)>| {
            gap(*y) * per_row <= best.map_or(limit, |b| b.0.min(limit))
        };
        if !below.iter().chain(&above).any(|y| within(y, &best)) {
            break;
        }
        for y in below.into_iter().chain(above) {
            if !within(&y, &best) {
                continue;
            }
            let row = mask.row(y);
            let consider = |x: u32, best: &mut Option<(f64, [u32; 2], DVec2)>| {
                let (distance, nearest) = distance_to_pixel(&to_world, world_point, p, x, y);
                if best.is_none_or(|b| distance < b.0) {
                    *best = Some((distance, [x, y], nearest));
                }
            };
            if square_axes {
                let at = p.x.floor().clamp(f64::from(x_lo), f64::from(x_hi)) as u32;
                if let Some(x) = row.last_set_in(x_lo, at) {
                    consider(x, &mut best);
                }
                let x = row.next_with(at, x_hi + 1, true);
                if x <= x_hi {
                    consider(x, &mut best);
                }
            } else {
                let reach = best.map_or(limit, |b| b.0.min(limit));
                let half = reach * columns_per_world + 1.0;
                let from = (p.x - half).floor().max(f64::from(x_lo));
                let to = (p.x + half).ceil().min(f64::from(x_hi));
                if from > to {
                    continue;
                }
                let (mut x, end) = (from as u32, to as u32 + 1);
                loop {
                    x = row.next_with(x, end, true);
                    if x >= end {
                        break;
                    }
                    consider(x, &mut best);
                    x += 1;
                }
            }
        }
    }
    projection(best?, point, limit)
}

/// The answer from the nearest pixel found, `(distance, pixel, nearest world point)`:
/// `None` beyond `limit`; for a point inside the pixel, the point itself and no normal.
fn projection(
    (distance, pixel, nearest): (f64, [u32; 2], DVec2),
    point: Vec2,
    limit: f64,
) -> Option<PointProjection> {
    if distance > limit {
        return None;
    }
    let world_point = point.as_dvec2();
    let inside = distance == 0.0;
    let normal = if inside {
        Vec2::ZERO
    } else {
        ((world_point - nearest) / distance).as_vec2()
    };
    Some(PointProjection {
        point: if inside { point } else { nearest.as_vec2() },
        distance: distance as f32,
        normal,
        pixel,
        inside,
    })
}

/// World distance from the point (`world`, and `p` in mask space) to pixel `(x, y)`'s
/// square, and the square's nearest world point.
fn distance_to_pixel(to_world: &DAffine2, world: DVec2, p: DVec2, x: u32, y: u32) -> (f64, DVec2) {
    let (x0, y0) = (f64::from(x), f64::from(y));
    if (x0..x0 + 1.0).contains(&p.x) && (y0..y0 + 1.0).contains(&p.y) {
        return (0.0, world);
    }
    let corners = [
        (x0, y0),
        (x0 + 1.0, y0),
        (x0 + 1.0, y0 + 1.0),
        (x0, y0 + 1.0),
    ]
    .map(|(u, v)| to_world.transform_point2(DVec2::new(u, v)));
    let mut best = (f64::INFINITY, world);
    for k in 0..4 {
        let (from, to) = (corners[k], corners[(k + 1) % 4]);
        let edge = to - from;
        let t = ((world - from).dot(edge) / edge.length_squared()).clamp(0.0, 1.0);
        let nearest = from + edge * t;
        let distance = world.distance(nearest);
        if distance < best.0 {
            best = (distance, nearest);
        }
    }
    best
}

/// Whether the convex polygon `corners` (world space, in either winding) covers any part
/// of a solid pixel of `mask` placed by `mask_to_world`: an explosion's box, a sword's
/// swing, a "can I stand here?" probe. Touching along an edge counts. `false` for an
/// empty mask or polygon, or input that is not finite or not invertible. The polygon must
/// be convex; a concave one is taken as its rows' spans, which is more than it covers.
///
/// ```
/// use bevy_math::{Affine2, Vec2};
/// use pixel_collide::{BitMask, convex_polygon_touches};
///
/// let mut wall = BitMask::new(10, 10);
/// wall.set(9, 9, true);
/// let square = [Vec2::new(0.0, 0.0), Vec2::new(9.5, 0.0), Vec2::new(9.5, 9.5), Vec2::new(0.0, 9.5)];
/// assert!(convex_polygon_touches(&wall, Affine2::IDENTITY, &square));
/// let short = square.map(|c| c * 0.9);
/// assert!(!convex_polygon_touches(&wall, Affine2::IDENTITY, &short));
/// ```
pub fn convex_polygon_touches(mask: &BitMask, mask_to_world: Affine2, corners: &[Vec2]) -> bool {
    if corners.is_empty() || !is_usable(mask_to_world) || !corners.iter().all(|c| c.is_finite()) {
        return false;
    }
    let Some(rect) = mask.bounding_rect() else {
        return false;
    };
    let to_mask = to_f64(mask_to_world).inverse();
    let local: Vec<DVec2> = corners
        .iter()
        .map(|c| to_mask.transform_point2(c.as_dvec2()))
        .collect();
    if !local.iter().all(|c| c.is_finite()) {
        return false;
    }
    let (y_min, y_max) = local
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), c| {
            (lo.min(c.y), hi.max(c.y))
        });
    // Rows whose closed strip `[y, y + 1]` meets the polygon.
    let first = (y_min.floor() - 1.0).max(f64::from(rect.y));
    let last = y_max.floor().min(f64::from(rect.y + rect.height - 1));
    if first > last {
        return false;
    }
    let (x_lo, x_hi) = (f64::from(rect.x), f64::from(rect.x + rect.width - 1));
    for y in first as u32..=last as u32 {
        let Some((from, to)) = span_in_strip(&local, f64::from(y), f64::from(y) + 1.0) else {
            continue;
        };
        // Pixels whose closed column `[x, x + 1]` meets `[from, to]`.
        let x0 = (from - 1.0).ceil().max(x_lo);
        let x1 = to.floor().min(x_hi);
        if x0 > x1 {
            continue;
        }
        let end = x1 as u32 + 1;
        if mask.row(y).next_with(x0 as u32, end, true) < end {
            return true;
        }
    }
    false
}

/// The x extent of the convex polygon within the closed strip `lo ≤ y ≤ hi`, if it
/// reaches it: its corners inside the strip, and where its edges cross the strip's sides.
fn span_in_strip(polygon: &[DVec2], lo: f64, hi: f64) -> Option<(f64, f64)> {
    let mut span: Option<(f64, f64)> = None;
    let mut take = |x: f64| {
        span = Some(span.map_or((x, x), |(a, b)| (a.min(x), b.max(x))));
    };
    for (k, &from) in polygon.iter().enumerate() {
        let to = polygon[(k + 1) % polygon.len()];
        if (lo..=hi).contains(&from.y) {
            take(from.x);
        }
        for side in [lo, hi] {
            if (from.y - side) * (to.y - side) < 0.0 {
                let t = (side - from.y) / (to.y - from.y);
                take(from.x + (to.x - from.x) * t);
            }
        }
    }
    span
}
