//! Destructible sprites: carve, erase, draw and fill a live sprite's pixels, its collider
//! mask and its picture in the same edit, and let the parts an edit cut loose break off as
//! sprites of their own.
//!
//! Give a sprite a [`DestructibleSprite`] and edit it through [`PixelEdits`]. Once its
//! image has loaded the sprite *adopts* its pixels: the frame it shows (its `rect` or
//! atlas frame) is copied into an image of its own, which the sprite shows from then on,
//! so an image shared with other sprites or a sprite sheet is never changed (copy on
//! first edit). Pixels the mask calls clear (alpha at or below the collider's threshold,
//! or the color key) become fully transparent in the copy: what is drawn is exactly what
//! collides.
//!
//! Each edit changes the collider's mask with the core's in-place edits and the image's
//! pixels in the same call; the mask is never rebuilt from the texture. After the edits
//! of a frame, in [`PixelCollisionSystems::Masks`], the parts of the sprite that no longer
//! reach its [`PieceAnchor`] leave it ([`pixel_collide::pieces::cut_loose`]): each
//! becomes a sprite with its own cut-out image and mask, placed where its pixels were
//! drawn, and a [`PixelPieceDetached`] message names it. Parts smaller than
//! [`DestructibleSprite::min_piece_pixels`] vanish, counted in
//! [`DestructibleState::crumbs`]. With feature `avian`, pieces of a sprite that is a rigid
//! body become dynamic bodies ([`crate::avian`]).

use std::sync::Arc;

use bevy::asset::RenderAssetUsages;
use bevy::ecs::schedule::ScheduleConfigs;
use bevy::ecs::system::{ScheduleSystem, SystemParam};
use bevy::math::Affine2;
use bevy::platform::time::Instant;
use bevy::prelude::*;
use bevy::sprite::Anchor;
use wgpu_types::{Extent3d, TextureDimension, TextureFormat};

#[cfg(doc)]
use super::PixelCollisionSystems;
use super::collider::{PixelCollider, PixelColliderMask, PixelCollisionLayers};
use super::geometry::{flatten, sprite_frame};
use super::masks::{PixelMasks, mask_from_region};
use pixel_collide::pair::SpriteInfo;
pub use pixel_collide::pieces::PieceAnchor;
use pixel_collide::pieces::cut_loose;
use pixel_collide::{BitMask, Connectivity, MaskRect};

/// Messages and observers of destructible sprites; the plugin adds them.
pub(crate) fn build(app: &mut App) {
    app.add_message::<PixelPieceDetached>()
        .add_observer(release_removed);
}

/// The systems of destructible sprites, run in [`PixelCollisionSystems::Masks`] after the
/// masks are built: pixels adopted, sprite changes followed, pieces cut loose.
pub(crate) fn systems() -> ScheduleConfigs<ScheduleSystem> {
    (adopt_pixels, follow_sprite_changes, cut_pieces).chain()
}

/// A sprite whose pixels a game edits ([`PixelEdits`]) and whose loose parts break off.
/// It needs a [`PixelCollider`] (added if missing) and works on the sprite's own copy of
/// its frame (see the module docs).
#[derive(Component, Debug, Clone)]
#[require(PixelCollider, DestructibleState)]
pub struct DestructibleSprite {
    /// What holds the sprite's pixels in place; parts that reach none of it break off.
    /// Its bottom row by default. [`PieceAnchor::Pixels`] is in the mask's pixels: the
    /// frame's, top-left at its corner, before flips.
    pub anchor: PieceAnchor,
    /// Which neighbors join pixels into one part.
    pub connectivity: Connectivity,
    /// Parts with fewer set pixels vanish instead of breaking off (counted in
    /// [`DestructibleState::crumbs`]); 0 keeps every part.
    pub min_piece_pixels: u64,
}

impl Default for DestructibleSprite {
    fn default() -> Self {
        DestructibleSprite {
            anchor: PieceAnchor::BottomRow,
            connectivity: Connectivity::Eight,
            min_piece_pixels: 4,
        }
    }
}

impl DestructibleSprite {
    /// Nothing breaks off: only the edits change the sprite.
    pub fn without_pieces() -> Self {
        DestructibleSprite {
            anchor: PieceAnchor::Everywhere,
            ..default()
        }
    }
}

/// What the plugin keeps of a [`DestructibleSprite`], and its pixel accounts. Read it,
/// don't write it.
#[derive(Component, Debug, Clone, Default)]
pub struct DestructibleState {
    /// The sprite's own image, once its pixels are adopted.
    image: Option<Handle<Image>>,
    /// The mask rectangle edited since pieces were last looked for.
    dirty: Option<MaskRect>,
    /// Set pixels when adopted.
    pub adopted_pixels: u64,
    /// Set pixels the edits removed (carves, erases).
    pub removed: u64,
    /// Set pixels the edits added (draws, fills).
    pub added: u64,
    /// Set pixels that broke off as pieces.
    pub detached: u64,
    /// Set pixels of parts too small to break off, which vanished.
    pub crumbs: u64,
    /// Set pixels laid back in by settling pieces (feature `avian`).
    pub settled: u64,
    /// Set pixels a settling piece found no room for (feature `avian`).
    pub lost: u64,
    /// Microseconds the last frame's edits of the sprite took, mask and picture, with
    /// cutting loose what they separated (0 for a frame without edits).
    pub last_edit_micros: f32,
    /// This frame's edits so far, microseconds.
    pending_micros: f32,
}

impl DestructibleState {
    /// The image the sprite shows and edits, once adopted: `None` while its image loads.
    pub fn image(&self) -> Option<&Handle<Image>> {
        self.image.as_ref()
    }

    /// Whether edits can be made now.
    pub fn is_ready(&self) -> bool {
        self.image.is_some()
    }

    /// The set pixels the accounts say the sprite has: what it had when adopted, plus
    /// what edits and settling added, less what edits removed and what broke off,
    /// vanished as crumbs or was lost. Equal to the mask's count, always (a test checks).
    pub fn expected_pixels(&self) -> u64 {
        (self.adopted_pixels + self.added + self.settled)
            .saturating_sub(self.removed + self.detached + self.crumbs)
    }

    pub(crate) fn note_settled(&mut self, pixels: u64, lost: u64) {
        self.settled += pixels;
        self.lost += lost;
    }

    pub(crate) fn mark_dirty(&mut self, rect: MaskRect) {
        self.dirty = Some(match self.dirty {
            Some(old) => union(old, rect),
            None => rect,
        });
    }
}

/// A piece that broke off a [`DestructibleSprite`].
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
pub struct DetachedPiece {
    /// The sprite it broke off.
    pub source: Entity,
}

/// A part of a destructible sprite broke off as an entity of its own: a sprite showing its
/// pixels where they were, with a [`PixelCollider`] and a [`DetachedPiece`].
#[derive(Message, Debug, Clone)]
pub struct PixelPieceDetached {
    pub source: Entity,
    pub piece: Entity,
    /// Its set pixels.
    pub pixels: u64,
    /// Its mask, as its image shows it (the source's flips applied), centered on the
    /// piece's `Transform`, which carries the source's rotation and scale.
    pub mask: Arc<BitMask>,
}

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

/// Every pixel of an image as RGBA bytes (sRGB-encoded as stored), whatever its format.
fn rgba_pixels(image: &Image) -> Result<Vec<u8>, String> {
    let format = image.texture_descriptor.format;
    let data = image
        .data
        .as_deref()
        .ok_or("its pixels are not kept on the CPU")?;
    match format {
        TextureFormat::Rgba8Unorm | TextureFormat::Rgba8UnormSrgb => Ok(data.to_vec()),
        TextureFormat::Bgra8Unorm | TextureFormat::Bgra8UnormSrgb => Ok(data
            .chunks_exact(4)
            .flat_map(|p| [p[2], p[1], p[0], p[3]])
            .collect()),
        _ => image
            .clone()
            .try_into_dynamic()
            .map(|dynamic| dynamic.to_rgba8().into_raw())
            .map_err(|err| format!("cannot read its {format:?} pixels ({err})")),
    }
}

/// The sprite's pixels become its own: the frame it shows copied into an image of its
/// own (pixels the mask calls clear made transparent), and a mask of its own.
fn adopt_pixels(
    mut sprites: Query<
        (
            Entity,
            &PixelCollider,
            &mut Sprite,
            &Anchor,
            &mut PixelColliderMask,
            &mut DestructibleState,
        ),
        (With<DestructibleSprite>, Without<OwnedPixels>),
    >,
    mut images: ResMut<Assets<Image>>,
    atlases: Option<Res<Assets<TextureAtlasLayout>>>,
    mut masks: ResMut<PixelMasks>,
    mut commands: Commands,
) {
    for (entity, collider, mut sprite, anchor, mut placed, mut state) in &mut sprites {
        // Waits for the plugin's own mask: the image has loaded and is within the limit.
        // One shown as the placeholder failed (reported in `PixelMasks::problems`): there
        // is nothing of its own to edit.
        if !collider.enabled
            || placed.mask.is_none()
            || sprite.image.id() == masks.placeholder().id()
        {
            continue;
        }
        let no_atlases = Assets::<TextureAtlasLayout>::default();
        let layouts = atlases.as_deref().unwrap_or(&no_atlases);
        let adopted = images.get(&sprite.image).and_then(|image| {
            let frame = sprite_frame(&sprite, *anchor, image.size(), layouts)?;
            Some(adopt(image, frame.region, collider))
        });
        let (mask, own) = match adopted {
            None => continue,
            Some(Ok(adopted)) => adopted,
            Some(Err(why)) => {
                masks.report(format!("{entity}: cannot make its pixels editable: {why}"));
                continue;
            }
        };
        let own = images.add(own);
        masks.owned_images.insert(own.id());
        sprite.image = own.clone();
        sprite.texture_atlas = None;
        sprite.rect = None;
        let count = mask.count();
        placed.shape = Some(Arc::new(SpriteInfo::new(&mask)));
        placed.mask = Some(Arc::new(mask));
        placed.key = None;
        *state = DestructibleState {
            image: Some(own),
            adopted_pixels: count,
            ..default()
        };
        commands.entity(entity).insert(OwnedPixels);
    }
}

/// The mask of `region` and the image's pixels there, as RGBA in a format of the same
/// color space, clear wherever the mask is.
fn adopt(
    image: &Image,
    region: bevy::math::URect,
    collider: &PixelCollider,
) -> Result<(BitMask, Image), String> {
    let mask = mask_from_region(image, region, collider.threshold, collider.color_key)?;
    let rgba = rgba_pixels(image)?;
    let (w, h) = mask.size();
    let row = image.width() as usize * 4;
    let mut pixels = vec![0u8; w as usize * h as usize * 4];
    for y in 0..h {
        let from = (region.min.y + y) as usize * row + region.min.x as usize * 4;
        let to = y as usize * w as usize * 4;
        let source = rgba
            .get(from..from + w as usize * 4)
            .ok_or("fewer pixels than its size")?;
        pixels[to..to + w as usize * 4].copy_from_slice(source);
        for x in 0..w {
            if !mask.get(i64::from(x), i64::from(y)) {
                let i = to + x as usize * 4;
                pixels[i..i + 4].fill(0);
            }
        }
    }
    let format = match image.texture_descriptor.format {
        TextureFormat::Rgba8Unorm | TextureFormat::Bgra8Unorm => TextureFormat::Rgba8Unorm,
        _ => TextureFormat::Rgba8UnormSrgb,
    };
    let mut own = new_image(w, h, pixels, format);
    // Drawn as the original was: nearest stays nearest.
    own.sampler = image.sampler.clone();
    Ok((mask, own))
}

/// On a destructible sprite whose pixels it adopted: the mask pass leaves its mask alone.
#[derive(Component, Debug, Clone, Copy, Default)]
pub(crate) struct OwnedPixels;

/// A sprite's flips, size or anchor changed: its mask lies differently. A new image
/// handed to it: its pixels are adopted again.
fn follow_sprite_changes(
    mut sprites: Query<
        (
            Entity,
            &mut Sprite,
            &Anchor,
            &mut PixelColliderMask,
            &DestructibleState,
        ),
        (With<OwnedPixels>, Or<(Changed<Sprite>, Changed<Anchor>)>),
    >,
    images: Res<Assets<Image>>,
    mut commands: Commands,
) {
    let no_atlases = Assets::<TextureAtlasLayout>::default();
    for (entity, mut sprite, anchor, mut placed, state) in &mut sprites {
        let ours = state.image.as_ref().map(Handle::id) == Some(sprite.image.id());
        let frame = images
            .get(&sprite.image)
            .and_then(|image| sprite_frame(&sprite, *anchor, image.size(), &no_atlases));
        match frame {
            Some(frame) if ours && sprite.texture_atlas.is_none() => {
                if placed.mask_to_local != frame.mask_to_local {
                    placed.mask_to_local = frame.mask_to_local;
                }
            }
            _ => {
                commands.entity(entity).remove::<OwnedPixels>();
                placed.key = None;
                placed.mask = None;
                placed.shape = None;
                // Seen as changed by the mask pass's next run, which builds its mask.
                sprite.set_changed();
            }
        }
    }
}

/// A sprite no longer destructible: the mask pass builds its mask from its (edited) image
/// again.
fn release_removed(removed: On<Remove, DestructibleSprite>, mut commands: Commands) {
    commands
        .entity(removed.entity)
        .try_remove::<(OwnedPixels, DestructibleState)>();
}

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
    placed.shape = Some(Arc::new(SpriteInfo::new(mask)));
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

fn new_image(w: u32, h: u32, pixels: Vec<u8>, format: TextureFormat) -> Image {
    Image::new(
        Extent3d {
            width: w.max(1),
            height: h.max(1),
            depth_or_array_layers: 1,
        },
        TextureDimension::D2,
        pixels,
        format,
        RenderAssetUsages::default(),
    )
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

fn union(a: MaskRect, b: MaskRect) -> MaskRect {
    let (x0, y0) = (a.x.min(b.x), a.y.min(b.y));
    let x1 = (a.x + a.width).max(b.x + b.width);
    let y1 = (a.y + a.height).max(b.y + b.height);
    MaskRect {
        x: x0,
        y: y0,
        width: x1 - x0,
        height: y1 - y0,
    }
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
