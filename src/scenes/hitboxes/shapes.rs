//! The scene's shapes: two boxes, two circles, an oriented box and the cursor as a point.

use super::*;

/// One of the scene's shapes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ShapeId {
    Box1,
    Box2,
    Circle1,
    Circle2,
    /// The rotatable rectangle.
    Oriented,
    /// The mouse cursor, a point.
    Cursor,
}

impl ShapeId {
    pub const ALL: [ShapeId; 6] = [
        ShapeId::Box1,
        ShapeId::Box2,
        ShapeId::Circle1,
        ShapeId::Circle2,
        ShapeId::Oriented,
        ShapeId::Cursor,
    ];
    /// The shapes the player moves (the cursor moves with the mouse).
    pub const MOVABLE: [ShapeId; 5] = [
        ShapeId::Box1,
        ShapeId::Box2,
        ShapeId::Circle1,
        ShapeId::Circle2,
        ShapeId::Oriented,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ShapeId::Box1 => "Box1",
            ShapeId::Box2 => "Box2",
            ShapeId::Circle1 => "Circle1",
            ShapeId::Circle2 => "Circle2",
            ShapeId::Oriented => "OBB",
            ShapeId::Cursor => "Mouse",
        }
    }

    /// The next movable shape, wrapping around: what Space selects.
    pub fn next_movable(self) -> ShapeId {
        let i = ShapeId::MOVABLE
            .iter()
            .position(|&s| s == self)
            .map_or(0, |i| i + 1);
        ShapeId::MOVABLE[i % ShapeId::MOVABLE.len()]
    }
}

/// A shape's geometry, as the core's tests take it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Geometry {
    Aabb(Aabb2d),
    Circle(BoundingCircle),
    Obb(Obb2d),
    Point(Vec2),
}

/// The shapes as they stand, and which one the keyboard moves.
#[derive(Resource, Debug, Clone, PartialEq)]
pub struct HitboxShapes {
    pub boxes: [Aabb2d; 2],
    pub circles: [BoundingCircle; 2],
    pub oriented: Obb2d,
    /// In world coordinates; `None` while the mouse is outside the window.
    pub cursor: Option<Vec2>,
    /// What WASD / the left stick moves; never [`ShapeId::Cursor`].
    pub active: ShapeId,
}

pub(super) fn circle(center: Vec2, radius: f32) -> BoundingCircle {
    // A struct literal: `BoundingCircle::new` asserts on the radius.
    BoundingCircle {
        center,
        circle: Circle { radius },
    }
}

impl Default for HitboxShapes {
    /// A layout that teaches at first sight: the boxes share an edge (apart under `<`,
    /// touching under `<=`), a circle overlaps a box's corner, the other circle touches the
    /// rotated rectangle, which is separated from Box2 although its enclosing box is not.
    fn default() -> Self {
        let mut shapes = HitboxShapes {
            boxes: [
                Aabb2d {
                    min: Vec2::new(-330.0, 60.0),
                    max: Vec2::new(-190.0, 160.0),
                },
                Aabb2d {
                    min: Vec2::new(-150.0, 80.0),
                    max: Vec2::new(-50.0, 180.0),
                },
            ],
            circles: [
                circle(Vec2::new(-175.0, 30.0), 45.0),
                circle(Vec2::new(105.0, 115.0), 45.0),
            ],
            oriented: Obb2d::new(
                Vec2::new(-10.0, 40.0),
                Vec2::new(100.0, 28.0),
                Rot2::degrees(30.0),
            ),
            cursor: None,
            active: ShapeId::Box1,
        };
        shapes.snap_boxes_edge_to_edge();
        shapes
    }
}

impl HitboxShapes {
    pub fn geometry(&self, id: ShapeId) -> Option<Geometry> {
        Some(match id {
            ShapeId::Box1 => Geometry::Aabb(self.boxes[0]),
            ShapeId::Box2 => Geometry::Aabb(self.boxes[1]),
            ShapeId::Circle1 => Geometry::Circle(self.circles[0]),
            ShapeId::Circle2 => Geometry::Circle(self.circles[1]),
            ShapeId::Oriented => Geometry::Obb(self.oriented),
            ShapeId::Cursor => Geometry::Point(self.cursor?),
        })
    }

    pub fn center(&self, id: ShapeId) -> Option<Vec2> {
        Some(match self.geometry(id)? {
            Geometry::Aabb(b) => b.center(),
            Geometry::Circle(c) => c.center,
            Geometry::Obb(o) => o.center,
            Geometry::Point(p) => p,
        })
    }

    /// Half the width and height of the shape's axis-aligned bounds.
    pub fn half_extent(&self, id: ShapeId) -> Vec2 {
        match self.geometry(id) {
            Some(Geometry::Aabb(b)) => b.half_size(),
            Some(Geometry::Circle(c)) => Vec2::splat(c.radius()),
            Some(Geometry::Obb(o)) => o.aabb().half_size(),
            Some(Geometry::Point(_)) | None => Vec2::ZERO,
        }
    }

    pub fn translate(&mut self, id: ShapeId, by: Vec2) {
        match id {
            ShapeId::Box1 | ShapeId::Box2 => {
                let b = &mut self.boxes[usize::from(id == ShapeId::Box2)];
                b.min += by;
                b.max += by;
            }
            ShapeId::Circle1 | ShapeId::Circle2 => {
                self.circles[usize::from(id == ShapeId::Circle2)].center += by;
            }
            ShapeId::Oriented => self.oriented.center += by,
            ShapeId::Cursor => {
                if let Some(c) = &mut self.cursor {
                    *c += by;
                }
            }
        }
    }

    pub fn set_center(&mut self, id: ShapeId, center: Vec2) {
        if let Some(now) = self.center(id) {
            self.translate(id, center - now);
        }
    }

    /// Turns the oriented rectangle counter-clockwise by `radians`.
    pub fn rotate_oriented(&mut self, radians: f32) {
        if radians.is_finite() && radians != 0.0 {
            // Renormalized so a long session of small turns does not drift off the unit circle.
            self.oriented.rotation =
                (Rot2::radians(radians) * self.oriented.rotation).fast_renormalize();
        }
    }

    /// Whether `point` is on or inside the shape.
    pub fn contains(&self, id: ShapeId, point: Vec2) -> bool {
        match self.geometry(id) {
            Some(Geometry::Aabb(b)) => point_in_aabb(point, &b, EdgeRule::Inclusive),
            Some(Geometry::Circle(c)) => point_in_circle(point, &c, EdgeRule::Inclusive),
            Some(Geometry::Obb(o)) => point_in_obb(point, &o, EdgeRule::Inclusive),
            Some(Geometry::Point(_)) | None => false,
        }
    }

    /// The top-most movable shape under `point` (the rectangle is drawn last, so it wins):
    /// what a press there grabs, to the pixel its sprite is drawn with.
    pub fn shape_at(&self, point: Vec2) -> Option<ShapeId> {
        ShapeId::MOVABLE
            .into_iter()
            .rev()
            .find(|&id| self.contains(id, point))
    }

    /// Places Box2 exactly against Box1's right edge, vertically centered on it: the two
    /// share the line `x = Box1.max.x`, so only the edge rule decides whether they touch.
    pub fn snap_boxes_edge_to_edge(&mut self) {
        let [a, b] = self.boxes;
        let size = b.max - b.min;
        let min = Vec2::new(a.max.x, a.center().y - size.y / 2.0);
        self.boxes[1] = Aabb2d {
            min,
            max: min + size,
        };
    }
}
