//! Destructible sprites in avian2d: a destructible sprite that is a rigid body keeps its
//! [`MaskCollider`] equal to its edited mask, the pieces that break off it fall as
//! dynamic bodies, and, with [`SettlePieces`] on the sprite, a piece that has come to
//! rest is laid back into it pixel for pixel, mask and colors
//! ([`pixel_collide::pieces::settle_into`]).

use std::sync::Arc;

use avian2d::prelude::*;
use bevy::prelude::*;

use super::MaskCollider;
use crate::collider::PixelColliderMask;
use crate::destructible::{DestructibleState, PixelPieceDetached};
use crate::geometry::flatten;
use pixel_collide::pieces::settle_into;

/// Adds what destructible sprites need in avian; [`super::MaskColliderPlugin`] adds it.
pub(super) fn plugin(app: &mut App) {
    // As the destructible sprites' own systems (`crate::destructible::build`).
    app.world_mut().register_system_cached(bodies_for_pieces);
    app.world_mut().register_system_cached(follow_edits);
    app.add_message::<PixelPieceSettled>()
        // In the pass's first set, once pieces are cut: a game's systems after it find
        // every piece a body and every collider its mask.
        .add_systems(
            PostUpdate,
            (
                crate::inline(bodies_for_pieces),
                crate::inline(follow_edits),
            )
                .chain()
                .in_set(crate::PixelCollisionSystems::Masks)
                .after(crate::destructible::DestructionSystems)
                .run_if(any_with_component::<DestructibleState>),
        )
        .add_systems(
            FixedPostUpdate,
            settle_pieces.after(PhysicsSystems::Writeback),
        );
}

/// On a destructible sprite that is a rigid body: its pieces that come to rest are laid
/// back into it. A piece is at rest once it has moved slower than `rest_speed` (px/s)
/// and turned slower than `rest_turn` (rad/s) for `rest_steps` fixed steps in a row, or
/// has lived `most_steps` fixed steps (a piece rocking on a point forever).
#[derive(Component, Debug, Clone, Copy, PartialEq)]
pub struct SettlePieces {
    /// Under this speed, px/s, a piece counts as still.
    pub rest_speed: f32,
    /// Under this turn rate, rad/s, a piece counts as still.
    pub rest_turn: f32,
    /// Still for this many physics steps in a row, a piece is laid back in.
    pub rest_steps: u32,
    /// A piece still moving after this many steps is laid back in where it is.
    pub most_steps: u32,
}

impl Default for SettlePieces {
    fn default() -> Self {
        SettlePieces {
            rest_speed: 25.0,
            rest_turn: 0.3,
            rest_steps: 30,
            most_steps: 60 * 12,
        }
    }
}

/// A piece on its way back into the sprite it broke off.
#[derive(Component, Debug, Clone, Copy, PartialEq)]
pub struct SettlingPiece {
    /// The sprite it broke off.
    pub source: Entity,
    /// Fixed steps it has been at rest, in a row, and has lived.
    pub still: u32,
    /// Physics steps since it broke off.
    pub age: u32,
}

/// A piece came to rest and was laid back into the sprite it broke off; it is despawned.
#[derive(Message, Debug, Clone, Copy, PartialEq, Eq)]
pub struct PixelPieceSettled {
    /// The sprite it was laid back into.
    pub source: Entity,
    /// The piece, despawned.
    pub piece: Entity,
    /// Its pixels laid into the source.
    pub pixels: u64,
    /// Its pixels that found no room and are gone.
    pub lost: u64,
}

/// Pieces of a sprite that is a rigid body become dynamic bodies with the sprite's
/// friction and restitution, and settle back if the sprite says so.
fn bodies_for_pieces(
    mut detached: MessageReader<PixelPieceDetached>,
    sources: Query<
        (
            Option<&Friction>,
            Option<&Restitution>,
            Option<&SettlePieces>,
        ),
        With<RigidBody>,
    >,
    mut commands: Commands,
) {
    for piece in detached.read() {
        let Ok((friction, restitution, settle)) = sources.get(piece.source) else {
            continue;
        };
        let mut body = commands.entity(piece.piece);
        body.insert((
            RigidBody::Dynamic,
            MaskCollider::new(Arc::clone(&piece.mask)),
        ));
        if let Some(friction) = friction {
            body.insert(*friction);
        }
        if let Some(restitution) = restitution {
            body.insert(*restitution);
        }
        if settle.is_some() {
            body.insert((
                SettlingPiece {
                    source: piece.source,
                    still: 0,
                    age: 0,
                },
                // Rest is ours to decide: a sleeping piece would never be looked at again.
                SleepingDisabled,
            ));
        }
    }
}

/// A destructible body's collider is its mask as edited: given once its pixels are
/// adopted, replaced whenever the mask is.
fn follow_edits(
    mut bodies: Query<
        (
            Entity,
            &PixelColliderMask,
            Option<&mut MaskCollider>,
            &RigidBody,
        ),
        With<DestructibleState>,
    >,
    mut commands: Commands,
) {
    for (entity, placed, collider, body) in &mut bodies {
        let Some(mask) = &placed.mask else { continue };
        let made = || {
            if body.is_static() {
                // No mass to measure: a terrain's edits cost no pass over its pixels.
                MaskCollider::fixed(Arc::clone(mask))
            } else {
                MaskCollider::new(Arc::clone(mask))
            }
        };
        match collider {
            Some(collider) if Arc::ptr_eq(mask, collider.mask()) => {}
            Some(mut collider) => *collider = made(),
            None => {
                commands.entity(entity).insert(made());
            }
        }
    }
}

/// Pieces at rest are laid back into their sprite, mask and colors.
fn settle_pieces(
    mut pieces: Query<(
        Entity,
        &mut SettlingPiece,
        &MaskCollider,
        &Sprite,
        &Position,
        &Rotation,
        &LinearVelocity,
        &AngularVelocity,
    )>,
    mut sources: Query<(
        &SettlePieces,
        &mut DestructibleState,
        &mut PixelColliderMask,
        &GlobalTransform,
    )>,
    // A physics app without assets (no rendering) has no destructible sprites either.
    images: Option<ResMut<Assets<Image>>>,
    mut settled: MessageWriter<PixelPieceSettled>,
    mut commands: Commands,
) {
    let Some(mut images) = images else { return };
    for (entity, mut piece, collider, sprite, position, rotation, velocity, spin) in &mut pieces {
        let Ok((rule, mut state, mut placed, global)) = sources.get_mut(piece.source) else {
            // Its sprite is gone: it stays a body.
            commands.entity(entity).remove::<SettlingPiece>();
            continue;
        };
        let still = velocity.0.is_finite()
            && spin.0.is_finite()
            && velocity.0.length() < rule.rest_speed
            && spin.0.abs() < rule.rest_turn;
        piece.still = if still { piece.still + 1 } else { 0 };
        piece.age += 1;
        if piece.still < rule.rest_steps && piece.age < rule.most_steps {
            continue;
        }
        let to_source = (flatten(global) * placed.mask_to_local).inverse();
        let (Some(target_image), Some(mask)) = (state.image().cloned(), placed.mask.as_mut())
        else {
            continue;
        };
        let piece_to_world = collider.to_world(position.0, *rotation);
        let laid = settle_into(
            Arc::make_mut(mask),
            collider.mask(),
            piece_to_world,
            to_source,
        );
        let pixels = laid.moved.len() as u64;
        paste(&mut images, &sprite.image, &target_image, &laid.moved);
        if let Some(rect) = moved_rect(&laid.moved) {
            state.mark_dirty(rect);
        }
        state.note_settled(pixels, laid.lost);
        settled.write(PixelPieceSettled {
            source: piece.source,
            piece: entity,
            pixels,
            lost: laid.lost,
        });
        commands.entity(entity).despawn();
    }
}

/// Copies each settled pixel's color from the piece's image into the sprite's.
fn paste(
    images: &mut Assets<Image>,
    from: &Handle<Image>,
    to: &Handle<Image>,
    moved: &[((u32, u32), (u32, u32))],
) {
    let Some(source) = images.get(from) else {
        return;
    };
    let from_width = source.width() as usize;
    let Some(source) = source.data.clone() else {
        return;
    };
    let Some(mut target) = images.get_mut(to) else {
        return;
    };
    let width = target.width() as usize;
    let Some(data) = target.data.as_mut() else {
        return;
    };
    for &((fx, fy), (tx, ty)) in moved {
        let from = (fy as usize * from_width + fx as usize) * 4;
        let to = (ty as usize * width + tx as usize) * 4;
        if let (Some(dst), Some(src)) = (data.get_mut(to..to + 4), source.get(from..from + 4)) {
            dst.copy_from_slice(src);
            // A solid pixel always shows.
            dst[3] = dst[3].max(1);
        }
    }
}

/// The rectangle of the target pixels settling took.
fn moved_rect(moved: &[((u32, u32), (u32, u32))]) -> Option<pixel_collide::MaskRect> {
    let (mut lo, mut hi) = ((u32::MAX, u32::MAX), (0, 0));
    for &(_, (x, y)) in moved {
        lo = (lo.0.min(x), lo.1.min(y));
        hi = (hi.0.max(x), hi.1.max(y));
    }
    (!moved.is_empty()).then(|| pixel_collide::MaskRect {
        x: lo.0,
        y: lo.1,
        width: hi.0 - lo.0 + 1,
        height: hi.1 - lo.1 + 1,
    })
}
