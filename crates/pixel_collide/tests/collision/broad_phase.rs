//! Broad phases against all-pairs `Aabb2d::intersects` on seeded random scenes (sizes,
//! clusters, shared edges, NaN, inverted and infinite boxes) over frames of motion.

use bevy_math::Vec2;
use bevy_math::bounding::{Aabb2d, IntersectsVolume};
use pixel_collide::broad_phase::{
    BroadPhase, FatBoxes, SpatialHash, SweepAndPrune, UniformGrid, all_pairs,
};
use pixel_collide_support::rng::SplitMix64 as Rng;

/// The reference, written out here rather than trusting the library's `all_pairs`.
fn brute_pairs(boxes: &[Aabb2d]) -> Vec<(u32, u32)> {
    let mut pairs = Vec::new();
    for i in 0..boxes.len() {
        for j in i + 1..boxes.len() {
            if boxes[i].intersects(&boxes[j]) {
                pairs.push((i as u32, j as u32));
            }
        }
    }
    pairs
}

fn sorted(mut pairs: Vec<(u32, u32)>) -> Vec<(u32, u32)> {
    pairs.sort_unstable();
    pairs
}

fn odd_box(rng: &mut Rng) -> Aabb2d {
    let p = Vec2::new(rng.range(-200.0, 200.0), rng.range(-200.0, 200.0));
    match rng.below(8) {
        0 => Aabb2d {
            min: Vec2::new(f32::NAN, p.y),
            max: p + 10.0,
        },
        1 => Aabb2d {
            min: p,
            max: Vec2::new(p.x + 5.0, f32::NAN),
        },
        2 => Aabb2d {
            min: Vec2::NAN,
            max: Vec2::NAN,
        },
        // Inverted on one axis.
        3 => Aabb2d {
            min: p,
            max: p + Vec2::new(-30.0, 20.0),
        },
        // Infinite.
        4 => Aabb2d {
            min: Vec2::new(f32::NEG_INFINITY, p.y),
            max: Vec2::new(p.x, p.y + 3.0),
        },
        5 => Aabb2d {
            min: Vec2::NEG_INFINITY,
            max: Vec2::INFINITY,
        },
        // Huge.
        6 => Aabb2d {
            min: p - 1e4,
            max: p + Vec2::new(1e4, 2.0),
        },
        // A point.
        _ => Aabb2d { min: p, max: p },
    }
}

/// A scene of `n` boxes: uniform ones, clusters, boxes on an integer grid that share edges
/// and corners exactly, zero sizes, and with `odd` probability a NaN, inverted, infinite,
/// huge or point box.
fn scene(rng: &mut Rng, n: usize, odd: f32) -> Vec<Aabb2d> {
    let clusters: Vec<Vec2> = (0..4)
        .map(|_| Vec2::new(rng.range(-300.0, 300.0), rng.range(-300.0, 300.0)))
        .collect();
    (0..n)
        .map(|_| {
            if rng.chance(odd) {
                return odd_box(rng);
            }
            let size = Vec2::new(rng.range(0.0, 60.0), rng.range(0.0, 60.0));
            let min = match rng.below(3) {
                0 => Vec2::new(rng.range(-400.0, 400.0), rng.range(-400.0, 400.0)),
                1 => {
                    clusters[rng.below(4) as usize]
                        + Vec2::new(rng.range(-40.0, 40.0), rng.range(-40.0, 40.0))
                }
                _ => {
                    // Integer grid with integer sizes: many boxes only touch.
                    let min = Vec2::new(rng.below(20) as f32 * 10.0, rng.below(20) as f32 * 10.0);
                    return Aabb2d {
                        min,
                        max: min
                            + Vec2::new(rng.below(3) as f32 * 10.0, rng.below(3) as f32 * 10.0),
                    };
                }
            };
            Aabb2d {
                min,
                max: min + size,
            }
        })
        .collect()
}

/// Moves each finite box a little, some a lot, as a crowd would between frames.
fn advance(rng: &mut Rng, boxes: &mut [Aabb2d], velocities: &[Vec2]) {
    for (b, v) in boxes.iter_mut().zip(velocities) {
        let v = if rng.chance(0.01) {
            Vec2::new(rng.range(-500.0, 500.0), rng.range(-500.0, 500.0))
        } else {
            *v
        };
        b.min += v;
        b.max += v;
    }
}

fn check_all(broad: &mut [Box<dyn BroadPhase>], boxes: &[Aabb2d], context: &str) {
    let expected = brute_pairs(boxes);
    let mut reference = Vec::new();
    all_pairs(boxes, &mut reference);
    assert_eq!(sorted(reference), expected, "all_pairs, {context}");
    let mut pairs = vec![(7, 3)]; // must be cleared
    for (k, phase) in broad.iter_mut().enumerate() {
        phase.update(boxes, &mut pairs);
        assert!(
            pairs.iter().all(|&(i, j)| i < j),
            "phase {k}: i < j, {context}"
        );
        assert_eq!(sorted(pairs.clone()), expected, "phase {k}, {context}");
    }
}

fn phases() -> Vec<Box<dyn BroadPhase>> {
    vec![
        Box::new(SweepAndPrune::new()),
        Box::new(SpatialHash::new()),
        // Small cells: boxes span many cells and many go to the "big" list.
        Box::new(SpatialHash::with_cell_size(3.0)),
        Box::new(SpatialHash::with_cell_factor(4.0)),
        Box::new(SpatialHash::with_cell_size(1000.0)),
        Box::new(UniformGrid::new()),
        Box::new(FatBoxes::new(UniformGrid::new())),
        Box::new(FatBoxes::new(SweepAndPrune::new())),
    ]
}

/// Slow motion: most updates reuse the fat pairs, and every one is still exact, also
/// while boxes turn NaN, jump, or the count changes.
#[test]
fn fat_boxes_stay_exact_between_rebuilds() {
    for seed in 0..8u64 {
        let mut rng = Rng(100 + seed);
        let mut boxes = scene(&mut rng, 400, 0.0);
        let velocities: Vec<Vec2> = (0..boxes.len())
            .map(|_| Vec2::new(rng.range(-0.3, 0.3), rng.range(-0.3, 0.3)))
            .collect();
        let mut fat = FatBoxes::new(UniformGrid::new());
        let mut pairs = Vec::new();
        let frames = 40;
        for frame in 0..frames {
            fat.update(&boxes, &mut pairs);
            let context = format!("seed {seed}, frame {frame}");
            assert_eq!(sorted(pairs.clone()), brute_pairs(&boxes), "{context}");
            for (b, v) in boxes.iter_mut().zip(&velocities) {
                b.min += *v;
                b.max += *v;
            }
            match frame {
                10 => boxes[3].min.x = f32::NAN,
                20 => boxes[5] = boxes[6],
                30 => boxes.truncate(300),
                _ => {}
            }
        }
        assert!(
            fat.rebuilds() < frames / 2,
            "seed {seed}: {} rebuilds in {frames} frames",
            fat.rebuilds()
        );
    }
}

/// Worlds that strain a grid: two clusters far apart (a sparse grid must grow its
/// cells), every box at one point, boxes far from the origin, and a few huge boxes among
/// small ones (they must not coarsen the grid, and are tested against everything).
#[test]
fn grid_handles_sparse_degenerate_and_far_worlds() {
    let mut rng = Rng(4242);
    let small = |rng: &mut Rng, at: Vec2| {
        let min = at + Vec2::new(rng.range(-50.0, 50.0), rng.range(-50.0, 50.0));
        Aabb2d {
            min,
            max: min + Vec2::new(rng.range(0.0, 20.0), rng.range(0.0, 20.0)),
        }
    };
    let mut worlds: Vec<(&str, Vec<Aabb2d>)> = Vec::new();
    worlds.push((
        "two clusters 1e7 apart",
        (0..400)
            .map(|k| small(&mut rng, Vec2::splat(if k % 2 == 0 { 0.0 } else { 1e7 })))
            .collect(),
    ));
    worlds.push((
        "one point",
        vec![
            Aabb2d {
                min: Vec2::splat(3.0),
                max: Vec2::splat(3.0)
            };
            50
        ],
    ));
    worlds.push((
        "far from the origin",
        (0..300)
            .map(|_| small(&mut rng, Vec2::new(-3e6, 2.5e6)))
            .collect(),
    ));
    let mut mixed: Vec<Aabb2d> = (0..300).map(|_| small(&mut rng, Vec2::ZERO)).collect();
    for k in 0..5 {
        let min = Vec2::splat(-60.0 + k as f32 * 7.0);
        mixed.push(Aabb2d {
            min,
            max: min + Vec2::new(300.0, 40.0 + k as f32),
        });
    }
    worlds.push(("huge among small", mixed));
    // Just over the capped cell: such boxes cover two or three cells and must leave the grid.
    let mut medium: Vec<Aabb2d> = (0..3000)
        .map(|_| {
            let at = Vec2::new(rng.range(-500.0, 500.0), rng.range(-500.0, 500.0));
            small(&mut rng, at)
        })
        .collect();
    for _ in 0..300 {
        let min = Vec2::new(rng.range(-550.0, 550.0), rng.range(-550.0, 550.0));
        medium.push(Aabb2d {
            min,
            max: min + Vec2::new(rng.range(30.0, 110.0), rng.range(30.0, 110.0)),
        });
    }
    worlds.push(("medium among small", medium));
    worlds.push((
        "extreme coordinates",
        vec![
            Aabb2d {
                min: Vec2::splat(-3e38),
                max: Vec2::splat(-3e38),
            },
            Aabb2d {
                min: Vec2::splat(3e38),
                max: Vec2::splat(3e38),
            },
            Aabb2d {
                min: Vec2::splat(-1e30),
                max: Vec2::splat(1e30),
            },
            Aabb2d {
                min: Vec2::ZERO,
                max: Vec2::ONE,
            },
        ],
    ));
    for (name, boxes) in &worlds {
        let mut phases: [Box<dyn BroadPhase>; 2] = [
            Box::new(UniformGrid::new()),
            Box::new(FatBoxes::new(UniformGrid::new())),
        ];
        check_all(&mut phases, boxes, name);
    }
}

#[test]
fn broad_phases_match_all_pairs_over_frames() {
    for seed in 0..24u64 {
        let mut rng = Rng(seed);
        let n = [0, 1, 2, 5, 40, 300][seed as usize % 6];
        let odd = if seed % 3 == 0 { 0.0 } else { 0.08 };
        let mut boxes = scene(&mut rng, n, odd);
        let velocities: Vec<Vec2> = (0..n)
            .map(|_| Vec2::new(rng.range(-4.0, 4.0), rng.range(-4.0, 4.0)))
            .collect();
        let mut broad = phases();
        for frame in 0..12 {
            check_all(&mut broad, &boxes, &format!("seed {seed}, frame {frame}"));
            advance(&mut rng, &mut boxes, &velocities);
        }
        // A different count: the persistent order is rebuilt.
        boxes.extend(scene(&mut rng, 7, odd));
        check_all(&mut broad, &boxes, &format!("seed {seed}, grown"));
        boxes.truncate(boxes.len() / 2);
        check_all(&mut broad, &boxes, &format!("seed {seed}, shrunk"));
    }
}

#[test]
fn sweep_and_prune_repairs_last_order_by_insertion_sort() {
    let mut rng = Rng(99);
    let mut boxes = scene(&mut rng, 2000, 0.0);
    let velocities: Vec<Vec2> = (0..boxes.len())
        .map(|_| Vec2::new(rng.range(-2.0, 2.0), rng.range(-2.0, 2.0)))
        .collect();
    let mut sap = SweepAndPrune::new();
    let mut pairs = Vec::new();
    sap.update(&boxes, &mut pairs);
    assert!(sap.used_full_sort(), "the first frame sorts from scratch");
    for frame in 0..5 {
        for (b, v) in boxes.iter_mut().zip(&velocities) {
            b.min += *v;
            b.max += *v;
        }
        sap.update(&boxes, &mut pairs);
        assert!(
            !sap.used_full_sort(),
            "frame {frame}: small motion is repaired"
        );
        assert_eq!(sorted(pairs.clone()), brute_pairs(&boxes));
    }
    // Scrambled: insertion sort gives up and a full sort takes over, still exact.
    boxes.reverse();
    sap.update(&boxes, &mut pairs);
    assert!(sap.used_full_sort());
    assert_eq!(sorted(pairs.clone()), brute_pairs(&boxes));
}

#[test]
fn touching_boxes_are_pairs() {
    let unit = |x: f32, y: f32| Aabb2d {
        min: Vec2::new(x, y),
        max: Vec2::new(x + 1.0, y + 1.0),
    };
    // Sharing an edge, sharing only a corner, and a gap.
    let boxes = [
        unit(0.0, 0.0),
        unit(1.0, 0.0),
        unit(2.0, 1.0),
        unit(4.0, 4.0),
    ];
    for mut phase in phases() {
        let mut pairs = Vec::new();
        phase.update(&boxes, &mut pairs);
        assert_eq!(sorted(pairs), vec![(0, 1), (1, 2)]);
    }
}

#[test]
fn nan_boxes_are_skipped_without_panicking() {
    let nan = Aabb2d {
        min: Vec2::NAN,
        max: Vec2::NAN,
    };
    let boxes = vec![nan; 50];
    for mut phase in phases() {
        let mut pairs = Vec::new();
        phase.update(&boxes, &mut pairs);
        assert!(pairs.is_empty());
    }
}

// ---- crowd -------------------------------------------------------------------------------

/// An outlier: a box far larger than the rest, or a small box far away, or an infinite
/// one; what a body teleported to 1e9, or a level's bounds box, looks like.
fn outlier(rng: &mut Rng) -> Aabb2d {
    let far = 10f32.powf(rng.range(4.0, 30.0));
    let at = Vec2::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0)) * far;
    match rng.below(4) {
        0 => Aabb2d {
            min: Vec2::splat(-far),
            max: Vec2::splat(far),
        },
        1 => Aabb2d {
            min: Vec2::new(-far, rng.range(-50.0, 50.0)),
            max: Vec2::new(far, rng.range(50.0, 60.0)),
        },
        2 => Aabb2d {
            min: at,
            max: at + 20.0,
        },
        _ => Aabb2d {
            min: Vec2::new(f32::NEG_INFINITY, at.y),
            max: Vec2::new(at.x, f32::INFINITY),
        },
    }
}

/// A few outliers among many small boxes: the pairs stay exact, and the work the default
/// broad phase keeps (fat pairs, the grid's cell) follows the small boxes, not the
/// outliers. Before, one box spanning ±1e9 made the fat margin a quarter of the mean
/// extent (~50,000 with 10,000 boxes of 64), every fat box met every other, and the
/// update stored 50 million pairs (1 GB) and took a third of a second.
#[test]
fn outliers_neither_break_exactness_nor_inflate_the_work() {
    for seed in 0..12u64 {
        let mut rng = Rng(9000 + seed);
        let n = [300, 1500, 3000][seed as usize % 3];
        // Small boxes spread thinly: about a box's own area of neighbours each.
        let side = (n as f32).sqrt() * 80.0;
        let mut boxes: Vec<Aabb2d> = (0..n)
            .map(|_| {
                let min = Vec2::new(rng.range(0.0, side), rng.range(0.0, side));
                Aabb2d {
                    min,
                    max: min + Vec2::new(rng.range(10.0, 64.0), rng.range(10.0, 64.0)),
                }
            })
            .collect();
        let outliers = 1 + rng.below(4) as usize;
        for _ in 0..outliers {
            let at = rng.below(boxes.len() as u64) as usize;
            boxes.insert(at, outlier(&mut rng));
        }
        let context = format!("seed {seed}, {n} boxes, {outliers} outliers");
        let expected = brute_pairs(&boxes);
        let mut fat = FatBoxes::new(UniformGrid::new());
        let mut pairs = Vec::new();
        fat.update(&boxes, &mut pairs);
        assert_eq!(sorted(pairs.clone()), expected, "fat grid, {context}");
        let mut grid = UniformGrid::new();
        grid.update(&boxes, &mut pairs);
        assert_eq!(sorted(pairs.clone()), expected, "grid, {context}");
        for (k, mut phase) in phases().into_iter().enumerate() {
            phase.update(&boxes, &mut pairs);
            assert_eq!(sorted(pairs.clone()), expected, "phase {k}, {context}");
        }

        // Margin and cell are sized by the small boxes (at most 64 a side).
        assert!(
            fat.margin() <= 64.0 * FatBoxes::<UniformGrid>::MARGIN,
            "{context}"
        );
        assert!(
            grid.cell_size() <= 4.0 * 64.0,
            "{}: {context}",
            grid.cell_size()
        );
        // Each outlier can meet every box; beyond that, fat pairs are a few per box.
        let bound = outliers * boxes.len() + 8 * boxes.len();
        assert!(
            fat.fat_pair_count() <= bound,
            "{}: {context}",
            fat.fat_pair_count()
        );
    }
}
