//! Sprite textures become alpha bit masks: once an image has loaded through the
//! AssetServer, its alpha (above the overlay's threshold) is a [`BitMask`] that collision
//! uses. A missing or corrupt file is reported on screen and in the log, and the sprite
//! collides as a solid placeholder; an image without transparency collides as its box.
//! A [`ColourKey`] sprite's image first has its magenta background made transparent, so
//! the texture shown and the mask agree.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use bevy::asset::LoadState;
use bevy::image::TextureFormatPixelInfo;
use bevy::prelude::*;
use bevy::render::render_resource::TextureFormat;

use crate::collision::BitMask;
use crate::plugin::PixelMasks;
use crate::plugin::masks::{self as plugin_masks, PLACEHOLDER_SIZE};

/// An image drawn on a [`COLOUR_KEY`] background, as in the tutorials: that colour becomes
/// transparent in the texture and clear in the mask. Its sprite's image gets a whole-image
/// mask here (and the placeholder on failure), which a scene can read for the image's
/// shape, e.g. a sprite sheet's; the sprite collides through the plugin.
#[derive(Component, Debug, Clone, Copy, Default)]
pub struct ColourKey;

/// The background colour [`ColourKey`] removes: magenta, exactly.
pub const COLOUR_KEY: [u8; 3] = [255, 0, 255];

/// Sprites whose images get masks.
type Masked = With<ColourKey>;

/// Masks of every image a [`ColourKey`] sprite shows, keyed by image.
#[derive(Resource, Debug, Default)]
pub struct SpriteMasks {
    entries: HashMap<AssetId<Image>, MaskEntry>,
    /// Alpha above this is solid: 0 is the tutorials' "alpha != 0".
    pub threshold: u8,
    built_threshold: u8,
    /// What went wrong loading, for the screen.
    pub problems: Vec<String>,
    placeholder: Handle<Image>,
    /// Images to colour-key before their masks are built.
    colour_keyed: HashSet<AssetId<Image>>,
}

#[derive(Debug, Clone)]
enum MaskEntry {
    Loading { path: String },
    Ready { mask: Arc<BitMask> },
}

impl SpriteMasks {
    /// The mask of an image, once it has loaded.
    pub fn get(&self, image: AssetId<Image>) -> Option<&Arc<BitMask>> {
        match self.entries.get(&image) {
            Some(MaskEntry::Ready { mask }) => Some(mask),
            _ => None,
        }
    }

    /// Puts a mask in directly: for tests and for images made in code.
    pub fn insert(&mut self, image: AssetId<Image>, mask: BitMask) {
        self.entries.insert(
            image,
            MaskEntry::Ready {
                mask: Arc::new(mask),
            },
        );
    }

    /// Whether every image seen so far has a mask (or failed and has the placeholder's).
    pub fn all_ready(&self) -> bool {
        self.entries
            .values()
            .all(|e| matches!(e, MaskEntry::Ready { .. }))
    }

    /// The checkerboard shown (and collided as a solid box) in place of a broken image.
    pub fn placeholder(&self) -> &Handle<Image> {
        &self.placeholder
    }

    /// Shows a problem on screen and logs it (once per message): for scenes whose own
    /// files (e.g. a sprite sheet's description) turn out bad.
    pub fn report(&mut self, message: String) {
        error!("{message}");
        if !self.problems.contains(&message) {
            self.problems.push(message);
        }
    }
}

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<SpriteMasks>()
        .add_systems(
            Startup,
            share_placeholder.after(plugin_masks::make_placeholder),
        )
        .add_systems(
            Update,
            (
                track_new_images,
                build_masks,
                rebuild_on_threshold_change,
                share_threshold_with_plugin,
            )
                .chain()
                .in_set(super::AppSystems::LoadMasks),
        );
}

/// The plugin's checkerboard, so a broken image looks and collides the same whichever of
/// the two mask paths found it.
fn share_placeholder(plugin: Res<PixelMasks>, mut masks: ResMut<SpriteMasks>) {
    let handle = plugin.placeholder().clone();
    if let Ok(mask) = BitMask::solid(PLACEHOLDER_SIZE, PLACEHOLDER_SIZE) {
        masks.insert(handle.id(), mask);
    }
    masks.placeholder = handle;
}

fn track_new_images(
    sprites: Query<(&Sprite, Has<ColourKey>), Masked>,
    asset_server: Res<AssetServer>,
    mut masks: ResMut<SpriteMasks>,
) {
    for (sprite, keyed) in &sprites {
        let id = sprite.image.id();
        // The placeholder is magenta and black on purpose: keying it would hollow it out.
        let newly_keyed = keyed && id != masks.placeholder.id() && masks.colour_keyed.insert(id);
        if newly_keyed || !masks.entries.contains_key(&id) {
            let path = asset_server
                .get_path(id)
                .map_or_else(|| format!("{id:?}"), |p| p.to_string());
            masks.entries.insert(id, MaskEntry::Loading { path });
        }
    }
}

fn build_masks(
    asset_server: Res<AssetServer>,
    mut images: ResMut<Assets<Image>>,
    mut masks: ResMut<SpriteMasks>,
    mut sprites: Query<&mut Sprite, Masked>,
) {
    let loading: Vec<(AssetId<Image>, String)> = masks
        .entries
        .iter()
        .filter_map(|(id, e)| match e {
            MaskEntry::Loading { path } => Some((*id, path.clone())),
            MaskEntry::Ready { .. } => None,
        })
        .collect();
    let threshold = masks.threshold;
    for (id, path) in loading {
        // Keyed before the mask is built, in the asset itself, so the texture on screen
        // and the mask are the same pixels. Keying twice changes nothing.
        if masks.colour_keyed.contains(&id)
            && let Some(mut image) = images.get_mut(id)
            && let Err(err) = apply_colour_key(&mut image)
        {
            masks.report(format!("{path}: {err}; its background stays opaque"));
        }
        if let Some(image) = images.get(id) {
            let mask = mask_from_image(image, threshold, &path);
            masks.entries.insert(
                id,
                MaskEntry::Ready {
                    mask: Arc::new(mask),
                },
            );
            continue;
        }
        if let LoadState::Failed(err) = asset_server.load_state(id) {
            masks.report(format!(
                "could not load {path}: {err}; showing a placeholder"
            ));
            masks.entries.remove(&id);
            let placeholder = masks.placeholder.clone();
            for mut sprite in &mut sprites {
                if sprite.image.id() == id {
                    sprite.image = placeholder.clone();
                }
            }
        }
    }
}

fn rebuild_on_threshold_change(images: Res<Assets<Image>>, mut masks: ResMut<SpriteMasks>) {
    if masks.threshold == masks.built_threshold {
        return;
    }
    let threshold = masks.threshold;
    masks.built_threshold = threshold;
    let placeholder = masks.placeholder.id();
    let ids: Vec<AssetId<Image>> = masks
        .entries
        .keys()
        .copied()
        .filter(|&id| id != placeholder)
        .collect();
    for id in ids {
        if let Some(image) = images.get(id) {
            let mask = mask_from_image(image, threshold, &format!("{id:?}"));
            masks.entries.insert(
                id,
                MaskEntry::Ready {
                    mask: Arc::new(mask),
                },
            );
        }
    }
}

/// The overlay's one threshold applies to the plugin's colliders too; a changed threshold
/// is a new mask key there, so their masks rebuild.
fn share_threshold_with_plugin(
    masks: Res<SpriteMasks>,
    mut colliders: Query<&mut crate::plugin::PixelCollider>,
) {
    for mut collider in &mut colliders {
        if collider.threshold != masks.threshold {
            collider.threshold = masks.threshold;
        }
    }
}

/// Makes every pixel whose colour is exactly [`COLOUR_KEY`] transparent, whatever its alpha,
/// and returns how many there were. They become transparent black rather than transparent
/// magenta, so linear filtering at a sprite's edges fades towards dark instead of pink.
/// Other pixels are untouched. An error for pixel formats other than 8-bit RGBA/BGRA.
pub fn apply_colour_key(image: &mut Image) -> Result<usize, String> {
    let format = image.texture_descriptor.format;
    // Magenta reads the same in RGBA and BGRA byte order: red and blue are both 255.
    if !matches!(
        format,
        TextureFormat::Rgba8Unorm
            | TextureFormat::Rgba8UnormSrgb
            | TextureFormat::Bgra8Unorm
            | TextureFormat::Bgra8UnormSrgb
    ) {
        return Err(format!("cannot colour-key {format:?} pixels"));
    }
    let Some(data) = image.data.as_mut() else {
        return Err("pixels are not kept on the CPU, so they cannot be colour-keyed".into());
    };
    let mut keyed = 0;
    for pixel in data.chunks_exact_mut(4) {
        if pixel[..3] == COLOUR_KEY {
            pixel.fill(0);
            keyed += 1;
        }
    }
    Ok(keyed)
}

/// The alpha of a loaded image as a mask. Images without usable alpha collide as solid
/// boxes, with a warning: per-pixel then equals the box test.
pub fn mask_from_image(image: &Image, threshold: u8, name: &str) -> BitMask {
    let (w, h) = (image.width(), image.height());
    let solid = |why: &str| match BitMask::solid(w, h) {
        Ok(mask) => {
            warn!("{name}: {why}; it collides as a solid {w}×{h} box");
            mask
        }
        Err(err) => {
            warn!("{name}: {why}; {err}, so it collides with nothing");
            BitMask::new(0, 0)
        }
    };
    let Some(data) = image.data.as_deref() else {
        return solid("pixels are not kept on the CPU");
    };
    let format = image.texture_descriptor.format;
    let mask = match format {
        TextureFormat::Rgba8Unorm
        | TextureFormat::Rgba8UnormSrgb
        | TextureFormat::Bgra8Unorm
        | TextureFormat::Bgra8UnormSrgb => {
            let layer = (w as usize) * (h as usize) * format.pixel_size().unwrap_or(4);
            BitMask::from_rgba8(w, h, data.get(..layer).unwrap_or(data), threshold)
        }
        _ => match image.clone().try_into_dynamic() {
            Ok(dynamic) if dynamic.color().has_alpha() => {
                Ok(BitMask::from_image(&dynamic.to_rgba8(), threshold))
            }
            Ok(_) => return solid("the image has no alpha channel"),
            Err(err) => return solid(&format!("cannot read its {format:?} pixels ({err})")),
        },
    };
    match mask {
        Ok(mask) if mask.count() == u64::from(w) * u64::from(h) && w * h > 0 => {
            warn!("{name}: no transparent pixels; per-pixel collision equals the box test");
            mask
        }
        Ok(mask) => mask,
        Err(err) => solid(&err.to_string()),
    }
}
