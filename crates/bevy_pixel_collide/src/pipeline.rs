//! One collision pass: world boxes, the broad phase, the per-pixel narrow phase on
//! Bevy's compute task pool, and the start/end of each touch.

use bevy::platform::time::Instant;
use std::sync::{Arc, Mutex};

use bevy::math::bounding::Aabb2d;
use bevy::math::{Affine2, Vec2};
use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use bevy::tasks::ComputeTaskPool;

use super::collider::{
    PixelCollider, PixelColliderMask, PixelCollidingEntities, PixelCollisionEventsEnabled,
    PixelCollisionLayers,
};
use super::geometry::flatten;
use pixel_collide::BitMask;
use pixel_collide::Contact;
use pixel_collide::broad_phase::{BroadPhase, DefaultBroadPhase, retain_pairs};
use pixel_collide::pair::largest_stretch;
use pixel_collide::pair::{
    MISSED_PIXEL, PairSide, SimilarSide, SpriteInfo, WitnessKey, Witnesses, box_slack,
    circles_may_meet, first_hit_with_hints, proves_miss, similarity_scale, tested_first,
};

/// Two colliders' pixels started touching.
///
/// Like avian's `CollisionStart`, one type read two ways:
/// - as a [`Message`], written once for every pair of [`PixelCollider`]s that starts
///   touching (whether or not either has [`PixelCollisionEventsEnabled`]), `collider1` the
///   lower entity;
/// - as an observer [`EntityEvent`], triggered on each collider of the pair that has
///   [`PixelCollisionEventsEnabled`], with `collider1` that collider (the event's target)
///   and `collider2` the other.
///
/// Every collider sends it: masks from sprites of any kind, on any layers that interact
/// ([`PixelCollisionLayers`]). Avian's colliders, including our
/// `avian::MaskCollider`, send avian's own events instead.
///
/// [`PixelCollider`]: super::PixelCollider
#[derive(Message, EntityEvent, Debug, Clone, Copy, PartialEq, Eq)]
pub struct PixelCollisionStart {
    /// The observed collider; in messages, the lower entity of the pair.
    #[event_target]
    pub collider1: Entity,
    /// The collider it touches.
    pub collider2: Entity,
}

/// Two colliders' pixels stopped touching, or one of them was despawned, disabled, lost
/// its [`PixelCollider`](super::PixelCollider) or its image while they touched: exactly
/// once for every [`PixelCollisionStart`], read the same two ways. A despawned collider is
/// not triggered on; the other one of the pair is.
#[derive(Message, EntityEvent, Debug, Clone, Copy, PartialEq, Eq)]
pub struct PixelCollisionEnd {
    /// The observed collider; in messages, the lower entity of the pair.
    #[event_target]
    pub collider1: Entity,
    /// The collider it no longer touches.
    pub collider2: Entity,
}

/// Counts and timings of the last pass, for an overlay.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
#[non_exhaustive]
pub struct PixelCollisionStats {
    /// Colliders that could collide (mask loaded, enabled, finite transform).
    pub colliders: usize,
    /// Pairs whose boxes and bounding circles touch and whose layers interact: the pairs
    /// the per-pixel test sees.
    pub box_pairs: usize,
    /// Pairs whose pixels touch.
    pub touching: usize,
    /// Microseconds spent on boxes and the broad phase.
    pub broad_micros: f32,
    /// Microseconds spent on the per-pixel tests.
    pub narrow_micros: f32,
    /// Microseconds from the start of the first system of the pass (masks) to the end of
    /// the last (events), hand-offs between them included.
    pub pass_micros: f32,
}

/// The plugin's state between passes. Read it through
/// [`PixelCollisions`](super::PixelCollisions).
#[derive(Resource, Default)]
pub struct PixelCollisionState {
    /// This pass's colliders, by dense index: the broad phase's box `k` is `entities[k]`.
    pub(super) entities: Vec<Entity>,
    boxes: Vec<Aabb2d>,
    /// World bounding circles (center, radius): rotation cannot change them, so they
    /// reject the corners of rotated boxes.
    circles: Vec<(Vec2, f32)>,
    /// Per collider, what the per-pixel test reads, so that it needs no entity lookups.
    placed: Vec<Placed>,
    layers: Vec<PixelCollisionLayers>,
    broad_phase: DefaultBroadPhase,
    /// The broad phase's pairs, `(i, j)` with `i < j`, before layers and circles.
    box_pairs: Vec<(u32, u32)>,
    candidates: Vec<(u32, u32)>,
    /// How `entities` is ordered. One archetype spawned in order is the usual case, and it
    /// gives descending entities (Bevy orders entities by their bits, in which a higher
    /// row is lower), so the lower entity of a pair is its higher index.
    order: EntityOrder,
    /// Per collider, the first slot of its touching pairs in the counting sort.
    pair_starts: Vec<u32>,
    /// The candidates with the lower entity first, and each one's witness pixel.
    pairs: Vec<(u32, u32)>,
    tested: Vec<(u32, u32, [u32; 2])>,
    /// Pairs whose pixels touch, `(a, b)` with `a < b`, sorted.
    pub(super) touching: Vec<(Entity, Entity)>,
    /// Last pass's `touching`, to find what started and what ended.
    previous: Vec<(Entity, Entity)>,
    /// Per collider (by its index in `placed`), its last partners as A and, for each, the
    /// pixel of A that landed on it or [`MISSED`]: sprites move a pixel or two a frame, so
    /// next pass tries that pixel first, or for a pair that missed, the separating axes
    /// first. Kept by index rather than in a map by pair:
    /// a collider usually sits at the same index from one pass to the next, and thousands
    /// of hash inserts and lookups a pass cost more than the misses of a moved index.
    witnesses: Vec<WitnessSlots>,
    /// Contacts asked for this pass, computed on first request.
    pub(super) contacts: Mutex<HashMap<(Entity, Entity), Option<Contact>>>,
    pub(super) stats: PixelCollisionStats,
    /// When this pass's first system started: the pass's wall time ends in the events.
    pass_started: Option<Instant>,
}

impl PixelCollisionState {
    pub(super) fn start_pass(&mut self) {
        self.pass_started = Some(Instant::now());
    }
}

/// A collider as the per-pixel test sees it this pass.
struct Placed {
    mask: Arc<BitMask>,
    shape: Arc<SpriteInfo>,
    to_world: Affine2,
    /// World to mask space.
    to_mask: Affine2,
    /// The world point of the mask's center, and the transform's scale when it is a
    /// similarity (rotation, uniform scale, flips): what the separating axes need.
    center: Vec2,
    similar: Option<f32>,
}

impl Placed {
    /// This collider as one side of a pair, with its world bounding circle.
    fn side(&self, circle: (Vec2, f32)) -> PairSide<'_> {
        PairSide {
            mask: &self.mask,
            to_world: self.to_world,
            to_mask: self.to_mask,
            circle,
        }
    }
}

/// The witness of a pair that was tested and did not touch.
const MISSED: [u32; 2] = MISSED_PIXEL;

/// One collider's remembered partners: the collider (to notice a moved index), and each
/// partner with its pixel.
#[derive(Debug, Clone, Copy)]
struct WitnessSlots {
    owner: Entity,
    partners: Witnesses<Partner>,
}

impl WitnessSlots {
    const EMPTY: WitnessSlots = WitnessSlots {
        owner: Entity::PLACEHOLDER,
        partners: Witnesses::EMPTY,
    };
}

/// A partner in [`Witnesses`], by entity: an index may name another collider next pass.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Partner(Entity);

impl WitnessKey for Partner {
    const NONE: Partner = Partner(Entity::PLACEHOLDER);
}

/// Pairs per task on the compute pool; fewer pairs than two tasks run inline.
const PAIRS_PER_TASK: usize = 64;

/// How the plugin runs; a game may change it at any time.
#[derive(Resource, Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct PixelCollisionConfig {
    /// Per-pixel tests on Bevy's `ComputeTaskPool` (the default), or all on the thread
    /// that runs the narrow phase system.
    pub parallel: bool,
}

impl Default for PixelCollisionConfig {
    fn default() -> Self {
        PixelCollisionConfig { parallel: true }
    }
}

/// Where a collider is this pass: what the broad and narrow phases read of it.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Placement {
    to_world: Affine2,
    aabb: Option<Aabb2d>,
    /// The rest only for a collider that can be paired: mask set, box finite, in a
    /// group and colliding with one.
    pairable: Option<Pairable>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct Pairable {
    circle: (Vec2, f32),
    to_mask: Affine2,
    center: Vec2,
    similar: Option<f32>,
}

/// A collider's placement from its world transform.
fn place(
    global: &GlobalTransform,
    collider: &PixelColliderMask,
    layers: PixelCollisionLayers,
) -> Placement {
    let to_world = flatten(global) * collider.mask_to_local;
    let aabb = collider
        .mask
        .as_deref()
        .and_then(|mask| world_box(mask.bounding_rect()?, to_world));
    let pairable = (|| {
        let mask = collider.mask.as_deref()?;
        aabb?;
        collider.shape.as_ref()?;
        // In no group or colliding with none: queried (picking, rays), never paired.
        if layers.memberships == 0 || layers.filters == 0 {
            return None;
        }
        let similar = similarity_scale(to_world.matrix2);
        let circle = world_circle(mask.bounding_circle()?, to_world, similar)?;
        let (w, h) = mask.size();
        Some(Pairable {
            circle,
            to_mask: to_world.inverse(),
            center: to_world.transform_point2(Vec2::new(w as f32, h as f32) / 2.0),
            similar,
        })
    })();
    Placement {
        to_world,
        aabb,
        pairable,
    }
}

/// World transforms and boxes of every collider, then the broad phase's box pairs.
///
/// (Computing the placements on the task pool first, with `par_iter_mut`, was measured:
/// at 10,000 colliders it took as long as doing them here, the tasks' hand-offs eating
/// what the second core saved.)
pub(super) fn broad_phase(
    mut state: ResMut<PixelCollisionState>,
    mut colliders: Query<
        (
            Entity,
            &GlobalTransform,
            &mut PixelColliderMask,
            Option<&PixelCollisionLayers>,
        ),
        (With<PixelCollider>, With<Sprite>),
    >,
) {
    let started = Instant::now();
    let state = &mut *state;
    state.entities.clear();
    state.boxes.clear();
    state.circles.clear();
    state.layers.clear();
    let mut count = 0;
    for (entity, global, mut collider, layers) in &mut colliders {
        let layers = layers.copied().unwrap_or_default();
        // An edited mask's shape tables, built once it is to be paired.
        if collider.shape.is_none()
            && layers.memberships != 0
            && layers.filters != 0
            && let Some(mask) = &collider.mask
        {
            let shape = Arc::new(SpriteInfo::new(mask));
            collider.shape = Some(shape);
        }
        let placement = place(global, &collider, layers);
        // Written only when changed, so change detection on it means something.
        if collider.to_world != placement.to_world || collider.aabb != placement.aabb {
            collider.to_world = placement.to_world;
            collider.aabb = placement.aabb;
        }
        let (Some(aabb), Some(pairable), Some(mask), Some(shape)) = (
            placement.aabb,
            placement.pairable,
            &collider.mask,
            &collider.shape,
        ) else {
            continue;
        };
        let Pairable {
            circle,
            to_mask,
            center,
            similar,
        } = pairable;
        let to_world = placement.to_world;
        // Overwritten in place: from one frame to the next the same collider usually sits
        // at the same index, and cloning its `Arc`s again would cost atomic writes.
        match state.placed.get_mut(count) {
            Some(slot) if Arc::ptr_eq(&slot.mask, mask) && Arc::ptr_eq(&slot.shape, shape) => {
                (slot.to_world, slot.to_mask) = (to_world, to_mask);
                (slot.center, slot.similar) = (center, similar);
            }
            slot => {
                let placed = Placed {
                    mask: Arc::clone(mask),
                    shape: Arc::clone(shape),
                    to_world,
                    to_mask,
                    center,
                    similar,
                };
                match slot {
                    Some(slot) => *slot = placed,
                    None => state.placed.push(placed),
                }
            }
        }
        count += 1;
        state.entities.push(entity);
        state.boxes.push(aabb);
        state.circles.push(circle);
        state.layers.push(layers);
    }
    state.placed.truncate(count);
    state.order = if state.entities.is_sorted() {
        EntityOrder::Ascending
    } else if state.entities.is_sorted_by(|a, b| a >= b) {
        EntityOrder::Descending
    } else {
        EntityOrder::Mixed
    };
    state.broad_phase.update(&state.boxes, &mut state.box_pairs);
    let (layers, circles) = (&state.layers, &state.circles);
    // Into a second buffer without a branch per pair (`retain_pairs`): the
    // circles pass about half the pairs at random (`Vec::retain` took three times as long).
    retain_pairs(&state.box_pairs, &mut state.candidates, |i, j| {
        let (i, j) = (i as usize, j as usize);
        layers[i].interacts_with(layers[j]) & circles_may_meet(circles[i], circles[j])
    });
    state.stats.colliders = state.entities.len();
    state.stats.box_pairs = state.candidates.len();
    state.stats.broad_micros = started.elapsed().as_secs_f32() * 1e6;
}

/// The world box of a mask's set pixels, `None` for a non-finite transform. Widened by a
/// rounding margin, so the per-pixel test never sees a pair the box test dropped.
fn world_box(rect: pixel_collide::MaskRect, to_world: bevy::math::Affine2) -> Option<Aabb2d> {
    let half = Vec2::new(rect.width as f32, rect.height as f32) / 2.0;
    let center = to_world.transform_point2(Vec2::new(rect.x as f32, rect.y as f32) + half);
    let reach = to_world.matrix2.abs() * half;
    let slack = box_slack(center, reach);
    let aabb = Aabb2d {
        min: center - reach - slack,
        max: center + reach + slack,
    };
    (aabb.min.is_finite() && aabb.max.is_finite()).then_some(aabb)
}

/// A mask's bounding circle in the world: its center mapped, its radius stretched by the
/// most the transform stretches any direction (a similarity's scale, when it is one).
fn world_circle(
    (x, y, r): (f64, f64, f64),
    to_world: bevy::math::Affine2,
    similar: Option<f32>,
) -> Option<(Vec2, f32)> {
    let center = to_world.transform_point2(Vec2::new(x as f32, y as f32));
    let stretch = similar.map_or_else(|| largest_stretch(to_world.matrix2), |s| s * (1.0 + 1e-6));
    let radius = (r as f32) * stretch * (1.0 + 1e-5);
    (center.is_finite() && radius.is_finite()).then_some((center, radius))
}

/// The per-pixel test of every box pair, on the compute task pool.
pub(super) fn narrow_phase(
    mut state: ResMut<PixelCollisionState>,
    config: Res<PixelCollisionConfig>,
) {
    let started = Instant::now();
    let state = &mut *state;
    // Buffers kept between passes: a pass allocates nothing once they have grown.
    let mut pairs = std::mem::take(&mut state.pairs);
    let mut tested = std::mem::take(&mut state.tested);
    orient_pairs(state, &mut pairs);
    let tester = PairTester {
        entities: &state.entities,
        placed: &state.placed,
        circles: &state.circles,
        witnesses: &state.witnesses,
    };
    tester.test_all(&pairs, &mut tested, config.parallel);
    let mut touching = std::mem::take(&mut state.previous);
    if state.order != EntityOrder::Mixed {
        // Index order is entity order or its reverse: a counting sort on A's index, then
        // each A's few partners by insertion, instead of comparison-sorting thousands of
        // entity pairs.
        let descending = state.order == EntityOrder::Descending;
        sorted_by_index(
            &tested,
            &state.entities,
            descending,
            &mut state.pair_starts,
            &mut touching,
        );
    } else {
        let entities = &state.entities;
        touching.clear();
        touching.extend(tested.iter().filter(|(_, _, pixel)| *pixel != MISSED).map(
            |&(i, j, _)| {
                let (a, b) = (entities[i as usize], entities[j as usize]);
                (a.min(b), a.max(b))
            },
        ));
        touching.sort_unstable();
    }
    remember_witnesses(state, &tested);
    state.pairs = pairs;
    state.tested = tested;
    // Ends are found against last pass's pairs in the events step.
    state.stats.touching = touching.len();
    state.stats.narrow_micros = started.elapsed().as_secs_f32() * 1e6;
    std::mem::swap(&mut state.touching, &mut touching);
    state.previous = touching;
    state
        .contacts
        .get_mut()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .clear();
}

/// The candidates as `(a, b)`, A the collider whose mask's center is further left
/// (`tested_first`), so a pair's verdict depends neither on the order of the pass nor on
/// entity ids, which differ between rollback peers; at the same place, the lower entity.
fn orient_pairs(state: &PixelCollisionState, pairs: &mut Vec<(u32, u32)>) {
    let (entities, placed) = (&state.entities, &state.placed);
    pairs.clear();
    pairs.extend(state.candidates.iter().map(|&(i, j)| {
        let (iu, ju) = (i as usize, j as usize);
        let i_first = tested_first(placed[iu].center, placed[ju].center)
            .unwrap_or(entities[iu] < entities[ju]);
        if i_first { (i, j) } else { (j, i) }
    }));
}

/// What the per-pixel test of a pair reads: this pass's colliders and last pass's
/// answers. `Sync`, so chunks of pairs can be tested on any thread.
struct PairTester<'s> {
    entities: &'s [Entity],
    placed: &'s [Placed],
    circles: &'s [(Vec2, f32)],
    witnesses: &'s [WitnessSlots],
}

impl PairTester<'_> {
    /// `tested[k]` for `pairs[k]`: the pair and A's pixel that lands on B, [`MISSED`] when
    /// none does; on the compute task pool when `parallel` and there are pairs enough.
    fn test_all(
        &self,
        pairs: &[(u32, u32)],
        tested: &mut Vec<(u32, u32, [u32; 2])>,
        parallel: bool,
    ) {
        tested.clear();
        tested.resize(pairs.len(), (0, 0, MISSED));
        if !(parallel && pairs.len() >= 2 * PAIRS_PER_TASK) {
            for (out, &pair) in tested.iter_mut().zip(pairs) {
                *out = self.test(pair);
            }
            return;
        }
        ComputeTaskPool::get().scope(|scope| {
            for (chunk, out) in pairs
                .chunks(PAIRS_PER_TASK)
                .zip(tested.chunks_mut(PAIRS_PER_TASK))
            {
                scope.spawn(async move {
                    for (out, &pair) in out.iter_mut().zip(chunk) {
                        *out = self.test(pair);
                    }
                });
            }
        });
    }

    fn test(&self, (i, j): (u32, u32)) -> (u32, u32, [u32; 2]) {
        let (iu, ju) = (i as usize, j as usize);
        let (a, b) = (&self.placed[iu], &self.placed[ju]);
        let hint = self
            .witnesses
            .get(iu)
            .filter(|slots| slots.owner == self.entities[iu])
            .and_then(|slots| slots.partners.last(Partner(self.entities[ju])));
        let (circle_a, circle_b) = (self.circles[iu], self.circles[ju]);
        // A proof of a miss from the shapes' support tables, for similarities only.
        let separated = || match (similar_side(a, circle_a), similar_side(b, circle_b)) {
            (Some(a), Some(b)) => proves_miss(a, b),
            _ => false,
        };
        let hit = first_hit_with_hints(a.side(circle_a), b.side(circle_b), hint, separated);
        (i, j, hit.unwrap_or(MISSED))
    }
}

/// A collider as the separating axes read it, when its transform is a similarity.
fn similar_side(placed: &Placed, circle: (Vec2, f32)) -> Option<SimilarSide<'_>> {
    Some(SimilarSide {
        info: &placed.shape,
        linear: placed.to_world.matrix2,
        scale: placed.similar?,
        center: placed.center,
        circle,
    })
}

/// Keeps this pass's answers for the next, per collider tested as A.
fn remember_witnesses(state: &mut PixelCollisionState, tested: &[(u32, u32, [u32; 2])]) {
    state.witnesses.clear();
    state
        .witnesses
        .resize(state.entities.len(), WitnessSlots::EMPTY);
    for &(i, j, pixel) in tested {
        let slots = &mut state.witnesses[i as usize];
        slots.owner = state.entities[i as usize];
        let hit = (pixel != MISSED).then_some(pixel);
        slots
            .partners
            .remember(Partner(state.entities[j as usize]), hit);
    }
}

/// How a pass's colliders are ordered by entity, by index.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum EntityOrder {
    Ascending,
    Descending,
    #[default]
    Mixed,
}

/// The touching pairs of `tested` (pairs of indices into `entities`, A first, each pair
/// once), as entity pairs sorted ascending (lower entity first), into `touching`.
/// `entities` must ascend, or descend when `descending`. `starts` is scratch.
fn sorted_by_index(
    tested: &[(u32, u32, [u32; 2])],
    entities: &[Entity],
    descending: bool,
    starts: &mut Vec<u32>,
    touching: &mut Vec<(Entity, Entity)>,
) {
    let last = entities.len().saturating_sub(1);
    let rank = |i: u32| {
        if descending {
            last - i as usize
        } else {
            i as usize
        }
    };
    starts.clear();
    starts.resize(entities.len() + 1, 0);
    // The pair's lower entity, and the other.
    let lower_first = |i: u32, j: u32| {
        if (i < j) != descending {
            (i, j)
        } else {
            (j, i)
        }
    };
    let mut count = 0;
    for &(i, j, pixel) in tested {
        if pixel != MISSED {
            starts[rank(lower_first(i, j).0) + 1] += 1;
            count += 1;
        }
    }
    for k in 1..starts.len() {
        starts[k] += starts[k - 1];
    }
    touching.clear();
    touching.resize(count, (Entity::PLACEHOLDER, Entity::PLACEHOLDER));
    for &(i, j, pixel) in tested {
        if pixel == MISSED {
            continue;
        }
        let (i, j) = lower_first(i, j);
        let slot = &mut starts[rank(i)];
        let (a, b) = (entities[i as usize], entities[j as usize]);
        // Insertion among A's partners already placed (rarely more than two or three);
        // the slot before A's first holds another entity as A, or the fill.
        let mut at = *slot as usize;
        *slot += 1;
        while at > 0 && touching[at - 1].0 == a && touching[at - 1].1 > b {
            touching[at] = touching[at - 1];
            at -= 1;
        }
        touching[at] = (a, b);
    }
}

/// Start and end messages, observer events and [`PixelCollidingEntities`], from the difference
/// between this pass's touching pairs and last pass's.
pub(super) fn send_events(
    mut commands: Commands,
    mut state: ResMut<PixelCollisionState>,
    mut started: MessageWriter<PixelCollisionStart>,
    mut ended: MessageWriter<PixelCollisionEnd>,
    mut colliding: Query<&mut PixelCollidingEntities>,
    observed: Query<(), With<PixelCollisionEventsEnabled>>,
) {
    let state = &mut *state;
    let (now, before) = (&state.touching, &state.previous);
    let (mut i, mut k) = (0, 0);
    // Both lists are sorted: one merge finds what started and what ended.
    while i < now.len() || k < before.len() {
        let starts = match (now.get(i), before.get(k)) {
            (Some(n), Some(b)) if n == b => {
                i += 1;
                k += 1;
                continue;
            }
            (Some(n), Some(b)) => n < b,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (None, None) => break,
        };
        if starts {
            let n = now[i];
            i += 1;
            started.write(PixelCollisionStart {
                collider1: n.0,
                collider2: n.1,
            });
            for (entity, other) in [(n.0, n.1), (n.1, n.0)] {
                if let Ok(mut set) = colliding.get_mut(entity) {
                    set.0.insert(other);
                }
                if observed.contains(entity) {
                    commands.trigger(PixelCollisionStart {
                        collider1: entity,
                        collider2: other,
                    });
                }
            }
        } else {
            let b = before[k];
            k += 1;
            ended.write(PixelCollisionEnd {
                collider1: b.0,
                collider2: b.1,
            });
            for (entity, other) in [(b.0, b.1), (b.1, b.0)] {
                if let Ok(mut set) = colliding.get_mut(entity) {
                    set.0.remove(&other);
                }
                if observed.contains(entity) {
                    commands.trigger(PixelCollisionEnd {
                        collider1: entity,
                        collider2: other,
                    });
                }
            }
        }
    }
    if let Some(started) = state.pass_started.take() {
        state.stats.pass_micros = started.elapsed().as_secs_f32() * 1e6;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pixel_collide_support::rng::SplitMix64;

    /// The counting sort against filtering and comparison-sorting, on random tested pairs
    /// (each pair once, lower entity first) with entities ascending or descending, not
    /// contiguous.
    #[test]
    fn sorted_by_index_matches_a_comparison_sort() {
        let mut rng = SplitMix64(7);
        let (mut starts, mut touching) = (Vec::new(), Vec::new());
        for round in 0..200 {
            let n = 1 + rng.below(40) as u32;
            let mut entities: Vec<Entity> = (0..n)
                .map(|k| Entity::from_raw_u32(3 * k + 1).unwrap())
                .collect();
            let descending = round % 2 == 1;
            entities.sort_unstable();
            if descending {
                entities.reverse();
            }
            let lower_first = |(i, j): (u32, u32)| {
                if entities[i as usize] < entities[j as usize] {
                    (i, j)
                } else {
                    (j, i)
                }
            };
            let mut tested = Vec::new();
            for i in 0..n {
                for j in i + 1..n {
                    if rng.chance(0.3) {
                        let pixel = if rng.chance(0.5) { MISSED } else { [i, j] };
                        // A is either: where the colliders are decides it.
                        let (i, j) = if rng.chance(0.5) { (i, j) } else { (j, i) };
                        tested.push((i, j, pixel));
                    }
                }
            }
            // The broad phase's order is not sorted: shuffle.
            for k in (1..tested.len()).rev() {
                tested.swap(k, rng.below(k as u64 + 1) as usize);
            }
            let mut expected: Vec<(Entity, Entity)> = tested
                .iter()
                .filter(|(_, _, pixel)| *pixel != MISSED)
                .map(|&(i, j, _)| {
                    let (i, j) = lower_first((i, j));
                    (entities[i as usize], entities[j as usize])
                })
                .collect();
            expected.sort_unstable();
            sorted_by_index(&tested, &entities, descending, &mut starts, &mut touching);
            assert_eq!(touching, expected, "round {round}");
        }
    }
}
