//! The plugin for as long as a game runs, under churn: a headless app with thousands of
//! colliders in which, every frame, some are despawned and as many spawned, some change
//! image, some change layers, and some jump far away while others come back.
//!
//! ```text
//! cargo run --release -p bevy_pixel_collide --example churn -- [--colliders N]
//!     [--churn K] [--frames F] [--max-heap-growth-mib M]
//! ```
//!
//! Defaults: 20,000 colliders, 1,000 of them replaced a frame, 10,000 frames. It prints the
//! frame time, the live heap (a counting allocator) and the entities every 1,000 frames,
//! then checks, and exits with status 1 when one fails:
//! - every start was matched by exactly one end once every collider is gone (counted per
//!   pair), and no pair ended that had not started;
//! - the live heap at the end is within `--max-heap-growth-mib` (default 16) of what it was
//!   after the first tenth of the frames (the warm-up): nothing grows with frames.
//!
//! Frame times are printed, not checked: speed is for benchmarks, and this is run in CI
//! at a smaller size in the debug build only for its counts.

use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::HashSet;
use std::process::ExitCode;
use std::sync::atomic::{AtomicIsize, Ordering};
use std::time::Instant;

use bevy::asset::RenderAssetUsages;
use bevy::image::{CompressedImageFormats, ImageLoader, ImagePlugin, TextureAtlasPlugin};
use bevy::prelude::*;
use bevy::render::render_resource::{Extent3d, TextureDimension, TextureFormat};
use bevy_pixel_collide::prelude::*;
use pixel_collide_support::rng::SplitMix64;

/// The system allocator, counting the bytes live.
struct Counting;

static LIVE_BYTES: AtomicIsize = AtomicIsize::new(0);

// SAFETY: every call is passed to the system allocator unchanged; only a counter is kept.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE_BYTES.fetch_add(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: the caller's contract for `alloc` is the system allocator's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE_BYTES.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: as for `alloc`.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE_BYTES.fetch_add(
            new_size as isize - layout.size() as isize,
            Ordering::Relaxed,
        );
        // SAFETY: as for `alloc`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn live_mib() -> f64 {
    LIVE_BYTES.load(Ordering::Relaxed) as f64 / (1024.0 * 1024.0)
}

struct Options {
    colliders: usize,
    churn: usize,
    frames: u32,
    max_heap_growth_mib: f64,
}

fn parse() -> Result<Options, String> {
    let mut options = Options {
        colliders: 20_000,
        churn: 1_000,
        frames: 10_000,
        max_heap_growth_mib: 16.0,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
        let bad = || format!("{flag}: not a number: {value}");
        match flag.as_str() {
            "--colliders" => options.colliders = value.parse().map_err(|_| bad())?,
            "--churn" => options.churn = value.parse().map_err(|_| bad())?,
            "--frames" => options.frames = value.parse().map_err(|_| bad())?,
            "--max-heap-growth-mib" => {
                options.max_heap_growth_mib = value.parse().map_err(|_| bad())?
            }
            _ => return Err(format!("unknown option {flag}")),
        }
    }
    if options.churn > options.colliders || options.frames < 10 {
        return Err("--churn is at most --colliders, and --frames at least 10".into());
    }
    Ok(options)
}

/// Starts and ends as read from the messages, pair by pair.
#[derive(Resource, Default)]
struct Tally {
    starts: u64,
    ends: u64,
    open: HashSet<(Entity, Entity)>,
    /// Ends of pairs that were not open, and starts of pairs that already were.
    unmatched: u64,
}

fn count(
    mut tally: ResMut<Tally>,
    mut started: MessageReader<PixelCollisionStart>,
    mut ended: MessageReader<PixelCollisionEnd>,
) {
    for start in started.read() {
        tally.starts += 1;
        if !tally.open.insert((start.collider1, start.collider2)) {
            tally.unmatched += 1;
        }
    }
    for end in ended.read() {
        tally.ends += 1;
        if !tally.open.remove(&(end.collider1, end.collider2)) {
            tally.unmatched += 1;
        }
    }
}

fn image(w: u32, h: u32, solid: impl Fn(f32, f32) -> bool) -> Image {
    let data = (0..w * h)
        .flat_map(|i| {
            let u = ((i % w) as f32 + 0.5) / w as f32 * 2.0 - 1.0;
            let v = ((i / w) as f32 + 0.5) / h as f32 * 2.0 - 1.0;
            if solid(u, v) { [255; 4] } else { [0; 4] }
        })
        .collect();
    Image::new(
        Extent3d {
            width: w,
            height: h,
            depth_or_array_layers: 1,
        },
        TextureDimension::D2,
        data,
        TextureFormat::Rgba8UnormSrgb,
        RenderAssetUsages::default(),
    )
}

/// World half-size: with 20,000 colliders, a few thousand pairs touch at any time.
const HALF_WORLD: f32 = 5_000.0;

fn random_place(rng: &mut SplitMix64) -> Transform {
    Transform::from_xyz(
        rng.range(-HALF_WORLD, HALF_WORLD),
        rng.range(-HALF_WORLD, HALF_WORLD),
        0.0,
    )
    .with_rotation(Quat::from_rotation_z(rng.range(0.0, std::f32::consts::TAU)))
}

fn main() -> ExitCode {
    let options = match parse() {
        Ok(options) => options,
        Err(err) => {
            eprintln!("churn: {err}");
            return ExitCode::from(2);
        }
    };
    let mut app = headless_app();
    let mut churn = Churn::new(&mut app, options.colliders);
    let warm_up = options.frames / 10;
    let report_every = (options.frames / 10).max(1);
    let mut heap_after_warm_up = 0.0;
    let mut window = (Instant::now(), 0u32);
    let mut first_window_ms = None;
    let mut last_window_ms = 0.0;
    println!(
        "churn: {} colliders, {} replaced a frame, {} frames",
        options.colliders, options.churn, options.frames
    );
    for frame in 1..=options.frames {
        churn.frame(app.world_mut(), options.churn);
        app.update();
        window.1 += 1;
        if frame == warm_up {
            heap_after_warm_up = live_mib();
        }
        if frame % report_every == 0 {
            let ms = window.0.elapsed().as_secs_f64() * 1e3 / f64::from(window.1);
            first_window_ms.get_or_insert(ms);
            last_window_ms = ms;
            report(app.world_mut(), frame, ms);
            window = (Instant::now(), 0);
        }
    }
    let heap_at_end = live_mib();
    for e in churn.live.drain(..) {
        app.world_mut().despawn(e);
    }
    for _ in 0..3 {
        app.update();
    }
    let tally = app.world().resource::<Tally>();
    let first = first_window_ms.unwrap_or(last_window_ms);
    println!(
        "churn: {} starts, {} ends, {} open after despawning all, {} unmatched; frame time \
         {first:.2} ms at the start, {last_window_ms:.2} ms at the end ({:+.1}%); heap {:.1} MiB \
         after warm-up, {heap_at_end:.1} MiB at the end",
        tally.starts,
        tally.ends,
        tally.open.len(),
        tally.unmatched,
        (last_window_ms / first - 1.0) * 100.0,
        heap_after_warm_up
    );
    verdict(tally, heap_at_end - heap_after_warm_up, &options)
}

/// The plugin in an app with no window and no renderer, images loaded from memory only.
fn headless_app() -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin::default(),
        ImagePlugin::default(),
        TextureAtlasPlugin,
        TransformPlugin,
        PixelCollisionPlugins::default(),
    ))
    .register_asset_loader(ImageLoader::new(CompressedImageFormats::NONE))
    .init_resource::<Tally>()
    .add_systems(PostUpdate, count.after(PixelCollisionSystems::Events));
    app.finish();
    app.cleanup();
    app.update();
    app
}

/// The colliders alive, those sent far away (with where they came from), their images and
/// the seeded choices of what changes.
struct Churn {
    live: Vec<Entity>,
    far: Vec<(Entity, Vec3)>,
    images: Vec<Handle<Image>>,
    rng: SplitMix64,
}

impl Churn {
    /// `colliders` colliders of three shapes, placed at random.
    fn new(app: &mut App, colliders: usize) -> Churn {
        let images = {
            let mut assets = app.world_mut().resource_mut::<Assets<Image>>();
            vec![
                assets.add(image(24, 24, |u, v| u * u + v * v <= 1.0)),
                assets.add(image(16, 28, |u, v| u.abs() + v.abs() <= 1.0)),
                assets.add(image(28, 20, |u, v| (0.5..=1.0).contains(&(u * u + v * v)))),
            ]
        };
        let mut churn = Churn {
            live: Vec::new(),
            far: Vec::new(),
            images,
            rng: SplitMix64(0xC4_0000),
        };
        churn.live = (0..colliders)
            .map(|_| churn.spawn(app.world_mut()))
            .collect();
        churn
    }

    fn spawn(&mut self, world: &mut World) -> Entity {
        let k = self.rng.below(self.images.len() as u64) as usize;
        world
            .spawn((
                Sprite::from_image(self.images[k].clone()),
                random_place(&mut self.rng),
                PixelCollider::default(),
            ))
            .id()
    }

    fn random_live(&mut self) -> Entity {
        self.live[self.rng.below(self.live.len() as u64) as usize]
    }

    /// One frame's changes: `churn` colliders replaced, a quarter as many given another
    /// image and others other layers, an eighth sent far away and as many brought back.
    fn frame(&mut self, world: &mut World, churn: usize) {
        for _ in 0..churn {
            let k = self.rng.below(self.live.len() as u64) as usize;
            let gone = self.live.swap_remove(k);
            self.far.retain(|(e, _)| *e != gone);
            world.despawn(gone);
            let new = self.spawn(world);
            self.live.push(new);
        }
        for _ in 0..churn / 4 {
            let e = self.random_live();
            let k = self.rng.below(self.images.len() as u64) as usize;
            if let Some(mut sprite) = world.get_mut::<Sprite>(e) {
                sprite.image = self.images[k].clone();
            }
            let e = self.random_live();
            let layers = match self.rng.below(3) {
                0 => PixelCollisionLayers::ALL,
                1 => PixelCollisionLayers::new(0b01, 0b10),
                _ => PixelCollisionLayers::new(0b10, 0b01),
            };
            world.entity_mut(e).insert(layers);
        }
        // Some jump a million pixels away; as many come back to where they were.
        for _ in 0..churn / 8 {
            let e = self.random_live();
            if let Some(mut t) = world.get_mut::<Transform>(e)
                && !self.far.iter().any(|(f, _)| *f == e)
            {
                self.far.push((e, t.translation));
                t.translation += Vec3::new(1.0e6, -1.0e6, 0.0);
            }
        }
        for _ in 0..(churn / 8).min(self.far.len()) {
            let (e, home) = self.far.swap_remove(0);
            if let Some(mut t) = world.get_mut::<Transform>(e) {
                t.translation = home;
            }
        }
    }
}

/// One line of progress: the frame time, the heap, the entities and what touched.
fn report(world: &mut World, frame: u32, ms: f64) {
    let entities = world.query::<Entity>().iter(world).count();
    let stats = world
        .run_system_cached(|c: PixelCollisions| c.stats())
        .expect("the stats system runs");
    let tally = world.resource::<Tally>();
    println!(
        "frame {frame:>6}: {ms:7.2} ms/frame, heap {:8.1} MiB, {entities} entities, \
         {} colliders, {} touching, {} starts, {} ends",
        live_mib(),
        stats.colliders,
        stats.touching,
        tally.starts,
        tally.ends
    );
}

/// Success when every start met its end, something touched, and the heap held.
fn verdict(tally: &Tally, heap_growth_mib: f64, options: &Options) -> ExitCode {
    let mut failed = Vec::new();
    if tally.starts != tally.ends || !tally.open.is_empty() || tally.unmatched != 0 {
        failed.push("a start without exactly one end".to_string());
    }
    if tally.starts == 0 {
        failed.push("nothing ever touched: the check proved nothing".to_string());
    }
    if heap_growth_mib > options.max_heap_growth_mib {
        failed.push(format!(
            "the heap grew by {heap_growth_mib:.1} MiB after warm-up (at most {})",
            options.max_heap_growth_mib
        ));
    }
    if failed.is_empty() {
        println!("churn: ok");
        ExitCode::SUCCESS
    } else {
        eprintln!("churn: FAILED: {}", failed.join("; "));
        ExitCode::FAILURE
    }
}
