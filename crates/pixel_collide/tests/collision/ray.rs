//! `BitMask::ray_cast` against a brute-force reference: the smallest entry parameter of
//! the ray into any set pixel's square, found by clipping the ray to every set pixel.

use bevy_math::{DVec2, Vec2};
use pixel_collide::BitMask;
use proptest::prelude::*;

/// Entry parameter of the ray `o + d·t` into the closed square of pixel `(x, y)`, if it
/// enters within `0..=max_t` (the time-of-impact tests' brute force too).
pub(super) fn entry_into_pixel(o: DVec2, d: DVec2, max_t: f64, x: u32, y: u32) -> Option<f64> {
    let (mut t0, mut t1) = (0.0f64, max_t);
    for axis in 0..2 {
        let lo = f64::from(if axis == 0 { x } else { y });
        let hi = lo + 1.0;
        if d[axis] == 0.0 {
            if o[axis] < lo || o[axis] > hi {
                return None;
            }
            continue;
        }
        let (a, b) = ((lo - o[axis]) / d[axis], (hi - o[axis]) / d[axis]);
        t0 = t0.max(a.min(b));
        t1 = t1.min(a.max(b));
    }
    (t0 <= t1).then_some(t0)
}

fn brute_force(mask: &BitMask, origin: Vec2, direction: Vec2, max_t: f32) -> Option<f64> {
    let mut best: Option<f64> = None;
    for y in 0..mask.height() {
        for x in 0..mask.width() {
            if mask.get(x.into(), y.into())
                && let Some(t) = entry_into_pixel(
                    origin.as_dvec2(),
                    direction.as_dvec2(),
                    f64::from(max_t),
                    x,
                    y,
                )
            {
                best = Some(best.map_or(t, |b: f64| b.min(t)));
            }
        }
    }
    best
}

fn mask_strategy() -> impl Strategy<Value = BitMask> {
    (1u32..=130, 1u32..=40, 0.0f64..0.2, any::<u64>()).prop_map(|(w, h, density, seed)| {
        let mut state = seed | 1;
        let mut mask = BitMask::new(w, h);
        for y in 0..h {
            for x in 0..w {
                // xorshift: a cheap, seeded sprinkle of pixels.
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                if (state % 10_000) as f64 / 10_000.0 < density {
                    mask.set(x.into(), y.into(), true);
                }
            }
        }
        mask
    })
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 600,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x5eed_0ea7),
        ..ProptestConfig::default()
    })]

    #[test]
    fn ray_cast_finds_the_first_set_pixel(
        mask in mask_strategy(),
        ox in -20.0f32..150.0,
        oy in -20.0f32..60.0,
        angle in 0.0f32..std::f32::consts::TAU,
        axis_aligned in 0u8..4,
        length in prop_oneof![Just(f32::INFINITY), 0.0f32..200.0],
    ) {
        // A quarter of the rays run exactly along an axis, where a zero component takes
        // the code's other branches.
        let direction = if axis_aligned == 0 {
            [Vec2::X, Vec2::NEG_X, Vec2::Y, Vec2::NEG_Y][(angle * 10.0) as usize % 4]
        } else {
            Vec2::from_angle(angle) * 1.7
        };
        let origin = Vec2::new(ox, oy);
        let expected = brute_force(&mask, origin, direction, length);
        let hit = mask.ray_cast(origin, direction, length);
        match (expected, hit) {
            (None, None) => {}
            (Some(t), Some(hit)) => {
                let tolerance = 1e-4 * (1.0 + t.abs());
                prop_assert!((f64::from(hit.t) - t).abs() <= tolerance, "t {} expected {t}", hit.t);
                let [x, y] = hit.pixel;
                prop_assert!(mask.get(x.into(), y.into()), "reported pixel {x},{y} is clear");
                let own = entry_into_pixel(origin.as_dvec2(), direction.as_dvec2(), f64::INFINITY, x, y);
                prop_assert!(own.is_some_and(|own| (own - t).abs() <= tolerance),
                    "the ray enters the reported pixel at {own:?}, not {t}");
                if hit.t == 0.0 && hit.normal == Vec2::ZERO {
                    // Started inside the pixel (or on its border).
                    prop_assert!(origin.x >= x as f32 - 1e-4 && origin.x <= x as f32 + 1.0 + 1e-4);
                    prop_assert!(origin.y >= y as f32 - 1e-4 && origin.y <= y as f32 + 1.0 + 1e-4);
                } else {
                    // A unit axis vector pointing against the ray.
                    prop_assert!(hit.normal.length() == 1.0 && hit.normal.x * hit.normal.y == 0.0);
                    prop_assert!(hit.normal.dot(direction) < 0.0, "normal {:?}", hit.normal);
                }
            }
            (expected, hit) => {
                // Only a ray that grazes a corner or stops exactly at a side may disagree.
                let near_edge = expected.is_some_and(|t| (t - f64::from(length)).abs() < 1e-3);
                prop_assert!(near_edge, "expected {expected:?}, got {hit:?}");
            }
        }
    }
}

#[test]
fn bad_inputs_hit_nothing() {
    let mut mask = BitMask::new(8, 8);
    mask.fill();
    let o = Vec2::new(-1.0, 4.0);
    assert!(mask.ray_cast(o, Vec2::ZERO, 10.0).is_none());
    assert!(mask.ray_cast(o, Vec2::NAN, 10.0).is_none());
    assert!(mask.ray_cast(Vec2::NAN, Vec2::X, 10.0).is_none());
    assert!(mask.ray_cast(o, Vec2::X, f32::NAN).is_none());
    assert!(mask.ray_cast(o, Vec2::X, -1.0).is_none());
    assert!(BitMask::new(0, 0).ray_cast(o, Vec2::X, 10.0).is_none());
    assert!(BitMask::new(8, 8).ray_cast(o, Vec2::X, 10.0).is_none());
    let hit = mask.ray_cast(o, Vec2::X, 10.0).expect("a full mask is hit");
    assert_eq!((hit.pixel, hit.t, hit.normal), ([0, 4], 1.0, Vec2::NEG_X));
}

/// A ray along a row thousands of pixels long finds a pixel near its far end: the word
/// scan must cross many words and word boundaries correctly.
#[test]
fn long_rows_are_scanned_in_both_directions() {
    let mut mask = BitMask::new(5_000, 3);
    for x in [63u32, 64, 127, 128, 4_999] {
        mask.clear();
        mask.set(x.into(), 1, true);
        let right = mask.ray_cast(Vec2::new(0.0, 1.5), Vec2::X, f32::INFINITY);
        assert_eq!(right.map(|h| h.pixel), Some([x, 1]));
        let left = mask.ray_cast(Vec2::new(5_000.0, 1.5), Vec2::NEG_X, f32::INFINITY);
        assert_eq!(left.map(|h| h.pixel), Some([x, 1]));
        assert_eq!(left.map(|h| h.t), Some(5_000.0 - x as f32 - 1.0));
    }
}

/// Pixels are half-open: a ray from a set pixel's right or bottom side is outside it, and
/// enters it at once moving left or up, through that side; moving right or down from there
/// it never meets it (the clip to the mask's box took that side as inside before the fix).
#[test]
fn a_ray_from_a_pixel_side_enters_it_only_moving_into_it() {
    let mut mask = BitMask::new(12, 12);
    mask.set(5, 5, true);
    let into =
        |mask: &BitMask, origin: Vec2, direction: Vec2| mask.ray_cast(origin, direction, 4.0);
    let hit = into(&mask, Vec2::new(6.0, 5.5), Vec2::NEG_X).unwrap();
    assert_eq!((hit.pixel, hit.t, hit.normal), ([5, 5], 0.0, Vec2::X));
    let hit = into(&mask, Vec2::new(5.5, 6.0), Vec2::NEG_Y).unwrap();
    assert_eq!((hit.pixel, hit.t, hit.normal), ([5, 5], 0.0, Vec2::Y));
    assert!(into(&mask, Vec2::new(6.0, 5.5), Vec2::X).is_none());
    assert!(into(&mask, Vec2::new(5.5, 6.0), Vec2::Y).is_none());
    // The left and top sides are the pixel's own: a ray from there starts inside it.
    let hit = into(&mask, Vec2::new(5.0, 5.5), Vec2::NEG_X).unwrap();
    assert_eq!((hit.t, hit.normal), (0.0, Vec2::ZERO));
    let hit = into(&mask, Vec2::new(5.5, 5.0), Vec2::X).unwrap();
    assert_eq!((hit.t, hit.normal), (0.0, Vec2::ZERO));
    // Inside the box, on a side of a pixel of a wider mask.
    mask.set(9, 5, true);
    let hit = into(&mask, Vec2::new(6.0, 5.5), Vec2::NEG_X).unwrap();
    assert_eq!((hit.pixel, hit.t, hit.normal), ([5, 5], 0.0, Vec2::X));
}
