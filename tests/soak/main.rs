//! Long play: every scene, headless, for 20,000 frames of seeded random input (keys, a
//! gamepad's sticks and buttons, mouse drags, the overlay's values at and past their
//! extremes), switching scene every few hundred frames and coming back to each many times.
//!
//! Checked all along: no panic; every transform finite, every frame; every asset file
//! loaded; no entity left behind by a scene that was left, and none outside the scenes
//! ever added; on each return to a scene, the same resources as on its first visit. What
//! must not grow is counted, not read from the process's resident memory (which keeps
//! what the allocator keeps): live heap bytes, through a counting allocator, never above
//! the most seen in a first tour of every scene at its most demanding; and per scene, the
//! entities, images and masks it holds when settled, the same on its last visits as on
//! its earlier ones. `tests/game/soak_replay.rs` checks that a seed replays its run.
//!
//! `SOAK_SEED=N` and `SOAK_FRAMES=N` replay or lengthen a run:
//!
//!   SOAK_SEED=7 cargo test --test soak -- --nocapture

mod driver;

use std::alloc::System;

use driver::{Holdings, Soak, env_or};
use pixel_collide_game::GameScene;
use stats_alloc::{INSTRUMENTED_SYSTEM, StatsAlloc};

#[global_allocator]
static HEAP: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Heap bytes allocated and not yet freed (`realloc` is already counted in both).
fn live_bytes() -> i64 {
    let stats = HEAP.stats();
    stats.bytes_allocated as i64 - stats.bytes_deallocated as i64
}

/// Default length and seed of the long run.
const FRAMES: u64 = 20_000;
const SEED: u64 = 0x50A4_2026;

/// Frames per scene of the opening tour, which visits each at its most demanding (a
/// crowd of 20,000) so that caches reach their size before the rest is compared with it.
const TOUR_FRAMES: u64 = 120;

/// How far above the tour's peak the live heap may go. Bevy keeps each archetype's table
/// as large as it ever was, and random play reaches layouts the tour does not: 10.5 MiB
/// over the tour in 40,000 frames here, and 80,000 frames of another seed peak no higher.
const HEAP_SLACK: i64 = 16 << 20;

/// Visits per scene compared: the last this many against the ones before them.
const LAST_VISITS: usize = 3;

/// How much more live heap a scene may hold when settled on its last visits than on
/// any earlier one: the few caches and buffers that differ with the settings.
const VISIT_HEAP_SLACK: i64 = 2 << 20;

#[test]
fn every_scene_survives_long_random_play() {
    let frames = env_or("SOAK_FRAMES", FRAMES);
    let seed = env_or("SOAK_SEED", SEED);
    let mut soak = Soak::new(seed);
    let mut tour_peak = 0i64;
    let start = soak.tour(TOUR_FRAMES, |_, _, _| {
        tour_peak = tour_peak.max(live_bytes())
    });
    let mut peak = 0i64;
    // Per scene, what it held and the live heap on each settled frame.
    let mut visits: Vec<Vec<(Holdings, i64)>> = vec![Vec::new(); GameScene::ALL.len()];
    for frame in start..start + frames {
        let settled = soak.frame(frame);
        let live = live_bytes();
        if let Some(holdings) = settled {
            visits[soak.scene().index()].push((holdings, live));
        }
        peak = peak.max(live);
        assert!(
            live <= tour_peak + HEAP_SLACK,
            "frame {frame}, {:?}: {live} live heap bytes, more than {HEAP_SLACK} over the \
             tour's peak of {tour_peak} (seed {seed:#x})",
            soak.scene()
        );
    }
    let report = soak.report();
    println!("seed {seed:#x}, {frames} frames: {report}");
    let mib = |b: i64| b as f64 / (1 << 20) as f64;
    println!(
        "live heap: {:.1} MiB at most in the tour, {:.1} MiB at most after it, {:.1} MiB at \
         the end",
        mib(tour_peak),
        mib(peak),
        mib(live_bytes())
    );
    for (scene, held) in GameScene::ALL.iter().zip(&visits) {
        let heaps: Vec<String> = held
            .iter()
            .map(|(_, b)| format!("{:.1}", mib(*b)))
            .collect();
        println!(
            "{scene:?}: {} visits, live heap MiB when settled {heaps:?}",
            held.len()
        );
        assert!(
            held.len() > LAST_VISITS,
            "{scene:?} visited only {} times after the tour",
            held.len()
        );
        // A scene's images are the same on every visit.
        assert!(
            held.iter().all(|(h, _)| h.images == held[0].0.images),
            "{scene:?}: images {held:?}"
        );
        let (earlier, last) = held.split_at(held.len() - LAST_VISITS);
        // Entities settle at what the scene spawns for its settings (the crowd's follow its
        // count, which the input changes): never more on the last visits than before.
        if *scene != GameScene::Crowd {
            let most = |of: &[(Holdings, i64)]| of.iter().map(|(h, _)| h.entities).max();
            assert!(
                most(last) <= most(earlier),
                "{scene:?}: more entities on its last visits: {held:?} (seed {seed:#x})"
            );
        }
        let most = |of: &[(Holdings, i64)]| of.iter().map(|(_, b)| *b).max().unwrap_or(0);
        assert!(
            most(last) <= most(earlier) + VISIT_HEAP_SLACK,
            "{scene:?}: the live heap grew over its last visits: {heaps:?} MiB (seed {seed:#x})"
        );
    }
}
