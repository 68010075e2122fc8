//! Scene "Crowd": up to 20,000 of the game's sprites drifting, turning and bouncing off the
//! window's borders, each a [`PixelCollider`]: the collision plugin's broad phase and
//! per-pixel narrow phase find which touch, and those are tinted red. The scene's window
//! sets the number of sprites and switches the narrow phase between one thread and Bevy's
//! [`ComputeTaskPool`] ([`PixelCollisionConfig::parallel`]).
//!
//! The scene moves the sprites itself: the whole sprite bounces off the border, by a
//! table of how far each texture reaches at each angle (`Reach`). Each sprite's motion is
//! its [`CrowdMember`] component, stepped in `FixedUpdate` and drawn between steps
//! ([`FixedPose`]), as everything in the game that moves by itself.

use std::f32::consts::{PI, TAU};

use bevy::diagnostic::DiagnosticsStore;
use bevy::prelude::*;
use bevy::tasks::ComputeTaskPool;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};

use crate::motion::FixedPose;
use crate::overlay::{frames_per_second, overlay_shown};
use crate::play_area::PlayArea;
use crate::scene::GameScene;
use crate::sim::crowd::CrowdBody;
use crate::{AppSystems, CollisionStats, StatusLine};
use bevy_pixel_collide::debug::HiddenFromPixelDebug;
use bevy_pixel_collide::{
    PixelCollider, PixelColliderMask, PixelCollidingEntities, PixelCollisionConfig,
    PixelCollisionLayers, PixelCollisionStats, PixelCollisionSystems, PixelCollisions,
};
use pixel_collide::BitMask;
use pixel_collide_seeded::rng::SplitMix64;

/// The sprites bodies are drawn from, in sprite index order.
pub const TEXTURES: [&str; 5] = [
    "gem.png",
    "crate.png",
    "clover.png",
    "target.png",
    "soccer_ball.png",
];
pub const DEFAULT_COUNT: usize = 1_000;
pub const MIN_COUNT: usize = 10;
pub const MAX_COUNT: usize = 20_000;
/// Multiplied into the texture of a sprite whose pixels touch another's.
pub const TOUCH_TINT: Color = Color::srgb(1.0, 0.3, 0.25);

/// Share of the window the sprites' rectangles cover, whatever their number (the same
/// fixed density as `benches/crowd.rs`, so the numbers compare).
const COVERAGE: f32 = 0.15;
/// Sprite sizes in pixels (the larger side) are kept within these: at 20,000 sprites the
/// coverage above would make them specks.
const MIN_SIZE: f32 = 6.0;
const MAX_SIZE: f32 = 64.0;
/// A body is drawn at one of these multiples of the common size.
const SIZE_FACTORS: [f32; 3] = [0.7, 1.0, 1.4];
/// World units per second.
const SPEED: (f32, f32) = (30.0, 140.0);
/// Radians per second, either way.
const MAX_SPIN: f32 = 2.0;
/// The same crowd on every visit, so a player (and a test) can rely on it.
const SEED: u64 = 0xC0_5EED;
/// How much of each new frame's timing goes into the overlay's smoothed figures.
const SMOOTHING: f32 = 0.1;

/// What the player (or a test) asks of the scene; kept across visits. Whether the narrow
/// phase runs on the task pool is the plugin's [`PixelCollisionConfig`].
#[derive(Resource, Debug, Clone, Copy, PartialEq, Eq)]
pub struct CrowdSettings {
    /// Number of sprites; the scene clamps it to [`MIN_COUNT`]`..=`[`MAX_COUNT`].
    pub count: usize,
    /// Draw each sprite's debug shapes, as the debug toggles say. Off by default: at a
    /// thousand sprites the boxes bury them.
    pub show_boxes: bool,
}

impl Default for CrowdSettings {
    fn default() -> Self {
        CrowdSettings {
            count: DEFAULT_COUNT,
            show_boxes: false,
        }
    }
}

/// A sprite of the crowd: its place in the crowd (sprites past the count are removed
/// from the end), its motion, and its size relative to the common size.
#[derive(Component, Debug, Clone, Copy, PartialEq)]
pub struct CrowdMember {
    pub index: usize,
    /// Position, velocity, angle, spin, scale and texture (`sprite`, into [`TEXTURES`]).
    pub body: CrowdBody,
    factor: f32,
}

/// One hidden sprite per texture: it gets the texture's mask built by the plugin (or the
/// placeholder's, when the file is bad), and the crowd shows whatever image it ends up
/// with. In no collision layer, so it touches nothing.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
struct CrowdTexture(usize);

/// The crowd's textures and its sprite entities; exists while the scene is on.
#[derive(Resource, Default)]
pub struct CrowdSim {
    /// Per texture: the image shown, how far it reaches from its center, and its larger
    /// side in pixels. Empty until every texture's mask is ready.
    images: Vec<Handle<Image>>,
    reaches: Vec<Reach>,
    sides: Vec<f32>,
    /// Per sprite, in crowd order, its entity.
    entities: Vec<Entity>,
    /// The sprite count the scales were computed for.
    sized_for: usize,
    /// The window, as a world rectangle, the crowd moves in.
    bounds: Rect,
    rng: SplitMix64,
}

impl CrowdSim {
    /// Whether the textures' masks are ready and the crowd can be shown.
    pub fn ready(&self) -> bool {
        !self.images.is_empty()
    }

    /// Per sprite, in crowd order, the entity showing it.
    pub fn entities(&self) -> &[Entity] {
        &self.entities
    }

    /// The rectangle the sprites are kept inside.
    pub fn bounds(&self) -> Rect {
        self.bounds
    }
}

pub(crate) fn plugin(app: &mut App) {
    app.init_resource::<CrowdSettings>()
        .add_systems(OnEnter(GameScene::Crowd), spawn_scene)
        .add_systems(OnExit(GameScene::Crowd), |mut commands: Commands| {
            commands.remove_resource::<CrowdSim>();
        })
        .add_systems(
            Update,
            (load_textures, match_count, show_debug_shapes)
                .chain()
                .in_set(AppSystems::Update)
                .run_if(in_state(GameScene::Crowd)),
        )
        .add_systems(FixedUpdate, advance.run_if(in_state(GameScene::Crowd)))
        .add_systems(
            PostUpdate,
            (tint_touching, report)
                .after(PixelCollisionSystems::Events)
                .run_if(in_state(GameScene::Crowd)),
        );
}

/// The scene's overlay window (egui): added only with a window, never in headless tests.
pub(crate) fn overlay_plugin(app: &mut App) {
    app.add_systems(
        EguiPrimaryContextPass,
        crowd_window.run_if(in_state(GameScene::Crowd).and_then(overlay_shown)),
    );
}

// ---------------------------------------------------------------------------------------
// Simulation

fn spawn_scene(mut commands: Commands, assets: Res<AssetServer>, area: Res<PlayArea>) {
    commands.insert_resource(CrowdSim {
        rng: SplitMix64(SEED),
        bounds: area.0,
        ..default()
    });
    for (k, path) in TEXTURES.into_iter().enumerate() {
        commands.spawn((
            Name::new(format!("Crowd texture {path}")),
            Sprite::from_image(assets.load(path)),
            Transform::default(),
            Visibility::Hidden,
            PixelCollider::default(),
            PixelCollisionLayers::NONE,
            HiddenFromPixelDebug,
            CrowdTexture(k),
            DespawnOnExit(GameScene::Crowd),
        ));
    }
}

/// Takes each texture's image and reach once every texture has its mask.
fn load_textures(
    sim: Option<ResMut<CrowdSim>>,
    textures: Query<(&CrowdTexture, &Sprite, &PixelColliderMask)>,
) {
    let Some(mut sim) = sim.filter(|s| !s.ready()) else {
        return;
    };
    let mut found: Vec<(usize, Handle<Image>, &BitMask)> = textures
        .iter()
        .filter_map(|(texture, sprite, collider)| {
            Some((texture.0, sprite.image.clone(), collider.mask.as_deref()?))
        })
        .collect();
    if found.len() < TEXTURES.len() {
        return;
    }
    found.sort_by_key(|(k, _, _)| *k);
    sim.reaches = found.iter().map(|(_, _, mask)| Reach::new(mask)).collect();
    sim.sides = found
        .iter()
        .map(|(_, _, m)| m.width().max(m.height()).max(1) as f32)
        .collect();
    sim.images = found.into_iter().map(|(_, image, _)| image).collect();
}

/// Adds or removes sprites to match the settings; new ones start anywhere in the window.
/// Every sprite is resized when the count changes, so the crowd covers the same share of
/// the window at any count.
fn match_count(
    mut commands: Commands,
    mut settings: ResMut<CrowdSettings>,
    sim: Option<ResMut<CrowdSim>>,
    mut members: Query<(&mut CrowdMember, &mut Transform)>,
) {
    // Whatever a test or the overlay wrote, the scene runs a count it can afford.
    let count = settings.count.clamp(MIN_COUNT, MAX_COUNT);
    if settings.count != count {
        settings.count = count;
    }
    let Some(mut sim) = sim.filter(|s| s.ready()) else {
        return;
    };
    let sim = &mut *sim;
    for entity in sim.entities.drain(count.min(sim.entities.len())..) {
        commands.entity(entity).try_despawn();
    }
    let size = common_size(count, sim.bounds.size());
    let scale = |member: &CrowdMember, sides: &[f32]| {
        size * member.factor / sides.get(member.body.sprite).copied().unwrap_or(1.0)
    };
    if sim.sized_for != count {
        sim.sized_for = count;
        for (mut member, mut transform) in &mut members {
            member.body.scale = scale(&member, &sim.sides);
            transform.scale = body_transform(&member).scale;
        }
    }
    while sim.entities.len() < count {
        let index = sim.entities.len();
        let (body, factor) = random_body(&mut sim.rng, sim.bounds, sim.images.len());
        let mut member = CrowdMember {
            index,
            body,
            factor,
        };
        member.body.scale = scale(&member, &sim.sides);
        let image = sim.images.get(body.sprite).cloned().unwrap_or_default();
        let entity = commands
            .spawn((
                member,
                Sprite::from_image(image),
                body_transform(&member),
                FixedPose::at(body.position, body.angle),
                PixelCollider::default(),
                HiddenFromPixelDebug,
                DespawnOnExit(GameScene::Crowd),
            ))
            .id();
        sim.entities.push(entity);
    }
}

/// Moves and turns every sprite, then keeps the whole of it inside the window: a sprite
/// that reaches past a border is put back against it and sent away from it.
fn advance(
    time: Res<Time>,
    sim: Option<ResMut<CrowdSim>>,
    area: Res<PlayArea>,
    mut members: Query<(&mut CrowdMember, &mut FixedPose)>,
) {
    let Some(mut sim) = sim.filter(|s| s.ready()) else {
        return;
    };
    // The fixed step: the same on every machine, so the crowd's path is too.
    let dt = time.delta_secs();
    let bounds = area.0;
    if sim.bounds != bounds {
        sim.bounds = bounds;
    }
    let reaches = &sim.reaches;
    members.par_iter_mut().for_each(|(mut member, mut pose)| {
        let body = &mut member.body;
        step_body(body, reaches.get(body.sprite), bounds, dt);
        pose.set(body.position, body.angle);
    });
}

fn step_body(body: &mut CrowdBody, reach: Option<&Reach>, bounds: Rect, dt: f32) {
    body.position += body.velocity * dt;
    body.angle = (body.angle + body.angular_velocity * dt).rem_euclid(TAU);
    // A body that lost its numbers (only a test can do that) starts over in the middle,
    // at rest, rather than vanishing for good.
    if !body.position.is_finite() || !body.velocity.is_finite() || !body.angle.is_finite() {
        *body = CrowdBody {
            position: bounds.center(),
            velocity: Vec2::ZERO,
            angle: 0.0,
            angular_velocity: 0.0,
            ..*body
        };
    }
    let (lo, hi) = reach.map_or((Vec2::ZERO, Vec2::ZERO), |r| {
        r.extents(body.angle, body.scale)
    });
    // Where the center may be for the sprite to fit.
    let (min, max) = ((bounds.min - lo).to_array(), (bounds.max - hi).to_array());
    let (mut p, mut v) = (body.position.to_array(), body.velocity.to_array());
    for axis in 0..2 {
        if min[axis] > max[axis] {
            // A window smaller than the sprite: the best is the middle.
            p[axis] = (min[axis] + max[axis]) / 2.0;
        } else if p[axis] < min[axis] {
            p[axis] = min[axis];
            v[axis] = v[axis].abs();
        } else if p[axis] > max[axis] {
            p[axis] = max[axis];
            v[axis] = -v[axis].abs();
        }
    }
    body.position = Vec2::from_array(p);
    body.velocity = Vec2::from_array(v);
}

/// Tints the sprites whose pixels touch another's, as of this frame's pass.
fn tint_touching(mut members: Query<(&PixelCollidingEntities, &mut Sprite), With<CrowdMember>>) {
    members.par_iter_mut().for_each(|(colliding, mut sprite)| {
        let tint = if colliding.is_empty() {
            Color::WHITE
        } else {
            TOUCH_TINT
        };
        // Read first: writing marks the sprite changed even when the color is not.
        if sprite.color != tint {
            sprite.color = tint;
        }
    });
}

/// The overlay's figures and the status line, from the plugin's pass.
fn report(
    sim: Res<CrowdSim>,
    collisions: PixelCollisions,
    touching: Query<&PixelCollidingEntities, With<CrowdMember>>,
    mut stats: ResMut<CollisionStats>,
    mut status: ResMut<StatusLine>,
) {
    if !sim.ready() {
        status.0 = "Loading sprites…".into();
        return;
    }
    let pass = collisions.stats();
    let clamp = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    *stats = CollisionStats {
        broad_pairs: clamp(pass.box_pairs),
        pixel_tests: clamp(pass.box_pairs),
        contacts: clamp(pass.touching),
        micros: pass.broad_micros + pass.narrow_micros,
    };
    status.0 = format!(
        "{} sprites · {} touching · {} contacts",
        sim.entities.len(),
        touching.iter().filter(|c| !c.is_empty()).count(),
        pass.touching,
    );
}

/// The crowd's sprites leave the debug drawing unless the scene's window asks for them.
fn show_debug_shapes(
    mut commands: Commands,
    settings: Res<CrowdSettings>,
    hidden: Query<(Entity, Has<HiddenFromPixelDebug>), With<CrowdMember>>,
) {
    for (entity, is_hidden) in &hidden {
        if is_hidden == settings.show_boxes {
            if settings.show_boxes {
                commands.entity(entity).remove::<HiddenFromPixelDebug>();
            } else {
                commands.entity(entity).insert(HiddenFromPixelDebug);
            }
        }
    }
}

/// A body's sprite transform. Sprites of one texture share a depth band, so the renderer
/// draws each texture in one batch; the index keeps depths distinct, so the order of
/// overlapping sprites never flickers.
fn body_transform(member: &CrowdMember) -> Transform {
    let body = &member.body;
    let z = body.sprite as f32 + member.index as f32 / (MAX_COUNT as f32 * 2.0);
    Transform {
        translation: body.position.extend(z),
        rotation: Quat::from_rotation_z(body.angle),
        scale: Vec3::new(body.scale, body.scale, 1.0),
    }
}

/// The larger side, in pixels, of a sprite of size factor 1 among `count` sprites.
fn common_size(count: usize, screen: Vec2) -> f32 {
    let size = (COVERAGE * screen.x * screen.y / count.max(1) as f32).sqrt();
    if size.is_finite() {
        size.clamp(MIN_SIZE, MAX_SIZE)
    } else {
        MAX_SIZE
    }
}

/// A body anywhere in `bounds`, with its size factor; the scale is set by the caller.
fn random_body(rng: &mut SplitMix64, bounds: Rect, sprites: usize) -> (CrowdBody, f32) {
    let heading = rng.range(0.0, TAU);
    let body = CrowdBody {
        position: Vec2::new(
            rng.range(bounds.min.x, bounds.max.x),
            rng.range(bounds.min.y, bounds.max.y),
        ),
        velocity: Vec2::from_angle(heading) * rng.range(SPEED.0, SPEED.1),
        angle: rng.range(0.0, TAU),
        angular_velocity: rng.range(-MAX_SPIN, MAX_SPIN),
        scale: 1.0,
        sprite: rng.below(sprites as u64) as usize,
    };
    (
        body,
        SIZE_FACTORS[rng.below(SIZE_FACTORS.len() as u64) as usize],
    )
}

/// Angles at which a sprite's reach is tabulated.
const REACH_BINS: usize = 256;

/// How far a sprite's set pixels reach from its center along the world axes, by angle, at
/// scale 1: what keeps the whole sprite, not just its center, inside the window.
#[derive(Debug, Clone)]
struct Reach {
    /// Per angle bin, the box of the turned pixels about the center (min, max), grown by
    /// what a turn of half a bin can add, so the nearest bin bounds every angle.
    bins: Vec<(Vec2, Vec2)>,
    /// Farthest pixel corner from the center: the reach of a mirrored sprite.
    radius: f32,
}

impl Reach {
    fn new(mask: &BitMask) -> Reach {
        let (w, h) = mask.size();
        let center = Vec2::new(w as f32, h as f32) / 2.0;
        // Interior pixels never reach further than the outline.
        let corners: Vec<Vec2> = mask
            .outline()
            .into_iter()
            .flat_map(|(x, y)| {
                [(0, 0), (1, 0), (0, 1), (1, 1)].map(|(cx, cy)| {
                    // Mask rows go down, world y goes up.
                    Vec2::new((x + cx) as f32 - center.x, center.y - (y + cy) as f32)
                })
            })
            .collect();
        let radius = corners.iter().map(|c| c.length()).fold(0.0, f32::max);
        let slack = radius * PI / REACH_BINS as f32;
        let bins = (0..REACH_BINS)
            .map(|k| {
                let turn = Vec2::from_angle(TAU * k as f32 / REACH_BINS as f32);
                let (lo, hi) = corners
                    .iter()
                    .map(|&c| turn.rotate(c))
                    .fold((Vec2::INFINITY, Vec2::NEG_INFINITY), |(lo, hi), p| {
                        (lo.min(p), hi.max(p))
                    });
                if corners.is_empty() {
                    (Vec2::ZERO, Vec2::ZERO)
                } else {
                    (lo - slack, hi + slack)
                }
            })
            .collect();
        Reach { bins, radius }
    }

    /// The sprite's box about its center at `angle` and `scale`: (min, max) offsets.
    fn extents(&self, angle: f32, scale: f32) -> (Vec2, Vec2) {
        if !angle.is_finite() || !scale.is_finite() {
            return (Vec2::ZERO, Vec2::ZERO);
        }
        if scale < 0.0 {
            // Mirrored: not tabulated, the bounding circle is a safe answer.
            let r = Vec2::splat(self.radius * -scale);
            return (-r, r);
        }
        let bin = (angle / TAU * REACH_BINS as f32).round() as i64;
        let bin = bin.rem_euclid(REACH_BINS as i64) as usize;
        self.bins
            .get(bin)
            .map_or((Vec2::ZERO, Vec2::ZERO), |&(lo, hi)| {
                (lo * scale, hi * scale)
            })
    }
}

// ---------------------------------------------------------------------------------------
// Overlay

fn crowd_window(
    mut contexts: EguiContexts,
    mut settings: ResMut<CrowdSettings>,
    mut config: ResMut<PixelCollisionConfig>,
    collisions: PixelCollisions,
    diagnostics: Res<DiagnosticsStore>,
    mut smoothed: Local<SmoothedMs>,
) -> Result {
    let ctx = contexts.ctx_mut()?;
    let mut edited = *settings;
    // Bottom left: the status line is centered at the top, the main panel top right.
    // Anchored, so that it is back in its place whatever the window went through.
    egui::Window::new("Crowd")
        .anchor(egui::Align2::LEFT_BOTTOM, [8.0, -8.0])
        .default_width(240.0)
        .resizable(false)
        .show(ctx, |ui| {
            ui.add(
                egui::Slider::new(&mut edited.count, MIN_COUNT..=MAX_COUNT)
                    .logarithmic(true)
                    .clamping(egui::SliderClamping::Always)
                    .text("sprites"),
            );
            let threads = ComputeTaskPool::try_get().map_or(0, |p| p.thread_num());
            let mut parallel = config.parallel;
            ui.checkbox(&mut parallel, "Parallel narrow phase")
                .on_hover_text(format!("On Bevy's compute task pool: {threads} threads"));
            if parallel != config.parallel {
                config.parallel = parallel;
            }
            ui.checkbox(&mut edited.show_boxes, "Debug shapes")
                .on_hover_text("Each sprite's boxes and contacts, as the main panel's toggles say");
            let pass: PixelCollisionStats = collisions.stats();
            let (broad, narrow) = smoothed.update(&pass);
            egui::Grid::new("crowd_live").num_columns(2).show(ui, |ui| {
                for (name, value) in [
                    ("Colliders", pass.colliders.to_string()),
                    ("Pixel tests", pass.box_pairs.to_string()),
                    ("Touching pairs", pass.touching.to_string()),
                    ("Broad phase", format!("{broad:.2} ms")),
                    ("Narrow phase", format!("{narrow:.2} ms")),
                    ("Frames per second", frames_per_second(&diagnostics)),
                ] {
                    ui.label(name);
                    ui.monospace(value);
                    ui.end_row();
                }
            });
        });
    edited.count = edited.count.clamp(MIN_COUNT, MAX_COUNT);
    if edited != *settings {
        *settings = edited;
    }
    Ok(())
}

/// The pass's phases in milliseconds, smoothed for reading.
#[derive(Default)]
struct SmoothedMs {
    broad: f32,
    narrow: f32,
}

impl SmoothedMs {
    fn update(&mut self, pass: &PixelCollisionStats) -> (f32, f32) {
        let (broad, narrow) = (pass.broad_micros / 1e3, pass.narrow_micros / 1e3);
        if self.broad == 0.0 {
            (self.broad, self.narrow) = (broad, narrow);
        } else {
            self.broad += (broad - self.broad) * SMOOTHING;
            self.narrow += (narrow - self.narrow) * SMOOTHING;
        }
        (self.broad, self.narrow)
    }
}
