//! Tests of the engine-agnostic core, one binary for all of them: each integration test
//! binary links the whole crate, so one link instead of seven.

mod ball;
mod broad_phase;
mod gap;
mod mask;
mod mask_edit;
mod ray;
mod shapes;
mod terrain;
mod transformed;

/// How many of a test's `n` seeded cases to run: all of them, or a share under an
/// emulator. `.ci/aarch64.sh` sets `PIXEL_COLLIDE_CASE_DIVISOR=4`: under qemu the core's
/// tests run about twenty times slower than natively, and the few heaviest took most of CI's
/// time there. What an ARM CPU runs, the portable word loops and edits, is also forced and
/// checked with every case in the x86-64 run. Panics on a divisor that is not a whole
/// number of at least 1, rather than running every case unasked.
fn cases(n: u32) -> u32 {
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
