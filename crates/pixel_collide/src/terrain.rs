//! Destructible terrain: a terrain mask edited in place. Craters are carved with [`BitMask::erase_circle`]; the pieces a crater
//! cuts off from the ground (components that no longer reach the mask's bottom row) leave
//! the terrain and fall straight down, pixel by pixel, until one more pixel would overlap
//! the terrain or leave its bottom, where they merge back in ([`BitMask::draw`]). Solid
//! pixels are conserved: only craters remove any ([`TerrainWorld::removed_by_craters`]).
//!
//! Engine-agnostic like the rest of the core: a game keeps the texture in step from what
//! [`TerrainWorld::carve`] and [`TerrainWorld::step`] report.

use std::sync::Arc;

use bevy_math::{Affine2, Vec2};

use super::mask::{BitMask, Connectivity, MaskRect};
use super::pieces::{PieceAnchor, cut_loose, settle_into};
pub use super::pieces::{SETTLE_DROP, SETTLE_REACH, Settled};

/// Falling pieces' gravity, px/s², downward.
pub const PIECE_GRAVITY: f32 = 900.0;

/// A piece a crater cut loose, falling.
#[derive(Debug, Clone, PartialEq)]
pub struct Piece {
    /// Stable for the piece's life, so a game can keep its sprite.
    pub id: u64,
    /// Its pixels.
    pub mask: BitMask,
    /// Where its top-left pixel is in the terrain's mask.
    pub offset: (i32, i32),
    /// Downward speed, px/s, and the part of a pixel fallen but not yet taken.
    pub velocity: f32,
    fraction: f32,
}

impl Piece {
    /// Its center in terrain mask coordinates (x right, y down).
    pub fn center(&self) -> Vec2 {
        Vec2::new(
            self.offset.0 as f32 + self.mask.width() as f32 / 2.0,
            self.offset.1 as f32 + self.mask.height() as f32 / 2.0,
        )
    }
}

/// What a carve did: the rectangle of the terrain's mask it may have cleared pixels in,
/// and the pieces it cut loose (already out of the terrain's mask, now in
/// [`TerrainWorld::pieces`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Carve {
    /// The rectangle of the terrain's mask it may have cleared pixels in.
    pub cleared: MaskRect,
    /// Solid pixels it removed.
    pub removed: u64,
    /// The ids of the pieces it cut loose.
    pub new_pieces: Vec<u64>,
}

/// The terrain, placed centered on the world's origin (y up), and the pieces falling.
#[derive(Debug, Clone)]
pub struct TerrainWorld {
    terrain: Arc<BitMask>,
    /// The pieces falling.
    pub pieces: Vec<Piece>,
    /// Solid pixels craters removed since [`TerrainWorld::new`].
    pub removed_by_craters: u64,
    /// Pixels [`TerrainWorld::settle`] found no room for since [`TerrainWorld::new`].
    pub lost_in_settling: u64,
    next_id: u64,
}

impl TerrainWorld {
    /// A world of `terrain`, centered on the origin, y up.
    pub fn new(terrain: Arc<BitMask>) -> Self {
        TerrainWorld {
            terrain,
            pieces: Vec::new(),
            removed_by_craters: 0,
            lost_in_settling: 0,
            next_id: 0,
        }
    }

    /// The terrain's pixels as they are now.
    pub fn terrain(&self) -> &BitMask {
        &self.terrain
    }

    /// The terrain's mask, to share with a collider; the next edit copies it if shared.
    pub fn terrain_shared(&self) -> &Arc<BitMask> {
        &self.terrain
    }

    /// Solid pixels in the terrain and in the falling pieces.
    pub fn solid_pixels(&self) -> u64 {
        self.terrain().count() + self.pieces.iter().map(|p| p.mask.count()).sum::<u64>()
    }

    /// World px to the terrain mask's continuous coordinates (x right, y down).
    pub fn to_mask(&self, world: Vec2) -> Vec2 {
        let t = self.terrain();
        Vec2::new(
            world.x + t.width() as f32 / 2.0,
            t.height() as f32 / 2.0 - world.y,
        )
    }

    /// Terrain mask coordinates to world px.
    pub fn to_world(&self, mask: Vec2) -> Vec2 {
        let t = self.terrain();
        Vec2::new(
            mask.x - t.width() as f32 / 2.0,
            t.height() as f32 / 2.0 - mask.y,
        )
    }

    /// The world height of the top of the first solid pixel at or below world height
    /// `from_y` in the column under world `x`; `None` over a bottomless column.
    pub fn ground_below(&self, x: f32, from_y: f32) -> Option<f32> {
        let at = self.to_mask(Vec2::new(x, from_y));
        if !at.is_finite() {
            return None;
        }
        let terrain = self.terrain();
        let column = at.x.floor() as i64;
        let start = at.y.floor().max(0.0) as i64;
        (start..i64::from(terrain.height()))
            .find(|&y| terrain.get(column, y))
            .map(|y| self.to_world(Vec2::new(0.0, y as f32)).y)
    }

    /// When a pixel of the column under world `x` between world heights `feet` and
    /// `feet + height` is solid (something that tall standing there is buried), the world
    /// height of the top of the solid run that holds the highest of them: where it stands
    /// once it climbs out (again buried if that run is under an overhang lower than its
    /// height, and climbing again). `None` when those pixels are clear (or outside the
    /// terrain, or the numbers are not finite).
    pub fn surface_above(&self, x: f32, feet: f32, height: f32) -> Option<f32> {
        let low = self.to_mask(Vec2::new(x, feet + 0.5));
        let high = self.to_mask(Vec2::new(x, feet + height - 0.5));
        if !low.is_finite() || !high.is_finite() || height < 1.0 {
            return None;
        }
        let terrain = self.terrain();
        let column = low.x.floor() as i64;
        // Rows from the head down to the feet, clipped to the mask.
        let (head, foot) = (high.y.floor().max(0.0) as i64, low.y.floor() as i64);
        let foot = foot.min(i64::from(terrain.height()) - 1);
        let highest = (head..=foot).find(|&y| terrain.get(column, y))?;
        let top = (0..highest)
            .rev()
            .find(|&y| !terrain.get(column, y))
            .map_or(0, |y| y + 1);
        Some(self.to_world(Vec2::new(0.0, top as f32)).y)
    }

    /// Carves a crater of `radius` px around world point `at`, and cuts loose what it
    /// separated from the ground. A non-finite point or radius carves nothing.
    pub fn carve(&mut self, at: Vec2, radius: f32) -> Carve {
        let center = self.to_mask(at);
        let nothing = Carve {
            cleared: MaskRect {
                x: 0,
                y: 0,
                width: 0,
                height: 0,
            },
            removed: 0,
            new_pieces: Vec::new(),
        };
        if !center.is_finite() || !radius.is_finite() || radius <= 0.0 {
            return nothing;
        }
        let terrain = Arc::make_mut(&mut self.terrain);
        let before = terrain.count();
        terrain.erase_circle(f64::from(center.x), f64::from(center.y), f64::from(radius));
        let removed = before - terrain.count();
        self.removed_by_craters += removed;
        let (w, h) = terrain.size();
        // A pixel beyond the circle on every side: what its neighbours were connected
        // through.
        let lo = (center - radius - 2.0).max(Vec2::ZERO);
        let hi = (center + radius + 2.0).min(Vec2::new(w as f32, h as f32));
        if lo.x >= hi.x || lo.y >= hi.y {
            return Carve { removed, ..nothing };
        }
        let cleared = MaskRect {
            x: lo.x as u32,
            y: lo.y as u32,
            width: (hi.x.ceil() as u32).min(w) - lo.x as u32,
            height: (hi.y.ceil() as u32).min(h) - lo.y as u32,
        };
        let mut new_pieces = Vec::new();
        for (mask, offset) in cut_loose(
            terrain,
            cleared,
            Connectivity::Eight,
            &PieceAnchor::BottomRow,
        ) {
            let id = self.next_id;
            self.next_id += 1;
            new_pieces.push(id);
            self.pieces.push(Piece {
                id,
                mask,
                offset,
                velocity: 0.0,
                fraction: 0.0,
            });
        }
        Carve {
            cleared,
            removed,
            new_pieces,
        }
    }

    /// Merges a body that came to rest back into the terrain: `mask`, placed in the world
    /// by `to_world` (mask pixels to world px, as [`crate::sprite_to_world`] makes it,
    /// turned by any angle), is laid into the terrain's mask pixel for pixel, as
    /// [`settle_into`] does. Pixels that found no room are counted in
    /// [`TerrainWorld::lost_in_settling`].
    pub fn settle(&mut self, mask: &BitMask, to_world: Affine2) -> Settled {
        let world_to_mask = self.world_to_mask();
        let settled = settle_into(
            Arc::make_mut(&mut self.terrain),
            mask,
            to_world,
            world_to_mask,
        );
        self.lost_in_settling += settled.lost;
        settled
    }

    /// World px to the terrain mask's coordinates, as an affine map ([`TerrainWorld::to_mask`]).
    pub fn world_to_mask(&self) -> Affine2 {
        let t = self.terrain();
        Affine2::from_cols(
            Vec2::X,
            Vec2::NEG_Y,
            Vec2::new(t.width() as f32 / 2.0, t.height() as f32 / 2.0),
        )
    }

    /// One fixed step of `dt` seconds for the pieces, lowest first. A piece
    /// stops where one more pixel would overlap the terrain, another piece or leave the
    /// terrain's bottom; then it merges into the terrain at once, so a piece above it
    /// lands on it. Returns the pieces that landed this step, at their final offset.
    pub fn step(&mut self, dt: f32) -> Vec<Piece> {
        if !(dt.is_finite() && dt > 0.0) || self.pieces.is_empty() {
            return Vec::new();
        }
        self.pieces
            .sort_by_key(|p| std::cmp::Reverse(i64::from(p.offset.1) + i64::from(p.mask.height())));
        let terrain = Arc::make_mut(&mut self.terrain);
        let bottom = i64::from(terrain.height());
        let mut landed = Vec::new();
        for k in 0..self.pieces.len() {
            let (before, rest) = self.pieces.split_at_mut(k);
            let Some((piece, after)) = rest.split_first_mut() else {
                break;
            };
            piece.velocity += PIECE_GRAVITY * dt;
            piece.fraction += piece.velocity * dt;
            while piece.fraction >= 1.0 {
                let next = (piece.offset.0, piece.offset.1 + 1);
                let blocked_by_piece = before.iter().chain(after.iter()).any(|other| {
                    !landed.contains(&other.id)
                        && other
                            .mask
                            .overlap(
                                &piece.mask,
                                (next.0 - other.offset.0, next.1 - other.offset.1),
                            )
                            .is_some()
                });
                if blocked_by_piece {
                    // Resting on a piece that is still falling: it goes on next step.
                    piece.fraction = 0.0;
                    piece.velocity = 0.0;
                    break;
                }
                if i64::from(next.1) + i64::from(piece.mask.height()) > bottom
                    || terrain.overlap(&piece.mask, next).is_some()
                {
                    terrain.draw(&piece.mask, piece.offset);
                    landed.push(piece.id);
                    break;
                }
                piece.offset = next;
                piece.fraction -= 1.0;
            }
        }
        if landed.is_empty() {
            return Vec::new();
        }
        let (down, falling): (Vec<Piece>, Vec<Piece>) = std::mem::take(&mut self.pieces)
            .into_iter()
            .partition(|p| landed.contains(&p.id));
        self.pieces = falling;
        down
    }
}
