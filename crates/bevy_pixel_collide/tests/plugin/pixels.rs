//! Headless app tests of `PixelCollisionPlugin`: MinimalPlugins, images made in code, a
//! fixed frame time. Each sprite setting Bevy draws with (anchor, flips, custom size,
//! rect, atlas frame, a rotated and scaled parent) must put the mask where the pixels
//! are: the plugin's point query is checked against Bevy's own texel lookup
//! (`Sprite::compute_pixel_space_point`), and its verdicts and contacts against the core's
//! on transforms worked out by hand. Start and end must come exactly once per touch.

use bevy::app::{TaskPoolOptions, TaskPoolPlugin};
use bevy::asset::RenderAssetUsages;
use bevy::ecs::system::RunSystemOnce;
use bevy::image::{CompressedImageFormats, ImageLoader, ImagePlugin, TextureAtlasPlugin};
use bevy::math::Affine2;
use bevy::prelude::*;
use bevy::render::render_resource::{Extent3d, TextureDimension, TextureFormat};
use bevy::sprite::Anchor;
use bevy_pixel_collide::image_guard::PixelPngGuardPlugin;
use bevy_pixel_collide::prelude::*;
use pixel_collide::pair::tested_first;
use pixel_collide::{transformed_intersects, transformed_overlap};
use pixel_collide_support::rng::SplitMix64;

pub(super) fn app() -> App {
    app_with_assets(AssetPlugin::default())
}

fn app_with_assets(assets: AssetPlugin) -> App {
    app_with(assets, PixelCollisionPlugin::default())
}

/// A headless app with `plugin` set up as a game would.
pub(super) fn app_with(assets: AssetPlugin, plugin: PixelCollisionPlugin) -> App {
    app_with_more(assets, plugin, |_| {})
}

/// [`app_with`], with `more` adding plugins before the app is finished.
pub(super) fn app_with_more(
    assets: AssetPlugin,
    plugin: PixelCollisionPlugin,
    more: impl FnOnce(&mut App),
) -> App {
    app_on_pool(TaskPoolOptions::default(), assets, plugin, more)
}

/// [`app_with_more`] with Bevy's task pools made as `pool` says. They are made once per
/// process: the first app's options hold for every app after it.
pub(super) fn app_on_pool(
    pool: TaskPoolOptions,
    assets: AssetPlugin,
    plugin: PixelCollisionPlugin,
    more: impl FnOnce(&mut App),
) -> App {
    let mut app = App::new();
    // The guard with the plugin's limit, as `PixelCollisionPlugins` adds them.
    let guard = PixelPngGuardPlugin {
        max_pixels: plugin.max_image_pixels(),
    };
    app.add_plugins((
        MinimalPlugins.set(TaskPoolPlugin {
            task_pool_options: pool,
        }),
        assets,
        ImagePlugin::default(),
        TextureAtlasPlugin,
        TransformPlugin,
        plugin,
        guard,
    ))
    // With a window the renderer registers the PNG loader; without one, we do.
    .register_asset_loader(ImageLoader::new(CompressedImageFormats::NONE));
    more(&mut app);
    // What `App::run` does before the first frame: the plugin's image guard goes in here.
    app.finish();
    app.cleanup();
    app.update();
    app
}

/// An RGBA image whose pixel `(x, y)` is opaque where `solid(x, y)`.
pub(super) fn image(w: u32, h: u32, solid: impl Fn(u32, u32) -> bool) -> Image {
    let data = (0..w * h)
        .flat_map(|i| {
            let (x, y) = (i % w, i / w);
            if solid(x, y) {
                [200, 100, 50, 255]
            } else {
                [0, 0, 0, 0]
            }
        })
        .collect();
    image_of(TextureFormat::Rgba8UnormSrgb, w, h, data)
}

/// A 2D image of `format` from its bytes.
pub(super) fn image_of(format: TextureFormat, w: u32, h: u32, data: Vec<u8>) -> Image {
    Image::new(
        Extent3d {
            width: w,
            height: h,
            depth_or_array_layers: 1,
        },
        TextureDimension::D2,
        data,
        format,
        RenderAssetUsages::default(),
    )
}

/// A lopsided shape, so that every flip and turn gives a different mask in the world.
fn lopsided(x: u32, y: u32) -> bool {
    let (u, v) = (x as f32 - 12.0, y as f32 - 9.0);
    (u * u / 100.0 + v * v / 49.0 <= 1.0 && !(x > 14 && y < 6)) || (x < 4 && y > 14)
}

pub(super) fn add_image(app: &mut App, img: Image) -> Handle<Image> {
    app.world_mut().resource_mut::<Assets<Image>>().add(img)
}

pub(super) fn collisions<T: Send + 'static>(
    app: &mut App,
    f: impl Fn(PixelCollisions) -> T + Send + Sync + 'static,
) -> T {
    app.world_mut()
        .run_system_once(move |c: PixelCollisions| f(c))
        .expect("the query runs")
}

/// Every sprite setting: (name, sprite, anchor, the sprite's own transform, an optional
/// parent transform).
fn settings(
    app: &mut App,
    sheet: &Handle<Image>,
) -> Vec<(&'static str, Sprite, Anchor, Transform, Option<Transform>)> {
    let layout = app
        .world_mut()
        .resource_mut::<Assets<TextureAtlasLayout>>()
        .add(TextureAtlasLayout::from_grid(
            UVec2::new(24, 20),
            3,
            2,
            None,
            None,
        ));
    let plain = Sprite::from_image(sheet.clone());
    let at = Transform::from_xyz(7.0, -3.0, 0.0);
    vec![
        ("plain", plain.clone(), Anchor::CENTER, at, None),
        ("anchor", plain.clone(), Anchor::BOTTOM_LEFT, at, None),
        (
            "odd anchor",
            plain.clone(),
            Anchor(Vec2::new(0.3, -0.2)),
            at,
            None,
        ),
        (
            "flip_x",
            Sprite {
                flip_x: true,
                ..plain.clone()
            },
            Anchor::CENTER,
            at,
            None,
        ),
        (
            "flip_y",
            Sprite {
                flip_y: true,
                ..plain.clone()
            },
            Anchor::TOP_RIGHT,
            at,
            None,
        ),
        (
            "custom_size",
            Sprite {
                custom_size: Some(Vec2::new(150.0, 33.0)),
                ..plain.clone()
            },
            Anchor::CENTER,
            at,
            None,
        ),
        (
            "rect",
            Sprite {
                rect: Some(Rect::new(24.0, 20.0, 48.0, 40.0)),
                ..plain.clone()
            },
            Anchor::CENTER,
            at,
            None,
        ),
        (
            "atlas frame",
            Sprite::from_atlas_image(
                sheet.clone(),
                TextureAtlas {
                    layout: layout.clone(),
                    index: 4,
                },
            ),
            Anchor::CENTER,
            at,
            None,
        ),
        (
            "atlas frame, rect, flips",
            Sprite {
                rect: Some(Rect::new(2.0, 3.0, 20.0, 17.0)),
                flip_x: true,
                flip_y: true,
                ..Sprite::from_atlas_image(sheet.clone(), TextureAtlas { layout, index: 1 })
            },
            Anchor::CENTER_LEFT,
            at,
            None,
        ),
        (
            "rotated and scaled parent",
            plain.clone(),
            Anchor::CENTER,
            Transform::from_xyz(10.0, 4.0, 0.0)
                .with_rotation(Quat::from_rotation_z(0.4))
                .with_scale(Vec3::new(1.5, 0.75, 1.0)),
            Some(
                Transform::from_xyz(-30.0, 12.0, 0.0)
                    .with_rotation(Quat::from_rotation_z(-1.1))
                    .with_scale(Vec3::new(2.0, -1.25, 1.0)),
            ),
        ),
    ]
}

fn spawn(
    app: &mut App,
    sprite: Sprite,
    anchor: Anchor,
    transform: Transform,
    parent: Option<Transform>,
) -> Entity {
    let world = app.world_mut();
    let child = world
        .spawn((sprite, anchor, transform, PixelCollider::default()))
        .id();
    if let Some(parent) = parent {
        world.spawn(parent).add_child(child);
    }
    child
}

/// The plugin's point query agrees with Bevy's own texel lookup for every sprite setting,
/// at thousands of points over and around each sprite.
#[test]
fn point_query_matches_bevys_texel_lookup_for_every_sprite_setting() {
    let mut app = app();
    let sheet_image = image(72, 40, |x, y| lopsided(x % 24, y % 20) ^ (x / 24 == 2));
    let alpha: Vec<u8> = sheet_image
        .data
        .as_ref()
        .unwrap()
        .chunks(4)
        .map(|p| p[3])
        .collect();
    let sheet = add_image(&mut app, sheet_image);
    for (name, sprite, anchor, transform, parent) in settings(&mut app, &sheet) {
        let entity = spawn(&mut app, sprite.clone(), anchor, transform, parent);
        app.update();
        let global = *app.world().get::<GlobalTransform>(entity).unwrap();
        let world_from_local = global.affine();
        let mut rng = SplitMix64(7);
        // Points over the sprite and a margin around it, in its parent's frame of reference
        // before its own transform: the sprite's drawn size is at most 150 × 40.
        let reach = match name {
            "rect" | "atlas frame" | "atlas frame, rect, flips" => Vec2::new(24.0, 20.0),
            "custom_size" => Vec2::new(90.0, 25.0),
            _ => Vec2::new(45.0, 30.0),
        };
        let points: Vec<Vec3> = (0..4_000)
            .map(|_| {
                world_from_local.transform_point3(Vec3::new(
                    rng.range(-reach.x, reach.x),
                    rng.range(-reach.y, reach.y),
                    0.0,
                ))
            })
            .collect();
        let world = app.world();
        let bevy_says: Vec<bool> = points
            .iter()
            .map(|&point| {
                let local = world_from_local
                    .inverse()
                    .transform_point3(point)
                    .truncate();
                sprite
                    .compute_pixel_space_point(
                        local,
                        anchor,
                        world.resource::<Assets<Image>>(),
                        world.resource::<Assets<TextureAtlasLayout>>(),
                    )
                    .is_ok_and(|texel| alpha[texel.y as usize * 72 + texel.x as usize] > 0)
            })
            .collect();
        let plugin_says = collisions(&mut app, move |c| {
            points
                .iter()
                .map(|p| c.solid_at(p.truncate()).contains(&entity))
                .collect::<Vec<bool>>()
        });
        let total = bevy_says.len();
        let agree = bevy_says
            .iter()
            .zip(&plugin_says)
            .filter(|(b, p)| b == p)
            .count();
        let solid = bevy_says.iter().filter(|&&b| b).count();
        // Texel lookups differ only on texel borders, which random points do not hit.
        assert_eq!(agree, total, "{name}: {agree} of {total} agree");
        assert!(
            solid > 100,
            "{name}: only {solid} solid points: a weak test"
        );
        let root = app
            .world()
            .get::<ChildOf>(entity)
            .map_or(entity, |c| c.parent());
        app.world_mut().entity_mut(root).despawn();
    }
}

/// The plugin's verdict and contact equal the core's on transforms worked out by hand.
#[test]
fn verdicts_and_contacts_equal_the_core_on_hand_made_transforms() {
    let mut app = app();
    let img = image(24, 20, lopsided);
    let mask =
        bevy_pixel_collide::mask_from_region(&img, bevy::math::URect::new(0, 0, 24, 20), 0, None)
            .unwrap();
    let handle = add_image(&mut app, img);
    // Bottom-left anchor at p: the mask's top-left corner at p + (0, 20), rows going down.
    // Flipped in x with a custom size of 48 × 10: pixel columns run leftwards, two world
    // units each, half a unit per row.
    let a = spawn(
        &mut app,
        Sprite::from_image(handle.clone()),
        Anchor::BOTTOM_LEFT,
        Transform::default(),
        None,
    );
    let b = spawn(
        &mut app,
        Sprite {
            flip_x: true,
            custom_size: Some(Vec2::new(48.0, 10.0)),
            ..Sprite::from_image(handle)
        },
        Anchor::CENTER,
        Transform::default(),
        None,
    );
    let mut rng = SplitMix64(3);
    let (mut touching, mut apart) = (0, 0);
    for _ in 0..300 {
        let (pa, pb) = (
            Vec2::new(rng.range(-30.0, 30.0), rng.range(-25.0, 25.0)),
            Vec2::new(rng.range(-30.0, 30.0), rng.range(-25.0, 25.0)),
        );
        app.world_mut().get_mut::<Transform>(a).unwrap().translation = pa.extend(0.0);
        app.world_mut().get_mut::<Transform>(b).unwrap().translation = pb.extend(0.0);
        app.update();
        let ta = Affine2::from_translation(pa + Vec2::new(0.0, 20.0))
            * Affine2::from_scale(Vec2::new(1.0, -1.0));
        let tb = Affine2::from_translation(pb + Vec2::new(24.0, 5.0))
            * Affine2::from_scale(Vec2::new(-2.0, -0.5));
        let core_verdict = transformed_intersects(&mask, ta, &mask, tb)
            || transformed_intersects(&mask, tb, &mask, ta);
        let expected_contact = transformed_overlap(&mask, ta, &mask, tb);
        let (verdict, contact) = collisions(&mut app, move |c| (c.touching(a, b), c.contact(a, b)));
        // The plugin tests the pair with the collider further left as A: its mask's
        // center in the world.
        let center = Vec2::new(12.0, 10.0);
        let a_first = tested_first(ta.transform_point2(center), tb.transform_point2(center));
        let expected = if a_first.unwrap_or(a < b) {
            transformed_intersects(&mask, ta, &mask, tb)
        } else {
            transformed_intersects(&mask, tb, &mask, ta)
        };
        assert_eq!(verdict, expected, "{pa} {pb}");
        assert!(!verdict || core_verdict);
        match (contact, expected_contact) {
            (Some(c), Some(e)) => {
                assert_eq!(c.count, e.count);
                assert!(c.point.distance(e.point) < 1e-3, "{c:?} {e:?}");
                assert!(c.normal.distance(e.normal) < 1e-3, "{c:?} {e:?}");
            }
            (c, e) => assert_eq!(c, e),
        }
        touching += usize::from(verdict);
        apart += usize::from(!verdict);
    }
    assert!(
        touching > 40 && apart > 40,
        "{touching} touching, {apart} apart"
    );
}

#[derive(Resource, Default)]
struct Seen {
    started: Vec<(Entity, Entity)>,
    ended: Vec<(Entity, Entity)>,
    observed_starts: Vec<(Entity, Entity)>,
    observed_ends: Vec<(Entity, Entity)>,
}

fn record(
    mut seen: ResMut<Seen>,
    mut started: MessageReader<PixelCollisionStart>,
    mut ended: MessageReader<PixelCollisionEnd>,
) {
    seen.started
        .extend(started.read().map(|m| (m.collider1, m.collider2)));
    seen.ended
        .extend(ended.read().map(|m| (m.collider1, m.collider2)));
}

fn events_app() -> (App, Entity, Entity, Handle<Image>) {
    let mut app = app();
    app.init_resource::<Seen>()
        .add_systems(PostUpdate, record.after(PixelCollisionSystems::Events))
        .add_observer(|on: On<PixelCollisionStart>, mut seen: ResMut<Seen>| {
            seen.observed_starts.push((on.collider1, on.collider2));
        })
        .add_observer(|on: On<PixelCollisionEnd>, mut seen: ResMut<Seen>| {
            seen.observed_ends.push((on.collider1, on.collider2));
        });
    let disc = add_image(
        &mut app,
        image(20, 20, |x, y| {
            let (u, v) = (x as f32 - 9.5, y as f32 - 9.5);
            u * u + v * v <= 81.0
        }),
    );
    let a = app
        .world_mut()
        .spawn((
            Sprite::from_image(disc.clone()),
            Transform::default(),
            PixelCollider::default(),
            PixelCollisionEventsEnabled,
        ))
        .id();
    let b = app
        .world_mut()
        .spawn((
            Sprite::from_image(disc.clone()),
            Transform::from_xyz(100.0, 0.0, 0.0),
            PixelCollider::default(),
            PixelCollisionEventsEnabled,
        ))
        .id();
    app.update();
    (app, a, b, disc)
}

fn move_to(app: &mut App, entity: Entity, x: f32) {
    app.world_mut()
        .get_mut::<Transform>(entity)
        .unwrap()
        .translation
        .x = x;
    app.update();
}

#[test]
fn a_touch_starts_once_and_ends_once() {
    let (mut app, a, b, _) = events_app();
    // Approach one unit a frame: the discs (radius ~9.5) touch below 19 apart.
    for step in 0..90 {
        move_to(&mut app, b, 40.0 - step as f32);
    }
    for step in 0..90 {
        move_to(&mut app, b, -50.0 + step as f32);
    }
    let seen = app.world().resource::<Seen>();
    let pair = (a.min(b), a.max(b));
    assert_eq!(seen.started, vec![pair, pair], "in, through and out, twice");
    assert_eq!(seen.ended, vec![pair, pair]);
    assert_eq!(seen.observed_starts.len(), 4, "both entities, each touch");
    assert_eq!(seen.observed_ends.len(), 4);
    assert!(seen.observed_starts.contains(&(a, b)) && seen.observed_starts.contains(&(b, a)));
    assert!(
        app.world()
            .get::<PixelCollidingEntities>(a)
            .unwrap()
            .is_empty()
    );
}

#[test]
fn colliding_entities_follow_the_touch() {
    let (mut app, a, b, _) = events_app();
    move_to(&mut app, b, 10.0);
    assert!(
        app.world()
            .get::<PixelCollidingEntities>(a)
            .unwrap()
            .contains(&b)
    );
    assert!(
        app.world()
            .get::<PixelCollidingEntities>(b)
            .unwrap()
            .contains(&a)
    );
    move_to(&mut app, b, 30.0);
    assert!(
        app.world()
            .get::<PixelCollidingEntities>(a)
            .unwrap()
            .is_empty()
    );
}

#[test]
fn despawning_while_touching_ends_the_touch_once() {
    let (mut app, a, b, _) = events_app();
    move_to(&mut app, b, 10.0);
    app.world_mut().entity_mut(b).despawn();
    for _ in 0..3 {
        app.update();
    }
    let seen = app.world().resource::<Seen>();
    let pair = (a.min(b), a.max(b));
    assert_eq!(
        (seen.started.clone(), seen.ended.clone()),
        (vec![pair], vec![pair])
    );
    // The survivor hears of it; the despawned entity cannot.
    assert_eq!(seen.observed_ends, vec![(a, b)]);
    assert!(
        app.world()
            .get::<PixelCollidingEntities>(a)
            .unwrap()
            .is_empty()
    );
}

#[test]
fn disabling_while_touching_ends_the_touch_once_and_enabling_restarts_it() {
    let (mut app, a, b, _) = events_app();
    move_to(&mut app, b, 10.0);
    app.world_mut().get_mut::<PixelCollider>(b).unwrap().enabled = false;
    for _ in 0..3 {
        app.update();
    }
    app.world_mut().get_mut::<PixelCollider>(b).unwrap().enabled = true;
    for _ in 0..3 {
        app.update();
    }
    let seen = app.world().resource::<Seen>();
    let pair = (a.min(b), a.max(b));
    assert_eq!(seen.started, vec![pair, pair]);
    assert_eq!(seen.ended, vec![pair]);
}

#[test]
fn an_image_edit_while_touching_neither_ends_nor_restarts_the_touch() {
    let (mut app, a, b, disc) = events_app();
    move_to(&mut app, b, 10.0);
    // Rewrite the image with the same pixels but one: a changed asset, a rebuilt mask.
    let before = app.world().resource::<PixelMasks>().len();
    {
        let mut images = app.world_mut().resource_mut::<Assets<Image>>();
        let mut image = images.get_mut(&disc).unwrap();
        image.data.as_mut().unwrap()[3] = 255;
    }
    for _ in 0..3 {
        app.update();
    }
    let seen = app.world().resource::<Seen>();
    assert_eq!(seen.started.len(), 1);
    assert!(seen.ended.is_empty());
    let mask = app
        .world()
        .get::<PixelColliderMask>(a)
        .unwrap()
        .mask
        .clone()
        .unwrap();
    assert!(mask.get(0, 0), "the mask was rebuilt from the edited image");
    assert_eq!(app.world().resource::<PixelMasks>().len(), before);
}

#[test]
fn an_image_still_loading_collides_with_nothing_until_it_arrives() {
    let (mut app, a, _b, _) = events_app();
    // A handle whose image has not arrived: what a load in flight looks like.
    let pending = app.world().resource::<Assets<Image>>().reserve_handle();
    let c = app
        .world_mut()
        .spawn((
            Sprite::from_image(pending.clone()),
            Transform::default(),
            PixelCollider::default(),
        ))
        .id();
    for _ in 0..3 {
        app.update();
    }
    assert!(
        app.world()
            .get::<PixelColliderMask>(c)
            .unwrap()
            .mask
            .is_none()
    );
    assert!(!collisions(&mut app, move |col| col.touching(a, c)));
    assert!(app.world().resource::<Seen>().started.is_empty());
    app.world_mut()
        .resource_mut::<Assets<Image>>()
        .insert(pending.id(), image(8, 8, |_, _| true))
        .unwrap();
    app.update();
    assert!(collisions(&mut app, move |col| col.touching(a, c)));
}

#[test]
fn a_file_that_fails_to_load_is_reported_once_and_collides_as_the_placeholder() {
    let (mut app, a, _b, _) = events_app();
    let missing: Handle<Image> = app
        .world()
        .resource::<AssetServer>()
        .load("no/such/file.png");
    let c = app
        .world_mut()
        .spawn((
            Sprite::from_image(missing),
            Transform::default(),
            PixelCollider::default(),
        ))
        .id();
    let mut collides = false;
    for _ in 0..500 {
        app.update();
        if collisions(&mut app, move |col| col.touching(a, c)) {
            collides = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    assert!(collides, "the placeholder collides");
    let masks = app.world().resource::<PixelMasks>();
    let sprite = app.world().get::<Sprite>(c).unwrap();
    assert_eq!(
        sprite.image.id(),
        masks.placeholder().id(),
        "the placeholder shows"
    );
    assert_eq!(masks.problems().len(), 1, "{:?}", masks.problems());
    assert!(masks.problems()[0].contains("no/such/file.png"));
    for _ in 0..5 {
        app.update();
    }
    assert_eq!(
        app.world().resource::<PixelMasks>().problems().len(),
        1,
        "reported once"
    );
}

#[test]
fn layers_filter_pairs() {
    let (mut app, a, b, _) = events_app();
    app.world_mut()
        .entity_mut(a)
        .insert(PixelCollisionLayers::new(0b01, 0b01));
    app.world_mut()
        .entity_mut(b)
        .insert(PixelCollisionLayers::new(0b10, 0b11));
    move_to(&mut app, b, 10.0);
    assert!(!collisions(&mut app, move |c| c.touching(a, b)));
    assert!(
        collisions(&mut app, move |c| c.intersects(a, b)),
        "pixels do overlap"
    );
    app.world_mut()
        .entity_mut(a)
        .insert(PixelCollisionLayers::new(0b01, 0b10));
    app.update();
    assert!(collisions(&mut app, move |c| c.touching(a, b)));
}

#[test]
fn ray_cast_finds_the_nearest_solid_pixel() {
    let (mut app, a, b, _) = events_app();
    move_to(&mut app, b, 60.0);
    // From the left, along +x, at the height of the discs' centers.
    let hit = collisions(&mut app, |c| {
        c.cast_ray(
            Vec2::new(-100.0, 0.25),
            Dir2::X,
            1_000.0,
            &PixelQueryFilter::default(),
        )
    })
    .expect("the ray meets the first disc");
    assert_eq!(hit.entity, a);
    assert!((hit.point.x - -10.0).abs() <= 1.0, "{hit:?}");
    assert!((hit.distance - 90.0).abs() <= 1.0);
    assert_eq!(hit.normal, Vec2::NEG_X);
    // Aimed between them, it misses; cut short, it stops before the disc.
    let miss = collisions(&mut app, |c| {
        c.cast_ray(
            Vec2::new(30.0, 40.0),
            Dir2::Y,
            1_000.0,
            &PixelQueryFilter::default(),
        )
    });
    assert!(miss.is_none());
    let short = collisions(&mut app, |c| {
        c.cast_ray(
            Vec2::new(-100.0, 0.25),
            Dir2::X,
            80.0,
            &PixelQueryFilter::default(),
        )
    });
    assert!(short.is_none());
    // From the right, it meets `b` first.
    let hit = collisions(&mut app, |c| {
        c.cast_ray(
            Vec2::new(200.0, 0.25),
            Dir2::NEG_X,
            1_000.0,
            &PixelQueryFilter::default(),
        )
    })
    .unwrap();
    assert_eq!(hit.entity, b);
    assert_eq!(hit.normal, Vec2::X);
}

/// The first bytes of a PNG whose header declares `width` × `height` RGBA pixels, with no
/// image data: what a hostile 1.6 KB file looks like to a loader.
fn png_header(width: u32, height: u32) -> Vec<u8> {
    let mut bytes = vec![0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13];
    bytes.extend_from_slice(b"IHDR");
    bytes.extend_from_slice(&width.to_be_bytes());
    bytes.extend_from_slice(&height.to_be_bytes());
    bytes.extend_from_slice(&[8, 6, 0, 0, 0, 0, 0, 0, 0]);
    bytes.resize(1_600, 0);
    bytes
}

#[test]
fn png_headers_are_read_without_decoding() {
    use bevy_pixel_collide::image_guard::png_declared_size;
    assert_eq!(
        png_declared_size(&png_header(100_000, 7)),
        Some((100_000, 7))
    );
    assert_eq!(png_declared_size(b"GIF89a"), None);
    assert_eq!(
        png_declared_size(&png_header(3, 4)[..20]),
        None,
        "cut short"
    );
    let real = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../assets/flower.png"
    ))
    .unwrap();
    let decoded = image::load_from_memory(&real).unwrap();
    assert_eq!(
        png_declared_size(&real),
        Some((decoded.width(), decoded.height()))
    );
}

/// A tiny file declaring 100,000² pixels would make Bevy's decoder ask for 40 GB and
/// abort; through the plugin it is refused from its header, reported once, and its sprite
/// shows and collides as the placeholder.
#[test]
fn a_file_declaring_an_absurd_size_is_refused_before_decoding() {
    let dir = std::env::temp_dir().join(format!("pixel_collide_huge_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("huge.png"), png_header(100_000, 100_000)).unwrap();
    let mut app = app_with_assets(AssetPlugin {
        file_path: dir.to_string_lossy().into_owned(),
        ..default()
    });
    let handle: Handle<Image> = app.world().resource::<AssetServer>().load("huge.png");
    let sprite = app
        .world_mut()
        .spawn((Sprite::from_image(handle), PixelCollider::default()))
        .id();
    let mut reported = false;
    for _ in 0..500 {
        app.update();
        if !app.world().resource::<PixelMasks>().problems().is_empty() {
            reported = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    assert!(reported, "the refusal is reported");
    for _ in 0..3 {
        app.update();
    }
    let masks = app.world().resource::<PixelMasks>();
    assert_eq!(masks.problems().len(), 1, "{:?}", masks.problems());
    let problem = &masks.problems()[0];
    assert!(
        problem.contains("huge.png")
            && problem.contains("100000×100000")
            && problem.contains("limit"),
        "{problem}"
    );
    let placeholder = masks.placeholder().id();
    assert_eq!(
        app.world().get::<Sprite>(sprite).unwrap().image.id(),
        placeholder
    );
    let collider = app.world().get::<PixelColliderMask>(sprite).unwrap();
    assert_eq!(collider.mask.as_ref().map(|m| m.size()), Some((64, 64)));
    std::fs::remove_dir_all(&dir).ok();
}

/// A game that cycles thresholds builds a mask per threshold; the cache lets go of the
/// ones no collider shows any more, rather than keeping every mask it ever built.
#[test]
fn masks_no_collider_uses_are_let_go() {
    let mut app = app();
    let handle = add_image(&mut app, image(64, 64, lopsided));
    let entity = app
        .world_mut()
        .spawn((
            Sprite::from_image(handle),
            Transform::default(),
            PixelCollider::default(),
        ))
        .id();
    let mut most = 0;
    for pass in 0..600u32 {
        // A new key every pass: 600 different masks in all.
        let mut collider = app.world_mut().get_mut::<PixelCollider>(entity).unwrap();
        collider.threshold = (pass / 256) as u8;
        collider.color_key = Some([(pass % 256) as u8, 1, 2]);
        app.update();
        let built = app.world().resource::<PixelMasks>().len();
        most = most.max(built);
        // Every threshold the sprite showed is a mask while it shows it.
        assert!(
            app.world()
                .get::<PixelColliderMask>(entity)
                .unwrap()
                .mask
                .is_some()
        );
    }
    assert!(
        (200..=300).contains(&most),
        "about one sweep period of masks is kept, not all 600: {most}"
    );
}

/// A way to take collider `b` out of collision, and the way to bring it back.
struct WayOut {
    name: &'static str,
    out: fn(&mut World, Entity),
    back: fn(&mut World, Entity, &Handle<Image>),
    /// Still found at a point while out ([`PixelCollisionLayers::NONE`]: a collider only
    /// queried; in no group, so a ray cast for any layers passes it).
    still_queried: bool,
}

const WAYS_OUT: [WayOut; 6] = [
    WayOut {
        name: "remove PixelCollider",
        out: |world, b| {
            world.entity_mut(b).remove::<PixelCollider>();
        },
        back: |world, b, _| {
            world.entity_mut(b).insert(PixelCollider::default());
        },
        still_queried: false,
    },
    WayOut {
        name: "remove Sprite",
        out: |world, b| {
            world.entity_mut(b).remove::<Sprite>();
        },
        back: |world, b, disc| {
            world.entity_mut(b).insert(Sprite::from_image(disc.clone()));
        },
        still_queried: false,
    },
    WayOut {
        name: "Disabled",
        out: |world, b| {
            world
                .entity_mut(b)
                .insert(bevy::ecs::entity_disabling::Disabled);
        },
        back: |world, b, _| {
            world
                .entity_mut(b)
                .remove::<bevy::ecs::entity_disabling::Disabled>();
        },
        still_queried: false,
    },
    WayOut {
        name: "enabled: false",
        out: |world, b| world.get_mut::<PixelCollider>(b).unwrap().enabled = false,
        back: |world, b, _| world.get_mut::<PixelCollider>(b).unwrap().enabled = true,
        still_queried: false,
    },
    WayOut {
        name: "an image still loading",
        out: |world, b| {
            let pending = world.resource::<Assets<Image>>().reserve_handle();
            world.get_mut::<Sprite>(b).unwrap().image = pending;
        },
        back: |world, b, disc| world.get_mut::<Sprite>(b).unwrap().image = disc.clone(),
        still_queried: false,
    },
    WayOut {
        name: "layers NONE",
        out: |world, b| {
            world.entity_mut(b).insert(PixelCollisionLayers::NONE);
        },
        back: |world, b, _| {
            world.entity_mut(b).insert(PixelCollisionLayers::ALL);
        },
        still_queried: true,
    },
];

/// What the plugin answers about `b` at a point and along a ray through its right part,
/// where `a`'s pixels are not: (touching, `b` at the point, the ray's hit is `b`, colliders).
fn answers_about(app: &mut App, a: Entity, b: Entity) -> (bool, bool, bool, usize) {
    app.world_mut()
        .run_system_once(move |collisions: PixelCollisions| {
            let inside_b_only = Vec2::new(17.0, 0.0);
            let ray = collisions.cast_ray(
                Vec2::new(17.0, -50.0),
                Dir2::Y,
                100.0,
                &PixelQueryFilter::default(),
            );
            (
                collisions.touching(a, b),
                collisions.solid_at(inside_b_only).contains(&b),
                ray.is_some_and(|hit| hit.entity == b),
                collisions.stats().colliders,
            )
        })
        .unwrap()
}

#[test]
fn every_way_out_of_collision_ends_each_touch_once_and_every_way_back_restarts_it() {
    for way in &WAYS_OUT {
        let (mut app, a, b, disc) = events_app();
        move_to(&mut app, b, 10.0);
        assert_eq!(
            answers_about(&mut app, a, b),
            (true, true, true, 2),
            "{}: touching first",
            way.name
        );
        (way.out)(app.world_mut(), b);
        for _ in 0..3 {
            app.update();
        }
        let pair = (a.min(b), a.max(b));
        let seen = app.world().resource::<Seen>();
        assert_eq!(seen.started, vec![pair], "{}", way.name);
        assert_eq!(seen.ended, vec![pair], "{}: one end message", way.name);
        assert_eq!(
            seen.observed_ends.iter().filter(|e| **e == (a, b)).count(),
            1,
            "{}: the other collider's observer hears of it once",
            way.name
        );
        assert!(seen.observed_ends.len() <= 2, "{}", way.name);
        let colliding = app.world().get::<PixelCollidingEntities>(a).unwrap();
        assert!(!colliding.contains(&b), "{}", way.name);
        let queried = way.still_queried;
        assert_eq!(
            answers_about(&mut app, a, b),
            (false, queried, false, 1),
            "{}: out of collision, (touching, solid_at, cast_ray, colliders)",
            way.name
        );
        // Moved onto `a` while out: still nothing starts.
        move_to(&mut app, b, 5.0);
        move_to(&mut app, b, 10.0);
        assert_eq!(
            app.world().resource::<Seen>().started.len(),
            1,
            "{}: no touch while out",
            way.name
        );
        (way.back)(app.world_mut(), b, &disc);
        for _ in 0..3 {
            app.update();
        }
        let seen = app.world().resource::<Seen>();
        assert_eq!(
            (seen.started.clone(), seen.ended.clone()),
            (vec![pair, pair], vec![pair]),
            "{}: back, the touch starts again, once",
            way.name
        );
        assert_eq!(
            answers_about(&mut app, a, b),
            (true, true, true, 2),
            "{}: back",
            way.name
        );
    }
}

#[test]
fn a_collider_taken_out_before_any_touch_never_starts_one() {
    for way in &WAYS_OUT {
        let (mut app, a, b, _) = events_app();
        (way.out)(app.world_mut(), b);
        app.update();
        for x in [30.0, 10.0, 0.0, 5.0] {
            move_to(&mut app, b, x);
        }
        let seen = app.world().resource::<Seen>();
        assert!(
            seen.started.is_empty() && seen.observed_starts.is_empty(),
            "{}",
            way.name
        );
        assert!(
            app.world()
                .get::<PixelCollidingEntities>(a)
                .unwrap()
                .is_empty(),
            "{}",
            way.name
        );
    }
}

/// Hidden sprites still collide (documented on `PixelCollider`), like hidden bodies in
/// avian: visibility is drawing, not presence.
#[test]
fn a_hidden_collider_still_collides() {
    let (mut app, a, b, _) = events_app();
    app.world_mut().entity_mut(b).insert(Visibility::Hidden);
    move_to(&mut app, b, 10.0);
    assert_eq!(answers_about(&mut app, a, b), (true, true, true, 2));
}

/// Tiny sprites far from the origin (a pixel of 1e-3 at 1e5, of 1e-4 at 1e4): the boxes
/// and circles must keep the narrow phase's rounding as slack, or they drop pairs that
/// `transformed_intersects` reports (the game's crowd has the same test).
#[test]
fn tiny_sprites_far_away_lose_no_pairs() {
    for (seed, (scale, reach)) in [(1e-3, 1e5), (1e-4, 1e4), (3e-3, 3e5)]
        .into_iter()
        .enumerate()
    {
        let mut app = app();
        let images = [
            image(32, 32, |_, _| true),
            image(32, 32, |x, y| {
                Vec2::new(x as f32 - 15.5, y as f32 - 15.5).length() < 16.0
            }),
        ]
        .map(|img| add_image(&mut app, img));
        let mut rng = SplitMix64(0xfa4 + seed as u64);
        let origin = Vec2::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0)) * reach;
        // Dense: 150 sprites in a square 8 sprites wide, some turned, some not.
        let side = 32.0 * scale * 8.0;
        let sprites: Vec<Entity> = (0..150)
            .map(|k| {
                let at = origin + Vec2::new(rng.range(0.0, side), rng.range(0.0, side));
                let turn = if k % 2 == 0 { 0.0 } else { rng.range(0.0, 6.0) };
                let transform = Transform::from_translation(at.extend(0.0))
                    .with_rotation(Quat::from_rotation_z(turn))
                    .with_scale(Vec3::splat(scale));
                let image = images[k % 2].clone();
                spawn(
                    &mut app,
                    Sprite::from_image(image),
                    Anchor::CENTER,
                    transform,
                    None,
                )
            })
            .collect();
        app.update();
        let found: Vec<(Entity, Entity)> =
            collisions(&mut app, |c| c.touching_pairs().collect::<Vec<_>>());
        let world = app.world_mut();
        let mut placed = world.query::<&PixelColliderMask>();
        let mut expected = Vec::new();
        for (k, &a) in sprites.iter().enumerate() {
            for &b in &sprites[k + 1..] {
                let ((ma, ta), (mb, tb)) = (
                    placed.get(world, a).unwrap().placed().unwrap(),
                    placed.get(world, b).unwrap().placed().unwrap(),
                );
                let center = |mask: &BitMask, to_world: Affine2| {
                    let (w, h) = mask.size();
                    to_world.transform_point2(Vec2::new(w as f32, h as f32) / 2.0)
                };
                let a_first = tested_first(center(ma, ta), center(mb, tb)).unwrap_or(a < b);
                let hit = if a_first {
                    transformed_intersects(ma, ta, mb, tb)
                } else {
                    transformed_intersects(mb, tb, ma, ta)
                };
                if hit {
                    expected.push((a.min(b), a.max(b)));
                }
            }
        }
        expected.sort_unstable();
        assert!(
            expected.len() > 50,
            "{} pairs: a test of nothing",
            expected.len()
        );
        let missed: Vec<_> = expected.iter().filter(|p| !found.contains(p)).collect();
        let extra: Vec<_> = found.iter().filter(|p| !expected.contains(p)).collect();
        assert!(
            missed.is_empty() && extra.is_empty(),
            "scale {scale} near {origin}: missed {missed:?}, extra {extra:?}"
        );
    }
}
