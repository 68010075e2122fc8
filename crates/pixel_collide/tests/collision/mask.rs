//! `BitMask` against a brute-force reference: one `bool` per pixel, checked pixel by pixel.
//! Widths run 1..=130 so rows cross one and two word boundaries; offsets are negative,
//! partial and far apart.

use bevy_math::{Affine2, Vec2};
use pixel_collide::{BitMask, MaskError, MaskLimits, MaskRect, WordKernel};
use pixel_collide_support::baseline::contiguous_area;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed, TestCaseError};

/// A mask and the plain pixels it should hold.
#[derive(Debug, Clone)]
struct Reference {
    width: u32,
    height: u32,
    pixels: Vec<bool>,
}

impl Reference {
    fn get(&self, x: i64, y: i64) -> bool {
        x >= 0
            && y >= 0
            && x < i64::from(self.width)
            && y < i64::from(self.height)
            && self.pixels[(y * i64::from(self.width) + x) as usize]
    }

    fn mask(&self) -> BitMask {
        let mut m = BitMask::new(self.width, self.height);
        for y in 0..self.height {
            for x in 0..self.width {
                m.set(i64::from(x), i64::from(y), self.get(x.into(), y.into()));
            }
        }
        m
    }

    fn overlap_pixels(&self, other: &Reference, (dx, dy): (i32, i32)) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        for y in 0..self.height {
            for x in 0..self.width {
                let (bx, by) = (i64::from(x) - i64::from(dx), i64::from(y) - i64::from(dy));
                if self.get(x.into(), y.into()) && other.get(bx, by) {
                    out.push((x, y));
                }
            }
        }
        out
    }
}

/// `overlap_area`, `overlap` and `overlap_mask` of the two masks against the pixels.
fn overlaps_match(a: &Reference, b: &Reference, offset: (i32, i32)) -> Result<(), TestCaseError> {
    let (ma, mb) = (a.mask(), b.mask());
    let expected = a.overlap_pixels(b, offset);
    prop_assert_eq!(ma.overlap_area(&mb, offset), expected.len() as u64);
    // The first hit in row-major order: row first, then column.
    let first = expected.iter().min_by_key(|&&(x, y)| (y, x)).copied();
    prop_assert_eq!(ma.overlap(&mb, offset), first);
    // Every build of the word loops this CPU can run, not only the one it picks, and the
    // AVX2 one with both forms of its shifts.
    for kernel in WordKernel::ALL.into_iter().filter(|k| k.is_available()) {
        let forms: &[Option<bool>] = match kernel {
            WordKernel::Avx2 => &[Some(false), Some(true)],
            _ => &[None],
        };
        for &by_register in forms {
            WordKernel::force_avx2_shifts_by_register(by_register);
            let area = ma.overlap_area_using(&mb, offset, kernel);
            let hit = ma.overlap_using(&mb, offset, kernel);
            WordKernel::force_avx2_shifts_by_register(None);
            prop_assert_eq!(
                area,
                expected.len() as u64,
                "{:?}, by register {:?}",
                kernel,
                by_register
            );
            prop_assert_eq!(hit, first, "{:?}, by register {:?}", kernel, by_register);
        }
    }
    let overlap_mask = ma.overlap_mask(&mb, offset);
    prop_assert_eq!(overlap_mask.count(), expected.len() as u64);
    for &(x, y) in &expected {
        prop_assert!(overlap_mask.get(x.into(), y.into()));
    }
    Ok(())
}

fn reference(max_side: u32) -> impl Strategy<Value = Reference> {
    (1..=max_side, 1..=max_side.min(40), 0.0f64..=1.0).prop_flat_map(|(w, h, density)| {
        proptest::collection::vec(proptest::bool::weighted(density), (w * h) as usize).prop_map(
            move |pixels| Reference {
                width: w,
                height: h,
                pixels,
            },
        )
    })
}

fn config() -> Config {
    Config {
        cases: 256,
        rng_seed: RngSeed::Fixed(0x5eed_0001),
        failure_persistence: None,
        ..Config::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn overlap_matches_brute_force(
        a in reference(130),
        b in reference(130),
        dx in -140i32..140,
        dy in -45i32..45,
    ) {
        overlaps_match(&a, &b, (dx, dy))?;
    }

    #[test]
    fn queries_match_brute_force(a in reference(130)) {
        let m = a.mask();
        let set: Vec<(u32, u32)> = (0..a.height)
            .flat_map(|y| (0..a.width).map(move |x| (x, y)))
            .filter(|&(x, y)| a.get(x.into(), y.into()))
            .collect();
        prop_assert_eq!(m.count(), set.len() as u64);

        let rect = (!set.is_empty()).then(|| {
            let (x0, x1) = (set.iter().map(|p| p.0).min().unwrap(), set.iter().map(|p| p.0).max().unwrap());
            let (y0, y1) = (set.iter().map(|p| p.1).min().unwrap(), set.iter().map(|p| p.1).max().unwrap());
            MaskRect { x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1 }
        });
        prop_assert_eq!(m.bounding_rect(), rect);

        let centroid = m.centroid();
        if set.is_empty() {
            prop_assert!(centroid.is_none());
        } else {
            let n = set.len() as f64;
            let cx = set.iter().map(|p| f64::from(p.0)).sum::<f64>() / n;
            let cy = set.iter().map(|p| f64::from(p.1)).sum::<f64>() / n;
            let (gx, gy) = centroid.unwrap();
            prop_assert!((gx - cx).abs() < 1e-9 && (gy - cy).abs() < 1e-9);
        }

        let outline: Vec<(u32, u32)> = set
            .iter()
            .copied()
            .filter(|&(x, y)| {
                let (x, y) = (i64::from(x), i64::from(y));
                !(a.get(x - 1, y) && a.get(x + 1, y) && a.get(x, y - 1) && a.get(x, y + 1))
            })
            .collect();
        prop_assert_eq!(m.outline(), outline);

        let mut inverted = m.clone();
        inverted.invert();
        prop_assert_eq!(inverted.count(), u64::from(a.width * a.height) - set.len() as u64);
        for &(x, y) in &set {
            prop_assert!(!inverted.get(x.into(), y.into()));
        }
        inverted.invert();
        prop_assert_eq!(&inverted, &m);
    }

    #[test]
    fn draw_matches_brute_force(
        a in reference(130),
        b in reference(130),
        dx in -140i32..140,
        dy in -45i32..45,
    ) {
        let mut drawn = a.mask();
        drawn.draw(&b.mask(), (dx, dy));
        for y in 0..a.height {
            for x in 0..a.width {
                let (x, y) = (i64::from(x), i64::from(y));
                let expected = a.get(x, y) || b.get(x - i64::from(dx), y - i64::from(dy));
                prop_assert_eq!(drawn.get(x, y), expected);
            }
        }
        // Padding bits stay clear, so the count is only of pixels inside.
        prop_assert!(drawn.count() <= u64::from(a.width * a.height));
    }

    #[test]
    fn scale_samples_nearest_center(a in reference(70), w in 1u32..140, h in 1u32..60) {
        let scaled = a.mask().scale(w, h).unwrap();
        prop_assert_eq!(scaled.size(), (w, h));
        for y in 0..h {
            for x in 0..w {
                let sx = ((f64::from(x) + 0.5) * f64::from(a.width) / f64::from(w)).floor();
                let sy = ((f64::from(y) + 0.5) * f64::from(a.height) / f64::from(h)).floor();
                prop_assert_eq!(scaled.get(x.into(), y.into()), a.get(sx as i64, sy as i64));
            }
        }
    }

    #[test]
    fn rgba_threshold_sets_bits_above_it(
        w in 1u32..130,
        h in 1u32..8,
        threshold in any::<u8>(),
        seed in any::<u64>(),
    ) {
        let mut state = seed | 1;
        let rgba: Vec<u8> = (0..w * h * 4)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state as u8
            })
            .collect();
        let m = BitMask::from_rgba8(w, h, &rgba, threshold).unwrap();
        for y in 0..h {
            for x in 0..w {
                let alpha = rgba[((y * w + x) * 4 + 3) as usize];
                prop_assert_eq!(m.get(x.into(), y.into()), alpha > threshold);
            }
        }
    }
}

/// Wide, short masks with a few runs of set pixels: overlaps more than four words wide take
/// the per-row clipping paths (occupancy bits up to 64 words, spans beyond).
fn wide_reference() -> impl Strategy<Value = Reference> {
    (
        250u32..=4300,
        1u32..=4,
        proptest::collection::vec((0u32..4300, 1u32..700, 0u32..4), 1..12),
    )
        .prop_map(|(w, h, runs)| {
            let mut pixels = vec![false; (w * h) as usize];
            for (start, len, row) in runs {
                let y = row % h;
                for x in start.min(w)..(start + len).min(w) {
                    pixels[(y * w + x) as usize] = true;
                }
            }
            Reference {
                width: w,
                height: h,
                pixels,
            }
        })
}

proptest! {
    #![proptest_config(Config { cases: 512, ..config() })]

    #[test]
    fn wide_overlap_matches_brute_force(
        a in wide_reference(),
        b in wide_reference(),
        shift in -1.0f64..1.0,
        dy in -2i32..2,
    ) {
        // Offsets up to either width, so most cases overlap over many words.
        let dx = (shift * f64::from(a.width.max(b.width))) as i32;
        overlaps_match(&a, &b, (dx, dy))?;
    }
}

/// Offsets that cross word boundaries, and some word-aligned ones, which take their own
/// loops (no shifting).
fn offset_x(reach: i32) -> impl Strategy<Value = i32> {
    prop_oneof![
        3 => -reach..reach,
        1 => (-(reach / 64)..=reach / 64).prop_map(|k| k * 64),
    ]
}

proptest! {
    #![proptest_config(config())]

    /// Overlaps 1 to 7 words wide: the fixed-width small loops and the vector loops with
    /// every remainder of words past a whole vector.
    #[test]
    fn multi_word_overlap_matches_brute_force(
        a in reference(420),
        b in reference(420),
        dx in offset_x(430),
        dy in -45i32..45,
    ) {
        overlaps_match(&a, &b, (dx, dy))?;
    }

    #[test]
    fn narrow_overlap_matches_brute_force(
        a in reference(130),
        b in reference(130),
        dx in offset_x(140),
        dy in -45i32..45,
    ) {
        overlaps_match(&a, &b, (dx, dy))?;
    }
}

#[test]
fn every_kernel_the_cpu_has_is_available() {
    assert!(WordKernel::Portable.is_available());
    assert!(WordKernel::best().is_available());
    #[cfg(target_arch = "x86_64")]
    {
        let popcnt = std::arch::is_x86_feature_detected!("popcnt");
        let avx2 = std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("bmi1")
            && std::arch::is_x86_feature_detected!("bmi2");
        assert_eq!(WordKernel::Popcnt.is_available(), popcnt);
        assert_eq!(WordKernel::Avx2.is_available(), avx2 && popcnt);
        let avx512 = std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512vpopcntdq")
            && std::arch::is_x86_feature_detected!("avx512vbmi2");
        assert_eq!(WordKernel::Avx512.is_available(), avx512 && avx2 && popcnt);
    }
    #[cfg(not(target_arch = "x86_64"))]
    assert_eq!(WordKernel::best(), WordKernel::Portable);
}

#[test]
fn wrong_buffer_length_is_an_error() {
    let err = BitMask::from_rgba8(4, 4, &[255; 63], 0).unwrap_err();
    assert_eq!(
        err,
        MaskError::BufferSize {
            width: 4,
            height: 4,
            expected: 64,
            actual: 63
        }
    );
    assert!(err.to_string().contains("64 bytes"));
    assert!(BitMask::from_rgba8(u32::MAX, u32::MAX, &[], 0).is_err());
    assert!(BitMask::try_new(u32::MAX, u32::MAX).is_err());
}

#[test]
fn zero_size_masks_never_overlap() {
    let full = BitMask::solid(8, 8).unwrap();
    for empty in [BitMask::new(0, 0), BitMask::new(0, 5), BitMask::new(5, 0)] {
        assert_eq!(empty.count(), 0);
        assert_eq!(empty.overlap(&full, (0, 0)), None);
        assert_eq!(full.overlap(&empty, (0, 0)), None);
        assert_eq!(full.overlap_area(&empty, (2, 2)), 0);
        assert_eq!(empty.bounding_rect(), None);
        assert_eq!(empty.centroid(), None);
        assert!(empty.outline().is_empty());
        let mut e = empty.clone();
        e.fill();
        e.invert();
        assert_eq!(e.count(), 0);
        assert_eq!(empty.scale(3, 3).unwrap().count(), 0);
    }
    assert_eq!(BitMask::from_rgba8(0, 7, &[], 0).unwrap().count(), 0);
}

#[test]
fn extreme_offsets_are_misses_not_panics() {
    let a = BitMask::solid(130, 20).unwrap();
    let b = BitMask::solid(70, 9).unwrap();
    for dx in [
        i32::MIN,
        i32::MIN + 1,
        -1_000_000,
        1_000_000,
        i32::MAX - 1,
        i32::MAX,
    ] {
        for dy in [i32::MIN, 0, i32::MAX] {
            assert_eq!(a.overlap(&b, (dx, dy)), None);
            assert_eq!(a.overlap_area(&b, (dx, dy)), 0);
            assert_eq!(b.overlap_area(&a, (dx, dy)), 0);
            assert_eq!(a.overlap_mask(&b, (dx, dy)).count(), 0);
        }
    }
    assert!(!a.get(i64::MIN, i64::MAX));
}

#[test]
fn fill_sets_only_pixels_inside() {
    for w in [1, 63, 64, 65, 128, 130] {
        let m = BitMask::solid(w, 3).unwrap();
        assert_eq!(m.count(), u64::from(w) * 3);
        assert!(!m.get(i64::from(w), 0));
    }
}

#[test]
fn from_image_reads_alpha() {
    let mut img = image::RgbaImage::new(3, 2);
    img.put_pixel(1, 1, image::Rgba([0, 0, 0, 200]));
    img.put_pixel(2, 0, image::Rgba([9, 9, 9, 100]));
    let m = BitMask::from_image(&img, 127);
    assert!(m.get(1, 1));
    assert!(!m.get(2, 0));
    assert_eq!(BitMask::from_image(&img, 0).count(), 2);
}

/// Set where the distance from the center of a `side`-pixel square is in `inner..outer`:
/// a ring, or a disc when `inner` is 0.
fn annulus(side: u32, inner: f64, outer: f64) -> Reference {
    let c = f64::from(side) / 2.0;
    let pixels = (0..side * side)
        .map(|p| {
            let (x, y) = (f64::from(p % side) + 0.5 - c, f64::from(p / side) + 0.5 - c);
            (inner..outer).contains(&x.hypot(y))
        })
        .collect();
    Reference {
        width: side,
        height: side,
        pixels,
    }
}

proptest! {
    #![proptest_config(Config { cases: 300, ..config() })]

    /// A disc in (or reaching out of) a ring's hole, either way round: overlaps this tall
    /// first try to prove one mask clear over the whole region with one distance lookup.
    #[test]
    fn disc_in_a_ring_hole_matches_brute_force(
        diameter in 32u32..=90,
        dx in -30i32..30, dy in -30i32..30,
        ring_first in any::<bool>(),
    ) {
        let ring = annulus(140, 50.0, 68.0);
        let disc = annulus(diameter, 0.0, f64::from(diameter) / 2.0);
        let centered = ((140 - diameter as i32) / 2 + dx, (140 - diameter as i32) / 2 + dy);
        let (a, b, offset) = if ring_first {
            (&ring, &disc, centered)
        } else {
            (&disc, &ring, (-centered.0, -centered.1))
        };
        overlaps_match(a, b, offset)?;
    }
}

proptest! {
    #![proptest_config(config())]

    /// The bounding circle holds every set pixel whole, and no smaller circle about the
    /// same center would: some set pixel's corner lies on it.
    #[test]
    fn bounding_circle_is_tight(a in reference(130)) {
        let m = a.mask();
        let Some((cx, cy, r)) = m.bounding_circle() else {
            prop_assert_eq!(m.count(), 0);
            return Ok(());
        };
        let rect = m.bounding_rect().unwrap();
        prop_assert_eq!(cx, f64::from(rect.x) + f64::from(rect.width) / 2.0);
        prop_assert_eq!(cy, f64::from(rect.y) + f64::from(rect.height) / 2.0);
        let mut farthest = 0.0f64;
        for y in 0..a.height {
            for x in 0..a.width {
                if a.get(x.into(), y.into()) {
                    for (px, py) in [(x, y), (x + 1, y), (x, y + 1), (x + 1, y + 1)] {
                        farthest = farthest.max((f64::from(px) - cx).hypot(f64::from(py) - cy));
                    }
                }
            }
        }
        prop_assert!((farthest - r).abs() < 1e-9, "radius {} but farthest corner {}", r, farthest);
    }
}

/// A side from anywhere in `u32`, weighted towards the limits' edges.
fn side() -> impl Strategy<Value = u32> {
    prop_oneof![
        0u32..=4,
        Just(BitMask::MAX_SIDE),
        Just(BitMask::MAX_SIDE + 1),
        (BitMask::MAX_SIDE - 4)..=(BitMask::MAX_SIDE + 4),
        (1u32 << 12)..=(1u32 << 17),
        any::<u32>(),
    ]
}

/// Whether a size is within the documented hard limit, by its definition.
fn within_limit(width: u32, height: u32) -> bool {
    width <= BitMask::MAX_SIDE
        && height <= BitMask::MAX_SIDE
        && u64::from(width.max(1)) * u64::from(height.max(1)) <= BitMask::MAX_PIXELS
}

proptest! {
    #![proptest_config(Config { cases: 400, ..config() })]

    /// Every constructor refuses a size over the limit with `TooLarge`, before allocating
    /// (a zero-width mask 100 million rows tall would cost 1.5 GB of guard words), and
    /// builds every size within it. Sizes within the limit are only built when small, to
    /// keep the suite fast; the check itself is the same function.
    #[test]
    fn sizes_over_the_limit_are_refused_before_allocating(w in side(), h in side()) {
        let ok = within_limit(w, h);
        prop_assert_eq!(MaskLimits::DEFAULT.check(w, h).is_ok(), ok);
        let too_large = Err(MaskError::TooLarge { width: w, height: h });
        if !ok {
            prop_assert_eq!(BitMask::try_new(w, h).map(|m| m.size()), too_large.clone());
            prop_assert_eq!(BitMask::solid(w, h).map(|m| m.size()), too_large.clone());
            // The buffer's length is not even looked at: the size is refused first.
            prop_assert_eq!(BitMask::from_rgba8(w, h, &[0; 16], 0).map(|m| m.size()), too_large);
            prop_assert!(BitMask::new(1, 1).scale(w, h).is_err());
        } else if u64::from(w) * u64::from(h) <= 1 << 16 {
            prop_assert_eq!(BitMask::try_new(w, h).map(|m| m.size()), Ok((w, h)));
            prop_assert_eq!(BitMask::new(3, 2).scale(w, h).map(|m| m.size()), Ok((w, h)));
        }
    }

    /// A caller's own limit lowers the hard one and never raises it.
    #[test]
    fn caller_limits_only_lower_the_hard_one(
        w in side(), h in side(), max_side in any::<u32>(), max_pixels in any::<u64>(),
    ) {
        let limits = MaskLimits::new(max_side, max_pixels);
        let mine = w <= max_side
            && h <= max_side
            && u64::from(w.max(1)) * u64::from(h.max(1)) <= max_pixels;
        prop_assert_eq!(limits.check(w, h).is_ok(), mine && within_limit(w, h));
        if !(mine && within_limit(w, h)) {
            prop_assert!(BitMask::from_rgba8_within(w, h, &[], 0, limits).is_err());
        }
    }

    /// Resampling through a transform whose output would be over the limit is refused
    /// (`None`) before any work, whatever the scale; a small output is built. (Outputs
    /// near the limit take a second each, so they are left out.)
    #[test]
    fn transformed_output_is_bounded(exponent in -3.0f32..12.0, angle in -4.0f32..4.0) {
        let m = BitMask::solid(8, 8).unwrap();
        let scale = 10f32.powf(exponent);
        let to_grid = Affine2::from_scale_angle_translation(Vec2::splat(scale), angle, Vec2::ZERO);
        // The rotated 8 × 8 square's box, give or take the pixel of rounding each side.
        let side = 8.0 * scale * (angle.cos().abs() + angle.sin().abs());
        if side > 1.1 * (BitMask::MAX_PIXELS as f32).sqrt() {
            prop_assert!(m.transformed(to_grid).is_none());
        } else if side < 200.0 {
            let (out, _) = m.transformed(to_grid).expect("small outputs are built");
            prop_assert!(out.width().max(out.height()) as f32 <= side + 4.0);
        }
    }
}

#[test]
fn image_over_the_limit_is_an_error_not_an_abort() {
    // Declared sizes, no pixels: what a hostile file header claims.
    for (w, h) in [
        (100_000, 100_000),
        (0, 100_000_000),
        (100_000_000, 0),
        (1 << 15, 1 << 14),
    ] {
        assert_eq!(
            BitMask::from_rgba8(w, h, &[], 0).map(|m| m.size()),
            Err(MaskError::TooLarge {
                width: w,
                height: h
            })
        );
    }
    let image = image::RgbaImage::new(BitMask::MAX_SIDE + 1, 1);
    assert!(BitMask::try_from_image(&image, 0).is_err());
    assert_eq!(BitMask::from_image(&image, 0).size(), (0, 0));
}

/// Overlaps 14 to 41 words wide, dense and random, every shift from a word's edge to its
/// middle: the vector loops that carry B's words from one step to the next stop a whole
/// vector before the row's end, and every remainder after them must count.
#[test]
fn long_rows_count_every_word_on_every_kernel() {
    let mut rng = pixel_collide_support::rng::SplitMix64(0x5eed_0014);
    for words in 14..=41u32 {
        for shift in [0, 1, 31, 63] {
            let (width, height) = (64 * words + 7, 3);
            let random = |rng: &mut pixel_collide_support::rng::SplitMix64| Reference {
                width,
                height,
                pixels: (0..width * height)
                    .map(|_| rng.next_u64() & 1 == 1)
                    .collect(),
            };
            let (a, b) = (random(&mut rng), random(&mut rng));
            // B starts `shift` pixels past a word edge, in both directions.
            for dx in [shift, -64 - shift, 64 + shift] {
                let expected = a.overlap_pixels(&b, (dx, 1)).len() as u64;
                let (ma, mb) = (a.mask(), b.mask());
                for kernel in WordKernel::ALL.into_iter().filter(|k| k.is_available()) {
                    assert_eq!(
                        ma.overlap_area_using(&mb, (dx, 1), kernel),
                        expected,
                        "{kernel:?}, {words} words, dx {dx}"
                    );
                }
            }
        }
    }
}

/// Solid rows 120 to 140 words wide and one of 300, word-aligned and shifted: every pixel
/// of such an overlap counts, the most any word can hold, so a kernel that adds its
/// counts up in bytes over too many words of a row (AVX2: at most 31 vectors) shows here.
#[test]
fn solid_wide_rows_count_every_pixel_on_every_kernel() {
    for words in (120..=140u32).chain([300]) {
        let (width, height) = (64 * words + 5, 3);
        let (a, b) = (
            BitMask::solid(width, height).expect("a small mask"),
            BitMask::solid(width, height).expect("a small mask"),
        );
        for dx in [0i32, 1, 63, 64, -1, -65] {
            let expected = u64::from(width - dx.unsigned_abs()) * u64::from(height - 1);
            for kernel in WordKernel::ALL.into_iter().filter(|k| k.is_available()) {
                assert_eq!(
                    a.overlap_area_using(&b, (dx, 1), kernel),
                    expected,
                    "{kernel:?}, {words} words, dx {dx}"
                );
            }
        }
    }
}

proptest! {
    #![proptest_config(config())]

    /// The words bench's physical-limit loop, in every build this CPU has, counts what a
    /// bit-by-bit count does (words of any pattern, any length, the vector builds' tails
    /// included).
    #[test]
    fn contiguous_area_counts_every_shared_bit(
        pairs in proptest::collection::vec((any::<u64>(), any::<u64>()), 0..300),
    ) {
        let (a, b): (Vec<u64>, Vec<u64>) = pairs.into_iter().unzip();
        let expected: u64 = a
            .iter()
            .zip(&b)
            .map(|(x, y)| (0..64).filter(|bit| x & y & (1 << bit) != 0).count() as u64)
            .sum();
        for kernel in WordKernel::ALL.into_iter().filter(|k| k.is_available()) {
            prop_assert_eq!(contiguous_area(&a, &b, kernel), expected, "{:?}", kernel);
        }
    }
}

/// Two masks of one width, 190 to 700 px (sprites of one kind): overlaps across the whole
/// width of both, which the other strategies, drawing each width on its own, rarely give.
fn same_width_pair() -> impl Strategy<Value = (Reference, Reference)> {
    (190u32..=700, 1u32..=12, 1u32..=12, 0.0f64..=1.0).prop_flat_map(|(w, ha, hb, density)| {
        let mask = move |h: u32| {
            proptest::collection::vec(proptest::bool::weighted(density), (w * h) as usize).prop_map(
                move |pixels| Reference {
                    width: w,
                    height: h,
                    pixels,
                },
            )
        };
        (mask(ha), mask(hb))
    })
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn same_width_overlap_matches_brute_force(
        (a, b) in same_width_pair(),
        dx in -70i32..70,
        dy in -12i32..12,
    ) {
        overlaps_match(&a, &b, (dx, dy))?;
    }
}
