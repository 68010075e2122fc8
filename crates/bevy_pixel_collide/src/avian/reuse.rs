//! Contacts found once and carried along while a pair barely moves.
//!
//! A pile at rest asks the same question of every touching pair each step, and each answer
//! takes several walks over the pair's pixels (the overlap, its gradient, the depth
//! search) or a search for the gaps between them. Between two steps a resting body moves a
//! hundredth of a pixel. So each pair's answer is kept with the placement of one mask in
//! the other's space that gave it, and used again, its points carried along by the
//! masks' motion, while no pixel of the first mask has moved more than
//! [`MaskContacts::tolerance`] relative to the second: the same reuse a persistent
//! manifold makes of its points in Bullet or Jolt, checked against the motion of every
//! pixel rather than of the centers.

use std::sync::{Mutex, PoisonError, Weak};

use avian2d::math::{Scalar, Vector};
use avian2d::prelude::Rotation;
use bevy::math::Affine2;
use bevy::platform::collections::HashMap;
use bevy::prelude::*;

use pixel_collide::{
    BitMask, Contact, Gap, ManifoldPoint, transformed_contact_or_gaps, transformed_gaps_beside,
};

use super::MaskCollider;

/// How far, in world px, a pixel of one mask may move relative to the other before a
/// pair's contact is found again, by default: half a pixel, four times the precision to
/// which its depth is found ([`pixel_collide::DEPTH_RESOLUTION`]). Each contact found
/// again jumps by up to that precision and moves its points, and in a deep pile those
/// jumps keep bodies jiggling over avian's sleep thresholds. A quarter of a pixel kept
/// deep piles awake; a whole pixel let bodies rest nearly a pixel into the ground (the
/// avian polygon bench measures both). Half a pixel lets piles sleep and keeps a carried
/// contact's error under a pixel's half.
pub const DEFAULT_TOLERANCE: f32 = 4.0 * pixel_collide::DEPTH_RESOLUTION;

/// How far a turn may swing a pair's pixels against each other in a step before the pair
/// is also tested at the step's end, by default: 3 px. In the avian polygon bench's piles
/// of 200 it holds the stones that land turning at 10 to 18 rad/s, which sank 12 rows
/// without it, for about a tenth more time a step while bodies land; 2 px cost more and
/// held no better.
pub const DEFAULT_PREDICTION_THRESHOLD: f32 = 3.0;

/// Shards of the table, each behind its own lock, so that the narrow phase's threads
/// rarely wait on one another.
const SHARDS: usize = 16;

/// The contacts of mask collider pairs, as last found, and how far a pair may move before
/// they are found again. [`super::MaskColliderPlugin`] adds it; insert your own first to
/// change the tolerance (0 finds every contact again unless neither body moved).
#[derive(Resource)]
pub struct MaskContacts {
    /// The most, in world px, that any pixel of one mask may have moved relative to the
    /// other since their contact was found for it to be carried rather than found again.
    pub tolerance: f32,
    /// How far, in world px, the bodies' turns may swing the pixels of a pair against
    /// each other within a step before the pair is also tested where their velocities
    /// would put it at the step's end, and held where it would meet there (see
    /// `avian/predicted.rs`): [`DEFAULT_PREDICTION_THRESHOLD`] unless set. Infinity for
    /// never: bodies turning fast then sink into each other for a step.
    pub prediction_threshold: f32,
    shards: [Shard; SHARDS],
    pub(super) motions: super::predicted::Motions,
}

/// One shard's lock, on cache lines of its own: packed side by side, two threads taking
/// two different shards' locks still fought over the line they shared.
#[derive(Default)]
#[repr(align(128))]
struct Shard(Mutex<HashMap<(Entity, Entity), Found>>);

impl Default for MaskContacts {
    fn default() -> Self {
        MaskContacts::with_tolerance(DEFAULT_TOLERANCE)
    }
}

impl MaskContacts {
    /// Contacts carried while neither mask has moved a pixel more than `tolerance` (world px) against the other.
    pub fn with_tolerance(tolerance: f32) -> Self {
        MaskContacts {
            tolerance,
            prediction_threshold: DEFAULT_PREDICTION_THRESHOLD,
            shards: Default::default(),
            motions: Default::default(),
        }
    }

    /// Pairs whose contact is kept: those the narrow phase asked about since the last
    /// [`forget_unasked`].
    pub fn len(&self) -> usize {
        self.shards.iter().map(|shard| lock(&shard.0).len()).sum()
    }

    /// Whether no pair's contact is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn shard(&self, key: (Entity, Entity)) -> &Mutex<HashMap<(Entity, Entity), Found>> {
        let mixed = key.0.to_bits() ^ key.1.to_bits().rotate_left(29);
        &self.shards[(mixed ^ (mixed >> 17)) as usize % SHARDS].0
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A panic elsewhere while the lock was held leaves whole entries, never half-written
    // ones: each is inserted or replaced in one move.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Drops the contacts of pairs the narrow phase did not ask about this step (apart,
/// asleep or despawned), so the table holds only live pairs.
pub fn forget_unasked(mut contacts: ResMut<MaskContacts>) {
    for shard in &mut contacts.shards {
        let pairs = shard.0.get_mut().unwrap_or_else(PoisonError::into_inner);
        pairs.retain(|_, found| std::mem::take(&mut found.asked));
    }
}

/// One collider of a pair, where the narrow phase places it at the step's start.
pub(super) struct Placed<'c> {
    pub collider: &'c MaskCollider,
    pub entity: Entity,
    /// The body's position, which avian's anchors are measured from.
    pub position: Vector,
    pub rotation: Rotation,
    /// The collider's mask into the world: `collider.to_world(position, rotation)`.
    pub to_world: Affine2,
}

impl<'c> Placed<'c> {
    pub(super) fn new(
        collider: &'c MaskCollider,
        entity: Entity,
        position: Vector,
        rotation: Rotation,
    ) -> Self {
        Placed {
            collider,
            entity,
            position,
            rotation,
            to_world: collider.to_world(position, rotation),
        }
    }

    fn mask(&self) -> &'c std::sync::Arc<BitMask> {
        &self.collider.mask
    }
}

/// A point the solver holds, as found: in both masks' spaces, so that the motion of each
/// carries it, with its depth and normal (avian's: from the first body to the second, in
/// the second mask's space) at that time.
#[derive(Debug, Clone, Copy)]
struct Held {
    in_a: Vec2,
    in_b: Vec2,
    penetration: Scalar,
    normal_in_b: Vec2,
    /// The part of the overlap it holds (see [`ManifoldPoint::part`]): one manifold each.
    /// For a gap, three a side: its nearest point, its ends, its bulges (see
    /// `side_points`): avian's manifolds in 2D hold two points.
    part: u32,
    /// A gap where the pair would meet at the step's end (see `avian/predicted.rs`): kept
    /// even past the distance avian asks about, which counts the linear motion alone.
    predicted: bool,
}

/// What a pair's narrow phase found, and where the two masks were.
struct Found {
    masks: [Weak<BitMask>; 2],
    scales: [Vector; 2],
    /// The first mask's space into the second's.
    a_to_b: Affine2,
    /// Corners of the first mask's set pixels, in its space: the motion of an affine map
    /// over the box is largest at one of them.
    a_corners: [Vec2; 4],
    /// Gaps were searched up to this distance.
    reach: Scalar,
    touching: bool,
    held: Vec<Held>,
    asked: bool,
}

impl Found {
    fn matches(&self, a: &Placed, b: &Placed) -> bool {
        self.scales == [a.collider.scale, b.collider.scale]
            && std::ptr::eq(self.masks[0].as_ptr(), std::sync::Arc::as_ptr(a.mask()))
            && std::ptr::eq(self.masks[1].as_ptr(), std::sync::Arc::as_ptr(b.mask()))
    }

    /// The most any of the first mask's pixels has moved relative to the second since.
    fn moved(&self, a: &Placed, b: &Placed) -> f32 {
        let then = b.to_world * self.a_to_b;
        self.a_corners
            .iter()
            .map(|&corner| a.to_world.transform_point2(corner) - then.transform_point2(corner))
            .map(Vec2::length)
            // NaN (a transform gone bad) counts as infinitely far.
            .fold(0.0, |most, moved| {
                if moved.is_nan() {
                    f32::INFINITY
                } else {
                    most.max(moved)
                }
            })
    }
}

/// The pair's contact manifolds in `manifolds`: carried from what was found before, if the
/// pair has moved less than the tolerance since and is not `moving_fast` (its velocities
/// may have changed since it last moved: struck, a resting pair is found anew), otherwise
/// found now by `find`. The pair is kept under its two colliders' entities.
pub(super) fn contact_manifolds(
    contacts: &MaskContacts,
    a: Placed,
    b: Placed,
    prediction_distance: Scalar,
    moving_fast: bool,
    manifolds: &mut Vec<avian2d::prelude::ContactManifold>,
    find: impl FnOnce(Scalar, &mut Vec<ManifoldPoint>, &mut Vec<Gap>) -> (Option<Contact>, usize),
) {
    manifolds.clear();
    let tolerance = contacts.tolerance.max(0.0);
    let key = (a.entity, b.entity);
    let shard = contacts.shard(key);
    {
        let mut pairs = lock(shard);
        if let Some(found) = pairs.get_mut(&key)
            && !moving_fast
            && found.matches(&a, &b)
        {
            let moved = found.moved(&a, &b);
            // Apart pairs: a gap within the distance asked now was within the reach
            // searched then, however far they moved.
            let within_reach = found.touching || prediction_distance + moved <= found.reach;
            if moved <= tolerance && within_reach {
                found.asked = true;
                emit(found, &a, &b, prediction_distance, manifolds);
                return;
            }
        }
    }
    // Searching a little further than asked lets the answer serve while the pair moves
    // by up to the tolerance.
    let reach = prediction_distance + tolerance;
    let mut points = Vec::new();
    let mut gaps = Vec::new();
    let (contact, searched) = find(reach, &mut points, &mut gaps);
    let world_to_a = a.to_world.inverse();
    let world_to_b = b.to_world.inverse();
    let held_at = |point: Vec2, penetration: Scalar, normal: Vec2, part: u32, predicted| Held {
        in_a: world_to_a.transform_point2(point),
        in_b: world_to_b.transform_point2(point),
        penetration,
        normal_in_b: world_to_b.transform_vector2(normal),
        part,
        predicted,
    };
    let held = match contact {
        // Ours says which way the first should move to leave the second; avian's normal
        // points from the first to the second.
        // Each side's ends and bulges beside the overlap (in `gaps`) are held apart too,
        // a part each: a body landing on a corner turns onto the rest of its side, which
        // the overlap's points do not reach.
        Some(_) => {
            let mut held: Vec<Held> = points
                .iter()
                .map(|p| held_at(p.point, p.depth, -p.normal, p.part, false))
                .collect();
            let mut part = points.iter().map(|p| p.part + 1).max().unwrap_or(0);
            for gap in &gaps {
                for pairs in [&gap.ends, &gap.bulges] {
                    let mut any = false;
                    for end in pairs.iter().flatten() {
                        held.push(held_at(end.point, -end.distance, gap.normal, part, false));
                        any = true;
                    }
                    part += u32::from(any);
                }
            }
            held
        }
        // Apart: speculative contacts, a negative depth, along each side.
        None => {
            let mut held = Vec::with_capacity(3 * gaps.len());
            for (side, gap) in (0u32..).zip(&gaps) {
                let predicted = side as usize >= searched;
                for (part, point, distance) in side_points(gap) {
                    held.push(held_at(
                        point,
                        -distance,
                        gap.normal,
                        3 * side + part,
                        predicted,
                    ));
                }
            }
            held
        }
    };
    let found = Found {
        masks: [
            std::sync::Arc::downgrade(a.mask()),
            std::sync::Arc::downgrade(b.mask()),
        ],
        scales: [a.collider.scale, b.collider.scale],
        a_to_b: world_to_b * a.to_world,
        a_corners: corners(a.mask()),
        reach,
        touching: contact.is_some(),
        held,
        asked: true,
    };
    emit(&found, &a, &b, prediction_distance, manifolds);
    lock(shard).insert(key, found);
}

/// What the pair's contact is found from: touching, their contact and manifold points,
/// with in `gaps` the sides beside the overlap, whose ends a body landing on a corner turns
/// onto; apart, their gaps. [`contact_manifolds`] reads `gaps` either way.
#[allow(clippy::too_many_arguments)]
pub(super) fn contact_or_sides(
    a: &BitMask,
    a_to_world: Affine2,
    b: &BitMask,
    b_to_world: Affine2,
    reach: f32,
    points: &mut Vec<ManifoldPoint>,
    gaps: &mut Vec<Gap>,
) -> Option<Contact> {
    let contact = transformed_contact_or_gaps(a, a_to_world, b, b_to_world, reach, points, gaps);
    if contact.is_some() {
        transformed_gaps_beside(a, a_to_world, b, b_to_world, reach, gaps);
    }
    contact
}

/// The points that hold a gap's side apart, each with its part (0, 1 or 2, a manifold each)
/// and distance: its two ends as one manifold, as a polygon's contact holds a face, where
/// the nearest point lies no nearer than the line between them (a flat side); otherwise
/// the nearest point, and its ends in a manifold of their own (avian's hold two points in
/// 2D). A body landing tilted meets at its nearest pixels, then turns about them onto the
/// rest of the side: held at the nearest alone, the far end swings in. Where two rounded
/// sides bulge towards each other between the nearest and an end, the bulges too, in a
/// manifold of their own (part 2): turning onto them, the side meets there first.
fn side_points(gap: &Gap) -> impl Iterator<Item = (u32, Vec2, f32)> {
    let nearest = (gap.point, gap.distance);
    let ends = gap.ends.map(|end| end.map(|end| (end.point, end.distance)));
    let points: [Option<(u32, Vec2, f32)>; 3] = match ends {
        [Some(first), Some(second)] => {
            let across = gap.normal.perp();
            let (from, to) = (first.0.dot(across), second.0.dot(across));
            let t = ((gap.point.dot(across) - from) / (to - from)).clamp(0.0, 1.0);
            let between = first.1 + t * (second.1 - first.1);
            if between.is_finite() && gap.distance + FLAT_SIDE >= between {
                [
                    None,
                    Some((0, first.0, first.1)),
                    Some((0, second.0, second.1)),
                ]
            } else {
                [
                    Some((0, nearest.0, nearest.1)),
                    Some((1, first.0, first.1)),
                    Some((1, second.0, second.1)),
                ]
            }
        }
        [Some(end), None] | [None, Some(end)] => [
            Some((0, nearest.0, nearest.1)),
            Some((0, end.0, end.1)),
            None,
        ],
        [None, None] => [Some((0, nearest.0, nearest.1)), None, None],
    };
    let bulges = gap
        .bulges
        .map(|bulge| bulge.map(|bulge| (2, bulge.point, bulge.distance)));
    points.into_iter().chain(bulges).flatten()
}

/// How much nearer than the line between its side's ends (world px) a gap's nearest point
/// may lie with the side still held at its ends alone: the steps of a straight edge drawn
/// aslant in pixels, not a bump that would sink between the ends. Held apart at the
/// nearest point too, a crate landing flat on another tipped: that point, solved first,
/// lay off its center of mass.
const FLAT_SIDE: f32 = 0.25;

/// The corners of a mask's set pixels (its whole rectangle when none are set).
fn corners(mask: &BitMask) -> [Vec2; 4] {
    let (x, y, w, h) = match mask.bounding_rect() {
        Some(rect) => (rect.x, rect.y, rect.width, rect.height),
        None => (0, 0, mask.width(), mask.height()),
    };
    let (x0, y0) = (x as f32, y as f32);
    let (x1, y1) = (x0 + w as f32, y0 + h as f32);
    [
        Vec2::new(x0, y0),
        Vec2::new(x1, y0),
        Vec2::new(x0, y1),
        Vec2::new(x1, y1),
    ]
}

/// The manifolds of what was found, at the masks' places now: each point where the two
/// masks have carried it (midway between), deeper by as far as the first has moved into
/// the second there.
fn emit(
    found: &Found,
    a: &Placed,
    b: &Placed,
    prediction_distance: Scalar,
    manifolds: &mut Vec<avian2d::prelude::ContactManifold>,
) {
    use avian2d::collision::contact_types::PackedFeatureId;
    use avian2d::prelude::{ContactManifold, ContactPoint};

    let (position1, position2) = (a.position, b.position);
    let carried = |held: &Held| {
        let on_a = a.to_world.transform_point2(held.in_a);
        let on_b = b.to_world.transform_point2(held.in_b);
        let normal = b
            .to_world
            .transform_vector2(held.normal_in_b)
            .normalize_or_zero();
        let point = (on_a + on_b) * 0.5;
        (point, held.penetration + (on_a - on_b).dot(normal), normal)
    };
    // One manifold a part (a gap's side, or its ends), its points numbered in turn, so
    // that avian's warm start matches each with itself next step.
    let mut end = 0u32;
    for part in found.held.chunk_by(|p, q| p.part == q.part) {
        let mut normal = Vec2::ZERO;
        let mut points = Vec::with_capacity(part.len());
        for held in part {
            let (point, penetration, n) = carried(held);
            let feature = PackedFeatureId::face(end);
            end += 1;
            // A gap where the pair would meet at the step's end may lie beyond the
            // distance asked (avian's, from the linear motion alone): avian keeps it all
            // the same while it closes within the step, turns included.
            if !found.touching && !held.predicted && -penetration > prediction_distance {
                continue;
            }
            normal = n;
            points.push(
                ContactPoint::new(point - position1, point - position2, point, penetration)
                    .with_feature_ids(feature, feature),
            );
        }
        if !points.is_empty() {
            manifolds.push(ContactManifold::new(points, normal));
        }
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::sync::Arc;

    use avian2d::prelude::ContactManifold;
    use pixel_collide::sprite_to_world;

    use super::*;

    fn key() -> (Entity, Entity) {
        (
            Entity::from_raw_u32(1).unwrap(),
            Entity::from_raw_u32(2).unwrap(),
        )
    }

    /// Placed as the sprite is: the placement the tests' expectations were worked out for.
    fn placed(collider: &MaskCollider, position: Vec2, angle: f32) -> Placed<'_> {
        Placed {
            to_world: sprite_to_world(position, angle, Vec2::ONE, collider.mask.size()),
            ..Placed::new(
                collider,
                Entity::PLACEHOLDER,
                position,
                Rotation::radians(angle),
            )
        }
    }

    /// Asks for the pair's manifolds; returns them and whether the contact was found anew.
    fn ask(
        contacts: &MaskContacts,
        a: Placed,
        b: Placed,
        prediction_distance: f32,
    ) -> (Vec<ContactManifold>, bool) {
        let found = Cell::new(false);
        let mut manifolds = Vec::new();
        let (a_mask, a_to_world, b_mask, b_to_world) =
            (a.mask().clone(), a.to_world, b.mask().clone(), b.to_world);
        let (entity_a, entity_b) = key();
        contact_manifolds(
            contacts,
            Placed {
                entity: entity_a,
                ..a
            },
            Placed {
                entity: entity_b,
                ..b
            },
            prediction_distance,
            false,
            &mut manifolds,
            |reach, points, gaps| {
                found.set(true);
                let contact = contact_or_sides(
                    &a_mask, a_to_world, &b_mask, b_to_world, reach, points, gaps,
                );
                (contact, gaps.len())
            },
        );
        (manifolds, found.get())
    }

    fn penetrations(manifolds: &[ContactManifold]) -> Vec<f32> {
        manifolds
            .iter()
            .flat_map(|m| m.points.iter().map(|p| p.penetration))
            .collect()
    }

    /// A 20-px box 2.3 px into a floor: touching, with a contact to carry.
    fn box_on_floor() -> (MaskCollider, MaskCollider) {
        (
            MaskCollider::new(Arc::new(BitMask::solid(20, 20).unwrap())),
            MaskCollider::new(Arc::new(BitMask::solid(200, 20).unwrap())),
        )
    }

    const ON_FLOOR: Vec2 = Vec2::new(0.0, 17.7);

    #[test]
    fn a_pair_that_has_not_moved_keeps_its_contact_exactly() {
        let contacts = MaskContacts::default();
        let (crate_mask, floor) = box_on_floor();
        let first = ask(
            &contacts,
            placed(&crate_mask, ON_FLOOR, 0.0),
            placed(&floor, Vec2::ZERO, 0.0),
            1.0,
        );
        let again = ask(
            &contacts,
            placed(&crate_mask, ON_FLOOR, 0.0),
            placed(&floor, Vec2::ZERO, 0.0),
            1.0,
        );
        assert!(first.1 && !again.1, "found: {}, then {}", first.1, again.1);
        // The overlap's, then its bottom side's ends beside it.
        assert_eq!(first.0.len(), 2, "{:?}", first.0);
        assert_eq!(penetrations(&first.0), penetrations(&again.0));
        assert_eq!(first.0[0].normal, again.0[0].normal);
        assert!(first.0[0].normal.y < -0.99, "{:?}", first.0[0].normal);
    }

    #[test]
    fn a_contact_is_carried_deeper_as_the_pair_closes_within_the_tolerance() {
        let contacts = MaskContacts::default();
        let (crate_mask, floor) = box_on_floor();
        let floor_at = placed(&floor, Vec2::ZERO, 0.0);
        let (first, _) = ask(&contacts, placed(&crate_mask, ON_FLOOR, 0.0), floor_at, 1.0);
        // Both bodies move; the crate 0.1 px further down than the floor.
        let shift = Vec2::new(5.0, 3.0);
        let (carried, found) = ask(
            &contacts,
            placed(&crate_mask, ON_FLOOR + shift - Vec2::new(0.0, 0.1), 0.0),
            placed(&floor, shift, 0.0),
            1.0,
        );
        assert!(!found, "within the tolerance, carried");
        for (before, after) in penetrations(&first).iter().zip(penetrations(&carried)) {
            assert!((after - before - 0.1).abs() < 1e-3, "{before} → {after}");
        }
        let point = |m: &[ContactManifold]| m[0].points[0].point;
        assert!((point(&carried) - point(&first) - shift).length() < 0.06);
    }

    #[test]
    fn a_pair_that_moved_further_or_changed_mask_is_found_again() {
        let contacts = MaskContacts::default();
        let (crate_mask, floor) = box_on_floor();
        let floor_at = || placed(&floor, Vec2::ZERO, 0.0);
        ask(
            &contacts,
            placed(&crate_mask, ON_FLOOR, 0.0),
            floor_at(),
            1.0,
        );
        // Slid a fifth further than the tolerance.
        let slid = ON_FLOOR + Vec2::X * DEFAULT_TOLERANCE * 1.2;
        let (_, found) = ask(&contacts, placed(&crate_mask, slid, 0.0), floor_at(), 1.0);
        assert!(found, "slid past the tolerance");
        // Turned in place: its corners, 14 px out, move twice the tolerance.
        let turn = 2.0 * DEFAULT_TOLERANCE / 14.0;
        let (_, found) = ask(&contacts, placed(&crate_mask, slid, turn), floor_at(), 1.0);
        assert!(found, "turned past the tolerance");
        // The same pixels in a new mask (a terrain edited, say): found again.
        let copy = MaskCollider::new(Arc::new(BitMask::clone(&crate_mask.mask)));
        let (_, found) = ask(&contacts, placed(&copy, slid, turn), floor_at(), 1.0);
        assert!(found, "another mask");
    }

    #[test]
    fn an_apart_pair_asked_further_than_it_searched_is_searched_again() {
        let contacts = MaskContacts::default();
        let (crate_mask, floor) = box_on_floor();
        let above = ON_FLOOR + Vec2::Y * 5.3;
        let floor_at = || placed(&floor, Vec2::ZERO, 0.0);
        let (gaps, _) = ask(&contacts, placed(&crate_mask, above, 0.0), floor_at(), 2.0);
        assert!(gaps.is_empty(), "3 px apart, asked within 2: {gaps:?}");
        let (_, found) = ask(&contacts, placed(&crate_mask, above, 0.0), floor_at(), 2.0);
        assert!(!found);
        let (gaps, found) = ask(&contacts, placed(&crate_mask, above, 0.0), floor_at(), 8.0);
        assert!(found, "asked further than searched");
        // Flat over the floor: held at the two ends of its bottom, one manifold.
        assert_eq!(gaps.len(), 1, "{gaps:?}");
        assert_eq!(gaps[0].points.len(), 2, "{gaps:?}");
        let ends = (gaps[0].points[0].point.x, gaps[0].points[1].point.x);
        assert!(ends.0 < -8.0 && ends.1 > 8.0, "{gaps:?}");
        let distance = -gaps[0].points[0].penetration;
        assert!((distance - 3.0).abs() < 0.6, "{distance}");
        // The gap carried as the crate drops 0.1 px: 0.1 px less.
        let (closer, found) = ask(
            &contacts,
            placed(&crate_mask, above - Vec2::Y * 0.1, 0.0),
            floor_at(),
            8.0,
        );
        assert!(!found);
        assert!((-closer[0].points[0].penetration - (distance - 0.1)).abs() < 1e-3);
    }

    /// Coming down tilted, a crate is held at its low corner and at the high end of its
    /// bottom side, as far apart as that end is.
    #[test]
    fn a_tilted_crate_over_the_floor_is_held_at_its_high_end() {
        let contacts = MaskContacts::default();
        let (crate_mask, floor) = box_on_floor();
        let above = ON_FLOOR + Vec2::Y * 6.0;
        let (manifolds, _) = ask(
            &contacts,
            placed(&crate_mask, above, 0.15),
            placed(&floor, Vec2::ZERO, 0.0),
            12.0,
        );
        // The nearest point, the ends, and the low corner: nearer than the line from the
        // nearest up the crate's side, it bulges.
        assert!((1..=3).contains(&manifolds.len()), "{manifolds:?}");
        let points = || manifolds.iter().flat_map(|m| &m.points);
        let nearest = points()
            .max_by(|p, q| p.penetration.total_cmp(&q.penetration))
            .unwrap();
        let high = points()
            .max_by(|p, q| p.point.x.total_cmp(&q.point.x))
            .unwrap();
        // Turned counter-clockwise, the right end is up: farther by the tilt over the
        // points' spread, 0.15 a pixel.
        let spread = high.point.x - nearest.point.x;
        assert!(spread > pixel_collide::GAP_END_APART, "{manifolds:?}");
        let rise = nearest.penetration - high.penetration;
        assert!((rise - 0.15 * spread).abs() < 1.0, "{manifolds:?}");
        for manifold in &manifolds {
            assert!(manifold.normal.dot(Vec2::NEG_Y) > 0.95, "{manifolds:?}");
        }
    }

    /// Landed on its corner, a tilted crate is held by the overlap there and, apart, at
    /// the high end of its bottom side, which it would turn onto.
    #[test]
    fn a_crate_landed_on_its_corner_is_held_apart_at_its_high_end() {
        let contacts = MaskContacts::default();
        let (crate_mask, floor) = box_on_floor();
        let (manifolds, _) = ask(
            &contacts,
            placed(&crate_mask, ON_FLOOR + Vec2::Y * 2.5, 0.15),
            placed(&floor, Vec2::ZERO, 0.0),
            12.0,
        );
        let points = || manifolds.iter().flat_map(|m| &m.points);
        assert!(points().any(|p| p.penetration > 0.0), "{manifolds:?}");
        let high = points()
            .max_by(|p, q| p.point.x.total_cmp(&q.point.x))
            .unwrap();
        assert!(
            high.point.x > 5.0 && high.penetration < -0.5,
            "{manifolds:?}"
        );
    }

    /// Coming down tilted, a stone (an ellipse) is held between its low end and its high
    /// end too, where its rounded bottom bulges towards the floor: held at its ends alone,
    /// it would sink there as it turns.
    #[test]
    fn a_tilted_stone_over_the_floor_is_held_at_its_bulge() {
        let contacts = MaskContacts::default();
        let stone = MaskCollider::new(Arc::new(pixel_collide_support::ellipse_mask(64, 32)));
        let floor = MaskCollider::new(Arc::new(BitMask::solid(200, 20).unwrap()));
        let (manifolds, _) = ask(
            &contacts,
            placed(&stone, Vec2::new(0.0, 32.0), 0.3),
            placed(&floor, Vec2::ZERO, 0.0),
            16.0,
        );
        let points: Vec<_> = manifolds.iter().flat_map(|m| &m.points).collect();
        let nearest = points
            .iter()
            .max_by(|p, q| p.penetration.total_cmp(&q.penetration))
            .unwrap();
        let high = points
            .iter()
            .max_by(|p, q| p.point.x.total_cmp(&q.point.x))
            .unwrap();
        // A point between them, nearer the floor than the line from one to the other.
        let bulge = points.iter().any(|p| {
            let t = (p.point.x - nearest.point.x) / (high.point.x - nearest.point.x);
            let line = nearest.penetration + t * (high.penetration - nearest.penetration);
            (0.1..0.9).contains(&t) && p.penetration > line + 1.0
        });
        assert!(bulge, "{manifolds:?}");
    }

    #[test]
    fn a_bad_transform_is_never_carried() {
        let contacts = MaskContacts::default();
        let (crate_mask, floor) = box_on_floor();
        let floor_at = || placed(&floor, Vec2::ZERO, 0.0);
        ask(
            &contacts,
            placed(&crate_mask, ON_FLOOR, 0.0),
            floor_at(),
            1.0,
        );
        let (manifolds, found) = ask(
            &contacts,
            placed(&crate_mask, Vec2::NAN, 0.0),
            floor_at(),
            1.0,
        );
        assert!(found && manifolds.is_empty(), "{manifolds:?}");
        let (manifolds, found) = ask(
            &contacts,
            placed(&crate_mask, Vec2::NAN, 0.0),
            floor_at(),
            1.0,
        );
        assert!(found && manifolds.is_empty(), "{manifolds:?}");
    }

    #[test]
    fn pairs_not_asked_about_in_a_step_are_forgotten() {
        let mut world = World::new();
        world.init_resource::<MaskContacts>();
        let (crate_mask, floor) = box_on_floor();
        let contacts = world.resource::<MaskContacts>();
        ask(
            contacts,
            placed(&crate_mask, ON_FLOOR, 0.0),
            placed(&floor, Vec2::ZERO, 0.0),
            1.0,
        );
        assert_eq!(contacts.len(), 1);
        let mut forget = IntoSystem::into_system(forget_unasked);
        forget.initialize(&mut world);
        // Asked this step: kept.
        forget.run((), &mut world).unwrap();
        assert_eq!(world.resource::<MaskContacts>().len(), 1);
        // Not asked since: forgotten.
        forget.run((), &mut world).unwrap();
        assert!(world.resource::<MaskContacts>().is_empty());
    }
}
