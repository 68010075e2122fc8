//! The game's logic in an app without a window or GPU: what the headless tests drive, with
//! a fixed frame time and faked input.

use std::time::Duration;

use bevy::asset::AssetPlugin;
use bevy::image::{CompressedImageFormats, ImageLoader, ImagePlugin};
use bevy::prelude::*;
use bevy::state::app::StatesPlugin;
use bevy::time::TimeUpdateStrategy;

use super::{GameScene, LogicPlugin};
use bevy_pixel_collide::PixelColliderMask;

/// The project's `assets/` folder, wherever the tests run from.
pub const ASSET_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/assets");

/// An app with [`LogicPlugin`] on `scene`, loading images from `asset_dir`, advancing time
/// by `frame_time` on every `update()`.
pub fn headless_app(scene: GameScene, asset_dir: &str, frame_time: Duration) -> App {
    headless_app_with(scene, asset_dir, frame_time, |_| {})
}

/// [`headless_app`] with what `more` adds before the app is finished (plugins cannot be
/// added after): picking, say.
pub fn headless_app_with(
    scene: GameScene,
    asset_dir: &str,
    frame_time: Duration,
    more: impl FnOnce(&mut App),
) -> App {
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
    more(&mut app);
    // What `App::run` does before the first frame.
    app.finish();
    app.cleanup();
    app
}

/// How long a test waits for something loading: a fraction of a second here. The bound
/// is on wall time, not frames, so a slow machine gets as long as a fast one, and it only
/// turns a hang into a failure that says what it waited for.
pub const LOAD_TIMEOUT: Duration = Duration::from_secs(60);

/// Runs frames until `ready` holds. Panics after [`LOAD_TIMEOUT`], naming `what` it
/// waited for and the colliders whose masks are still missing, with their images' load
/// states.
pub fn run_until(app: &mut App, what: &str, mut ready: impl FnMut(&mut App) -> bool) {
    let started = std::time::Instant::now();
    loop {
        app.update();
        if ready(app) {
            return;
        }
        if started.elapsed() > LOAD_TIMEOUT {
            panic!(
                "{what}: not after {LOAD_TIMEOUT:?}; colliders without masks: {:?}",
                unmasked(app.world_mut())
            );
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// Colliders without a mask, each with its image's path and load state.
fn unmasked(world: &mut World) -> Vec<String> {
    let server = world.resource::<AssetServer>().clone();
    world
        .query_filtered::<(Entity, &Sprite, &PixelColliderMask), With<bevy_pixel_collide::PixelCollider>>()
        .iter(world)
        .filter(|(_, _, c)| c.mask.is_none())
        .map(|(entity, sprite, _)| {
            let id = sprite.image.id();
            format!("{entity}: {:?} {:?}", server.get_path(id), server.get_load_state(id))
        })
        .collect()
}

/// Runs frames until every collider has a mask (loading is asynchronous); see
/// [`run_until`].
pub fn wait_for_masks(app: &mut App) {
    run_until(app, "every collider's mask", |app| {
        let world = app.world_mut();
        let masked: Vec<bool> = world
            .query_filtered::<&PixelColliderMask, With<bevy_pixel_collide::PixelCollider>>()
            .iter(world)
            .map(|c| c.mask.is_some())
            .collect();
        !masked.is_empty() && masked.iter().all(|&m| m)
    });
}
