//! Pixel masks against polygons in avian2d 0.7: the same scenes played twice in one run,
//! once with our `MaskCollider`s and once with the polygon colliders a Bevy user makes
//! from the same images today: bevy_collider_gen 0.8's outline of each image (the `edges`
//! crate), made convex with avian's `Collider::convex_decomposition` for moving bodies (as
//! collider_gen's README shows) and its `polyline` for static ground. Both sides share the
//! solver settings, substeps, time step, seeds and starting poses.
//!
//! - **Pile**: N bodies of six of the game's sprites (crate, stone, clover, flower,
//!   basketball, gem; 32 to 64 px) dropped into a static bowl of pixel terrain, stepped
//!   for 10 simulated seconds.
//! - **Crater**: the terrain scene's ground at 2,048 × 1,024 with balls and stones at rest
//!   on it; craters of radius 40 are carved, and each side rebuilds the terrain's collider
//!   (ours: the edited mask; theirs: polygons made again from the edited image).
//!
//! Our exact overlap ([`transformed_overlap`]) is the judge for both sides: each body's
//! mask is placed where avian put the body, and every pair whose pixels overlap is
//! measured: how far one must move to clear the other, to an eighth of a pixel (see
//! [`penetration`]); at the end, also how many rows deep the deepest overlapping pixel lies
//! in the other sprite ([`local_depth`]). A step's time is one `App::update` that ran one
//! physics step, split into avian's broad phase, narrow phase (contacts) and solver by
//! systems between its sets.
//!
//!   cargo bench --manifest-path benches/avian_polygons/Cargo.toml -- [--quick] [--chart F]
//!
//! Each pile is dropped `--seeds K` times (10; 1 with `--quick`), its bodies placed from a
//! different seed each time: a pile is chaotic (one rounding changes which bodies lock
//! together and when the pile sleeps), and over 3 seeds one late sleeper moved the
//! masks' mean step time at 200 by about 15%. Both sides' piles of a seed are stepped in turn (see
//! [`run_piles`]). `--quick`: 50 bodies for 2 s only; `--sizes 200,500`,
//! `--side masks|polygons` and `--pile-only` run part of it (for a profiler); `--timeline`
//! prints each simulated second's step time, bodies asleep or stirring, pairs touching and
//! what the solver was given (constraints, points, colors);
//! `--reuse T` sets how far a mask pair may move before its contact is found again
//! ([`MaskContacts::tolerance`]). `--chart F`: the step times as an SVG chart, `F` relative
//! to the repository (README's is `docs/avian-polygons.svg`).

use std::alloc::System;
use std::fmt::Write as _;
use std::sync::Arc;
use std::time::{Duration, Instant};

use avian2d::dynamics::solver::constraint_graph::ConstraintGraph;
use avian2d::prelude::*;
use bevy::math::Affine2;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_collider_gen::prelude::AbstractCollidersBuilder;
use bevy_pixel_collide::avian::{
    DEFAULT_TOLERANCE, MaskCollider, MaskColliderPlugin, MaskContacts,
};
use image::{DynamicImage, RgbaImage};
use pixel_collide::{
    BitMask, sprite_to_world, transformed_intersects, transformed_overlap, world_bounds,
};
use pixel_collide_support::rng::SplitMix64;
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

const STEP: f64 = 1.0 / 60.0;
/// The game's (`src/physics.rs`).
const GRAVITY: f32 = 900.0;
const LENGTH_UNIT: f32 = 20.0;
/// The terrain scene's pieces.
const FRICTION: f32 = 0.7;
const RESTITUTION: f32 = 0.1;
/// The terrain scene's rest test: slower than this, px/s and rad/s.
const REST_SPEED: f32 = 25.0;
const REST_TURN: f32 = 0.3;
/// The bowl: its image, the thickness of its walls and floor, how much higher its floor is
/// at the walls than in the middle.
const BOWL: (u32, u32) = (2048, 2048);
const BOWL_WALL: u32 = 48;
const BOWL_CURVE: f32 = 300.0;
/// The steps of a pile's last two seconds, when a pile that settles has gone to sleep.
const LAST_STEPS: usize = 120;

/// Pixels are judged every this many steps, and after the last.
const JUDGE_EVERY: usize = 6;
const SEED: u64 = 0x5eed_a71a;
const CRATER_RADIUS: f32 = 40.0;
const TERRAIN_SIZE: (u32, u32) = (2048, 1024);

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Side {
    Masks,
    Polygons,
}

impl Side {
    fn name(self) -> &'static str {
        match self {
            Side::Masks => "masks",
            Side::Polygons => "polygons",
        }
    }
}

/// A sprite as both sides see it: its mask, our collider, theirs.
struct Shape {
    name: &'static str,
    mask: Arc<BitMask>,
    mask_collider: MaskCollider,
    polygon: Collider,
    /// Convex parts and their vertices in the polygon collider.
    parts: usize,
    vertices: usize,
    build_mask: Duration,
    build_polygon: Duration,
    bytes_mask: i64,
    bytes_polygon: i64,
}

fn asset(file: &str) -> RgbaImage {
    let path = format!("{}/../../assets/{file}", env!("CARGO_MANIFEST_DIR"));
    image::open(&path)
        .unwrap_or_else(|e| panic!("{path}: {e}"))
        .to_rgba8()
}

/// The game's sprites at 32 to 64 px: the flower drawn at a quarter of its size, a 64 px
/// end of the stone platform.
fn sprite_images() -> Vec<(&'static str, RgbaImage)> {
    let flower = image::imageops::resize(
        &asset("flower.png"),
        64,
        64,
        image::imageops::FilterType::Nearest,
    );
    let stone = image::imageops::crop_imm(&asset("stone.png"), 0, 0, 64, 32).to_image();
    vec![
        ("crate", asset("crate.png")),
        ("stone", stone),
        ("clover", asset("clover.png")),
        ("flower", flower),
        ("basketball", asset("basketball.png")),
        ("gem", asset("gem.png")),
    ]
}

fn mask_of(image: &RgbaImage) -> BitMask {
    BitMask::from_rgba8(image.width(), image.height(), image.as_raw(), 0).expect("an RGBA sprite")
}

/// collider_gen's outlines of `image`, centered as a sprite is.
fn outlines(image: &DynamicImage) -> Vec<Vec<Vec2>> {
    AbstractCollidersBuilder::from(image)
        .polyline()
        .multiple()
        .into_iter()
        .filter_map(|outline| outline.points().cloned())
        .filter(|points| points.len() >= 3)
        .collect()
}

/// Every outline of `image` as closed loops in one vertex and index buffer.
fn loops(image: &DynamicImage) -> (Vec<Vec2>, Vec<[u32; 2]>) {
    let mut vertices = Vec::new();
    let mut indices = Vec::new();
    for outline in outlines(image) {
        let first = vertices.len() as u32;
        let n = outline.len() as u32;
        indices.extend((0..n).map(|i| [first + i, first + (i + 1) % n]));
        vertices.extend(outline);
    }
    (vertices, indices)
}

/// A moving body's polygons: its outlines (so a hole stays a hole) made convex by avian's
/// decomposition, as collider_gen's README shows.
fn decomposed(image: &DynamicImage) -> Collider {
    let (vertices, indices) = loops(image);
    Collider::convex_decomposition(vertices, indices)
}

/// Static ground's polygons: its outlines as one polyline. collider_gen's own `to_avian`
/// gives one open polyline per outline (its last vertex not joined to its first); closing
/// them and keeping them in one collider only helps this side.
fn polylines(image: &DynamicImage) -> Collider {
    let (vertices, indices) = loops(image);
    Collider::polyline(vertices, Some(indices))
}

/// Live heap bytes `make` leaves behind, and its result.
fn measured<T>(make: impl FnOnce() -> T) -> (T, i64) {
    let region = Region::new(GLOBAL);
    let made = make();
    let stats = region.change();
    (
        made,
        stats.bytes_allocated as i64 - stats.bytes_deallocated as i64,
    )
}

/// Median wall time of `make` over `runs`.
fn timed<T>(runs: usize, mut make: impl FnMut() -> T) -> Duration {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(make());
            start.elapsed()
        })
        .collect();
    times.sort();
    times[runs / 2]
}

fn shape(name: &'static str, image: &RgbaImage) -> Shape {
    let dynamic = DynamicImage::ImageRgba8(image.clone());
    let build_mask = timed(50, || MaskCollider::new(Arc::new(mask_of(image))));
    let build_polygon = timed(5, || decomposed(&dynamic));
    let (mask_collider, bytes_mask) = measured(|| MaskCollider::new(Arc::new(mask_of(image))));
    let (polygon, bytes_polygon) = measured(|| decomposed(&dynamic));
    let (parts, vertices) = match polygon.shape().as_compound() {
        Some(compound) => (
            compound.shapes().len(),
            compound
                .shapes()
                .iter()
                .map(|(_, part)| part.as_convex_polygon().map_or(0, |p| p.points().len()))
                .sum(),
        ),
        None => (
            1,
            polygon
                .shape()
                .as_convex_polygon()
                .map_or(0, |p| p.points().len()),
        ),
    };
    Shape {
        name,
        mask: Arc::clone(mask_collider.mask()),
        mask_collider,
        polygon,
        parts,
        vertices,
        build_mask,
        build_polygon,
        bytes_mask,
        bytes_polygon,
    }
}

/// How far the polygons are from the pixels: pixels whose center is inside the polygons
/// but not set in the mask, and set but outside.
fn polygon_error(shape: &Shape) -> (u64, u64, u64) {
    let mask = &shape.mask;
    let (w, h) = mask.size();
    let (mut extra, mut missing) = (0, 0);
    for j in 0..h {
        for i in 0..w {
            let center = Vec2::new(
                i as f32 + 0.5 - w as f32 / 2.0,
                h as f32 / 2.0 - j as f32 - 0.5,
            );
            let inside = shape
                .polygon
                .contains_point(Vec2::ZERO, Rotation::default(), center);
            match (inside, mask.get(i64::from(i), i64::from(j))) {
                (true, false) => extra += 1,
                (false, true) => missing += 1,
                _ => {}
            }
        }
    }
    (mask.count(), extra, missing)
}

// ---------------------------------------------------------------------------------------
// The app and its timing
// ---------------------------------------------------------------------------------------

/// When the physics step reached each of avian's sets, this step.
#[derive(Resource, Default)]
struct PhaseClock {
    marks: [Option<Instant>; 4],
    steps: u64,
}

fn mark<const K: usize>(mut clock: ResMut<PhaseClock>) {
    clock.marks[K] = Some(Instant::now());
    if K == 3 {
        clock.steps += 1;
    }
}

/// One physics app: the game's physics (`src/physics.rs`) in a headless app, every core in
/// the compute pool as the game has it, one fixed step per update. Each side has only its
/// own collider type, as a game using one of them would: avian 0.7 adds its collider
/// trees' update systems once per collider type, and two of them in one app are ambiguous
/// (its physics schedule refuses to start).
fn physics_app(side: Side, reuse: f32) -> App {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut options = TaskPoolOptions::default();
    options.compute.min_threads = cores;
    let mut app = App::new();
    app.insert_resource(MaskContacts::with_tolerance(reuse));
    app.add_plugins((
        MinimalPlugins.set(TaskPoolPlugin {
            task_pool_options: options,
        }),
        TransformPlugin,
    ));
    match side {
        Side::Masks => app.add_plugins((
            PhysicsPlugins::default()
                .with_length_unit(LENGTH_UNIT)
                .build()
                .disable::<ColliderBackendPlugin<Collider>>()
                .disable::<ColliderTreePlugin<Collider>>()
                .disable::<NarrowPhasePlugin<Collider>>(),
            MaskColliderPlugin,
        )),
        Side::Polygons => app.add_plugins(PhysicsPlugins::default().with_length_unit(LENGTH_UNIT)),
    };
    app.insert_resource(Gravity(Vec2::new(0.0, -GRAVITY)))
        .insert_resource(Time::<Fixed>::from_seconds(STEP))
        .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
            STEP,
        )))
        .init_resource::<PhaseClock>()
        .add_systems(
            PhysicsSchedule,
            (
                mark::<0>
                    .after(PhysicsStepSystems::First)
                    .before(PhysicsStepSystems::BroadPhase),
                mark::<1>
                    .after(PhysicsStepSystems::BroadPhase)
                    .before(PhysicsStepSystems::NarrowPhase),
                mark::<2>
                    .after(PhysicsStepSystems::NarrowPhase)
                    .before(PhysicsStepSystems::Solver),
                mark::<3>
                    .after(PhysicsStepSystems::Solver)
                    .before(PhysicsStepSystems::Sleeping),
            )
                .ambiguous_with_all(),
        );
    app.finish();
    app.cleanup();
    app
}

/// One step's times: the whole update, and avian's broad phase, narrow phase and solver.
#[derive(Clone, Copy, Default)]
struct StepTime {
    total: Duration,
    broad: Duration,
    narrow: Duration,
    solver: Duration,
}

/// Updates until one physics step has run.
fn step(app: &mut App) -> StepTime {
    let before = app.world().resource::<PhaseClock>().steps;
    let mut total = Duration::ZERO;
    for _ in 0..4 {
        let start = Instant::now();
        app.update();
        total += start.elapsed();
        let clock = app.world().resource::<PhaseClock>();
        if clock.steps > before {
            let [Some(a), Some(b), Some(c), Some(d)] = clock.marks else {
                panic!("a physics step that skipped one of avian's sets");
            };
            return StepTime {
                total,
                broad: b - a,
                narrow: c - b,
                solver: d - c,
            };
        }
    }
    panic!("four updates ran no physics step");
}

// ---------------------------------------------------------------------------------------
// Judging with pixels
// ---------------------------------------------------------------------------------------

/// A body of the scene: which sprite it is.
#[derive(Component, Clone, Copy)]
struct Body(usize);

/// Overlap depths (px) of touching pairs, as our exact overlap measures them.
#[derive(Default, Clone, Copy)]
struct Depths {
    deepest: f32,
    sum: f64,
    pairs: u64,
}

impl Depths {
    fn add(&mut self, depth: f32) {
        self.deepest = self.deepest.max(depth);
        self.sum += f64::from(depth);
        self.pairs += 1;
    }

    fn mean(&self) -> f64 {
        if self.pairs == 0 {
            0.0
        } else {
            self.sum / self.pairs as f64
        }
    }

    fn merge(&mut self, other: Depths) {
        self.deepest = self.deepest.max(other.deepest);
        self.sum += other.sum;
        self.pairs += other.pairs;
    }
}

/// What the pixels say about one moment of a run.
#[derive(Default, Clone, Copy)]
struct Judgement {
    ground: Depths,
    bodies: Depths,
    /// The deepest [`local_depth`] between bodies (at the end only).
    local: u32,
    /// Bodies whose center is past the ground's image, or on its solid pixels.
    escaped: usize,
    sunk: usize,
    resting: usize,
    /// Bodies avian put to sleep: their pairs skip the narrow phase and the solver, so a
    /// pile that settles gets cheap, and one that keeps rocking does not.
    asleep: usize,
}

struct Pose {
    sprite: usize,
    to_world: bevy::math::Affine2,
    bounds: bevy::math::bounding::Aabb2d,
    center: Vec2,
    at_rest: bool,
}

/// Directions the judge tries besides the contact's normal.
const JUDGE_DIRECTIONS: usize = 16;

/// How far A is into B: the least distance, to an eighth of a pixel, that A moves to
/// clear B along the contact's normal (`depth`) or any of [`JUDGE_DIRECTIONS`]. The
/// normal alone overstates it where concave sprites interlock: one petal tip of a flower
/// in another's gap is one pixel of overlap, yet 30 px along the normal.
fn penetration(
    a: &BitMask,
    a_to_world: Affine2,
    b: &BitMask,
    b_to_world: Affine2,
    depth: f32,
) -> f32 {
    if depth <= 1.0 {
        return depth;
    }
    let clear = |way: Vec2, d: f32| {
        !transformed_intersects(
            a,
            Affine2::from_translation(way * d) * a_to_world,
            b,
            b_to_world,
        )
    };
    let mut least = depth;
    for k in 0..JUDGE_DIRECTIONS {
        let way = Vec2::from_angle(std::f32::consts::TAU * k as f32 / JUDGE_DIRECTIONS as f32);
        // Doubling up to the depth already found, then halving to an eighth of a pixel.
        let (mut lo, mut hi) = (0.0, 0.125);
        while hi < least && !clear(way, hi) {
            (lo, hi) = (hi, hi * 2.0);
        }
        if hi >= least {
            continue;
        }
        while hi - lo > 0.125 {
            let mid = (lo + hi) / 2.0;
            if clear(way, mid) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        least = least.min(hi);
    }
    least
}

/// How many of B's pixel rows deep the deepest of A's pixels that land on B lies (1: in
/// B's edge row), and the same with the roles swapped: the larger. Where concave sprites
/// interlock, this is the overlap a player sees; [`penetration`], how far one must move to
/// clear the other, can be several pixels for tips a pixel in.
fn local_depth(a: &BitMask, a_to_world: Affine2, b: &BitMask, b_to_world: Affine2) -> u32 {
    let one_way = |a: &BitMask, a_to_world: Affine2, b: &BitMask, b_to_world: Affine2| {
        let to_b = b_to_world.inverse() * a_to_world;
        let (w, h) = (i64::from(b.width()), i64::from(b.height()));
        let mut deepest = 0;
        for j in 0..a.height() {
            for i in 0..a.width() {
                if !a.get(i.into(), j.into()) {
                    continue;
                }
                let at = to_b.transform_point2(Vec2::new(i as f32 + 0.5, j as f32 + 0.5));
                let (x, y) = (at.x.floor() as i64, at.y.floor() as i64);
                if !(0..w).contains(&x) || !(0..h).contains(&y) || !b.get(x, y) {
                    continue;
                }
                // Rings out to the first pixel of B not set (or past its edge).
                let mut ring: i64 = 1;
                'rings: while ring < 64 {
                    for dy in -ring..=ring {
                        for dx in -ring..=ring {
                            if dx.abs() != ring && dy.abs() != ring {
                                continue;
                            }
                            let (u, v) = (x + dx, y + dy);
                            if !(0..w).contains(&u) || !(0..h).contains(&v) || !b.get(u, v) {
                                break 'rings;
                            }
                        }
                    }
                    ring += 1;
                }
                deepest = deepest.max(ring as u32);
            }
        }
        deepest
    };
    one_way(a, a_to_world, b, b_to_world).max(one_way(b, b_to_world, a, a_to_world))
}

fn judge(app: &mut App, shapes: &[Shape], ground: &BitMask, local: bool) -> Judgement {
    let world = app.world_mut();
    let mut query = world.query::<(
        &Body,
        &Position,
        &Rotation,
        &LinearVelocity,
        &AngularVelocity,
        Has<Sleeping>,
    )>();
    let mut asleep = 0;
    let mut poses: Vec<Pose> = query
        .iter(world)
        .map(|(body, position, rotation, velocity, spin, sleeping)| {
            asleep += usize::from(sleeping);
            let mask = &shapes[body.0].mask;
            let to_world =
                sprite_to_world(position.0, rotation.as_radians(), Vec2::ONE, mask.size());
            Pose {
                sprite: body.0,
                to_world,
                bounds: world_bounds(mask.size(), to_world),
                center: position.0,
                at_rest: velocity.0.length() < REST_SPEED && spin.0.abs() < REST_TURN,
            }
        })
        .collect();
    let ground_to_world = sprite_to_world(Vec2::ZERO, 0.0, Vec2::ONE, ground.size());
    let (gw, gh) = ground.size();
    let mut judgement = Judgement {
        asleep,
        ..Judgement::default()
    };
    for pose in &poses {
        let mask = &shapes[pose.sprite].mask;
        if let Some(contact) = transformed_overlap(mask, pose.to_world, ground, ground_to_world) {
            judgement.ground.add(penetration(
                mask,
                pose.to_world,
                ground,
                ground_to_world,
                contact.depth,
            ));
        }
        let i = (pose.center.x + gw as f32 / 2.0).floor();
        let j = (gh as f32 / 2.0 - pose.center.y).floor();
        if !(0.0..gw as f32).contains(&i) || !(0.0..gh as f32).contains(&j) {
            judgement.escaped += 1;
        } else if ground.get(i as i64, j as i64) {
            judgement.sunk += 1;
        }
        judgement.resting += usize::from(pose.at_rest);
    }
    // Pairs whose boxes meet, by a sweep along x.
    poses.sort_by(|a, b| a.bounds.min.x.total_cmp(&b.bounds.min.x));
    for (k, a) in poses.iter().enumerate() {
        for b in &poses[k + 1..] {
            if b.bounds.min.x > a.bounds.max.x {
                break;
            }
            if b.bounds.min.y > a.bounds.max.y || a.bounds.min.y > b.bounds.max.y {
                continue;
            }
            let (ma, mb) = (&shapes[a.sprite].mask, &shapes[b.sprite].mask);
            if let Some(contact) = transformed_overlap(ma, a.to_world, mb, b.to_world) {
                judgement
                    .bodies
                    .add(penetration(ma, a.to_world, mb, b.to_world, contact.depth));
                if local {
                    judgement.local = judgement
                        .local
                        .max(local_depth(ma, a.to_world, mb, b.to_world));
                }
            }
        }
    }
    judgement
}

// ---------------------------------------------------------------------------------------
// The pile
// ---------------------------------------------------------------------------------------

fn bowl_image() -> RgbaImage {
    let (w, h) = BOWL;
    RgbaImage::from_fn(w, h, |x, y| {
        let u = (x as f32 + 0.5 - w as f32 / 2.0) / (w as f32 / 2.0);
        let floor = (h - BOWL_WALL) as f32 - BOWL_CURVE * u * u;
        let solid = x < BOWL_WALL || x >= w - BOWL_WALL || y as f32 + 0.5 >= floor;
        if solid {
            image::Rgba([120, 90, 60, 255])
        } else {
            image::Rgba([0, 0, 0, 0])
        }
    })
}

/// A side's collider, ready to go on an entity.
enum SideCollider {
    Mask(MaskCollider),
    Polygon(Collider),
}

impl SideCollider {
    fn insert_on(self, entity: &mut EntityWorldMut) {
        match self {
            SideCollider::Mask(collider) => entity.insert(collider),
            SideCollider::Polygon(collider) => entity.insert(collider),
        };
    }
}

/// Ground both sides collide with: its pixels as a mask and as the image polygons are
/// made from, kept equal.
struct Ground {
    mask: Arc<BitMask>,
    image: DynamicImage,
}

impl Ground {
    fn new(image: RgbaImage) -> Ground {
        Ground {
            mask: Arc::new(mask_of(&image)),
            image: DynamicImage::ImageRgba8(image),
        }
    }

    fn collider(&self, side: Side) -> SideCollider {
        match side {
            Side::Masks => SideCollider::Mask(MaskCollider::fixed(Arc::clone(&self.mask))),
            Side::Polygons => SideCollider::Polygon(polylines(&self.image)),
        }
    }

    /// A crater in the mask, centered at mask pixel `(cx, cy)`.
    fn carve_mask(&mut self, cx: f32, cy: f32) {
        Arc::make_mut(&mut self.mask).erase_circle(
            f64::from(cx),
            f64::from(cy),
            f64::from(CRATER_RADIUS),
        );
    }

    /// The image made transparent wherever the mask is clear.
    fn clear_image_to_mask(&mut self) {
        let rgba = self
            .image
            .as_mut_rgba8()
            .expect("Ground::new keeps an RGBA8 image");
        for (i, j, pixel) in rgba.enumerate_pixels_mut() {
            if !self.mask.get(i64::from(i), i64::from(j)) {
                pixel.0[3] = 0;
            }
        }
    }
}

fn spawn_ground(app: &mut App, ground: &Ground, side: Side) -> Entity {
    let mut entity = app.world_mut().spawn((
        RigidBody::Static,
        Transform::default(),
        Friction::new(FRICTION),
        Restitution::new(RESTITUTION),
    ));
    ground.collider(side).insert_on(&mut entity);
    entity.id()
}

fn spawn_body(app: &mut App, shapes: &[Shape], side: Side, sprite: usize, at: Vec2, angle: f32) {
    let mut entity = app.world_mut().spawn((
        Body(sprite),
        RigidBody::Dynamic,
        Transform::from_translation(at.extend(0.0)).with_rotation(Quat::from_rotation_z(angle)),
        Friction::new(FRICTION),
        Restitution::new(RESTITUTION),
    ));
    let collider = match side {
        Side::Masks => SideCollider::Mask(shapes[sprite].mask_collider.clone()),
        Side::Polygons => SideCollider::Polygon(shapes[sprite].polygon.clone()),
    };
    collider.insert_on(&mut entity);
}

/// Starting poses of a pile of `n`: rows across the bowl from just above its rim upwards,
/// each body a little off its cell's center and turned a little.
fn pile_poses(n: usize, seed: u64) -> Vec<(usize, Vec2, f32)> {
    const PITCH: f32 = 76.0;
    let (w, h) = (BOWL.0 as f32, BOWL.1 as f32);
    let inner = w - 2.0 * BOWL_WALL as f32 - PITCH;
    let columns = (inner / PITCH).floor() as usize;
    let rim = -h / 2.0 + BOWL_WALL as f32 + BOWL_CURVE;
    let mut rng = SplitMix64(SEED ^ seed);
    (0..n)
        .map(|k| {
            let (row, column) = (k / columns, k % columns);
            let x = (column as f32 - (columns - 1) as f32 / 2.0) * PITCH + rng.range(-4.0, 4.0);
            let y = rim + PITCH * (row as f32 + 1.0);
            (k % 6, Vec2::new(x, y), rng.range(-0.2, 0.2))
        })
        .collect()
}

struct PileRun {
    side: Side,
    n: usize,
    steps: Vec<StepTime>,
    during: Judgement,
    end: Judgement,
    worst_escaped: usize,
    worst_sunk: usize,
    /// Each seed's bodies resting and asleep at the end.
    settled: Vec<(usize, usize)>,
    /// The mean step of each seed's last 2 s.
    last: Vec<f64>,
}

impl PileRun {
    /// The runs of one N and side over several seeds as one: their steps together, the
    /// deepest overlaps of any, each seed's end.
    fn pooled(runs: Vec<PileRun>) -> PileRun {
        let mut runs = runs.into_iter();
        let mut all = runs.next().expect("at least one seed");
        for r in runs {
            all.steps.extend(r.steps);
            all.during.ground.merge(r.during.ground);
            all.during.bodies.merge(r.during.bodies);
            all.end.ground.merge(r.end.ground);
            all.end.bodies.merge(r.end.bodies);
            all.end.local = all.end.local.max(r.end.local);
            all.worst_escaped = all.worst_escaped.max(r.worst_escaped);
            all.worst_sunk = all.worst_sunk.max(r.worst_sunk);
            all.settled.extend(r.settled);
            all.last.extend(r.last);
        }
        all
    }
}

/// One side's pile being stepped.
struct Pile {
    app: App,
    side: Side,
    n: usize,
    times: Vec<StepTime>,
    was_touching: std::collections::HashSet<(Entity, Entity)>,
    stopped: usize,
    during: Judgement,
    worst_escaped: usize,
    worst_sunk: usize,
}

impl Pile {
    fn new(shapes: &[Shape], bowl: &Ground, side: Side, n: usize, reuse: f32, seed: u64) -> Pile {
        let mut app = physics_app(side, reuse);
        spawn_ground(&mut app, bowl, side);
        for (sprite, at, angle) in pile_poses(n, seed) {
            spawn_body(&mut app, shapes, side, sprite, at, angle);
        }
        Pile {
            app,
            side,
            n,
            times: Vec::new(),
            was_touching: std::collections::HashSet::new(),
            stopped: 0,
            during: Judgement::default(),
            worst_escaped: 0,
            worst_sunk: 0,
        }
    }

    /// Step `k` (from 0), timed, then judged every [`JUDGE_EVERY`] steps.
    fn advance(&mut self, k: usize, shapes: &[Shape], bowl: &Ground, timeline: bool) {
        self.times.push(step(&mut self.app));
        if timeline {
            let now = touching_pairs(&mut self.app);
            self.stopped += self.was_touching.difference(&now).count();
            self.was_touching = now;
            if k % 60 == 59 {
                let stopped = std::mem::take(&mut self.stopped);
                print_second(&mut self.app, self.side, &self.times[k - 59..], stopped);
            }
        }
        if k % JUDGE_EVERY == JUDGE_EVERY - 1 {
            let now = judge(&mut self.app, shapes, &bowl.mask, false);
            self.during.ground.merge(now.ground);
            self.during.bodies.merge(now.bodies);
            self.worst_escaped = self.worst_escaped.max(now.escaped);
            self.worst_sunk = self.worst_sunk.max(now.sunk);
        }
    }

    fn finish(mut self, shapes: &[Shape], bowl: &Ground) -> PileRun {
        let end = judge(&mut self.app, shapes, &bowl.mask, true);
        let last = mean(self.times.iter().rev().take(LAST_STEPS).map(|s| s.total));
        PileRun {
            side: self.side,
            n: self.n,
            steps: self.times,
            during: self.during,
            end,
            worst_escaped: self.worst_escaped.max(end.escaped),
            worst_sunk: self.worst_sunk.max(end.sunk),
            settled: vec![(end.resting, end.asleep)],
            last: vec![last],
        }
    }
}

/// Each side's pile of `n` from one seed, stepped in turn, a step of one and a step of
/// the other: a shared machine's speed drifts within a run (here by up to 1.8 times
/// between two piles at rest), and both sides then see the same drift.
fn run_piles(
    shapes: &[Shape],
    bowl: &Ground,
    sides: &[Side],
    n: usize,
    steps: usize,
    reuse: f32,
    seed: u64,
    timeline: bool,
) -> Vec<PileRun> {
    let mut piles: Vec<Pile> = sides
        .iter()
        .map(|&side| Pile::new(shapes, bowl, side, n, reuse, seed))
        .collect();
    for k in 0..steps {
        for pile in &mut piles {
            pile.advance(k, shapes, bowl, timeline);
        }
    }
    piles
        .into_iter()
        .map(|pile| pile.finish(shapes, bowl))
        .collect()
}

/// The pairs avian counts as touching, awake or asleep.
fn touching_pairs(app: &mut App) -> std::collections::HashSet<(Entity, Entity)> {
    let graph = app.world().resource::<ContactGraph>();
    graph
        .iter_active_touching()
        .chain(graph.iter_sleeping_touching())
        .map(|pair| (pair.collider1, pair.collider2))
        .collect()
}

/// One simulated second of a run, for `--timeline`: its mean step, narrow phase and
/// solver, the bodies asleep and pairs touching at its end, and how many times in it a
/// pair stopped touching (an island a contact has left cannot sleep until it is split).
fn print_second(app: &mut App, side: Side, second: &[StepTime], stopped: usize) {
    let touching = touching_pairs(app).len();
    // What the solver is given: awake pairs' manifolds (a constraint each) and points,
    // and of those the speculative ones (apart, a negative depth); and how many colors
    // avian's constraint graph needed (each color is a pass of its own, per substep).
    let (mut manifolds, mut points, mut speculative) = (0, 0, 0);
    for pair in app.world().resource::<ContactGraph>().iter_active() {
        manifolds += pair.manifolds.len();
        for manifold in &pair.manifolds {
            points += manifold.points.len();
            speculative += manifold
                .points
                .iter()
                .filter(|p| p.penetration < 0.0)
                .count();
        }
    }
    let colors = app
        .world()
        .resource::<ConstraintGraph>()
        .colors
        .iter()
        .filter(|color| !color.manifold_handles.is_empty())
        .count();
    let world = app.world_mut();
    let asleep = world
        .query_filtered::<(), (With<Body>, With<Sleeping>)>()
        .iter(world)
        .count();
    // Bodies avian found moving (over its sleep thresholds) within the last second: any
    // one of them keeps its whole island awake.
    let (mut stirred, mut fastest, mut fastest_turn) = (0, 0.0f32, 0.0f32);
    for (timer, velocity, spin) in world
        .query_filtered::<(&SleepTimer, &LinearVelocity, &AngularVelocity), With<Body>>()
        .iter(world)
    {
        if timer.0 < 1.0 - 1e-3 {
            stirred += 1;
            fastest = fastest.max(velocity.0.length());
            fastest_turn = fastest_turn.max(spin.0.abs());
        }
    }
    let second_number = world.resource::<PhaseClock>().steps / 60;
    eprintln!(
        "  {} {second_number:>2} s: step {:.2} ms, narrow {:.2}, solver {:.2}; asleep {asleep}, touching {touching}, stopped {stopped}; constraints {manifolds} ({points} points, {speculative} apart) in {colors} colors; stirred {stirred} (now up to {fastest:.1} px/s, {fastest_turn:.2} rad/s)",
        side.name(),
        mean(second.iter().map(|s| s.total)),
        mean(second.iter().map(|s| s.narrow)),
        mean(second.iter().map(|s| s.solver)),
    );
}

/// Values joined by slashes: one per seed.
fn list<T: std::fmt::Display>(values: impl Iterator<Item = T>) -> String {
    values.map(|v| v.to_string()).collect::<Vec<_>>().join("/")
}

fn millis(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn mean(times: impl Iterator<Item = Duration>) -> f64 {
    let all: Vec<f64> = times.map(millis).collect();
    all.iter().sum::<f64>() / all.len().max(1) as f64
}

fn p95(times: impl Iterator<Item = Duration>) -> f64 {
    let mut all: Vec<f64> = times.map(millis).collect();
    all.sort_by(f64::total_cmp);
    all.get(all.len() * 95 / 100).copied().unwrap_or(0.0)
}

// ---------------------------------------------------------------------------------------
// The crater
// ---------------------------------------------------------------------------------------

/// The terrain scene's ground (`assets/terrain.png`, 1,280 × 720) drawn at 2,048 × 1,024.
fn terrain_image() -> RgbaImage {
    image::imageops::resize(
        &asset("terrain.png"),
        TERRAIN_SIZE.0,
        TERRAIN_SIZE.1,
        image::imageops::FilterType::Nearest,
    )
}

/// The top of the ground in column `x` of `mask`, world y, if the column has any.
fn surface(mask: &BitMask, x: f32) -> Option<f32> {
    let (w, h) = mask.size();
    let i = (x + w as f32 / 2.0).floor();
    if !(0.0..w as f32).contains(&i) {
        return None;
    }
    let top = (0..h).find(|&j| mask.get(i as i64, i64::from(j)))?;
    Some(h as f32 / 2.0 - top as f32)
}

struct CraterRun {
    side: Side,
    /// Rebuilding the ground's collider after each crater.
    rebuilds: Vec<Duration>,
    /// The step right after each rebuild (avian takes in the new collider).
    first_steps: Vec<Duration>,
    settled_steps: Vec<StepTime>,
    after_steps: Vec<StepTime>,
    end: Judgement,
    collider_bytes: i64,
}

fn run_crater(
    shapes: &[Shape],
    terrain: &RgbaImage,
    side: Side,
    craters: &[f32],
    reuse: f32,
) -> CraterRun {
    let mut ground = Ground::new(terrain.clone());
    let mut app = physics_app(side, reuse);
    let entity = spawn_ground(&mut app, &ground, side);
    // Balls and stones along the ground, a little above it.
    let ball = shapes.iter().position(|s| s.name == "basketball").unwrap();
    let stone = shapes.iter().position(|s| s.name == "stone").unwrap();
    let mut rng = SplitMix64(SEED ^ 0xc7a7);
    for k in 0..40 {
        let x = -900.0 + 45.0 * k as f32 + rng.range(-5.0, 5.0);
        let Some(top) = surface(&ground.mask, x) else {
            continue;
        };
        let sprite = if k % 4 == 3 { stone } else { ball };
        spawn_body(
            &mut app,
            shapes,
            side,
            sprite,
            Vec2::new(x, top + 40.0),
            0.0,
        );
    }
    let settled_steps: Vec<StepTime> = (0..180).map(|_| step(&mut app)).collect();

    let (w, h) = ground.mask.size();
    let mut rebuilds = Vec::new();
    let mut first_steps = Vec::new();
    let mut after_steps = Vec::new();
    let mut collider_bytes = 0;
    for &x in craters {
        let Some(top) = surface(&ground.mask, x) else {
            continue;
        };
        let (cx, cy) = (x + w as f32 / 2.0, h as f32 / 2.0 - top);
        // Theirs starts from the edited image: the same pixels cleared in it first.
        if side == Side::Polygons {
            ground.carve_mask(cx, cy);
            ground.clear_image_to_mask();
        }
        let start = Instant::now();
        let (collider, bytes) = measured(|| {
            if side == Side::Masks {
                ground.carve_mask(cx, cy);
            }
            ground.collider(side)
        });
        rebuilds.push(start.elapsed());
        collider_bytes = bytes;
        collider.insert_on(&mut app.world_mut().entity_mut(entity));
        first_steps.push(step(&mut app).total);
        after_steps.extend((0..30).map(|_| step(&mut app)));
    }
    let end = judge(&mut app, shapes, &ground.mask, true);
    CraterRun {
        side,
        rebuilds,
        first_steps,
        settled_steps,
        after_steps,
        end,
        collider_bytes,
    }
}

// ---------------------------------------------------------------------------------------
// Report
// ---------------------------------------------------------------------------------------

fn median(mut all: Vec<Duration>) -> Duration {
    all.sort();
    all.get(all.len() / 2).copied().unwrap_or_default()
}

/// Step time against N, both sides, as an SVG line chart.
fn chart(runs: &[PileRun]) -> String {
    let (width, height, left, bottom, top, right) = (640.0, 400.0, 70.0, 50.0, 40.0, 150.0);
    let most_n = runs.iter().map(|r| r.n).max().unwrap_or(1) as f64;
    let most_ms = runs
        .iter()
        .map(|r| p95(r.steps.iter().map(|s| s.total)))
        .fold(0.0, f64::max)
        .max(1.0);
    let x = |n: f64| left + n / most_n * (width - left - right);
    let y = |ms: f64| height - bottom - ms / most_ms * (height - top - bottom);
    let mut svg = String::new();
    let _ = write!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="13">
<rect width="100%" height="100%" fill="white"/>
<text x="{left}" y="24" font-size="15">avian2d step time against bodies in the pile (mean, dashed: 95th percentile)</text>
<line x1="{left}" y1="{b}" x2="{r}" y2="{b}" stroke="black"/>
<line x1="{left}" y1="{b}" x2="{left}" y2="{top}" stroke="black"/>
<text x="{mx}" y="{lx}" text-anchor="middle">bodies</text>
<text x="16" y="{my}" transform="rotate(-90 16 {my})" text-anchor="middle">ms per step</text>
"#,
        b = height - bottom,
        r = width - right,
        mx = (left + width - right) / 2.0,
        lx = height - 12.0,
        my = (top + height - bottom) / 2.0,
    );
    for k in 0..=4 {
        let ms = most_ms * f64::from(k) / 4.0;
        let _ = writeln!(
            svg,
            r#"<text x="{}" y="{}" text-anchor="end">{ms:.1}</text><line x1="{left}" y1="{1}" x2="{}" y2="{1}" stroke="lightgray"/>"#,
            left - 6.0,
            y(ms),
            width - right
        );
    }
    let mut ns: Vec<usize> = runs.iter().map(|r| r.n).collect();
    ns.dedup();
    for n in ns {
        let _ = writeln!(
            svg,
            r#"<text x="{}" y="{}" text-anchor="middle">{n}</text>"#,
            x(n as f64),
            height - bottom + 18.0
        );
    }
    for (k, (side, color)) in [(Side::Masks, "#c0392b"), (Side::Polygons, "#2471a3")]
        .into_iter()
        .enumerate()
    {
        let ours: Vec<&PileRun> = runs.iter().filter(|r| r.side == side).collect();
        for (dash, figure) in [("", 0), ("6 4", 1)] {
            let points: Vec<String> = ours
                .iter()
                .map(|r| {
                    let ms = if figure == 0 {
                        mean(r.steps.iter().map(|s| s.total))
                    } else {
                        p95(r.steps.iter().map(|s| s.total))
                    };
                    format!("{:.1},{:.1}", x(r.n as f64), y(ms))
                })
                .collect();
            let _ = writeln!(
                svg,
                r#"<polyline points="{}" fill="none" stroke="{color}" stroke-width="2" stroke-dasharray="{dash}"/>"#,
                points.join(" ")
            );
        }
        let _ = writeln!(
            svg,
            r#"<text x="{}" y="{}" fill="{color}">{}</text>"#,
            width - right + 10.0,
            top + 20.0 + 20.0 * k as f64,
            side.name()
        );
    }
    svg.push_str("</svg>\n");
    svg
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    // cargo bench passes --bench; only ours count.
    let quick = args.iter().any(|a| a == "--quick");
    let chart_path = args
        .iter()
        .position(|a| a == "--chart")
        .and_then(|k| args.get(k + 1).cloned());
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|k| args.get(k + 1).cloned())
    };
    let sizes: Vec<usize> = match value("--sizes") {
        Some(list) => list
            .split(',')
            .map(|n| {
                n.parse()
                    .expect("--sizes: a list of body counts, as 50,200")
            })
            .collect(),
        None if quick => vec![50],
        None => vec![50, 200, 500],
    };
    let sides: Vec<Side> = match value("--side").as_deref() {
        None => vec![Side::Masks, Side::Polygons],
        Some("masks") => vec![Side::Masks],
        Some("polygons") => vec![Side::Polygons],
        Some(other) => panic!("--side {other}: masks or polygons"),
    };
    let steps = if quick { 120 } else { 600 };
    // Whether a pile falls asleep within the 10 s, and so how much its last seconds cost,
    // turns on small differences in how the bodies land: one seed can leave a pile awake
    // that the next puts to sleep, on either side.
    let seeds: u64 = value("--seeds").map_or(if quick { 1 } else { 10 }, |k| {
        k.parse()
            .ok()
            .filter(|&k| k > 0)
            .expect("--seeds: how many drops of each pile, as 10")
    });
    let reuse: f32 = value("--reuse").map_or(DEFAULT_TOLERANCE, |t| {
        t.parse()
            .expect("--reuse: a distance in px, as 0.125 (0: find every contact again)")
    });

    let timeline = args.iter().any(|a| a == "--timeline");

    eprintln!("avian_polygons: building colliders");
    let shapes: Vec<Shape> = sprite_images()
        .iter()
        .map(|(name, image)| shape(name, image))
        .collect();
    println!("## Colliders from the game's sprites\n");
    println!(
        "| sprite | pixels | polygons: parts, vertices | pixels the polygons add, miss | build: masks, polygons | heap: masks, polygons |"
    );
    println!("|---|---|---|---|---|---|");
    for s in &shapes {
        let (count, extra, missing) = polygon_error(s);
        println!(
            "| {} {}×{} | {count} | {}, {} | {extra}, {missing} ({:.1}%) | {:.1} µs, {:.0} µs | {} B, {} B |",
            s.name,
            s.mask.width(),
            s.mask.height(),
            s.parts,
            s.vertices,
            100.0 * (extra + missing) as f64 / count as f64,
            s.build_mask.as_secs_f64() * 1e6,
            s.build_polygon.as_secs_f64() * 1e6,
            s.bytes_mask,
            s.bytes_polygon,
        );
    }

    let bowl = Ground::new(bowl_image());
    let mut runs = Vec::new();
    for &n in &sizes {
        let mut each: Vec<Vec<PileRun>> = sides.iter().map(|_| Vec::new()).collect();
        for seed in 0..seeds {
            eprintln!("avian_polygons: piles of {n}, seed {seed}");
            let piles = run_piles(&shapes, &bowl, &sides, n, steps, reuse, seed, timeline);
            for (runs_of_side, run) in each.iter_mut().zip(piles) {
                runs_of_side.push(run);
            }
        }
        runs.extend(each.into_iter().map(PileRun::pooled));
    }
    // A mask builds its distance field and transposed copy on first use: what it holds
    // once it has collided is the heap it costs in a game.
    println!(
        "\nHeap of each mask once it has collided (distance field and transposed copy built):"
    );
    for s in &shapes {
        println!("- {}: {} B", s.name, measured(|| BitMask::clone(&s.mask)).1);
    }
    println!(
        "\n## Pile: N bodies into a {}×{} bowl, {} s, {seeds} seeds\n",
        BOWL.0,
        BOWL.1,
        steps as f64 * STEP
    );
    println!(
        "Times over every seed's steps; overlaps the deepest of any seed and the mean of all; \
         resting and asleep at the end, and the last 2 s, per seed.\n"
    );
    println!(
        "| N | side | step mean, p95 (ms) | broad, narrow, solver (ms) | deepest, mean overlap with ground (px) | between bodies | at rest: deepest ground, bodies (px), bodies' rows deep | resting, asleep | step mean, last 2 s (ms) | escaped, sunk |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for r in &runs {
        println!(
            "| {} | {} | {:.2}, {:.2} | {:.2}, {:.2}, {:.2} | {:.2}, {:.2} | {:.2}, {:.2} | {:.2}, {:.2}, {} | {}; {} of {} | {} | {}, {} |",
            r.n,
            r.side.name(),
            mean(r.steps.iter().map(|s| s.total)),
            p95(r.steps.iter().map(|s| s.total)),
            mean(r.steps.iter().map(|s| s.broad)),
            mean(r.steps.iter().map(|s| s.narrow)),
            mean(r.steps.iter().map(|s| s.solver)),
            r.during.ground.deepest,
            r.during.ground.mean(),
            r.during.bodies.deepest,
            r.during.bodies.mean(),
            r.end.ground.deepest,
            r.end.bodies.deepest,
            r.end.local,
            list(r.settled.iter().map(|s| s.0)),
            list(r.settled.iter().map(|s| s.1)),
            r.n,
            list(r.last.iter().map(|ms| format!("{ms:.2}"))),
            r.worst_escaped,
            r.worst_sunk,
        );
    }
    if sizes.len() > 1 {
        for side in [Side::Masks, Side::Polygons] {
            let of = |n: usize| {
                runs.iter()
                    .find(|r| r.side == side && r.n == n)
                    .map(|r| mean(r.steps.iter().map(|s| s.total)))
                    .unwrap_or(f64::NAN)
            };
            println!(
                "\n{}: step time grows {:.1} times from 50 to 500 bodies",
                side.name(),
                of(500) / of(50)
            );
        }
    }

    if args.iter().any(|a| a == "--pile-only") {
        return;
    }
    let terrain = terrain_image();
    let craters = [-600.0, -300.0, 0.0, 300.0, 600.0];
    println!(
        "\n## Crater: {}×{} terrain, {} craters of radius {CRATER_RADIUS}\n",
        TERRAIN_SIZE.0,
        TERRAIN_SIZE.1,
        craters.len()
    );
    println!(
        "| side | collider rebuild, median (ms) | first step after it (ms) | step before, after (ms) | collider heap | at the end: deepest ground, bodies (px) |"
    );
    println!("|---|---|---|---|---|---|");
    for side in [Side::Masks, Side::Polygons] {
        eprintln!("avian_polygons: crater, {}", side.name());
        let r = run_crater(&shapes, &terrain, side, &craters, reuse);
        println!(
            "| {} | {:.3} | {:.2} | {:.2}, {:.2} | {} KiB | {:.2}, {:.2} |",
            r.side.name(),
            millis(median(r.rebuilds)),
            millis(median(r.first_steps)),
            mean(r.settled_steps.iter().skip(60).map(|s| s.total)),
            mean(r.after_steps.iter().map(|s| s.total)),
            r.collider_bytes / 1024,
            r.end.ground.deepest,
            r.end.bodies.deepest,
        );
    }

    if let Some(path) = chart_path {
        // cargo runs a bench in its package's folder: a relative path is the repository's.
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join(path);
        std::fs::write(&path, chart(&runs)).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        eprintln!("avian_polygons: chart written to {}", path.display());
    }
}
