//! Ray casts against a mask: the first set pixel along a ray.
//!
//! Found row by row, not pixel by pixel: the ray is clipped to the mask's bounding
//! rectangle, and in each row it crosses, the span of columns it covers there is searched
//! for a set bit with word scans (`trailing_zeros` / `leading_zeros`). A ray that crosses
//! `r` rows and `c` columns costs about `r + c / 64` word reads.

use bevy_math::{DVec2, Vec2};

use super::mask::{BitMask, Row};

/// Where a ray first enters a set pixel, in mask space (x right, y down, pixel `(i, j)`
/// covering `[i, i + 1) × [j, j + 1)`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MaskRayHit {
    /// The pixel entered, as `[column, row]`.
    pub pixel: [u32; 2],
    /// The ray parameter of the entry point, `origin + direction * t`: the distance when
    /// `direction` is a unit vector. Zero when the ray starts inside a set pixel.
    pub t: f32,
    /// The outward normal of the pixel side the ray enters through: a unit axis vector in
    /// mask space pointing against the ray, or zero when the ray starts inside the pixel.
    pub normal: Vec2,
}

/// Which side of the mask's clip box a ray came in through.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Entry {
    /// The origin is inside the box.
    Inside,
    Column,
    Row,
}

impl BitMask {
    /// The first set pixel along `origin + direction * t` for `t` in `0..=max_t`, or
    /// `None` when there is none, the mask is empty, or an input is not finite (`max_t`
    /// may be infinite), negative or the direction zero.
    ///
    /// Where the ray grazes a pixel's corner exactly, either of the pixels that meet
    /// there may be reported; the entry parameter is the same.
    ///
    /// ```
    /// use bevy_math::Vec2;
    /// use pixel_collide::BitMask;
    ///
    /// let mut mask = BitMask::new(100, 10);
    /// mask.set(70, 4, true);
    /// let hit = mask.ray_cast(Vec2::new(0.0, 4.5), Vec2::X, f32::INFINITY).unwrap();
    /// assert_eq!(hit.pixel, [70, 4]);
    /// assert_eq!(hit.t, 70.0);
    /// assert_eq!(hit.normal, Vec2::new(-1.0, 0.0));
    /// assert!(mask.ray_cast(Vec2::new(0.0, 4.5), Vec2::X, 69.5).is_none());
    /// ```
    pub fn ray_cast(&self, origin: Vec2, direction: Vec2, max_t: f32) -> Option<MaskRayHit> {
        if !origin.is_finite() || !direction.is_finite() || direction == Vec2::ZERO {
            return None;
        }
        if max_t.is_nan() || max_t < 0.0 {
            return None;
        }
        let bounds = self.bounding_rect()?;
        // f64 throughout: rows and columns of large masks stay exact, and the entry
        // parameters of neighbouring pixels never round to the same value.
        let (o, d) = (origin.as_dvec2(), direction.as_dvec2());
        let lo = DVec2::new(f64::from(bounds.x), f64::from(bounds.y));
        let hi = lo + DVec2::new(f64::from(bounds.width), f64::from(bounds.height));

        let (t0, t1, entry) = slab_clip((o, d), (lo, hi), max_t)?;

        let (x_min, x_max) = (i64::from(bounds.x), i64::from(bounds.x + bounds.width) - 1);
        let (y_min, y_max) = (i64::from(bounds.y), i64::from(bounds.y + bounds.height) - 1);
        // The cell a coordinate is in when moving the given way: a ray exactly on a pixel
        // boundary belongs to the pixel it is about to cross into.
        let cell = |v: f64, towards: f64| {
            if towards < 0.0 {
                v.ceil() as i64 - 1
            } else {
                v.floor() as i64
            }
        };
        let mut y = cell(o.y + d.y * t0, d.y).clamp(y_min, y_max);
        let mut t_row = t0;
        let mut first_row = true;
        loop {
            let row_exit = if d.y > 0.0 {
                (y as f64 + 1.0 - o.y) / d.y
            } else if d.y < 0.0 {
                (y as f64 - o.y) / d.y
            } else {
                f64::INFINITY
            };
            let t_end = row_exit.min(t1);
            let (xa, xb) = (o.x + d.x * t_row, o.x + d.x * t_end);
            let first = cell(xa, d.x).clamp(x_min, x_max);
            // The last column the ray is strictly inside before it leaves the row.
            let last = if d.x > 0.0 {
                xb.ceil() as i64 - 1
            } else if d.x < 0.0 {
                xb.floor() as i64
            } else {
                first
            }
            .clamp(x_min, x_max);
            let row = self.row(y as u32);
            let found = if d.x < 0.0 {
                last_set_at_or_below(row, last.min(first) as usize, first as usize)
            } else {
                first_set_at_or_above(row, first as usize, last.max(first) as usize)
            };
            if let Some(x) = found {
                let (t, normal) = entry_into([x, y as usize], (o, d), t_row, first_row, entry);
                return Some(MaskRayHit {
                    pixel: [x as u32, y as u32],
                    t: t as f32,
                    normal,
                });
            }
            if row_exit >= t1 || d.y == 0.0 {
                return None;
            }
            y += if d.y > 0.0 { 1 } else { -1 };
            if !(y_min..=y_max).contains(&y) {
                return None;
            }
            t_row = row_exit;
            first_row = false;
        }
    }
}

/// The ray `o + d t` for `t` in `0..=max_t` clipped to the box `lo..hi` by slabs: the
/// parameters where it enters and leaves, and which side let it in; `None` when it
/// misses the box.
fn slab_clip(
    (o, d): (DVec2, DVec2),
    (lo, hi): (DVec2, DVec2),
    max_t: f32,
) -> Option<(f64, f64, Entry)> {
    let (mut t0, mut t1) = (0.0f64, f64::from(max_t));
    let mut entry = Entry::Inside;
    // Pixels are half-open: moving right or down, a coordinate is out of the box on its
    // far side already (moving left or up, it is in up to its near side), so a ray from
    // there is never inside it.
    let mut open_end = f64::INFINITY;
    for (axis, side) in [(0, Entry::Column), (1, Entry::Row)] {
        if d[axis] == 0.0 {
            if o[axis] < lo[axis] || o[axis] >= hi[axis] {
                return None;
            }
            continue;
        }
        let (a, b) = (
            (lo[axis] - o[axis]) / d[axis],
            (hi[axis] - o[axis]) / d[axis],
        );
        let (near, far) = (a.min(b), a.max(b));
        if near > t0 {
            t0 = near;
            entry = side;
        }
        t1 = t1.min(far);
        if d[axis] > 0.0 {
            open_end = open_end.min(far);
        }
    }
    // `t0 > t1` rather than `t0 <= t1`: a NaN bound (none arises from finite inputs)
    // keeps the ray, as the test inline in `ray_cast` did.
    if t0 >= open_end || t0 > t1 {
        None
    } else {
        Some((t0, t1, entry))
    }
}

/// The ray parameter at which the ray `o + d t`, in its row since `t_row`, enters the set
/// pixel found in column `x`, and the outward normal of the side it enters through: the
/// column's side when it crosses into the column after the row's, else the row's side,
/// or on the first row the clip box's side the ray came in through (none from inside).
fn entry_into(
    [x, y]: [usize; 2],
    (o, d): (DVec2, DVec2),
    t_row: f64,
    first_row: bool,
    entry: Entry,
) -> (f64, Vec2) {
    let t_column = if d.x > 0.0 {
        (x as f64 - o.x) / d.x
    } else if d.x < 0.0 {
        (x as f64 + 1.0 - o.x) / d.x
    } else {
        f64::NEG_INFINITY
    };
    if t_column > t_row {
        (t_column, Vec2::new(-d.x.signum() as f32, 0.0))
    } else if first_row && entry == Entry::Inside {
        // Pixels are half-open: an origin on a pixel's right or bottom side is outside it,
        // and enters it through that side when moving left or up.
        let normal = if d.x < 0.0 && o.x >= x as f64 + 1.0 {
            Vec2::X
        } else if d.y < 0.0 && o.y >= y as f64 + 1.0 {
            Vec2::Y
        } else {
            Vec2::ZERO
        };
        (t_row, normal)
    } else if first_row && entry == Entry::Column {
        (t_row, Vec2::new(-d.x.signum() as f32, 0.0))
    } else {
        (t_row, Vec2::new(0.0, -d.y.signum() as f32))
    }
}

/// The lowest set bit position in `lo..=hi` of a row's words.
fn first_set_at_or_above(row: Row<'_>, lo: usize, hi: usize) -> Option<usize> {
    let (first_word, last_word) = (lo / 64, hi / 64);
    for (k, word) in row.iter().enumerate().take(last_word + 1).skip(first_word) {
        let mut bits = word;
        if k == first_word {
            bits &= u64::MAX << (lo % 64);
        }
        if k == last_word {
            bits &= u64::MAX >> (63 - hi % 64);
        }
        if bits != 0 {
            return Some(k * 64 + bits.trailing_zeros() as usize);
        }
    }
    None
}

/// The highest set bit position in `lo..=hi` of a row's words.
fn last_set_at_or_below(row: Row<'_>, lo: usize, hi: usize) -> Option<usize> {
    let (first_word, last_word) = (lo / 64, hi / 64);
    for k in (first_word..=last_word).rev() {
        let mut bits = row[k];
        if k == first_word {
            bits &= u64::MAX << (lo % 64);
        }
        if k == last_word {
            bits &= u64::MAX >> (63 - hi % 64);
        }
        if bits != 0 {
            return Some(k * 64 + 63 - bits.leading_zeros() as usize);
        }
    }
    None
}
