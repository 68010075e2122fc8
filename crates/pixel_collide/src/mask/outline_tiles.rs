//! The outline grouped by tiles, so that a gap search can pass over a whole tile with one
//! lookup in the other mask's distance field.

use bevy_math::Vec2;

use super::*;

/// The side of a tile, in pixels: a tile of a 64-px sprite's outline holds about 8 pixels,
/// and its reach into the field (its half-diagonal, 5 px) is small beside the distances
/// at which most of a landing body's outline lies from the body it is asked about.
const TILE: u32 = 8;

/// [`BitMask::outline`] in tiles of [`TILE`]² pixels: each tile's pixels together, row by
/// row within it, and where each tile ends.
#[derive(Debug, Clone)]
pub(crate) struct OutlineTiles {
    pub(crate) points: Vec<(u32, u32)>,
    pub(crate) tiles: Vec<OutlineTile>,
}

/// One tile of an [`OutlineTiles`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct OutlineTile {
    /// Where its pixels end in [`OutlineTiles::points`]; they start where the previous
    /// tile's end.
    pub(crate) end: u32,
    /// The middle of its pixels' centers' box, in the mask's space.
    pub(crate) center: Vec2,
    /// How far from `center` its farthest pixel center lies (px): half its box's diagonal.
    pub(crate) half_diagonal: f32,
}

impl BitMask {
    /// [`OutlineTiles`], built on first use by the gap queries and dropped by any edit;
    /// `None` where the outline would take more bytes than the mask has pixels (and 4
    /// KiB), as [`BitMask::cached_outline`] keeps it.
    pub(crate) fn outline_tiles(&self) -> Option<&OutlineTiles> {
        self.outline_tiles
            .get_or_init(|| {
                let outline = self.cached_outline();
                let bytes = outline.len() as u64 * std::mem::size_of::<(u32, u32)>() as u64;
                let pixels = u64::from(self.width) * u64::from(self.height);
                if bytes > pixels.max(ALWAYS_KEPT_OUTLINE_BYTES) {
                    return None;
                }
                Some(Box::new(OutlineTiles::new(&outline)))
            })
            .as_deref()
    }
}

impl OutlineTiles {
    fn new(outline: &[(u32, u32)]) -> Self {
        let mut points = outline.to_vec();
        // Stable: row by row within each tile, as in the outline.
        points.sort_by_key(|&(x, y)| (y / TILE, x / TILE));
        let mut tiles = Vec::new();
        for group in points.chunk_by(|p, q| (p.0 / TILE, p.1 / TILE) == (q.0 / TILE, q.1 / TILE)) {
            let (mut lo, mut hi) = (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY));
            for &(x, y) in group {
                let center = Vec2::new(x as f32 + 0.5, y as f32 + 0.5);
                lo = lo.min(center);
                hi = hi.max(center);
            }
            let end = tiles.last().map_or(0, |tile: &OutlineTile| tile.end) + group.len() as u32;
            tiles.push(OutlineTile {
                end,
                center: (lo + hi) * 0.5,
                half_diagonal: (hi - lo).length() * 0.5,
            });
        }
        OutlineTiles { points, tiles }
    }

    /// Each tile with its pixels.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&OutlineTile, &[(u32, u32)])> {
        let starts = std::iter::once(0).chain(self.tiles.iter().map(|tile| tile.end));
        self.tiles
            .iter()
            .zip(starts)
            .map(|(tile, start)| (tile, &self.points[start as usize..tile.end as usize]))
    }
}
