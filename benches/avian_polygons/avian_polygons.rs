//! Pixel masks against polygons in avian2d 0.7: the same scenes played twice in one run,
//! once with our `MaskCollider`s and once with the polygon colliders a Bevy user makes
//! from the same images today: bevy_collider_gen 0.8's outline of each image (the `edges`
//! crate), made convex with avian's `Collider::convex_decomposition` for moving bodies (as
//! collider_gen's README shows) and its `polyline` for static ground. Both sides share the
//! solver settings, substeps, time step, seeds and starting poses.
//!
//! - **Pile**: N bodies of six of the game's sprites (crate, stone, clover, flower,
//!   basketball, gem; 32 to 64 px) dropped into a static bowl of pixel terrain, stepped
//!   for 10 simulated seconds.
//! - **Crater**: the terrain scene's ground at 2,048 × 1,024 with balls and stones at rest
//!   on it; craters of radius 40 are carved, and each side rebuilds the terrain's collider
//!   (ours: the edited mask; theirs: polygons made again from the edited image).
//!
//! Our exact overlap ([`transformed_overlap`]) is the judge for both sides: each body's
//! mask is placed where avian put the body, and every pair whose pixels overlap is
//! measured: how far one must move to clear the other, to an eighth of a pixel (see
//! [`penetration`]), and how many rows deep the deepest overlapping pixel lies in the other
//! sprite ([`local_depth`]), for the deepest pair too: a deep penetration a few rows deep is
//! concave sprites interlocked, not one sunk into the other. A step's time is one `App::update` that ran one
//! physics step, split into avian's broad phase, narrow phase (contacts) and solver by
//! systems between its sets.
//!
//!   cargo bench --manifest-path benches/avian_polygons/Cargo.toml -- [--quick] [--chart F]
//!
//! Each pile is dropped `--seeds K` times (10; 1 with `--quick`), its bodies placed from a
//! different seed each time: a pile is chaotic (one rounding changes which bodies lock
//! together and when the pile sleeps), and over 3 seeds one late sleeper moved the
//! masks' mean step time at 200 by about 15%. Both sides' piles of a seed are stepped in turn (see
//! [`run_piles`]). `--quick`: 50 bodies for 2 s only; `--sizes 200,500`,
//! `--side masks|polygons` and `--pile-only` run part of it (for a profiler); `--timeline`
//! prints each simulated second's step time, bodies asleep or stirring, pairs touching and
//! what the solver was given (constraints, points, colors);
//! `--reuse T` sets how far a mask pair may move before its contact is found again
//! ([`MaskContacts::tolerance`]), and `--predict T` how far its turns may swing it within
//! a step before it is also tested where it would be at the step's end
//! ([`MaskContacts::prediction_threshold`]; `inf` for never). `--deep T` judges every
//! step and prints each pair of bodies that sinks past `T` px, with the contacts avian
//! gave it (see `deep.rs`). `--chart F`: the step
//! times as an SVG chart, `F` relative to the repository (README's is
//! `docs/avian-polygons.svg`).
//!
//! [`transformed_overlap`]: pixel_collide::transformed_overlap
//! [`penetration`]: judge::penetration
//! [`local_depth`]: judge::local_depth
//! [`run_piles`]: pile::run_piles
//! [`MaskContacts::tolerance`]: bevy_pixel_collide::avian::MaskContacts::tolerance

use std::alloc::System;

use bevy_pixel_collide::avian::{DEFAULT_PREDICTION_THRESHOLD, DEFAULT_TOLERANCE};
use stats_alloc::{INSTRUMENTED_SYSTEM, StatsAlloc};

use app::ContactSettings;
use colliders::{Shape, shape, sprite_images};
use crater::run_crater;
use pile::{PileRun, Trace, bowl_image, run_piles};
use scene::Ground;

mod app;
mod chart;
mod colliders;
mod crater;
mod deep;
mod judge;
mod pile;
mod report;
mod scene;

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

const STEP: f64 = 1.0 / 60.0;
/// The game's (`src/physics.rs`).
const GRAVITY: f32 = 900.0;
const LENGTH_UNIT: f32 = 20.0;
/// The terrain scene's pieces.
const FRICTION: f32 = 0.7;
const RESTITUTION: f32 = 0.1;
/// The terrain scene's rest test: slower than this, px/s and rad/s.
const REST_SPEED: f32 = 25.0;
const REST_TURN: f32 = 0.3;
/// The bowl: its image, the thickness of its walls and floor, how much higher its floor is
/// at the walls than in the middle.
const BOWL: (u32, u32) = (2048, 2048);
const BOWL_WALL: u32 = 48;
const BOWL_CURVE: f32 = 300.0;
/// The steps of a pile's last two seconds, when a pile that settles has gone to sleep.
const LAST_STEPS: usize = 120;

/// Pixels are judged every this many steps, and after the last.
const JUDGE_EVERY: usize = 6;
const SEED: u64 = 0x5eed_a71a;
const CRATER_RADIUS: f32 = 40.0;
const TERRAIN_SIZE: (u32, u32) = (2048, 1024);

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Side {
    Masks,
    Polygons,
}

impl Side {
    fn name(self) -> &'static str {
        match self {
            Side::Masks => "masks",
            Side::Polygons => "polygons",
        }
    }
}

/// The command line's options.
struct Options {
    chart_path: Option<String>,
    sizes: Vec<usize>,
    sides: Vec<Side>,
    steps: usize,
    seeds: u64,
    contacts: ContactSettings,
    trace: Trace,
    pile_only: bool,
}

impl Options {
    fn parse() -> Options {
        let args: Vec<String> = std::env::args().collect();
        // cargo bench passes --bench; only ours count.
        let quick = args.iter().any(|a| a == "--quick");
        let chart_path = args
            .iter()
            .position(|a| a == "--chart")
            .and_then(|k| args.get(k + 1).cloned());
        let value = |flag: &str| {
            args.iter()
                .position(|a| a == flag)
                .and_then(|k| args.get(k + 1).cloned())
        };
        let sizes: Vec<usize> = match value("--sizes") {
            Some(list) => list
                .split(',')
                .map(|n| {
                    n.parse()
                        .expect("--sizes: a list of body counts, as 50,200")
                })
                .collect(),
            None if quick => vec![50],
            None => vec![50, 200, 500],
        };
        let sides: Vec<Side> = match value("--side").as_deref() {
            None => vec![Side::Masks, Side::Polygons],
            Some("masks") => vec![Side::Masks],
            Some("polygons") => vec![Side::Polygons],
            Some(other) => panic!("--side {other}: masks or polygons"),
        };
        let steps = if quick { 120 } else { 600 };
        // Whether a pile falls asleep within the 10 s, and so how much its last seconds cost,
        // turns on small differences in how the bodies land: one seed can leave a pile awake
        // that the next puts to sleep, on either side.
        let seeds: u64 = value("--seeds").map_or(if quick { 1 } else { 10 }, |k| {
            k.parse()
                .ok()
                .filter(|&k| k > 0)
                .expect("--seeds: how many drops of each pile, as 10")
        });
        let tolerance: f32 = value("--reuse").map_or(DEFAULT_TOLERANCE, |t| {
            t.parse()
                .expect("--reuse: a distance in px, as 0.125 (0: find every contact again)")
        });
        let prediction_threshold: f32 =
            value("--predict").map_or(DEFAULT_PREDICTION_THRESHOLD, |t| {
                t.parse()
                    .expect("--predict: a distance in px, as 1.5 (inf: never)")
            });
        let contacts = ContactSettings {
            tolerance,
            prediction_threshold,
        };

        let trace = Trace {
            timeline: args.iter().any(|a| a == "--timeline"),
            deep: value("--deep").map(|t| {
                t.parse()
                    .expect("--deep: a depth in px past which pairs are printed, as 8")
            }),
        };
        let pile_only = args.iter().any(|a| a == "--pile-only");
        Options {
            chart_path,
            sizes,
            sides,
            steps,
            seeds,
            contacts,
            trace,
            pile_only,
        }
    }
}

/// Every pile: each N's seeds in turn, both sides of a seed stepped together, and each
/// N and side's seeds pooled.
fn piles(shapes: &[Shape], options: &Options) -> Vec<PileRun> {
    let bowl = Ground::new(bowl_image());
    let mut runs = Vec::new();
    for &n in &options.sizes {
        let mut each: Vec<Vec<PileRun>> = options.sides.iter().map(|_| Vec::new()).collect();
        for seed in 0..options.seeds {
            eprintln!("avian_polygons: piles of {n}, seed {seed}");
            let piles = run_piles(
                shapes,
                &bowl,
                &options.sides,
                n,
                options.steps,
                options.contacts,
                seed,
                options.trace,
            );
            for (runs_of_side, run) in each.iter_mut().zip(piles) {
                runs_of_side.push(run);
            }
        }
        runs.extend(each.into_iter().map(PileRun::pooled));
    }
    runs
}

/// The crater, each side in turn, and its table.
fn craters(shapes: &[Shape], contacts: ContactSettings) {
    let terrain = crater::terrain_image();
    let craters = [-600.0, -300.0, 0.0, 300.0, 600.0];
    report::print_crater_head(craters.len());
    for side in [Side::Masks, Side::Polygons] {
        eprintln!("avian_polygons: crater, {}", side.name());
        let r = run_crater(shapes, &terrain, side, &craters, contacts);
        report::print_crater(r);
    }
}

fn main() {
    let options = Options::parse();

    eprintln!("avian_polygons: building colliders");
    let shapes: Vec<Shape> = sprite_images()
        .iter()
        .map(|(name, image)| shape(name, image))
        .collect();
    report::print_colliders(&shapes);

    let runs = piles(&shapes, &options);
    report::print_mask_heaps(&shapes);
    report::print_piles(&runs, options.seeds, options.steps);
    report::print_slowest_steps(&runs);
    if options.sizes.len() > 1 {
        report::print_growth(&runs);
    }

    if options.pile_only {
        return;
    }
    craters(&shapes, options.contacts);

    if let Some(path) = options.chart_path {
        chart::write_chart(path, &runs);
    }
}
