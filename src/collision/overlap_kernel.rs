//! Which build of the word loops (axis-aligned overlap, mask edits) runs, chosen at run
//! time. The default x86-64 target has neither a popcount instruction nor 256-bit
//! vectors, yet the game and library must run on any x86-64 (and on aarch64), so the
//! fast builds are `#[target_feature]` functions entered only after checking the CPU.
//! The loops themselves are plain Rust over a column's contiguous words
//! (`mask/overlap.rs`, `mask/edit.rs`), which LLVM vectorises for each build.

use std::sync::OnceLock;

/// Which build of the overlap word loops to run. [`WordKernel::best`] picks the fastest
/// one this CPU has; the others exist so that tests and benches can force each one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WordKernel {
    /// Plain Rust, for any target: on baseline x86-64 its `count_ones` is a dozen
    /// instructions, on aarch64 it is NEON's `cnt`.
    Portable,
    /// x86-64 with the `popcnt` instruction: one word per step, or two in SSE2 vectors
    /// (part of every x86-64) where no count is needed.
    Popcnt,
    /// x86-64 with AVX2 (and BMI1, BMI2, LZCNT and `popcnt`, which every AVX2 CPU has):
    /// four rows of a column per step, counted by a nibble lookup.
    Avx2,
    /// x86-64 with AVX-512's 64-bit popcount (VPOPCNTDQ) and funnel shift (VBMI2), and
    /// everything [`WordKernel::Avx2`] needs: eight rows of a column per step.
    Avx512,
}

impl WordKernel {
    /// Every build, available on this CPU or not.
    pub const ALL: [WordKernel; 4] = [
        WordKernel::Portable,
        WordKernel::Popcnt,
        WordKernel::Avx2,
        WordKernel::Avx512,
    ];

    /// Whether this CPU can run this build.
    pub fn is_available(self) -> bool {
        match self {
            WordKernel::Portable => true,
            #[cfg(target_arch = "x86_64")]
            WordKernel::Popcnt => std::arch::is_x86_feature_detected!("popcnt"),
            #[cfg(target_arch = "x86_64")]
            WordKernel::Avx2 => {
                std::arch::is_x86_feature_detected!("avx2")
                    && std::arch::is_x86_feature_detected!("bmi1")
                    && std::arch::is_x86_feature_detected!("bmi2")
                    // The mask edits' AVX2 build, chosen with this one, counts leading
                    // zeros; every AVX2 CPU has it, but that is checked, not assumed.
                    && std::arch::is_x86_feature_detected!("lzcnt")
                    && std::arch::is_x86_feature_detected!("popcnt")
            }
            #[cfg(target_arch = "x86_64")]
            WordKernel::Avx512 => {
                WordKernel::Avx2.is_available()
                    && std::arch::is_x86_feature_detected!("avx512f")
                    && std::arch::is_x86_feature_detected!("avx512vpopcntdq")
                    && std::arch::is_x86_feature_detected!("avx512vbmi2")
            }
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }

    /// The fastest build this CPU can run, checked once per process.
    pub fn best() -> WordKernel {
        static BEST: OnceLock<WordKernel> = OnceLock::new();
        *BEST.get_or_init(|| {
            [WordKernel::Avx512, WordKernel::Avx2, WordKernel::Popcnt]
                .into_iter()
                .find(|k| k.is_available())
                .unwrap_or(WordKernel::Portable)
        })
    }
}

/// Pixels set in both of two runs of words, word `i` against word `i`: one AND and one
/// popcount a word and nothing else (no rows, no shifts, no set-up), the loop as written
/// for any slice, compiled with `kernel`'s instruction set. The physical limit the row
/// loops are measured against (`benches/words.rs`), exposed through
/// `baseline::contiguous_area`. A build this CPU lacks runs as [`WordKernel::Portable`].
#[cfg(feature = "internals")]
pub(crate) fn contiguous_area(a: &[u64], b: &[u64], kernel: WordKernel) -> u64 {
    #[inline(always)]
    fn plain(a: &[u64], b: &[u64]) -> u64 {
        a.iter()
            .zip(b)
            .map(|(x, y)| u64::from((x & y).count_ones()))
            .sum()
    }
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "popcnt")]
        fn popcnt(a: &[u64], b: &[u64]) -> u64 {
            plain(a, b)
        }
        #[target_feature(enable = "avx2,popcnt")]
        fn avx2(a: &[u64], b: &[u64]) -> u64 {
            plain(a, b)
        }
        #[target_feature(enable = "avx512f,avx512vl,avx512vpopcntdq,popcnt")]
        fn avx512(a: &[u64], b: &[u64]) -> u64 {
            plain(a, b)
        }
        if kernel.is_available() {
            // SAFETY: each build is called only after `is_available` checked that the CPU
            // has its features, and AVX-512's `avx512vl` (not part of the kernel's own
            // check) just before it.
            #[allow(unsafe_code)]
            match kernel {
                WordKernel::Portable => {}
                WordKernel::Popcnt => return unsafe { popcnt(a, b) },
                WordKernel::Avx2 => return unsafe { avx2(a, b) },
                WordKernel::Avx512 if std::arch::is_x86_feature_detected!("avx512vl") => {
                    return unsafe { avx512(a, b) };
                }
                WordKernel::Avx512 => {}
            }
        }
    }
    let _ = kernel;
    plain(a, b)
}
