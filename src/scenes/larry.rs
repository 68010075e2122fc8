//! Scene "Larry and the clovers": a walking character from a color-keyed sprite sheet
//! collects clovers. The sheet is a `TextureAtlas`; the collision plugin masks each frame
//! on its own and collides the frame on screen, so a clover touched by a swinging foot counts while one inside Larry's box but
//! clear of his pixels does not (unless the overlay switches to collecting on boxes).
//!
//! The sheet's frame size comes from the `.sheet.ron` next to it, loaded as an asset. A
//! missing or garbled description, or a sheet that is not a whole number of frames, is
//! reported on screen and Larry walks as the checkerboard placeholder.

use bevy::asset::io::Reader;
use bevy::asset::{AssetLoadError, AssetLoader, LoadContext, LoadState};
use bevy::camera::visibility::VisibilitySystems;
use bevy::image::TextureAtlasPlugin;
use bevy::math::bounding::{BoundingVolume, IntersectsVolume};
use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};

use crate::autoplay::AutoplaySystems;
use crate::input::Controls;
use crate::masks::{COLOR_KEY, ColorKey};
use crate::overlay::overlay_shown;
use crate::play_area::PlayArea;
use crate::scene::GameScene;
pub use crate::sheet::{
    MAX_SHEET_FRAMES, SheetDescription, SheetError, SheetGrid, parse_sheet_description,
    sheet_description_from_bytes, sheet_description_path,
};
use crate::{AppSystems, CollisionStats, SceneActivity, StatusLine};
use bevy_pixel_collide::debug::draw_outline;
use bevy_pixel_collide::debug::{PixelDebugGizmos, PixelDebugSettings};
use bevy_pixel_collide::{
    PixelCollider, PixelColliderMask, PixelCollisionSystems, PixelCollisions, PixelMasks,
};
use pixel_collide_seeded::rng::SplitMix64;

/// Larry's sprite sheet; its description is [`sheet_description_path`] of it.
pub const SHEET_PATH: &str = "larry_sheet.png";
pub const CLOVER_PATH: &str = "clover.png";
/// Pixels per second at full stick.
pub const WALK_SPEED: f32 = 240.0;
/// Walking frames per second, whatever the display's frame rate.
pub const ANIMATION_FPS: f32 = 8.0;
pub const CLOVER_COUNT: usize = 8;
pub const LARRY_START: Vec2 = Vec2::ZERO;
/// Clovers keep this far (center to center) from Larry and each other when placed: more
/// than Larry's half-diagonal plus a clover's, so a new clover never starts touched.
pub const MIN_SPACING: f32 = 96.0;
/// The same layout on every visit, so a player (and a test) can rely on it.
const CLOVER_SEED: u64 = 0x1a77_c10e_5eed;
/// Clovers are placed before their image loads: the asset's size is enough for that.
const CLOVER_HALF: Vec2 = Vec2::splat(16.0);
/// Larry's size until his sheet is known.
const LARRY_SIZE: Vec2 = Vec2::new(48.0, 64.0);
/// Clovers are placed clear of what the overlay covers by default, where a player could not
/// see them: the title, status line and this scene's window along the top, the main panel
/// down the right.
const TOP_BAND: f32 = 170.0;
const RIGHT_BAND: f32 = 450.0;
const EDGE_MARGIN: f32 = 16.0;

// ---------------------------------------------------------------------------------------
// Sheet description

/// A `.sheet.ron` as an asset.
#[derive(Asset, TypePath, Debug, Clone, Copy, PartialEq, Eq, Deref)]
pub struct SheetDescriptionAsset(pub SheetDescription);

/// The atlas layout Bevy draws a sheet's frames with: the same grid.
pub fn atlas_layout(grid: &SheetGrid) -> TextureAtlasLayout {
    TextureAtlasLayout::from_grid(grid.frame, grid.columns, grid.rows, None, None)
}

/// Loads `*.sheet.ron` files as [`SheetDescriptionAsset`]s.
#[derive(Default, TypePath)]
pub struct SheetDescriptionLoader;

impl AssetLoader for SheetDescriptionLoader {
    type Asset = SheetDescriptionAsset;
    type Settings = ();
    type Error = SheetError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        _settings: &(),
        load_context: &mut LoadContext<'_>,
    ) -> Result<SheetDescriptionAsset, SheetError> {
        let file = load_context.path().to_string();
        let mut bytes = Vec::new();
        reader
            .read_to_end(&mut bytes)
            .await
            .map_err(|err| SheetError::Garbled {
                file: file.clone(),
                reason: err.to_string(),
            })?;
        sheet_description_from_bytes(&bytes, &file).map(SheetDescriptionAsset)
    }

    fn extensions(&self) -> &[&str] {
        &["sheet.ron"]
    }
}

// ---------------------------------------------------------------------------------------
// Components and resources

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Facing {
    #[default]
    Right,
    Left,
}

/// The walking character.
#[derive(Component, Debug, Clone, Copy, Default, PartialEq)]
pub struct Larry {
    pub facing: Facing,
    pub walking: bool,
    /// Seconds spent walking, wrapped to one cycle; 0 while standing.
    pub clock: f32,
}

impl Larry {
    /// Faces and animates him for `dt` seconds of `movement` (the way he is asked to go,
    /// any length): walking while it is not zero, facing its horizontal side, and the
    /// sprite showing the walk cycle's frame for the clock.
    pub fn animate(&mut self, movement: Vec2, dt: f32, sheet: &LarrySheet, sprite: &mut Sprite) {
        self.walking = movement.length_squared() > 1e-6;
        if movement.x > 0.0 {
            self.facing = Facing::Right;
        } else if movement.x < 0.0 {
            self.facing = Facing::Left;
        }
        let per_direction = sheet.frames_per_direction();
        self.clock = if self.walking {
            (self.clock + dt).rem_euclid(per_direction as f32 / ANIMATION_FPS)
        } else {
            0.0
        };
        let frame = walk_frame(self.facing, self.clock, per_direction);
        if let Some(atlas) = sprite.texture_atlas.as_mut()
            && atlas.index != frame
        {
            atlas.index = frame;
        }
    }
}

/// How far Larry's sheet has got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SheetState {
    /// Waiting for the image or its description.
    Loading,
    /// Animated from the sheet.
    Ready(SheetGrid),
    /// Broken (reported): Larry is the placeholder, one frame.
    Failed,
}

/// Larry's sheet and its description. The collision plugin masks the frame on screen.
#[derive(Component, Debug, Clone)]
pub struct LarrySheet {
    pub image: Handle<Image>,
    pub description: Handle<SheetDescriptionAsset>,
    pub state: SheetState,
}

impl LarrySheet {
    /// Frames in each walking direction (frames 0.. face right, the second half left).
    pub fn frames_per_direction(&self) -> usize {
        match self.state {
            SheetState::Ready(grid) => (grid.count as usize / 2).max(1),
            SheetState::Loading | SheetState::Failed => 1,
        }
    }
}

/// A clover, and how it touched Larry this frame.
#[derive(Component, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Clover {
    pub boxes: bool,
    pub pixels: bool,
}

/// The overlay's choice; kept across visits to the scene.
#[derive(Resource, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LarrySettings {
    /// Collect a clover when the boxes overlap, as a box-only game would, instead of when
    /// pixels do.
    pub collect_on_boxes: bool,
}

/// The score and this frame's overlaps.
#[derive(Resource, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CloverScore {
    pub score: u32,
    pub box_overlaps: u32,
    pub pixel_overlaps: u32,
}

/// Seeded clover positions: the same layout every run.
#[derive(Resource, Debug, Clone, Copy, Deref, DerefMut)]
struct CloverRng(SplitMix64);

// ---------------------------------------------------------------------------------------
// Plugins

pub(crate) fn plugin(app: &mut App) {
    // The renderer's sprite plugin adds atlases in the game; headless tests need them too.
    if !app.is_plugin_added::<TextureAtlasPlugin>() {
        app.add_plugins(TextureAtlasPlugin);
    }
    app.init_asset::<SheetDescriptionAsset>()
        .register_asset_loader(SheetDescriptionLoader)
        .init_resource::<LarrySettings>()
        .init_resource::<CloverScore>()
        .insert_resource(CloverRng(SplitMix64(CLOVER_SEED)))
        .add_systems(OnEnter(GameScene::Larry), spawn_scene)
        // The sheet in any scene Larry appears in (the terrain's too); walking by the
        // player's keys only here.
        .add_systems(
            Update,
            (prepare_sheet, walk.run_if(in_state(GameScene::Larry)))
                .chain()
                .in_set(AppSystems::Update),
        )
        .add_systems(
            Update,
            autoplay
                .in_set(AutoplaySystems)
                .run_if(in_state(GameScene::Larry)),
        )
        // After the collision plugin's pass, which runs once transforms are propagated.
        .add_systems(
            PostUpdate,
            (collect_clovers, write_status)
                .chain()
                .after(PixelCollisionSystems::Events)
                .run_if(in_state(GameScene::Larry)),
        );
}

/// The scene's overlay window (egui): added only with a window, never in headless tests.
pub(crate) fn overlay_plugin(app: &mut App) {
    app.add_systems(
        EguiPrimaryContextPass,
        larry_window.run_if(in_state(GameScene::Larry).and_then(overlay_shown)),
    )
    .add_systems(
        PostUpdate,
        draw_hitboxes
            .after(TransformSystems::Propagate)
            .after(VisibilitySystems::MarkNewlyHiddenEntitiesInvisible)
            .run_if(in_state(GameScene::Larry)),
    );
}

/// A seeded spot on screen, clear of the overlay and at least [`MIN_SPACING`] from every
/// point in `avoid`; on a screen too crowded for that, the candidate with the most room.
fn place_clover(rng: &mut CloverRng, screen: Vec2, avoid: &[Vec2]) -> Vec2 {
    let half = screen / 2.0;
    let low = -half + CLOVER_HALF + EDGE_MARGIN;
    let high = half - CLOVER_HALF - Vec2::new(RIGHT_BAND, TOP_BAND);
    // On a tiny window `low` passes `high`; lerping still lands on screen-ish, never panics.
    let room = |p: Vec2| {
        avoid
            .iter()
            .map(|a| a.distance(p))
            .fold(f32::INFINITY, f32::min)
    };
    let mut best = (f32::NEG_INFINITY, Vec2::ZERO);
    for _ in 0..64 {
        let p = low + (high - low) * Vec2::new(rng.next_f32(), rng.next_f32());
        let r = room(p);
        if r >= MIN_SPACING {
            return p;
        }
        if r > best.0 {
            best = (r, p);
        }
    }
    best.1
}

/// Larry at `at` (world px): his sheet, animated once it and its description have loaded
/// (by this module's sheet system, in any scene), color-keyed, and a collider of the frame
/// on screen.
pub fn larry_bundle(assets: &AssetServer, at: Vec2) -> impl Bundle {
    let image: Handle<Image> = assets.load(SHEET_PATH);
    (
        Name::new("Larry"),
        Sprite::from_image(image.clone()),
        // The plugin masks the atlas frame on screen. Off until the atlas is set, so the
        // whole sheet never collides; keyed in the mask as in the texture.
        PixelCollider {
            enabled: false,
            color_key: Some(COLOR_KEY),
            ..default()
        },
        // Hidden until the atlas is set, so the whole sheet never flashes on screen.
        Visibility::Hidden,
        Transform::from_translation(at.extend(2.0)),
        ColorKey,
        Larry::default(),
        LarrySheet {
            image,
            description: assets.load(sheet_description_path(SHEET_PATH)),
            state: SheetState::Loading,
        },
    )
}

fn spawn_scene(
    mut commands: Commands,
    assets: Res<AssetServer>,
    area: Res<PlayArea>,
    mut score: ResMut<CloverScore>,
    mut rng: ResMut<CloverRng>,
) {
    *score = CloverScore::default();
    *rng = CloverRng(SplitMix64(CLOVER_SEED));
    commands.spawn((
        larry_bundle(&assets, LARRY_START),
        DespawnOnExit(GameScene::Larry),
    ));
    let screen = area.size();
    let clover: Handle<Image> = assets.load(CLOVER_PATH);
    let mut placed = vec![LARRY_START];
    for i in 0..CLOVER_COUNT {
        let at = place_clover(&mut rng, screen, &placed);
        placed.push(at);
        commands.spawn((
            Name::new(format!("Clover {i}")),
            Sprite::from_image(clover.clone()),
            Transform::from_translation(at.extend(1.0)),
            PixelCollider::default(),
            Clover::default(),
            DespawnOnExit(GameScene::Larry),
        ));
    }
}

/// Once the sheet and its description have loaded: checks one against the other, sets the
/// atlas, and cuts the frame masks (again whenever the sheet's mask is rebuilt).
fn prepare_sheet(
    asset_server: Res<AssetServer>,
    images: Res<Assets<Image>>,
    descriptions: Res<Assets<SheetDescriptionAsset>>,
    mut layouts: ResMut<Assets<TextureAtlasLayout>>,
    mut masks: ResMut<PixelMasks>,
    mut larry: Query<(
        &mut Sprite,
        &mut LarrySheet,
        &mut Visibility,
        &mut PixelCollider,
    )>,
) {
    for (mut sprite, mut sheet, mut visibility, mut collider) in &mut larry {
        if sheet.state == SheetState::Loading {
            let description_file = sheet_description_path(SHEET_PATH);
            // Some(Err(None)): broken and already reported (by the mask loader).
            let outcome: Option<Result<SheetGrid, Option<String>>> =
                if sprite.image.id() != sheet.image.id() {
                    Some(Err(None))
                } else if let Some(description) = descriptions.get(&sheet.description) {
                    images.get(&sheet.image).map(|image| {
                        description
                            .grid(
                                image.size(),
                                &format!("{SHEET_PATH} (with {description_file})"),
                            )
                            .and_then(|grid| {
                                if grid.count.is_multiple_of(2) {
                                    Ok(grid)
                                } else {
                                    Err(SheetError::NotTwoWay {
                                        file: description_file.clone(),
                                        count: grid.count,
                                    })
                                }
                            })
                            .map_err(|err| Some(err.to_string()))
                    })
                } else if let LoadState::Failed(err) = asset_server.load_state(&sheet.description) {
                    Some(Err(Some(load_failure(&err, &description_file))))
                } else {
                    None
                };
            match outcome {
                None => {}
                Some(Ok(grid)) => {
                    sprite.texture_atlas = Some(TextureAtlas {
                        layout: layouts.add(atlas_layout(&grid)),
                        index: 0,
                    });
                    sheet.state = SheetState::Ready(grid);
                    *visibility = Visibility::Inherited;
                    collider.enabled = true;
                }
                Some(Err(message)) => {
                    if let Some(message) = message {
                        masks.report(format!("{message}; Larry is shown as a placeholder"));
                    }
                    sprite.image = masks.placeholder().clone();
                    sprite.texture_atlas = None;
                    sheet.state = SheetState::Failed;
                    *visibility = Visibility::Inherited;
                    collider.enabled = true;
                }
            }
        }
    }
}

/// A failed description load for the screen. The loader's own [`SheetError`] already
/// names the file and says what is wrong; Bevy's wrapping of it adds the loader's type
/// name and, with `RUST_BACKTRACE` set, a backtrace: neither belongs on screen.
fn load_failure(err: &AssetLoadError, file: &str) -> String {
    if let AssetLoadError::AssetLoaderError(loader) = err
        && let Some(sheet) = loader.error().downcast_ref::<SheetError>()
    {
        return sheet.to_string();
    }
    format!("could not load {file}: {err}")
}

/// The sheet frame for a facing and a walking clock: frames `0..n` face right, `n..2n`
/// left; the clock advances them at [`ANIMATION_FPS`], and a clock of 0 is standing.
pub fn walk_frame(facing: Facing, clock: f32, per_direction: usize) -> usize {
    let per_direction = per_direction.max(1);
    let base = match facing {
        Facing::Right => 0,
        Facing::Left => per_direction,
    };
    // A NaN or negative clock is standing; `as` saturates, so huge clocks cannot overflow.
    let step = (clock * ANIMATION_FPS).max(0.0) as usize;
    base + step % per_direction
}

fn walk(
    time: Res<Time>,
    controls: Res<Controls>,
    area: Res<PlayArea>,
    mut larry: Query<(
        &mut Larry,
        &LarrySheet,
        &PixelColliderMask,
        &mut Sprite,
        &mut Transform,
    )>,
) {
    let dt = time.delta_secs();
    let dt = if dt.is_finite() { dt.max(0.0) } else { 0.0 };
    let movement = controls.move_primary;
    let movement = if movement.is_finite() {
        movement.clamp_length_max(1.0)
    } else {
        Vec2::ZERO
    };
    for (mut larry, sheet, collider, mut sprite, mut transform) in &mut larry {
        larry.animate(movement, dt, sheet, &mut sprite);
        // The frame on screen, as the plugin masked it (the placeholder's when broken).
        let size = collider.mask.as_ref().map_or(LARRY_SIZE, |m| {
            Vec2::new(m.width() as f32, m.height() as f32)
        }) * transform.scale.truncate().abs();
        // Centered on a window smaller than Larry.
        let position = area.keep_inside(
            transform.translation.truncate() + movement * WALK_SPEED * dt,
            size / 2.0,
        );
        transform.translation.x = position.x;
        transform.translation.y = position.y;
    }
}

/// The sheet frame a sprite shows: its atlas index, or 0 without an atlas.
fn frame_on_screen(sprite: &Sprite) -> usize {
    sprite.texture_atlas.as_ref().map_or(0, |atlas| atlas.index)
}

/// Every clover against the frame Larry shows: the box test on their rectangles, and the
/// collision plugin's pixel verdict; collected clovers score and move to a new seeded spot.
fn collect_clovers(
    collisions: PixelCollisions,
    settings: Res<LarrySettings>,
    area: Res<PlayArea>,
    larry: Query<(Entity, &PixelColliderMask, &Transform), With<Larry>>,
    mut clovers: Query<(Entity, &PixelColliderMask, &mut Transform, &mut Clover), Without<Larry>>,
    // Paired to stay within clippy's argument limit: the two change together on a pickup.
    (mut rng, mut score): (ResMut<CloverRng>, ResMut<CloverScore>),
    mut stats: ResMut<CollisionStats>,
    mut activity: ResMut<SceneActivity>,
) {
    let Some((larry_entity, larry_mask, larry_transform)) = larry.iter().next() else {
        return;
    };
    // The tutorial's box test is on whole rectangles: the frame's, the clover's.
    let Some(larry_box) = larry_mask.world_rect() else {
        // Still loading: nothing touches yet.
        for (_, _, _, mut clover) in &mut clovers {
            *clover = Clover::default();
        }
        return;
    };
    let larry_at = larry_transform.translation.truncate();
    let screen = area.size();
    let mut occupied: Vec<Vec2> = clovers
        .iter()
        .map(|(_, _, t, _)| t.translation.truncate())
        .collect();
    let (mut box_overlaps, mut pixel_overlaps) = (0, 0);
    for (index, (entity, mask, mut transform, mut clover)) in clovers.iter_mut().enumerate() {
        let Some(clover_box) = mask.world_rect() else {
            *clover = Clover::default();
            continue;
        };
        let boxes = larry_box.intersects(&clover_box);
        let pixels = boxes && collisions.touching(larry_entity, entity);
        box_overlaps += u32::from(boxes);
        pixel_overlaps += u32::from(pixels);
        *clover = Clover { boxes, pixels };
        let collect = if settings.collect_on_boxes {
            boxes
        } else {
            pixels
        };
        if !collect {
            continue;
        }
        score.score += 1;
        activity.events += 1;
        let mut avoid = vec![larry_at];
        avoid.extend(
            occupied
                .iter()
                .enumerate()
                .filter(|&(i, _)| i != index)
                .map(|(_, p)| *p),
        );
        let at = place_clover(&mut rng, screen, &avoid);
        occupied[index] = at;
        transform.translation.x = at.x;
        transform.translation.y = at.y;
        // Moved away: it no longer touches.
        *clover = Clover::default();
    }
    score.box_overlaps = box_overlaps;
    score.pixel_overlaps = pixel_overlaps;
    let pass = collisions.stats();
    *stats = CollisionStats {
        broad_pairs: box_overlaps,
        pixel_tests: pass.box_pairs as u32,
        contacts: pixel_overlaps,
        micros: pass.broad_micros + pass.narrow_micros,
    };
}

fn write_status(
    score: Res<CloverScore>,
    settings: Res<LarrySettings>,
    mut status: ResMut<StatusLine>,
) {
    status.0 = format!(
        "Score: {} · collecting on {} · touching: {} boxes, {} pixels",
        score.score,
        if settings.collect_on_boxes {
            "boxes"
        } else {
            "pixels"
        },
        score.box_overlaps,
        score.pixel_overlaps
    );
}

// ---------------------------------------------------------------------------------------
// Overlay

fn larry_window(
    mut contexts: EguiContexts,
    mut settings: ResMut<LarrySettings>,
    score: Res<CloverScore>,
    larry: Query<(&Larry, &Sprite)>,
) -> Result {
    let ctx = contexts.ctx_mut()?;
    // Top left: the status line is centered, the main panel is top right and loading
    // problems appear bottom center. Anchored, so it stays there through any resize.
    egui::Window::new("Larry")
        .anchor(egui::Align2::LEFT_TOP, [8.0, 8.0])
        .default_width(230.0)
        .resizable(false)
        .show(ctx, |ui| {
            ui.checkbox(&mut settings.collect_on_boxes, "Collect on box overlap")
                .on_hover_text("Off: clovers are collected only when pixels touch");
            egui::Grid::new("larry_live").num_columns(2).show(ui, |ui| {
                let frame = larry.iter().next().map_or_else(
                    || "-".to_owned(),
                    |(larry, sprite)| {
                        format!(
                            "{} ({}, {})",
                            frame_on_screen(sprite),
                            if larry.facing == Facing::Right {
                                "right"
                            } else {
                                "left"
                            },
                            if larry.walking { "walking" } else { "standing" }
                        )
                    },
                );
                for (name, value) in [
                    ("Score", score.score.to_string()),
                    ("Box overlaps", score.box_overlaps.to_string()),
                    ("Pixel overlaps", score.pixel_overlaps.to_string()),
                    ("Frame on screen", frame),
                ] {
                    ui.label(name);
                    ui.monospace(value);
                    ui.end_row();
                }
            });
        });
    Ok(())
}

/// Larry's frame box (red while any clover's box overlaps it) and outline, and a red ring
/// around each clover whose box overlaps his. A clover he touches is collected at once, so
/// a lasting ring is a box-only overlap: what a box test would have collected. The
/// plugin's debug drawing adds every collider's own box.
fn draw_hitboxes(
    settings: Res<PixelDebugSettings>,
    larry: Query<(&PixelColliderMask, &ViewVisibility), With<Larry>>,
    clovers: Query<(&PixelColliderMask, &Clover)>,
    mut gizmos: Gizmos<PixelDebugGizmos>,
) {
    // The debug drawing's palette, so Larry's boxes read like every other collider's.
    let palette = *gizmos.config_ext;
    if settings.aabb {
        for (collider, clover) in &clovers {
            let Some(aabb) = collider.world_rect().filter(|_| clover.boxes) else {
                continue;
            };
            gizmos.rect_2d(
                aabb.center(),
                aabb.max - aabb.min + Vec2::splat(6.0),
                palette.touching_color,
            );
        }
    }
    let touching = clovers.iter().any(|(_, c)| c.boxes);
    for (collider, visible) in &larry {
        let Some((frame, to_world)) = collider.placed() else {
            continue;
        };
        if !visible.get() {
            continue;
        }
        if settings.aabb
            && let Some(aabb) = collider.world_rect()
        {
            let color = if touching {
                palette.touching_color
            } else {
                palette.aabb_color
            };
            gizmos.rect_2d(aabb.center(), aabb.max - aabb.min, color);
        }
        if settings.outline {
            draw_outline(&mut gizmos, frame, to_world, palette.outline_color);
        }
    }
}

/// `--autoplay`: Larry walks to the nearest clover.
fn autoplay(
    larry: Query<&GlobalTransform, With<Larry>>,
    clovers: Query<&GlobalTransform, With<Clover>>,
    mut controls: ResMut<Controls>,
) {
    let Ok(larry) = larry.single().map(|l| l.translation().truncate()) else {
        return;
    };
    let nearest = clovers
        .iter()
        .map(|c| c.translation().truncate())
        .min_by(|a, b| {
            a.distance_squared(larry)
                .total_cmp(&b.distance_squared(larry))
        });
    if let Some(clover) = nearest {
        controls.move_primary = (clover - larry).normalize_or_zero();
    }
}
