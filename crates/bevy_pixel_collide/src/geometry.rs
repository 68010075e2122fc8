//! Where a sprite's pixels are in the world: the part of its image it shows and the map
//! from that part's pixels to world space, honouring everything Bevy draws the sprite
//! with (`GlobalTransform`, [`Anchor`], flips, `custom_size`, `rect`, [`TextureAtlas`]).
//!
//! It is the inverse of Bevy's own `Sprite::compute_pixel_space_point` (used by sprite
//! picking), so a point the picking backend puts on a texel is on the same mask pixel;
//! the plugin's `tests/plugin/pixels.rs` checks the two against each other.

use bevy::math::{Affine2, URect, UVec2, Vec2};
use bevy::prelude::*;
use bevy::sprite::Anchor;

/// The image pixels a sprite shows, as whole pixels (a fractional `rect` is widened to
/// the pixels it touches), and the map from those pixels to the sprite's local space.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpriteFrame {
    /// The pixels of the image the mask is built from, clipped to the image.
    pub region: URect,
    /// Mask space (x right, y down, pixel `(i, j)` covering `[i, i + 1) × [j, j + 1)`
    /// from `region.min`) to the sprite's local space (y up, before its transform).
    pub mask_to_local: Affine2,
}

/// The texture rectangle Bevy samples for this sprite, in image pixels (floats), or
/// `None` when its atlas layout is not loaded or names no such frame.
pub fn texture_rect(
    sprite: &Sprite,
    image_size: UVec2,
    atlases: &Assets<TextureAtlasLayout>,
) -> Option<Rect> {
    let atlas_rect = match &sprite.texture_atlas {
        Some(atlas) => Some(atlas.texture_rect(atlases)?.as_rect()),
        None => None,
    };
    Some(match (atlas_rect, sprite.rect) {
        (None, None) => Rect::new(0.0, 0.0, image_size.x as f32, image_size.y as f32),
        (None, Some(rect)) => rect,
        (Some(atlas), None) => atlas,
        // Bevy offsets a sprite's rect by its atlas frame's corner.
        (Some(atlas), Some(rect)) => Rect::from_corners(rect.min + atlas.min, rect.max + atlas.min),
    })
}

/// The frame of `sprite` on an image of `image_size`, or `None` when it shows no pixel
/// (an empty or off-image rect, a zero or non-finite size, an unloaded atlas).
pub fn sprite_frame(
    sprite: &Sprite,
    anchor: Anchor,
    image_size: UVec2,
    atlases: &Assets<TextureAtlasLayout>,
) -> Option<SpriteFrame> {
    let rect = texture_rect(sprite, image_size, atlases)?;
    if !(rect.min.is_finite() && rect.max.is_finite()) || rect.is_empty() {
        return None;
    }
    let sprite_size = sprite.custom_size.unwrap_or_else(|| rect.size());
    if !sprite_size.is_finite() || sprite_size.x == 0.0 || sprite_size.y == 0.0 {
        return None;
    }
    let lo = rect.min.floor().max(Vec2::ZERO);
    let hi = rect.max.ceil().min(image_size.as_vec2());
    if lo.x >= hi.x || lo.y >= hi.y {
        return None;
    }
    let region = URect::from_corners(lo.as_uvec2(), hi.as_uvec2());
    // Bevy: texture = flip · (local − center) · ratio + rect.center, with y flipped unless
    // `flip_y`, ratio = rect size / sprite size. Inverted: local = center + flip ·
    // (texture − rect.center) / ratio, and texture = mask pixel + region corner.
    let flip = Vec2::new(
        if sprite.flip_x { -1.0 } else { 1.0 },
        if sprite.flip_y { 1.0 } else { -1.0 },
    );
    let scale = flip * sprite_size / rect.size();
    let center = -anchor.as_vec() * sprite_size;
    let offset = center + scale * (lo - rect.center());
    Some(SpriteFrame {
        region,
        mask_to_local: Affine2::from_translation(offset) * Affine2::from_scale(scale),
    })
}

/// The 2D part of a global transform: what a 2D camera looking down −z shows of it.
pub fn flatten(transform: &GlobalTransform) -> Affine2 {
    let affine = transform.affine();
    Affine2::from_cols(
        affine.matrix3.x_axis.truncate(),
        affine.matrix3.y_axis.truncate(),
        affine.translation.truncate(),
    )
}
