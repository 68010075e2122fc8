//! Scene "Hitboxes": not built yet; the scene is an empty screen.

use bevy::prelude::*;

pub(super) fn plugin(_app: &mut App) {}
