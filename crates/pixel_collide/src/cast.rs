//! Where a moving mask first touches another: the time of impact of A moved along a
//! straight line (and turning, if asked) against B where it stands, as a bullet, a dash
//! or a thrown ball needs it so that no speed carries it through a wall.
//!
//! The answer follows the overlap's definition ([`crate::transformed_overlap`]): A touches
//! B when the center of one of A's set pixels reaches a set pixel of B. So each of A's
//! samples is cast as a ray through B's mask ([`BitMask::ray_cast`], row by row with word
//! scans), and the first entry of any is the impact. Along a straight motion that is exact:
//! a sample's path is a segment, whatever its length. A turning motion's paths are arcs;
//! they are followed as chords short enough that none lies further than
//! [`TURN_CHORD_TOLERANCE`] of a pixel from its arc.

use bevy_math::{Affine2, DAffine2, DVec2, Vec2};

use super::gap::steps_f64;
use super::mask::{BitMask, MaskRect};
use super::ray::MaskRayHit;
use super::transformed::{is_usable, to_f64, transformed_first_hit, transformed_overlap};

/// How far a turning sample's chord may stray from its arc, in the smaller of A's and B's
/// world pixels: a wall a pixel thick is crossed by the chord wherever the arc crosses it.
pub const TURN_CHORD_TOLERANCE: f64 = 0.125;

/// At most this many chords per turning cast: beyond about 2,000 turns of a 64 px sprite in
/// one cast (no game's step), chords are longer than [`TURN_CHORD_TOLERANCE`] asks, so
/// that the time stays bounded.
pub const MAX_TURN_CHORDS: u32 = 4096;

/// How A moves over a cast: its pose at fraction `t` of the cast is its start pose turned
/// by `t * rotation` about `pivot` and moved by `t * translation`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MaskMotion {
    /// World displacement of A over the whole cast.
    pub translation: Vec2,
    /// Counter-clockwise turn over the whole cast, in radians, at a steady rate.
    pub rotation: f32,
    /// The world point A turns about, where it is at the start (it moves with A).
    pub pivot: Vec2,
}

impl MaskMotion {
    /// A move along `translation` without turning.
    pub fn translation(translation: Vec2) -> MaskMotion {
        MaskMotion {
            translation,
            rotation: 0.0,
            pivot: Vec2::ZERO,
        }
    }

    /// The same move, turning by `rotation` radians about the world point `pivot`.
    pub fn turning(self, rotation: f32, pivot: Vec2) -> MaskMotion {
        MaskMotion {
            rotation,
            pivot,
            ..self
        }
    }

    /// A's mask-to-world transform at `fraction` of the motion, starting from `a_to_world`.
    pub fn pose_at(&self, a_to_world: Affine2, fraction: f32) -> Affine2 {
        let pose = self.pose_at_f64(to_f64(a_to_world), f64::from(fraction));
        Affine2::from_mat2_translation(pose.matrix2.as_mat2(), pose.translation.as_vec2())
    }

    fn pose_at_f64(&self, a_to_world: DAffine2, fraction: f64) -> DAffine2 {
        if self.rotation == 0.0 {
            return DAffine2::from_translation(self.translation.as_dvec2() * fraction) * a_to_world;
        }
        let pivot = self.pivot.as_dvec2();
        DAffine2::from_translation(pivot + self.translation.as_dvec2() * fraction)
            * DAffine2::from_angle(f64::from(self.rotation) * fraction)
            * DAffine2::from_translation(-pivot)
            * a_to_world
    }

    fn is_finite(&self) -> bool {
        self.translation.is_finite() && self.rotation.is_finite() && self.pivot.is_finite()
    }
}

/// Where and when a moving A first touches B.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimeOfImpact {
    /// The fraction of the motion, in `0..=1`, at which a sample of A reaches a set pixel
    /// of B: A placed by [`MaskMotion::pose_at`] there touches B's edge, and an instant
    /// later overlaps it. Zero when A overlaps B at the start.
    pub fraction: f32,
    /// World point where A's sample meets B's pixel (at the start: the contact's point).
    pub point: Vec2,
    /// B's outward unit normal there, in world space: the side of B's pixel the sample
    /// came in through (at the start: the contact's normal, the way A leaves B; zero if
    /// the contact has none).
    pub normal: Vec2,
    /// The pixel of A that touched, as `[column, row]` of A's mask.
    pub pixel: [u32; 2],
    /// Whether A already overlapped B at the start of the motion.
    pub started_inside: bool,
}

/// The time of impact of A, moved from `a_to_world` by `motion`, against B standing at
/// `b_to_world`; `None` if A stays clear of B over the whole motion, if either mask is
/// empty, or if a transform or the motion is not finite or a transform not invertible.
///
/// Straight motions are exact: the fraction is the first at which the center of one of
/// A's pixels enters a set pixel of B (in f64, from f32 inputs), at any speed, so A never
/// passes through a wall however thin. Turning motions are followed as chords (see
/// [`TURN_CHORD_TOLERANCE`] and [`MAX_TURN_CHORDS`]).
///
/// The time grows with A's set pixels (each is cast) and with the rows and words of B the
/// motion crosses: meant for a bullet, a character or a ball against the world, not for
/// two large sprites.
///
/// ```
/// use bevy_math::{Affine2, Vec2};
/// use pixel_collide::{BitMask, MaskMotion, transformed_time_of_impact};
///
/// // A 2 × 2 bullet fired 10,000 px to the right through a wall one pixel thick.
/// let bullet = BitMask::solid(2, 2).unwrap();
/// let mut wall = BitMask::new(1, 50);
/// for y in 0..50 {
///     wall.set(0, y, true);
/// }
/// let at = Affine2::from_translation(Vec2::new(0.0, 20.0));
/// let wall_at = Affine2::from_translation(Vec2::new(3_000.0, 0.0));
/// let motion = MaskMotion::translation(Vec2::new(10_000.0, 0.0));
/// let hit = transformed_time_of_impact(&bullet, at, motion, &wall, wall_at).unwrap();
/// // The bullet's right pixel's center (x = 1.5) reaches the wall at x = 3,000.
/// assert!((hit.fraction * 10_000.0 - 2_998.5).abs() < 1e-3);
/// assert_eq!(hit.normal, Vec2::new(-1.0, 0.0));
/// ```
pub fn transformed_time_of_impact(
    a: &BitMask,
    a_to_world: Affine2,
    motion: MaskMotion,
    b: &BitMask,
    b_to_world: Affine2,
) -> Option<TimeOfImpact> {
    if !(motion.is_finite() && is_usable(a_to_world) && is_usable(b_to_world)) {
        return None;
    }
    let (rect_a, _) = (a.bounding_rect()?, b.bounding_rect()?);
    if let Some(pixel) = transformed_first_hit(a, a_to_world, b, b_to_world) {
        let contact = transformed_overlap(a, a_to_world, b, b_to_world);
        let center = Vec2::new(pixel[0] as f32 + 0.5, pixel[1] as f32 + 0.5);
        return Some(TimeOfImpact {
            fraction: 0.0,
            point: contact.map_or(a_to_world.transform_point2(center), |c| c.point),
            normal: contact.map_or(Vec2::ZERO, |c| c.normal),
            pixel,
            started_inside: true,
        });
    }
    let (a_start, b_to_world) = (to_f64(a_to_world), to_f64(b_to_world));
    let world_to_b = b_to_world.inverse();
    if !world_to_b.is_finite() {
        return None;
    }
    let chords = chords_for(rect_a, a_start, &motion, b_to_world);
    let samples = samples_of(a, rect_a);
    let mut from = motion.pose_at_f64(a_start, 0.0);
    for k in 0..chords {
        let to = motion.pose_at_f64(a_start, f64::from(k + 1) / f64::from(chords));
        let (from_b, to_b) = (world_to_b * from, world_to_b * to);
        if let Some((t, sample, hit)) = first_entry(b, &samples, from_b, to_b) {
            let fraction = (f64::from(k) + t) / f64::from(chords);
            let center = DVec2::new(f64::from(sample[0]) + 0.5, f64::from(sample[1]) + 0.5);
            let (start, end) = (
                from_b.transform_point2(center),
                to_b.transform_point2(center),
            );
            let entry = start + (end - start) * t;
            // A normal is a covector: B's inverse transpose carries it into the world.
            let normal = world_to_b.matrix2.transpose() * hit.normal.as_dvec2();
            let normal = if normal.length_squared() > 0.0 {
                normal.normalize()
            } else {
                -(b_to_world.matrix2 * (end - start)).normalize_or_zero()
            };
            return Some(TimeOfImpact {
                fraction: (fraction as f32).min(1.0),
                point: b_to_world.transform_point2(entry).as_vec2(),
                normal: normal.as_vec2(),
                pixel: sample,
                started_inside: false,
            });
        }
        from = to;
    }
    None
}

/// The centers of A's set pixels lie at `+ 0.5`; these are their `[column, row]`.
fn samples_of(a: &BitMask, rect: MaskRect) -> Vec<[u32; 2]> {
    let mut samples = Vec::with_capacity(a.count().min(1 << 20) as usize);
    for y in rect.y..rect.y + rect.height {
        for (k, mut word) in a.row(y).iter().enumerate() {
            while word != 0 {
                samples.push([k as u32 * 64 + word.trailing_zeros(), y]);
                word &= word - 1;
            }
        }
    }
    samples
}

/// The sample whose chord from its place under `from_b` to its place under `to_b` (A's
/// mask into B's) enters a set pixel of B first: the chord's parameter in `0..=1`, the
/// sample, and the ray's hit. Ties go to the sample first in row order.
fn first_entry(
    b: &BitMask,
    samples: &[[u32; 2]],
    from_b: DAffine2,
    to_b: DAffine2,
) -> Option<(f64, [u32; 2], MaskRayHit)> {
    let mut first: Option<(f64, [u32; 2], MaskRayHit)> = None;
    // Each ray is cast only as far as the earliest entry found so far.
    let mut reach = 1.0f32;
    let field = b.distance_field();
    let (width, height) = (f64::from(b.width()), f64::from(b.height()));
    for &sample in samples {
        let center = DVec2::new(f64::from(sample[0]) + 0.5, f64::from(sample[1]) + 0.5);
        let (start, end) = (
            from_b.transform_point2(center),
            to_b.transform_point2(center),
        );
        let along = end - start;
        if along == DVec2::ZERO {
            // Clear at the start (checked) and not moving: it stays clear.
            continue;
        }
        // A sample whose cell's nearest set pixel is `cells` cells away (chessboard) is
        // at least `cells - 1` of B's pixels from any (in B's mask space, where its path
        // is straight too): a path shorter than that reaches none, and needs no ray.
        if let Some(field) = field
            && (0.0..width).contains(&start.x)
            && (0.0..height).contains(&start.y)
        {
            let (x, y) = (start.x as usize, start.y as usize);
            let cells = f64::from(field[y * b.width() as usize + x]);
            if !b.get(x as i64, y as i64) && cells - 1.0 > along.length() {
                continue;
            }
        }
        if let Some(hit) = b.ray_cast(start.as_vec2(), along.as_vec2(), reach)
            && (first.is_none() || hit.t < reach)
        {
            reach = hit.t;
            first = Some((f64::from(hit.t), sample, hit));
        }
    }
    first
}

/// How many chords follow the motion's arcs within [`TURN_CHORD_TOLERANCE`] (1 for a
/// motion that does not turn): a chord of an arc of radius `r` turning by `θ` strays
/// `r (1 − cos(θ / 2))` from it.
fn chords_for(rect: MaskRect, a_start: DAffine2, motion: &MaskMotion, b_to_world: DAffine2) -> u32 {
    if motion.rotation == 0.0 {
        return 1;
    }
    let pivot = motion.pivot.as_dvec2();
    let (x0, y0) = (f64::from(rect.x), f64::from(rect.y));
    let (x1, y1) = (x0 + f64::from(rect.width), y0 + f64::from(rect.height));
    let radius = [(x0, y0), (x1, y0), (x0, y1), (x1, y1)]
        .map(|(x, y)| (a_start.transform_point2(DVec2::new(x, y)) - pivot).length())
        .into_iter()
        .fold(0.0, f64::max);
    // The shortest way across a pixel: the smaller singular value of each map.
    let pixel = steps_f64(a_start.matrix2)
        .0
        .min(steps_f64(b_to_world.matrix2).0);
    let tolerance = TURN_CHORD_TOLERANCE * pixel;
    // Also a radius that is not a number: one chord, and the rays refuse what is not finite.
    if radius.is_nan() || radius <= tolerance {
        return 1;
    }
    let turn_per_chord = 2.0 * (1.0 - tolerance / radius).acos();
    let chords = (f64::from(motion.rotation).abs() / turn_per_chord).ceil();
    if chords.is_finite() {
        (chords as u32).clamp(1, MAX_TURN_CHORDS)
    } else {
        MAX_TURN_CHORDS
    }
}
