//! Scene "Hitboxes": the pair evaluation under both edge rules, the push-apart resolution,
//! the discrete bullet tunnelling where the swept one stops, the border clamp, and headless
//! app runs (LogicPlugin, faked keyboard, a fixed frame time) for the controls and borders.

use std::time::Duration;

use bevy::camera::visibility::ViewVisibility;
use bevy::camera::{NormalizedRenderTarget, RenderTarget};
use bevy::math::bounding::{Aabb2d, BoundingCircle, BoundingVolume};
use bevy::math::primitives::Circle;
use bevy::picking::backend::ray::{RayId, RayMap};
use bevy::picking::hover::HoverMap;
use bevy::picking::pointer::{
    Location, PointerAction, PointerButton, PointerId, PointerInput, PointerLocation,
};
use bevy::picking::{InteractionPlugin, PickingPlugin, PickingSystems};
use bevy::prelude::*;
use bevy::window::WindowRef;
use bevy::window::{PrimaryWindow, WindowResolution};
use bevy_pixel_collide::PixelColliderMask;
use bevy_pixel_collide::picking::PixelPickingPlugin;
use pixel_collide::shapes::{EdgeRule, Obb2d};
use pixel_collide_game::headless::{ASSET_DIR, headless_app, headless_app_with, run_until};
use pixel_collide_game::play_area::PlayArea;
use pixel_collide_game::scenes::hitboxes::{
    BULLET_RADIUS, BULLET_SPEED, BULLET_START, BULLET_STEP, BorderRunner, Bullet, HitboxPointer,
    HitboxSettings, HitboxShapes, PairResult, PairTest, RUNNER_HALF_SIZE, SHAPE_SPEED, ShapeHandle,
    ShapeId, TURN_SPEED, WALL, clamp_to_borders, evaluate, resolve, step_bullet,
};
use pixel_collide_game::{GameScene, StatusLine};

const DT: f32 = 1.0 / 60.0;

fn settings(edge_rule: EdgeRule) -> HitboxSettings {
    HitboxSettings {
        edge_rule,
        ..HitboxSettings::default()
    }
}

fn pair(results: &[PairResult], a: ShapeId, b: ShapeId) -> PairResult {
    *results
        .iter()
        .find(|p| p.a == a && p.b == b)
        .unwrap_or_else(|| panic!("no pair {a:?}-{b:?} in {results:?}"))
}

fn circle(x: f32, y: f32, radius: f32) -> BoundingCircle {
    BoundingCircle {
        center: Vec2::new(x, y),
        circle: Circle { radius },
    }
}

/// Every shape far from every other, so a test can bring two together on purpose.
fn spread_out() -> HitboxShapes {
    let defaults = HitboxShapes::default();
    HitboxShapes {
        boxes: [
            Aabb2d {
                min: Vec2::new(-600.0, 200.0),
                max: Vec2::new(-500.0, 280.0),
            },
            Aabb2d {
                min: Vec2::new(-300.0, 200.0),
                max: Vec2::new(-200.0, 280.0),
            },
        ],
        circles: [circle(0.0, 240.0, 40.0), circle(200.0, 240.0, 40.0)],
        oriented: Obb2d {
            center: Vec2::new(450.0, 240.0),
            ..defaults.oriented
        },
        ..defaults
    }
}

#[test]
fn touching_edges_count_only_under_inclusive() {
    let mut shapes = spread_out();
    shapes.snap_boxes_edge_to_edge();
    assert_eq!(
        shapes.boxes[1].min.x, shapes.boxes[0].max.x,
        "exactly edge to edge"
    );
    // Circle1 tangent to Box2's right edge, Circle2 tangent to Circle1 below it, and the
    // cursor on Box1's top edge: all exact in f32 (small integers).
    let box2 = shapes.boxes[1];
    let c1 = Vec2::new(box2.max.x + 40.0, box2.center().y);
    shapes.circles = [circle(c1.x, c1.y, 40.0), circle(c1.x, c1.y - 100.0, 60.0)];
    shapes.cursor = Some(Vec2::new(shapes.boxes[0].center().x, shapes.boxes[0].max.y));

    let strict = evaluate(&shapes, &settings(EdgeRule::Strict));
    let inclusive = evaluate(&shapes, &settings(EdgeRule::Inclusive));
    // 6 shapes: 15 pairs, each with its own test.
    assert_eq!(strict.len(), 15);
    let cases = [
        (ShapeId::Box1, ShapeId::Box2, PairTest::AabbAabb),
        (ShapeId::Box2, ShapeId::Circle1, PairTest::CircleAabb),
        (ShapeId::Circle1, ShapeId::Circle2, PairTest::CircleCircle),
        (ShapeId::Box1, ShapeId::Cursor, PairTest::PointInAabb),
    ];
    for (a, b, test) in cases {
        let s = pair(&strict, a, b);
        let i = pair(&inclusive, a, b);
        assert_eq!(s.test, test);
        assert!(!s.touching && s.edge_only, "strict {a:?}-{b:?}: {s:?}");
        assert!(i.touching && i.edge_only, "inclusive {a:?}-{b:?}: {i:?}");
        assert_eq!(s.mtv, None, "touching is not overlapping: nothing to push");
    }
    // The tangent point is Box2's closest point to the circle's center.
    assert_eq!(
        pair(&inclusive, ShapeId::Box2, ShapeId::Circle1).closest,
        Some(Vec2::new(box2.max.x, c1.y))
    );
    // Every other pair is apart under both rules.
    let touching = inclusive.iter().filter(|p| p.touching).count();
    assert_eq!(touching, cases.len(), "{inclusive:?}");
}

#[test]
fn every_pair_uses_the_right_test_and_the_initial_layout_teaches() {
    let shapes = HitboxShapes {
        cursor: Some(Vec2::new(-1000.0, -1000.0)),
        ..HitboxShapes::default()
    };
    let results = evaluate(&shapes, &HitboxSettings::default());
    let test = |a, b| pair(&results, a, b).test;
    assert_eq!(test(ShapeId::Box1, ShapeId::Circle2), PairTest::CircleAabb);
    assert_eq!(test(ShapeId::Box2, ShapeId::Oriented), PairTest::Sat);
    assert_eq!(
        test(ShapeId::Circle2, ShapeId::Oriented),
        PairTest::CircleObbLocal
    );
    assert_eq!(
        test(ShapeId::Circle1, ShapeId::Cursor),
        PairTest::PointInCircle
    );
    assert_eq!(
        test(ShapeId::Oriented, ShapeId::Cursor),
        PairTest::PointInObb
    );

    // Boxes share an edge; circles overlap; the rectangle is apart from Box2 by SAT.
    let boxes = pair(&results, ShapeId::Box1, ShapeId::Box2);
    assert!(!boxes.touching && boxes.edge_only);
    assert!(pair(&results, ShapeId::Box1, ShapeId::Circle1).touching);
    let round = pair(&results, ShapeId::Circle2, ShapeId::Oriented);
    assert!(round.touching && round.mtv.is_some() && round.closest.is_some());
    let sat = pair(&results, ShapeId::Box2, ShapeId::Oriented);
    let (axis, gap) = sat.separating.expect("SAT reports the separating axis");
    assert!(!sat.touching && gap > 0.0 && (axis.length() - 1.0).abs() < 1e-5);

    // Taken as its enclosing box, the rectangle "hits" Box2: a false hit.
    let approx = evaluate(
        &shapes,
        &HitboxSettings {
            obb_as_aabb: true,
            ..HitboxSettings::default()
        },
    );
    let fake = pair(&approx, ShapeId::Box2, ShapeId::Oriented);
    assert_eq!(fake.test, PairTest::EnclosingAabb);
    assert!(fake.touching && fake.false_hit, "{fake:?}");
    // The real contact stays a real one.
    assert!(!pair(&approx, ShapeId::Circle2, ShapeId::Oriented).false_hit);
}

/// The pairs of movable shapes that overlap with positive depth.
fn overlapping(shapes: &HitboxShapes) -> Vec<(ShapeId, ShapeId)> {
    evaluate(shapes, &settings(EdgeRule::Strict))
        .into_iter()
        .filter(|p| p.touching && p.b != ShapeId::Cursor)
        .map(|p| (p.a, p.b))
        .collect()
}

#[test]
fn resolve_pushes_overlapping_shapes_apart() {
    // Everything piled on one spot, the rectangle turned; Box1 is active and holds still.
    let mut shapes = HitboxShapes::default();
    for id in ShapeId::MOVABLE {
        shapes.set_center(id, Vec2::new(10.0, 5.0));
    }
    shapes.rotate_oriented(0.7);
    let held = shapes.center(ShapeId::Box1);
    assert_eq!(
        overlapping(&shapes).len(),
        10,
        "all 10 pairs overlap at first"
    );

    let mut frames = 0;
    let mut pushes = 0;
    while frames < 30 {
        frames += 1;
        let made = resolve(&mut shapes, &HitboxSettings::default());
        pushes += made;
        if made == 0 {
            break;
        }
    }
    println!("resolved in {frames} frames, {pushes} pushes");
    assert!(frames < 30, "converges");
    assert_eq!(overlapping(&shapes), vec![], "{shapes:?}");
    assert_eq!(
        shapes.center(ShapeId::Box1),
        held,
        "the active shape is not pushed"
    );
    // The MTV is the shortest way out: a shallow overlap moves by its depth, not more.
    let mut two = spread_out();
    two.active = ShapeId::Box1;
    two.translate(ShapeId::Box2, Vec2::new(-210.0, 0.0)); // 10 px into Box1 from the right
    let before = two.boxes[1].min.x;
    resolve(&mut two, &HitboxSettings::default());
    let moved = two.boxes[1].min.x - before;
    assert!((moved - 10.0).abs() < 0.02, "moved {moved}");
}

#[test]
fn swept_bullet_stops_at_the_wall_and_the_discrete_one_tunnels() {
    for rule in [EdgeRule::Strict, EdgeRule::Inclusive] {
        let run = |swept: bool| {
            let mut position = BULLET_START;
            let velocity = Vec2::new(BULLET_SPEED, 0.0);
            for step in 0..80 {
                let (next, hit) = step_bullet(position, velocity, BULLET_STEP, &WALL, swept, rule);
                position = next;
                if hit.is_some() {
                    return (position, hit, step);
                }
            }
            (position, None, 80)
        };
        let (end, hit, _) = run(false);
        assert_eq!(hit, None, "discrete never sees the wall");
        assert!(
            end.x - BULLET_RADIUS > WALL.max.x,
            "and ends past it: {end}"
        );

        let (stop, hit, step) = run(true);
        let hit = hit.expect("the sweep catches it");
        println!("{rule:?}: stopped at {stop} on step {step}, hit at {hit}");
        assert!((stop.x + BULLET_RADIUS - WALL.min.x).abs() < 1e-3, "{stop}");
        assert_eq!(hit, Vec2::new(WALL.min.x, BULLET_START.y));
    }
    // Bad input: no panic, no movement, no hit.
    assert_eq!(
        step_bullet(
            Vec2::NAN,
            Vec2::X,
            BULLET_STEP,
            &WALL,
            true,
            EdgeRule::Strict
        )
        .1,
        None
    );
    assert_eq!(
        step_bullet(
            Vec2::ZERO,
            Vec2::INFINITY,
            BULLET_STEP,
            &WALL,
            false,
            EdgeRule::Strict
        ),
        (Vec2::ZERO, None)
    );
}

#[test]
fn clamp_zeroes_the_speed_towards_the_side_and_keeps_it_inside() {
    let half = Vec2::splat(16.0);
    let window = Vec2::new(640.0, 360.0);
    // Past the right side, moving right and up: back on the side, x speed zero, y kept.
    let (p, v) = clamp_to_borders(
        Vec2::new(700.0, 0.0),
        Vec2::new(1500.0, 300.0),
        half,
        window,
    );
    assert_eq!((p, v), (Vec2::new(624.0, 0.0), Vec2::new(0.0, 300.0)));
    // On the side, moving away: left alone, so it is never stuck.
    let (p, v) = clamp_to_borders(p, Vec2::new(-800.0, 0.0), half, window);
    assert_eq!((p, v), (Vec2::new(624.0, 0.0), Vec2::new(-800.0, 0.0)));
    // Bottom-left corner: both speeds towards the corner stop.
    let (p, v) = clamp_to_borders(
        Vec2::new(-900.0, -900.0),
        Vec2::new(-10.0, -10.0),
        half,
        window,
    );
    assert_eq!((p, v), (Vec2::new(-624.0, -344.0), Vec2::ZERO));
    // A smaller window ("resize") moves the borders in.
    let (p, _) = clamp_to_borders(Vec2::new(624.0, 344.0), Vec2::ZERO, half, window / 2.0);
    assert_eq!(p, Vec2::new(304.0, 164.0));
    // A window smaller than the sprite centers it; NaN anywhere is treated as zero.
    let (p, v) = clamp_to_borders(Vec2::new(5.0, 5.0), Vec2::ONE, half, Vec2::splat(10.0));
    assert_eq!((p, v), (Vec2::ZERO, Vec2::ZERO));
    let (p, v) = clamp_to_borders(Vec2::NAN, Vec2::NAN, Vec2::NAN, Vec2::NAN);
    assert_eq!((p, v), (Vec2::ZERO, Vec2::ZERO));
    // Without a window, and with one too small to play in, the area is the last one.
    assert_eq!(PlayArea::default().half_size(), Vec2::new(640.0, 360.0));
    for unusable in [Vec2::ZERO, Vec2::ONE, Vec2::new(1000.0, 10.0), Vec2::NAN] {
        assert_eq!(PlayArea::for_window(unusable), None, "{unusable}");
    }
}

// ---------------------------------------------------------------------------------------------
// Headless app runs
// ---------------------------------------------------------------------------------------------

fn app() -> App {
    let mut app = headless_app(GameScene::Hitboxes, ASSET_DIR, Duration::from_secs_f32(DT));
    // The first update enters the scene; the second has a non-zero frame time.
    app.update();
    app.update();
    app
}

/// Holds `key` for `frames` frames, then one frame released. After each frame the input is
/// cleared as Bevy's input system would (MinimalPlugins has none), so a press is
/// `just_pressed` for one frame only.
fn hold(app: &mut App, key: KeyCode, frames: u32) {
    fn keys(app: &mut App) -> Mut<'_, ButtonInput<KeyCode>> {
        app.world_mut().resource_mut::<ButtonInput<KeyCode>>()
    }
    keys(app).press(key);
    for _ in 0..frames {
        app.update();
        keys(app).clear();
    }
    keys(app).release(key);
    app.update();
    keys(app).clear();
}

fn shapes(app: &App) -> HitboxShapes {
    app.world().resource::<HitboxShapes>().clone()
}

#[test]
fn holding_a_key_moves_the_active_shape_and_space_cycles_it() {
    let mut app = app();
    let start = shapes(&app);
    assert_eq!(start.active, ShapeId::Box1);

    hold(&mut app, KeyCode::KeyD, 30);
    let after = shapes(&app);
    let moved = after.center(ShapeId::Box1).unwrap() - start.center(ShapeId::Box1).unwrap();
    println!("Box1 moved {moved} in 30 frames");
    // 30 frames of 1/60 s at SHAPE_SPEED px/s.
    assert!((moved.x - SHAPE_SPEED * 0.5).abs() < SHAPE_SPEED * DT * 1.5 && moved.y == 0.0);
    assert_eq!(after.circles, start.circles, "only the active shape moves");

    hold(&mut app, KeyCode::Space, 1);
    assert_eq!(shapes(&app).active, ShapeId::Box2);
    hold(&mut app, KeyCode::Space, 1);
    assert_eq!(shapes(&app).active, ShapeId::Circle1);
    let circle_before = shapes(&app).circles[0].center;
    hold(&mut app, KeyCode::KeyW, 20);
    let rose = shapes(&app).circles[0].center.y - circle_before.y;
    assert!(rose > SHAPE_SPEED * 0.25, "Circle1 rose {rose}");
    assert!(
        app.world()
            .resource::<StatusLine>()
            .0
            .contains("active: Circle1"),
        "{}",
        app.world().resource::<StatusLine>().0
    );

    // Q turns the rectangle counter-clockwise whatever is active.
    let angle = |s: &HitboxShapes| s.oriented.rotation.as_radians();
    let before = angle(&shapes(&app));
    hold(&mut app, KeyCode::KeyQ, 30);
    let turned = angle(&shapes(&app)) - before;
    assert!(
        (turned - TURN_SPEED * 0.5).abs() < TURN_SPEED * DT * 1.5,
        "{turned}"
    );

    // Circle2, OBB, then round to Box1: the cursor is never active.
    for _ in 0..3 {
        hold(&mut app, KeyCode::Space, 1);
    }
    assert_eq!(shapes(&app).active, ShapeId::Box1);
}

#[test]
fn resolve_setting_separates_shapes_in_the_app() {
    let mut app = app();
    let mut piled = shapes(&app);
    piled.set_center(ShapeId::Circle1, piled.boxes[0].center());
    piled.set_center(ShapeId::Circle2, piled.oriented.center);
    app.insert_resource(piled);
    app.update();
    assert!(
        !overlapping(&shapes(&app)).is_empty(),
        "resolve is off by default"
    );
    app.world_mut().resource_mut::<HitboxSettings>().resolve = true;
    for _ in 0..5 {
        app.update();
    }
    assert_eq!(overlapping(&shapes(&app)), vec![]);
}

#[test]
fn bullet_in_the_app_tunnels_unless_swept() {
    for swept in [false, true] {
        let mut app = app();
        app.world_mut()
            .resource_mut::<HitboxSettings>()
            .swept_bullet = swept;
        app.world_mut().resource_mut::<Bullet>().fire();
        // 1 s: the shot reaches the wall (x = 187) after 0.67 s; the next comes at 1.5 s.
        for _ in 0..60 {
            app.update();
        }
        let bullet = app.world().resource::<Bullet>().clone();
        println!("swept {swept}: {} at {}", bullet.outcome(), bullet.position);
        if swept {
            assert_eq!(bullet.outcome(), "stopped at wall");
            assert!(!bullet.in_flight && bullet.hit.is_some());
            assert!(bullet.position.x + BULLET_RADIUS <= WALL.min.x + 1e-3);
        } else {
            assert_eq!(bullet.outcome(), "tunnelled through wall");
            assert!(bullet.hit.is_none() && bullet.position.x > WALL.max.x);
        }
    }
}

fn clover(app: &mut App) -> (Vec2, BorderRunner) {
    let world = app.world_mut();
    let (t, r) = world
        .query::<(&Transform, &BorderRunner)>()
        .single(world)
        .unwrap();
    (t.translation.truncate(), *r)
}

#[test]
fn clover_stays_inside_the_window_also_after_a_resize() {
    let mut app = app();
    let window = app
        .world_mut()
        .spawn((
            Window {
                resolution: WindowResolution::new(1000, 600),
                ..default()
            },
            PrimaryWindow,
        ))
        .id();
    app.world_mut()
        .resource_mut::<ButtonInput<KeyCode>>()
        .press(KeyCode::ArrowRight);
    app.world_mut()
        .resource_mut::<ButtonInput<KeyCode>>()
        .press(KeyCode::ArrowUp);
    for _ in 0..60 {
        app.update();
    }
    let (at, runner) = clover(&mut app);
    let corner = Vec2::new(500.0, 300.0) - RUNNER_HALF_SIZE;
    println!("held into the corner: {at}, velocity {}", runner.velocity);
    assert_eq!(at, corner);
    assert_eq!(runner.velocity, Vec2::ZERO, "no speed into the sides");

    // A smaller window: the borders move in and the clover with them.
    app.world_mut()
        .get_mut::<Window>(window)
        .unwrap()
        .resolution
        .set(640.0, 400.0);
    // The play area follows the window in `Update`, after this frame's fixed step: the
    // next step puts the clover back, and the frame after it is drawn there.
    app.update();
    app.update();
    app.update();
    assert_eq!(
        clover(&mut app).0,
        Vec2::new(320.0, 200.0) - RUNNER_HALF_SIZE
    );

    // Minimised, or shrunk to a pixel: the play area stays, and the clover with it.
    for size in [(0.0, 0.0), (1.0, 1.0)] {
        app.world_mut()
            .get_mut::<Window>(window)
            .unwrap()
            .resolution
            .set(size.0, size.1);
        app.update();
        assert_eq!(
            clover(&mut app).0,
            Vec2::new(320.0, 200.0) - RUNNER_HALF_SIZE
        );
    }
    app.world_mut()
        .get_mut::<Window>(window)
        .unwrap()
        .resolution
        .set(640.0, 400.0);

    // Not stuck: away from the side it goes at once.
    let mut keys = app.world_mut().resource_mut::<ButtonInput<KeyCode>>();
    keys.release(KeyCode::ArrowRight);
    keys.release(KeyCode::ArrowUp);
    keys.press(KeyCode::ArrowLeft);
    for _ in 0..10 {
        app.update();
    }
    let (left, runner) = clover(&mut app);
    assert!(
        left.x < 320.0 - 16.0 - 50.0 && runner.velocity.x < 0.0,
        "{left}"
    );
    assert_eq!(left.y, 200.0 - 16.0);
}

// ---------------------------------------------------------------------------------------------
// Grabbing shapes through picking
// ---------------------------------------------------------------------------------------------

/// Where the pointer's ray is set each frame, as the renderer's camera would (headless, the
/// camera has no viewport to cast from).
#[derive(Resource, Default)]
struct Aim(Option<(Entity, Vec2)>);

fn aim_pointer(aim: Res<Aim>, mut rays: ResMut<RayMap>) {
    if let Some((camera, at)) = aim.0 {
        let ray = Ray3d::new(at.extend(500.0), Dir3::NEG_Z);
        rays.map.insert(RayId::new(camera, PointerId::Mouse), ray);
    }
}

/// The scene headless with Bevy's picking and interaction plugins and the game's backend, a
/// window, an orthographic camera (not a `Camera2d`, whose cursor the scene would read from
/// the window) and the mouse pointer; the handles' masks built and marked visible (no
/// renderer decides it here). The camera and the pointer's location target.
fn picking_app() -> (App, Entity, Location) {
    let mut app = headless_app_with(
        GameScene::Hitboxes,
        ASSET_DIR,
        Duration::from_secs_f32(DT),
        |app| {
            app.add_plugins((PickingPlugin, InteractionPlugin, PixelPickingPlugin))
                .init_resource::<Aim>()
                .init_resource::<ButtonInput<MouseButton>>()
                .add_systems(
                    PreUpdate,
                    aim_pointer
                        .after(PickingSystems::ProcessInput)
                        .before(PickingSystems::Backend),
                );
        },
    );
    let window = app
        .world_mut()
        .spawn((Window::default(), PrimaryWindow))
        .id();
    let camera = app
        .world_mut()
        .spawn((
            Camera::default(),
            Projection::Orthographic(OrthographicProjection::default_2d()),
            RenderTarget::Window(WindowRef::Primary),
            Transform::from_xyz(0.0, 0.0, 500.0),
        ))
        .id();
    let location = Location {
        target: NormalizedRenderTarget::Window(WindowRef::Primary.normalize(Some(window)).unwrap()),
        position: Vec2::ZERO,
    };
    app.world_mut()
        .spawn((PointerId::Mouse, PointerLocation::new(location.clone())));
    run_until(&mut app, "the shapes' masks", |app| {
        let world = app.world_mut();
        let mut handles = world.query_filtered::<&PixelColliderMask, With<ShapeHandle>>();
        let placed = handles.iter(world).filter(|m| m.placed().is_some()).count();
        placed == ShapeId::MOVABLE.len()
    });
    let world = app.world_mut();
    let handles: Vec<Entity> = world
        .query_filtered::<Entity, With<ShapeHandle>>()
        .iter(world)
        .collect();
    for handle in handles {
        world.entity_mut(handle).insert(ViewVisibility::VISIBLE);
    }
    (app, camera, location)
}

/// The shape the pointer is over at `at`, as the hover map says after a frame.
fn hovered(app: &mut App, camera: Entity, at: Vec2) -> Option<ShapeId> {
    app.world_mut().resource_mut::<Aim>().0 = Some((camera, at));
    app.update();
    let world = app.world_mut();
    let over: Vec<Entity> = world
        .resource::<HoverMap>()
        .get(&PointerId::Mouse)
        .map(|hits| hits.keys().copied().collect())
        .unwrap_or_default();
    let mut handles = world.query::<&ShapeHandle>();
    let shapes: Vec<ShapeId> = over
        .iter()
        .filter_map(|&e| handles.get(world, e).ok().map(|h| h.0))
        .collect();
    assert!(
        shapes.len() <= 1,
        "the top shape blocks those below: {shapes:?}"
    );
    shapes.first().copied()
}

/// Over a grid across the shapes, the pointer is over exactly the shape `shape_at` names
/// (the top-most, the rectangle over the rest), wherever that is the same a pixel and a half
/// around (the sprites are drawn in whole pixels); a press there grabs it, and it follows the
/// cursor while the button is held.
#[test]
fn the_pointer_picks_and_drags_the_shape_under_it() {
    let (mut app, camera, location) = picking_app();
    let layout = shapes(&app);
    let (mut compared, mut on_shapes) = (0, 0);
    for y in (-60..=220).step_by(7) {
        for x in (-360..=170).step_by(7) {
            let at = Vec2::new(x as f32 + 0.25, y as f32 + 0.25);
            let expected = layout.shape_at(at);
            let near_an_edge = [-1.5f32, 0.0, 1.5].iter().any(|&dx| {
                [-1.5f32, 0.0, 1.5]
                    .iter()
                    .any(|&dy| layout.shape_at(at + Vec2::new(dx, dy)) != expected)
            });
            if near_an_edge {
                continue;
            }
            assert_eq!(hovered(&mut app, camera, at), expected, "at {at}");
            compared += 1;
            on_shapes += usize::from(expected.is_some());
        }
    }
    assert!(
        compared > 2000 && on_shapes > 500,
        "{compared} points, {on_shapes} on shapes"
    );

    // A press on Circle2 (nothing else there) grabs it; held, it follows the cursor.
    let circle = layout.circles[1].center;
    let grab_at = circle + Vec2::new(10.0, -5.0);
    assert_eq!(hovered(&mut app, camera, grab_at), Some(ShapeId::Circle2));
    app.world_mut().resource_mut::<HitboxShapes>().cursor = Some(grab_at);
    app.world_mut()
        .resource_mut::<ButtonInput<MouseButton>>()
        .press(MouseButton::Left);
    app.world_mut().write_message(PointerInput::new(
        PointerId::Mouse,
        location,
        PointerAction::Press(PointerButton::Primary),
    ));
    app.update();
    let pointer = *app.world().resource::<HitboxPointer>();
    assert_eq!(
        pointer.drag.map(|(id, _)| id),
        Some(ShapeId::Circle2),
        "{pointer:?}"
    );
    assert_eq!(shapes(&app).active, ShapeId::Circle2);
    app.world_mut().resource_mut::<HitboxShapes>().cursor = Some(grab_at + Vec2::new(-40.0, 25.0));
    app.update();
    let moved = shapes(&app).circles[1].center - circle;
    assert!((moved - Vec2::new(-40.0, 25.0)).length() < 1e-3, "{moved}");
    // Its sprite follows: the pointer finds it where it went.
    assert_eq!(
        hovered(&mut app, camera, grab_at + Vec2::new(-40.0, 25.0)),
        Some(ShapeId::Circle2)
    );
}
