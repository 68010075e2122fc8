//! The soak test's promise that a seed replays its run: two runs of the same seed pass the
//! same states at every checkpoint, and another seed ends elsewhere.

#[path = "../soak/driver.rs"]
mod driver;

use driver::Soak;

/// Long enough for a visit of several scenes and many overlay changes.
const FRAMES: u64 = 1_500;
/// Frames between the states compared.
const CHECKPOINT: u64 = 250;

/// The state's hash at every checkpoint.
fn hashes(seed: u64) -> Vec<u64> {
    let mut soak = Soak::new(seed);
    let mut hashes = Vec::new();
    for frame in 0..FRAMES {
        soak.frame(frame);
        if (frame + 1).is_multiple_of(CHECKPOINT) {
            hashes.push(soak.state_hash());
        }
    }
    hashes
}

#[test]
fn a_seed_replays_the_same_run() {
    let first = hashes(11);
    let second = hashes(11);
    for (k, (a, b)) in first.iter().zip(&second).enumerate() {
        assert_eq!(
            a,
            b,
            "seed 11 left its first run at frame {}",
            (k as u64 + 1) * CHECKPOINT
        );
    }
    assert_ne!(
        hashes(12).last(),
        first.last(),
        "another seed ended in the same state"
    );
}
