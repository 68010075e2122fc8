//! A small seeded random generator (SplitMix64) for reproducible scenes, tests and
//! benches: the same seed gives the same sequence on every machine.

/// SplitMix64; the field is the state, so `SplitMix64(seed)` starts a sequence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`, from the top 24 bits (all an `f32` holds).
    pub fn next_f32(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u32 << 24) as f32
    }

    /// Uniform in `[lo, hi]` (rounding can reach `hi`); `lo` when the range is empty or
    /// not finite, so a bad setting gives a fixed value rather than NaN.
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        let x = lo + self.next_f32() * (hi - lo);
        if x.is_finite() && hi >= lo {
            x.clamp(lo, hi)
        } else {
            lo
        }
    }

    /// In `0..n`, or 0 when `n` is 0.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f32) -> bool {
        self.next_f32() < p
    }
}
