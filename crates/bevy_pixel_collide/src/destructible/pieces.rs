//! Cutting loose what a frame's edits separated from a sprite's anchor: each part becomes
//! a sprite of its own, with its own image and mask, where its pixels were drawn.

use std::sync::Arc;

use bevy::platform::time::Instant;
use bevy::prelude::*;

use super::{
    DestructibleSprite, DestructibleState, DetachedPiece, PieceAnchor, PixelPieceDetached,
    new_image,
};
use crate::collider::{PixelCollider, PixelColliderMask, PixelCollisionLayers};
use crate::geometry::flatten;
use pixel_collide::pieces::cut_loose;
use pixel_collide::{BitMask, MaskRect};

/// The parts the frame's edits cut loose from each sprite's anchor break off.
pub(crate) fn cut_pieces(
    mut sprites: Query<(
        Entity,
        &DestructibleSprite,
        &mut DestructibleState,
        &mut PixelColliderMask,
        &PixelCollider,
        Option<&PixelCollisionLayers>,
        &Sprite,
        &GlobalTransform,
    )>,
    mut images: ResMut<Assets<Image>>,
    mut detached: MessageWriter<PixelPieceDetached>,
    mut commands: Commands,
) {
    for (entity, destructible, mut state, mut placed, collider, layers, sprite, global) in
        &mut sprites
    {
        let Some(dirty) = state.dirty.take() else {
            if state.last_edit_micros != 0.0 {
                state.last_edit_micros = 0.0;
            }
            continue;
        };
        let started = Instant::now();
        let pieces = cut_one(
            destructible,
            &mut state,
            &mut placed,
            (sprite, global),
            dirty,
            &mut images,
        );
        for (piece_image, mask, transform) in pieces {
            let pixels = mask.count();
            let piece = commands
                .spawn((
                    Name::new("Piece"),
                    Sprite::from_image(images.add(piece_image)),
                    transform,
                    *collider,
                    // It collides as the sprite it broke off did.
                    layers.copied().unwrap_or_default(),
                    DetachedPiece { source: entity },
                ))
                .id();
            detached.write(PixelPieceDetached {
                source: entity,
                piece,
                pixels,
                mask: Arc::new(mask),
            });
        }
        state.last_edit_micros =
            std::mem::take(&mut state.pending_micros) + started.elapsed().as_secs_f32() * 1e6;
    }
}

/// Cuts loose what the edits within `dirty` separated from one sprite's anchor: each
/// piece's image, mask and place; crumbs counted and gone.
fn cut_one(
    destructible: &DestructibleSprite,
    state: &mut DestructibleState,
    placed: &mut PixelColliderMask,
    (sprite, global): (&Sprite, &GlobalTransform),
    dirty: MaskRect,
    images: &mut Assets<Image>,
) -> Vec<(Image, BitMask, Transform)> {
    let (Some(handle), Some(mask)) = (state.image.clone(), placed.mask.as_mut()) else {
        return Vec::new();
    };
    // A pixel beyond the edit on every side: what its neighbors joined through.
    let region = grow(dirty, mask.size());
    let loose = if matches!(destructible.anchor, PieceAnchor::Everywhere) {
        Vec::new()
    } else {
        cut_loose(
            Arc::make_mut(mask),
            region,
            destructible.connectivity,
            &destructible.anchor,
        )
    };
    // Built again by the broad phase, and only for a sprite it pairs: a terrain that
    // collides through physics alone never needs them.
    placed.shape = None;
    if loose.is_empty() {
        return Vec::new();
    }
    let Some(mut image) = images.get_mut(&handle) else {
        return Vec::new();
    };
    let to_world = flatten(global) * placed.mask_to_local;
    let (scale, rotation, _) = global.to_scale_rotation_translation();
    let pixel_size = Vec2::new(
        placed.mask_to_local.matrix2.x_axis.x.abs(),
        placed.mask_to_local.matrix2.y_axis.y.abs(),
    );
    let mut pieces = Vec::new();
    for (piece, offset) in loose {
        let pixels = piece.count();
        let (mask, rgba) = cut_out(&mut image, &piece, offset, sprite.flip_x, sprite.flip_y);
        if pixels < destructible.min_piece_pixels {
            state.crumbs += pixels;
            continue;
        }
        state.detached += pixels;
        let (w, h) = (piece.width() as f32, piece.height() as f32);
        let center = Vec2::new(offset.0 as f32 + w / 2.0, offset.1 as f32 + h / 2.0);
        let transform = Transform {
            translation: to_world
                .transform_point2(center)
                .extend(global.translation().z),
            rotation,
            scale: scale * pixel_size.extend(1.0),
        };
        let mut piece_image = new_image(
            piece.width(),
            piece.height(),
            rgba,
            image.texture_descriptor.format,
        );
        // Drawn as the sprite was: nearest stays nearest.
        piece_image.sampler = image.sampler.clone();
        pieces.push((piece_image, mask, transform));
    }
    pieces
}

/// A loose part's pixels taken out of the source's image: its own mask and RGBA pixels,
/// flipped as the source is drawn.
fn cut_out(
    image: &mut Image,
    piece: &BitMask,
    (ox, oy): (i32, i32),
    flip_x: bool,
    flip_y: bool,
) -> (BitMask, Vec<u8>) {
    let (w, h) = piece.size();
    let width = image.width() as usize;
    let mut pixels = vec![0u8; w as usize * h as usize * 4];
    let flipped = flip_x || flip_y;
    let mut mask = if flipped {
        BitMask::new(w, h)
    } else {
        piece.clone()
    };
    let mut data = image.data.as_mut();
    for y in 0..h {
        for x in 0..w {
            if !piece.get(i64::from(x), i64::from(y)) {
                continue;
            }
            let (u, v) = (
                if flip_x { w - 1 - x } else { x },
                if flip_y { h - 1 - y } else { y },
            );
            if flipped {
                mask.set(i64::from(u), i64::from(v), true);
            }
            let from = ((oy as usize + y as usize) * width + ox as usize + x as usize) * 4;
            let to = (v as usize * w as usize + u as usize) * 4;
            if let Some(src) = data.as_mut().and_then(|d| d.get_mut(from..from + 4)) {
                pixels[to..to + 4].copy_from_slice(src);
                // A solid pixel always shows.
                pixels[to + 3] = pixels[to + 3].max(1);
                src.fill(0);
            }
        }
    }
    (mask, pixels)
}

/// `rect` grown by a pixel on every side, within a mask of `size`.
fn grow(rect: MaskRect, (w, h): (u32, u32)) -> MaskRect {
    let (x0, y0) = (rect.x.saturating_sub(1), rect.y.saturating_sub(1));
    let x1 = (rect.x + rect.width + 1).min(w);
    let y1 = (rect.y + rect.height + 1).min(h);
    MaskRect {
        x: x0,
        y: y0,
        width: x1.saturating_sub(x0),
        height: y1.saturating_sub(y0),
    }
}
