//! A destructible terrain's edits (issue #15): a 2,048 × 1,024 mask of hills (solid below
//! a sine curve) with every lookup built, as a scene that has been colliding with it has.
//!
//! Groups:
//! - `crater_r40`: carving a radius-40 crater at the surface with `erase_circle`,
//!   lookups updated (`carve`), the same carve on a mask with no lookups (`carve_bare`,
//!   the pixels alone), a hundred craters along the terrain with a query after each
//!   (`hundred_then_query_each`, the steady state, distance-field rebuilds included),
//!   and building the mask afresh from the terrain's image (`rebuild_from_rgba`, before
//!   any lookup).
//! - `first_query`: a turned sprite on the crater's rim against the terrain
//!   (`transformed_overlap`) and a tall axis-aligned probe over it (`overlap`): on the
//!   warm mask before the crater (`before`), right after it with updated lookups
//!   (`after_crater`), and after it with every lookup dropped (`after_crater_dropped`,
//!   what every edit did before: the query then rebuilds what it needs).
//! - `near_craters`: 50 sprites queried over 50 fresh craters, with the lookups the
//!   edits updated and with lookups built afresh (the distance field edits keep is a
//!   lower bound, which settles fewer runs at once).
//! - `stamp_128`: drawing and erasing a 128 × 128 mask at the surface.
//! - `components`: the whole terrain's components, 8- and 4-connected, after a few
//!   craters, and those near one crater only (`in_crater_region`).
//!
//! - `destructible`: the parts of a destructible sprite's edit (copying a shared mask,
//!   the shape tables, cutting loose round a crater).
//! - `time_of_impact`: casts against the terrain (world = the mask's pixels): a 2 × 2
//!   bullet fired 10,000 px into a slope (`bullet_hits`) and over the hills
//!   (`bullet_misses`); a 24 × 40 character's step of 8 px down onto the ground
//!   (`character_lands`) and 4 px along it a pixel above (`character_skims`); a 32 px
//!   ball falling 30 px onto it while turning 0.5 rad (`ball_turns_and_lands`).
//!   A 16 px disc cast 500 px onto the hills (`disc16_500px`) against what a game without
//!   time of impact writes: an overlap test at each pixel of the path
//!   (`disc16_500px_overlap_per_pixel`).
//! - `character_walk`: a 24 × 40 body walking right over the hills for 300 frames, moved by
//!   `move_character` and by the terrain scene's walker it replaced (`walker_then`).
//!
//!   CARGO_TARGET_DIR=/work/target-hostile cargo bench -p pixel_collide --bench terrain

use std::hint::black_box;

use bevy_math::{Affine2, Vec2};
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use pixel_collide::character::{Autostep, CharacterSettings, MaskWorld, move_character};
use pixel_collide::terrain::PIECE_GRAVITY;
use pixel_collide::{
    BitMask, Connectivity, MaskMotion, MaskRect, sprite_to_world, transformed_overlap,
    transformed_time_of_impact,
};
use pixel_collide_support::rng::SplitMix64;

mod walker_then;

const W: u32 = 2048;
const H: u32 = 1024;
const CRATER: f64 = 40.0;

/// Where the ground starts in column `x`.
fn surface(x: u32) -> f64 {
    f64::from(H) * (0.55 + 0.2 * (f64::from(x) / 160.0).sin())
}

/// The terrain as an image: opaque below the surface.
fn terrain_rgba() -> Vec<u8> {
    let mut rgba = vec![0u8; (W * H * 4) as usize];
    for y in 0..H {
        for x in 0..W {
            if f64::from(y) >= surface(x) {
                rgba[((y * W + x) * 4 + 3) as usize] = 255;
            }
        }
    }
    rgba
}

fn terrain() -> BitMask {
    BitMask::from_rgba8(W, H, &terrain_rgba(), 0).expect("2048×1024 RGBA")
}

fn disc(side: u32) -> BitMask {
    let mut m = BitMask::new(side, side);
    let c = f64::from(side) / 2.0;
    m.fill_circle(c, c, c);
    m
}

/// The crater's center: on the surface in the middle of a slope.
fn crater_at() -> (f64, f64) {
    (1100.0, surface(1100))
}

struct GameScene {
    sprite: BitMask,
    tall: BitMask,
    terrain_to_world: Affine2,
    sprite_to_world: Affine2,
    tall_offset: (i32, i32),
}

impl GameScene {
    fn new() -> GameScene {
        let (cx, cy) = crater_at();
        // World = terrain pixels, y down as in the mask (a scale of -1 on y would do as
        // well): the sprite sits on the crater's rim, a little turned.
        let terrain_to_world = Affine2::IDENTITY;
        let center = Vec2::new((cx + CRATER) as f32, (cy - 20.0) as f32);
        GameScene {
            sprite: disc(64),
            tall: disc(96),
            terrain_to_world,
            sprite_to_world: sprite_to_world(center, 0.4, Vec2::ONE, (64, 64)),
            tall_offset: ((cx - 48.0) as i32, (cy - 48.0) as i32),
        }
    }

    /// The collision queries a frame makes against the terrain.
    fn query(&self, terrain: &BitMask) -> (bool, Option<(u32, u32)>) {
        let contact = transformed_overlap(
            &self.sprite,
            self.sprite_to_world,
            terrain,
            self.terrain_to_world,
        );
        (
            contact.is_some(),
            terrain.overlap(&self.tall, self.tall_offset),
        )
    }

    /// Builds every lookup the terrain has: queries over it, beside it (which walk its
    /// columns, its transposed copy) and in clear space (the distance fields).
    fn warm(&self, terrain: &BitMask) {
        self.query(terrain);
        let mut rng = SplitMix64(15);
        for _ in 0..64 {
            let at = Vec2::new(rng.range(0.0, W as f32), rng.range(0.0, H as f32));
            let s = sprite_to_world(at, rng.range(0.0, 6.0), Vec2::ONE, (64, 64));
            let big = sprite_to_world(at, 0.3, Vec2::splat(8.0), (64, 64));
            black_box(transformed_overlap(
                &self.sprite,
                s,
                terrain,
                Affine2::IDENTITY,
            ));
            black_box(transformed_overlap(
                terrain,
                Affine2::IDENTITY,
                &self.sprite,
                s,
            ));
            black_box(transformed_overlap(
                terrain,
                Affine2::IDENTITY,
                &self.sprite,
                big,
            ));
            black_box(terrain.overlap_area(&self.tall, (at.x as i32, at.y as i32)));
        }
    }
}

/// Same pixels, no lookups: inverting twice drops them all, as every edit used to.
fn dropped(mut m: BitMask) -> BitMask {
    m.invert();
    m.invert();
    m
}

/// The groups of the terrain's edits and queries: the scene and the warm terrain, its
/// lookups built, are made once and shared (`components` craters a terrain of its own).
fn benches(c: &mut Criterion) {
    let scene = GameScene::new();
    let warm = terrain();
    scene.warm(&warm);
    crater_r40(c, &scene, &warm);
    near_craters(c, &scene, &warm);
    first_query(c, &scene, &warm);
    stamp_128(c, &scene, &warm);
    components(c);
}

fn crater_r40(c: &mut Criterion, scene: &GameScene, warm: &BitMask) {
    let (cx, cy) = crater_at();
    let mut group = c.benchmark_group("crater_r40");
    group.sample_size(40);
    group.bench_function("carve", |b| {
        b.iter_batched_ref(
            || warm.clone(),
            |m| m.erase_circle(black_box(cx), black_box(cy), CRATER),
            BatchSize::PerIteration,
        );
    });
    group.bench_function("carve_bare", |b| {
        b.iter_batched_ref(
            || dropped(warm.clone()),
            |m| m.erase_circle(black_box(cx), black_box(cy), CRATER),
            BatchSize::PerIteration,
        );
    });
    // A scene's steady state: craters along the terrain, each followed by a query next
    // to it, including the distance-field rebuilds the edits' work bound triggers.
    group.sample_size(10);
    group.bench_function("hundred_then_query_each", |b| {
        b.iter_batched_ref(
            || warm.clone(),
            |m| {
                for i in 0..100 {
                    let x = 100.0 + 18.5 * f64::from(i);
                    m.erase_circle(x, surface(x as u32), CRATER);
                    let at = Vec2::new(x as f32, (surface(x as u32) - 30.0) as f32);
                    let s = sprite_to_world(at, 0.3, Vec2::ONE, (64, 64));
                    black_box(transformed_overlap(&scene.sprite, s, m, Affine2::IDENTITY));
                }
            },
            BatchSize::PerIteration,
        );
    });
    group.sample_size(40);
    let rgba = terrain_rgba();
    group.bench_function("rebuild_from_rgba", |b| {
        b.iter(|| BitMask::from_rgba8(W, H, black_box(&rgba), 0));
    });
    group.finish();
}

fn near_craters(c: &mut Criterion, scene: &GameScene, warm: &BitMask) {
    // Queries over fresh craters: the field edits keep is a lower bound away from the
    // crater, so walks settle fewer runs at once than over a field built afresh.
    let mut group = c.benchmark_group("near_craters");
    group.sample_size(20);
    let spots: Vec<f64> = (0..50).map(|i| 100.0 + 18.5 * f64::from(i)).collect();
    let mut updated = warm.clone();
    for &x in &spots {
        updated.erase_circle(x, surface(x as u32), CRATER);
    }
    let rebuilt = dropped(updated.clone());
    scene.warm(&rebuilt);
    let queries = |m: &BitMask| {
        for &x in &spots {
            let at = Vec2::new(x as f32, (surface(x as u32) - 30.0) as f32);
            let s = sprite_to_world(at, 0.3, Vec2::ONE, (64, 64));
            black_box(transformed_overlap(&scene.sprite, s, m, Affine2::IDENTITY));
        }
    };
    group.bench_function("50_queries_updated_lookups", |b| {
        b.iter(|| queries(&updated))
    });
    group.bench_function("50_queries_rebuilt_lookups", |b| {
        b.iter(|| queries(&rebuilt))
    });
    group.finish();
}

fn first_query(c: &mut Criterion, scene: &GameScene, warm: &BitMask) {
    let (cx, cy) = crater_at();
    let mut group = c.benchmark_group("first_query");
    group.sample_size(30);
    group.bench_function("before", |b| b.iter(|| scene.query(black_box(warm))));
    let carved = |m: &BitMask| {
        let mut m = m.clone();
        m.erase_circle(cx, cy, CRATER);
        m
    };
    group.bench_function("after_crater", |b| {
        b.iter_batched_ref(|| carved(warm), |m| scene.query(m), BatchSize::PerIteration);
    });
    group.bench_function("after_crater_dropped", |b| {
        b.iter_batched_ref(
            || dropped(carved(warm)),
            |m| scene.query(m),
            BatchSize::PerIteration,
        );
    });
    group.finish();
}

fn stamp_128(c: &mut Criterion, scene: &GameScene, warm: &BitMask) {
    let (cx, cy) = crater_at();
    let mut stamp = BitMask::new(128, 128);
    let mut rng = SplitMix64(128);
    stamp.fill_circle(64.0, 64.0, 64.0);
    for _ in 0..40 {
        let (x, y) = (rng.range(0.0, 128.0), rng.range(0.0, 128.0));
        stamp.erase_circle(f64::from(x), f64::from(y), 6.0);
    }
    let at = ((cx - 64.0) as i32, (cy - 64.0) as i32);
    let mut group = c.benchmark_group("stamp_128");
    group.sample_size(40);
    group.bench_function("erase", |b| {
        b.iter_batched_ref(
            || warm.clone(),
            |m| m.erase(black_box(&stamp), at),
            BatchSize::PerIteration,
        );
    });
    let holed = {
        let mut m = warm.clone();
        m.erase_circle(cx, cy, 64.0);
        scene.warm(&m);
        m
    };
    group.bench_function("draw", |b| {
        b.iter_batched_ref(
            || holed.clone(),
            |m| m.draw(black_box(&stamp), at),
            BatchSize::PerIteration,
        );
    });
    group.finish();
}

fn components(c: &mut Criterion) {
    let (cx, cy) = crater_at();
    // A few craters, one of them cutting a piece loose, so there is something to find.
    let mut cratered = terrain();
    for k in 0..8 {
        let x = 150.0 + 250.0 * f64::from(k);
        cratered.erase_circle(x, surface(x as u32), CRATER);
    }
    cratered.erase_circle(cx, cy + 60.0, 30.0);
    cratered.fill_circle(cx, cy + 60.0, 15.0);
    let mut group = c.benchmark_group("components");
    group.sample_size(20);
    for (name, connectivity) in [("eight", Connectivity::Eight), ("four", Connectivity::Four)] {
        group.bench_function(name, |b| {
            b.iter(|| cratered.connected_components(black_box(connectivity)));
        });
    }
    let region = MaskRect {
        x: (cx - 50.0) as u32,
        y: (cy - 50.0) as u32,
        width: 100,
        height: 140,
    };
    group.bench_function("in_crater_region", |b| {
        b.iter(|| cratered.connected_components_in(black_box(region), Connectivity::Eight));
    });
    group.finish();
    eprintln!(
        "components: {} (eight), {} (four), {} near the crater",
        cratered.connected_components(Connectivity::Eight).len(),
        cratered.connected_components(Connectivity::Four).len(),
        cratered
            .connected_components_in(region, Connectivity::Eight)
            .len()
    );
}

/// What a destructible sprite's edit costs beside the carve (`bevy_pixel_collide`'s
/// `PixelEdits` and the pieces it cuts): copying a mask whose last version another holder
/// (the collision pass, a physics collider) still shares, with every lookup built;
/// building its shape tables again; cutting loose what a crater separated from the bottom
/// row (which fills the whole ground the crater's rim belongs to).
fn destructible(c: &mut Criterion) {
    let scene = GameScene::new();
    let warm = terrain();
    scene.warm(&warm);
    let (cx, cy) = crater_at();
    let mut group = c.benchmark_group("destructible");
    group.sample_size(30);
    group.bench_function("copy_warm_mask", |b| b.iter(|| black_box(&warm).clone()));
    group.bench_function("copy_bare_mask", |b| {
        let bare = terrain();
        b.iter(|| black_box(&bare).clone())
    });
    group.bench_function("shape_tables", |b| {
        b.iter(|| pixel_collide::pair::SpriteInfo::new(black_box(&warm)))
    });
    let mut carved = warm.clone();
    carved.erase_circle(cx, cy, CRATER);
    let region = MaskRect {
        x: (cx - CRATER - 2.0) as u32,
        y: (cy - CRATER - 2.0) as u32,
        width: (2.0 * CRATER + 4.0) as u32,
        height: (2.0 * CRATER + 4.0) as u32,
    };
    group.bench_function("cut_loose_round_a_crater", |b| {
        b.iter_batched(
            || carved.clone(),
            |mut m| {
                pixel_collide::pieces::cut_loose(
                    &mut m,
                    black_box(region),
                    Connectivity::Eight,
                    &pixel_collide::pieces::PieceAnchor::BottomRow,
                )
            },
            BatchSize::LargeInput,
        );
    });
    group.finish();
}

fn time_of_impact(c: &mut Criterion) {
    let terrain = terrain();
    // The terrain's mask is the world: mask space and world space are one.
    let world = Affine2::IDENTITY;
    let mut group = c.benchmark_group("time_of_impact");
    let mut cast = |name: &str, mover: &BitMask, at: Affine2, motion: MaskMotion, hits: bool| {
        let found = transformed_time_of_impact(mover, at, motion, &terrain, world);
        assert_eq!(found.is_some(), hits, "{name}: {found:?}");
        group.bench_function(name, |b| {
            b.iter(|| transformed_time_of_impact(black_box(mover), at, motion, &terrain, world))
        });
    };
    let bullet = BitMask::solid(2, 2).unwrap();
    let (x, y) = (1100.0, surface(1100) as f32);
    let fired_from = Vec2::new(x - 6000.0, y - 8000.0);
    let shot = (Vec2::new(x, y) - fired_from).normalize() * 10_000.0;
    let from = Affine2::from_translation(fired_from);
    cast(
        "bullet_hits",
        &bullet,
        from,
        MaskMotion::translation(shot),
        true,
    );
    let over = Affine2::from_translation(Vec2::new(-4000.0, 100.0));
    let across = MaskMotion::translation(Vec2::new(10_000.0, 0.0));
    cast("bullet_misses", &bullet, over, across, false);
    let character = BitMask::solid(24, 40).unwrap();
    let standing = |gap: f32| {
        let ground = (0..24)
            .map(|i| surface(1100 + i) as f32)
            .fold(f32::MAX, f32::min);
        Affine2::from_translation(Vec2::new(x, ground - 40.0 - gap))
    };
    let down = MaskMotion::translation(Vec2::new(0.0, 8.0));
    cast("character_lands", &character, standing(4.0), down, true);
    let along = MaskMotion::translation(Vec2::new(4.0, 0.0));
    cast("character_skims", &character, standing(1.0), along, false);
    let ball = disc(32);
    let above = Affine2::from_translation(Vec2::new(x, y - 32.0 - 20.0));
    let falling =
        MaskMotion::translation(Vec2::new(0.0, 30.0)).turning(0.5, Vec2::new(x + 16.0, y - 36.0));
    cast("ball_turns_and_lands", &ball, above, falling, true);

    // What a game without time of impact writes: an overlap test at each pixel of the path.
    let ball = disc(16);
    let path = Vec2::new(300.0, 400.0);
    // Its path ends 8 px deep in the hills, so it touches near the end.
    let start = Vec2::new(900.0, surface(1208) as f32 - 8.0 - path.y);
    let at = Affine2::from_translation(start);
    let stepped = |ball: &BitMask| {
        let steps = path.length().ceil() as i32;
        (0..=steps).find(|&i| {
            let p = start + path * (i as f32 / steps as f32);
            let offset = (p.x.round() as i32, p.y.round() as i32);
            terrain.overlap(ball, offset).is_some()
        })
    };
    let found =
        transformed_time_of_impact(&ball, at, MaskMotion::translation(path), &terrain, world)
            .expect("the ball lands");
    let step = stepped(&ball).expect("the ball lands") as f32;
    assert!(found.fraction > 0.8, "{found:?}");
    assert!(
        (found.fraction * path.length() - step).abs() <= 2.0,
        "{found:?} {step}"
    );
    group.bench_function("disc16_500px", |b| {
        b.iter(|| {
            let motion = MaskMotion::translation(path);
            transformed_time_of_impact(black_box(&ball), at, motion, &terrain, world)
        })
    });
    group.bench_function("disc16_500px_overlap_per_pixel", |b| {
        b.iter(|| stepped(black_box(&ball)))
    });
    group.finish();
}

/// The terrain scene's Larry (a 24 × 40 body) walking right for five seconds at 60 Hz,
/// over hills up to 52° steep, with the character controller and with the walker it
/// replaced (`walker_then`).
fn character_walk(c: &mut Criterion) {
    const FRAMES: usize = 300;
    const DT: f32 = 1.0 / 60.0;
    let terrain = terrain();
    let body = BitMask::solid(24, 40).unwrap();
    let x0 = 100;
    let ground = (x0..x0 + 24)
        .map(|x| surface(x) as f32)
        .fold(f32::MAX, f32::min);
    let start = (x0 as i32, ground.floor() as i32 - 41);
    // The settings the terrain scene gives Larry, in the mask's space (y down).
    let settings = CharacterSettings {
        up: Vec2::NEG_Y,
        autostep: Some(Autostep {
            max_height: walker_then::STEP_UP as f32,
            min_width: 1.0,
        }),
        max_slope_climb_angle: 60f32.to_radians(),
        snap_to_ground: Some(walker_then::STEP_UP as f32),
        find_ground_normal: false,
        ..CharacterSettings::default()
    };
    let controller = |terrain: &BitMask| {
        let mut world = MaskWorld {
            mask: terrain,
            to_world: Affine2::IDENTITY,
        };
        let mut at = Vec2::new(start.0 as f32, start.1 as f32);
        let (mut velocity, mut grounded) = (Vec2::ZERO, false);
        for _ in 0..FRAMES {
            velocity.y += PIECE_GRAVITY * DT;
            let desired = (velocity + Vec2::new(walker_then::WALK_SPEED, 0.0)) * DT;
            let pose = Affine2::from_translation(at);
            let moved = move_character(&mut world, &body, pose, desired, grounded, &settings);
            at += moved.translation;
            grounded = moved.grounded;
            if grounded || moved.translation.y < desired.y - 1e-3 {
                velocity.y = 0.0;
            }
        }
        at
    };
    let walker = |terrain: &BitMask| {
        let mut walker = walker_then::Walker::new(&body, start);
        for _ in 0..FRAMES {
            walker.step(terrain, 1.0, DT);
        }
        Vec2::new(walker.offset.0 as f32, walker.offset.1 as f32)
    };
    let (by_controller, by_walker) = (controller(&terrain), walker(&terrain));
    let walked = walker_then::WALK_SPEED * DT * FRAMES as f32;
    for end in [by_controller, by_walker] {
        assert!(
            end.x - start.0 as f32 > walked - 2.0,
            "{end} from {start:?}"
        );
    }
    assert!(
        (by_controller.y - by_walker.y).abs() <= 2.0,
        "{by_controller} {by_walker}"
    );
    let mut group = c.benchmark_group("character_walk");
    group.bench_function("move_character", |b| {
        b.iter(|| controller(black_box(&terrain)))
    });
    group.bench_function("walker_then", |b| b.iter(|| walker(black_box(&terrain))));
    group.finish();
}

criterion_group!(
    terrain_benches,
    benches,
    destructible,
    time_of_impact,
    character_walk
);
criterion_main!(terrain_benches);
