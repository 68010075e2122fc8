//! Long play: every scene, headless, for 20,000 frames of seeded random input (keys, a
//! gamepad's sticks and buttons, mouse drags, the overlay's values at and past their
//! extremes), switching scene every few hundred frames and coming back to each many times.
//!
//! Checked all along: no panic; every transform finite; no entity left behind by a scene
//! that was left, and none outside the scenes ever added; on each return to a scene, the
//! same resources as on its first visit; memory at the end within a bound of memory after
//! a first tour of every scene at its most demanding. The same seed replays the same run: its final state
//! hashes the same (a second, shorter test checks that).
//!
//! `SOAK_SEED=N` and `SOAK_FRAMES=N` replay or lengthen a run:
//!
//!   SOAK_SEED=7 cargo test --test soak -- --nocapture

mod driver;

use driver::{Soak, env_or};

/// Default length and seed of the long run.
const FRAMES: u64 = 20_000;
const SEED: u64 = 0x50A4_2026;

/// Frames per scene of the opening tour, which visits each at its most demanding (a
/// crowd of 20,000) so that caches and the allocator reach their size before memory is
/// measured.
const TOUR_FRAMES: u64 = 120;

/// How much the process may grow between the end of the tour and the end of the run:
/// what the allocator keeps from a crowd of thousands spawned and despawned on every visit.
const MEMORY_GROWTH_BOUND: u64 = 32 << 20;

#[test]
fn every_scene_survives_long_random_play() {
    let frames = env_or("SOAK_FRAMES", FRAMES);
    let seed = env_or("SOAK_SEED", SEED);
    let mut soak = Soak::new(seed);
    let start = soak.tour(TOUR_FRAMES);
    let before = driver::resident_bytes();
    for frame in start..start + frames {
        soak.frame(frame);
    }
    let report = soak.report();
    println!("seed {seed:#x}, {frames} frames: {report}");
    let after = driver::resident_bytes();
    println!(
        "resident memory {:.1} MiB after the tour of every scene, {:.1} MiB at the end",
        before as f64 / (1 << 20) as f64,
        after as f64 / (1 << 20) as f64
    );
    assert!(
        after <= before + MEMORY_GROWTH_BOUND,
        "memory grew from {before} to {after} bytes (seed {seed:#x})"
    );
    assert!(
        soak.visits_per_scene().iter().all(|&n| n >= 5),
        "each scene visited several times: {:?}",
        soak.visits_per_scene()
    );
}
