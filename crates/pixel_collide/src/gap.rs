//! How far apart two placed masks are when they do not touch: what a rigid-body solver's
//! speculative contacts need, so that a fast body is stopped at a surface in the step it
//! would reach it, rather than found inside it (or past a thin ledge) a step later.
//!
//! The smaller mask's outline is looked up in the larger one's distance field (the
//! chessboard distance from each clear pixel to the nearest set one, a lower bound after
//! edits), one lookup per outline pixel; around the few nearest, a small search finds the
//! nearest set pixel, and so the direction and the Euclidean gap.

use bevy_math::{Affine2, DAffine2, DVec2, Vec2};

use super::mask::BitMask;
#[cfg(doc)]
use super::transformed::transformed_overlap;
use super::transformed::{
    Contact, ManifoldPoint, largest_stretch, to_f64, transformed_intersects, transformed_manifold,
};

/// Two masks that do not touch: the gap between them and the way from A to B.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gap {
    /// World point midway between the two nearest pixels.
    pub point: Vec2,
    /// Unit world direction from A's nearest pixel towards B's.
    pub normal: Vec2,
    /// World distance between the two nearest pixels' edges: their centers' distance less
    /// one pixel of the larger mask. The nearest pixels are searched among the outline
    /// pixels closest by the distance field, so this can exceed the true gap by a fraction
    /// of a pixel.
    pub distance: f32,
    /// The side's farthest pixel pairs within the distance asked, either way across
    /// `normal` (the first on the side of `-normal.perp()`), more than [`GAP_END_APART`]
    /// px from `point`: filled by [`transformed_gaps`] and [`transformed_contact_or_gaps`],
    /// `[None, None]` from [`transformed_gap`]. A body landing tilted meets the other at its
    /// nearest pixels, then turns about them onto the rest of its side: a solver holding
    /// only the nearest point lets the far end swing in (a stone landing on another, many
    /// rows deep). A polygon's contact holds both ends of the face it meets the same way.
    pub ends: [Option<GapEnd>; 2],
    /// Between the nearest pair and each end (more than [`GAP_END_APART`] px from either),
    /// the pair that lies nearest against the line from one to the other, when it is more
    /// than [`GAP_BULGE`] px nearer than that line:
    /// two rounded sides (stones) bulge towards each other there. A body landing on one
    /// end of such a side turns about it, and the side meets first at its bulge, well
    /// before its far end: a solver holding the side at its ends alone lets the bulge sink
    /// in. Filled with [`Gap::ends`], and only where that end is.
    pub bulges: [Option<GapEnd>; 2],
}

/// One end of a [`Gap`]'s side: a pixel pair farther along it than the nearest.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GapEnd {
    /// World point midway between the pair.
    pub point: Vec2,
    /// How far apart the pair is along the gap's normal: their centers' distance along
    /// it less one pixel of the larger mask, at least 0. Along the normal, which is the
    /// way a solver holds it, rather than straight, which is longer for a pair that lies
    /// aslant and would let the solver close more than the gap.
    pub distance: f32,
}

/// How far (world px) across a [`Gap`]'s normal from its point a pair must lie to be one
/// of its [`Gap::ends`]: nearer, the nearest point holds it.
pub const GAP_END_APART: f32 = 2.0;

/// How much nearer (world px) than the line from a [`Gap`]'s nearest pair to one of its
/// ends a pair between them must lie to be held as one of its [`Gap::bulges`]: the steps
/// of a straight edge drawn aslant in pixels lie within a pixel of that line.
pub const GAP_BULGE: f32 = 1.0;

/// The gap between A and B placed in the world by their mask-to-world transforms (as
/// [`super::sprite_to_world`] makes them: rotation, uniform scale, flips), if it is at most
/// `max_distance` world px; `None` if it is more, if they touch, or for a non-finite or
/// non-invertible transform. They touch whenever [`super::transformed_overlap`] finds a
/// contact (a pixel of A lands on B), and also where a pixel of B's outline lands on A
/// when B is the smaller mask: sampling is one way, so B can reach into A with none of
/// A's pixels landing on it.
pub fn transformed_gap(
    a: &BitMask,
    a_to_world: Affine2,
    b: &BitMask,
    b_to_world: Affine2,
    max_distance: f32,
) -> Option<Gap> {
    if surely_farther_apart(a, a_to_world, b, b_to_world, max_distance) {
        return None;
    }
    let near = near_pairs(
        a,
        a_to_world,
        b,
        b_to_world,
        max_distance,
        false,
        Apart::Unknown,
    )?;
    let distance = near.pairs.iter().map(|p| p.0).reduce(f32::min)?;
    if distance > max_distance {
        return None;
    }
    near.gap(
        near.pairs.iter().filter(|p| p.0 <= distance + TIE),
        distance,
    )
}

/// Like [`transformed_gap`], one gap per side of A that B lies within `max_distance` of,
/// nearest first, at most [`MAX_GAP_SIDES`]: a ball dropping into a V has two, one per slope,
/// and a solver given only the nearest lets it sink into the other. Sides are told apart
/// by direction: a gap whose direction is more than 45° from every nearer side's starts a
/// side of its own. Each gap also names its side's [`Gap::ends`]. `gaps` is cleared first
/// and left empty where [`transformed_gap`] gives `None`; its first gap is the one
/// [`transformed_gap`] finds when all the nearest pixels lie on one side (but for the
/// ends).
pub fn transformed_gaps(
    a: &BitMask,
    a_to_world: Affine2,
    b: &BitMask,
    b_to_world: Affine2,
    max_distance: f32,
    gaps: &mut Vec<Gap>,
) {
    if surely_farther_apart(a, a_to_world, b, b_to_world, max_distance) {
        gaps.clear();
        return;
    }
    gaps_of(
        a,
        a_to_world,
        b,
        b_to_world,
        max_distance,
        Apart::Unknown,
        gaps,
    );
}

/// What a physics step asks of a pair: their [`Contact`] when they touch, as
/// [`transformed_overlap`] gives it, with `points` filled as [`transformed_manifold`]
/// fills them; otherwise (`points` empty, `gaps` filled) their gaps, as
/// [`transformed_gaps`] gives them. Faster than calling both: the gaps need not check
/// again that the masks are apart.
pub fn transformed_contact_or_gaps(
    a: &BitMask,
    a_to_world: Affine2,
    b: &BitMask,
    b_to_world: Affine2,
    max_distance: f32,
    points: &mut Vec<ManifoldPoint>,
    gaps: &mut Vec<Gap>,
) -> Option<Contact> {
    if surely_farther_apart(a, a_to_world, b, b_to_world, max_distance) {
        points.clear();
        gaps.clear();
        return None;
    }
    if let Some(contact) = transformed_manifold(a, a_to_world, b, b_to_world, points) {
        gaps.clear();
        return Some(contact);
    }
    gaps_of(
        a,
        a_to_world,
        b,
        b_to_world,
        max_distance,
        Apart::Known,
        gaps,
    );
    None
}

/// Like [`transformed_gaps`], for masks that may touch: the gaps between their pixels
/// beside the overlap, the probe's outline pixels that land on the other left out, each
/// side with its [`Gap::ends`]. A body landing on a corner of another touches there, and
/// turns about it onto the rest of its side: a solver holding only the overlap lets that
/// side swing in, where its ends, held apart, stop it. Near the overlap a side's nearest
/// pair is about 0 apart; its ends are what a caller holding the overlap wants.
pub fn transformed_gaps_beside(
    a: &BitMask,
    a_to_world: Affine2,
    b: &BitMask,
    b_to_world: Affine2,
    max_distance: f32,
    gaps: &mut Vec<Gap>,
) {
    gaps_of(
        a,
        a_to_world,
        b,
        b_to_world,
        max_distance,
        Apart::Beside,
        gaps,
    );
}

/// Whether the caller has already found that no pixel of A lands on B.
#[derive(Clone, Copy, PartialEq)]
enum Apart {
    Known,
    Unknown,
    /// They may touch: the gaps sought are those beside the overlap.
    Beside,
}

fn gaps_of(
    a: &BitMask,
    a_to_world: Affine2,
    b: &BitMask,
    b_to_world: Affine2,
    max_distance: f32,
    apart: Apart,
    gaps: &mut Vec<Gap>,
) {
    gaps.clear();
    let Some(mut near) = near_pairs(a, a_to_world, b, b_to_world, max_distance, true, apart) else {
        return;
    };
    near.pairs.retain(|p| p.0 <= max_distance);
    near.pairs.sort_unstable_by(|p, q| p.0.total_cmp(&q.0));
    // Each side: its first (nearest) pair's direction, and its distance.
    let mut sides: Vec<(Vec2, f32)> = Vec::new();
    let mut side_of = Vec::with_capacity(near.pairs.len());
    for &(distance, from, to) in &near.pairs {
        let direction = (to - from).normalize_or_zero();
        let side = sides
            .iter()
            .position(|&(first, _)| first.dot(direction) >= SIDE_COS);
        let side = match side {
            Some(side) => Some(side),
            None if sides.len() < MAX_GAP_SIDES && direction != Vec2::ZERO => {
                sides.push((direction, distance));
                Some(sides.len() - 1)
            }
            None => None,
        };
        side_of.push(side);
    }
    for (k, &(_, distance)) in sides.iter().enumerate() {
        let members = near
            .pairs
            .iter()
            .zip(&side_of)
            .filter(|&(p, side)| *side == Some(k) && p.0 <= distance + TIE)
            .map(|(p, _)| p);
        if let Some(mut gap) = near.gap(members, distance) {
            let side = near
                .pairs
                .iter()
                .zip(&side_of)
                .filter(|&(_, s)| *s == Some(k));
            (gap.ends, gap.bulges) = near.ends_and_bulges(&gap, side.map(|(p, _)| p));
            gaps.push(gap);
        }
    }
}

/// The most sides [`transformed_gaps`] reports.
pub const MAX_GAP_SIDES: usize = 4;

/// Directions closer than this cosine (45°) are one side.
const SIDE_COS: f32 = std::f32::consts::FRAC_1_SQRT_2;

/// Pairs of nearest pixels found between the probe (the smaller mask) and the field mask:
/// `(gap, probe pixel's world center, field pixel's world center)`.
struct NearPairs {
    pairs: Vec<(f32, Vec2, Vec2)>,
    a_is_probe: bool,
    /// The field mask's pixel in the world, which a gap's distance leaves out.
    field_pixel: f32,
}

impl NearPairs {
    /// One gap from a group of about equally near pairs: a flat side facing a flat surface
    /// has a row of them, and the gap is at their middle, as a contact is at the middle of
    /// the overlap, so that a box landing flat is not tipped over one corner.
    fn gap<'p>(
        &self,
        members: impl Iterator<Item = &'p (f32, Vec2, Vec2)>,
        distance: f32,
    ) -> Option<Gap> {
        // The points summed in f64: near f32's limit their sum would overflow.
        let (mut point, mut direction, mut count) = (DVec2::ZERO, Vec2::ZERO, 0.0);
        let mut nearest: Option<(f32, Vec2, Vec2)> = None;
        for &(pair_distance, from, to) in members {
            // Halved first: near f32's limit the sum would overflow.
            let (middle, way) = (from * 0.5 + to * 0.5, (to - from).normalize_or_zero());
            point += middle.as_dvec2();
            direction += way;
            count += 1.0;
            if nearest.is_none_or(|(d, _, _)| pair_distance < d) && way != Vec2::ZERO {
                nearest = Some((pair_distance, middle, way));
            }
        }
        // Equally near pixels on opposite sides (A in a slot of B) cancel out: the
        // nearest pair is then the gap, on its own.
        let (point, towards_field) = match direction.try_normalize() {
            Some(towards_field) => ((point / count).as_vec2(), towards_field),
            None => nearest.map(|(_, middle, way)| (middle, way))?,
        };
        Some(Gap {
            point,
            normal: if self.a_is_probe {
                towards_field
            } else {
                -towards_field
            },
            distance,
            ends: [None, None],
            bulges: [None, None],
        })
    }

    /// The side's pairs farthest from `gap`'s point either way across its normal, at
    /// least [`GAP_END_APART`] from it, and between it and each, the pair bulging most
    /// (see [`Gap::bulges`]).
    fn ends_and_bulges<'p>(
        &self,
        gap: &Gap,
        side: impl Iterator<Item = &'p (f32, Vec2, Vec2)> + Clone,
    ) -> ([Option<GapEnd>; 2], [Option<GapEnd>; 2]) {
        let across = gap.normal.perp();
        let middle = gap.point.dot(across);
        let towards_field = if self.a_is_probe {
            gap.normal
        } else {
            -gap.normal
        };
        let placed = |&(_, from, to): &(f32, Vec2, Vec2)| {
            // Halved first, as in `gap`: near f32's limit the sum would overflow.
            let point = from * 0.5 + to * 0.5;
            let end = GapEnd {
                point,
                distance: ((to - from).dot(towards_field) - self.field_pixel).max(0.0),
            };
            (point.dot(across) - middle, end)
        };
        let mut ends: [Option<(f32, GapEnd)>; 2] = [None, None];
        for (along, end) in side.clone().map(placed) {
            if along < -GAP_END_APART && ends[0].is_none_or(|(most, _)| along < most) {
                ends[0] = Some((along, end));
            }
            if along > GAP_END_APART && ends[1].is_none_or(|(most, _)| along > most) {
                ends[1] = Some((along, end));
            }
        }
        // Against the line from the nearest (at 0 across) to each end.
        let mut bulges: [Option<(f32, GapEnd)>; 2] = [None, None];
        for (along, pair) in side.map(placed) {
            let half = usize::from(along > 0.0);
            let Some((end_along, end)) = ends[half] else {
                continue;
            };
            let t = along / end_along;
            let apart = GAP_END_APART / end_along.abs();
            if !(apart..1.0 - apart).contains(&t) {
                continue;
            }
            let line = gap.distance + t * (end.distance - gap.distance);
            let nearer = line - pair.distance;
            if nearer > GAP_BULGE && bulges[half].is_none_or(|(most, _)| nearer > most) {
                bulges[half] = Some((nearer, pair));
            }
        }
        (
            ends.map(|end| end.map(|(_, end)| end)),
            bulges.map(|bulge| bulge.map(|(_, bulge)| bulge)),
        )
    }
}

/// The nearest pixel pairs between A and B: with `every_side`, for each of the outline
/// pixels nearest by the distance field (at most [`REFINED`]); without, only until the
/// field's lower bound passes the nearest found. `None` when they touch or for a
/// transform that cannot be used.
fn near_pairs(
    a: &BitMask,
    a_to_world: Affine2,
    b: &BitMask,
    b_to_world: Affine2,
    max_distance: f32,
    every_side: bool,
    apart: Apart,
) -> Option<NearPairs> {
    if !(max_distance.is_finite() && max_distance >= 0.0) {
        return None;
    }
    // The outline of the smaller mask probes the larger one's distance field.
    let a_is_probe = a_is_smaller(a, b);
    let (probe, probe_to_world, field_mask, field_to_world) = if a_is_probe {
        (a, a_to_world, b, b_to_world)
    } else {
        (b, b_to_world, a, a_to_world)
    };
    let field_pixel = pixel_size(field_to_world)?;
    // A scaled unevenly (or sheared) field's cells are shorter one way than the other:
    // the search reaches as far as the shortest step needs, and compares cell counts by
    // the longest step over the shortest. Both are the pixel itself for a sprite's
    // rotation, uniform scale and flips.
    let (shortest_step, longest_step) = steps(field_to_world);
    let shortest_step = shortest_step.min(field_pixel);
    let stretch = (longest_step / shortest_step).max(1.0);
    pixel_size(probe_to_world)?;
    let to_field = field_to_world.inverse();
    let field = field_mask.distance_field()?;
    // Saturating: a tiny pixel makes the quotient infinite, which the cast saturates.
    let reach = ((max_distance / shortest_step).ceil() as i64)
        .saturating_add(1)
        .min(MAX_REACH);
    // How many field cells a probe pixel's step may cross.
    let cells_per_pixel = steps(probe_to_world).1 / shortest_step;
    let mut candidates = outline_candidates(
        (probe, probe_to_world),
        (field_mask, field, to_field),
        reach,
        cells_per_pixel,
        apart == Apart::Beside,
    )?;
    // In order of the field's lower bound (each search starts there), each is searched
    // for its nearest set pixel. For the nearest gap alone, branch and bound: until the
    // bound passes the nearest found (cell to cell, with a cell's width of slack for where
    // in its cell the probe pixel's center falls). Every side needs them all.
    candidates.sort_unstable_by_key(|&(d, _, _)| d);
    let mut pairs: Vec<(f32, Vec2, Vec2)> = Vec::with_capacity(candidates.len().min(REFINED));
    let mut best_cells = f32::INFINITY;
    for &(d, probe_world, cell) in candidates.iter().take(REFINED) {
        if !every_side && d as f32 > (best_cells + 1.0) * stretch {
            break;
        }
        let Some((squared, (nx, ny))) = nearest_set(field_mask, cell, reach) else {
            continue;
        };
        best_cells = best_cells.min((squared as f32).sqrt());
        let field_world =
            field_to_world.transform_point2(Vec2::new(nx as f32 + 0.5, ny as f32 + 0.5));
        let centers = probe_world.distance(field_world);
        if centers > 0.0 && centers.is_finite() {
            pairs.push(((centers - field_pixel).max(0.0), probe_world, field_world));
        }
    }
    // Apart is what `transformed_overlap` says, A's pixels sampled on B. The outline
    // probe sees that only when A is the probe and no pixel inside its outline lands.
    if !pairs.is_empty()
        && apart == Apart::Unknown
        && transformed_intersects(a, a_to_world, b, b_to_world)
    {
        return None;
    }
    Some(NearPairs {
        pairs,
        a_is_probe,
        field_pixel,
    })
}

/// The probe's outline pixels within `reach` of the field mask by its distance field's
/// lower bound: each one's bound (field pixels, chessboard), world center and field cell,
/// in the outline's order. `None` when one lands on a set pixel of the field mask (they
/// touch) or a position is past f32's range.
///
/// Tile by tile ([`OutlineTiles`](crate::mask::OutlineTiles)) where the probe keeps its tiles: a tile whose middle
/// lies farther from the field's set pixels than `reach` and the tile's own reach, one
/// lookup, is passed over. Most of a landing body's outline lies far from a body whose
/// box it meets; pixel by pixel, the lookups were a quarter of the gap search.
/// `cells_per_pixel` is how many field cells a step of one probe pixel may cross.
fn outline_candidates(
    (probe, probe_to_world): (&BitMask, Affine2),
    (field_mask, field, to_field): (&BitMask, &[u8], Affine2),
    reach: i64,
    cells_per_pixel: f32,
    beside: bool,
) -> Option<Vec<(i64, Vec2, (i64, i64))>> {
    let (fw, fh) = (
        i64::from(field_mask.width()),
        i64::from(field_mask.height()),
    );
    // Field pixels (chessboard) from each probe pixel to the field's nearest set pixel:
    // a lower bound; outside the field's rectangle, the distance to it. Capped at 255,
    // past any reach searched.
    let chessboard = |cell| i64::from(field_mask.chessboard_to_set(field, cell));
    // A point of the probe's space in the world, and the field cell it falls in; `None`
    // past f32's range, where there is no gap a caller could place.
    let cell_of = |point: Vec2| -> Option<(Vec2, (i64, i64))> {
        let world = probe_to_world.transform_point2(point);
        let at = to_field.transform_point2(world);
        if !at.is_finite() || !world.is_finite() {
            return None;
        }
        // Clamped so that the distance arithmetic cannot overflow: a finite point can
        // still be far past i64's range, where the cast saturates. Anything this far is
        // out of reach anyway (masks are at most 2^20 a side).
        let far = 1 << 40;
        Some((
            world,
            (
                floor_to_i64(at.x).clamp(-far, far),
                floor_to_i64(at.y).clamp(-far, far),
            ),
        ))
    };
    // Each candidate with its pixel's place in the outline.
    // Room for most pairs' (a few dozen) at once: grown a pixel at a time, the list was
    // reallocated a dozen times a pair.
    let mut candidates: Vec<(usize, i64, Vec2, (i64, i64))> = Vec::with_capacity(64);
    let mut add = |place: usize, &(x, y): &(u32, u32)| -> Option<()> {
        let (world, cell) = cell_of(Vec2::new(x as f32 + 0.5, y as f32 + 0.5))?;
        let d = chessboard(cell);
        if d == 0 {
            // On a set pixel: they touch. Beside the overlap, that pixel is left out.
            return beside.then_some(());
        }
        if d <= reach {
            candidates.push((place, d, world, cell));
        }
        Some(())
    };
    // First, so that a kept outline's tiles can be found.
    let outline = probe.cached_outline();
    match probe.outline_tiles() {
        Some((tiles, outline)) => {
            for (tile, places) in tiles.iter() {
                // Every pixel of the tile falls within `within` cells (chessboard) of the
                // middle's; the distance to the field's nearest set pixel changes by at
                // most a cell a cell, inside its rectangle and outside (the distance to the
                // rectangle, which is less than to any set pixel). Straddling the
                // rectangle's edge, a middle inside tells nothing of the pixels outside.
                // After edits the field is a lower bound: a pixel passed over may then read
                // as within reach, but no set pixel lies within it, so it would have given
                // no pair. The 0.1 is room for the f32 mappings' rounding.
                let spread = tile.half_diagonal * cells_per_pixel + 0.1;
                // A probe pixel wider than i64 counts cells (or not a number) passes over
                // no tile.
                let within = if spread.is_finite() {
                    (spread.floor() as i64).saturating_add(1)
                } else {
                    i64::MAX
                };
                let clear = cell_of(tile.center).map_or(0, |(_, (cx, cy))| {
                    let inside =
                        (within..fw - within).contains(&cx) && (within..fh - within).contains(&cy);
                    let outside = !((0..fw).contains(&cx) && (0..fh).contains(&cy));
                    if inside || outside {
                        chessboard((cx, cy))
                    } else {
                        0
                    }
                });
                if clear - within > reach {
                    continue;
                }
                for &place in places {
                    let place = usize::from(place);
                    add(place, &outline[place])?;
                }
            }
            // The outline's order, which the caller's sort leaves equal bounds in.
            candidates.sort_unstable_by_key(|&(order, ..)| order);
        }
        None => {
            for (place, point) in outline.iter().enumerate() {
                add(place, point)?;
            }
        }
    }
    Some(
        candidates
            .into_iter()
            .map(|(_, d, world, cell)| (d, world, cell))
            .collect(),
    )
}

/// `v.floor() as i64` for a finite `v`, without a call: on x86-64's baseline (no SSE4.1
/// `roundss`) `f32::floor` is a call into the maths library, and the outline's two a pixel
/// were a twentieth of the narrow phase of a pile of mask bodies. Truncation rounds toward
/// zero, so a negative non-integer is one too high; where `v` is too large for the cast,
/// it saturates as `floor() as i64` does.
fn floor_to_i64(v: f32) -> i64 {
    let truncated = v as i64;
    truncated.saturating_sub(i64::from((truncated as f32) > v))
}

/// Whether every gap between A and B would be more than `distance` (and they cannot
/// touch), judged by their set pixels' boxes (parallelograms in the world) and bounding
/// circles alone: the usual answer for a pair whose world boxes a physics engine's broad
/// phase found overlapping, which otherwise costs a walk and a search of the outline.
///
/// Both shapes hold every set pixel whole, so the distance between them (along the
/// boxes' separating axes, or between the circles) is at most that between any two
/// pixels' centers, and a gap is that less one pixel. `false` whenever it cannot tell:
/// a transform or distance that is not finite.
///
/// With `distance` 0, `true` says that no pixel of A can land on B either: a caller about
/// to ask [`transformed_overlap`] of a pair placed somewhere new can skip it.
pub fn surely_farther_apart(
    a: &BitMask,
    a_to_world: Affine2,
    b: &BitMask,
    b_to_world: Affine2,
    distance: f32,
) -> bool {
    if !(a_to_world.is_finite() && b_to_world.is_finite()) {
        return false;
    }
    let (Some(rect_a), Some(rect_b)) = (a.bounding_rect(), b.bounding_rect()) else {
        // An empty mask touches nothing and has no gap.
        return distance.is_finite();
    };
    let (ta, tb) = (to_f64(a_to_world), to_f64(b_to_world));
    let corners = |rect: super::mask::MaskRect, t: DAffine2| {
        let (x0, y0) = (f64::from(rect.x), f64::from(rect.y));
        let (x1, y1) = (x0 + f64::from(rect.width), y0 + f64::from(rect.height));
        [(x0, y0), (x1, y0), (x0, y1), (x1, y1)].map(|(x, y)| t.transform_point2(DVec2::new(x, y)))
    };
    let (ca, cb) = (corners(rect_a, ta), corners(rect_b, tb));
    // A gap is the centers' distance less the larger mask's pixel; rounding in the f32
    // mappings the gap search makes is far below the slack.
    let (stretch_a, stretch_b) = (
        largest_stretch(a_to_world.matrix2),
        largest_stretch(b_to_world.matrix2),
    );
    let pixel = f64::from(stretch_a.max(stretch_b));
    let size = ca
        .iter()
        .chain(&cb)
        .fold(0.0f64, |most, c| most.max(c.abs().max_element()));
    let needed = f64::from(distance) + pixel + 1e-2 + 1e-5 * size;
    if !(needed.is_finite() && size.is_finite()) {
        return false;
    }
    let apart_along = |axis: DVec2| {
        let span = |corners: &[DVec2; 4]| {
            corners
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), c| {
                    let along = c.dot(axis);
                    (lo.min(along), hi.max(along))
                })
        };
        let ((lo_a, hi_a), (lo_b, hi_b)) = (span(&ca), span(&cb));
        let length = axis.length();
        length > 0.0 && (lo_b - hi_a).max(lo_a - hi_b) > needed * length
    };
    // Each parallelogram's sides are its matrix's columns; their normals are the axes.
    let axes = [
        ta.matrix2.x_axis,
        ta.matrix2.y_axis,
        tb.matrix2.x_axis,
        tb.matrix2.y_axis,
    ];
    if axes.into_iter().any(|side| apart_along(side.perp())) {
        return true;
    }
    let circle = |m: &BitMask, t: DAffine2, stretch: f32| {
        m.bounding_circle()
            .map(|(x, y, r)| (t.transform_point2(DVec2::new(x, y)), r * f64::from(stretch)))
    };
    let (Some((center_a, radius_a)), Some((center_b, radius_b))) =
        (circle(a, ta, stretch_a), circle(b, tb, stretch_b))
    else {
        return false;
    };
    if center_a.distance(center_b) - radius_a - radius_b > needed {
        return true;
    }
    // The smaller mask's circle in the larger one's clear space: a body over the middle of
    // a wide terrain or bowl, whose boxes and circles always meet, is one lookup apart.
    let (center, radius, field_mask, field_to_world) = if a_is_smaller(a, b) {
        (center_a, radius_a, b, tb)
    } else {
        (center_b, radius_b, a, ta)
    };
    clear_of(field_mask, field_to_world, center) - radius > needed
}

/// Whether A's rectangle is no larger than B's: the smaller mask probes the larger one's
/// distance field, which is built once for the larger and kept.
fn a_is_smaller(a: &BitMask, b: &BitMask) -> bool {
    u64::from(a.width()) * u64::from(a.height()) <= u64::from(b.width()) * u64::from(b.height())
}

/// A lower bound on the world distance from `point` to the nearest set pixel of `mask`
/// (each pixel its whole square), from one lookup in its distance field: 0 where it
/// cannot tell (no field, a set pixel there, a point outside the mask's rectangle or a
/// transform it cannot invert).
fn clear_of(mask: &BitMask, to_world: DAffine2, point: DVec2) -> f64 {
    let matrix = to_world.matrix2;
    if matrix.determinant() == 0.0 || !matrix.determinant().is_finite() {
        return 0.0;
    }
    let at = to_world.inverse().transform_point2(point);
    let (w, h) = (f64::from(mask.width()), f64::from(mask.height()));
    if !(at.x >= 0.0 && at.x < w && at.y >= 0.0 && at.y < h) {
        return 0.0;
    }
    let (x, y) = (at.x.floor() as i64, at.y.floor() as i64);
    if mask.get(x, y) {
        return 0.0;
    }
    let Some(field) = mask.distance_field() else {
        return 0.0;
    };
    // Every set pixel is at least `cells` away by the chessboard measure between cells,
    // so at least `cells - 1` pixels from any point of this cell to its square, in the
    // mask's own axes; in the world, that times the transform's shortest step.
    let cells = f64::from(field[(y * i64::from(mask.width()) + x) as usize]);
    let (shortest, _) = steps_f64(matrix);
    ((cells - 1.0) * shortest).max(0.0)
}

/// Pixels this much (world px) farther than the nearest count as equally near.
const TIE: f32 = 0.5;

/// The set pixel of `mask` nearest to `(cx, cy)` by Euclidean distance within chessboard
/// distance `reach`, and its squared distance.
///
/// Row by row outwards from `cy`, each row's nearest set pixel either side of `cx` found
/// a word at a time, until a row lies farther than the nearest found: a row costs a word
/// or two where a ring of cells costs 8r lookups, and a gap search asks this of up to
/// [`REFINED`] outline pixels. Equally near pixels are told apart as a search ring by
/// ring would come to them: the nearer ring first, then its top and bottom rows from the
/// left, then its sides from the top ([`ring_order`]), so the answer is one pixel, the
/// same however it is searched for.
fn nearest_set(mask: &BitMask, (cx, cy): (i64, i64), reach: i64) -> Option<(i64, (i64, i64))> {
    let (w, h) = (i64::from(mask.width()), i64::from(mask.height()));
    let (lo_x, hi_x) = ((cx - reach).max(0), (cx + reach).min(w - 1));
    if lo_x > hi_x {
        return None;
    }
    let mut best: Option<((i64, i64, usize), (i64, i64))> = None;
    let consider = |x: i64, y: i64, best: &mut Option<((i64, i64, usize), (i64, i64))>| {
        let (dx, dy) = (x - cx, y - cy);
        let key = (
            dx * dx + dy * dy,
            dx.abs().max(dy.abs()),
            ring_order(dx, dy),
        );
        if best.is_none_or(|(best_key, _)| key < best_key) {
            *best = Some((key, (x, y)));
        }
    };
    for dy in 0..=reach {
        if best.is_some_and(|((squared, ..), _)| dy * dy > squared) {
            break;
        }
        for y in [cy - dy, cy + dy] {
            if !(0..h).contains(&y) {
                continue;
            }
            // Within the mask's columns (`lo_x..=hi_x`), either side of `cx`.
            let row = mask.row(y as u32);
            let left_end = cx.min(hi_x);
            if left_end >= lo_x
                && let Some(x) = row.last_set_in(lo_x as u32, left_end as u32)
            {
                consider(i64::from(x), y, &mut best);
            }
            let right_start = (cx + 1).max(lo_x);
            if right_start <= hi_x {
                let x = row.next_with(right_start as u32, hi_x as u32 + 1, true);
                if i64::from(x) <= hi_x {
                    consider(i64::from(x), y, &mut best);
                }
            }
            if dy == 0 {
                break;
            }
        }
    }
    best.map(|((squared, ..), at)| (squared, at))
}

/// Where a search ring by ring, ring `r = max(|dx|, |dy|)` starting at its top-left
/// corner, would come to the cell `(dx, dy)` from the center within its ring: each column
/// of the top and bottom rows, top first, then each row of the sides, left first.
fn ring_order(dx: i64, dy: i64) -> usize {
    let r = dx.abs().max(dy.abs());
    let order = if dy.abs() == r {
        2 * (dx + r) + i64::from(dy > 0)
    } else {
        2 * (2 * r + 1) + 2 * (dy + r - 1) + i64::from(dx > 0)
    };
    order as usize
}

/// The farthest, in the larger mask's pixels, a gap is looked for.
const MAX_REACH: i64 = 128;
/// Outline pixels whose nearest set pixel is searched for, at most: bounds the work for
/// a long outline lying parallel to a surface, where many are about equally near.
const REFINED: usize = 256;

/// The shortest and longest world length a unit step in mask space can have: the
/// transform's singular values.
fn steps(to_world: Affine2) -> (f32, f32) {
    let (shortest, longest) = steps_f64(to_world.matrix2.as_dmat2());
    (shortest as f32, longest as f32)
}

/// [`steps`] in f64.
pub(crate) fn steps_f64(m: bevy_math::DMat2) -> (f64, f64) {
    let squares = m.x_axis.length_squared() + m.y_axis.length_squared();
    let det = m.determinant();
    let spread = (squares * squares - 4.0 * det * det).max(0.0).sqrt();
    let longest = ((squares + spread) / 2.0).sqrt();
    let shortest = ((squares - spread) / 2.0).max(0.0).sqrt();
    (shortest, longest)
}

/// The world size of one pixel: the square root of the transform's area scale; `None` for
/// a non-finite or degenerate one.
fn pixel_size(to_world: Affine2) -> Option<f32> {
    let size = to_world.matrix2.determinant().abs().sqrt();
    (size.is_finite() && size > 0.0 && to_world.translation.is_finite()).then_some(size)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sprite_to_world;
    use pixel_collide_seeded::rng::SplitMix64;

    fn blob(w: u32, h: u32, rng: &mut SplitMix64) -> BitMask {
        let mut m = BitMask::new(w, h);
        let (cx, cy) = (w as f32 / 2.0, h as f32 / 2.0);
        for y in 0..h {
            for x in 0..w {
                let (u, v) = ((x as f32 + 0.5 - cx) / cx, (y as f32 + 0.5 - cy) / cy);
                m.set(x.into(), y.into(), u * u + v * v <= 1.2 && rng.chance(0.7));
            }
        }
        m
    }

    fn centers(m: &BitMask, to_world: Affine2) -> Vec<Vec2> {
        let (w, h) = m.size();
        (0..h)
            .flat_map(|y| (0..w).map(move |x| (x, y)))
            .filter(|&(x, y)| m.get(x.into(), y.into()))
            .map(|(x, y)| to_world.transform_point2(Vec2::new(x as f32 + 0.5, y as f32 + 0.5)))
            .collect()
    }

    /// Tile by tile, the outline's candidates are those pixel by pixel, in the same order:
    /// blobs turned, scaled (unevenly too) and flipped against a field blob, anywhere from
    /// inside it to well clear, at reaches from 1 to 40 cells, and beside an overlap.
    #[test]
    fn tiles_passed_over_hold_no_candidate() {
        let mut rng = SplitMix64(4077);
        let mut tiled = 0;
        for _ in 0..1000 {
            // Solid with ragged edges, as sprites are: a noisy blob's outline is most of
            // its pixels, too many to keep.
            let (w, h) = (rng.below(60) as u32 + 4, rng.below(60) as u32 + 4);
            let mut probe = BitMask::new(w, h);
            for y in 0..h {
                for x in 0..w {
                    let u = (x as f32 + 0.5) / w as f32 * 2.0 - 1.0;
                    let v = (y as f32 + 0.5) / h as f32 * 2.0 - 1.0;
                    probe.set(x.into(), y.into(), u * u + v * v <= rng.range(0.7, 1.1));
                }
            }
            let field_mask = blob(
                rng.below(90) as u32 + 30,
                rng.below(90) as u32 + 30,
                &mut rng,
            );
            let field_to_world = sprite_to_world(
                Vec2::ZERO,
                rng.range(-3.2, 3.2),
                Vec2::new(rng.range(0.5, 2.0), rng.range(0.5, 2.0)),
                field_mask.size(),
            );
            let scale = rng.range(0.5, 2.5);
            let flip = Vec2::new(if rng.chance(0.5) { -1.0 } else { 1.0 }, 1.0);
            // Half of them over a corner of the field's rectangle, clear of its pixels,
            // where a tile may straddle the rectangle's edge.
            let at = if rng.chance(0.5) {
                let (fw, fh) = field_mask.size();
                let corner = Vec2::new(
                    if rng.chance(0.5) { 0.0 } else { fw as f32 },
                    if rng.chance(0.5) { 0.0 } else { fh as f32 },
                );
                field_to_world.transform_point2(corner)
                    + Vec2::new(rng.range(-15.0, 15.0), rng.range(-15.0, 15.0))
            } else {
                Vec2::new(rng.range(-150.0, 150.0), rng.range(-150.0, 150.0))
            };
            let probe_to_world = sprite_to_world(
                at,
                rng.range(-3.2, 3.2),
                Vec2::splat(scale) * flip,
                probe.size(),
            );
            let field = field_mask.distance_field().unwrap();
            let to_field = field_to_world.inverse();
            let (shortest, _) = steps(field_to_world);
            let cells_per_pixel = steps(probe_to_world).1 / shortest;
            let reach = rng.below(40) as i64 + 1;
            let beside = rng.chance(0.5);
            let expected = (|| {
                let mut all = Vec::new();
                for &(x, y) in probe.cached_outline().iter() {
                    let world =
                        probe_to_world.transform_point2(Vec2::new(x as f32 + 0.5, y as f32 + 0.5));
                    let at = to_field.transform_point2(world);
                    let cell = (at.x.floor() as i64, at.y.floor() as i64);
                    let d = i64::from(field_mask.chessboard_to_set(field, cell));
                    match d {
                        0 if beside => {}
                        0 => return None,
                        d if d <= reach => all.push((d, world, cell)),
                        _ => {}
                    }
                }
                Some(all)
            })();
            let found = outline_candidates(
                (&probe, probe_to_world),
                (&field_mask, field, to_field),
                reach,
                cells_per_pixel,
                beside,
            );
            assert_eq!(found, expected, "reach {reach}, beside {beside}");
            tiled += usize::from(probe.outline_tiles().is_some());
        }
        assert_eq!(tiled, 1000, "every probe here keeps its tiles");
    }

    /// A probe half over the edge of a field whose one set pixel lies far inside: the
    /// middle of its tile is far from that pixel, but its pixels outside are candidates,
    /// a pixel or two from the field's rectangle (a lower bound all the same).
    #[test]
    fn a_tile_over_the_fields_edge_is_searched() {
        let mut field_mask = BitMask::new(40, 40);
        field_mask.set(20, 20, true);
        let probe = BitMask::solid(4, 4).unwrap();
        let field_to_world = Affine2::IDENTITY;
        // Columns -2..2 of the field: two outside, two inside.
        let probe_to_world = Affine2::from_translation(Vec2::new(-2.0, 10.0));
        let field = field_mask.distance_field().unwrap();
        // Also with a probe pixel too many cells wide to count, which passes over nothing
        // (a fuzzed input once overflowed the count).
        for cells_per_pixel in [1.0, 1e30, f32::INFINITY, f32::NAN] {
            let candidates = outline_candidates(
                (&probe, probe_to_world),
                (&field_mask, field, field_to_world.inverse()),
                2,
                cells_per_pixel,
                false,
            )
            .unwrap();
            assert!(probe.outline_tiles().is_some());
            // Its outline's pixels in the two columns outside: 1 and 2 cells from the edge.
            let outside = candidates.iter().filter(|c| c.2.0 < 0).count();
            assert_eq!(outside, 6, "{cells_per_pixel}: {candidates:?}");
        }
    }

    /// A small blob anywhere inside a large frame: the boxes and circles always meet, and
    /// the frame's clear space alone can say they are apart. When it does, no pixel lands
    /// and no pair of centers is within the distance; and it does for most blobs well
    /// inside, either mask first.
    #[test]
    fn blobs_in_a_frames_clear_space_are_surely_apart() {
        let mut rng = SplitMix64(78);
        let mut frame = BitMask::solid(90, 70).unwrap();
        for y in 5..65 {
            for x in 5..85 {
                frame.set(x, y, false);
            }
        }
        // Ragged inner walls: the nearest pixel is not always straight across.
        for _ in 0..40 {
            let (along, into) = (rng.below(60) as i64 + 5, rng.below(3) as i64 + 5);
            frame.set(into, along, true);
            frame.set(89 - into, along, true);
        }
        let frame_pixels = centers_of_mask(&frame);
        let (mut said_apart, mut well_inside) = (0, 0);
        let pairs = pixel_collide_seeded::cases(300);
        for case in 0..pairs {
            let blob = blob(
                rng.range(2.0, 16.0) as u32,
                rng.range(2.0, 16.0) as u32,
                &mut rng,
            );
            let frame_scale = rng.range(0.8, 1.6);
            let frame_to_world = crate::sprite_to_world(
                Vec2::ZERO,
                rng.range(0.0, 6.3),
                Vec2::splat(frame_scale),
                frame.size(),
            );
            let at = Vec2::new(rng.range(-30.0, 30.0), rng.range(-20.0, 20.0)) * frame_scale;
            let blob_to_world = crate::sprite_to_world(
                at,
                rng.range(0.0, 6.3),
                Vec2::new(rng.range(0.6, 1.8), rng.range(0.6, 1.8)),
                blob.size(),
            );
            let distance = rng.range(0.0, 8.0);
            let said = if case % 2 == 0 {
                surely_farther_apart(&blob, blob_to_world, &frame, frame_to_world, distance)
            } else {
                surely_farther_apart(&frame, frame_to_world, &blob, blob_to_world, distance)
            };
            let pixel = |t: Affine2| t.matrix2.determinant().abs().sqrt();
            let larger = pixel(blob_to_world).max(pixel(frame_to_world));
            let nearest = centers(&blob, blob_to_world)
                .iter()
                .flat_map(|p| {
                    frame_pixels
                        .iter()
                        .map(move |q| p.distance(frame_to_world.transform_point2(*q)))
                })
                .fold(f32::INFINITY, f32::min);
            if said {
                said_apart += 1;
                assert!(!transformed_intersects(
                    &blob,
                    blob_to_world,
                    &frame,
                    frame_to_world
                ));
                assert!(
                    nearest - larger > distance,
                    "case {case}: said apart by more than {distance}, yet centers {nearest} apart"
                );
            }
            if nearest - larger > distance + 15.0 {
                well_inside += 1;
            }
        }
        assert!(
            well_inside > pairs / 4 && said_apart * 10 > well_inside * 9,
            "{said_apart} said apart, {well_inside} well inside"
        );
    }

    /// Pixel centers of a mask, in its own space.
    fn centers_of_mask(m: &BitMask) -> Vec<Vec2> {
        centers(m, Affine2::IDENTITY)
    }

    /// Whenever the boxes and circles say a pair is farther apart than the distance, no
    /// pixel of A lands on B and every pair of pixel centers, less the larger pixel, is
    /// farther: the shortcut never hides a contact or a gap. And it is not vacuous: it
    /// answers for most pairs well apart.
    #[test]
    fn pairs_surely_apart_have_no_contact_and_no_gap_within_reach() {
        let mut rng = SplitMix64(77);
        let (mut said_apart, mut far) = (0, 0);
        // Cut under qemu, where the brute-force nearest pixels are most of the x86 models'
        // time; the shortcut has no CPU-specific build.
        let pairs = pixel_collide_seeded::cases(1_500);
        for _ in 0..pairs {
            let a = blob(
                rng.range(2.0, 40.0) as u32,
                rng.range(2.0, 40.0) as u32,
                &mut rng,
            );
            let b = blob(
                rng.range(2.0, 40.0) as u32,
                rng.range(2.0, 40.0) as u32,
                &mut rng,
            );
            let placed = |m: &BitMask, at: Vec2, rng: &mut SplitMix64| {
                let flip = Vec2::new(
                    if rng.chance(0.5) { -1.0 } else { 1.0 },
                    if rng.chance(0.5) { -1.0 } else { 1.0 },
                );
                let scale = Vec2::new(rng.range(0.5, 2.5), rng.range(0.5, 2.5)) * flip;
                crate::sprite_to_world(at, rng.range(0.0, 6.3), scale, m.size())
            };
            let a_to_world = placed(&a, Vec2::ZERO, &mut rng);
            let at = Vec2::from_angle(rng.range(0.0, 6.3)) * rng.range(0.0, 120.0);
            let b_to_world = placed(&b, at, &mut rng);
            let distance = rng.range(0.0, 10.0);
            if !surely_farther_apart(&a, a_to_world, &b, b_to_world, distance) {
                continue;
            }
            said_apart += 1;
            assert!(!transformed_intersects(&a, a_to_world, &b, b_to_world));
            let pixel = |t: Affine2| t.matrix2.determinant().abs().sqrt();
            let larger = pixel(a_to_world).max(pixel(b_to_world));
            let (pa, pb) = (centers(&a, a_to_world), centers(&b, b_to_world));
            let nearest = pa
                .iter()
                .flat_map(|p| pb.iter().map(move |q| p.distance(*q)))
                .fold(f32::INFINITY, f32::min);
            assert!(
                nearest - larger > distance,
                "said apart by more than {distance}, yet centers {nearest} apart"
            );
            if nearest - larger > distance + 40.0 {
                far += 1;
            }
        }
        assert!(
            said_apart > pairs / 5 && far > pairs / 15,
            "{said_apart} said apart, {far} far"
        );
        // Empty masks are apart; bad transforms and distances cannot be told.
        let solid = BitMask::solid(4, 4).unwrap();
        let at = |x: f32| Affine2::from_translation(Vec2::new(x, 0.0));
        assert!(surely_farther_apart(
            &BitMask::new(4, 4),
            at(0.0),
            &solid,
            at(0.0),
            1.0
        ));
        assert!(!surely_farther_apart(
            &solid,
            at(f32::NAN),
            &solid,
            at(100.0),
            1.0
        ));
        assert!(!surely_farther_apart(
            &solid,
            at(0.0),
            &solid,
            at(100.0),
            f32::NAN
        ));
        assert!(surely_farther_apart(
            &solid,
            at(0.0),
            &solid,
            at(100.0),
            1.0
        ));
        assert!(!surely_farther_apart(&solid, at(0.0), &solid, at(6.0), 1.0));
    }

    /// The ring-by-ring search the row scan replaced, cell by cell: the judge of which
    /// pixel is nearest, ties included.
    fn nearest_set_by_rings(
        mask: &BitMask,
        (cx, cy): (i64, i64),
        reach: i64,
    ) -> Option<(i64, (i64, i64))> {
        let (w, h) = (i64::from(mask.width()), i64::from(mask.height()));
        let mut found: Option<(i64, (i64, i64))> = None;
        let mut last = reach;
        let consider = |x: i64, y: i64, found: &mut Option<(i64, (i64, i64))>| {
            if (0..w).contains(&x) && (0..h).contains(&y) && mask.get(x, y) {
                let squared = (x - cx).pow(2) + (y - cy).pow(2);
                if found.is_none_or(|(best, _)| squared < best) {
                    *found = Some((squared, (x, y)));
                }
            }
        };
        let mut r = 1;
        while r <= last {
            for x in cx - r..=cx + r {
                consider(x, cy - r, &mut found);
                consider(x, cy + r, &mut found);
            }
            for y in cy - r + 1..cy + r {
                consider(cx - r, y, &mut found);
                consider(cx + r, y, &mut found);
            }
            if found.is_some() && last == reach {
                last = ((r as f32 * std::f32::consts::SQRT_2).ceil() as i64).min(reach);
            }
            r += 1;
        }
        found
    }

    /// The truncating floor agrees with `floor` on both sides of zero, at halves, past
    /// f32's integers and where the cast saturates.
    #[test]
    fn floor_to_i64_is_the_floor_cast() {
        let mut rng = SplitMix64(41);
        let mut values = vec![
            0.0,
            -0.0,
            0.5,
            -0.5,
            -1.0,
            1.0,
            -1e-30,
            f32::MAX,
            f32::MIN,
            9.3e18,
            -9.3e18,
            -9.223372e18,
            8_388_607.5,
            -8_388_607.5,
            16_777_217.0,
        ];
        values.extend((0..10_000).map(|_| rng.range(-5000.0, 5000.0)));
        for v in values {
            assert_eq!(floor_to_i64(v), v.floor() as i64, "{v}");
        }
    }

    /// The row scan finds the pixel the rings found, ties broken the same way, on masks
    /// several words wide and sparse or dense, from cells inside and outside them.
    #[test]
    fn nearest_set_matches_the_ring_search() {
        let mut rng = SplitMix64(93);
        for _ in 0..pixel_collide_seeded::cases(400) {
            let (w, h) = (rng.below(200) as u32 + 1, rng.below(40) as u32 + 1);
            let density = rng.range(0.0, 0.2);
            let mut mask = BitMask::new(w, h);
            for y in 0..h {
                for x in 0..w {
                    mask.set(x.into(), y.into(), rng.chance(density));
                }
            }
            for _ in 0..20 {
                let cell = (
                    rng.below(u64::from(w) + 40) as i64 - 20,
                    rng.below(u64::from(h) + 40) as i64 - 20,
                );
                if mask.get(cell.0, cell.1) {
                    continue;
                }
                let reach = rng.below(40) as i64 + 1;
                assert_eq!(
                    nearest_set(&mask, cell, reach),
                    nearest_set_by_rings(&mask, cell, reach),
                    "{w}×{h} mask, from {cell:?} within {reach}"
                );
            }
        }
    }
}
