//! The soak tests' player: a headless game app fed seeded random input, with the checks
//! that run between frames.
// Shared by two test binaries, each using part of it.
#![allow(dead_code)]

use std::collections::BTreeSet;
use std::hash::{Hash, Hasher};
use std::time::Duration;

use bevy::asset::{LoadState, UntypedHandle};
use bevy::camera::NormalizedRenderTarget;
use bevy::input::gamepad::{Gamepad, GamepadAxis, GamepadButton};
use bevy::picking::backend::HitData;
use bevy::picking::events::{Pointer, Press};
use bevy::picking::pointer::{Location, PointerButton, PointerId};
use bevy::prelude::*;
use bevy_pixel_collide::PixelCollisionConfig;
use bevy_pixel_collide::debug::PixelDebugSettings;
use pixel_collide_game::headless::{ASSET_DIR, headless_app};
use pixel_collide_game::masks::AlphaThreshold;
use pixel_collide_game::motion::FIXED_HZ;
use pixel_collide_game::scenes::basketball::BasketballSettings;
use pixel_collide_game::scenes::crowd::CrowdSettings;
use pixel_collide_game::scenes::hitboxes::{HitboxSettings, HitboxShapes, ShapeHandle};
use pixel_collide_game::scenes::larry::{LarrySettings, SheetDescriptionAsset};
use pixel_collide_game::scenes::terrain::TerrainSettings;
use pixel_collide_game::{GameScene, StatusLine};
use pixel_collide_support::rng::SplitMix64;

/// A number from the environment, or `default`.
pub fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| {
            v.strip_prefix("0x")
                .map_or_else(|| v.parse().ok(), |h| u64::from_str_radix(h, 16).ok())
        })
        .unwrap_or(default)
}

/// Keys a player might hold; the scene keys are pressed on their own schedule.
const KEYS: [KeyCode; 14] = [
    KeyCode::KeyW,
    KeyCode::KeyA,
    KeyCode::KeyS,
    KeyCode::KeyD,
    KeyCode::ArrowUp,
    KeyCode::ArrowDown,
    KeyCode::ArrowLeft,
    KeyCode::ArrowRight,
    KeyCode::KeyQ,
    KeyCode::KeyE,
    KeyCode::Comma,
    KeyCode::Period,
    KeyCode::Space,
    KeyCode::F1,
];

const BUTTONS: [GamepadButton; 10] = [
    GamepadButton::South,
    GamepadButton::West,
    GamepadButton::North,
    GamepadButton::LeftTrigger2,
    GamepadButton::RightTrigger2,
    GamepadButton::DPadUp,
    GamepadButton::DPadDown,
    GamepadButton::DPadLeft,
    GamepadButton::DPadRight,
    GamepadButton::Start,
];

const STICKS: [GamepadAxis; 4] = [
    GamepadAxis::LeftStickX,
    GamepadAxis::LeftStickY,
    GamepadAxis::RightStickX,
    GamepadAxis::RightStickY,
];

/// Frames after a scene change before the checks that need the scene settled.
pub const SETTLE_FRAMES: u64 = 3;

/// How long the asset files may take to load: a few hundred milliseconds here.
const ASSET_WAIT: Duration = Duration::from_secs(60);

/// What a settled scene holds, counted on each visit: what must not grow from one visit
/// to the next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Holdings {
    pub entities: usize,
    pub images: usize,
    pub masks: usize,
}

pub struct Soak {
    app: App,
    rng: SplitMix64,
    gamepad: Entity,
    /// Every asset file, loaded once and held, so that a scene entered later finds its
    /// images ready at once: loading takes a different number of frames from run to run,
    /// and a replay must not depend on it.
    _assets: Vec<UntypedHandle>,
    /// Frame of the next scene switch.
    next_switch: u64,
    scene: GameScene,
    entered_at: u64,
    /// Entities outside every scene, by their components, on the first settled frame.
    global_entities: Option<Vec<String>>,
    /// Per scene, the resources present on its first settled frame.
    resources: Vec<Option<BTreeSet<String>>>,
    visits: Vec<u32>,
    checked_transforms: u64,
}

impl Soak {
    pub fn new(seed: u64) -> Soak {
        let mut app = headless_app(
            GameScene::PixelAccurate,
            ASSET_DIR,
            // Exactly one fixed step a frame, so the time left over after a step (which
            // places the bodies drawn between steps) is the same however many frames the
            // asynchronous loading took.
            Duration::from_secs_f64(1.0 / FIXED_HZ),
        );
        // What the window's plugins would add: the mouse, and the debug toggles the
        // overlay edits.
        app.init_resource::<ButtonInput<MouseButton>>()
            .init_resource::<PixelDebugSettings>();
        let server = app.world().resource::<AssetServer>().clone();
        let assets: Vec<UntypedHandle> = std::fs::read_dir(ASSET_DIR)
            .expect("the asset folder")
            .filter_map(|entry| {
                let name = entry.ok()?.file_name().into_string().ok()?;
                (name.ends_with(".png") || name.ends_with(".ron")).then_some(name)
            })
            .map(|name| {
                if name.ends_with(".png") {
                    server.load::<Image>(name).untyped()
                } else {
                    server.load::<SheetDescriptionAsset>(name).untyped()
                }
            })
            .collect();
        // Waited for on the asset server's state, within a bound that names what never
        // loaded: a replay must start with every file in memory.
        let started = std::time::Instant::now();
        loop {
            app.update();
            let waiting: Vec<String> = assets
                .iter()
                .filter(|h| !matches!(server.get_load_state(h.id()), Some(LoadState::Loaded)))
                .map(|h| format!("{:?}: {:?}", h.path(), server.get_load_state(h.id())))
                .collect();
            if waiting.is_empty() {
                break;
            }
            assert!(
                started.elapsed() < ASSET_WAIT,
                "assets not loaded after {ASSET_WAIT:?}: {waiting:?}"
            );
            std::thread::sleep(Duration::from_millis(2));
        }
        let gamepad = app.world_mut().spawn(Gamepad::default()).id();
        Soak {
            app,
            rng: SplitMix64(seed),
            gamepad,
            _assets: assets,
            next_switch: 0,
            scene: GameScene::PixelAccurate,
            entered_at: 0,
            global_entities: None,
            resources: vec![None; GameScene::ALL.len()],
            visits: vec![0; GameScene::ALL.len()],
            checked_transforms: 0,
        }
    }

    /// Every scene in turn at its most demanding (the crowd at its largest, with and
    /// without debug shapes), `frames` frames each, with the same random input and checks: what the caches and the
    /// allocator grow to, before memory is compared.
    /// `each` sees every frame: its number, the scene, and on its settled frame what it
    /// holds.
    pub fn tour(
        &mut self,
        frames: u64,
        mut each: impl FnMut(u64, GameScene, Option<Holdings>),
    ) -> u64 {
        let mut frame = 0;
        for scene in GameScene::ALL {
            self.app
                .world_mut()
                .resource_mut::<NextState<GameScene>>()
                .set(scene);
            for k in 0..frames {
                // No switching by key during the tour, and the crowd at its largest in both
                // of its sprites' layouts (with and without debug shapes: Bevy keeps a
                // table of each, as large as it ever was).
                self.next_switch = u64::MAX;
                let mut crowd = self.app.world_mut().resource_mut::<CrowdSettings>();
                crowd.count = usize::MAX;
                crowd.show_boxes = k >= frames / 2;
                let holdings = self.frame(frame);
                each(frame, self.scene, holdings);
                frame += 1;
            }
        }
        self.next_switch = frame;
        frame
    }

    /// One frame: new input, maybe new overlay values or a new scene, `update`, checks.
    /// On a scene's settled frame, what it holds.
    pub fn frame(&mut self, frame: u64) -> Option<Holdings> {
        self.press_keys(frame);
        self.move_gamepad();
        self.drag_mouse();
        if self.rng.below(40) == 0 {
            self.set_overlay_values();
        }
        self.app.update();
        let scene = *self.app.world().resource::<State<GameScene>>().get();
        if scene != self.scene {
            self.scene = scene;
            self.entered_at = frame;
            self.visits[scene.index()] += 1;
        }
        self.check_transforms(frame);
        (frame == self.entered_at + SETTLE_FRAMES).then(|| {
            self.check_nothing_left_behind(frame);
            self.holdings()
        })
    }

    pub fn scene(&self) -> GameScene {
        self.scene
    }

    fn holdings(&mut self) -> Holdings {
        let world = self.app.world_mut();
        let entities = world.query::<Entity>().iter(world).count();
        Holdings {
            entities,
            images: world.resource::<Assets<Image>>().len(),
            masks: world.resource::<bevy_pixel_collide::PixelMasks>().len(),
        }
    }

    pub fn visited_every_scene(&self) -> bool {
        self.visits.iter().all(|&v| v > 0) && self.app_frame_settled()
    }

    fn app_frame_settled(&self) -> bool {
        self.resources[self.scene.index()].is_some()
    }

    pub fn visits_per_scene(&self) -> &[u32] {
        &self.visits
    }

    /// A summary, with the final state's hash.
    pub fn report(&mut self) -> String {
        let hash = self.state_hash();
        let entities = self.app.world().entities().len();
        format!(
            "scene visits {:?}, {} transforms checked, {entities} entities at the end, \
             final state hash {hash:#018x}",
            self.visits, self.checked_transforms,
        )
    }

    /// Every entity's transform and sprite color, in a fixed order, the scene, its status
    /// line and the settings: what a replay must reproduce.
    pub fn state_hash(&mut self) -> u64 {
        let world = self.app.world_mut();
        let mut items: Vec<[u32; 14]> = world
            .query::<(&Transform, Option<&Sprite>)>()
            .iter(world)
            .map(|(t, sprite)| {
                let c = sprite.map_or([0.0; 4], |s| s.color.to_srgba().to_f32_array());
                let mut row = [0u32; 14];
                let values = [
                    t.translation.x,
                    t.translation.y,
                    t.translation.z,
                    t.rotation.x,
                    t.rotation.y,
                    t.rotation.z,
                    t.rotation.w,
                    t.scale.x,
                    t.scale.y,
                    t.scale.z,
                ]
                .into_iter()
                .chain(c);
                for (slot, v) in row.iter_mut().zip(values) {
                    *slot = v.to_bits();
                }
                row
            })
            .collect();
        items.sort_unstable();
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        items.hash(&mut hasher);
        self.scene.index().hash(&mut hasher);
        world.resource::<StatusLine>().0.hash(&mut hasher);
        hasher.finish()
    }

    fn press_keys(&mut self, frame: u64) {
        let rng = &mut self.rng;
        let mut keys = self.app.world_mut().resource_mut::<ButtonInput<KeyCode>>();
        // What the input plugin does at the start of a frame: presses are news once.
        keys.clear();
        for key in KEYS {
            match rng.below(30) {
                0 => keys.press(key),
                1 | 2 => keys.release(key),
                _ => {}
            }
        }
        if frame >= self.next_switch {
            self.next_switch = frame + 150 + rng.below(300);
            let key = match rng.below(8) {
                0 => KeyCode::PageUp,
                1 => KeyCode::PageDown,
                // Mostly a scene by its number, each of the seven as often.
                _ => [
                    KeyCode::Digit1,
                    KeyCode::Digit2,
                    KeyCode::Digit3,
                    KeyCode::Digit4,
                    KeyCode::Digit5,
                    KeyCode::Digit6,
                    KeyCode::Digit7,
                ][rng.below(7) as usize],
            };
            keys.press(key);
        } else {
            keys.release_all();
            // Held movement keys come back next frame at random; scene keys do not.
        }
    }

    fn move_gamepad(&mut self) {
        let rng = &mut self.rng;
        let mut entity = self.app.world_mut().entity_mut(self.gamepad);
        let mut pad = entity.get_mut::<Gamepad>().expect("the soak's gamepad");
        pad.digital_mut().clear();
        for button in BUTTONS {
            match rng.below(40) {
                0 => pad.digital_mut().press(button),
                1 | 2 => pad.digital_mut().release(button),
                _ => {}
            }
        }
        // The shoulder buttons switch scenes: pressed rarely, so scenes last a while.
        if rng.below(400) == 0 {
            pad.digital_mut().press(GamepadButton::RightTrigger);
        } else {
            pad.digital_mut().release(GamepadButton::RightTrigger);
        }
        for axis in STICKS {
            if rng.below(10) == 0 {
                // A worn or broken stick too: past its range, and not a number.
                let value = match rng.below(20) {
                    0 => f32::NAN,
                    1 => 7.0,
                    2 => -1.0,
                    3 => 1.0,
                    _ => rng.range(-1.0, 1.0),
                };
                pad.analog_mut().set(axis, value);
            }
        }
    }

    fn drag_mouse(&mut self) {
        let rng = &mut self.rng;
        let world = self.app.world_mut();
        let mut mouse = world.resource_mut::<ButtonInput<MouseButton>>();
        mouse.clear();
        match rng.below(20) {
            0 => {
                mouse.press(MouseButton::Left);
                // Headless there is no picking: the press a backend would send, on a shape's
                // sprite, at a point that may be anywhere (not a number too).
                let handles: Vec<Entity> = world
                    .query_filtered::<Entity, With<ShapeHandle>>()
                    .iter(world)
                    .collect();
                if !handles.is_empty() {
                    let handle = handles[rng.below(handles.len() as u64) as usize];
                    let at = match rng.below(10) {
                        0 => Vec3::NAN,
                        1 => Vec3::splat(1e30),
                        _ => Vec3::new(rng.range(-400.0, 400.0), rng.range(-300.0, 300.0), 0.0),
                    };
                    let camera = Entity::PLACEHOLDER;
                    let hit = HitData::new(camera, 0.0, Some(at), None);
                    let location = Location {
                        target: NormalizedRenderTarget::None {
                            width: 1280,
                            height: 720,
                        },
                        position: Vec2::ZERO,
                    };
                    let press = Press {
                        button: PointerButton::Primary,
                        hit,
                        count: 1,
                    };
                    world.trigger(Pointer::new(PointerId::Mouse, location, press, handle));
                }
            }
            1 => mouse.release(MouseButton::Left),
            _ => {}
        }
        if let Some(mut shapes) = world.get_resource_mut::<HitboxShapes>() {
            let previous = shapes.cursor.unwrap_or(Vec2::ZERO);
            shapes.cursor = match rng.below(50) {
                0 => None,
                1 => Some(Vec2::new(1e30, -1e30)),
                2 => Some(Vec2::splat(f32::NAN)),
                _ => Some(previous + Vec2::new(rng.range(-30.0, 30.0), rng.range(-30.0, 30.0))),
            };
        }
    }

    /// What the overlay's sliders and boxes can write, and what a broken overlay could:
    /// the ends of every range, past them, and not-a-number.
    fn set_overlay_values(&mut self) {
        let rng = &mut self.rng;
        let world = self.app.world_mut();
        let pick = |choices: &[f32], rng: &mut SplitMix64| {
            choices[rng.below(choices.len() as u64) as usize]
        };
        match rng.below(8) {
            0 => {
                let threshold = [0, 1, 127, 254, 255][rng.below(5) as usize];
                world.resource_mut::<AlphaThreshold>().0 = threshold;
            }
            1 => {
                let mut debug = world.resource_mut::<PixelDebugSettings>();
                debug.aabb = rng.below(2) == 0;
                debug.oriented_box = rng.below(2) == 0;
                debug.outline = rng.below(2) == 0;
                debug.contacts = rng.below(2) == 0;
            }
            2 => {
                // Mostly what the slider offers; its far end and past it now and then,
                // since a crowd of 20,000 in a debug build is slow.
                let count = match rng.below(12) {
                    0 => usize::MAX,
                    1 => 0,
                    2 => 20_000,
                    _ => 10 + rng.below(2_000) as usize,
                };
                world.resource_mut::<CrowdSettings>().count = count;
                world.resource_mut::<PixelCollisionConfig>().parallel = rng.below(2) == 0;
                world.resource_mut::<CrowdSettings>().show_boxes = rng.below(4) == 0;
            }
            3 => {
                let wild = [f32::NAN, f32::INFINITY, -1e30, 1e30, 0.0, -1.0];
                let mut s = world.resource_mut::<BasketballSettings>();
                match rng.below(5) {
                    0 => s.gravity = pick(&[0.0, 3_000.0, 981.0, wild[rng.below(6) as usize]], rng),
                    1 => {
                        let k = rng.below(3) as usize;
                        s.materials[k].elasticity = pick(&[0.0, 1.0, 0.5, 2.0, f32::NAN], rng);
                        s.materials[k].friction = pick(&[0.0, 1.0, 0.9, -3.0, f32::NAN], rng);
                    }
                    2 => {
                        let k = rng.below(3) as usize;
                        s.angles[k] = pick(&[0.0, 0.7, -0.7, 1e9, f32::NAN], rng);
                    }
                    3 => {
                        s.launch_speed = (
                            pick(&[0.0, 1_500.0, 400.0, f32::NAN, 1e30], rng),
                            pick(&[0.0, 1_500.0, 900.0, -5.0, f32::INFINITY], rng),
                        )
                    }
                    _ => s.trail = rng.below(2) == 0,
                }
            }
            4 => {
                let mut s = world.resource_mut::<HitboxSettings>();
                s.resolve = rng.below(2) == 0;
                s.swept_bullet = rng.below(2) == 0;
                s.auto_fire = rng.below(2) == 0;
                s.obb_as_aabb = rng.below(2) == 0;
            }
            5 => {
                world.resource_mut::<LarrySettings>().collect_on_boxes = rng.below(2) == 0;
            }
            6 => {
                let mut s = world.resource_mut::<TerrainSettings>();
                s.crater_radius = pick(
                    &[8.0, 40.0, 120.0, 0.0, -5.0, 1e30, f32::NAN, f32::INFINITY],
                    rng,
                );
                s.throws = [0, 1, 8, 20, u32::MAX][rng.below(5) as usize];
                s.preview = rng.below(2) == 0;
            }
            _ => {
                // The basketball's own defaults back, so its scene is also seen sane.
                *world.resource_mut::<BasketballSettings>() = BasketballSettings::default();
            }
        }
    }

    /// Entities of a scene exist only while it is on; entities outside every scene never
    /// change in number; a scene's resources are the same on every visit.
    fn check_nothing_left_behind(&mut self, frame: u64) {
        let scene = self.scene;
        let world = self.app.world_mut();
        let mut global = Vec::new();
        for (entity, owner) in world
            .query::<(Entity, Option<&DespawnOnExit<GameScene>>)>()
            .iter(world)
        {
            match owner {
                Some(DespawnOnExit(s)) => assert_eq!(
                    *s, scene,
                    "frame {frame}: an entity of {s:?} outlived it into {scene:?}"
                ),
                None => global.push(entity),
            }
        }
        // What they are, by their components, to name what was added.
        let mut kinds: Vec<String> = global
            .iter()
            .map(|&e| {
                let mut names: Vec<String> = world
                    .inspect_entity(e)
                    .map(|infos| infos.map(|i| i.name().shortname().to_string()).collect())
                    .unwrap_or_default();
                names.sort();
                names.join("+")
            })
            .collect();
        // Bevy keeps each resource on an entity of its own; resources are compared by
        // name below.
        kinds.retain(|k| !k.contains("IsResource"));
        kinds.sort();
        let expected = self.global_entities.get_or_insert(kinds.clone());
        if kinds != *expected {
            let added: Vec<&String> = kinds.iter().filter(|k| !expected.contains(k)).collect();
            let gone: Vec<&String> = expected.iter().filter(|k| !kinds.contains(k)).collect();
            panic!(
                "frame {frame}, {scene:?}: entities outside the scenes went from {} to {}; \
                 new kinds {added:?}, gone {gone:?}",
                expected.len(),
                kinds.len()
            );
        }
        let names: BTreeSet<String> = world
            .iter_resources()
            .map(|(info, _)| info.name().to_string())
            .collect();
        match &self.resources[scene.index()] {
            None => self.resources[scene.index()] = Some(names),
            Some(first) => assert_eq!(
                &names, first,
                "frame {frame}: {scene:?}'s resources differ from its first visit"
            ),
        }
    }

    fn check_transforms(&mut self, frame: u64) {
        let world = self.app.world_mut();
        for (entity, transform, global) in world
            .query::<(Entity, &Transform, Option<&GlobalTransform>)>()
            .iter(world)
        {
            assert!(
                transform.is_finite() && global.is_none_or(|g| g.affine().is_finite()),
                "frame {frame}, {:?}: {entity:?} has {transform:?}",
                self.scene
            );
            self.checked_transforms += 1;
        }
    }
}
