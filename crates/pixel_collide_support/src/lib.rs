//! Scaffolding shared by the Pixel Collide workspace's tests, benches and demo game: not a
//! library for other projects (`publish = false`).
//!
//! - [`baseline`]: the tutorials' per-pixel loops, the references results and speeds are
//!   compared with.
//! - [`rng`]: a seeded generator, so every random test and scene replays exactly.
//! - [`disc_mask`]: a filled circle, the basketball's stand-in.
//! - [`cases`]: how many seeded cases a test runs (fewer under an emulator).

pub mod baseline;
pub mod rng;

use bevy_math::Vec2;
use pixel_collide::BitMask;

/// A `diameter × diameter` mask with the pixels whose centers lie inside the inscribed
/// circle: a stand-in for the basketball sprite in tests and before assets load.
///
/// # Panics
/// When the size is over the mask size limit ([`BitMask::MAX_PIXELS`]: a diameter above
/// 16,384).
pub fn disc_mask(diameter: u32) -> BitMask {
    let mut mask = BitMask::new(diameter, diameter);
    let r = diameter as f32 * 0.5;
    for j in 0..diameter {
        for i in 0..diameter {
            let d = Vec2::new(i as f32 + 0.5 - r, j as f32 + 0.5 - r);
            if d.length_squared() <= r * r {
                mask.set(i.into(), j.into(), true);
            }
        }
    }
    mask
}

/// How many of a test's `n` seeded cases to run: all of them, or a share under an
/// emulator. `.ci/aarch64.sh` sets `PIXEL_COLLIDE_CASE_DIVISOR`: under qemu the core's
/// tests run about twenty times slower than natively, and the few heaviest took most of CI's
/// time there. What an ARM CPU runs, the portable word loops and edits, is also forced and
/// checked with every case in the x86-64 run. Panics on a divisor that is not a whole
/// number of at least 1, rather than running every case unasked.
pub fn cases(n: u32) -> u32 {
    match std::env::var("PIXEL_COLLIDE_CASE_DIVISOR") {
        Err(std::env::VarError::NotPresent) => n,
        Ok(divisor) => match divisor.parse::<u32>() {
            Ok(d) if d >= 1 => (n / d).max(1),
            _ => panic!(
                "PIXEL_COLLIDE_CASE_DIVISOR is a whole number of at least 1, not {divisor:?}"
            ),
        },
        Err(e) => panic!("PIXEL_COLLIDE_CASE_DIVISOR: {e}"),
    }
}
