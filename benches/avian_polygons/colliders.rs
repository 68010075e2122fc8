//! The game's sprites as both sides' colliders: our masks, and collider_gen's outlines
//! made into avian's polygons; what each costs to build and hold, and how far the
//! polygons are from the pixels.

use std::sync::Arc;
use std::time::{Duration, Instant};

use avian2d::prelude::*;
use bevy::prelude::*;
use bevy_collider_gen::prelude::AbstractCollidersBuilder;
use bevy_pixel_collide::avian::MaskCollider;
use image::{DynamicImage, RgbaImage};
use pixel_collide::BitMask;
use stats_alloc::Region;

use crate::GLOBAL;

/// A sprite as both sides see it: its mask, our collider, theirs.
pub struct Shape {
    pub name: &'static str,
    pub mask: Arc<BitMask>,
    pub mask_collider: MaskCollider,
    pub polygon: Collider,
    /// Convex parts and their vertices in the polygon collider.
    pub parts: usize,
    pub vertices: usize,
    pub build_mask: Duration,
    pub build_polygon: Duration,
    pub bytes_mask: i64,
    pub bytes_polygon: i64,
}

pub fn asset(file: &str) -> RgbaImage {
    let path = format!("{}/../../assets/{file}", env!("CARGO_MANIFEST_DIR"));
    image::open(&path)
        .unwrap_or_else(|e| panic!("{path}: {e}"))
        .to_rgba8()
}

/// The game's sprites at 32 to 64 px: the flower drawn at a quarter of its size, a 64 px
/// end of the stone platform.
pub fn sprite_images() -> Vec<(&'static str, RgbaImage)> {
    let flower = image::imageops::resize(
        &asset("flower.png"),
        64,
        64,
        image::imageops::FilterType::Nearest,
    );
    let stone = image::imageops::crop_imm(&asset("stone.png"), 0, 0, 64, 32).to_image();
    vec![
        ("crate", asset("crate.png")),
        ("stone", stone),
        ("clover", asset("clover.png")),
        ("flower", flower),
        ("basketball", asset("basketball.png")),
        ("gem", asset("gem.png")),
    ]
}

pub fn mask_of(image: &RgbaImage) -> BitMask {
    BitMask::from_rgba8(image.width(), image.height(), image.as_raw(), 0).expect("an RGBA sprite")
}

/// collider_gen's outlines of `image`, centered as a sprite is.
fn outlines(image: &DynamicImage) -> Vec<Vec<Vec2>> {
    AbstractCollidersBuilder::from(image)
        .polyline()
        .multiple()
        .into_iter()
        .filter_map(|outline| outline.points().cloned())
        .filter(|points| points.len() >= 3)
        .collect()
}

/// Every outline of `image` as closed loops in one vertex and index buffer.
fn loops(image: &DynamicImage) -> (Vec<Vec2>, Vec<[u32; 2]>) {
    let mut vertices = Vec::new();
    let mut indices = Vec::new();
    for outline in outlines(image) {
        let first = vertices.len() as u32;
        let n = outline.len() as u32;
        indices.extend((0..n).map(|i| [first + i, first + (i + 1) % n]));
        vertices.extend(outline);
    }
    (vertices, indices)
}

/// A moving body's polygons: its outlines (so a hole stays a hole) made convex by avian's
/// decomposition, as collider_gen's README shows.
fn decomposed(image: &DynamicImage) -> Collider {
    let (vertices, indices) = loops(image);
    Collider::convex_decomposition(vertices, indices)
}

/// Static ground's polygons: its outlines as one polyline. collider_gen's own `to_avian`
/// gives one open polyline per outline (its last vertex not joined to its first); closing
/// them and keeping them in one collider only helps this side.
pub fn polylines(image: &DynamicImage) -> Collider {
    let (vertices, indices) = loops(image);
    Collider::polyline(vertices, Some(indices))
}

/// Live heap bytes `make` leaves behind, and its result.
pub fn measured<T>(make: impl FnOnce() -> T) -> (T, i64) {
    let region = Region::new(GLOBAL);
    let made = make();
    let stats = region.change();
    (
        made,
        stats.bytes_allocated as i64 - stats.bytes_deallocated as i64,
    )
}

/// Median wall time of `make` over `runs`.
fn timed<T>(runs: usize, mut make: impl FnMut() -> T) -> Duration {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(make());
            start.elapsed()
        })
        .collect();
    times.sort();
    times[runs / 2]
}

pub fn shape(name: &'static str, image: &RgbaImage) -> Shape {
    let dynamic = DynamicImage::ImageRgba8(image.clone());
    let build_mask = timed(50, || MaskCollider::new(Arc::new(mask_of(image))));
    let build_polygon = timed(5, || decomposed(&dynamic));
    let (mask_collider, bytes_mask) = measured(|| MaskCollider::new(Arc::new(mask_of(image))));
    let (polygon, bytes_polygon) = measured(|| decomposed(&dynamic));
    let (parts, vertices) = match polygon.shape().as_compound() {
        Some(compound) => (
            compound.shapes().len(),
            compound
                .shapes()
                .iter()
                .map(|(_, part)| part.as_convex_polygon().map_or(0, |p| p.points().len()))
                .sum(),
        ),
        None => (
            1,
            polygon
                .shape()
                .as_convex_polygon()
                .map_or(0, |p| p.points().len()),
        ),
    };
    Shape {
        name,
        mask: Arc::clone(mask_collider.mask()),
        mask_collider,
        polygon,
        parts,
        vertices,
        build_mask,
        build_polygon,
        bytes_mask,
        bytes_polygon,
    }
}

/// How far the polygons are from the pixels: pixels whose center is inside the polygons
/// but not set in the mask, and set but outside.
pub fn polygon_error(shape: &Shape) -> (u64, u64, u64) {
    let mask = &shape.mask;
    let (w, h) = mask.size();
    let (mut extra, mut missing) = (0, 0);
    for j in 0..h {
        for i in 0..w {
            let center = Vec2::new(
                i as f32 + 0.5 - w as f32 / 2.0,
                h as f32 / 2.0 - j as f32 - 0.5,
            );
            let inside = shape
                .polygon
                .contains_point(Vec2::ZERO, Rotation::default(), center);
            match (inside, mask.get(i64::from(i), i64::from(j))) {
                (true, false) => extra += 1,
                (false, true) => missing += 1,
                _ => {}
            }
        }
    }
    (mask.count(), extra, missing)
}
