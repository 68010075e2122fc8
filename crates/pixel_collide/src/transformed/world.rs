//! From mask space to the world and back to a grid: a sprite's transform as Bevy places
//! it, the world boxes of a placed mask, and a mask resampled through a transform. Apart
//! from the overlap because these place masks, whatever is tested on them.

use bevy_math::bounding::Aabb2d;
use bevy_math::{Affine2, DVec2, Vec2};

#[cfg(doc)]
use super::transformed_intersects;
use super::{is_usable, to_f64};
use crate::mask::{BitMask, MaskLimits};
use crate::reproducible_math;

impl BitMask {
    /// This mask resampled into a pixel grid through `to_grid`: grid pixel `(u, v)` is set
    /// when the mask pixel containing the inverse image of its center is set. Returns the
    /// new mask and the grid position of its top-left pixel, or `None` for a non-invertible
    /// or non-finite transform or a result over the mask size limit
    /// ([`MaskLimits::DEFAULT`]), refused before any work.
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
    sprite_to_world_rotated(
        center,
        reproducible_math::unit_vector(angle),
        scale,
        mask_size,
    )
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
