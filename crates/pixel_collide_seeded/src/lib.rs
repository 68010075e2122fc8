//! The Pixel Collide workspace's seeded randomness: [`rng::SplitMix64`], which the demo
//! game's scenes and every randomized test and bench draw from, so each replays exactly;
//! and [`cases`], how many seeded cases a test runs. Not a library for other projects
//! (`publish = false`).

pub mod rng;

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
