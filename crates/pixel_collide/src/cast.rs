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
//!
//! When A's pixels map onto B's one for one (the same scale and turn, as a character on a
//! terrain), all of A's samples cross B's rows and columns together, so a straight cast
//! steps A through whole-pixel offsets with an integer overlap test at each, and jumps
//! across open space by B's distance field: the same answer, without a ray per pixel.

use bevy_math::{Affine2, DAffine2, DMat2, DVec2, Mat2, Vec2};

use super::gap::steps_f64;
use super::mask::{BitMask, LeadingEdges, MaskRect};
use super::ray::MaskRayHit;
use super::reproducible_math;
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
            * DAffine2::from_mat2(reproducible_math::rotation_f64(
                f64::from(self.rotation) * fraction,
            ))
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
/// two large sprites. A straight cast of A drawn at B's scale and turn is cheaper: it
/// grows with the pixels A passes near B, not with A's pixels.
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
    time_of_impact(a, a_to_world, motion, b, b_to_world, false)
}

/// [`transformed_time_of_impact`] for an A the caller knows is clear of B at the start (a
/// character that ended its last cast clear): the test at the start is skipped, which is
/// a third of a short cast's time. An A that is not clear gets a later impact or none.
pub(crate) fn transformed_time_of_impact_from_clear(
    a: &BitMask,
    a_to_world: Affine2,
    motion: MaskMotion,
    b: &BitMask,
    b_to_world: Affine2,
) -> Option<TimeOfImpact> {
    time_of_impact(a, a_to_world, motion, b, b_to_world, true)
}

fn time_of_impact(
    a: &BitMask,
    a_to_world: Affine2,
    motion: MaskMotion,
    b: &BitMask,
    b_to_world: Affine2,
    clear_at_start: bool,
) -> Option<TimeOfImpact> {
    if !(motion.is_finite() && is_usable(a_to_world) && is_usable(b_to_world)) {
        return None;
    }
    let (rect_a, _) = (a.bounding_rect()?, b.bounding_rect()?);
    let inside_at_start = if clear_at_start {
        None
    } else {
        match one_for_one_offset(a_to_world, b_to_world) {
            Some(offset) => b
                .overlap(a, offset)
                .map(|(x, y)| [(x as i32 - offset.0) as u32, (y as i32 - offset.1) as u32]),
            None => transformed_first_hit(a, a_to_world, b, b_to_world),
        }
    };
    if let Some(pixel) = inside_at_start {
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
    let world_to_b = inverse(b_to_world);
    if !world_to_b.is_finite() {
        return None;
    }
    // A copy of the aligned cast per way of moving: a character's moves along the ground
    // and its drops onto it take their branches apart, each learnt on its own.
    let shift = world_to_b.matrix2 * motion.translation.as_dvec2();
    let aligned = match (shift.x == 0.0, shift.y == 0.0) {
        (false, true) => {
            aligned_time_of_impact::<ALONG_X>(a, a_start, &motion, shift, b, b_to_world, world_to_b)
        }
        (true, false) => {
            aligned_time_of_impact::<ALONG_Y>(a, a_start, &motion, shift, b, b_to_world, world_to_b)
        }
        _ => {
            aligned_time_of_impact::<ANY_WAY>(a, a_start, &motion, shift, b, b_to_world, world_to_b)
        }
    };
    if let Some(found) = aligned {
        return found;
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

/// The cast of a straight motion when A's pixels map onto B's one for one (same scale and
/// turn, no flip, as a character on a terrain): `Some(answer)`, or `None` when the case is
/// not this one and the rays must answer; `shift` is the motion in B's space, which the
/// caller chose `WAY`'s copy by. Inline: called with its transforms in memory, its first
/// loads waited on the caller's stores of them, a tenth of a short cast.
///
/// Then every sample of A sits at the same place within its pixel of B, so all cross B's
/// pixel rows and columns together: A moves through a sequence of whole-pixel offsets,
/// each entered at a known fraction, and the first offset at which A overlaps B (an
/// integer overlap test, a row of words at a time) is the impact, exactly as the rays
/// would find it. Far from B the offsets are skipped: no pixel of B lies nearer to A
/// than the least of B's distance field under A's outline (the nearest pixel of A to any
/// outside it is on its outline), so A moves that far less half a pixel at once.
#[inline(always)]
fn aligned_time_of_impact<const WAY: u8>(
    a: &BitMask,
    a_start: DAffine2,
    motion: &MaskMotion,
    shift: DVec2,
    b: &BitMask,
    b_to_world: DAffine2,
    world_to_b: DAffine2,
) -> Option<Option<TimeOfImpact>> {
    let a_to_b = product(world_to_b, a_start);
    let one_for_one = maps_one_for_one(&a_to_b);
    // Where pixel (0, 0)'s sample is at the start; pixel (i, j)'s is (i, j) further.
    let corner = a_to_b.translation + 0.5;
    // Offsets stay well inside i32 for the overlap test; beyond, the rays answer.
    let reach = corner.abs().max((corner + shift).abs()).max_element()
        + f64::from(a.width().max(a.height()));
    if motion.rotation != 0.0 || !one_for_one || reach >= 1e9 {
        return None;
    }
    if shift == DVec2::ZERO {
        return Some(None);
    }
    let rect = a.bounding_rect()?;
    // A move of `d` in chessboard distance changes no sample's pixel of B further than `d`:
    // jumps by the distance field are measured so, and along a diagonal go 1.4 times as far.
    let chessboard_length = shift.abs().max_element();
    let per_chessboard = 1.0 / chessboard_length;
    let low = corner + DVec2::new(f64::from(rect.x), f64::from(rect.y));
    let high = low + DVec2::new(f64::from(rect.width), f64::from(rect.height));
    let size = DVec2::new(f64::from(b.width()), f64::from(b.height()));
    // Multiplied by rather than divided by: a short cast's divisions were much of its time.
    let per_shift = DVec2::ONE / shift;
    let Some((enter, leave)) = while_over_b(low, high, shift, per_shift, size) else {
        return Some(None);
    };
    let mut t = (enter - per_chessboard).max(0.0);
    let at = |t: f64| corner + shift * t;
    let cell_at = |t: f64| cell_of(at(t), shift);
    let mut offset = cell_at(t);
    // The offset A is at at the start, tested (or known clear) by the caller. Pixels are
    // half-open, so samples on a pixel's right or bottom side are in the next one, and
    // moving left or up they are in another at once: that offset is tested at fraction 0.
    let start = (floor(corner.x), floor(corner.y));
    // A move of up to 1e9 px crosses up to 2e9 pixels: bounded by the jumps in practice,
    // and by this in the worst case (a path along B's surface) so the time stays bounded.
    let mut crossed_row = offset.1 != start.1;
    // The last offset A was found clear at (the start is, or the caller says so): a step
    // of a pixel from there tests only A's leading edge.
    let mut clear_at = Some(start);
    let stepping = stepping(a, b);
    // How far A must move before the open space around it is worth looking up again: a
    // look that found B `c` pixels away finds it no further than `c + d` after a move of
    // `d`, and a jump needs 3.
    let mut next_look = 0.0;
    for _ in 0..(4.0 * chessboard_length + 8.0).min(1e7) as u64 {
        // A jump is at least a pixel and a half: none on a path shorter than that.
        let jump_possible = t >= next_look && (leave - t) * chessboard_length > 1.5;
        let mut clear = 0;
        if jump_possible && let Some(field) = b.distance_field() {
            let ahead = OpenSpace { rect, a, b, field };
            clear = ahead.around(offset, (leave - t) * chessboard_length, shift.y > 0.0);
            next_look = t + (3.0 - f64::from(clear.min(3))) * per_chessboard;
        }
        if clear >= 3 {
            t += (f64::from(clear) - 1.5) * per_chessboard;
            if t > leave {
                return Some(None);
            }
            offset = cell_at(t);
            clear_at = None;
            continue;
        }
        if (t > 0.0 || offset != start)
            && let Some((x, y)) = overlap_after_step::<WAY>(a, b, stepping, clear_at, offset)
        {
            let pixel = [
                (i64::from(x) - offset.0) as u32,
                (i64::from(y) - offset.1) as u32,
            ];
            let entry = DVec2::new(f64::from(pixel[0]), f64::from(pixel[1])) + at(t);
            let normal = if crossed_row {
                DVec2::new(0.0, -shift.y.signum())
            } else {
                DVec2::new(-shift.x.signum(), 0.0)
            };
            let normal = (world_to_b.matrix2.transpose() * normal).normalize_or_zero();
            return Some(Some(TimeOfImpact {
                fraction: t as f32,
                point: b_to_world.transform_point2(entry).as_vec2(),
                normal: normal.as_vec2(),
                pixel,
                started_inside: false,
            }));
        }
        clear_at = Some(offset);
        let (next_t, row) = next_crossing(&mut offset, corner, shift, per_shift);
        if next_t > leave {
            return Some(None);
        }
        (t, crossed_row) = (next_t, row);
    }
    None
}

/// Ways an aligned cast's samples move, for [`aligned_time_of_impact`]'s copies: along x
/// only, along y only, or both.
const ALONG_X: u8 = 0;
const ALONG_Y: u8 = 1;
pub(crate) const ANY_WAY: u8 = 2;

/// A set pixel of B (in B's space) under A at `offset`, as [`BitMask::overlap`] finds
/// one, for an A that was clear of B at `clear_at`: a step of one pixel from there tests
/// only A's edge leading that way (`stepping`: A's [`LeadingEdges`] and B's transposed
/// copy), a row or a column of A rather than all of it. A `WAY` of one axis only leaves
/// out the other axis's steps, which its cast never takes.
#[inline(always)]
pub(crate) fn overlap_after_step<const WAY: u8>(
    a: &BitMask,
    b: &BitMask,
    stepping: Option<(&LeadingEdges, &BitMask)>,
    clear_at: Option<(i64, i64)>,
    offset: (i64, i64),
) -> Option<(u32, u32)> {
    let (x, y) = (offset.0 as i32, offset.1 as i32);
    let (Some((edges, b_transposed)), Some(from)) = (stepping, clear_at) else {
        return b.overlap(a, (x, y));
    };
    // The way first: each copy's match is decided on its own steps alone.
    match (WAY, offset.0 - from.0, offset.1 - from.1) {
        (_, 0, 0) => None,
        (ALONG_Y | ANY_WAY, 0, 1) => edges.down.first_hit_in(b, (x, y)),
        (ALONG_Y | ANY_WAY, 0, -1) => edges.up.first_hit_in(b, (x, y)),
        // Pixel (u, v) of the transposed copies is pixel (v, u) of the masks.
        (ALONG_X | ANY_WAY, 1, 0) => edges
            .right_transposed
            .first_hit_in(b_transposed, (y, x))
            .map(|(u, v)| (v, u)),
        (ALONG_X | ANY_WAY, -1, 0) => edges
            .left_transposed
            .first_hit_in(b_transposed, (y, x))
            .map(|(u, v)| (v, u)),
        _ => b.overlap(a, (x, y)),
    }
}

/// What [`overlap_after_step`] needs to test only A's leading edge against B: `None` for
/// masks too large to keep the edges or the transposed copy of.
pub(crate) fn stepping<'m>(
    a: &'m BitMask,
    b: &'m BitMask,
) -> Option<(&'m LeadingEdges, &'m BitMask)> {
    a.leading_edges().zip(b.transposed())
}

/// The pixel a coordinate is in when moving the given way (as `BitMask::ray_cast`): on a
/// pixel's edge, the one it is about to cross into.
#[inline(always)]
fn cell_of(point: DVec2, towards: DVec2) -> (i64, i64) {
    (cell(point.x, towards.x), cell(point.y, towards.y))
}

/// [`cell_of`] on one axis.
#[inline(always)]
fn cell(v: f64, towards: f64) -> i64 {
    if towards < 0.0 {
        -floor(-v) - 1
    } else {
        floor(v)
    }
}

/// `v.floor() as i64` for `|v| < 2⁶³`, without a call: the target's baseline has no
/// rounding instruction, so `f64::floor` is a libm call, and a short cast takes several.
#[inline(always)]
fn floor(v: f64) -> i64 {
    let truncated = v as i64;
    truncated - i64::from((truncated as f64) > v)
}

/// The fractions of a motion by `shift` between which a box of samples from `low` to
/// `high` overlaps B's mask of `size`: only then can they land on B. `None` if never.
#[inline(always)]
fn while_over_b(
    low: DVec2,
    high: DVec2,
    shift: DVec2,
    per_shift: DVec2,
    size: DVec2,
) -> Option<(f64, f64)> {
    let (mut enter, mut leave) = (0.0f64, 1.0f64);
    for axis in 0..2 {
        if shift[axis] == 0.0 {
            if high[axis] <= 0.0 || low[axis] >= size[axis] {
                return None;
            }
            continue;
        }
        let (t0, t1) = (
            (0.0 - high[axis]) * per_shift[axis],
            (size[axis] - low[axis]) * per_shift[axis],
        );
        enter = enter.max(t0.min(t1));
        leave = leave.min(t0.max(t1));
    }
    (enter <= leave).then_some((enter, leave))
}

/// Steps `offset` to the next pixel row or column line the samples cross moving by `shift`
/// (both at a corner): the fraction at which they cross it, and whether a row was crossed.
#[inline(always)]
fn next_crossing(
    offset: &mut (i64, i64),
    corner: DVec2,
    shift: DVec2,
    per_shift: DVec2,
) -> (f64, bool) {
    let next = |cell: i64, from: f64, towards: f64, per: f64| {
        if towards > 0.0 {
            (cell as f64 + 1.0 - from) * per
        } else if towards < 0.0 {
            (cell as f64 - from) * per
        } else {
            f64::INFINITY
        }
    };
    let (tx, ty) = (
        next(offset.0, corner.x, shift.x, per_shift.x),
        next(offset.1, corner.y, shift.y, per_shift.y),
    );
    if tx <= ty {
        offset.0 += shift.x.signum() as i64;
    }
    if ty <= tx {
        offset.1 += shift.y.signum() as i64;
    }
    (tx.min(ty), ty <= tx)
}

/// What an aligned cast knows of the open space around A: A's box (and outline), and B's
/// distance field.
struct OpenSpace<'a> {
    rect: MaskRect,
    a: &'a BitMask,
    b: &'a BitMask,
    field: &'a [u8],
}

impl OpenSpace<'_> {
    /// How far A at `offset` may move (chessboard px) before any sample can land on B; 0
    /// when it may not jump (it steps a pixel at a time). `path_left` is the rest of the
    /// motion in B's pixels (chessboard); `moving_down` orders the outline's scan.
    fn around(&self, offset: (i64, i64), path_left: f64, moving_down: bool) -> u8 {
        let rect = self.rect;
        // One lookup first: no pixel of A is further than `radius` from its box's middle,
        // so none is nearer to B than the middle's distance less that.
        let middle = (
            offset.0 + i64::from(rect.x + rect.width / 2),
            offset.1 + i64::from(rect.y + rect.height / 2),
        );
        let radius = i64::from((rect.width / 2).max(rect.height / 2));
        let near_middle = i64::from(self.b.chessboard_to_set(self.field, middle)) - radius;
        if near_middle >= 3 {
            near_middle.min(255) as u8
        } else if path_left > OUTLINE_SCAN_MIN_PATH {
            let outline = self.a.cached_outline();
            nearest_under(&outline, offset, self.b, self.field, moving_down)
        } else {
            0
        }
    }
}

/// The path left, in B's pixels (chessboard), below which an aligned cast steps pixel by
/// pixel rather than scans A's outline for a jump: a scan costs as much as a few overlap
/// tests, more than the steps it could save on a short path (a character's move of a
/// frame).
const OUTLINE_SCAN_MIN_PATH: f64 = 8.0;

/// When A's pixels map onto B's one for one (the same scale and turn, no flip), the whole
/// pixel offset of A's top-left in B at which A's pixel centers land: then overlap is
/// [`BitMask::overlap`] at that offset, a row of words at a time, where the general test
/// maps each run of A into B.
pub(crate) fn one_for_one_offset(a_to_world: Affine2, b_to_world: Affine2) -> Option<(i32, i32)> {
    if a_to_world.matrix2 == Mat2::IDENTITY && b_to_world.matrix2 == Mat2::IDENTITY {
        // The same bits as below, without the usability checks and matrix products: a
        // character on a terrain, tested several times a move (3% of a walking move).
        let corner = (a_to_world.translation.as_dvec2() - b_to_world.translation.as_dvec2()) + 0.5;
        let fits = corner.abs().max_element() < 1e9;
        return fits.then(|| (floor(corner.x) as i32, floor(corner.y) as i32));
    }
    if !(is_usable(a_to_world) && is_usable(b_to_world)) {
        return None;
    }
    let a_to_b = inverse(to_f64(b_to_world)) * to_f64(a_to_world);
    let corner = a_to_b.translation + 0.5;
    let fits = corner.abs().max_element() < 1e9;
    (maps_one_for_one(&a_to_b) && fits).then_some((floor(corner.x) as i32, floor(corner.y) as i32))
}

/// `t.inverse()`, the same bits, without the division when `t` only moves (a terrain or
/// a world unscaled and unturned): a short cast does little else.
#[inline(always)]
fn inverse(t: DAffine2) -> DAffine2 {
    if t.matrix2 == DMat2::IDENTITY {
        DAffine2::from_translation(-t.translation)
    } else {
        t.inverse()
    }
}

/// `outer * inner`, the same bits, without the matrix product when `outer` only moves.
#[inline(always)]
fn product(outer: DAffine2, inner: DAffine2) -> DAffine2 {
    if outer.matrix2 == DMat2::IDENTITY {
        DAffine2::from_mat2_translation(inner.matrix2, inner.translation + outer.translation)
    } else {
        outer * inner
    }
}

/// Whether A's pixels map onto B's one for one: A-to-B's linear part is the identity, to
/// rounding of the f32 inputs composed in f64.
#[inline(always)]
fn maps_one_for_one(a_to_b: &DAffine2) -> bool {
    (a_to_b.matrix2 - DMat2::IDENTITY)
        .to_cols_array()
        .iter()
        .all(|m| m.abs() <= 1e-9)
}

/// The least chessboard distance, in pixels, from A's outline at `offset` in B to B's
/// set pixels: 0 if one is on one, at most 255 (the field's saturation). Outside B's
/// mask, the distance to its edge is a lower bound.
fn nearest_under(
    outline: &[(u32, u32)],
    offset: (i64, i64),
    b: &BitMask,
    field: &[u8],
    bottom_first: bool,
) -> u8 {
    let mut nearest = u8::MAX;
    // The outline is in row order: its rows nearest what A moves towards go first, so
    // that a near pixel of B ends the scan early.
    let rows_in_order: &mut dyn Iterator<Item = &(u32, u32)> = if bottom_first {
        &mut outline.iter().rev()
    } else {
        &mut outline.iter()
    };
    for &(i, j) in rows_in_order {
        let cell = (i64::from(i) + offset.0, i64::from(j) + offset.1);
        nearest = nearest.min(b.chessboard_to_set(field, cell));
        if nearest < 3 {
            return nearest;
        }
    }
    nearest
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
        let Some(skipped) = clear_along(b, field, start, along, f64::from(reach)) else {
            continue;
        };
        let from = start + along * skipped;
        let rest = (f64::from(reach) - skipped) as f32;
        if let Some(mut hit) = b.ray_cast(from.as_vec2(), along.as_vec2(), rest) {
            hit.t = (skipped + f64::from(hit.t)) as f32;
            if first.is_none() || hit.t < reach {
                reach = hit.t;
                first = Some((f64::from(hit.t), sample, hit));
            }
        }
    }
    first
}

/// How far along `start + along · t` (B's mask space) a path is certainly clear of B's set
/// pixels, as a `t` in `0..reach` to cast the rest of the ray from; `None` when the whole
/// path to `reach` is clear, so no ray is needed.
///
/// A point in a clear cell whose nearest set pixel is `cells` cells away (B's chessboard
/// distance field) is at least `cells − 1` pixels from any in chessboard distance, so the
/// path can jump that far (measured so: along a diagonal, 1.4 times as far) without
/// entering one. The jumps stop half a pixel short, so the ray starts strictly
/// clear and names the side it enters by; a long path through open space then costs a
/// few lookups instead of a row of words per pixel it crosses.
fn clear_along(
    b: &BitMask,
    field: Option<&[u8]>,
    start: DVec2,
    along: DVec2,
    reach: f64,
) -> Option<f64> {
    const MAX_JUMPS: u32 = 64;
    let Some(field) = field else {
        return Some(0.0);
    };
    let length = along.abs().max_element();
    let (width, height) = (f64::from(b.width()), f64::from(b.height()));
    let mut t = 0.0;
    for _ in 0..MAX_JUMPS {
        let at = start + along * t;
        if !((0.0..width).contains(&at.x) && (0.0..height).contains(&at.y)) {
            break;
        }
        // On a set pixel: -1, and no jump.
        let cells = b.chessboard_to_set(field, (at.x as i64, at.y as i64));
        let clear = f64::from(cells) - 1.0;
        if clear > (reach - t) * length {
            return None;
        }
        let jump = clear - 0.5;
        if jump < 1.0 {
            break;
        }
        t += jump / length;
    }
    Some(t)
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
    let turn_per_chord = 2.0 * reproducible_math::acos(1.0 - tolerance / radius);
    let chords = (f64::from(motion.rotation).abs() / turn_per_chord).ceil();
    if chords.is_finite() {
        (chords as u32).clamp(1, MAX_TURN_CHORDS)
    } else {
        MAX_TURN_CHORDS
    }
}
