//! What the player drives stays on screen: in every scene with something to steer (the
//! flower and target, turned too in the rotated scene; each hitbox shape; Larry), holding
//! each direction until nothing moves (or for seven simulated seconds) leaves its whole box
//! inside the play area, and so does shrinking the play area (a smaller window) under it.

use std::time::Duration;

use bevy::math::bounding::Aabb2d;
use bevy::prelude::*;
use bevy_pixel_collide::PixelColliderMask;
use pixel_collide_game::GameScene;
use pixel_collide_game::headless::{self, ASSET_DIR, headless_app};
use pixel_collide_game::play_area::PlayArea;
use pixel_collide_game::scenes::hitboxes::{HitboxShapes, ShapeId};
use pixel_collide_game::scenes::larry::Larry;
use pixel_collide_game::scenes::sprites::Driven;

const DT: f32 = 1.0 / 60.0;
/// Seven simulated seconds: the longest way to a border, across the 1,280 px play area at
/// the slowest speed (Larry's 240 px/s), takes 5.3.
const HELD_FRAMES: u32 = 420;
/// Frames without a box changing after which holding on would change nothing more: what
/// the keys push is against a border (or another shape), and stays there.
const STILL_FRAMES: u32 = 20;

/// Single directions and diagonals, for the left hand and the right.
const HELD: [&[KeyCode]; 8] = [
    &[KeyCode::KeyA],
    &[KeyCode::KeyD],
    &[KeyCode::KeyW],
    &[KeyCode::KeyS],
    &[
        KeyCode::KeyW,
        KeyCode::KeyD,
        KeyCode::ArrowDown,
        KeyCode::ArrowLeft,
    ],
    &[
        KeyCode::KeyS,
        KeyCode::KeyA,
        KeyCode::ArrowUp,
        KeyCode::ArrowRight,
    ],
    &[KeyCode::ArrowLeft],
    &[KeyCode::ArrowRight],
];

fn app(scene: GameScene) -> App {
    let mut app = headless_app(scene, ASSET_DIR, Duration::from_secs_f32(DT));
    headless::wait_for_masks(&mut app);
    app
}

/// The hitbox scene has shapes, no sprite masks to wait for.
fn hitbox_app() -> App {
    let mut app = headless_app(GameScene::Hitboxes, ASSET_DIR, Duration::from_secs_f32(DT));
    app.update();
    app.update();
    app
}

fn hold(app: &mut App, keys: &[KeyCode], frames: u32) {
    for _ in 0..frames {
        hold_down(app, keys);
    }
    let_go(app);
}

/// Holds `keys` until `boxes` has not changed for [`STILL_FRAMES`] frames, or for
/// `HELD_FRAMES`, then lets go.
fn hold_until_still(
    app: &mut App,
    keys: &[KeyCode],
    boxes: &impl Fn(&mut App) -> Vec<(String, Aabb2d)>,
) {
    let (mut last, mut still) = (boxes(app), 0);
    for _ in 0..HELD_FRAMES {
        hold_down(app, keys);
        let now = boxes(app);
        still = if now == last { still + 1 } else { 0 };
        if still >= STILL_FRAMES {
            break;
        }
        last = now;
    }
    let_go(app);
}

/// One frame with `keys` held.
fn hold_down(app: &mut App, keys: &[KeyCode]) {
    let mut input = app.world_mut().resource_mut::<ButtonInput<KeyCode>>();
    // As Bevy's input system would: a press is `just_pressed` one frame only.
    input.clear();
    for key in keys {
        input.press(*key);
    }
    app.update();
}

fn let_go(app: &mut App) {
    app.world_mut()
        .resource_mut::<ButtonInput<KeyCode>>()
        .reset_all();
    app.update();
}

/// Every box is inside the play area; along an axis where a box is longer than the area
/// (a large sprite turned in a small window), it is centered on the area instead, as
/// `PlayArea::keep_inside` places it.
fn assert_inside(app: &App, boxes: &[(String, Aabb2d)], context: &str) {
    let area = app.world().resource::<PlayArea>().0;
    // A hundredth of a pixel for the f32 rounding of turned boxes (the plugin's box and
    // the scene's clamp turn the image's corners by different paths).
    let slack = 1e-2;
    assert!(!boxes.is_empty(), "{context}: nothing to check");
    for (name, b) in boxes {
        let fits = |axis: usize| {
            let (min, max) = (b.min[axis], b.max[axis]);
            let (lo, hi) = (area.min[axis], area.max[axis]);
            if max - min > hi - lo {
                ((min + max) / 2.0 - (lo + hi) / 2.0).abs() <= slack
            } else {
                min >= lo - slack && max <= hi + slack
            }
        };
        assert!(
            fits(0) && fits(1),
            "{context}: {name}'s box {:?}..{:?} leaves the play area {:?}..{:?}",
            b.min,
            b.max,
            area.min,
            area.max
        );
    }
}

/// The world boxes of the whole images of the entities `F` picks, as drawn this frame.
fn sprite_boxes<F: bevy::ecs::query::QueryFilter>(app: &mut App) -> Vec<(String, Aabb2d)> {
    let world = app.world_mut();
    world
        .query_filtered::<(Entity, &PixelColliderMask), F>()
        .iter(world)
        .map(|(entity, collider)| {
            let rect = collider
                .world_rect()
                .unwrap_or_else(|| panic!("{entity} has no mask"));
            (entity.to_string(), rect)
        })
        .collect()
}

fn shape_boxes(app: &App) -> Vec<(String, Aabb2d)> {
    let shapes = app.world().resource::<HitboxShapes>();
    ShapeId::MOVABLE
        .into_iter()
        .filter_map(|id| {
            let center = shapes.center(id)?;
            let half = shapes.half_extent(id);
            Some((
                format!("{id:?}"),
                Aabb2d {
                    min: center - half,
                    max: center + half,
                },
            ))
        })
        .collect()
}

/// Holds every direction in turn, checking `boxes` after each, then shrinks the play area
/// to a small window and checks again.
fn drive_everywhere(
    app: &mut App,
    turn: &[KeyCode],
    boxes: impl Fn(&mut App) -> Vec<(String, Aabb2d)>,
    context: &str,
) {
    for keys in HELD {
        let held: Vec<KeyCode> = keys.iter().chain(turn).copied().collect();
        hold_until_still(app, &held, &boxes);
        let found = boxes(app);
        assert_inside(app, &found, &format!("{context}, held {keys:?}"));
    }
    *app.world_mut().resource_mut::<PlayArea>() =
        PlayArea(Rect::from_center_size(Vec2::ZERO, Vec2::new(640.0, 360.0)));
    for _ in 0..2 {
        app.update();
    }
    let found = boxes(app);
    assert_inside(app, &found, &format!("{context}, window shrunk"));
}

#[test]
fn the_flower_and_target_stay_on_screen() {
    let mut app = app(GameScene::PixelAccurate);
    drive_everywhere(&mut app, &[], sprite_boxes::<With<Driven>>, "pixel");
}

#[test]
fn the_turning_flower_and_target_stay_on_screen() {
    let mut app = app(GameScene::Rotated);
    // Turning while moving: the turned box is what must stay inside.
    let turn = [KeyCode::KeyQ, KeyCode::Period];
    drive_everywhere(&mut app, &turn, sprite_boxes::<With<Driven>>, "rotated");
}

#[test]
fn every_hitbox_shape_stays_on_screen() {
    let mut app = hitbox_app();
    for _ in ShapeId::MOVABLE {
        let active = app.world().resource::<HitboxShapes>().active;
        drive_everywhere(
            &mut app,
            &[KeyCode::KeyE],
            |app| shape_boxes(app),
            &format!("hitboxes, {active:?} active"),
        );
        *app.world_mut().resource_mut::<PlayArea>() = PlayArea::default();
        hold(&mut app, &[KeyCode::Space], 1);
    }
}

#[test]
fn larry_stays_on_screen() {
    let mut app = app(GameScene::Larry);
    drive_everywhere(&mut app, &[], sprite_boxes::<With<Larry>>, "larry");
}
