//! The Larry scene, headless: the color key, the sheet description, the mask of the frame
//! on screen, walking, and collecting clovers by pixels (or boxes).

use std::path::{Path, PathBuf};
use std::time::Duration;

use bevy::asset::RenderAssetUsages;
use bevy::prelude::*;
use bevy::render::render_resource::{Extent3d, TextureDimension, TextureFormat};
use bevy_pixel_collide::{PixelColliderMask, PixelCollisionSystems, PixelMasks};
use pixel_collide::{BitMask, sprite_to_world, transformed_intersects};
use pixel_collide_game::headless::{headless_app, run_until};
use pixel_collide_game::masks::apply_color_key;
use pixel_collide_game::play_area::FALLBACK_SIZE;
use pixel_collide_game::scenes::larry::{
    ANIMATION_FPS, CLOVER_COUNT, Clover, CloverScore, Facing, Larry, LarrySettings, LarrySheet,
    MAX_SHEET_FRAMES, MIN_SPACING, SHEET_PATH, SheetDescription, SheetError, SheetState,
    WALK_SPEED, parse_sheet_description, sheet_description_path, walk_frame,
};
use pixel_collide_game::{GameScene, StatusLine};

const DT: f32 = 1.0 / 60.0;

fn assets() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("assets")
}

fn app_with_assets(dir: &Path) -> App {
    headless_app(
        GameScene::Larry,
        &dir.to_string_lossy(),
        Duration::from_secs_f32(DT),
    )
}

fn app() -> App {
    app_with_assets(&assets())
}

fn sheet_state(app: &mut App) -> Option<SheetState> {
    let world = app.world_mut();
    world
        .query::<&LarrySheet>()
        .iter(world)
        .next()
        .map(|s| s.state)
}

/// Runs frames until the sheet is settled (ready or failed), Larry has the mask of his
/// frame on screen and every clover its mask (loading is asynchronous).
fn wait_until_settled(app: &mut App) -> SheetState {
    run_until(app, "Larry's sheet and every mask", |app| {
        let world = app.world_mut();
        let frames_ready = world
            .query::<&LarrySheet>()
            .iter(world)
            .any(|s| s.state != SheetState::Loading);
        // The collision plugin's masks: every clover's, and Larry's frame.
        let masked: Vec<bool> = world
            .query_filtered::<&PixelColliderMask, Or<(With<Clover>, With<Larry>)>>()
            .iter(world)
            .map(|c| c.mask.is_some())
            .collect();
        frames_ready && masked.len() == CLOVER_COUNT + 1 && masked.iter().all(|&m| m)
    });
    sheet_state(app).unwrap()
}

/// The sheet as the game sees it: decoded, color-keyed, masked at threshold 0.
fn keyed_sheet_mask() -> BitMask {
    let mut rgba = image::open(assets().join(SHEET_PATH)).unwrap().to_rgba8();
    for px in rgba.pixels_mut() {
        if px.0[..3] == [255, 0, 255] {
            px.0 = [0; 4];
        }
    }
    BitMask::from_image(&rgba, 0)
}

/// The sheet's eight 48×64 frames, cut by hand.
fn sheet_columns(sheet: &BitMask) -> Vec<BitMask> {
    (0..8)
        .map(|index| {
            let mut frame = BitMask::new(48, 64);
            for y in 0..64 {
                for x in 0..48 {
                    frame.set(x, y, sheet.get(index * 48 + x, y));
                }
            }
            frame
        })
        .collect()
}

fn larry(app: &mut App) -> (Larry, Transform, Option<usize>) {
    let world = app.world_mut();
    let (l, t, s) = world
        .query::<(&Larry, &Transform, &Sprite)>()
        .single(world)
        .unwrap();
    (*l, *t, s.texture_atlas.as_ref().map(|a| a.index))
}

fn set_larry(app: &mut App, position: Vec2, facing: Facing) {
    let world = app.world_mut();
    let (mut l, mut t) = world
        .query::<(&mut Larry, &mut Transform)>()
        .single_mut(world)
        .unwrap();
    l.facing = facing;
    t.translation.x = position.x;
    t.translation.y = position.y;
}

fn clovers(app: &mut App) -> Vec<(Entity, Vec2)> {
    let world = app.world_mut();
    world
        .query_filtered::<(Entity, &Transform), With<Clover>>()
        .iter(world)
        .map(|(e, t)| (e, t.translation.truncate()))
        .collect()
}

/// Moves every clover except `keep` (which goes to `at`) off screen, where Larry, kept on
/// screen, cannot reach them.
fn isolate_clover(app: &mut App, keep: Entity, at: Vec2) {
    let world = app.world_mut();
    for (i, (e, mut t)) in world
        .query_filtered::<(Entity, &mut Transform), With<Clover>>()
        .iter_mut(world)
        .enumerate()
    {
        let p = if e == keep {
            at
        } else {
            Vec2::new(120.0 * i as f32, -2000.0)
        };
        t.translation.x = p.x;
        t.translation.y = p.y;
    }
}

fn score(app: &App) -> u32 {
    app.world().resource::<CloverScore>().score
}

fn hold(app: &mut App, key: KeyCode, frames: u32, mut each: impl FnMut(&mut App)) {
    app.world_mut()
        .resource_mut::<ButtonInput<KeyCode>>()
        .press(key);
    for _ in 0..frames {
        app.update();
        each(app);
    }
    app.world_mut()
        .resource_mut::<ButtonInput<KeyCode>>()
        .release(key);
    app.update();
}

// ---------------------------------------------------------------------------------------

#[test]
fn color_key_clears_magenta_in_texture_and_mask_only() {
    let pixels: [[u8; 4]; 4] = [
        [255, 0, 255, 255], // the key: goes
        [254, 0, 255, 255], // nearly magenta: stays
        [10, 200, 30, 128], // half transparent green: stays
        [255, 0, 255, 0],   // already transparent magenta: keyed too (no change to the mask)
    ];
    let mut image = Image::new(
        Extent3d {
            width: 2,
            height: 2,
            depth_or_array_layers: 1,
        },
        TextureDimension::D2,
        pixels.concat(),
        TextureFormat::Rgba8UnormSrgb,
        RenderAssetUsages::default(),
    );
    assert_eq!(apply_color_key(&mut image), Ok(2));
    let data = image.data.as_deref().unwrap();
    assert_eq!(data[3], 0, "magenta becomes alpha 0 in the texture");
    assert_eq!(&data[4..12], &pixels[1..3].concat()[..], "others untouched");
    let data = image.data.as_deref().unwrap();
    let mask = BitMask::from_rgba8(2, 2, data, 0).unwrap();
    assert_eq!(
        [
            mask.get(0, 0),
            mask.get(1, 0),
            mask.get(0, 1),
            mask.get(1, 1)
        ],
        [false, true, true, false]
    );
    // Keyed pixels are transparent black, so keying again finds nothing and changes nothing.
    assert_eq!(apply_color_key(&mut image), Ok(0));
    let data = image.data.as_deref().unwrap();
    assert_eq!(BitMask::from_rgba8(2, 2, data, 0).unwrap(), mask);
}

#[test]
fn color_key_of_unsupported_format_is_an_error_not_a_panic() {
    let mut image = Image::new(
        Extent3d {
            width: 1,
            height: 1,
            depth_or_array_layers: 1,
        },
        TextureDimension::D2,
        vec![0; 8],
        TextureFormat::Rg32Float,
        RenderAssetUsages::default(),
    );
    assert!(
        apply_color_key(&mut image)
            .unwrap_err()
            .contains("Rg32Float")
    );
}

#[test]
fn the_loaded_sheet_is_keyed_in_its_texture_and_its_mask() {
    let mut app = app();
    assert!(matches!(wait_until_settled(&mut app), SheetState::Ready(_)));
    let world = app.world_mut();
    let (sprite, sheet) = world
        .query::<(&Sprite, &LarrySheet)>()
        .single(world)
        .unwrap();
    assert_eq!(sprite.image.id(), sheet.image.id());
    let id = sprite.image.id();
    // The texture the renderer gets: the corner is background, now transparent.
    let image = world.resource::<Assets<Image>>().get(id).unwrap();
    assert_eq!(&image.data.as_deref().unwrap()[..4], &[0, 0, 0, 0]);
    // The texture's pixels, as the renderer gets them, make the keyed sheet's mask.
    let keyed = BitMask::from_rgba8(384, 64, image.data.as_deref().unwrap(), 0).unwrap();
    assert_eq!(keyed, keyed_sheet_mask());
    let total = 384 * 64;
    let solid = keyed.count();
    // Larry covers a minority of the sheet: the background is not in the mask.
    assert!(solid > 1000 && solid < total / 2, "{solid} of {total}");
    assert!(world.resource::<PixelMasks>().problems().is_empty());
}

#[test]
fn sheet_description_parses_strictly() {
    let file = "larry_sheet.sheet.ron";
    assert_eq!(sheet_description_path("larry_sheet.png"), file);
    let expected = SheetDescription {
        frame_width: 48,
        frame_height: 64,
        frame_count: 8,
    };
    let text = std::fs::read_to_string(assets().join(file)).unwrap();
    assert_eq!(parse_sheet_description(&text, file), Ok(expected));
    // Real RON: comments, whitespace, any field order.
    let spaced = "// Larry\n(\n  frame_count: 8,\n  frame_height: 64,\n  frame_width: 48,\n)\n";
    assert_eq!(parse_sheet_description(spaced, file), Ok(expected));

    for bad in [
        "hello",
        "",
        "(frame_width: 48, frame_height: 64)",
        "(frame_width: 48, frame_height: 64, frame_count: 8, speed: 3)",
        "(frame_width: -48, frame_height: 64, frame_count: 8)",
        "(frame_width: 0, frame_height: 64, frame_count: 8)",
    ] {
        let err = parse_sheet_description(bad, file).unwrap_err();
        assert!(err.to_string().contains(file), "{bad:?}: {err}");
    }
    assert!(matches!(
        parse_sheet_description("hello", file),
        Err(SheetError::Garbled { .. })
    ));
}

#[test]
fn sheet_size_must_be_whole_frames() {
    let file = "larry_sheet.png";
    let sheet = UVec2::new(384, 64);
    let d = |w, h, n| SheetDescription {
        frame_width: w,
        frame_height: h,
        frame_count: n,
    };
    let grid = d(48, 64, 8).grid(sheet, file).unwrap();
    assert_eq!((grid.columns, grid.rows, grid.count), (8, 1, 8));
    assert_eq!(grid.origin(5), UVec2::new(240, 0));

    let err = d(50, 64, 7).grid(sheet, file).unwrap_err();
    assert_eq!(
        err,
        SheetError::NotWholeFrames {
            file: file.into(),
            sheet,
            frame: UVec2::new(50, 64)
        }
    );
    let message = err.to_string();
    assert!(
        message.contains(file) && message.contains("384×64") && message.contains("50×64"),
        "{message}"
    );
    let err = d(48, 60, 8).grid(sheet, file).unwrap_err();
    assert!(matches!(err, SheetError::NotWholeFrames { .. }), "{err}");
    let err = d(48, 64, 9).grid(sheet, file).unwrap_err();
    assert!(err.to_string().contains(file), "{err}");
    assert!(matches!(err, SheetError::TooManyFrames { fits: 8, .. }));
    // A two-row sheet reads left to right, then down.
    let grid = d(48, 32, 16).grid(sheet, file).unwrap();
    assert_eq!(grid.origin(9), UVec2::new(48, 32));
}

/// One-pixel frames on a 4,096² sheet would be 16.7 million masks: refused, naming the
/// file, before any is cut; any count past the limit is, whatever the frame size.
#[test]
fn absurd_frame_counts_are_refused_naming_the_file() {
    let file = "huge.png";
    for (frame, count) in [(1, 4_096 * 4_096), (1, MAX_SHEET_FRAMES + 1), (2, u32::MAX)] {
        let err = SheetDescription {
            frame_width: frame,
            frame_height: frame,
            frame_count: count,
        }
        .grid(UVec2::new(4_096, 4_096), file)
        .unwrap_err();
        assert_eq!(
            err,
            SheetError::OverFrameLimit {
                file: file.into(),
                count
            }
        );
        assert!(err.to_string().contains(file));
    }
    let at_limit = SheetDescription {
        frame_width: 4,
        frame_height: 4,
        frame_count: MAX_SHEET_FRAMES,
    };
    assert!(at_limit.grid(UVec2::new(4_096, 4_096), file).is_ok());
}

/// The sheet frame a test shows, whatever Larry's walk would show.
#[derive(Resource)]
struct ShowFrame(usize);

fn show_frame(frame: Res<ShowFrame>, mut sprites: Query<&mut Sprite, With<Larry>>) {
    for mut sprite in &mut sprites {
        if let Some(atlas) = sprite.texture_atlas.as_mut() {
            atlas.index = frame.0;
        }
    }
}

/// The plugin masks the atlas frame on screen: for each of the sheet's frames, Larry's
/// mask is that column of the keyed sheet, pixel for pixel.
#[test]
fn the_frame_on_screen_is_masked_as_its_sheet_column() {
    let mut app = app();
    assert!(matches!(wait_until_settled(&mut app), SheetState::Ready(_)));
    // After Larry's walk has set the frame, before the plugin masks it.
    app.insert_resource(ShowFrame(0))
        .add_systems(PostUpdate, show_frame.before(PixelCollisionSystems::Masks));
    let sheet = keyed_sheet_mask();
    let mut frames = Vec::new();
    for index in 0..8 {
        app.world_mut().resource_mut::<ShowFrame>().0 = index;
        app.update();
        let world = app.world_mut();
        let collider = world
            .query_filtered::<&PixelColliderMask, With<Larry>>()
            .single(world)
            .unwrap();
        let frame = collider.mask.clone().unwrap();
        assert_eq!(frame.size(), (48, 64));
        for y in 0..64 {
            for x in 0..48 {
                assert_eq!(
                    frame.get(x, y),
                    sheet.get(index as i64 * 48 + x, y),
                    "frame {index} pixel ({x}, {y})"
                );
            }
        }
        assert!(frame.count() > 300, "frame {index} has Larry in it");
        frames.push(frame);
    }
    assert_eq!(frames.iter().map(|f| f.count()).sum::<u64>(), sheet.count());
    // Walking frames differ (legs move), and left-facing frames are not the right ones.
    assert_ne!(frames[0], frames[1]);
    assert_ne!(frames[0], frames[4]);
}

#[test]
fn walking_moves_animates_and_stays_on_screen() {
    let mut app = app();
    wait_until_settled(&mut app);
    let (l0, t0, index0) = larry(&mut app);
    assert_eq!(
        (l0.facing, l0.walking, index0),
        (Facing::Right, false, Some(0))
    );

    let mut seen = Vec::new();
    hold(&mut app, KeyCode::KeyD, 30, |app| {
        seen.push(larry(app).2.unwrap());
    });
    let (l1, t1, index1) = larry(&mut app);
    let moved = t1.translation.x - t0.translation.x;
    assert!(
        (moved - WALK_SPEED * 0.5).abs() < WALK_SPEED * DT * 1.5,
        "moved {moved}"
    );
    // 30 frames at 60 fps is half a second: four frames at 8 per second, one step
    // each 7.5 display frames.
    assert_eq!(ANIMATION_FPS, 8.0);
    assert!(seen.iter().all(|&i| i < 4), "{seen:?}");
    for frame in 0..4 {
        let shown = seen.iter().filter(|&&i| i == frame).count();
        assert!(
            (7..=8).contains(&shown),
            "frame {frame} shown {shown}: {seen:?}"
        );
    }
    assert_eq!(
        (l1.facing, l1.walking, index1),
        (Facing::Right, false, Some(0))
    );

    seen.clear();
    hold(&mut app, KeyCode::KeyA, 20, |app| {
        seen.push(larry(app).2.unwrap());
    });
    assert!(seen.iter().all(|&i| (4..8).contains(&i)), "{seen:?}");
    assert!(seen.contains(&5) && seen.contains(&6), "{seen:?}");
    // Standing: frame 0 of the left-facing half.
    assert_eq!(larry(&mut app).2, Some(4));
    assert_eq!(larry(&mut app).0.facing, Facing::Left);

    // Walking up keeps the facing; and no window means a 1280×720 screen.
    hold(&mut app, KeyCode::KeyW, 300, |_| {});
    let (l, t, _) = larry(&mut app);
    assert_eq!(l.facing, Facing::Left);
    assert_eq!(t.translation.y, FALLBACK_SIZE.y / 2.0 - 32.0, "top edge");
    hold(&mut app, KeyCode::KeyA, 400, |_| {});
    assert_eq!(
        larry(&mut app).1.translation.x,
        -FALLBACK_SIZE.x / 2.0 + 24.0,
        "left edge"
    );
}

#[test]
fn walk_frame_is_frame_rate_independent() {
    // The same walking time gives the same frame, however it was sliced.
    assert_eq!(walk_frame(Facing::Right, 0.0, 4), 0);
    assert_eq!(walk_frame(Facing::Left, 0.0, 4), 4);
    assert_eq!(walk_frame(Facing::Right, 0.13, 4), 1);
    assert_eq!(walk_frame(Facing::Left, 0.38, 4), 7);
    assert_eq!(walk_frame(Facing::Right, 0.51, 4), 0);
    // Nonsense clocks stand rather than panic.
    assert_eq!(walk_frame(Facing::Left, f32::NAN, 4), 4);
    assert_eq!(walk_frame(Facing::Right, f32::INFINITY, 4), 3);
    assert_eq!(walk_frame(Facing::Right, 1.0, 0), 0);
}

#[test]
fn clovers_start_apart_and_clear_of_larry() {
    let mut app = app();
    wait_until_settled(&mut app);
    let positions: Vec<Vec2> = clovers(&mut app).into_iter().map(|(_, p)| p).collect();
    assert_eq!(positions.len(), CLOVER_COUNT);
    let larry_at = larry(&mut app).1.translation.truncate();
    for (i, p) in positions.iter().enumerate() {
        assert!(p.distance(larry_at) >= MIN_SPACING, "clover {i} at {p}");
        assert!(
            p.abs().cmple(FALLBACK_SIZE / 2.0 - 16.0).all(),
            "clover {i} at {p} is on screen"
        );
        // Clear of the overlay's title strip, scene window and main panel.
        assert!(
            p.x < FALLBACK_SIZE.x / 2.0 - 300.0 && p.y < FALLBACK_SIZE.y / 2.0 - 150.0,
            "clover {i} at {p} would hide under the overlay"
        );
        for q in &positions[..i] {
            assert!(p.distance(*q) >= MIN_SPACING, "{p} vs {q}");
        }
    }
    assert_eq!(score(&app), 0);
    // Seeded: a second run lays them out the same.
    let mut again = app_with_assets(&assets());
    wait_until_settled(&mut again);
    let mut a: Vec<[f32; 2]> = positions.iter().map(|p| p.to_array()).collect();
    let mut b: Vec<[f32; 2]> = clovers(&mut again)
        .into_iter()
        .map(|(_, p)| p.to_array())
        .collect();
    a.sort_by(|x, y| x.partial_cmp(y).unwrap());
    b.sort_by(|x, y| x.partial_cmp(y).unwrap());
    assert_eq!(a, b);
}

#[test]
fn touching_a_clover_scores_exactly_one_and_moves_it() {
    let mut app = app();
    wait_until_settled(&mut app);
    let (target, at) = clovers(&mut app)[3];
    // Walk there with the keys: Larry is at the origin, standing.
    let larry_at = larry(&mut app).1.translation.truncate();
    let (dx, dy) = (at.x - larry_at.x, at.y - larry_at.y);
    let walk_x = (dx.abs() / (WALK_SPEED * DT)).round() as u32;
    let walk_y = (dy.abs() / (WALK_SPEED * DT)).round() as u32;
    // Clear the path first, so only this clover can be met.
    isolate_clover(&mut app, target, at);
    hold(
        &mut app,
        if dx > 0.0 {
            KeyCode::KeyD
        } else {
            KeyCode::KeyA
        },
        walk_x,
        |_| {},
    );
    hold(
        &mut app,
        if dy > 0.0 {
            KeyCode::KeyW
        } else {
            KeyCode::KeyS
        },
        walk_y,
        |_| {},
    );
    assert_eq!(score(&app), 1, "Larry walked onto the clover");
    let moved_to = app
        .world()
        .get::<Transform>(target)
        .unwrap()
        .translation
        .truncate();
    let larry_now = larry(&mut app).1.translation.truncate();
    assert!(moved_to.distance(at) > 1.0, "the clover moved");
    assert!(
        moved_to.distance(larry_now) >= MIN_SPACING,
        "away from Larry: {moved_to} vs {larry_now}"
    );
    assert!(
        app.world()
            .resource::<StatusLine>()
            .0
            .starts_with("Score: 1 · ")
    );
    // Standing there scores nothing more.
    for _ in 0..30 {
        app.update();
    }
    assert_eq!(score(&app), 1);

    // Placed directly on it: exactly one more.
    set_larry(&mut app, moved_to, Facing::Right);
    app.update();
    assert_eq!(score(&app), 2);
    assert!(
        app.world()
            .resource::<StatusLine>()
            .0
            .starts_with("Score: 2 · ")
    );
}

/// A clover spot that frame `hit`'s pixels reach but frame `miss`'s do not, with both
/// frames' boxes overlapping the clover's.
fn spot_only_frame_reaches(
    frames: &[BitMask],
    hit: usize,
    miss: usize,
    clover: &BitMask,
    larry_at: Vec2,
) -> Option<Vec2> {
    let to_world = |at: Vec2, m: &BitMask| sprite_to_world(at, 0.0, Vec2::ONE, m.size());
    (-40..=40)
        .flat_map(|x| (-48..=48).map(move |y| larry_at + Vec2::new(x as f32, y as f32)))
        .find(|&p| {
            let c = to_world(p, clover);
            transformed_intersects(&frames[hit], to_world(larry_at, &frames[hit]), clover, c)
                && !transformed_intersects(
                    &frames[miss],
                    to_world(larry_at, &frames[miss]),
                    clover,
                    c,
                )
        })
}

#[test]
fn collision_uses_the_frame_on_screen() {
    let mut app = app();
    wait_until_settled(&mut app);
    let frames = sheet_columns(&keyed_sheet_mask());
    let clover = BitMask::from_image(
        &image::open(assets().join("clover.png")).unwrap().to_rgba8(),
        0,
    );
    let larry_at = Vec2::new(-100.0, -50.0);
    let (target, _) = clovers(&mut app)[0];

    // Standing facing right shows frame 0, facing left frame 4.
    for (hit, miss, facing_hit, facing_miss) in [
        (0, 4, Facing::Right, Facing::Left),
        (4, 0, Facing::Left, Facing::Right),
    ] {
        let spot = spot_only_frame_reaches(&frames, hit, miss, &clover, larry_at)
            .expect("the two facings differ somewhere");
        let before = score(&app);

        isolate_clover(&mut app, target, spot);
        set_larry(&mut app, larry_at, facing_miss);
        app.update();
        assert_eq!(larry(&mut app).2, Some(miss));
        let touch = *app.world().get::<Clover>(target).unwrap();
        assert!(touch.boxes && !touch.pixels, "frame {miss}: {touch:?}");
        assert_eq!(score(&app), before, "frame {miss} does not reach {spot}");

        set_larry(&mut app, larry_at, facing_hit);
        app.update();
        assert_eq!(larry(&mut app).2, Some(hit));
        assert_eq!(score(&app), before + 1, "frame {hit} reaches {spot}");
    }
}

#[test]
fn box_rule_collects_where_pixels_do_not_touch() {
    let mut app = app();
    wait_until_settled(&mut app);
    let (target, _) = clovers(&mut app)[0];
    let larry_at = Vec2::new(50.0, 0.0);
    // Just inside the corner of Larry's box: his frame 0 has no pixels there.
    let corner = larry_at + Vec2::new(24.0 + 14.0, 32.0 + 14.0);
    isolate_clover(&mut app, target, corner);
    set_larry(&mut app, larry_at, Facing::Right);
    app.update();
    let touch = *app.world().get::<Clover>(target).unwrap();
    assert!(touch.boxes && !touch.pixels, "{touch:?}");
    let scores = *app.world().resource::<CloverScore>();
    assert_eq!(
        (scores.score, scores.box_overlaps, scores.pixel_overlaps),
        (0, 1, 0)
    );

    app.world_mut()
        .resource_mut::<LarrySettings>()
        .collect_on_boxes = true;
    app.update();
    assert_eq!(score(&app), 1);
    assert!(
        app.world()
            .resource::<StatusLine>()
            .0
            .contains("collecting on boxes")
    );
}

// ---------------------------------------------------------------------------------------
// Broken sheets

/// An asset folder with the real sheet and clover, and `description` as the sheet's
/// `.sheet.ron` (none at all for `None`).
fn asset_dir_with(name: &str, description: Option<&str>) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("pixel_collide_larry_{name}_{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for file in [SHEET_PATH, "clover.png"] {
        std::fs::copy(assets().join(file), dir.join(file)).unwrap();
    }
    if let Some(text) = description {
        std::fs::write(dir.join(sheet_description_path(SHEET_PATH)), text).unwrap();
    }
    dir
}

fn broken_sheet_is_reported(name: &str, description: Option<&str>, expect: &str) {
    let dir = asset_dir_with(name, description);
    let mut app = app_with_assets(&dir);
    assert_eq!(wait_until_settled(&mut app), SheetState::Failed);
    let problems = app.world().resource::<PixelMasks>().problems().to_vec();
    assert!(
        problems
            .iter()
            .any(|p| p.contains("larry_sheet") && p.contains(expect)),
        "{problems:?}"
    );
    // One line each: no loader type names or backtraces on screen.
    assert!(problems.iter().all(|p| !p.contains('\n')), "{problems:?}");
    // Larry is the placeholder, one frame, and still walks and collects.
    let world = app.world_mut();
    let (sprite, sheet) = world
        .query::<(&Sprite, &LarrySheet)>()
        .single(world)
        .unwrap();
    assert_ne!(sprite.image.id(), sheet.image.id());
    assert!(sprite.texture_atlas.is_none());
    let collider = world
        .query_filtered::<&PixelColliderMask, With<Larry>>()
        .single(world)
        .unwrap();
    assert_eq!(collider.mask.as_ref().unwrap().size(), (64, 64));
    let (target, at) = clovers(&mut app)[0];
    isolate_clover(&mut app, target, at);
    set_larry(&mut app, at, Facing::Left);
    app.update();
    assert_eq!(score(&app), 1);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn sheet_not_whole_frames_is_reported_naming_the_file() {
    broken_sheet_is_reported(
        "width",
        Some("(frame_width: 50, frame_height: 64, frame_count: 7)"),
        "not a whole number of 50×64 frames",
    );
}

#[test]
fn garbled_description_is_reported_naming_the_file() {
    broken_sheet_is_reported(
        "garbled",
        Some("Larry is 48 pixels wide, trust me"),
        "larry_sheet.sheet.ron",
    );
}

#[test]
fn missing_description_is_reported_naming_the_file() {
    broken_sheet_is_reported("missing", None, "larry_sheet.sheet.ron");
}

#[test]
fn odd_frame_count_is_reported() {
    broken_sheet_is_reported(
        "odd",
        Some("(frame_width: 48, frame_height: 64, frame_count: 7)"),
        "right- and left-facing",
    );
}
