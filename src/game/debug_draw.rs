//! Debug hitboxes drawn with gizmos: each collider's world AABB (the broad phase's box),
//! its oriented box, its mask outline, and the contact point with its normal.

use bevy::math::Affine2;
use bevy::prelude::*;

use super::masks::{PixelCollider, SpriteMasks};
use super::sprites_scene::{PairReport, transform_to_world};
use crate::collision::world_bounds;

/// What the overlay's toggles switch on.
#[derive(Resource, Debug, Clone, Copy, PartialEq, Eq)]
pub struct DebugSettings {
    pub aabb: bool,
    pub oriented_box: bool,
    pub outline: bool,
    pub contact: bool,
}

impl Default for DebugSettings {
    fn default() -> Self {
        DebugSettings {
            aabb: true,
            oriented_box: false,
            outline: false,
            contact: true,
        }
    }
}

/// The gizmo group of every debug shape, so they can be styled and switched together.
#[derive(Default, Reflect, GizmoConfigGroup)]
pub struct DebugGizmos;

const AABB_COLOUR: Color = Color::srgb(0.2, 0.9, 0.3);
const HIT_COLOUR: Color = Color::srgb(1.0, 0.25, 0.2);
const OBB_COLOUR: Color = Color::srgb(0.3, 0.6, 1.0);
const OUTLINE_COLOUR: Color = Color::srgb(1.0, 0.9, 0.2);
const CONTACT_COLOUR: Color = Color::srgb(1.0, 1.0, 1.0);

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<DebugSettings>()
        .init_gizmo_group::<DebugGizmos>()
        .add_systems(
            PostUpdate,
            draw_colliders.after(TransformSystems::Propagate),
        );
}

/// A mask's rectangle as it lies in the world: the oriented box.
pub fn draw_oriented_box(
    gizmos: &mut Gizmos<DebugGizmos>,
    mask_size: (u32, u32),
    to_world: Affine2,
    colour: Color,
) {
    let (w, h) = (mask_size.0 as f32, mask_size.1 as f32);
    let corners = [
        Vec2::ZERO,
        Vec2::new(w, 0.0),
        Vec2::new(w, h),
        Vec2::new(0.0, h),
        Vec2::ZERO,
    ]
    .map(|c| to_world.transform_point2(c));
    gizmos.linestrip_2d(corners, colour);
}

fn draw_colliders(
    settings: Res<DebugSettings>,
    masks: Res<SpriteMasks>,
    report: Option<Res<PairReport>>,
    colliders: Query<(&Sprite, &Transform, &ViewVisibility), With<PixelCollider>>,
    mut gizmos: Gizmos<DebugGizmos>,
) {
    let touching = report.as_ref().is_some_and(|r| r.boxes);
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
            let colour = if touching { HIT_COLOUR } else { AABB_COLOUR };
            gizmos.rect_2d((min + max) / 2.0, max - min, colour);
        }
        if settings.oriented_box {
            draw_oriented_box(&mut gizmos, mask.size(), to_world, OBB_COLOUR);
        }
        if settings.outline {
            for (x, y) in mask.outline() {
                let p = to_world.transform_point2(Vec2::new(x as f32 + 0.5, y as f32 + 0.5));
                gizmos.line_2d(p - Vec2::splat(0.5), p + Vec2::splat(0.5), OUTLINE_COLOUR);
            }
        }
    }
    if settings.contact
        && let Some(contact) = report.and_then(|r| r.contact)
    {
        gizmos.circle_2d(contact.point, 6.0, CONTACT_COLOUR);
        gizmos.arrow_2d(
            contact.point,
            contact.point + contact.normal * (30.0 + contact.depth),
            CONTACT_COLOUR,
        );
    }
}
