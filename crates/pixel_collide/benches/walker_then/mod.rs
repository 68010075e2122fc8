//! The terrain scene's walker as it was before the character controller
//! (`src/sim/walker.rs`, removed in 7828056): the baseline `character_walk` times
//! `move_character` against. It moves a pixel at a time with an overlap test per pixel,
//! which is what a game without time of impact writes. Kept as it was but for what the
//! bench does not call (pushes, the center).

use bevy_math::Vec2;
use pixel_collide::BitMask;
use pixel_collide::terrain::PIECE_GRAVITY;

/// Walking speed, px/s, at full input.
pub const WALK_SPEED: f32 = 140.0;
/// The highest ledge, px, stepped up without jumping.
pub const STEP_UP: i32 = 4;
/// How fast a sideways push dies away on the ground, per second.
const GROUND_DRAG: f32 = 6.0;

/// A body (its top-left pixel at `offset` in the terrain's mask) that never overlaps the
/// terrain.
pub struct Walker<'a> {
    pub body: &'a BitMask,
    pub offset: (i32, i32),
    pub velocity: Vec2,
    pub on_ground: bool,
    fraction: Vec2,
}

impl<'a> Walker<'a> {
    pub fn new(body: &'a BitMask, offset: (i32, i32)) -> Self {
        Walker {
            body,
            offset,
            velocity: Vec2::ZERO,
            on_ground: false,
            fraction: Vec2::ZERO,
        }
    }

    fn fits(&self, terrain: &BitMask, offset: (i32, i32)) -> bool {
        let (w, h) = self.body.size();
        let (tw, th) = terrain.size();
        offset.0 >= 0
            && i64::from(offset.0) + i64::from(w) <= i64::from(tw)
            && i64::from(offset.1) + i64::from(h) <= i64::from(th)
            && terrain.overlap(self.body, offset).is_none()
    }

    /// One step of `dt` seconds with `walk` in `-1..=1` (right positive). Moves a pixel at
    /// a time, so nothing is passed through, and ends clear of the terrain; a walker found
    /// inside it (a piece landed on it) is first lifted out.
    pub fn step(&mut self, terrain: &BitMask, walk: f32, dt: f32) {
        if !(dt.is_finite() && dt > 0.0) {
            return;
        }
        let walk = if walk.is_finite() {
            walk.clamp(-1.0, 1.0)
        } else {
            0.0
        };
        self.lift_out(terrain);
        if self.on_ground {
            self.velocity.x *= (1.0 - GROUND_DRAG * dt).max(0.0);
        }
        self.velocity.y += PIECE_GRAVITY * dt;
        self.velocity = self.velocity.clamp_length_max(3000.0);
        self.fraction += Vec2::new(self.velocity.x + walk * WALK_SPEED, self.velocity.y) * dt;
        let was_on_ground = self.on_ground;
        // Sideways: a pixel at a time, stepping up small ledges.
        while self.fraction.x.abs() >= 1.0 {
            let dir = self.fraction.x.signum() as i32;
            self.fraction.x -= dir as f32;
            let (x, y) = self.offset;
            let climb = (0..=STEP_UP).find(|&up| self.fits(terrain, (x + dir, y - up)));
            match climb {
                Some(up) => self.offset = (x + dir, y - up),
                None => {
                    self.fraction.x = 0.0;
                    self.velocity.x = 0.0;
                    break;
                }
            }
            // Down a slope: stay on it rather than hop off every pixel.
            if was_on_ground && self.velocity.y >= 0.0 {
                let (x, y) = self.offset;
                if let Some(down) = (1..=STEP_UP)
                    .take_while(|&d| self.fits(terrain, (x, y + d)))
                    .last()
                    && !self.fits(terrain, (x, y + down + 1))
                {
                    self.offset.1 += down;
                }
            }
        }
        // Up and down: a pixel at a time, stopping at the first that does not fit.
        while self.fraction.y.abs() >= 1.0 {
            let dir = self.fraction.y.signum() as i32;
            let next = (self.offset.0, self.offset.1 + dir);
            if self.fits(terrain, next) {
                self.offset = next;
                self.fraction.y -= dir as f32;
            } else {
                self.fraction.y = 0.0;
                self.velocity.y = 0.0;
                break;
            }
        }
        self.on_ground = !self.fits(terrain, (self.offset.0, self.offset.1 + 1));
        if self.on_ground && self.velocity.y > 0.0 {
            self.velocity.y = 0.0;
            self.fraction.y = 0.0;
        }
    }

    /// Lifts a walker found overlapping the terrain to the first place above that fits (or
    /// keeps it where it is when none does, up to the top).
    fn lift_out(&mut self, terrain: &BitMask) {
        if self.fits(terrain, self.offset) {
            return;
        }
        let (x, y) = self.offset;
        if let Some(up) = (1..=y.max(0)).find(|&up| self.fits(terrain, (x, y - up))) {
            self.offset = (x, y - up);
            self.velocity = Vec2::ZERO;
        }
    }
}
