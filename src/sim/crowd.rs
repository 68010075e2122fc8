//! The engine-agnostic half of the "Crowd" scene: thousands of moving, rotating sprites
//! sharing a few masks, a broad phase, a bounding-circle mid phase and a per-pixel narrow
//! phase. A Bevy plugin wraps it; nothing here knows about ECS or rendering. (The
//! tutorials' way, for comparison, is in the crowd bench.)
//!
//! # Conventions
//!
//! - World space has y up; mask space has y down (see the `pixel_collide` crate's conventions). A body's
//!   mask-to-world transform is [`sprite_to_world`] with a uniform scale: the mask's center
//!   at the body's position, turned counterclockwise by `angle` radians, scaled by `scale`.
//! - A pair `(i, j)`, `i < j`, touches when [`transformed_intersects`] with body `i`'s mask
//!   as A and body `j`'s as B says so. (Sampling A's pixel centers in B is not symmetric to
//!   the pixel; the lower index is always A, so results are reproducible.)
//! - A body whose sprite index is out of range, whose mask is empty, or whose position,
//!   angle or scale is not finite never touches anything. Nothing panics on body values.
//!
//! # One collision step ([`CrowdWorld::collide`])
//!
//! 1. Boxes: each sprite's tight box (the bounding rectangle of its set pixels) is kept
//!    unrotated; every frame it is rotated and moved from that original, never from last
//!    frame's rotated box (`bevy_math` warns that re-rotating a box makes it grow), and
//!    grown by 1e-5 of its coordinates for the narrow phase's f32 rounding, so that tiny
//!    sprites far from the origin lose no pair [`transformed_intersects`] reports.
//! 2. Broad phase ([`DefaultBroadPhase`] unless chosen): candidate pairs of touching boxes.
//! 3. Mid phase: bounding circles about the rotation centers, which rotation cannot change;
//!    they reject the corners of rotated boxes.
//! 4. Narrow phase, per surviving pair ([`NarrowPhase::test`]), giving exactly
//!    [`transformed_intersects`]'s answer: first the pixel of A that hit B last step, if
//!    the pair touched then, and a few probe samples where the circles overlap (a sample
//!    that lands is a hit by that function's own definition: most touching pairs end
//!    here), then separating axes near the line of centers from each sprite's tabulated
//!    support function (a sure miss; tried before the probes for a pair that missed last
//!    step), and only then the full word-speed test ([`transformed_first_hit`](pixel_collide::transformed_first_hit), whose
//!    pixel is kept for the next step).
//!    Run serially ([`CrowdWorld::collide`]), on scoped threads
//!    ([`CrowdWorld::collide_par`]) or through any executor ([`CrowdWorld::collide_with`],
//!    e.g. Bevy's `ComputeTaskPool`).
//!
//! [`transformed_intersects`]: pixel_collide::transformed_intersects

use bevy::platform::time::Instant;
use std::sync::Mutex;

use bevy_math::bounding::Aabb2d;
use bevy_math::{Affine2, Rect, Vec2};

use pixel_collide::BitMask;
use pixel_collide::broad_phase::{BroadPhase, DefaultBroadPhase, retain_pairs};
use pixel_collide::pair::{
    PairHit, PairSide, SimilarSide, SpriteInfo, Witnesses, box_slack, circles_may_meet,
    first_hit_with_hints, proves_miss, tested_first,
};
use pixel_collide::sprite_to_world;

/// One moving, rotating sprite. Units are world units (a mask pixel is `scale` units) and
/// seconds; `angle` is counterclockwise in radians.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CrowdBody {
    /// World position of the mask's center.
    pub position: Vec2,
    pub velocity: Vec2,
    pub angle: f32,
    pub angular_velocity: f32,
    /// World units per mask pixel; negative mirrors the sprite.
    pub scale: f32,
    /// Index into the world's sprites.
    pub sprite: usize,
}

impl CrowdBody {
    /// Moves and turns the body by `dt` seconds; a center that crosses a wall of `bounds`
    /// is mirrored back inside and its velocity turned inward.
    pub fn advance(&mut self, dt: f32, bounds: Rect) {
        let (min, max) = (bounds.min, bounds.max);
        self.position += self.velocity * dt;
        self.angle = wrap_angle(self.angle + self.angular_velocity * dt);
        let (mut p, mut v) = (self.position.to_array(), self.velocity.to_array());
        for axis in 0..2 {
            if p[axis] < min[axis] {
                p[axis] = (2.0 * min[axis] - p[axis]).min(max[axis]);
                v[axis] = v[axis].abs();
            } else if p[axis] > max[axis] {
                p[axis] = (2.0 * max[axis] - p[axis]).max(min[axis]);
                v[axis] = -v[axis].abs();
            }
        }
        self.position = Vec2::from_array(p);
        self.velocity = Vec2::from_array(v);
    }
}

/// What one collision step found and how long it took.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CrowdStats {
    /// Pairs whose boxes touch (broad phase output).
    pub candidate_pairs: usize,
    /// Pairs that reached the per-pixel test.
    pub pixel_tests: usize,
    /// Pairs whose pixels touch.
    pub contacts: usize,
    /// Nanoseconds spent on boxes and the broad phase.
    pub broad_ns: u64,
    /// Nanoseconds spent on the mid and narrow phases and the flags.
    pub narrow_ns: u64,
}

/// What the narrow phase reads: the masks, the bodies and this step's transforms. `Copy`
/// and `Sync`, so chunks of pairs can be tested on any thread.
#[derive(Debug, Clone, Copy)]
pub struct NarrowPhase<'w> {
    sprites: &'w [BitMask],
    bodies: &'w [CrowdBody],
    transforms: &'w [Affine2],
    info: &'w [SpriteInfo],
    /// World-to-mask, the inverse of each transform.
    inverses: &'w [Affine2],
    circles: &'w [(Vec2, f32)],
    /// Per body, last step's answers with it as A.
    witnesses: &'w [Witnesses<u32>],
}

impl NarrowPhase<'_> {
    /// Whether the pixels of bodies `i` (as A) and `j` (as B) touch: `Some` exactly when
    /// `transformed_intersects(mask_i, to_world_i, mask_j, to_world_j)`, for any pair of
    /// body indices (it panics on an index past the bodies). The pixel is a witness that
    /// this step's hit is real; which pixel is found depends on last step's.
    pub fn test(&self, (i, j): (u32, u32)) -> PairHit {
        let (i, j) = (i as usize, j as usize);
        let (Some(a), Some(b)) = (
            self.sprites.get(self.bodies[i].sprite),
            self.sprites.get(self.bodies[j].sprite),
        ) else {
            return None;
        };
        let last_step = self.witnesses.get(i).and_then(|kept| kept.last(j as u32));
        first_hit_with_hints(
            PairSide {
                mask: a,
                to_world: self.transforms[i],
                to_mask: self.inverses[i],
                circle: self.circles[i],
            },
            PairSide {
                mask: b,
                to_world: self.transforms[j],
                to_mask: self.inverses[j],
                circle: self.circles[j],
            },
            last_step,
            || self.separated(i, j),
        )
    }

    /// [`proves_miss`] for bodies `i` (as A) and `j`: every crowd transform is a rotation
    /// times a uniform scale ([`sprite_to_world`]), and a body's circle is centered on its
    /// mask's center.
    fn separated(&self, i: usize, j: usize) -> bool {
        let side = |k: usize| {
            let body = &self.bodies[k];
            Some(SimilarSide {
                info: self.info.get(body.sprite)?,
                linear: self.transforms[k].matrix2,
                scale: body.scale.abs(),
                center: self.circles[k].0,
                circle: self.circles[k],
            })
        };
        match (side(i), side(j)) {
            (Some(a), Some(b)) => proves_miss(a, b),
            _ => false,
        }
    }

    /// Tests `pairs` in order, writing `hits[k]` for `pairs[k]`. `hits` must be as long as
    /// `pairs`: extra entries on either side are left alone.
    pub fn run(&self, pairs: &[(u32, u32)], hits: &mut [PairHit]) {
        for (&pair, hit) in pairs.iter().zip(hits) {
            *hit = self.test(pair);
        }
    }

    /// [`run`](Self::run) on `threads` scoped threads (the caller's included), handing out
    /// chunks of [`PAR_CHUNK`](Self::PAR_CHUNK) pairs as threads become free, since pair costs
    /// vary a lot (most hits are settled by a few probes, a miss walks the overlap). Fewer
    /// than [`PAR_MIN_PAIRS`](Self::PAR_MIN_PAIRS) pairs, or `threads <= 1`, runs serially:
    /// starting threads costs more than such a batch.
    pub fn run_scoped(&self, pairs: &[(u32, u32)], hits: &mut [PairHit], threads: usize) {
        if threads <= 1 || pairs.len() < Self::PAR_MIN_PAIRS {
            self.run(pairs, hits);
            return;
        }
        let work = Mutex::new(
            pairs
                .chunks(Self::PAR_CHUNK)
                .zip(hits.chunks_mut(Self::PAR_CHUNK)),
        );
        let worker = || {
            loop {
                // A poisoned lock means another worker panicked; the scope re-raises it.
                let next = match work.lock() {
                    Ok(mut chunks) => chunks.next(),
                    Err(_) => None,
                };
                let Some((p, h)) = next else {
                    break;
                };
                self.run(p, h);
            }
        };
        std::thread::scope(|scope| {
            for _ in 1..threads {
                scope.spawn(worker);
            }
            worker();
        });
    }
}

impl NarrowPhase<'_> {
    /// Pairs handed to a thread at a time by [`run_scoped`](Self::run_scoped).
    pub const PAR_CHUNK: usize = 32;
    /// Smallest batch [`run_scoped`](Self::run_scoped) spreads over threads.
    pub const PAR_MIN_PAIRS: usize = 512;
}

/// Bodies, their shared sprites, the world bounds, and the per-step collision results.
pub struct CrowdWorld<B: BroadPhase = DefaultBroadPhase> {
    /// Edit freely between steps; a different count is picked up by the next step.
    pub bodies: Vec<CrowdBody>,
    /// Bodies' centers bounce off these walls.
    pub bounds: Rect,
    pub broad_phase: B,
    sprites: Vec<BitMask>,
    info: Vec<SpriteInfo>,
    boxes: Vec<Aabb2d>,
    transforms: Vec<Affine2>,
    inverses: Vec<Affine2>,
    /// Per body: bounding-circle center and radius.
    circles: Vec<(Vec2, f32)>,
    pairs: Vec<(u32, u32)>,
    tests: Vec<(u32, u32)>,
    hits: Vec<PairHit>,
    /// Per body, last step's answers with it as A.
    witnesses: Vec<Witnesses<u32>>,
    touching: Vec<bool>,
    stats: CrowdStats,
}

impl CrowdWorld<DefaultBroadPhase> {
    /// A world with the default broad phase. `sprites` are shared: many bodies may use one.
    pub fn new(sprites: Vec<BitMask>, bounds: Rect, bodies: Vec<CrowdBody>) -> Self {
        Self::with_broad_phase(sprites, bounds, bodies, DefaultBroadPhase::default())
    }
}

impl<B: BroadPhase> CrowdWorld<B> {
    pub fn with_broad_phase(
        sprites: Vec<BitMask>,
        bounds: Rect,
        bodies: Vec<CrowdBody>,
        broad_phase: B,
    ) -> Self {
        let info = sprites.iter().map(SpriteInfo::new).collect();
        CrowdWorld {
            bodies,
            bounds,
            broad_phase,
            sprites,
            info,
            boxes: Vec::new(),
            transforms: Vec::new(),
            inverses: Vec::new(),
            circles: Vec::new(),
            pairs: Vec::new(),
            tests: Vec::new(),
            hits: Vec::new(),
            witnesses: Vec::new(),
            touching: Vec::new(),
            stats: CrowdStats::default(),
        }
    }

    pub fn sprites(&self) -> &[BitMask] {
        &self.sprites
    }

    /// Per body, whether it touched another body at the last collision step.
    pub fn touching(&self) -> &[bool] {
        &self.touching
    }

    /// The last collision step's counts and timings.
    pub fn stats(&self) -> CrowdStats {
        self.stats
    }

    /// The last step's world boxes, one per body (NaN for a body that cannot collide).
    pub fn boxes(&self) -> &[Aabb2d] {
        &self.boxes
    }

    /// The last step's mask-to-world transforms, one per body.
    pub fn transforms(&self) -> &[Affine2] {
        &self.transforms
    }

    /// The last step's candidate pairs, `(i, j)` with `i < j`.
    pub fn candidate_pairs(&self) -> &[(u32, u32)] {
        &self.pairs
    }

    /// The last step's pairs that reached the pixel test, `(a, b)` with the body tested as
    /// A first, each with the pixel of A that landed on B, or `None` where they missed.
    pub fn tested_pairs(&self) -> impl Iterator<Item = (&(u32, u32), &PairHit)> {
        self.tests.iter().zip(&self.hits)
    }

    /// Moves every body by `dt` seconds, then [`collide`](Self::collide)s.
    pub fn step(&mut self, dt: f32) {
        self.advance(dt);
        self.collide();
    }

    /// Moves and turns every body by `dt` seconds; a center that crosses a wall is mirrored
    /// back inside and its velocity turned inward.
    pub fn advance(&mut self, dt: f32) {
        for body in &mut self.bodies {
            body.advance(dt, self.bounds);
        }
    }

    /// One collision step with a serial narrow phase.
    pub fn collide(&mut self) {
        self.collide_with(|narrow, pairs, hits| narrow.run(pairs, hits));
    }

    /// One collision step with the narrow phase on `threads` scoped threads
    /// (`std::thread::available_parallelism()` is a good value).
    pub fn collide_par(&mut self, threads: usize) {
        self.collide_with(|narrow, pairs, hits| narrow.run_scoped(pairs, hits, threads));
    }

    /// One collision step; `narrow` must set `hits[k]` to `narrow_phase.test(pairs[k])` for
    /// every `k`, in any order and on any threads, e.g. by splitting both slices into chunks
    /// and calling [`NarrowPhase::run`] on each.
    pub fn collide_with(
        &mut self,
        narrow: impl FnOnce(NarrowPhase<'_>, &[(u32, u32)], &mut [PairHit]),
    ) {
        let start = Instant::now();
        self.update_boxes();
        self.broad_phase.update(&self.boxes, &mut self.pairs);
        let broad_done = Instant::now();

        // Mid phase: bounding circles, which the pixels of both sprites lie inside whatever
        // the rotation. The slack covers f32 rounding of positions far from the origin.
        // About half the pairs pass, at random.
        let circles = &self.circles;
        retain_pairs(&self.pairs, &mut self.tests, |i, j| {
            circles_may_meet(circles[i as usize], circles[j as usize])
        });
        // Which body is A is decided by where they are (a circle's center is its sprite's),
        // as the plugin decides it.
        for pair in &mut self.tests {
            let (i, j) = (pair.0 as usize, pair.1 as usize);
            if tested_first(circles[j].0, circles[i].0) == Some(true) {
                *pair = (pair.1, pair.0);
            }
        }
        self.hits.clear();
        self.hits.resize(self.tests.len(), None);
        let phase = NarrowPhase {
            sprites: &self.sprites,
            bodies: &self.bodies,
            transforms: &self.transforms,
            info: &self.info,
            inverses: &self.inverses,
            circles: &self.circles,
            witnesses: &self.witnesses,
        };
        narrow(phase, &self.tests, &mut self.hits);

        self.touching.clear();
        self.touching.resize(self.bodies.len(), false);
        self.witnesses.clear();
        self.witnesses.resize(self.bodies.len(), Witnesses::EMPTY);
        let mut contacts = 0;
        for (&(i, j), hit) in self.tests.iter().zip(&self.hits) {
            if hit.is_some() {
                self.touching[i as usize] = true;
                self.touching[j as usize] = true;
                contacts += 1;
            }
            self.witnesses[i as usize].remember(j, *hit);
        }
        let done = Instant::now();
        self.stats = CrowdStats {
            candidate_pairs: self.pairs.len(),
            pixel_tests: self.tests.len(),
            contacts,
            broad_ns: nanos(broad_done - start),
            narrow_ns: nanos(done - broad_done),
        };
    }

    /// Transforms, world boxes and bounding circles for this step.
    fn update_boxes(&mut self) {
        let nan_box = Aabb2d {
            min: Vec2::NAN,
            max: Vec2::NAN,
        };
        // Written in place through zipped slices: pushing to four vectors in one loop
        // stores and reloads each length every body.
        let n = self.bodies.len();
        self.transforms.resize(n, Affine2::NAN);
        self.inverses.resize(n, Affine2::NAN);
        self.boxes.resize(n, nan_box);
        self.circles.resize(n, (Vec2::NAN, f32::NAN));
        let outputs = self
            .transforms
            .iter_mut()
            .zip(&mut self.inverses)
            .zip(&mut self.boxes)
            .zip(&mut self.circles);
        for (body, (((transform, inverse), world_box), circle)) in self.bodies.iter().zip(outputs) {
            let info = self.info.get(body.sprite);
            let (w, h) = info.map_or((0, 0), SpriteInfo::size);
            let to_world =
                sprite_to_world(body.position, body.angle, Vec2::splat(body.scale), (w, h));
            *transform = to_world;
            let usable = body.position.is_finite()
                && body.angle.is_finite()
                && body.scale.is_finite()
                && body.scale != 0.0;
            match info.and_then(|i| Some((i.tight_box()?, i.radius()))) {
                Some(((center, half), radius)) if usable => {
                    // The original box (the mask's tight box) through this step's transform:
                    // rotated fresh every step, never from last step's rotated box.
                    let center = to_world.transform_point2(center);
                    let half = to_world.matrix2.abs() * half;
                    let half = half + box_slack(center, half);
                    *world_box = Aabb2d {
                        min: center - half,
                        max: center + half,
                    };
                    *circle = (body.position, radius * body.scale.abs());
                    *inverse = to_world.inverse();
                }
                _ => {
                    *world_box = nan_box;
                    *circle = (Vec2::NAN, f32::NAN);
                    *inverse = Affine2::NAN;
                }
            }
        }
    }
}

/// `angle.rem_euclid(TAU)`, without its libm `fmod` call in the usual case of an angle
/// that one step has carried just past either end.
fn wrap_angle(angle: f32) -> f32 {
    use std::f32::consts::TAU;
    let once = if angle < 0.0 {
        angle + TAU
    } else if angle >= TAU {
        angle - TAU
    } else {
        angle
    };
    if (0.0..TAU).contains(&once) {
        once
    } else {
        angle.rem_euclid(TAU)
    }
}

fn nanos(d: std::time::Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_angle_is_rem_euclid() {
        use std::f32::consts::TAU;
        let mut rng = pixel_collide_support::rng::SplitMix64(5);
        let edges = [
            0.0,
            -0.0,
            TAU,
            -TAU,
            2.0 * TAU,
            -1e-9,
            1e-9,
            TAU - 1e-6,
            1e30,
            -1e30,
        ];
        let random = (0..100_000).map(|_| rng.range(-3.0 * TAU, 3.0 * TAU));
        for angle in edges.into_iter().chain(random) {
            let (ours, libm) = (wrap_angle(angle), angle.rem_euclid(TAU));
            // Equal values; -0.0 may come back as 0.0.
            assert_eq!(ours, libm, "{angle}");
        }
        assert!(wrap_angle(f32::NAN).is_nan() && wrap_angle(f32::INFINITY).is_nan());
    }

    fn mask(inside: impl Fn(f32, f32) -> bool) -> BitMask {
        let (w, h) = (48u32, 40u32);
        let mut m = BitMask::new(w, h);
        for y in 0..h {
            for x in 0..w {
                let u = (x as f32 + 0.5) / w as f32 * 2.0 - 1.0;
                let v = (y as f32 + 0.5) / h as f32 * 2.0 - 1.0;
                m.set(x.into(), y.into(), inside(u, v));
            }
        }
        m
    }

    /// Separating axes never claim a miss where the contract finds a hit, however the
    /// sprites are turned, scaled or mirrored, at distances around first contact.
    #[test]
    fn separating_axes_never_hide_a_hit() {
        use pixel_collide::transformed_intersects;
        use pixel_collide_seeded::rng::SplitMix64;
        let star = |u: f32, v: f32| {
            let (r, a) = ((u * u + v * v).sqrt(), v.atan2(u));
            r <= 0.4 + 0.55 * (2.5 * a).cos().abs().powi(3)
        };
        let sprites = vec![
            mask(star),
            mask(|u, v| (0.6..=0.97).contains(&(u * u + v * v).sqrt())),
            mask(|u, v| u.abs() + v.abs() <= 1.0 && u > -0.6),
        ];
        let mut rng = SplitMix64(11);
        let (mut separated, mut hits) = (0, 0);
        let bounds = Rect::new(-1e4, -1e4, 1e4, 1e4);
        let mut world = CrowdWorld::new(sprites.clone(), bounds, Vec::new());
        for _ in 0..600 {
            let body = |rng: &mut SplitMix64, position: Vec2| CrowdBody {
                position,
                velocity: Vec2::ZERO,
                angle: rng.range(-10.0, 10.0),
                angular_velocity: 0.0,
                scale: rng.range(0.5, 1.8) * if rng.range(0.0, 1.0) < 0.3 { -1.0 } else { 1.0 },
                sprite: (rng.range(0.0, 3.0) as usize).min(2),
            };
            let origin = Vec2::new(rng.range(-3e3, 3e3), rng.range(-3e3, 3e3));
            let a = body(&mut rng, origin);
            let direction = Vec2::from_angle(rng.range(0.0, std::f32::consts::TAU));
            for step in 0..40 {
                let b = body(&mut rng, origin + direction * (step as f32 * 2.5));
                world.bodies = vec![a, b];
                world.update_boxes();
                let narrow = NarrowPhase {
                    sprites: &world.sprites,
                    bodies: &world.bodies,
                    transforms: &world.transforms,
                    info: &world.info,
                    inverses: &world.inverses,
                    circles: &world.circles,
                    witnesses: &[],
                };
                let hit = transformed_intersects(
                    &sprites[a.sprite],
                    world.transforms[0],
                    &sprites[b.sprite],
                    world.transforms[1],
                );
                if narrow.separated(0, 1) {
                    assert!(!hit, "{a:?} {b:?}");
                    separated += 1;
                }
                hits += usize::from(hit);
            }
        }
        // The test means something only if both answers are common.
        assert!(
            separated > 2_000 && hits > 2_000,
            "{separated} separated, {hits} hits"
        );
    }
}
