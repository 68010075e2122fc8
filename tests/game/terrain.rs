//! The "Destructible terrain" scene, headless: a round on the loaded terrain, craters that
//! change the texture and the mask together, pieces that fall as avian bodies and settle
//! back with every pixel, throws that fly, rest and explode, a restart, and Larry walking
//! the ground.

use std::sync::Arc;
use std::time::Duration;

use avian2d::prelude::{Position, Rotation};
use bevy::prelude::*;
use bevy_pixel_collide::PixelColliderMask;
use bevy_pixel_collide::avian::MaskCollider;
use bevy_pixel_collide::destructible::{DestructibleState, DetachedPiece};
use pixel_collide::{BitMask, transformed_intersects, transformed_overlap};
use pixel_collide_game::GameScene;
use pixel_collide_game::headless::{ASSET_DIR, headless_app, run_until};
use pixel_collide_game::motion::{FIXED_HZ, FixedPose};
use pixel_collide_game::scenes::terrain::{
    FlyingBall, TARGET_COUNT, Target, TerrainLarry, TerrainSettings, TerrainSim, TerrainSprite,
};

use crate::press_space;

fn app() -> App {
    let mut app = headless_app(
        GameScene::Terrain,
        ASSET_DIR,
        Duration::from_secs_f64(1.0 / FIXED_HZ),
    );
    run_until(&mut app, "the terrain scene's round", |app| {
        app.world().get_resource::<TerrainSim>().is_some()
    });
    // The targets spawned with the round come in with the next command flush.
    app.update();
    app
}

fn sim(app: &App) -> &TerrainSim {
    app.world().resource::<TerrainSim>()
}

fn targets(app: &mut App) -> Vec<Vec2> {
    let world = app.world_mut();
    world
        .query_filtered::<&FixedPose, With<Target>>()
        .iter(world)
        .map(|p| p.current.translation)
        .collect()
}

/// The terrain sprite's pixel accounts.
fn terrain_state(app: &App) -> &DestructibleState {
    app.world()
        .get::<DestructibleState>(sim(app).ground)
        .unwrap()
}

/// Solid pixels craters removed this round.
fn removed(app: &App) -> u64 {
    terrain_state(app).removed
}

/// The texture the terrain sprite shows, as a mask (alpha above 0).
fn texture_mask(app: &App) -> BitMask {
    let shown = &app.world().get::<Sprite>(sim(app).ground).unwrap().image;
    let image = app.world().resource::<Assets<Image>>().get(shown).unwrap();
    let (w, h) = (image.width(), image.height());
    BitMask::from_rgba8(w, h, image.data.as_deref().unwrap(), 0).unwrap()
}

fn pieces(app: &mut App) -> usize {
    let world = app.world_mut();
    world.query::<&DetachedPiece>().iter(world).count()
}

/// Solid pixels in the terrain and in the pieces in flight; none may be lost settling.
fn pixels_accounted(app: &mut App) -> u64 {
    let world = app.world_mut();
    let flying: u64 = world
        .query_filtered::<&MaskCollider, With<DetachedPiece>>()
        .iter(world)
        .map(|c| c.mask().count())
        .sum();
    assert_eq!(terrain_state(app).lost, 0, "pixels lost settling");
    sim(app).terrain().count() + flying
}

fn balls(app: &mut App) -> Vec<(Vec2, f32)> {
    let world = app.world_mut();
    world
        .query_filtered::<(&Position, &Rotation), With<FlyingBall>>()
        .iter(world)
        .map(|(p, r)| (p.0, r.as_radians()))
        .collect()
}

fn riders(app: &mut App) -> usize {
    let world = app.world_mut();
    world
        .query::<&Target>()
        .iter(world)
        .filter(|t| t.riding.is_some())
        .count()
}

/// Every target stands on the terrain: its feet on the ground below them, and the column
/// under its center clear from its feet to its head (not under a piece laid over it, nor
/// sunk in).
fn assert_targets_stand_on_the_surface(app: &mut App) {
    let found = targets(app);
    assert!(!found.is_empty());
    for at in found {
        let feet = at.y - 32.0 * 0.6;
        let terrain = &sim(app).terrain;
        let ground = terrain.ground_below(at.x, feet + 0.5).unwrap();
        assert!(
            (feet - ground).abs() < 1.0,
            "target at {at} over ground {ground}"
        );
        assert_eq!(
            terrain.surface_above(at.x, feet, 2.0 * 32.0 * 0.6),
            None,
            "target at {at} is buried"
        );
    }
}

#[test]
fn a_round_starts_with_targets_standing_on_the_terrain() {
    let mut app = app();
    let round = sim(&app);
    assert_eq!(round.throws_left, TerrainSettings::default().throws);
    assert_eq!((round.score, round.targets_left), (0, TARGET_COUNT));
    assert_eq!(round.initial_pixels, round.terrain().count());
    assert_eq!(round.components, 1, "all the ground is one piece");
    assert_eq!(texture_mask(&app), *sim(&app).terrain());
    assert_eq!(targets(&mut app).len(), TARGET_COUNT);
    assert_targets_stand_on_the_surface(&mut app);
}

/// Clear pixels with ground right above and one or two pixels below: the seams a body
/// laid back leaves where it floats above the ground it rests on.
fn seam_pixels(terrain: &BitMask) -> usize {
    let (w, h) = (i64::from(terrain.width()), i64::from(terrain.height()));
    let solid = |x: i64, y: i64| terrain.get(x, y);
    (1..h - 1)
        .flat_map(|y| (0..w).map(move |x| (x, y)))
        .filter(|&(x, y)| !solid(x, y) && solid(x, y - 1) && (solid(x, y + 1) || solid(x, y + 2)))
        .count()
}

#[test]
fn cutting_the_bridge_drops_the_hilltop_which_merges_back_texture_and_mask_alike() {
    let mut app = app();
    let initial = sim(&app).initial_pixels;
    // The bridge from the hill to the cliff, at x 360 (mask column 1000).
    app.world_mut()
        .resource_mut::<TerrainSim>()
        .explode_at(Vec2::new(360.0, 24.0));
    app.update();
    let removed = removed(&app);
    assert!(removed > 1000, "the crater removed {removed} pixels");
    assert!(sim(&app).last_pieces >= 1, "the hilltop came loose");
    assert!(pieces(&mut app) >= 1);
    assert!(riders(&mut app) > 0, "no target rides the hilltop down");
    // Texture and mask agree at once: the piece's pixels left both.
    assert_eq!(texture_mask(&app), *sim(&app).terrain());
    let mut frames = 0;
    while pieces(&mut app) > 0 {
        app.update();
        frames += 1;
        assert!(frames < 1200, "the hilltop is still falling");
        assert_eq!(pixels_accounted(&mut app), initial - removed);
    }
    assert!(frames > 3, "it fell for {frames} frames");
    // Laid back in after the physics step, it is gone for the riders at the next.
    app.update();
    assert_eq!(riders(&mut app), 0, "the riders got off");
    // The riders stand on the hilltop where it landed, not buried under it.
    for _ in 0..120 {
        app.update();
    }
    assert_targets_stand_on_the_surface(&mut app);
    // It came down onto the slope it rests on: no seam of sky, a pixel or two high,
    // between the two (181 such pixels before a turned body's columns came down).
    let seams = seam_pixels(sim(&app).terrain());
    assert!(seams <= 10, "{seams} pixels of seams under the hilltop");
    assert_eq!(terrain_state(&app).lost, 0, "no pixel lost");
    assert_eq!(texture_mask(&app), *sim(&app).terrain());
    assert_eq!(sim(&app).terrain().count(), initial - removed);
    assert_eq!(
        sim(&app).components,
        1,
        "the hilltop merged back into the ground"
    );
    // The plugin's collider mask is the scene's terrain, and the physics collider too.
    app.update();
    let world = app.world_mut();
    let plugin_mask = world
        .query_filtered::<&PixelColliderMask, With<TerrainSprite>>()
        .single(world)
        .unwrap()
        .mask
        .clone()
        .unwrap();
    assert_eq!(*plugin_mask, *sim(&app).terrain());
    let collider = app
        .world()
        .get::<MaskCollider>(sim(&app).ground)
        .unwrap()
        .mask()
        .clone();
    assert_eq!(*collider, *sim(&app).terrain());
}

#[test]
fn a_throw_flies_rests_and_explodes() {
    let mut app = app();
    {
        let mut sim = app.world_mut().resource_mut::<TerrainSim>();
        sim.aim = 0.5;
        sim.power = 500.0;
    }
    press_space(&mut app);
    app.update();
    assert_eq!(sim(&app).throws_left, TerrainSettings::default().throws - 1);
    assert_eq!(balls(&mut app).len(), 1);
    let mut frames = 0;
    while removed(&app) == 0 {
        app.update();
        frames += 1;
        assert!(frames < 1200, "the ball never came to rest");
    }
    app.update();
    assert!(balls(&mut app).is_empty(), "it exploded");
    assert!(frames > 30, "it flew first: {frames} frames");
}

#[test]
fn space_after_the_last_throw_restarts_the_round() {
    let mut app = app();
    app.world_mut()
        .resource_mut::<TerrainSim>()
        .explode_at(Vec2::new(-200.0, -150.0));
    app.update();
    assert!(removed(&app) > 0);
    app.world_mut().resource_mut::<TerrainSim>().throws_left = 0;
    assert!(sim(&app).round_over());
    press_space(&mut app);
    app.update();
    let round = sim(&app);
    assert_eq!(round.throws_left, TerrainSettings::default().throws);
    assert_eq!(round.terrain().count(), round.initial_pixels);
    // The sprite takes the loaded pixels afresh within a few frames.
    run_until(&mut app, "the terrain as loaded", |app| {
        terrain_state(app).is_ready() && removed(app) == 0
    });
    app.update();
    let round = sim(&app);
    assert_eq!(round.terrain().count(), round.initial_pixels);
    assert_eq!(texture_mask(&app), *sim(&app).terrain());
    assert_eq!(targets(&mut app).len(), TARGET_COUNT);
}

/// Larry's body once his sheet has loaded, his center (world) and whether he is grounded.
fn larry(app: &mut App) -> Option<(Arc<BitMask>, Vec2, bool)> {
    let world = app.world_mut();
    let (larry, pose) = world
        .query::<(&TerrainLarry, &FixedPose)>()
        .iter(world)
        .next()?;
    Some((
        larry.body.clone()?,
        pose.current.translation,
        larry.grounded,
    ))
}

/// Runs `frames` frames, checking after each that Larry's body is clear of the terrain;
/// returns the highest his center got.
fn run_clear_of_the_ground(app: &mut App, frames: u32) -> f32 {
    let mut highest = f32::MIN;
    for _ in 0..frames {
        app.update();
        let (body, center, _) = larry(app).unwrap();
        let terrain = sim(app).terrain().clone();
        let terrain_to_world = sim(app).terrain.world_to_mask().inverse();
        let body_to_world = TerrainLarry::body_to_world(&body, center);
        assert!(
            !transformed_intersects(&body, body_to_world, &terrain, terrain_to_world),
            "inside at {center}"
        );
        highest = highest.max(center.y);
    }
    highest
}

/// Larry is dropped onto the terrain, walks it with the arrow keys (left, downhill from
/// where he starts: right, the hill's tunnel is lower than he is tall), is thrown by a
/// blast beside him, and no fixed step leaves him inside the ground.
#[test]
fn larry_walks_the_terrain_and_a_blast_throws_him_but_never_into_it() {
    let mut app = app();
    run_until(&mut app, "Larry's body", |app| larry(app).is_some());
    let (body, start, _) = larry(&mut app).expect("Larry's sheet loaded and he got a body");
    assert_eq!(body.size(), (48, 64), "the body is a frame's size");
    for _ in 0..90 {
        app.update();
    }
    let (_, landed, grounded) = larry(&mut app).unwrap();
    assert!(grounded, "he fell onto the ground: {landed}");
    assert!(landed.y < start.y);

    app.world_mut()
        .resource_mut::<ButtonInput<KeyCode>>()
        .press(KeyCode::ArrowLeft);
    run_clear_of_the_ground(&mut app, 120);
    let (_, walked, _) = larry(&mut app).unwrap();
    assert!(walked.x < landed.x - 100.0, "{landed} -> {walked}");
    app.world_mut()
        .resource_mut::<ButtonInput<KeyCode>>()
        .release(KeyCode::ArrowLeft);

    // A blast just right of his feet.
    let (w, h) = (body.width() as f32, body.height() as f32);
    let at = walked + Vec2::new(w / 2.0 + 10.0, -h / 2.0);
    app.world_mut().resource_mut::<TerrainSim>().explode_at(at);
    let highest = run_clear_of_the_ground(&mut app, 120).max(walked.y);
    assert!(highest > walked.y + 5.0, "the blast threw him up");
    let (_, after, _) = larry(&mut app).unwrap();
    assert!(after.x < walked.x, "and away from it");
}

/// Larry walks the terrain scene's ground a minute each way (3,600 fixed steps) with the
/// character controller: left over the hills to the terrain's left wall, then back right
/// up every slope he came down, to the hill's tunnel (lower than he is tall) beside where
/// he landed. No step leaves him inside the ground.
#[test]
fn larry_walks_the_ground_a_minute_each_way_and_never_into_it() {
    let mut app = app();
    run_until(&mut app, "Larry's body", |app| larry(app).is_some());
    run_clear_of_the_ground(&mut app, 90);
    let (body, landed, grounded) = larry(&mut app).unwrap();
    assert!(grounded, "he fell onto the ground: {landed}");
    let left_edge = sim(&app)
        .terrain
        .world_to_mask()
        .inverse()
        .transform_point2(Vec2::ZERO)
        .x;
    let half_width = body.width() as f32 / 2.0;
    let walk = |app: &mut App, key: KeyCode| {
        app.world_mut()
            .resource_mut::<ButtonInput<KeyCode>>()
            .press(key);
        let (mut least, mut most) = (f32::MAX, f32::MIN);
        for _ in 0..60 {
            run_clear_of_the_ground(app, 60);
            let (_, at, _) = larry(app).unwrap();
            (least, most) = (least.min(at.x), most.max(at.x));
        }
        app.world_mut()
            .resource_mut::<ButtonInput<KeyCode>>()
            .release(key);
        (least, most)
    };
    let (leftmost, _) = walk(&mut app, KeyCode::ArrowLeft);
    assert!(
        leftmost - half_width < left_edge + 2.0,
        "he reached the left wall at {left_edge}: got to {leftmost}, from {landed}"
    );
    assert!(landed.x - leftmost > 500.0, "{landed} -> {leftmost}");
    // Back up every slope he came down, to where he landed, beside the tunnel.
    let (_, rightmost) = walk(&mut app, KeyCode::ArrowRight);
    assert!(
        rightmost > landed.x - 4.0,
        "he walked back to where he landed ({landed}): got to {rightmost}"
    );
}

/// Seeded throws across the aim and power ranges, with blasts: after every frame, no ball
/// sits more than 2 px deep in the terrain (avian's contact slop), and every
/// pixel is accounted for.
#[test]
fn seeded_throws_never_leave_a_ball_inside_the_terrain() {
    use pixel_collide_game::scenes::terrain::{AIM_RANGE, POWER_RANGE};
    let mut app = app();
    let initial = sim(&app).initial_pixels;
    let mut rng = pixel_collide_support::rng::SplitMix64(0x5eed);
    let mut next = move || rng.range(0.0, 1.0);
    let ball_mask = {
        let world = app.world_mut();
        world
            .query_filtered::<&PixelColliderMask, With<pixel_collide_game::scenes::terrain::BallInHand>>(
            )
            .single(world)
            .unwrap()
            .mask
            .clone()
            .unwrap()
    };
    let mut deepest = 0.0f32;
    for throw in 0..6 {
        {
            let mut sim = app.world_mut().resource_mut::<TerrainSim>();
            sim.aim = AIM_RANGE.0 + next() * (AIM_RANGE.1 - AIM_RANGE.0);
            sim.power = POWER_RANGE.0 + next() * (POWER_RANGE.1 - POWER_RANGE.0);
        }
        press_space(&mut app);
        let mut frames = 0;
        while !balls(&mut app).is_empty() || frames == 0 {
            app.update();
            frames += 1;
            assert!(frames < 1500, "throw {throw}: the ball never came to rest");
            let terrain = sim(&app).terrain().clone();
            let (tw, th) = terrain.size();
            let terrain_to_world =
                pixel_collide::sprite_to_world(Vec2::ZERO, 0.0, Vec2::ONE, (tw, th));
            for (at, angle) in balls(&mut app) {
                let to_world =
                    pixel_collide::sprite_to_world(at, angle, Vec2::ONE, ball_mask.size());
                if let Some(contact) =
                    transformed_overlap(&ball_mask, to_world, &terrain, terrain_to_world)
                {
                    deepest = deepest.max(contact.depth);
                    assert!(
                        contact.depth <= 2.0,
                        "throw {throw}, frame {frames}: ball at {at} is {} px deep",
                        contact.depth
                    );
                }
            }
            assert_eq!(pixels_accounted(&mut app), initial - removed(&app));
        }
    }
    assert!(removed(&app) > 0, "balls exploded");
    println!("deepest a ball went into the terrain: {deepest:.2} px");
}
