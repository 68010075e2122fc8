//! `scene ready: NAME`, logged once each time a scene is entered, as soon as every image
//! its sprites asked for has loaded (or failed, which the asset server logs as an error):
//! the first frame that shows the scene as it is meant to look. The browser test waits
//! for this line, and on the web it takes the page's loading message away.

use bevy::asset::LoadState;
use bevy::prelude::*;

use super::GameScene;

/// Whether the scene on screen has been reported ready since it was entered.
#[derive(Resource, Debug, Default)]
struct Reported(bool);

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<Reported>()
        .add_systems(Last, report_ready);
}

fn report_ready(
    scene: Res<State<GameScene>>,
    mut reported: ResMut<Reported>,
    asset_server: Res<AssetServer>,
    sprites: Query<&Sprite>,
) {
    if scene.is_changed() {
        reported.0 = false;
    }
    if reported.0 {
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
    reported.0 = true;
    info!(
        "scene ready: {}; {} sprites, {from_files} of them from image files",
        scene.get().name(),
        sprites.iter().len()
    );
    #[cfg(target_arch = "wasm32")]
    super::web::hide_status();
}
