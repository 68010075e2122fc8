//! The Crowd scene's collision step (boxes, broad, mid and narrow phase; no rendering) for
//! N = 100, 1,000 and 10,000 rotating 64×64 sprites at a fixed density, and the tutorials'
//! way (every pair's boxes, then the color loop) at N = 100 to 3,000. The summary also
//! writes `docs/crowd-steps.svg`, step time against N on log-log axes.
//!
//! Density: the world is a square holding 4 × 64² px² per body, so sprite rectangles would
//! cover a quarter of it; bodies move at 20–120 px/s and turn at up to 2 rad/s, bouncing
//! off the walls, and every measured step moves them 1/60 s first.
//!
//! Groups: `step/{serial,parallel}/N` (default broad phase), `broad/{sap,hash,grid,fat_grid}/N`
//! (the broad phase alone on recorded frames of boxes), `tutorial/1000`. After them, a
//! summary on stderr from its own timing (the mean of consecutive steps, since the default
//! broad phase's cost comes in bursts, in the best of five rounds, for ours and the
//! tutorials' way alike): the growth 10k/1k, the speedup over the tutorials' way at 1k,
//! serial vs parallel, and the pair counts.
//!
//!   cargo bench -p pixel_collide_game --bench crowd

mod common;

use std::hint::black_box;
use std::time::{Duration, Instant};

use bevy_math::bounding::Aabb2d;
use bevy_math::bounding::IntersectsVolume;
use bevy_math::{Affine2, Vec2};
use common::{SIDE, bodies, bounds, images, masks};
use criterion::{BenchmarkId, Criterion};
use pixel_collide::BitMask;
use pixel_collide::broad_phase::{
    BroadPhase, DefaultBroadPhase, FatBoxes, SpatialHash, SweepAndPrune, UniformGrid,
};
use pixel_collide::{sprite_to_world, world_bounds};
use pixel_collide_game::sim::crowd::{CrowdBody, CrowdStats, CrowdWorld};
use pixel_collide_support::baseline::{ColorArray, intersect_pixels_transformed};

const SIZES: [usize; 3] = [100, 1_000, 10_000];
const DT: f32 = 1.0 / 60.0;

fn world<B: BroadPhase>(n: usize, masks: &[BitMask], broad: B) -> CrowdWorld<B> {
    let mut world =
        CrowdWorld::with_broad_phase(masks.to_vec(), bounds(n), bodies(n, 7, masks.len()), broad);
    // Warm up: the first step sorts from scratch and builds the masks' distance fields.
    for _ in 0..3 {
        world.step(DT);
    }
    world
}

/// Boxes of consecutive frames, played back and forth so motion stays frame-sized.
fn recorded_boxes(n: usize, masks: &[BitMask]) -> Vec<Vec<Aabb2d>> {
    let mut w = world(n, masks, DefaultBroadPhase::default());
    let mut frames: Vec<Vec<Aabb2d>> = (0..32)
        .map(|_| {
            w.step(DT);
            w.boxes().to_vec()
        })
        .collect();
    let back: Vec<_> = frames.iter().rev().skip(1).cloned().collect();
    frames.extend(back);
    frames
}

fn threads() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get())
}

fn benches(c: &mut Criterion, masks: &[BitMask], images: &[Vec<u8>]) {
    let mut group = c.benchmark_group("step");
    for n in SIZES {
        let mut w = world(n, masks, DefaultBroadPhase::default());
        group.bench_function(BenchmarkId::new("serial", n), |b| {
            b.iter(|| {
                w.advance(DT);
                w.collide();
                black_box(w.stats().contacts)
            })
        });
        let mut w = world(n, masks, DefaultBroadPhase::default());
        group.bench_function(BenchmarkId::new("parallel", n), |b| {
            b.iter(|| {
                w.advance(DT);
                w.collide_par(threads());
                black_box(w.stats().contacts)
            })
        });
    }
    group.finish();

    let mut group = c.benchmark_group("broad");
    for n in SIZES {
        let frames = recorded_boxes(n, masks);
        let mut pairs = Vec::new();
        let mut run = |b: &mut criterion::Bencher, broad: &mut dyn BroadPhase| {
            let mut k = 0;
            b.iter(|| {
                broad.update(&frames[k % frames.len()], &mut pairs);
                k += 1;
                black_box(pairs.len())
            })
        };
        let mut sap = SweepAndPrune::new();
        group.bench_function(BenchmarkId::new("sap", n), |b| run(b, &mut sap));
        let mut hash = SpatialHash::new();
        group.bench_function(BenchmarkId::new("hash", n), |b| run(b, &mut hash));
        let mut grid = UniformGrid::new();
        group.bench_function(BenchmarkId::new("grid", n), |b| run(b, &mut grid));
        let mut fat = FatBoxes::new(UniformGrid::new());
        group.bench_function(BenchmarkId::new("fat_grid", n), |b| run(b, &mut fat));
    }
    group.finish();

    let mut group = c.benchmark_group("tutorial");
    group.measurement_time(Duration::from_secs(1));
    group.warm_up_time(Duration::from_millis(300));
    let colors = color_arrays(images);
    let mut w = world(1_000, masks, DefaultBroadPhase::default());
    let mut touching = Vec::new();
    group.bench_function(BenchmarkId::from_parameter(1_000), |b| {
        b.iter(|| {
            w.advance(DT);
            black_box(collide_all_pairs_tutorial(
                &w.bodies,
                &colors,
                &mut touching,
            ))
        })
    });
    group.finish();
}

fn color_arrays(images: &[Vec<u8>]) -> Vec<ColorArray<'_>> {
    images
        .iter()
        .map(|rgba| ColorArray {
            width: SIDE,
            height: SIDE,
            rgba,
        })
        .collect()
}

/// Rounds of consecutive steps, each timed as a whole.
const ROUNDS: usize = 5;

/// The lowest of [`ROUNDS`] means of `steps` consecutive calls, with the two numbers `f`
/// returns summed over that round. A round holds many steps, the fat boxes' rebuilds
/// among them; the lowest round is the one least disturbed by other work on the machine,
/// and ours and the tutorials' way are timed alike.
fn best_round(steps: usize, mut f: impl FnMut() -> (u64, u64)) -> (Duration, (u64, u64)) {
    (0..ROUNDS)
        .map(|_| {
            let (mut a, mut b) = (0, 0);
            let t = Instant::now();
            for _ in 0..steps {
                let (x, y) = f();
                a += x;
                b += y;
            }
            (t.elapsed() / steps as u32, (a, b))
        })
        .min_by_key(|round| round.0)
        .expect("ROUNDS > 0")
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Milliseconds of boxes + broad phase per step of `world`, in its [`best_round`].
fn mean_broad<B: BroadPhase>(steps: usize, world: &mut CrowdWorld<B>) -> f64 {
    let (_, (broad, _)) = best_round(steps, || {
        world.step(DT);
        (world.stats().broad_ns, 0)
    });
    broad as f64 / steps as f64 / 1e6
}

fn summary(masks: &[BitMask], images: &[Vec<u8>]) {
    eprintln!(
        "\n== crowd summary (mean per step in the best of {ROUNDS} rounds, {} threads for \
         parallel) ==",
        threads()
    );
    let serial: Vec<Duration> = SIZES.iter().map(|&n| summary_row(n, masks)).collect();
    let tutorial = tutorial_rows(masks, images, &serial);
    let ours: Vec<(usize, f64)> = SIZES
        .iter()
        .zip(&serial)
        .map(|(&n, &t)| (n, ms(t)))
        .collect();
    // Timed in a debug build, as `cargo test --all-targets` runs a bench, the figures mean
    // nothing: the committed chart is only redrawn by `cargo bench`, which passes `--bench`.
    if !std::env::args().any(|arg| arg == "--bench") {
        eprintln!("chart: not redrawn (run as a test)");
        return;
    }
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/crowd-steps.svg");
    match std::fs::write(&path, step_chart(&ours, &tutorial)) {
        Ok(()) => eprintln!("chart: {}", path.display()),
        Err(err) => eprintln!("chart not written to {}: {err}", path.display()),
    }
}

/// The summary's line for `n` bodies: the serial and parallel step, each broad phase's
/// boxes, the pair counts. Returns the serial step's time.
fn summary_row(n: usize, masks: &[BitMask]) -> Duration {
    let steps = if n >= 10_000 { 40 } else { 200 };
    let mut w = world(n, masks, DefaultBroadPhase::default());
    let (t_serial, (broad, narrow)) = best_round(steps, || {
        w.step(DT);
        (w.stats().broad_ns, w.stats().narrow_ns)
    });
    let s = w.stats();
    let mut w = world(n, masks, DefaultBroadPhase::default());
    let (t_par, _) = best_round(steps, || {
        w.advance(DT);
        w.collide_par(threads());
        (0, 0)
    });
    let per_step = |ns: u64| ns as f64 / steps as f64 / 1e6;
    let mut grid = world(n, masks, UniformGrid::new());
    let grid_broad = mean_broad(steps, &mut grid);
    let mut sap = world(n, masks, SweepAndPrune::new());
    let sap_broad = mean_broad(steps, &mut sap);
    let mut hash = world(n, masks, SpatialHash::new());
    let hash_broad = mean_broad(steps, &mut hash);
    eprintln!(
        "N={n:>6}: serial {:.3} ms (broad {:.3} + narrow {:.3}), parallel {:.3} ms \
         (x{:.2}); boxes + broad phase: fat-box grid {:.3} ms, grid {:.3} ms, \
         hash {:.3} ms, sweep-and-prune {:.3} ms; {} candidate pairs, {} pixel tests, \
         {} contacts",
        ms(t_serial),
        per_step(broad),
        per_step(narrow),
        ms(t_par),
        t_serial.as_secs_f64() / t_par.as_secs_f64(),
        per_step(broad),
        grid_broad,
        hash_broad,
        sap_broad,
        s.candidate_pairs,
        s.pixel_tests,
        s.contacts,
    );
    t_serial
}

/// The tutorials' way (every pair, then the color loops) at 1,000 bodies against ours
/// (`serial`, a step per size of [`SIZES`]), then at the chart's other sizes: each size
/// with its milliseconds a step.
fn tutorial_rows(masks: &[BitMask], images: &[Vec<u8>], serial: &[Duration]) -> Vec<(usize, f64)> {
    let colors = color_arrays(images);
    let mut w = world(1_000, masks, DefaultBroadPhase::default());
    let mut touching = Vec::new();
    let mut stats = Default::default();
    let (t_tutorial, _) = best_round(4, || {
        w.advance(DT);
        stats = collide_all_pairs_tutorial(&w.bodies, &colors, &mut touching);
        (0, 0)
    });
    w.collide();
    let agree = touching
        .iter()
        .zip(w.touching())
        .filter(|(a, b)| a == b)
        .count();
    eprintln!(
        "tutorial N=1000: {:.3} ms (all-pairs boxes {:.3} + color loops {:.3}); {} box pairs, \
         {} contacts; touching flags agree with ours on {agree}/1000 bodies",
        ms(t_tutorial),
        stats.broad_ns as f64 / 1e6,
        stats.narrow_ns as f64 / 1e6,
        stats.candidate_pairs,
        stats.contacts,
    );
    eprintln!(
        "growth 10k/1k: x{:.1} (10x the bodies); speedup over the tutorials' way at 1k: x{:.0}",
        serial[2].as_secs_f64() / serial[1].as_secs_f64(),
        t_tutorial.as_secs_f64() / serial[1].as_secs_f64(),
    );
    // All pairs: 10,000 would take half a second a step, so it stops at 3,000.
    let mut tutorial = vec![];
    for n in TUTORIAL_SIZES {
        let t = if n == 1_000 {
            t_tutorial
        } else {
            let mut w = world(n, masks, DefaultBroadPhase::default());
            best_round(if n > 1_000 { 2 } else { 20 }, || {
                w.advance(DT);
                collide_all_pairs_tutorial(&w.bodies, &colors, &mut touching);
                (0, 0)
            })
            .0
        };
        eprintln!("tutorial N={n}: {:.3} ms", ms(t));
        tutorial.push((n, ms(t)));
    }
    tutorial
}

/// Sizes the tutorials' way is timed at for the chart.
const TUTORIAL_SIZES: [usize; 4] = [100, 300, 1_000, 3_000];

/// A log–log chart of milliseconds per step against N, ours and the tutorials', as a
/// hand-written SVG: no plotting dependency for one chart, and it diffs as text.
fn step_chart(ours: &[(usize, f64)], tutorial: &[(usize, f64)]) -> String {
    let (w, h, left, bottom, top, right) = (640.0, 400.0, 70.0, 50.0, 40.0, 150.0);
    let (n_lo, n_hi) = (50f64.log10(), 20_000f64.log10());
    let all = ours.iter().chain(tutorial).map(|&(_, t)| t.max(1e-4));
    let t_lo = all.clone().fold(f64::INFINITY, f64::min).log10().floor();
    let t_hi = all.fold(0.0, f64::max).log10().ceil();
    let x = |n: usize| left + ((n as f64).log10() - n_lo) / (n_hi - n_lo) * (w - left - right);
    let y = |t: f64| h - bottom - (t.max(1e-4).log10() - t_lo) / (t_hi - t_lo) * (h - bottom - top);
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" \
         font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" \
         fill=\"white\"/>\n<text x=\"{left}\" y=\"22\" font-size=\"14\">Crowd collision step, \
         ms per step (log) against sprites (log)</text>\n"
    );
    for e in t_lo as i32..=t_hi as i32 {
        let yy = y(10f64.powi(e));
        svg += &format!(
            "<line x1=\"{left}\" x2=\"{}\" y1=\"{yy:.1}\" y2=\"{yy:.1}\" stroke=\"#ddd\"/>\
             <text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>\n",
            w - right,
            left - 6.0,
            yy + 4.0,
            10f64.powi(e)
        );
    }
    for n in [100, 1_000, 10_000] {
        let xx = x(n);
        svg += &format!(
            "<line x1=\"{xx:.1}\" x2=\"{xx:.1}\" y1=\"{top}\" y2=\"{}\" stroke=\"#ddd\"/>\
             <text x=\"{xx:.1}\" y=\"{}\" text-anchor=\"middle\">{n}</text>\n",
            h - bottom,
            h - bottom + 18.0
        );
    }
    for (points, color, label) in [
        (ours, "#1f77b4", "ours (serial)"),
        (tutorial, "#d62728", "tutorials' all pairs"),
    ] {
        let path: Vec<String> = points
            .iter()
            .map(|&(n, t)| format!("{:.1},{:.1}", x(n), y(t)))
            .collect();
        svg += &format!(
            "<polyline points=\"{}\" fill=\"none\" stroke=\"{color}\" stroke-width=\"2\"/>\n",
            path.join(" ")
        );
        for &(n, t) in points {
            svg += &format!(
                "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"{color}\"><title>N={n}: \
                 {t:.3} ms</title></circle>\n",
                x(n),
                y(t)
            );
        }
        if let Some(&(n, t)) = points.last() {
            svg += &format!(
                "<text x=\"{:.1}\" y=\"{:.1}\" fill=\"{color}\">{label}</text>\n",
                x(n) + 8.0,
                y(t) + 4.0
            );
        }
    }
    svg + "</svg>\n"
}

/// The tutorials' way, for comparison: each sprite's full rectangle
/// turned into a bounding box (XNA's `CalculateBoundingRectangle`), every pair's boxes
/// tested, then the per-pixel color loop
/// [`intersect_pixels_transformed`](pixel_collide_support::baseline::intersect_pixels_transformed)
/// (alpha > 0) on the pairs whose boxes touch.
///
/// `sprites[k]` is the RGBA image of sprite `k`; `touching` is replaced by one flag per
/// body. A pair `(i, j)`, `i < j`, steps body `i`'s pixels through body `j`'s image. Bodies
/// with a sprite index out of range never touch.
fn collide_all_pairs_tutorial(
    bodies: &[CrowdBody],
    sprites: &[ColorArray<'_>],
    touching: &mut Vec<bool>,
) -> CrowdStats {
    let start = Instant::now();
    let placed: Vec<Option<(Affine2, Aabb2d)>> = bodies
        .iter()
        .map(|body| {
            let sprite = sprites.get(body.sprite)?;
            let to_world = sprite_to_world(
                body.position,
                body.angle,
                Vec2::splat(body.scale),
                (sprite.width, sprite.height),
            );
            Some((
                to_world,
                world_bounds((sprite.width, sprite.height), to_world),
            ))
        })
        .collect();
    let mut pairs = Vec::new();
    for (i, a) in placed.iter().enumerate() {
        let Some((_, box_a)) = a else { continue };
        for (j, b) in placed.iter().enumerate().skip(i + 1) {
            if let Some((_, box_b)) = b
                && box_a.intersects(box_b)
            {
                pairs.push((i, j));
            }
        }
    }
    let broad_done = Instant::now();

    touching.clear();
    touching.resize(bodies.len(), false);
    let mut contacts = 0;
    for &(i, j) in &pairs {
        let (Some((a_to_world, _)), Some((b_to_world, _))) = (placed[i], placed[j]) else {
            continue;
        };
        let a = sprites[bodies[i].sprite];
        let b = sprites[bodies[j].sprite];
        if intersect_pixels_transformed(a, a_to_world, b, b_to_world, 0) {
            touching[i] = true;
            touching[j] = true;
            contacts += 1;
        }
    }
    let done = Instant::now();
    CrowdStats {
        candidate_pairs: pairs.len(),
        pixel_tests: pairs.len(),
        contacts,
        broad_ns: tutorial_nanos(broad_done - start),
        narrow_ns: tutorial_nanos(done - broad_done),
    }
}

fn tutorial_nanos(d: std::time::Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

fn main() {
    let images = images();
    let masks = masks(&images);
    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .configure_from_args();
    benches(&mut c, &masks, &images);
    c.final_summary();
    summary(&masks, &images);
}
