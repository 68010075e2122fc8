//! The manifold's points: the overlap's two ends along the contact's tangent, and, where
//! the overlap falls into parts, each part's own points, normal and depth (see
//! [`transformed_manifold`] for why). Apart from the contact because a solver asks for it
//! separately, and it works on the overlapping samples listed, not on the walk.

use bevy_math::Vec2;

use super::mapping::Mapping;
#[cfg(doc)]
use super::transformed_manifold;
use super::{Contact, ManifoldPoint, PART_GAP};

impl<'m> Mapping<'m> {
    /// The overlap's two ends along the contact's tangent (see [`transformed_manifold`]),
    /// from its overlapping samples; `None` when it is shorter than two pixels along the
    /// tangent.
    pub(super) fn overlap_ends(
        &self,
        contact: &Contact,
        overlapping: &[(u32, u32)],
        touching: f32,
    ) -> Option<[ManifoldPoint; 2]> {
        // Relative to the contact's point: world coordinates far from the origin would
        // leave the projections few digits.
        let offsets = overlapping.iter().map(|&(i, j)| {
            let center = Vec2::new(i as f32 + 0.5, j as f32 + 0.5);
            self.a_to_world.transform_point2(center) - contact.point
        });
        let (ends, thickness) = ends_along(offsets, contact.normal, self.pixel())?;
        // Each end as deep as A still touched B in the share of the thicker end's
        // thickness along the normal it has: a plank lying flat is as deep at both, a
        // tilted one deeper at its lower end.
        let thickest = thickness[0].max(thickness[1]);
        let mut share = thickness.map(|t| t / thickest).into_iter();
        Some(ends.map(|end| ManifoldPoint {
            point: contact.point + end.sum / end.count as f32,
            depth: touching * share.next().unwrap_or(1.0),
            normal: contact.normal,
            part: 0,
        }))
    }

    /// When the overlap falls into parts more than [`PART_GAP`] apart, each part's points
    /// with its own normal and depth (see [`transformed_manifold`] for why); `false`, and
    /// `points` untouched, for an overlap in one part.
    pub(super) fn overlap_parts(
        &self,
        contact: &Contact,
        overlapping: &[(u32, u32)],
        points: &mut Vec<ManifoldPoint>,
    ) -> bool {
        // Union-find over samples within PART_GAP of each other.
        let mut parent: Vec<usize> = (0..overlapping.len()).collect();
        fn root(parent: &mut [usize], mut k: usize) -> usize {
            while parent[k] != k {
                parent[k] = parent[parent[k]];
                k = parent[k];
            }
            k
        }
        for k in 0..overlapping.len() {
            for m in k + 1..overlapping.len() {
                let (p, q) = (overlapping[k], overlapping[m]);
                // In row order: past PART_GAP rows down, no later sample is near.
                if q.1 > p.1 + PART_GAP {
                    break;
                }
                if p.0.abs_diff(q.0) <= PART_GAP {
                    let (rk, rm) = (root(&mut parent, k), root(&mut parent, m));
                    parent[rk] = rm;
                }
            }
        }
        let roots: Vec<usize> = (0..overlapping.len())
            .map(|k| root(&mut parent, k))
            .collect();
        let mut labels: Vec<usize> = roots.clone();
        labels.sort_unstable();
        labels.dedup();
        if labels.len() < 2 {
            return false;
        }
        let pixel = self.pixel();
        let mut parts = Vec::new();
        for (part, &label) in (0u32..).zip(&labels) {
            let members: Vec<(u32, u32)> = overlapping
                .iter()
                .zip(&roots)
                .filter(|&(_, &r)| r == label)
                .map(|(&s, _)| s)
                .collect();
            let Some(part_points) = self.part_points(contact, &members, pixel, part) else {
                return false;
            };
            parts.extend(part_points);
        }
        points.extend(parts);
        true
    }

    /// One part's points: its normal from the count's gradient over the part's
    /// neighbourhood (A's set samples within [`PART_GAP`] of it), its depth the last
    /// distance along that normal at which a sample of the neighbourhood still lands on B,
    /// and its ends as [`Mapping::overlap_ends`] finds them. `None` for an empty part.
    fn part_points(
        &self,
        contact: &Contact,
        members: &[(u32, u32)],
        pixel: f32,
        part: u32,
    ) -> Option<Vec<ManifoldPoint>> {
        let lo_i = members.iter().map(|m| m.0).min()?.saturating_sub(PART_GAP);
        let hi_i = (members.iter().map(|m| m.0).max()? + PART_GAP).min(self.a.width() - 1);
        let lo_j = members.iter().map(|m| m.1).min()?.saturating_sub(PART_GAP);
        let hi_j = (members.iter().map(|m| m.1).max()? + PART_GAP).min(self.a.height() - 1);
        let near: Vec<Vec2> = self
            .set_pixels_in([lo_i, hi_i, lo_j, hi_j])
            .map(|(i, j)| self.sample(i, j))
            .collect();
        let per_b_pixel = self.count_change(&near);
        let b_to_world = self.world_to_b.inverse();
        let gradient = b_to_world.matrix2.inverse().transpose() * per_b_pixel;
        let normal = (-gradient).try_normalize().unwrap_or(contact.normal);
        // The part's depth: the neighbourhood's samples moved alone.
        let limit = pixel * (PART_GAP as f32 * 2.0 + (hi_i - lo_i + hi_j - lo_j) as f32 + 2.0);
        let (lo, _) = self.samples_depth(&near, normal, pixel, limit);
        let touching = lo;
        let center = |(i, j): (u32, u32)| {
            self.a_to_world
                .transform_point2(Vec2::new(i as f32 + 0.5, j as f32 + 0.5))
        };
        let mean = members.iter().map(|&m| center(m)).sum::<Vec2>() / members.len() as f32;
        let offsets = members.iter().map(|&m| center(m) - mean);
        let Some((ends, thickness)) = ends_along(offsets, normal, pixel) else {
            return Some(vec![ManifoldPoint {
                point: mean,
                depth: touching,
                normal,
                part,
            }]);
        };
        let thickest = thickness[0].max(thickness[1]);
        Some(
            ends.iter()
                .zip(thickness)
                .map(|(end, t)| ManifoldPoint {
                    point: mean + end.sum / end.count as f32,
                    depth: touching * t / thickest,
                    normal,
                    part,
                })
                .collect(),
        )
    }
}

/// The samples within two pixels of each end of an overlap along `normal`'s tangent, from
/// their world offsets, and each end's thickness along the normal (plus a pixel); `None`
/// when the overlap is shorter than two pixels along the tangent.
fn ends_along(
    offsets: impl Iterator<Item = Vec2> + Clone,
    normal: Vec2,
    pixel: f32,
) -> Option<([End; 2], [f32; 2])> {
    let tangent = normal.perp();
    let (low, high) = offsets
        .clone()
        .map(|offset| offset.dot(tangent))
        .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), u| {
            (lo.min(u), hi.max(u))
        });
    let length = high - low;
    if !(length.is_finite() && pixel.is_finite()) || length < 2.0 * pixel {
        return None;
    }
    let band = 2.0 * pixel;
    let mut ends = [End::default(); 2];
    for offset in offsets {
        let u = offset.dot(tangent);
        if u <= low + band {
            ends[0].add(offset, offset.dot(normal));
        }
        if u >= high - band {
            ends[1].add(offset, offset.dot(normal));
        }
    }
    let thickness = ends.map(|end| end.normal_range.1 - end.normal_range.0 + pixel);
    Some((ends, thickness))
}

/// The overlapping samples near one end of the overlap, for [`ends_along`]:
/// how many, their offsets' sum, and the range of their offsets along the normal.
#[derive(Clone, Copy)]
struct End {
    count: u32,
    sum: Vec2,
    normal_range: (f32, f32),
}

impl Default for End {
    fn default() -> Self {
        End {
            count: 0,
            sum: Vec2::ZERO,
            normal_range: (f32::INFINITY, f32::NEG_INFINITY),
        }
    }
}

impl End {
    fn add(&mut self, offset: Vec2, along_normal: f32) {
        self.count += 1;
        self.sum += offset;
        self.normal_range = (
            self.normal_range.0.min(along_normal),
            self.normal_range.1.max(along_normal),
        );
    }
}
