//! A mask's words: a row read across the columns ([`Row`]), where a word lies in the
//! layout, and the one rule for a range of a word's bits, which the edits, the component
//! search and the transformed walk all clip their rows' words with. One rule, `lo..hi`
//! with the end excluded as Rust's ranges have it, so that a caller converting pixel
//! ranges into word ranges cannot be off by one against another caller. Apart from
//! `mod.rs` because this is the addressing every loop shares, not the mask's API.

#[cfg(doc)]
use super::BitMask;

/// Bits `lo..hi` of a word set, the others clear; none when `hi <= lo`. Needs `lo < 64`
/// and `hi <= 64`: `hi = 64` reaches the word's last bit, which a shift by 64 could not.
#[inline]
pub(crate) fn bit_range(lo: u32, hi: u32) -> u64 {
    debug_assert!(lo < 64 && hi <= 64, "bits {lo}..{hi} of a word");
    let below_hi = if hi >= 64 { u64::MAX } else { (1u64 << hi) - 1 };
    below_hi & !((1u64 << lo) - 1)
}

/// Bit `k` of `POSITION_BIT[b]` is set when bit `b` of `k` is set: lets
/// [`word_position_sum`] add up the positions of a word's set bits with six popcounts.
const POSITION_BIT: [u64; 6] = [
    0xAAAA_AAAA_AAAA_AAAA,
    0xCCCC_CCCC_CCCC_CCCC,
    0xF0F0_F0F0_F0F0_F0F0,
    0xFF00_FF00_FF00_FF00,
    0xFFFF_0000_FFFF_0000,
    0xFFFF_FFFF_0000_0000,
];

/// Sum of the bit positions (0..64) of the set bits of `word`.
#[inline]
pub(crate) fn word_position_sum(word: u64) -> u64 {
    POSITION_BIT
        .iter()
        .enumerate()
        .map(|(b, m)| u64::from((word & m).count_ones()) << b)
        .sum()
}

/// One row's words, read across the columns: word `k` is the row's pixels
/// `64k..64k + 64`. Indexing past the row reads another row's word (or past the mask,
/// a panic), caught by a debug assertion: a message built from the row's fields in
/// release builds kept the row in memory, and every read of it a failed store-to-load
/// forward, 90% of a cut draw's time.
#[derive(Clone, Copy)]
pub(crate) struct Row<'m> {
    words: &'m [u64],
    /// Index of word 0, and the distance between words (the column length).
    first: usize,
    stride: usize,
    len: usize,
}

impl<'m> Row<'m> {
    /// Row `y` of words laid out as a mask's, `height` words a column and
    /// `words_per_row` columns after the left guard column (a mask's words, or a copy laid
    /// out like them).
    #[inline(always)]
    pub(crate) fn of(
        words: &'m [u64],
        (height, words_per_row): (usize, usize),
        y: usize,
    ) -> Row<'m> {
        Row {
            words,
            first: height + y,
            stride: height,
            len: words_per_row,
        }
    }

    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    #[inline(always)]
    pub(crate) fn get(&self, k: usize) -> Option<u64> {
        (k < self.len).then(|| self.words[self.first + k * self.stride])
    }

    #[inline]
    pub(crate) fn iter(&self) -> impl DoubleEndedIterator<Item = u64> + 'm {
        let (words, first, stride) = (self.words, self.first, self.stride);
        (0..self.len).map(move |k| words[first + k * stride])
    }

    /// The first pixel in `from..end` whose state is `set`, or `end` (`end` within the
    /// row's width), a word at a time.
    #[inline]
    pub(crate) fn next_with(&self, from: u32, end: u32, set: bool) -> u32 {
        if from >= end {
            return end;
        }
        let flip = if set { 0 } else { u64::MAX };
        let mut k = (from / 64) as usize;
        let mut bits = (self[k] ^ flip) & (u64::MAX << (from % 64));
        loop {
            if bits != 0 {
                return (k as u32 * 64 + bits.trailing_zeros()).min(end);
            }
            k += 1;
            if k as u32 * 64 >= end {
                return end;
            }
            bits = self[k] ^ flip;
        }
    }

    /// The last set pixel in `lo..=hi` (both within the row's width), a word at a time.
    #[inline]
    pub(crate) fn last_set_in(&self, lo: u32, hi: u32) -> Option<u32> {
        if lo > hi {
            return None;
        }
        let mut k = (hi / 64) as usize;
        // Bits up to `hi` in its word.
        let mut word = self[k] & (u64::MAX >> (63 - hi % 64));
        loop {
            if word != 0 {
                let x = k as u32 * 64 + 63 - word.leading_zeros();
                return (x >= lo).then_some(x);
            }
            if k == 0 || k as u32 * 64 <= lo {
                return None;
            }
            k -= 1;
            word = self[k];
        }
    }

    /// The index of the first and last nonzero words, `None` for a clear row.
    #[inline]
    pub(crate) fn nonzero_range(&self) -> Option<(usize, usize)> {
        let first = (0..self.len).find(|&k| self[k] != 0)?;
        let last = (first..self.len).rev().find(|&k| self[k] != 0)?;
        Some((first, last))
    }
}

impl std::ops::Index<usize> for Row<'_> {
    type Output = u64;

    #[inline(always)]
    fn index(&self, k: usize) -> &u64 {
        debug_assert!(k < self.len, "word {k} of a row of {}", self.len);
        &self.words[self.first + k * self.stride]
    }
}

/// [`Row`], writable.
pub(crate) struct RowMut<'m> {
    // Built in place by `BitMask::row_mut`, which holds the words mutably.
    pub(super) words: &'m mut [u64],
    pub(super) first: usize,
    pub(super) stride: usize,
    pub(super) len: usize,
}

impl std::ops::Index<usize> for RowMut<'_> {
    type Output = u64;

    #[inline(always)]
    fn index(&self, k: usize) -> &u64 {
        debug_assert!(k < self.len, "word {k} of a row of {}", self.len);
        &self.words[self.first + k * self.stride]
    }
}

impl std::ops::IndexMut<usize> for RowMut<'_> {
    #[inline(always)]
    fn index_mut(&mut self, k: usize) -> &mut u64 {
        debug_assert!(k < self.len, "word {k} of a row of {}", self.len);
        &mut self.words[self.first + k * self.stride]
    }
}

/// Where word `y` of column `k` lies among a mask's words, `stride` words a column: past
/// the left guard column (see [`BitMask`]'s layout), so column `k` starts at
/// `(k + 1) × stride`.
#[inline(always)]
pub(crate) fn word_index(k: usize, y: usize, stride: usize) -> usize {
    (k + 1) * stride + y
}

/// The 64 bits of a row that start at bit position `start` (which may be negative or past
/// the end: missing bits read as zero).
#[inline]
pub(super) fn row_bits_at(row: Row<'_>, start: i64) -> u64 {
    let word = start.div_euclid(64);
    let shift = start.rem_euclid(64) as u32;
    let at = |i: i64| -> u64 {
        if i < 0 {
            0
        } else {
            row.get(i as usize).unwrap_or(0)
        }
    };
    if shift == 0 {
        at(word)
    } else {
        (at(word) >> shift) | (at(word + 1) << (64 - shift))
    }
}

/// The pixels `first..end` outside which a row is clear, `(0, 0)` for a clear row.
pub(super) fn pixel_span(row: Row<'_>) -> (u32, u32) {
    let Some((first, last)) = row.nonzero_range() else {
        return (0, 0);
    };
    (
        first as u32 * 64 + row[first].trailing_zeros(),
        last as u32 * 64 + 64 - row[last].leading_zeros(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every range a word allows, the word's edges 0, 63 and 64 among them, against the
    /// bits set one at a time.
    #[test]
    fn bit_range_sets_exactly_lo_to_hi() {
        for lo in 0..64 {
            for hi in 0..=64 {
                let mut expected = 0u64;
                for bit in 0..64 {
                    if lo <= bit && bit < hi {
                        expected |= 1 << bit;
                    }
                }
                assert_eq!(bit_range(lo, hi), expected, "{lo}..{hi}");
            }
        }
        assert_eq!(bit_range(0, 64), u64::MAX);
        assert_eq!(bit_range(63, 64), 1 << 63);
        assert_eq!(bit_range(0, 1), 1);
        assert_eq!(bit_range(0, 0), 0);
        assert_eq!(bit_range(63, 63), 0);
    }
}
