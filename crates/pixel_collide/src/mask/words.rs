//! Bits within a word: the one rule for a range of a word's bits, which the edits, the
//! component search and the transformed walk all clip their rows' words with. One rule,
//! `lo..hi` with the end excluded as Rust's ranges have it, so that a caller converting
//! pixel ranges into word ranges cannot be off by one against another caller.

/// Bits `lo..hi` of a word set, the others clear; none when `hi <= lo`. Needs `lo < 64`
/// and `hi <= 64`: `hi = 64` reaches the word's last bit, which a shift by 64 could not.
#[inline]
pub(crate) fn bit_range(lo: u32, hi: u32) -> u64 {
    debug_assert!(lo < 64 && hi <= 64, "bits {lo}..{hi} of a word");
    let below_hi = if hi >= 64 { u64::MAX } else { (1u64 << hi) - 1 };
    below_hi & !((1u64 << lo) - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every range a word allows, the word's edges 0, 63 and 64 among them, against the
    /// bits set one at a time.
    #[test]
    fn bit_range_sets_exactly_lo_to_hi() {
        for lo in 0..64 {
            for hi in 0..=64 {
                let mut expected = 0u64;
                for bit in 0..64 {
                    if lo <= bit && bit < hi {
                        expected |= 1 << bit;
                    }
                }
                assert_eq!(bit_range(lo, hi), expected, "{lo}..{hi}");
            }
        }
        assert_eq!(bit_range(0, 64), u64::MAX);
        assert_eq!(bit_range(63, 64), 1 << 63);
        assert_eq!(bit_range(0, 1), 1);
        assert_eq!(bit_range(0, 0), 0);
        assert_eq!(bit_range(63, 63), 0);
    }
}
