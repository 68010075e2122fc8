//! The edits against pixel-by-pixel ones, with every kernel the CPU has: in a file of
//! their own, so that the edit code reads without them.

use super::paint::{CLEAR_COLUMN_MIN_ROWS, SMALL_CLEAR_COLUMN_MIN_ROWS};
use super::*;

#[test]
fn transpose64_swaps_every_bit() {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut a = [0u64; 64];
    for w in a.iter_mut() {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *w = state;
    }
    let mut t = a;
    transpose64(&mut t);
    for (i, row) in a.iter().enumerate() {
        for (j, column) in t.iter().enumerate() {
            assert_eq!(column >> i & 1, row >> j & 1, "({i}, {j})");
        }
    }
}

/// A mask of `w × h` from a seed: solid discs, solid bands and noise, so that edits
/// erase whole words and rows' ends as well as scattered pixels.
fn sample(w: u32, h: u32, seed: u64) -> BitMask {
    let mut rng = pixel_collide_seeded::rng::SplitMix64(seed);
    let mut m = BitMask::new(w, h);
    match rng.next_u64() % 4 {
        0 => m.fill_circle(
            f64::from(w) / 2.0,
            f64::from(h) / 2.0,
            f64::from(w.min(h)) / 2.0,
        ),
        1 => m.fill(),
        2 => {
            let p = rng.next_u64() % 100;
            for y in 0..h {
                for x in 0..w {
                    if rng.next_u64() % 100 < p {
                        m.set(x.into(), y.into(), true);
                    }
                }
            }
        }
        _ => {
            for y in 0..h {
                let (a, b) = (rng.next_u64() % u64::from(w), rng.next_u64() % u64::from(w));
                for x in a.min(b)..=a.max(b) {
                    m.set(x as i64, y.into(), true);
                }
            }
        }
    }
    m
}

/// The kernels this CPU can run, each painting its own copy in the tests below.
/// Every build this CPU has, the AVX2 one with both forms of its shifts (see
/// [`WordKernel::avx2_shifts_by_register`]), forced.
fn available_kernels() -> Vec<(WordKernel, Option<bool>)> {
    WordKernel::ALL
        .into_iter()
        .filter(|k| k.is_available())
        .flat_map(|k| match k {
            WordKernel::Avx2 => vec![(k, Some(false)), (k, Some(true))],
            _ => vec![(k, None)],
        })
        .collect()
}

/// `n` copies of `start` with their bounding rectangle and circle built, which edits
/// then keep up to date.
fn copies_with_lookups(start: &BitMask, n: usize) -> Vec<BitMask> {
    let masks: Vec<BitMask> = (0..n).map(|_| start.clone()).collect();
    for m in &masks {
        m.bounding_rect();
        m.bounding_circle();
    }
    masks
}

/// Paints `stamp` at `offset` into `masks[i]` with `kernels[i]`, then checks that
/// every mask has the same pixels, and row spans, bounding rectangle and circle that
/// hold those of a mask rebuilt from them (equal where no span is loose).
fn paint_with_every_kernel_and_check(
    masks: &mut [BitMask],
    kernels: &[(WordKernel, Option<bool>)],
    stamp: &BitMask,
    (ox, oy): (i32, i32),
    on: bool,
) {
    for (m, &(kernel, by_register)) in masks.iter_mut().zip(kernels) {
        WordKernel::force_avx2_shifts_by_register(by_register);
        m.paint_using(stamp, (ox, oy), on, kernel);
    }
    WordKernel::force_avx2_shifts_by_register(None);
    let (w, h, bw, bh) = (masks[0].width, masks[0].height, stamp.width, stamp.height);
    let fresh = BitMask {
        words: masks[0].words.clone(),
        ..BitMask::new(w, h)
    };
    for (m, kernel) in masks.iter().zip(kernels) {
        let what = format!("{kernel:?}, {w} x {h}, {bw} x {bh} at ({ox}, {oy}), on {on}");
        assert!(*m == masks[0], "{what}: pixels");
        assert!(m.pixel_spans.get().is_some(), "{what}: spans dropped");
        assert!(m.bounds.get().is_some(), "{what}: bounds dropped");
        assert!(m.circle.get().is_some(), "{what}: circle dropped");
        m.assert_span_lookups_hold(&fresh, &what);
    }
}

/// Every kernel this CPU has draws and erases masks into masks of three words a row
/// and more (and narrower ones) as every other, and leaves row spans, bounding
/// rectangle and circle equal to those of a mask rebuilt from the same pixels, or
/// holding them where spans are loose (and the exact ones found on demand equal to
/// them; see `BitMask::assert_span_lookups_hold`): edits whose
/// stamps cover up to 8 words and more, cut by A's edges or not, erasing rows' ends
/// and whole words.
#[test]
fn every_kernel_paints_and_keeps_span_lookups_sound() {
    let kernels = available_kernels();
    let mut rng = pixel_collide_seeded::rng::SplitMix64(0x5EED_5BA5);
    for case in 0..400u64 {
        let w = [65, 128, 129, 191, 200, 256, 300, 513, 600, 1100, 2100][case as usize % 11];
        let h = 1 + (rng.next_u64() % 40) as u32;
        let start = sample(w, h, rng.next_u64());
        let mut masks = copies_with_lookups(&start, kernels.len());
        for _ in 0..12 {
            let bw = 1 + (rng.next_u64() % [700, 700, 2200][case as usize % 3]) as u32;
            let bh = 1 + (rng.next_u64() % 45) as u32;
            let stamp = sample(bw, bh, rng.next_u64());
            let ox = (rng.next_u64() % u64::from(w + bw)) as i32 - bw as i32 + 1;
            let oy = (rng.next_u64() % u64::from(h + bh)) as i32 - bh as i32 + 1;
            let on = rng.next_u64() & 1 == 0;
            paint_with_every_kernel_and_check(&mut masks, &kernels, &stamp, (ox, oy), on);
        }
    }
}

/// Masks of two words a row stamped with masks as wide, AVX-512's two-rows-a-vector
/// loop (few of the test above's stamps are that wide): every kernel leaves
/// the pixels, spans, bounding rectangle and circle of a rebuilt mask.
#[test]
fn two_word_masks_stamped_with_two_word_masks_keep_span_lookups_sound() {
    let kernels = available_kernels();
    let mut rng = pixel_collide_seeded::rng::SplitMix64(0x2_5EED);
    for case in 0..200u64 {
        let w = [65, 100, 127, 128][case as usize % 4];
        let h = 1 + (rng.next_u64() % 40) as u32;
        let start = sample(w, h, rng.next_u64());
        let mut masks = copies_with_lookups(&start, kernels.len());
        for _ in 0..12 {
            let bw = 65 + (rng.next_u64() % 64) as u32;
            let bh = 1 + (rng.next_u64() % 45) as u32;
            let stamp = sample(bw, bh, rng.next_u64());
            // Half of them word-aligned or starting in A's first word.
            let ox = match rng.next_u64() % 4 {
                0 => 0,
                1 => (rng.next_u64() % 64) as i32 - 63,
                _ => (rng.next_u64() % u64::from(w + bw)) as i32 - bw as i32 + 1,
            };
            let oy = (rng.next_u64() % u64::from(h + bh)) as i32 - bh as i32 + 1;
            let on = rng.next_u64() & 1 == 0;
            paint_with_every_kernel_and_check(&mut masks, &kernels, &stamp, (ox, oy), on);
        }
    }
}

/// Masks of one word a row stamped with masks as narrow, AVX-512's loop over the
/// rows' words in one run (the tests above stamp none so narrow into masks so
/// narrow): every kernel leaves the pixels, spans, bounding rectangle and circle of a
/// rebuilt mask.
#[test]
fn one_word_masks_stamped_with_one_word_masks_keep_span_lookups_sound() {
    let kernels = available_kernels();
    let mut rng = pixel_collide_seeded::rng::SplitMix64(0x1_5EED);
    for case in 0..300u64 {
        let w = [1, 2, 13, 32, 63, 64][case as usize % 6];
        let h = 1 + (rng.next_u64() % 40) as u32;
        let start = sample(w, h, rng.next_u64());
        let mut masks = copies_with_lookups(&start, kernels.len());
        for _ in 0..12 {
            let bw = 1 + (rng.next_u64() % 64) as u32;
            let bh = 1 + (rng.next_u64() % 45) as u32;
            let stamp = sample(bw, bh, rng.next_u64());
            // A quarter word-aligned, a quarter starting left of A.
            let ox = match rng.next_u64() % 4 {
                0 => 0,
                1 => (rng.next_u64() % 64) as i32 - 63,
                _ => (rng.next_u64() % u64::from(w + bw)) as i32 - bw as i32 + 1,
            };
            let oy = (rng.next_u64() % u64::from(h + bh)) as i32 - bh as i32 + 1;
            let on = rng.next_u64() & 1 == 0;
            paint_with_every_kernel_and_check(&mut masks, &kernels, &stamp, (ox, oy), on);
        }
    }
}

#[test]
fn tall_erases_that_clear_whole_columns_keep_span_lookups_sound() {
    // Erases of enough rows across every column note the columns they leave clear:
    // when every column is, the rows' spans are set clear and the bounding
    // rectangle's search skips them. Solid stamps clear
    // whole columns, or every column of some rows at the top or bottom, while the
    // pixels around them stay; some stamps miss a column's pixels by a row.
    let kernels = available_kernels();
    let mut rng = pixel_collide_seeded::rng::SplitMix64(0xC1EA_C0F5);
    for case in 0..80u64 {
        let w = [40, 128, 200, 257, 513, 1100][case as usize % 6];
        let min_rows = if w <= 128 {
            SMALL_CLEAR_COLUMN_MIN_ROWS
        } else {
            CLEAR_COLUMN_MIN_ROWS
        } as u32;
        let h = min_rows + (rng.next_u64() % 300) as u32;
        let start = sample(w, h, rng.next_u64());
        let mut masks = copies_with_lookups(&start, kernels.len());
        for step in 0..6 {
            let bw = 1 + (rng.next_u64() % u64::from(w + 64)) as u32;
            let (bh, oy) = if step % 3 == 2 {
                let bh = min_rows + (rng.next_u64() % u64::from(h - min_rows + 1)) as u32;
                (bh, if rng.next_u64() & 1 == 0 { 0 } else { h - bh })
            } else {
                (h - (rng.next_u64() % 3) as u32, (rng.next_u64() % 3) as u32)
            };
            let stamp = if step % 2 == 0 {
                BitMask::solid(bw, bh).expect("a small solid stamp")
            } else {
                sample(bw, bh, rng.next_u64())
            };
            let ox = (rng.next_u64() % u64::from(w)) as i32 - (bw / 2) as i32;
            let at = (ox, oy as i32);
            paint_with_every_kernel_and_check(&mut masks, &kernels, &stamp, at, false);
        }
        let whole = masks[0].clone();
        paint_with_every_kernel_and_check(&mut masks, &kernels, &whole, (0, 0), false);
        assert_eq!(
            masks[0].count(),
            0,
            "an erase of the mask by itself clears it"
        );
    }
}

#[test]
fn true_interval_finds_the_ends() {
    for n in 1..40u32 {
        for lo in 0..n {
            for hi in lo..n {
                let c = f64::from(lo + hi) / 2.0 + 0.5;
                assert_eq!(
                    true_interval(n, c, |i| (lo..=hi).contains(&i)),
                    Some((lo, hi))
                );
            }
        }
        assert_eq!(true_interval(n, 3.0, |_| false), None);
    }
}
