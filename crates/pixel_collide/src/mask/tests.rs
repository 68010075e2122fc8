//! The mask's lookups (spans, bounds, circle, outline, transposed copy, distance field)
//! against ones rebuilt from scratch, after every kind of edit: in a file of their own,
//! so that the mask's code reads without them.

use super::*;

/// Runs `check` on a mask wider than a word (rows span two), fresh and after each kind of
/// edit in turn: what a lookup kept in the mask must follow.
fn after_every_kind_of_edit(check: impl Fn(&BitMask)) {
    let mut m = BitMask::solid(70, 30).unwrap();
    check(&m);
    m.erase_circle(35.0, 15.0, 6.0);
    check(&m);
    m.set(0, 0, false);
    check(&m);
    m.set(64, 3, false);
    check(&m);
    m.fill_circle(35.0, 15.0, 3.0);
    check(&m);
    m.erase(&BitMask::solid(5, 5).unwrap(), (60, 2));
    check(&m);
    m.draw(&BitMask::solid(3, 3).unwrap(), (61, 3));
    check(&m);
    m.invert();
    check(&m);
    m.clear();
    check(&m);
    m.fill();
    check(&m);
}

/// The outline the gap queries keep is dropped by every kind of edit: after each, it
/// is the outline of the pixels as they are. One with more bytes than the mask has
/// pixels (a checkerboard's) is not kept, and still right.
#[test]
fn the_kept_outline_follows_every_edit() {
    let same = |m: &BitMask| assert_eq!(&*m.cached_outline(), &m.outline()[..]);
    after_every_kind_of_edit(same);
    let mut checkerboard = BitMask::new(64, 64);
    for y in 0..64 {
        for x in (y % 2..64).step_by(2) {
            checkerboard.set(x, y, true);
        }
    }
    same(&checkerboard);
    assert!(matches!(checkerboard.outline.get(), Some(None)));
}

/// The leading edges a stepping cast tests are the pixels whose neighbour that way is
/// clear or outside, the sideways ones transposed, after every kind of edit; a mask over
/// the limit keeps none.
#[test]
fn the_leading_edges_follow_every_edit() {
    let same = |m: &BitMask| {
        let edges = m.leading_edges().expect("a small mask keeps them");
        let (w, h) = (i64::from(m.width()), i64::from(m.height()));
        for y in 0..h {
            for x in 0..w {
                let on = m.get(x, y);
                assert_eq!(
                    edges.down.mask.get(x, y),
                    on && !m.get(x, y + 1),
                    "({x}, {y})"
                );
                assert_eq!(
                    edges.up.mask.get(x, y),
                    on && !m.get(x, y - 1),
                    "({x}, {y})"
                );
                assert_eq!(
                    edges.right_transposed.mask.get(y, x),
                    on && !m.get(x + 1, y)
                );
                assert_eq!(edges.left_transposed.mask.get(y, x), on && !m.get(x - 1, y));
            }
        }
    };
    after_every_kind_of_edit(same);
    let large = BitMask::new(1 << 9, 1 << 8);
    assert!(large.leading_edges().is_none());
}

/// The circle in half pixels, in integers, equals the one worked out in floats (the
/// formula before it) bit for bit, on random rows up to the largest coordinates.
#[test]
fn circle_in_integers_is_the_float_one_bit_for_bit() {
    let in_floats = |rect: MaskRect, spans: &[(u32, u32)]| {
        let cx = f64::from(rect.x) + f64::from(rect.width) / 2.0;
        let cy = f64::from(rect.y) + f64::from(rect.height) / 2.0;
        let farthest = (rect.y..rect.y + rect.height)
            .zip(&spans[rect.y as usize..])
            .filter(|(_, s)| s.0 < s.1)
            .map(|(y, &(first, end))| {
                let dx = (cx - f64::from(first)).max(f64::from(end) - cx);
                let dy = (cy - f64::from(y))
                    .abs()
                    .max((f64::from(y) + 1.0 - cy).abs());
                dx * dx + dy * dy
            })
            .fold(0.0f64, f64::max);
        (cx, cy, farthest.sqrt())
    };
    let mut rng = pixel_collide_seeded::rng::SplitMix64(0xC1_4C1E);
    for case in 0..2000u64 {
        let side = [7u64, 130, 4099, u64::from(BitMask::MAX_SIDE)][case as usize % 4];
        let (x, width) = (rng.next_u64() % side, 1 + rng.next_u64() % side);
        let (x, width) = (x.min(side - 1) as u32, width.min(side - x) as u32);
        let height = 1 + (rng.next_u64() % 40) as u32;
        let y = (rng.next_u64() % (side.saturating_sub(u64::from(height)) + 1)) as u32;
        let mut spans = vec![(0, 0); (y + height) as usize];
        for span in &mut spans[y as usize..] {
            if !rng.next_u64().is_multiple_of(4) {
                let a = x + (rng.next_u64() % u64::from(width)) as u32;
                let b = x + (rng.next_u64() % u64::from(width)) as u32;
                *span = (a.min(b), a.max(b) + 1);
            }
        }
        let rect = MaskRect {
            x,
            y,
            width,
            height,
        };
        let (a, b) = (circle_from_spans(rect, &spans), in_floats(rect, &spans));
        assert_eq!(
            (a.0.to_bits(), a.1.to_bits()),
            (b.0.to_bits(), b.1.to_bits())
        );
        assert_eq!(
            a.2.to_bits(),
            b.2.to_bits(),
            "{rect:?}: {} against {}",
            a.2,
            b.2
        );
    }
}
use pixel_collide_seeded::rng::SplitMix64;

#[test]
fn transposed_swaps_every_pixel_and_follows_changes() {
    let mut rng = SplitMix64(3);
    for (w, h) in [(1, 1), (1, 70), (70, 1), (64, 64), (65, 3), (130, 67)] {
        let mut m = BitMask::new(w, h);
        for y in 0..h {
            for x in 0..w {
                m.set(x.into(), y.into(), rng.chance(0.4));
            }
        }
        let t = m.transposed().expect("small masks have a transpose");
        assert_eq!(t.size(), (h, w));
        for y in 0..i64::from(h) {
            for x in 0..i64::from(w) {
                assert_eq!(t.get(y, x), m.get(x, y), "{w}x{h} at ({x}, {y})");
            }
        }
        // A change clears the cached transpose.
        let was = m.get(0, 0);
        m.set(0, 0, !was);
        assert_eq!(m.transposed().map(|t| t.get(0, 0)), Some(!was));
    }
}

/// The definition, pixel by pixel: the chessboard distance to the nearest pixel of the
/// other state, the outside counting as clear, capped at 255.
fn brute_force_field(m: &BitMask) -> Vec<u8> {
    let (w, h) = (i64::from(m.width()), i64::from(m.height()));
    let pixels: Vec<(i64, i64, bool)> = (0..h)
        .flat_map(|y| (0..w).map(move |x| (x, y)))
        .map(|(x, y)| (x, y, m.get(x, y)))
        .collect();
    pixels
        .iter()
        .map(|&(x, y, on)| {
            let to_outside = if on {
                (x + 1).min(y + 1).min(w - x).min(h - y)
            } else {
                i64::MAX
            };
            let to_other = pixels
                .iter()
                .filter(|p| p.2 != on)
                .map(|&(ox, oy, _)| (ox - x).abs().max((oy - y).abs()))
                .min()
                .unwrap_or(i64::MAX);
            to_outside.min(to_other).min(255) as u8
        })
        .collect()
}

#[test]
fn distance_field_is_the_chessboard_distance_to_the_other_state() {
    let mut rng = SplitMix64(7);
    for case in 0..40u32 {
        // Widths 1 and 2 have no interior columns; the rest are random.
        let w = if case < 4 {
            case % 2 + 1
        } else {
            1 + rng.below(100) as u32
        };
        let h = 1 + rng.below(30) as u32;
        let mut m = BitMask::new(w, h);
        // A few filled rectangles, sparse noise or both: long and short distances.
        for _ in 0..rng.below(4) {
            let (x, y) = (
                rng.below(u64::from(w)) as i64,
                rng.below(u64::from(h)) as i64,
            );
            let (rw, rh) = (rng.below(60) as i64, rng.below(20) as i64);
            for yy in y..y + rh {
                for xx in x..x + rw {
                    m.set(xx, yy, true);
                }
            }
        }
        if case % 3 == 0 {
            for _ in 0..rng.below(20) {
                let (x, y) = (rng.below(u64::from(w)), rng.below(u64::from(h)));
                m.set(x as i64, y as i64, case % 2 == 0);
            }
        }
        let field = m.distance_field().expect("small masks get a field");
        assert_eq!(field, brute_force_field(&m), "case {case}, {w}x{h}");
    }
}

/// The same pixels with no lookups built.
fn fresh(m: &BitMask) -> BitMask {
    let mut f = BitMask::new(m.width, m.height);
    f.words.clone_from(&m.words);
    f
}

/// Builds every lookup, the transposed copy's included.
fn warm(m: &BitMask) {
    m.bounding_circle();
    m.distance_field();
    if let Some(t) = m.transposed() {
        t.bounding_circle();
        t.distance_field();
    }
}

/// Every lookup `m` has built equals a fresh mask's, except the distance field, which
/// must be a lower bound of it (and at least 1, as every true distance is), and the
/// spans, rectangle and circle of loose rows, which must hold its own (see
/// [`BitMask::assert_span_lookups_hold`]).
fn assert_lookups_fresh(m: &BitMask, what: &str) {
    let f = fresh(m);
    m.assert_span_lookups_hold(&f, what);
    if let Some(Some(t)) = m.transposed.get() {
        assert_eq!(Some(&**t), f.transposed(), "{what}: transposed");
        assert_lookups_fresh(t, &format!("{what}, transposed"));
    }
    if let Some(Some(field)) = m.distance.get() {
        let exact = f
            .distance_field()
            .expect("a field when the edited mask has one");
        for (i, (&got, &want)) in field.iter().zip(exact).enumerate() {
            assert!(
                (1..=want).contains(&got),
                "{what}: field {got} at {i} is not a lower bound of {want}"
            );
        }
    }
}

fn noise(rng: &mut SplitMix64, w: u32, h: u32, p: f32) -> BitMask {
    let mut m = BitMask::new(w, h);
    for y in 0..h {
        for x in 0..w {
            m.set(x.into(), y.into(), rng.chance(p));
        }
    }
    m
}

#[test]
fn edits_keep_every_lookup_equal_to_a_rebuilt_one() {
    let mut rng = SplitMix64(11);
    for (w, h) in [
        (63, 40),
        (64, 64),
        (65, 33),
        (130, 70),
        (200, 129),
        (1, 50),
        (50, 1),
    ] {
        let mut m = noise(&mut rng, w, h, 0.5);
        // Blobs as well as noise: long runs, full words, wide distances.
        m.fill_circle(f64::from(w) / 2.0, f64::from(h), f64::from(h) * 0.7);
        warm(&m);
        for step in 0..60 {
            let (cx, cy) = (
                rng.range(-20.0, w as f32 + 20.0) as f64,
                rng.range(-20.0, h as f32 + 20.0) as f64,
            );
            let r = f64::from(rng.range(0.0, 25.0));
            match rng.below(6) {
                0 => m.fill_circle(cx, cy, r),
                1 => m.erase_circle(cx, cy, r),
                2 | 3 => {
                    let (sw, sh) = (1 + rng.below(70) as u32, 1 + rng.below(20) as u32);
                    let stamp = noise(&mut rng, sw, sh, 0.7);
                    let offset = (cx as i32, cy as i32);
                    if step % 2 == 0 {
                        m.draw(&stamp, offset);
                    } else {
                        m.erase(&stamp, offset);
                    }
                }
                4 => m.set(cx as i64, cy as i64, rng.chance(0.5)),
                _ => {
                    // Lookups dropped by the debt, or never built, build again.
                    warm(&m);
                }
            }
            assert_lookups_fresh(&m, &format!("{w}x{h} step {step}"));
        }
    }
}

/// Masks of two words a row stamped into others as wide (their own loop on AVX-512)
/// and wide rows stamped across every edge: the pixels as set one by one, and every
/// lookup as a fresh mask's.
#[test]
fn stamps_of_every_alignment_match_pixel_by_pixel_edits() {
    let mut rng = SplitMix64(23);
    for case in 0..300u32 {
        let (w, h) = if case % 2 == 0 {
            (65 + rng.below(64) as u32, 1 + rng.below(40) as u32)
        } else {
            (129 + rng.below(400) as u32, 1 + rng.below(30) as u32)
        };
        let mut m = noise(&mut rng, w, h, 0.5);
        if case % 3 == 0 {
            warm(&m);
        } else {
            m.bounding_rect();
        }
        let (sw, sh) = (
            1 + rng.below(u64::from(w) + 40) as u32,
            1 + rng.below(50) as u32,
        );
        let stamp = noise(&mut rng, sw, sh, if case % 5 == 0 { 0.98 } else { 0.6 });
        let offset = (
            rng.below(u64::from(w + sw)) as i32 - sw as i32 + 1,
            rng.below(u64::from(h + sh)) as i32 - sh as i32 + 1,
        );
        let on = rng.chance(0.5);
        let mut want = fresh(&m);
        for y in 0..sh {
            for x in 0..sw {
                if stamp.get(x.into(), y.into()) {
                    let (ax, ay) = (
                        i64::from(x) + i64::from(offset.0),
                        i64::from(y) + i64::from(offset.1),
                    );
                    want.set(ax, ay, on);
                }
            }
        }
        if on {
            m.draw(&stamp, offset);
        } else {
            m.erase(&stamp, offset);
        }
        assert!(
            m == want,
            "case {case}: {w}x{h}, {sw}x{sh} at {offset:?}, on {on}"
        );
        assert_lookups_fresh(&m, &format!("case {case}"));
    }
}

#[test]
fn an_edit_on_a_large_mask_keeps_its_field() {
    let mut m = BitMask::new(600, 400);
    m.fill_circle(300.0, 400.0, 250.0);
    warm(&m);
    m.erase_circle(300.0, 150.0, 20.0);
    assert!(
        matches!(m.distance.get(), Some(Some(_))),
        "updated, not dropped"
    );
    assert!(matches!(m.transposed.get(), Some(Some(_))));
    assert_lookups_fresh(&m, "crater");
    // Far below the crater, 255 and more from it, the field is untouched and exact.
    let exact = fresh(&m).distance_field().map(<[u8]>::to_vec).unwrap();
    let field = m.distance_field().unwrap();
    assert_eq!(field[399 * 600 + 300], exact[399 * 600 + 300]);
}

#[test]
fn an_edit_whose_window_covers_the_mask_leaves_an_exact_field() {
    let mut rng = SplitMix64(5);
    for _ in 0..50 {
        let mut m = noise(&mut rng, 16, 16, 0.6);
        warm(&m);
        let (x, y) = (6 + rng.below(4) as i64, 6 + rng.below(4) as i64);
        let on = !m.get(x, y);
        m.set(x, y, on);
        let f = fresh(&m);
        assert_eq!(m.distance_field(), f.distance_field());
    }
}

#[test]
fn edits_past_a_rebuild_worth_of_work_drop_the_field() {
    let mut m = BitMask::solid(100, 100).unwrap();
    warm(&m);
    for i in 0..200 {
        m.set(i % 100, i / 2 % 100, false);
    }
    // Dropped at some point, built again on use, and right either way.
    assert_lookups_fresh(&m, "many sets");
    assert_eq!(m.distance_field(), fresh(&m).distance_field());
}

#[test]
fn masks_too_large_for_a_field_go_without() {
    let m = BitMask::new(1 << 14, 1 << 13);
    assert!(m.distance_field().is_none());
    // And the overlap tests still answer by scanning.
    let mut dot = BitMask::new(1, 1);
    dot.set(0, 0, true);
    let mut big = BitMask::new(1 << 14, 1 << 13);
    big.set(9000, 5000, true);
    assert_eq!(big.overlap(&dot, (9000, 5000)), Some((9000, 5000)));
    // Edits keep the answer that there is none, rather than asking again.
    assert!(big.distance_field().is_none() && big.transposed().is_none());
    big.erase_circle(9000.0, 5000.0, 3.0);
    assert!(matches!(big.distance.get(), Some(None)));
    assert!(matches!(big.transposed.get(), Some(None)));
    assert_eq!(big.overlap(&dot, (9000, 5000)), None);
}
