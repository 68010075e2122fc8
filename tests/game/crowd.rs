//! Headless tests of the "Crowd" scene on the collision plugin: the sprite entities follow
//! the settings' count, the tints are exactly the sprites whose pixels touch another's
//! (checked pair by pair against the core's definition), the sprites stay inside the
//! window, and the narrow phase on Bevy's task pool gives the one-thread answers.
//! Its speed is measured by `cargo bench --bench plugin`.

use std::time::Duration;

use bevy::ecs::system::RunSystemOnce;
use bevy::prelude::*;
use bevy_pixel_collide::{
    PixelColliderMask, PixelCollisionConfig, PixelCollisionStats, PixelCollisions,
};
use pixel_collide::pair::tested_first;
use pixel_collide::transformed_intersects;
use pixel_collide_game::GameScene;
use pixel_collide_game::headless::{ASSET_DIR, headless_app, run_until, wait_for_masks};
use pixel_collide_game::scenes::crowd::{
    CrowdMember, CrowdSettings, CrowdSim, DEFAULT_COUNT, MAX_COUNT, MIN_COUNT, TOUCH_TINT,
};
use pixel_collide_game::{CollisionStats, StatusLine};

const DT: f32 = 1.0 / 60.0;

/// The scene with its masks loaded and its crowd spawned and placed.
fn crowd_app() -> App {
    let mut app = headless_app(GameScene::Crowd, ASSET_DIR, Duration::from_secs_f32(DT));
    wait_for_masks(&mut app);
    for _ in 0..3 {
        app.update();
    }
    app
}

fn member_count(app: &mut App) -> usize {
    let world = app.world_mut();
    world.query::<&CrowdMember>().iter(world).count()
}

fn set_count(app: &mut App, count: usize) {
    app.world_mut().resource_mut::<CrowdSettings>().count = count;
    app.update();
    app.update();
}

/// Every crowd sprite's entity, touching flag (its tint) and placed mask.
fn crowd(app: &mut App) -> Vec<(Entity, bool, PixelColliderMask)> {
    let world = app.world_mut();
    world
        .query_filtered::<(Entity, &Sprite, &PixelColliderMask), With<CrowdMember>>()
        .iter(world)
        .map(|(e, sprite, mask)| {
            assert!(
                sprite.color == TOUCH_TINT || sprite.color == Color::WHITE,
                "{:?}",
                sprite.color
            );
            (e, sprite.color == TOUCH_TINT, mask.clone())
        })
        .collect()
}

/// The touching pairs and the stats of the plugin's last pass.
fn last_pass(app: &mut App) -> (Vec<(Entity, Entity)>, PixelCollisionStats) {
    app.world_mut()
        .run_system_once(|c: PixelCollisions| (c.touching_pairs().collect(), c.stats()))
        .expect("the plugin is in the app")
}

#[test]
fn spawns_the_default_crowd_and_follows_the_count() {
    let mut app = crowd_app();
    assert_eq!(member_count(&mut app), DEFAULT_COUNT);
    assert!(
        app.world()
            .resource::<StatusLine>()
            .0
            .starts_with("1000 sprites"),
        "{:?}",
        app.world().resource::<StatusLine>().0
    );

    for (asked, expected) in [
        (2_500, 2_500),
        (37, 37),
        // Absurd values are clamped, never obeyed or panicked on.
        (0, MIN_COUNT),
        (usize::MAX, MAX_COUNT),
        (DEFAULT_COUNT, DEFAULT_COUNT),
    ] {
        set_count(&mut app, asked);
        assert_eq!(member_count(&mut app), expected, "asked for {asked}");
        assert_eq!(
            app.world().resource::<CrowdSettings>().count,
            expected,
            "the setting shows the clamped count"
        );
        // Crowd order: entity k is member k, so shrinking removes the last ones.
        let entities = app.world().resource::<CrowdSim>().entities().to_vec();
        assert_eq!(entities.len(), expected);
        for (k, &entity) in entities.iter().enumerate() {
            assert_eq!(app.world().get::<CrowdMember>(entity).unwrap().index, k);
        }
    }
}

#[test]
fn leaving_the_scene_removes_the_crowd_and_coming_back_rebuilds_it() {
    let mut app = crowd_app();
    set_count(&mut app, 300);
    app.world_mut()
        .resource_mut::<NextState<GameScene>>()
        .set(GameScene::PixelAccurate);
    app.update();
    app.update();
    assert_eq!(member_count(&mut app), 0);
    assert!(app.world().get_resource::<CrowdSim>().is_none());

    app.world_mut()
        .resource_mut::<NextState<GameScene>>()
        .set(GameScene::Crowd);
    // The count chosen is kept across visits.
    run_until(&mut app, "the crowd of 300 back", |app| {
        member_count(app) == 300
    });
}

/// The tint of every sprite, every frame, is whether its pixels touch another sprite's
/// by the core's definition (`transformed_intersects`, the lower entity as A) on the
/// transforms the plugin placed them at, over all pairs; and the overlay's figures are
/// the pass's.
#[test]
fn tints_are_exactly_the_sprites_whose_pixels_touch() {
    let mut app = crowd_app();
    let mut tinted_seen = 0;
    for frame in 0..6 {
        app.update();
        let sprites = crowd(&mut app);
        let mut touching = vec![false; sprites.len()];
        let mut pairs = 0;
        for i in 0..sprites.len() {
            for j in i + 1..sprites.len() {
                // A is the sprite whose mask's center is further left, as the plugin
                // picks it (the lower entity at the same place).
                let center = |k: usize| {
                    let (mask, to_world) = sprites[k].2.placed().expect("placed");
                    let (w, h) = mask.size();
                    to_world.transform_point2(Vec2::new(w as f32, h as f32) / 2.0)
                };
                let i_first =
                    tested_first(center(i), center(j)).unwrap_or(sprites[i].0 < sprites[j].0);
                let (a, b) = if i_first { (i, j) } else { (j, i) };
                // Every pair, not only those whose boxes meet: the reference must not
                // lean on the plugin's own boxes.
                let ((ma, ta), (mb, tb)) = (
                    sprites[a]
                        .2
                        .placed()
                        .expect("every crowd sprite can collide"),
                    sprites[b]
                        .2
                        .placed()
                        .expect("every crowd sprite can collide"),
                );
                if transformed_intersects(ma, ta, mb, tb) {
                    touching[a] = true;
                    touching[b] = true;
                    pairs += 1;
                }
            }
        }
        for (k, (entity, tinted, _)) in sprites.iter().enumerate() {
            assert_eq!(*tinted, touching[k], "{entity:?}, frame {frame}");
        }
        tinted_seen += touching.iter().filter(|&&t| t).count();
        let shown = *app.world().resource::<CollisionStats>();
        assert_eq!(shown.contacts as usize, pairs, "frame {frame}");
        assert_eq!(shown.pixel_tests as usize, last_pass(&mut app).1.box_pairs);
    }
    // A crowd at this density always has some sprites touching, and never all of them.
    let per_frame = tinted_seen / 6;
    assert!(
        per_frame > 20 && per_frame < DEFAULT_COUNT / 2,
        "{per_frame} tinted"
    );
}

/// The broad phase may only skip pairs whose boxes are apart if each box holds every set
/// pixel of its sprite, corners and all: checked pixel by pixel, every frame.
#[test]
fn every_set_pixel_lies_inside_its_colliders_box() {
    let mut app = crowd_app();
    for frame in 0..4 {
        app.update();
        for (entity, _, collider) in crowd(&mut app) {
            let (mask, to_world) = collider.placed().expect("every crowd sprite can collide");
            let aabb = collider.aabb.unwrap();
            // The corners are mapped in f32, as the box's are; a hundredth of a pixel
            // absorbs the rounding of a different order of operations.
            let (min, max) = (aabb.min - 0.01, aabb.max + 0.01);
            let mut set = 0;
            for y in 0..mask.height() {
                for x in 0..mask.width() {
                    if !mask.get(x.into(), y.into()) {
                        continue;
                    }
                    set += 1;
                    for (cx, cy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                        let corner = Vec2::new((x + cx) as f32, (y + cy) as f32);
                        let p = to_world.transform_point2(corner);
                        assert!(
                            p.cmpge(min).all() && p.cmple(max).all(),
                            "{entity:?}, frame {frame}: pixel ({x}, {y}) at {p} outside {aabb:?}"
                        );
                    }
                }
            }
            assert!(set > 0, "{entity:?} has no pixels");
        }
    }
}

#[test]
fn sprites_stay_inside_the_window() {
    let mut app = crowd_app();
    let mut near_walls = 0;
    for _ in 0..240 {
        app.update();
        let bounds = app.world().resource::<CrowdSim>().bounds();
        // A little slack for f32 rounding.
        let inside = |p: Vec2| p.cmpge(bounds.min - 0.01).all() && p.cmple(bounds.max + 0.01).all();
        for (entity, _, collider) in crowd(&mut app) {
            let aabb = collider.aabb.expect("every crowd sprite can collide");
            // The box holds every set pixel, but turned it also holds some empty corners:
            // only a box reaching out needs the pixels checked.
            if inside(aabb.min) && inside(aabb.max) {
                continue;
            }
            near_walls += 1;
            let (mask, to_world) = collider.placed().unwrap();
            for (x, y) in mask.outline() {
                for corner in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                    let p = Vec2::new((x + corner.0) as f32, (y + corner.1) as f32);
                    let p = to_world.transform_point2(p);
                    assert!(inside(p), "{entity:?}'s pixel ({x}, {y}) at {p} is outside");
                }
            }
        }
    }
    // Some sprites did meet the walls.
    assert!(near_walls > 100, "{near_walls}");
}

/// The same frame's pass on one thread and on the task pool finds the same pairs.
#[test]
fn task_pool_and_one_thread_agree() {
    let mut app = crowd_app();
    set_count(&mut app, 5_000);
    let pass = |app: &mut App, parallel: bool| {
        app.world_mut()
            .resource_mut::<PixelCollisionConfig>()
            .parallel = parallel;
        // The collision pass again on the same transforms (no `Update`: nothing moves).
        app.world_mut().run_schedule(PostUpdate);
        last_pass(app)
    };
    for _ in 0..4 {
        for _ in 0..7 {
            app.update();
        }
        let (one_thread, stats) = pass(&mut app, false);
        assert!(
            stats.box_pairs > 1_000,
            "enough pairs to be split: {stats:?}"
        );
        let (pool, _) = pass(&mut app, true);
        assert_eq!(pool, one_thread);
        // And again in the other order, so witnesses from either mode serve the other.
        let (pool, _) = pass(&mut app, true);
        let (again, _) = pass(&mut app, false);
        assert_eq!(pool, again);
        assert_eq!(again, one_thread);
    }
}
