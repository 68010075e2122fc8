//! Headless app tests: MinimalPlugins and the game's logic, faked keyboard input, a fixed
//! frame time. No window, no GPU.

use std::time::Duration;

use bevy::math::bounding::IntersectsVolume;
use bevy::prelude::*;
use bevy_pixel_collide::{PixelCollider, PixelColliderMask, PixelMasks};
use pixel_collide::{BitMask, sprite_to_world, transformed_overlap, world_bounds};
use pixel_collide_game::GameScene;
use pixel_collide_game::headless::{self, ASSET_DIR, headless_app};
use pixel_collide_game::scenes::sprites::{
    ContactMarker, Driven, MOVE_SPEED, PairReport, TURN_SPEED,
};

const DT: f32 = 1.0 / 60.0;

fn app(scene: GameScene) -> App {
    headless_app(scene, ASSET_DIR, Duration::from_secs_f32(DT))
}

fn wait_for_masks(app: &mut App) {
    headless::wait_for_masks(app);
}

fn transform_of(app: &mut App, which: Driven) -> Transform {
    let world = app.world_mut();
    *world
        .query::<(&Driven, &Transform)>()
        .iter(world)
        .find(|(d, _)| **d == which)
        .unwrap()
        .1
}

fn set_position(app: &mut App, which: Driven, position: Vec2) {
    let world = app.world_mut();
    for (d, mut t) in world.query::<(&Driven, &mut Transform)>().iter_mut(world) {
        if *d == which {
            t.translation.x = position.x;
            t.translation.y = position.y;
        }
    }
}

fn hold(app: &mut App, key: KeyCode, frames: u32) {
    app.world_mut()
        .resource_mut::<ButtonInput<KeyCode>>()
        .press(key);
    for _ in 0..frames {
        app.update();
    }
    app.world_mut()
        .resource_mut::<ButtonInput<KeyCode>>()
        .release(key);
    app.update();
}

fn load_mask(name: &str) -> BitMask {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/").to_string() + name;
    BitMask::from_image(&image::open(path).unwrap().to_rgba8(), 0)
}

#[test]
fn keys_move_the_right_sprite_at_a_fixed_speed() {
    let mut app = app(GameScene::PixelAccurate);
    wait_for_masks(&mut app);
    let flower0 = transform_of(&mut app, Driven::Primary);
    let target0 = transform_of(&mut app, Driven::Secondary);
    hold(&mut app, KeyCode::KeyD, 30);
    let flower1 = transform_of(&mut app, Driven::Primary);
    let moved = flower1.translation.x - flower0.translation.x;
    // 30 frames of 1/60 s at MOVE_SPEED: frame-rate independent pixels per second.
    assert!(
        (moved - MOVE_SPEED * 0.5).abs() < MOVE_SPEED * DT * 1.5,
        "moved {moved}"
    );
    assert_eq!(transform_of(&mut app, Driven::Secondary), target0);

    hold(&mut app, KeyCode::ArrowUp, 15);
    let target1 = transform_of(&mut app, Driven::Secondary);
    assert!(target1.translation.y > target0.translation.y + MOVE_SPEED * 0.2);
    assert_eq!(
        transform_of(&mut app, Driven::Primary).translation,
        flower1.translation
    );

    // No rotation in the axis-aligned scene.
    hold(&mut app, KeyCode::KeyQ, 10);
    assert_eq!(
        transform_of(&mut app, Driven::Primary).rotation,
        Quat::IDENTITY
    );
}

#[test]
fn rotation_keys_turn_each_sprite_in_the_rotated_scene() {
    let mut app = app(GameScene::Rotated);
    wait_for_masks(&mut app);
    let start = transform_of(&mut app, Driven::Primary)
        .rotation
        .to_euler(EulerRot::ZYX)
        .0;
    hold(&mut app, KeyCode::KeyQ, 30);
    let angle = transform_of(&mut app, Driven::Primary)
        .rotation
        .to_euler(EulerRot::ZYX)
        .0
        - start;
    assert!(
        (angle - TURN_SPEED * 0.5).abs() < TURN_SPEED * DT * 1.5,
        "angle {angle}"
    );
    assert_eq!(
        transform_of(&mut app, Driven::Secondary).rotation,
        Quat::IDENTITY
    );
    hold(&mut app, KeyCode::Period, 20);
    let target = transform_of(&mut app, Driven::Secondary)
        .rotation
        .to_euler(EulerRot::ZYX)
        .0;
    assert!(target < -0.5, "clockwise: {target}");
}

fn marker(app: &mut App) -> (Vec2, Visibility) {
    let world = app.world_mut();
    let (t, v) = world
        .query_filtered::<(&Transform, &Visibility), With<ContactMarker>>()
        .single(world)
        .unwrap();
    (t.translation.truncate(), *v)
}

#[test]
fn marker_shows_at_the_contact_only_when_pixels_touch() {
    let mut app = app(GameScene::PixelAccurate);
    wait_for_masks(&mut app);
    let flower = load_mask("flower.png");
    let target = load_mask("target.png");
    let flower_pos = transform_of(&mut app, Driven::Primary)
        .translation
        .truncate();
    let flower_to_world = sprite_to_world(flower_pos, 0.0, Vec2::ONE, flower.size());

    // Target over the flower's center: pixels touch.
    set_position(&mut app, Driven::Secondary, flower_pos);
    app.update();
    let report = *app.world().resource::<PairReport>();
    assert!(report.boxes && report.pixels, "{report:?}");
    let expected = transformed_overlap(
        &flower,
        flower_to_world,
        &target,
        sprite_to_world(flower_pos, 0.0, Vec2::ONE, target.size()),
    )
    .unwrap();
    let (at, visibility) = marker(&mut app);
    assert_eq!(visibility, Visibility::Visible);
    assert!(
        at.distance(expected.point) < 1e-3,
        "marker at {at}, contact at {}",
        expected.point
    );

    // Find a place where only the boxes overlap: near the flower box's corners the petals
    // leave transparent pixels.
    let flower_box = world_bounds(flower.size(), flower_to_world);
    let (fmin, fmax) = (flower_box.min, flower_box.max);
    let spot = (0..200)
        .flat_map(|i| {
            let t = i as f32 / 200.0;
            [
                Vec2::new(fmin.x - 20.0, fmin.y + t * (fmax.y - fmin.y)),
                Vec2::new(fmin.x + t * (fmax.x - fmin.x), fmax.y + 20.0),
            ]
        })
        .find(|&p| {
            let to_world = sprite_to_world(p, 0.0, Vec2::ONE, target.size());
            let boxes = world_bounds(target.size(), to_world).intersects(&flower_box);
            boxes && transformed_overlap(&flower, flower_to_world, &target, to_world).is_none()
        })
        .expect("a box-only overlap exists around the flower");
    set_position(&mut app, Driven::Secondary, spot);
    app.update();
    let report = *app.world().resource::<PairReport>();
    assert!(
        report.boxes && !report.pixels && report.contact.is_none(),
        "{report:?}"
    );
    assert_eq!(marker(&mut app).1, Visibility::Hidden);

    // Far apart: not even the boxes.
    set_position(
        &mut app,
        Driven::Secondary,
        flower_pos + Vec2::new(600.0, 0.0),
    );
    app.update();
    assert!(!app.world().resource::<PairReport>().boxes);
}

#[test]
fn missing_asset_is_reported_and_replaced_not_a_panic() {
    let mut app = app(GameScene::PixelAccurate);
    wait_for_masks(&mut app);
    let handle: Handle<Image> = app
        .world()
        .resource::<AssetServer>()
        .load("no_such_sprite.png");
    let id = handle.id();
    let entity = app
        .world_mut()
        .spawn((
            Sprite::from_image(handle),
            Transform::default(),
            PixelCollider::default(),
        ))
        .id();
    headless::run_until(&mut app, "a problem reported", |app| {
        !app.world().resource::<PixelMasks>().problems().is_empty()
    });
    let problems = app.world().resource::<PixelMasks>().problems().to_vec();
    assert!(
        problems.iter().any(|p| p.contains("no_such_sprite.png")),
        "{problems:?}"
    );
    app.update();
    app.update();
    let sprite = app.world().get::<Sprite>(entity).unwrap();
    assert_ne!(sprite.image.id(), id, "the sprite shows the placeholder");
    let placeholder = app.world().resource::<PixelMasks>().placeholder().id();
    assert_eq!(sprite.image.id(), placeholder);
    let collider = app.world().get::<PixelColliderMask>(entity).unwrap();
    assert!(collider.mask.is_some(), "and collides as it");
}

/// An asset folder of bad files, made for the test.
fn bad_asset_dir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("pixel_collide_bad_assets_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("corrupt.png"),
        b"\x89PNG\r\n\x1a\nthis is not a png at all",
    )
    .unwrap();
    image::RgbImage::from_pixel(20, 10, image::Rgb([200, 30, 30]))
        .save(dir.join("opaque.png"))
        .unwrap();
    dir
}

#[test]
fn corrupt_file_is_reported_and_opaque_image_collides_as_its_box() {
    let dir = bad_asset_dir();
    let mut app = headless_app(
        GameScene::PixelAccurate,
        &dir.to_string_lossy(),
        Duration::from_secs_f32(DT),
    );
    app.update();
    let server = app.world().resource::<AssetServer>().clone();
    let opaque: Handle<Image> = server.load("opaque.png");
    let corrupt: Handle<Image> = server.load("corrupt.png");
    let world = app.world_mut();
    let opaque = world
        .spawn((
            Sprite::from_image(opaque),
            Transform::default(),
            PixelCollider::default(),
        ))
        .id();
    world.spawn((
        Sprite::from_image(corrupt),
        Transform::default(),
        PixelCollider::default(),
    ));
    headless::run_until(
        &mut app,
        "corrupt.png reported and the opaque mask",
        |app| {
            let problems = app.world().resource::<PixelMasks>().problems();
            // The scene's own sprites are missing from this folder too: wait for ours.
            let named = problems.iter().any(|p| p.contains("corrupt.png"));
            let built = app
                .world()
                .get::<PixelColliderMask>(opaque)
                .unwrap()
                .mask
                .is_some();
            named && built
        },
    );
    let problems = app.world().resource::<PixelMasks>().problems();
    assert!(
        problems.iter().any(|p| p.contains("corrupt.png")),
        "{problems:?}"
    );
    let collider = app.world().get::<PixelColliderMask>(opaque).unwrap();
    let mask = collider.mask.as_ref().expect("the opaque image has a mask");
    assert_eq!(
        (mask.size(), mask.count()),
        ((20, 10), 200),
        "solid: per-pixel equals the box"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn recording_needs_an_end_and_a_sane_interval() {
    use pixel_collide_game::{CliError, parse_args};
    let args = |s: &str| s.split_whitespace().map(String::from).collect::<Vec<_>>();
    assert_eq!(
        parse_args(args("--record a.gif")),
        Err(CliError::RecordWithoutFrames)
    );
    let options = parse_args(args("--record a.gif --frames 90 --autoplay")).unwrap();
    assert_eq!(options.record_every, 3, "the default interval");
    assert!(options.autoplay);
    for bad in ["0", "61", "-1", "x"] {
        assert_eq!(
            parse_args(args(&format!(
                "--frames 9 --record a.gif --record-every {bad}"
            ))),
            Err(CliError::BadEvery(bad.into()))
        );
    }
}

/// The options the smoke test and README use: each parsed, each bad value refused with the
/// error that names it.
#[test]
fn the_command_line_sets_each_option_and_refuses_bad_values() {
    use pixel_collide_game::{CliError, GameScene, parse_args};
    let args = |s: &str| s.split_whitespace().map(String::from).collect::<Vec<_>>();
    let options = parse_args(args(
        "--scene terrain --frames 90 --screenshot shot.png --abuse-window --hide-overlay",
    ))
    .unwrap();
    assert_eq!(options.scene, GameScene::Terrain);
    assert_eq!(options.frames, Some(90));
    assert_eq!(
        options.screenshot.as_deref(),
        Some(std::path::Path::new("shot.png"))
    );
    assert!(options.abuse_window && options.hide_overlay && !options.autoplay);
    let defaults = parse_args(Vec::new()).unwrap();
    assert!(!defaults.hide_overlay && defaults.frames.is_none());
    for scene in GameScene::ALL {
        let picked = parse_args(args(&format!("--scene={}", scene.name()))).unwrap();
        assert_eq!(picked.scene, scene);
    }
    assert_eq!(
        parse_args(args("--scene moon")),
        Err(CliError::UnknownScene("moon".into()))
    );
    for bad in ["0", "-3", "x", "99999999999"] {
        assert_eq!(
            parse_args(args(&format!("--frames {bad}"))),
            Err(CliError::BadFrames(bad.into()))
        );
    }
    assert_eq!(
        parse_args(args("--frames")),
        Err(CliError::MissingValue("--frames"))
    );
    assert_eq!(
        parse_args(args("--seconds 4.5")).unwrap().seconds,
        Some(4.5)
    );
    for bad in ["0", "-1", "NaN", "inf", "x", "1e9"] {
        assert_eq!(
            parse_args(args(&format!("--seconds {bad}"))),
            Err(CliError::BadSeconds(bad.into()))
        );
    }
    assert_eq!(
        parse_args(args("--fly")),
        Err(CliError::UnknownOption("--fly".into()))
    );
}

/// The web build's page address: `?scene=NAME` and the flags a browser can honour become
/// the same options as on the command line; other sites' parameters are left alone, and
/// the native-only options are refused rather than ignored.
#[test]
fn a_page_address_sets_the_options_a_browser_can_honour() {
    use pixel_collide_game::cli::args_from_query;
    use pixel_collide_game::{CliError, GameScene, parse_args};
    let parsed = |query: &str| parse_args(args_from_query(query)?);
    let options = parsed("?scene=terrain&hide-overlay&autoplay&log-fps&utm_source=x").unwrap();
    assert_eq!(options.scene, GameScene::Terrain);
    assert!(options.hide_overlay && options.autoplay && options.log_fps);
    assert_eq!(parsed("").unwrap().scene, GameScene::default());
    assert_eq!(
        parsed("?scene=Basket%62all").unwrap().scene,
        GameScene::Basketball
    );
    assert_eq!(
        parsed("scene=the+moon%"),
        Err(CliError::UnknownScene("the moon%".into()))
    );
    assert_eq!(
        parsed("?scene=crowd&screenshot=/tmp/a.png"),
        Err(CliError::UnknownOption("--screenshot".into()))
    );
    assert_eq!(parsed("?scene"), Err(CliError::UnknownScene(String::new())));
    // The browser test's determinism page runs the check instead of a scene, as
    // `--determinism-hash` does natively.
    assert_eq!(
        parsed("?scene=crowd&determinism-hash"),
        Err(CliError::DeterminismHash)
    );
}

/// Each scene scripts its own `--autoplay`: in ten simulated seconds each makes contacts,
/// Larry collects a clover and the terrain gets a crater ([`SceneActivity`]), and without
/// `--autoplay` the same ten seconds make no crater and collect nothing.
///
/// [`SceneActivity`]: pixel_collide_game::SceneActivity
#[test]
fn each_scene_autoplays_itself_only_when_asked() {
    use pixel_collide_game::{GameOptions, SceneActivity};
    for autoplay in [true, false] {
        for scene in GameScene::ALL {
            let mut app = app(scene);
            app.insert_resource(GameOptions {
                autoplay,
                ..GameOptions::default()
            });
            for _ in 0..600 {
                app.update();
            }
            let activity = *app.world().resource::<SceneActivity>();
            let name = scene.name();
            assert!(activity.frames >= 590, "{name}: {activity:?}");
            if autoplay {
                // The terrain's balls meet the ground in avian, not as pixel contacts: its
                // craters are what it does.
                if scene != GameScene::Terrain {
                    assert!(activity.contact_frames > 0, "{name}: {activity:?}");
                }
                if matches!(scene, GameScene::Larry | GameScene::Terrain) {
                    assert!(activity.events > 0, "{name}: {activity:?}");
                }
            } else {
                assert_eq!(activity.events, 0, "{name}: {activity:?}");
            }
        }
    }
}
