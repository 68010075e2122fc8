//! [`PixelCharacterController`]: a sprite the game moves by a desired translation, which
//! slides along the solid pixels of every collider it meets, climbs slopes and steps up
//! ledges, and keeps to the ground, as bevy_rapier's `KinematicCharacterController` does
//! with shapes. The moves themselves are the core's [`move_character`]; this plugin runs
//! them against [`PixelCollisions`].

use std::sync::Arc;

use bevy::math::Affine2;
use bevy::prelude::*;

use crate::collider::PixelColliderMask;
use crate::geometry::flatten;
use crate::query::{PixelCollisions, PixelQueryFilter, PixelQueryShape};
use pixel_collide::character::{
    CharacterHit, CharacterMove, CharacterSettings, CharacterWorld, move_character,
};
use pixel_collide::{BitMask, MaskMotion, sprite_to_world};

/// Moves its entity's [`Transform`] by [`translation`](Self::translation) each fixed step,
/// through the solid pixels of every [`PixelCollider`](crate::PixelCollider) its filter accepts (never its own),
/// as they were at the last collision pass. Set `translation` in `FixedUpdate`; the move
/// is made in `FixedPostUpdate` ([`PixelCharacterSystems`]) and reported in
/// [`PixelCharacterOutput`]. The entity is taken to have no parent: its `Transform` is its
/// place in the world.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_pixel_collide::prelude::*;
///
/// /// Walks with the arrow keys, falls when off the ground.
/// fn walk(
///     keys: Res<ButtonInput<KeyCode>>,
///     time: Res<Time>,
///     mut players: Query<(&mut PixelCharacterController, &PixelCharacterOutput)>,
/// ) {
///     for (mut controller, last) in &mut players {
///         let walk = keys.pressed(KeyCode::ArrowRight) as i32 - keys.pressed(KeyCode::ArrowLeft) as i32;
///         let fall = if last.grounded { -1.0 } else { -300.0 * time.delta_secs() };
///         controller.translation = Some(Vec2::new(walk as f32 * 120.0 * time.delta_secs(), fall));
///     }
/// }
/// # bevy::ecs::system::assert_is_system(walk);
/// ```
#[derive(Component, Debug, Clone, Default)]
#[require(PixelCharacterOutput, Transform)]
pub struct PixelCharacterController {
    /// The move asked for the next step, world px; taken when made.
    pub translation: Option<Vec2>,
    /// Slopes, steps, snapping and the skin (see [`CharacterSettings`]).
    pub settings: CharacterSettings,
    /// Which colliders it moves through (its own entity never).
    pub filter: PixelQueryFilter,
    /// The pixels that collide. `None`: its own collider's mask, as its sprite shows it
    /// now. A mask here (such as the union of a walk cycle's frames, so that a change of
    /// frame never pushes it into a wall) is drawn one pixel a world px before the
    /// entity's scale, centered on its translation.
    pub body: Option<Arc<BitMask>>,
}

/// What the last move of a [`PixelCharacterController`] did.
#[derive(Component, Debug, Clone, PartialEq)]
pub struct PixelCharacterOutput {
    /// Whether it ended on the ground.
    pub grounded: bool,
    /// The ground's unit normal under it; `None` when not grounded, at a ledge's edge, or
    /// when its settings do not ask (see [`CharacterMove::ground_normal`]).
    pub ground_normal: Option<Vec2>,
    /// The move asked for.
    pub desired_translation: Vec2,
    /// The move made.
    pub effective_translation: Vec2,
    /// What it touched on the way, in order.
    pub collisions: Vec<PixelCharacterCollision>,
    /// Whether it started inside a collider (then it was lifted out, if it could be).
    pub started_inside: bool,
}

impl Default for PixelCharacterOutput {
    fn default() -> Self {
        PixelCharacterOutput {
            grounded: false,
            ground_normal: None,
            desired_translation: Vec2::ZERO,
            effective_translation: Vec2::ZERO,
            collisions: Vec::new(),
            started_inside: false,
        }
    }
}

/// One collider a character touched during a move.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PixelCharacterCollision {
    /// The collider touched.
    pub entity: Entity,
    /// World point where they touched.
    pub point: Vec2,
    /// The collider's outward unit normal there.
    pub normal: Vec2,
}

/// Where characters move: in `FixedPostUpdate`, after the game's `FixedUpdate`.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PixelCharacterSystems;

/// Adds [`PixelCharacterController`]'s system (part of `PixelCollisionPlugin`).
pub struct PixelCharacterPlugin;

impl Plugin for PixelCharacterPlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(
            FixedPostUpdate,
            move_characters.in_set(PixelCharacterSystems),
        );
    }
}

impl PixelCollisions<'_, '_> {
    /// The core's [`move_character`] through the colliders `filter` accepts, as the last
    /// pass left them: for a game that places its character itself, such as one that
    /// draws between fixed steps ([`PixelCharacterController`] does it for a
    /// `Transform`). Add the returned translation to the body's place.
    pub fn move_character(
        &self,
        body: &BitMask,
        pose: Affine2,
        desired: Vec2,
        grounded: bool,
        settings: &CharacterSettings,
        filter: &PixelQueryFilter,
    ) -> CharacterMove<Entity> {
        let mut world = CollidersAround {
            collisions: self,
            filter,
        };
        move_character(&mut world, body, pose, desired, grounded, settings)
    }
}

/// The colliders a character moves through, as the core's controller asks of them.
struct CollidersAround<'a, 'w, 's> {
    collisions: &'a PixelCollisions<'w, 's>,
    filter: &'a PixelQueryFilter,
}

impl CharacterWorld for CollidersAround<'_, '_, '_> {
    type Id = Entity;

    fn cast(
        &mut self,
        body: &BitMask,
        pose: Affine2,
        translation: Vec2,
    ) -> Option<CharacterHit<Entity>> {
        let motion = MaskMotion::translation(translation);
        let hit = self.collisions.cast_mask(body, pose, motion, self.filter)?;
        Some(CharacterHit {
            fraction: hit.fraction,
            normal: hit.normal,
            point: hit.point,
            id: hit.entity,
        })
    }

    fn overlaps(&mut self, body: &BitMask, pose: Affine2) -> bool {
        let shape = PixelQueryShape::Mask {
            mask: body,
            to_world: pose,
        };
        let mut any = false;
        self.collisions
            .shape_intersections_callback(&shape, self.filter, |_| {
                any = true;
                false
            });
        any
    }
}

fn move_characters(
    mut characters: Query<(
        Entity,
        &mut PixelCharacterController,
        &mut PixelCharacterOutput,
        &mut Transform,
        Option<&PixelColliderMask>,
    )>,
    collisions: PixelCollisions,
) {
    for (entity, mut controller, mut output, mut transform, placed) in &mut characters {
        let Some(desired) = controller.translation.take() else {
            continue;
        };
        let to_world = flatten(&GlobalTransform::from(*transform));
        let (body, pose) = match (&controller.body, placed) {
            (Some(body), _) => {
                // Centered on the entity, one pixel a local unit, rows up the world.
                let centered = sprite_to_world(Vec2::ZERO, 0.0, Vec2::ONE, body.size());
                (body.clone(), to_world * centered)
            }
            (None, Some(placed)) => match &placed.mask {
                Some(mask) => (mask.clone(), to_world * placed.mask_to_local),
                None => continue,
            },
            (None, None) => continue,
        };
        let mut filter = controller.filter.clone();
        filter.excluded.insert(entity);
        let moved = collisions.move_character(
            &body,
            pose,
            desired,
            output.grounded,
            &controller.settings,
            &filter,
        );
        transform.translation += moved.translation.extend(0.0);
        *output = PixelCharacterOutput {
            grounded: moved.grounded,
            ground_normal: moved.ground_normal,
            desired_translation: desired,
            effective_translation: moved.translation,
            collisions: moved
                .hits
                .iter()
                .map(|hit| PixelCharacterCollision {
                    entity: hit.id,
                    point: hit.point,
                    normal: hit.normal,
                })
                .collect(),
            started_inside: moved.started_inside,
        };
    }
}
