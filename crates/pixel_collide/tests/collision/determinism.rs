//! Same inputs, same answers (#55): a seeded scenario of rotated, scaled and flipped
//! sprites, a terrain cratered into falling pieces with sprites settling into it, casts
//! and a walking character, every frame's answers hashed, bit for bit, into one number.
//! It must equal [`EXPECTED`] under every build of the word loops this CPU has, and
//! (`tests/determinism_cross.sh`) on other x86-64 CPU models and on aarch64 under qemu. A
//! change that moves the hash on purpose updates [`EXPECTED`], after that script agrees
//! on every machine it runs.

use std::sync::Arc;

use bevy_math::bounding::Aabb2d;
use bevy_math::{Affine2, Vec2};
use pixel_collide::broad_phase::{BroadPhase, FatBoxes, UniformGrid};
use pixel_collide::character::{CharacterMove, CharacterSettings, MaskWorld, move_character};
use pixel_collide::pair::{SIMILARITY_SLACK, SpriteInfo, separated_similar};
use pixel_collide::terrain::TerrainWorld;
use pixel_collide::{
    BitMask, Contact, Gap, ManifoldPoint, MaskMotion, TimeOfImpact, WordKernel, sprite_to_world,
    transformed_contact_or_gaps, transformed_gaps_beside, transformed_overlap_area,
    transformed_time_of_impact, world_bounds,
};
use pixel_collide_support::rng::SplitMix64;

/// The scenario's hash, the same on every build and CPU it was run on.
const EXPECTED: u64 = 0x1717_6382_6e8a_0d05;

const SPRITES: usize = 400;
const FRAMES: u32 = 300;
/// The sprites' world: a square they bounce inside.
const ARENA: f32 = 1_600.0;
const TERRAIN: (u32, u32) = (2_048, 1_024);
/// How far apart a pair's gaps are still reported, world px.
const GAP_REACH: f32 = 6.0;

/// FNV-1a over bytes: defined by its bytes alone, unlike std's `RandomState`, which is
/// seeded per process.
struct Fnv1a(u64);

impl Fnv1a {
    fn new() -> Fnv1a {
        Fnv1a(0xcbf2_9ce4_8422_2325)
    }

    fn bytes(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = (self.0 ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    fn u64(&mut self, x: u64) {
        self.bytes(&x.to_le_bytes());
    }

    fn u32(&mut self, x: u32) {
        self.bytes(&x.to_le_bytes());
    }

    fn f32(&mut self, x: f32) {
        self.u32(x.to_bits());
    }

    fn vec2(&mut self, v: Vec2) {
        self.f32(v.x);
        self.f32(v.y);
    }

    fn mask(&mut self, mask: &BitMask) {
        self.u32(mask.width());
        self.u32(mask.height());
        for &word in pixel_collide::__private::mask_words(mask) {
            self.u64(word);
        }
    }

    fn contact(&mut self, contact: Option<Contact>) {
        let Some(c) = contact else {
            return self.u32(u32::MAX);
        };
        self.vec2(c.point);
        self.vec2(c.normal);
        self.f32(c.depth);
        self.u32(c.count);
    }

    fn manifold(&mut self, points: &[ManifoldPoint]) {
        self.u64(points.len() as u64);
        for p in points {
            self.vec2(p.point);
            self.f32(p.depth);
            self.vec2(p.normal);
            self.u32(p.part);
        }
    }

    fn gaps(&mut self, gaps: &[Gap]) {
        self.u64(gaps.len() as u64);
        for g in gaps {
            self.vec2(g.point);
            self.vec2(g.normal);
            self.f32(g.distance);
            for end in g.ends.iter().chain(&g.bulges) {
                match end {
                    Some(end) => {
                        self.vec2(end.point);
                        self.f32(end.distance);
                    }
                    None => self.u32(u32::MAX),
                }
            }
        }
    }

    fn time_of_impact(&mut self, hit: Option<TimeOfImpact>) {
        let Some(hit) = hit else {
            return self.u32(u32::MAX);
        };
        self.f32(hit.fraction);
        self.vec2(hit.point);
        self.vec2(hit.normal);
        self.u32(hit.pixel[0]);
        self.u32(hit.pixel[1]);
        self.u32(hit.started_inside.into());
    }

    fn character(&mut self, step: &CharacterMove<()>) {
        self.vec2(step.translation);
        self.u32(step.grounded.into());
        match step.ground_normal {
            Some(normal) => self.vec2(normal),
            None => self.u32(u32::MAX),
        }
        self.u32(step.started_inside.into());
        self.u64(step.hits.len() as u64);
        for hit in &step.hits {
            self.f32(hit.fraction);
            self.vec2(hit.normal);
            self.vec2(hit.point);
        }
    }
}

/// A blob of a few overlapping discs: concave in places, as sprites are.
fn blob(rng: &mut SplitMix64) -> BitMask {
    let (w, h) = (12 + rng.below(30) as u32, 12 + rng.below(30) as u32);
    let mut mask = BitMask::new(w, h);
    for _ in 0..2 + rng.below(4) {
        let r = rng.range(3.0, w.min(h) as f32 / 2.0);
        let x = rng.range(r, w as f32 - r);
        let y = rng.range(r, h as f32 - r);
        mask.fill_circle(f64::from(x), f64::from(y), f64::from(r));
    }
    mask
}

struct Sprite {
    shape: usize,
    center: Vec2,
    velocity: Vec2,
    angle: f32,
    spin: f32,
    /// Uniform, with a sign per axis for the flips.
    scale: Vec2,
}

fn sprites(rng: &mut SplitMix64, shapes: usize) -> Vec<Sprite> {
    (0..SPRITES)
        .map(|_| {
            let size = rng.range(0.6, 1.8);
            let flip = |rng: &mut SplitMix64| if rng.below(4) == 0 { -1.0 } else { 1.0 };
            Sprite {
                shape: rng.below(shapes as u64) as usize,
                center: Vec2::new(rng.range(0.0, ARENA), rng.range(0.0, ARENA)),
                velocity: Vec2::new(rng.range(-2.5, 2.5), rng.range(-2.5, 2.5)),
                angle: rng.range(-4.0, 4.0),
                spin: rng.range(-0.06, 0.06),
                scale: Vec2::new(size * flip(rng), size * flip(rng)),
            }
        })
        .collect()
}

/// Rolling ground with a few rocks held up only by what is under them, so craters cut
/// pieces loose.
fn terrain(rng: &mut SplitMix64) -> BitMask {
    let (w, h) = TERRAIN;
    let mut mask = BitMask::new(w, h);
    let mut surface = h as f32 * 0.5;
    for x in 0..w {
        surface = (surface + rng.range(-1.5, 1.5)).clamp(h as f32 * 0.25, h as f32 * 0.8);
        for y in surface as u32..h {
            mask.set(x.into(), y.into(), true);
        }
    }
    for _ in 0..40 {
        let (x, r) = (rng.range(40.0, w as f32 - 40.0), rng.range(8.0, 40.0));
        let y = rng.range(h as f32 * 0.2, h as f32 * 0.5);
        mask.fill_circle(f64::from(x), f64::from(y), f64::from(r));
    }
    mask
}

/// One run of the whole scenario, every frame hashed.
fn scenario() -> u64 {
    let mut rng = SplitMix64(55);
    let mut hash = Fnv1a::new();
    let shapes: Vec<BitMask> = (0..8).map(|_| blob(&mut rng)).collect();
    let infos: Vec<SpriteInfo> = shapes.iter().map(SpriteInfo::new).collect();
    let mut sprites = sprites(&mut rng, shapes.len());
    let mut broad_phase = FatBoxes::new(UniformGrid::new());
    let (mut pairs, mut points, mut gaps) = (Vec::new(), Vec::new(), Vec::new());
    let mut boxes: Vec<Aabb2d> = Vec::with_capacity(SPRITES);
    let mut poses: Vec<Affine2> = Vec::with_capacity(SPRITES);

    let mut world = TerrainWorld::new(Arc::new(terrain(&mut rng)));
    let body = BitMask::solid(10, 20).unwrap();
    let settings = CharacterSettings::default();
    let mut feet = Vec2::new(-600.0, TERRAIN.1 as f32 / 2.0);
    let mut grounded = false;

    for frame in 0..FRAMES {
        hash.u32(frame);
        poses.clear();
        boxes.clear();
        for s in &sprites {
            let mask = &shapes[s.shape];
            let pose = sprite_to_world(s.center, s.angle, s.scale, mask.size());
            poses.push(pose);
            boxes.push(world_bounds(mask.size(), pose));
        }
        broad_phase.update(&boxes, &mut pairs);
        hash.u64(pairs.len() as u64);
        for &(i, j) in &pairs {
            let (i, j) = (i as usize, j as usize);
            let (a, b) = (&shapes[sprites[i].shape], &shapes[sprites[j].shape]);
            let (ta, tb) = (poses[i], poses[j]);
            hash.u32(i as u32);
            hash.u32(j as u32);
            let center = |m: &BitMask, t: Affine2| {
                t.transform_point2(Vec2::new(m.width() as f32, m.height() as f32) / 2.0)
            };
            let separated = separated_similar(
                (&infos[sprites[i].shape], ta.matrix2, center(a, ta)),
                (&infos[sprites[j].shape], tb.matrix2, center(b, tb)),
                SIMILARITY_SLACK,
            );
            hash.u32(separated.into());
            let contact =
                transformed_contact_or_gaps(a, ta, b, tb, GAP_REACH, &mut points, &mut gaps);
            hash.contact(contact);
            hash.manifold(&points);
            hash.gaps(&gaps);
            if contact.is_some() {
                hash.u64(transformed_overlap_area(a, ta, b, tb));
                transformed_gaps_beside(a, ta, b, tb, GAP_REACH, &mut gaps);
                hash.gaps(&gaps);
            }
        }
        for s in &mut sprites {
            s.center += s.velocity;
            s.angle += s.spin;
            for axis in 0..2 {
                if !(0.0..=ARENA).contains(&s.center[axis]) {
                    s.velocity[axis] = -s.velocity[axis];
                }
            }
        }

        if frame % 4 == 0 {
            let at = Vec2::new(rng.range(-960.0, 960.0), rng.range(-250.0, 250.0));
            let carve = world.carve(at, rng.range(12.0, 60.0));
            hash.u64(carve.removed);
            hash.u64(carve.new_pieces.len() as u64);
            for id in carve.new_pieces {
                hash.u64(id);
            }
        }
        if frame % 25 == 12 {
            // A turned sprite come to rest on the ground, merged into it.
            let s = &sprites[rng.below(SPRITES as u64) as usize];
            let x = rng.range(-900.0, 900.0);
            let ground = world.ground_below(x, TERRAIN.1 as f32 / 2.0).unwrap_or(0.0);
            let mask = &shapes[s.shape];
            let at = Vec2::new(x, ground + mask.height() as f32 * 0.4);
            let settled = world.settle(mask, sprite_to_world(at, s.angle, s.scale, mask.size()));
            hash.u64(settled.lost);
            hash.u64(settled.moved.len() as u64);
            for ((x, y), (to_x, to_y)) in settled.moved {
                [x, y, to_x, to_y].into_iter().for_each(|v| hash.u32(v));
            }
        }
        for piece in world.step(1.0 / 60.0) {
            hash.u64(piece.id);
            hash.u32(piece.offset.0 as u32);
            hash.u32(piece.offset.1 as u32);
        }
        for piece in &world.pieces {
            hash.u64(piece.id);
            hash.u32(piece.offset.0 as u32);
            hash.u32(piece.offset.1 as u32);
            hash.f32(piece.velocity);
            hash.mask(&piece.mask);
        }
        hash.mask(world.terrain());

        // The terrain placed y up about the origin, as `TerrainWorld` has it.
        let terrain_to_world = world.world_to_mask().inverse();
        for _ in 0..3 {
            let s = &sprites[rng.below(SPRITES as u64) as usize];
            let mask = &shapes[s.shape];
            let from = Vec2::new(rng.range(-900.0, 900.0), 480.0);
            let pose = sprite_to_world(from, s.angle, s.scale, mask.size());
            let motion = MaskMotion::translation(Vec2::new(rng.range(-80.0, 80.0), -800.0))
                .turning(rng.range(-2.0, 2.0), from);
            let hit =
                transformed_time_of_impact(mask, pose, motion, world.terrain(), terrain_to_world);
            hash.time_of_impact(hit);
        }

        let walking = if (frame / 100) % 2 == 0 { 2.5 } else { -2.5 };
        let fall = if grounded { -1.0 } else { -6.0 };
        let pose = Affine2::from_cols(
            Vec2::X,
            Vec2::NEG_Y,
            feet + Vec2::new(0.0, body.height() as f32),
        );
        let step = move_character(
            &mut MaskWorld {
                mask: world.terrain(),
                to_world: terrain_to_world,
            },
            &body,
            pose,
            Vec2::new(walking, fall),
            grounded,
            &settings,
        );
        hash.character(&step);
        feet += step.translation;
        grounded = step.grounded;
        if feet.y < -(TERRAIN.1 as f32) {
            // Through a crater to the bottom: back on top.
            feet = Vec2::new(feet.x, TERRAIN.1 as f32 / 2.0);
        }
    }
    hash.0
}

/// Puts the word loops back on the CPU's best build however the test ends.
struct BestBuildAfter;

impl Drop for BestBuildAfter {
    fn drop(&mut self) {
        WordKernel::force_process_wide(None);
        WordKernel::force_avx2_shifts_by_register(None);
    }
}

#[test]
fn every_build_gives_the_committed_hash() {
    // The cross-CPU script names the build each qemu model should pick: one that fell
    // back to another would test less than its log claims. There only that build runs:
    // the older ones ran natively on the CPU that has them all, and under emulation each
    // run of the scenario takes most of a minute.
    let expected = std::env::var("PIXEL_COLLIDE_EXPECT_BUILD").ok();
    if let Some(expected) = &expected {
        assert_eq!(&format!("{:?}", WordKernel::best()), expected);
    }
    let _restore = BestBuildAfter;
    let mut runs = Vec::new();
    let builds = WordKernel::ALL
        .into_iter()
        .filter(|k| k.is_available())
        .filter(|&k| expected.is_none() || k == WordKernel::best());
    for kernel in builds {
        WordKernel::force_process_wide(Some(kernel));
        // AVX2's two ways of shifting words, both where they apply.
        let shifts: &[Option<bool>] = if kernel == WordKernel::Avx2 {
            &[Some(true), Some(false)]
        } else {
            &[None]
        };
        for &by_register in shifts {
            WordKernel::force_avx2_shifts_by_register(by_register);
            let hash = scenario();
            println!("determinism: {kernel:?}, shifts by register {by_register:?}: {hash:#018x}");
            runs.push((kernel, by_register, hash));
        }
    }
    for (kernel, by_register, hash) in runs {
        assert_eq!(
            hash, EXPECTED,
            "{kernel:?} (shifts by register: {by_register:?}) gave {hash:#018x}, committed {EXPECTED:#018x}"
        );
    }
}
