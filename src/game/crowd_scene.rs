//! Scene "Crowd": not built yet; the scene is an empty screen.

use bevy::prelude::*;

pub(super) fn plugin(_app: &mut App) {}

/// The scene's overlay window (egui): added only with a window, never in headless tests.
pub(super) fn overlay_plugin(_app: &mut App) {}
