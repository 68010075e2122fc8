//! The game's logic in an app without a window or GPU: what the headless tests drive, with
//! a fixed frame time and faked input.

use std::time::Duration;

use bevy::asset::AssetPlugin;
use bevy::image::{CompressedImageFormats, ImageLoader, ImagePlugin};
use bevy::prelude::*;
use bevy::state::app::StatesPlugin;
use bevy::time::TimeUpdateStrategy;

use super::{GameScene, LogicPlugin};
use bevy_pixel_collide::ColliderMask;

/// The project's `assets/` folder, wherever the tests run from.
pub const ASSET_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/assets");

/// An app with [`LogicPlugin`] on `scene`, loading images from `asset_dir`, advancing time
/// by `frame_time` on every `update()`.
pub fn headless_app(scene: GameScene, asset_dir: &str, frame_time: Duration) -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin {
            file_path: asset_dir.to_string(),
            ..default()
        },
        ImagePlugin::default(),
        StatesPlugin,
        // Collision reads `GlobalTransform`s, which only this keeps up to date.
        TransformPlugin,
    ))
    // With a window the renderer registers the PNG loader; without one, we do.
    .register_asset_loader(ImageLoader::new(CompressedImageFormats::NONE))
    .insert_resource(TimeUpdateStrategy::ManualDuration(frame_time))
    .add_plugins(LogicPlugin { scene });
    // What `App::run` does before the first frame.
    app.finish();
    app.cleanup();
    app
}

/// Runs frames until every collider has a mask (loading is asynchronous).
/// False when they have not after a few seconds.
pub fn wait_for_masks(app: &mut App) -> bool {
    for _ in 0..500 {
        app.update();
        let world = app.world_mut();
        let masked: Vec<bool> = world
            .query_filtered::<&ColliderMask, With<bevy_pixel_collide::PixelCollider>>()
            .iter(world)
            .map(|c| c.mask.is_some())
            .collect();
        if !masked.is_empty() && masked.iter().all(|&m| m) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    false
}
