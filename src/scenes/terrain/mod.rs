//! Scene "Destructible terrain": throw the basketball at targets on a terrain that craters
//! where it explodes. Only per-pixel collision can do this: the ground changes shape.
//!
//! - The terrain is a window-sized sprite ([`TERRAIN_PATH`]) made a
//!   [`DestructibleSprite`] of the collision plugin: a crater is one
//!   [`PixelEdits::carve_circle`], which changes its mask and its picture together; the
//!   pieces a crater cuts off from the ground (parts that no longer reach the bottom row)
//!   break off as sprites of their own, and with the plugin's avian colliders they are
//!   rigid bodies that fall, tumble and rest, and are laid back into the terrain pixel for
//!   pixel once at rest ([`SettlePieces`]). The terrain is a static body whose collider
//!   follows its mask. What the scene keeps is its game.
//! - Balls are avian2d rigid bodies with pixel-mask colliders (`bodies.rs`), one step per
//!   fixed step, drawn between steps.
//! - A ball explodes when the player sets it off (the oldest in play first) or once it
//!   comes to rest: a round crater is carved ([`TerrainSettings::crater_radius`]), targets
//!   inside it are destroyed, and balls, pieces and Larry nearby are pushed away. Pixels
//!   are conserved: only craters remove any ([`DestructibleState::removed`];
//!   [`DestructibleState::lost`] counts any a settling piece found no room for, and is
//!   shown).
//! - A round: [`TARGET_COUNT`] targets, [`TerrainSettings::throws`] throws; a ball touching
//!   a target (the plugin's [`PixelCollisionStart`]) or a crater reaching one scores.

mod bodies;
mod overlay;

use bevy::platform::time::Instant;
use std::sync::Arc;

use bevy::math::Affine2;

use avian2d::prelude::{
    LinearVelocity, Position, Restitution, Rotation, SubstepCount, TransformInterpolation,
};
use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};

use crate::autoplay::AutoplaySystems;
use crate::input::Controls;
use crate::masks::COLOR_KEY;
use crate::motion::{FIXED_STEP, FixedPose};
use crate::overlay::overlay_shown;
use crate::physics::GRAVITY;
use pixel_collide::BitMask;
use pixel_collide::character::{Autostep, CharacterSettings};
use pixel_collide::terrain::PIECE_GRAVITY;
use pixel_collide::terrain::TerrainWorld;
use pixel_collide_seeded::rng::SplitMix64;

use crate::scene::GameScene;
use crate::scenes::larry::{self, Larry, LarrySheet, SheetGrid, SheetState};
use crate::{AppSystems, CollisionStats, SceneActivity, StatusLine};
use bevy_pixel_collide::avian::SettlePieces;
use bevy_pixel_collide::debug::{HiddenFromPixelDebug, PixelDebugGizmos};
use bevy_pixel_collide::destructible::{
    DestructibleSprite, DestructibleState, DetachedPiece, PixelEdits, PixelPieceDetached,
};
use bevy_pixel_collide::{
    PixelCollider, PixelColliderMask, PixelCollisionLayers, PixelCollisionStart,
    PixelCollisionSystems, PixelCollisions, PixelQueryFilter,
};
pub use bodies::{FlyingBall, RestClock, TerrainWall};
pub(crate) use overlay::overlay_plugin;

pub const TERRAIN_PATH: &str = "terrain.png";
const BALL_PATH: &str = "basketball.png";
const TARGET_PATH: &str = "gem.png";
/// Targets per round.
pub const TARGET_COUNT: usize = 5;
/// Targets stand between these world x.
const TARGETS_FROM: f32 = -380.0;
const TARGETS_TO: f32 = 360.0;
/// Targets are drawn at this scale (the gem is 64 px).
const TARGET_SCALE: f32 = 0.6;
/// Half a target's height as drawn: from its center down to its feet.
const TARGET_HALF: f32 = 32.0 * TARGET_SCALE;
/// Where Larry is dropped onto the terrain, world px: right of the scene's window, which
/// covers the ground below the throw point.
pub const LARRY_FROM: Vec2 = Vec2::new(-180.0, 40.0);
/// How hard a blast pushes Larry at its center, px/s; it fades to nothing at three crater
/// radii.
const BLAST_PUSH: f32 = 700.0;
/// Larry's walking speed on the terrain, px/s, at full input.
pub const TERRAIN_WALK_SPEED: f32 = 140.0;
/// The highest ledge, px, Larry steps up without jumping.
pub const STEP_UP: f32 = 4.0;
/// How fast a push sideways dies away while Larry is on the ground, per second.
const GROUND_DRAG: f32 = 6.0;
/// The layer the terrain and its pieces are in: what Larry walks on. They pair with
/// nothing in the plugin (balls and pieces collide with them through avian).
pub const GROUND_LAYER: u32 = 1 << 30;
/// Where throws start, world px: above the ground at the left.
pub const THROW_FROM: Vec2 = Vec2::new(-560.0, 0.0);
/// Aim, radians above the horizontal, and throw speed, px/s.
pub const AIM_RANGE: (f32, f32) = (-0.4, 1.45);
pub const POWER_RANGE: (f32, f32) = (150.0, 1400.0);
/// How fast the controls turn the aim (rad/s) and change the power (px/s per s).
const AIM_SPEED: f32 = 1.2;
const POWER_SPEED: f32 = 600.0;
/// Crater radii the overlay offers, px.
pub const CRATER_RANGE: (f32, f32) = (8.0, 120.0);
/// Gravity for falling targets, px/s², downward: the bodies'.
const FALL_GRAVITY: f32 = GRAVITY;
/// Balls in play at once, at most.
pub const MOST_BALLS: usize = 3;
/// Steps the preview arc looks ahead, and one dot every this many.
const PREVIEW_STEPS: usize = 150;
const PREVIEW_EVERY: usize = 4;
const SEED: u64 = 0x7e44_a1d5;

/// The overlay's settings for the scene.
#[derive(Resource, Debug, Clone, Copy, PartialEq)]
pub struct TerrainSettings {
    pub crater_radius: f32,
    /// Throws per round.
    pub throws: u32,
    /// Draw the dotted arc the next throw will follow.
    pub preview: bool,
}

impl Default for TerrainSettings {
    fn default() -> Self {
        TerrainSettings {
            crater_radius: 40.0,
            throws: 8,
            preview: true,
        }
    }
}

impl TerrainSettings {
    /// Every value in its range; NaN falls back to the default.
    pub fn sanitised(&self) -> TerrainSettings {
        let default = TerrainSettings::default();
        TerrainSettings {
            crater_radius: if self.crater_radius.is_nan() {
                default.crater_radius
            } else {
                self.crater_radius.clamp(CRATER_RANGE.0, CRATER_RANGE.1)
            },
            throws: self.throws.clamp(1, 99),
            preview: self.preview,
        }
    }
}

/// The terrain's sprite.
#[derive(Component, Debug, Clone, Copy)]
pub struct TerrainSprite;

/// The terrain's image as loaded, held so that a restart can show it again (the sprite
/// shows its own edited copy).
#[derive(Component, Debug, Clone)]
struct PristineTerrain(Handle<Image>);

/// Larry on the terrain, moved by the plugin's character controller through the ground
/// and its pieces.
#[derive(Component, Debug, Clone, Default)]
pub struct TerrainLarry {
    /// What collides, once his sheet has loaded: every frame of the sheet laid over one
    /// another, so no frame of the walk cycle reaches into the ground. Centered on him.
    pub body: Option<Arc<BitMask>>,
    /// px/s, world (y up): gravity and pushes; walking adds to it.
    pub velocity: Vec2,
    pub grounded: bool,
}

impl TerrainLarry {
    /// His body's mask-to-world transform with its center at `center`.
    pub fn body_to_world(body: &BitMask, center: Vec2) -> Affine2 {
        pixel_collide::sprite_to_world(center, 0.0, Vec2::ONE, body.size())
    }
}

/// The ball in the thrower's hand: spawned at the start so the plugin masks the ball's
/// image, shown while a throw is left.
#[derive(Component, Debug, Clone, Copy)]
pub struct BallInHand;

/// A target, and how fast it falls when the ground under it is gone.
#[derive(Component, Debug, Clone, Copy, Default)]
pub struct Target {
    pub velocity: f32,
    /// The piece it stood on when a crater cut that piece loose: it rides it, rather
    /// than fall through it (and be buried when the piece lands over it).
    pub riding: Option<Riding>,
}

/// A falling piece a target rides, and where on it: the target's offset from the
/// piece's origin, in the piece's frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Riding {
    pub piece: Entity,
    pub offset: Vec2,
}

/// How far above a piece's top pixel (px) a target's feet may be and still ride it.
const RIDE_REACH: i64 = 2;

/// The running scene: present once the terrain, the ball and a target have masks.
#[derive(Resource, Debug, Clone)]
pub struct TerrainSim {
    /// The terrain's mask as the collision plugin keeps it (its edits, pieces and
    /// settling), followed each frame, for the game's questions of it: where the ground
    /// is under a target, what Larry walks on, where a throw lands.
    pub terrain: TerrainWorld,
    /// The terrain sprite.
    pub ground: Entity,
    /// The terrain as loaded, for a restart.
    pristine_mask: Arc<BitMask>,
    ball_mask: Arc<BitMask>,
    ball_image: Handle<Image>,
    pub aim: f32,
    pub power: f32,
    pub throws_left: u32,
    pub score: u32,
    pub targets_left: usize,
    /// Balls thrown this round, and balls in play (counted each fixed step).
    throws_made: u32,
    pub balls_in_play: usize,
    /// Solid pixels in the terrain when the round started.
    pub initial_pixels: u64,
    /// Craters asked for since the last carve: center, world px, and the ball that
    /// exploded there.
    pending: Vec<(Vec2, Option<Entity>)>,
    /// What the overlay shows of the last edit: the plugin's time for the craters' edits
    /// and for cutting loose what they separated.
    pub last_edit_micros: f32,
    /// Connected pieces of ground (8-connected), counted after each edit.
    pub components: usize,
    pub last_pieces: usize,
    /// Space was pressed after the round ended.
    restart_requested: bool,
    rng: SplitMix64,
}

impl TerrainSim {
    /// The terrain's mask as the ball collides with it.
    pub fn terrain(&self) -> &BitMask {
        self.terrain.terrain()
    }

    /// Asks for a crater at `at` (world px), carved this frame.
    pub fn explode_at(&mut self, at: Vec2) {
        if at.is_finite() {
            self.pending.push((at, None));
        }
    }

    /// Asks for `ball` to explode where it is, `at`, this frame.
    pub fn explode_ball(&mut self, ball: Entity, at: Vec2) {
        if at.is_finite() && !self.pending.iter().any(|&(_, b)| b == Some(ball)) {
            self.pending.push((at, Some(ball)));
        }
    }

    /// The round is over: no target left, or no throw left with no ball in play.
    pub fn round_over(&self) -> bool {
        self.targets_left == 0 || (self.throws_left == 0 && self.balls_in_play == 0)
    }

    /// Counts the terrain's connected pieces again, after an edit.
    fn count_components(&mut self) {
        self.components = self
            .terrain()
            .connected_components(pixel_collide::Connectivity::Eight)
            .len();
    }

    /// A throw from [`THROW_FROM`] at the current aim and power, if a throw is left and
    /// fewer than [`MOST_BALLS`] are in play: the ball to spawn.
    fn throw(&mut self) -> Option<impl Bundle + use<>> {
        if self.throws_left == 0 || self.balls_in_play >= MOST_BALLS {
            return None;
        }
        self.throws_left -= 1;
        self.throws_made += 1;
        self.balls_in_play += 1;
        let velocity = Vec2::from_angle(self.aim) * self.power;
        Some(bodies::ball_bundle(
            self,
            THROW_FROM,
            velocity,
            self.throws_made,
        ))
    }
}

pub(crate) fn plugin(app: &mut App) {
    app.init_resource::<TerrainSettings>()
        .add_systems(OnEnter(GameScene::Terrain), spawn_scene)
        .add_systems(OnExit(GameScene::Terrain), |mut commands: Commands| {
            commands.remove_resource::<TerrainSim>();
        })
        .add_systems(
            Update,
            (play, carve_craters, show_ball_in_hand, write_status)
                .chain()
                .in_set(AppSystems::Update)
                .run_if(in_state(GameScene::Terrain)),
        )
        .add_systems(
            Update,
            (autoplay, blow_the_bridge)
                .in_set(AutoplaySystems)
                .run_if(in_state(GameScene::Terrain)),
        )
        .add_systems(
            FixedUpdate,
            (count_balls, bodies::rest_bodies, fall_targets, walk_larry)
                .chain()
                .run_if(in_state(GameScene::Terrain)),
        )
        .add_systems(
            PostUpdate,
            (
                (follow_the_terrain, pieces_cut_loose, start_round)
                    .chain()
                    .after(PixelCollisionSystems::Masks),
                hit_targets.after(PixelCollisionSystems::Events),
            )
                .run_if(in_state(GameScene::Terrain)),
        );
}

fn spawn_scene(mut commands: Commands, assets: Res<AssetServer>) {
    commands.spawn((
        Name::new("Terrain"),
        Sprite::from_image(assets.load(TERRAIN_PATH)),
        Transform::from_xyz(0.0, 0.0, 0.0),
        PixelCollider::default(),
        // Craters edit its pixels; what they cut loose falls (every piece, however
        // small, a body) and settles back in.
        DestructibleSprite {
            min_piece_pixels: 0,
            ..default()
        },
        bodies::terrain_body(),
        SettlePieces::default(),
        PristineTerrain(assets.load(TERRAIN_PATH)),
        // Balls and pieces collide with it through avian; the plugin's mask is for
        // queries (Larry walks on it and its pieces, which take its layers) and for the
        // debug drawing.
        PixelCollisionLayers::new(GROUND_LAYER, 0),
        // Its box is the window's: drawn, it would only frame the screen.
        HiddenFromPixelDebug,
        TerrainSprite,
        DespawnOnExit(GameScene::Terrain),
    ));
    commands.spawn((
        larry::larry_bundle(&assets, LARRY_FROM),
        FixedPose::at(LARRY_FROM, 0.0),
        TerrainLarry::default(),
        DespawnOnExit(GameScene::Terrain),
    ));
    commands.spawn((
        Name::new("Ball in hand"),
        Sprite::from_image(assets.load(BALL_PATH)),
        Transform::from_translation(THROW_FROM.extend(3.0)),
        Visibility::Hidden,
        PixelCollider::default(),
        // Masked for the thrown balls; it touches nothing itself.
        PixelCollisionLayers::NONE,
        BallInHand,
        DespawnOnExit(GameScene::Terrain),
    ));
}

/// Once the terrain's pixels are its own and the ball has a mask: the round's targets and
/// the walls.
fn start_round(
    mut commands: Commands,
    sim: Option<ResMut<TerrainSim>>,
    settings: Res<TerrainSettings>,
    assets: Res<AssetServer>,
    mut terrain: Query<
        (
            Entity,
            &mut Sprite,
            &PixelColliderMask,
            &DestructibleState,
            &PristineTerrain,
        ),
        With<TerrainSprite>,
    >,
    ball: Query<(&PixelColliderMask, &Sprite), (With<BallInHand>, Without<TerrainSprite>)>,
    targets: Query<Entity, Or<(With<Target>, With<DetachedPiece>, With<FlyingBall>)>>,
) {
    if let Some(mut sim) = sim {
        // A new round: the terrain as loaded, new targets.
        if sim.restart_requested {
            if let Ok((_, mut sprite, _, _, pristine)) = terrain.single_mut() {
                // Shown the loaded image again, the sprite takes its pixels afresh.
                sprite.image = pristine.0.clone();
            }
            restart(&mut commands, &mut sim, &settings, &assets, &targets);
        }
        return;
    }
    let Ok((ground, _, terrain_mask, state, _)) = terrain.single() else {
        return;
    };
    let Ok((ball_collider, ball_sprite)) = ball.single() else {
        return;
    };
    let (Some(mask), Some(ball_mask)) = (terrain_mask.mask.clone(), ball_collider.mask.clone())
    else {
        return;
    };
    if !state.is_ready() {
        return;
    }
    let mut sim = TerrainSim {
        initial_pixels: mask.count(),
        terrain: TerrainWorld::new(Arc::clone(&mask)),
        ground,
        pristine_mask: mask,
        ball_mask,
        ball_image: ball_sprite.image.clone(),
        aim: 0.7,
        power: 700.0,
        throws_left: 0,
        score: 0,
        targets_left: 0,
        throws_made: 0,
        balls_in_play: 0,
        pending: Vec::new(),
        last_edit_micros: 0.0,
        components: 0,
        last_pieces: 0,
        restart_requested: false,
        rng: SplitMix64(SEED),
    };
    restart(&mut commands, &mut sim, &settings, &assets, &targets);
    bodies::spawn_walls(&mut commands, sim.terrain().size());
    commands.insert_resource(sim);
}

/// Sets out new targets on the terrain as loaded.
fn restart(
    commands: &mut Commands,
    sim: &mut TerrainSim,
    settings: &TerrainSettings,
    assets: &AssetServer,
    targets_and_bodies: &Query<Entity, Or<(With<Target>, With<DetachedPiece>, With<FlyingBall>)>>,
) {
    for entity in targets_and_bodies {
        commands.entity(entity).despawn();
    }
    sim.terrain = TerrainWorld::new(Arc::clone(&sim.pristine_mask));
    sim.throws_left = settings.sanitised().throws;
    sim.throws_made = 0;
    sim.balls_in_play = 0;
    sim.score = 0;
    sim.initial_pixels = sim.terrain().count();
    sim.count_components();
    sim.pending.clear();
    sim.restart_requested = false;
    let image = assets.load(TARGET_PATH);
    // Spread over the terrain right of the thrower, one per band, clear of the overlay's
    // panel on the right.
    let (from, span) = (TARGETS_FROM, TARGETS_TO - TARGETS_FROM);
    let band = span / TARGET_COUNT as f32;
    for k in 0..TARGET_COUNT {
        let x = from + band * k as f32 + sim.rng.range(10.0, band - 10.0);
        let top = sim.terrain.ground_below(x, 400.0).unwrap_or(0.0);
        let at = Vec2::new(x, top + TARGET_HALF);
        commands.spawn((
            Name::new(format!("Target {k}")),
            Sprite::from_image(image.clone()),
            Transform::from_translation(at.extend(2.0)).with_scale(Vec3::splat(TARGET_SCALE)),
            FixedPose::at(at, 0.0),
            PixelCollider::default(),
            Target::default(),
            DespawnOnExit(GameScene::Terrain),
        ));
    }
    sim.targets_left = TARGET_COUNT;
}

/// The scene's view of the terrain follows the plugin's mask after its edits, pieces and
/// settling (a restart shows the pristine one until the sprite has taken it again).
fn follow_the_terrain(
    sim: Option<ResMut<TerrainSim>>,
    terrain: Query<(&PixelColliderMask, &DestructibleState), With<TerrainSprite>>,
) {
    let Some(mut sim) = sim else { return };
    let Ok((placed, state)) = terrain.get(sim.ground) else {
        return;
    };
    // What the overlay shows: the craters' edits with cutting loose what they separated.
    // Logged too, so the web build's time for it can be read off the browser's console.
    if state.last_edit_micros > 0.0 {
        sim.last_edit_micros = state.last_edit_micros;
        info!(
            "terrain edit: {:.0} µs (craters and the pieces they cut loose)",
            state.last_edit_micros
        );
    }
    let Some(mask) = placed.mask.as_ref() else {
        return;
    };
    if !Arc::ptr_eq(mask, sim.terrain.terrain_shared()) {
        sim.terrain = TerrainWorld::new(Arc::clone(mask));
        sim.count_components();
    }
}

/// The pieces a crater cut loose: a little bounce of their own, drawn between steps and
/// in front of the terrain; the targets standing on one ride it down.
fn pieces_cut_loose(
    mut commands: Commands,
    mut cut: MessageReader<PixelPieceDetached>,
    sim: Option<ResMut<TerrainSim>>,
    mut transforms: Query<&mut Transform, Without<Target>>,
    mut targets: Query<(&FixedPose, &mut Target)>,
) {
    let Some(mut sim) = sim else {
        cut.clear();
        return;
    };
    let ground = sim.ground;
    for piece in cut.read().filter(|p| p.source == ground) {
        sim.last_pieces += 1;
        commands.entity(piece.piece).insert((
            Name::new("Falling piece"),
            Restitution::new(bodies::PIECE_RESTITUTION),
            TransformInterpolation,
            DespawnOnExit(GameScene::Terrain),
        ));
        let Ok(mut transform) = transforms.get_mut(piece.piece) else {
            continue;
        };
        transform.translation.z = 1.0;
        let center = transform.translation.truncate();
        for (pose, mut target) in &mut targets {
            let at = pose.current.translation;
            if stands_on(&piece.mask, center, at) {
                target.velocity = 0.0;
                target.riding = Some(Riding {
                    piece: piece.piece,
                    offset: at - center,
                });
            }
        }
    }
}

/// Aim, power, throw, set off, restart.
fn play(
    mut commands: Commands,
    time: Res<Time>,
    controls: Res<Controls>,
    sim: Option<ResMut<TerrainSim>>,
    balls: Query<(Entity, &FlyingBall, &Position)>,
) {
    let Some(mut sim) = sim else { return };
    let dt = time.delta_secs();
    let stick = if controls.move_primary.is_finite() {
        controls.move_primary.clamp_length_max(1.0)
    } else {
        Vec2::ZERO
    };
    sim.aim = (sim.aim + stick.y * AIM_SPEED * dt).clamp(AIM_RANGE.0, AIM_RANGE.1);
    sim.power = (sim.power + stick.x * POWER_SPEED * dt).clamp(POWER_RANGE.0, POWER_RANGE.1);
    if controls.detonate
        && let Some((ball, _, at)) = balls.iter().min_by_key(|(_, ball, _)| ball.thrown)
    {
        sim.explode_ball(ball, at.0);
    }
    if !controls.action {
        return;
    }
    if sim.round_over() {
        // Carried out by `start_round`, which has what a restart needs.
        sim.restart_requested = true;
    } else if let Some(ball) = sim.throw() {
        commands.spawn(ball);
    }
}

/// Balls in play, for the round's end and the throw limit.
fn count_balls(sim: Option<ResMut<TerrainSim>>, balls: Query<(), With<FlyingBall>>) {
    if let Some(mut sim) = sim {
        let count = balls.iter().count();
        if sim.balls_in_play != count {
            sim.balls_in_play = count;
        }
    }
}

/// Carves the craters asked for this frame, mask and picture together (the plugin cuts
/// loose what they separate from the ground); pushes balls, pieces and Larry away;
/// destroys the targets they reach.
fn carve_craters(
    mut commands: Commands,
    settings: Res<TerrainSettings>,
    sim: Option<ResMut<TerrainSim>>,
    mut edits: PixelEdits,
    targets: Query<(Entity, &Transform), With<Target>>,
    mut bodies: Query<(&Position, &mut LinearVelocity)>,
    (mut stats, mut larries): (
        ResMut<CollisionStats>,
        Query<(&mut TerrainLarry, &FixedPose)>,
    ),
    mut activity: ResMut<SceneActivity>,
) {
    let Some(mut sim) = sim else { return };
    if sim.pending.is_empty() {
        return;
    }
    let started = Instant::now();
    let radius = settings.sanitised().crater_radius;
    let craters = std::mem::take(&mut sim.pending);
    let sim = &mut *sim;
    sim.last_pieces = 0;
    for &(at, ball) in &craters {
        if let Some(ball) = ball {
            commands.entity(ball).try_despawn();
            sim.balls_in_play = sim.balls_in_play.saturating_sub(1);
        }
        match edits.carve_circle(sim.ground, at, radius) {
            Ok(_) => activity.events += 1,
            // The terrain is taking its pixels afresh after a restart: no crater.
            Err(err) => debug!("no crater at {at}: {err}"),
        }
    }
    // Balls and pieces the blast reaches (pieces cut loose this frame start still).
    for &(at, _) in &craters {
        for (position, mut velocity) in &mut bodies {
            velocity.0 += bodies::blast_push(at, radius, BLAST_PUSH, position.0);
        }
    }
    // Larry, if the blast reaches him.
    for &(at, _) in &craters {
        for (mut larry, pose) in &mut larries {
            let center = pose.current.translation;
            let falloff = 1.0 - center.distance(at) / (3.0 * radius);
            if falloff > 0.0 && larry.body.is_some() {
                larry.velocity += (center - at).normalize_or(Vec2::Y) * BLAST_PUSH * falloff;
                larry.grounded = false;
            }
        }
    }
    // Targets the blast reaches.
    let reach = radius + TARGET_HALF;
    for (entity, transform) in &targets {
        let at = transform.translation.truncate();
        if craters.iter().any(|(c, _)| c.distance(at) <= reach) {
            commands.entity(entity).despawn();
            sim.score += 1;
            sim.targets_left = sim.targets_left.saturating_sub(1);
        }
    }
    stats.micros = started.elapsed().as_secs_f32() * 1e6;
}

/// Whether a target at world `at` stands on a piece whose mask is `piece`, centered at
/// world `center` (unturned, as it breaks off): a pixel of it lies within [`RIDE_REACH`]
/// below the target's feet, in the column under its center.
fn stands_on(piece: &BitMask, center: Vec2, at: Vec2) -> bool {
    let feet = Vec2::new(at.x, at.y - TARGET_HALF) - center;
    if !feet.is_finite() {
        return false;
    }
    let (w, h) = (piece.width() as f32, piece.height() as f32);
    let (column, row) = (
        (feet.x + w / 2.0).floor() as i64,
        (h / 2.0 - feet.y).round() as i64,
    );
    (row..row + RIDE_REACH).any(|y| piece.get(column, y))
}

/// Targets ride the pieces they stood on while those fall; then, and when a crater took
/// their ground, they fall until they stand on the terrain again. One that a piece laid
/// down over it (or that it rode into the ground) climbs to the surface above it.
fn fall_targets(
    time: Res<Time>,
    sim: Option<Res<TerrainSim>>,
    mut targets: Query<(&mut Target, &mut FixedPose)>,
    pieces: Query<(&Position, &Rotation), With<DetachedPiece>>,
) {
    let Some(sim) = sim else { return };
    let dt = time.delta_secs();
    let floor = sim
        .terrain
        .to_world(Vec2::new(0.0, sim.terrain().height() as f32))
        .y;
    for (mut target, mut pose) in &mut targets {
        if let Some(riding) = target.riding {
            match pieces.get(riding.piece) {
                Ok((position, rotation)) if position.0.is_finite() => {
                    // Upright wherever the piece turns.
                    pose.set(position.0 + *rotation * riding.offset, 0.0);
                    continue;
                }
                // Laid back into the terrain (or lost): on its own again.
                _ => target.riding = None,
            }
        }
        let at = pose.current.translation;
        if let Some(surface) =
            sim.terrain
                .surface_above(at.x, at.y - TARGET_HALF, 2.0 * TARGET_HALF)
        {
            target.velocity = 0.0;
            pose.set(Vec2::new(at.x, surface + TARGET_HALF), 0.0);
            continue;
        }
        let feet = at.y - TARGET_HALF;
        let drop = (target.velocity + FALL_GRAVITY * dt) * dt;
        // Nothing below: it comes to rest on the terrain's bottom edge.
        let ground = sim.terrain.ground_below(at.x, feet + 0.5).unwrap_or(floor);
        if feet - drop <= ground {
            target.velocity = 0.0;
            pose.set(Vec2::new(at.x, ground + TARGET_HALF), 0.0);
        } else {
            target.velocity += FALL_GRAVITY * dt;
            pose.set(Vec2::new(at.x, at.y - drop), 0.0);
        }
    }
}

/// Larry walks the terrain by the arrow keys (right stick): the plugin's character
/// controller moves his body through the ground and its pieces (stepping up ledges of
/// [`STEP_UP`], climbing slopes, kept on the ground), falling and pushed by blasts as his
/// velocity says; drawn between fixed steps with the walking frames of his sheet.
#[allow(clippy::type_complexity)]
fn walk_larry(
    time: Res<Time>,
    controls: Res<Controls>,
    images: Res<Assets<Image>>,
    collisions: PixelCollisions,
    others: Query<Entity, Or<(With<FlyingBall>, With<BallInHand>, With<Target>)>>,
    mut larries: Query<(
        Entity,
        &mut TerrainLarry,
        &mut Larry,
        &LarrySheet,
        &PixelColliderMask,
        &mut Sprite,
        &mut FixedPose,
    )>,
) {
    let dt = time.delta_secs();
    if !(dt.is_finite() && dt > 0.0) {
        return;
    }
    let settings = CharacterSettings {
        autostep: Some(Autostep {
            max_height: STEP_UP,
            min_width: 1.0,
        }),
        max_slope_climb_angle: 60f32.to_radians(),
        snap_to_ground: Some(STEP_UP),
        // Larry walks upright whatever the slope: no use for the ground's normal.
        find_ground_normal: false,
        ..default()
    };
    for (entity, mut larry, mut animation, sheet, collider, mut sprite, mut pose) in &mut larries {
        if larry.body.is_none() {
            larry.body = match sheet.state {
                SheetState::Loading => None,
                SheetState::Ready(grid) => images
                    .get(&sheet.image)
                    .and_then(|image| body_from_sheet(image, &grid)),
                // The placeholder he is shown as.
                SheetState::Failed => collider.mask.as_deref().cloned(),
            }
            .map(Arc::new);
        }
        let Some(body) = larry.body.clone() else {
            continue;
        };
        let walk = if controls.move_secondary.x.is_finite() {
            controls.move_secondary.x.clamp(-1.0, 1.0)
        } else {
            0.0
        };
        if larry.grounded {
            larry.velocity.x *= (1.0 - GROUND_DRAG * dt).max(0.0);
        }
        larry.velocity.y -= PIECE_GRAVITY * dt;
        larry.velocity = larry.velocity.clamp_length_max(3000.0);
        let desired = (larry.velocity + Vec2::new(walk * TERRAIN_WALK_SPEED, 0.0)) * dt;
        // The ground and its pieces: not himself, nor the balls and targets.
        let filter =
            PixelQueryFilter::from_layers(GROUND_LAYER).excluding(others.iter().chain([entity]));
        let center = pose.current.translation;
        let moved = collisions.move_character(
            &body,
            TerrainLarry::body_to_world(&body, center),
            desired,
            larry.grounded,
            &settings,
            &filter,
        );
        // What stopped him takes that part of his speed.
        if (moved.translation.x - desired.x).abs() > 1e-3 {
            larry.velocity.x = 0.0;
        }
        if desired.y > 0.0 && moved.translation.y < desired.y - 1e-3 {
            larry.velocity.y = 0.0;
        }
        larry.grounded = moved.grounded;
        if larry.grounded && larry.velocity.y < 0.0 {
            larry.velocity.y = 0.0;
        }
        animation.animate(Vec2::new(walk, 0.0), dt, sheet, &mut sprite);
        pose.set(center + moved.translation, 0.0);
    }
}

/// Every frame of a color-keyed sheet laid over one another: the pixels any frame of the
/// walk cycle covers.
fn body_from_sheet(image: &Image, grid: &SheetGrid) -> Option<BitMask> {
    let data = image.data.as_deref()?;
    let width = image.width() as usize;
    let mut body = BitMask::try_new(grid.frame.x, grid.frame.y).ok()?;
    for index in 0..grid.count {
        let origin = grid.origin(index);
        for y in 0..grid.frame.y {
            for x in 0..grid.frame.x {
                let at = ((origin.y + y) as usize * width + (origin.x + x) as usize) * 4;
                let pixel = data.get(at..at + 4)?;
                if pixel[3] > 0 && pixel[..3] != COLOR_KEY {
                    body.set(i64::from(x), i64::from(y), true);
                }
            }
        }
    }
    Some(body)
}

/// A ball touching a target scores it.
fn hit_targets(
    mut commands: Commands,
    mut started: MessageReader<PixelCollisionStart>,
    sim: Option<ResMut<TerrainSim>>,
    balls: Query<(), With<FlyingBall>>,
    targets: Query<(), With<Target>>,
) {
    let Some(mut sim) = sim else {
        started.clear();
        return;
    };
    for touch in started.read() {
        let target = if balls.contains(touch.collider1) && targets.contains(touch.collider2) {
            touch.collider2
        } else if balls.contains(touch.collider2) && targets.contains(touch.collider1) {
            touch.collider1
        } else {
            continue;
        };
        if targets.contains(target) {
            commands.entity(target).try_despawn();
            sim.score += 1;
            sim.targets_left = sim.targets_left.saturating_sub(1);
        }
    }
}

/// The ball in the thrower's hand, while a throw is left.
fn show_ball_in_hand(
    sim: Option<Res<TerrainSim>>,
    mut ball: Query<&mut Visibility, With<BallInHand>>,
) {
    let Some(sim) = sim else { return };
    let Ok(mut visibility) = ball.single_mut() else {
        return;
    };
    let wanted = if sim.throws_left > 0 && !sim.round_over() && sim.balls_in_play < MOST_BALLS {
        Visibility::Inherited
    } else {
        Visibility::Hidden
    };
    if *visibility != wanted {
        *visibility = wanted;
    }
}

fn write_status(sim: Option<Res<TerrainSim>>, mut status: ResMut<StatusLine>) {
    let Some(sim) = sim else {
        status.0 = "Loading the terrain…".into();
        return;
    };
    status.0 = if sim.targets_left == 0 {
        format!("All {TARGET_COUNT} targets down! Space plays again")
    } else if sim.round_over() {
        format!(
            "Out of throws: {} of {TARGET_COUNT} targets. Space plays again",
            sim.score
        )
    } else {
        format!(
            "W/S aim · A/D power · Space throws · Enter sets a ball off · arrows walk Larry · {} throws left · {} of {TARGET_COUNT} targets",
            sim.throws_left, sim.score
        )
    };
}

/// `--autoplay`: the aim sweeps up and down, a throw every three seconds (a throw explodes
/// where it comes to rest), and Larry walks right, then left.
fn autoplay(time: Res<Time>, mut controls: ResMut<Controls>) {
    let t = time.elapsed_secs();
    controls.move_primary = Vec2::new(0.3 * (t * 0.7).cos(), (t * 0.9).sin());
    controls.move_secondary = Vec2::new((t * 0.4).sin().signum(), 0.0);
    controls.action = t % 3.0 < time.delta_secs();
}

/// Where the bridge that holds the hilltop is (world px), and when autoplay blows it.
const BRIDGE: Vec2 = Vec2::new(360.0, 24.0);
const BRIDGE_AT_SECONDS: f32 = 4.0;

/// `--autoplay`, once per round: a crater at the bridge, so the hilltop comes loose and
/// tumbles.
fn blow_the_bridge(time: Res<Time>, sim: Option<ResMut<TerrainSim>>, mut blown: Local<bool>) {
    let Some(mut sim) = sim else {
        *blown = false;
        return;
    };
    if !*blown && time.elapsed_secs() >= BRIDGE_AT_SECONDS {
        *blown = true;
        sim.explode_at(BRIDGE);
    }
}
