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

use bevy::ecs::schedule::ScheduleConfigs;
use bevy::ecs::system::ScheduleSystem;
use bevy::prelude::*;
use bevy::sprite::Anchor;
use wgpu_types::TextureFormat;

#[cfg(doc)]
use super::PixelCollisionSystems;
use super::collider::{PixelCollider, PixelColliderMask};
use super::geometry::sprite_frame;
use super::masks::{PixelMasks, mask_from_region, new_image};
use pixel_collide::pair::SpriteInfo;
pub use pixel_collide::pieces::PieceAnchor;
use pixel_collide::{BitMask, Connectivity, MaskRect};

mod edits;
mod pieces;

pub use edits::{PixelEditError, PixelEditOutcome, PixelEdits, PixelPaint};
pub(crate) use pieces::cut_pieces;

/// Messages and observers of destructible sprites; the plugin adds them.
pub(crate) fn build(app: &mut App) {
    app.add_message::<PixelPieceDetached>()
        .add_observer(release_removed);
    // The pass runs them through `run_system_cached`, which keeps each system on an
    // entity of its own: made now, not when the first destructible sprite comes, so a
    // game's entities outside its scenes stay the same from the first frame.
    let world = app.world_mut();
    world.register_system_cached(adopt_pixels);
    world.register_system_cached(follow_sprite_changes);
    world.register_system_cached(park_disabled);
    world.register_system_cached(cut_pieces);
}

/// The systems of destructible sprites, run in [`PixelCollisionSystems::Masks`] after the
/// masks are built: pixels adopted, sprite changes followed, pieces cut loose. Exclusive,
/// as the pass's own (`crate::inline`): a game without destructible sprites pays for
/// three empty queries, not three hand-offs between threads.
pub(crate) fn systems() -> ScheduleConfigs<ScheduleSystem> {
    (
        crate::inline(adopt_pixels),
        crate::inline(follow_sprite_changes),
        crate::inline(park_disabled),
        crate::inline(cut_pieces),
    )
        .chain()
        .in_set(DestructionSystems)
        .run_if(any_with_component::<DestructibleSprite>)
}

/// The destructible sprites' systems: what runs after them in the pass (the physics
/// bodies of new pieces) orders itself after this set.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct DestructionSystems;

/// A sprite whose pixels a game edits ([`PixelEdits`]) and whose loose parts break off.
/// It needs a [`PixelCollider`] (added if missing) and works on the sprite's own copy of
/// its frame (see the module docs). Handing the sprite another image makes it take that
/// image's pixels afresh (a level restarted), its accounts starting again.
///
/// Once adopted, the mask is the sprite's own: its collider's threshold and color key
/// were applied once, to the copy. Disabled (`PixelCollider::enabled`), it keeps its
/// pixels and collides with nothing until enabled again.
///
/// With feature `avian`, a destructible sprite that is a rigid body gets a
/// `MaskCollider` that follows its edits. A physics collider places the mask centered on
/// the body, turned and scaled with it: keep such a sprite's anchor centered, unflipped and
/// without `custom_size`, or its collider and its picture part.
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
    /// The sprite's mask while its collider is disabled: a disabled collider has none.
    parked: Option<Arc<BitMask>>,
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

    /// Settling is avian's (`SettlePieces`).
    #[cfg(feature = "avian")]
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
    /// The sprite it broke off.
    pub source: Entity,
    /// The new entity.
    pub piece: Entity,
    /// Its set pixels.
    pub pixels: u64,
    /// Its mask, as its image shows it (the source's flips applied), centered on the
    /// piece's `Transform`, which carries the source's rotation and scale.
    pub mask: Arc<BitMask>,
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

/// A disabled collider has no mask, so nothing pairs or finds it; a destructible sprite's
/// mask is its own, so it is put aside while disabled and given back when enabled.
fn park_disabled(
    mut sprites: Query<
        (
            &PixelCollider,
            &mut PixelColliderMask,
            &mut DestructibleState,
        ),
        (With<OwnedPixels>, Changed<PixelCollider>),
    >,
) {
    for (collider, mut placed, mut state) in &mut sprites {
        if !collider.enabled && placed.mask.is_some() {
            state.parked = placed.mask.take();
            placed.shape = None;
        } else if collider.enabled && placed.mask.is_none() && state.parked.is_some() {
            placed.mask = state.parked.take();
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
