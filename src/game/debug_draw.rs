//! Debug hitboxes: the plugin's own drawing ([`PixelCollisionDebugPlugin`]) for every
//! [`crate::plugin::PixelCollider`], plus the boxes and outlines of sprites that scenes
//! still collide by hand (the game's [`PixelCollider`] marker).

use bevy::camera::visibility::VisibilitySystems;
use bevy::prelude::*;

use super::masks::{PixelCollider, SpriteMasks};
use super::sprites_scene::transform_to_world;
use crate::collision::world_bounds;
use crate::plugin::debug::{
    AABB_COLOUR, OBB_COLOUR, OUTLINE_COLOUR, draw_oriented_box, draw_outline,
};
use crate::plugin::{PixelCollisionDebugPlugin, PixelDebugGizmos, PixelDebugSettings};

pub(super) fn plugin(app: &mut App) {
    app.add_plugins(PixelCollisionDebugPlugin).add_systems(
        PostUpdate,
        draw_hand_colliders
            .after(TransformSystems::Propagate)
            .after(VisibilitySystems::MarkNewlyHiddenEntitiesInvisible),
    );
}

fn draw_hand_colliders(
    settings: Res<PixelDebugSettings>,
    masks: Res<SpriteMasks>,
    colliders: Query<(&Sprite, &Transform, &ViewVisibility), With<PixelCollider>>,
    mut gizmos: Gizmos<PixelDebugGizmos>,
) {
    for (sprite, transform, visible) in &colliders {
        if !visible.get() {
            continue;
        }
        let Some(mask) = masks.get(sprite.image.id()) else {
            continue;
        };
        let to_world = transform_to_world(transform, mask.size());
        if settings.aabb {
            let (min, max) = world_bounds(mask.size(), to_world);
            gizmos.rect_2d((min + max) / 2.0, max - min, AABB_COLOUR);
        }
        if settings.oriented_box {
            draw_oriented_box(&mut gizmos, mask.size(), to_world, OBB_COLOUR);
        }
        if settings.outline {
            draw_outline(&mut gizmos, mask, to_world, OUTLINE_COLOUR);
        }
    }
}
