//! [`Mapping`]: A's samples carried into B's space, and the bounds that let the walk skip
//! them: the rows and columns that can land in B, B's place in A's clear space, and the
//! exact two-step mapping every shortcut answers to. Apart from the walk itself
//! (`row_walk.rs`) and the manifold (`manifold.rs`), which use it, because this is the
//! geometry they share.

use bevy_math::{Affine2, DAffine2, DVec2, Vec2};

use super::contact::MAX_BISECTIONS;
use super::row_walk::{FIXED_ONE, SETTLE_MIN_SAMPLES, SETTLE_MIN_SAMPLES_NARROW, Sums};
use super::{DEPTH_RESOLUTION, MANIFOLD_MAX_SAMPLES, is_usable, largest_stretch, to_f64};
use crate::mask::BitMask;

/// A's rows as lines of sample positions in B's space.
pub(super) struct RowLines {
    /// Sample (0, 0)'s position.
    origin: DVec2,
    /// From one row to the next.
    row_step: DVec2,
    /// 1 / (from one column to the next), per axis; 0 where the row is parallel to it.
    inverse_step: DVec2,
    size: DVec2,
    margin: f64,
    /// From one column to the next, and 1 / its squared length.
    column_step: DVec2,
    inverse_step_squared: f64,
    /// B's bounding circle: center, and radius plus the margin.
    circle: Option<(DVec2, f64)>,
}

/// A's set samples around an overlap, in B's space ([`Mapping::samples_around`]).
#[derive(Default)]
pub(super) struct Around {
    pub(super) all: Vec<Vec2>,
    /// Those that land on B, and their pixels in A.
    pub(super) overlapping: Vec<Vec2>,
    pub(super) overlapping_pixels: Vec<(u32, u32)>,
}

pub(super) struct Mapping<'m> {
    pub(super) a: &'m BitMask,
    pub(super) b: &'m BitMask,
    pub(super) a_to_world: Affine2,
    pub(super) world_to_b: Affine2,
    /// The two mappings composed: only for spans and step sizes, which keep a margin for
    /// the rounding between it and the exact two-step mapping.
    pub(super) a_to_b: Affine2,
    pub(super) margin: f32,
    /// The same two f32 mappings composed in f64: a sample from it is the exact two-step
    /// result up to that result's own rounding, which is below `fixed_guard`.
    pub(super) a_to_b_f64: DAffine2,
    /// For [`Mapping::map_one_by_one`], once per mapping: the column step in 32.32 fixed
    /// point, and the guard in the same units: [`rounding_bound`] (a sample further than
    /// it from every pixel edge lands in the same pixel by the two-step f32 mapping and
    /// by this one) plus the stepping's own rounding; `None` when it is too wide to trust
    /// the fixed-point path at all.
    pub(super) fixed_step: (i64, i64),
    pub(super) fixed_guard: Option<u32>,
    /// [`SETTLE_MIN_SAMPLES`] or, for an A one word wide, [`SETTLE_MIN_SAMPLES_NARROW`].
    pub(super) settle_min_samples: u32,
    /// `a_to_b`'s inverse, for the clipping that works in A's space.
    pub(super) b_to_a: Affine2,
    /// B's bounding circle mapped into A: its center, and a radius (plus the margin) no
    /// smaller than the ellipse it maps to, the radius times the largest stretch of
    /// `b_to_a`. `None` for an empty B.
    pub(super) b_circle_in_a: Option<(Vec2, f32)>,
    /// `b_to_a` overflows (A squashed to almost nothing in B): the shortcuts, which all
    /// map B into A, cannot bound anything, so every sample takes the exact path.
    pub(super) every_sample: bool,
}

impl<'m> Mapping<'m> {
    pub(super) fn new(
        a: &'m BitMask,
        a_to_world: Affine2,
        b: &'m BitMask,
        b_to_world: Affine2,
    ) -> Option<Mapping<'m>> {
        if !is_usable(a_to_world) || !is_usable(b_to_world) {
            return None;
        }
        let world_to_b = b_to_world.inverse();
        let a_to_b = world_to_b * a_to_world;
        if !world_to_b.is_finite() || !is_usable(a_to_b) {
            return None;
        }
        if a.width() == 0 || a.height() == 0 || b.width() == 0 || b.height() == 0 {
            return None;
        }
        // f32 keeps ~7 digits: far from the origin the two mappings round differently by
        // more than a pixel, so the margin grows with the coordinates involved. It is in
        // B's pixels, so world distances count as many B pixels as they span: with B's
        // pixels far below an f32 step of the world position, that is thousands.
        let world = f64::from(
            a_to_world.translation.abs().max_element() + b_to_world.translation.abs().max_element(),
        );
        let world_in_b = world * f64::from(largest_stretch(world_to_b.matrix2));
        let in_b = f64::from(a_to_b.translation.abs().max_element());
        let guard = rounding_bound(a, a_to_world, world_to_b);
        // Saturated rather than infinite: the clipping then keeps every sample, and each
        // one takes the exact path, which is the definition.
        let margin =
            (2.0 + ((world_in_b + in_b) * 1e-5).max(4.0 * guard)).min(f64::from(f32::MAX)) as f32;
        let a_to_b_f64 = to_f64(world_to_b) * to_f64(a_to_world);
        let step = a_to_b_f64.matrix2.x_axis * FIXED_ONE;
        // Stepping in fixed point adds at most 64 roundings of 2^-32 to the f64 rounding.
        let fixed_guard = (guard + 1.0 / f64::from(1 << 24)) * FIXED_ONE;
        let b_to_a = a_to_b.inverse();
        let b_circle_in_a = b.bounding_circle().map(|(x, y, r)| {
            let center = b_to_a.transform_point2(Vec2::new(x as f32, y as f32));
            (
                center,
                (r as f32 + margin) * largest_stretch(b_to_a.matrix2),
            )
        });
        Some(Mapping {
            a,
            b,
            a_to_world,
            world_to_b,
            a_to_b,
            margin,
            a_to_b_f64,
            fixed_step: (step.x as i64, step.y as i64),
            fixed_guard: (fixed_guard < FIXED_ONE / 4.0).then_some(fixed_guard as u32),
            settle_min_samples: if a.width() <= 64 {
                SETTLE_MIN_SAMPLES_NARROW
            } else {
                SETTLE_MIN_SAMPLES
            },
            every_sample: !b_to_a.is_finite(),
            b_to_a,
            b_circle_in_a,
        })
    }

    /// Whether A's pixel `(i, j)`, set or not, lands on a set pixel of B, by the exact
    /// two-step mapping: the definition every shortcut answers to.
    #[inline]
    pub(super) fn lands_on_b(&self, i: u32, j: u32) -> bool {
        self.on_b(self.sample(i, j))
    }

    /// The exact sample position of A's pixel `(i, j)` in B's space.
    #[inline]
    pub(super) fn sample(&self, i: u32, j: u32) -> Vec2 {
        let center = Vec2::new(i as f32 + 0.5, j as f32 + 0.5);
        self.world_to_b
            .transform_point2(self.a_to_world.transform_point2(center))
    }

    #[inline]
    pub(super) fn b_pixel(&self, p: Vec2) -> Option<(u32, u32)> {
        // Written so that NaN fails the test.
        if p.x >= 0.0 && p.y >= 0.0 && p.x < self.b.width() as f32 && p.y < self.b.height() as f32 {
            Some((p.x as u32, p.y as u32))
        } else {
            None
        }
    }

    /// `None` when the bounding circles of A and of B (mapped into A, as in
    /// [`Mapping::row_range`]) are apart, so that no sample can land; otherwise whether B's
    /// center lies more to A's side than above or below it (see [`walk`](super::walk)).
    pub(super) fn placement(&self) -> Option<bool> {
        if self.every_sample {
            return Some(false);
        }
        let (Some((ax, ay, ar)), Some((b_center, reach))) =
            (self.a.bounding_circle(), self.b_circle_in_a)
        else {
            return Some(false);
        };
        let a_center = Vec2::new(ax as f32, ay as f32);
        lens_rows(a_center, ar as f32, b_center, reach)?;
        let towards_b = b_center - a_center;
        Some(towards_b.x.abs() > towards_b.y.abs())
    }

    /// A's rows whose samples can land in B: B's rectangle mapped into A, plus the margin.
    pub(super) fn row_range(&self) -> Option<(u32, u32)> {
        let b_to_a = self.b_to_a;
        let (w, h) = (self.b.width() as f32, self.b.height() as f32);
        let corners = [
            Vec2::ZERO,
            Vec2::new(w, 0.0),
            Vec2::new(0.0, h),
            Vec2::new(w, h),
        ]
        .map(|c| b_to_a.transform_point2(c));
        let (min_y, max_y) = corners
            .iter()
            .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), c| {
                (lo.min(c.y), hi.max(c.y))
            });
        // The margin is in B's pixels; a B pixel spans up to this many A rows.
        let scale = b_to_a.matrix2.x_axis.abs().max(b_to_a.matrix2.y_axis.abs());
        let pad = self.margin * (scale.x + scale.y).max(1.0);
        let (mut min_y, mut max_y) = (min_y - pad, max_y + pad);
        // B's bounding circle, usually much tighter for round or star-shaped sprites.
        if let Some((center, reach)) = self.b_circle_in_a {
            // Row j's samples sit at y = j + 0.5.
            min_y = min_y.max(center.y - reach - 0.5);
            max_y = max_y.min(center.y + reach - 0.5);
            // A's samples also lie in A's own bounding circle, so only the rows crossing
            // the lens of the two circles can land; when sprites nearly meet, that is a
            // thin sliver of the rows either circle spans.
            if let Some((ax, ay, ar)) = self.a.bounding_circle() {
                let a_center = Vec2::new(ax as f32, ay as f32);
                let (low, high) = lens_rows(a_center, ar as f32, center, reach)?;
                min_y = min_y.max(low - 0.5);
                max_y = max_y.min(high - 0.5);
            }
        }
        // Floor and ceil by casts (no libm call on CPUs before SSE4.1): a cast truncates,
        // which floors a positive number, and saturates; NaN bounds mean no bound.
        let top = if min_y > 0.0 { min_y as u32 } else { 0 };
        let max_y = max_y.min(self.a.height() as f32 - 1.0);
        if max_y < 0.0 {
            return None;
        }
        let bottom = max_y as u32 + u32::from((max_y as u32 as f32) < max_y);
        (top <= bottom).then_some((top, bottom))
    }

    /// The columns of row `j` whose samples can land in B: where the row's line of sample
    /// positions crosses B's rectangle and B's bounding circle (each plus the margin). `lines` comes from
    /// [`Mapping::row_lines`], computed once per query.
    pub(super) fn column_span(&self, j: u32, lines: &RowLines) -> Option<(u32, u32)> {
        let start = lines.origin + lines.row_step * f64::from(j);
        let (mut lo, mut hi) = (0.0f64, f64::from(self.a.width() - 1));
        for axis in 0..2 {
            let (s, inverse) = (start[axis], lines.inverse_step[axis]);
            let (near, far) = (-lines.margin, lines.size[axis] + lines.margin);
            if inverse == 0.0 {
                // The row runs parallel to this side: all in or all out.
                if s < near || s > far {
                    return None;
                }
                continue;
            }
            let (t0, t1) = ((near - s) * inverse, (far - s) * inverse);
            lo = lo.max(t0.min(t1));
            hi = hi.min(t0.max(t1));
        }
        if let Some((center, radius)) = lines.circle {
            // Where the row's line is within `radius` of the center: a quadratic in t.
            let (v, w) = (lines.column_step, start - center);
            let (a, b) = (v.length_squared(), v.dot(w));
            let disc = b * b - a * (w.length_squared() - radius * radius);
            if disc.is_nan() || disc < 0.0 {
                return None;
            }
            let root = disc.sqrt();
            lo = lo.max((-b - root) * lines.inverse_step_squared);
            hi = hi.min((-b + root) * lines.inverse_step_squared);
        }
        // `lo ≥ 0` and `hi ≤ width − 1` here (`max` and `min` drop NaN), so casts floor
        // and a compare ceils, with no libm call on CPUs before SSE4.1.
        if lo > hi {
            return None;
        }
        let last = hi as u32 + u32::from((hi as u32 as f64) < hi);
        Some((lo as u32, last))
    }

    /// What [`Mapping::column_span`] needs for every row, in f64 so that long rows and far
    /// offsets keep their precision; reciprocals so a row costs no division.
    pub(super) fn row_lines(&self) -> RowLines {
        let step = self.a_to_b.matrix2.x_axis.as_dvec2();
        let reciprocal = |d: f64| if d.abs() < 1e-12 { 0.0 } else { 1.0 / d };
        RowLines {
            origin: self.a_to_b.transform_point2(Vec2::splat(0.5)).as_dvec2(),
            row_step: self.a_to_b.matrix2.y_axis.as_dvec2(),
            inverse_step: DVec2::new(reciprocal(step.x), reciprocal(step.y)),
            size: DVec2::new(f64::from(self.b.width()), f64::from(self.b.height())),
            margin: f64::from(self.margin),
            column_step: step,
            inverse_step_squared: 1.0 / step.length_squared(),
            circle: self
                .b
                .bounding_circle()
                .map(|(x, y, r)| (DVec2::new(x, y), r + f64::from(self.margin))),
        }
    }

    /// Whether B's set pixels all map into a clear part of A (B in a ring's hole, say): A's
    /// distance field at the center of B's set pixels reaches further than they do. One
    /// lookup instead of a walk over every row.
    pub(super) fn b_sits_in_clear_space(&self) -> bool {
        let Some(bounds) = self.b.cached_bounds() else {
            return true;
        };
        let half = Vec2::new(bounds.width as f32, bounds.height as f32) / 2.0;
        let center = Vec2::new(bounds.x as f32, bounds.y as f32) + half;
        let b_to_a = self.b_to_a;
        let p = b_to_a.transform_point2(center);
        if !(p.x >= 0.0
            && p.y >= 0.0
            && p.x < self.a.width() as f32
            && p.y < self.a.height() as f32)
        {
            return false;
        }
        let (x, y) = (p.x as u32, p.y as u32);
        if self.a.get(i64::from(x), i64::from(y)) {
            return false;
        }
        // Every A pixel whose center lands in B's set pixels lies within `reach` of p in
        // chessboard distance: B's rectangle maps to a parallelogram whose farthest points
        // are its corners. Pixels closer than `clear` to p are all clear.
        let m = b_to_a.matrix2;
        let corner = |v: Vec2| (m * v).abs().max_element();
        // The margin is in B's pixels; in A's it is as long as `b_to_a` stretches it.
        let margin = self.margin * largest_stretch(m);
        let reach = corner(half).max(corner(Vec2::new(half.x, -half.y))) + 1.0 + margin;
        let Some(field) = self.a.distance_field() else {
            return false;
        };
        let clear = field[y as usize * self.a.width() as usize + x as usize];
        reach < f32::from(clear)
    }

    /// How far, in A's pixels, a sample can be from the overlap and still land on B or
    /// leave it when A moves one of B's pixels: the most A's pixels one of B's spans,
    /// rounded (a stretch of exactly 2 that rounding made 2.0000002 is 2), plus one.
    pub(super) fn around_overlap(&self) -> u32 {
        (largest_stretch(self.b_to_a.matrix2).round() as u32)
            .max(1)
            .saturating_add(1)
    }

    /// The box of the walk's overlapping samples widened by `reach` pixels (within A),
    /// as `[i0, i1, j0, j1]` inclusive; `None` for no overlap or a box of more than
    /// [`MANIFOLD_MAX_SAMPLES`].
    fn box_around(&self, sums: &Sums, reach: u32) -> Option<[u32; 4]> {
        let (i0, i1) = sums.i_range;
        let (j0, j1) = sums.j_range;
        if sums.count == 0 || i0 > i1 || j0 > j1 {
            return None;
        }
        let (i0, i1) = (
            i0.saturating_sub(reach),
            i1.saturating_add(reach).min(self.a.width() - 1),
        );
        let (j0, j1) = (
            j0.saturating_sub(reach),
            j1.saturating_add(reach).min(self.a.height() - 1),
        );
        let area = u64::from(i1 - i0 + 1) * u64::from(j1 - j0 + 1);
        (area <= MANIFOLD_MAX_SAMPLES).then_some([i0, i1, j0, j1])
    }

    /// A's set pixels in a box (`[i0, i1, j0, j1]`, inclusive), in row order.
    pub(super) fn set_pixels_in(
        &self,
        [i0, i1, j0, j1]: [u32; 4],
    ) -> impl Iterator<Item = (u32, u32)> {
        (j0..=j1)
            .flat_map(move |j| (i0..=i1).map(move |i| (i, j)))
            .filter(|&(i, j)| self.a.get(i.into(), j.into()))
    }

    /// A's set samples within `reach` pixels of the box of the walk's overlapping
    /// samples, in B's space, and those of them that land on B; `None` when that box
    /// holds more than [`MANIFOLD_MAX_SAMPLES`].
    pub(super) fn samples_around(&self, sums: &Sums, reach: u32) -> Option<Around> {
        let bounds = self.box_around(sums, reach)?;
        let [i0, i1, j0, j1] = bounds;
        // Sized once: the box bounds the samples, and the walk counted those that land
        // (the box holds them all). Grown a sample at a time, they were reallocated a
        // dozen times a contact.
        let area = (i1 - i0 + 1) as usize * (j1 - j0 + 1) as usize;
        let landing = usize::try_from(sums.count).map_or(area, |count| count.min(area));
        let mut around = Around {
            all: Vec::with_capacity(area),
            overlapping: Vec::with_capacity(landing),
            overlapping_pixels: Vec::with_capacity(landing),
        };
        for (i, j) in self.set_pixels_in(bounds) {
            let p = self.sample(i, j);
            around.all.push(p);
            if self.on_b(p) {
                around.overlapping.push(p);
                around.overlapping_pixels.push((i, j));
            }
        }
        Some(around)
    }

    /// Whether a point of B's space lies on a set pixel of B.
    #[inline]
    fn on_b(&self, p: Vec2) -> bool {
        self.b_pixel(p)
            .is_some_and(|(x, y)| self.b.get(x.into(), y.into()))
    }

    /// How many more of `samples` land on B with A moved one of B's pixels along each of
    /// B's axes than moved one back: the overlap count's gradient in B's space.
    pub(super) fn count_change(&self, samples: &[Vec2]) -> Vec2 {
        let lands = |p: Vec2| f32::from(u8::from(self.on_b(p)));
        samples.iter().fold(Vec2::ZERO, |change, &p| {
            change
                + Vec2::new(
                    lands(p + Vec2::X) - lands(p - Vec2::X),
                    lands(p + Vec2::Y) - lands(p - Vec2::Y),
                )
        })
    }

    /// The last distance along `normal` (world) at which one of `samples` (B's space),
    /// moved alone, still lands on B, and the first at which none does, to
    /// [`DEPTH_RESOLUTION`] of `pixel`: doubling from a pixel up to `limit`, then halving.
    /// Both are `limit` when they still land there.
    pub(super) fn samples_depth(
        &self,
        samples: &[Vec2],
        normal: Vec2,
        pixel: f32,
        limit: f32,
    ) -> (f32, f32) {
        let along_b = self.world_to_b.transform_vector2(normal);
        let hits = |d: f32| samples.iter().any(|&p| self.on_b(p + along_b * d));
        let (mut lo, mut hi) = (0.0f32, pixel);
        while hits(hi) {
            lo = hi;
            if hi >= limit {
                break;
            }
            hi = (hi * 2.0).min(limit);
        }
        for _ in 0..MAX_BISECTIONS {
            if hi - lo <= pixel * DEPTH_RESOLUTION {
                break;
            }
            let mid = 0.5 * (lo + hi);
            if hits(mid) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        (lo, hi)
    }

    /// A's set samples in `sums`' box that land on B, each tested exactly, in row order;
    /// `None` for no overlap or a box of more than [`MANIFOLD_MAX_SAMPLES`].
    pub(super) fn overlapping_samples(&self, sums: &Sums) -> Option<Vec<(u32, u32)>> {
        let overlap_box = self.box_around(sums, 0)?;
        Some(
            self.set_pixels_in(overlap_box)
                .filter(|&(i, j)| self.lands_on_b(i, j))
                .collect(),
        )
    }

    /// The longest world length of one of A's pixels.
    pub(super) fn pixel(&self) -> f32 {
        self.a_to_world
            .matrix2
            .x_axis
            .length()
            .max(self.a_to_world.matrix2.y_axis.length())
    }
}

/// The y range of the lens where two circles overlap (with a little slack for f32
/// rounding), `None` when they are apart, or everything when the centers coincide or the
/// inputs are not finite (the caller's other bounds still hold).
///
/// With `u` the unit vector from A's center to B's at distance `d`, every point of the
/// lens lies at `t ∈ [d − r_B, r_A]` along `u`, and at most `h` across it, `h` being half
/// the common chord, found `a = (d² + r_A² − r_B²) / 2d` along `u`: on the chord's A
/// side, B's bound shrinks with distance from it, on the far side A's does. When the
/// chord is not between the centers (`a ∉ [0, d]`), the smaller radius bounds the width.
fn lens_rows(a_center: Vec2, a_radius: f32, b_center: Vec2, b_radius: f32) -> Option<(f32, f32)> {
    let everything = Some((f32::NEG_INFINITY, f32::INFINITY));
    let between = b_center - a_center;
    let d = between.length();
    let slack = 1e-2 + 1e-4 * (a_radius + b_radius + d);
    if !(d.is_finite() && a_radius.is_finite() && b_radius.is_finite()) || d == 0.0 {
        return everything;
    }
    if d > a_radius + b_radius + slack {
        return None;
    }
    let u = between / d;
    let chord = (d * d + a_radius * a_radius - b_radius * b_radius) / (2.0 * d);
    let (near, far) = ((d - b_radius).max(-a_radius), a_radius.min(d + b_radius));
    let across = if (0.0..=d).contains(&chord) {
        (a_radius * a_radius - chord * chord).max(0.0).sqrt()
    } else {
        a_radius.min(b_radius)
    };
    let middle = a_center.y + u.y * (near + far) / 2.0;
    let extent = u.y.abs() * (far - near).max(0.0) / 2.0 + u.x.abs() * across + slack;
    Some((middle - extent, middle + extent))
}

/// How far, in B's pixels, A's samples mapped by the two f32 steps can be from the same
/// mapping done exactly: each step rounds its products and sums to within a few units in
/// the last place of the largest term, and B's matrix scales the first step's error.
fn rounding_bound(a: &BitMask, a_to_world: Affine2, world_to_b: Affine2) -> f64 {
    let row_sum = |m: bevy_math::Mat2| -> f64 {
        let t = m.transpose();
        f64::from((t.x_axis.abs().element_sum()).max(t.y_axis.abs().element_sum()))
    };
    let extent = f64::from(a.width().max(a.height())) + 1.0;
    let world = row_sum(a_to_world.matrix2) * extent
        + f64::from(a_to_world.translation.abs().max_element());
    let in_b =
        row_sum(world_to_b.matrix2) * world + f64::from(world_to_b.translation.abs().max_element());
    // Each step's two products and two sums round by at most 4·2^-24 of its largest term;
    // the first step's error reaches B scaled by B's matrix. 2^-20 is four times that.
    (in_b + row_sum(world_to_b.matrix2) * world) * (2.0f64).powi(-20) + 1e-9
}
