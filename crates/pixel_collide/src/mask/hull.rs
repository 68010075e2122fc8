//! The convex hull of a mask's set pixels: the tightest convex outline a physics engine's
//! broad phase can box, however the mask is turned; and the hull builder over integer
//! points it uses, which the pair module's support tables share, so that the two hulls
//! cannot drift apart.

use super::BitMask;

impl BitMask {
    /// The corners of the convex hull of the set pixels, each pixel the unit square
    /// `[x, x + 1) × [y, y + 1)`, in order around it (clockwise on screen, with y down)
    /// and without collinear corners; empty for an empty mask.
    ///
    /// Why: a sprite's rectangle, turned, has a box up to √2 times as wide as the sprite; a
    /// round sprite's hull, turned, has a box as tight as the sprite's own. Built from the
    /// rows' ends (four corners a row), so it takes time in the mask's height, not its
    /// area.
    ///
    /// ```
    /// use pixel_collide::BitMask;
    ///
    /// let mut mask = BitMask::new(8, 8);
    /// mask.set(2, 1, true);
    /// mask.set(5, 6, true);
    /// // Two pixels: the hull of their two squares is a hexagon.
    /// assert_eq!(mask.convex_hull(), [[2, 1], [3, 1], [6, 6], [6, 7], [5, 7], [2, 2]]);
    /// ```
    pub fn convex_hull(&self) -> Vec<[u32; 2]> {
        let mut corners: Vec<(i64, i64)> = Vec::new();
        for (y, &(first, end)) in (0i64..).zip(self.exact_spans().iter()) {
            if first < end {
                let (left, right) = (i64::from(first), i64::from(end));
                corners.extend([(left, y), (left, y + 1), (right, y), (right, y + 1)]);
            }
        }
        convex_hull_of_points(corners)
            .into_iter()
            .map(|(x, y)| [x as u32, y as u32])
            .collect()
    }
}

/// The corners of the convex hull of integer points (Andrew's monotone chain: sorted by
/// x then y, a lower and an upper chain), without collinear ones, in order around it
/// (counter-clockwise in x-right, y-up axes, so clockwise on a y-down screen); fewer than
/// three distinct points come back sorted. The one hull builder of the crate: a mask's
/// hull and [`crate::pair::SpriteInfo`]'s support tables both go through it.
pub(crate) fn convex_hull_of_points(mut points: Vec<(i64, i64)>) -> Vec<(i64, i64)> {
    points.sort_unstable();
    points.dedup();
    if points.len() < 3 {
        return points;
    }
    // Positive when o → a → b turns counter-clockwise in (x, y) axes.
    let turn = |o: (i64, i64), a: (i64, i64), b: (i64, i64)| {
        (a.0 - o.0) * (b.1 - o.1) - (a.1 - o.1) * (b.0 - o.0)
    };
    let mut hull: Vec<(i64, i64)> = Vec::with_capacity(points.len() + 1);
    let chain = |hull: &mut Vec<(i64, i64)>, ordered: &mut dyn Iterator<Item = (i64, i64)>| {
        let start = hull.len();
        for p in ordered {
            while hull.len() >= start + 2
                && turn(hull[hull.len() - 2], hull[hull.len() - 1], p) <= 0
            {
                hull.pop();
            }
            hull.push(p);
        }
        // Each chain's last corner is the next one's first.
        hull.pop();
    };
    chain(&mut hull, &mut points.iter().copied());
    chain(&mut hull, &mut points.iter().rev().copied());
    hull
}

#[cfg(test)]
mod tests {
    use super::*;
    use pixel_collide_seeded::rng::SplitMix64;

    /// Every set pixel's four corners lie inside or on the hull, every hull corner is a
    /// corner of a set pixel, and the hull turns one way only.
    #[test]
    fn the_hull_holds_every_pixel_and_is_convex() {
        let mut rng = SplitMix64(5);
        for _ in 0..300 {
            let (w, h) = (rng.range(1.0, 50.0) as u32, rng.range(1.0, 50.0) as u32);
            let mut mask = BitMask::new(w, h);
            let density = rng.range(0.0, 0.3);
            for y in 0..h {
                for x in 0..w {
                    mask.set(x.into(), y.into(), rng.chance(density));
                }
            }
            let hull = mask.convex_hull();
            if mask.count() == 0 {
                assert!(hull.is_empty());
                continue;
            }
            let corner = |k: usize| {
                let [x, y] = hull[k % hull.len()];
                (i64::from(x), i64::from(y))
            };
            let cross = |o: (i64, i64), a: (i64, i64), b: (i64, i64)| {
                (a.0 - o.0) * (b.1 - o.1) - (a.1 - o.1) * (b.0 - o.0)
            };
            if hull.len() >= 3 {
                for k in 0..hull.len() {
                    assert!(
                        cross(corner(k), corner(k + 1), corner(k + 2)) > 0,
                        "{hull:?}"
                    );
                }
            }
            for y in 0..h {
                for x in 0..w {
                    if !mask.get(x.into(), y.into()) {
                        continue;
                    }
                    for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                        let p = (i64::from(x + dx), i64::from(y + dy));
                        let inside =
                            (0..hull.len()).all(|k| cross(corner(k), corner(k + 1), p) >= 0);
                        assert!(hull.len() < 3 || inside, "{p:?} outside {hull:?}");
                    }
                }
            }
            for &[x, y] in &hull {
                let touches = [(0, 0), (1, 0), (0, 1), (1, 1)].iter().any(|&(dx, dy)| {
                    x >= dx && y >= dy && mask.get(i64::from(x - dx), i64::from(y - dy))
                });
                assert!(touches, "corner {x},{y} of no set pixel");
            }
        }
    }
}
