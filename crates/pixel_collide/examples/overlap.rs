//! Two sprites' masks, axis-aligned: whether their pixels touch, where first, and how many
//! pixels they share, as the tutorials' colour-array loops answer it and as pygame.mask
//! does, a row of 64 pixels at a time.
//!
//!   cargo run -p pixel_collide --example overlap

use pixel_collide::BitMask;

/// A disc of `radius` in a square image, as RGBA8 bytes: opaque inside, clear outside.
fn disc_rgba(radius: u32) -> (u32, Vec<u8>) {
    let side = 2 * radius;
    let mut rgba = vec![0u8; (side * side * 4) as usize];
    for y in 0..side {
        for x in 0..side {
            let (dx, dy) = (
                x as f32 + 0.5 - radius as f32,
                y as f32 + 0.5 - radius as f32,
            );
            if dx * dx + dy * dy < (radius * radius) as f32 {
                rgba[((y * side + x) * 4 + 3) as usize] = 255;
            }
        }
    }
    (side, rgba)
}

fn main() {
    let (side, rgba) = disc_rgba(20);
    // Solid where alpha is above 0, the tutorials' rule (pygame's threshold is 127).
    let ball = BitMask::from_rgba8(side, side, &rgba, 0).expect("40 × 40 is within the limits");
    let wall = BitMask::solid(10, 80).expect("10 × 80 is within the limits");
    println!("ball: {} solid pixels of {side} × {side}", ball.count());

    // Offsets are where `wall`'s top-left pixel sits in `ball`'s pixels (y down).
    for x in [42, 38, 30, 20] {
        let offset = (x, -20);
        match ball.overlap(&wall, offset) {
            Some((px, py)) => println!(
                "wall at x = {x}: touches first at ball pixel ({px}, {py}), {} pixels shared",
                ball.overlap_area(&wall, offset)
            ),
            None => println!("wall at x = {x}: apart"),
        }
    }
    // Where they overlap, as a mask of its own (the shape of the bite).
    let bite = ball.overlap_mask(&wall, (30, -20));
    println!("the bite at x = 30: {:?}", bite.bounding_rect());
}
