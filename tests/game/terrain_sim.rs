//! The terrain scene's simulations on the core's [`TerrainWorld`]: seeded basketball throws
//! on the game's terrain never end a step inside it, and neither do seeded walks of the
//! core's character controller with blasts (Larry's, in the scene).

use std::sync::Arc;

use bevy::math::{Rect, Vec2};
use pixel_collide::character::{CharacterSettings, MaskWorld, move_character};
use pixel_collide::terrain::TerrainWorld;
use pixel_collide::{BitMask, Connectivity, transformed_intersects};
use pixel_collide_game::sim::ball::{BallWorld, Material, Platform, disc_mask};
use pixel_collide_support::rng::SplitMix64;

const EARTH: Material = Material {
    friction: 0.97,
    elasticity: 0.45,
};

/// Every component reaches the bottom row.
fn all_grounded(mask: &BitMask) -> bool {
    mask.connected_components(Connectivity::Eight)
        .iter()
        .all(|(piece, (_, y))| (*y as u32) + piece.height() == mask.height())
}

fn settle(world: &mut TerrainWorld, initial: u64) {
    let mut steps = 0;
    while !world.pieces.is_empty() {
        world.step(1.0 / 60.0);
        assert_eq!(world.solid_pixels(), initial - world.removed_by_craters);
        steps += 1;
        assert!(steps < 600, "pieces still falling after 10 s");
    }
}

/// Balls of `ball` on the terrain as one platform, centered on the origin; a ball leaves
/// play a little outside the terrain's rectangle.
fn ball_world(world: &TerrainWorld, ball: Arc<BitMask>) -> BallWorld {
    let terrain = world.terrain_shared();
    let size = Vec2::new(terrain.width() as f32, terrain.height() as f32);
    let mut balls = BallWorld::new(
        ball,
        vec![Platform {
            mask: Arc::clone(terrain),
            center: Vec2::ZERO,
            angle: 0.0,
            material: EARTH,
        }],
    );
    balls.bounds = Rect::from_center_size(Vec2::ZERO, size * 1.2);
    balls
}

fn game_terrain() -> BitMask {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/terrain.png");
    BitMask::from_image(&image::open(path).unwrap().to_rgba8(), 0)
}

/// Seeded throws at random aims and speeds on the game's terrain, each exploding where
/// the ball comes to rest: no step ends with the ball's pixels in the terrain's, pixels
/// are conserved, and the ground ends whole.
#[test]
fn seeded_throws_never_end_a_step_inside_the_terrain() {
    let terrain = game_terrain();
    assert!(
        all_grounded(&terrain),
        "the game's terrain starts on the ground"
    );
    let ball = Arc::new(disc_mask(48));
    let mut total_throws = 0;
    let seeds = crate::cases(4);
    for seed in 0..u64::from(seeds) {
        let mut rng = SplitMix64(0x7e44 + seed);
        let mut world = TerrainWorld::new(Arc::new(terrain.clone()));
        let mut balls = ball_world(&world, Arc::clone(&ball));
        let initial = world.solid_pixels();
        for _ in 0..50 {
            let aim = rng.range(-0.4, 1.45);
            let speed = rng.range(150.0, 1400.0);
            balls.throw(Vec2::new(-560.0, -60.0), Vec2::from_angle(aim) * speed);
            let mut still = 0;
            for _ in 0..900 {
                balls.step(1.0 / 60.0);
                world.step(1.0 / 60.0);
                balls.platforms[0].mask = Arc::clone(world.terrain_shared());
                let Some(b) = &balls.ball else { break };
                let platform = &balls.platforms[0];
                assert!(
                    !transformed_intersects(
                        &b.mask,
                        b.to_world(),
                        &platform.mask,
                        platform.to_world()
                    ),
                    "seed {seed}: the ball ended a step inside the terrain at {}",
                    b.position
                );
                still = if b.velocity.length() < 25.0 {
                    still + 1
                } else {
                    0
                };
                if still >= 30 {
                    let at = b.position;
                    balls.ball = None;
                    let before = world.terrain().clone();
                    let carve = world.carve(at, 40.0);
                    check_carve(&before, &world, at, 40.0, &carve);
                    balls.platforms[0].mask = Arc::clone(world.terrain_shared());
                    break;
                }
            }
            balls.ball = None;
            assert_eq!(world.solid_pixels(), initial - world.removed_by_craters);
            total_throws += 1;
        }
        settle(&mut world, initial);
        assert!(all_grounded(world.terrain()), "seed {seed}");
        assert!(
            world.removed_by_craters > 0,
            "seed {seed}: some throw exploded"
        );
    }
    assert_eq!(total_throws, 50 * seeds);
}

/// A carve against its definition, not against its own count: it removed exactly the
/// solid pixels whose centers lie within `radius` of the crater's center, none of those
/// is left, and every other solid pixel is still in the terrain or in exactly one of the
/// pieces it cut loose (at the offset they were cut at).
fn check_carve(
    before: &BitMask,
    world: &TerrainWorld,
    at: Vec2,
    radius: f32,
    carve: &pixel_collide::terrain::Carve,
) {
    let center = world.to_mask(at).as_dvec2();
    let radius = f64::from(radius);
    let inside = |x: u32, y: u32| {
        let (dx, dy) = (f64::from(x) + 0.5 - center.x, f64::from(y) + 0.5 - center.y);
        dx * dx + dy * dy <= radius * radius
    };
    let after = world.terrain();
    let (w, h) = before.size();
    let lo = (center - radius - 1.0).max(bevy::math::DVec2::ZERO);
    let (x0, y0) = (lo.x as u32, lo.y as u32);
    let (x1, y1) = (
        ((center.x + radius + 1.0).max(0.0) as u32).min(w),
        ((center.y + radius + 1.0).max(0.0) as u32).min(h),
    );
    let mut in_crater = 0;
    for y in y0..y1 {
        for x in x0..x1 {
            if inside(x, y) {
                in_crater += u64::from(before.get(x.into(), y.into()));
                assert!(
                    !after.get(x.into(), y.into()),
                    "({x}, {y}) left in the crater"
                );
            }
        }
    }
    assert_eq!(carve.removed, in_crater, "removed against the definition");
    let cut: Vec<_> = world
        .pieces
        .iter()
        .filter(|p| carve.new_pieces.contains(&p.id))
        .collect();
    assert_eq!(cut.len(), carve.new_pieces.len());
    let mut cut_pixels = 0;
    for piece in &cut {
        let (px, py) = piece.offset;
        for y in 0..piece.mask.height() {
            for x in 0..piece.mask.width() {
                if piece.mask.get(x.into(), y.into()) {
                    let (tx, ty) = (i64::from(px) + i64::from(x), i64::from(py) + i64::from(y));
                    assert!(
                        before.get(tx, ty) && !after.get(tx, ty),
                        "piece pixel ({tx}, {ty})"
                    );
                    assert!(
                        !inside(tx as u32, ty as u32),
                        "piece pixel ({tx}, {ty}) in the crater"
                    );
                    cut_pixels += 1;
                }
            }
        }
    }
    assert_eq!(after.count() + cut_pixels, before.count() - in_crater);
}

/// A 16×32 body, rounded at the feet like a character's.
fn body() -> Arc<BitMask> {
    let mut mask = BitMask::new(16, 32);
    for y in 0..32 {
        for x in 0..16 {
            let foot = y >= 28 && !(2..14).contains(&x);
            mask.set(x, y, !foot);
        }
    }
    Arc::new(mask)
}

/// Seeded walks with pushes and craters on the game's terrain, moved by the core's
/// character controller in the terrain's own mask space (y down): no step ends with the
/// body in the terrain, and a push sends it flying but never through anything.
#[test]
fn seeded_walks_with_blasts_never_end_a_step_inside_the_terrain() {
    let mut world = TerrainWorld::new(Arc::new(game_terrain()));
    let body = body();
    let settings = CharacterSettings {
        up: Vec2::NEG_Y,
        ..CharacterSettings::default()
    };
    for seed in 0..3u64 {
        let mut rng = SplitMix64(0x1a22 + seed);
        let mut corner = Vec2::new(60.0 + 400.0 * seed as f32, 0.0);
        let (mut velocity, mut grounded, mut walk) = (Vec2::ZERO, false, 0.0);
        let dt = 1.0 / 60.0;
        for step in 0..1500 {
            if step % 120 == 0 {
                walk = rng.range(-1.0, 1.0);
            }
            if rng.below(200) == 0 {
                let blast = corner + Vec2::new(rng.range(-30.0, 46.0), 40.0);
                world.carve(world.to_world(blast), 30.0);
                velocity += (corner + Vec2::new(8.0, 16.0) - blast).normalize_or(Vec2::NEG_Y)
                    * rng.range(100.0, 900.0);
                grounded = false;
            }
            world.step(dt);
            velocity.y += 900.0 * dt;
            let desired = (velocity + Vec2::new(walk * 140.0, 0.0)) * dt;
            let mut around = MaskWorld {
                mask: world.terrain(),
                to_world: bevy::math::Affine2::IDENTITY,
            };
            let pose = bevy::math::Affine2::from_translation(corner);
            let moved = move_character(&mut around, &body, pose, desired, grounded, &settings);
            corner += moved.translation;
            grounded = moved.grounded;
            if grounded {
                velocity = Vec2::ZERO;
            }
            let inside = transformed_intersects(
                &body,
                bevy::math::Affine2::from_translation(corner),
                world.terrain(),
                bevy::math::Affine2::IDENTITY,
            );
            assert!(
                !inside,
                "seed {seed} step {step}: inside the terrain at {corner}"
            );
        }
    }
}
