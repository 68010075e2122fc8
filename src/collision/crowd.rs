//! The engine-agnostic half of the "Crowd" scene: thousands of moving, rotating sprites
//! sharing a few masks, a broad phase, a bounding-circle mid phase and a per-pixel narrow
//! phase, with `collide_all_pairs_tutorial` (feature `internals`), the tutorials' way, for
//! comparison. A Bevy plugin wraps it; nothing here knows about ECS or rendering.
//!
//! # Conventions
//!
//! - World space has y up; mask space has y down (see [`crate::collision::transformed`]). A body's
//!   mask-to-world transform is [`sprite_to_world`] with a uniform scale: the mask's centre
//!   at the body's position, turned counterclockwise by `angle` radians, scaled by `scale`.
//! - A pair `(i, j)`, `i < j`, touches when [`transformed_intersects`] with body `i`'s mask
//!   as A and body `j`'s as B says so. (Sampling A's pixel centres in B is not symmetric to
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
//! 3. Mid phase: bounding circles about the rotation centres, which rotation cannot change;
//!    they reject the corners of rotated boxes.
//! 4. Narrow phase, per surviving pair ([`NarrowPhase::test`]), giving exactly
//!    [`transformed_intersects`]'s answer: first the pixel of A that hit B last step, if
//!    the pair touched then, and a few probe samples where the circles overlap (a sample
//!    that lands is a hit by that function's own definition: most touching pairs end
//!    here), then separating axes near the line of centres from each sprite's tabulated
//!    support function (a sure miss; tried before the probes for a pair that missed last
//!    step), and only then the full word-speed test ([`transformed_first_hit`], whose
//!    pixel is kept for the next step).
//!    Run serially ([`CrowdWorld::collide`]), on scoped threads
//!    ([`CrowdWorld::collide_par`]) or through any executor ([`CrowdWorld::collide_with`],
//!    e.g. Bevy's `ComputeTaskPool`).
//!
//! [`transformed_intersects`]: super::transformed::transformed_intersects

use std::sync::Mutex;
use std::time::Instant;

use bevy_math::bounding::Aabb2d;
use bevy_math::{Affine2, Mat2, Rect, Vec2};

use super::broad_phase::{BroadPhase, DefaultBroadPhase, floor_i64, retain_pairs};
use super::mask::BitMask;
use super::transformed::{is_usable, sprite_to_world, transformed_first_hit};

/// One moving, rotating sprite. Units are world units (a mask pixel is `scale` units) and
/// seconds; `angle` is counterclockwise in radians.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CrowdBody {
    /// World position of the mask's centre.
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
    /// Moves and turns the body by `dt` seconds; a centre that crosses a wall of `bounds`
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

/// Directions at which a sprite's support function is tabulated.
const SUPPORT_BINS: usize = 512;

/// Tilts of the separating axes from the line of centres, in support bins (each
/// `2π / SUPPORT_BINS`, 0.0123 rad), with their cosines: every 4 bins (0.05 rad) out to 48
/// (0.59 rad), nearest first.
const SEPARATING_TILTS: [(i64, f32); 25] = {
    let mut tilts = [(0i64, 1.0f32); 25];
    let mut k = 1;
    while k < 25 {
        let bins = 4 * ((k as i64 + 1) / 2) * if k % 2 == 1 { 1 } else { -1 };
        let x = bins as f64 * std::f64::consts::TAU / SUPPORT_BINS as f64;
        // cos by its Taylor series, within 1e-9 below 0.6 rad (`cos` is not const).
        let x2 = x * x;
        let cos = 1.0 - x2 / 2.0 * (1.0 - x2 / 12.0 * (1.0 - x2 / 30.0 * (1.0 - x2 / 56.0)));
        tilts[k] = (bins, cos as f32);
        k += 1;
    }
    tilts
};

/// Bound on the error of [`fast_atan2`], in radians (checked by a unit test).
const ATAN2_ERROR: f32 = 2e-5;

/// `y.atan2(x)` to within [`ATAN2_ERROR`], without the libm call (the support lookup
/// needs one per axis and pair): octant reduction and a minimax polynomial for `atan` on
/// `[-1, 1]`.
#[inline]
fn fast_atan2(y: f32, x: f32) -> f32 {
    use std::f32::consts::{FRAC_PI_2, PI};
    let (ax, ay) = (x.abs(), y.abs());
    let swap = ay > ax;
    let t = if swap { ax / ay } else { ay / ax };
    let t2 = t * t;
    let mut a = t
        * (0.999_977_26
            + t2 * (-0.332_623_47
                + t2 * (0.193_543_46
                    + t2 * (-0.116_432_87 + t2 * (0.052_653_32 + t2 * -0.011_721_2)))));
    if swap {
        a = FRAC_PI_2 - a;
    }
    if x < 0.0 {
        a = PI - a;
    }
    if y < 0.0 { -a } else { a }
}

/// A sprite's shape facts, derived once from its mask. Shared with the collision
/// plugin, which keeps one per cached mask.
#[derive(Debug, Clone)]
pub(crate) struct SpriteInfo {
    width: u32,
    height: u32,
    /// Tight box of the set pixels in mask space (y down, pixels): its centre and half
    /// size. `None` for an empty mask.
    tight: Option<(Vec2, Vec2)>,
    /// Largest distance from the mask centre to a corner of a set pixel.
    pub(crate) radius: f32,
    /// Support functions about the mask centre, mask space: for the direction at angle
    /// `2πk / SUPPORT_BINS`, how far the set pixels' corners (`.0`, where B's pixels reach)
    /// and centres (`.1`, where A's samples reach) go along it, plus the most that can grow
    /// within half a bin (`radius × π / SUPPORT_BINS`) and the error of the bin's angle, so
    /// the bin nearest a computed angle bounds the true direction.
    support: Vec<(f32, f32)>,
}

impl SpriteInfo {
    /// Built from each row's leftmost and rightmost set pixels: every fact here is a
    /// maximum of a linear function (or a distance) over the set pixels, and in a row that
    /// is reached at one of its two ends. The support functions then only need the convex
    /// hull of those ends, so the cost is the mask's words plus `SUPPORT_BINS` times the
    /// hull (a few hundred vertices for a 1024² sprite), rather than every boundary pixel
    /// times every bin, which for a noisy sprite (nearly every pixel on the boundary) is
    /// seconds.
    pub(crate) fn new(mask: &BitMask) -> SpriteInfo {
        let (w, h) = mask.size();
        let centre = Vec2::new(w as f32, h as f32) / 2.0;
        let ends = row_ends(mask);
        let (mut lo, mut hi) = (Vec2::INFINITY, Vec2::NEG_INFINITY);
        let mut radius2 = 0.0f32;
        for &(y, left, right) in &ends {
            for x in [left, right] {
                let (p0, p1) = (
                    Vec2::new(x as f32, y as f32),
                    Vec2::new(x as f32 + 1.0, y as f32 + 1.0),
                );
                lo = lo.min(p0);
                hi = hi.max(p1);
                // The farthest corner of the pixel from the centre.
                let far = (p0 - centre).abs().max((p1 - centre).abs());
                radius2 = radius2.max(far.length_squared());
            }
        }
        let tight = (lo.x <= hi.x).then(|| ((lo + hi) / 2.0, (hi - lo) / 2.0));
        let radius = radius2.sqrt();
        // Half a bin, plus the error of the bin's angle (see `separated_similar`).
        let slack =
            radius * (std::f32::consts::PI / SUPPORT_BINS as f32 + 4.0 * ATAN2_ERROR) * 1.01;
        // Pixel corners and pixel centres in doubled coordinates, exact in integers.
        let corners = convex_hull(
            ends.iter()
                .flat_map(|&(y, l, r)| {
                    let (y, l, r) = (i64::from(y), i64::from(l), i64::from(r) + 1);
                    [(l, y), (l, y + 1), (r, y), (r, y + 1)]
                })
                .map(|(x, y)| (2 * x, 2 * y))
                .collect(),
        );
        let centres = convex_hull(
            ends.iter()
                .flat_map(|&(y, l, r)| {
                    let y = 2 * i64::from(y) + 1;
                    [(2 * i64::from(l) + 1, y), (2 * i64::from(r) + 1, y)]
                })
                .collect(),
        );
        let to_mask = |(x, y): (i64, i64)| Vec2::new(x as f32 / 2.0, y as f32 / 2.0) - centre;
        let (corners, centres): (Vec<Vec2>, Vec<Vec2>) = (
            corners.into_iter().map(to_mask).collect(),
            centres.into_iter().map(to_mask).collect(),
        );
        let reach = |points: &[Vec2], d: Vec2| {
            points
                .iter()
                .fold(f32::NEG_INFINITY, |most, p| most.max(p.dot(d)))
        };
        let support = (0..SUPPORT_BINS)
            .map(|k| {
                let d = Vec2::from_angle(std::f32::consts::TAU * k as f32 / SUPPORT_BINS as f32);
                (reach(&corners, d) + slack, reach(&centres, d) + slack)
            })
            .collect();
        SpriteInfo {
            width: w,
            height: h,
            tight,
            radius,
            support,
        }
    }
}

/// Per row with a set pixel: `(row, leftmost column, rightmost column)`.
fn row_ends(mask: &BitMask) -> Vec<(u32, u32, u32)> {
    (0..mask.height())
        .zip(mask.exact_spans().iter())
        .filter(|(_, (first, end))| first < end)
        .map(|(y, &(first, end))| (y, first, end - 1))
        .collect()
}

/// The vertices of the convex hull of integer points (Andrew's monotone chain), without
/// collinear ones; fewer than three distinct points come back as they are.
fn convex_hull(mut points: Vec<(i64, i64)>) -> Vec<(i64, i64)> {
    points.sort_unstable();
    points.dedup();
    if points.len() < 3 {
        return points;
    }
    let cross = |o: (i64, i64), a: (i64, i64), b: (i64, i64)| {
        (a.0 - o.0) * (b.1 - o.1) - (a.1 - o.1) * (b.0 - o.0)
    };
    let mut hull: Vec<(i64, i64)> = Vec::with_capacity(points.len() + 1);
    for pass in 0..2 {
        let start = hull.len();
        let ordered: Box<dyn Iterator<Item = &(i64, i64)>> = if pass == 0 {
            Box::new(points.iter())
        } else {
            Box::new(points.iter().rev())
        };
        for &p in ordered {
            while hull.len() >= start + 2
                && cross(hull[hull.len() - 2], hull[hull.len() - 1], p) <= 0
            {
                hull.pop();
            }
            hull.push(p);
        }
        // Each chain's last point is the next chain's first.
        hull.pop();
    }
    hull
}

/// One pair's narrow-phase answer: a pixel of A (`[column, row]` in its mask) whose sample
/// lands on a set pixel of B, or `None` when no sample does.
pub type PairHit = Option<[u32; 2]>;

/// Answers kept per body (as A) from one step to the next.
const WITNESS_SLOTS: usize = 2;

/// Last step's answer for one pair: body A's partner and the pixel of A that landed on
/// it, or [`Witness::MISSED`].
#[derive(Debug, Clone, Copy)]
struct Witness {
    partner: u32,
    pixel: [u32; 2],
}

impl Witness {
    const NONE: Witness = Witness {
        partner: u32::MAX,
        pixel: [0, 0],
    };
    const MISSED: [u32; 2] = MISSED_PIXEL;
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
    witnesses: &'w [[Witness; WITNESS_SLOTS]],
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
        let last_step = self.witnesses.get(i).and_then(|slots| {
            let j = j as u32;
            slots.iter().find(|w| w.partner == j).map(|w| w.pixel)
        });
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

    /// [`separated_similar`] for bodies `i` (as A) and `j`: every crowd transform is a
    /// rotation times a uniform scale ([`sprite_to_world`]), and a body's circle is centred
    /// on its mask's centre.
    fn separated(&self, i: usize, j: usize) -> bool {
        let (Some(info_a), Some(info_b)) = (
            self.info.get(self.bodies[i].sprite),
            self.info.get(self.bodies[j].sprite),
        ) else {
            return false;
        };
        let ((ca, ra), (cb, rb)) = (self.circles[i], self.circles[j]);
        let slack = rounding_slack((ca, ra), (cb, rb));
        separated_similar(
            (info_a, self.transforms[i].matrix2, ca),
            (info_b, self.transforms[j].matrix2, cb),
            slack,
        )
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

/// A quick proof that no sample of A lands in B: separating axes near the line of
/// centres. Along a unit vector `u`, A's samples reach at most `reach_A(u)` past A's centre
/// and B's pixels at most `reach_B(−u)` before B's; when `(c_B − c_A)·u` is more than both,
/// no sample of A can land in B. Besides the line of centres, tilted axes catch the edge
/// normals of concave shapes' hulls (a star's pentagon) and the narrow gaps of sprites
/// that nearly interlock.
///
/// Each side is its sprite's tables, the linear part of its mask-to-world transform, and
/// the world point of its mask's centre (`(width / 2, height / 2)` in mask space). Both
/// linear parts must be similarities (a rotation times a uniform scale, mirrored or not:
/// see [`similarity_scale`]); `slack` is added to the reaches, for the f32 rounding of the
/// centres and anything the caller knows of its transforms' error.
///
/// A similarity `M` with `det M < 0` is a rotation by α (the angle of its x axis) times
/// `diag(s, −s)`: its transpose takes the world direction at angle φ to the mask direction
/// at angle `α − φ`; with `det M > 0`, to `φ − α`. Either way it scales by `s`. So the
/// support bins of every axis are one angle each per pair, offset by the tilt: tilts are
/// whole bins, and an axis costs two table reads. The bin angles carry two [`fast_atan2`]
/// errors and f32 rounding, inside the tables' slack.
pub(crate) fn separated_similar(
    (info_a, ma, ca): (&SpriteInfo, Mat2, Vec2),
    (info_b, mb, cb): (&SpriteInfo, Mat2, Vec2),
    slack: f32,
) -> bool {
    use std::f32::consts::{PI, TAU};
    let between = cb - ca;
    let distance = between.length();
    if !(distance > 0.0 && distance.is_finite()) {
        return false;
    }
    let angle = |v: Vec2| fast_atan2(v.y, v.x);
    let towards_b = angle(between);
    let bin = |radians: f32| floor_i64(radians * (SUPPORT_BINS as f32 / TAU) + 0.5);
    // The mask-space bin of the world direction at `phi`, and which way a tilt turns it.
    let mask_bin = |m: Mat2, phi: f32| {
        if m.determinant() < 0.0 {
            (bin(angle(m.x_axis) - phi), -1)
        } else {
            (bin(phi - angle(m.x_axis)), 1)
        }
    };
    // A's samples along u (angle φ), B's pixels along −u (angle φ + π).
    let (a_bin, a_turn) = mask_bin(ma, towards_b);
    let (b_bin, b_turn) = mask_bin(mb, towards_b + PI);
    let (a_scale, b_scale) = (ma.x_axis.length(), mb.x_axis.length());
    let wrap = |bin: i64| bin.rem_euclid(SUPPORT_BINS as i64) as usize;
    SEPARATING_TILTS.iter().any(|&(tilt, cos)| {
        let reach_a = info_a.support[wrap(a_bin + a_turn * tilt)].1 * a_scale;
        let reach_b = info_b.support[wrap(b_bin + b_turn * tilt)].0 * b_scale;
        // (c_B − c_A)·u for u turned by the tilt from the line of centres.
        distance * cos > reach_a + reach_b + slack
    })
}

/// How far apart two bounding circles (world centre, radius) may seem and still hold
/// pixels that touch: f32 rounding of positions far from the origin. The mid phases and
/// the separating axes of the crowd and the collision plugin all allow this much.
pub(crate) fn rounding_slack((ca, ra): (Vec2, f32), (cb, rb): (Vec2, f32)) -> f32 {
    1e-3 + 1e-5 * (ca.abs().max_element() + cb.abs().max_element() + ra + rb)
}

/// Whether two bounding circles (world centre, radius) meet, within [`rounding_slack`].
pub(crate) fn circles_may_meet(a: (Vec2, f32), b: (Vec2, f32)) -> bool {
    let reach = a.1 + b.1 + rounding_slack(a, b);
    a.0.distance_squared(b.0) <= reach * reach
}

/// The scale of a similarity (a rotation times a uniform scale, mirrored or not), `None`
/// for any other linear map or one with non-finite or zero entries. "Similar" allows a
/// relative error of 1e-6 (f32 rounding of a built transform); the scale returned is the
/// larger column length, and [`separated_similar`]'s callers add `SIMILARITY_SLACK` times
/// the reach for the angle that error can hide.
#[cfg_attr(not(feature = "plugin"), allow(dead_code))]
pub(crate) fn similarity_scale(m: Mat2) -> Option<f32> {
    let (x, y) = (m.x_axis.length(), m.y_axis.length());
    let tolerance = 1e-6 * x.max(y);
    (x.is_finite()
        && y.is_finite()
        && x > 0.0
        && (x - y).abs() <= tolerance
        && m.x_axis.dot(m.y_axis).abs() <= tolerance * x.max(y))
    .then_some(x.max(y))
}

/// Relative reach added by callers of [`separated_similar`] whose transforms are only
/// similar to within [`similarity_scale`]'s tolerance: the angle that hides, with margin.
#[cfg_attr(not(feature = "plugin"), allow(dead_code))]
pub(crate) const SIMILARITY_SLACK: f32 = 1e-5;

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
    /// Bodies' centres bounce off these walls.
    pub bounds: Rect,
    pub broad_phase: B,
    sprites: Vec<BitMask>,
    info: Vec<SpriteInfo>,
    boxes: Vec<Aabb2d>,
    transforms: Vec<Affine2>,
    inverses: Vec<Affine2>,
    /// Per body: bounding-circle centre and radius.
    circles: Vec<(Vec2, f32)>,
    pairs: Vec<(u32, u32)>,
    tests: Vec<(u32, u32)>,
    hits: Vec<PairHit>,
    /// Per body, last step's answers with it as A.
    witnesses: Vec<[Witness; WITNESS_SLOTS]>,
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

    /// Moves every body by `dt` seconds, then [`collide`](Self::collide)s.
    pub fn step(&mut self, dt: f32) {
        self.advance(dt);
        self.collide();
    }

    /// Moves and turns every body by `dt` seconds; a centre that crosses a wall is mirrored
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
        self.witnesses
            .resize(self.bodies.len(), [Witness::NONE; WITNESS_SLOTS]);
        let mut contacts = 0;
        for (&(i, j), hit) in self.tests.iter().zip(&self.hits) {
            if hit.is_some() {
                self.touching[i as usize] = true;
                self.touching[j as usize] = true;
                contacts += 1;
            }
            // The first free slot, or the last one overwritten.
            let slots = &mut self.witnesses[i as usize];
            let free = slots.iter().position(|w| w.partner == u32::MAX);
            slots[free.unwrap_or(WITNESS_SLOTS - 1)] = Witness {
                partner: j,
                pixel: hit.unwrap_or(Witness::MISSED),
            };
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
            let (w, h) = info.map_or((0, 0), |i| (i.width, i.height));
            let to_world =
                sprite_to_world(body.position, body.angle, Vec2::splat(body.scale), (w, h));
            *transform = to_world;
            let usable = body.position.is_finite()
                && body.angle.is_finite()
                && body.scale.is_finite()
                && body.scale != 0.0;
            match info {
                Some(&SpriteInfo {
                    tight: Some((centre, half)),
                    radius,
                    ..
                }) if usable => {
                    // The original box (the mask's tight box) through this step's transform:
                    // rotated fresh every step, never from last step's rotated box.
                    let centre = to_world.transform_point2(centre);
                    let half = to_world.matrix2.abs() * half;
                    // The narrow phase rounds each sample's world point and its mapping
                    // into B to f32, a few units in the last place of the coordinates
                    // involved: without slack, boxes that only meet within that rounding
                    // drop pairs it reports (the mid phase's circles keep the same slack).
                    let slack = 1e-5 * (centre.abs().max_element() + half.max_element());
                    let half = half + slack;
                    *world_box = Aabb2d {
                        min: centre - half,
                        max: centre + half,
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

/// One side of a pair as [`first_hit_with_hints`] reads it: the mask, its transforms both
/// ways and its world bounding circle.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PairSide<'m> {
    pub mask: &'m BitMask,
    pub to_world: Affine2,
    /// World to mask space, the inverse of `to_world`.
    pub to_mask: Affine2,
    pub circle: (Vec2, f32),
}

/// The witness a pair keeps when it was tested and did not touch: no mask is that large.
pub(crate) const MISSED_PIXEL: [u32; 2] = [u32::MAX, u32::MAX];

/// `transformed_first_hit(a, b)` (a pixel of A that lands on B, or `None`), found faster
/// with what the last step knew: `last` is its answer for this pair (a pixel, or
/// [`MISSED_PIXEL`]), `separated` a proof of a miss by separating axes. Sprites move a
/// pixel or two a step, so last step's hit usually lands again, and a pair that missed is
/// worth the axes before any probe. Which pixel is found depends on the hints; whether one
/// is found does not. The crowd's narrow phase and the collision plugin's share it.
pub(crate) fn first_hit_with_hints(
    a: PairSide<'_>,
    b: PairSide<'_>,
    last: Option<[u32; 2]>,
    separated: impl Fn() -> bool,
) -> PairHit {
    // `transformed_first_hit`'s own preconditions: where they fail, it finds nothing,
    // and so must the samples below.
    if !is_usable(a.to_world)
        || !is_usable(b.to_world)
        || !b.to_mask.is_finite()
        || !is_usable(b.to_mask * a.to_world)
    {
        return None;
    }
    let (bw, bh) = (b.mask.width() as f32, b.mask.height() as f32);
    // One sample exactly as `transformed_first_hit` defines it: A's pixel centre, to world
    // by A's transform, to B by the inverse of B's, floor; so a hit here is its answer too.
    let lands = |[x, y]: [u32; 2]| {
        let centre = Vec2::new(x as f32 + 0.5, y as f32 + 0.5);
        let p = b
            .to_mask
            .transform_point2(a.to_world.transform_point2(centre));
        a.mask.get(x.into(), y.into())
            && p.x >= 0.0
            && p.y >= 0.0
            && p.x < bw
            && p.y < bh
            && b.mask.get(p.x as i64, p.y as i64)
    };
    let missed_last_step = last == Some(MISSED_PIXEL);
    match last {
        Some(MISSED_PIXEL) if separated() => return None,
        Some(pixel) if !missed_last_step && lands(pixel) => return Some(pixel),
        _ => {}
    }
    if let Some(pixel) = probe_lens(a.to_mask, a.mask.size(), a.circle, b.circle, lands) {
        return Some(pixel);
    }
    if !missed_last_step && separated() {
        return None;
    }
    transformed_first_hit(a.mask, a.to_world, b.mask, b.to_world)
}

/// A quick search for a sure hit before the full test: a few samples of A where the two
/// bounding circles (world centre and radius) overlap, along the line of centres and across
/// it (for two discs, the middle is inside both), each through `lands`, which must say
/// whether A's pixel lands on B exactly as the full test defines it. Most touching pairs
/// that last step's witness misses are settled here in a few dozen nanoseconds. Shared
/// with the collision plugin's narrow phase.
pub(crate) fn probe_lens(
    world_to_a: Affine2,
    (aw, ah): (u32, u32),
    (ca, ra): (Vec2, f32),
    (cb, rb): (Vec2, f32),
    lands: impl Fn([u32; 2]) -> bool,
) -> PairHit {
    const ALONG: [f32; 5] = [0.5, 0.25, 0.75, 0.1, 0.9];
    const ACROSS: [f32; 6] = [0.35, -0.35, 0.65, -0.65, 0.9, -0.9];
    let d = ca.distance(cb);
    let towards_b = (cb - ca).try_normalize().unwrap_or(Vec2::X);
    let across = towards_b.perp();
    // The circles overlap between B's near edge and A's near edge along the line of
    // centres, and across it up to half the common chord.
    let (from, to) = (cb - towards_b * rb, ca + towards_b * ra);
    let x = ((d * d + ra * ra - rb * rb) / (2.0 * d)).clamp(-ra, ra);
    let half_chord = (ra * ra - x * x).max(0.0).sqrt().min(rb);
    let (aw, ah) = (aw as f32, ah as f32);
    // The pixel of A under a world point; any set pixel of A is a fair sample.
    let pixel = |w: Vec2| {
        let q = world_to_a.transform_point2(w);
        (q.x >= 0.0 && q.y >= 0.0 && q.x < aw && q.y < ah).then_some([q.x as u32, q.y as u32])
    };
    let middle = from.lerp(to, 0.5);
    ALONG
        .iter()
        .map(|&t| from.lerp(to, t))
        .chain(ACROSS.iter().map(|&t| middle + across * (t * half_chord)))
        .filter_map(pixel)
        .find(|&p| lands(p))
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

/// The tutorials' way, for comparison (feature `internals`): each sprite's full rectangle
/// turned into a bounding box (XNA's `CalculateBoundingRectangle`), every pair's boxes
/// tested, then the per-pixel colour loop
/// [`intersect_pixels_transformed`](super::baseline::intersect_pixels_transformed)
/// (alpha > 0) on the pairs whose boxes touch.
///
/// `sprites[k]` is the RGBA image of sprite `k`; `touching` is replaced by one flag per
/// body. A pair `(i, j)`, `i < j`, steps body `i`'s pixels through body `j`'s image. Bodies
/// with a sprite index out of range never touch.
#[cfg(feature = "internals")]
pub fn collide_all_pairs_tutorial(
    bodies: &[CrowdBody],
    sprites: &[super::baseline::ColorArray<'_>],
    touching: &mut Vec<bool>,
) -> CrowdStats {
    use super::baseline::intersect_pixels_transformed;
    use super::transformed::world_bounds;
    use bevy_math::bounding::IntersectsVolume;

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
        broad_ns: nanos(broad_done - start),
        narrow_ns: nanos(done - broad_done),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fast_atan2_is_within_its_bound() {
        let mut worst = 0.0f64;
        for k in 0..200_000 {
            let angle = k as f64 / 200_000.0 * std::f64::consts::TAU - std::f64::consts::PI;
            for r in [1e-3f64, 1.0, 37.5, 4e4] {
                let (x, y) = ((angle.cos() * r) as f32, (angle.sin() * r) as f32);
                let exact = f64::from(y).atan2(f64::from(x));
                let mut error = (f64::from(fast_atan2(y, x)) - exact).abs();
                // ±π are the same direction.
                error = error.min((error - std::f64::consts::TAU).abs());
                worst = worst.max(error);
            }
        }
        assert!(worst <= f64::from(ATAN2_ERROR), "worst error {worst}");
    }

    #[test]
    fn wrap_angle_is_rem_euclid() {
        use std::f32::consts::TAU;
        let mut rng = crate::collision::rng::SplitMix64(5);
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

    /// The support tables' definition, pixel by pixel: every corner and centre of every
    /// set pixel along every bin's direction.
    fn support_by_definition(mask: &BitMask) -> Vec<(f32, f32)> {
        let (w, h) = mask.size();
        let centre = Vec2::new(w as f32, h as f32) / 2.0;
        let mut support = vec![(f32::NEG_INFINITY, f32::NEG_INFINITY); SUPPORT_BINS];
        for y in 0..h {
            for x in 0..w {
                if !mask.get(x.into(), y.into()) {
                    continue;
                }
                let p0 = Vec2::new(x as f32, y as f32) - centre;
                for (k, s) in support.iter_mut().enumerate() {
                    let d =
                        Vec2::from_angle(std::f32::consts::TAU * k as f32 / SUPPORT_BINS as f32);
                    for c in [p0, p0 + Vec2::X, p0 + Vec2::Y, p0 + Vec2::ONE] {
                        s.0 = s.0.max(c.dot(d));
                    }
                    s.1 = s.1.max((p0 + 0.5).dot(d));
                }
            }
        }
        support
    }

    /// The tables from row ends and hulls agree with the definition over random shapes
    /// (noise, blobs, lines, single pixels, word boundaries), to within the rounding of a
    /// dot product.
    #[test]
    fn sprite_tables_from_row_ends_match_the_definition() {
        use crate::collision::rng::SplitMix64;
        let mut rng = SplitMix64(77);
        for case in 0..60 {
            let (w, h) = (1 + rng.below(140) as u32, 1 + rng.below(50) as u32);
            let mut m = BitMask::new(w, h);
            let density = [0.02, 0.3, 0.9][case % 3];
            for y in 0..h {
                for x in 0..w {
                    m.set(x.into(), y.into(), rng.chance(density));
                }
            }
            let info = SpriteInfo::new(&m);
            let rect = m.bounding_rect();
            assert_eq!(info.tight.is_some(), rect.is_some());
            let Some(rect) = rect else { continue };
            let (centre, half) = info.tight.unwrap();
            let expected_half = Vec2::new(rect.width as f32, rect.height as f32) / 2.0;
            assert_eq!(half, expected_half, "case {case}");
            assert_eq!(
                centre,
                Vec2::new(rect.x as f32, rect.y as f32) + expected_half
            );
            let slack = info.radius
                * (std::f32::consts::PI / SUPPORT_BINS as f32 + 4.0 * ATAN2_ERROR)
                * 1.01;
            for (k, (ours, exact)) in info
                .support
                .iter()
                .zip(support_by_definition(&m))
                .enumerate()
            {
                let tolerance = 1e-5 * (1.0 + info.radius);
                assert!(
                    (ours.0 - slack - exact.0).abs() <= tolerance,
                    "case {case}, bin {k}"
                );
                assert!(
                    (ours.1 - slack - exact.1).abs() <= tolerance,
                    "case {case}, bin {k}"
                );
            }
        }
    }

    /// A large noisy sprite gets tables that bound it: every set pixel's corner within each
    /// bin's reach. (Nearly every pixel of noise is on the boundary, the worst case for
    /// a pass over boundary pixels.)
    #[test]
    fn large_noisy_sprites_get_bounding_tables() {
        use crate::collision::rng::SplitMix64;
        let mut rng = SplitMix64(5);
        let mut m = BitMask::new(1024, 1024);
        for y in 0..1024 {
            for x in 0..1024 {
                m.set(x, y, rng.chance(0.5));
            }
        }
        let info = SpriteInfo::new(&m);
        let centre = Vec2::splat(512.0);
        for (k, s) in info.support.iter().enumerate().step_by(37) {
            let d = Vec2::from_angle(std::f32::consts::TAU * k as f32 / SUPPORT_BINS as f32);
            for y in (0..1024).step_by(61) {
                for x in 0..1024 {
                    if m.get(x, y) {
                        let corner = Vec2::new(x as f32, y as f32) - centre;
                        assert!(corner.dot(d) <= s.0 && (corner + 0.5).dot(d) <= s.1);
                    }
                }
            }
        }
        assert!(info.radius >= 512.0 * std::f32::consts::SQRT_2 - 1.0);
    }

    /// A 48×40 mask, set where `inside(u, v)` with `u, v` in `[-1, 1]`.
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
        use crate::collision::rng::SplitMix64;
        use crate::collision::transformed::transformed_intersects;
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

    /// The same for any similarity, as a plugin's sprites have: flipped on either axis
    /// (so both signs of the determinant), anchored off centre, mask centres taken from
    /// the transforms rather than from a body.
    #[test]
    fn separating_axes_of_any_similarity_never_hide_a_hit() {
        use crate::collision::rng::SplitMix64;
        use crate::collision::transformed::transformed_intersects;
        let sprites = [
            mask(|u, v| (0.6..=0.97).contains(&(u * u + v * v).sqrt())),
            mask(|u, v| u.abs() + v.abs() <= 1.0 && u > -0.6),
            mask(|u, v| v > 0.3 || u < -0.7),
        ];
        let info: Vec<SpriteInfo> = sprites.iter().map(SpriteInfo::new).collect();
        let mut rng = SplitMix64(29);
        let (mut separated, mut hits, mut upright) = (0, 0, 0);
        let placed = |rng: &mut SplitMix64, at: Vec2| {
            let k = (rng.range(0.0, 3.0) as usize).min(2);
            let flip = Vec2::new(
                if rng.range(0.0, 1.0) < 0.5 { -1.0 } else { 1.0 },
                if rng.range(0.0, 1.0) < 0.5 { -1.0 } else { 1.0 },
            );
            let scale = rng.range(0.4, 2.0);
            let anchor = Vec2::new(rng.range(-30.0, 30.0), rng.range(-30.0, 30.0));
            // Mask space (y down) to a sprite's local space, then turned and moved.
            let local = Affine2::from_scale(Vec2::new(1.0, -1.0) * flip * scale)
                * Affine2::from_translation(-Vec2::new(24.0, 20.0));
            let to_world = Affine2::from_angle_translation(rng.range(-7.0, 7.0), at)
                * Affine2::from_translation(anchor)
                * local;
            (k, to_world)
        };
        for _ in 0..500 {
            let origin = Vec2::new(rng.range(-2e3, 2e3), rng.range(-2e3, 2e3));
            let (ka, ta) = placed(&mut rng, origin);
            let direction = Vec2::from_angle(rng.range(0.0, std::f32::consts::TAU));
            for step in 0..40 {
                let (kb, tb) = placed(&mut rng, origin + direction * (step as f32 * 3.0));
                let centre = |t: Affine2| t.transform_point2(Vec2::new(24.0, 20.0));
                let (sa, sb) = (
                    similarity_scale(ta.matrix2).unwrap(),
                    similarity_scale(tb.matrix2).unwrap(),
                );
                let (ca, cb) = (centre(ta), centre(tb));
                let slack = 1e-3
                    + 1e-5 * (ca.abs().max_element() + cb.abs().max_element())
                    + SIMILARITY_SLACK * (info[ka].radius * sa + info[kb].radius * sb);
                let hit = transformed_intersects(&sprites[ka], ta, &sprites[kb], tb);
                upright += usize::from(ta.matrix2.determinant() > 0.0);
                if separated_similar(
                    (&info[ka], ta.matrix2, ca),
                    (&info[kb], tb.matrix2, cb),
                    slack,
                ) {
                    assert!(!hit, "{ka} {ta:?} {kb} {tb:?}");
                    separated += 1;
                }
                hits += usize::from(hit);
            }
        }
        assert!(
            separated > 2_000 && hits > 1_500 && upright > 5_000,
            "{separated} separated, {hits} hits, {upright} with a positive determinant"
        );
    }
}
