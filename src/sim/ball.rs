//! The "Bouncing basketball" scene's physics, without an engine: a ball launched from the
//! top left falls under gravity onto a descending staircase of three platforms and
//! bounces, rolls and slides on them, all from the pixel masks.
//!
//! Conventions, for everything in this module:
//! - World space has x right and **y up** (Bevy's), in pixels; time is in seconds; angles
//!   are radians, counter-clockwise positive.
//! - A sprite's mask (x right, y down) is placed with [`sprite_to_world`]: centered on the
//!   sprite's position, turned by its angle.
//! - [`BallWorld::step`] advances by one fixed step. It is frame-rate independent because
//!   the caller always passes the same `dt` (from Bevy's `FixedUpdate`, or through
//!   [`FixedStepper`]); inside a step the motion is cut into sub-steps short enough that
//!   the ball cannot tunnel through a platform.
//! - Contacts come from [`transformed_overlap`]: the ball is pushed out along the contact
//!   normal, its normal velocity is reflected and scaled by the platform's elasticity, its
//!   tangential velocity scaled by the platform's friction.
//!
//! The platform materials are the tutorial's, so the tutorial's per-frame friction is kept
//! as "per 1/60 s of contact" (see [`Material`]).

use std::f32::consts::{PI, TAU};
use std::ops::RangeInclusive;
use std::sync::Arc;

use bevy_math::{Affine2, Rect, Vec2};

use pixel_collide::{BitMask, sprite_to_world, transformed_intersects, transformed_overlap};

/// A `diameter × diameter` mask with the pixels whose centers lie inside the inscribed
/// circle: the ball's shape before its sprite loads.
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

/// How a platform's surface treats the ball. Both factors are clamped to `0..=1` when used
/// (a NaN elasticity counts as 0, a NaN friction as 1), so a material can never add energy.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Material {
    /// Factor applied to the tangential velocity for every 1/60 s ([`TUTORIAL_RATE`]) the
    /// ball touches the surface: 1 is frictionless. The tutorial applied it once per frame
    /// of contact at 60 fps; scaling it by the step length keeps that meaning at any rate.
    pub friction: f32,
    /// Coefficient of restitution: the fraction of the normal speed kept by a bounce, so a
    /// drop bounces back to `elasticity²` of its height.
    pub elasticity: f32,
}

/// The tutorial's bouncy, nearly frictionless brick.
pub const BRICK: Material = Material {
    friction: 0.999,
    elasticity: 0.85,
};
/// The tutorial's stone: half the bounce, a little friction.
pub const STONE: Material = Material {
    friction: 0.99,
    elasticity: 0.5,
};
/// The tutorial's "slow" stone: hardly bounces, and brakes the ball hard.
pub const SLOW_STONE: Material = Material {
    friction: 0.9,
    elasticity: 0.2,
};

/// The frame rate the tutorial's friction factors were tuned for: [`Material::friction`]
/// is applied as `friction^(dt · TUTORIAL_RATE)` per fixed step with contact, which is
/// exactly `friction` per contact step at 60 Hz.
pub const TUTORIAL_RATE: f32 = 60.0;

/// Default gravity, px/s², y up.
pub const GRAVITY: Vec2 = Vec2::new(0.0, -900.0);
/// The screen the scene is laid out for: Bevy's default 1280×720 window with the camera at
/// the origin. The ball is removed when it leaves it.
pub const SCREEN: Rect = Rect::new(-640.0, -360.0, 640.0, 360.0);
/// Where the ball is launched from: the top left of [`SCREEN`], above the first platform.
pub const LAUNCH_START: Vec2 = Vec2::new(-590.0, 300.0);
/// Horizontal launch speeds, px/s: from the slowest that still lands on the first platform
/// with some room to the fastest that does not overshoot it.
pub const LAUNCH_SPEED: RangeInclusive<f32> = 150.0..=450.0;
/// The tutorial's staircase, top to bottom: center, angle and material of each 320×32
/// platform, each one's left end under the previous one's right end.
pub const STAIRCASE: [(Vec2, f32, Material); 3] = [
    (Vec2::new(-440.0, 120.0), 0.0, BRICK),
    (Vec2::new(-80.0, -60.0), 0.0, STONE),
    (Vec2::new(280.0, -240.0), 0.0, SLOW_STONE),
];

/// Above this dt a step is clamped to it (the time is dropped): a hitch must not make one
/// step, and so its sub-step count, unbounded.
pub const MAX_STEP: f32 = 0.1;
/// The ball's speed is clamped to this, px/s (a terminal velocity), which with
/// [`MAX_STEP`] bounds the sub-steps per step.
pub const MAX_SPEED: f32 = 5000.0;
/// Gravity longer than this is scaled down to it, px/s²; non-finite gravity counts as zero.
pub const MAX_GRAVITY: f32 = 20_000.0;
/// A bounce slower than this (px/s, along the normal) stops instead: without it a resting
/// ball would hop forever on pixel-sized bounces. At [`GRAVITY`] such a bounce would rise
/// less than a pixel.
pub const REST_SPEED: f32 = 40.0;

/// Tangential speed, px/s, below which friction stops the ball outright.
const STOP_SPEED: f32 = 1e-3;
/// Extra distance, px, added when pushing the ball out so that it ends clear, not touching.
const SEPARATION_EPSILON: f32 = 0.01;
/// Bisection rounds that tighten a push-out to 1/16 px, so a resting ball sits on the
/// surface instead of hovering up to a pixel above it.
const TIGHTEN_ROUNDS: u32 = 4;
/// Pixel-long steps [`push_out`] takes before its steps start doubling, and the most
/// doublings after them (from 1 to beyond any f32 in 128).
const PUSH_UNIT_STEPS: u32 = 16;
const PUSH_DOUBLINGS: u32 = 130;
/// How far below the ball (along gravity) a platform still counts as touched: one pixel,
/// the masks' resolution.
const TOUCH_SKIN: f32 = 1.0;
/// Passes over the platforms per sub-step: pushing out of one may push into another.
const RESOLVE_PASSES: u32 = 4;

/// A static platform: a mask placed by [`sprite_to_world`].
#[derive(Debug, Clone)]
pub struct Platform {
    pub mask: Arc<BitMask>,
    pub center: Vec2,
    /// Counter-clockwise, radians.
    pub angle: f32,
    pub material: Material,
}

impl Platform {
    pub fn to_world(&self) -> Affine2 {
        sprite_to_world(self.center, self.angle, Vec2::ONE, self.mask.size())
    }

    /// Whether a circle around `point` can reach the platform's box: a cheap rejection
    /// before the pixel test. False for non-finite input.
    fn may_touch(&self, point: Vec2, reach: f32) -> bool {
        let local = Vec2::from_angle(-self.angle).rotate(point - self.center);
        let half = Vec2::new(self.mask.width() as f32, self.mask.height() as f32) * 0.5;
        local.x.abs() <= half.x + reach && local.y.abs() <= half.y + reach
    }
}

/// The tutorial's staircase ([`STAIRCASE`]) with the given platform masks.
pub fn staircase(
    brick: Arc<BitMask>,
    stone: Arc<BitMask>,
    slow_stone: Arc<BitMask>,
) -> Vec<Platform> {
    [brick, stone, slow_stone]
        .into_iter()
        .zip(STAIRCASE)
        .map(|(mask, (center, angle, material))| Platform {
            mask,
            center,
            angle,
            material,
        })
        .collect()
}

/// The ball. Its mask is placed by [`sprite_to_world`] at `position`, turned by `angle`.
#[derive(Debug, Clone)]
pub struct Ball {
    /// Center, world px.
    pub position: Vec2,
    /// px/s.
    pub velocity: Vec2,
    /// Rolling rotation, radians, counter-clockwise, kept in `0..2π`.
    pub angle: f32,
    /// Angular velocity, rad/s: set by each contact to rolling without slipping
    /// (`−tangential speed / radius`, clockwise when rolling right on a floor) and kept in
    /// flight, so the ball spins on between bounces.
    pub spin: f32,
    /// Turns distance rolled into angle and sets the sub-step length; the mask alone
    /// decides contacts.
    pub radius: f32,
    pub mask: Arc<BitMask>,
    /// Position and angle before the last step, for rendering between steps
    /// ([`Ball::interpolated`]).
    pub previous_position: Vec2,
    pub previous_angle: f32,
}

impl Ball {
    pub fn to_world(&self) -> Affine2 {
        sprite_to_world(self.position, self.angle, Vec2::ONE, self.mask.size())
    }

    /// Position and angle `alpha` (0..=1) of the way from the previous step's state to the
    /// current one; the angle takes the short way round.
    pub fn interpolated(&self, alpha: f32) -> (Vec2, f32) {
        let alpha = if alpha.is_finite() {
            alpha.clamp(0.0, 1.0)
        } else {
            1.0
        };
        let turn = wrap_angle(self.angle - self.previous_angle);
        (
            self.previous_position.lerp(self.position, alpha),
            self.previous_angle + turn * alpha,
        )
    }

    /// Half the mask's diagonal: no set pixel is further than this from the center.
    fn reach(&self) -> f32 {
        Vec2::new(self.mask.width() as f32, self.mask.height() as f32).length() * 0.5
    }
}

/// The scene: gravity, the ball (if one is in play) and the platforms.
#[derive(Debug, Clone)]
pub struct BallWorld {
    /// px/s², y up. Sanitised by every step (see [`MAX_GRAVITY`]), so an overlay may write
    /// anything here.
    pub gravity: Vec2,
    pub ball: Option<Ball>,
    pub platforms: Vec<Platform>,
    /// The ball is removed once it is wholly outside: off the left, right or bottom, or off
    /// the top while gravity does not pull it back down.
    pub bounds: Rect,
    /// The mask and radius [`BallWorld::launch`] gives new balls.
    pub ball_mask: Arc<BitMask>,
    pub ball_radius: f32,
    /// Contacts in the last step: one per platform overlapped and resolved in a sub-step,
    /// plus one per platform the ball ended the step lying on without overlapping it (a
    /// resting or rolling touch, which applies friction but no bounce).
    pub contacts_last_step: u32,
    /// Sub-steps the last step was cut into.
    pub substeps_last_step: u32,
    /// Scratch: which platforms already applied friction during the current step.
    rubbed: Vec<bool>,
    /// The last ball mask's [`thinnest_part`] and [`turning`], with the mask they were
    /// measured on (holding it keeps the pointer, and so the measures, valid).
    shape: Option<(Arc<BitMask>, f32, (bool, f32))>,
}

impl BallWorld {
    /// A world with [`GRAVITY`], [`SCREEN`] bounds, no ball, and balls of radius half the
    /// mask's smaller side.
    ///
    /// Any ball mask works, not only round ones: a single pixel, a ring, a bar. Sub-steps
    /// follow the mask's [`thinnest_part`] and, for a shape that is not round, its turning
    /// too, so no part of it can pass a platform at least a pixel thick; and a contact is
    /// resolved where it began (see [`BallWorld::step`]), where the overlap is a sliver on
    /// the side the ball came from. An empty mask collides with nothing. (Platforms drawn
    /// with lines thinner than a pixel, such as a diagonal joined only at pixel corners,
    /// can let a pixel through between their pixels.)
    pub fn new(ball_mask: Arc<BitMask>, platforms: Vec<Platform>) -> BallWorld {
        let ball_radius = ball_mask.width().min(ball_mask.height()) as f32 * 0.5;
        BallWorld {
            gravity: GRAVITY,
            ball: None,
            platforms,
            bounds: SCREEN,
            ball_mask,
            ball_radius,
            contacts_last_step: 0,
            substeps_last_step: 0,
            rubbed: Vec::new(),
            shape: None,
        }
    }

    /// The tutorial's scene: [`BallWorld::new`] with the [`staircase`].
    pub fn tutorial(
        ball_mask: Arc<BitMask>,
        brick: Arc<BitMask>,
        stone: Arc<BitMask>,
        slow_stone: Arc<BitMask>,
    ) -> BallWorld {
        BallWorld::new(ball_mask, staircase(brick, stone, slow_stone))
    }

    /// Puts a new ball at `start` moving horizontally at `speed_x` px/s, replacing any ball
    /// in play. A non-finite `start` is ignored (nothing changes); a non-finite speed counts
    /// as 0, and speeds beyond [`MAX_SPEED`] are clamped.
    pub fn launch(&mut self, start: Vec2, speed_x: f32) {
        self.throw(start, Vec2::new(speed_x, 0.0));
    }

    /// Puts a new ball at `start` moving at `velocity` px/s, replacing any ball in play. A
    /// non-finite `start` is ignored (nothing changes); a non-finite velocity counts as
    /// zero, and one faster than [`MAX_SPEED`] is slowed to it.
    pub fn throw(&mut self, start: Vec2, velocity: Vec2) {
        if !start.is_finite() {
            return;
        }
        let velocity = if velocity.is_finite() {
            velocity.clamp_length_max(MAX_SPEED)
        } else {
            Vec2::ZERO
        };
        self.ball = Some(Ball {
            position: start,
            velocity,
            angle: 0.0,
            spin: 0.0,
            radius: self.ball_radius,
            mask: Arc::clone(&self.ball_mask),
            previous_position: start,
            previous_angle: 0.0,
        });
    }

    /// Advances the scene by one fixed step of `dt` seconds.
    ///
    /// A NaN, infinite, zero or negative `dt` does nothing (the ball is left where it is);
    /// a `dt` above [`MAX_STEP`] is clamped to it. The motion is cut into sub-steps in which
    /// no pixel of the ball moves further than a quarter of its radius or its
    /// [`thinnest_part`] (at least 1 px either way; a ball that is not round also turns,
    /// and its spin is held so that turning moves its pixels no faster than it moves),
    /// each integrated exactly for constant gravity (velocity first, position with the
    /// mean of the old and new velocities: semi-implicit Euler's O(dt) lag in free fall is
    /// gone). A sub-step that ends overlapping a platform is taken back to just past its
    /// first touch (within 1/16 of the sub-step), where the contact is resolved, so the
    /// ball never passes through a platform and never ends a sub-step overlapping one it
    /// could get out of.
    pub fn step(&mut self, dt: f32) {
        self.contacts_last_step = 0;
        self.substeps_last_step = 0;
        let Some(ball) = self.ball.as_mut() else {
            return;
        };
        ball.previous_position = ball.position;
        ball.previous_angle = ball.angle;
        if !(dt > 0.0 && dt.is_finite()) {
            return;
        }
        if !ball.position.is_finite() {
            self.ball = None;
            return;
        }
        if !ball.velocity.is_finite() {
            ball.velocity = Vec2::ZERO;
        }
        if !ball.spin.is_finite() {
            ball.spin = 0.0;
        }
        let dt = dt.min(MAX_STEP);
        let gravity = sanitised_gravity(self.gravity);

        // Bounces never add speed, so this bounds the distance of every sub-step.
        let top_speed = (ball.velocity.length() + gravity.length() * dt).min(MAX_SPEED);
        let (thinnest, (round, farthest)) = match &self.shape {
            Some((mask, thinnest, turning)) if Arc::ptr_eq(mask, &ball.mask) => {
                (*thinnest, *turning)
            }
            _ => {
                let (thinnest, turning) = (thinnest_part(&ball.mask), turning(&ball.mask));
                self.shape = Some((Arc::clone(&ball.mask), thinnest, turning));
                (thinnest, turning)
            }
        };
        // Turning moves a round ball's pixels along its outline, which leaves its shape;
        // any other shape's pixels sweep up to `farthest × spin`: as fast as the ball moves
        // at most (the spin is held to that), so its sub-steps allow for twice the speed.
        let max_spin = top_speed / farthest.max(0.5);
        let pixel_speed = if round {
            top_speed
        } else {
            ball.spin = ball.spin.clamp(-max_spin, max_spin);
            2.0 * top_speed
        };
        // A radius need not match the mask (it is an input too): NaN counts as none.
        let by_radius = if ball.radius.is_finite() {
            (ball.radius * 0.25).max(1.0)
        } else {
            1.0
        };
        let max_move = by_radius.min(thinnest);
        let substeps = ((pixel_speed * dt / max_move).ceil() as u32).max(1);
        let h = dt / substeps as f32;

        self.rubbed.clear();
        self.rubbed.resize(self.platforms.len(), false);
        for _ in 0..substeps {
            let (free, free_angle) = (ball.position, ball.angle);
            let v0 = ball.velocity;
            let v1 = (v0 + gravity * h).clamp_length_max(MAX_SPEED);
            ball.position += (v0 + v1) * (0.5 * h);
            ball.velocity = v1;
            ball.angle = (ball.angle + ball.spin * h).rem_euclid(TAU);
            // A shape that is not round can sweep a part across a platform by turning:
            // always resolve from the first touch. A round one only when the contact at
            // the end does not face back against the move (see `resolve`).
            let mut rewind = Some((free, free_angle));
            if !round && overlaps_any(ball, &self.platforms) {
                back_to_first_touch(ball, &self.platforms, free, free_angle);
                rewind = None;
            }
            self.contacts_last_step += resolve(
                ball,
                &self.platforms,
                &mut self.rubbed,
                gravity,
                dt,
                &mut rewind,
            );
            if !round {
                ball.spin = ball.spin.clamp(-max_spin, max_spin);
            }
            if overlaps_any(ball, &self.platforms) {
                // Wedged between platforms: the start of the sub-step was clear.
                ball.position = free;
            }
        }
        self.substeps_last_step = substeps;
        self.contacts_last_step += touch(ball, &self.platforms, &mut self.rubbed, gravity, dt);

        if left(ball, self.bounds, gravity) {
            self.ball = None;
        }
    }
}

/// Resolves the ball's contacts with every platform, a few passes deep; returns how many
/// contacts were resolved.
///
/// `rewind`, when set, is where the sub-step started (clear) and the ball's angle there:
/// if the first contact's normal does not face back against the move from there, the
/// ball entered the platform deep enough (a thin platform past its middle) for the
/// shortest way out to be the far side, so the ball is first taken back to just past its
/// first touch ([`back_to_first_touch`]) and the contact found again there.
fn resolve(
    ball: &mut Ball,
    platforms: &[Platform],
    rubbed: &mut [bool],
    gravity: Vec2,
    dt: f32,
    rewind: &mut Option<(Vec2, f32)>,
) -> u32 {
    let mut contacts = 0;
    for _ in 0..RESOLVE_PASSES {
        let mut touched = false;
        for (platform, rubbed) in platforms.iter().zip(rubbed.iter_mut()) {
            if !platform.may_touch(ball.position, ball.reach()) {
                continue;
            }
            let to_world = platform.to_world();
            let overlap = |ball: &Ball| {
                transformed_overlap(&ball.mask, ball.to_world(), &platform.mask, to_world)
            };
            let Some(mut contact) = overlap(ball) else {
                continue;
            };
            if let Some((free, free_angle)) = rewind.take()
                && contact.normal.dot(ball.position - free) >= 0.0
            {
                back_to_first_touch(ball, platforms, free, free_angle);
                match overlap(ball) {
                    Some(again) => contact = again,
                    None => continue,
                }
            }
            touched = true;
            contacts += 1;
            let normal = contact.normal;
            let pushed = push_out(ball, platform, to_world, normal, contact.depth);
            ball.position += normal * pushed;
            respond(ball, normal, pushed, gravity, platform.material, dt, rubbed);
        }
        if !touched {
            break;
        }
    }
    contacts
}

/// Friction and rolling for platforms the ball lies on without overlapping: a turning
/// pixel disc's lowest samples rise and fall by up to a pixel, so a ball resting or rolling
/// on a platform misses it in some steps. Ending a step within [`TOUCH_SKIN`] of a platform
/// below it (along gravity), neither arriving nor leaving faster than [`REST_SPEED`], counts
/// as touching it for that step.
/// Returns how many platforms it touched so.
fn touch(
    ball: &mut Ball,
    platforms: &[Platform],
    rubbed: &mut [bool],
    gravity: Vec2,
    dt: f32,
) -> u32 {
    let Some(down) = gravity.try_normalize() else {
        return 0;
    };
    let probe = sprite_to_world(
        ball.position + down * TOUCH_SKIN,
        ball.angle,
        Vec2::ONE,
        ball.mask.size(),
    );
    let mut touches = 0;
    for (platform, rubbed) in platforms.iter().zip(rubbed.iter_mut()) {
        if *rubbed || !platform.may_touch(ball.position, ball.reach() + TOUCH_SKIN) {
            continue;
        }
        let Some(contact) =
            transformed_overlap(&ball.mask, probe, &platform.mask, platform.to_world())
        else {
            continue;
        };
        let normal = contact.normal;
        if normal.dot(down) >= 0.0 || ball.velocity.dot(normal).abs() >= REST_SPEED {
            continue;
        }
        touches += 1;
        rub(ball, normal, platform.material, dt, rubbed);
    }
    touches
}

/// Bisection rounds of [`back_to_first_touch`]: the contact is found within 1/16 of the
/// sub-step's move.
const FIRST_TOUCH_ROUNDS: u32 = 4;

/// Moves a ball that ends a sub-step overlapping a platform back along the sub-step's
/// move and turn (from `free`, where it started) to just past the first touch, so that
/// the contact is resolved where it began: there the overlap is a sliver on the side the
/// ball came from, and its normal points back that way. Resolved at the end of the
/// sub-step instead, the overlap can be deep enough (a thin platform entered past its
/// middle, the tip of a turning bar swept across one) for the shortest way out to be
/// the far side.
fn back_to_first_touch(ball: &mut Ball, platforms: &[Platform], free: Vec2, free_angle: f32) {
    let (end, turn) = (ball.position, wrap_angle(ball.angle - free_angle));
    let at = |t: f32, ball: &mut Ball| {
        ball.position = free.lerp(end, t);
        ball.angle = (free_angle + turn * t).rem_euclid(TAU);
    };
    let (mut lo, mut hi) = (0.0f32, 1.0f32);
    for _ in 0..FIRST_TOUCH_ROUNDS {
        let mid = 0.5 * (lo + hi);
        at(mid, ball);
        if overlaps_any(ball, platforms) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    at(hi, ball);
}

/// How turning about its center moves a mask's pixels: `(round, farthest)`, `farthest`
/// being the largest distance of a set pixel's center from the mask's center, and `round`
/// whether turning leaves the pixels within less than a pixel of the largest disc about
/// the center that they fill (every pixel center in it set). Then no platform at least a
/// pixel thick fits between that disc and the farthest pixel, so turning cannot carry a
/// pixel across one. A disc is round; a ring (whose center is clear), a bar or a star is
/// not, and its turning counts as motion for the sub-steps.
fn turning(mask: &BitMask) -> (bool, f32) {
    let (w, h) = mask.size();
    let center = Vec2::new(w as f32, h as f32) / 2.0;
    let distance = |i: u32, j: u32| (Vec2::new(i as f32 + 0.5, j as f32 + 0.5) - center).length();
    // Beyond the mask's edge everything is clear.
    let (mut filled, mut farthest) = (w.min(h) as f32 / 2.0, 0.0f32);
    for j in 0..h {
        for i in 0..w {
            if mask.get(i.into(), j.into()) {
                farthest = farthest.max(distance(i, j));
            } else {
                filled = filled.min(distance(i, j));
            }
        }
    }
    (farthest - filled < 1.0, farthest)
}

/// The thickness of a mask's thinnest part, in pixels: its shortest run of set pixels
/// along a row or a column, times cos 45° for a turned ball (a run of `n` pixels turned
/// by `θ` spans `n cos θ` along the old axis), and at least 1. A ball moving no further
/// than this in a sub-step cannot pass a platform at least a pixel thick between two
/// sub-steps: some run of its pixels crosses the platform's line, and that run's samples
/// before and after the move leave no gap a pixel wide. A ring's thin wall, not its
/// radius, bounds its sub-steps. 1 for an empty mask.
pub fn thinnest_part(mask: &BitMask) -> f32 {
    let (w, h) = mask.size();
    let mut shortest = u32::MAX;
    let mut runs = |cells: &mut dyn Iterator<Item = bool>| {
        let mut run = 0;
        for set in cells.chain(std::iter::once(false)) {
            if set {
                run += 1;
            } else if run > 0 {
                shortest = shortest.min(run);
                run = 0;
            }
        }
    };
    for y in 0..h {
        runs(&mut (0..w).map(|x| mask.get(x.into(), y.into())));
    }
    for x in 0..w {
        runs(&mut (0..h).map(|y| mask.get(x.into(), y.into())));
    }
    if shortest == u32::MAX {
        return 1.0;
    }
    (shortest as f32 * std::f32::consts::FRAC_1_SQRT_2).max(1.0)
}

/// The distance along `normal` that clears the ball from the platform: `depth` plus a hair,
/// checked and extended until clear, then bisected back to within 1/16 px of touching.
fn push_out(ball: &Ball, platform: &Platform, to_world: Affine2, normal: Vec2, depth: f32) -> f32 {
    let hits = |d: f32| {
        let moved = sprite_to_world(
            ball.position + normal * d,
            ball.angle,
            Vec2::ONE,
            ball.mask.size(),
        );
        transformed_intersects(&ball.mask, moved, &platform.mask, to_world)
    };
    let depth = if depth.is_finite() {
        depth.max(0.0)
    } else {
        0.0
    };
    let mut hi = depth + SEPARATION_EPSILON;
    // The contact's depth is an estimate within a pixel: step on until clear, but never
    // further than it takes to leave the platform's box entirely. A pixel at a time at
    // first; then doubling steps, so the count is bounded whatever the floats do (a
    // pixel is below f32's spacing past 2^24) and however large the platform.
    let limit = ball.reach() * 2.0
        + Vec2::new(platform.mask.width() as f32, platform.mask.height() as f32).length();
    let mut step = 1.0f32;
    let mut clear = false;
    for k in 0..PUSH_UNIT_STEPS + PUSH_DOUBLINGS {
        if !hits(hi) {
            clear = true;
            break;
        }
        if hi >= limit {
            return hi;
        }
        if k >= PUSH_UNIT_STEPS {
            step *= 2.0;
        }
        hi = (hi + step).min(limit);
    }
    if !clear {
        return hi.max(limit);
    }
    let mut lo = (hi - step - SEPARATION_EPSILON).max(0.0);
    if !hits(lo) {
        lo = 0.0;
    }
    for _ in 0..TIGHTEN_ROUNDS {
        let mid = 0.5 * (lo + hi);
        if hits(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    hi + SEPARATION_EPSILON
}

/// The velocity response to a contact whose push-out moved the ball `pushed` px along
/// `normal`.
fn respond(
    ball: &mut Ball,
    normal: Vec2,
    pushed: f32,
    gravity: Vec2,
    material: Material,
    dt: f32,
    rubbed: &mut bool,
) {
    let elasticity = unit_or(material.elasticity, 0.0);
    let v_n = ball.velocity.dot(normal);
    let tangential = ball.velocity - normal * v_n;
    let mut normal_speed = v_n;
    if v_n < 0.0 {
        // The push-out lifts the ball against gravity without slowing it: take that
        // energy back, or every bounce would gain the sub-step's penetration in height.
        let lift = -gravity.dot(normal) * pushed;
        let impact = if lift > 0.0 {
            (v_n * v_n - 2.0 * lift).max(0.0).sqrt()
        } else {
            -v_n
        };
        normal_speed = if impact < REST_SPEED {
            0.0
        } else {
            elasticity * impact
        };
    }
    ball.velocity = tangential + normal * normal_speed;
    rub(ball, normal, material, dt, rubbed);
}

/// Friction on the velocity's tangential part, once per step and platform (like the
/// tutorial's once per frame of contact), and the spin of rolling without slipping.
fn rub(ball: &mut Ball, normal: Vec2, material: Material, dt: f32, rubbed: &mut bool) {
    let v_n = normal * ball.velocity.dot(normal);
    let mut tangential = ball.velocity - v_n;
    if !*rubbed {
        tangential *= unit_or(material.friction, 1.0).powf(dt * TUTORIAL_RATE);
        *rubbed = true;
        // Friction alone only ever approaches zero: a ball braked to rest would otherwise
        // crawl on through subnormal floats, slow arithmetic on some CPUs.
        if tangential.length_squared() < STOP_SPEED * STOP_SPEED {
            tangential = Vec2::ZERO;
        }
    }
    ball.velocity = tangential + v_n;
    // The contact point, at −radius·normal, is at rest.
    if ball.radius > 0.0 {
        ball.spin = tangential.dot(normal.perp()) / ball.radius;
    }
}

fn overlaps_any(ball: &Ball, platforms: &[Platform]) -> bool {
    let to_world = ball.to_world();
    platforms.iter().any(|p| {
        p.may_touch(ball.position, ball.reach())
            && transformed_intersects(&ball.mask, to_world, &p.mask, p.to_world())
    })
}

/// Whether the ball is wholly outside `bounds` for good.
fn left(ball: &Ball, bounds: Rect, gravity: Vec2) -> bool {
    let (p, r) = (ball.position, ball.reach());
    let above = p.y - r > bounds.max.y;
    p.x + r < bounds.min.x
        || p.x - r > bounds.max.x
        || p.y + r < bounds.min.y
        || (above && gravity.y >= 0.0)
}

fn sanitised_gravity(gravity: Vec2) -> Vec2 {
    if gravity.is_finite() {
        gravity.clamp_length_max(MAX_GRAVITY)
    } else {
        Vec2::ZERO
    }
}

/// `x` clamped to `0..=1`, or `nan` when `x` is NaN.
fn unit_or(x: f32, nan: f32) -> f32 {
    if x.is_nan() { nan } else { x.clamp(0.0, 1.0) }
}

/// `a` wrapped into `-π..π`.
fn wrap_angle(a: f32) -> f32 {
    (a + PI).rem_euclid(TAU) - PI
}

/// Turns real frame times into whole fixed steps: what Bevy's `Time<Fixed>` does for
/// `FixedUpdate`, for callers without Bevy (and for tests).
#[derive(Debug, Clone)]
pub struct FixedStepper {
    dt: f32,
    /// In f64 so that summing many short frames does not drift from the step boundaries.
    accumulated: f64,
    /// At most this many steps per frame; time beyond them is dropped, so a slow machine
    /// runs the simulation slower instead of falling ever further behind.
    pub max_steps_per_frame: u32,
}

impl FixedStepper {
    /// A stepper of `dt` seconds per step (a non-finite or non-positive `dt` becomes 1/60).
    pub fn new(dt: f32) -> FixedStepper {
        let dt = if dt.is_finite() && dt > 0.0 {
            dt
        } else {
            1.0 / 60.0
        };
        FixedStepper {
            dt,
            accumulated: 0.0,
            max_steps_per_frame: 16,
        }
    }

    pub fn dt(&self) -> f32 {
        self.dt
    }

    /// Adds a frame of `frame_time` seconds and returns how many fixed steps to run now.
    /// A NaN, infinite or negative frame time adds nothing.
    pub fn advance(&mut self, frame_time: f32) -> u32 {
        if frame_time.is_finite() && frame_time > 0.0 {
            self.accumulated += f64::from(frame_time);
        }
        let dt = f64::from(self.dt);
        let due = (self.accumulated / dt).floor();
        let steps = due.min(f64::from(self.max_steps_per_frame)) as u32;
        self.accumulated -= f64::from(steps) * dt;
        if due > f64::from(steps) {
            self.accumulated %= dt;
        }
        steps
    }

    /// How far into the next step the accumulated time is, `0..1`: the `alpha` for
    /// [`Ball::interpolated`].
    pub fn alpha(&self) -> f32 {
        (self.accumulated / f64::from(self.dt)).clamp(0.0, 1.0) as f32
    }
}
