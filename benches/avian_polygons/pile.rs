//! The pile: N bodies dropped into a bowl of pixel terrain, each side's pile of a seed
//! stepped in turn, judged as it goes; and `--timeline`'s seconds.

use avian2d::dynamics::solver::constraint_graph::ConstraintGraph;
use avian2d::prelude::*;
use bevy::prelude::*;
use image::RgbaImage;
use pixel_collide_support::rng::SplitMix64;

use crate::app::{ContactSettings, PhaseClock, StepTime, physics_app, step};
use crate::colliders::Shape;
use crate::deep::DeepPairs;
use crate::judge::{Body, Judgement, judge};
use crate::report::mean;
use crate::scene::{Ground, spawn_body, spawn_ground};
use crate::{BOWL, BOWL_CURVE, BOWL_WALL, JUDGE_EVERY, LAST_STEPS, SEED, Side};

pub fn bowl_image() -> RgbaImage {
    let (w, h) = BOWL;
    RgbaImage::from_fn(w, h, |x, y| {
        let u = (x as f32 + 0.5 - w as f32 / 2.0) / (w as f32 / 2.0);
        let floor = (h - BOWL_WALL) as f32 - BOWL_CURVE * u * u;
        let solid = x < BOWL_WALL || x >= w - BOWL_WALL || y as f32 + 0.5 >= floor;
        if solid {
            image::Rgba([120, 90, 60, 255])
        } else {
            image::Rgba([0, 0, 0, 0])
        }
    })
}

/// Starting poses of a pile of `n`: rows across the bowl from just above its rim upwards,
/// each body a little off its cell's center and turned a little.
fn pile_poses(n: usize, seed: u64) -> Vec<(usize, Vec2, f32)> {
    const PITCH: f32 = 76.0;
    let (w, h) = (BOWL.0 as f32, BOWL.1 as f32);
    let inner = w - 2.0 * BOWL_WALL as f32 - PITCH;
    let columns = (inner / PITCH).floor() as usize;
    let rim = -h / 2.0 + BOWL_WALL as f32 + BOWL_CURVE;
    let mut rng = SplitMix64(SEED ^ seed);
    (0..n)
        .map(|k| {
            let (row, column) = (k / columns, k % columns);
            let x = (column as f32 - (columns - 1) as f32 / 2.0) * PITCH + rng.range(-4.0, 4.0);
            let y = rim + PITCH * (row as f32 + 1.0);
            (k % 6, Vec2::new(x, y), rng.range(-0.2, 0.2))
        })
        .collect()
}

pub struct PileRun {
    pub side: Side,
    pub n: usize,
    pub steps: Vec<StepTime>,
    pub during: Judgement,
    pub end: Judgement,
    pub worst_escaped: usize,
    pub worst_sunk: usize,
    /// Each seed's bodies resting and asleep at the end.
    pub settled: Vec<(usize, usize)>,
    /// The mean step of each seed's last 2 s.
    pub last: Vec<f64>,
}

impl PileRun {
    /// The runs of one N and side over several seeds as one: their steps together, the
    /// deepest overlaps of any, each seed's end.
    pub fn pooled(runs: Vec<PileRun>) -> PileRun {
        let mut runs = runs.into_iter();
        let mut all = runs.next().expect("at least one seed");
        for r in runs {
            all.steps.extend(r.steps);
            if r.during.bodies.deepest > all.during.bodies.deepest {
                all.during.deepest_pair_local = r.during.deepest_pair_local;
            }
            all.during.ground.merge(r.during.ground);
            all.during.bodies.merge(r.during.bodies);
            all.during.local = all.during.local.max(r.during.local);
            all.end.ground.merge(r.end.ground);
            all.end.bodies.merge(r.end.bodies);
            all.end.local = all.end.local.max(r.end.local);
            all.worst_escaped = all.worst_escaped.max(r.worst_escaped);
            all.worst_sunk = all.worst_sunk.max(r.worst_sunk);
            all.settled.extend(r.settled);
            all.last.extend(r.last);
        }
        all
    }
}

/// One side's pile being stepped.
struct Pile {
    app: App,
    side: Side,
    n: usize,
    times: Vec<StepTime>,
    was_touching: std::collections::HashSet<(Entity, Entity)>,
    stopped: usize,
    during: Judgement,
    worst_escaped: usize,
    worst_sunk: usize,
    deep: DeepPairs,
}

impl Pile {
    fn new(
        shapes: &[Shape],
        bowl: &Ground,
        side: Side,
        n: usize,
        contacts: ContactSettings,
        seed: u64,
    ) -> Pile {
        let mut app = physics_app(side, contacts);
        spawn_ground(&mut app, bowl, side);
        for (sprite, at, angle) in pile_poses(n, seed) {
            spawn_body(&mut app, shapes, side, sprite, at, angle);
        }
        Pile {
            app,
            side,
            n,
            times: Vec::new(),
            was_touching: std::collections::HashSet::new(),
            stopped: 0,
            during: Judgement::default(),
            worst_escaped: 0,
            worst_sunk: 0,
            deep: DeepPairs::default(),
        }
    }

    /// Step `k` (from 0), timed, then judged every [`JUDGE_EVERY`] steps.
    fn advance(&mut self, k: usize, shapes: &[Shape], bowl: &Ground, trace: Trace) {
        if trace.deep.is_some() {
            self.deep.before_step(&mut self.app);
        }
        self.times.push(step(&mut self.app));
        if let Some(depth) = trace.deep {
            self.deep.after_step(&mut self.app, shapes, k, depth);
        }
        if trace.timeline {
            let now = touching_pairs(&mut self.app);
            self.stopped += self.was_touching.difference(&now).count();
            self.was_touching = now;
            if k % 60 == 59 {
                let stopped = std::mem::take(&mut self.stopped);
                print_second(&mut self.app, self.side, &self.times[k - 59..], stopped);
            }
        }
        if k % JUDGE_EVERY == JUDGE_EVERY - 1 {
            let now = judge(&mut self.app, shapes, &bowl.mask, true);
            if now.bodies.deepest > self.during.bodies.deepest {
                self.during.deepest_pair_local = now.deepest_pair_local;
            }
            self.during.ground.merge(now.ground);
            self.during.bodies.merge(now.bodies);
            self.during.local = self.during.local.max(now.local);
            self.worst_escaped = self.worst_escaped.max(now.escaped);
            self.worst_sunk = self.worst_sunk.max(now.sunk);
        }
    }

    fn finish(mut self, shapes: &[Shape], bowl: &Ground) -> PileRun {
        let end = judge(&mut self.app, shapes, &bowl.mask, true);
        let last = mean(self.times.iter().rev().take(LAST_STEPS).map(|s| s.total));
        PileRun {
            side: self.side,
            n: self.n,
            steps: self.times,
            during: self.during,
            end,
            worst_escaped: self.worst_escaped.max(end.escaped),
            worst_sunk: self.worst_sunk.max(end.sunk),
            settled: vec![(end.resting, end.asleep)],
            last: vec![last],
        }
    }
}

/// What to print as piles run, besides their tables.
#[derive(Clone, Copy, Default)]
pub struct Trace {
    /// `--timeline`: each simulated second (see [`print_second`]).
    pub timeline: bool,
    /// `--deep T`: each pair of bodies deeper than this, px (see [`DeepPairs`]).
    pub deep: Option<f32>,
}

/// Each side's pile of `n` from one seed, stepped in turn, a step of one and a step of
/// the other: a shared machine's speed drifts within a run (here by up to 1.8 times
/// between two piles at rest), and both sides then see the same drift.
pub fn run_piles(
    shapes: &[Shape],
    bowl: &Ground,
    sides: &[Side],
    n: usize,
    steps: usize,
    contacts: ContactSettings,
    seed: u64,
    trace: Trace,
) -> Vec<PileRun> {
    let mut piles: Vec<Pile> = sides
        .iter()
        .map(|&side| Pile::new(shapes, bowl, side, n, contacts, seed))
        .collect();
    for k in 0..steps {
        for pile in &mut piles {
            pile.advance(k, shapes, bowl, trace);
        }
    }
    piles
        .into_iter()
        .map(|pile| {
            if let Some(depth) = trace.deep {
                let (side, count) = (pile.side.name(), pile.deep.count);
                eprintln!("  deep: {side}, {count} pairs past {depth} px");
            }
            pile.finish(shapes, bowl)
        })
        .collect()
}

/// The pairs avian counts as touching, awake or asleep.
fn touching_pairs(app: &mut App) -> std::collections::HashSet<(Entity, Entity)> {
    let graph = app.world().resource::<ContactGraph>();
    graph
        .iter_active_touching()
        .chain(graph.iter_sleeping_touching())
        .map(|pair| (pair.collider1, pair.collider2))
        .collect()
}

/// One simulated second of a run, for `--timeline`: its mean step, narrow phase and
/// solver, the bodies asleep and pairs touching at its end, and how many times in it a
/// pair stopped touching (an island a contact has left cannot sleep until it is split).
fn print_second(app: &mut App, side: Side, second: &[StepTime], stopped: usize) {
    let touching = touching_pairs(app).len();
    // What the solver is given: awake pairs' manifolds (a constraint each) and points,
    // and of those the speculative ones (apart, a negative depth); and how many colors
    // avian's constraint graph needed (each color is a pass of its own, per substep).
    let (mut manifolds, mut points, mut speculative) = (0, 0, 0);
    for pair in app.world().resource::<ContactGraph>().iter_active() {
        manifolds += pair.manifolds.len();
        for manifold in &pair.manifolds {
            points += manifold.points.len();
            speculative += manifold
                .points
                .iter()
                .filter(|p| p.penetration < 0.0)
                .count();
        }
    }
    let colors = app
        .world()
        .resource::<ConstraintGraph>()
        .colors
        .iter()
        .filter(|color| !color.manifold_handles.is_empty())
        .count();
    let world = app.world_mut();
    let asleep = world
        .query_filtered::<(), (With<Body>, With<Sleeping>)>()
        .iter(world)
        .count();
    // Bodies avian found moving (over its sleep thresholds) within the last second: any
    // one of them keeps its whole island awake.
    let (mut stirred, mut fastest, mut fastest_turn) = (0, 0.0f32, 0.0f32);
    for (timer, velocity, spin) in world
        .query_filtered::<(&SleepTimer, &LinearVelocity, &AngularVelocity), With<Body>>()
        .iter(world)
    {
        if timer.0 < 1.0 - 1e-3 {
            stirred += 1;
            fastest = fastest.max(velocity.0.length());
            fastest_turn = fastest_turn.max(spin.0.abs());
        }
    }
    let second_number = world.resource::<PhaseClock>().steps / 60;
    eprintln!(
        "  {} {second_number:>2} s: step {:.2} ms, narrow {:.2}, solver {:.2}; asleep {asleep}, touching {touching}, stopped {stopped}; constraints {manifolds} ({points} points, {speculative} apart) in {colors} colors; stirred {stirred} (now up to {fastest:.1} px/s, {fastest_turn:.2} rad/s)",
        side.name(),
        mean(second.iter().map(|s| s.total)),
        mean(second.iter().map(|s| s.narrow)),
        mean(second.iter().map(|s| s.solver)),
    );
}
