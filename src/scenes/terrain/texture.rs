//! The terrain's texture kept in step with its mask: pixels a crater clears, pixels a
//! piece takes with it when cut loose, and pixels it brings back when it settles.

use bevy::prelude::*;

use pixel_collide::terrain::Settled;
use pixel_collide::{BitMask, MaskRect};

/// Zeroes the texture's pixels in `rect` whose mask pixel is clear.
pub(super) fn clear_where_unset(data: &mut [u8], mask: &BitMask, rect: MaskRect) {
    let width = mask.width() as usize;
    for y in rect.y..rect.y + rect.height {
        for x in rect.x..rect.x + rect.width {
            if !mask.get(i64::from(x), i64::from(y)) {
                let i = (y as usize * width + x as usize) * 4;
                if let Some(pixel) = data.get_mut(i..i + 4) {
                    pixel.fill(0);
                }
            }
        }
    }
}

/// A piece's own texture: the terrain's pixels under its mask, which leave the terrain.
pub(super) fn cut_texture(
    images: &mut Assets<Image>,
    terrain: &Handle<Image>,
    piece: &BitMask,
    offset: (i32, i32),
) -> Image {
    let (pw, ph) = piece.size();
    let mut pixels = vec![0u8; pw as usize * ph as usize * 4];
    let mut format = bevy::render::render_resource::TextureFormat::Rgba8UnormSrgb;
    if let Some(mut image) = images.get_mut(terrain) {
        format = image.texture_descriptor.format;
        let width = image.width() as usize;
        if let Some(data) = image.data.as_mut() {
            for (from, to) in piece_pixels(piece, offset, width) {
                if let (Some(src), Some(dst)) =
                    (data.get_mut(from..from + 4), pixels.get_mut(to..to + 4))
                {
                    dst.copy_from_slice(src);
                    src.fill(0);
                }
            }
        }
    }
    Image::new(
        bevy::render::render_resource::Extent3d {
            width: pw.max(1),
            height: ph.max(1),
            depth_or_array_layers: 1,
        },
        bevy::render::render_resource::TextureDimension::D2,
        pixels,
        format,
        bevy::asset::RenderAssetUsages::default(),
    )
}

/// Copies a settled piece's colors into the terrain's texture, each pixel to where
/// [`TerrainWorld::settle`](pixel_collide::terrain::TerrainWorld::settle) put it.
pub(super) fn paste_settled(
    images: &mut Assets<Image>,
    terrain: &Handle<Image>,
    piece_image: &Handle<Image>,
    settled: &Settled,
) {
    let Some(source) = images.get(piece_image) else {
        return;
    };
    let piece_width = source.width() as usize;
    let Some(source) = source.data.clone() else {
        return;
    };
    let Some(mut image) = images.get_mut(terrain) else {
        return;
    };
    let width = image.width() as usize;
    let Some(data) = image.data.as_mut() else {
        return;
    };
    for &((fx, fy), (tx, ty)) in &settled.moved {
        let from = (fy as usize * piece_width + fx as usize) * 4;
        let to = (ty as usize * width + tx as usize) * 4;
        if let (Some(dst), Some(src)) = (data.get_mut(to..to + 4), source.get(from..from + 4)) {
            dst.copy_from_slice(src);
        }
    }
}

/// For each of a piece's set pixels, its byte offset in the terrain's RGBA texture
/// (`terrain_width` pixels wide, the piece's top-left at `offset`) and in the piece's own.
fn piece_pixels(
    piece: &BitMask,
    (ox, oy): (i32, i32),
    terrain_width: usize,
) -> impl Iterator<Item = (usize, usize)> + '_ {
    let (pw, ph) = piece.size();
    let (ox, oy) = (ox.max(0) as usize, oy.max(0) as usize);
    (0..ph)
        .flat_map(move |y| (0..pw).map(move |x| (x, y)))
        .filter(|&(x, y)| piece.get(i64::from(x), i64::from(y)))
        .map(move |(x, y)| {
            let (x, y) = (x as usize, y as usize);
            (
                ((oy + y) * terrain_width + ox + x) * 4,
                (y * pw as usize + x) * 4,
            )
        })
}
