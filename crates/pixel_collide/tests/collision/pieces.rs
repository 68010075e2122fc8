//! Pieces (`pixel_collide::pieces`): what `cut_loose` takes is exactly the parts that reach
//! no anchor, nothing is lost or made, and `settle_into` lays a piece back pixel for pixel,
//! wherever the target lies in the world.

use std::sync::Arc;

use bevy_math::{Affine2, Vec2};
use pixel_collide::pieces::{PieceAnchor, cut_loose, settle_into};
use pixel_collide::{BitMask, Connectivity, MaskRect, sprite_to_world};
use pixel_collide_support::rng::SplitMix64;

/// Random blobs over a floor, with holes: parts of every kind, some floating.
fn blobs(rng: &mut SplitMix64, w: u32, h: u32) -> BitMask {
    let mut mask = BitMask::new(w, h);
    for _ in 0..12 {
        let (cx, cy, r) = (
            rng.range(0.0, w as f32),
            rng.range(0.0, h as f32),
            rng.range(2.0, 9.0),
        );
        mask.fill_circle(f64::from(cx), f64::from(cy), f64::from(r));
    }
    for x in 0..w {
        for y in h - 4..h {
            mask.set(i64::from(x), i64::from(y), rng.chance(0.9));
        }
    }
    for _ in 0..5 {
        let (cx, cy, r) = (
            rng.range(0.0, w as f32),
            rng.range(0.0, h as f32),
            rng.range(1.0, 5.0),
        );
        mask.erase_circle(f64::from(cx), f64::from(cy), f64::from(r));
    }
    mask
}

fn touches_anchor(anchor: &PieceAnchor, size: (u32, u32), piece: &BitMask, at: (i32, i32)) -> bool {
    let (w, h) = (size.0 as i64, size.1 as i64);
    let (x, y) = (i64::from(at.0), i64::from(at.1));
    let mut touches = false;
    for v in 0..i64::from(piece.height()) {
        for u in 0..i64::from(piece.width()) {
            if !piece.get(u, v) {
                continue;
            }
            let (px, py) = (x + u, y + v);
            touches |= match anchor {
                PieceAnchor::BottomRow => py == h - 1,
                PieceAnchor::Edges => px == 0 || py == 0 || px == w - 1 || py == h - 1,
                PieceAnchor::Pixels(pixels) => pixels.get(px, py),
                PieceAnchor::Largest | PieceAnchor::Everywhere => unreachable!(),
            };
        }
    }
    touches
}

#[test]
fn cut_loose_takes_exactly_the_unanchored_parts_near_the_edit() {
    let mut rng = SplitMix64(0x0c07_105e);
    for case in 0..60 {
        let (w, h) = (70 + rng.below(50) as u32, 40 + rng.below(30) as u32);
        let mut bedrock = BitMask::new(w, h);
        bedrock.fill_circle(f64::from(w / 3), f64::from(h / 2), 4.0);
        let anchor = match case % 3 {
            0 => PieceAnchor::BottomRow,
            1 => PieceAnchor::Edges,
            _ => PieceAnchor::Pixels(Arc::new(bedrock)),
        };
        let mut mask = blobs(&mut rng, w, h);
        let region = MaskRect {
            x: rng.below(u64::from(w / 2)) as u32,
            y: rng.below(u64::from(h / 2)) as u32,
            width: 5 + rng.below(30) as u32,
            height: 5 + rng.below(20) as u32,
        };
        let before = mask.clone();
        let loose = cut_loose(&mut mask, region, Connectivity::Eight, &anchor);
        let taken: u64 = loose.iter().map(|(piece, _)| piece.count()).sum();
        assert_eq!(
            before.count(),
            mask.count() + taken,
            "case {case}: conserved"
        );
        for (piece, at) in &loose {
            assert!(
                !touches_anchor(&anchor, (w, h), piece, *at),
                "case {case}: a loose piece reaches its anchor"
            );
            assert_eq!(
                before.overlap_area(piece, *at),
                piece.count(),
                "case {case}: a piece is the mask's pixels"
            );
            assert_eq!(mask.overlap(piece, *at), None, "case {case}: and left it");
        }
        // Every part still near the edit holds to the anchor; those apart from it were
        // not looked at.
        for (part, at) in mask.connected_components_in(region, Connectivity::Eight) {
            assert!(
                touches_anchor(&anchor, (w, h), &part, at),
                "case {case}: a floating part left near the edit"
            );
        }
    }
}

#[test]
fn the_largest_part_stays_and_everywhere_cuts_nothing() {
    let mut rng = SplitMix64(0x01a7_6e57);
    for case in 0..30 {
        let mut mask = blobs(&mut rng, 80, 50);
        let parts = mask.connected_components(Connectivity::Four);
        let largest = parts.iter().map(|(p, _)| p.count()).max().unwrap_or(0);
        let mut kept = mask.clone();
        assert!(
            cut_loose(
                &mut kept,
                MaskRect {
                    x: 0,
                    y: 0,
                    width: 80,
                    height: 50
                },
                Connectivity::Four,
                &PieceAnchor::Everywhere
            )
            .is_empty()
        );
        assert_eq!(kept, mask, "case {case}: nothing cut everywhere");
        let loose = cut_loose(
            &mut mask,
            MaskRect {
                x: 0,
                y: 0,
                width: 1,
                height: 1,
            },
            Connectivity::Four,
            &PieceAnchor::Largest,
        );
        assert_eq!(loose.len(), parts.len().saturating_sub(1), "case {case}");
        assert_eq!(
            mask.count(),
            largest,
            "case {case}: the largest part is what stays"
        );
    }
}

#[test]
fn settle_into_lays_an_unturned_piece_back_where_it_was_anywhere_in_the_world() {
    let mut rng = SplitMix64(0x5e771e);
    for case in 0..40 {
        let original = blobs(&mut rng, 60, 40);
        let mut target = original.clone();
        let region = MaskRect {
            x: 0,
            y: 0,
            width: 60,
            height: 40,
        };
        let loose = cut_loose(
            &mut target,
            region,
            Connectivity::Eight,
            &PieceAnchor::BottomRow,
        );
        // The target anywhere in the world, turned, scaled and flipped.
        let angle = rng.range(-3.0, 3.0);
        let scale = Vec2::new(rng.range(0.5, 3.0), rng.range(0.5, 3.0))
            * if case % 2 == 0 { 1.0 } else { -1.0 };
        let target_to_world = sprite_to_world(
            Vec2::new(rng.range(-1e3, 1e3), rng.range(-1e3, 1e3)),
            angle,
            scale,
            (60, 40),
        );
        let world_to_target = target_to_world.inverse();
        let mut pixels = target.count();
        for (piece, at) in &loose {
            // The piece where it was cut: its pixels on the target's.
            let piece_to_world =
                target_to_world * Affine2::from_translation(Vec2::new(at.0 as f32, at.1 as f32));
            let laid = settle_into(&mut target, piece, piece_to_world, world_to_target);
            assert_eq!(laid.lost, 0, "case {case}");
            assert_eq!(laid.moved.len() as u64, piece.count(), "case {case}");
            pixels += piece.count();
            assert_eq!(target.count(), pixels, "case {case}: every pixel laid in");
        }
        // A piece laid where it was, unturned in its target's frame, is the target as it
        // was, but for pieces that floated and were lowered onto what is under them.
        let cut: u64 = loose.iter().map(|(p, _)| p.count()).sum();
        assert_eq!(target.count(), original.count(), "case {case}");
        if cut == 0 {
            assert_eq!(target, original, "case {case}");
        }
    }
}

#[test]
fn settle_into_refuses_nothing_and_loses_what_lies_outside() {
    let mut target = BitMask::new(30, 20);
    let piece = BitMask::solid(5, 5).unwrap();
    // Non-finite placements lose the pixels, counted, and never panic.
    let nan = Affine2::from_translation(Vec2::NAN);
    let laid = settle_into(&mut target, &piece, nan, Affine2::IDENTITY);
    assert_eq!((laid.lost, target.count()), (25, 0));
    // Far outside: nothing lands, everything is lost.
    let far = Affine2::from_translation(Vec2::new(1e9, -1e9));
    let laid = settle_into(&mut target, &piece, far, Affine2::IDENTITY);
    assert_eq!((laid.lost, target.count()), (25, 0));
    // An empty piece does nothing.
    let laid = settle_into(
        &mut target,
        &BitMask::new(4, 4),
        Affine2::IDENTITY,
        Affine2::IDENTITY,
    );
    assert_eq!((laid.lost, laid.moved.len()), (0, 0));
}
