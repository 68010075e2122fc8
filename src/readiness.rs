//! `scene ready: NAME`, logged once each time a scene is entered, as soon as every image
//! its sprites asked for has loaded (or failed, which the asset server logs as an error):
//! the first frame that shows the scene as it is meant to look. The browser test waits
//! for this line, and on the web it takes the page's loading message away.

use bevy::asset::LoadState;
use bevy::prelude::*;

use super::GameScene;

/// When the scene on screen was reported ready since it was entered, in seconds of game
/// time since the start: `--seconds` counts from there, so the time a busy machine takes
/// to load does not eat into the play it asks for.
#[derive(Resource, Debug, Default)]
pub(crate) struct SceneReady(pub(crate) Option<f32>);

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<SceneReady>()
        .add_systems(Last, report_ready);
}

fn report_ready(
    scene: Res<State<GameScene>>,
    mut ready: ResMut<SceneReady>,
    time: Res<Time<Virtual>>,
    asset_server: Res<AssetServer>,
    sprites: Query<&Sprite>,
) {
    if scene.is_changed() {
        ready.0 = None;
    }
    if ready.0.is_some() {
        return;
    }
    let mut from_files = 0;
    for sprite in &sprites {
        let id = sprite.image.id();
        // Images made in code (the crowd's, the terrain's) are there from the start.
        if asset_server.get_path(id).is_none() {
            continue;
        }
        match asset_server.get_load_state(id) {
            Some(LoadState::Loaded | LoadState::Failed(_)) => from_files += 1,
            _ => return,
        }
    }
    ready.0 = Some(time.elapsed_secs());
    info!(
        "scene ready: {}; {} sprites, {from_files} of them from image files",
        scene.get().name(),
        sprites.iter().len()
    );
    #[cfg(target_arch = "wasm32")]
    super::web::hide_status();
}
