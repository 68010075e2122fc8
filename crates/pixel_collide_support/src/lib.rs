//! Scaffolding shared by the Pixel Collide workspace's tests and benches: not a library
//! for other projects (`publish = false`).
//!
//! - [`baseline`]: the tutorials' per-pixel loops, the references results and speeds are
//!   compared with.
//! - [`rng`] and [`cases`]: the seeded generator and how many seeded cases a test runs,
//!   from `pixel_collide_seeded` (which the core's own unit tests use without this crate).
//! - [`disc_mask`]: a filled circle, a ball's stand-in; [`ellipse_mask`], a stone's.

pub mod baseline;

pub use pixel_collide_seeded::{cases, rng};

use pixel_collide::BitMask;

/// A `diameter × diameter` mask with the pixels whose centers lie inside the inscribed
/// circle: a stand-in for a ball's sprite in tests.
///
/// # Panics
/// When the size is over the mask size limit ([`BitMask::MAX_PIXELS`]: a diameter above
/// 16,384).
pub fn disc_mask(diameter: u32) -> BitMask {
    let mut mask = BitMask::new(diameter, diameter);
    let r = f64::from(diameter) * 0.5;
    mask.fill_circle(r, r, r);
    mask
}

/// A `width × height` mask with the pixels whose centers lie inside the inscribed
/// ellipse: a stand-in for a stone's sprite in tests, whose rounded sides bulge towards
/// what they land on.
///
/// # Panics
/// When the size is over the mask size limit ([`BitMask::MAX_PIXELS`]).
pub fn ellipse_mask(width: u32, height: u32) -> BitMask {
    let mut mask = BitMask::new(width, height);
    let (rx, ry) = (width as f32 / 2.0, height as f32 / 2.0);
    for y in 0..height {
        for x in 0..width {
            let (dx, dy) = ((x as f32 + 0.5 - rx) / rx, (y as f32 + 0.5 - ry) / ry);
            mask.set(i64::from(x), i64::from(y), dx * dx + dy * dy <= 1.0);
        }
    }
    mask
}
