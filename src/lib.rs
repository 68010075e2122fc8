//! The Pixel Collide demo game: Bevy plugins on top of `bevy_pixel_collide` and the
//! `pixel_collide` core. Not a library for other games (`publish = false`): its modules are
//! public for the game's own tests and benches.
//!
//! [`LogicPlugin`] is everything that decides what happens (input, scenes, masks,
//! collision) and runs headless in tests; [`GamePlugin`] adds the window, the overlay, the
//! debug drawing and the smoke test's frame limit and screenshot.

pub mod autoplay;
pub mod cli;
pub mod debug_draw;
mod frame_rate;
pub mod headless;
pub mod input;
pub mod masks;
pub mod motion;
pub mod overlay;
pub mod physics;
pub mod play_area;
mod readiness;
#[cfg(not(target_arch = "wasm32"))]
mod recorder;
#[cfg(not(target_arch = "wasm32"))]
mod run_control;
pub mod scene;
pub mod scenes;
pub mod sheet;
pub mod sim;
#[cfg(target_arch = "wasm32")]
pub mod web;

use bevy::asset::AssetMetaCheck;
use bevy::prelude::*;
use bevy::window::WindowResolution;
use bevy_egui::EguiPlugin;

use bevy_pixel_collide::PixelCollisionPlugins;

pub use cli::{CliError, GameOptions, parse_args};
pub use scene::GameScene;

/// The game's frame, in order; each scene puts its systems in these sets.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AppSystems {
    /// Devices into [`input::Controls`]; scene switching.
    ReadInput,
    /// Loaded images into bit masks.
    LoadMasks,
    /// Movement and game rules.
    Update,
    /// Broad phase, per-pixel tests, contacts.
    Collide,
}

/// The line under the scene's title at the top of the screen; each scene writes its own.
#[derive(Resource, Debug, Clone, Default, PartialEq)]
pub struct StatusLine(pub String);

/// What the scene on screen has done since it was entered: frames, frames with a contact
/// (from [`CollisionStats`]) and the scene's own events, which each scene counts (a clover
/// collected, a crater carved). `--frames` logs it on quitting, and the smoke test checks
/// that an `--autoplay` run did something.
#[derive(Resource, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SceneActivity {
    pub frames: u64,
    pub contact_frames: u64,
    pub events: u64,
}

/// What the last collision step did, for the overlay.
#[derive(Resource, Debug, Clone, Copy, Default, PartialEq)]
pub struct CollisionStats {
    pub broad_pairs: u32,
    pub pixel_tests: u32,
    pub contacts: u32,
    pub micros: f32,
}

/// Input, scenes, masks and collision: no window, no rendering.
pub struct LogicPlugin {
    pub scene: GameScene,
}

impl Plugin for LogicPlugin {
    fn build(&self, app: &mut App) {
        app.insert_state(self.scene)
            .init_resource::<CollisionStats>()
            .init_resource::<StatusLine>()
            .init_resource::<SceneActivity>()
            .add_systems(Last, count_activity)
            .configure_sets(
                Update,
                (
                    AppSystems::ReadInput,
                    AppSystems::LoadMasks,
                    AppSystems::Update,
                    AppSystems::Collide,
                )
                    .chain(),
            )
            .add_plugins(PixelCollisionPlugins::default())
            .add_plugins((
                input::plugin,
                motion::plugin,
                physics::plugin,
                play_area::plugin,
                scene::plugin,
                autoplay::plugin,
                masks::plugin,
            ))
            .add_plugins((
                scenes::sprites::plugin,
                scenes::basketball::plugin,
                scenes::hitboxes::plugin,
                scenes::larry::plugin,
                scenes::crowd::plugin,
                scenes::terrain::plugin,
            ));
    }
}

/// The whole game in a window.
pub struct GamePlugin {
    pub options: GameOptions,
}

impl Plugin for GamePlugin {
    fn build(&self, app: &mut App) {
        app.add_plugins(
            DefaultPlugins
                .set(WindowPlugin {
                    primary_window: Some(Window {
                        title: "Pixel Collide".into(),
                        resolution: WindowResolution::new(1280, 720),
                        resizable: true,
                        // The web page's canvas (src/web/index.html), sized by the page.
                        canvas: Some("#pixel-collide".into()),
                        fit_canvas_to_parent: true,
                        ..default()
                    }),
                    ..default()
                })
                .set(TaskPoolPlugin {
                    task_pool_options: compute_on_every_core(),
                })
                .set(AssetPlugin {
                    file_path: asset_dir(),
                    // No asset has a `.meta` file; asking for each would cost a failed
                    // request per image on the web.
                    meta_check: AssetMetaCheck::Never,
                    ..default()
                }),
        )
        .add_plugins((
            EguiPlugin::default(),
            bevy::diagnostic::FrameTimeDiagnosticsPlugin::default(),
            // The pointer picks sprites where their masks are solid (the overlay says which).
            bevy_pixel_collide::picking::PixelPickingPlugin,
        ))
        .insert_resource(ClearColor(Color::srgb(0.09, 0.11, 0.16)))
        .insert_resource(self.options.clone())
        .add_plugins(LogicPlugin {
            scene: self.options.scene,
        })
        .add_plugins((
            overlay::plugin,
            debug_draw::plugin,
            readiness::plugin,
            frame_rate::plugin,
            #[cfg(not(target_arch = "wasm32"))]
            (run_control::plugin, recorder::plugin),
        ))
        .add_plugins((
            scenes::basketball::overlay_plugin,
            scenes::hitboxes::overlay_plugin,
            scenes::larry::overlay_plugin,
            scenes::crowd::overlay_plugin,
            scenes::terrain::overlay_plugin,
        ))
        .add_systems(Startup, spawn_camera);
    }
}

/// Bevy gives the IO and async pools a core each before the compute pool, which leaves one
/// compute thread on a 2-core machine and so no gain from the parallel narrow phase. The IO
/// and async pools are mostly idle here, so compute may use every core.
fn compute_on_every_core() -> TaskPoolOptions {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut options = TaskPoolOptions::default();
    options.compute.min_threads = cores;
    options
}

/// One more frame of the scene on screen, with a contact or not; a new scene starts from
/// zero.
fn count_activity(
    scene: Res<State<GameScene>>,
    stats: Res<CollisionStats>,
    mut activity: ResMut<SceneActivity>,
) {
    if scene.is_changed() {
        *activity = SceneActivity::default();
    }
    activity.frames += 1;
    activity.contact_frames += u64::from(stats.contacts > 0);
}

fn spawn_camera(mut commands: Commands) {
    commands.spawn(Camera2d);
}

/// `assets/` in the working directory when run from the project, else the one the binary
/// was built from, so the smoke test can run the binary from anywhere. Absolute, because
/// Bevy resolves relative paths against the executable's folder.
#[cfg(not(target_arch = "wasm32"))]
fn asset_dir() -> String {
    use std::path::PathBuf;
    std::env::current_dir()
        .map(|dir| dir.join("assets"))
        .ok()
        .filter(|dir| dir.is_dir())
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/assets")))
        .to_string_lossy()
        .into_owned()
}

/// On the web, `assets/` beside the page: requests go to URLs relative to it.
#[cfg(target_arch = "wasm32")]
fn asset_dir() -> String {
    "assets".into()
}
