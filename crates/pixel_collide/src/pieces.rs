//! Pieces of an edited mask: the parts an edit cut loose from what holds the mask in
//! place, and laying a piece that came to rest back into a mask, pixel for pixel. What a
//! destructible sprite or terrain needs after each edit, whatever moves the pieces in
//! between (the core's own falling in [`crate::terrain`], a physics engine's bodies).

use std::collections::HashMap;
use std::sync::Arc;

use bevy_math::{Affine2, Vec2};

use super::mask::{BitMask, Connectivity, MaskRect};

/// How far, in pixels, [`settle_into`] looks for a free pixel for one whose own is taken.
pub const SETTLE_REACH: u32 = 24;

/// How far, in pixels, [`settle_into`] lowers a body that floats just above the ground.
pub const SETTLE_DROP: i64 = 3;

/// Which pixels of a mask hold it in place: a part of the mask that reaches none of them
/// after an edit is cut loose ([`cut_loose`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub enum PieceAnchor {
    /// The mask's bottom row: ground, as in a Worms-like terrain.
    #[default]
    BottomRow,
    /// Any pixel on the mask's border: a wall or a ceiling fixed on every side.
    Edges,
    /// The set pixels of this mask, laid over the edited one (same size, top-left at the
    /// same corner): bedrock, pillars, anything the game draws.
    Pixels(Arc<BitMask>),
    /// The largest part: a free-floating sprite (an asteroid, a ship) keeps its biggest
    /// piece. Finding it labels the whole mask after each edit, not only around it.
    Largest,
    /// Every pixel: nothing is ever cut loose.
    Everywhere,
}

/// Cuts loose the parts of `mask` that an edit within `region` separated from `anchor`:
/// each connected component with a pixel in `region` (grow the edited rectangle by a
/// pixel, so that the pixels its neighbours joined through are in it) that reaches no
/// anchor is erased from `mask` and returned, with its top-left corner in `mask`. In the
/// order of their first pixel (row-major).
///
/// ```
/// use pixel_collide::pieces::{PieceAnchor, cut_loose};
/// use pixel_collide::{BitMask, Connectivity, MaskRect};
///
/// let mut ground = BitMask::solid(40, 20).unwrap();
/// // A clear ring leaves a disc standing in the air.
/// ground.erase_circle(20.0, 8.0, 7.0);
/// ground.fill_circle(20.0, 8.0, 3.0);
/// let around = MaskRect { x: 10, y: 0, width: 20, height: 17 };
/// let loose = cut_loose(&mut ground, around, Connectivity::Eight, &PieceAnchor::BottomRow);
/// assert_eq!(loose.len(), 1);
/// assert!(!ground.get(20, 8));
/// ```
pub fn cut_loose(
    mask: &mut BitMask,
    region: MaskRect,
    connectivity: Connectivity,
    anchor: &PieceAnchor,
) -> Vec<(BitMask, (i32, i32))> {
    let (w, h) = mask.size();
    // Held by a border: a fill stops as soon as it reaches it.
    let border = |y: u32, x0: u32, x1: u32| match anchor {
        PieceAnchor::BottomRow => y + 1 == h,
        _ => x0 == 0 || y == 0 || x1 == w || y + 1 == h,
    };
    if matches!(anchor, PieceAnchor::BottomRow | PieceAnchor::Edges) {
        let loose = mask.loose_components_in(region, connectivity, border);
        for (piece, offset) in &loose {
            mask.erase(piece, *offset);
        }
        return loose;
    }
    let components = match anchor {
        PieceAnchor::Everywhere => return Vec::new(),
        PieceAnchor::Largest => {
            let mut all = mask.connected_components(connectivity);
            let Some(largest) = (0..all.len()).max_by_key(|&k| (all[k].0.count(), usize::MAX - k))
            else {
                return Vec::new();
            };
            all.remove(largest);
            all
        }
        _ => mask.connected_components_in(region, connectivity),
    };
    let anchored = |piece: &BitMask, (x, y): (i32, i32)| {
        // A component's mask is its tight box, so reaching an edge means a pixel on it.
        let right = i64::from(x) + i64::from(piece.width());
        let bottom = i64::from(y) + i64::from(piece.height());
        match anchor {
            PieceAnchor::BottomRow => bottom >= i64::from(h),
            PieceAnchor::Edges => {
                x <= 0 || y <= 0 || right >= i64::from(w) || bottom >= i64::from(h)
            }
            PieceAnchor::Pixels(pixels) => pixels.overlap(piece, (x, y)).is_some(),
            PieceAnchor::Largest => false,
            PieceAnchor::Everywhere => true,
        }
    };
    let loose: Vec<_> = components
        .into_iter()
        .filter(|(piece, offset)| !anchored(piece, *offset))
        .collect();
    for (piece, offset) in &loose {
        mask.erase(piece, *offset);
    }
    loose
}

/// Where [`settle_into`] put a body's pixels.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Settled {
    /// Each set pixel of the body's mask and the target pixel it became.
    pub moved: Vec<((u32, u32), (u32, u32))>,
    /// Set pixels that found no room (see [`SETTLE_REACH`]).
    pub lost: u64,
}

/// Lays a body that came to rest into `target`, pixel for pixel: `piece`, placed in the
/// world by `piece_to_world` (as [`crate::sprite_to_world`] makes it, turned by any
/// angle), goes into the target whose world-to-mask map is `world_to_target`. "Down" is
/// the target mask's +y, and its bottom edge counts as ground.
///
/// Each set pixel goes to the target pixel under its center (the whole body lowered by
/// up to [`SETTLE_DROP`] pixels onto the ground if it floats just above it, and a turned
/// body's columns that still float a pixel above it lowered onto it, so that no seam
/// shows between a body and the slope it rests on); where that one is solid already,
/// outside the target, or taken by another pixel of the body (a turned grid maps some
/// pixels onto one and leaves others empty), it goes to the nearest free pixel instead.
/// So pixels are conserved exactly, and the shape is the body's as drawn but for a few
/// pixels at its seams. Returns where each pixel went, so that a game can move its
/// colors, and how many found no free pixel within [`SETTLE_REACH`] (lost).
pub fn settle_into(
    target: &mut BitMask,
    piece: &BitMask,
    piece_to_world: Affine2,
    world_to_target: Affine2,
) -> Settled {
    let mut settled = Settled::default();
    let Some(rect) = piece.bounding_rect() else {
        return settled;
    };
    // Applied one after the other rather than composed, so a terrain placed with a
    // translation and a y flip maps each pixel exactly as its own arithmetic would.
    let to_target = |x: u32, y: u32| {
        let world = piece_to_world.transform_point2(Vec2::new(x as f32 + 0.5, y as f32 + 0.5));
        let at = world_to_target.transform_point2(world);
        at.is_finite()
            .then(|| (at.x.floor() as i64, at.y.floor() as i64))
    };
    let mut wanted: Vec<((u32, u32), (i64, i64))> = Vec::new();
    for y in rect.y..rect.y + rect.height {
        for x in rect.x..rect.x + rect.width {
            if piece.get(i64::from(x), i64::from(y)) {
                match to_target(x, y) {
                    Some(at) => wanted.push(((x, y), at)),
                    None => settled.lost += 1,
                }
            }
        }
    }
    let m = piece_to_world.matrix2;
    let turned = m.x_axis.y != 0.0 || m.y_axis.x != 0.0;
    onto_the_ground(target, &mut wanted, turned);
    if wanted.is_empty() {
        return settled;
    }
    place_pixels(target, wanted, &mut settled);
    settled
}

/// Moves the wanted target pixels of a resting body onto the ground it rests on: columns
/// sunk a hair into it come up, a body floating just above it comes down, and a turned
/// body's columns floating a pixel above it come down onto it.
fn onto_the_ground(target: &BitMask, wanted: &mut [((u32, u32), (i64, i64))], turned: bool) {
    let h = i64::from(target.height());
    // A body resting on a solver's contact margin floats a pixel or two above the
    // ground: it comes down onto it, so that it joins the ground it rests on.
    // The target's bottom edge counts as ground, as for falling pieces.
    let solid = |x: i64, y: i64| y >= h || target.get(x, y);
    // Where it rests a hair into it (a solver's contacts let a body sink a fraction of
    // a pixel), each column whose pixels landed in the ground comes up out of it, whole:
    // those pixels would otherwise have to find room elsewhere, and inside a large
    // body the nearest is beyond any search. Columns clear of the ground stay, so a
    // turned body touching a slope's stair at a few cells opens no seam elsewhere.
    let mut columns: HashMap<i64, Vec<i64>> = HashMap::new();
    for &(_, (x, y)) in wanted.iter() {
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
    for (_, at) in wanted.iter_mut() {
        at.1 -= lifts.get(&at.0).copied().unwrap_or(0);
    }
    let clear_below = |k: i64| wanted.iter().all(|&(_, (x, y))| !solid(x, y + k));
    let mut drop = 0;
    if let Some(k) = (1..=SETTLE_DROP).take_while(|&k| clear_below(k)).last() {
        drop = k;
        for (_, at) in wanted.iter_mut() {
            at.1 += k;
        }
    }
    // A turned body resting on a slope meets the ground along a stair of pixels of
    // its own, which matches the ground's stair only to within a pixel: left so, a
    // seam of sky shows between the two, a pixel high, wherever the stairs disagree.
    // Each column that floats that one pixel comes down onto the ground under it (the
    // shape gives a pixel there, as its other seams do; every pixel is kept). An
    // unturned body's columns keep their shape: its gaps are its own.
    let reach = if turned {
        (SETTLE_DROP - drop).min(1)
    } else {
        0
    };
    if reach == 0 {
        return;
    }
    let mut lowest: HashMap<i64, i64> = HashMap::new();
    for &(_, (x, y)) in wanted.iter() {
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
    // A column comes down whole or not at all: not where the target reaches in
    // between its pixels (the body lies over a ledge there).
    for &(_, (x, y)) in wanted.iter() {
        if let Some(&gap) = gaps.get(&x)
            && (1..=gap).any(|k| solid(x, y + k))
        {
            gaps.remove(&x);
        }
    }
    for (_, at) in wanted.iter_mut() {
        at.1 += gaps.get(&at.0).copied().unwrap_or(0);
    }
}

/// Gives each wanted pixel its target pixel, or the nearest free one, or a hole shut in
/// by the body's own pixels; draws them into `target` in one edit.
fn place_pixels(
    target: &mut BitMask,
    wanted: Vec<((u32, u32), (i64, i64))>,
    settled: &mut Settled,
) {
    let (w, h) = (i64::from(target.width()), i64::from(target.height()));
    // The pixels this body may take: its landing box grown by the search reach, as a
    // mask of its own, drawn into the target in one edit at the end.
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
        return;
    };
    let terrain = &*target;
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
    // A turned body's grid, rounded onto the target's, puts two of its pixels on one
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
    target.draw(&placed, (lo.0 as i32, lo.1 as i32));
}
