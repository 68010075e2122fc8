//! Masks from sprite images: built once per (image, frame, threshold, color key) and
//! shared by every collider that shows the same pixels; rebuilt when the image asset
//! changes (an edit in code, or the file changed on disk with Bevy's file watcher).
//!
//! An image still loading collides with nothing. A missing or corrupt file, or one over
//! [`PixelMasks::max_pixels`], is reported once (log and [`PixelMasks::problems`]) and its
//! sprites show and collide as a solid checkerboard placeholder.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use bevy::asset::{LoadState, RenderAssetUsages};
use bevy::ecs::entity::EntityHashSet;
use bevy::math::URect;
use bevy::prelude::*;
use bevy::sprite::Anchor;
use wgpu_types::{Extent3d, TextureDimension, TextureFormat};

use super::collider::{PixelCollider, PixelColliderMask};
use super::destructible::OwnedPixels;
use super::geometry::sprite_frame;
use pixel_collide::BitMask;
use pixel_collide::pair::SpriteInfo;

/// What a mask is built from: equal keys share one mask.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct MaskKey {
    image: AssetId<Image>,
    /// `min.x, min.y, max.x, max.y` of the region, in image pixels.
    region: [u32; 4],
    threshold: u8,
    color_key: Option<[u8; 3]>,
}

/// Every mask the colliders use, the placeholder, and what went wrong.
#[derive(Resource, Debug)]
pub struct PixelMasks {
    /// Each mask with its shape tables, which let the narrow phase prove misses early.
    masks: HashMap<MaskKey, (Arc<BitMask>, Arc<SpriteInfo>)>,
    /// Images already reported as failed, so each is reported once.
    failed: HashSet<AssetId<Image>>,
    problems: Vec<String>,
    placeholder: Handle<Image>,
    /// Images destructible sprites own and edit: their edits change the masks in place,
    /// so an edit is no reason to build masks again.
    pub(crate) owned_images: HashSet<AssetId<Image>>,
    /// The largest frame, in pixels, a mask is built for: a bigger one is reported and
    /// collides as the placeholder. 4,096 × 4,096 unless set.
    pub max_pixels: u64,
}

impl Default for PixelMasks {
    fn default() -> Self {
        PixelMasks {
            masks: HashMap::new(),
            failed: HashSet::new(),
            problems: Vec::new(),
            placeholder: Handle::default(),
            owned_images: HashSet::new(),
            max_pixels: DEFAULT_MAX_PIXELS,
        }
    }
}

/// 4,096²: 2 MiB of mask, the size of a large sprite sheet.
pub const DEFAULT_MAX_PIXELS: u64 = 4_096 * 4_096;

/// Side of the checkerboard shown for an image that failed.
pub(crate) const PLACEHOLDER_SIZE: u32 = 64;

impl PixelMasks {
    /// Problems seen so far (a failed image, one too large), each once, oldest first:
    /// for a game to show on screen.
    pub fn problems(&self) -> &[String] {
        &self.problems
    }

    /// Logs a problem and keeps it for the screen (once per message): for a game's own
    /// files that turn out bad, e.g. a sprite sheet's description.
    pub fn report(&mut self, message: String) {
        if !self.problems.contains(&message) {
            error!("{message}");
            self.problems.push(message);
        }
    }

    /// The checkerboard shown, and collided with as a solid box, in place of a broken image.
    pub fn placeholder(&self) -> &Handle<Image> {
        &self.placeholder
    }

    /// Number of distinct masks built.
    pub fn len(&self) -> usize {
        self.masks.len()
    }

    /// Whether no problem was reported.
    pub fn is_empty(&self) -> bool {
        self.masks.is_empty()
    }
}

/// Drawn in code, so it exists even when the asset folder does not.
pub(crate) fn make_placeholder(mut images: ResMut<Assets<Image>>, mut masks: ResMut<PixelMasks>) {
    let n = PLACEHOLDER_SIZE;
    let data: Vec<u8> = (0..n * n)
        .flat_map(|i| {
            let (x, y) = (i % n, i / n);
            if (x / 8 + y / 8) % 2 == 0 {
                [255, 0, 255, 255]
            } else {
                [20, 20, 20, 255]
            }
        })
        .collect();
    masks.placeholder = images.add(new_image(n, n, data, TextureFormat::Rgba8UnormSrgb));
}

/// A 2D image of `w` × `h` pixels (at least one each way) in `format`, kept on the CPU
/// and the GPU: the placeholder, and destructible sprites' own copies and pieces.
pub(crate) fn new_image(w: u32, h: u32, pixels: Vec<u8>, format: TextureFormat) -> Image {
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

/// Passes between sweeps of the masks no collider uses any more.
const SWEEP_PERIOD: u32 = 256;

/// What a collider's mask is made from, as the mask pass reads it.
type ColliderParts = (
    Entity,
    &'static PixelCollider,
    &'static mut Sprite,
    &'static Anchor,
    &'static mut PixelColliderMask,
);

/// Gives each collider the mask of the pixels its sprite shows now.
///
/// Only colliders that changed are visited (their collider, sprite or anchor), plus those
/// that wait for something (an image or atlas layout still loading) and, after an image
/// changed or went away, all of them: a crowd of moving sprites costs nothing here. Masks
/// no collider uses are dropped now and then, so a game that cycles thresholds or images
/// does not keep every mask it ever built.
pub(super) fn assign_masks(
    mut events: MessageReader<AssetEvent<Image>>,
    mut passes: Local<u32>,
    mut waiting: Local<EntityHashSet>,
    mut pass: ResMut<super::pipeline::PixelCollisionState>,
    images: Res<Assets<Image>>,
    atlases: Option<Res<Assets<TextureAtlasLayout>>>,
    no_atlases: Local<Assets<TextureAtlasLayout>>,
    asset_server: Res<AssetServer>,
    mut masks: ResMut<PixelMasks>,
    mut colliders: ParamSet<(
        Query<
            ColliderParts,
            (
                Or<(Changed<PixelCollider>, Changed<Sprite>, Changed<Anchor>)>,
                Without<OwnedPixels>,
            ),
        >,
        Query<ColliderParts, Without<OwnedPixels>>,
    )>,
) {
    pass.start_pass();
    let mut changed: HashSet<AssetId<Image>> = HashSet::new();
    for event in events.read() {
        match *event {
            // A destructible sprite's own image, gone with the sprite.
            AssetEvent::Removed { id } if masks.owned_images.remove(&id) => {}
            // Its edits changed its mask in place already.
            AssetEvent::Modified { id } if masks.owned_images.contains(&id) => {}
            AssetEvent::Modified { id } | AssetEvent::Removed { id } => {
                changed.insert(id);
            }
            _ => {}
        }
    }
    if !changed.is_empty() {
        masks.masks.retain(|key, _| !changed.contains(&key.image));
    }
    *passes = passes.wrapping_add(1);
    if passes.is_multiple_of(SWEEP_PERIOD) {
        // Held by the cache alone (colliders and the last pass hold the rest).
        masks
            .masks
            .retain(|_, (mask, _)| Arc::strong_count(mask) > 1);
    }
    let mut sources = MaskSources {
        images: &images,
        // An app without Bevy's texture atlas plugin has no layouts: atlas sprites wait.
        atlases: atlases.as_deref().unwrap_or(&no_atlases),
        asset_server: &asset_server,
        masks: &mut masks,
        changed_images: &changed,
    };
    let previously_waiting = std::mem::take(&mut *waiting);
    if !changed.is_empty() {
        for (entity, collider, sprite, anchor, state) in &mut colliders.p1() {
            if sources.assign(collider, sprite, anchor, state) {
                waiting.insert(entity);
            }
        }
        return;
    }
    let mut seen = EntityHashSet::default();
    for (entity, collider, sprite, anchor, state) in &mut colliders.p0() {
        seen.insert(entity);
        if sources.assign(collider, sprite, anchor, state) {
            waiting.insert(entity);
        }
    }
    let mut all = colliders.p1();
    for entity in previously_waiting.into_iter().filter(|e| !seen.contains(e)) {
        // Gone, or no longer a collider: nothing to wait for.
        if let Ok((entity, collider, sprite, anchor, state)) = all.get_mut(entity)
            && sources.assign(collider, sprite, anchor, state)
        {
            waiting.insert(entity);
        }
    }
}

/// What masks are built from, for one pass.
struct MaskSources<'a> {
    images: &'a Assets<Image>,
    atlases: &'a Assets<TextureAtlasLayout>,
    asset_server: &'a AssetServer,
    masks: &'a mut PixelMasks,
    changed_images: &'a HashSet<AssetId<Image>>,
}

impl MaskSources<'_> {
    /// Gives one collider its mask; true when it must be looked at again next pass even
    /// if nothing of it changes: its image or atlas layout is still loading, or it shows
    /// an atlas frame (a layout can change under an unchanged sprite).
    fn assign(
        &mut self,
        collider: &PixelCollider,
        mut sprite: Mut<Sprite>,
        anchor: &Anchor,
        mut state: Mut<PixelColliderMask>,
    ) -> bool {
        if state
            .key
            .is_some_and(|key| self.changed_images.contains(&key.image))
        {
            state.key = None;
        }
        self.build(collider, &mut sprite, anchor, &mut state);
        collider.enabled && (state.mask.is_none() || sprite.texture_atlas.is_some())
    }

    fn build(
        &mut self,
        collider: &PixelCollider,
        sprite: &mut Mut<Sprite>,
        anchor: &Anchor,
        state: &mut Mut<PixelColliderMask>,
    ) {
        let (images, atlases, asset_server) = (self.images, self.atlases, self.asset_server);
        let masks = &mut *self.masks;
        let id = sprite.image.id();
        let frame = if collider.enabled {
            images
                .get(id)
                .and_then(|image| sprite_frame(sprite, *anchor, image.size(), atlases))
        } else {
            None
        };
        let Some(frame) = frame else {
            if collider.enabled
                && images.get(id).is_none()
                && let LoadState::Failed(err) = asset_server.load_state(id)
            {
                if masks.failed.insert(id) {
                    let path = path_of(asset_server, id);
                    masks.report(format!(
                        "could not load {path}: {err}; showing a placeholder"
                    ));
                }
                show_placeholder(sprite, &masks.placeholder);
            }
            if state.mask.is_some() {
                state.mask = None;
                state.shape = None;
                state.key = None;
            }
            return;
        };
        let key = MaskKey {
            image: id,
            region: [
                frame.region.min.x,
                frame.region.min.y,
                frame.region.max.x,
                frame.region.max.y,
            ],
            threshold: collider.threshold,
            color_key: collider.color_key,
        };
        state.mask_to_local = frame.mask_to_local;
        if state.key == Some(key) && state.mask.is_some() {
            return;
        }
        let cached = masks.masks.get(&key).cloned();
        match cached.map_or_else(|| self.new_mask(key, frame.region), Ok) {
            Ok((mask, shape)) => {
                state.mask = Some(mask);
                state.shape = Some(shape);
                state.key = Some(key);
            }
            Err(why) => {
                let masks = &mut *self.masks;
                if masks.failed.insert(id) {
                    let path = path_of(self.asset_server, id);
                    masks.report(format!("{path}: {why}; showing a placeholder"));
                }
                if id != masks.placeholder.id() {
                    show_placeholder(sprite, &masks.placeholder);
                }
                state.mask = None;
                state.shape = None;
                state.key = None;
            }
        }
    }

    /// The mask of `region` of `key`'s image under its threshold and color key, cached with
    /// its shape tables; or why there is none (over the pixel limit, not loaded, unreadable).
    fn new_mask(
        &mut self,
        key: MaskKey,
        region: URect,
    ) -> Result<(Arc<BitMask>, Arc<SpriteInfo>), String> {
        let masks = &mut *self.masks;
        let area = u64::from(region.width()) * u64::from(region.height());
        // The placeholder is ours and small: it collides whatever the limit.
        if area > masks.max_pixels && key.image != masks.placeholder.id() {
            return Err(format!(
                "{}×{} pixels, over the limit of {}",
                region.width(),
                region.height(),
                masks.max_pixels
            ));
        }
        let image = self.images.get(key.image).ok_or("not loaded")?;
        let mask = mask_from_region(image, region, key.threshold, key.color_key)?;
        let shape = Arc::new(SpriteInfo::new(&mask));
        let cached = (Arc::new(mask), shape);
        masks.masks.insert(key, cached.clone());
        Ok(cached)
    }
}

/// How an image is named in a report: its path, or its id when it has none.
fn path_of(asset_server: &AssetServer, id: AssetId<Image>) -> String {
    asset_server
        .get_path(id)
        .map_or_else(|| format!("{id:?}"), |p| p.to_string())
}

/// Shows the placeholder whole in the sprite's place: an atlas frame or `rect` meant for
/// the refused image would cut out (or reach past) a part of it, and the frame that was
/// over the limit would be refused again, as if the placeholder were.
fn show_placeholder(sprite: &mut Sprite, placeholder: &Handle<Image>) {
    sprite.image = placeholder.clone();
    sprite.texture_atlas = None;
    sprite.rect = None;
}

/// The mask of `region` of an image: alpha above `threshold`, and not `color_key`.
/// An image without alpha collides as its box. An error when the pixels cannot be read.
pub fn mask_from_region(
    image: &Image,
    region: URect,
    threshold: u8,
    color_key: Option<[u8; 3]>,
) -> Result<BitMask, String> {
    let (w, h) = (region.width(), region.height());
    let size = image.size();
    if region.max.x > size.x || region.max.y > size.y {
        return Err(format!(
            "region {region:?} is outside the {}×{} image",
            size.x, size.y
        ));
    }
    let format = image.texture_descriptor.format;
    let bgra = matches!(
        format,
        TextureFormat::Bgra8Unorm | TextureFormat::Bgra8UnormSrgb
    );
    let rgba = matches!(
        format,
        TextureFormat::Rgba8Unorm | TextureFormat::Rgba8UnormSrgb
    );
    let owned;
    let (data, row_bytes, bgra) = if rgba || bgra {
        let data = image
            .data
            .as_deref()
            .ok_or("its pixels are not kept on the CPU")?;
        (data, size.x as usize * 4, bgra)
    } else {
        let dynamic = image
            .clone()
            .try_into_dynamic()
            .map_err(|err| format!("cannot read its {format:?} pixels ({err})"))?;
        if !dynamic.color().has_alpha() && color_key.is_none() {
            warn!("an image without alpha collides as its {w}×{h} box");
            return BitMask::solid(w, h).map_err(|e| e.to_string());
        }
        owned = dynamic.to_rgba8().into_raw();
        (&owned[..], size.x as usize * 4, false)
    };
    let needed = row_bytes * size.y as usize;
    if data.len() < needed {
        return Err(format!("{} bytes of pixels, {needed} expected", data.len()));
    }
    let key = color_key.map(|[r, g, b]| if bgra { [b, g, r] } else { [r, g, b] });
    let mut pixels = Vec::with_capacity(w as usize * h as usize * 4);
    for y in region.min.y..region.max.y {
        let start = y as usize * row_bytes + region.min.x as usize * 4;
        for px in data[start..start + w as usize * 4].chunks_exact(4) {
            let keyed = key.is_some_and(|k| px[..3] == k);
            pixels.extend_from_slice(&[0, 0, 0, if keyed { 0 } else { px[3] }]);
        }
    }
    BitMask::from_rgba8(w, h, &pixels, threshold).map_err(|e| e.to_string())
}
