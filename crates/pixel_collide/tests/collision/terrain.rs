//! Destructible terrain (`pixel_collide::terrain`): craters conserve every pixel they do
//! not remove, and pieces cut loose fall and merge back so that everything left reaches
//! the ground.

use std::sync::Arc;

use bevy_math::Vec2;
use pixel_collide::terrain::TerrainWorld;
use pixel_collide::{BitMask, Connectivity, sprite_to_world, world_bounds};
use pixel_collide_support::rng::SplitMix64;
use proptest::prelude::*;

fn world(terrain: BitMask) -> TerrainWorld {
    TerrainWorld::new(Arc::new(terrain))
}

/// Ground below row 150 of a 400×200 mask, and a mushroom on it: a stalk (x 190..210,
/// rows 90..150) under a cap (x 160..240, rows 70..90).
fn mushroom() -> BitMask {
    let mut mask = BitMask::new(400, 200);
    for y in 0..200 {
        for x in 0..400 {
            let ground = y >= 150;
            let stalk = (190..210).contains(&x) && (90..150).contains(&y);
            let cap = (160..240).contains(&x) && (70..90).contains(&y);
            mask.set(x, y, ground || stalk || cap);
        }
    }
    mask
}

/// Every component reaches the bottom row.
fn all_grounded(mask: &BitMask) -> bool {
    mask.connected_components(Connectivity::Eight)
        .iter()
        .all(|(piece, (_, y))| (*y as u32) + piece.height() == mask.height())
}

fn settle(world: &mut TerrainWorld, initial: u64) -> usize {
    let mut steps = 0;
    while !world.pieces.is_empty() {
        world.step(1.0 / 60.0);
        assert_eq!(world.solid_pixels(), initial - world.removed_by_craters);
        steps += 1;
        assert!(steps < 600, "pieces still falling after 10 s");
    }
    steps
}

/// Something standing in the mushroom's world (world x = mask x - 200, world y = 100 -
/// mask y): on the ground it is not buried; sunk in the ground, or as tall as the gap
/// under the cap, it climbs to the top of what buries it.
#[test]
fn surface_above_finds_where_something_buried_climbs_to() {
    let world = world(mushroom());
    // Standing on the ground (its top at mask row 150, world -50), left of the mushroom.
    assert_eq!(world.surface_above(-150.0, -50.0, 38.0), None);
    assert_eq!(world.ground_below(-150.0, -49.5), Some(-50.0));
    // Sunk 20 px into the ground: out on top of it.
    assert_eq!(world.surface_above(-150.0, -70.0, 38.0), Some(-50.0));
    // Under the cap (mask column 170): 38 px tall fits below it (rows 90..150 clear)...
    assert_eq!(world.surface_above(-30.0, -50.0, 38.0), None);
    // ...70 px tall does not: the cap (rows 70..90) is what it climbs onto, world 30.
    assert_eq!(world.surface_above(-30.0, -50.0, 70.0), Some(30.0));
    // In the stalk: onto the cap too, the top of the run the stalk and cap make.
    assert_eq!(world.surface_above(0.0, -50.0, 38.0), Some(30.0));
    // Nonsense is never buried.
    for (x, feet, height) in [
        (f32::NAN, 0.0, 38.0),
        (0.0, f32::INFINITY, 38.0),
        (0.0, -50.0, f32::NAN),
        (0.0, -50.0, 0.0),
        (1e30, -50.0, 38.0),
        (0.0, 1e30, 38.0),
        (0.0, -1e30, 38.0),
    ] {
        assert_eq!(
            world.surface_above(x, feet, height),
            None,
            "{x} {feet} {height}"
        );
    }
}

#[test]
fn a_crater_through_the_stalk_drops_the_cap_which_lands_whole() {
    let mut world = world(mushroom());
    let initial = world.solid_pixels();
    let cap_pixels = 80 * 20;
    // World (0, 0) is the mask's center (200, 100): the stalk's middle is at mask row 120.
    let carve = world.carve(Vec2::new(0.0, -20.0), 15.0);
    assert!(carve.removed > 0);
    assert_eq!(carve.new_pieces.len(), 1, "the cap and the stalk's top");
    let piece = &world.pieces[0];
    assert!(piece.mask.count() >= cap_pixels);
    assert_eq!(world.solid_pixels(), initial - carve.removed);
    let steps = settle(&mut world, initial);
    assert!(steps > 5, "it fell for a while: {steps}");
    let terrain = world.terrain();
    assert!(all_grounded(terrain));
    // It landed on what is left of the stalk: the cap's rows moved down.
    assert!(!terrain.get(200, 75), "the cap is no longer where it was");
    assert_eq!(terrain.count(), initial - world.removed_by_craters);
}

#[test]
fn nonsense_carves_nothing() {
    let mut world = world(mushroom());
    let initial = world.solid_pixels();
    for (at, r) in [
        (Vec2::NAN, 10.0),
        (Vec2::new(0.0, 0.0), f32::NAN),
        (Vec2::new(0.0, 0.0), -5.0),
        (Vec2::new(1e30, 0.0), 10.0),
        (Vec2::new(0.0, 0.0), f32::INFINITY),
    ] {
        let carve = world.carve(at, r);
        assert_eq!(carve.removed, 0, "{at} {r}");
        assert!(carve.new_pieces.is_empty());
    }
    assert_eq!(world.solid_pixels(), initial);
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 48,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x5eed_7e44),
        ..ProptestConfig::default()
    })]

    /// Random craters, anywhere and of any size, on random hills with floating-ready bits:
    /// after each carve and each step the solid pixels are the start less what craters
    /// removed, and once the pieces have settled every component reaches the ground.
    #[test]
    fn craters_conserve_pixels_and_everything_settles_on_the_ground(
        seed in any::<u64>(),
        craters in prop::collection::vec((-220.0f32..220.0, -120.0f32..120.0, 1.0f32..60.0), 1..8),
    ) {
        let mut rng = SplitMix64(seed);
        let (w, h) = (300u32, 160u32);
        let mut mask = BitMask::new(w, h);
        let phase = rng.range(0.0, 6.0);
        for x in 0..w as i64 {
            let surface = 90.0 + 30.0 * ((x as f32) / 23.0 + phase).sin();
            for y in 0..h as i64 {
                // Ground, plus bars hanging off it that craters can cut loose.
                let bar = y % 17 < 3 && (x / 13) % 3 == 0 && y as f32 > surface - 40.0;
                if y as f32 >= surface || bar {
                    mask.set(x, y, true);
                }
            }
        }
        // Start from grounded terrain: drop what is not (the game's starts that way).
        for (piece, offset) in mask
            .connected_components(Connectivity::Eight)
            .into_iter()
            .filter(|(p, (_, y))| (*y as u32) + p.height() < h)
        {
            mask.erase(&piece, offset);
        }
        let mut world = world(mask);
        let initial = world.solid_pixels();
        prop_assert_eq!(world.solid_pixels(), initial);
        for (x, y, r) in craters {
            world.carve(Vec2::new(x, y), r);
            prop_assert_eq!(world.solid_pixels(), initial - world.removed_by_craters);
            for _ in 0..3 {
                world.step(1.0 / 60.0);
                prop_assert_eq!(world.solid_pixels(), initial - world.removed_by_craters);
            }
        }
        settle(&mut world, initial);
        prop_assert!(all_grounded(world.terrain()));
    }
}

/// The piece cut loose by a carve, and its mask-to-world transform where it was cut.
fn cut_piece(world: &mut TerrainWorld, at: Vec2, radius: f32) -> (BitMask, Vec2) {
    let carve = world.carve(at, radius);
    assert_eq!(carve.new_pieces.len(), 1);
    let piece = world.pieces.pop().unwrap();
    let center = world.to_world(piece.center());
    (piece.mask, center)
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 48,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x5eed_7e44),
        ..ProptestConfig::default()
    })]

    /// A cut-loose cap laid back at any angle, anywhere over the ground (floating a little,
    /// or sunk into the stump it was cut from): every pixel lands in the terrain, none on
    /// another, and none is lost.
    #[test]
    fn a_settled_piece_keeps_every_pixel_at_any_angle(
        angle in -3.2f32..3.2,
        dx in -140.0f32..140.0,
        dy in -25.0f32..10.0,
    ) {
        let mut world = world(mushroom());
        let (cap, center) = cut_piece(&mut world, Vec2::new(0.0, -20.0), 12.0);
        let before = world.terrain().count();
        let at = Vec2::new(dx, center.y + dy);
        let to_world = sprite_to_world(at, angle, Vec2::ONE, cap.size());
        let settled = world.settle(&cap, to_world);
        prop_assert_eq!(settled.lost, 0);
        prop_assert_eq!(world.lost_in_settling, 0);
        prop_assert_eq!(settled.moved.len() as u64, cap.count());
        prop_assert_eq!(world.terrain().count(), before + cap.count());
        let mut targets: Vec<_> = settled.moved.iter().map(|&(_, to)| to).collect();
        targets.sort_unstable();
        targets.dedup();
        prop_assert_eq!(targets.len() as u64, cap.count(), "two pixels on one");
    }
}

#[test]
fn a_piece_laid_back_unturned_is_the_same_shape_and_rests_on_the_ground() {
    let mut world = world(mushroom());
    let (cap, center) = cut_piece(&mut world, Vec2::new(0.0, -20.0), 12.0);
    // Beside the stump it was cut from, onto flat ground, two pixels above it (as a
    // solver leaves a body).
    let rect = cap.bounding_rect().unwrap();
    let bottom = world.to_world(Vec2::new(0.0, 150.0)).y;
    let lowest = center.y + cap.height() as f32 / 2.0 - (rect.y + rect.height) as f32;
    let drop = lowest - bottom;
    let at = Vec2::new(center.x + 100.0, center.y - drop + 2.0);
    let settled = world.settle(&cap, sprite_to_world(at, 0.0, Vec2::ONE, cap.size()));
    assert_eq!(settled.lost, 0);
    // Every pixel moved by one and the same offset: the shape is unchanged.
    let shifts: std::collections::HashSet<(i64, i64)> = settled
        .moved
        .iter()
        .map(|&((fx, fy), (tx, ty))| (i64::from(tx) - i64::from(fx), i64::from(ty) - i64::from(fy)))
        .collect();
    assert_eq!(shifts.len(), 1, "{shifts:?}");
    // Lowered onto the ground: one piece of terrain again.
    assert_eq!(
        world
            .terrain()
            .connected_components(Connectivity::Eight)
            .len(),
        1
    );
}

#[test]
fn settling_nonsense_loses_what_it_cannot_place_and_says_so() {
    let mut world = world(mushroom());
    let (cap, _) = cut_piece(&mut world, Vec2::new(0.0, -20.0), 12.0);
    let before = world.terrain().count();
    let far = sprite_to_world(Vec2::new(1e6, 0.0), 0.0, Vec2::ONE, cap.size());
    let settled = world.settle(&cap, far);
    assert_eq!(settled.lost, cap.count());
    assert_eq!(world.lost_in_settling, cap.count());
    let nan = sprite_to_world(Vec2::NAN, 0.0, Vec2::ONE, cap.size());
    assert_eq!(world.settle(&cap, nan).lost, cap.count());
    assert_eq!(world.terrain().count(), before);
}

/// A bar laid back turned onto a slope as steep, resting on it as a solver leaves it
/// (touching, or up to a pixel above): every column of it comes down onto the ground, so
/// no seam of clear pixels shows between the two, and no pixel is lost. Before columns
/// came down one by one, a pixel-high seam of sky showed along the slope in the game.
#[test]
fn a_turned_piece_settles_onto_a_slope_without_a_seam() {
    let bar = BitMask::solid(60, 6).unwrap();
    for angle in [-0.3f32, -0.1, 0.1, 0.3] {
        // Ground under the line through mask (200, 150) at the bar's angle (turned
        // counterclockwise on screen, y down, as `sprite_to_world` turns the bar).
        let slope = -angle.tan();
        let mut ground = BitMask::new(400, 200);
        for y in 0..200 {
            for x in 0..400 {
                let surface = 150.0 + slope * (x as f32 + 0.5 - 200.0);
                ground.set(x, y, y as f32 + 0.5 >= surface);
            }
        }
        for hundredths in 0..=10 {
            let mut world = world(ground.clone());
            let before = world.terrain().count();
            // The bar's center 3 px along the normal above the surface point under
            // mask x 200 (world (0, -50)), and up to a tenth of a pixel more.
            let lift = 3.0 + hundredths as f32 * 0.01;
            let normal = Vec2::new(-angle.sin(), angle.cos());
            let center = Vec2::new(0.0, -50.0) + normal * lift;
            let to_world = sprite_to_world(center, angle, Vec2::ONE, bar.size());
            let settled = world.settle(&bar, to_world);
            assert_eq!(settled.lost, 0);
            assert_eq!(world.terrain().count(), before + bar.count());
            let mut lowest = std::collections::HashMap::new();
            for &(_, (x, y)) in &settled.moved {
                let low = lowest.entry(x).or_insert(y);
                *low = (*low).max(y);
            }
            // The end columns' lowest pixels lie on the bar's ends, which stand up from
            // the slope: their gaps are the bar's shape.
            let (first, last) = (lowest.keys().min().unwrap(), lowest.keys().max().unwrap());
            for (&x, &low) in lowest
                .iter()
                .filter(|&(&x, _)| x > first + 2 && x + 2 < *last)
            {
                assert!(
                    world.terrain().get(i64::from(x), i64::from(low) + 1),
                    "angle {angle}, lift {lift}: a seam under column {x} (lowest pixel row {low})"
                );
            }
        }
    }
}

/// A large body resting on the ground a hair into it, turned a little: its pixels in the
/// ground, and the pairs its turned grid rounds onto one cell, have no free cell within
/// the search's reach inside it. Every pixel still finds a cell.
#[test]
fn a_large_piece_turned_a_little_keeps_every_pixel() {
    // Ground in the bottom 100 rows: its surface at world y −100.
    let mut ground = BitMask::new(900, 400);
    for y in 300..400 {
        for x in 0..900 {
            ground.set(x, y, true);
        }
    }
    let slab = BitMask::solid(400, 150).unwrap();
    for angle in [0.004f32, 0.01, 0.02, 0.03, 0.05, -0.03, 0.2] {
        let mut world = world(ground.clone());
        let before = world.terrain().count();
        // Its lowest corner half a pixel into the ground, as a solver leaves it resting.
        let at = |y: f32| sprite_to_world(Vec2::new(0.0, y), angle, Vec2::ONE, slab.size());
        let lowest = world_bounds(slab.size(), at(0.0)).min.y;
        let to_world = at(-100.5 - lowest);
        let settled = world.settle(&slab, to_world);
        assert_eq!(settled.lost, 0, "angle {angle}");
        assert_eq!(
            world.terrain().count(),
            before + slab.count(),
            "angle {angle}"
        );
    }
}
