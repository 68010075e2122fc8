//! Two sprites turned, scaled and flipped in a y-up world, as a game draws them: whether
//! their pixels touch, the contact point, the normal that pushes the first out and how
//! deep, and, apart, how far apart. No matrix maths by hand: `sprite_to_world` places a
//! mask as a sprite is drawn.
//!
//!   cargo run -p pixel_collide --example contact

use bevy_math::Vec2;
use pixel_collide::{BitMask, sprite_to_world, transformed_gap, transformed_overlap};

fn main() {
    let mut flower = BitMask::new(48, 48);
    flower.fill_circle(24.0, 24.0, 12.0);
    for (x, y) in [(24.0, 8.0), (40.0, 24.0), (24.0, 40.0), (8.0, 24.0)] {
        flower.fill_circle(x, y, 8.0);
    }
    let target = BitMask::solid(16, 64).expect("16 × 64 is within the limits");

    // The flower turned 0.4 rad at the origin; the target upright, twice as wide, and
    // mirrored (a negative scale), at a few distances to the right.
    let flower_at = sprite_to_world(Vec2::ZERO, 0.4, Vec2::ONE, flower.size());
    for x in [80.0, 45.0, 30.0] {
        let target_at =
            sprite_to_world(Vec2::new(x, 5.0), 0.0, Vec2::new(-2.0, 1.0), target.size());
        match transformed_overlap(&flower, flower_at, &target, target_at) {
            Some(contact) => println!(
                "target at x = {x}: {} of the flower's pixels inside it, touching at {}; \
                 move the flower {:.1} along {} to part them",
                contact.count, contact.point, contact.depth, contact.normal
            ),
            None => {
                // Looked for up to 50 world units.
                match transformed_gap(&flower, flower_at, &target, target_at, 50.0) {
                    Some(gap) => println!("target at x = {x}: apart by {:.1}", gap.distance),
                    None => println!("target at x = {x}: more than 50 apart"),
                }
            }
        }
    }
}
