//! `--frames N`, `--seconds S` and `--screenshot PATH`: quit after N frames or S seconds
//! of game time from when the scene is ready, whichever comes first, saving the window
//! first;
//! `--abuse-window`: resize the window to a pixel, to huge, minimise it and bring it back
//! on the way. The smoke test runs every scene this way.

use bevy::diagnostic::{FrameCount, update_frame_count};
use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, save_to_disk};
use bevy::window::PrimaryWindow;

use super::cli::GameOptions;
use super::readiness::SceneReady;
use super::{GameScene, SceneActivity};

/// Frames to wait for the screenshot file before giving up with an error.
const SCREENSHOT_TIMEOUT_FRAMES: u32 = 600;

/// Frames are Bevy's [`FrameCount`].
#[derive(Resource, Debug, Default)]
struct RunState {
    /// The frame in which `--frames` or `--seconds` was reached.
    ended_at: Option<u32>,
    /// The frame the screenshot was asked for in.
    screenshot_requested_at: Option<u32>,
}

/// Frame by frame, what `--abuse-window` does to the window: `(frame, size)`, where a
/// zero size minimises it and the last entry restores it.
/// The huge size is held for a few frames only: software rendering draws it slowly.
const ABUSE: [(u32, Option<(u32, u32)>); 6] = [
    (10, Some((1, 1))),
    (20, Some((7_000, 5_000))),
    (23, Some((1_280, 1))),
    (30, None),
    (40, Some((1_280, 720))),
    (41, Some((1_280, 720))),
];

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<RunState>()
        // After Bevy counts this frame: in the first frame the count is 1.
        .add_systems(
            Last,
            (abuse_window, quit_at_the_end)
                .chain()
                .after(update_frame_count),
        );
}

fn abuse_window(
    options: Res<GameOptions>,
    frame: Res<FrameCount>,
    mut window: Single<&mut Window, With<PrimaryWindow>>,
) {
    if !options.abuse_window {
        return;
    }
    let Some(&(_, size)) = ABUSE.iter().find(|(at, _)| *at == frame.0) else {
        return;
    };
    match size {
        Some((w, h)) => {
            info!("window abuse: resizing to {w}×{h}");
            window.set_minimized(false);
            window.resolution.set_physical_resolution(w, h);
        }
        None => {
            info!("window abuse: minimising");
            window.set_minimized(true);
        }
    }
}

fn quit_at_the_end(
    mut commands: Commands,
    options: Res<GameOptions>,
    recording: Res<super::recorder::Recording>,
    (frame, time, ready): (Res<FrameCount>, Res<Time<Virtual>>, Res<SceneReady>),
    (scene, activity): (Res<State<GameScene>>, Res<SceneActivity>),
    mut state: ResMut<RunState>,
    mut exit: MessageWriter<AppExit>,
) {
    let frame = frame.0;
    let ended_at = match state.ended_at {
        Some(at) => at,
        None => {
            let frames_done = options.frames.is_some_and(|frames| frame >= frames);
            let seconds_done = options.seconds.is_some_and(|seconds| {
                ready
                    .0
                    .is_some_and(|at| time.elapsed_secs() - at >= seconds)
            });
            // A recording still waiting for its last frames keeps the game running.
            if !(frames_done || seconds_done) || (options.record.is_some() && !recording.finished) {
                return;
            }
            // Once, for the smoke test: which scene is on screen and what it did.
            info!(
                "scene on screen: {}; contacts in {} of {} frames; {} scene events",
                scene.get().name(),
                activity.contact_frames,
                activity.frames,
                activity.events
            );
            state.ended_at = Some(frame);
            frame
        }
    };
    let Some(path) = &options.screenshot else {
        info!("ran {ended_at} frames; quitting");
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
            state.screenshot_requested_at = Some(frame);
        }
        Some(asked) => {
            if path.exists() {
                info!("ran {ended_at} frames; screenshot in {}", path.display());
                exit.write(AppExit::Success);
            } else if frame.wrapping_sub(asked) > SCREENSHOT_TIMEOUT_FRAMES {
                error!("screenshot {} was not written", path.display());
                exit.write(AppExit::error());
            }
        }
    }
}
