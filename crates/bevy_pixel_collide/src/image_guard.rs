//! A PNG loader that reads the size a file declares before anything is decoded, and
//! refuses one over the limit: Bevy's own image loader decodes with no limits, so a 1.6 KB
//! file declaring 100,000 × 100,000 pixels would ask for 40 GB and abort the game. Within
//! the limit it hands the bytes to Bevy's loader unchanged (same settings, same result).
//!
//! [`PixelPngGuardPlugin`] registers it; [`crate::PixelCollisionPlugins`] includes it.

use bevy::asset::io::{Reader, VecReader};
use bevy::asset::{AssetLoader, LoadContext};
use bevy::image::{CompressedImageFormats, ImageLoader, ImageLoaderSettings};
use bevy::prelude::*;

use crate::DEFAULT_MAX_PIXELS;

/// Loads `.png` files through [`BoundedPngLoader`], which refuses a file declaring more
/// than [`max_pixels`](Self::max_pixels) (a failed load: reported, shown and collided as
/// the placeholder). Part of [`crate::PixelCollisionPlugins`].
///
/// Registering it makes Bevy log, once at start, that a second loader for `png` was
/// registered: Bevy warns about any such pair, and the guard is the later one on purpose.
/// A game with a PNG loader of its own leaves it out
/// (`PixelCollisionPlugins::default().build().disable::<PixelPngGuardPlugin>()`): then
/// `.png` files load through whichever loader was registered last, with no size check
/// before decoding, and only the colliders' frame limit ([`crate::PixelMasks::max_pixels`])
/// still applies.
#[derive(Debug, Clone, Copy)]
pub struct PixelPngGuardPlugin {
    /// The most pixels a `.png` file may declare.
    pub max_pixels: u64,
}

impl Default for PixelPngGuardPlugin {
    fn default() -> Self {
        PixelPngGuardPlugin {
            max_pixels: DEFAULT_MAX_PIXELS,
        }
    }
}

impl Plugin for PixelPngGuardPlugin {
    fn build(&self, _app: &mut App) {}

    fn cleanup(&self, app: &mut App) {
        // After every plugin's `finish`, where Bevy's renderer registers its own image
        // loader: the last loader registered for an extension is the one used.
        if app.world().contains_resource::<AssetServer>() {
            app.register_asset_loader(BoundedPngLoader::new(self.max_pixels));
        } else {
            warn!("PixelPngGuardPlugin needs AssetPlugin: no PNG loader was registered");
        }
    }
}

/// Loads `.png` images, refusing any whose header declares more than `max_pixels`.
#[derive(TypePath)]
pub struct BoundedPngLoader {
    inner: ImageLoader,
    max_pixels: u64,
}

impl BoundedPngLoader {
    /// A PNG loader that refuses files declaring more than `max_pixels`.
    pub fn new(max_pixels: u64) -> Self {
        BoundedPngLoader {
            inner: ImageLoader::new(CompressedImageFormats::NONE),
            max_pixels,
        }
    }
}

/// Why a PNG was not loaded.
#[derive(Debug)]
#[non_exhaustive]
pub enum BoundedPngError {
    /// The header declares more pixels than the limit.
    TooLarge {
        /// Width the file declares.
        width: u32,
        /// Height the file declares.
        height: u32,
        /// The most pixels allowed.
        limit: u64,
    },
    /// Reading the bytes or Bevy's decoding failed.
    Load(bevy::image::ImageLoaderError),
    /// The file could not be read.
    Io(std::io::Error),
}

impl std::fmt::Display for BoundedPngError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BoundedPngError::TooLarge {
                width,
                height,
                limit,
            } => write!(
                f,
                "the file declares {width}×{height} pixels, over the limit of {limit}"
            ),
            BoundedPngError::Load(err) => write!(f, "{err}"),
            BoundedPngError::Io(err) => write!(f, "could not read the file: {err}"),
        }
    }
}

impl std::error::Error for BoundedPngError {}

/// Re-exported here, beside the loader that uses it.
pub use pixel_collide::png_declared_size;

impl AssetLoader for BoundedPngLoader {
    type Asset = Image;
    type Settings = ImageLoaderSettings;
    type Error = BoundedPngError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        settings: &ImageLoaderSettings,
        load_context: &mut LoadContext<'_>,
    ) -> Result<Image, BoundedPngError> {
        let mut bytes = Vec::new();
        reader
            .read_to_end(&mut bytes)
            .await
            .map_err(BoundedPngError::Io)?;
        if let Some((width, height)) = png_declared_size(&bytes)
            && u64::from(width) * u64::from(height) > self.max_pixels
        {
            return Err(BoundedPngError::TooLarge {
                width,
                height,
                limit: self.max_pixels,
            });
        }
        let mut bytes = VecReader::new(bytes);
        self.inner
            .load(&mut bytes, settings, load_context)
            .await
            .map_err(BoundedPngError::Load)
    }

    fn extensions(&self) -> &[&str] {
        &["png"]
    }
}
