//! What each fuzz target checks, one function per target. A check panics when a property
//! fails; the input is whatever libFuzzer (or the replay test, on the committed corpus)
//! gives it. Each says what it holds the code to, beyond "does not panic".

use std::io::Cursor;

use bevy_math::bounding::BoundingVolume;
use bevy_math::{Affine2, Mat2, Vec2};
use image::ImageDecoder;
use image::codecs::png::PngDecoder;
use pixel_collide::{
    BitMask, MaskError, MaskLimits, png_declared_size, transformed_first_hit, transformed_gap,
    transformed_gaps, transformed_intersects, transformed_overlap, transformed_overlap_area,
    world_bounds,
};

/// The game's sheet description module, compiled here as it is in the game: the game's
/// crate links Bevy, which a fuzz build would instrument and build for most of an hour.
#[path = "../../../src/sheet.rs"]
pub mod sheet;

/// Reads fuzz bytes as numbers, with zeros once they run out, so every input is usable.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn take<const N: usize>(&mut self) -> [u8; N] {
        let mut out = [0; N];
        let n = N.min(self.0.len());
        out[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        out
    }
    fn u8(&mut self) -> u8 {
        self.take::<1>()[0]
    }
    fn u32(&mut self) -> u32 {
        u32::from_le_bytes(self.take())
    }
    fn f32(&mut self) -> f32 {
        f32::from_le_bytes(self.take())
    }
    fn rest(&mut self) -> &[u8] {
        std::mem::take(&mut self.0)
    }
}

/// The pixels the plugin's PNG guard lets a decoder allocate for (its default limit).
const DECODE_LIMIT_PIXELS: u64 = 1 << 20;

/// The plugin's PNG guard, then the decode and mask it lets through:
/// - `png_declared_size` reads the size whenever the `image` crate's PNG decoder (the one
///   Bevy's loader uses) reads a header, and the same size;
/// - a file the guard passes decodes to that size, or fails with an error, and its mask
///   is the decoded alpha.
pub fn png_header(data: &[u8]) {
    let declared = png_declared_size(data);
    let Ok(decoder) = PngDecoder::new(Cursor::new(data)) else {
        return;
    };
    let dimensions = decoder.dimensions();
    assert_eq!(
        declared,
        Some(dimensions),
        "the decoder reads a header the guard does not"
    );
    let (width, height) = dimensions;
    if u64::from(width) * u64::from(height) > DECODE_LIMIT_PIXELS {
        return;
    }
    let Ok(image) = image::DynamicImage::from_decoder(decoder) else {
        return;
    };
    assert_eq!((image.width(), image.height()), dimensions);
    let rgba = image.to_rgba8();
    let mask = BitMask::from_image(&rgba, 0);
    assert_eq!((mask.width(), mask.height()), dimensions);
    let solid = rgba.pixels().filter(|p| p.0[3] > 0).count() as u64;
    assert_eq!(mask.count(), solid);
}

/// A `.sheet.ron` as the loader reads it, then the grid of a sheet of a size from the
/// input: an accepted description has frames of at least a pixel, and an accepted grid
/// has at most [`sheet::MAX_SHEET_FRAMES`] frames, every one whole inside the sheet.
/// Every error's message names the file.
pub fn sheet_description(data: &[u8]) {
    let mut bytes = Bytes(data);
    let sheet_size = bevy_math::UVec2::new(bytes.u32(), bytes.u32());
    let file = "fuzz.sheet.ron";
    let description = match sheet::sheet_description_from_bytes(bytes.rest(), file) {
        Ok(description) => description,
        Err(err) => {
            assert!(err.to_string().starts_with(file), "{err}");
            return;
        }
    };
    assert!(description.frame_width > 0 && description.frame_height > 0);
    assert!(description.frame_count > 0);
    let grid = match description.grid(sheet_size, file) {
        Ok(grid) => grid,
        Err(err) => {
            assert!(err.to_string().starts_with(file), "{err}");
            return;
        }
    };
    assert!(grid.count <= sheet::MAX_SHEET_FRAMES);
    assert!(u64::from(grid.count) <= u64::from(grid.columns) * u64::from(grid.rows));
    for index in 0..grid.count {
        let origin = grid.origin(index);
        for axis in 0..2 {
            let end = u64::from(origin[axis]) + u64::from(grid.frame[axis]);
            assert!(
                end <= u64::from(sheet_size[axis]),
                "frame {index} leaves the sheet"
            );
        }
    }
}

/// `BitMask::from_rgba8_within` on any size, buffer, threshold and limit: a mask exactly
/// when the size is within the limits and the buffer holds its pixels, and then bit
/// `(x, y)` is "alpha > threshold"; otherwise the error that says which.
pub fn mask_from_rgba8(data: &[u8]) {
    let mut bytes = Bytes(data);
    let flags = bytes.u8();
    let threshold = bytes.u8();
    let mut width = bytes.u32();
    let mut height = bytes.u32();
    let limits = MaskLimits::new(bytes.u32(), u64::from(bytes.u32()));
    let rgba = bytes.rest();
    // Half the inputs get a size that fits the buffer, so masks do get built.
    if flags & 1 == 1 {
        width %= 97;
        let pixels = rgba.len() as u32 / 4;
        height = pixels.checked_div(width).unwrap_or(height % 5);
    }
    let limits = if flags & 2 == 2 {
        MaskLimits::DEFAULT
    } else {
        limits
    };
    let result = BitMask::from_rgba8_within(width, height, rgba, threshold, limits);
    let fits = u128::from(width) * u128::from(height) * 4 == rgba.len() as u128;
    match result {
        Ok(mask) => {
            assert!(limits.check(width, height).is_ok() && fits);
            assert_eq!((mask.width(), mask.height()), (width, height));
            let mut solid = 0;
            for (index, pixel) in rgba.chunks_exact(4).enumerate() {
                let (x, y) = (index as u32 % width, index as u32 / width);
                let expected = pixel[3] > threshold;
                assert_eq!(mask.get(x.into(), y.into()), expected, "pixel ({x}, {y})");
                solid += u64::from(expected);
            }
            assert_eq!(mask.count(), solid);
        }
        Err(MaskError::TooLarge { .. }) => assert!(limits.check(width, height).is_err()),
        Err(MaskError::BufferSize { .. }) => assert!(!fits),
        Err(err) => panic!("unexpected error {err}"),
    }
}

/// A small mask whose size and pixels come from the input.
fn small_mask(bytes: &mut Bytes) -> BitMask {
    let width = 1 + u32::from(bytes.u8() % 24);
    let height = 1 + u32::from(bytes.u8() % 24);
    let mut mask = BitMask::new(width, height);
    let seed = bytes.u32();
    let density = bytes.u8();
    let mut state = u64::from(seed) | 1;
    for y in 0..height {
        for x in 0..width {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            mask.set(x.into(), y.into(), (state & 0xff) as u8 <= density);
        }
    }
    mask
}

/// A transform from the input: either raw floats (NaN, infinities, zero and huge scales)
/// or a sprite's rotation, scale, flips and position in a game's range.
fn transform(bytes: &mut Bytes) -> Affine2 {
    if bytes.u8() & 1 == 0 {
        let m = Mat2::from_cols_array(&[bytes.f32(), bytes.f32(), bytes.f32(), bytes.f32()]);
        return Affine2::from_mat2_translation(m, Vec2::new(bytes.f32(), bytes.f32()));
    }
    let unit = |b: u8| f32::from(b) / 255.0;
    let angle = unit(bytes.u8()) * std::f32::consts::TAU;
    let flips = bytes.u8();
    let sign = |bit: u8| if flips & bit != 0 { -1.0 } else { 1.0 };
    let scale = Vec2::new(
        sign(1) * (0.25 + 3.75 * unit(bytes.u8())),
        sign(2) * (0.25 + 3.75 * unit(bytes.u8())),
    );
    let position = Vec2::new(f32::from(bytes.u8()) - 128.0, f32::from(bytes.u8()) - 128.0) / 4.0;
    Affine2::from_scale_angle_translation(scale, angle, position)
}

/// Whether the core accepts a transform: finite, with a finite non-zero determinant.
fn usable(t: Affine2) -> bool {
    let det = t.matrix2.determinant();
    t.is_finite() && det.is_finite() && det != 0.0
}

/// The definition of "A's pixel lands on B", literally, in f32 as the docs state it.
fn lands_on_b(a_to_world: Affine2, b: &BitMask, world_to_b: Affine2, i: u32, j: u32) -> bool {
    let center = Vec2::new(i as f32 + 0.5, j as f32 + 0.5);
    let p = world_to_b.transform_point2(a_to_world.transform_point2(center));
    p.x >= 0.0
        && p.y >= 0.0
        && p.x < b.width() as f32
        && p.y < b.height() as f32
        && b.get(p.x as i64, p.y as i64)
}

/// The transformed queries on small masks under any transforms:
/// - refused transforms give no overlap, no contact and no gap (overlap also refuses A's
///   transform into B's space when that one is not usable);
/// - gaps only between masks apart, finite, within reach, and the nearest one exactly
///   when there is any;
/// - otherwise the area is the brute-force count of the definition, the yes/no, the
///   first hit and the contact agree with it, and the contact and gaps are finite, with
///   unit normals and the contact's point inside A's world box.
pub fn transformed(data: &[u8]) {
    let mut bytes = Bytes(data);
    let a = small_mask(&mut bytes);
    let b = small_mask(&mut bytes);
    let a_to_world = transform(&mut bytes);
    let b_to_world = transform(&mut bytes);
    let max_distance = f32::from(bytes.u8()) / 8.0;

    let area = transformed_overlap_area(&a, a_to_world, &b, b_to_world);
    let contact = transformed_overlap(&a, a_to_world, &b, b_to_world);
    let first = transformed_first_hit(&a, a_to_world, &b, b_to_world);
    assert_eq!(
        transformed_intersects(&a, a_to_world, &b, b_to_world),
        area > 0
    );
    assert_eq!(first.is_some(), area > 0);
    assert_eq!(
        contact.map(|c| u64::from(c.count)),
        (area > 0).then_some(area)
    );

    let mut gaps = Vec::new();
    transformed_gaps(&a, a_to_world, &b, b_to_world, max_distance, &mut gaps);
    check_gaps(&gaps, area, max_distance);
    let nearest = transformed_gap(&a, a_to_world, &b, b_to_world, max_distance);
    assert_eq!(nearest.is_some(), !gaps.is_empty());
    if !(usable(a_to_world) && usable(b_to_world)) {
        assert!(gaps.is_empty(), "a refused transform has gaps");
    }

    // The overlap also refuses A's transform into B's space when that is not usable.
    let world_to_b = b_to_world.inverse();
    let accepted = usable(a_to_world) && usable(b_to_world) && usable(world_to_b * a_to_world);
    if !accepted {
        assert_eq!(area, 0, "a refused transform overlaps");
        return;
    }
    let brute_force = (0..a.height())
        .flat_map(|j| (0..a.width()).map(move |i| (i, j)))
        .filter(|&(i, j)| a.get(i.into(), j.into()))
        .filter(|&(i, j)| lands_on_b(a_to_world, &b, world_to_b, i, j))
        .count() as u64;
    assert_eq!(area, brute_force, "overlap area against the definition");
    if let Some([i, j]) = first {
        assert!(a.get(i.into(), j.into()) && lands_on_b(a_to_world, &b, world_to_b, i, j));
    }
    if let Some(contact) = contact {
        assert!(contact.point.is_finite() && contact.normal.is_finite());
        assert!(
            contact.depth.is_finite() && contact.depth > 0.0,
            "{contact:?}"
        );
        assert!((contact.normal.length() - 1.0).abs() < 1e-3, "{contact:?}");
        // The mean of A's samples, so inside A's box. (Not always inside B's: at absurd
        // scales f32's rounding in the definition itself lands samples far from B.)
        let slack = 1e-3 * (1.0 + contact.point.abs().max_element());
        let bounds = world_bounds((a.width(), a.height()), a_to_world);
        let grown = bounds.grow(Vec2::splat(slack));
        assert!(
            grown.min.cmple(contact.point).all() && contact.point.cmple(grown.max).all(),
            "{contact:?} outside {bounds:?}"
        );
    }
}

/// Gaps only between masks apart, each finite, within the distance asked, with a unit
/// normal.
fn check_gaps(gaps: &[pixel_collide::Gap], area: u64, max_distance: f32) {
    if area > 0 {
        assert!(gaps.is_empty(), "touching masks have gaps");
    }
    for gap in gaps {
        assert!(gap.point.is_finite() && gap.normal.is_finite(), "{gap:?}");
        assert!(
            gap.distance.is_finite() && gap.distance <= max_distance,
            "{gap:?}"
        );
        assert!((gap.normal.length() - 1.0).abs() < 1e-3, "{gap:?}");
    }
}
