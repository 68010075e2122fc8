//! Contacts where a pair would meet by the step's end, for pairs that turn fast.
//!
//! avian finds contacts once a step, where the bodies are at its start, and holds each
//! point found along its normal while the solver moves them. It asks for points as far
//! apart as the bodies' linear motion closes in a step, and no farther. A body turning
//! fast swings parts that have no point into the other within the step: a 64 px stone
//! turning at 20 rad/s moves its ends 11 px a step, and one landing on its end sank 16
//! rows into the stone below between the points it had (the avian polygon bench measures
//! it). So a pair apart whose pixels the turns may swing more than
//! [`MaskContacts::prediction_threshold`] against each other in a step is also tested
//! where its bodies' velocities put them at the step's end, and each point of that
//! overlap becomes a speculative point now, midway between the pixels of each body that
//! meet there and with the separation that closes by then: the solver holds the pair
//! where it would meet, whichever way it turns. Only the turns count: the linear motion
//! is what avian's reach already covers, and counted, it made every falling pair pay for
//! the test.

use avian2d::math::Vector;
use avian2d::prelude::*;
use bevy::math::Affine2;
use bevy::platform::collections::HashMap;
use bevy::prelude::*;

use pixel_collide::{BitMask, Gap, surely_farther_apart, transformed_manifold};

use super::reuse::Placed;
use super::{MaskCollider, MaskContacts};

/// How a body moves this step: what the narrow phase needs to place its colliders at the
/// step's end.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct BodyMotion {
    /// The body's center of mass, world space, which it turns about.
    center_of_mass: Vec2,
    velocity: Vec2,
    spin: f32,
}

/// The motions of the bodies that carry mask colliders, by collider, and the step's length.
#[derive(Debug, Default)]
pub(super) struct Motions {
    by_collider: HashMap<Entity, BodyMotion>,
    step: f32,
}

impl Motions {
    fn of(&self, collider: Entity) -> BodyMotion {
        self.by_collider.get(&collider).copied().unwrap_or_default()
    }
}

/// Records each mask collider's body's motion before the narrow phase asks for contacts,
/// while [`MaskContacts::prediction_threshold`] is finite. Still bodies (static,
/// asleep or at rest) are left out: they are placed where they are.
pub fn record_motions(
    mut contacts: ResMut<MaskContacts>,
    colliders: Query<(Entity, Option<&ColliderOf>), With<MaskCollider>>,
    bodies: Query<(
        &Position,
        &Rotation,
        &ComputedCenterOfMass,
        &LinearVelocity,
        &AngularVelocity,
    )>,
    time: Res<Time>,
) {
    let predicting = contacts.prediction_threshold.is_finite();
    let motions = &mut contacts.motions;
    motions.step = time.delta_secs();
    motions.by_collider.clear();
    if !predicting {
        return;
    }
    for (collider, body) in &colliders {
        let body = body.map_or(collider, |of| of.body);
        let Ok((position, rotation, center_of_mass, velocity, spin)) = bodies.get(body) else {
            continue;
        };
        if velocity.0 == Vector::ZERO && spin.0 == 0.0 {
            continue;
        }
        motions.by_collider.insert(
            collider,
            BodyMotion {
                center_of_mass: position.0 + *rotation * center_of_mass.0,
                velocity: velocity.0,
                spin: spin.0,
            },
        );
    }
}

impl Placed<'_> {
    /// How far its farthest pixel may turn within the step (a bound: the turn at its
    /// mask's farthest corner from the center of mass).
    fn swing(&self, motion: BodyMotion, step: f32) -> f32 {
        let (w, h) = self.collider.mask.size();
        let scale = self.collider.scale;
        let half_diagonal = 0.5 * (w as f32 * scale.x).hypot(h as f32 * scale.y);
        let from_center = self.position - motion.center_of_mass;
        (motion.spin * step).abs() * (from_center.length() + half_diagonal)
    }

    /// Where its mask would be at the step's end.
    fn at_step_end(&self, motion: BodyMotion, step: f32) -> Affine2 {
        let turn = motion.spin * step;
        let from_center = self.position - motion.center_of_mass;
        let position =
            motion.center_of_mass + motion.velocity * step + Rotation::radians(turn) * from_center;
        let turned = Rotation::radians(self.rotation.as_radians() + turn);
        self.collider.to_world(position, turned)
    }
}

/// Where the pair's masks would be at the step's end, if the bodies' turns may swing
/// their pixels more than [`MaskContacts::prediction_threshold`] against each other
/// within it; `None` for a pair turning slower than that (or whose motion is not a
/// number). The bound is taken first, and
/// the poses (two turns each) only for the fast pairs: most pairs of a pile are slow, and
/// placing them all was a tenth of the narrow phase.
pub(super) fn step_ends(
    contacts: &MaskContacts,
    a: &Placed,
    b: &Placed,
) -> Option<(Affine2, Affine2)> {
    if !contacts.prediction_threshold.is_finite() {
        return None;
    }
    let motions = &contacts.motions;
    let (motion_a, motion_b) = (motions.of(a.entity), motions.of(b.entity));
    let step = motions.step;
    let swing = a.swing(motion_a, step) + b.swing(motion_b, step);
    (swing > contacts.prediction_threshold)
        .then(|| (a.at_step_end(motion_a, step), b.at_step_end(motion_b, step)))
}

/// Adds to the gaps of a pair apart a speculative point for each point of the overlap its
/// masks have at their step's end (`ends`): placed now, midway between the pixels of each
/// that meet then, with the separation along the end's normal that closes by then (0
/// where they are nearer already).
pub(super) fn add_gaps(
    a: &BitMask,
    a_to_world: Affine2,
    b: &BitMask,
    b_to_world: Affine2,
    (a_end, b_end): (Affine2, Affine2),
    gaps: &mut Vec<Gap>,
) {
    // Most fast pairs are a body in the air over the ground, whose boxes meet: that they
    // cannot meet is one lookup, where the overlap's walk sets up a whole mapping.
    if surely_farther_apart(a, a_end, b, b_end, 0.0) {
        return;
    }
    let mut at_end = Vec::new();
    if transformed_manifold(a, a_end, b, b_end, &mut at_end).is_none() {
        return;
    }
    let (end_to_a, end_to_b) = (a_end.inverse(), b_end.inverse());
    for end in &at_end {
        let on_a = a_to_world.transform_point2(end_to_a.transform_point2(end.point));
        let on_b = b_to_world.transform_point2(end_to_b.transform_point2(end.point));
        // Ours says which way the first should move to leave the second; the separation is
        // measured the other way, from the first to the second, as avian's normal points.
        let toward_b = -end.normal;
        let separation = ((on_b - on_a).dot(toward_b) - end.depth).max(0.0);
        if !separation.is_finite() {
            continue;
        }
        gaps.push(Gap {
            point: (on_a + on_b) * 0.5,
            normal: toward_b,
            distance: separation,
            ends: [None, None],
            bulges: [None, None],
        });
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use pixel_collide::BitMask;

    use super::*;

    /// Records a body centered at `position` moving as given in `contacts`' motions.
    fn moving(
        contacts: &mut MaskContacts,
        entity: Entity,
        position: Vec2,
        velocity: Vec2,
        spin: f32,
    ) {
        contacts.motions.by_collider.insert(
            entity,
            BodyMotion {
                center_of_mass: position,
                velocity,
                spin,
            },
        );
    }

    /// avian's own reach covers what the linear motion closes: a block falling fast, not
    /// turning, is left to it. The same block turning at 10 rad/s swings its corners 6 px
    /// a step, past any point avian asked for, and is tested at the step's end.
    #[test]
    fn only_a_turn_past_the_threshold_tests_a_pair_at_the_steps_end() {
        let block = MaskCollider::new(Arc::new(BitMask::solid(64, 32).unwrap()));
        let floor = MaskCollider::new(Arc::new(BitMask::solid(400, 40).unwrap()));
        let (a, b) = (
            Entity::from_raw_u32(1).unwrap(),
            Entity::from_raw_u32(2).unwrap(),
        );
        let (above, ground) = (Vec2::new(0.0, 60.0), Vec2::ZERO);
        let ask = |spin: f32| {
            let mut contacts = MaskContacts::default();
            contacts.motions.step = 1.0 / 60.0;
            moving(&mut contacts, a, above, Vec2::new(0.0, -900.0), spin);
            let placed_a = Placed::new(&block, a, above, Rotation::IDENTITY);
            let placed_b = Placed::new(&floor, b, ground, Rotation::IDENTITY);
            step_ends(&contacts, &placed_a, &placed_b)
        };
        assert!(ask(0.0).is_none(), "falling alone");
        let (a_end, _) = ask(10.0).expect("turning");
        // At the step's end: a sixtieth of its fall lower, a sixth of a radian turned.
        let center = a_end.transform_point2(Vec2::new(32.0, 16.0));
        assert!(
            (center - (above - Vec2::new(0.0, 15.0))).length() < 1e-3,
            "{center}"
        );
        let turned = a_end.matrix2.x_axis.to_angle();
        assert!((turned - 10.0 / 60.0).abs() < 1e-4, "{turned}");
        let mut never = MaskContacts::default();
        never.prediction_threshold = f32::INFINITY;
        never.motions.step = 1.0 / 60.0;
        moving(&mut never, a, above, Vec2::ZERO, 30.0);
        let placed_a = Placed::new(&block, a, above, Rotation::IDENTITY);
        let placed_b = Placed::new(&floor, b, ground, Rotation::IDENTITY);
        assert!(step_ends(&never, &placed_a, &placed_b).is_none(), "never");
    }
}
