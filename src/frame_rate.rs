//! `--log-fps` (`?log-fps` on the web): the frame rate in the log every few seconds, read
//! from Bevy's frame-time diagnostics, so that native and web builds are measured alike.

use bevy::diagnostic::{DiagnosticsStore, FrameTimeDiagnosticsPlugin};
use bevy::prelude::*;
use bevy::time::common_conditions::on_real_timer;
use std::time::Duration;

use super::GameScene;
use super::cli::GameOptions;

/// How often; each line is the diagnostic's average over its last frames (120 by default).
const EVERY: Duration = Duration::from_secs(5);

pub(super) fn plugin(app: &mut App) {
    app.add_systems(
        Last,
        log_frame_rate
            .run_if(|options: Res<GameOptions>| options.log_fps)
            .run_if(on_real_timer(EVERY)),
    );
}

fn log_frame_rate(scene: Res<State<GameScene>>, diagnostics: Res<DiagnosticsStore>) {
    let Some(fps) = diagnostics
        .get(&FrameTimeDiagnosticsPlugin::FPS)
        .and_then(|fps| fps.average())
    else {
        return;
    };
    info!("frame rate: {} {fps:.1} fps", scene.get().name());
}
