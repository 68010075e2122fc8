//! The tutorials' per-pixel algorithms, kept as named baselines for tests and benches.
//!
//! They work the way XNA's collision samples teach: scan RGBA color arrays pixel by pixel
//! and compare alpha. [`intersect_pixels`] is `IntersectPixels(Rectangle, Color[],
//! Rectangle, Color[])`; [`intersect_pixels_transformed`] is the rotated version that steps
//! every pixel of A through A's transform and B's inverse. They use this crate's sampling
//! convention (pixel centers, floor) so their answers can be checked against the fast path;
//! the cost per pixel is the tutorials'. The transformed loop steps incrementally, as XNA's
//! does, so near pixel edges its rounding can differ from the exact mapping. Not for game use: see
//! [`pixel_collide::BitMask`].

use bevy_math::{Affine2, Vec2};

use pixel_collide::WordKernel;

/// The physical limit of axis-aligned overlap area: pixels set in both of two runs of
/// words, word `i` against word `i`, one AND and one popcount a word with nothing else
/// around them, compiled with `kernel`'s instruction set (`benches/words.rs` sets the row
/// loops beside it). A build this CPU lacks runs as [`WordKernel::Portable`].
pub fn contiguous_area(a: &[u64], b: &[u64], kernel: WordKernel) -> u64 {
    pixel_collide::__private::contiguous_area(a, b, kernel)
}

/// An RGBA8 image as the tutorials hold it: a color array and its size.
#[derive(Debug, Clone, Copy)]
pub struct ColorArray<'p> {
    pub width: u32,
    pub height: u32,
    /// `width × height × 4` bytes, row-major.
    pub rgba: &'p [u8],
}

impl ColorArray<'_> {
    /// Alpha of pixel `(x, y)`; 0 outside the image or the buffer.
    #[inline]
    fn alpha(&self, x: u32, y: u32) -> u8 {
        let index = (y as usize * self.width as usize + x as usize) * 4 + 3;
        self.rgba.get(index).copied().unwrap_or(0)
    }
}

/// Whether two axis-aligned sprites touch: `b`'s top-left at `offset` in `a`'s pixels.
/// Scans the intersection of the two rectangles and stops at the first pixel where both
/// alphas exceed `threshold` (the tutorials use 0).
pub fn intersect_pixels(a: ColorArray, b: ColorArray, offset: (i32, i32), threshold: u8) -> bool {
    scan_axis_aligned(a, b, offset, threshold, true) > 0
}

/// Number of pixels where both alphas exceed `threshold`, by the same scan.
pub fn overlap_area_pixels(a: ColorArray, b: ColorArray, offset: (i32, i32), threshold: u8) -> u64 {
    scan_axis_aligned(a, b, offset, threshold, false)
}

fn scan_axis_aligned(
    a: ColorArray,
    b: ColorArray,
    offset: (i32, i32),
    threshold: u8,
    first_only: bool,
) -> u64 {
    let (dx, dy) = (i64::from(offset.0), i64::from(offset.1));
    let top = dy.max(0);
    let bottom = (dy + i64::from(b.height)).min(i64::from(a.height));
    let left = dx.max(0);
    let right = (dx + i64::from(b.width)).min(i64::from(a.width));
    let mut count = 0;
    for y in top..bottom {
        for x in left..right {
            let alpha_a = a.alpha(x as u32, y as u32);
            let alpha_b = b.alpha((x - dx) as u32, (y - dy) as u32);
            if alpha_a > threshold && alpha_b > threshold {
                count += 1;
                if first_only {
                    return count;
                }
            }
        }
    }
    count
}

/// The rotated tutorial: every pixel of A, stepped through `a_to_world` and the inverse of
/// `b_to_world`, looks up B's color. Stops at the first hit. `false` for a singular or
/// non-finite transform.
pub fn intersect_pixels_transformed(
    a: ColorArray,
    a_to_world: Affine2,
    b: ColorArray,
    b_to_world: Affine2,
    threshold: u8,
) -> bool {
    scan_transformed(a, a_to_world, b, b_to_world, threshold, true) > 0
}

/// Number of A's pixels that land on a solid pixel of B, by the same loop.
pub fn overlap_area_pixels_transformed(
    a: ColorArray,
    a_to_world: Affine2,
    b: ColorArray,
    b_to_world: Affine2,
    threshold: u8,
) -> u64 {
    scan_transformed(a, a_to_world, b, b_to_world, threshold, false)
}

fn scan_transformed(
    a: ColorArray,
    a_to_world: Affine2,
    b: ColorArray,
    b_to_world: Affine2,
    threshold: u8,
    first_only: bool,
) -> u64 {
    let det = b_to_world.matrix2.determinant();
    if !a_to_world.is_finite() || !b_to_world.is_finite() || det == 0.0 || !det.is_finite() {
        return 0;
    }
    // XNA's loop: one matrix for A to B, then step along rows and columns by its axes.
    let a_to_b = b_to_world.inverse() * a_to_world;
    let step_x = a_to_b.matrix2.x_axis;
    let step_y = a_to_b.matrix2.y_axis;
    let mut row_start = a_to_b.transform_point2(Vec2::splat(0.5));
    let mut count = 0;
    for ya in 0..a.height {
        let mut p = row_start;
        for xa in 0..a.width {
            if p.x >= 0.0 && p.y >= 0.0 && p.x < b.width as f32 && p.y < b.height as f32 {
                let alpha_a = a.alpha(xa, ya);
                let alpha_b = b.alpha(p.x as u32, p.y as u32);
                if alpha_a > threshold && alpha_b > threshold {
                    count += 1;
                    if first_only {
                        return count;
                    }
                }
            }
            p += step_x;
        }
        row_start += step_y;
    }
    count
}
