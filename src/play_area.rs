//! The part of the world the scenes play in: the window, as a world rectangle (the camera
//! is centered and shows one world unit per logical pixel). One resource, so every scene
//! agrees on where the borders are and none reads the window itself.
//!
//! A window with no usable size (minimised, shrunk to a sliver, or reporting nonsense)
//! does not shrink the world: the scenes keep the last area until the window is back, so
//! a crowd is not squeezed into a point and every sprite piled on every other.

use bevy::prelude::*;
use bevy::window::PrimaryWindow;

/// The play area without a window (headless tests) until one reports its size.
pub const FALLBACK_SIZE: Vec2 = Vec2::new(1280.0, 720.0);

/// A window smaller than this on either side leaves the play area as it was.
pub const MIN_SIZE: Vec2 = Vec2::new(160.0, 90.0);

/// The world rectangle the scenes keep their sprites in.
#[derive(Resource, Debug, Clone, Copy, PartialEq)]
pub struct PlayArea(pub Rect);

impl Default for PlayArea {
    fn default() -> Self {
        PlayArea(Rect::from_center_size(Vec2::ZERO, FALLBACK_SIZE))
    }
}

impl PlayArea {
    pub fn size(&self) -> Vec2 {
        self.0.size()
    }

    pub fn half_size(&self) -> Vec2 {
        self.0.half_size()
    }

    /// Where a box of `half_size` centered near `center` must be to lie wholly inside the
    /// area: `center` moved in as little as it takes. On an axis where the box is larger
    /// than the area it is centered instead; a center that is not finite goes to the
    /// middle.
    pub fn keep_inside(&self, center: Vec2, half_size: Vec2) -> Vec2 {
        let middle = self.0.center();
        let (lo, hi) = (self.0.min + half_size, self.0.max - half_size);
        let keep = |c: f32, lo: f32, hi: f32, mid: f32| {
            if !c.is_finite() || lo.partial_cmp(&hi).is_none_or(|o| o.is_gt()) {
                mid
            } else {
                c.clamp(lo, hi)
            }
        };
        Vec2::new(
            keep(center.x, lo.x, hi.x, middle.x),
            keep(center.y, lo.y, hi.y, middle.y),
        )
    }

    /// The area for a window of `size`, or `None` when that size should be ignored.
    pub fn for_window(size: Vec2) -> Option<PlayArea> {
        (size.is_finite() && size.cmpge(MIN_SIZE).all())
            .then(|| PlayArea(Rect::from_center_size(Vec2::ZERO, size)))
    }
}

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<PlayArea>()
        .add_systems(Update, follow_window.in_set(super::AppSystems::ReadInput));
}

fn follow_window(window: Option<Single<&Window, With<PrimaryWindow>>>, mut area: ResMut<PlayArea>) {
    let Some(new) = window.and_then(|w| PlayArea::for_window(w.size())) else {
        return;
    };
    // Written only when it changes, so scenes can react to `is_changed`.
    if *area != new {
        *area = new;
    }
}
