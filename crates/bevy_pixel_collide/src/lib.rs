//! [`PixelCollisionPlugins`]: pixel-accurate collision for any Bevy game, added in one line.
//!
//! ```no_run
//! use bevy::prelude::*;
//! use bevy_pixel_collide::prelude::*;
//!
//! App::new()
//!     .add_plugins((DefaultPlugins, PixelCollisionPlugins::default()))
//!     .add_systems(Startup, |mut commands: Commands, assets: Res<AssetServer>| {
//!         commands.spawn(Camera2d);
//!         commands.spawn((Sprite::from_image(assets.load("flower.png")), PixelCollider::default()));
//!         commands.spawn((
//!             Sprite::from_image(assets.load("target.png")),
//!             Transform::from_xyz(40.0, 0.0, 0.0),
//!             PixelCollider::default(),
//!         ));
//!     })
//!     .add_systems(Update, |mut started: MessageReader<PixelCollisionStart>| {
//!         for touch in started.read() {
//!             info!("{} touches {}", touch.collider1, touch.collider2);
//!         }
//!     })
//!     .run();
//! ```
//!
//! Give a sprite a [`PixelCollider`]: its mask is built from the pixels the sprite shows
//! and placed where Bevy draws them (parents, anchor, flips, `custom_size`, `rect`, atlas
//! frame). Each pass, in the chained [`PixelCollisionSystems`]:
//! 1. [`Masks`](PixelCollisionSystems::Masks): masks for new or changed images and frames.
//! 2. [`BroadPhase`](PixelCollisionSystems::BroadPhase): world boxes, box pairs, layers.
//! 3. [`NarrowPhase`](PixelCollisionSystems::NarrowPhase): the per-pixel test of each box
//!    pair, on the compute task pool.
//! 4. [`Events`](PixelCollisionSystems::Events): [`PixelCollisionStart`] and
//!    [`PixelCollisionEnd`], each written as a message for every pair and triggered as an
//!    observer event on colliders with [`PixelCollisionEventsEnabled`], and each collider's
//!    [`PixelCollidingEntities`].
//!
//! Read the results, contacts, point queries and ray casts through [`PixelCollisions`].
//!
//! The names start with `Pixel` where avian2d has a type of that role, so that a game can
//! glob-import both preludes (`use avian2d::prelude::*; use bevy_pixel_collide::prelude::*;`)
//! without ambiguity. Feature `avian` adds [`avian::MaskCollider`]: pixel masks as avian2d
//! colliders.
//!
//! # Determinism
//!
//! Given the same colliders with the same `GlobalTransform`s and images, each pass gives the
//! same touching pairs, messages, observer events, contacts and query answers, bit for bit,
//! whatever the compute pool's thread count, with [`PixelCollisionConfig::parallel`] on or
//! off, and under every build of the core's word loops: the narrow phase writes each pair's
//! answer to its own slot and sorts them after. Nor do entity ids change what touches: of a
//! pair, the collider whose mask's center is further left is tested as A
//! ([`pixel_collide::pair::tested_first`]), not the lower entity, so a rollback peer whose
//! entities are numbered otherwise finds the same pairs. The order of pairs and messages is
//! entity order: a rollback game sorts them by its own stable ids. The core's guarantee
//! (across CPUs and targets) is in [`pixel_collide`]'s docs; here the placements come from
//! Bevy's `GlobalTransform`, computed by glam, whose vector paths differ between targets, and
//! from rotations a game may build with the platform's `sin` and `cos` (build them with the
//! `libm` crate to match across targets). avian2d's solver is deterministic across machines
//! only with its `enhanced-determinism` feature. Tested by `tests/plugin/determinism.rs`.

#![warn(missing_docs)]
#![warn(unreachable_pub)]
// README's examples, compiled as doctests so that they stay true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

#[cfg(feature = "avian")]
pub mod avian;
mod character;
mod collider;
pub mod debug;
pub mod destructible;
pub mod geometry;
pub mod image_guard;
mod masks;
#[cfg(feature = "picking")]
pub mod picking;
mod pipeline;
mod query;

use bevy::app::PluginGroupBuilder;
use bevy::ecs::schedule::{InternedScheduleLabel, ScheduleLabel};
use bevy::prelude::*;

pub use character::{
    PixelCharacterCollision, PixelCharacterController, PixelCharacterOutput, PixelCharacterPlugin,
    PixelCharacterSystems,
};
pub use collider::{
    PixelCollider, PixelColliderMask, PixelCollidingEntities, PixelCollisionEventsEnabled,
    PixelCollisionLayers,
};
pub use masks::{DEFAULT_MAX_PIXELS, PixelMasks, mask_from_region};
pub use pipeline::{
    PixelCollisionConfig, PixelCollisionEnd, PixelCollisionStart, PixelCollisionState,
    PixelCollisionStats,
};
pub use query::{
    PixelCastHit, PixelCollisions, PixelPointProjection, PixelQueryFilter, PixelQueryShape,
    PixelRayHit,
};

/// The plugin's work, in order; they run chained in the plugin's schedule, so a game can
/// put its own systems before or after any of them.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PixelCollisionSystems {
    /// Loaded images into masks; each collider gets the mask of the frame it shows.
    Masks,
    /// World transforms and boxes; the pairs whose boxes touch and whose layers interact.
    BroadPhase,
    /// The per-pixel test of each box pair.
    NarrowPhase,
    /// Start and end messages, observer events, [`PixelCollidingEntities`].
    Events,
}

/// Pixel-accurate collision between sprites with a [`PixelCollider`]: masks, broad and
/// narrow phase, events, queries, destructible sprites and the character controller.
///
/// A game usually adds [`PixelCollisionPlugins`], which adds this and the PNG guard
/// ([`image_guard::PixelPngGuardPlugin`]).
pub struct PixelCollisionPlugin {
    schedule: InternedScheduleLabel,
    max_image_pixels: u64,
}

impl PixelCollisionPlugin {
    /// Runs the collision pass in `schedule`. In [`PostUpdate`] (the default) it runs
    /// after transform propagation, so its results are about what is drawn this frame;
    /// elsewhere it uses the `GlobalTransform`s as last propagated.
    pub fn new(schedule: impl ScheduleLabel) -> Self {
        PixelCollisionPlugin {
            schedule: schedule.intern(),
            max_image_pixels: DEFAULT_MAX_PIXELS,
        }
    }

    /// The most pixels a collider's frame may have ([`PixelMasks::max_pixels`]);
    /// [`DEFAULT_MAX_PIXELS`] (4,096²) unless set. The PNG guard's limit is its own
    /// ([`image_guard::PixelPngGuardPlugin::max_pixels`]).
    pub fn with_max_image_pixels(mut self, max_pixels: u64) -> Self {
        self.max_image_pixels = max_pixels;
        self
    }

    /// The most pixels a collider's frame may have.
    pub fn max_image_pixels(&self) -> u64 {
        self.max_image_pixels
    }
}

/// The plugin's parts, as avian's `PhysicsPlugins`: [`PixelCollisionPlugin`] and
/// [`image_guard::PixelPngGuardPlugin`], which guards the asset server against image files
/// that declare absurd sizes. A part can be replaced (`.set(…)`) or left out
/// (`.disable::<…>()`) on the group's builder:
///
/// ```
/// use bevy::prelude::*;
/// use bevy_pixel_collide::image_guard::PixelPngGuardPlugin;
/// use bevy_pixel_collide::prelude::*;
///
/// let mut app = App::new();
/// // A game with a PNG loader of its own.
/// app.add_plugins(
///     PixelCollisionPlugins::default()
///         .build()
///         .disable::<PixelPngGuardPlugin>(),
/// );
/// ```
pub struct PixelCollisionPlugins {
    schedule: InternedScheduleLabel,
    max_image_pixels: u64,
}

impl PixelCollisionPlugins {
    /// The collision pass in `schedule` ([`PixelCollisionPlugin::new`]).
    pub fn new(schedule: impl ScheduleLabel) -> Self {
        PixelCollisionPlugins {
            schedule: schedule.intern(),
            max_image_pixels: DEFAULT_MAX_PIXELS,
        }
    }

    /// The most pixels an image file may declare and a collider's frame may have: the
    /// limit of both parts.
    pub fn with_max_image_pixels(mut self, max_pixels: u64) -> Self {
        self.max_image_pixels = max_pixels;
        self
    }
}

impl Default for PixelCollisionPlugins {
    fn default() -> Self {
        PixelCollisionPlugins::new(PostUpdate)
    }
}

impl PluginGroup for PixelCollisionPlugins {
    fn build(self) -> PluginGroupBuilder {
        PluginGroupBuilder::start::<Self>()
            .add(
                PixelCollisionPlugin::new(self.schedule)
                    .with_max_image_pixels(self.max_image_pixels),
            )
            .add(image_guard::PixelPngGuardPlugin {
                max_pixels: self.max_image_pixels,
            })
    }
}

impl Default for PixelCollisionPlugin {
    fn default() -> Self {
        PixelCollisionPlugin::new(PostUpdate)
    }
}

impl Plugin for PixelCollisionPlugin {
    fn build(&self, app: &mut App) {
        let schedule = self.schedule;
        let mut masks = PixelMasks::default();
        masks.max_pixels = self.max_image_pixels;
        app.insert_resource(masks)
            .init_resource::<PixelCollisionState>()
            .init_resource::<PixelCollisionConfig>()
            .add_message::<PixelCollisionStart>()
            .add_message::<PixelCollisionEnd>()
            .register_type::<PixelCollider>()
            .register_type::<PixelCollisionLayers>()
            .add_observer(collider::forget_removed_collider)
            .add_observer(collider::forget_removed_sprite)
            .add_systems(Startup, masks::make_placeholder)
            .add_plugins((destructible::build, character::PixelCharacterPlugin))
            .configure_sets(
                schedule,
                (
                    PixelCollisionSystems::Masks,
                    PixelCollisionSystems::BroadPhase,
                    PixelCollisionSystems::NarrowPhase,
                    PixelCollisionSystems::Events,
                )
                    .chain(),
            )
            .add_systems(
                schedule,
                (
                    (inline(masks::assign_masks), destructible::systems())
                        .chain()
                        .in_set(PixelCollisionSystems::Masks),
                    inline(pipeline::broad_phase).in_set(PixelCollisionSystems::BroadPhase),
                    inline(pipeline::narrow_phase).in_set(PixelCollisionSystems::NarrowPhase),
                    inline(pipeline::send_events).in_set(PixelCollisionSystems::Events),
                ),
            );
        if schedule == PostUpdate.intern() {
            app.configure_sets(
                PostUpdate,
                PixelCollisionSystems::Masks.after(TransformSystems::Propagate),
            );
        }
    }

    fn finish(&self, app: &mut App) {
        // Without it every `GlobalTransform` stays at the origin and every sprite seems to
        // overlap every other: say so once rather than answer wrongly in silence.
        if !app.is_plugin_added::<TransformPlugin>() {
            error!(
                "PixelCollisionPlugin needs TransformPlugin (in DefaultPlugins) to place sprites; \
                 add it, or every collider stays at the origin"
            );
        }
    }
}

/// `system` as an exclusive system. The pass's four systems run one after another anyway;
/// on Bevy's multi-threaded executor each hand-off between ordinary systems wakes a worker
/// thread, while exclusive ones run back to back on the executor's own thread. (The
/// narrow phase still spreads its pairs over the compute task pool.)
pub(crate) fn inline<M, S>(system: S) -> impl FnMut(&mut World)
where
    S: IntoSystem<(), (), M> + Copy + Send + Sync + 'static,
{
    move |world: &mut World| {
        if let Err(err) = world.run_system_cached(system) {
            error!("pixel collision: {err}");
        }
    }
}

/// What a game using the plugin needs: `use bevy_pixel_collide::prelude::*;`. Every name
/// is distinct from avian2d's prelude.
pub mod prelude {
    pub use super::debug::{HiddenFromPixelDebug, PixelCollisionDebugPlugin, PixelDebugSettings};
    pub use super::destructible::{
        DestructibleSprite, DestructibleState, DetachedPiece, PieceAnchor, PixelEditError,
        PixelEdits, PixelPaint, PixelPieceDetached,
    };
    pub use super::{
        PixelCastHit, PixelCollider, PixelColliderMask, PixelCollidingEntities,
        PixelCollisionConfig, PixelCollisionEnd, PixelCollisionEventsEnabled, PixelCollisionLayers,
        PixelCollisionPlugin, PixelCollisionPlugins, PixelCollisionStart, PixelCollisionSystems,
        PixelCollisions, PixelMasks, PixelPointProjection, PixelQueryFilter, PixelQueryShape,
        PixelRayHit,
    };
    pub use super::{PixelCharacterController, PixelCharacterOutput};
    pub use pixel_collide::character::CharacterSettings;
    pub use pixel_collide::{BitMask, Contact, MaskMotion};
}
