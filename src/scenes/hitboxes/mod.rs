//! Scene "Hitboxes": the tutorials' shape tests, live. Two boxes, two circles, an oriented
//! rectangle and the mouse cursor are tested pair by pair with the core's
//! [`shapes`](pixel_collide::shapes) functions; the overlay window switches the edge rule,
//! the push-apart resolution, the swept bullet test and the "rotated box as its AABB"
//! shortcut. A clover runs at high speed and stays inside the window, whatever its size.
//!
//! Everything the player decides or sees is decided here as pure functions
//! ([`evaluate`], [`resolve`], [`step_bullet`], [`clamp_to_borders`]) over plain resources,
//! so the tests call them directly; the systems only feed them input and time.

use bevy::platform::time::Instant;

use bevy::math::bounding::{Aabb2d, BoundingCircle, BoundingVolume};
use bevy::math::primitives::Circle;
use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};

use crate::autoplay::AutoplaySystems;
use crate::input::Controls;
use crate::motion::{FIXED_STEP, FixedPose};
use crate::play_area::PlayArea;
use crate::scene::GameScene;
use crate::{AppSystems, CollisionStats, StatusLine};
use bevy_pixel_collide::debug::{PixelDebugGizmos, PixelDebugSettings};
use pixel_collide::shapes::{
    EdgeRule, Obb2d, Sat, aabb_aabb, aabb_is_valid, aabb_mtv, circle_aabb_closest_point,
    circle_aabb_mtv, circle_circle, circle_circle_mtv, circle_is_valid, obb_aabb_mtv, obb_aabb_sat,
    obb_obb_mtv, obb_obb_sat, point_in_aabb, point_in_circle, point_in_obb, sweep_circle_aabb,
};

/// A box idle, as the debug drawing colors every collider's by default.
fn idle_color() -> Color {
    PixelDebugGizmos::default().aabb_color
}

/// A box that touches another, as the debug drawing colors it by default.
fn hit_color() -> Color {
    PixelDebugGizmos::default().touching_color
}

mod bullet;
mod handles;
mod overlay;
mod pairs;
mod shapes;

pub use bullet::*;
pub use handles::*;
pub(crate) use overlay::overlay_plugin;
pub use pairs::*;
pub use shapes::*;

/// Pixels per second at full stick for the active shape.
pub const SHAPE_SPEED: f32 = 260.0;
/// Radians per second at full button for the oriented rectangle.
pub const TURN_SPEED: f32 = 1.5;
/// Top speed of the clover, pixels per second: fast enough to hit a border in a blink.
pub const RUNNER_SPEED: f32 = 1500.0;
/// How quickly the clover reaches its top speed, pixels per second squared.
pub const RUNNER_ACCEL: f32 = 9000.0;
/// Half the clover's drawn size (the sprite is 32×32).
pub const RUNNER_HALF_SIZE: Vec2 = Vec2::splat(16.0);
/// Where the clover starts.
pub const RUNNER_START: Vec2 = Vec2::new(-200.0, -250.0);

/// The bullet's speed, pixels per second.
pub const BULLET_SPEED: f32 = 1200.0;
pub const BULLET_RADIUS: f32 = 4.0;
/// The bullet moves one step per fixed step of the game, whatever the frame rate, so the
/// lesson is the same on every machine: each step jumps `BULLET_SPEED * BULLET_STEP` = 20 px,
/// more than the wall plus the bullet are thick (14 px).
pub const BULLET_STEP: f32 = FIXED_STEP;
/// Seconds between automatic shots.
pub const FIRE_PERIOD: f32 = 1.5;
/// Where every shot starts: left of the window, in a lane clear of the overlay windows.
pub const BULLET_START: Vec2 = Vec2::new(-620.0, -110.0);
/// The thin wall across the bullet's lane. Its center (x = 190) lies halfway between two of
/// the bullet's discrete positions (180 and 200), so without the sweep it always tunnels.
pub const WALL: Aabb2d = Aabb2d {
    min: Vec2::new(187.0, -170.0),
    max: Vec2::new(193.0, -50.0),
};

/// Passes of pairwise pushes per frame; each pass pushes every overlapping pair once.
const RESOLVE_PASSES: u32 = 8;
/// Extra distance added to every push: rotated axes and halved vectors round, and a push of
/// exactly the depth can leave a sliver a few ulps thick that still overlaps strictly.
const RESOLVE_SKIN: f32 = 0.01;

/// The overlay's switches, read by the logic every frame.
#[derive(Resource, Debug, Clone, Copy, PartialEq, Eq)]
pub struct HitboxSettings {
    /// Strict `<` or inclusive `<=` on touching edges.
    pub edge_rule: EdgeRule,
    /// Push overlapping shapes apart along their minimum translation vector.
    pub resolve: bool,
    /// Sweep the bullet over each step instead of testing where it lands.
    pub swept_bullet: bool,
    /// Fire a bullet every [`FIRE_PERIOD`] seconds.
    pub auto_fire: bool,
    /// Test the rotated rectangle as its enclosing axis-aligned box.
    pub obb_as_aabb: bool,
}

impl Default for HitboxSettings {
    fn default() -> Self {
        HitboxSettings {
            edge_rule: EdgeRule::Strict,
            resolve: false,
            swept_bullet: false,
            auto_fire: true,
            obb_as_aabb: false,
        }
    }
}

/// The clover that stays inside the window.
#[derive(Component, Debug, Clone, Copy, Default, PartialEq)]
pub struct BorderRunner {
    pub velocity: Vec2,
}

/// The mouse, as far as the scene cares.
#[derive(Resource, Debug, Clone, Copy, Default, PartialEq)]
pub struct HitboxPointer {
    /// The shape being dragged and the offset from the cursor to its center.
    pub drag: Option<(ShapeId, Vec2)>,
    /// The pointer is over the overlay (written by the overlay), so a click is not a grab.
    pub over_ui: bool,
}

/// This frame's pair results, for the status line and the gizmos.
#[derive(Resource, Debug, Clone, Default, PartialEq)]
pub struct HitboxReport {
    pub pairs: Vec<PairResult>,
    /// Pushes the resolution made this frame.
    pub pushes: u32,
}

pub(crate) fn plugin(app: &mut App) {
    app.init_resource::<HitboxShapes>()
        .init_resource::<HitboxSettings>()
        .init_resource::<HitboxPointer>()
        .init_resource::<HitboxReport>()
        .init_resource::<Bullet>()
        .add_observer(grab)
        .add_systems(
            OnEnter(GameScene::Hitboxes),
            (spawn_scene, spawn_handles).chain(),
        )
        .add_systems(
            Update,
            (read_cursor, drag_shapes, drive_shapes, place_handles)
                .chain()
                .in_set(AppSystems::Update)
                .run_if(in_state(GameScene::Hitboxes)),
        )
        .add_systems(
            Update,
            autoplay
                .in_set(AutoplaySystems)
                .run_if(in_state(GameScene::Hitboxes)),
        )
        .add_systems(
            FixedUpdate,
            (run_clover, fly_bullet).run_if(in_state(GameScene::Hitboxes)),
        )
        .add_systems(
            Update,
            (collide, write_status)
                .chain()
                .in_set(AppSystems::Collide)
                .run_if(in_state(GameScene::Hitboxes)),
        );
}

fn spawn_scene(
    mut commands: Commands,
    assets: Res<AssetServer>,
    mut shapes: ResMut<HitboxShapes>,
    mut bullet: ResMut<Bullet>,
    mut pointer: ResMut<HitboxPointer>,
    mut report: ResMut<HitboxReport>,
) {
    *shapes = HitboxShapes::default();
    *bullet = Bullet::default();
    *pointer = HitboxPointer::default();
    *report = HitboxReport::default();
    commands.spawn((
        Name::new("Clover"),
        Sprite {
            image: assets.load("clover.png"),
            custom_size: Some(RUNNER_HALF_SIZE * 2.0),
            ..default()
        },
        Transform::from_translation(RUNNER_START.extend(2.0)),
        FixedPose::at(RUNNER_START, 0.0),
        BorderRunner::default(),
        DespawnOnExit(GameScene::Hitboxes),
    ));
}

fn read_cursor(
    windows: Query<&Window, With<PrimaryWindow>>,
    cameras: Query<(&Camera, &GlobalTransform), With<Camera2d>>,
    mut shapes: ResMut<HitboxShapes>,
) {
    // Without a camera there is no screen to point at (headless tests set the cursor
    // themselves, if they want one).
    let Some((camera, camera_transform)) = cameras.iter().next() else {
        return;
    };
    let cursor = windows
        .iter()
        .next()
        .and_then(Window::cursor_position)
        .and_then(|p| camera.viewport_to_world_2d(camera_transform, p).ok());
    if shapes.cursor != cursor {
        shapes.cursor = cursor;
    }
}

/// Moves the shape a press grabbed (see [`ShapeHandle`]) with the cursor while the button
/// is held.
fn drag_shapes(
    mouse: Option<Res<ButtonInput<MouseButton>>>,
    mut pointer: ResMut<HitboxPointer>,
    mut shapes: ResMut<HitboxShapes>,
) {
    let Some(mouse) = mouse else {
        return;
    };
    if !mouse.pressed(MouseButton::Left) {
        pointer.drag = None;
        return;
    }
    // A cursor that is not a number (a broken input) moves nothing.
    let Some(cursor) = shapes.cursor.filter(|c| c.is_finite()) else {
        return;
    };
    if let Some((id, offset)) = pointer.drag {
        shapes.set_center(id, cursor + offset);
    }
}

fn drive_shapes(time: Res<Time>, controls: Res<Controls>, mut shapes: ResMut<HitboxShapes>) {
    let dt = time.delta_secs();
    if controls.action {
        shapes.active = shapes.active.next_movable();
    }
    if controls.move_primary != Vec2::ZERO {
        let active = shapes.active;
        shapes.translate(active, controls.move_primary * SHAPE_SPEED * dt);
    }
    if controls.rotate_primary != 0.0 {
        shapes.rotate_oriented(controls.rotate_primary * TURN_SPEED * dt);
    }
}

fn run_clover(
    time: Res<Time>,
    controls: Res<Controls>,
    area: Res<PlayArea>,
    mut runners: Query<(&mut FixedPose, &mut BorderRunner)>,
) {
    let dt = time.delta_secs();
    let window_half = area.half_size();
    let wanted = controls.move_secondary * RUNNER_SPEED;
    for (mut pose, mut runner) in &mut runners {
        let velocity = runner.velocity.move_towards(wanted, RUNNER_ACCEL * dt);
        let moved = pose.current.translation + velocity * dt;
        let (position, velocity) = clamp_to_borders(moved, velocity, RUNNER_HALF_SIZE, window_half);
        pose.set(position, 0.0);
        runner.velocity = velocity;
    }
}

fn fly_bullet(settings: Res<HitboxSettings>, area: Res<PlayArea>, mut bullet: ResMut<Bullet>) {
    bullet.since_fire += BULLET_STEP;
    if settings.auto_fire && bullet.since_fire >= FIRE_PERIOD {
        bullet.fire();
    }
    let right = area.half_size().x;
    bullet.step(settings.swept_bullet, settings.edge_rule, right);
}

fn collide(
    settings: Res<HitboxSettings>,
    area: Res<PlayArea>,
    mut shapes: ResMut<HitboxShapes>,
    mut report: ResMut<HitboxReport>,
    mut stats: ResMut<CollisionStats>,
) {
    let started = Instant::now();
    let pushes = if settings.resolve {
        resolve(&mut shapes, &settings)
    } else {
        0
    };
    // After the pushes, so no shape is left off screen; a shape pinned against a border
    // stays overlapping, which is the truth.
    let window_half = area.half_size();
    for id in ShapeId::MOVABLE {
        if let Some(center) = shapes.center(id) {
            let (inside, _) =
                clamp_to_borders(center, Vec2::ZERO, shapes.half_extent(id), window_half);
            if inside != center {
                shapes.set_center(id, inside);
            }
        }
    }
    let pairs = evaluate(&shapes, &settings);
    let contacts = pairs.iter().filter(|p| p.touching).count();
    *stats = CollisionStats {
        broad_pairs: pairs.len() as u32,
        pixel_tests: 0,
        contacts: contacts as u32,
        micros: started.elapsed().as_secs_f32() * 1e6,
    };
    *report = HitboxReport { pairs, pushes };
}

fn pair_names<'a>(pairs: impl Iterator<Item = &'a PairResult>) -> Vec<String> {
    pairs
        .map(|p| format!("{}-{}", p.a.name(), p.b.name()))
        .collect()
}

fn write_status(
    settings: Res<HitboxSettings>,
    shapes: Res<HitboxShapes>,
    report: Res<HitboxReport>,
    bullet: Res<Bullet>,
    mut status: ResMut<StatusLine>,
) {
    let touching = pair_names(report.pairs.iter().filter(|p| p.touching));
    let mut parts = vec![format!(
        "Touching: {}",
        if touching.is_empty() {
            "none".to_owned()
        } else {
            touching.join(", ")
        }
    )];
    // Under `<` the pairs that only share an edge are the lesson; under `<=` they touch.
    let edges = pair_names(report.pairs.iter().filter(|p| p.edge_only && !p.touching));
    if !edges.is_empty() {
        parts.push(format!("edge only: {}", edges.join(", ")));
    }
    let false_hits = pair_names(report.pairs.iter().filter(|p| p.false_hit));
    if !false_hits.is_empty() {
        parts.push(format!("false hits: {}", false_hits.join(", ")));
    }
    parts.push(format!("active: {}", shapes.active.name()));
    parts.push(
        match settings.edge_rule {
            EdgeRule::Strict => "strict <",
            EdgeRule::Inclusive => "inclusive <=",
        }
        .to_owned(),
    );
    parts.push(format!(
        "{} bullet: {}",
        if settings.swept_bullet {
            "swept"
        } else {
            "discrete"
        },
        bullet.outcome()
    ));
    status.0 = parts.join(" | ");
}

/// `--autoplay`: the active shape circles, turning.
fn autoplay(time: Res<Time>, mut controls: ResMut<Controls>) {
    let t = time.elapsed_secs();
    controls.move_primary = Vec2::new(t.cos(), t.sin()) * 0.7;
    controls.rotate_primary = 0.5;
}
