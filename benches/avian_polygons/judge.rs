//! Judging with pixels: each body's mask placed where avian put the body, and our exact
//! overlap measuring every pair.

use avian2d::prelude::*;
use bevy::math::Affine2;
use bevy::prelude::*;
use pixel_collide::{
    BitMask, sprite_to_world, transformed_intersects, transformed_overlap, world_bounds,
};

use crate::colliders::Shape;
use crate::{REST_SPEED, REST_TURN};

/// A body of the scene: which sprite it is.
#[derive(Component, Clone, Copy)]
pub struct Body(pub usize);

/// Overlap depths (px) of touching pairs, as our exact overlap measures them.
#[derive(Default, Clone, Copy)]
pub struct Depths {
    pub deepest: f32,
    pub sum: f64,
    pub pairs: u64,
}

impl Depths {
    pub fn add(&mut self, depth: f32) {
        self.deepest = self.deepest.max(depth);
        self.sum += f64::from(depth);
        self.pairs += 1;
    }

    pub fn mean(&self) -> f64 {
        if self.pairs == 0 {
            0.0
        } else {
            self.sum / self.pairs as f64
        }
    }

    pub fn merge(&mut self, other: Depths) {
        self.deepest = self.deepest.max(other.deepest);
        self.sum += other.sum;
        self.pairs += other.pairs;
    }
}

/// What the pixels say about one moment of a run.
#[derive(Default, Clone, Copy)]
pub struct Judgement {
    pub ground: Depths,
    pub bodies: Depths,
    /// The deepest [`local_depth`] between bodies (when asked for).
    pub local: u32,
    /// The [`local_depth`] of the pair deepest by [`penetration`] (when asked for): few
    /// rows for a deep penetration is concave sprites interlocked, not one sunk into the
    /// other.
    pub deepest_pair_local: u32,
    /// Bodies whose center is past the ground's image, or on its solid pixels.
    pub escaped: usize,
    pub sunk: usize,
    pub resting: usize,
    /// Bodies avian put to sleep: their pairs skip the narrow phase and the solver, so a
    /// pile that settles gets cheap, and one that keeps rocking does not.
    pub asleep: usize,
}

struct Pose {
    sprite: usize,
    to_world: bevy::math::Affine2,
    bounds: bevy::math::bounding::Aabb2d,
    center: Vec2,
    at_rest: bool,
}

/// Directions the judge tries besides the contact's normal.
const JUDGE_DIRECTIONS: usize = 16;

/// How far A is into B: the least distance, to an eighth of a pixel, that A moves to
/// clear B along the contact's normal (`depth`) or any of [`JUDGE_DIRECTIONS`]. The
/// normal alone overstates it where concave sprites interlock: one petal tip of a flower
/// in another's gap is one pixel of overlap, yet 30 px along the normal.
pub fn penetration(
    a: &BitMask,
    a_to_world: Affine2,
    b: &BitMask,
    b_to_world: Affine2,
    depth: f32,
) -> f32 {
    if depth <= 1.0 {
        return depth;
    }
    let clear = |way: Vec2, d: f32| {
        !transformed_intersects(
            a,
            Affine2::from_translation(way * d) * a_to_world,
            b,
            b_to_world,
        )
    };
    let mut least = depth;
    for k in 0..JUDGE_DIRECTIONS {
        let way = Vec2::from_angle(std::f32::consts::TAU * k as f32 / JUDGE_DIRECTIONS as f32);
        // Doubling up to the depth already found, then halving to an eighth of a pixel.
        let (mut lo, mut hi) = (0.0, 0.125);
        while hi < least && !clear(way, hi) {
            (lo, hi) = (hi, hi * 2.0);
        }
        if hi >= least {
            continue;
        }
        while hi - lo > 0.125 {
            let mid = (lo + hi) / 2.0;
            if clear(way, mid) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        least = least.min(hi);
    }
    least
}

/// How many of B's pixel rows deep the deepest of A's pixels that land on B lies (1: in
/// B's edge row), and the same with the roles swapped: the larger. Where concave sprites
/// interlock, this is the overlap a player sees; [`penetration`], how far one must move to
/// clear the other, can be several pixels for tips a pixel in.
pub fn local_depth(a: &BitMask, a_to_world: Affine2, b: &BitMask, b_to_world: Affine2) -> u32 {
    let one_way = |a: &BitMask, a_to_world: Affine2, b: &BitMask, b_to_world: Affine2| {
        let to_b = b_to_world.inverse() * a_to_world;
        let (w, h) = (i64::from(b.width()), i64::from(b.height()));
        let mut deepest = 0;
        for j in 0..a.height() {
            for i in 0..a.width() {
                if !a.get(i.into(), j.into()) {
                    continue;
                }
                let at = to_b.transform_point2(Vec2::new(i as f32 + 0.5, j as f32 + 0.5));
                let (x, y) = (at.x.floor() as i64, at.y.floor() as i64);
                if !(0..w).contains(&x) || !(0..h).contains(&y) || !b.get(x, y) {
                    continue;
                }
                // Rings out to the first pixel of B not set (or past its edge).
                let mut ring: i64 = 1;
                'rings: while ring < 64 {
                    for dy in -ring..=ring {
                        for dx in -ring..=ring {
                            if dx.abs() != ring && dy.abs() != ring {
                                continue;
                            }
                            let (u, v) = (x + dx, y + dy);
                            if !(0..w).contains(&u) || !(0..h).contains(&v) || !b.get(u, v) {
                                break 'rings;
                            }
                        }
                    }
                    ring += 1;
                }
                deepest = deepest.max(ring as u32);
            }
        }
        deepest
    };
    one_way(a, a_to_world, b, b_to_world).max(one_way(b, b_to_world, a, a_to_world))
}

pub fn judge(app: &mut App, shapes: &[Shape], ground: &BitMask, local: bool) -> Judgement {
    let world = app.world_mut();
    let mut query = world.query::<(
        &Body,
        &Position,
        &Rotation,
        &LinearVelocity,
        &AngularVelocity,
        Has<Sleeping>,
    )>();
    let mut asleep = 0;
    let mut poses: Vec<Pose> = query
        .iter(world)
        .map(|(body, position, rotation, velocity, spin, sleeping)| {
            asleep += usize::from(sleeping);
            let mask = &shapes[body.0].mask;
            let to_world =
                sprite_to_world(position.0, rotation.as_radians(), Vec2::ONE, mask.size());
            Pose {
                sprite: body.0,
                to_world,
                bounds: world_bounds(mask.size(), to_world),
                center: position.0,
                at_rest: velocity.0.length() < REST_SPEED && spin.0.abs() < REST_TURN,
            }
        })
        .collect();
    let ground_to_world = sprite_to_world(Vec2::ZERO, 0.0, Vec2::ONE, ground.size());
    let (gw, gh) = ground.size();
    let mut judgement = Judgement {
        asleep,
        ..Judgement::default()
    };
    for pose in &poses {
        let mask = &shapes[pose.sprite].mask;
        if let Some(contact) = transformed_overlap(mask, pose.to_world, ground, ground_to_world) {
            judgement.ground.add(penetration(
                mask,
                pose.to_world,
                ground,
                ground_to_world,
                contact.depth,
            ));
        }
        let i = (pose.center.x + gw as f32 / 2.0).floor();
        let j = (gh as f32 / 2.0 - pose.center.y).floor();
        if !(0.0..gw as f32).contains(&i) || !(0.0..gh as f32).contains(&j) {
            judgement.escaped += 1;
        } else if ground.get(i as i64, j as i64) {
            judgement.sunk += 1;
        }
        judgement.resting += usize::from(pose.at_rest);
    }
    // Pairs whose boxes meet, by a sweep along x.
    poses.sort_by(|a, b| a.bounds.min.x.total_cmp(&b.bounds.min.x));
    for (k, a) in poses.iter().enumerate() {
        for b in &poses[k + 1..] {
            if b.bounds.min.x > a.bounds.max.x {
                break;
            }
            if b.bounds.min.y > a.bounds.max.y || a.bounds.min.y > b.bounds.max.y {
                continue;
            }
            let (ma, mb) = (&shapes[a.sprite].mask, &shapes[b.sprite].mask);
            if let Some(contact) = transformed_overlap(ma, a.to_world, mb, b.to_world) {
                let depth = penetration(ma, a.to_world, mb, b.to_world, contact.depth);
                let deepest = depth > judgement.bodies.deepest;
                judgement.bodies.add(depth);
                if local {
                    let rows = local_depth(ma, a.to_world, mb, b.to_world);
                    judgement.local = judgement.local.max(rows);
                    if deepest {
                        judgement.deepest_pair_local = rows;
                    }
                }
            }
        }
    }
    judgement
}
