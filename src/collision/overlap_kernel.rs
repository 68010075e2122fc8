//! The word loops of axis-aligned overlap, built once per instruction set and chosen at
//! run time. The default x86-64 target has neither a popcount instruction nor 256-bit
//! vectors, yet the game and library must run on any x86-64 (and on aarch64), so the
//! fast builds are `#[target_feature]` functions entered only after checking the CPU.
//!
//! Every loop takes one row of an overlap: `a`, A's words, and `b`, B's words under the
//! same pixels plus one more, so that A's word `i` meets
//! `b[i] >> shift | b[i + 1] << (64 - shift)`. Rows are at most a few dozen words, so the
//! loops keep their set-up small: no per-row horizontal sums, no per-word branches.

use std::sync::OnceLock;

/// Which build of the overlap word loops to run. [`WordKernel::best`] picks the fastest
/// one this CPU has; the others exist so that tests and benches can force each one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WordKernel {
    /// Plain Rust, for any target: on baseline x86-64 its `count_ones` is a dozen
    /// instructions, on aarch64 it is NEON's `cnt`.
    Portable,
    /// x86-64 with the `popcnt` instruction: one word per step, or for shifted rows two,
    /// shifted in SSE2 vectors (part of every x86-64).
    Popcnt,
    /// x86-64 with AVX2 (and BMI1, BMI2, LZCNT and `popcnt`, which every AVX2 CPU has, for
    /// narrow rows and the mask edits): four words per step, counted by a nibble lookup and summed across
    /// rows in vector lanes.
    Avx2,
    /// x86-64 with AVX-512's 64-bit popcount (VPOPCNTDQ) and funnel shift (VBMI2), and
    /// everything [`WordKernel::Avx2`] needs: eight words per step in four instructions
    /// (five when shifted), the row's last words by a masked load.
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

/// B's 64 bits under one A word, from B's word there (`low`) and the next (`high`).
/// `SHIFTED` is fixed per overlap, so word-aligned offsets pay for no shifting at all, and
/// shifted ones use two plain shifts rather than a funnel shift, `shrd`, which is slow on
/// AMD cores (README, Performance, has the figures).
#[inline(always)]
fn b_bits<const SHIFTED: bool>(low: u64, high: u64, shift: u32) -> u64 {
    if SHIFTED {
        (low >> shift) | (high << (64 - shift))
    } else {
        low
    }
}

/// A's words with B's two words under each, zipped so the loop has no bounds checks.
#[inline(always)]
pub(crate) fn triples<'r>(
    a: &'r [u64],
    b: &'r [u64],
) -> impl Iterator<Item = (u64, u64, u64)> + 'r {
    let n = a.len();
    a.iter()
        .zip(&b[..n])
        .zip(&b[1..=n])
        .map(|((&a, &low), &high)| (a, low, high))
}

/// Pixels set in both, over one row.
#[inline(always)]
pub(crate) fn area_row<const SHIFTED: bool>(a: &[u64], b: &[u64], shift: u32) -> u64 {
    triples(a, b)
        .map(|(a, low, high)| u64::from((a & b_bits::<SHIFTED>(low, high, shift)).count_ones()))
        .sum()
}

/// The first word of the row where the masks meet, with the bits they share. One test
/// per row: a row that misses (every row of a miss) costs no per-word branch.
#[inline(always)]
pub(crate) fn first_hit_row<const SHIFTED: bool>(
    a: &[u64],
    b: &[u64],
    shift: u32,
) -> Option<(usize, u64)> {
    let both = |(a, low, high)| a & b_bits::<SHIFTED>(low, high, shift);
    if triples(a, b).fold(0, |any, t| any | both(t)) == 0 {
        return None;
    }
    triples(a, b)
        .map(both)
        .enumerate()
        .find(|&(_, bits)| bits != 0)
}

#[cfg(target_arch = "x86_64")]
pub(crate) mod sse2 {
    use std::arch::x86_64::*;

    /// Two words as one vector.
    #[inline]
    #[target_feature(enable = "sse2")]
    fn load(words: &[u64]) -> __m128i {
        let words = &words[..2];
        // SAFETY: an unaligned load of 16 bytes from a slice of 2 words (SSE2 is part
        // of every x86-64).
        #[allow(unsafe_code)]
        unsafe {
            _mm_loadu_si128(words.as_ptr().cast())
        }
    }

    /// [`super::area_row`] of a shifted row for the popcnt build, two words a step: B's
    /// words are shifted in SSE2 vectors, whose shifts take their count from a vector
    /// register, and only the counting is scalar. Scalar shifts without BMI2 take their
    /// count in `cl`, one register for both counts of a word (`shift` and `64 - shift`),
    /// which made a shifted word 10 instructions against 5 aligned. The two counted words
    /// leave the vector through a stack slot that `popcnt` reads from memory: moving them
    /// into scalar registers (`movq`, `punpckhqdq`, `movq`) took three operations where
    /// this takes one, and the shifted loop 12% longer at 2,048 px.
    #[inline]
    #[target_feature(enable = "sse2,popcnt")]
    pub(crate) fn shifted_area_row(a: &[u64], b: &[u64], shift: u32) -> u64 {
        let n = a.len();
        let right = _mm_cvtsi32_si128(shift as i32);
        let left = _mm_cvtsi32_si128(64 - shift as i32);
        let (a2, a_rest) = a.as_chunks::<2>();
        let (low2, _) = b[..n].as_chunks::<2>();
        let (high2, _) = b[1..=n].as_chunks::<2>();
        let mut area = 0;
        for ((a, low), high) in a2.iter().zip(low2).zip(high2) {
            let b = _mm_or_si128(
                _mm_srl_epi64(load(low), right),
                _mm_sll_epi64(load(high), left),
            );
            let both = _mm_and_si128(load(a), b);
            let mut pair = [0u64; 2];
            // SAFETY: a 16-byte unaligned store into a 16-byte array.
            #[allow(unsafe_code)]
            unsafe {
                _mm_storeu_si128(pair.as_mut_ptr().cast(), both)
            };
            area += u64::from(pair[0].count_ones() + pair[1].count_ones());
        }
        if let [a] = a_rest {
            area += u64::from((a & super::b_bits::<true>(b[n - 1], b[n], shift)).count_ones());
        }
        area
    }
}

#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2 {
    use std::arch::x86_64::*;

    /// Four words as one vector. (Building it from the four words instead, without
    /// `unsafe`, lets LLVM merge the overlapping loads of B's low and high words into a
    /// dozen shuffles.)
    #[inline]
    #[target_feature(enable = "avx2")]
    fn load(words: &[u64]) -> __m256i {
        let words = &words[..4];
        // SAFETY: an unaligned load of 32 bytes from a slice of 4 words.
        #[allow(unsafe_code)]
        unsafe {
            _mm256_loadu_si256(words.as_ptr().cast())
        }
    }

    /// Per byte, its number of set bits (0 to 8): a 16-entry lookup per nibble
    /// (`vpshufb`).
    #[inline]
    #[target_feature(enable = "avx2")]
    fn popcount_bytes(v: __m256i) -> __m256i {
        let table = _mm256_setr_epi8(
            0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, //
            0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4,
        );
        let nibble = _mm256_set1_epi8(0x0f);
        let low = _mm256_and_si256(v, nibble);
        let high = _mm256_and_si256(_mm256_srli_epi16::<4>(v), nibble);
        _mm256_add_epi8(
            _mm256_shuffle_epi8(table, low),
            _mm256_shuffle_epi8(table, high),
        )
    }

    /// Adds the byte counts of `bytes` to the 64-bit lanes of `acc` (`vpsadbw` adds each
    /// lane's 8 bytes).
    #[inline]
    #[target_feature(enable = "avx2")]
    fn add_bytes(acc: &mut __m256i, bytes: __m256i) {
        *acc = _mm256_add_epi64(*acc, _mm256_sad_epu8(bytes, _mm256_setzero_si256()));
    }

    /// The sum of the four lanes of `acc`.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(crate) fn sum_lanes(acc: __m256i) -> u64 {
        let pair = _mm_add_epi64(
            _mm256_castsi256_si128(acc),
            _mm256_extracti128_si256::<1>(acc),
        );
        (_mm_cvtsi128_si64(pair) + _mm_extract_epi64::<1>(pair)) as u64
    }

    /// Lanes to count of the vector that ends a row of `n` words (at least 4): the
    /// last `n % 4`, or all four when `n` is a multiple of 4.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(crate) fn tail_lanes(n: usize) -> __m256i {
        let fresh = match n % 4 {
            0 => 4,
            r => r as i64,
        };
        // Lane i (0..4) is fresh when i >= 4 - fresh.
        _mm256_cmpgt_epi64(
            _mm256_setr_epi64x(0, 1, 2, 3),
            _mm256_set1_epi64x(3 - fresh),
        )
    }

    /// [`super::area_row`] four words at a time, for rows of at least 4 words: adds the
    /// counts to the lanes of `acc`, which are summed once per overlap, not per row. A
    /// row of `4q + r` words ends with the vector of its last 4 words, of which the
    /// lanes in `tail` (from [`tail_lanes`]) are counted: no scalar loop for the rest.
    /// Within a row the counts are added up per byte (`vpaddb`) and turned into lane
    /// sums (`vpsadbw`, `vpaddq`) once per row: 8 vector operations a step instead of 9
    /// (benches/README.md has the figures).
    #[inline]
    #[target_feature(enable = "avx2,popcnt")]
    pub(crate) fn area_row<const SHIFTED: bool>(
        acc: &mut __m256i,
        a: &[u64],
        b: &[u64],
        shift: u32,
        tail: __m256i,
    ) {
        let n = a.len();
        // Shifts by a count per lane (`vpsrlvq`), though every lane has the same one: on
        // Intel cores the shift by one count in a vector register (`vpsrlq ymm, xmm`) is
        // two operations, one of them on the port the nibble lookups need. Same speed on
        // AMD; on an Intel Xeon the shifted loop at 2,048 px took 0.33 ns a word with the
        // other, 0.30 with this (benches/README.md).
        let right = _mm256_set1_epi64x(i64::from(shift));
        let left = _mm256_set1_epi64x(64 - i64::from(shift));
        let both = |a: &[u64], low: &[u64], high: &[u64]| {
            let b = if SHIFTED {
                _mm256_or_si256(
                    _mm256_srlv_epi64(load(low), right),
                    _mm256_sllv_epi64(load(high), left),
                )
            } else {
                load(low)
            };
            _mm256_and_si256(load(a), b)
        };
        // The row's last 4 words (n >= 4) first, then the steps before them.
        let (a_end, low_end, high_end) = (&a[n - 4..], &b[n - 4..n], &b[n - 3..=n]);
        let fresh = _mm256_and_si256(both(a_end, low_end, high_end), tail);
        // Byte counts, added up over the row in bytes and summed into `acc` once per row
        // (or every 31 vectors, before a byte can pass 255 = 31 x 8 + 7).
        let mut bytes = popcount_bytes(fresh);
        let mut room = 30;
        let (a4, _) = a[..n - 1].as_chunks::<4>();
        let (low4, _) = b[..n - 1].as_chunks::<4>();
        let (high4, _) = b[1..n].as_chunks::<4>();
        for ((a, low), high) in a4.iter().zip(low4).zip(high4) {
            if room == 0 {
                add_bytes(acc, bytes);
                bytes = _mm256_setzero_si256();
                room = 31;
            }
            bytes = _mm256_add_epi8(bytes, popcount_bytes(both(a, low, high)));
            room -= 1;
        }
        add_bytes(acc, bytes);
    }
}

#[cfg(target_arch = "x86_64")]
pub(crate) mod avx512 {
    use std::arch::x86_64::*;

    /// [`super::area_row`] eight words at a time, adding to the lanes of `acc` (summed
    /// once per overlap). The last `n % 8` words are read by masked loads, which touch
    /// only the lanes inside the row.
    #[inline]
    #[target_feature(enable = "avx512f,avx512vpopcntdq,avx512vbmi2")]
    pub(crate) fn area_row<const SHIFTED: bool>(
        acc: &mut __m512i,
        a: &[u64],
        b: &[u64],
        shift: u32,
    ) {
        let n = a.len();
        if SHIFTED && n >= 16 {
            return shifted_row(acc, a, b, shift);
        }
        let (a, low, high) = (a, &b[..n], &b[1..=n]);
        let shift = _mm512_set1_epi64(i64::from(shift));
        let both = |a: __m512i, low: __m512i, high: __m512i| {
            let b = if SHIFTED {
                // Per lane, the low 64 bits of (high:low) >> shift: one instruction.
                _mm512_shrdv_epi64(low, high, shift)
            } else {
                low
            };
            _mm512_and_si512(a, b)
        };
        let whole = n / 8 * 8;
        for i in (0..whole).step_by(8) {
            let (a, low, high) = (&a[i..i + 8], &low[i..i + 8], &high[i..i + 8]);
            // SAFETY: each load reads the 8 words of a slice of 8 words.
            #[allow(unsafe_code)]
            let (a, low, high) = unsafe {
                (
                    _mm512_loadu_epi64(a.as_ptr().cast()),
                    _mm512_loadu_epi64(low.as_ptr().cast()),
                    if SHIFTED {
                        _mm512_loadu_epi64(high.as_ptr().cast())
                    } else {
                        _mm512_setzero_si512()
                    },
                )
            };
            *acc = _mm512_add_epi64(*acc, _mm512_popcnt_epi64(both(a, low, high)));
        }
        let rest = n - whole;
        if rest == 0 {
            return;
        }
        let lanes: __mmask8 = (1u8 << rest).wrapping_sub(1);
        let (a, low, high) = (&a[whole..], &low[whole..], &high[whole..]);
        // SAFETY: the mask selects the first `rest` lanes, and each slice holds `rest`
        // words; masked-off lanes are not read (nor can they fault).
        #[allow(unsafe_code)]
        let (a, low, high) = unsafe {
            (
                _mm512_maskz_loadu_epi64(lanes, a.as_ptr().cast()),
                _mm512_maskz_loadu_epi64(lanes, low.as_ptr().cast()),
                if SHIFTED {
                    _mm512_maskz_loadu_epi64(lanes, high.as_ptr().cast())
                } else {
                    _mm512_setzero_si512()
                },
            )
        };
        *acc = _mm512_add_epi64(*acc, _mm512_popcnt_epi64(both(a, low, high)));
    }

    /// [`area_row`] for a shifted row of at least 16 words, loading each of B's words
    /// once: the vector of B's next 8 words, loaded for the next step anyway, gives this
    /// step's high words by `valignq`. (A separate function rather than a branch inside
    /// [`area_row`]: that branch made LLVM lose the slice lengths of the 8-word rows of
    /// 512 px masks, which then took 60% longer.)
    ///
    /// Loading B's high words on their own, one word on from its low words, costs a third
    /// load per step, and every one of these unaligned 64-byte loads crosses a cache line:
    /// at 2,048 px, where the masks come from L2, that made the shifted loop 1.4 times the
    /// aligned one per word.
    #[inline]
    #[target_feature(enable = "avx512f,avx512vpopcntdq,avx512vbmi2")]
    fn shifted_row(acc: &mut __m512i, a: &[u64], b: &[u64], shift: u32) {
        let n = a.len();
        let shift = _mm512_set1_epi64(i64::from(shift));
        let load = |words: &[u64]| {
            let words = &words[..8];
            // SAFETY: an unaligned load of the 8 words of a slice of 8 words.
            #[allow(unsafe_code)]
            unsafe {
                _mm512_loadu_epi64(words.as_ptr().cast())
            }
        };
        // The first `rest` words of a slice of at least `rest`, the other lanes zero.
        let load_first = |words: &[u64], rest: usize| {
            let words = &words[..rest];
            let lanes: __mmask8 = (1u8 << rest).wrapping_sub(1);
            // SAFETY: the mask selects the first `rest` lanes (at most 7), and the slice
            // holds `rest` words; masked-off lanes are not read (nor can they fault).
            #[allow(unsafe_code)]
            unsafe {
                _mm512_maskz_loadu_epi64(lanes, words.as_ptr().cast())
            }
        };
        let count = |acc: &mut __m512i, a: __m512i, low: __m512i, high: __m512i| {
            let bits = _mm512_and_si512(a, _mm512_shrdv_epi64(low, high, shift));
            *acc = _mm512_add_epi64(*acc, _mm512_popcnt_epi64(bits));
        };
        // A step at word i reads B's words up to i + 15, of the n + 1 in `b`.
        let steps = (n + 1 - 8) / 8;
        let mut low = load(b);
        let (a8, _) = a[..steps * 8].as_chunks::<8>();
        let (next8, _) = b[8..(steps + 1) * 8].as_chunks::<8>();
        for (a, next) in a8.iter().zip(next8) {
            let next = load(next);
            count(acc, load(a), low, _mm512_alignr_epi64::<1>(next, low));
            low = next;
        }
        // 7 to 14 words left; `low` holds B's 8 words from `done`.
        let mut done = steps * 8;
        if n - done >= 8 {
            count(acc, load(&a[done..]), low, load(&b[done + 1..]));
            done += 8;
            low = load_first(&b[done..], n - done);
        }
        let rest = n - done;
        if rest > 0 {
            // A's lanes past the row are zero, so B's there do not count.
            let high = load_first(&b[done + 1..], rest);
            count(acc, load_first(&a[done..], rest), low, high);
        }
    }

    /// The sum of the eight lanes of `acc`.
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(crate) fn sum_lanes(acc: __m512i) -> u64 {
        _mm512_reduce_add_epi64(acc) as u64
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
