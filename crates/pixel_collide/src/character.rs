//! A kinematic character on pixels: move a body mask by a desired translation and slide
//! along what it meets, climbing slopes up to an angle and ledges up to a height, and
//! staying on the ground within a snap distance, never ending a move overlapping
//! anything it was clear of. What it moves against is a [`CharacterWorld`]: one placed
//! mask ([`MaskWorld`]) here, every collider in the Bevy plugin.
//!
//! Pixel ground is a staircase: a slope of 30° is a riser of one pixel every two, and a
//! ray or a cast meets each riser face on. So slopes are not told by the normal of the
//! face hit but by what lifting the body does: blocked while moving along the ground, the
//! body is lifted a step at a time and cast on; a lift of `h` that lets it advance `w`
//! is a slope of `atan(h / w)`, climbed up to `max_slope_climb_angle`, and a ledge, stepped
//! up to `autostep`'s height.
//!
//! Touching is the overlap's definition: a pixel's center inside a solid pixel. So a
//! body rests with its bottom pixels' centers on the ground's surface, the edge it is
//! drawn with half a pixel lower; a game that wants feet drawn flush draws the sprite
//! half a pixel up.

use bevy_math::{Affine2, Vec2};

use super::cast::{
    ANY_WAY, MaskMotion, TimeOfImpact, one_for_one_offset, overlap_after_step, stepping,
    transformed_time_of_impact, transformed_time_of_impact_from_clear,
};
use super::mask::BitMask;
use super::reproducible_math;
use super::transformed::transformed_intersects;

/// Where a cast body first touches a [`CharacterWorld`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CharacterHit<Id> {
    /// Fraction of the translation, in `0..=1`, at which the body touches.
    pub fraction: f32,
    /// Outward unit normal of what it touches, world space.
    pub normal: Vec2,
    /// World point where they touch.
    pub point: Vec2,
    /// What it touches.
    pub id: Id,
}

/// What a character moves against.
pub trait CharacterWorld {
    /// What a hit names: an entity in Bevy, `()` for one mask.
    type Id: Copy;

    /// Where `body`, placed by `pose` and moved by `translation`, first touches the
    /// world; `None` when it stays clear. A body overlapping at the start touches at 0.
    /// Exact to rounding: the controller trusts that the body is clear anywhere short of
    /// the fraction given, and does not test where a move it cast ends.
    fn cast(
        &mut self,
        body: &BitMask,
        pose: Affine2,
        translation: Vec2,
    ) -> Option<CharacterHit<Self::Id>>;

    /// Whether `body` placed by `pose` overlaps the world.
    fn overlaps(&mut self, body: &BitMask, pose: Affine2) -> bool;

    /// [`overlaps`](Self::overlaps) for a body the caller knows is clear of the world at
    /// `clear_pose`, a pixel or so from `pose`: a world may test only the part of the body
    /// the move brings to new pixels. The controller tests so each height it lifts a
    /// blocked body to, a step above the last.
    fn overlaps_from_clear(&mut self, body: &BitMask, clear_pose: Affine2, pose: Affine2) -> bool {
        let _ = clear_pose;
        self.overlaps(body, pose)
    }

    /// [`cast`](Self::cast) for a body the caller knows is clear of the world at `pose`:
    /// a world may skip testing the start, which is much of a short cast's time. The
    /// controller casts so from where its last cast left the body.
    fn cast_from_clear(
        &mut self,
        body: &BitMask,
        pose: Affine2,
        translation: Vec2,
    ) -> Option<CharacterHit<Self::Id>> {
        self.cast(body, pose, translation)
    }
}

/// One placed mask as a character's world: a terrain.
#[derive(Debug, Clone, Copy)]
pub struct MaskWorld<'a> {
    /// The world's pixels.
    pub mask: &'a BitMask,
    /// Its mask-to-world transform.
    pub to_world: Affine2,
}

impl CharacterWorld for MaskWorld<'_> {
    type Id = ();

    fn cast(
        &mut self,
        body: &BitMask,
        pose: Affine2,
        translation: Vec2,
    ) -> Option<CharacterHit<()>> {
        let motion = MaskMotion::translation(translation);
        transformed_time_of_impact(body, pose, motion, self.mask, self.to_world).map(hit_of)
    }

    fn cast_from_clear(
        &mut self,
        body: &BitMask,
        pose: Affine2,
        translation: Vec2,
    ) -> Option<CharacterHit<()>> {
        let motion = MaskMotion::translation(translation);
        transformed_time_of_impact_from_clear(body, pose, motion, self.mask, self.to_world)
            .map(hit_of)
    }

    fn overlaps(&mut self, body: &BitMask, pose: Affine2) -> bool {
        match one_for_one_offset(pose, self.to_world) {
            Some(offset) => self.mask.overlap(body, offset).is_some(),
            None => transformed_intersects(body, pose, self.mask, self.to_world),
        }
    }

    fn overlaps_from_clear(&mut self, body: &BitMask, clear_pose: Affine2, pose: Affine2) -> bool {
        let offsets = one_for_one_offset(clear_pose, self.to_world)
            .zip(one_for_one_offset(pose, self.to_world));
        match offsets {
            Some((from, to)) => {
                let (from, to) = ((from.0.into(), from.1.into()), (to.0.into(), to.1.into()));
                let stepping = stepping(body, self.mask);
                overlap_after_step::<ANY_WAY>(body, self.mask, stepping, Some(from), to).is_some()
            }
            None => self.overlaps(body, pose),
        }
    }
}

fn hit_of(hit: TimeOfImpact) -> CharacterHit<()> {
    CharacterHit {
        fraction: hit.fraction,
        normal: hit.normal,
        point: hit.point,
        id: (),
    }
}

/// Stepping up ledges without jumping.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Autostep {
    /// The highest ledge stepped up, world px.
    pub max_height: f32,
    /// How far the body must get onto a ledge for the step to count, world px.
    pub min_width: f32,
}

/// How a character moves ([`move_character`]), after bevy_rapier's
/// `KinematicCharacterController`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CharacterSettings {
    /// The world's up, a unit vector (`Vec2::Y` in Bevy's world).
    pub up: Vec2,
    /// The steepest slope walked up, radians from level.
    pub max_slope_climb_angle: f32,
    /// Ledges stepped up while on the ground; `None` for none.
    pub autostep: Option<Autostep>,
    /// While on the ground and not moving up, the body is kept on it down drops of up to
    /// this many world px (walking down a slope or off a step); `None` to fall instead.
    pub snap_to_ground: Option<f32>,
    /// The gap, world px, left between the body and what stops it: pixels are half-open,
    /// so a body touching a pixel's near edge exactly would overlap it.
    pub skin: f32,
    /// How far a body found inside the world is lifted, at most, to get out, world px.
    pub max_lift_out: f32,
    /// The lift tried, a step at a time, when blocked: a world pixel of the ground. Each
    /// height is tested where it ends, so a lift passes through nothing thinner than this.
    pub climb_step: f32,
    /// Whether a move finds [`CharacterMove::ground_normal`]: two casts and two overlap
    /// tests more, more than the rest of a walking move.
    pub find_ground_normal: bool,
}

impl Default for CharacterSettings {
    fn default() -> Self {
        CharacterSettings {
            up: Vec2::Y,
            max_slope_climb_angle: 50f32.to_radians(),
            autostep: Some(Autostep {
                max_height: 4.0,
                min_width: 1.0,
            }),
            snap_to_ground: Some(4.0),
            skin: 0.01,
            max_lift_out: 64.0,
            climb_step: 1.0,
            find_ground_normal: true,
        }
    }
}

/// What one move did.
#[derive(Debug, Clone, PartialEq)]
pub struct CharacterMove<Id> {
    /// The translation the body made: add it to its position.
    pub translation: Vec2,
    /// Whether it ends on the ground (within the skin and a tenth of a pixel above it).
    pub grounded: bool,
    /// The ground's unit normal under it, from the ground's height either side of it
    /// rather than the pixel face under it; `None` when not grounded, when the ground
    /// beside it is steeper than it climbs or missing (a ledge's edge), or when the
    /// settings do not ask ([`CharacterSettings::find_ground_normal`]).
    pub ground_normal: Option<Vec2>,
    /// What it touched on the way, in order.
    pub hits: Vec<CharacterHit<Id>>,
    /// Whether it started inside the world (then it was lifted out, if it could be).
    pub started_inside: bool,
}

/// Moves `body`, placed by `pose`, by `desired` against `world`: along the ground first
/// (climbing and stepping as `settings` allow, stopped by what is steeper or higher), then
/// up or down, then snapped to the ground if it was `grounded` and is not moving up.
/// Never ends overlapping the world unless it started inside it and could not be lifted
/// out; a move that would (rounding at a pixel's edge) is not made.
pub fn move_character<W: CharacterWorld>(
    world: &mut W,
    body: &BitMask,
    pose: Affine2,
    desired: Vec2,
    grounded: bool,
    settings: &CharacterSettings,
) -> CharacterMove<W::Id> {
    let up = settings.up.normalize_or(Vec2::Y);
    let mut mover = Mover {
        world,
        body,
        pose,
        up,
        settings,
        at: Vec2::ZERO,
        hits: Vec::new(),
    };
    let desired = if desired.is_finite() {
        desired
    } else {
        Vec2::ZERO
    };
    let started_inside = mover.overlaps(Vec2::ZERO);
    if started_inside {
        mover.lift_out();
    }
    let stuck = started_inside && mover.overlaps(mover.at);
    let mut known_on_ground = None;
    if !stuck {
        let right = Vec2::new(up.y, -up.x);
        mover.walk(right * desired.dot(right), grounded);
        let rise = up * desired.dot(up);
        let going_up = desired.dot(up) > 0.0;
        match settings.snap_to_ground {
            Some(snap) if grounded && !going_up => {
                known_on_ground = mover.fall_or_snap(rise, snap.max(0.0));
            }
            _ => {
                // Stopped on the way down, it rests within the skin of what stopped it: on
                // the ground, as the probe would say, without the probe's cast.
                let landed = mover.slide(rise) && desired.dot(up) < 0.0;
                known_on_ground = landed.then_some(true);
            }
        }
    }
    // Never end inside what it was clear of, nor anywhere settings that are not numbers
    // would put it. Every move was cast (stopped a skin short) or tested where it ends, so
    // only rounding could put it inside, and only where the skin is too thin to cover the
    // rounding of positions that far out: then the end is tested too.
    let may_be_inside = !started_inside && !mover.skin_covers_rounding();
    if !mover.at.is_finite() || (may_be_inside && mover.overlaps(mover.at)) {
        mover.at = Vec2::ZERO;
        known_on_ground = None;
    }
    let on_ground = known_on_ground.unwrap_or_else(|| mover.on_ground());
    let ground_normal = if on_ground && settings.find_ground_normal {
        mover.ground_normal()
    } else {
        None
    };
    CharacterMove {
        translation: mover.at,
        grounded: on_ground,
        ground_normal,
        hits: mover.hits,
        started_inside,
    }
}

/// The longest run, world px, over which a lift is judged (a slope angle near zero asks for
/// an endless one).
const MAX_CLIMB_RUN: f32 = 1024.0;

/// Units in the last place of a position that the skin must exceed for the end of a move
/// to go untested: the rounding of a few additions, with room to spare.
const ROUNDING_ULPS: f32 = 16.0;

struct Mover<'a, W: CharacterWorld> {
    world: &'a mut W,
    body: &'a BitMask,
    pose: Affine2,
    up: Vec2,
    settings: &'a CharacterSettings,
    /// The body's translation so far.
    at: Vec2,
    hits: Vec<CharacterHit<W::Id>>,
}

impl<W: CharacterWorld> Mover<'_, W> {
    fn place(&self, offset: Vec2) -> Affine2 {
        Affine2::from_translation(offset) * self.pose
    }

    fn overlaps(&mut self, offset: Vec2) -> bool {
        let pose = self.place(offset);
        self.world.overlaps(self.body, pose)
    }

    /// [`Mover::overlaps`] for a body known clear at `clear`.
    fn overlaps_from_clear(&mut self, clear: Vec2, offset: Vec2) -> bool {
        let (clear_pose, pose) = (self.place(clear), self.place(offset));
        self.world.overlaps_from_clear(self.body, clear_pose, pose)
    }

    /// How far along `motion` from `from` the body gets, skin kept: the fraction, and
    /// the hit that stopped it.
    fn reach(&mut self, from: Vec2, motion: Vec2) -> (f32, Option<CharacterHit<W::Id>>) {
        let length = motion.length();
        if length == 0.0 {
            return (0.0, None);
        }
        let pose = self.place(from);
        let hit = self.world.cast_from_clear(self.body, pose, motion);
        self.skin_kept(hit, length)
    }

    /// A cast's hit over `length` as how far the body may go, skin kept.
    fn skin_kept(
        &self,
        hit: Option<CharacterHit<W::Id>>,
        length: f32,
    ) -> (f32, Option<CharacterHit<W::Id>>) {
        match hit {
            None => (1.0, None),
            Some(hit) => {
                let fraction = ((hit.fraction * length - self.settings.skin) / length).max(0.0);
                (fraction, Some(hit))
            }
        }
    }

    /// Straight along `motion`, stopping at what it meets: whether something stopped it.
    fn slide(&mut self, motion: Vec2) -> bool {
        let (fraction, hit) = self.reach(self.at, motion);
        self.at += motion * fraction;
        let stopped = hit.is_some();
        self.hits.extend(hit);
        stopped
    }

    /// Down by `fall` (a motion along `-up` or none) and on down to ground within `snap`
    /// below that, in one cast: ground within the fall stops it, ground within the snap
    /// distance beyond holds it, and with none it falls by `fall` only. Whether it ends on
    /// the ground, when the cast tells.
    fn fall_or_snap(&mut self, fall: Vec2, snap: f32) -> Option<bool> {
        let down = -self.up * (fall.length() + snap);
        let (fraction, hit) = self.reach(self.at, down);
        match hit {
            Some(hit) => {
                self.at += down * fraction;
                self.hits.push(hit);
                Some(true)
            }
            None => {
                self.at += fall;
                // No ground within the snap distance is none within the probe's, unless
                // the snap distance is the shorter.
                (snap >= self.probe_distance()).then_some(false)
            }
        }
    }

    /// Along the ground by `motion`, lifted over slopes and ledges it may climb.
    fn walk(&mut self, motion: Vec2, grounded: bool) {
        let mut left = motion;
        // The reach along what is left, when the cast judging a lift already found it.
        let mut known_reach = None;
        // Found when first blocked: most moves are not, and a tangent is a tenth of one.
        let mut steepest = None;
        let step = self.settings.climb_step.max(1e-3);
        for _ in 0..64 {
            if left.length() <= 1e-4 {
                return;
            }
            let (fraction, hit) = known_reach
                .take()
                .unwrap_or_else(|| self.reach(self.at, left));
            self.at += left * fraction;
            left *= 1.0 - fraction;
            let Some(hit) = hit else { return };
            self.hits.push(hit);
            let tan_max = *steepest.get_or_insert_with(|| {
                reproducible_math::tan(self.settings.max_slope_climb_angle.clamp(0.0, 1.5))
            });
            // Blocked: the smallest lift that lets it on, as a slope or as a step.
            let step_height = self
                .settings
                .autostep
                .filter(|_| grounded)
                .map_or(0.0, |a| a.max_height);
            // At least one lift is tried: a move shorter than a riser's run still climbs
            // it when the slope over that run is gentle enough (judged below).
            let slope_height = (left.length() * tan_max).max(step);
            let highest = step_height.max(slope_height).min(64.0 * step);
            let mut climbed = false;
            let mut lift = step;
            // Where the body was last found clear: where it was stopped, then each height.
            let mut clear = self.at;
            while lift <= highest + 1e-4 {
                // Each height is tested where it ends, a step above the last: a lift
                // passes through nothing a step thick or thicker, and costs an overlap
                // test, not a cast.
                let lifted = self.at + self.up * lift;
                if self.overlaps_from_clear(clear, lifted) {
                    break;
                }
                clear = lifted;
                // The ground's steepness, not how much of the move is left, decides: a
                // lift is judged over the run it needs (and the step's width), which may
                // be longer than what is left of this move; the body then moves only what
                // is left. Judged over what is left, the fraction of a pixel left at each
                // move on a staircase of pixels would never climb it.
                let min_width = self.settings.autostep.map_or(0.0, |a| a.min_width);
                let run = left
                    .length()
                    .max((lift / tan_max).min(MAX_CLIMB_RUN))
                    .max(min_width.min(MAX_CLIMB_RUN));
                let (along, along_hit) = self.reach(lifted, left.normalize_or_zero() * run);
                let advance = along * run;
                let slope_ok = lift <= advance * tan_max + 1e-4;
                let step_ok = self
                    .settings
                    .autostep
                    .is_some_and(|a| grounded && lift <= a.max_height && advance >= a.min_width);
                if advance > 0.0 && (slope_ok || step_ok) {
                    self.at = lifted;
                    climbed = true;
                    // The run is at least what is left, so its cast answers the next reach:
                    // a hit within what is left, scaled to it, or none.
                    let length = left.length();
                    let within = along_hit
                        .filter(|hit| hit.fraction * run <= length)
                        .map(|hit| CharacterHit {
                            fraction: hit.fraction * run / length,
                            ..hit
                        });
                    known_reach = Some(self.skin_kept(within, length));
                    break;
                }
                lift += step;
            }
            if !climbed {
                return;
            }
        }
    }

    /// Lifts a body found inside the world up to the first clear place within reach.
    fn lift_out(&mut self) {
        let step = self.settings.climb_step.max(1e-3);
        // At most 1,024 tries, whatever the settings: a bounded time.
        let tries = (self.settings.max_lift_out / step)
            .floor()
            .clamp(0.0, 1024.0) as u32;
        for k in 1..=tries {
            let lift = self.up * (k as f32 * step);
            if !self.overlaps(lift) {
                self.at = lift;
                return;
            }
        }
    }

    /// Whether [`CharacterSettings::skin`] is wider than rounding can move the body where
    /// it ends: casts answer in f64, positions are f32, and where a move ends is a few of
    /// their units in the last place from where the casts put it.
    fn skin_covers_rounding(&self) -> bool {
        let farthest = self
            .place(self.at)
            .translation
            .abs()
            .max(self.pose.translation.abs())
            .max_element()
            .max(1.0);
        self.settings.skin > ROUNDING_ULPS * f32::EPSILON * farthest
    }

    /// How far below the body [`Mover::on_ground`] looks for ground.
    fn probe_distance(&self) -> f32 {
        self.settings.skin * 2.0 + 0.1
    }

    fn on_ground(&mut self) -> bool {
        let probe = -self.up * self.probe_distance();
        let pose = self.place(self.at);
        self.world.cast_from_clear(self.body, pose, probe).is_some()
    }

    /// The ground's normal from its height a little either side: pixel ground is a
    /// staircase, whose faces are all level or upright. The heights are looked for as far
    /// up and down as the steepest slope it climbs rises over that distance (and a pixel):
    /// ground steeper than that is a wall, whose normal is not the ground's. `None` where
    /// either side has no such ground.
    fn ground_normal(&mut self) -> Option<Vec2> {
        let right = Vec2::new(self.up.y, -self.up.x);
        let aside = 2.0;
        let steepest = reproducible_math::tan(self.settings.max_slope_climb_angle.clamp(0.0, 1.4));
        let reach = (aside * steepest + 1.0).clamp(1.0, 8.0);
        let down = -self.up * reach;
        let mut drop = |side: f32| {
            let level = self.at + right * side;
            let drop = if self.overlaps(level) {
                // The ground is higher there: cast down onto it from `reach` above.
                let hit = self.world.cast(self.body, self.place(level - down), down)?;
                (hit.fraction > 0.0).then_some(hit.fraction * reach - reach)?
            } else {
                // Clear level with it (so the cast may skip its start), the ground is lower.
                let hit = self
                    .world
                    .cast_from_clear(self.body, self.place(level), down)?;
                hit.fraction * reach
            };
            drop.is_finite().then_some(drop)
        };
        let (left, right_drop) = (drop(-aside)?, drop(aside)?);
        let slope = (left - right_drop) / (2.0 * aside);
        Some((self.up - right * slope).normalize_or(self.up))
    }
}
