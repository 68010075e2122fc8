//! [`PixelCollisionDebugPlugin`]: every collider's box, oriented box and mask outline,
//! and each contact's point and normal, drawn with gizmos. What is drawn is the
//! [`PixelDebugSettings`] resource, which a game's overlay may edit.

use bevy::camera::visibility::VisibilitySystems;
use bevy::math::Affine2;
use bevy::prelude::*;

use super::PixelCollisionSystems;
use super::collider::{PixelColliderMask, PixelCollidingEntities};
use super::query::PixelCollisions;
use pixel_collide::BitMask;

/// What the debug drawing shows.
#[derive(Resource, Debug, Clone, Copy, PartialEq, Eq, Reflect)]
#[non_exhaustive]
pub struct PixelDebugSettings {
    /// World boxes (the broad phase's), red while the collider touches another.
    pub aabb: bool,
    /// The mask's rectangle as it lies in the world.
    pub oriented_box: bool,
    /// The mask's edge pixels.
    pub outline: bool,
    /// Contact points and normals of touching pairs (computes each contact).
    pub contacts: bool,
}

impl Default for PixelDebugSettings {
    fn default() -> Self {
        PixelDebugSettings {
            aabb: true,
            oriented_box: false,
            outline: false,
            contacts: true,
        }
    }
}

/// Put it on a collider the debug drawing should leave out, with its contacts: a crowd
/// of thousands whose boxes would bury the sprites.
#[derive(Component, Debug, Clone, Copy, Default)]
pub struct HiddenFromPixelDebug;

/// The gizmo group of the debug shapes and their colors, as avian's `PhysicsGizmos`: switch
/// or style them all at once with `GizmoConfigStore`, where
/// `store.config_mut::<PixelDebugGizmos>().1` is this.
#[derive(Debug, Clone, Copy, PartialEq, Reflect, GizmoConfigGroup)]
pub struct PixelDebugGizmos {
    /// A collider's world box.
    pub aabb_color: Color,
    /// The box of a collider that touches another.
    pub touching_color: Color,
    /// A collider's oriented box.
    pub oriented_box_color: Color,
    /// The outline of a collider's solid pixels.
    pub outline_color: Color,
    /// Contact points and normals.
    pub contact_color: Color,
}

impl Default for PixelDebugGizmos {
    fn default() -> Self {
        PixelDebugGizmos {
            aabb_color: Color::srgb(0.2, 0.9, 0.3),
            touching_color: Color::srgb(1.0, 0.25, 0.2),
            oriented_box_color: Color::srgb(0.3, 0.6, 1.0),
            outline_color: Color::srgb(1.0, 0.9, 0.2),
            contact_color: Color::srgb(1.0, 1.0, 1.0),
        }
    }
}

/// Draws the plugin's view of every collider. Add it after
/// [`PixelCollisionPlugin`](super::PixelCollisionPlugin).
#[derive(Default)]
pub struct PixelCollisionDebugPlugin;

impl Plugin for PixelCollisionDebugPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<PixelDebugSettings>()
            .init_gizmo_group::<PixelDebugGizmos>()
            .add_systems(
                PostUpdate,
                draw_colliders
                    .after(PixelCollisionSystems::Events)
                    .after(TransformSystems::Propagate)
                    // `ViewVisibility` is reset and worked out again each frame in these.
                    .after(VisibilitySystems::MarkNewlyHiddenEntitiesInvisible),
            );
    }
}

/// A mask's rectangle as it lies in the world.
pub fn draw_oriented_box(
    gizmos: &mut Gizmos<PixelDebugGizmos>,
    mask_size: (u32, u32),
    to_world: Affine2,
    color: Color,
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
    gizmos.linestrip_2d(corners, color);
}

/// A mask's edge pixels as they lie in the world, a short diagonal stroke each.
pub fn draw_outline(
    gizmos: &mut Gizmos<PixelDebugGizmos>,
    mask: &BitMask,
    to_world: Affine2,
    color: Color,
) {
    for (x, y) in mask.outline() {
        let p = to_world.transform_point2(Vec2::new(x as f32 + 0.5, y as f32 + 0.5));
        gizmos.line_2d(p - Vec2::splat(0.5), p + Vec2::splat(0.5), color);
    }
}

fn draw_colliders(
    settings: Res<PixelDebugSettings>,
    collisions: PixelCollisions,
    colliders: Query<
        (
            &PixelColliderMask,
            &PixelCollidingEntities,
            Option<&ViewVisibility>,
        ),
        Without<HiddenFromPixelDebug>,
    >,
    hidden: Query<(), With<HiddenFromPixelDebug>>,
    mut gizmos: Gizmos<PixelDebugGizmos>,
) {
    let colors = *gizmos.config_ext;
    for (collider, colliding, visible) in &colliders {
        if visible.is_some_and(|v| !v.get()) {
            continue;
        }
        let Some((mask, to_world)) = collider.placed() else {
            continue;
        };
        if settings.aabb
            && let Some(aabb) = collider.aabb
        {
            let color = if colliding.is_empty() {
                colors.aabb_color
            } else {
                colors.touching_color
            };
            gizmos.rect_2d((aabb.min + aabb.max) / 2.0, aabb.max - aabb.min, color);
        }
        if settings.oriented_box {
            draw_oriented_box(
                &mut gizmos,
                mask.size(),
                to_world,
                colors.oriented_box_color,
            );
        }
        if settings.outline {
            draw_outline(&mut gizmos, mask, to_world, colors.outline_color);
        }
    }
    if settings.contacts {
        let shown = |e: Entity| !hidden.contains(e);
        // Only the contacts drawn are computed.
        let pairs = collisions
            .touching_pairs()
            .filter(|&(a, b)| shown(a) && shown(b));
        for contact in pairs.filter_map(|(a, b)| collisions.contact(a, b)) {
            gizmos.circle_2d(contact.point, 6.0, colors.contact_color);
            gizmos.arrow_2d(
                contact.point,
                contact.point + contact.normal * (30.0 + contact.depth.min(200.0)),
                colors.contact_color,
            );
        }
    }
}
