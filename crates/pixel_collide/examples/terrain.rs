//! Ground you blow holes in: a hilly terrain mask, a crater carved in place, the parts it
//! cut loose from the ground taken out as pieces of their own, and a bullet's first hit on
//! what is left, exact at any speed.
//!
//!   cargo run -p pixel_collide --example terrain

use bevy_math::{Affine2, Vec2};
use pixel_collide::pieces::{PieceAnchor, cut_loose};
use pixel_collide::{BitMask, Connectivity, MaskMotion, MaskRect, transformed_time_of_impact};

fn main() {
    // Hills, solid below the surface in each column, and an arch: a bridge that a crater
    // under it will cut loose.
    let (w, h) = (400u32, 200u32);
    let mut ground = BitMask::new(w, h);
    for x in 0..w {
        let surface = 120.0 + 20.0 * (x as f64 / 40.0).sin();
        for y in surface as u32..h {
            ground.set(x.into(), y.into(), true);
        }
    }
    let mut fill = |x0: u32, y0: u32, width: u32, height: u32| {
        for y in y0..y0 + height {
            for x in x0..x0 + width {
                ground.set(x.into(), y.into(), true);
            }
        }
    };
    fill(250, 60, 60, 12);
    fill(250, 60, 8, 70);
    println!("ground: {} pixels", ground.count());

    // A crater of radius 30 at the arch's foot, in place: no rebuild of the mask.
    let (cx, cy, r) = (254.0, 120.0, 30.0);
    ground.erase_circle(cx, cy, r);
    println!("after the crater: {} pixels", ground.count());

    // What no longer reaches the bottom row falls away: look only around the crater's box.
    let around = MaskRect {
        x: 0,
        y: 0,
        width: w,
        height: h,
    };
    let pieces = cut_loose(
        &mut ground,
        around,
        Connectivity::Eight,
        &PieceAnchor::BottomRow,
    );
    for (piece, (x, y)) in &pieces {
        println!(
            "a piece of {} pixels broke off at ({x}, {y})",
            piece.count()
        );
    }

    // A 2 × 2 bullet fired 5,000 px to the right at row 108 (mask pixels, y down), over the
    // first hill's top: where it first touches the ground, however fast.
    let bullet = BitMask::solid(2, 2).expect("2 × 2 is within the limits");
    let from = Affine2::from_translation(Vec2::new(-50.0, 108.0));
    let motion = MaskMotion::translation(Vec2::new(5_000.0, 0.0));
    match transformed_time_of_impact(&bullet, from, motion, &ground, Affine2::IDENTITY) {
        Some(hit) => println!(
            "the bullet hits at {} after {:.1} px, the ground's normal {}",
            hit.point,
            hit.fraction * 5_000.0,
            hit.normal
        ),
        None => println!("the bullet flies clear"),
    }
}
