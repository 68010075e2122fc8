//! Which build of the word loops (axis-aligned overlap, mask edits) runs, chosen at run
//! time. The default x86-64 target has neither a popcount instruction nor 256-bit
//! vectors, yet the game and library must run on any x86-64 (and on aarch64), so the
//! fast builds are `#[target_feature]` functions entered only after checking the CPU, all
//! made by one macro, [`with_word_kernel!`]. The loops themselves are plain Rust over a
//! column's contiguous words (`mask/overlap.rs`, `mask/edit/paint.rs`), which LLVM
//! vectorises for each build.

use std::cell::Cell;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU8, Ordering};

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

/// Runs a word loop in the build of the word loops `kernel` names: `f(args)`, a call of an
/// `#[inline(always)]` function, compiled once per x86-64 build as a `#[target_feature]`
/// copy enabling exactly that build's features, and run in the copy of `kernel`. The one
/// way into a build: the feature lists are written once, in this macro's `@builds` arm,
/// which also gives [`WordKernel::features`] and [`WordKernel::is_available`] theirs, and
/// `kernel` is a [`Runnable`], a build whose features that check found on this CPU, so a
/// copy can only be entered on a CPU (or a VM that hides a feature) with every feature it
/// may use.
///
/// ```text
/// with_word_kernel!(kernel, f(a: &[u64], b: &[u64]) -> u64)
/// with_word_kernel!(kernel, f(WordKernel, a: &[u64], b: &[u64]) -> u64)
/// ```
///
/// The edits enter this on every call, so the way in is a compare and branch a build: the
/// CPU was checked when the [`Runnable`] was made, and the builds are tried best first by
/// rank, `kernel >= build`, which once the better builds are ruled out holds for
/// `kernel`'s own alone. A `match`, or a chain of `==`, over a value LLVM knows is one of
/// four became one jump through a table, and 32 px edits measured slower through it
/// (`benches/logs/peer.md`, the dispatch runs).
///
/// Each argument comes with its type, which the copies' signatures need; a method is
/// called as `BitMask::f(this: &BitMask, ...)`. In the second form `f` takes the build
/// first, a constant in each copy (`WordKernel::Portable` for the portable one), so that
/// where one build's body differs (AVX2 shifts by register on Zen 1) the branch folds away
/// in every other copy.
macro_rules! with_word_kernel {
    // Each x86-64 build's CPU features, handed to the arm named by the tokens before them.
    (@builds $($then:tt)*) => {
        $crate::overlap_kernel::with_word_kernel! { $($then)*
            // Best first, the order the copies are tried in (checked below).
            // AVX-512VL gives AVX-512's instructions (64-bit minima and maxima among them)
            // at 128 and 256 bits, for the loops LLVM vectorises narrower than 512.
            Avx512: [
                "avx512f", "avx512vl", "avx512cd", "avx512vpopcntdq", "avx512vbmi2",
                "avx2", "bmi1", "bmi2", "lzcnt", "popcnt"
            ];
            // LZCNT for the mask edits' AVX2 build: every AVX2 CPU has it, but it is
            // checked, not assumed.
            Avx2: ["avx2", "bmi1", "bmi2", "lzcnt", "popcnt"];
            Popcnt: ["popcnt"];
        }
    };
    (@features $($build:ident: [$($feature:tt),+];)+) => {
        // The copies' `>=` tests pick the right build only in this order.
        const _: () = {
            let ranks = [$(WordKernel::$build as u8),+];
            let mut i = 1;
            while i < ranks.len() {
                assert!(ranks[i] < ranks[i - 1], "builds not listed best first");
                i += 1;
            }
        };

        impl WordKernel {
            /// The CPU features this build's code may use; none for the portable build.
            pub const fn features(self) -> &'static [&'static str] {
                match self {
                    $(WordKernel::$build => &[$($feature),+],)+
                    WordKernel::Portable => &[],
                }
            }

            /// Whether the CPU reports every one of [`features`](Self::features).
            #[cfg(target_arch = "x86_64")]
            fn detected(self) -> bool {
                match self {
                    $(WordKernel::$build => {
                        true $(&& std::arch::is_x86_feature_detected!($feature))+
                    })+
                    WordKernel::Portable => true,
                }
            }
        }
    };
    (
        @copies ($kernel:expr) $f:tt $pass:tt $sig:tt $args:tt ($ret:ty)
        $($build:ident: [$($feature:tt),+];)+
    ) => {{
        let kernel: $crate::overlap_kernel::Runnable = $kernel;
        // Off x86-64 there is no copy to pick, and none breaks out of the block.
        #[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
        let kernel = kernel.kernel();
        #[allow(unused_labels)]
        let result = 'run: {
            $(
                #[cfg(target_arch = "x86_64")]
                if kernel as u8 >= $crate::WordKernel::$build as u8 {
                    #[target_feature($(enable = $feature),+)]
                    fn copy $sig -> $ret {
                        $crate::overlap_kernel::with_word_kernel!(
                            @call $f $pass $args ($crate::WordKernel::$build)
                        )
                    }
                    // SAFETY: no better build is `kernel`, so this one is, and it came in a
                    // `Runnable`: `is_available` found every feature of its list on this
                    // CPU, and the copy enables exactly those.
                    #[allow(unsafe_code)]
                    break 'run unsafe { copy $args };
                }
            )+
            $crate::overlap_kernel::with_word_kernel!(
                @call $f $pass $args ($crate::WordKernel::Portable)
            )
        };
        result
    }};
    (@call [$($f:tt)*] [] ($($arg:ident),*) ($build:path)) => {
        $($f)*($($arg),*)
    };
    (@call [$($f:tt)*] [WordKernel] ($($arg:ident),*) ($build:path)) => {
        $($f)*($build, $($arg),*)
    };
    (@ret) => { () };
    (@ret $ret:ty) => { $ret };
    ($kernel:expr, $($f:ident)::+ (WordKernel $(, $arg:ident: $ty:ty)* $(,)?) $(-> $ret:ty)?) => {
        $crate::overlap_kernel::with_word_kernel! {
            @builds @copies ($kernel) [$($f)::+] [WordKernel] ($($arg: $ty),*) ($($arg),*)
            ($crate::overlap_kernel::with_word_kernel!(@ret $($ret)?))
        }
    };
    ($kernel:expr, $($f:ident)::+ ($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)?) => {
        $crate::overlap_kernel::with_word_kernel! {
            @builds @copies ($kernel) [$($f)::+] [] ($($arg: $ty),*) ($($arg),*)
            ($crate::overlap_kernel::with_word_kernel!(@ret $($ret)?))
        }
    };
}
pub(crate) use with_word_kernel;

with_word_kernel!(@builds @features);

impl WordKernel {
    /// Every build, available on this CPU or not.
    pub const ALL: [WordKernel; 4] = [
        WordKernel::Portable,
        WordKernel::Popcnt,
        WordKernel::Avx2,
        WordKernel::Avx512,
    ];

    /// Whether this CPU has every feature of this build ([`features`](Self::features)),
    /// checked once per process. Every call into a build's code is behind this check, made
    /// once where the build is chosen.
    pub fn is_available(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            static AVAILABLE: OnceLock<[bool; 4]> = OnceLock::new();
            AVAILABLE.get_or_init(|| WordKernel::ALL.map(WordKernel::detected))[self as usize]
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            self == WordKernel::Portable
        }
    }

    /// Whether the AVX2 builds shift B's words by one count for every lane (`vpsrlq` and
    /// `vpsllq` with the count in a register), or leave it to LLVM, which shifts each lane
    /// by its own count (`vpsrlvq`, `vpsllvq`). AMD Zen 1 and Zen+ (family 23, models
    /// below 0x30) split each 256-bit operation in two, so a per-lane shift takes twice as
    /// long there and the by-register form wins; elsewhere the per-lane form is one uop
    /// against two and wins (both measured: `benches/logs/peer.md`, the Zen 1 section). Checked
    /// once per process, unless forced.
    #[cfg(target_arch = "x86_64")]
    pub(crate) fn avx2_shifts_by_register() -> bool {
        if let Some(forced) = AVX2_SHIFTS_FORCED.with(Cell::get) {
            return forced;
        }
        static ZEN1: OnceLock<bool> = OnceLock::new();
        *ZEN1.get_or_init(is_zen1)
    }

    /// For tests and benches, on any CPU, for the calling thread: the AVX2 builds shift
    /// by register (`Some(true)`), per lane (`Some(false)`), or as this CPU prefers
    /// (`None`). Both forms give the same results; only their speed differs. Not API:
    /// a hook for this workspace's tests and benches.
    #[doc(hidden)]
    pub fn force_avx2_shifts_by_register(by_register: Option<bool>) {
        AVX2_SHIFTS_FORCED.with(|forced| forced.set(by_register));
    }

    /// The build the word loops run when not handed one: [`WordKernel::best`], unless
    /// [`WordKernel::force_process_wide`] chose another, which runs as
    /// [`WordKernel::Portable`] on a CPU that lacks it.
    pub(crate) fn in_use() -> Runnable {
        match FORCED_BUILD.load(Ordering::Relaxed) {
            // `best` picks among the available builds only.
            NOT_FORCED => Runnable(WordKernel::best()),
            forced => WordKernel::ALL[usize::from(forced)].runnable(),
        }
    }

    /// This build if this CPU has it, else [`WordKernel::Portable`]: how a build handed in
    /// by a caller is entered.
    pub(crate) fn runnable(self) -> Runnable {
        Runnable(if self.is_available() {
            self
        } else {
            WordKernel::Portable
        })
    }

    /// For tests and benches: every word loop not handed a build (overlaps, areas, draws,
    /// erases, the mask edits' row loops, and all that is built on them, terrain and
    /// pieces among it) runs `kernel` from now on, or [`WordKernel::Portable`] if this CPU
    /// lacks it; `None` goes back to [`WordKernel::best`]. For the whole process, not one
    /// thread, so that work spread over a thread pool follows it too; every build gives
    /// the same answers, so other threads running meanwhile stay right, only slower or
    /// faster. Not API: a hook for this workspace's tests and benches (the determinism
    /// test runs its scenario under each build with it).
    #[doc(hidden)]
    pub fn force_process_wide(kernel: Option<WordKernel>) {
        FORCED_BUILD.store(kernel.map_or(NOT_FORCED, |k| k as u8), Ordering::Relaxed);
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

/// A build of the word loops that this CPU has every feature of: what
/// [`with_word_kernel!`] runs. Made only by [`WordKernel::runnable`], which checks, and
/// [`WordKernel::in_use`], whose build was checked when it was chosen, so that the check is
/// made once where a build is chosen rather than again on each entry into it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Runnable(WordKernel);

impl Runnable {
    /// The build.
    pub(crate) fn kernel(self) -> WordKernel {
        self.0
    }
}

/// [`WordKernel::force_process_wide`]'s choice: an index into [`WordKernel::ALL`], or
/// [`NOT_FORCED`].
static FORCED_BUILD: AtomicU8 = AtomicU8::new(NOT_FORCED);
const NOT_FORCED: u8 = u8::MAX;

thread_local! {
    /// [`WordKernel::avx2_shifts_by_register`] as forced on this thread, if it is.
    static AVX2_SHIFTS_FORCED: Cell<Option<bool>> = const { Cell::new(None) };
}

/// Whether this is an AMD Zen 1 or Zen+ CPU, from CPUID.
#[cfg(target_arch = "x86_64")]
fn is_zen1() -> bool {
    use std::arch::x86_64::__cpuid;
    let vendor = __cpuid(0);
    zen1_from_cpuid((vendor.ebx, vendor.edx, vendor.ecx), __cpuid(1).eax)
}

/// Whether CPUID's vendor words (EBX, EDX, ECX of leaf 0) and signature (EAX of leaf 1)
/// are those of an AMD Zen 1 or Zen+: `AuthenticAMD`, family 23 (0x17), model below
/// 0x30 (Zen 2 is family 23 from model 0x30 on).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
fn zen1_from_cpuid(vendor: (u32, u32, u32), signature: u32) -> bool {
    // "Auth", "enti", "cAMD".
    if vendor != (0x6874_7541, 0x6974_6e65, 0x444d_4163) {
        return false;
    }
    let base_family = (signature >> 8) & 0xf;
    let family = if base_family == 0xf {
        base_family + ((signature >> 20) & 0xff)
    } else {
        base_family
    };
    let model = ((signature >> 4) & 0xf) | (((signature >> 16) & 0xf) << 4);
    family == 0x17 && model < 0x30
}

/// Pixels set in both of two runs of words, word `i` against word `i`: one AND and one
/// popcount a word and nothing else (no rows, no shifts, no set-up), the loop as written
/// for any slice, compiled with `kernel`'s instruction set. The physical limit the row
/// loops are measured against (`benches/words.rs`), exposed through
/// `pixel_collide_support::baseline::contiguous_area`. A build this CPU lacks runs as
/// [`WordKernel::Portable`].
pub(crate) fn contiguous_area(a: &[u64], b: &[u64], kernel: WordKernel) -> u64 {
    with_word_kernel!(
        kernel.runnable(),
        contiguous_area_of(a: &[u64], b: &[u64]) -> u64
    )
}

#[inline(always)]
fn contiguous_area_of(a: &[u64], b: &[u64]) -> u64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| u64::from((x & y).count_ones()))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every `#[target_feature]` function written out in the crate's sources (the kernels
    /// in intrinsics for one build; `with_word_kernel!`'s copies take their build's list
    /// itself) enables only features of the build it belongs to (AVX-512 if it names any
    /// AVX-512 feature, else AVX2 if it names AVX2, else popcnt), which `is_available`
    /// checks before any call; SSE2 and NEON are their targets' baselines. A function that
    /// enabled a feature its build's list lacks would run on a CPU that was never asked
    /// for it.
    #[test]
    fn target_features_stay_within_their_builds() {
        fn sources(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    sources(&path, out);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    out.push(path);
                }
            }
        }
        let mut files = Vec::new();
        sources(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
            &mut files,
        );
        let mut checked = 0;
        for file in &files {
            let text = std::fs::read_to_string(file).unwrap();
            for (n, line) in text.lines().enumerate() {
                let Some(rest) = line.trim().strip_prefix("#[target_feature(enable = \"") else {
                    continue;
                };
                let features: Vec<&str> = rest.split('"').next().unwrap().split(',').collect();
                let build = if features.iter().any(|f| f.starts_with("avx512")) {
                    WordKernel::Avx512
                } else if features.contains(&"avx2") {
                    WordKernel::Avx2
                } else if features.iter().all(|f| ["sse2", "neon"].contains(f)) {
                    continue;
                } else {
                    WordKernel::Popcnt
                };
                for feature in &features {
                    assert!(
                        build.features().contains(feature),
                        "{}:{}: `{feature}` is not in {build:?}'s list {:?}",
                        file.display(),
                        n + 1,
                        build.features()
                    );
                }
                checked += 1;
            }
        }
        assert!(
            checked >= 4,
            "only {checked} target_feature functions found"
        );
    }

    /// Which build this CPU runs, in the test log (`--nocapture`); with
    /// `PIXEL_COLLIDE_EXPECT_BUILD` set (CI does under qemu's CPU models), that one.
    #[test]
    fn the_build_this_cpu_runs() {
        let available: Vec<WordKernel> = WordKernel::ALL
            .into_iter()
            .filter(|k| k.is_available())
            .collect();
        println!(
            "word loops: {:?} (available: {available:?})",
            WordKernel::best()
        );
        assert!(WordKernel::Portable.is_available());
        assert_eq!(available.last(), Some(&WordKernel::best()));
        if let Ok(expected) = std::env::var("PIXEL_COLLIDE_EXPECT_BUILD") {
            assert_eq!(format!("{:?}", WordKernel::best()), expected);
        }
    }

    const AMD: (u32, u32, u32) = (0x6874_7541, 0x6974_6e65, 0x444d_4163);
    const INTEL: (u32, u32, u32) = (0x756e_6547, 0x4965_6e69, 0x6c65_746e);

    /// Signatures (CPUID leaf 1, EAX) of real parts: only Zen 1 and Zen+ shift by
    /// register.
    #[test]
    fn only_zen1_and_zen_plus_are_zen1() {
        assert!(
            zen1_from_cpuid(AMD, 0x0080_0f12),
            "EPYC 7601, Zen 1 (family 23 model 1)"
        );
        assert!(
            zen1_from_cpuid(AMD, 0x0080_0f82),
            "Ryzen 7 2700X, Zen+ (model 8)"
        );
        assert!(
            !zen1_from_cpuid(AMD, 0x0083_0f10),
            "EPYC 7742, Zen 2 (model 0x31)"
        );
        assert!(
            !zen1_from_cpuid(AMD, 0x00a0_0f11),
            "EPYC 7763, Zen 3 (family 25)"
        );
        assert!(!zen1_from_cpuid(AMD, 0x00b0_0f20), "Zen 5 (family 26)");
        assert!(!zen1_from_cpuid(INTEL, 0x0080_0f12), "not AMD");
        assert!(
            !zen1_from_cpuid(INTEL, 0x000a_0671),
            "Intel family 6 model 167"
        );
    }
}
