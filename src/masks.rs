//! What the game adds to the collision plugin's masks: one alpha threshold for every
//! collider (the overlay's slider), and textures drawn on a [`COLOR_KEY`] background made
//! transparent where they show that color, so the texture on screen and the mask agree.
//! The masks themselves, and the reports of missing or broken images, are the plugin's
//! ([`PixelMasks`]).

use std::collections::HashSet;

use bevy::prelude::*;
use bevy::render::render_resource::TextureFormat;

use bevy_pixel_collide::{PixelCollider, PixelMasks};

/// An image drawn on a [`COLOR_KEY`] background, as in the tutorials: once it has loaded,
/// that color becomes transparent in the texture itself. (Its [`PixelCollider`] should
/// carry the same `color_key`, so the mask is right even before the texture is keyed.)
#[derive(Component, Debug, Clone, Copy, Default)]
pub struct ColorKey;

/// The background color [`ColorKey`] removes: magenta, exactly.
pub const COLOR_KEY: [u8; 3] = [255, 0, 255];

/// The overlay's alpha threshold, applied to every [`PixelCollider`]: alpha above it is
/// solid; 0 is the tutorials' "alpha != 0".
#[derive(Resource, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AlphaThreshold(pub u8);

/// Images already keyed (or found impossible to key), so each is keyed once.
#[derive(Resource, Debug, Default)]
struct KeyedImages(HashSet<AssetId<Image>>);

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<AlphaThreshold>()
        .init_resource::<KeyedImages>()
        .add_systems(
            Update,
            (key_loaded_images, share_threshold)
                .chain()
                .in_set(super::AppSystems::LoadMasks),
        );
}

/// Keys each [`ColorKey`] sprite's image once it has loaded. Writing the image marks it
/// modified, so the plugin rebuilds its mask from the keyed pixels.
fn key_loaded_images(
    sprites: Query<&Sprite, With<ColorKey>>,
    asset_server: Res<AssetServer>,
    mut images: ResMut<Assets<Image>>,
    mut keyed: ResMut<KeyedImages>,
    mut masks: ResMut<PixelMasks>,
) {
    for sprite in &sprites {
        let id = sprite.image.id();
        // The placeholder is magenta and black on purpose: keying it would hollow it out.
        if id == masks.placeholder().id() || keyed.0.contains(&id) {
            continue;
        }
        // Read first: `get_mut` marks the image modified even when nothing changes.
        if images.get(id).is_none() {
            continue;
        }
        keyed.0.insert(id);
        if let Some(mut image) = images.get_mut(id)
            && let Err(err) = apply_color_key(&mut image)
        {
            let path = asset_server
                .get_path(id)
                .map_or_else(|| format!("{id:?}"), |p| p.to_string());
            masks.report(format!("{path}: {err}; its background stays opaque"));
        }
    }
}

/// The overlay's one threshold on every collider; a changed threshold is a new mask key in
/// the plugin, so their masks rebuild.
fn share_threshold(threshold: Res<AlphaThreshold>, mut colliders: Query<&mut PixelCollider>) {
    for mut collider in &mut colliders {
        if collider.threshold != threshold.0 {
            collider.threshold = threshold.0;
        }
    }
}

/// Makes every pixel whose color is exactly [`COLOR_KEY`] transparent, whatever its alpha,
/// and returns how many there were. They become transparent black rather than transparent
/// magenta, so linear filtering at a sprite's edges fades towards dark instead of pink.
/// Other pixels are untouched. An error for pixel formats other than 8-bit RGBA/BGRA.
pub fn apply_color_key(image: &mut Image) -> Result<usize, String> {
    let format = image.texture_descriptor.format;
    // Magenta reads the same in RGBA and BGRA byte order: red and blue are both 255.
    if !matches!(
        format,
        TextureFormat::Rgba8Unorm
            | TextureFormat::Rgba8UnormSrgb
            | TextureFormat::Bgra8Unorm
            | TextureFormat::Bgra8UnormSrgb
    ) {
        return Err(format!("cannot color-key {format:?} pixels"));
    }
    let Some(data) = image.data.as_mut() else {
        return Err("pixels are not kept on the CPU, so they cannot be color-keyed".into());
    };
    let mut keyed = 0;
    for pixel in data.chunks_exact_mut(4) {
        if pixel[..3] == COLOR_KEY {
            pixel.fill(0);
            keyed += 1;
        }
    }
    Ok(keyed)
}
