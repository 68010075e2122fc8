//! The terrain scene's simulations on the core's [`TerrainWorld`]: seeded basketball throws
//! on the game's terrain never end a step inside it, and a walker follows slopes and
//! ledges without ever standing in the ground.

use std::sync::Arc;

use bevy::math::{Rect, Vec2};
use pixel_collide::terrain::TerrainWorld;
use pixel_collide::{BitMask, Connectivity, transformed_intersects};
use pixel_collide_game::sim::ball::{BallWorld, Material, Platform, disc_mask};
use pixel_collide_game::sim::walker::Walker;
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

/// Flat ground from row 100 of a 300×120 mask, with a 3-px step at x 120 and a 15-px wall
/// at x 200.
fn steps() -> BitMask {
    let mut mask = BitMask::new(300, 120);
    for y in 0..120 {
        for x in 0..300 {
            let ground = y >= 100 || (x >= 120 && y >= 97) || (x >= 200 && y >= 85);
            mask.set(x, y, ground);
        }
    }
    mask
}

#[test]
fn a_walker_follows_the_ground_steps_up_low_ledges_and_stops_at_walls() {
    let terrain = steps();
    let mut walker = Walker::new(body(), (20, 60));
    for _ in 0..120 {
        walker.step(&terrain, 0.0, 1.0 / 60.0);
        assert!(walker.fits(&terrain, walker.offset));
    }
    assert!(walker.on_ground, "it fell onto the ground");
    assert_eq!(walker.offset.1, 100 - 32, "feet on row 100");
    let mut tops = Vec::new();
    for _ in 0..240 {
        walker.step(&terrain, 1.0, 1.0 / 60.0);
        assert!(walker.fits(&terrain, walker.offset));
        tops.push(walker.offset);
    }
    // Up the 3-px step, then stopped by the 12-px rise to the wall's top.
    assert!(
        tops.iter().any(|&(x, y)| x > 120 && y == 97 - 32),
        "{:?}",
        tops.last()
    );
    let (x, _) = walker.offset;
    assert_eq!(x + 16, 200, "stopped against the wall");
    // Walking back left off the step drops it to the ground again.
    for _ in 0..120 {
        walker.step(&terrain, -1.0, 1.0 / 60.0);
        assert!(walker.fits(&terrain, walker.offset));
    }
    assert!(walker.offset.0 < 100 && walker.offset.1 == 100 - 32 && walker.on_ground);
}

#[test]
fn a_walker_walks_down_a_slope_without_leaving_it_and_falls_off_an_edge() {
    // A 45° slope down to the right from (50, 40) to (110, 100), then a drop at x 160.
    let mut terrain = BitMask::new(300, 200);
    for y in 0..200i64 {
        for x in 0..300i64 {
            let slope = x < 110 && y >= 40 + (x - 50).max(0);
            let shelf = (110..160).contains(&x) && y >= 100;
            let floor = y >= 190;
            terrain.set(x, y, slope || shelf || floor);
        }
    }
    let mut walker = Walker::new(body(), (20, 0));
    for _ in 0..90 {
        walker.step(&terrain, 0.0, 1.0 / 60.0);
    }
    assert!(walker.on_ground);
    let mut airborne_on_slope = 0;
    let mut fell = false;
    for _ in 0..300 {
        walker.step(&terrain, 1.0, 1.0 / 60.0);
        assert!(walker.fits(&terrain, walker.offset));
        let x = walker.offset.0 + 8;
        if (55..105).contains(&x) && !walker.on_ground {
            airborne_on_slope += 1;
        }
        if walker.offset.1 + 32 == 190 {
            fell = true;
        }
    }
    assert!(
        airborne_on_slope <= 2,
        "hopped down the slope: {airborne_on_slope} steps in the air"
    );
    assert!(
        fell,
        "walked off the shelf onto the floor: {:?}",
        walker.offset
    );
}

/// Seeded walks with pushes and craters on the game's terrain: no step ends with the
/// walker in the terrain, and a push sends it flying but never through anything.
#[test]
fn seeded_walks_with_blasts_never_end_a_step_inside_the_terrain() {
    let mut world = TerrainWorld::new(Arc::new(game_terrain()));
    for seed in 0..3u64 {
        let mut rng = SplitMix64(0x1a22 + seed);
        let mut walker = Walker::new(body(), (60 + 400 * seed as i32, 0));
        let mut walk = 0.0;
        for step in 0..1500 {
            if step % 120 == 0 {
                walk = rng.range(-1.0, 1.0);
            }
            if rng.below(200) == 0 {
                let (x, y) = walker.offset;
                let blast = Vec2::new(x as f32 + rng.range(-30.0, 46.0), y as f32 + 40.0);
                world.carve(world.to_world(blast), 30.0);
                walker.push(blast, rng.range(100.0, 900.0));
            }
            world.step(1.0 / 60.0);
            walker.step(world.terrain(), walk, 1.0 / 60.0);
            assert!(
                walker.fits(world.terrain(), walker.offset),
                "seed {seed} step {step}: inside the terrain at {:?}",
                walker.offset
            );
        }
    }
}
