//! Debug hitboxes: the plugin's own drawing ([`PixelCollisionDebugPlugin`]) for every
//! collider, switched by the overlay.

use bevy::prelude::*;

use bevy_pixel_collide::debug::PixelCollisionDebugPlugin;

pub(super) fn plugin(app: &mut App) {
    app.add_plugins(PixelCollisionDebugPlugin);
}
