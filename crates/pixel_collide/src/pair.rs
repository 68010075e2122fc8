//! The per-pixel test of one pair of placed masks, with what a caller that tests the same
//! pairs frame after frame can reuse: a narrow phase over many moving sprites (the Bevy
//! plugin's runs on it).
//!
//! - [`SpriteInfo`]: a mask's shape facts, derived once (tight box, bounding radius,
//!   support functions).
//! - [`box_slack`]: the margin world boxes need for the broad phase to keep every pair the
//!   per-pixel test would report.
//! - [`circles_may_meet`]: the mid phase on bounding circles, within [`rounding_slack`].
//! - [`first_hit_with_hints`]: [`transformed_first_hit`]'s answer, found faster with last
//!   frame's answer for the pair and a proof of a miss by separating axes
//!   ([`proves_miss`], for transforms that are similarities: see [`similarity_scale`]);
//!   [`Witnesses`] keeps the answers from one frame to the next.
//!
//! - [`largest_stretch`]: how far a transform can move a pixel, for slack on general
//!   (not similar) transforms.
//!
//! Whether a pair touches never depends on the hints, only which pixel is reported.
//!
//! [`transformed_first_hit`]: crate::transformed_first_hit

use std::cmp::Ordering;

use bevy_math::{Affine2, Mat2, Vec2};

use crate::BitMask;
use crate::broad_phase::floor_i64;
use crate::mask::convex_hull_of_points;
use crate::reproducible_math;
use crate::transformed::{is_usable, transformed_first_hit};

pub use crate::transformed::largest_stretch;

/// Directions at which a sprite's support function is tabulated.
const SUPPORT_BINS: usize = 512;

/// Tilts of the separating axes from the line of centers, in support bins (each
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

/// A sprite's shape facts, derived once from its mask: what the mid phase and the
/// separating axes read for every pair it is in.
#[derive(Debug, Clone)]
pub struct SpriteInfo {
    width: u32,
    height: u32,
    /// Tight box of the set pixels in mask space (y down, pixels): its center and half
    /// size. `None` for an empty mask.
    tight: Option<(Vec2, Vec2)>,
    /// Largest distance from the mask center to a corner of a set pixel.
    radius: f32,
    /// Support functions about the mask center, mask space: for the direction at angle
    /// `2πk / SUPPORT_BINS`, how far the set pixels' corners (`.0`, where B's pixels reach)
    /// and centers (`.1`, where A's samples reach) go along it, plus the most that can grow
    /// within half a bin (`radius × π / SUPPORT_BINS`) and the error of the bin's angle, so
    /// the bin nearest a computed angle bounds the true direction.
    support: Vec<(f32, f32)>,
}

impl SpriteInfo {
    /// The mask's width and height, pixels.
    pub fn size(&self) -> (u32, u32) {
        (self.width, self.height)
    }

    /// The tight box of the set pixels in mask space (y down, pixels): its center and
    /// half size; `None` for an empty mask.
    pub fn tight_box(&self) -> Option<(Vec2, Vec2)> {
        self.tight
    }

    /// Largest distance, mask pixels, from the mask's center to a corner of a set pixel:
    /// the radius of a circle about the center that holds every set pixel whatever the
    /// rotation.
    pub fn radius(&self) -> f32 {
        self.radius
    }

    /// Built from each row's leftmost and rightmost set pixels: every fact here is a
    /// maximum of a linear function (or a distance) over the set pixels, and in a row that
    /// is reached at one of its two ends. The support functions then only need the convex
    /// hull of those ends, so the cost is the mask's words plus `SUPPORT_BINS` times the
    /// hull (a few hundred vertices for a 1024² sprite), rather than every boundary pixel
    /// times every bin, which for a noisy sprite (nearly every pixel on the boundary) is
    /// seconds.
    pub fn new(mask: &BitMask) -> SpriteInfo {
        let (w, h) = mask.size();
        let center = Vec2::new(w as f32, h as f32) / 2.0;
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
                // The farthest corner of the pixel from the center.
                let far = (p0 - center).abs().max((p1 - center).abs());
                radius2 = radius2.max(far.length_squared());
            }
        }
        let tight = (lo.x <= hi.x).then(|| ((lo + hi) / 2.0, (hi - lo) / 2.0));
        let radius = radius2.sqrt();
        // Half a bin, plus the error of the bin's angle (see `separated_similar`).
        let slack =
            radius * (std::f32::consts::PI / SUPPORT_BINS as f32 + 4.0 * ATAN2_ERROR) * 1.01;
        // Pixel corners and pixel centers in doubled coordinates, exact in integers.
        let corners = convex_hull_of_points(
            ends.iter()
                .flat_map(|&(y, l, r)| {
                    let (y, l, r) = (i64::from(y), i64::from(l), i64::from(r) + 1);
                    [(l, y), (l, y + 1), (r, y), (r, y + 1)]
                })
                .map(|(x, y)| (2 * x, 2 * y))
                .collect(),
        );
        let centers = convex_hull_of_points(
            ends.iter()
                .flat_map(|&(y, l, r)| {
                    let y = 2 * i64::from(y) + 1;
                    [(2 * i64::from(l) + 1, y), (2 * i64::from(r) + 1, y)]
                })
                .collect(),
        );
        let to_mask = |(x, y): (i64, i64)| Vec2::new(x as f32 / 2.0, y as f32 / 2.0) - center;
        let (corners, centers): (Vec<Vec2>, Vec<Vec2>) = (
            corners.into_iter().map(to_mask).collect(),
            centers.into_iter().map(to_mask).collect(),
        );
        let reach = |points: &[Vec2], d: Vec2| {
            points
                .iter()
                .fold(f32::NEG_INFINITY, |most, p| most.max(p.dot(d)))
        };
        let support = (0..SUPPORT_BINS)
            .map(|k| {
                let d = reproducible_math::unit_vector(
                    std::f32::consts::TAU * k as f32 / SUPPORT_BINS as f32,
                );
                (reach(&corners, d) + slack, reach(&centers, d) + slack)
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

/// One pair's narrow-phase answer: a pixel of A (`[column, row]` in its mask) whose sample
/// lands on a set pixel of B, or `None` when no sample does.
pub type PairHit = Option<[u32; 2]>;

/// A quick proof that no sample of A lands in B: separating axes near the line of
/// centers. Along a unit vector `u`, A's samples reach at most `reach_A(u)` past A's center
/// and B's pixels at most `reach_B(−u)` before B's; when `(c_B − c_A)·u` is more than both,
/// no sample of A can land in B. Besides the line of centers, tilted axes catch the edge
/// normals of concave shapes' hulls (a star's pentagon) and the narrow gaps of sprites
/// that nearly interlock.
///
/// Each side is its sprite's tables, the linear part of its mask-to-world transform, and
/// the world point of its mask's center (`(width / 2, height / 2)` in mask space). Both
/// linear parts must be similarities (a rotation times a uniform scale, mirrored or not:
/// see [`similarity_scale`]); `slack` is added to the reaches, for the f32 rounding of the
/// centers and anything the caller knows of its transforms' error.
///
/// A similarity `M` with `det M < 0` is a rotation by α (the angle of its x axis) times
/// `diag(s, −s)`: its transpose takes the world direction at angle φ to the mask direction
/// at angle `α − φ`; with `det M > 0`, to `φ − α`. Either way it scales by `s`. So the
/// support bins of every axis are one angle each per pair, offset by the tilt: tilts are
/// whole bins, and an axis costs two table reads. The bin angles carry two `fast_atan2`
/// errors and f32 rounding, inside the tables' slack.
pub fn separated_similar(
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
        // (c_B − c_A)·u for u turned by the tilt from the line of centers.
        distance * cos > reach_a + reach_b + slack
    })
}

/// How far apart two bounding circles (world center, radius) may seem and still hold
/// pixels that touch: f32 rounding of positions far from the origin. The mid phases and
/// the separating axes of every caller allow this much.
pub fn rounding_slack((ca, ra): (Vec2, f32), (cb, rb): (Vec2, f32)) -> f32 {
    1e-3 + 1e-5 * (ca.abs().max_element() + cb.abs().max_element() + ra + rb)
}

/// How much to widen a world box of a mask's set pixels, centered at `center` with
/// half-extents `reach`, so that a broad phase on such boxes never drops a pair the
/// per-pixel test would report: the test rounds each sample's world point and its mapping
/// into the other mask to f32, a few units in the last place of the coordinates involved.
/// The plugin and any other narrow phase built on [`first_hit_with_hints`] use this one
/// margin, so their pair lists agree.
pub fn box_slack(center: Vec2, reach: Vec2) -> f32 {
    1e-5 * (center.abs().max_element() + reach.max_element()) + 1e-4
}

/// One side of a pair as [`proves_miss`] reads it: the sprite's shape facts, its world
/// placement (the linear part a similarity: see [`similarity_scale`]), the world center of
/// its mask and its world bounding circle.
#[derive(Debug, Clone, Copy)]
pub struct SimilarSide<'i> {
    /// The sprite's support tables.
    pub info: &'i SpriteInfo,
    /// The linear part of its mask-to-world transform.
    pub linear: Mat2,
    /// Its scale, as [`similarity_scale`] gives it.
    pub scale: f32,
    /// The world point of its mask's center (`(width / 2, height / 2)` in mask space).
    pub center: Vec2,
    /// World center and radius of a circle holding its set pixels.
    pub circle: (Vec2, f32),
}

/// A proof that two sprites placed by similarities miss each other: [`separated_similar`]
/// with the slack every caller owes it, the rounding of the circles' positions
/// ([`rounding_slack`]) and the angle a transform only similar to within
/// [`similarity_scale`]'s tolerance can hide. Pass it as [`first_hit_with_hints`]'s
/// `separated`.
pub fn proves_miss(a: SimilarSide<'_>, b: SimilarSide<'_>) -> bool {
    let slack = rounding_slack(a.circle, b.circle)
        + SIMILARITY_SLACK * (a.info.radius() * a.scale + b.info.radius() * b.scale);
    separated_similar(
        (a.info, a.linear, a.center),
        (b.info, b.linear, b.center),
        slack,
    )
}

/// Last step's answers kept for one collider tested as A: up to [`WITNESS_SLOTS`]
/// partners, each with the pixel of A that landed on it, or [`MISSED_PIXEL`] where the
/// pair was tested and missed. `K` names a partner as the caller does (an index, an
/// entity); its [`WitnessKey::NONE`] marks a free slot. Fed back to
/// [`first_hit_with_hints`] as `last`.
#[derive(Debug, Clone, Copy)]
pub struct Witnesses<K> {
    partners: [(K, [u32; 2]); WITNESS_SLOTS],
}

/// Partners whose answers [`Witnesses`] keeps per collider: most colliders touch one or
/// two others, and a third overwrites the last.
pub const WITNESS_SLOTS: usize = 2;

/// A partner's name in [`Witnesses`], with a value that names none.
pub trait WitnessKey: Copy + PartialEq {
    /// Marks a free slot; never a real partner.
    const NONE: Self;
}

impl WitnessKey for u32 {
    const NONE: u32 = u32::MAX;
}

impl WitnessKey for u64 {
    const NONE: u64 = u64::MAX;
}

impl<K: WitnessKey> Witnesses<K> {
    /// No partner remembered.
    pub const EMPTY: Self = Witnesses {
        partners: [(K::NONE, MISSED_PIXEL); WITNESS_SLOTS],
    };

    /// Last step's answer for `partner`, if it was kept.
    pub fn last(&self, partner: K) -> Option<[u32; 2]> {
        self.partners
            .iter()
            .find(|(kept, _)| *kept == partner)
            .map(|&(_, pixel)| pixel)
    }

    /// Keeps this step's answer for `partner` (`None`: tested, missed) in the first free
    /// slot, or over the last one.
    pub fn remember(&mut self, partner: K, hit: PairHit) {
        let free = self.partners.iter().position(|(kept, _)| *kept == K::NONE);
        self.partners[free.unwrap_or(WITNESS_SLOTS - 1)] = (partner, hit.unwrap_or(MISSED_PIXEL));
    }
}

/// Whether two bounding circles (world center, radius) meet, within [`rounding_slack`].
pub fn circles_may_meet(a: (Vec2, f32), b: (Vec2, f32)) -> bool {
    let reach = a.1 + b.1 + rounding_slack(a, b);
    a.0.distance_squared(b.0) <= reach * reach
}

/// The scale of a similarity (a rotation times a uniform scale, mirrored or not), `None`
/// for any other linear map or one with non-finite or zero entries. "Similar" allows a
/// relative error of 1e-6 (f32 rounding of a built transform); the scale returned is the
/// larger column length, and [`separated_similar`]'s callers add `SIMILARITY_SLACK` times
/// the reach for the angle that error can hide.
pub fn similarity_scale(m: Mat2) -> Option<f32> {
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
pub const SIMILARITY_SLACK: f32 = 1e-5;

/// One side of a pair as [`first_hit_with_hints`] reads it: the mask, its transforms both
/// ways and its world bounding circle.
#[derive(Debug, Clone, Copy)]
pub struct PairSide<'m> {
    /// The side's pixels.
    pub mask: &'m BitMask,
    /// Mask to world space.
    pub to_world: Affine2,
    /// World to mask space, the inverse of `to_world`.
    pub to_mask: Affine2,
    /// World center and radius of a circle holding its set pixels.
    pub circle: (Vec2, f32),
}

/// The witness a pair keeps when it was tested and did not touch: no mask is that large.
pub const MISSED_PIXEL: [u32; 2] = [u32::MAX, u32::MAX];

/// Whether the collider whose mask's center (the middle of its image, in the world) is
/// `center` is tested as A against the one centered at `other`: the one further left, or
/// lower when level. The
/// test samples A's pixel centers in B, so a few pairs touch one way round only; deciding
/// by where they are, not by their order in a list or their entity ids, gives every
/// pipeline that calls [`first_hit_with_hints`] (the plugin's, a crowd's, a rollback
/// peer's with other entity ids) the same verdict. `None` at the same place: then the
/// caller's order decides, and a pair of the same mask at the same place touches either
/// way.
pub fn tested_first(center: Vec2, other: Vec2) -> Option<bool> {
    match center
        .x
        .total_cmp(&other.x)
        .then(center.y.total_cmp(&other.y))
    {
        Ordering::Less => Some(true),
        Ordering::Greater => Some(false),
        Ordering::Equal => None,
    }
}

/// `transformed_first_hit(a, b)` (a pixel of A that lands on B, or `None`), found faster
/// with what the last step knew: `last` is its answer for this pair (a pixel, or
/// [`MISSED_PIXEL`]), `separated` a proof of a miss by separating axes. Sprites move a
/// pixel or two a step, so last step's hit usually lands again, and a pair that missed is
/// worth the axes before any probe. Which pixel is found depends on the hints; whether one
/// is found does not.
pub fn first_hit_with_hints(
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
    // One sample exactly as `transformed_first_hit` defines it: A's pixel center, to world
    // by A's transform, to B by the inverse of B's, floor; so a hit here is its answer too.
    let lands = |[x, y]: [u32; 2]| {
        let center = Vec2::new(x as f32 + 0.5, y as f32 + 0.5);
        let p = b
            .to_mask
            .transform_point2(a.to_world.transform_point2(center));
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
/// bounding circles (world center and radius) overlap, along the line of centers and across
/// it (for two discs, the middle is inside both), each through `lands`, which must say
/// whether A's pixel lands on B exactly as the full test defines it. Most touching pairs
/// that last step's witness misses are settled here in a few dozen nanoseconds. Shared
/// with the narrow phases.
pub fn probe_lens(
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
    // centers, and across it up to half the common chord.
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

#[cfg(test)]
mod tests {
    /// A collider's answers come back for their partner only; a third partner
    /// overwrites the last slot, and a miss is kept as a miss, not as no answer.
    #[test]
    fn witnesses_keep_two_partners_and_their_misses() {
        let mut kept = Witnesses::<u32>::EMPTY;
        assert_eq!(kept.last(7), None);
        kept.remember(7, Some([3, 4]));
        kept.remember(9, None);
        assert_eq!(kept.last(7), Some([3, 4]));
        assert_eq!(kept.last(9), Some(MISSED_PIXEL));
        kept.remember(11, Some([1, 2]));
        assert_eq!((kept.last(7), kept.last(9)), (Some([3, 4]), None));
        assert_eq!(kept.last(11), Some([1, 2]));
    }

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

    /// The support tables' definition, pixel by pixel: every corner and center of every
    /// set pixel along every bin's direction.
    fn support_by_definition(mask: &BitMask) -> Vec<(f32, f32)> {
        let (w, h) = mask.size();
        let center = Vec2::new(w as f32, h as f32) / 2.0;
        let mut support = vec![(f32::NEG_INFINITY, f32::NEG_INFINITY); SUPPORT_BINS];
        for y in 0..h {
            for x in 0..w {
                if !mask.get(x.into(), y.into()) {
                    continue;
                }
                let p0 = Vec2::new(x as f32, y as f32) - center;
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
        use pixel_collide_seeded::rng::SplitMix64;
        let mut rng = SplitMix64(77);
        // Cut under qemu (the brute-force support is most of the x86 models' time there);
        // a divisor up to 20 still gives every density.
        for case in 0..pixel_collide_seeded::cases(60) as usize {
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
            let (center, half) = info.tight.unwrap();
            let expected_half = Vec2::new(rect.width as f32, rect.height as f32) / 2.0;
            assert_eq!(half, expected_half, "case {case}");
            assert_eq!(
                center,
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
        use pixel_collide_seeded::rng::SplitMix64;
        let mut rng = SplitMix64(5);
        let mut m = BitMask::new(1024, 1024);
        for y in 0..1024 {
            for x in 0..1024 {
                m.set(x, y, rng.chance(0.5));
            }
        }
        let info = SpriteInfo::new(&m);
        let center = Vec2::splat(512.0);
        for (k, s) in info.support.iter().enumerate().step_by(37) {
            let d = Vec2::from_angle(std::f32::consts::TAU * k as f32 / SUPPORT_BINS as f32);
            for y in (0..1024).step_by(61) {
                for x in 0..1024 {
                    if m.get(x, y) {
                        let corner = Vec2::new(x as f32, y as f32) - center;
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

    /// Separating axes never claim a miss where the contract finds a hit for any
    /// similarity, as sprites have: flipped on either axis
    /// (so both signs of the determinant), anchored off center, mask centers taken from
    /// the transforms rather than from a body.
    #[test]
    fn separating_axes_of_any_similarity_never_hide_a_hit() {
        use crate::transformed_intersects;
        use pixel_collide_seeded::rng::SplitMix64;
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
                let center = |t: Affine2| t.transform_point2(Vec2::new(24.0, 20.0));
                let (sa, sb) = (
                    similarity_scale(ta.matrix2).unwrap(),
                    similarity_scale(tb.matrix2).unwrap(),
                );
                let (ca, cb) = (center(ta), center(tb));
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
