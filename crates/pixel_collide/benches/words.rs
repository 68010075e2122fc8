//! Nanoseconds per word of `overlap_area`, word-aligned against shifted, for every build of
//! the word loops this CPU has (issue #14: the shifted path should cost at most 1.3 times
//! the aligned one per word).
//!
//! Two solid masks, B at (0, 1) (aligned) and at (1, 1) (shifted by one bit): both walk the
//! same `(side - 1) × side / 64` words of A, so the times divide by the same count. Solid
//! rather than a drawn shape, so that no row is trimmed and every word is counted.
//!
//! Beside them, `plain`: the physical limit, one AND and one popcount per word over one run
//! of as many words (`baseline::contiguous_area`, the loop as written for any slice,
//! compiled with the build's instruction set), so README can say how close each build
//! comes to it.
//!
//! Timing as in `peer.rs` (`benches/timing`): every row is looped in batches of about
//! 1 ms, one batch per row per round, and `ns` is the third-best batch.
//!   cargo bench -p pixel_collide --bench words [-- --rounds N]

use std::hint::black_box;
use std::time::Instant;

use pixel_collide::{BitMask, WordKernel};
use pixel_collide_support::baseline::contiguous_area;

mod timing;

const ROUNDS: usize = 201;
const SIDES: [u32; 2] = [512, 2048];

#[derive(Clone, Copy, PartialEq)]
enum Walk {
    Plain,
    Aligned,
    Shifted,
}

struct Row {
    kernel: WordKernel,
    side: u32,
    walk: Walk,
    calls: u64,
    ns: Vec<f64>,
}

fn main() {
    let mut rounds = ROUNDS;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--rounds" {
            rounds = timing::rounds(args.next().as_deref()).unwrap_or_else(|e| {
                eprintln!("words bench: {e}");
                std::process::exit(2);
            });
        }
    }
    let masks: Vec<BitMask> = SIDES
        .iter()
        .map(|&side| BitMask::solid(side, side).expect("a small mask"))
        .collect();
    let words = |side: u32| (side as usize - 1) * side.div_ceil(64) as usize;
    let runs: Vec<Vec<u64>> = SIDES
        .iter()
        .map(|&side| vec![u64::MAX; words(side)])
        .collect();
    for kernel in WordKernel::ALL.into_iter().filter(|k| k.is_available()) {
        for run in &runs {
            let all = 64 * run.len() as u64;
            assert_eq!(
                contiguous_area(run, run, kernel),
                all,
                "{kernel:?}'s plain loop"
            );
        }
    }
    let mut rows: Vec<Row> = WordKernel::ALL
        .into_iter()
        .filter(|k| k.is_available())
        .flat_map(|kernel| {
            SIDES.iter().flat_map(move |&side| {
                [Walk::Plain, Walk::Aligned, Walk::Shifted].map(|walk| Row {
                    kernel,
                    side,
                    walk,
                    calls: 0,
                    ns: Vec::new(),
                })
            })
        })
        .collect();
    let call = |row: &Row, n: u64| {
        let at = SIDES.iter().position(|&s| s == row.side).unwrap_or(0);
        let (mask, run) = (&masks[at], runs[at].as_slice());
        let offset = (i32::from(row.walk == Walk::Shifted), 1);
        let t = Instant::now();
        if row.walk == Walk::Plain {
            for _ in 0..n {
                black_box(contiguous_area(black_box(run), black_box(run), row.kernel));
            }
            return t.elapsed().as_secs_f64();
        }
        for _ in 0..n {
            black_box(black_box(mask).overlap_area_using(
                black_box(mask),
                black_box(offset),
                row.kernel,
            ));
        }
        t.elapsed().as_secs_f64()
    };
    for row in &mut rows {
        row.calls = timing::calibrate(|n| call(row, n)).0;
    }
    for _ in 0..rounds {
        for row in &mut rows {
            let dt = call(row, row.calls);
            row.ns.push(dt / row.calls as f64 * 1e9);
        }
    }
    println!(
        "kernel,side,plain_ns_per_word,aligned_ns_per_word,shifted_ns_per_word,ratio,aligned_over_plain,shifted_over_plain"
    );
    for triple in rows.chunks_exact(3) {
        let [plain, aligned, shifted] = triple else {
            continue;
        };
        let side = aligned.side;
        let words = words(side) as f64;
        // Every row has a batch for each of at least one round.
        let per_word = |row: &Row| timing::third_best(&row.ns).expect("a batch a round") / words;
        let (p, a, s) = (per_word(plain), per_word(aligned), per_word(shifted));
        println!(
            "{:?},{side},{p:.4},{a:.4},{s:.4},{:.2},{:.2},{:.2}",
            aligned.kernel,
            s / a,
            a / p,
            s / p
        );
    }
}
