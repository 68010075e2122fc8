//! Report: the tables printed, and the figures in them.

use std::time::Duration;

use pixel_collide::BitMask;

use crate::app::StepTime;
use crate::colliders::{Shape, measured, polygon_error};
use crate::crater::CraterRun;
use crate::pile::PileRun;
use crate::{BOWL, CRATER_RADIUS, STEP, Side, TERRAIN_SIZE};

/// Values joined by slashes: one per seed.
pub fn list<T: std::fmt::Display>(values: impl Iterator<Item = T>) -> String {
    values.map(|v| v.to_string()).collect::<Vec<_>>().join("/")
}

pub fn millis(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

pub fn mean(times: impl Iterator<Item = Duration>) -> f64 {
    let all: Vec<f64> = times.map(millis).collect();
    all.iter().sum::<f64>() / all.len().max(1) as f64
}

pub fn p95(times: impl Iterator<Item = Duration>) -> f64 {
    let mut all: Vec<f64> = times.map(millis).collect();
    all.sort_by(f64::total_cmp);
    all.get(all.len() * 95 / 100).copied().unwrap_or(0.0)
}

pub fn median(mut all: Vec<Duration>) -> Duration {
    all.sort();
    all.get(all.len() / 2).copied().unwrap_or_default()
}

/// The colliders' table: each sprite's pixels, polygons, build times and heap.
pub fn print_colliders(shapes: &[Shape]) {
    println!("## Colliders from the game's sprites\n");
    println!(
        "| sprite | pixels | polygons: parts, vertices | pixels the polygons add, miss | build: masks, polygons | heap: masks, polygons |"
    );
    println!("|---|---|---|---|---|---|");
    for s in shapes {
        let (count, extra, missing) = polygon_error(s);
        println!(
            "| {} {}×{} | {count} | {}, {} | {extra}, {missing} ({:.1}%) | {:.1} µs, {:.0} µs | {} B, {} B |",
            s.name,
            s.mask.width(),
            s.mask.height(),
            s.parts,
            s.vertices,
            100.0 * (extra + missing) as f64 / count as f64,
            s.build_mask.as_secs_f64() * 1e6,
            s.build_polygon.as_secs_f64() * 1e6,
            s.bytes_mask,
            s.bytes_polygon,
        );
    }
}

pub fn print_mask_heaps(shapes: &[Shape]) {
    // A mask builds its distance field and transposed copy on first use: what it holds
    // once it has collided is the heap it costs in a game.
    println!(
        "\nHeap of each mask once it has collided (distance field and transposed copy built):"
    );
    for s in shapes {
        println!("- {}: {} B", s.name, measured(|| BitMask::clone(&s.mask)).1);
    }
}

/// The piles' table: a row for each N and side, its seeds pooled.
pub fn print_piles(runs: &[PileRun], seeds: u64, steps: usize) {
    println!(
        "\n## Pile: N bodies into a {}×{} bowl, {} s, {seeds} seeds\n",
        BOWL.0,
        BOWL.1,
        steps as f64 * STEP
    );
    println!(
        "Times over every seed's steps; overlaps the deepest of any seed and the mean of all; \
         resting and asleep at the end, and the last 2 s, per seed.\n"
    );
    println!(
        "| N | side | step mean, p95 (ms) | broad, narrow, solver (ms) | deepest, mean overlap with ground (px) | between bodies; rows deep, the deepest pair's | at rest: deepest ground, bodies (px), bodies' rows deep | resting, asleep | step mean, last 2 s (ms) | escaped, sunk |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for r in runs {
        println!(
            "| {} | {} | {:.2}, {:.2} | {:.2}, {:.2}, {:.2} | {:.2}, {:.2} | {:.2}, {:.2}; {}, {} | {:.2}, {:.2}, {} | {}; {} of {} | {} | {}, {} |",
            r.n,
            r.side.name(),
            mean(r.steps.iter().map(|s| s.total)),
            p95(r.steps.iter().map(|s| s.total)),
            mean(r.steps.iter().map(|s| s.broad)),
            mean(r.steps.iter().map(|s| s.narrow)),
            mean(r.steps.iter().map(|s| s.solver)),
            r.during.ground.deepest,
            r.during.ground.mean(),
            r.during.bodies.deepest,
            r.during.bodies.mean(),
            r.during.local,
            r.during.deepest_pair_local,
            r.end.ground.deepest,
            r.end.bodies.deepest,
            r.end.local,
            list(r.settled.iter().map(|s| s.0)),
            list(r.settled.iter().map(|s| s.1)),
            r.n,
            list(r.last.iter().map(|ms| format!("{ms:.2}"))),
            r.worst_escaped,
            r.worst_sunk,
        );
    }
}

/// Where the slowest twentieth of each row's steps spend their time: the steps that set
/// the 95th percentile are the landing ones, and their split differs from the mean's.
pub fn print_slowest_steps(runs: &[PileRun]) {
    println!("\nThe slowest 5% of steps, mean split:\n");
    println!("| N | side | step | broad | narrow | solver | the rest (ms) |");
    println!("|---|---|---|---|---|---|---|");
    for r in runs {
        let mut slowest: Vec<&StepTime> = r.steps.iter().collect();
        slowest.sort_by_key(|s| std::cmp::Reverse(s.total));
        slowest.truncate(r.steps.len().div_ceil(20));
        let of = |part: fn(&StepTime) -> Duration| mean(slowest.iter().map(|s| part(s)));
        let total = of(|s| s.total);
        let (broad, narrow, solver) = (of(|s| s.broad), of(|s| s.narrow), of(|s| s.solver));
        println!(
            "| {} | {} | {total:.2} | {broad:.2} | {narrow:.2} | {solver:.2} | {:.2} |",
            r.n,
            r.side.name(),
            total - broad - narrow - solver,
        );
    }
}

/// How each side's step time grows from 50 to 500 bodies.
pub fn print_growth(runs: &[PileRun]) {
    for side in [Side::Masks, Side::Polygons] {
        let of = |n: usize| {
            runs.iter()
                .find(|r| r.side == side && r.n == n)
                .map(|r| mean(r.steps.iter().map(|s| s.total)))
                .unwrap_or(f64::NAN)
        };
        println!(
            "\n{}: step time grows {:.1} times from 50 to 500 bodies",
            side.name(),
            of(500) / of(50)
        );
    }
}

/// The crater table's title and head.
pub fn print_crater_head(craters: usize) {
    println!(
        "\n## Crater: {}×{} terrain, {} craters of radius {CRATER_RADIUS}\n",
        TERRAIN_SIZE.0, TERRAIN_SIZE.1, craters
    );
    println!(
        "| side | collider rebuild, median (ms) | first step after it (ms) | step before, after (ms) | collider heap | at the end: deepest ground, bodies (px) |"
    );
    println!("|---|---|---|---|---|---|");
}

/// One side's row of the crater table.
pub fn print_crater(r: CraterRun) {
    println!(
        "| {} | {:.3} | {:.2} | {:.2}, {:.2} | {} KiB | {:.2}, {:.2} |",
        r.side.name(),
        millis(median(r.rebuilds)),
        millis(median(r.first_steps)),
        mean(r.settled_steps.iter().skip(60).map(|s| s.total)),
        mean(r.after_steps.iter().map(|s| s.total)),
        r.collider_bytes / 1024,
        r.end.ground.deepest,
        r.end.bodies.deepest,
    );
}
