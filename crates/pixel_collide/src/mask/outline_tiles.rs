//! The outline grouped by tiles, so that a gap search can pass over a whole tile with one
//! lookup in the other mask's distance field.

use bevy_math::Vec2;

use super::*;

/// The side of a tile, in pixels: a tile of a 64-px sprite's outline holds about 8 pixels,
/// and its reach into the field (its half-diagonal, 5 px) is small beside the distances
/// at which most of a landing body's outline lies from the body it is asked about.
const TILE: u32 = 8;

/// [`BitMask::cached_outline`] in tiles of [`TILE`]² pixels: each tile's pixels together
/// (their places in the outline, in its order), and where each tile ends. Two bytes a
/// pixel where a copy of the points took eight: every collided mask keeps one.
#[derive(Debug, Clone)]
pub(crate) struct OutlineTiles {
    order: Vec<u16>,
    tiles: Vec<OutlineTile>,
}

/// One tile of an [`OutlineTiles`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct OutlineTile {
    /// Where its pixels end in [`OutlineTiles::order`]; they start where the previous
    /// tile's end.
    end: u32,
    /// The middle of its pixels' centers' box, in the mask's space.
    pub(crate) center: Vec2,
    /// How far from `center` its farthest pixel center lies (px): half its box's diagonal.
    pub(crate) half_diagonal: f32,
}

impl BitMask {
    /// [`OutlineTiles`] of the kept outline, and that outline, built on first use by the
    /// gap queries and dropped by any edit; `None` where no outline is kept (not yet
    /// asked for by [`BitMask::cached_outline`], or too large to keep, when making it
    /// here would be a second scan of the mask) or it has more pixels than two bytes can
    /// number.
    pub(crate) fn outline_tiles(&self) -> Option<(&OutlineTiles, &[(u32, u32)])> {
        let outline = self.outline.get()?.as_deref()?;
        let tiles = self
            .outline_tiles
            .get_or_init(|| {
                u16::try_from(outline.len())
                    .ok()
                    .map(|_| Box::new(OutlineTiles::new(outline)))
            })
            .as_deref()?;
        Some((tiles, outline))
    }
}

impl OutlineTiles {
    /// Of an outline of at most `u16::MAX` pixels.
    fn new(outline: &[(u32, u32)]) -> Self {
        let tile_of = |place: &u16| {
            let (x, y) = outline[usize::from(*place)];
            (y / TILE, x / TILE)
        };
        let mut order: Vec<u16> = (0..outline.len()).map(|place| place as u16).collect();
        // Stable: in the outline's order within each tile.
        order.sort_by_key(tile_of);
        let mut tiles = Vec::new();
        for group in order.chunk_by(|p, q| tile_of(p) == tile_of(q)) {
            let (mut lo, mut hi) = (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY));
            for &place in group {
                let (x, y) = outline[usize::from(place)];
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
        OutlineTiles { order, tiles }
    }

    /// Each tile with its pixels' places in the outline.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&OutlineTile, &[u16])> {
        let starts = std::iter::once(0).chain(self.tiles.iter().map(|tile| tile.end));
        self.tiles
            .iter()
            .zip(starts)
            .map(|(tile, start)| (tile, &self.order[start as usize..tile.end as usize]))
    }
}
