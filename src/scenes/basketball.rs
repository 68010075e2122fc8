//! Scene "Bouncing basketball": the tutorial's physics demo. A basketball launched from the
//! top left (Space / gamepad A, random horizontal speed from a seeded generator) falls onto
//! a descending staircase of brick, stone and slow stone, bounces, rolls and leaves the
//! screen. The physics is [`crate::sim::ball`]; this file only feeds it.
//!
//! - The world is built once every sprite's pixel mask has loaded (the collision plugin's
//!   [`PixelColliderMask`]s: the sprites are [`PixelCollider`]s); until
//!   then the scene waits and says so. On becoming ready it launches one ball by itself
//!   ([`BasketballSettings::launch_on_enter`]), so the scene opens in motion.
//! - [`BallWorld::step`] runs in `FixedUpdate`, at the game's one fixed rate
//!   ([`crate::motion`]); the ball's sprite is drawn between the last two physics
//!   states by `Time<Fixed>::overstep_fraction`, so the trajectory does not depend on the
//!   frame rate.
//! - The overlay's values live in [`BasketballSettings`] and are sanitised on their way into
//!   the physics, so nothing typed or dragged there can break the simulation.

use bevy::platform::time::Instant;
use std::collections::VecDeque;
use std::f32::consts::FRAC_PI_4;
use std::ops::RangeInclusive;
use std::sync::Arc;

use bevy::math::bounding::{BoundingVolume, IntersectsVolume};
use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};

use crate::autoplay::AutoplaySystems;
use crate::input::Controls;
use crate::overlay::overlay_shown;
use crate::scene::GameScene;
use crate::sim::ball::{
    BRICK, BallWorld, GRAVITY, LAUNCH_SPEED, LAUNCH_START, Material, SLOW_STONE, STAIRCASE, STONE,
};
use crate::{AppSystems, CollisionStats, StatusLine};
use bevy_pixel_collide::debug::{PixelDebugGizmos, PixelDebugSettings};
use bevy_pixel_collide::{PixelCollider, PixelColliderMask, PixelCollisionSystems};
use pixel_collide::{BitMask, Contact, sprite_to_world, transformed_overlap, world_bounds};
use pixel_collide_seeded::rng::SplitMix64;

/// The platforms top to bottom, as in [`STAIRCASE`]: name and texture.
pub const PLATFORMS: [(&str, &str); 3] = [
    ("Brick", "brick.png"),
    ("Stone", "stone.png"),
    ("Slow stone", "slow_stone.png"),
];
const BALL_TEXTURE: &str = "basketball.png";

/// Gravity the overlay allows, px/s² downward: up to about three times the default. Zero
/// is allowed (the ball then flies straight on); upward gravity is not offered.
pub const GRAVITY_RANGE: RangeInclusive<f32> = 0.0..=3000.0;
/// Friction per 1/60 s of contact: below 0.5 the ball stops dead in a few frames, which
/// shows nothing the slow stone does not.
pub const FRICTION_RANGE: RangeInclusive<f32> = 0.5..=1.0;
/// Restitution: above 1 a bounce would add energy.
pub const ELASTICITY_RANGE: RangeInclusive<f32> = 0.0..=1.0;
/// Horizontal launch speeds, px/s: 0 drops the ball; 1500 clears the whole staircase.
pub const LAUNCH_SPEED_RANGE: RangeInclusive<f32> = 0.0..=1500.0;
/// Platform angles, radians: steeper than 45° the ball just slides off, and the
/// staircase's platforms would start to cross each other.
pub const ANGLE_RANGE: RangeInclusive<f32> = -FRAC_PI_4..=FRAC_PI_4;
/// Fixed steps of path the trail remembers: ten seconds at 60 Hz, longer than most flights.
pub const TRAIL_LENGTH: usize = 600;
/// Seed of the launch speeds: every session launches the same sequence of balls. Chosen so
/// that the first (the automatic one, 170 px/s) bounces on all three platforms and comes
/// to rest on the slow stone.
pub const LAUNCH_SEED: u64 = 0x000B_0BBA_5CE7_BA11;

/// What the overlay tunes. Written freely (the overlay, tests); every value is clamped to
/// its range, NaN replaced by the default, by [`BasketballSettings::sanitised`] before use.
#[derive(Resource, Debug, Clone, PartialEq)]
pub struct BasketballSettings {
    /// px/s², pulling down.
    pub gravity: f32,
    /// Per platform, top to bottom.
    pub materials: [Material; 3],
    /// Per platform, radians, counter-clockwise.
    pub angles: [f32; 3],
    /// Launch speeds are drawn uniformly from `min..=max`, px/s.
    pub launch_speed: (f32, f32),
    /// Draw the ball's recent path.
    pub trail: bool,
    /// Launch one ball as soon as the scene is ready.
    pub launch_on_enter: bool,
}

impl Default for BasketballSettings {
    fn default() -> Self {
        BasketballSettings {
            gravity: -GRAVITY.y,
            materials: [BRICK, STONE, SLOW_STONE],
            angles: STAIRCASE.map(|(_, angle, _)| angle),
            launch_speed: (*LAUNCH_SPEED.start(), *LAUNCH_SPEED.end()),
            trail: true,
            launch_on_enter: true,
        }
    }
}

/// `x` within `range`; NaN becomes `default`.
fn clamp_or(x: f32, range: &RangeInclusive<f32>, default: f32) -> f32 {
    if x.is_nan() {
        default
    } else {
        x.clamp(*range.start(), *range.end())
    }
}

impl BasketballSettings {
    /// Every value within its range; NaN falls back to the default's value. The launch
    /// range is put in order.
    pub fn sanitised(&self) -> BasketballSettings {
        let default = BasketballSettings::default();
        let mut materials = self.materials;
        for (m, d) in materials.iter_mut().zip(default.materials) {
            m.friction = clamp_or(m.friction, &FRICTION_RANGE, d.friction);
            m.elasticity = clamp_or(m.elasticity, &ELASTICITY_RANGE, d.elasticity);
        }
        let mut angles = self.angles;
        for (a, d) in angles.iter_mut().zip(default.angles) {
            *a = clamp_or(*a, &ANGLE_RANGE, d);
        }
        let lo = clamp_or(
            self.launch_speed.0,
            &LAUNCH_SPEED_RANGE,
            default.launch_speed.0,
        );
        let hi = clamp_or(
            self.launch_speed.1,
            &LAUNCH_SPEED_RANGE,
            default.launch_speed.1,
        );
        BasketballSettings {
            gravity: clamp_or(self.gravity, &GRAVITY_RANGE, default.gravity),
            materials,
            angles,
            launch_speed: (lo.min(hi), lo.max(hi)),
            trail: self.trail,
            launch_on_enter: self.launch_on_enter,
        }
    }
}

/// The generator of launch speeds. Kept across scene visits, so the sequence goes on.
#[derive(Resource, Debug, Clone)]
pub struct LaunchRng(SplitMix64);

impl Default for LaunchRng {
    fn default() -> Self {
        LaunchRng(SplitMix64(LAUNCH_SEED))
    }
}

/// The running simulation: present only while the scene is shown and its masks have loaded.
#[derive(Resource, Debug, Clone)]
pub struct BallSim {
    pub world: BallWorld,
    /// Fixed steps run since the last launch.
    pub steps_since_launch: u32,
    /// The ball's physics position after each fixed step since the launch (the launch point
    /// first), at most [`TRAIL_LENGTH`] of them.
    pub trail: VecDeque<Vec2>,
    /// The speed the last ball was launched with, px/s.
    pub launch_speed: f32,
    /// The platform (index into `world.platforms`) the ball lies on or against after the
    /// last step, and where: for the debug drawing.
    pub touching: Option<(usize, Contact)>,
    /// The basketball texture, for respawning the ball's sprite.
    ball_image: Handle<Image>,
}

impl BallSim {
    /// A new ball at `start` moving horizontally at `speed_x`, replacing any in play.
    pub fn launch(&mut self, start: Vec2, speed_x: f32) {
        self.world.launch(start, speed_x);
        self.launch_speed = self.world.ball.as_ref().map_or(0.0, |b| b.velocity.x);
        self.steps_since_launch = 0;
        self.trail.clear();
        self.trail.push_back(start);
        self.touching = None;
    }

    /// A launch from [`LAUNCH_START`] at a speed drawn from the settings' range.
    pub fn launch_random(&mut self, settings: &BasketballSettings, rng: &mut LaunchRng) {
        let (lo, hi) = settings.sanitised().launch_speed;
        self.launch(LAUNCH_START, rng.0.range(lo, hi));
    }
}

/// A platform's sprite: its index in [`PLATFORMS`] and the world's platforms.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlatformSprite(pub usize);

/// The basketball's sprite: exists while a ball is in play (and while loading, waiting at
/// the start, so that its mask gets built).
#[derive(Component, Debug, Clone, Copy, Default)]
pub struct BallSprite;

pub(crate) fn plugin(app: &mut App) {
    app.init_resource::<BasketballSettings>()
        .init_resource::<LaunchRng>()
        .add_systems(OnEnter(GameScene::Basketball), spawn_scene)
        .add_systems(OnExit(GameScene::Basketball), leave_scene)
        .add_systems(
            FixedUpdate,
            step_world.run_if(in_state(GameScene::Basketball)),
        )
        // As soon as the collision plugin has given the sprites their masks, in the same
        // frame.
        .add_systems(
            PostUpdate,
            build_world
                .after(PixelCollisionSystems::Masks)
                .run_if(in_state(GameScene::Basketball)),
        )
        .add_systems(
            Update,
            autoplay
                .in_set(AutoplaySystems)
                .run_if(in_state(GameScene::Basketball)),
        )
        .add_systems(
            Update,
            (launch, place_platforms, place_ball, write_status)
                .chain()
                .in_set(AppSystems::Update)
                .run_if(in_state(GameScene::Basketball)),
        );
}

fn spawn_scene(
    mut commands: Commands,
    assets: Res<AssetServer>,
    settings: Res<BasketballSettings>,
) {
    let angles = settings.sanitised().angles;
    for (i, ((name, texture), (center, _, _))) in PLATFORMS.into_iter().zip(STAIRCASE).enumerate() {
        commands.spawn((
            Name::new(name),
            Sprite::from_image(assets.load(texture)),
            Transform::from_translation(center.extend(0.0))
                .with_rotation(Quat::from_rotation_z(angles[i])),
            PixelCollider::default(),
            PlatformSprite(i),
            DespawnOnExit(GameScene::Basketball),
        ));
    }
    commands.spawn(ball_sprite(assets.load(BALL_TEXTURE), LAUNCH_START, 0.0));
}

fn ball_sprite(image: Handle<Image>, position: Vec2, angle: f32) -> impl Bundle {
    (
        Name::new("Basketball"),
        Sprite::from_image(image),
        Transform::from_translation(position.extend(2.0))
            .with_rotation(Quat::from_rotation_z(angle)),
        PixelCollider::default(),
        BallSprite,
        DespawnOnExit(GameScene::Basketball),
    )
}

fn leave_scene(mut commands: Commands) {
    commands.remove_resource::<BallSim>();
}

/// Builds the world from the sprites' masks once all four have loaded.
fn build_world(
    mut commands: Commands,
    sim: Option<Res<BallSim>>,
    settings: Res<BasketballSettings>,
    mut rng: ResMut<LaunchRng>,
    platforms: Query<(&PlatformSprite, &PixelColliderMask)>,
    ball: Query<(&Sprite, &PixelColliderMask), With<BallSprite>>,
) {
    if sim.is_some() {
        return;
    }
    let mut platform_masks: [Option<Arc<BitMask>>; 3] = Default::default();
    for (PlatformSprite(i), collider) in &platforms {
        if let Some(slot) = platform_masks.get_mut(*i) {
            *slot = collider.mask.clone();
        }
    }
    let Ok((ball_sprite, ball_collider)) = ball.single() else {
        return;
    };
    let (Some(ball_mask), [Some(brick), Some(stone), Some(slow_stone)]) =
        (ball_collider.mask.as_ref(), platform_masks)
    else {
        return;
    };
    let mut world = BallWorld::tutorial(Arc::clone(ball_mask), brick, stone, slow_stone);
    apply_settings(&mut world, &settings.sanitised());
    let mut sim = BallSim {
        world,
        steps_since_launch: 0,
        trail: VecDeque::new(),
        launch_speed: 0.0,
        touching: None,
        ball_image: ball_sprite.image.clone(),
    };
    if settings.launch_on_enter {
        sim.launch_random(&settings, &mut rng);
    }
    commands.insert_resource(sim);
}

/// Settings (already sanitised) into the physics.
fn apply_settings(world: &mut BallWorld, settings: &BasketballSettings) {
    world.gravity = Vec2::new(0.0, -settings.gravity);
    for ((platform, material), angle) in world
        .platforms
        .iter_mut()
        .zip(settings.materials)
        .zip(settings.angles)
    {
        platform.material = material;
        platform.angle = angle;
    }
}

fn launch(
    controls: Res<Controls>,
    settings: Res<BasketballSettings>,
    mut rng: ResMut<LaunchRng>,
    sim: Option<ResMut<BallSim>>,
) {
    if controls.action
        && let Some(mut sim) = sim
    {
        sim.launch_random(&settings, &mut rng);
    }
}

/// One fixed step of the physics, then what the overlay and debug drawing show of it.
fn step_world(
    time: Res<Time>,
    settings: Res<BasketballSettings>,
    sim: Option<ResMut<BallSim>>,
    mut stats: ResMut<CollisionStats>,
) {
    let Some(mut sim) = sim else {
        return;
    };
    let started = Instant::now();
    let sim = &mut *sim;
    apply_settings(&mut sim.world, &settings.sanitised());
    sim.world.step(time.delta_secs());
    let Some(ball) = &sim.world.ball else {
        sim.touching = None;
        *stats = CollisionStats::default();
        return;
    };
    sim.steps_since_launch = sim.steps_since_launch.saturating_add(1);
    if sim.trail.len() >= TRAIL_LENGTH {
        sim.trail.pop_front();
    }
    sim.trail.push_back(ball.position);

    // The physics reports only how many contacts it resolved; where the ball touches is
    // probed here, one pixel along gravity (how the physics itself finds a resting touch),
    // so a ball lying or rolling on a platform shows its contact every step.
    let down = sim.world.gravity.normalize_or_zero();
    let probe = sprite_to_world(
        ball.position + down,
        ball.angle,
        Vec2::ONE,
        ball.mask.size(),
    );
    let ball_box = world_bounds(ball.mask.size(), probe);
    let mut broad_pairs = 0;
    sim.touching = None;
    for (i, platform) in sim.world.platforms.iter().enumerate() {
        let to_world = platform.to_world();
        if !ball_box.intersects(&world_bounds(platform.mask.size(), to_world)) {
            continue;
        }
        broad_pairs += 1;
        if sim.touching.is_none()
            && let Some(contact) = transformed_overlap(&ball.mask, probe, &platform.mask, to_world)
        {
            sim.touching = Some((i, contact));
        }
    }
    *stats = CollisionStats {
        broad_pairs,
        pixel_tests: broad_pairs,
        contacts: sim.world.contacts_last_step,
        micros: started.elapsed().as_secs_f32() * 1e6,
    };
}

fn place_platforms(
    settings: Res<BasketballSettings>,
    mut platforms: Query<(&PlatformSprite, &mut Transform)>,
) {
    let angles = settings.sanitised().angles;
    for (PlatformSprite(i), mut transform) in &mut platforms {
        if let Some(&angle) = angles.get(*i) {
            let rotation = Quat::from_rotation_z(angle);
            // Written only on change, so an unchanged sprite is not marked for propagation.
            if transform.rotation != rotation {
                transform.rotation = rotation;
            }
        }
    }
}

/// Shows the ball between its last two physics states, spawning its sprite for a new ball
/// and removing it once the ball has left the screen.
fn place_ball(
    mut commands: Commands,
    sim: Option<Res<BallSim>>,
    fixed: Res<Time<Fixed>>,
    mut sprites: Query<(Entity, &mut Transform), With<BallSprite>>,
) {
    // While loading, the sprite waits at the start.
    let Some(sim) = sim else { return };
    let Some(ball) = &sim.world.ball else {
        for (entity, _) in &sprites {
            commands.entity(entity).despawn();
        }
        return;
    };
    let (position, angle) = ball.interpolated(fixed.overstep_fraction());
    let mut placed = false;
    for (_, mut transform) in &mut sprites {
        transform.translation = position.extend(transform.translation.z);
        transform.rotation = Quat::from_rotation_z(angle);
        placed = true;
    }
    if !placed {
        commands.spawn(ball_sprite(sim.ball_image.clone(), position, angle));
    }
}

fn write_status(sim: Option<Res<BallSim>>, mut status: ResMut<StatusLine>) {
    let Some(sim) = sim else {
        status.0 = "Loading textures…".to_owned();
        return;
    };
    status.0 = match &sim.world.ball {
        Some(ball) => format!(
            "Space / A launches · speed {:.0} px/s · contacts {}",
            ball.velocity.length(),
            sim.world.contacts_last_step
        ),
        None => "Space / A launches · no ball in play".to_owned(),
    };
}

/// The scene's overlay window (egui) and drawing: added only with a window, never in
/// headless tests.
pub(crate) fn overlay_plugin(app: &mut App) {
    app.add_systems(
        EguiPrimaryContextPass,
        settings_window.run_if(in_state(GameScene::Basketball).and_then(overlay_shown)),
    )
    .add_systems(
        Update,
        (draw_trail, draw_debug)
            .after(AppSystems::Collide)
            .run_if(in_state(GameScene::Basketball)),
    );
}

const TRAIL_COLOR: Color = Color::srgba(1.0, 0.6, 0.2, 0.8);

fn draw_trail(
    settings: Res<BasketballSettings>,
    sim: Option<Res<BallSim>>,
    ball: Query<&Transform, With<BallSprite>>,
    mut gizmos: Gizmos,
) {
    let Some(sim) = sim.filter(|_| settings.trail) else {
        return;
    };
    // The sprite is drawn between the last two steps: end the line there instead of at the
    // last step, which would poke out ahead of the ball.
    let rendered = ball
        .iter()
        .next()
        .filter(|_| sim.world.ball.is_some())
        .map(|t| t.translation.truncate());
    let steps = sim.trail.len() - usize::from(rendered.is_some()).min(sim.trail.len());
    gizmos.linestrip_2d(
        sim.trail.iter().take(steps).copied().chain(rendered),
        TRAIL_COLOR,
    );
}

/// The contact point and normal, and the touched platform's box highlighted. The boxes
/// themselves are drawn for every [`PixelCollider`] by the debug-draw plugin.
fn draw_debug(
    debug: Res<PixelDebugSettings>,
    sim: Option<Res<BallSim>>,
    mut gizmos: Gizmos<PixelDebugGizmos>,
) {
    // The debug drawing's palette, shared by every scene.
    let palette = *gizmos.config_ext;
    let Some(sim) = sim else { return };
    let Some((platform, contact)) = sim
        .touching
        .and_then(|(i, contact)| Some((sim.world.platforms.get(i)?, contact)))
    else {
        return;
    };
    if debug.aabb {
        let aabb = world_bounds(platform.mask.size(), platform.to_world());
        // A little larger than the plain box drawn under it, so both stay visible.
        gizmos.rect_2d(
            aabb.center(),
            aabb.max - aabb.min + Vec2::splat(6.0),
            palette.touching_color,
        );
    }
    if debug.contacts {
        gizmos.circle_2d(contact.point, 6.0, palette.contact_color);
        gizmos.arrow_2d(
            contact.point,
            contact.point + contact.normal * 40.0,
            palette.contact_color,
        );
    }
}

fn settings_window(
    mut contexts: EguiContexts,
    mut settings: ResMut<BasketballSettings>,
    mut rng: ResMut<LaunchRng>,
    sim: Option<ResMut<BallSim>>,
    mut chosen: Local<usize>,
) -> Result {
    let ctx = contexts.ctx_mut()?;
    // Bottom left: under the brick, left of the stone, clear of the main panel. Anchored,
    // so that it is back in its place whatever the window went through.
    let mut launch_now = false;
    egui::Window::new("Basketball")
        .anchor(egui::Align2::LEFT_BOTTOM, [8.0, -8.0])
        .default_width(250.0)
        .resizable(false)
        .show(ctx, |ui| {
            let s = &mut *settings;
            ui.add(egui::Slider::new(&mut s.gravity, GRAVITY_RANGE).text("gravity px/s²"));
            egui::Grid::new("materials").num_columns(3).show(ui, |ui| {
                ui.label("");
                ui.label("friction");
                ui.label("elasticity");
                ui.end_row();
                for ((name, _), m) in PLATFORMS.iter().zip(&mut s.materials) {
                    ui.label(*name);
                    ui.add(
                        egui::DragValue::new(&mut m.friction)
                            .range(FRICTION_RANGE)
                            .speed(0.001),
                    );
                    ui.add(
                        egui::DragValue::new(&mut m.elasticity)
                            .range(ELASTICITY_RANGE)
                            .speed(0.01),
                    );
                    ui.end_row();
                }
            });
            ui.horizontal(|ui| {
                ui.label("launch px/s");
                ui.add(egui::DragValue::new(&mut s.launch_speed.0).range(LAUNCH_SPEED_RANGE));
                ui.label("to");
                ui.add(egui::DragValue::new(&mut s.launch_speed.1).range(LAUNCH_SPEED_RANGE));
            });
            ui.horizontal(|ui| {
                ui.label("rotate");
                *chosen = (*chosen).min(PLATFORMS.len() - 1);
                egui::ComboBox::from_id_salt("platform")
                    .selected_text(PLATFORMS[*chosen].0)
                    .show_ui(ui, |ui| {
                        for (i, (name, _)) in PLATFORMS.iter().enumerate() {
                            ui.selectable_value(&mut *chosen, i, *name);
                        }
                    });
            });
            let mut degrees = s.angles[*chosen].to_degrees();
            let range = ANGLE_RANGE.start().to_degrees()..=ANGLE_RANGE.end().to_degrees();
            if ui
                .add(egui::Slider::new(&mut degrees, range).text("angle °"))
                .changed()
            {
                s.angles[*chosen] = degrees.to_radians();
            }
            ui.checkbox(&mut s.trail, "trail");
            ui.horizontal(|ui| {
                launch_now = ui.button("Launch").clicked();
                if ui.button("Defaults").clicked() {
                    *s = BasketballSettings::default();
                }
            });
            ui.separator();
            let readout = match sim.as_deref() {
                None => "loading".to_owned(),
                Some(BallSim {
                    world:
                        world @ BallWorld {
                            ball: Some(ball), ..
                        },
                    ..
                }) => format!(
                    "speed {:>4.0} px/s   contacts {}",
                    ball.velocity.length(),
                    world.contacts_last_step
                ),
                Some(_) => "no ball in play".to_owned(),
            };
            ui.monospace(readout);
        });
    if launch_now && let Some(mut sim) = sim {
        sim.launch_random(&settings, &mut rng);
    }
    Ok(())
}

/// `--autoplay`: a ball as soon as the platforms are in place and whenever none is in
/// play, and a new one every four seconds: the bounces show whatever the frame rate.
fn autoplay(
    time: Res<Time>,
    sim: Option<Res<BallSim>>,
    mut last_launch: Local<Option<f32>>,
    mut controls: ResMut<Controls>,
) {
    let Some(sim) = sim else { return };
    let now = time.elapsed_secs();
    let since = last_launch.map_or(f32::INFINITY, |last| now - last);
    controls.action = since >= 4.0 || (sim.world.ball.is_none() && since >= 0.5);
    if controls.action {
        *last_launch = Some(now);
    }
}
