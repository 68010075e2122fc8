//! Sprite textures become alpha bit masks: once an image has loaded through the
//! AssetServer, its alpha (above the overlay's threshold) is a [`BitMask`] that collision
//! uses. A missing or corrupt file is reported on screen and in the log, and the sprite
//! collides as a solid placeholder; an image without transparency collides as its box.

use std::collections::HashMap;
use std::sync::Arc;

use bevy::asset::{LoadState, RenderAssetUsages};
use bevy::image::TextureFormatPixelInfo;
use bevy::prelude::*;
use bevy::render::render_resource::{Extent3d, TextureDimension, TextureFormat};

use crate::collision::BitMask;

/// A sprite whose pixels collide.
#[derive(Component, Debug, Clone, Copy, Default)]
pub struct PixelCollider;

/// Masks of every image a [`PixelCollider`] shows, keyed by image.
#[derive(Resource, Debug)]
pub struct SpriteMasks {
    entries: HashMap<AssetId<Image>, MaskEntry>,
    /// Alpha above this is solid: 0 is the tutorials' "alpha != 0".
    pub threshold: u8,
    built_threshold: u8,
    /// What went wrong loading, for the screen.
    pub problems: Vec<String>,
    placeholder: Handle<Image>,
}

#[derive(Debug, Clone)]
enum MaskEntry {
    Loading { path: String },
    Ready { mask: Arc<BitMask> },
}

impl Default for SpriteMasks {
    fn default() -> Self {
        SpriteMasks {
            entries: HashMap::new(),
            threshold: 0,
            built_threshold: 0,
            problems: Vec::new(),
            placeholder: Handle::default(),
        }
    }
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

    fn report(&mut self, message: String) {
        error!("{message}");
        if !self.problems.contains(&message) {
            self.problems.push(message);
        }
    }
}

/// Side of the checkerboard shown for a texture that failed to load.
const PLACEHOLDER_SIZE: u32 = 64;

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<SpriteMasks>()
        .add_systems(Startup, make_placeholder)
        .add_systems(
            Update,
            (track_new_images, build_masks, rebuild_on_threshold_change)
                .chain()
                .in_set(super::AppSystems::LoadMasks),
        );
}

/// Drawn in code so that it exists even when the asset folder does not.
fn make_placeholder(mut images: ResMut<Assets<Image>>, mut masks: ResMut<SpriteMasks>) {
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
    let image = Image::new(
        Extent3d {
            width: n,
            height: n,
            depth_or_array_layers: 1,
        },
        TextureDimension::D2,
        data,
        TextureFormat::Rgba8UnormSrgb,
        RenderAssetUsages::default(),
    );
    let handle = images.add(image);
    if let Ok(mask) = BitMask::solid(n, n) {
        masks.insert(handle.id(), mask);
    }
    masks.placeholder = handle;
}

fn track_new_images(
    sprites: Query<&Sprite, With<PixelCollider>>,
    asset_server: Res<AssetServer>,
    mut masks: ResMut<SpriteMasks>,
) {
    for sprite in &sprites {
        let id = sprite.image.id();
        if !masks.entries.contains_key(&id) {
            let path = asset_server
                .get_path(id)
                .map_or_else(|| format!("{id:?}"), |p| p.to_string());
            masks.entries.insert(id, MaskEntry::Loading { path });
        }
    }
}

fn build_masks(
    asset_server: Res<AssetServer>,
    images: Res<Assets<Image>>,
    mut masks: ResMut<SpriteMasks>,
    mut sprites: Query<&mut Sprite, With<PixelCollider>>,
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

/// The alpha of a loaded image as a mask. Images without usable alpha collide as solid
/// boxes, with a warning: per-pixel then equals the box test.
pub fn mask_from_image(image: &Image, threshold: u8, name: &str) -> BitMask {
    let (w, h) = (image.width(), image.height());
    let solid = |why: &str| {
        warn!("{name}: {why}; it collides as a solid {w}×{h} box");
        BitMask::solid(w, h).unwrap_or_else(|_| BitMask::new(0, 0))
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
