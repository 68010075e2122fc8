//! Masks edited in place (circles, masks drawn and erased, single pixels) answer every
//! query exactly as a mask built from scratch from the same pixels: the edits update the
//! lookups the first queries built rather than drop them, and these tests build them all
//! before editing so that the updates, not rebuilds, are what is checked. Then connected
//! components against a breadth-first fill, pixel by pixel, at widths across word
//! boundaries.

use std::collections::VecDeque;

use bevy_math::{Affine2, Vec2};
use pixel_collide::{
    BitMask, Connectivity, MaskRect, sprite_to_world, transformed_intersects, transformed_overlap,
};
use pixel_collide::{transformed_first_hit, transformed_overlap_area};
use pixel_collide_support::rng::SplitMix64;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed, TestCaseError};

fn config(cases: u32) -> Config {
    Config {
        cases: crate::cases(cases),
        rng_seed: RngSeed::Fixed(0x5eed_0015),
        failure_persistence: None,
        ..Config::default()
    }
}

/// Widths on both sides of one and two word boundaries, and a few odd ones.
const WIDTHS: [u32; 12] = [1, 2, 31, 63, 64, 65, 100, 127, 128, 129, 130, 200];

/// Plain pixels: the reference every edit is applied to, one `bool` at a time.
#[derive(Debug, Clone)]
struct Pixels {
    width: u32,
    height: u32,
    on: Vec<bool>,
}

impl Pixels {
    fn get(&self, x: i64, y: i64) -> bool {
        x >= 0
            && y >= 0
            && x < i64::from(self.width)
            && y < i64::from(self.height)
            && self.on[(y * i64::from(self.width) + x) as usize]
    }

    fn put(&mut self, x: i64, y: i64, on: bool) {
        if x >= 0 && y >= 0 && x < i64::from(self.width) && y < i64::from(self.height) {
            self.on[(y * i64::from(self.width) + x) as usize] = on;
        }
    }

    /// A mask from scratch: no lookup built.
    fn mask(&self) -> BitMask {
        let mut m = BitMask::new(self.width, self.height);
        for y in 0..self.height {
            for x in 0..self.width {
                m.set(x.into(), y.into(), self.get(x.into(), y.into()));
            }
        }
        m
    }

    fn of(m: &BitMask) -> Pixels {
        let (w, h) = m.size();
        let on = (0..h)
            .flat_map(|y| (0..w).map(move |x| (x, y)))
            .map(|(x, y)| m.get(x.into(), y.into()))
            .collect();
        Pixels {
            width: w,
            height: h,
            on,
        }
    }
}

/// One edit, applied to a mask through the API and to [`Pixels`] by definition.
#[derive(Debug, Clone)]
enum Edit {
    Circle {
        cx: f64,
        cy: f64,
        r: f64,
        on: bool,
    },
    Stamp {
        mask: Pixels,
        offset: (i32, i32),
        on: bool,
    },
    Set {
        x: i64,
        y: i64,
        on: bool,
    },
}

impl Edit {
    fn apply(&self, m: &mut BitMask) {
        match self {
            &Edit::Circle { cx, cy, r, on } => {
                if on {
                    m.fill_circle(cx, cy, r);
                } else {
                    m.erase_circle(cx, cy, r);
                }
            }
            Edit::Stamp { mask, offset, on } => {
                if *on {
                    m.draw(&mask.mask(), *offset);
                } else {
                    m.erase(&mask.mask(), *offset);
                }
            }
            &Edit::Set { x, y, on } => m.set(x, y, on),
        }
    }

    /// The documented meaning, pixel by pixel.
    fn apply_by_definition(&self, p: &mut Pixels) {
        let (w, h) = (i64::from(p.width), i64::from(p.height));
        match self {
            &Edit::Circle { cx, cy, r, on } => {
                if !(cx.is_finite() && cy.is_finite() && r.is_finite() && r >= 0.0) {
                    return;
                }
                for y in 0..h {
                    for x in 0..w {
                        let (dx, dy) = (x as f64 + 0.5 - cx, y as f64 + 0.5 - cy);
                        if dx * dx + dy * dy <= r * r {
                            p.put(x, y, on);
                        }
                    }
                }
            }
            Edit::Stamp { mask, offset, on } => {
                for y in 0..i64::from(mask.height) {
                    for x in 0..i64::from(mask.width) {
                        if mask.get(x, y) {
                            p.put(x + i64::from(offset.0), y + i64::from(offset.1), *on);
                        }
                    }
                }
            }
            &Edit::Set { x, y, on } => p.put(x, y, on),
        }
    }
}

/// Centers and radii near the mask (edges, corners, outside), and the absurd ones.
fn edit_strategy(w: u32, h: u32) -> impl Strategy<Value = Edit> {
    let (w, h) = (f64::from(w), f64::from(h));
    let coordinate = |side: f64| {
        prop_oneof![
            8 => -30.0..side + 30.0,
            1 => Just(0.0),
            1 => Just(side),
            1 => prop_oneof![
                Just(f64::NAN),
                Just(f64::INFINITY),
                Just(-1e300),
                Just(1e18),
                Just(f64::MIN_POSITIVE),
            ],
        ]
    };
    let radius = prop_oneof![
        8 => 0.0..40.0f64,
        1 => Just(0.5),
        1 => prop_oneof![Just(-1.0), Just(f64::NAN), Just(1e300), Just(f64::INFINITY), Just(1e6)],
    ];
    let circle = (coordinate(w), coordinate(h), radius, any::<bool>())
        .prop_map(|(cx, cy, r, on)| Edit::Circle { cx, cy, r, on });
    // Narrow stamps (a word or two a row) and wide ones (three words and more, painted
    // row by row over each row's own pixels), holed and nearly solid (rows erased whole).
    let stamp = (
        prop_oneof![3 => 1u32..=70, 1 => 71u32..=260],
        1u32..=24,
        any::<u64>(),
        prop_oneof![Just(0.6f32), Just(0.97f32)],
        any::<bool>(),
        -80i32..280,
        -40i32..120,
    )
        .prop_map(|(sw, sh, seed, p, on, ox, oy)| Edit::Stamp {
            mask: noise(sw, sh, seed, p),
            offset: (ox, oy),
            on,
        });
    let set = (-2i64..w as i64 + 2, -2i64..h as i64 + 2, any::<bool>())
        .prop_map(|(x, y, on)| Edit::Set { x, y, on });
    prop_oneof![4 => circle, 2 => stamp, 1 => set]
}

fn noise(w: u32, h: u32, seed: u64, p: f32) -> Pixels {
    let mut rng = SplitMix64(seed);
    Pixels {
        width: w,
        height: h,
        on: (0..w * h).map(|_| rng.chance(p)).collect(),
    }
}

/// Terrain-like: solid below a wavy line, with some noise in it.
fn hills(w: u32, h: u32, seed: u64) -> Pixels {
    let mut p = noise(w, h, seed, 0.15);
    for y in 0..h {
        for x in 0..w {
            let ground = f64::from(h) * (0.5 + 0.3 * (f64::from(x) / 9.0).sin());
            if f64::from(y) >= ground {
                p.put(x.into(), y.into(), true);
            }
        }
    }
    p
}

/// Probes of a few shapes, and where to put them: over the edges, inside, outside.
fn probes() -> Vec<BitMask> {
    let mut disc = BitMask::new(21, 21);
    disc.fill_circle(10.5, 10.5, 10.0);
    let mut ring = disc.clone();
    ring.erase_circle(10.5, 10.5, 6.0);
    let bar = BitMask::solid(70, 3).expect("small");
    let dot = BitMask::solid(1, 1).expect("small");
    vec![disc, ring, bar, dot]
}

fn offsets(w: u32, h: u32) -> Vec<(i32, i32)> {
    let (w, h) = (w as i32, h as i32);
    vec![
        (0, 0),
        (-10, -10),
        (w / 2 - 10, h / 2 - 10),
        (w - 5, h - 5),
        (w / 3, -3),
        (-20, h / 2),
        (w + 1, 0),
        (63, 1),
        (64, 2),
        (65, h - 1),
    ]
}

/// Transforms that rotate and scale probes across the mask, and to its side (where the
/// walk takes the mask's columns, its transposed copy).
fn placements(w: u32, h: u32) -> Vec<(Vec2, f32, f32)> {
    let (w, h) = (w as f32, h as f32);
    vec![
        (Vec2::new(w / 2.0, h / 2.0), 0.3, 1.0),
        (Vec2::new(0.0, h / 2.0), 1.1, 1.5),
        (Vec2::new(w, 0.0), -0.7, 0.8),
        (Vec2::new(w / 4.0, h), 2.0, 2.5),
        (Vec2::new(-8.0, h / 3.0), 0.0, 1.0),
        (Vec2::new(w + 6.0, h / 2.0), 0.25, 3.0),
    ]
}

/// Runs every query, so that a mask builds every lookup it has (spans, bounds, circle,
/// distance field, transposed copy and that copy's own), and returns the answers.
fn answers(m: &BitMask) -> Vec<String> {
    let mut out = vec![
        format!("{:?}", m.count()),
        format!("{:?}", m.bounding_rect()),
        format!("{:?}", m.bounding_circle()),
        format!("{:?}", m.centroid()),
        format!("{:?}", m.outline()),
    ];
    let (w, h) = m.size();
    for probe in probes() {
        for offset in offsets(w, h) {
            out.push(format!(
                "{:?} {:?} {:?} {:?} {:?}",
                m.overlap(&probe, offset),
                m.overlap_area(&probe, offset),
                probe.overlap(m, (-offset.0, -offset.1)),
                probe.overlap_area(m, (-offset.0, -offset.1)),
                Pixels::of(&m.overlap_mask(&probe, offset)).on,
            ));
        }
        // A tall probe so that the overlap runs the distance-field shortcut (32 rows+).
        let mut tall = BitMask::new(40, 40);
        tall.fill_circle(20.0, 20.0, 20.0);
        tall.erase_circle(20.0, 20.0, 17.0);
        out.push(format!(
            "{:?}",
            m.overlap_area(&tall, (w as i32 / 2 - 20, 0))
        ));
        let m_to_world = sprite_to_world(Vec2::ZERO, 0.0, Vec2::ONE, m.size());
        for (center, angle, scale) in placements(w, h) {
            let center = center - Vec2::new(w as f32, h as f32) / 2.0;
            let p_to_world = sprite_to_world(center, angle, Vec2::splat(scale), probe.size());
            for (a, at, b, bt) in [
                (m, m_to_world, &probe, p_to_world),
                (&probe, p_to_world, m, m_to_world),
            ] {
                out.push(format!(
                    "{:?} {:?} {:?} {:?}",
                    transformed_intersects(a, at, b, bt),
                    transformed_first_hit(a, at, b, bt),
                    transformed_overlap_area(a, at, b, bt),
                    transformed_overlap(a, at, b, bt),
                ));
            }
        }
    }
    let turned = Affine2::from_angle(0.5);
    out.push(format!(
        "{:?}",
        transformed_overlap_area(m, turned, m, Affine2::from_angle(-0.2))
    ));
    for (origin, direction) in [
        (Vec2::new(-1.0, h as f32 / 2.0), Vec2::X),
        (Vec2::new(w as f32 / 2.0, -1.0), Vec2::new(0.3, 1.0)),
        (
            Vec2::new(w as f32 + 1.0, h as f32 + 1.0),
            Vec2::new(-1.0, -0.7),
        ),
    ] {
        out.push(format!("{:?}", m.ray_cast(origin, direction, 1e4)));
    }
    for c in [Connectivity::Four, Connectivity::Eight] {
        out.push(format!("{:?}", m.connected_components(c)));
    }
    out
}

fn edits_match(start: &Pixels, edits: &[Edit], every_step: bool) -> Result<(), TestCaseError> {
    let mut m = start.mask();
    let mut reference = start.clone();
    // Every lookup built before the first edit, so the edits must update them.
    answers(&m);
    for (step, edit) in edits.iter().enumerate() {
        edit.apply(&mut m);
        edit.apply_by_definition(&mut reference);
        if every_step || step + 1 == edits.len() {
            prop_assert_eq!(&Pixels::of(&m).on, &reference.on, "pixels after {:?}", edit);
            let rebuilt = reference.mask();
            let (got, want) = (answers(&m), answers(&rebuilt));
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                prop_assert_eq!(g, w, "answer {} after step {}: {:?}", i, step, edit);
            }
        }
    }
    Ok(())
}

fn size_strategy() -> impl Strategy<Value = (u32, u32)> {
    (prop::sample::select(WIDTHS.to_vec()), 1u32..=90)
}

proptest! {
    #![proptest_config(config(48))]

    /// Edits on noise and on hills; every query checked after each edit.
    #[test]
    fn edited_masks_answer_as_rebuilt_ones(
        ((w, h), edits, seed, terrain) in size_strategy().prop_flat_map(|(w, h)| (
            Just((w, h)),
            prop::collection::vec(edit_strategy(w, h), 1..8),
            any::<u64>(),
            any::<bool>(),
        ))
    ) {
        let start = if terrain { hills(w, h, seed) } else { noise(w, h, seed, 0.45) };
        edits_match(&start, &edits, true)?;
    }

    /// Longer runs of edits on a larger terrain, where the distance field is updated
    /// many times before its work bound makes it rebuild; checked at the end.
    #[test]
    fn long_edit_runs_on_a_terrain_answer_as_a_rebuilt_one(
        edits in prop::collection::vec(edit_strategy(300, 160), 20..60),
        seed in any::<u64>(),
    ) {
        edits_match(&hills(300, 160, seed), &edits, false)?;
    }
}

#[test]
fn absurd_circles_change_nothing_or_clip() {
    let mut m = BitMask::new(70, 40);
    let before = m.clone();
    for (cx, cy, r) in [
        (f64::NAN, 1.0, 1.0),
        (1.0, f64::NAN, 1.0),
        (1.0, 1.0, f64::NAN),
        (f64::INFINITY, 1.0, 1.0),
        (1.0, 1.0, f64::INFINITY),
        (1.0, 1.0, -5.0),
        (-1e300, 1e300, 1e10),
        (1e9, 1e9, 1e3),
        (-100.0, 20.0, 99.0),
    ] {
        m.fill_circle(cx, cy, r);
        assert_eq!(m, before, "({cx}, {cy}, {r})");
    }
    // A radius beyond f64's square overflows to infinity: every pixel is within it.
    m.fill_circle(1e200, -1e200, 1e300);
    assert_eq!(m.count(), 70 * 40);
    m.erase_circle(35.0, 20.0, 1e9);
    assert_eq!(m.count(), 0);
    let mut empty = BitMask::new(0, 5);
    empty.fill_circle(0.0, 0.0, 10.0);
    empty.erase(&before, (0, 0));
    assert_eq!(empty.count(), 0);
}

/// Components by breadth-first search, pixel by pixel: each as its sorted pixels, in the
/// order of its first pixel (row-major).
fn reference_components(p: &Pixels, eight: bool) -> Vec<Vec<(u32, u32)>> {
    let (w, h) = (i64::from(p.width), i64::from(p.height));
    let mut label = vec![usize::MAX; (w * h) as usize];
    let mut out = Vec::new();
    for y in 0..h {
        for x in 0..w {
            if !p.get(x, y) || label[(y * w + x) as usize] != usize::MAX {
                continue;
            }
            let id = out.len();
            let mut pixels = Vec::new();
            let mut queue = VecDeque::from([(x, y)]);
            label[(y * w + x) as usize] = id;
            while let Some((px, py)) = queue.pop_front() {
                pixels.push((py as u32, px as u32));
                for (dx, dy) in [
                    (-1, 0),
                    (1, 0),
                    (0, -1),
                    (0, 1),
                    (-1, -1),
                    (1, -1),
                    (-1, 1),
                    (1, 1),
                ]
                .into_iter()
                .take(if eight { 8 } else { 4 })
                {
                    let (nx, ny) = (px + dx, py + dy);
                    if p.get(nx, ny) && label[(ny * w + nx) as usize] == usize::MAX {
                        label[(ny * w + nx) as usize] = id;
                        queue.push_back((nx, ny));
                    }
                }
            }
            pixels.sort_unstable();
            out.push(pixels.into_iter().map(|(y, x)| (x, y)).collect());
        }
    }
    out
}

/// The pixels of a returned component, in the parent's coordinates, sorted row-major.
fn component_pixels((mask, (ox, oy)): &(BitMask, (i32, i32))) -> Vec<(u32, u32)> {
    let mut pixels = Vec::new();
    for y in 0..mask.height() {
        for x in 0..mask.width() {
            if mask.get(x.into(), y.into()) {
                pixels.push((x + *ox as u32, y + *oy as u32));
            }
        }
    }
    pixels.sort_unstable_by_key(|&(x, y)| (y, x));
    pixels
}

fn components_match(p: &Pixels, region: MaskRect) -> Result<(), TestCaseError> {
    let m = p.mask();
    for (connectivity, eight) in [(Connectivity::Four, false), (Connectivity::Eight, true)] {
        let expected = reference_components(p, eight);
        let got = m.connected_components(connectivity);
        prop_assert_eq!(got.len(), expected.len(), "{:?}", connectivity);
        for (g, e) in got.iter().zip(&expected) {
            prop_assert_eq!(&component_pixels(g), e);
            // Each mask is exactly its component's bounding rectangle.
            prop_assert_eq!(g.0.bounding_rect().map(|r| (r.x, r.y)), Some((0, 0)));
            prop_assert_eq!(g.0.bounding_rect().map(|r| r.width), Some(g.0.width()));
            prop_assert_eq!(g.0.bounding_rect().map(|r| r.height), Some(g.0.height()));
        }
        // The region variant: the same components, those with a pixel in the region.
        let inside = |&(x, y): &(u32, u32)| {
            u64::from(x) >= u64::from(region.x)
                && u64::from(x) < u64::from(region.x) + u64::from(region.width)
                && u64::from(y) >= u64::from(region.y)
                && u64::from(y) < u64::from(region.y) + u64::from(region.height)
        };
        let expected_in: Vec<_> = expected.iter().filter(|c| c.iter().any(inside)).collect();
        let got_in = m.connected_components_in(region, connectivity);
        prop_assert_eq!(
            got_in.len(),
            expected_in.len(),
            "{:?} in {:?}",
            connectivity,
            region
        );
        for (g, e) in got_in.iter().zip(expected_in) {
            prop_assert_eq!(&component_pixels(g), e);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(200))]

    #[test]
    fn components_match_a_breadth_first_fill(
        ((w, h), seed, density, rx, ry, rw, rh, terrain) in (
            prop::sample::select(vec![1u32, 2, 3, 63, 64, 65, 127, 128, 129, 130, 190]),
            1u32..=40,
        ).prop_flat_map(|(w, h)| (
            Just((w, h)),
            any::<u64>(),
            prop_oneof![Just(0.3f32), Just(0.5), Just(0.6), Just(0.9)],
            0..w + 5,
            0..h + 5,
            prop_oneof![0..w + 5, Just(u32::MAX)],
            prop_oneof![0..h + 5, Just(u32::MAX)],
            any::<bool>(),
        ))
    ) {
        let p = if terrain { hills(w, h, seed) } else { noise(w, h, seed, density) };
        components_match(&p, MaskRect { x: rx, y: ry, width: rw, height: rh })?;
    }
}

#[test]
fn components_across_word_boundaries() {
    // Runs that end on a word's last bit, start on the next word's first, and a
    // diagonal that joins only with eight neighbours.
    for w in [63u32, 64, 65, 128, 129, 130] {
        let mut p = Pixels {
            width: w,
            height: 4,
            on: vec![false; (w * 4) as usize],
        };
        for x in 0..w {
            p.put(x.into(), 0, x % 64 != 63);
            p.put(x.into(), 2, x % 64 == 63 || x % 64 == 0);
        }
        p.put(1, 3, true);
        p.put(0, 2, false);
        components_match(
            &p,
            MaskRect {
                x: 62,
                y: 0,
                width: 4,
                height: 4,
            },
        )
        .unwrap_or_else(|e| panic!("width {w}: {e}"));
    }
}

/// A stamp whose set pixels all lie left of the mask or above it, while its box meets
/// the mask's, changes nothing (the region in A is empty; it used to be taken for a
/// huge one and the edit panicked).
#[test]
fn stamps_whose_pixels_miss_the_mask_change_nothing() {
    for width in [60, 128, 300] {
        let a = BitMask::solid(width, 9).expect("solid");
        let mut b = BitMask::new(102, 9);
        for y in 0..9 {
            for x in 0..40 {
                b.set(x, y, true);
            }
        }
        for offset in [(-68, -6), (-50, 0), (0, -9), (-40, -3)] {
            for on in [false, true] {
                let mut m = a.clone();
                m.bounding_rect();
                if on {
                    m.draw(&b, offset);
                } else {
                    m.erase(&b, offset);
                }
                assert!(m == a, "{width} px, {offset:?}, on {on}");
                assert_eq!(m.bounding_rect(), a.bounding_rect());
            }
        }
        // Flipped: pixels only in the stamp's bottom rows, the stamp above the mask.
        let mut c = BitMask::new(102, 9);
        c.set(5, 8, true);
        let mut m = a.clone();
        m.erase(&c, (0, -9));
        assert!(m == a);
    }
}

/// Stamps at offsets near `i32`'s ends, where `offset + size` would overflow: nothing
/// changes and nothing panics, in every build of the edit loops; a stamp placed to reach
/// back into the mask from just inside the range still lands where it should.
#[test]
fn stamps_at_extreme_offsets_change_nothing_and_never_panic() {
    use pixel_collide::WordKernel;
    let a = BitMask::solid(130, 20).expect("solid");
    let b = BitMask::solid(70, 5).expect("solid");
    let far = [
        i32::MIN,
        i32::MIN + 1,
        -(1 << 30),
        1 << 30,
        i32::MAX - 1,
        i32::MAX,
    ];
    for kernel in WordKernel::ALL.into_iter().filter(|k| k.is_available()) {
        for &x in &far {
            for &y in &[0, 3, i32::MIN, i32::MAX] {
                for on in [false, true] {
                    let mut m = a.clone();
                    m.paint_using(&b, (x, y), on, kernel);
                    assert!(m == a, "{kernel:?} at ({x}, {y}), on {on}");
                }
            }
        }
        let mut m = BitMask::new(130, 20);
        m.paint_using(&b, (-69, 19), true, kernel);
        assert_eq!(m.count(), 1, "{kernel:?}: the stamp's corner pixel");
        assert!(m.get(0, 19));
    }
}
