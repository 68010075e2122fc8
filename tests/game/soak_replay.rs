//! The soak test's promise that a seed replays its run: two runs of the same seed end in
//! the same state, and another seed ends elsewhere.

#[path = "../soak/driver.rs"]
mod driver;

use driver::Soak;

/// Long enough for a visit of several scenes and many overlay changes.
const FRAMES: u64 = 1_500;

fn final_hash(seed: u64) -> u64 {
    let mut soak = Soak::new(seed);
    for frame in 0..FRAMES {
        soak.frame(frame);
    }
    soak.state_hash()
}

#[test]
fn a_seed_replays_the_same_run() {
    let first = final_hash(11);
    assert_eq!(final_hash(11), first, "seed 11 did not replay");
    assert_ne!(
        final_hash(12),
        first,
        "another seed ended in the same state"
    );
}
