//! The walk over A's rows: each row clipped to the columns that can land in B, its words
//! split into runs, each run settled at once through B's distance field or mapped sample
//! by sample in fixed point. The hot loops of every transformed query, kept together so
//! that their shape can be read (and measured) in one place.

use bevy_math::DVec2;

use super::mapping::Mapping;
use crate::mask::{bit_range, word_index, word_position_sum};

/// Fewest set samples in a run for which settling it through B's distance field is worth
/// a lookup: below this, mapping each sample costs less than a lookup that fails, which it
/// often does in the thin edge rows where two sprites nearly meet.
pub(super) const SETTLE_MIN_SAMPLES: u32 = 4;

/// The same for an A one word wide (a sprite), where a run is a whole row's overlap: its
/// fields are a few pixels deep, so a lookup rarely settles a run of fewer than this.
/// Measured on near misses of 64-px sprites, 8% faster than [`SETTLE_MIN_SAMPLES`]; on
/// large masks the lower bound is the faster one.
pub(super) const SETTLE_MIN_SAMPLES_NARROW: u32 = 32;

/// 1 in 32.32 fixed point.
pub(super) const FIXED_ONE: f64 = (1u64 << 32) as f64;

/// Sums over A's overlapping samples, in A's pixel indices, and the box they lie in
/// (inclusive; meaningless while `count` is 0).
#[derive(Debug, Clone, Copy)]
pub(super) struct Sums {
    pub(super) count: u64,
    pub(super) sum_i: u64,
    pub(super) sum_j: u64,
    pub(super) i_range: (u32, u32),
    pub(super) j_range: (u32, u32),
}

impl Default for Sums {
    fn default() -> Self {
        Sums {
            count: 0,
            sum_i: 0,
            sum_j: 0,
            i_range: (u32::MAX, 0),
            j_range: (u32::MAX, 0),
        }
    }
}

impl Sums {
    fn add(&mut self, i: u32, j: u32, n: u64) {
        self.count += n;
        self.sum_i += u64::from(i) * n;
        self.sum_j += u64::from(j) * n;
        self.widen(i, i, j);
    }

    /// Adds the set bits of a word whose bit 0 is column `base` of row `j` (not 0).
    fn add_bits(&mut self, base: u32, j: u32, bits: u64) {
        let n = u64::from(bits.count_ones());
        self.count += n;
        self.sum_i += word_position_sum(bits) + n * u64::from(base);
        self.sum_j += n * u64::from(j);
        self.widen(
            base + bits.trailing_zeros(),
            base + 63 - bits.leading_zeros(),
            j,
        );
    }

    fn widen(&mut self, first: u32, last: u32, j: u32) {
        self.i_range = (self.i_range.0.min(first), self.i_range.1.max(last));
        self.j_range = (self.j_range.0.min(j), self.j_range.1.max(j));
    }
}

impl<'m> Mapping<'m> {
    /// Every set sample of A through the exact mapping, as the tutorials' loop does: the
    /// walk's fallback where the shortcuts cannot bound anything. Bounded by A's size.
    fn walk_every_sample(&self, first_only: bool) -> Sums {
        let mut sums = Sums::default();
        for j in 0..self.a.height() {
            for i in 0..self.a.width() {
                let lands = self.a.get(i.into(), j.into()) && self.lands_on_b(i, j);
                if lands {
                    sums.add(i, j, 1);
                    if first_only {
                        return sums;
                    }
                }
            }
        }
        sums
    }

    /// Visits every sample of A that can land in B; with `first_only`, stops at the first
    /// overlap.
    pub(super) fn walk(&self, first_only: bool) -> Sums {
        if self.every_sample {
            return self.walk_every_sample(first_only);
        }
        let mut sums = Sums::default();
        let Some((top, bottom)) = self.row_range() else {
            return sums;
        };
        if self.b_sits_in_clear_space() {
            return sums;
        }
        let distance = self.b.distance_field();
        let lines = self.row_lines();
        let step = self.a_to_b.matrix2.x_axis.abs().max_element();
        let spans = self.a.pixel_spans();
        // From the middle row outwards: two sprites that touch usually overlap deepest
        // in the middle of the lens, so a first-only walk stops sooner; a full count
        // visits every row either way.
        let middle = top + (bottom - top) / 2;
        let outwards = (0..=bottom - top).map(|k| {
            let half = k.div_ceil(2);
            if k % 2 == 1 {
                middle + half
            } else {
                middle - half
            }
        });
        for j in outwards {
            // An empty row of A needs no clipping.
            let (first, end) = spans[j as usize];
            if first == end {
                continue;
            }
            let row = self.a.row(j);
            let Some((lo, hi)) = self.column_span(j, &lines) else {
                continue;
            };
            let (lo, hi) = (lo.max(first), hi.min(end - 1));
            if lo > hi {
                continue;
            }
            let words = row.iter().enumerate().take(hi as usize / 64 + 1);
            for (k, word) in words.skip(lo as usize / 64) {
                let first = (k as u32 * 64).max(lo);
                let last = (k as u32 * 64 + 63).min(hi);
                let bits = word & bit_range(first % 64, last % 64 + 1);
                if bits != 0 {
                    let run = Run {
                        j,
                        word: k as u32,
                        bits,
                        lo: first % 64,
                        hi: last % 64,
                    };
                    self.settle(run, distance, step, first_only, &mut sums);
                    if first_only && sums.count > 0 {
                        return sums;
                    }
                }
            }
        }
        sums
    }

    /// Adds the overlapping samples of one run of a row to `sums`, settling the whole run
    /// at once when B's distance field says every sample lands in the same state.
    fn settle(
        &self,
        run: Run,
        distance: Option<&[u8]>,
        step: f32,
        first_only: bool,
        sums: &mut Sums,
    ) {
        if run.bits == 0 || (first_only && sums.count > 0) {
            return;
        }
        let base = run.word * 64;
        if let Some(distance) = distance
            && run.bits.count_ones() >= self.settle_min_samples
        {
            let mid = (run.lo + run.hi) / 2;
            let clear = match self.b_pixel(self.sample(base + mid, run.j)) {
                Some((x, y)) => {
                    let clear = distance[y as usize * self.b.width() as usize + x as usize];
                    let reach = (run.hi - mid).max(mid - run.lo) as f32 * step + self.margin;
                    if reach < f32::from(clear) {
                        if self.b.get(i64::from(x), i64::from(y)) {
                            if first_only {
                                sums.add(base + run.bits.trailing_zeros(), run.j, 1);
                                return;
                            }
                            sums.add_bits(base, run.j, run.bits);
                        }
                        return;
                    }
                    f32::from(clear)
                }
                None => f32::INFINITY,
            };
            // Where B changes state within a few samples (noise, a thin line), halving
            // would only add lookups: map the run's samples one by one.
            if clear > self.margin + 4.0 * step {
                let (left, right) = run.split(mid);
                self.settle(left, Some(distance), step, first_only, sums);
                self.settle(right, Some(distance), step, first_only, sums);
                return;
            }
        }
        self.map_one_by_one(run, first_only, sums);
    }

    /// Maps each of the run's set samples into B on its own. Positions step along the row
    /// in 32.32 fixed point from the f64 mapping, which decides the pixel unless a sample
    /// lies within `fixed_guard` of a pixel edge; there the exact two-step mapping decides.
    fn map_one_by_one(&self, run: Run, first_only: bool, sums: &mut Sums) {
        const ONE: f64 = FIXED_ONE;
        let base = run.word * 64;
        let center = DVec2::new(f64::from(base) + 0.5, f64::from(run.j) + 0.5);
        let start = self.a_to_b_f64.transform_point2(center);
        let step = self.a_to_b_f64.matrix2.x_axis;
        // Fixed point holds ±2^31 pixels; column spans keep samples within a few pixels of
        // B, so only absurd sizes and scales land here, and take the exact path.
        let end = start + step * 64.0;
        let fits = start.abs().max_element().max(end.abs().max_element()) < f64::from(1 << 30);
        let exact = |i: u32| self.lands_on_b(i, run.j);
        let mut bits = run.bits;
        let guard = match self.fixed_guard {
            Some(guard) if fits => guard,
            _ => {
                while bits != 0 {
                    let i = base + bits.trailing_zeros();
                    bits &= bits - 1;
                    if exact(i) {
                        sums.add(i, run.j, 1);
                        if first_only {
                            return;
                        }
                    }
                }
                return;
            }
        };
        // True when the fraction is within `guard` of 0 or of 1.
        let near_edge = |fraction: u32| fraction.wrapping_add(guard) < 2 * guard;
        let (x0, y0) = ((start.x * ONE) as i64, (start.y * ONE) as i64);
        let (dx, dy) = self.fixed_step;
        let (width, height) = (u64::from(self.b.width()), u64::from(self.b.height()));
        let (words, stride) = self.b.words_and_stride();
        // Branch-free: a hit, and a sample too near an edge to trust, each set a bit.
        let (mut hits, mut near_edges) = (0u64, 0u64);
        while bits != 0 {
            let k = bits.trailing_zeros();
            bits &= bits - 1;
            let (x, y) = (x0 + dx * i64::from(k), y0 + dy * i64::from(k));
            near_edges |= u64::from(near_edge(x as u32) | near_edge(y as u32)) << k;
            // The shift floors; a negative pixel turns huge and fails the bounds test.
            let (px, py) = ((x >> 32) as u64, (y >> 32) as u64);
            let inside = px < width && py < height;
            // Outside B, read word 0, always clear.
            let index = if inside {
                word_index((px / 64) as usize, py as usize, stride)
            } else {
                0
            };
            hits |= ((words[index] >> (px % 64)) & 1) << k;
        }
        while near_edges != 0 {
            let k = near_edges.trailing_zeros();
            near_edges &= near_edges - 1;
            if exact(base + k) {
                hits |= 1 << k;
            } else {
                hits &= !(1 << k);
            }
        }
        if hits == 0 {
            return;
        }
        if first_only {
            sums.add(base + hits.trailing_zeros(), run.j, 1);
            return;
        }
        sums.add_bits(base, run.j, hits);
    }
}

/// A's set bits `lo..=hi` of word `word` in row `j`.
#[derive(Clone, Copy)]
struct Run {
    j: u32,
    word: u32,
    bits: u64,
    lo: u32,
    hi: u32,
}

impl Run {
    fn split(self, mid: u32) -> (Run, Run) {
        (
            Run {
                bits: self.bits & bit_range(self.lo, mid + 1),
                hi: mid,
                ..self
            },
            Run {
                bits: self.bits & bit_range(mid + 1, self.hi + 1),
                lo: mid + 1,
                ..self
            },
        )
    }
}
