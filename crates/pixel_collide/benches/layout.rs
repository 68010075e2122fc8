//! What the order of a mask's words costs an edit, apart from everything else an edit
//! does: the same draw (A |= B shifted) over the same window, with A's and B's words
//! stored row by row as `BitMask` stored them until the column layout (each row's words,
//! then the next row's, with a guard word at each end) against column by column as
//! pygame's `bitmask_t` and now `BitMask` store them (each 64-pixel column's words for
//! every row, then the next column's). Plain loops,
//! compiled alike, so that the layout is the only difference: once for the target the
//! bench is built for (`by_rows`, `by_columns`) and, on a CPU with AVX-512, once more
//! vectorised by LLVM for it (`by_rows_avx512`, `by_columns_avx512`), the instruction set
//! `BitMask::draw` then uses. Beside them, `BitMask::draw` itself (`bitmask_draw`) on masks
//! with the same words, spans and the rest of its lookups included.
//!
//! The windows are those of the peer bench's draws that stay slower than pygame's
//! (README, "Against pygame.mask"): B's rectangle cut by A's edge at 512 px (`edge`:
//! 187 rows of 3 words; `partial`: 511 rows of 4) and at 128 px (`partial`: 127 rows of
//! 1 word).
//!
//! Timing as in `peer.rs` (`benches/timing`): each row looped in batches of about 1 ms,
//! `ns` the third-best batch of the rounds.
//!   cargo bench -p pixel_collide --bench layout [-- --rounds N]

use std::hint::black_box;
use std::time::Instant;

use pixel_collide::BitMask;

mod timing;

const ROUNDS: usize = 101;

/// A draw's window: A's rows `y0..y0 + rows` and words `k0..k1`, B's pixel offset `dx`.
struct Window {
    name: &'static str,
    side: usize,
    dx: usize,
    y0: usize,
    rows: usize,
}

const WINDOWS: [Window; 3] = [
    Window {
        name: "512_edge",
        side: 512,
        dx: 325,
        y0: 325,
        rows: 187,
    },
    Window {
        name: "512_partial",
        side: 512,
        dx: 257,
        y0: 1,
        rows: 511,
    },
    Window {
        name: "128_partial",
        side: 128,
        dx: 65,
        y0: 1,
        rows: 127,
    },
];

/// Words of a `side`-pixel square mask of seeded noise (a pixel set in one of four).
fn noise(side: usize, seed: u64) -> Vec<Vec<u64>> {
    let mut state = seed | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    (0..side)
        .map(|_| (0..side / 64).map(|_| next() & next()).collect())
        .collect()
}

/// Row by row, a guard word at each end of a row: row y's word k at y × (wpr + 2) + 1 + k.
fn by_rows(rows: &[Vec<u64>]) -> Vec<u64> {
    let wpr = rows[0].len();
    let mut words = vec![0; (rows.len() + 1) * (wpr + 2)];
    for (y, row) in rows.iter().enumerate() {
        words[y * (wpr + 2) + 1..][..wpr].copy_from_slice(row);
    }
    words
}

/// Column by column, a guard column first: column k's word of row y at (k + 1) × h + y.
fn by_columns(rows: &[Vec<u64>]) -> Vec<u64> {
    let (h, wpr) = (rows.len(), rows[0].len());
    let mut words = vec![0; (wpr + 2) * h];
    for (y, row) in rows.iter().enumerate() {
        for (k, &w) in row.iter().enumerate() {
            words[(k + 1) * h + y] = w;
        }
    }
    words
}

/// A's words k0..k1 of its rows y0.. ORed with B's under them, B `dx` pixels right of A's
/// pixel 0 and its row 0 under A's row y0: B's word under A's word k is made of B's words
/// k - dx / 64 - 1 and k - dx / 64 (from `shift` bits on), its guard words where those
/// lie outside it. Returns the changed bits, ORed, so that no work is left out.
#[inline(always)]
fn draw_by_rows(a: &mut [u64], b: &[u64], wpr: usize, w: &Window) -> u64 {
    let (stride, k0, shift) = (wpr + 2, w.dx / 64, (64 - w.dx % 64) as u32 % 64);
    let mut changed = 0;
    for r in 0..w.rows {
        let row = &mut a[(w.y0 + r) * stride + 1 + k0..][..wpr - k0];
        let under = &b[r * stride..][..wpr - k0 + 1];
        for (i, word) in row.iter_mut().enumerate() {
            let bits = if shift == 0 {
                under[i + 1]
            } else {
                under[i] >> shift | under[i + 1] << (64 - shift)
            };
            changed |= bits & !*word;
            *word |= bits;
        }
    }
    changed
}

/// [`draw_by_rows`] on words stored column by column.
#[inline(always)]
fn draw_by_columns(a: &mut [u64], b: &[u64], (h, wpr): (usize, usize), w: &Window) -> u64 {
    let (k0, shift) = (w.dx / 64, (64 - w.dx % 64) as u32 % 64);
    let mut changed = 0;
    for k in k0..wpr {
        let column = &mut a[(k + 1) * h + w.y0..][..w.rows];
        let low = &b[(k - k0) * h..][..w.rows];
        let high = &b[(k - k0 + 1) * h..][..w.rows];
        for ((word, &low), &high) in column.iter_mut().zip(low).zip(high) {
            let bits = if shift == 0 {
                high
            } else {
                low >> shift | high << (64 - shift)
            };
            changed |= bits & !*word;
            *word |= bits;
        }
    }
    changed
}

/// The two loops as built for the target the bench is compiled for (baseline x86-64 and
/// its SSE2 unless `RUSTFLAGS` say more), each a function of its own.
#[inline(never)]
fn draw_by_rows_baseline(a: &mut [u64], b: &[u64], wpr: usize, w: &Window) -> u64 {
    draw_by_rows(a, b, wpr, w)
}

#[inline(never)]
fn draw_by_columns_baseline(a: &mut [u64], b: &[u64], hw: (usize, usize), w: &Window) -> u64 {
    draw_by_columns(a, b, hw, w)
}

/// The two loops vectorised by LLVM for AVX-512, the instruction set `BitMask::draw` uses
/// on such a CPU, so that each layout is compared with it on the same footing.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,avx512f,avx512vl")]
fn draw_by_rows_avx512(a: &mut [u64], b: &[u64], wpr: usize, w: &Window) -> u64 {
    draw_by_rows(a, b, wpr, w)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,avx512f,avx512vl")]
fn draw_by_columns_avx512(a: &mut [u64], b: &[u64], hw: (usize, usize), w: &Window) -> u64 {
    draw_by_columns(a, b, hw, w)
}

/// [`draw_by_rows_avx512`] and [`draw_by_columns_avx512`] timed, if this CPU has AVX-512:
/// (layout, ns) rows for the CSV.
#[cfg(target_arch = "x86_64")]
fn time_avx512(
    rounds: usize,
    (rows, columns): ((&mut [u64], &[u64]), (&mut [u64], &[u64])),
    (hw, w): ((usize, usize), &Window),
) -> Vec<(&'static str, f64)> {
    use std::arch::is_x86_feature_detected as has;
    if !(has!("avx2") && has!("avx512f") && has!("avx512vl")) {
        return Vec::new();
    }
    let ((a, b), (ac, bc)) = (rows, columns);
    // SAFETY: this CPU has the features of both functions, checked just above.
    #[allow(unsafe_code)]
    unsafe {
        vec![
            (
                "by_rows_avx512",
                time(rounds, || draw_by_rows_avx512(a, b, hw.1, w)),
            ),
            (
                "by_columns_avx512",
                time(rounds, || draw_by_columns_avx512(ac, bc, hw, w)),
            ),
        ]
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn time_avx512(
    _: usize,
    _: ((&mut [u64], &[u64]), (&mut [u64], &[u64])),
    _: ((usize, usize), &Window),
) -> Vec<(&'static str, f64)> {
    Vec::new()
}

/// Third-best batch of `rounds` (at least one), in ns per call; `call` must leave its
/// inputs as it found them (each call here is a draw and the erase that undoes it, or a
/// pure OR).
fn time(rounds: usize, mut call: impl FnMut() -> u64) -> f64 {
    let mut batch = |n: u64| {
        let start = Instant::now();
        for _ in 0..n {
            black_box(call());
        }
        start.elapsed().as_secs_f64()
    };
    let (calls, _) = timing::calibrate(&mut batch);
    let batches: Vec<f64> = (0..rounds)
        .map(|_| batch(calls) * 1e9 / calls as f64)
        .collect();
    timing::third_best(&batches).expect("at least one round")
}

fn main() {
    let mut rounds = ROUNDS;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--rounds" {
            rounds = timing::rounds(args.next().as_deref()).unwrap_or_else(|e| {
                eprintln!("layout bench: {e}");
                std::process::exit(2);
            });
        }
    }
    println!("window,layout,ns");
    for w in &WINDOWS {
        let (a_rows, b_rows) = (noise(w.side, 1), noise(w.side, 2));
        let wpr = w.side / 64;
        // OR is idempotent: after the first call each draw changes nothing and the words
        // stay as they are, so every batch does the same work (the loads, the ORs and
        // the stores of the window).
        let hw = (w.side, wpr);
        let (mut a, b) = (by_rows(&a_rows), by_rows(&b_rows));
        let rows_ns = time(rounds, || draw_by_rows_baseline(&mut a, &b, wpr, w));
        let (mut ac, bc) = (by_columns(&a_rows), by_columns(&b_rows));
        let columns_ns = time(rounds, || draw_by_columns_baseline(&mut ac, &bc, hw, w));
        let wide = time_avx512(rounds, ((&mut a, &b), (&mut ac, &bc)), (hw, w));
        // BitMask::draw followed by the erase of what it set, as the peer bench times
        // it: a draw's share is half the pair.
        let image = |rows: &[Vec<u64>]| -> Vec<u8> {
            let mut rgba = vec![0u8; w.side * w.side * 4];
            for (y, row) in rows.iter().enumerate() {
                for x in 0..w.side {
                    if row[x / 64] >> (x % 64) & 1 == 1 {
                        rgba[(y * w.side + x) * 4 + 3] = 255;
                    }
                }
            }
            rgba
        };
        let side = w.side as u32;
        let mut mask = BitMask::from_rgba8(side, side, &image(&a_rows), 128).unwrap();
        let stamp = BitMask::from_rgba8(side, side, &image(&b_rows), 128).unwrap();
        let offset = (w.dx as i32, w.y0 as i32);
        let mut new = stamp.clone();
        new.erase(&mask, (-offset.0, -offset.1));
        // The lookups `overlap` builds (row spans, bounding rectangle), as the peer bench
        // builds them for its edit rows.
        black_box(mask.bounding_rect());
        let mask_ns = time(rounds, || {
            mask.draw(black_box(&stamp), offset);
            mask.erase(black_box(&new), offset);
            0
        }) / 2.0;
        println!("{},by_rows,{rows_ns:.1}", w.name);
        println!("{},by_columns,{columns_ns:.1}", w.name);
        for (layout, ns) in wide {
            println!("{},{layout},{ns:.1}", w.name);
        }
        println!("{},bitmask_draw,{mask_ns:.1}", w.name);
    }
}
