//! [`PixelPickingPlugin`]: a `bevy_picking` backend that picks a sprite with a
//! [`PixelCollider`] where its mask is solid, exactly where it collides, in place of (or
//! beside) Bevy's sprite backend, which reads the texture's alpha: that fails on compressed
//! textures and has one threshold for every sprite, where each collider keeps its own
//! threshold, color key and layers. It sends [`PointerHits`] with each hit's depth from
//! the camera, as Bevy's sprite backend does, so Bevy's ordering, [`Pickable`] and the
//! pointer events work as usual.

use bevy::camera::visibility::{RenderLayers, ViewVisibility};
use bevy::camera::{Camera, Projection, RenderTarget};
use bevy::picking::PickingSystems;
use bevy::picking::backend::prelude::*;
use bevy::picking::pointer::Location;
use bevy::prelude::*;
use bevy::window::PrimaryWindow;

use crate::collider::{PixelCollider, PixelColliderMask, PixelCollisionLayers, solid_at};

/// Which sprites and cameras [`PixelPickingPlugin`] picks with.
#[derive(Resource, Debug, Clone, Copy, PartialEq, Eq, Reflect)]
pub struct PixelPickingSettings {
    /// Only cameras with [`PixelPickingCamera`] pick.
    pub require_markers: bool,
    /// Colliders in any of these layers (by their memberships) are picked; one without
    /// [`PixelCollisionLayers`] is in every layer.
    pub layers: u32,
}

impl Default for PixelPickingSettings {
    fn default() -> Self {
        PixelPickingSettings {
            require_markers: false,
            layers: u32::MAX,
        }
    }
}

/// A camera that picks when [`PixelPickingSettings::require_markers`] is on.
#[derive(Component, Debug, Clone, Copy, Default, Reflect)]
pub struct PixelPickingCamera;

/// Picks sprites with a [`PixelCollider`] where their mask is solid. Add it beside Bevy's
/// picking plugins (`DefaultPickingPlugins`, in `DefaultPlugins` with Bevy's
/// `bevy_picking` feature); leave Bevy's `SpritePickingPlugin` out, or its hits on the
/// texture's alpha come too.
pub struct PixelPickingPlugin;

impl Plugin for PixelPickingPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<PixelPickingSettings>()
            .add_systems(PreUpdate, pick_by_mask.in_set(PickingSystems::Backend));
    }
}

#[allow(clippy::type_complexity)]
/// Where the ray from `ray.0` to `ray.1` crosses the plane of the sprite placed by
/// `transform`, if it does there on a pixel `solid` says is solid.
fn on_solid_pixel(
    transform: &GlobalTransform,
    (origin, end): (Vec3, Vec3),
    solid: impl Fn(Vec2) -> bool,
) -> Option<Vec3> {
    if !transform.affine().is_finite() {
        return None;
    }
    let to_sprite = transform.affine().inverse();
    let (from, to) = (
        to_sprite.transform_point3(origin),
        to_sprite.transform_point3(end),
    );
    if from.z == to.z {
        return None;
    }
    let along = (0.0 - from.z) / (to.z - from.z);
    if !(0.0..=1.0).contains(&along) {
        return None;
    }
    let on_sprite = transform.transform_point(from.lerp(to, along).with_z(0.0));
    solid(on_sprite.truncate()).then_some(on_sprite)
}

fn pick_by_mask(
    ray_map: Res<RayMap>,
    pointers: Query<(&PointerId, &PointerLocation)>,
    cameras: Query<(
        Entity,
        &Camera,
        &RenderTarget,
        &GlobalTransform,
        &Projection,
        Has<PixelPickingCamera>,
        Option<&RenderLayers>,
    )>,
    primary_window: Query<Entity, With<PrimaryWindow>>,
    settings: Res<PixelPickingSettings>,
    colliders: Query<
        (
            Entity,
            &PixelColliderMask,
            &GlobalTransform,
            Option<&Pickable>,
            &ViewVisibility,
            Option<&RenderLayers>,
            Option<&PixelCollisionLayers>,
        ),
        With<PixelCollider>,
    >,
    mut hits: MessageWriter<PointerHits>,
) {
    let primary_window = primary_window.single().ok();

    for (ray_id, ray) in ray_map.iter() {
        let Ok((
            camera_entity,
            camera,
            target,
            camera_transform,
            projection,
            marked,
            camera_layers,
        )) = cameras.get(ray_id.camera)
        else {
            continue;
        };
        let Projection::Orthographic(orthographic) = projection else {
            continue;
        };
        if !camera.is_active || (settings.require_markers && !marked) {
            continue;
        }
        let Some(location) = pointers
            .iter()
            .find(|(id, _)| **id == ray_id.pointer)
            .and_then(|(_, location)| location.location.as_ref())
        else {
            continue;
        };
        if !sees(camera, target, primary_window, location) {
            continue;
        }
        let ray_end = ray.origin + ray.direction * (orthographic.far - orthographic.near);
        let world_to_camera = camera_transform.affine().inverse();
        // A ray straight along z crosses every sprite's plane at its own x and y: only
        // colliders whose box holds that point can be hit (the 2D camera's case).
        let straight = ray.direction.x == 0.0 && ray.direction.y == 0.0;
        let mut found = Vec::new();
        for (entity, placed, transform, pickable, visible, render_layers, layers) in &colliders {
            let Some((aabb, (mask, mask_to_world))) = placed.aabb.zip(placed.placed()) else {
                continue;
            };
            let beside = straight
                && (ray.origin.truncate().cmplt(aabb.min).any()
                    || ray.origin.truncate().cmpgt(aabb.max).any());
            if beside
                || !visible.get()
                || settings.layers & layers.copied().unwrap_or_default().memberships == 0
                || !camera_layers
                    .unwrap_or_default()
                    .intersects(render_layers.unwrap_or_default())
            {
                continue;
            }
            let Some(on_sprite) = on_solid_pixel(transform, (ray.origin, ray_end), |p| {
                solid_at(mask, mask_to_world, p)
            }) else {
                continue;
            };
            let depth = -orthographic.near - world_to_camera.transform_point3(on_sprite).z;
            let hit = HitData::new(camera_entity, depth, Some(on_sprite), Some(*Dir3::Z));
            // Without `Pickable`, as with its default: it blocks what is below.
            let blocks = pickable.is_none_or(|p| p.should_block_lower);
            found.push((transform.translation().z, entity, hit, blocks));
        }
        let picks = nearest_down_to_a_blocker(found);
        hits.write(PointerHits::new(ray_id.pointer, picks, camera.order as f32));
    }
}

/// Whether the pointer at `location` is on what `camera` renders to, inside its viewport.
fn sees(
    camera: &Camera,
    target: &RenderTarget,
    primary_window: Option<Entity>,
    location: &Location,
) -> bool {
    let on_target = target
        .normalize(primary_window)
        .is_some_and(|target| target == location.target);
    let in_viewport = camera
        .logical_viewport_rect()
        .is_none_or(|viewport| viewport.contains(location.position));
    on_target && in_viewport
}

/// The hits (z, entity, hit, whether it blocks what is below) nearest the camera first (the
/// highest z), as Bevy's sprite backend orders them, down to the first that blocks.
fn nearest_down_to_a_blocker(
    mut found: Vec<(f32, Entity, HitData, bool)>,
) -> Vec<(Entity, HitData)> {
    found.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let shown = found
        .iter()
        .position(|hit| hit.3)
        .map_or(found.len(), |first| first + 1);
    found
        .into_iter()
        .take(shown)
        .map(|(_, entity, hit, _)| (entity, hit))
        .collect()
}
