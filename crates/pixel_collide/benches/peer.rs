//! Side-by-side benchmark against pygame.mask: our half of `benches/peer/` (its
//! `pygame_peer.py` is pygame's, `compare.py` joins the two; `./bench.sh` runs it all).
//!
//! Reads `cases.csv`, `components.csv` and their PNGs from the fixture directory
//! (`make_fixtures.py` writes them) and prints CSV
//! `case,op,ns,result,median_ns,max_ns,spread_pct,point` on stdout with pygame_peer.py's
//! ops and columns:
//! - `overlap`, `overlap_area`: axis-aligned, B's top-left at `(dx, dy)`.
//! - `rotated_overlap`: B turned counterclockwise on screen by `angle_b_deg` about its
//!   center, its center at A's center + (dx, dy), computed from scratch for that angle
//!   (a sprite whose angle changes every frame). Only B's distance field, a property of the
//!   mask like the mask itself, is built once beforehand.
//! - `rotated_cached`: the same when the angle did not change: B's mask rotated into A's
//!   grid beforehand ([`BitMask::transformed`]), then an axis-aligned overlap.
//! - `erase`, `draw` (axis-aligned cases): [`BitMask::erase`] or [`BitMask::draw`] of B at
//!   `(dx, dy)` on a copy of A, then the edit undone, as pygame_peer.py does it (see its
//!   notes): each call is the edit and its exact undo (`gone`, B's pixels set in A, drawn
//!   back; `new`, those clear in A, erased again), so the copy is A again after every
//!   call, no copy is timed, and A's lookups stay built from call to call, kept up to date
//!   by the edits themselves. The lookups built before timing are those of a game's
//!   axis-aligned queries, which the `overlap` rows build (row spans and the bounding
//!   rectangle); `--edit-lookups all` adds those of turned sprites' queries (bounding
//!   circle, distance field, transposed copy). Result: pixels set after the edit.
//! - `connected_components` (components.csv, the terrains):
//!   [`BitMask::connected_components`], 8-connected as pygame's, every component however
//!   small (pygame's `minimum=0`). Result: how many; `point` (with `--check`): "P L", the
//!   pixels in all of them and in the largest.
//!
//! It also prints the tutorials' loops on the same masks (`tutorial_*` ops, which
//! compare.py ignores) and, on stderr, their time over ours per case, unless
//! `--no-tutorials`: bench.sh passes it, as their loops take up to a second a call.
//!
//! `--check` times nothing and prints each row's result once, with `point` (the first
//! pixel in both masks in row-major order, in A's pixels) for `overlap` hits, for
//! `compare.py --check` to hold against pygame's.
//!
//! Timing: each row's call is looped in batches calibrated to ~1 ms, and every row gets
//! one batch per round, round after round (`ROUNDS`, or `--rounds N`). A burst of load
//! from elsewhere on the machine then costs one batch of several rows, not every repeat
//! of one row, as five repeats of the same row in a row did, and a short batch often runs
//! whole between two preemptions. `ns` is the third-best batch, per call (pygame_peer.py
//! takes the best of 5), `median_ns` and `max_ns` the others; `spread_pct` is
//! (median - ns) / ns, in percent. Rows whose best is not confirmed by two more batches
//! within 3% of it get more rounds (up to `EXTRA_ROUNDS`). On stderr, the rows whose
//! spread passes 10%.
//! Run (after `./bench.sh` has written the fixtures, or `python3 benches/peer/make_fixtures.py`):
//!   cargo bench -p pixel_collide --bench peer -- "$PWD/target/peer-fixtures" > ours.csv
//! Optional case-name filters (substrings) after the directory time only those cases;
//! `--kernel portable|popcnt|avx2|avx512` forces a build of the axis-aligned word loops,
//! those of the overlaps and of the edits (default: the fastest this CPU has, as the
//! library picks); `--avx2-shifts per-lane|by-register` how the AVX2 build shifts B's
//! words (default: as the library picks for this CPU, by register on AMD Zen 1 only);
//! `--edit-lookups
//! bounds|all` chooses the lookups built before edits are timed (default `bounds`);
//! `--ops OP,OP...` keeps only the rows of those ops (e.g. `--ops erase,draw`), as
//! pygame_peer.py's option of the same name.

use std::collections::HashMap;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Instant;

use bevy_math::{Affine2, Vec2};
use pixel_collide::transformed_overlap_area;
use pixel_collide::{BitMask, Connectivity, WordKernel, transformed_intersects};
use pixel_collide_support::baseline::{self, ColorArray};

mod timing;

/// Rounds of one batch per row.
const ROUNDS: usize = 41;

/// Extra rounds, at most, for the rows whose best batch is not yet confirmed by two
/// more within [`SETTLED`] of it: calls of a millisecond or more rarely run a whole batch
/// unpreempted on a busy machine, so their best takes more batches to find.
const EXTRA_ROUNDS: usize = 120;

/// How close to the best the batches that confirm it must be.
const SETTLED: f64 = 0.03;

/// Rounds for a tutorial row whose single call takes longer than a batch (their loops on
/// big masks take up to a second): more would only make the bench slow, and compare.py
/// does not read them.
const SLOW_ROUNDS: usize = 9;

/// One CSV row to time: the call, and how many calls make a batch.
struct Timed<'a> {
    case: String,
    op: &'static str,
    result: u64,
    call: Box<dyn FnMut() + 'a>,
    calls: u64,
    slow: bool,
    ns: Vec<f64>,
    /// `overlap`'s hit as "x y", else empty.
    point: String,
}

impl<'a> Timed<'a> {
    fn new(case: &str, op: &'static str, result: u64, call: impl FnMut() + 'a) -> Self {
        Timed {
            case: case.to_string(),
            op,
            result,
            call: Box::new(call),
            calls: 0,
            slow: false,
            ns: Vec::new(),
            point: String::new(),
        }
    }

    fn with_point(mut self, point: Option<(u32, u32)>) -> Self {
        if let Some((x, y)) = point {
            self.point = format!("{x} {y}");
        }
        self
    }

    /// Enough calls for a batch of about [`timing::BATCH_SECONDS`].
    fn calibrate(&mut self) {
        let (calls, seconds) = timing::calibrate(|n| self.batch(n));
        self.calls = calls;
        self.slow = seconds > timing::BATCH_SECONDS && self.op.starts_with("tutorial_");
    }

    fn batch(&mut self, n: u64) -> f64 {
        let t = Instant::now();
        for _ in 0..n {
            (self.call)();
        }
        t.elapsed().as_secs_f64()
    }

    fn time_batch(&mut self) {
        let dt = self.batch(self.calls);
        self.ns.push(dt / self.calls as f64 * 1e9);
    }

    /// Whether two batches besides the best are within [`SETTLED`] of it.
    fn settled(&self) -> bool {
        let best = self.ns.iter().copied().fold(f64::INFINITY, f64::min);
        self.ns
            .iter()
            .filter(|&&ns| ns <= best * (1.0 + SETTLED))
            .count()
            >= 3
    }

    /// (third best, median, worst) ns per call over the batches (at least one: every row
    /// is timed for every round, and there is at least one round).
    fn stats(&self) -> (f64, f64, f64) {
        let mut ns = self.ns.clone();
        ns.sort_by(f64::total_cmp);
        let third = timing::third_best(&ns).expect("a batch a round");
        (third, ns[ns.len() / 2], ns[ns.len() - 1])
    }
}

struct Sprite {
    rgba: image::RgbaImage,
    mask: BitMask,
}

impl Sprite {
    fn colors(&self) -> ColorArray<'_> {
        ColorArray {
            width: self.rgba.width(),
            height: self.rgba.height(),
            rgba: self.rgba.as_raw(),
        }
    }
}

fn load(dir: &Path, name: &str) -> Result<Sprite, String> {
    let path = dir.join(name);
    let rgba = image::open(&path)
        .map_err(|e| format!("{}: {e}", path.display()))?
        .to_rgba8();
    let mask = BitMask::from_image(&rgba, 0);
    Ok(Sprite { rgba, mask })
}

/// B's mask-to-A transform for a rotated case: counterclockwise on screen (y down) is a
/// negative angle in mask space.
fn rotated_b(a: &BitMask, b: &BitMask, dx: f32, dy: f32, degrees: f32) -> Affine2 {
    let center = Vec2::new(a.width() as f32, a.height() as f32) / 2.0 + Vec2::new(dx, dy);
    let half_b = Vec2::new(b.width() as f32, b.height() as f32) / 2.0;
    Affine2::from_angle_translation(-degrees.to_radians(), center)
        * Affine2::from_translation(-half_b)
}

fn main() {
    let CommandLine {
        mut rounds,
        kernel,
        mut options,
        positional,
    } = parse_args();
    let mut positional = positional.into_iter();
    let dir: PathBuf = positional
        .next()
        // The workspace's target/, where ./bench.sh writes them (cargo runs a bench in its
        // crate's directory).
        .unwrap_or_else(|| {
            concat!(env!("CARGO_MANIFEST_DIR"), "/../../target/peer-fixtures").into()
        })
        .into();
    let mut filters: Vec<String> = positional.collect();
    // `cargo test --all-targets` runs the bench without `--bench`, in a debug build: on a
    // fresh clone the fixtures `./bench.sh` writes are not there yet, and that is no
    // failure; with them, the 32 px cases once each show that the bench still runs.
    let as_test = !std::env::args().any(|arg| arg == "--bench");
    if as_test {
        if !dir.join("cases.csv").exists() {
            eprintln!(
                "peer bench: no fixtures in {} (./bench.sh makes them); nothing to run",
                dir.display()
            );
            return;
        }
        rounds = 1;
        options.tutorials = false;
        if filters.is_empty() {
            filters.push("_32_".into());
        }
    }
    eprintln!("word kernel: {kernel:?}");
    if let Err(e) = run(&dir, &filters, rounds, kernel, options) {
        eprintln!("peer bench: {e}");
        std::process::exit(1);
    }
}

/// The command line: its options, and the rest in order (the fixture directory, then the
/// case-name filters).
struct CommandLine {
    rounds: usize,
    kernel: WordKernel,
    options: Options,
    positional: Vec<String>,
}

/// Reads the command line, exiting with status 2 on an option it cannot take.
fn parse_args() -> CommandLine {
    // cargo bench passes `--bench`; the rest is the fixture directory, then optional
    // case-name filters (substrings), `--rounds N`, `--kernel NAME`, `--no-tutorials` and
    // `--check`.
    let mut rounds = ROUNDS;
    let mut kernel = WordKernel::best();
    let mut options = Options {
        tutorials: true,
        check: false,
        lookups: Lookups::Bounds,
        ops: None,
    };
    let mut positional = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--rounds" {
            rounds = timing::rounds(args.next().as_deref()).unwrap_or_else(|e| {
                eprintln!("peer bench: {e}");
                std::process::exit(2);
            });
        } else if arg == "--kernel" {
            kernel = forced_kernel(&args.next().unwrap_or_default());
        } else if arg == "--avx2-shifts" {
            // How the AVX2 build shifts B's words (`WordKernel::avx2_shifts_by_register`),
            // to compare both forms on any CPU.
            let by_register = avx2_shifts_by_register(args.next().as_deref());
            WordKernel::force_avx2_shifts_by_register(Some(by_register));
        } else if arg == "--ops" {
            options.ops = Some(
                args.next()
                    .unwrap_or_default()
                    .split(',')
                    .map(str::to_string)
                    .collect(),
            );
        } else if arg == "--no-tutorials" {
            options.tutorials = false;
        } else if arg == "--check" {
            options.check = true;
        } else if arg == "--edit-lookups" {
            options.lookups = edit_lookups(args.next().as_deref());
        } else if !arg.starts_with("--") {
            positional.push(arg);
        }
    }
    CommandLine {
        rounds,
        kernel,
        options,
        positional,
    }
}

/// `--kernel NAME`'s kernel, or exit with status 2 if this CPU has no such kernel.
fn forced_kernel(name: &str) -> WordKernel {
    let Some(&forced) = WordKernel::ALL
        .iter()
        .find(|k| format!("{k:?}").eq_ignore_ascii_case(name) && k.is_available())
    else {
        eprintln!("peer bench: no kernel {name:?} on this CPU");
        std::process::exit(2);
    };
    forced
}

/// `--avx2-shifts`' value: whether by register, or exit with status 2 if it is neither form.
fn avx2_shifts_by_register(value: Option<&str>) -> bool {
    match value {
        Some("per-lane") => false,
        Some("by-register") => true,
        other => {
            eprintln!("peer bench: --avx2-shifts takes per-lane or by-register, got {other:?}");
            std::process::exit(2);
        }
    }
}

/// `--edit-lookups`' value, or exit with status 2 if it is neither `bounds` nor `all`.
fn edit_lookups(value: Option<&str>) -> Lookups {
    match value {
        Some("bounds") => Lookups::Bounds,
        Some("all") => Lookups::All,
        other => {
            eprintln!("peer bench: --edit-lookups bounds|all, not {other:?}");
            std::process::exit(2);
        }
    }
}

/// What to print besides the compared rows, and whether to time them.
struct Options {
    tutorials: bool,
    check: bool,
    lookups: Lookups,
    /// Only the rows of these ops, when given.
    ops: Option<Vec<String>>,
}

/// Which of a mask's lookups are built before its edits are timed (see [`warm`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Lookups {
    Bounds,
    All,
}

/// One line of cases.csv.
struct Case {
    name: String,
    a: String,
    b: String,
    dx: f32,
    dy: f32,
    angle: f32,
}

fn read_cases(dir: &Path, filters: &[String]) -> Result<Vec<Case>, String> {
    let cases_path = dir.join("cases.csv");
    let text = std::fs::read_to_string(&cases_path)
        .map_err(|e| format!("{}: {e}", cases_path.display()))?;
    let mut cases = Vec::new();
    for line in text.lines().skip(1).filter(|l| !l.trim().is_empty()) {
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        let [name, a, b, dx, dy, angle] = fields[..] else {
            return Err(format!("bad line in cases.csv: {line}"));
        };
        if !filters.is_empty() && !filters.iter().any(|f| name.contains(f.as_str())) {
            continue;
        }
        let number = |s: &str| -> Result<f32, String> {
            s.parse()
                .map_err(|_| format!("bad number {s:?} in: {line}"))
        };
        cases.push(Case {
            name: name.to_string(),
            a: a.to_string(),
            b: b.to_string(),
            dx: number(dx)?,
            dy: number(dy)?,
            angle: number(angle)?,
        });
    }
    Ok(cases)
}

/// components.csv: `(case, mask file)` for each terrain whose name passes the filters.
fn read_terrains(dir: &Path, filters: &[String]) -> Result<Vec<(String, String)>, String> {
    let path = dir.join("components.csv");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut terrains = Vec::new();
    for line in text.lines().skip(1).filter(|l| !l.trim().is_empty()) {
        let Some((name, file)) = line.split_once(',') else {
            return Err(format!("bad line in components.csv: {line}"));
        };
        let name = name.trim();
        if filters.is_empty() || filters.iter().any(|f| name.contains(f.as_str())) {
            terrains.push((name.to_string(), file.trim().to_string()));
        }
    }
    Ok(terrains)
}

fn run(
    dir: &Path,
    filters: &[String],
    rounds: usize,
    kernel: WordKernel,
    options: Options,
) -> Result<(), String> {
    let cases = read_cases(dir, filters)?;
    let terrains = read_terrains(dir, filters)?;
    let sprites = load_sprites(dir, &cases, &terrains)?;
    let mut timed = Vec::new();
    for case in &cases {
        add_rows(
            &mut timed,
            case,
            &sprites[&case.a],
            &sprites[&case.b],
            kernel,
            options.lookups,
        )?;
    }
    for (name, file) in &terrains {
        timed.push(components_row(name, &sprites[file].mask));
    }
    if !options.tutorials {
        timed.retain(|row| !row.op.starts_with("tutorial_"));
    }
    if let Some(ops) = &options.ops {
        timed.retain(|row| ops.iter().any(|op| op == row.op));
    }
    if options.check {
        print_results(&timed);
        return Ok(());
    }
    time_rows(&mut timed, rounds);
    print_timings(&timed, rounds);
    Ok(())
}

/// Every image the cases and the terrains name, each loaded once.
fn load_sprites(
    dir: &Path,
    cases: &[Case],
    terrains: &[(String, String)],
) -> Result<HashMap<String, Sprite>, String> {
    let mut sprites: HashMap<String, Sprite> = HashMap::new();
    let files = cases.iter().flat_map(|c| [&c.a, &c.b]);
    for name in files.chain(terrains.iter().map(|(_, file)| file)) {
        if !sprites.contains_key(name) {
            sprites.insert(name.clone(), load(dir, name)?);
        }
    }
    Ok(sprites)
}

/// A terrain's `connected_components` row, its result and `point` counted beforehand.
fn components_row<'a>(name: &str, terrain: &'a BitMask) -> Timed<'a> {
    let pieces = terrain.connected_components(Connectivity::Eight);
    let sizes: Vec<u64> = pieces.iter().map(|(m, _)| m.count()).collect();
    let point = format!(
        "{} {}",
        sizes.iter().sum::<u64>(),
        sizes.iter().max().unwrap_or(&0)
    );
    let mut row = Timed::new(
        name,
        "connected_components",
        sizes.len() as u64,
        move || {
            black_box(black_box(terrain).connected_components(Connectivity::Eight));
        },
    );
    row.point = point;
    row
}

/// `--check`'s output: each row's result once, no timings.
fn print_results(timed: &[Timed<'_>]) {
    println!("case,op,ns,result,median_ns,max_ns,spread_pct,point");
    for row in timed {
        println!("{},{},,{},,,,{}", row.case, row.op, row.result, row.point);
    }
}

/// Calibrates every row, then times a batch of each per round, then more rounds for the
/// rows not yet settled.
fn time_rows(timed: &mut [Timed<'_>], rounds: usize) {
    for row in timed.iter_mut() {
        row.calibrate();
    }
    for round in 0..rounds {
        for row in timed.iter_mut().filter(|r| !r.slow || round < SLOW_ROUNDS) {
            row.time_batch();
        }
    }
    for _ in 0..EXTRA_ROUNDS {
        let mut unsettled = timed
            .iter_mut()
            .filter(|r| !r.slow && !r.settled())
            .peekable();
        if unsettled.peek().is_none() {
            break;
        }
        for row in unsettled {
            row.time_batch();
        }
    }
}

/// The timed rows as CSV on stdout; on stderr, the rows of a wide spread and the tutorials'
/// time over ours.
fn print_timings(timed: &[Timed<'_>], rounds: usize) {
    println!("case,op,ns,result,median_ns,max_ns,spread_pct,point");
    let mut fastest: HashMap<(&str, &str), f64> = HashMap::new();
    let mut spread_rows = 0;
    for row in timed {
        let (min, median, max) = row.stats();
        let spread = (median - min) / min * 100.0;
        println!(
            "{},{},{min:.1},{},{median:.1},{max:.1},{spread:.1},{}",
            row.case, row.op, row.result, row.point
        );
        if spread > 10.0 {
            spread_rows += 1;
            eprintln!(
                "{:32} {:22} median {spread:5.1}% over the third best",
                row.case, row.op
            );
        }
        fastest.insert((&row.case, row.op), min);
    }
    eprintln!(
        "{spread_rows} of {} rows have a median more than 10% over their third best ({rounds} rounds)",
        timed.len()
    );
    for row in timed.iter().filter(|r| r.op.starts_with("tutorial_")) {
        let ours_op = match row.op {
            "tutorial_overlap" => "overlap",
            "tutorial_overlap_area" => "overlap_area",
            "tutorial_rotated" => "rotated_overlap",
            _ => "rotated_area",
        };
        if let Some(ours) = fastest.get(&(row.case.as_str(), ours_op)) {
            eprintln!(
                "{:32} {ours_op:16} tutorial/ours {:8.1}x",
                row.case,
                fastest[&(row.case.as_str(), row.op)] / ours
            );
        }
    }
}

/// The same pixels as a sprite's mask, with no lookup built yet.
fn fresh(sprite: &Sprite) -> BitMask {
    BitMask::from_image(&sprite.rgba, 0)
}

/// Builds the lookups an edit keeps up to date: those a game's axis-aligned queries have
/// built (`Bounds`), or with them those of turned sprites' queries as well (`All`).
fn warm(m: &BitMask, lookups: Lookups) {
    // What `overlap` and `overlap_area` build: the row spans and the bounding rectangle.
    m.bounding_rect();
    if lookups == Lookups::All {
        m.bounding_circle();
        let (w, h) = (m.width() as f32, m.height() as f32);
        let probe = BitMask::solid(3, 3).expect("3 x 3");
        // On top of the mask the walk goes by rows, beside it by columns (the transposed
        // copy); either builds the distance field and the row spans.
        for at in [Vec2::new(w / 2.0, h / 2.0), Vec2::new(w, h / 2.0)] {
            let t = Affine2::from_angle_translation(0.3, at);
            black_box(transformed_overlap_area(m, Affine2::IDENTITY, &probe, t));
        }
    }
}

/// `erase` and `draw` of B into A at `off`, each call the edit and then its exact undo,
/// on a copy of A that keeps its lookups from one call to the next (see the header).
fn add_edit_rows<'a>(
    timed: &mut Vec<Timed<'a>>,
    name: &str,
    a: &'a Sprite,
    b: &'a Sprite,
    off: (i32, i32),
    (lookups, kernel): (Lookups, WordKernel),
) {
    // B's pixels that are clear in A (what `draw` adds) and set in A (what `erase`
    // takes away), made as pygame_peer.py makes them.
    let mut new = fresh(b);
    new.erase(&fresh(a), (-off.0, -off.1));
    let mut gone = fresh(b);
    gone.erase(&new, (0, 0));
    for (op, undo) in [("erase", gone), ("draw", new)] {
        let on = op == "draw";
        // `draw` and `erase` themselves unless another kernel is forced: `paint_using`
        // checks the kernel's CPU features on every call.
        let forced = kernel != WordKernel::best();
        let paint = move |m: &mut BitMask, stamp: &BitMask, on: bool| match (forced, on) {
            (true, _) => m.paint_using(black_box(stamp), black_box(off), on, kernel),
            (false, true) => m.draw(black_box(stamp), black_box(off)),
            (false, false) => m.erase(black_box(stamp), black_box(off)),
        };
        let mut m = fresh(a);
        warm(&m, lookups);
        paint(&mut m, &b.mask, on);
        let result = m.count();
        paint(&mut m, &undo, !on);
        assert!(m == a.mask, "{name} {op}: the undo does not restore A");
        timed.push(Timed::new(name, op, result, move || {
            paint(&mut m, &b.mask, on);
            paint(&mut m, &undo, !on);
        }));
    }
}

/// The rows one case times.
fn add_rows<'a>(
    timed: &mut Vec<Timed<'a>>,
    case: &Case,
    a: &'a Sprite,
    b: &'a Sprite,
    kernel: WordKernel,
    lookups: Lookups,
) -> Result<(), String> {
    let name = case.name.as_str();
    let (dx, dy, angle) = (case.dx, case.dy, case.angle);
    if angle == 0.0 {
        let off = (dx as i32, dy as i32);
        add_overlap_rows(timed, name, a, b, off, kernel);
        add_edit_rows(timed, name, a, b, off, (lookups, kernel));
        return Ok(());
    }
    let tb = rotated_b(&a.mask, &b.mask, dx, dy, angle);
    add_rotated_rows(timed, case, a, b, tb);
    add_rotated_cached_row(timed, case, a, b, tb)
}

/// `overlap` and `overlap_area` of B at `off` in A, and the tutorials' loops for them.
fn add_overlap_rows<'a>(
    timed: &mut Vec<Timed<'a>>,
    name: &str,
    a: &'a Sprite,
    b: &'a Sprite,
    off: (i32, i32),
    kernel: WordKernel,
) {
    let point = a.mask.overlap_using(&b.mask, off, kernel);
    let hit = u64::from(point.is_some());
    timed.push(
        Timed::new(name, "overlap", hit, move || {
            black_box(black_box(&a.mask).overlap_using(black_box(&b.mask), black_box(off), kernel));
        })
        .with_point(point),
    );
    timed.push(Timed::new(name, "tutorial_overlap", hit, move || {
        black_box(baseline::intersect_pixels(
            a.colors(),
            b.colors(),
            black_box(off),
            0,
        ));
    }));
    let area = a.mask.overlap_area_using(&b.mask, off, kernel);
    timed.push(Timed::new(name, "overlap_area", area, move || {
        black_box(black_box(&a.mask).overlap_area_using(
            black_box(&b.mask),
            black_box(off),
            kernel,
        ));
    }));
    timed.push(Timed::new(name, "tutorial_overlap_area", area, move || {
        black_box(baseline::overlap_area_pixels(
            a.colors(),
            b.colors(),
            black_box(off),
            0,
        ));
    }));
}

/// `rotated_overlap` and `rotated_area`, and the tutorials' loops for them. `tb` (B's
/// transform) gives the results; each timed call computes it afresh from the case's angle
/// and offset, as for a sprite whose angle changes every frame.
fn add_rotated_rows<'a>(
    timed: &mut Vec<Timed<'a>>,
    case: &Case,
    a: &'a Sprite,
    b: &'a Sprite,
    tb: Affine2,
) {
    let name = case.name.as_str();
    let (dx, dy, angle) = (case.dx, case.dy, case.angle);
    // The mask's distance field, like the mask, is built once per sprite.
    let hit = u64::from(transformed_intersects(
        &a.mask,
        Affine2::IDENTITY,
        &b.mask,
        tb,
    ));
    timed.push(Timed::new(name, "rotated_overlap", hit, move || {
        let tb = rotated_b(&a.mask, &b.mask, black_box(dx), dy, black_box(angle));
        black_box(transformed_intersects(
            &a.mask,
            Affine2::IDENTITY,
            &b.mask,
            tb,
        ));
    }));
    timed.push(Timed::new(name, "tutorial_rotated", hit, move || {
        let tb = rotated_b(&a.mask, &b.mask, black_box(dx), dy, black_box(angle));
        black_box(baseline::intersect_pixels_transformed(
            a.colors(),
            Affine2::IDENTITY,
            b.colors(),
            tb,
            0,
        ));
    }));
    let area = transformed_overlap_area(&a.mask, Affine2::IDENTITY, &b.mask, tb);
    timed.push(Timed::new(name, "rotated_area", area, move || {
        let tb = rotated_b(&a.mask, &b.mask, black_box(dx), dy, black_box(angle));
        black_box(transformed_overlap_area(
            &a.mask,
            Affine2::IDENTITY,
            &b.mask,
            tb,
        ));
    }));
    timed.push(Timed::new(name, "tutorial_rotated_area", area, move || {
        let tb = rotated_b(&a.mask, &b.mask, black_box(dx), dy, black_box(angle));
        black_box(baseline::overlap_area_pixels_transformed(
            a.colors(),
            Affine2::IDENTITY,
            b.colors(),
            tb,
            0,
        ));
    }));
}

/// `rotated_cached`: B's mask turned by `tb` into A's grid beforehand, then an
/// axis-aligned overlap.
fn add_rotated_cached_row<'a>(
    timed: &mut Vec<Timed<'a>>,
    case: &Case,
    a: &'a Sprite,
    b: &'a Sprite,
    tb: Affine2,
) -> Result<(), String> {
    let name = case.name.as_str();
    let (rotated, offset) = b
        .mask
        .transformed(tb)
        .ok_or_else(|| format!("{name}: cannot rotate {}", case.b))?;
    let cached_hit = u64::from(a.mask.overlap(&rotated, offset).is_some());
    timed.push(Timed::new(name, "rotated_cached", cached_hit, move || {
        black_box(black_box(&a.mask).overlap(black_box(&rotated), black_box(offset)));
    }));
    Ok(())
}
