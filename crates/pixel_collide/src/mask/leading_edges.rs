//! The pixels that lead a mask one way, and the test of them against another mask that a
//! cast stepping a pixel at a time makes at every step.

use super::words::{row_bits_at, word_index};
use super::*;

/// The pixels of a mask that lead it one way: those whose neighbour that way is clear.
/// Stepped a pixel that way from a place where it overlapped nothing, a mask overlaps
/// something only if these do: its other pixels are where its own were a step before.
/// A cast that steps a character along the ground tests these rather than the whole body
/// (a 24 × 40 body leads with one row of 24 pixels, or one column of 40).
#[derive(Clone)]
pub(crate) struct LeadingEdges {
    /// Leading downwards (`+y`), in the mask's space.
    pub(crate) down: LeadingEdge,
    /// Leading upwards (`-y`).
    pub(crate) up: LeadingEdge,
    /// Leading rightwards (`+x`), transposed: tested against the other mask's transposed
    /// copy, a column of pixels is then a row of words.
    pub(crate) right_transposed: LeadingEdge,
    /// Leading leftwards (`-x`), transposed.
    pub(crate) left_transposed: LeadingEdge,
}

/// One way's leading pixels, as a mask and, when they are few words, as those words.
#[derive(Clone)]
pub(crate) struct LeadingEdge {
    pub(crate) mask: BitMask,
    /// The mask's nonzero words in row-major order, `(row, column of words, bits)`, when
    /// there are at most [`EDGE_WORDS_MAX`]: a character's edge is a word or a few, and
    /// testing those alone is a few instructions a word where a whole overlap test
    /// first finds the rows and columns the two masks share.
    words: Option<Vec<(u32, u32, u64)>>,
}

/// The most words an edge is tested a word at a time by; past it, the overlap test's
/// row spans skip more than they cost.
const EDGE_WORDS_MAX: usize = 16;

impl LeadingEdge {
    fn new(mask: BitMask) -> LeadingEdge {
        let h = mask.height as usize;
        let mut words = Vec::new();
        'rows: for y in 0..h {
            for k in 0..mask.words_per_row {
                let bits = mask.words[word_index(k, y, h)];
                if bits == 0 {
                    continue;
                }
                if words.len() == EDGE_WORDS_MAX {
                    words.clear();
                    break 'rows;
                }
                words.push((y as u32, k as u32, bits));
            }
        }
        let words = (!words.is_empty()).then_some(words);
        LeadingEdge { mask, words }
    }

    /// The first pixel (row-major) of `b` set under this edge's pixels with its top-left
    /// at `offset` in `b`: what `b.overlap(&self.mask, offset)` answers, the same pixel.
    #[inline]
    pub(crate) fn first_hit_in(&self, b: &BitMask, offset: (i32, i32)) -> Option<(u32, u32)> {
        let Some(words) = &self.words else {
            return b.overlap(&self.mask, offset);
        };
        for &(row, k, bits) in words {
            let (x, y) = (
                i64::from(offset.0) + i64::from(k) * 64,
                i64::from(offset.1) + i64::from(row),
            );
            if !(0..i64::from(b.height)).contains(&y) {
                continue;
            }
            let under = row_bits_at(b.row(y as u32), x) & bits;
            if under != 0 {
                return Some(((x + i64::from(under.trailing_zeros())) as u32, y as u32));
            }
        }
        None
    }
}

impl BitMask {
    /// [`LeadingEdges`], built on first use; `None` for masks over
    /// [`LEADING_EDGES_MAX_PIXELS`].
    pub(crate) fn leading_edges(&self) -> Option<&LeadingEdges> {
        self.leading_edges
            .get_or_init(|| {
                let pixels = u64::from(self.width) * u64::from(self.height);
                if pixels > LEADING_EDGES_MAX_PIXELS {
                    return None;
                }
                let transposed = self.transposed()?;
                let edge = |mask: &BitMask, down| mask.leading_rows(down).map(LeadingEdge::new);
                Some(Box::new(LeadingEdges {
                    down: edge(self, true)?,
                    up: edge(self, false)?,
                    right_transposed: edge(transposed, true)?,
                    left_transposed: edge(transposed, false)?,
                }))
            })
            .as_deref()
    }

    /// The pixels whose neighbour below (`down`) or above is clear or outside the mask: a
    /// row of words at a time, each with the next's (or the last's) complement.
    fn leading_rows(&self, down: bool) -> Option<BitMask> {
        let mut edge = BitMask::try_new(self.width, self.height).ok()?;
        let h = self.height as usize;
        for k in 0..self.words_per_row {
            let start = word_index(k, 0, h);
            let column = &self.words[start..][..h];
            let out = &mut edge.words[start..][..h];
            for y in 0..h {
                let beyond = if down {
                    column.get(y + 1)
                } else {
                    y.checked_sub(1).map(|above| &column[above])
                };
                out[y] = column[y] & !beyond.copied().unwrap_or(0);
            }
        }
        Some(edge)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The word-at-a-time test finds the pixel the overlap test finds, at offsets inside,
    /// across and outside the other mask's edges and its guard columns, for edges of a
    /// word or a few (tested by words) and of many (by the overlap test).
    #[test]
    fn an_edge_hits_the_pixel_the_overlap_test_finds() {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move |below: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % below
        };
        let mut by_words = 0;
        for case in 0..400 {
            let (w, h) = (1 + next(140) as u32, 1 + next(40) as u32);
            let mut a = BitMask::new(w, h);
            let set = 1 + next(if case % 2 == 0 { 6 } else { 400 });
            for _ in 0..set {
                a.set(next(u64::from(w)) as i64, next(u64::from(h)) as i64, true);
            }
            let edge = LeadingEdge::new(a.leading_rows(case % 3 == 0).unwrap());
            by_words += usize::from(edge.words.is_some());
            let (bw, bh) = (1 + next(200) as u32, 1 + next(60) as u32);
            let mut b = BitMask::new(bw, bh);
            for _ in 0..next(u64::from(bw * bh)) {
                b.set(next(u64::from(bw)) as i64, next(u64::from(bh)) as i64, true);
            }
            for _ in 0..40 {
                let offset = (
                    next(u64::from(bw + w) + 140) as i32 - w as i32 - 70,
                    next(u64::from(bh + h) + 20) as i32 - h as i32 - 10,
                );
                assert_eq!(
                    edge.first_hit_in(&b, offset),
                    b.overlap(&edge.mask, offset),
                    "case {case}: {w}×{h} edge at {offset:?} in {bw}×{bh}"
                );
            }
        }
        assert!((100..300).contains(&by_words), "{by_words} edges by words");
    }
}
