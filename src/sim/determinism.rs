//! The game's own proof that collisions depend on nothing but their inputs (issue #55): a
//! seeded crowd of 2,000 turning, mirrored sprites and a terrain cratered into falling
//! pieces, run for 2,000 frames, with every frame's answers folded into one number.
//!
//! `tests/game/determinism.rs` runs it serially, on 4 threads, and under every word-loop
//! build on 2 threads, and the browser test runs it in the web build (`?determinism-hash`):
//! each must give [`EXPECTED_HASH`]. A replay or a rollback peer can run the same
//! function (`pixel_collide --determinism-hash`) to check a machine before trusting it.
//!
//! Nothing here calls the platform's maths library: the sprites and the terrain are drawn
//! from discs and lines, and every angle goes through the core's own `libm` sines.

use std::sync::Arc;

use bevy_math::{Rect, Vec2};
use pixel_collide::terrain::TerrainWorld;
use pixel_collide::{BitMask, Contact, sprite_to_world, transformed_overlap};
use pixel_collide_seeded::rng::SplitMix64;

use super::crowd::{CrowdBody, CrowdWorld, NarrowPhase};

/// What [`scenario`] gives for [`SPRITES`] and [`FRAMES`] on every machine, thread
/// count and build it has been run on.
pub const EXPECTED_HASH: u64 = 0xeab1_7bc5_d947_977d;

/// The crowd's size.
pub const SPRITES: usize = 2_000;
/// Frames the scenario runs, at [`STEP`] each.
pub const FRAMES: u32 = 2_000;
/// Seconds a frame.
pub const STEP: f32 = 1.0 / 60.0;
const TERRAIN: (u32, u32) = (2_048, 1_024);
/// Touching pairs whose contact is measured each frame: one in this many, in turn.
const CONTACT_EVERY: usize = 16;

/// How the crowd's narrow phase runs: the answers must not depend on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NarrowPhaseThreads {
    /// On the calling thread, pair by pair in order.
    Serial,
    /// Chunks of pairs handed to this many scoped threads as each comes free.
    Scoped(usize),
}

/// A 64-bit hash defined by its input alone (std's hasher is seeded per process), a word
/// at a time.
struct FrameHash(u64);

impl FrameHash {
    fn u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x517c_c1b7_2722_0a95);
    }

    fn f32(&mut self, x: f32) {
        self.u64(x.to_bits().into());
    }

    fn vec2(&mut self, v: Vec2) {
        self.f32(v.x);
        self.f32(v.y);
    }

    fn contact(&mut self, contact: Option<Contact>) {
        let Some(c) = contact else {
            return self.u64(u64::MAX);
        };
        self.vec2(c.point);
        self.vec2(c.normal);
        self.f32(c.depth);
        self.u64(c.count.into());
    }

    /// Every pixel, a row at a time.
    fn mask(&mut self, mask: &BitMask) {
        let (w, h) = mask.size();
        self.u64((u64::from(w) << 32) | u64::from(h));
        for y in 0..i64::from(h) {
            let mut word = 0u64;
            for x in 0..i64::from(w) {
                word = (word << 1) | u64::from(mask.get(x, y));
                if x % 64 == 63 {
                    self.u64(word);
                    word = 0;
                }
            }
            self.u64(word);
        }
    }
}

/// A disc with a bite out of it: a crescent, a ring or a chipped disc, concave as
/// sprites are.
fn sprite(rng: &mut SplitMix64) -> BitMask {
    let side = 16 + rng.below(40) as u32;
    let mut mask = BitMask::new(side, side);
    let r = f64::from(side) / 2.0;
    mask.fill_circle(r, r, r);
    let bite = r * f64::from(rng.range(0.3, 0.8));
    let off = r - bite;
    let (dx, dy) = (
        off * f64::from(rng.range(-1.0, 1.0)),
        off * f64::from(rng.range(-1.0, 1.0)),
    );
    mask.erase_circle(r + dx, r + dy, bite);
    mask
}

/// Tent-shaped hills over caves, with mushroom rocks on thin stalks: a crater through a
/// stalk or a cave's roof cuts what was above loose.
fn terrain(rng: &mut SplitMix64) -> BitMask {
    let (w, h) = TERRAIN;
    let (wf, hf) = (w as f32, h as f32);
    let mut mask = BitMask::new(w, h);
    let hills: Vec<(f32, f32, f32)> = (0..12)
        .map(|_| {
            (
                rng.range(0.0, wf),
                rng.range(40.0, 220.0),
                rng.range(0.3, 1.5),
            )
        })
        .collect();
    let surface = |x: f32| {
        let top = hills
            .iter()
            .map(|&(at, height, slope)| (height - (x - at).abs() * slope).max(0.0))
            .fold(0.0, f32::max);
        (hf * 0.6 - top) as i64
    };
    for x in 0..i64::from(w) {
        (surface(x as f32)..i64::from(h)).for_each(|y| mask.set(x, y, true));
    }
    for _ in 0..30 {
        let x = rng.range(40.0, wf - 40.0);
        let depth = surface(x) as f32 + rng.range(50.0, 250.0);
        mask.erase_circle(x.into(), depth.into(), rng.range(15.0, 45.0).into());
    }
    for _ in 0..25 {
        let x = rng.range(40.0, wf - 40.0);
        let (ground, stalk) = (surface(x), rng.range(20.0, 80.0) as i64);
        for y in ground - stalk..ground {
            (x as i64 - 3..x as i64 + 3).for_each(|x| mask.set(x, y, true));
        }
        let cap = rng.range(10.0, 30.0);
        mask.fill_circle(x.into(), (ground - stalk) as f64, cap.into());
    }
    mask
}

fn crowd(rng: &mut SplitMix64, sprites: usize) -> CrowdWorld {
    let shapes: Vec<BitMask> = (0..12).map(|_| sprite(rng)).collect();
    // Dense enough that most frames have more pairs to test than a threaded narrow phase
    // keeps on one thread.
    let side = (sprites as f32 * 4_500.0).sqrt().round();
    let bodies = (0..sprites)
        .map(|_| CrowdBody {
            position: Vec2::new(rng.range(0.0, side), rng.range(0.0, side)),
            velocity: Vec2::new(rng.range(-120.0, 120.0), rng.range(-120.0, 120.0)),
            angle: rng.range(-4.0, 4.0),
            angular_velocity: rng.range(-3.0, 3.0),
            // Negative mirrors the sprite.
            scale: rng.range(0.6, 1.6) * if rng.chance(0.2) { -1.0 } else { 1.0 },
            sprite: rng.below(shapes.len() as u64) as usize,
        })
        .collect();
    CrowdWorld::new(shapes, Rect::new(0.0, 0.0, side, side), bodies)
}

/// What a run of the scenario did, beside its hash: enough to tell that it exercised what
/// the hash claims to cover.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScenarioRun {
    /// Every frame's answers, folded.
    pub hash: u64,
    /// Frames with at least
    /// [`NarrowPhase::PAR_MIN_PAIRS`](super::crowd::NarrowPhase::PAR_MIN_PAIRS) pairs to
    /// pixel-test: those a threaded narrow phase spreads over its threads.
    pub threaded_frames: u32,
    /// Touching pairs over all frames.
    pub touching_pairs: u64,
    /// Pieces the craters cut loose.
    pub pieces: u64,
}

/// Runs the scenario with `sprites` bodies for `frames` frames and hashes every frame's
/// answers: the crowd's candidate pairs, each pixel-tested pair (which body
/// was A) and what it found, the touching flags, a share of the touching pairs' contacts
/// (point, normal, depth), the craters' removed pixels and pieces, every falling piece's
/// place and pixels, the settled sprites, and the terrain's pixels every 500 frames and at
/// the end.
pub fn scenario(sprites: usize, frames: u32, threads: NarrowPhaseThreads) -> ScenarioRun {
    let mut run = ScenarioRun {
        hash: 0,
        threaded_frames: 0,
        touching_pairs: 0,
        pieces: 0,
    };
    let mut rng = SplitMix64(55);
    let mut hash = FrameHash(0xcbf2_9ce4_8422_2325);
    let mut crowd = crowd(&mut rng, sprites);
    let mut ground = TerrainWorld::new(Arc::new(terrain(&mut rng)));
    for frame in 0..frames {
        hash.u64(frame.into());
        crowd.advance(STEP);
        match threads {
            NarrowPhaseThreads::Serial => crowd.collide(),
            NarrowPhaseThreads::Scoped(n) => crowd.collide_par(n),
        }
        hash_crowd(&mut hash, &crowd, frame);
        let stats = crowd.stats();
        run.threaded_frames += u32::from(stats.pixel_tests >= NarrowPhase::PAR_MIN_PAIRS);
        run.touching_pairs += stats.contacts as u64;

        if frame % 6 == 0 {
            let at = Vec2::new(rng.range(-960.0, 960.0), rng.range(-250.0, 250.0));
            let carve = ground.carve(at, rng.range(12.0, 60.0));
            hash.u64(carve.removed);
            run.pieces += carve.new_pieces.len() as u64;
            carve.new_pieces.into_iter().for_each(|id| hash.u64(id));
        }
        if frame % 25 == 12 && !crowd.bodies.is_empty() {
            // A turned sprite of the crowd come to rest on the ground, merged into it.
            let body = crowd.bodies[rng.below(crowd.bodies.len() as u64) as usize];
            let mask = &crowd.sprites()[body.sprite];
            let x = rng.range(-900.0, 900.0);
            let top = ground
                .ground_below(x, TERRAIN.1 as f32 / 2.0)
                .unwrap_or(0.0);
            let at = Vec2::new(x, top + mask.height() as f32 * 0.4);
            let pose = sprite_to_world(at, body.angle, Vec2::splat(body.scale), mask.size());
            let settled = ground.settle(mask, pose);
            hash.u64(settled.lost);
            for ((x, y), (to_x, to_y)) in settled.moved {
                hash.u64((u64::from(x) << 32) | u64::from(y));
                hash.u64((u64::from(to_x) << 32) | u64::from(to_y));
            }
        }
        for piece in ground.step(STEP) {
            hash.u64(piece.id);
        }
        for piece in &ground.pieces {
            hash.u64(piece.id);
            hash.u64((u64::from(piece.offset.0 as u32) << 32) | u64::from(piece.offset.1 as u32));
            hash.f32(piece.velocity);
            hash.mask(&piece.mask);
        }
        if frame % 500 == 499 || frame + 1 == frames {
            hash.mask(ground.terrain());
        }
    }
    ScenarioRun {
        hash: hash.0,
        ..run
    }
}

fn hash_crowd(hash: &mut FrameHash, crowd: &CrowdWorld, frame: u32) {
    let pair = |(i, j): (u32, u32)| (u64::from(i) << 32) | u64::from(j);
    hash.u64(crowd.candidate_pairs().len() as u64);
    crowd
        .candidate_pairs()
        .iter()
        .for_each(|&p| hash.u64(pair(p)));
    let mut touching = 0;
    for (&(i, j), hit) in crowd.tested_pairs() {
        hash.u64(pair((i, j)));
        let &Some([x, y]) = hit else {
            hash.u64(u64::MAX);
            continue;
        };
        hash.u64(pair((x, y)));
        if touching % CONTACT_EVERY == frame as usize % CONTACT_EVERY {
            let (a, b) = (crowd.bodies[i as usize], crowd.bodies[j as usize]);
            let sprites = crowd.sprites();
            let transforms = crowd.transforms();
            hash.contact(transformed_overlap(
                &sprites[a.sprite],
                transforms[i as usize],
                &sprites[b.sprite],
                transforms[j as usize],
            ));
        }
        touching += 1;
    }
    for flags in crowd.touching().chunks(64) {
        hash.u64(flags.iter().fold(0, |word, &t| (word << 1) | u64::from(t)));
    }
}

/// The full scenario's hash and whether it is [`EXPECTED_HASH`], as one line:
/// `determinism hash: 0x… (the committed one)`, or `(committed: 0x…; this machine
/// differs)`.
pub fn check(threads: NarrowPhaseThreads) -> (bool, String) {
    let hash = scenario(SPRITES, FRAMES, threads).hash;
    let verdict = if hash == EXPECTED_HASH {
        "the committed one".to_string()
    } else {
        format!("committed: {EXPECTED_HASH:#018x}; this machine differs")
    };
    (
        hash == EXPECTED_HASH,
        format!("determinism hash: {hash:#018x} ({verdict})"),
    )
}
