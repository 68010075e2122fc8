//! Destructible sprites: after every edit the sprite's picture and its collider's mask
//! agree pixel for pixel (read back through the image and `solid_at`), for a shared
//! image, an atlas frame and a flipped, stretched, turned sprite; pieces conserve pixels,
//! leave their anchor and sit where their pixels were; bad input is refused cleanly.

use std::sync::Arc;

use bevy::ecs::system::RunSystemOnce;
use bevy::math::Affine2;
use bevy::prelude::*;
use bevy::sprite::Anchor;
use bevy_pixel_collide::prelude::*;
use pixel_collide::BitMask;
use pixel_collide_support::rng::SplitMix64;

use super::pixels::{add_image, app, collisions, image};

/// Runs one edit as a system, then a frame, and returns the edit's result.
fn edit<T: Send + 'static>(
    app: &mut App,
    f: impl FnOnce(&mut PixelEdits) -> T + Send + Sync + 'static,
) -> T {
    let mut f = Some(f);
    let out = app
        .world_mut()
        .run_system_once(move |mut edits: PixelEdits| (f.take().unwrap())(&mut edits))
        .expect("the edit runs");
    app.update();
    out
}

/// Every pixel of the sprite's own image: shown (alpha above 0) exactly where the
/// plugin's point query finds the sprite solid at the pixel's center in the world.
fn assert_picture_is_mask(app: &mut App, sprite: Entity, what: &str) {
    let state = app
        .world()
        .get::<DestructibleState>(sprite)
        .unwrap()
        .clone();
    let handle = state.image().expect("adopted").clone();
    let images = app.world().resource::<Assets<Image>>();
    let picture = images.get(&handle).unwrap();
    let (w, h) = (picture.width(), picture.height());
    let data = picture.data.clone().unwrap();
    let placed = app.world().get::<PixelColliderMask>(sprite).unwrap();
    let to_world = placed.to_world;
    let count = placed.mask.as_ref().map_or(0, |m| m.count());
    assert_eq!(
        placed.mask.as_ref().unwrap().size(),
        (w, h),
        "{what}: the mask is the picture's size"
    );
    let solid = collisions(app, move |c| {
        let mut solid = Vec::new();
        for y in 0..h {
            for x in 0..w {
                let at = to_world.transform_point2(Vec2::new(x as f32 + 0.5, y as f32 + 0.5));
                solid.push(c.solid_at(at).contains(&sprite));
            }
        }
        solid
    });
    let mut wrong = Vec::new();
    for y in 0..h {
        for x in 0..w {
            let i = (y * w + x) as usize;
            let shown = data[i * 4 + 3] > 0;
            if shown != solid[i] {
                wrong.push((x, y, shown));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{what}: {} pixels where picture and mask differ, first {:?}",
        wrong.len(),
        &wrong[..wrong.len().min(5)]
    );
    assert_eq!(
        state.expected_pixels(),
        count,
        "{what}: the accounts give the mask's count"
    );
}

fn lumpy(x: u32, y: u32) -> bool {
    let (u, v) = (x as f32 - 30.0, y as f32 - 20.0);
    u * u / 900.0 + v * v / 300.0 <= 1.0 || y > 30
}

/// The scripted series: carves, stamps and fills, in world space around `at`.
fn script(app: &mut App, sprite: Entity, at: Vec2, what: &str) {
    let paint = add_image(app, image(3, 2, |x, _| x != 1));
    let ring = Arc::new(BitMask::solid(9, 5).unwrap());
    let steps: Vec<(&str, Box<dyn Fn(&mut PixelEdits) + Send + Sync>)> = vec![
        (
            "carve",
            Box::new(move |e: &mut PixelEdits| {
                e.carve_circle(sprite, at + Vec2::new(-6.0, 4.0), 7.5)
                    .unwrap();
            }),
        ),
        (
            "carve at the edge",
            Box::new(move |e: &mut PixelEdits| {
                e.carve_circle(sprite, at + Vec2::new(28.0, -9.0), 5.0)
                    .unwrap();
            }),
        ),
        (
            "erase a turned stamp",
            Box::new({
                let ring = ring.clone();
                move |e: &mut PixelEdits| {
                    let pose = Affine2::from_angle_translation(0.7, at + Vec2::new(8.0, 6.0));
                    e.erase_mask(sprite, &ring, pose).unwrap();
                }
            }),
        ),
        (
            "fill with a color",
            Box::new(move |e: &mut PixelEdits| {
                let red = PixelPaint::Color(Color::srgb(1.0, 0.0, 0.0));
                e.fill_circle(sprite, at + Vec2::new(-6.0, 4.0), 4.0, &red)
                    .unwrap();
            }),
        ),
        (
            "draw a stamp with a texture",
            Box::new({
                let ring = ring.clone();
                let paint = paint.clone();
                move |e: &mut PixelEdits| {
                    let pose = Affine2::from_scale_angle_translation(
                        Vec2::new(1.5, 0.8),
                        -0.4,
                        at + Vec2::new(-20.0, -12.0),
                    );
                    e.draw_mask(sprite, &ring, pose, &PixelPaint::Image(paint.clone()))
                        .unwrap();
                }
            }),
        ),
        (
            "fill with a texture",
            Box::new(move |e: &mut PixelEdits| {
                e.fill_circle(
                    sprite,
                    at + Vec2::new(15.0, 14.0),
                    6.0,
                    &PixelPaint::Image(paint.clone()),
                )
                .unwrap();
            }),
        ),
    ];
    for (name, step) in steps {
        edit(app, move |e| step(e));
        assert_picture_is_mask(app, sprite, &format!("{what}, after {name}"));
    }
}

fn spawn_destructible(app: &mut App, bundle: impl Bundle) -> Entity {
    let sprite = app
        .world_mut()
        .spawn((bundle, DestructibleSprite::without_pieces()))
        .id();
    app.update();
    app.update();
    assert!(
        app.world()
            .get::<DestructibleState>(sprite)
            .unwrap()
            .is_ready(),
        "adopted once the image is there"
    );
    sprite
}

#[test]
fn picture_and_mask_agree_after_every_edit_of_a_shared_image() {
    let mut app = app();
    let shared = add_image(&mut app, image(60, 40, lumpy));
    let before = app
        .world()
        .resource::<Assets<Image>>()
        .get(&shared)
        .unwrap()
        .data
        .clone();
    let other = app
        .world_mut()
        .spawn((
            Sprite::from_image(shared.clone()),
            Transform::from_xyz(200.0, 0.0, 0.0),
            PixelCollider::default(),
        ))
        .id();
    let sprite = spawn_destructible(
        &mut app,
        (
            Sprite::from_image(shared.clone()),
            Transform::from_xyz(5.0, -3.0, 0.0),
        ),
    );
    assert_picture_is_mask(&mut app, sprite, "adopted");
    script(&mut app, sprite, Vec2::new(5.0, -3.0), "shared image");
    // Copy on first edit: the image the other sprite shows is as loaded.
    let images = app.world().resource::<Assets<Image>>();
    assert_eq!(
        images.get(&shared).unwrap().data,
        before,
        "the shared image is untouched"
    );
    let other_mask = app.world().get::<PixelColliderMask>(other).unwrap();
    assert_eq!(
        other_mask.mask.as_ref().unwrap().count(),
        BitMask::from_rgba8(60, 40, before.as_ref().unwrap(), 0)
            .unwrap()
            .count(),
        "the other sprite's mask is the loaded image's"
    );
}

#[test]
fn picture_and_mask_agree_after_every_edit_of_an_atlas_frame() {
    let mut app = app();
    let sheet = add_image(&mut app, image(120, 40, |x, y| lumpy(x % 60, y) && x != 70));
    let layout = app
        .world_mut()
        .resource_mut::<Assets<TextureAtlasLayout>>()
        .add(TextureAtlasLayout::from_grid(
            UVec2::new(60, 40),
            2,
            1,
            None,
            None,
        ));
    let sprite = spawn_destructible(
        &mut app,
        (
            Sprite::from_atlas_image(sheet, TextureAtlas { layout, index: 1 }),
            Transform::from_xyz(-40.0, 10.0, 0.0),
        ),
    );
    let sprite_now = app.world().get::<Sprite>(sprite).unwrap();
    assert!(
        sprite_now.texture_atlas.is_none(),
        "it shows its own copy of the frame"
    );
    script(&mut app, sprite, Vec2::new(-40.0, 10.0), "atlas frame");
}

#[test]
fn picture_and_mask_agree_after_every_edit_of_a_flipped_stretched_turned_sprite() {
    let mut app = app();
    let picture = add_image(&mut app, image(60, 40, lumpy));
    let sprite = spawn_destructible(
        &mut app,
        (
            Sprite {
                flip_x: true,
                flip_y: true,
                custom_size: Some(Vec2::new(90.0, 30.0)),
                ..Sprite::from_image(picture)
            },
            Anchor::BOTTOM_LEFT,
            Transform::from_xyz(3.0, 2.0, 0.0)
                .with_rotation(Quat::from_rotation_z(0.4))
                .with_scale(Vec3::new(1.3, 0.9, 1.0)),
        ),
    );
    script(
        &mut app,
        sprite,
        Vec2::new(20.0, 25.0),
        "flipped, stretched, turned",
    );
}

/// The sprite's mask as it is now.
fn mask_of(app: &App, entity: Entity) -> Arc<BitMask> {
    app.world()
        .get::<PixelColliderMask>(entity)
        .unwrap()
        .mask
        .clone()
        .unwrap()
}

#[derive(Resource, Default)]
struct Detached(Vec<PixelPieceDetached>);

#[test]
fn pieces_conserve_pixels_leave_the_anchor_and_sit_where_they_were() {
    let mut rng = SplitMix64(0x5eed_0053);
    for round in 0..6 {
        let mut app = app();
        app.init_resource::<Detached>().add_systems(
            PostUpdate,
            (|mut read: MessageReader<PixelPieceDetached>, mut seen: ResMut<Detached>| {
                seen.0.extend(read.read().cloned());
            })
            .after(PixelCollisionSystems::Masks),
        );
        // A terrain of random hills with holes, overhangs and floating specks.
        let heights: Vec<f32> = (0..96).map(|_| rng.range(10.0, 40.0)).collect();
        let holes: Vec<(f32, f32, f32)> = (0..6)
            .map(|_| {
                (
                    rng.range(0.0, 96.0),
                    rng.range(10.0, 60.0),
                    rng.range(2.0, 6.0),
                )
            })
            .collect();
        let terrain = add_image(
            &mut app,
            image(96, 64, move |x, y| {
                let ground = 64.0 - heights[x as usize] <= y as f32;
                let hole = holes
                    .iter()
                    .any(|&(hx, hy, r)| (x as f32 - hx).powi(2) + (y as f32 - hy).powi(2) < r * r);
                ground && !hole
            }),
        );
        let sprite = app
            .world_mut()
            .spawn((
                Sprite::from_image(terrain),
                Transform::from_xyz(10.0, 5.0, 0.0),
                DestructibleSprite {
                    min_piece_pixels: 3,
                    ..default()
                },
            ))
            .id();
        app.update();
        app.update();
        for carve in 0..12 {
            let before = mask_of(&app, sprite);
            let to_world = app
                .world()
                .get::<PixelColliderMask>(sprite)
                .unwrap()
                .to_world;
            let state_before = app
                .world()
                .get::<DestructibleState>(sprite)
                .unwrap()
                .clone();
            let at = Vec2::new(rng.range(-48.0, 48.0) + 10.0, rng.range(-32.0, 20.0) + 5.0);
            let radius = rng.range(2.0, 12.0);
            app.world_mut().resource_mut::<Detached>().0.clear();
            let outcome = edit(&mut app, move |e| {
                e.carve_circle(sprite, at, radius).unwrap()
            });
            let after = mask_of(&app, sprite);
            let state = app
                .world()
                .get::<DestructibleState>(sprite)
                .unwrap()
                .clone();
            let pieces = std::mem::take(&mut app.world_mut().resource_mut::<Detached>().0);
            let in_pieces: u64 = pieces.iter().map(|p| p.pixels).sum();
            let crumbs = state.crumbs - state_before.crumbs;
            let what = format!("round {round}, carve {carve}");
            assert_eq!(
                before.count() - outcome.removed,
                after.count() + in_pieces + crumbs,
                "{what}: every pixel the carve left is in the sprite, a piece or a crumb"
            );
            assert_eq!(state.expected_pixels(), after.count(), "{what}");
            // Nothing the carve reached is left floating in the sprite.
            let near = outcome.rect.map(|r| pixel_collide::MaskRect {
                x: r.x.saturating_sub(1),
                y: r.y.saturating_sub(1),
                width: r.width + 2,
                height: r.height + 2,
            });
            let parts = near.map_or_else(Vec::new, |near| {
                after.connected_components_in(near, pixel_collide::Connectivity::Eight)
            });
            for (part, (_, y)) in parts {
                assert_eq!(
                    y as u32 + part.height(),
                    after.height(),
                    "{what}: a part left that does not reach the bottom row"
                );
            }
            app.update();
            for piece in &pieces {
                assert!(piece.pixels >= 3, "{what}: crumbs vanish");
                let placed = app.world().get::<PixelColliderMask>(piece.piece).unwrap();
                let mask = placed.mask.clone().expect("the piece has its mask");
                assert_eq!(
                    mask.count(),
                    piece.pixels,
                    "{what}: the piece's own image makes its mask"
                );
                // Each of its pixels is where one of the sprite's was, now gone from it.
                let from_world = to_world.inverse();
                for y in 0..mask.height() {
                    for x in 0..mask.width() {
                        if !mask.get(i64::from(x), i64::from(y)) {
                            continue;
                        }
                        let world = placed
                            .to_world
                            .transform_point2(Vec2::new(x as f32 + 0.5, y as f32 + 0.5));
                        let at = from_world.transform_point2(world);
                        let (sx, sy) = (at.x.floor() as i64, at.y.floor() as i64);
                        assert!(
                            (at - Vec2::new(sx as f32 + 0.5, sy as f32 + 0.5)).length() < 1e-3,
                            "{what}: a piece pixel off the sprite's grid: {at}"
                        );
                        assert!(
                            before.get(sx, sy) && !after.get(sx, sy),
                            "{what}: piece pixel ({sx}, {sy}) from ({x}, {y}) of {:?}: before {} after {}, piece at {:?}",
                            mask.size(),
                            before.get(sx, sy),
                            after.get(sx, sy),
                            placed.to_world
                        );
                        assert!(
                            sy < i64::from(after.height()) - 1,
                            "{what}: a piece on the anchor row"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn bad_edits_are_refused_or_do_nothing_and_never_panic() {
    let mut app = app();
    let picture = add_image(&mut app, image(40, 30, |_, y| y > 10));
    let sprite = spawn_destructible(
        &mut app,
        (Sprite::from_image(picture.clone()), Transform::default()),
    );
    let plain = app
        .world_mut()
        .spawn((Sprite::from_image(picture), PixelCollider::default()))
        .id();
    let count = mask_of(&app, sprite).count();
    let big = Arc::new(BitMask::solid(400, 300).unwrap());
    let stamp = big.clone();
    let results = edit(&mut app, move |e| {
        let big = &*stamp;
        vec![
            e.carve_circle(sprite, Vec2::splat(f32::NAN), 3.0),
            e.carve_circle(sprite, Vec2::ZERO, f32::INFINITY),
            e.carve_circle(sprite, Vec2::ZERO, -1.0),
            e.carve_circle(plain, Vec2::ZERO, 3.0),
            e.erase_mask(sprite, big, Affine2::from_scale(Vec2::new(f32::NAN, 1.0))),
            e.erase_mask(sprite, big, Affine2::from_scale(Vec2::ZERO)),
        ]
    });
    assert_eq!(results[0], Err(PixelEditError::NotFinite));
    assert_eq!(results[1], Err(PixelEditError::NotFinite));
    assert_eq!(results[2], Err(PixelEditError::NotFinite));
    assert_eq!(results[3], Err(PixelEditError::NotDestructible(plain)));
    assert_eq!(results[4], Err(PixelEditError::NotFinite));
    assert_eq!(results[5], Err(PixelEditError::Degenerate));
    assert_eq!(
        mask_of(&app, sprite).count(),
        count,
        "nothing refused changed a pixel"
    );

    // Outside the sprite, and a radius of 0 between pixel centers: nothing to do.
    let nothing = edit(&mut app, move |e| {
        (
            e.carve_circle(sprite, Vec2::new(1e6, -1e30), 5.0).unwrap(),
            e.carve_circle(sprite, Vec2::new(0.25, 0.25), 0.0).unwrap(),
        )
    });
    assert_eq!(nothing.0.rect, None);
    assert_eq!((nothing.1.removed, nothing.1.added), (0, 0));
    // A crater of 1e30 px and a stamp ten times the sprite clear it all, within its box.
    let all = edit(&mut app, move |e| {
        e.carve_circle(sprite, Vec2::ZERO, 1e30).unwrap()
    });
    assert_eq!(all.removed, count);
    assert_eq!(all.rect.map(|r| (r.width, r.height)), Some((40, 30)));
    let drawn = edit(&mut app, move |e| {
        let big = &*big;
        let pose = pixel_collide::sprite_to_world(Vec2::ZERO, 0.0, Vec2::ONE, big.size());
        e.draw_mask(sprite, big, pose, &PixelPaint::Color(Color::WHITE))
            .unwrap()
    });
    assert_eq!(drawn.added, 40 * 30);
    assert_picture_is_mask(&mut app, sprite, "after the huge edits");

    // An image that never loads: not ready, refused.
    let missing: Handle<Image> = app
        .world()
        .resource::<AssetServer>()
        .load("no such file.png");
    let waiting = spawn_waiting(&mut app, missing);
    let result = edit(&mut app, move |e| e.carve_circle(waiting, Vec2::ZERO, 3.0));
    assert_eq!(result, Err(PixelEditError::NotReady(waiting)));
    // A texture paint that is not loaded: refused before anything changes.
    let count = mask_of(&app, sprite).count();
    let gone = add_image(&mut app, image(2, 2, |_, _| true));
    app.world_mut()
        .resource_mut::<Assets<Image>>()
        .remove(&gone);
    let result = edit(&mut app, move |e| {
        e.fill_circle(sprite, Vec2::ZERO, 5.0, &PixelPaint::Image(gone.clone()))
    });
    assert!(
        matches!(result, Err(PixelEditError::Paint(_))),
        "{result:?}"
    );
    assert_eq!(mask_of(&app, sprite).count(), count);
}

fn spawn_waiting(app: &mut App, image: Handle<Image>) -> Entity {
    let sprite = app
        .world_mut()
        .spawn((Sprite::from_image(image), DestructibleSprite::default()))
        .id();
    app.update();
    sprite
}

#[test]
fn a_sprite_over_the_pixel_limit_is_never_adopted() {
    let mut app = super::pixels::app_with(
        AssetPlugin::default(),
        PixelCollisionPlugin::default().with_max_image_pixels(100),
    );
    let picture = add_image(&mut app, image(40, 30, |_, _| true));
    let sprite = spawn_waiting(&mut app, picture);
    app.update();
    let state = app.world().get::<DestructibleState>(sprite).unwrap();
    assert!(!state.is_ready(), "the placeholder is not its pixels");
    let result = edit(&mut app, move |e| e.carve_circle(sprite, Vec2::ZERO, 3.0));
    assert_eq!(result, Err(PixelEditError::NotReady(sprite)));
    assert!(!app.world().resource::<PixelMasks>().problems().is_empty());
}

/// Disabled, a destructible sprite keeps its edited pixels but collides with nothing and
/// no query finds it; enabled again, it is as it was, accounts and all.
#[test]
fn a_disabled_destructible_sprite_keeps_its_pixels_and_touches_nothing() {
    let mut app = app();
    let picture = add_image(&mut app, image(40, 30, |_, y| y > 10));
    let sprite = spawn_destructible(
        &mut app,
        (Sprite::from_image(picture.clone()), Transform::default()),
    );
    let other = app
        .world_mut()
        .spawn((Sprite::from_image(picture), PixelCollider::default()))
        .id();
    app.update();
    edit(&mut app, move |e| {
        e.carve_circle(sprite, Vec2::new(-10.0, 0.0), 6.0).unwrap();
    });
    let carved = mask_of(&app, sprite).count();
    assert!(collisions(&mut app, move |c| c.touching(sprite, other)));
    let solid_point = Vec2::new(12.0, -10.0);
    assert!(collisions(&mut app, move |c| c
        .solid_at(solid_point)
        .contains(&sprite)));

    app.world_mut()
        .get_mut::<PixelCollider>(sprite)
        .unwrap()
        .enabled = false;
    app.update();
    app.update();
    assert!(!collisions(&mut app, move |c| c.touching(sprite, other)));
    assert!(!collisions(&mut app, move |c| c
        .solid_at(solid_point)
        .contains(&sprite)));

    app.world_mut()
        .get_mut::<PixelCollider>(sprite)
        .unwrap()
        .enabled = true;
    app.update();
    app.update();
    assert!(collisions(&mut app, move |c| c.touching(sprite, other)));
    assert_eq!(mask_of(&app, sprite).count(), carved);
    let state = app.world().get::<DestructibleState>(sprite).unwrap();
    assert_eq!(state.expected_pixels(), carved, "the accounts carry on");
    assert!(state.removed > 0);
    assert_picture_is_mask(&mut app, sprite, "enabled again");
}
