//! The components a game puts on its sprites, and the ones the plugin keeps on them.

use std::sync::Arc;

use bevy::ecs::entity::EntityHashSet;
use bevy::math::Affine2;
use bevy::math::bounding::Aabb2d;
use bevy::prelude::*;

use pixel_collide::pair::SpriteInfo;
use pixel_collide::{BitMask, world_bounds};

/// A sprite whose opaque pixels collide. Put it next to a [`Sprite`]: the mask is built
/// from the pixels the sprite shows (its `rect` or atlas frame) and follows everything
/// the sprite is drawn with.
///
/// A collider leaves collision, its touches ending once each, when it is despawned or
/// disabled (Bevy's `Disabled`), loses this component or its `Sprite`, is set to
/// `enabled: false` or to [`PixelCollisionLayers::NONE`], or shows an image still
/// loading. Visibility does not count: a hidden sprite still collides, as a hidden body
/// does in avian; take it out one of the ways above when it should not.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_pixel_collide::prelude::*;
///
/// fn spawn(mut commands: Commands, assets: Res<AssetServer>) {
///     commands.spawn((
///         Sprite::from_image(assets.load("flower.png")),
///         // Pixels with alpha above 127 are solid.
///         PixelCollider { threshold: 127, ..default() },
///     ));
/// }
/// # bevy::ecs::system::assert_is_system(spawn);
/// ```
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq, Reflect)]
#[require(PixelColliderMask, PixelCollidingEntities)]
pub struct PixelCollider {
    /// A pixel is solid when its alpha is above this: 0, the tutorials' `alpha != 0`.
    pub threshold: u8,
    /// A color (red, green, blue) that is clear whatever its alpha, for images drawn on a
    /// key color such as magenta. Only the mask changes, not the texture.
    pub color_key: Option<[u8; 3]>,
    /// A disabled collider touches nothing; its touches end when it is disabled.
    pub enabled: bool,
}

impl Default for PixelCollider {
    fn default() -> Self {
        PixelCollider {
            threshold: 0,
            color_key: None,
            enabled: true,
        }
    }
}

/// Which groups a collider is in and which it collides with, as avian's
/// `CollisionLayers`: two colliders are tested only when each one's `memberships`
/// share a bit with the other's `filters`. Without this component a collider is in
/// every group and collides with every group.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq, Hash, Reflect)]
pub struct PixelCollisionLayers {
    /// The layers the collider is in.
    pub memberships: u32,
    /// The layers it collides with: a pair collides when each is in a layer the other filters.
    pub filters: u32,
}

impl PixelCollisionLayers {
    /// In every layer, colliding with every layer: the default.
    pub const ALL: PixelCollisionLayers = PixelCollisionLayers {
        memberships: u32::MAX,
        filters: u32::MAX,
    };

    /// In no group and colliding with none: a collider only queried (its mask, picking,
    /// ray casts), never in a touching pair.
    pub const NONE: PixelCollisionLayers = PixelCollisionLayers {
        memberships: 0,
        filters: 0,
    };

    /// In `memberships`, colliding with `filters`.
    pub const fn new(memberships: u32, filters: u32) -> Self {
        PixelCollisionLayers {
            memberships,
            filters,
        }
    }

    /// Whether the two may touch: each is in a group the other collides with.
    pub fn interacts_with(self, other: PixelCollisionLayers) -> bool {
        self.memberships & other.filters != 0 && other.memberships & self.filters != 0
    }
}

impl Default for PixelCollisionLayers {
    fn default() -> Self {
        PixelCollisionLayers::ALL
    }
}

/// What the plugin knows of a collider this frame: its mask and where it is. Kept up to
/// date by the plugin (in [`PixelCollisionSystems::Masks`] and
/// [`PixelCollisionSystems::BroadPhase`]); read it, don't write it.
///
/// [`PixelCollisionSystems::Masks`]: super::PixelCollisionSystems::Masks
/// [`PixelCollisionSystems::BroadPhase`]: super::PixelCollisionSystems::BroadPhase
#[derive(Component, Debug, Clone, Default)]
pub struct PixelColliderMask {
    /// The mask of the pixels the sprite shows; `None` while its image (or atlas layout)
    /// is loading, when it shows no pixel, or when the collider is disabled.
    pub mask: Option<Arc<BitMask>>,
    /// Mask space to world space (see [`pixel_collide::sprite_to_world`] for mask space).
    pub to_world: Affine2,
    /// The world box of the mask's set pixels; `None` when it cannot collide.
    pub aabb: Option<Aabb2d>,
    /// The mask's shape tables (support functions), shared like the mask.
    pub(crate) shape: Option<Arc<SpriteInfo>>,
    /// The cache key the mask was built for, to notice when it changes.
    pub(crate) key: Option<super::masks::MaskKey>,
    /// Mask space to the sprite's local space (anchor, flips, size, frame).
    pub(crate) mask_to_local: Affine2,
}

impl PixelColliderMask {
    /// The mask and its transform, when this collider can collide.
    pub fn placed(&self) -> Option<(&BitMask, Affine2)> {
        self.aabb?;
        self.mask.as_deref().map(|m| (m, self.to_world))
    }

    /// The world box of the mask's whole rectangle rather than of its set pixels: the
    /// tutorials' "bounding rectangle" test.
    pub fn world_rect(&self) -> Option<Aabb2d> {
        self.placed()
            .map(|(mask, to_world)| world_bounds(mask.size(), to_world))
    }
}

/// Whether the world `point` lies in a solid pixel of `mask` placed by `to_world`.
pub(crate) fn solid_at(mask: &BitMask, to_world: Affine2, point: Vec2) -> bool {
    let p = to_world.inverse().transform_point2(point);
    p.is_finite() && p.x >= 0.0 && p.y >= 0.0 && mask.get(p.x as i64, p.y as i64)
}

/// The colliders this one's pixels touch, as of the plugin's last run.
#[derive(Component, Debug, Clone, Default, PartialEq, Eq, Deref)]
pub struct PixelCollidingEntities(pub EntityHashSet);

/// Put it on a collider to have [`PixelCollisionStart`](super::PixelCollisionStart) and
/// [`PixelCollisionEnd`](super::PixelCollisionEnd) triggered on it for its observers (as
/// avian's `CollisionEventsEnabled`): opt-in, so a crowd of colliders no one observes
/// costs nothing. The messages are written for every pair either way.
#[derive(Component, Debug, Clone, Copy, Default)]
pub struct PixelCollisionEventsEnabled;

/// A collider that lost its [`PixelCollider`] loses what the plugin gave it too: its
/// [`PixelColliderMask`] and [`PixelCollidingEntities`]. The next pass then no longer places
/// it, so each of its touches ends there, once ([`PixelCollisionEnd`]), and no query
/// answers about it. Adding the marker again brings both back (they are required), and
/// the collider starts afresh.
///
/// [`PixelCollisionEnd`]: super::PixelCollisionEnd
pub(crate) fn forget_removed_collider(removed: On<Remove, PixelCollider>, mut commands: Commands) {
    commands
        .entity(removed.entity)
        .try_remove::<(PixelColliderMask, PixelCollidingEntities)>();
}

/// A collider whose [`Sprite`] was removed shows no pixel: its mask goes, as for an image
/// that shows none, and comes back from the sprite added again.
pub(crate) fn forget_removed_sprite(
    removed: On<Remove, Sprite>,
    mut colliders: Query<&mut PixelColliderMask>,
) {
    if let Ok(mut collider) = colliders.get_mut(removed.entity) {
        *collider = PixelColliderMask::default();
    }
}
