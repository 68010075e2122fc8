//! What both scenes spawn: the ground and the bodies, with each side's collider.

use std::sync::Arc;

use avian2d::prelude::*;
use bevy::prelude::*;
use bevy_pixel_collide::avian::MaskCollider;
use image::{DynamicImage, RgbaImage};
use pixel_collide::BitMask;

use crate::colliders::{Shape, mask_of, polylines};
use crate::judge::Body;
use crate::{CRATER_RADIUS, FRICTION, RESTITUTION, Side};

/// A side's collider, ready to go on an entity.
pub enum SideCollider {
    Mask(MaskCollider),
    Polygon(Collider),
}

impl SideCollider {
    pub fn insert_on(self, entity: &mut EntityWorldMut) {
        match self {
            SideCollider::Mask(collider) => entity.insert(collider),
            SideCollider::Polygon(collider) => entity.insert(collider),
        };
    }
}

/// Ground both sides collide with: its pixels as a mask and as the image polygons are
/// made from, kept equal.
pub struct Ground {
    pub mask: Arc<BitMask>,
    image: DynamicImage,
}

impl Ground {
    pub fn new(image: RgbaImage) -> Ground {
        Ground {
            mask: Arc::new(mask_of(&image)),
            image: DynamicImage::ImageRgba8(image),
        }
    }

    pub fn collider(&self, side: Side) -> SideCollider {
        match side {
            Side::Masks => SideCollider::Mask(MaskCollider::fixed(Arc::clone(&self.mask))),
            Side::Polygons => SideCollider::Polygon(polylines(&self.image)),
        }
    }

    /// A crater in the mask, centered at mask pixel `(cx, cy)`.
    pub fn carve_mask(&mut self, cx: f32, cy: f32) {
        Arc::make_mut(&mut self.mask).erase_circle(
            f64::from(cx),
            f64::from(cy),
            f64::from(CRATER_RADIUS),
        );
    }

    /// The image made transparent wherever the mask is clear.
    pub fn clear_image_to_mask(&mut self) {
        let rgba = self
            .image
            .as_mut_rgba8()
            .expect("Ground::new keeps an RGBA8 image");
        for (i, j, pixel) in rgba.enumerate_pixels_mut() {
            if !self.mask.get(i64::from(i), i64::from(j)) {
                pixel.0[3] = 0;
            }
        }
    }
}

pub fn spawn_ground(app: &mut App, ground: &Ground, side: Side) -> Entity {
    let mut entity = app.world_mut().spawn((
        RigidBody::Static,
        Transform::default(),
        Friction::new(FRICTION),
        Restitution::new(RESTITUTION),
    ));
    ground.collider(side).insert_on(&mut entity);
    entity.id()
}

pub fn spawn_body(
    app: &mut App,
    shapes: &[Shape],
    side: Side,
    sprite: usize,
    at: Vec2,
    angle: f32,
) {
    let mut entity = app.world_mut().spawn((
        Body(sprite),
        RigidBody::Dynamic,
        Transform::from_translation(at.extend(0.0)).with_rotation(Quat::from_rotation_z(angle)),
        Friction::new(FRICTION),
        Restitution::new(RESTITUTION),
    ));
    let collider = match side {
        Side::Masks => SideCollider::Mask(shapes[sprite].mask_collider.clone()),
        Side::Polygons => SideCollider::Polygon(shapes[sprite].polygon.clone()),
    };
    collider.insert_on(&mut entity);
}
