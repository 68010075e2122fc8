//! The game's determinism scenario (`sim::determinism`, issue #55): the same hash however
//! the crowd's narrow phase is spread over threads and whichever word-loop build runs, and
//! that hash the committed one. The browser test checks the web build against the same
//! value, and `tests/determinism_cross.sh` other CPUs.

use pixel_collide::WordKernel;
use pixel_collide_game::sim::determinism::{
    EXPECTED_HASH, FRAMES, NarrowPhaseThreads, SPRITES, scenario,
};

/// Puts the word loops back on the CPU's best build however the test ends.
struct BestBuildAfter;

impl Drop for BestBuildAfter {
    fn drop(&mut self) {
        WordKernel::force_process_wide(None);
    }
}

#[test]
fn every_thread_count_and_build_gives_the_committed_hash() {
    let _restore = BestBuildAfter;
    let mut runs = Vec::new();
    // One thread is the serial run; two are each build's, below.
    for threads in [NarrowPhaseThreads::Serial, NarrowPhaseThreads::Scoped(4)] {
        let run = scenario(SPRITES, FRAMES, threads);
        // What the hash claims to cover happened: frames whose pairs were spread over
        // threads, sprites touching, pieces cut loose.
        println!("determinism: {threads:?}: {run:?}");
        assert!(run.threaded_frames > FRAMES / 2, "{run:?}");
        assert!(run.touching_pairs > u64::from(FRAMES) * 20, "{run:?}");
        assert!(run.pieces > 10, "{run:?}");
        runs.push((format!("{threads:?}"), run.hash));
    }
    for kernel in WordKernel::ALL.into_iter().filter(|k| k.is_available()) {
        WordKernel::force_process_wide(Some(kernel));
        let hash = scenario(SPRITES, FRAMES, NarrowPhaseThreads::Scoped(2)).hash;
        runs.push((format!("{kernel:?} on 2 threads"), hash));
    }
    for (run, hash) in &runs {
        println!("determinism: {run}: {hash:#018x}");
    }
    for (run, hash) in runs {
        assert_eq!(
            hash, EXPECTED_HASH,
            "{run} gave {hash:#018x}, committed {EXPECTED_HASH:#018x}"
        );
    }
}
