//! Scene "Crowd": up to 20,000 of the game's sprites drifting, turning and bouncing off the
//! window's borders, with a broad phase and a per-pixel narrow phase on their rotated masks
//! ([`CrowdWorld`]). Sprites whose pixels touch another's are tinted red. The scene's window
//! sets the number of sprites and switches the narrow phase between one thread and Bevy's
//! [`ComputeTaskPool`].
//!
//! Collision is [`CrowdWorld`]'s. The scene moves the bodies itself rather than with
//! [`CrowdWorld::advance`], whose walls stop centres: here the whole sprite bounces off
//! the border, by a table of how far each sprite reaches at each angle (`Reach`). It
//! shows the world with one entity per body, a [`CrowdMember`] index on each, and one
//! system copying positions, angles and tints onto them every frame.

use std::f32::consts::{PI, TAU};

use bevy::prelude::*;
use bevy::tasks::ComputeTaskPool;
use bevy::window::PrimaryWindow;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};

use super::masks::{PixelCollider, SpriteMasks};
use super::scene::Scene;
use super::{AppSystems, CollisionStats, StatusLine};
use crate::collision::BitMask;
use crate::collision::crowd::{CrowdBody, CrowdStats, CrowdWorld, NarrowPhase, PairHit};
use crate::collision::rng::SplitMix64;
use crate::plugin::debug::draw_oriented_box;
use crate::plugin::{PixelDebugGizmos, PixelDebugSettings};

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
/// The screen assumed without a window (headless tests).
pub const FALLBACK_SCREEN: Vec2 = Vec2::new(1280.0, 720.0);
/// Fewer pairs than this are tested on the calling thread: handing them out costs more.
pub const PAR_MIN_PAIRS: usize = 256;

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
/// A frame longer than this (a stall, a dragged window) moves bodies this far only, so
/// they never jump through each other or far out of the window.
const MAX_STEP: f32 = 0.05;
/// The same crowd on every visit, so a player (and a test) can rely on it.
const SEED: u64 = 0xC0_5EED;
/// How much of each new frame's timing goes into the overlay's smoothed figures.
const SMOOTHING: f32 = 0.1;

/// What the player (or a test) asks of the scene; kept across visits.
#[derive(Resource, Debug, Clone, Copy, PartialEq, Eq)]
pub struct CrowdSettings {
    /// Number of sprites; the scene clamps it to [`MIN_COUNT`]`..=`[`MAX_COUNT`].
    pub count: usize,
    /// Narrow phase on the [`ComputeTaskPool`] rather than on one thread.
    pub parallel: bool,
    /// Draw each body's boxes, as the debug toggles say. Off by default: at a thousand
    /// sprites the boxes bury them.
    pub show_boxes: bool,
}

impl Default for CrowdSettings {
    fn default() -> Self {
        CrowdSettings {
            count: DEFAULT_COUNT,
            parallel: true,
            show_boxes: false,
        }
    }
}

/// The body a sprite entity shows: an index into [`CrowdWorld::bodies`].
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
pub struct CrowdMember(pub usize);

/// One hidden sprite per texture: it gets the texture's mask built (or the placeholder's,
/// when the file is bad), and the bodies show whatever image it ends up with.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
struct CrowdTexture(usize);

/// The simulation and its sprite entities; exists while the scene is on.
#[derive(Resource, Default)]
pub struct CrowdSim {
    /// `None` until every texture's mask is ready.
    world: Option<CrowdWorld>,
    /// Per sprite: the image shown and how far it reaches from its centre.
    images: Vec<Handle<Image>>,
    reaches: Vec<Reach>,
    /// Per body: its entity and its size relative to the common size.
    entities: Vec<Entity>,
    factors: Vec<f32>,
    /// The sprite count the bodies' scales were computed for.
    sized_for: usize,
    rng: SplitMix64,
    /// Smoothed milliseconds per step, for reading.
    broad_ms: f32,
    narrow_ms: f32,
}

impl CrowdSim {
    /// The simulation, once the masks have loaded.
    pub fn world(&self) -> Option<&CrowdWorld> {
        self.world.as_ref()
    }

    pub fn world_mut(&mut self) -> Option<&mut CrowdWorld> {
        self.world.as_mut()
    }

    /// Per body, in body order, the entity showing it.
    pub fn entities(&self) -> &[Entity] {
        &self.entities
    }

    /// Smoothed milliseconds per step of the broad and the narrow phase.
    pub fn smoothed_ms(&self) -> (f32, f32) {
        (self.broad_ms, self.narrow_ms)
    }
}

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<CrowdSettings>()
        .add_systems(OnEnter(Scene::Crowd), spawn_scene)
        .add_systems(OnExit(Scene::Crowd), |mut commands: Commands| {
            commands.remove_resource::<CrowdSim>();
        })
        .add_systems(
            Update,
            (build_world, match_count, advance)
                .chain()
                .in_set(AppSystems::Update)
                .run_if(in_state(Scene::Crowd)),
        )
        .add_systems(
            Update,
            (collide, show_bodies)
                .chain()
                .in_set(AppSystems::Collide)
                .run_if(in_state(Scene::Crowd)),
        );
}

/// The scene's overlay window (egui): added only with a window, never in headless tests.
pub(super) fn overlay_plugin(app: &mut App) {
    app.add_systems(
        EguiPrimaryContextPass,
        crowd_window.run_if(in_state(Scene::Crowd)),
    )
    .add_systems(
        Update,
        draw_boxes
            .after(AppSystems::Collide)
            .run_if(in_state(Scene::Crowd)),
    );
}

// ---------------------------------------------------------------------------------------
// Simulation

fn spawn_scene(mut commands: Commands, assets: Res<AssetServer>) {
    commands.insert_resource(CrowdSim {
        rng: SplitMix64(SEED),
        ..default()
    });
    for (k, path) in TEXTURES.into_iter().enumerate() {
        commands.spawn((
            Name::new(format!("Crowd texture {path}")),
            Sprite::from_image(assets.load(path)),
            Transform::default(),
            Visibility::Hidden,
            PixelCollider,
            CrowdTexture(k),
            DespawnOnExit(Scene::Crowd),
        ));
    }
}

/// Builds the world once every texture has a mask.
fn build_world(
    sim: Option<ResMut<CrowdSim>>,
    masks: Res<SpriteMasks>,
    textures: Query<(&CrowdTexture, &Sprite)>,
    window: Option<Single<&Window, With<PrimaryWindow>>>,
) {
    let Some(mut sim) = sim.filter(|s| s.world.is_none()) else {
        return;
    };
    let mut found: Vec<(usize, Handle<Image>, BitMask)> = textures
        .iter()
        .filter_map(|(texture, sprite)| {
            let mask = masks.get(sprite.image.id())?;
            Some((texture.0, sprite.image.clone(), BitMask::clone(mask)))
        })
        .collect();
    if found.len() < TEXTURES.len() {
        return;
    }
    found.sort_by_key(|(k, _, _)| *k);
    let (images, sprites): (Vec<_>, Vec<_>) = found.into_iter().map(|(_, h, m)| (h, m)).unzip();
    sim.reaches = sprites.iter().map(Reach::new).collect();
    sim.images = images;
    let bounds = screen_bounds(window.as_deref().copied(), None);
    sim.world = Some(CrowdWorld::new(sprites, bounds, Vec::new()));
}

/// Adds or removes bodies and their entities to match the settings; new bodies start
/// anywhere in the window. Every body is resized when the count changes, so the crowd
/// covers the same share of the window at any count.
fn match_count(
    mut commands: Commands,
    mut settings: ResMut<CrowdSettings>,
    sim: Option<ResMut<CrowdSim>>,
) {
    // Whatever a test or the overlay wrote, the scene runs a count it can afford.
    let count = settings.count.clamp(MIN_COUNT, MAX_COUNT);
    if settings.count != count {
        settings.count = count;
    }
    let Some(mut sim) = sim else { return };
    let sim = &mut *sim;
    let Some(world) = sim.world.as_mut() else {
        return;
    };
    let bounds = world.bounds;
    let sprites = world.sprites().len();
    while world.bodies.len() < count {
        let (body, factor) = random_body(&mut sim.rng, bounds, sprites);
        world.bodies.push(body);
        sim.factors.push(factor);
    }
    world.bodies.truncate(count);
    sim.factors.truncate(count);

    if sim.sized_for != count {
        sim.sized_for = count;
        let size = common_size(count, bounds.size());
        let sides: Vec<f32> = world
            .sprites()
            .iter()
            .map(|m| m.width().max(m.height()).max(1) as f32)
            .collect();
        for (body, factor) in world.bodies.iter_mut().zip(&sim.factors) {
            let side = sides.get(body.sprite).copied().unwrap_or(1.0);
            body.scale = size * factor / side;
        }
    }

    for index in sim.entities.len()..count {
        let body = world.bodies[index];
        let image = sim.images.get(body.sprite).cloned().unwrap_or_default();
        let entity = commands
            .spawn((
                CrowdMember(index),
                Sprite::from_image(image),
                body_transform(index, &body),
                DespawnOnExit(Scene::Crowd),
            ))
            .id();
        sim.entities.push(entity);
    }
    for entity in sim.entities.drain(count.min(sim.entities.len())..) {
        commands.entity(entity).try_despawn();
    }
}

/// Moves and turns every body, then keeps its whole sprite inside the window: a sprite
/// that reaches past a border is put back against it and sent away from it.
fn advance(
    time: Res<Time>,
    sim: Option<ResMut<CrowdSim>>,
    window: Option<Single<&Window, With<PrimaryWindow>>>,
) {
    let Some(mut sim) = sim else { return };
    let sim = &mut *sim;
    let Some(world) = sim.world.as_mut() else {
        return;
    };
    let dt = time.delta_secs();
    let dt = if dt.is_finite() {
        dt.clamp(0.0, MAX_STEP)
    } else {
        0.0
    };
    let bounds = screen_bounds(window.as_deref().copied(), Some(world.bounds));
    world.bounds = bounds;
    for body in &mut world.bodies {
        step_body(body, sim.reaches.get(body.sprite), bounds, dt);
    }
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
    // Where the centre may be for the sprite to fit.
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

fn collide(
    settings: Res<CrowdSettings>,
    sim: Option<ResMut<CrowdSim>>,
    mut stats: ResMut<CollisionStats>,
) {
    let Some(mut sim) = sim else { return };
    let Some(world) = sim.world.as_mut() else {
        return;
    };
    if settings.parallel {
        world.collide_with(narrow_on_task_pool);
    } else {
        world.collide();
    }
    let step = world.stats();
    let clamp = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    *stats = CollisionStats {
        broad_pairs: clamp(step.candidate_pairs),
        pixel_tests: clamp(step.pixel_tests),
        contacts: clamp(step.contacts),
        micros: (step.broad_ns + step.narrow_ns) as f32 / 1e3,
    };
    let (broad, narrow) = (step.broad_ns as f32 / 1e6, step.narrow_ns as f32 / 1e6);
    if sim.broad_ms == 0.0 {
        (sim.broad_ms, sim.narrow_ms) = (broad, narrow);
    } else {
        sim.broad_ms += (broad - sim.broad_ms) * SMOOTHING;
        sim.narrow_ms += (narrow - sim.narrow_ms) * SMOOTHING;
    }
}

/// The narrow phase on Bevy's [`ComputeTaskPool`]: the pairs are cut into chunks, each task
/// tests one chunk and writes that chunk of `hits`. Several chunks per thread, because pair
/// costs vary a lot (most hits end at the first probes, a miss may walk the whole overlap)
/// and a thread that finishes early takes the next chunk. Small batches, or no pool, run on
/// the calling thread. The answers are [`NarrowPhase::run`]'s whatever the split.
///
/// It can only be as parallel as the pool: Bevy's default gives the compute pool the cores
/// left after one IO and one async thread, which is one thread on a 2-core machine.
pub fn narrow_on_task_pool(narrow: NarrowPhase<'_>, pairs: &[(u32, u32)], hits: &mut [PairHit]) {
    let Some(pool) = ComputeTaskPool::try_get().filter(|_| pairs.len() >= PAR_MIN_PAIRS) else {
        narrow.run(pairs, hits);
        return;
    };
    // When the caller is not one of the pool's threads, it works through the tasks too.
    let threads = pool.thread_num() + 1;
    let chunk = pairs.len().div_ceil(threads * 8).max(32);
    pool.scope(|scope| {
        for (pairs, hits) in pairs.chunks(chunk).zip(hits.chunks_mut(chunk)) {
            scope.spawn(async move { narrow.run(pairs, hits) });
        }
    });
}

/// Copies every body's position, angle and tint onto its entity, and writes the status.
fn show_bodies(
    sim: Option<Res<CrowdSim>>,
    mut members: Query<(&CrowdMember, &mut Transform, &mut Sprite)>,
    mut status: ResMut<StatusLine>,
) {
    let Some(world) = sim.as_ref().and_then(|s| s.world.as_ref()) else {
        status.0 = "Loading sprites…".into();
        return;
    };
    let touching = world.touching();
    members
        .par_iter_mut()
        .for_each(|(member, mut transform, mut sprite)| {
            let Some(body) = world.bodies.get(member.0) else {
                return;
            };
            *transform = body_transform(member.0, body);
            let tint = if touching.get(member.0).copied().unwrap_or(false) {
                TOUCH_TINT
            } else {
                Color::WHITE
            };
            // Read first: writing marks the sprite changed even when the colour is not.
            if sprite.color != tint {
                sprite.color = tint;
            }
        });
    status.0 = format!(
        "{} sprites · {} touching · {} contacts",
        world.bodies.len(),
        touching.iter().filter(|&&t| t).count(),
        world.stats().contacts,
    );
}

/// A body's sprite transform. Sprites of one texture share a depth band, so the renderer
/// draws each texture in one batch; the index keeps depths distinct, so the order of
/// overlapping sprites never flickers.
fn body_transform(index: usize, body: &CrowdBody) -> Transform {
    let z = body.sprite as f32 + index as f32 / (MAX_COUNT as f32 * 2.0);
    Transform {
        translation: body.position.extend(z),
        rotation: Quat::from_rotation_z(body.angle),
        scale: Vec3::new(body.scale, body.scale, 1.0),
    }
}

/// The window as a world rectangle (the camera is centred, one unit a logical pixel).
/// A minimised window (zero size) keeps `previous`, so the crowd is not squeezed to a
/// point while nobody can see it.
fn screen_bounds(window: Option<&Window>, previous: Option<Rect>) -> Rect {
    let fallback = previous.unwrap_or(Rect::from_center_size(Vec2::ZERO, FALLBACK_SCREEN));
    match window.map(Window::size) {
        Some(size) if size.is_finite() && size.min_element() >= 1.0 => {
            Rect::from_center_size(Vec2::ZERO, size)
        }
        Some(_) => fallback,
        None => Rect::from_center_size(Vec2::ZERO, FALLBACK_SCREEN),
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

/// How far a sprite's set pixels reach from its centre along the world axes, by angle, at
/// scale 1: what keeps the whole sprite, not just its centre, inside the window.
#[derive(Debug, Clone)]
struct Reach {
    /// Per angle bin, the box of the turned pixels about the centre (min, max), grown by
    /// what a turn of half a bin can add, so the nearest bin bounds every angle.
    bins: Vec<(Vec2, Vec2)>,
    /// Farthest pixel corner from the centre: the reach of a mirrored sprite.
    radius: f32,
}

impl Reach {
    fn new(mask: &BitMask) -> Reach {
        let (w, h) = mask.size();
        let centre = Vec2::new(w as f32, h as f32) / 2.0;
        // Interior pixels never reach further than the outline.
        let corners: Vec<Vec2> = mask
            .outline()
            .into_iter()
            .flat_map(|(x, y)| {
                [(0, 0), (1, 0), (0, 1), (1, 1)].map(|(cx, cy)| {
                    // Mask rows go down, world y goes up.
                    Vec2::new((x + cx) as f32 - centre.x, centre.y - (y + cy) as f32)
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

    /// The sprite's box about its centre at `angle` and `scale`: (min, max) offsets.
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
    sim: Option<Res<CrowdSim>>,
    time: Res<Time>,
    mut fps: Local<f32>,
) -> Result {
    let ctx = contexts.ctx_mut()?;
    let dt = time.delta_secs();
    if dt > 0.0 && dt.is_finite() {
        let now = 1.0 / dt;
        *fps = if *fps > 0.0 {
            *fps + (now - *fps) * SMOOTHING
        } else {
            now
        };
    }
    let mut edited = *settings;
    let bottom = ctx.content_rect().bottom();
    // Bottom left: the status line is centred at the top, the main panel top right.
    egui::Window::new("Crowd")
        .pivot(egui::Align2::LEFT_BOTTOM)
        .default_pos([8.0, bottom - 8.0])
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
            ui.checkbox(&mut edited.parallel, "Parallel narrow phase")
                .on_hover_text(format!("On Bevy's compute task pool: {threads} threads"));
            ui.checkbox(&mut edited.show_boxes, "Boxes (debug toggles)")
                .on_hover_text(
                    "Each body's broad-phase box and oriented box, as the main panel's toggles say",
                );
            let (step, (broad, narrow)) = sim
                .as_ref()
                .and_then(|s| Some((s.world.as_ref()?.stats(), s.smoothed_ms())))
                .unwrap_or((CrowdStats::default(), (0.0, 0.0)));
            egui::Grid::new("crowd_live").num_columns(2).show(ui, |ui| {
                for (name, value) in [
                    ("Candidate pairs", step.candidate_pairs.to_string()),
                    ("Pixel tests", step.pixel_tests.to_string()),
                    ("Contacts", step.contacts.to_string()),
                    ("Broad phase", format!("{broad:.2} ms")),
                    ("Narrow phase", format!("{narrow:.2} ms")),
                    ("Frames per second", format!("{:.0}", *fps)),
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

const BOX_COLOUR: Color = Color::srgba(0.2, 0.9, 0.3, 0.6);
const BOX_HIT_COLOUR: Color = Color::srgba(1.0, 0.25, 0.2, 0.8);
const OBB_COLOUR: Color = Color::srgba(0.3, 0.6, 1.0, 0.6);

/// Each body's broad-phase box (red when its pixels touch) and its sprite's turned
/// rectangle, when the scene's window asks for them and the main panel's toggles allow.
fn draw_boxes(
    settings: Res<CrowdSettings>,
    debug: Res<PixelDebugSettings>,
    sim: Option<Res<CrowdSim>>,
    mut gizmos: Gizmos<PixelDebugGizmos>,
) {
    let Some(world) = sim.as_ref().and_then(|s| s.world.as_ref()) else {
        return;
    };
    if !settings.show_boxes {
        return;
    }
    if debug.aabb {
        for (aabb, &hit) in world.boxes().iter().zip(world.touching()) {
            // A body that cannot collide has a NaN box.
            if aabb.min.is_finite() && aabb.max.is_finite() {
                let colour = if hit { BOX_HIT_COLOUR } else { BOX_COLOUR };
                gizmos.rect_2d((aabb.min + aabb.max) / 2.0, aabb.max - aabb.min, colour);
            }
        }
    }
    if debug.oriented_box {
        let sprites = world.sprites();
        for (body, to_world) in world.bodies.iter().zip(world.transforms()) {
            let Some(mask) = sprites.get(body.sprite) else {
                continue;
            };
            draw_oriented_box(&mut gizmos, mask.size(), *to_world, OBB_COLOUR);
        }
    }
}
