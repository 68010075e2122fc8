//! `--frames N` and `--screenshot PATH`: quit after N frames, saving the window first.
//! The smoke test runs every scene this way.

use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, save_to_disk};

use super::cli::GameOptions;

/// Frames to wait for the screenshot file before giving up with an error.
const SCREENSHOT_TIMEOUT_FRAMES: u32 = 600;

#[derive(Resource, Debug, Default)]
struct RunState {
    frame: u32,
    screenshot_requested_at: Option<u32>,
}

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<RunState>()
        .add_systems(Last, count_frames);
}

fn count_frames(
    mut commands: Commands,
    options: Res<GameOptions>,
    mut state: ResMut<RunState>,
    mut exit: MessageWriter<AppExit>,
) {
    state.frame += 1;
    let Some(frames) = options.frames else { return };
    if state.frame < frames {
        return;
    }
    let Some(path) = &options.screenshot else {
        info!("ran {frames} frames; quitting");
        exit.write(AppExit::Success);
        return;
    };
    match state.screenshot_requested_at {
        None => {
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty())
                && let Err(err) = std::fs::create_dir_all(dir)
            {
                error!("cannot create {}: {err}", dir.display());
                exit.write(AppExit::error());
                return;
            }
            // A stale file from an earlier run must not pass for this one.
            let _ = std::fs::remove_file(path);
            commands
                .spawn(Screenshot::primary_window())
                .observe(save_to_disk(path.clone()));
            state.screenshot_requested_at = Some(state.frame);
        }
        Some(asked) => {
            if path.exists() {
                info!("ran {frames} frames; screenshot in {}", path.display());
                exit.write(AppExit::Success);
            } else if state.frame - asked > SCREENSHOT_TIMEOUT_FRAMES {
                error!("screenshot {} was not written", path.display());
                exit.write(AppExit::error());
            }
        }
    }
}
