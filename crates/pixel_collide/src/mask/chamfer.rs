//! The distance field's passes along a row: each pixel at most one more than its
//! neighbour on one side, `row[x] = min(row[x], row[x - 1] + 1)` from left to right (or
//! the mirror from right to left), saturating at 255.
//!
//! Written as that loop, every pixel waits for the one before it (an add and a min a
//! pixel, one chain down the row). Here 16 pixels go at a time as a prefix scan: in the
//! complement `u = 255 - v` the step is `u[x] = max(u[x], u[x - 1] - 1)` (saturating), and
//! four shifted copies of a vector (by 1, 2, 4 and 8 pixels, less 1, 2, 4 and 8) carry
//! every pixel's value across it; only the carry from the vector before is a chain, one
//! max a vector. The complement makes the pixels shifted in zeros, which a max ignores,
//! so the byte shifts of SSE2 and NEON, both part of their targets' baselines, need no
//! fill and no build chosen at run time.
//!
//! The vector passes are the faster on every target measured (the workspace's
//! `benches/README.md`, "Distance field row passes").

/// Pixels a step.
const LANES: usize = 16;

/// The scalar pass, left to right, from `carry`, the value left of `row[0]` (255 where
/// there is none): for the pixels past the last whole vector, and the reference.
#[inline(always)]
fn sweep_right_scalar(row: &mut [u8], mut carry: u8) -> u8 {
    for v in row {
        carry = (*v).min(carry.saturating_add(1));
        *v = carry;
    }
    carry
}

/// The scalar pass, right to left, from `carry`, the value right of the row's last pixel.
#[inline(always)]
fn sweep_left_scalar(row: &mut [u8], mut carry: u8) -> u8 {
    for v in row.iter_mut().rev() {
        carry = (*v).min(carry.saturating_add(1));
        *v = carry;
    }
    carry
}

/// `row[x] = min(row[x], row[x - 1] + 1)` for every pixel from left to right, `row[-1]`
/// being `carry` (255 for none).
pub(super) fn sweep_right(row: &mut [u8], carry: u8) {
    let mut chunks = row.chunks_exact_mut(LANES);
    // SAFETY: the vector build's only feature is its target's baseline (SSE2 on x86-64,
    // NEON on aarch64), which every CPU of the target has.
    #[allow(unsafe_code, unused_unsafe)]
    let carry = unsafe { vector::sweep_right(&mut chunks, carry) };
    sweep_right_scalar(chunks.into_remainder(), carry);
}

/// `row[x] = min(row[x], row[x + 1] + 1)` for every pixel from right to left, the pixel
/// past the last being `carry` (255 for none).
pub(super) fn sweep_left(row: &mut [u8], carry: u8) {
    let mut chunks = row.rchunks_exact_mut(LANES);
    // SAFETY: as in `sweep_right`.
    #[allow(unsafe_code, unused_unsafe)]
    let carry = unsafe { vector::sweep_left(&mut chunks, carry) };
    sweep_left_scalar(chunks.into_remainder(), carry);
}

#[cfg(target_arch = "x86_64")]
mod vector {
    //! SSE2, which every x86-64 has: no build to choose at run time.

    use std::arch::x86_64::*;

    use super::LANES;

    /// `u` with each pixel raised to its neighbour's `S` lanes lower, less `S`.
    #[target_feature(enable = "sse2")]
    #[inline]
    fn up<const S: i32>(u: __m128i) -> __m128i {
        _mm_max_epu8(
            u,
            _mm_subs_epu8(_mm_slli_si128::<S>(u), _mm_set1_epi8(S as i8)),
        )
    }

    /// `u` with each pixel raised to its neighbour's `S` lanes higher, less `S`.
    #[target_feature(enable = "sse2")]
    #[inline]
    fn down<const S: i32>(u: __m128i) -> __m128i {
        _mm_max_epu8(
            u,
            _mm_subs_epu8(_mm_srli_si128::<S>(u), _mm_set1_epi8(S as i8)),
        )
    }

    #[target_feature(enable = "sse2")]
    #[inline]
    fn load(chunk: &[u8]) -> __m128i {
        assert_eq!(chunk.len(), LANES);
        // SAFETY: `chunk` has the 16 bytes read (checked above; the callers' chunks are
        // exact, so the check folds away), and `loadu` takes any alignment.
        #[allow(unsafe_code)]
        unsafe {
            _mm_loadu_si128(chunk.as_ptr().cast())
        }
    }

    #[target_feature(enable = "sse2")]
    #[inline]
    fn store(chunk: &mut [u8], v: __m128i) {
        assert_eq!(chunk.len(), LANES);
        // SAFETY: as in `load`, for the 16 bytes written.
        #[allow(unsafe_code)]
        unsafe {
            _mm_storeu_si128(chunk.as_mut_ptr().cast(), v)
        }
    }

    #[target_feature(enable = "sse2")]
    pub(super) fn sweep_right<'a>(chunks: impl Iterator<Item = &'a mut [u8]>, carry: u8) -> u8 {
        let ones = _mm_set1_epi8(-1);
        let ramp = _mm_setr_epi8(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16);
        let mut c = _mm_set1_epi8(!carry as i8);
        for chunk in chunks {
            let u = _mm_xor_si128(load(chunk), ones);
            let u = up::<8>(up::<4>(up::<2>(up::<1>(u))));
            let u = _mm_max_epu8(u, _mm_subs_epu8(c, ramp));
            store(chunk, _mm_xor_si128(u, ones));
            // The last pixel in every lane: its word doubled, spread over the high
            // words, then the high half over the low.
            let w = _mm_unpackhi_epi8(u, u);
            let w = _mm_shufflehi_epi16::<0xff>(w);
            c = _mm_unpackhi_epi64(w, w);
        }
        !(_mm_cvtsi128_si32(c) as u8)
    }

    #[target_feature(enable = "sse2")]
    pub(super) fn sweep_left<'a>(chunks: impl Iterator<Item = &'a mut [u8]>, carry: u8) -> u8 {
        let ones = _mm_set1_epi8(-1);
        let ramp = _mm_setr_epi8(16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1);
        let mut c = _mm_set1_epi8(!carry as i8);
        for chunk in chunks {
            let u = _mm_xor_si128(load(chunk), ones);
            let u = down::<8>(down::<4>(down::<2>(down::<1>(u))));
            let u = _mm_max_epu8(u, _mm_subs_epu8(c, ramp));
            store(chunk, _mm_xor_si128(u, ones));
            // The first pixel in every lane.
            let w = _mm_unpacklo_epi8(u, u);
            let w = _mm_shufflelo_epi16::<0>(w);
            c = _mm_unpacklo_epi64(w, w);
        }
        !(_mm_cvtsi128_si32(c) as u8)
    }
}

#[cfg(target_arch = "aarch64")]
mod vector {
    //! NEON, which every aarch64 has.

    use std::arch::aarch64::*;

    use super::LANES;

    /// `u` with each pixel raised to the same pixel of `shifted` less `s`.
    #[target_feature(enable = "neon")]
    #[inline]
    fn raise(u: uint8x16_t, shifted: uint8x16_t, s: u8) -> uint8x16_t {
        vmaxq_u8(u, vqsubq_u8(shifted, vdupq_n_u8(s)))
    }

    #[target_feature(enable = "neon")]
    #[inline]
    fn load(chunk: &[u8]) -> uint8x16_t {
        assert_eq!(chunk.len(), LANES);
        // SAFETY: `chunk` has the 16 bytes read (checked above), and `vld1q_u8` takes
        // any alignment.
        #[allow(unsafe_code)]
        unsafe {
            vld1q_u8(chunk.as_ptr())
        }
    }

    #[target_feature(enable = "neon")]
    #[inline]
    fn store(chunk: &mut [u8], v: uint8x16_t) {
        assert_eq!(chunk.len(), LANES);
        // SAFETY: as in `load`, for the 16 bytes written.
        #[allow(unsafe_code)]
        unsafe {
            vst1q_u8(chunk.as_mut_ptr(), v)
        }
    }

    #[target_feature(enable = "neon")]
    pub(super) fn sweep_right<'a>(chunks: impl Iterator<Item = &'a mut [u8]>, carry: u8) -> u8 {
        let zero = vdupq_n_u8(0);
        let ramp: [u8; LANES] = std::array::from_fn(|i| i as u8 + 1);
        let ramp = load(&ramp);
        let mut c = vdupq_n_u8(!carry);
        for chunk in chunks {
            // `vextq_u8` of the zero vector and `u` at 16 - S shifts `u` up by S lanes.
            let u = vmvnq_u8(load(chunk));
            let u = raise(u, vextq_u8::<15>(zero, u), 1);
            let u = raise(u, vextq_u8::<14>(zero, u), 2);
            let u = raise(u, vextq_u8::<12>(zero, u), 4);
            let u = raise(u, vextq_u8::<8>(zero, u), 8);
            let u = vmaxq_u8(u, vqsubq_u8(c, ramp));
            store(chunk, vmvnq_u8(u));
            c = vdupq_laneq_u8::<15>(u);
        }
        !vgetq_lane_u8::<0>(c)
    }

    #[target_feature(enable = "neon")]
    pub(super) fn sweep_left<'a>(chunks: impl Iterator<Item = &'a mut [u8]>, carry: u8) -> u8 {
        let zero = vdupq_n_u8(0);
        let ramp: [u8; LANES] = std::array::from_fn(|i| (LANES - i) as u8);
        let ramp = load(&ramp);
        let mut c = vdupq_n_u8(!carry);
        for chunk in chunks {
            // `vextq_u8` of `u` and the zero vector at S shifts `u` down by S lanes.
            let u = vmvnq_u8(load(chunk));
            let u = raise(u, vextq_u8::<1>(u, zero), 1);
            let u = raise(u, vextq_u8::<2>(u, zero), 2);
            let u = raise(u, vextq_u8::<4>(u, zero), 4);
            let u = raise(u, vextq_u8::<8>(u, zero), 8);
            let u = vmaxq_u8(u, vqsubq_u8(c, ramp));
            store(chunk, vmvnq_u8(u));
            c = vdupq_laneq_u8::<0>(u);
        }
        !vgetq_lane_u8::<0>(c)
    }
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
mod vector {
    //! Other targets: the scalar passes over the whole chunks.

    pub(super) fn sweep_right<'a>(chunks: impl Iterator<Item = &'a mut [u8]>, mut carry: u8) -> u8 {
        for chunk in chunks {
            carry = super::sweep_right_scalar(chunk, carry);
        }
        carry
    }

    pub(super) fn sweep_left<'a>(chunks: impl Iterator<Item = &'a mut [u8]>, mut carry: u8) -> u8 {
        for chunk in chunks {
            carry = super::sweep_left_scalar(chunk, carry);
        }
        carry
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pixel_collide_seeded::rng::SplitMix64;

    /// Rows of every length up to a few vectors, with values from all of 0..=255 or from
    /// near runs (where the passes change most), against the scalar passes.
    #[test]
    fn vector_passes_equal_the_scalar_ones() {
        let mut rng = SplitMix64(7);
        for len in 0..=70 {
            for round in 0..40 {
                let row: Vec<u8> = (0..len)
                    .map(|_| match round % 3 {
                        0 => rng.next_u64() as u8,
                        1 => [0, 1, 2, 254, 255][(rng.next_u64() % 5) as usize],
                        _ => 200 + (rng.next_u64() % 56) as u8,
                    })
                    .collect();
                let carry = match round % 4 {
                    0 => u8::MAX,
                    1 => 0,
                    _ => rng.next_u64() as u8,
                };
                let (mut right, mut expected) = (row.clone(), row.clone());
                sweep_right(&mut right, carry);
                sweep_right_scalar(&mut expected, carry);
                assert_eq!(right, expected, "right, {row:?} from {carry}");
                let (mut left, mut expected) = (row.clone(), row.clone());
                sweep_left(&mut left, carry);
                sweep_left_scalar(&mut expected, carry);
                assert_eq!(left, expected, "left, {row:?} from {carry}");
            }
        }
    }

    /// A single low pixel spreads across vectors in both directions, up to 255.
    #[test]
    fn a_seed_reaches_across_every_vector() {
        let mut row = vec![u8::MAX; 300];
        row[17] = 0;
        sweep_right(&mut row, u8::MAX);
        sweep_left(&mut row, u8::MAX);
        let expected: Vec<u8> = (0..300)
            .map(|x: i32| (x - 17).abs().min(255) as u8)
            .collect();
        assert_eq!(row, expected);
    }
}
