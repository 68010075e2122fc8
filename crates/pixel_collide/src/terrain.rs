//! Destructible terrain: a terrain mask edited in place. Craters are carved with [`BitMask::erase_circle`]; the pieces a crater
//! cuts off from the ground (components that no longer reach the mask's bottom row) leave
//! the terrain and fall straight down, pixel by pixel, until one more pixel would overlap
//! the terrain or leave its bottom, where they merge back in ([`BitMask::draw`]). Solid
//! pixels are conserved: only craters remove any ([`TerrainWorld::removed_by_craters`]).
//!
//! Engine-agnostic like the rest of the core: a game keeps the texture in step from what
//! [`TerrainWorld::carve`] and [`TerrainWorld::step`] report.

use std::collections::HashMap;
use std::sync::Arc;

use bevy_math::{Affine2, Vec2};

use super::mask::{BitMask, Connectivity, MaskRect};

/// Falling pieces' gravity, px/s², downward.
pub const PIECE_GRAVITY: f32 = 900.0;

/// How far, in pixels, [`TerrainWorld::settle`] looks for a free pixel for one whose own
/// is taken.
pub const SETTLE_REACH: u32 = 24;

/// How far, in pixels, [`TerrainWorld::settle`] lowers a body that floats just above the
/// ground.
pub const SETTLE_DROP: i64 = 3;

/// Where [`TerrainWorld::settle`] put a body's pixels.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Settled {
    /// Each set pixel of the body's mask and the terrain pixel it became.
    pub moved: Vec<((u32, u32), (u32, u32))>,
    /// Set pixels that found no room (see [`SETTLE_REACH`]).
    pub lost: u64,
}

/// A piece a crater cut loose, falling.
#[derive(Debug, Clone, PartialEq)]
pub struct Piece {
    /// Stable for the piece's life, so a game can keep its sprite.
    pub id: u64,
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
    pub cleared: MaskRect,
    pub removed: u64,
    pub new_pieces: Vec<u64>,
}

/// The terrain, placed centered on the world's origin (y up), and the pieces falling.
#[derive(Debug, Clone)]
pub struct TerrainWorld {
    terrain: Arc<BitMask>,
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
        for (mask, offset) in terrain.connected_components_in(cleared, Connectivity::Eight) {
            if i64::from(offset.1) + i64::from(mask.height()) >= i64::from(h) {
                continue; // still on the ground
            }
            terrain.erase(&mask, offset);
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
    /// turned by any angle), is laid into the terrain's mask pixel for pixel. Each set
    /// pixel goes to the terrain pixel under its center (the whole body lowered by up to
    /// [`SETTLE_DROP`] pixels onto the ground if it floats just above it, and a turned
    /// body's columns that still float a pixel above it lowered onto it, so that no seam
    /// shows between a body and the slope it rests on); where that one is solid already,
    /// out of the terrain, or taken by another pixel of the body (a turned grid maps some
    /// pixels onto one and leaves others empty), it goes to the nearest free pixel
    /// instead. So pixels are conserved exactly, and the shape is the body's as drawn but
    /// for a few pixels at its seams. Returns where each pixel went, so that a game can
    /// move its colors, and how many found no free pixel within [`SETTLE_REACH`] (lost;
    /// counted in [`TerrainWorld::lost_in_settling`]).
    pub fn settle(&mut self, mask: &BitMask, to_world: Affine2) -> Settled {
        let mut settled = Settled::default();
        let Some(rect) = mask.bounding_rect() else {
            return settled;
        };
        let to_terrain = |x: u32, y: u32| {
            let world = to_world.transform_point2(Vec2::new(x as f32 + 0.5, y as f32 + 0.5));
            let at = self.to_mask(world);
            at.is_finite()
                .then(|| (at.x.floor() as i64, at.y.floor() as i64))
        };
        let mut wanted: Vec<((u32, u32), (i64, i64))> = Vec::new();
        for y in rect.y..rect.y + rect.height {
            for x in rect.x..rect.x + rect.width {
                if mask.get(i64::from(x), i64::from(y)) {
                    match to_terrain(x, y) {
                        Some(at) => wanted.push(((x, y), at)),
                        None => settled.lost += 1,
                    }
                }
            }
        }
        let terrain = self.terrain();
        let (w, h) = (i64::from(terrain.width()), i64::from(terrain.height()));
        // A body resting on a solver's contact margin floats a pixel or two above the
        // ground: it comes down onto it, so that it joins the ground it rests on.
        // The terrain's bottom edge counts as ground, as for falling pieces.
        let solid = |x: i64, y: i64| y >= h || terrain.get(x, y);
        // Where it rests a hair into it (a solver's contacts let a body sink a fraction of
        // a pixel), each column whose pixels landed in the ground comes up out of it, whole:
        // those pixels would otherwise have to find room elsewhere, and inside a large
        // body the nearest is beyond any search. Columns clear of the ground stay, so a
        // turned body touching a slope's stair at a few cells opens no seam elsewhere.
        let mut columns: HashMap<i64, Vec<i64>> = HashMap::new();
        for &(_, (x, y)) in &wanted {
            columns.entry(x).or_default().push(y);
        }
        let lifts: HashMap<i64, i64> = columns
            .into_iter()
            .filter_map(|(x, ys)| {
                let clear_at = |k: i64| ys.iter().all(|&y| !solid(x, y - k));
                if clear_at(0) {
                    return None;
                }
                (1..=SETTLE_DROP).find(|&k| clear_at(k)).map(|k| (x, k))
            })
            .collect();
        for (_, at) in &mut wanted {
            at.1 -= lifts.get(&at.0).copied().unwrap_or(0);
        }
        let clear_below = |k: i64| wanted.iter().all(|&(_, (x, y))| !solid(x, y + k));
        let mut drop = 0;
        if let Some(k) = (1..=SETTLE_DROP).take_while(|&k| clear_below(k)).last() {
            drop = k;
            for (_, at) in &mut wanted {
                at.1 += k;
            }
        }
        // A turned body resting on a slope meets the ground along a stair of pixels of
        // its own, which matches the ground's stair only to within a pixel: left so, a
        // seam of sky shows between the two, a pixel high, wherever the stairs disagree.
        // Each column that floats that one pixel comes down onto the ground under it (the
        // shape gives a pixel there, as its other seams do; every pixel is kept). An
        // unturned body's columns keep their shape: its gaps are its own.
        let m = to_world.matrix2;
        let turned = m.x_axis.y != 0.0 || m.y_axis.x != 0.0;
        let reach = if turned {
            (SETTLE_DROP - drop).min(1)
        } else {
            0
        };
        if reach > 0 {
            let mut lowest: HashMap<i64, i64> = HashMap::new();
            for &(_, (x, y)) in &wanted {
                let low = lowest.entry(x).or_insert(y);
                *low = (*low).max(y);
            }
            // The gap under each column's lowest pixel, where the ground lies within reach.
            let mut gaps: HashMap<i64, i64> = lowest
                .into_iter()
                .filter_map(|(x, low)| {
                    let gap = (1..=reach + 1).find(|&k| solid(x, low + k))? - 1;
                    (gap > 0).then_some((x, gap))
                })
                .collect();
            // A column comes down whole or not at all: not where the terrain reaches in
            // between its pixels (the body lies over a ledge there).
            for &(_, (x, y)) in &wanted {
                if let Some(&gap) = gaps.get(&x)
                    && (1..=gap).any(|k| solid(x, y + k))
                {
                    gaps.remove(&x);
                }
            }
            for (_, at) in &mut wanted {
                at.1 += gaps.get(&at.0).copied().unwrap_or(0);
            }
        }
        if wanted.is_empty() {
            self.lost_in_settling += settled.lost;
            return settled;
        }
        // The pixels this body may take: its landing box grown by the search reach, as a
        // mask of its own, drawn into the terrain in one edit at the end.
        let reach = i64::from(SETTLE_REACH);
        let (mut lo, mut hi) = ((i64::MAX, i64::MAX), (i64::MIN, i64::MIN));
        for &(_, (x, y)) in &wanted {
            (lo.0, lo.1) = (lo.0.min(x), lo.1.min(y));
            (hi.0, hi.1) = (hi.0.max(x), hi.1.max(y));
        }
        let lo = ((lo.0 - reach).clamp(0, w), (lo.1 - reach).clamp(0, h));
        let hi = (
            (hi.0 + reach + 1).clamp(0, w),
            (hi.1 + reach + 1).clamp(0, h),
        );
        let Ok(mut placed) = BitMask::try_new((hi.0 - lo.0) as u32, (hi.1 - lo.1) as u32) else {
            settled.lost += wanted.len() as u64;
            self.lost_in_settling += settled.lost;
            return settled;
        };
        let free = |placed: &BitMask, (x, y): (i64, i64)| {
            (lo.0..hi.0).contains(&x)
                && (lo.1..hi.1).contains(&y)
                && !terrain.get(x, y)
                && !placed.get(x - lo.0, y - lo.1)
        };
        let mut crowded = Vec::new();
        for &(from, at) in &wanted {
            if free(&placed, at) {
                placed.set(at.0 - lo.0, at.1 - lo.1, true);
                settled.moved.push((from, (at.0 as u32, at.1 as u32)));
            } else {
                crowded.push((from, at));
            }
        }
        // Then the others, each to the nearest free pixel, ring by ring.
        let mut homeless = Vec::new();
        for (from, (cx, cy)) in crowded {
            let nearest = (1..=reach).find_map(|r| {
                let ring = (-r..=r).flat_map(|d| {
                    [
                        (cx + d, cy - r),
                        (cx + d, cy + r),
                        (cx - r, cy + d),
                        (cx + r, cy + d),
                    ]
                });
                ring.filter(|&p| free(&placed, p))
                    .min_by_key(|&(x, y)| (x - cx).pow(2) + (y - cy).pow(2))
            });
            match nearest {
                Some(at) => {
                    placed.set(at.0 - lo.0, at.1 - lo.1, true);
                    settled.moved.push((from, (at.0 as u32, at.1 as u32)));
                }
                None => homeless.push((from, (cx, cy))),
            }
        }
        // A turned body's grid, rounded onto the terrain's, puts two of its pixels on one
        // cell here and there, and misses a cell elsewhere; inside a large body the missed
        // cell can be further than the search reaches. Missed cells are free ones shut in
        // between two taken ones, across or up and down: the doubled pixels fill them in
        // reading order, both lists sorted alike.
        if !homeless.is_empty() {
            let taken = |placed: &BitMask, x: i64, y: i64| {
                terrain.get(x, y)
                    || ((lo.0..hi.0).contains(&x)
                        && (lo.1..hi.1).contains(&y)
                        && placed.get(x - lo.0, y - lo.1))
            };
            let mut holes = Vec::new();
            for y in lo.1..hi.1 {
                for x in lo.0..hi.0 {
                    let shut = (taken(&placed, x - 1, y) && taken(&placed, x + 1, y))
                        || (taken(&placed, x, y - 1) && taken(&placed, x, y + 1));
                    if shut && free(&placed, (x, y)) {
                        holes.push((x, y));
                    }
                }
            }
            homeless.sort_unstable_by_key(|&(_, (x, y))| (y, x));
            let mut holes = holes.into_iter();
            for (from, _) in homeless {
                match holes.next() {
                    Some(at) => {
                        placed.set(at.0 - lo.0, at.1 - lo.1, true);
                        settled.moved.push((from, (at.0 as u32, at.1 as u32)));
                    }
                    None => settled.lost += 1,
                }
            }
        }
        Arc::make_mut(&mut self.terrain).draw(&placed, (lo.0 as i32, lo.1 as i32));
        self.lost_in_settling += settled.lost;
        settled
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
