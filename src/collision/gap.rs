//! How far apart two placed masks are when they do not touch: what a rigid-body solver's
//! speculative contacts need, so that a fast body is stopped at a surface in the step it
//! would reach it, rather than found inside it (or past a thin ledge) a step later.
//!
//! The smaller mask's outline is looked up in the larger one's distance field (the
//! chessboard distance from each clear pixel to the nearest set one, a lower bound after
//! edits), one lookup per outline pixel; around the few nearest, a small search finds the
//! nearest set pixel, and so the direction and the Euclidean gap.

use bevy_math::{Affine2, Vec2};

use super::mask::BitMask;

/// Two masks that do not touch: the gap between them and the way from A to B.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gap {
    /// World point midway between the two nearest pixels.
    pub point: Vec2,
    /// Unit world direction from A's nearest pixel towards B's.
    pub normal: Vec2,
    /// World distance between the two nearest pixels' edges: their centres' distance less
    /// one pixel of the larger mask. The nearest pixels are searched among the outline
    /// pixels closest by the distance field, so this can exceed the true gap by a fraction
    /// of a pixel.
    pub distance: f32,
}

/// The gap between A and B placed in the world by their mask-to-world transforms (as
/// [`super::sprite_to_world`] makes them: rotation, uniform scale, flips), if it is at most
/// `max_distance` world px; `None` if it is more, if a pixel of one lands on the other (they
/// touch: ask [`super::transformed_overlap`]), or for a non-finite or non-invertible
/// transform.
pub fn transformed_gap(
    a: &BitMask,
    a_to_world: Affine2,
    b: &BitMask,
    b_to_world: Affine2,
    max_distance: f32,
) -> Option<Gap> {
    if !(max_distance.is_finite() && max_distance >= 0.0) {
        return None;
    }
    // The outline of the smaller mask probes the larger one's distance field.
    let a_is_probe = u64::from(a.width()) * u64::from(a.height())
        <= u64::from(b.width()) * u64::from(b.height());
    let (probe, probe_to_world, field_mask, field_to_world) = if a_is_probe {
        (a, a_to_world, b, b_to_world)
    } else {
        (b, b_to_world, a, a_to_world)
    };
    let field_pixel = pixel_size(field_to_world)?;
    pixel_size(probe_to_world)?;
    let to_field = field_to_world.inverse();
    let field = field_mask.distance_field()?;
    let (fw, fh) = (
        i64::from(field_mask.width()),
        i64::from(field_mask.height()),
    );
    // Field pixels (chessboard) from each probe pixel to the field's nearest set pixel:
    // a lower bound; outside the field's rectangle, the distance to it.
    let chessboard = |(x, y): (i64, i64)| -> i64 {
        if (0..fw).contains(&x) && (0..fh).contains(&y) {
            if field_mask.get(x, y) {
                0
            } else {
                i64::from(field[(y * fw + x) as usize])
            }
        } else {
            let dx = (-x).max(x - (fw - 1)).max(0);
            let dy = (-y).max(y - (fh - 1)).max(0);
            dx.max(dy)
        }
    };
    let reach = ((max_distance / field_pixel).ceil() as i64 + 1).min(MAX_REACH);
    let mut candidates: Vec<(i64, Vec2, (i64, i64))> = Vec::new();
    for (x, y) in probe.outline() {
        let world = probe_to_world.transform_point2(Vec2::new(x as f32 + 0.5, y as f32 + 0.5));
        let at = to_field.transform_point2(world);
        if !at.is_finite() {
            return None;
        }
        let cell = (at.x.floor() as i64, at.y.floor() as i64);
        let d = chessboard(cell);
        if d == 0 {
            return None;
        }
        if d <= reach {
            candidates.push((d, world, cell));
        }
    }
    // Branch and bound: in order of the field's lower bound (each search starts there),
    // each is searched for its nearest set pixel, until the bound passes the nearest found
    // (cell to cell, with a cell's width of slack for where in its cell the probe pixel's
    // centre falls).
    candidates.sort_unstable_by_key(|&(d, _, _)| d);
    let mut pairs: Vec<(f32, Vec2, Vec2)> = Vec::new();
    let mut best_cells = f32::INFINITY;
    for &(d, probe_world, cell) in candidates.iter().take(REFINED) {
        if d as f32 > best_cells + 1.0 {
            break;
        }
        let Some((squared, (nx, ny))) = nearest_set(field_mask, cell, d, reach) else {
            continue;
        };
        best_cells = best_cells.min((squared as f32).sqrt());
        let field_world =
            field_to_world.transform_point2(Vec2::new(nx as f32 + 0.5, ny as f32 + 0.5));
        let centres = probe_world.distance(field_world);
        if centres > 0.0 {
            pairs.push(((centres - field_pixel).max(0.0), probe_world, field_world));
        }
    }
    let distance = pairs.iter().map(|p| p.0).reduce(f32::min)?;
    if distance > max_distance {
        return None;
    }
    // A flat side facing a flat surface has a row of pixels about equally near: the gap
    // is at their middle, as a contact is at the middle of the overlap, so that a box
    // landing flat is not tipped over one corner.
    let (mut point, mut direction, mut count) = (Vec2::ZERO, Vec2::ZERO, 0.0);
    for &(_, from, to) in pairs.iter().filter(|p| p.0 <= distance + TIE) {
        point += (from + to) / 2.0;
        direction += (to - from).normalize_or_zero();
        count += 1.0;
    }
    let towards_field = direction.try_normalize()?;
    Some(Gap {
        point: point / count,
        normal: if a_is_probe {
            towards_field
        } else {
            -towards_field
        },
        distance,
    })
}

/// Pixels this much (world px) farther than the nearest count as equally near.
const TIE: f32 = 0.5;

/// The set pixel of `mask` nearest to `(cx, cy)` by Euclidean distance, and its squared
/// distance, searched ring by ring from chessboard distance `from` out to `reach`: once one
/// is found at ring `r`, rings out to `r√2` may still hold a nearer one.
fn nearest_set(
    mask: &BitMask,
    (cx, cy): (i64, i64),
    from: i64,
    reach: i64,
) -> Option<(i64, (i64, i64))> {
    let (w, h) = (i64::from(mask.width()), i64::from(mask.height()));
    let mut found: Option<(i64, (i64, i64))> = None;
    let mut last = reach;
    let consider = |x: i64, y: i64, found: &mut Option<(i64, (i64, i64))>| {
        if (0..w).contains(&x) && (0..h).contains(&y) && mask.get(x, y) {
            let squared = (x - cx).pow(2) + (y - cy).pow(2);
            if found.is_none_or(|(best, _)| squared < best) {
                *found = Some((squared, (x, y)));
            }
        }
    };
    let mut r = from.max(1);
    while r <= last {
        for x in cx - r..=cx + r {
            consider(x, cy - r, &mut found);
            consider(x, cy + r, &mut found);
        }
        for y in cy - r + 1..cy + r {
            consider(cx - r, y, &mut found);
            consider(cx + r, y, &mut found);
        }
        if found.is_some() && last == reach {
            last = ((r as f32 * std::f32::consts::SQRT_2).ceil() as i64).min(reach);
        }
        r += 1;
    }
    found
}

/// The farthest, in the larger mask's pixels, a gap is looked for.
const MAX_REACH: i64 = 128;
/// Outline pixels whose nearest set pixel is searched for, at most: bounds the work for
/// a long outline lying parallel to a surface, where many are about equally near.
const REFINED: usize = 256;

/// The world size of one pixel: the square root of the transform's area scale; `None` for
/// a non-finite or degenerate one.
fn pixel_size(to_world: Affine2) -> Option<f32> {
    let size = to_world.matrix2.determinant().abs().sqrt();
    (size.is_finite() && size > 0.0 && to_world.translation.is_finite()).then_some(size)
}
