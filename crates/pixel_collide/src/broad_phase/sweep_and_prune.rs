//! Sweep and prune on x: boxes sorted by their left edge, each compared with the boxes
//! whose x ranges it overlaps.

use super::*;

/// One box in sweep order.
#[derive(Debug, Clone, Copy)]
struct SweepEntry {
    /// `min.x`, or `+∞` for a NaN box so that the sort never meets a NaN.
    key: f32,
    min: Vec2,
    max: Vec2,
    index: u32,
}

/// Sweep and prune on the x axis with a persistent, insertion-sorted order.
///
/// Each update refreshes the boxes in last frame's order and restores the order by
/// insertion sort: `O(N + moves)`, so linear when bodies moved little. When the order
/// changed a lot (the first frame, a different number of boxes, a teleport of many bodies)
/// insertion sort gives up after a budget of moves and a full sort takes over.
#[derive(Debug, Clone, Default)]
pub struct SweepAndPrune {
    sorted: Vec<SweepEntry>,
    keys: Vec<f32>,
    /// `min.x, max.x, min.y, max.y` in sweep order.
    rest: Vec<(f32, f32, f32, f32)>,
    /// Whether the last update fell back to a full sort (for tests and stats).
    full_sort: bool,
}

impl SweepAndPrune {
    /// Element moves allowed per box before insertion sort gives up.
    const MOVES_PER_BOX: usize = 16;

    /// An empty sweep and prune.
    pub fn new() -> SweepAndPrune {
        SweepAndPrune::default()
    }

    /// Whether the last [`update`](BroadPhase::update) sorted from scratch instead of
    /// repairing last frame's order.
    pub fn used_full_sort(&self) -> bool {
        self.full_sort
    }

    /// Insertion sort on `key`; `false` (order partly restored) when over the budget.
    fn insertion_sort(entries: &mut [SweepEntry], budget: usize) -> bool {
        let mut moves = 0;
        for i in 1..entries.len() {
            let entry = entries[i];
            let mut j = i;
            while j > 0 && entries[j - 1].key > entry.key {
                entries[j] = entries[j - 1];
                j -= 1;
            }
            entries[j] = entry;
            moves += i - j;
            if moves > budget {
                return false;
            }
        }
        true
    }
}

impl BroadPhase for SweepAndPrune {
    fn update(&mut self, boxes: &[Aabb2d], pairs: &mut Vec<(u32, u32)>) {
        pairs.clear();
        let n = index_count(boxes);
        let entry = |index: u32| {
            let b = boxes[index as usize];
            if has_nan(&b) {
                // NaN bounds fail every comparison below: the box finds no pair and no box
                // pairs with it.
                SweepEntry {
                    key: f32::INFINITY,
                    min: Vec2::NAN,
                    max: Vec2::NAN,
                    index,
                }
            } else {
                SweepEntry {
                    key: b.min.x,
                    min: b.min,
                    max: b.max,
                    index,
                }
            }
        };
        let reuse = self.sorted.len() == boxes.len();
        if reuse {
            for e in &mut self.sorted {
                *e = entry(e.index);
            }
        } else {
            self.sorted.clear();
            self.sorted.extend((0..n).map(entry));
        }
        let budget = Self::MOVES_PER_BOX * boxes.len();
        self.full_sort = !(reuse && Self::insertion_sort(&mut self.sorted, budget));
        if self.full_sort {
            // Keys are never NaN, so total order agrees with `<` (up to -0 before +0).
            self.sorted.sort_unstable_by(|a, b| a.key.total_cmp(&b.key));
        }

        // The scan reads keys alone until it stops, so they get an array of their own.
        self.keys.clear();
        self.keys.extend(self.sorted.iter().map(|e| e.key));
        self.rest.clear();
        self.rest.extend(
            self.sorted
                .iter()
                .map(|e| (e.min.x, e.max.x, e.min.y, e.max.y)),
        );
        for (k, &(min_x, max_x, min_y, max_y)) in self.rest.iter().enumerate() {
            if max_x.is_nan() {
                continue;
            }
            let later = self.keys[k + 1..].iter().zip(&self.rest[k + 1..]);
            for (m, (&key, b)) in later.enumerate() {
                // Sorted on min.x: once a box starts after `a` ends, so do all the rest.
                if key > max_x {
                    break;
                }
                // `b.min.x <= a.max.x` holds; test the other three sides literally (an
                // inverted `b` can end before `a` starts; NaN fails every test).
                if b.1 >= min_x && b.2 <= max_y && b.3 >= min_y {
                    let (a, b) = (self.sorted[k].index, self.sorted[k + 1 + m].index);
                    pairs.push(ordered(a, b));
                }
            }
        }
    }
}
