//! The bullet against the thin wall, one step per fixed step of the game: discrete (it can
//! tunnel) or swept.

use super::*;

/// One fixed step of a bullet (radius [`BULLET_RADIUS`]) against the wall. Returns where the
/// bullet ends the step and, if it hit, the point of the wall it hit.
///
/// Discrete: the bullet jumps to its new place and only that place is tested, so a step
/// longer than wall plus bullet can land on the far side without ever overlapping (the
/// tunnel). Swept: the whole step is cast against the wall and the bullet stops where it
/// first touches.
pub fn step_bullet(
    position: Vec2,
    velocity: Vec2,
    dt: f32,
    wall: &Aabb2d,
    swept: bool,
    rule: EdgeRule,
) -> (Vec2, Option<Vec2>) {
    let delta = velocity * dt;
    if !delta.is_finite() || !position.is_finite() {
        return (position, None);
    }
    if swept
        && let Some(hit) = sweep_circle_aabb(&circle(position, BULLET_RADIUS), delta, wall, rule)
    {
        let at = position + delta * hit.toi;
        return (at, Some(at - hit.normal * BULLET_RADIUS));
    }
    let next = position + delta;
    (
        next,
        circle_aabb_closest_point(&circle(next, BULLET_RADIUS), wall, rule),
    )
}

/// The bullet lane: one shot at a time across a thin wall.
#[derive(Resource, Debug, Clone, PartialEq)]
pub struct Bullet {
    pub position: Vec2,
    /// Where it was one step earlier (its trail).
    pub previous: Vec2,
    pub velocity: Vec2,
    pub wall: Aabb2d,
    /// Moving (not stopped by the wall, not yet off screen).
    pub in_flight: bool,
    /// Where it hit the wall, this shot.
    pub hit: Option<Vec2>,
    /// The step that carried it from before the wall to past it without a hit.
    pub tunnel: Option<(Vec2, Vec2)>,
    /// The previous shot's tunnel, shown until this shot reaches the wall, so the jump
    /// stays on screen long enough to be seen.
    pub last_tunnel: Option<(Vec2, Vec2)>,
    /// Seconds since the shot.
    pub since_fire: f32,
}

impl Default for Bullet {
    /// A shot just fired, so the scene opens with a bullet in flight.
    fn default() -> Self {
        let mut bullet = Bullet {
            position: BULLET_START,
            previous: BULLET_START,
            velocity: Vec2::ZERO,
            wall: WALL,
            in_flight: false,
            hit: None,
            tunnel: None,
            last_tunnel: None,
            since_fire: 0.0,
        };
        bullet.fire();
        bullet
    }
}

impl Bullet {
    pub fn fire(&mut self) {
        *self = Bullet {
            position: BULLET_START,
            previous: BULLET_START,
            velocity: Vec2::new(BULLET_SPEED, 0.0),
            in_flight: true,
            hit: None,
            tunnel: None,
            last_tunnel: self.tunnel.or(self.last_tunnel),
            since_fire: 0.0,
            wall: self.wall,
        };
    }

    /// One step of [`BULLET_STEP`] seconds; stops at a hit or past `right_border`.
    pub fn step(&mut self, swept: bool, rule: EdgeRule, right_border: f32) {
        if !self.in_flight {
            return;
        }
        let before = self.position;
        let (after, hit) = step_bullet(before, self.velocity, BULLET_STEP, &self.wall, swept, rule);
        self.previous = before;
        self.position = after;
        if hit.is_some() {
            self.hit = hit;
            self.in_flight = false;
            self.last_tunnel = None;
        } else if before.x - BULLET_RADIUS < self.wall.max.x
            && after.x - BULLET_RADIUS >= self.wall.max.x
        {
            self.tunnel = Some((before, after));
            self.last_tunnel = None;
        }
        if after.x - BULLET_RADIUS > right_border {
            self.in_flight = false;
        }
    }

    /// Where to draw the bullet `alpha` of the way through the next step: between its last
    /// two places while it flies, where it stopped once it has.
    pub fn drawn_at(&self, alpha: f32) -> Vec2 {
        if self.in_flight {
            self.previous.lerp(self.position, alpha.clamp(0.0, 1.0))
        } else {
            self.position
        }
    }

    /// This shot's story, for the status line.
    pub fn outcome(&self) -> &'static str {
        match (self.hit, self.tunnel, self.in_flight) {
            (Some(_), _, _) => "stopped at wall",
            (None, Some(_), _) => "tunnelled through wall",
            (None, None, true) => "in flight",
            (None, None, false) => "gone",
        }
    }
}
