//! [`PixelEdits`]: edits of destructible sprites, each made to the collider's mask with the
//! core's in-place edits and to the sprite's picture in the same call.

use std::sync::Arc;

use bevy::ecs::system::SystemParam;
use bevy::math::Affine2;
use bevy::platform::time::Instant;
use bevy::prelude::*;
use wgpu_types::TextureFormat;

use super::{DestructibleSprite, DestructibleState, rgba_pixels};
use crate::collider::PixelColliderMask;
use crate::geometry::flatten;
#[cfg(doc)]
use crate::masks::PixelMasks;
use pixel_collide::{BitMask, MaskRect};

/// Why an edit was refused. Nothing was changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PixelEditError {
    /// The entity has no [`DestructibleSprite`], or no sprite.
    NotDestructible(Entity),
    /// Its image has not loaded yet, failed to or was refused (see
    /// [`PixelMasks::problems`]): nothing to edit.
    NotReady(Entity),
    /// A point, radius or pose is not finite, or the radius is negative.
    NotFinite,
    /// The sprite's or the stamp's placement cannot be inverted (a zero scale).
    Degenerate,
    /// A paint image that is not loaded, or whose pixels cannot be read.
    Paint(String),
}

impl std::fmt::Display for PixelEditError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PixelEditError::NotDestructible(e) => write!(f, "{e} is not a destructible sprite"),
            PixelEditError::NotReady(e) => write!(f, "{e}'s image is not loaded yet"),
            PixelEditError::NotFinite => write!(f, "a point, radius or pose is not finite"),
            PixelEditError::Degenerate => write!(f, "a placement with a zero scale"),
            PixelEditError::Paint(why) => write!(f, "the paint: {why}"),
        }
    }
}

impl std::error::Error for PixelEditError {}

/// What an edit changed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PixelEditOutcome {
    /// The mask rectangle it may have changed; `None` when it lay outside the sprite.
    pub rect: Option<MaskRect>,
    /// Set pixels it cleared.
    pub removed: u64,
    /// Pixels it set.
    pub added: u64,
}

/// What drawn pixels show.
#[derive(Debug, Clone, PartialEq)]
pub enum PixelPaint {
    /// One color.
    Color(Color),
    /// An image's pixels, tiled from the sprite's top-left pixel (RGBA or BGRA, 8 bits a
    /// channel).
    Image(Handle<Image>),
}

/// Edits of destructible sprites, applied at once to the collider's mask and to the
/// sprite's image. Points and poses are in world space, as the sprite is drawn now (its
/// `GlobalTransform` as last propagated).
///
/// ```
/// use bevy::prelude::*;
/// use bevy_pixel_collide::prelude::*;
///
/// fn blast(mut edits: PixelEdits, ground: Single<Entity, With<DestructibleSprite>>) {
///     if let Err(err) = edits.carve_circle(*ground, Vec2::new(10.0, -40.0), 24.0) {
///         warn!("no crater: {err}");
///     }
/// }
/// # bevy::ecs::system::assert_is_system(blast);
/// ```
#[derive(SystemParam)]
pub struct PixelEdits<'w, 's> {
    sprites: Query<
        'w,
        's,
        (
            &'static mut DestructibleState,
            &'static mut PixelColliderMask,
            &'static GlobalTransform,
        ),
        With<DestructibleSprite>,
    >,
    images: ResMut<'w, Assets<Image>>,
}

/// Which way an edit turns pixels.
#[derive(Clone, Copy)]
enum Stroke<'p> {
    Erase,
    Paint(&'p [u8; 4]),
    Tile(&'p Tile),
}

/// A paint image's pixels, as RGBA bytes.
struct Tile {
    width: usize,
    height: usize,
    rgba: Vec<u8>,
}

impl PixelEdits<'_, '_> {
    /// Clears the pixels whose centers lie within `radius` of `center`: a crater.
    pub fn carve_circle(
        &mut self,
        sprite: Entity,
        center: Vec2,
        radius: f32,
    ) -> Result<PixelEditOutcome, PixelEditError> {
        self.circle(sprite, center, radius, None)
    }

    /// Sets the pixels whose centers lie within `radius` of `center`, showing `paint`.
    pub fn fill_circle(
        &mut self,
        sprite: Entity,
        center: Vec2,
        radius: f32,
        paint: &PixelPaint,
    ) -> Result<PixelEditOutcome, PixelEditError> {
        self.circle(sprite, center, radius, Some(paint))
    }

    /// Clears the sprite's pixels under `stamp`'s set pixels, the stamp placed in the world
    /// by `stamp_to_world` (mask space to world, as [`pixel_collide::sprite_to_world`]
    /// makes it): a sprite pixel is under the stamp when its center falls in a set stamp
    /// pixel.
    pub fn erase_mask(
        &mut self,
        sprite: Entity,
        stamp: &BitMask,
        stamp_to_world: Affine2,
    ) -> Result<PixelEditOutcome, PixelEditError> {
        self.stamp(sprite, stamp, stamp_to_world, None)
    }

    /// Sets the sprite's pixels under `stamp`'s set pixels (as [`PixelEdits::erase_mask`]
    /// finds them), showing `paint`.
    pub fn draw_mask(
        &mut self,
        sprite: Entity,
        stamp: &BitMask,
        stamp_to_world: Affine2,
        paint: &PixelPaint,
    ) -> Result<PixelEditOutcome, PixelEditError> {
        self.stamp(sprite, stamp, stamp_to_world, Some(paint))
    }

    /// The sprite's pixel accounts, for a system that edits and reads them (a query of
    /// [`DestructibleState`] beside this parameter would conflict with it).
    pub fn state(&self, sprite: Entity) -> Option<&DestructibleState> {
        self.sprites.get(sprite).ok().map(|(state, ..)| state)
    }

    /// The sprite's mask space to world space, as it is drawn now.
    pub fn to_world(&self, sprite: Entity) -> Result<Affine2, PixelEditError> {
        let (_, collider, global) = self
            .sprites
            .get(sprite)
            .map_err(|_| PixelEditError::NotDestructible(sprite))?;
        Ok(flatten(global) * collider.mask_to_local)
    }

    fn circle(
        &mut self,
        sprite: Entity,
        center: Vec2,
        radius: f32,
        paint: Option<&PixelPaint>,
    ) -> Result<PixelEditOutcome, PixelEditError> {
        if !(center.is_finite() && radius.is_finite() && radius >= 0.0) {
            return Err(PixelEditError::NotFinite);
        }
        let to_world = self.to_world(sprite)?;
        let to_mask = invert(to_world)?;
        // The circle's box in mask space: the world box's corners, mapped.
        let corners = [
            Vec2::new(-radius, -radius),
            Vec2::new(radius, -radius),
            Vec2::new(-radius, radius),
            Vec2::new(radius, radius),
        ]
        .map(|c| to_mask.transform_point2(center + c));
        let similar = similarity_scale(to_world);
        let inside = |x: u32, y: u32| {
            let at = to_world.transform_point2(Vec2::new(x as f32 + 0.5, y as f32 + 0.5));
            at.distance_squared(center) <= radius * radius
        };
        self.edit(sprite, &corners, paint, |mask, rect| {
            match (similar, paint) {
                // A crater that stays a circle in mask space: the core's word-wide carve.
                (Some(scale), None) => {
                    let c = to_mask.transform_point2(center);
                    let r = f64::from(radius) / f64::from(scale);
                    mask.erase_circle(f64::from(c.x), f64::from(c.y), r);
                    None
                }
                // Otherwise a stamp of the pixels under the circle, which a paint stroke
                // needs anyway to know which pixels to color.
                _ => Some(raster(rect, inside)),
            }
        })
    }

    fn stamp(
        &mut self,
        sprite: Entity,
        stamp: &BitMask,
        stamp_to_world: Affine2,
        paint: Option<&PixelPaint>,
    ) -> Result<PixelEditOutcome, PixelEditError> {
        if !stamp_to_world.is_finite() {
            return Err(PixelEditError::NotFinite);
        }
        let to_world = self.to_world(sprite)?;
        let to_mask = invert(to_world)?;
        let stamp_from_world = invert(stamp_to_world)?;
        let (sw, sh) = (stamp.width() as f32, stamp.height() as f32);
        let corners = [
            Vec2::ZERO,
            Vec2::new(sw, 0.0),
            Vec2::new(0.0, sh),
            Vec2::new(sw, sh),
        ]
        .map(|c| to_mask.transform_point2(stamp_to_world.transform_point2(c)));
        let inside = |x: u32, y: u32| {
            let world = to_world.transform_point2(Vec2::new(x as f32 + 0.5, y as f32 + 0.5));
            let at = stamp_from_world.transform_point2(world);
            at.is_finite() && stamp.get(at.x.floor() as i64, at.y.floor() as i64)
        };
        self.edit(sprite, &corners, paint, |_, rect| {
            Some(raster(rect, inside))
        })
    }

    /// One edit: the mask changed by `change` within the box of `corners` (mask space),
    /// either in place (`None`) or by the stamp it returns, laid at the box's corner; then
    /// the image's pixels in the box made to agree.
    fn edit(
        &mut self,
        sprite: Entity,
        corners: &[Vec2; 4],
        paint: Option<&PixelPaint>,
        change: impl FnOnce(&mut BitMask, MaskRect) -> Option<BitMask>,
    ) -> Result<PixelEditOutcome, PixelEditError> {
        let started = Instant::now();
        let tile = match paint {
            Some(PixelPaint::Image(handle)) => Some(tile_of(&self.images, handle)?),
            _ => None,
        };
        let (state, ..) = self
            .sprites
            .get(sprite)
            .map_err(|_| PixelEditError::NotDestructible(sprite))?;
        let linear = state
            .image
            .as_ref()
            .and_then(|handle| self.images.get(handle))
            .is_some_and(|image| image.texture_descriptor.format == TextureFormat::Rgba8Unorm);
        let color = match paint {
            // In the bytes' own color space: sRGB, or linear for an `Rgba8Unorm` image.
            Some(PixelPaint::Color(color)) if linear => Some(color.to_linear().to_u8_array()),
            Some(PixelPaint::Color(color)) => Some(color.to_srgba().to_u8_array()),
            _ => None,
        };
        let stroke = match (&tile, &color) {
            (Some(tile), _) => Stroke::Tile(tile),
            (_, Some(rgba)) => Stroke::Paint(rgba),
            _ => Stroke::Erase,
        };
        let (mut state, mut collider, _) = self
            .sprites
            .get_mut(sprite)
            .map_err(|_| PixelEditError::NotDestructible(sprite))?;
        let (Some(handle), Some(mask)) = (state.image.clone(), collider.mask.as_mut()) else {
            return Err(PixelEditError::NotReady(sprite));
        };
        let Some(rect) = clip_box(corners, mask.size()) else {
            return Ok(PixelEditOutcome::default());
        };
        // Copied here if the pass or a physics collider still holds the last frame's.
        let mask = Arc::make_mut(mask);
        let before = count_in(mask, rect);
        let stamp = change(mask, rect);
        let at = (rect.x as i32, rect.y as i32);
        match (&stamp, stroke) {
            (Some(stamp), Stroke::Erase) => mask.erase(stamp, at),
            (Some(stamp), _) => mask.draw(stamp, at),
            (None, _) => {}
        }
        let after = count_in(mask, rect);
        let outcome = PixelEditOutcome {
            rect: Some(rect),
            removed: before.saturating_sub(after),
            added: after.saturating_sub(before),
        };
        if let Some(mut image) = self.images.get_mut(&handle) {
            repaint(&mut image, mask, rect, stamp.as_ref(), stroke);
        }
        state.removed += outcome.removed;
        state.added += outcome.added;
        state.mark_dirty(rect);
        state.pending_micros += started.elapsed().as_secs_f32() * 1e6;
        Ok(outcome)
    }
}

/// The image's pixels in `rect` made to agree with `mask`: cleared where it is clear,
/// painted under a paint stroke's `stamp` (laid at the rectangle's corner).
fn repaint(
    image: &mut Image,
    mask: &BitMask,
    rect: MaskRect,
    stamp: Option<&BitMask>,
    stroke: Stroke,
) {
    let width = image.width() as usize;
    let Some(data) = image.data.as_mut() else {
        return;
    };
    for y in rect.y..rect.y + rect.height {
        for x in rect.x..rect.x + rect.width {
            let i = (y as usize * width + x as usize) * 4;
            let Some(pixel) = data.get_mut(i..i + 4) else {
                continue;
            };
            if !mask.get(i64::from(x), i64::from(y)) {
                pixel.fill(0);
                continue;
            }
            let under = stamp.is_some_and(|s| s.get(i64::from(x - rect.x), i64::from(y - rect.y)));
            match stroke {
                Stroke::Paint(rgba) if under => pixel.copy_from_slice(rgba),
                Stroke::Tile(tile) if under => {
                    let (tx, ty) = (x as usize % tile.width, y as usize % tile.height);
                    let t = (ty * tile.width + tx) * 4;
                    pixel.copy_from_slice(&tile.rgba[t..t + 4]);
                }
                _ => {}
            }
            // A solid pixel always shows, even painted with a clear texel.
            pixel[3] = pixel[3].max(1);
        }
    }
}

/// A paint image's pixels as RGBA bytes.
fn tile_of(images: &Assets<Image>, handle: &Handle<Image>) -> Result<Tile, PixelEditError> {
    let image = images
        .get(handle)
        .ok_or_else(|| PixelEditError::Paint("its image is not loaded".into()))?;
    let (width, height) = (image.width() as usize, image.height() as usize);
    let rgba = rgba_pixels(image).map_err(PixelEditError::Paint)?;
    if width == 0 || height == 0 || rgba.len() < width * height * 4 {
        return Err(PixelEditError::Paint("it has no pixels".into()));
    }
    Ok(Tile {
        width,
        height,
        rgba,
    })
}

/// The inverse of a placement, or why there is none.
fn invert(to_world: Affine2) -> Result<Affine2, PixelEditError> {
    if !to_world.is_finite() {
        return Err(PixelEditError::NotFinite);
    }
    let det = to_world.matrix2.determinant();
    if !(det.is_finite() && det != 0.0) {
        return Err(PixelEditError::Degenerate);
    }
    let inverse = to_world.inverse();
    if inverse.is_finite() {
        Ok(inverse)
    } else {
        Err(PixelEditError::Degenerate)
    }
}

/// The scale of a placement that turns, flips and scales alike on both axes (a circle
/// stays a circle in mask space); `None` for a stretched or sheared one.
fn similarity_scale(to_world: Affine2) -> Option<f32> {
    let (a, b) = (to_world.matrix2.x_axis, to_world.matrix2.y_axis);
    let (la, lb) = (a.length(), b.length());
    let tolerance = 1e-5 * la.max(lb);
    ((la - lb).abs() <= tolerance && a.dot(b).abs() <= tolerance * la.max(lb) && la > 0.0)
        .then_some(la)
}

/// The pixels whose box `corners` (mask space) reaches, clipped to a mask of `size`.
fn clip_box(corners: &[Vec2; 4], (w, h): (u32, u32)) -> Option<MaskRect> {
    let lo = corners.iter().fold(Vec2::INFINITY, |a, &c| a.min(c));
    let hi = corners.iter().fold(Vec2::NEG_INFINITY, |a, &c| a.max(c));
    if !(lo.is_finite() && hi.is_finite()) {
        return None;
    }
    // A pixel of margin each side: a center on the box's edge is inside.
    let x0 = (lo.x.floor() - 1.0).clamp(0.0, w as f32) as u32;
    let y0 = (lo.y.floor() - 1.0).clamp(0.0, h as f32) as u32;
    let x1 = (hi.x.ceil() + 1.0).clamp(0.0, w as f32) as u32;
    let y1 = (hi.y.ceil() + 1.0).clamp(0.0, h as f32) as u32;
    (x0 < x1 && y0 < y1).then_some(MaskRect {
        x: x0,
        y: y0,
        width: x1 - x0,
        height: y1 - y0,
    })
}

/// A mask of `rect`'s size whose pixel `(x, y)` is set when `inside` holds for the
/// pixel `(rect.x + x, rect.y + y)`.
fn raster(rect: MaskRect, inside: impl Fn(u32, u32) -> bool) -> BitMask {
    let mut stamp = BitMask::new(rect.width, rect.height);
    for y in 0..rect.height {
        for x in 0..rect.width {
            if inside(rect.x + x, rect.y + y) {
                stamp.set(i64::from(x), i64::from(y), true);
            }
        }
    }
    stamp
}

/// Set pixels of `mask` in `rect`.
fn count_in(mask: &BitMask, rect: MaskRect) -> u64 {
    let mut count = 0;
    for y in rect.y..rect.y + rect.height {
        for x in rect.x..rect.x + rect.width {
            count += u64::from(mask.get(i64::from(x), i64::from(y)));
        }
    }
    count
}
