//! `--deep T`: every step judged, and each pair of bodies whose overlap first passes `T`
//! px printed with what avian gave it in that step (each manifold's normal, and each
//! point's depth and anchor on the first body, which is named), both bodies' velocities
//! and poses before it, their poses after, where the overlap lies, and each body's
//! manifolds with others: whether a pair sank by turning (the angle), by being pushed
//! (the others), or between the points it was held at (the overlap against them). The
//! bench's own judge looks every sixth step and keeps the deepest alone; this says how
//! often pairs sink and what they were holding when they did.

use std::collections::{HashMap, HashSet};

use avian2d::prelude::*;
use bevy::prelude::*;
use pixel_collide::{sprite_to_world, transformed_overlap, world_bounds};

use crate::colliders::Shape;
use crate::judge::{Body, penetration};

/// A pair of colliders, the lower entity first.
type Pair = (Entity, Entity);

fn pair(a: Entity, b: Entity) -> Pair {
    (a.min(b), a.max(b))
}

/// One pile's tracer.
#[derive(Default)]
pub struct DeepPairs {
    /// Each body's linear and angular velocity before the step.
    before: HashMap<Entity, (Vec2, f32)>,
    /// Each body's position and angle before the step.
    poses: HashMap<Entity, (Vec2, f32)>,
    /// Pairs already printed: a pair is printed the first time it passes the depth.
    printed: HashSet<Pair>,
    /// How many pairs passed it.
    pub count: usize,
}

impl DeepPairs {
    /// Call before each step.
    pub fn before_step(&mut self, app: &mut App) {
        let world = app.world_mut();
        self.before.clear();
        self.poses.clear();
        for (entity, velocity, spin, position, rotation) in world
            .query_filtered::<(
                Entity,
                &LinearVelocity,
                &AngularVelocity,
                &Position,
                &Rotation,
            ), With<Body>>()
            .iter(world)
        {
            self.before.insert(entity, (velocity.0, spin.0));
            self.poses
                .insert(entity, (position.0, rotation.as_radians()));
        }
    }

    /// Call after step `k`: prints each pair of bodies deeper than `depth` px for the
    /// first time.
    pub fn after_step(&mut self, app: &mut App, shapes: &[Shape], k: usize, depth: f32) {
        let manifolds = manifolds_by_pair(app);
        let world = app.world_mut();
        let poses: Vec<_> = world
            .query::<(Entity, &Body, &Position, &Rotation)>()
            .iter(world)
            .map(|(entity, body, position, rotation)| {
                let mask = &shapes[body.0].mask;
                let to_world =
                    sprite_to_world(position.0, rotation.as_radians(), Vec2::ONE, mask.size());
                (
                    entity,
                    body.0,
                    to_world,
                    world_bounds(mask.size(), to_world),
                    (position.0, rotation.as_radians()),
                )
            })
            .collect();
        for (i, a) in poses.iter().enumerate() {
            for b in &poses[i + 1..] {
                let (bounds_a, bounds_b) = (a.3, b.3);
                if bounds_b.min.x > bounds_a.max.x
                    || bounds_a.min.x > bounds_b.max.x
                    || bounds_b.min.y > bounds_a.max.y
                    || bounds_a.min.y > bounds_b.max.y
                {
                    continue;
                }
                let (mask_a, mask_b) = (&shapes[a.1].mask, &shapes[b.1].mask);
                let Some(contact) = transformed_overlap(mask_a, a.2, mask_b, b.2) else {
                    continue;
                };
                if contact.depth <= depth {
                    continue;
                }
                let deep = penetration(mask_a, a.2, mask_b, b.2, contact.depth);
                let key = pair(a.0, b.0);
                if deep <= depth || !self.printed.insert(key) {
                    continue;
                }
                self.count += 1;
                let motion = |entity| {
                    let (v, w) = self.before.get(&entity).copied().unwrap_or_default();
                    format!("v ({:.0}, {:.0}) px/s, {w:.2} rad/s", v.x, v.y)
                };
                let before = |entity| pose(self.poses.get(&entity).copied().unwrap_or_default());
                let a_now = a.4.0;
                eprintln!(
                    "  deep: step {k}, {} {:?} and {} {:?}, {deep:.2} px; before: {} at {}; {} at {}; after: {}; {}; overlap at a+({:.1}, {:.1}) normal ({:.2}, {:.2}); manifolds:{}",
                    shapes[a.1].name,
                    a.0,
                    shapes[b.1].name,
                    b.0,
                    motion(a.0),
                    before(a.0),
                    motion(b.0),
                    before(b.0),
                    pose(a.4),
                    pose(b.4),
                    contact.point.x - a_now.x,
                    contact.point.y - a_now.y,
                    contact.normal.x,
                    contact.normal.y,
                    manifolds.get(&key).map_or(" none", String::as_str),
                );
                for entity in [a.0, b.0] {
                    for (other, text) in manifolds
                        .iter()
                        .filter(|(p, _)| (p.0 == entity || p.1 == entity) && **p != key)
                    {
                        eprintln!("    {entity:?} also {other:?}:{text}");
                    }
                }
            }
        }
    }
}

/// A body's position and angle, as printed.
fn pose((position, angle): (Vec2, f32)) -> String {
    format!("({:.1}, {:.1}) {angle:.3} rad", position.x, position.y)
}

/// Each awake pair's manifolds this step: `[normal: depth@anchor ...]`, a negative depth
/// a speculative point.
fn manifolds_by_pair(app: &App) -> HashMap<Pair, String> {
    let mut by_pair = HashMap::new();
    for contacts in app.world().resource::<ContactGraph>().iter_active() {
        let mut text = String::new();
        for manifold in &contacts.manifolds {
            let n = manifold.normal;
            text += &format!(" [({:.2}, {:.2}):", n.x, n.y);
            for point in &manifold.points {
                let at = point.anchor1;
                text += &format!(" {:.1}@({:.0}, {:.0})", point.penetration, at.x, at.y);
            }
            text += "]";
        }
        text += &format!(" (first {:?})", contacts.collider1);
        by_pair.insert(pair(contacts.collider1, contacts.collider2), text);
    }
    by_pair
}
