//! Lookups built on first use and kept by edits: the transposed copy and the distance
//! field, and what they prove.

use super::*;

impl BitMask {
    /// Whether every pixel of `[x0, x1) × [y0, y1)` (inside the mask) is clear, proven by
    /// the distance field at the rectangle's middle pixel reaching past its corners.
    pub(super) fn rectangle_is_clear(&self, [x0, y0, x1, y1]: [i64; 4]) -> bool {
        let (cx, cy) = ((x0 + x1 - 1) / 2, (y0 + y1 - 1) / 2);
        if self.get(cx, cy) {
            return false;
        }
        let Some(field) = self.distance_field() else {
            return false;
        };
        let reach = (cx - x0).max(x1 - 1 - cx).max(cy - y0).max(y1 - 1 - cy);
        reach < i64::from(field[(cy * i64::from(self.width) + cx) as usize])
    }

    /// The chessboard distance from the pixel `(x, y)` to this mask's nearest set pixel (0
    /// on one, at most 255), read from `field`, its [`BitMask::distance_field`]: inside the
    /// mask, that; outside, the distance to its edge, a lower bound. Casts and gap searches
    /// ask it of every outline pixel they place.
    #[inline(always)]
    pub(crate) fn chessboard_to_set(&self, field: &[u8], (x, y): (i64, i64)) -> u8 {
        let (w, h) = (i64::from(self.width), i64::from(self.height));
        if (0..w).contains(&x) && (0..h).contains(&y) {
            if self.get(x, y) {
                0
            } else {
                field[(y * w + x) as usize]
            }
        } else {
            let outside = (-x).max(x - (w - 1)).max((-y).max(y - (h - 1)));
            outside.min(255) as u8
        }
    }

    /// This mask with `x` and `y` swapped (pixel `(x, y)` of it is pixel `(y, x)` of this
    /// one), built once and cached, edits updating the columns they change; `None` for
    /// masks over [`DISTANCE_FIELD_MAX_PIXELS`], which are walked by rows only.
    pub(crate) fn transposed(&self) -> Option<&BitMask> {
        self.transposed
            .get_or_init(|| {
                let pixels = (self.width as usize).checked_mul(self.height as usize)?;
                if pixels > DISTANCE_FIELD_MAX_PIXELS {
                    return None;
                }
                let mut t = BitMask::try_new(self.height, self.width).ok()?;
                edit::transpose_region(self, &mut t, (0, 0, self.width, self.height));
                Some(Box::new(t))
            })
            .as_deref()
    }

    /// For every pixel, the chessboard distance (capped at 255) to the nearest pixel of the
    /// other state, counting everything outside the mask as clear, or after edits a lower
    /// bound of it (at least 1). Every pixel closer than that has the same state, which lets
    /// overlap tests settle whole runs of samples, or a whole region, with one lookup.
    /// Built once per mask and updated by edits (see `edit/refresh.rs`); `None` for masks
    /// over [`DISTANCE_FIELD_MAX_PIXELS`], whose callers scan instead.
    pub(crate) fn distance_field(&self) -> Option<&[u8]> {
        self.distance
            .get_or_init(|| self.build_distance_field())
            .as_deref()
    }

    /// The pixels of word `k` of row `y` that seed the distance field: those with an
    /// 8-neighbour of the other state, found a word at a time by comparing the row with
    /// itself and its neighbours shifted by one pixel. The zero guard columns, and a zero
    /// row above and below, read as the clear outside, so a set pixel on the edge is a seed.
    pub(super) fn seed_bits(&self, y: u32, k: usize) -> u64 {
        const OUTSIDE: [u64; 3] = [0; 3];
        let h = self.height as usize;
        // Words k - 1, k and k + 1 of a row, the guard columns' included.
        let near = |row: u32| [0, 1, 2].map(|c| self.words[(k + c) * h + row as usize]);
        let row = near(y);
        let up = if y > 0 { near(y - 1) } else { OUTSIDE };
        let down = if y + 1 < self.height {
            near(y + 1)
        } else {
            OUTSIDE
        };
        let own = row[1];
        let mut differs = 0u64;
        for n in [up, row, down] {
            let left = (n[1] << 1) | (n[0] >> 63);
            let right = (n[1] >> 1) | (n[2] << 63);
            differs |= (own ^ left) | (own ^ n[1]) | (own ^ right);
        }
        if k + 1 == self.words_per_row {
            differs &= self.last_word_bits();
        }
        differs
    }

    pub(super) fn build_distance_field(&self) -> Option<Vec<u8>> {
        let (w, h) = (self.width as usize, self.height as usize);
        let pixels = w
            .checked_mul(h)
            .filter(|&n| n <= DISTANCE_FIELD_MAX_PIXELS)?;
        let mut dist = Vec::new();
        dist.try_reserve_exact(pixels).ok()?;
        dist.resize(pixels, u8::MAX);
        if pixels == 0 {
            return Some(dist);
        }
        // Seeds: a pixel with an 8-neighbour of the other state is at distance 1.
        for y in 0..h {
            for k in 0..self.words_per_row {
                let mut differs = self.seed_bits(y as u32, k);
                let out = &mut dist[y * w + k * 64..];
                while differs != 0 {
                    out[differs.trailing_zeros() as usize] = 1;
                    differs &= differs - 1;
                }
            }
        }
        // Two chamfer passes (all eight steps cost 1) make the chessboard distance exact:
        // first from the row above and the left, then from the row below and the right.
        for y in 0..h {
            let (done, rest) = dist.split_at_mut(y * w);
            let row = &mut rest[..w];
            if y > 0 {
                relax_from_row(row, &done[(y - 1) * w..]);
            }
            chamfer::sweep_right(row, u8::MAX);
        }
        for y in (0..h).rev() {
            let (rest, done) = dist.split_at_mut((y + 1) * w);
            let row = &mut rest[y * w..];
            if y + 1 < h {
                relax_from_row(row, &done[..w]);
            }
            chamfer::sweep_left(row, u8::MAX);
        }
        Some(dist)
    }
}

/// The distance field costs a byte per pixel: beyond this (an 8192 × 8192 mask) overlap
/// tests do without it rather than allocate gigabytes.
pub(crate) const DISTANCE_FIELD_MAX_PIXELS: usize = 1 << 26;

/// One chamfer step from a neighbouring row: each pixel is at most one more than the
/// nearest of the three pixels next to it in `neighbour`.
pub(super) fn relax_from_row(row: &mut [u8], neighbour: &[u8]) {
    let w = row.len();
    let step = |nearest: u8| nearest.saturating_add(1);
    row[0] = row[0].min(step(neighbour[0].min(neighbour[w.min(2) - 1])));
    if w > 1 {
        row[w - 1] = row[w - 1].min(step(neighbour[w - 2].min(neighbour[w - 1])));
    }
    if w > 2 {
        // The interior without index arithmetic, so that it compiles to SIMD min and add.
        for (out, n) in row[1..w - 1].iter_mut().zip(neighbour.windows(3)) {
            *out = (*out).min(step(n[0].min(n[1]).min(n[2])));
        }
    }
}
