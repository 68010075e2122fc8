//! The rest of the plugin's public surface, each against what its docs promise: the pass
//! in a schedule of the game's choosing, `contacts()` and `collider()`, ray casts through
//! a layer filter and off turned, scaled and flipped sprites, the pixel limit on images
//! made in code and on atlas frames, the mask under `threshold` and `color_key`,
//! `mask_from_region` on BGRA images and images without alpha, and what the debug plugin
//! draws.

use bevy::ecs::schedule::ScheduleLabel;
use bevy::math::Affine2;
use bevy::math::URect;
use bevy::prelude::*;
use bevy::render::render_resource::TextureFormat;
use bevy_pixel_collide::prelude::*;
use bevy_pixel_collide::{PixelMasks, mask_from_region};
use pixel_collide::{BitMask, transformed_overlap, transformed_time_of_impact};
use pixel_collide_support::rng::SplitMix64;

use super::pixels::{add_image, app, app_with, app_with_more, collisions, image, image_of};

fn square(app: &mut App, side: u32) -> Handle<Image> {
    add_image(app, image(side, side, |_, _| true))
}

fn collider_at(app: &mut App, image: &Handle<Image>, x: f32) -> Entity {
    app.world_mut()
        .spawn((
            Sprite::from_image(image.clone()),
            Transform::from_xyz(x, 0.0, 0.0),
            PixelCollider::default(),
        ))
        .id()
}

#[derive(ScheduleLabel, Debug, Clone, PartialEq, Eq, Hash)]
struct Physics;

/// `PixelCollisionPlugin::new(schedule)`: the pass runs when that schedule does, and only
/// then; the frame's own schedules leave the answers as they were.
#[test]
fn the_pass_runs_in_the_schedule_it_is_given() {
    let mut app = app_with(AssetPlugin::default(), PixelCollisionPlugin::new(Physics));
    let block = square(&mut app, 10);
    let a = collider_at(&mut app, &block, 0.0);
    let b = collider_at(&mut app, &block, 6.0);
    app.update();
    assert!(!collisions(&mut app, move |c| c.touching(a, b)));
    assert_eq!(collisions(&mut app, |c| c.stats().colliders), 0);
    app.world_mut().run_schedule(Physics);
    assert!(collisions(&mut app, move |c| c.touching(a, b)));
    // Moved apart: still touching by the last pass until the schedule runs again.
    app.world_mut()
        .get_mut::<Transform>(b)
        .unwrap()
        .translation
        .x = 40.0;
    app.update();
    assert!(collisions(&mut app, move |c| c.touching(a, b)));
    app.world_mut().run_schedule(Physics);
    assert!(!collisions(&mut app, move |c| c.touching(a, b)));
}

/// `contacts()` lists each touching pair once, with the contact `contact(a, b)` gives and
/// the core computes on the masks `collider()` reports; `collider()` of an entity without
/// a `PixelCollider` is `None`.
#[test]
fn contacts_and_collider_report_the_last_pass() {
    let mut app = app();
    let block = square(&mut app, 10);
    let a = collider_at(&mut app, &block, 0.0);
    let b = collider_at(&mut app, &block, 7.0);
    let far = collider_at(&mut app, &block, 100.0);
    let plain = app
        .world_mut()
        .spawn((Sprite::from_image(block.clone()), Transform::default()))
        .id();
    app.update();
    let listed = collisions(&mut app, |c| c.contacts().collect::<Vec<_>>());
    assert_eq!(listed.len(), 1, "{listed:?}");
    let (first, second, contact) = listed[0];
    assert_eq!((first.min(second), first.max(second)), (a.min(b), a.max(b)));
    assert_eq!(
        collisions(&mut app, move |c| c.contact(first, second)),
        Some(contact)
    );
    let core = collisions(&mut app, move |c| {
        let (ma, ta) = c.collider(first).unwrap().placed().unwrap();
        let (mb, tb) = c.collider(second).unwrap().placed().unwrap();
        transformed_overlap(ma, ta, mb, tb)
    });
    assert_eq!(core, Some(contact));
    assert!(collisions(&mut app, move |c| c.collider(far).is_some()));
    assert!(collisions(&mut app, move |c| c.collider(plain).is_none()));
}

/// A ray passes colliders outside its layers; off a turned, scaled or flipped sprite its
/// normal is perpendicular to the face it hit (the world image of one of the mask's
/// axes), faces the ray, and the hit point is on the sprite's edge.
#[test]
fn rays_filter_by_layers_and_their_normals_follow_the_sprite() {
    let mut app = app();
    let block = square(&mut app, 12);
    let near = collider_at(&mut app, &block, 0.0);
    let behind = collider_at(&mut app, &block, 40.0);
    app.world_mut()
        .entity_mut(near)
        .insert(PixelCollisionLayers::new(0b10, 0b10));
    app.update();
    let ray = |layers: PixelCollisionLayers| {
        move |c: PixelCollisions| {
            c.cast_ray(
                Vec2::new(-50.0, 0.5),
                Dir2::X,
                500.0,
                &PixelQueryFilter::from_layers(layers.filters),
            )
            .map(|h| h.entity)
        }
    };
    assert_eq!(
        collisions(&mut app, ray(PixelCollisionLayers::ALL)),
        Some(near)
    );
    let ones = PixelCollisionLayers::new(0b01, 0b01);
    assert_eq!(collisions(&mut app, ray(ones)), Some(behind));
    assert_eq!(
        collisions(&mut app, ray(PixelCollisionLayers::NONE)),
        None,
        "a ray in no layer meets nothing"
    );

    app.world_mut().entity_mut(near).despawn();
    app.world_mut().entity_mut(behind).despawn();
    let target = collider_at(&mut app, &block, 0.0);
    // Under a parent scaled unevenly, a turned child is sheared: its faces are no longer
    // at right angles, and only the inverse transpose keeps normals perpendicular.
    let parent = app
        .world_mut()
        .spawn(Transform::default())
        .add_child(target)
        .id();
    let mut rng = SplitMix64(0x4a7);
    let mut hits = 0;
    for _ in 0..200 {
        let flip = |rng: &mut SplitMix64| if rng.chance(0.5) { -1.0 } else { 1.0 };
        let mut scale = || {
            Vec3::new(
                flip(&mut rng) * rng.range(0.5, 3.0),
                flip(&mut rng) * rng.range(0.5, 3.0),
                1.0,
            )
        };
        let (child_scale, parent_scale) = (scale(), scale());
        let turn = |rng: &mut SplitMix64| Quat::from_rotation_z(rng.range(-3.2, 3.2));
        *app.world_mut().get_mut::<Transform>(target).unwrap() =
            Transform::from_rotation(turn(&mut rng)).with_scale(child_scale);
        *app.world_mut().get_mut::<Transform>(parent).unwrap() =
            Transform::from_rotation(turn(&mut rng)).with_scale(parent_scale);
        app.update();
        let transform = *app.world().get::<GlobalTransform>(target).unwrap();
        let direction = Dir2::new(Vec2::from_angle(rng.range(-3.2, 3.2))).unwrap();
        let origin = -direction.as_vec2() * 100.0 + direction.perp() * rng.range(-6.0, 6.0);
        let Some(hit) = collisions(&mut app, move |c| {
            c.cast_ray(origin, direction, 300.0, &PixelQueryFilter::default())
        }) else {
            continue;
        };
        hits += 1;
        assert_eq!(hit.entity, target);
        let m = transform.affine().matrix3;
        let faces = [m.x_axis.truncate(), m.y_axis.truncate()];
        let perpendicular = faces
            .iter()
            .any(|face| hit.normal.dot(face.normalize()).abs() < 1e-4);
        assert!(perpendicular, "{hit:?} is along no face of {transform:?}");
        assert!((hit.normal.length() - 1.0).abs() < 1e-4, "{hit:?}");
        assert!(
            hit.normal.dot(direction.as_vec2()) < 0.0,
            "{hit:?} faces away"
        );
        let d = direction.as_vec2() * 0.01;
        let mut solid = |p: Vec2| collisions(&mut app, move |c| c.solid_at(p).contains(&target));
        assert!(solid(hit.point + d) && !solid(hit.point - d), "{hit:?}");
    }
    assert!(hits > 150, "only {hits} of 200 rays hit");
}

/// `with_max_image_pixels`: an image made in code, and an atlas frame, over the limit
/// are reported once each and collide as the placeholder, whole (not as a frame of it,
/// and not refused in turn however low the limit); within it, as drawn.
#[test]
fn the_pixel_limit_applies_to_images_made_in_code_and_to_atlas_frames() {
    let plugin = PixelCollisionPlugin::default().with_max_image_pixels(100);
    let mut app = app_with(AssetPlugin::default(), plugin);
    // Half of it clear: as the placeholder (a checkerboard) it would collide elsewhere.
    let half = |x: u32, _| x < 5;
    let small = add_image(&mut app, image(10, 10, half));
    let large = add_image(&mut app, image(11, 10, half));
    let within = collider_at(&mut app, &small, 0.0);
    let over = collider_at(&mut app, &large, 100.0);
    // A sheet of two frames, each 10 × 10: within; and one of 10 × 11 frames: over.
    let layouts = |app: &mut App, frame: UVec2| {
        app.world_mut()
            .resource_mut::<Assets<TextureAtlasLayout>>()
            .add(TextureAtlasLayout::from_grid(frame, 2, 1, None, None))
    };
    let sheet = add_image(&mut app, image(20, 11, |x, y| half(x % 10, y)));
    let fits = layouts(&mut app, UVec2::new(10, 10));
    let too_big = layouts(&mut app, UVec2::new(10, 11));
    let frame = |app: &mut App, layout: Handle<TextureAtlasLayout>, x: f32| {
        app.world_mut()
            .spawn((
                Sprite::from_atlas_image(sheet.clone(), TextureAtlas { layout, index: 1 }),
                Transform::from_xyz(x, 0.0, 0.0),
                PixelCollider::default(),
            ))
            .id()
    };
    let frame_within = frame(&mut app, fits, 200.0);
    let frame_over = frame(&mut app, too_big, 300.0);
    app.update();
    app.update();
    let problems = app.world().resource::<PixelMasks>().problems().to_vec();
    assert_eq!(problems.len(), 2, "{problems:?}");
    let placeholder = app.world().resource::<PixelMasks>().placeholder().clone();
    for (entity, refused) in [
        (within, false),
        (over, true),
        (frame_within, false),
        (frame_over, true),
    ] {
        let shown = app.world().get::<Sprite>(entity).unwrap().image.clone();
        assert_eq!(shown == placeholder, refused, "{entity:?}");
        let count = collisions(&mut app, move |c| {
            c.collider(entity)
                .and_then(|m| m.placed())
                .map(|(mask, _)| mask.count())
        });
        if refused {
            // The placeholder, whole, whatever the limit.
            let checkerboard = collisions(&mut app, move |c| {
                c.collider(entity)
                    .and_then(|m| m.placed())
                    .map(|(mask, _)| mask.size())
            });
            assert_eq!(checkerboard, Some((64, 64)), "{entity:?}");
            assert!(count.is_some_and(|n| n > 0), "{entity:?}");
        } else {
            assert_eq!(count, Some(50), "{entity:?}: half of 10 × 10");
        }
    }
}

/// The mask is alpha above `threshold`, less the `color_key`'s pixels whatever their
/// alpha, pixel by pixel.
#[test]
fn the_mask_is_alpha_above_the_threshold_less_the_color_key() {
    let mut app = app();
    let (w, h) = (16u32, 12u32);
    let key = [255, 0, 255];
    let pixel = |x: u32, y: u32| -> [u8; 4] {
        let alpha = ((x * 16 + y * 7) % 256) as u8;
        if (x + y).is_multiple_of(5) {
            [key[0], key[1], key[2], 255]
        } else {
            [10, 20, 30, alpha]
        }
    };
    let data = (0..w * h).flat_map(|i| pixel(i % w, i / w)).collect();
    let img = add_image(
        &mut app,
        image_of(TextureFormat::Rgba8UnormSrgb, w, h, data),
    );
    for (threshold, color_key) in [(0, None), (100, None), (100, Some(key)), (254, Some(key))] {
        let e = app
            .world_mut()
            .spawn((
                Sprite::from_image(img.clone()),
                Transform::default(),
                PixelCollider {
                    threshold,
                    color_key,
                    ..default()
                },
            ))
            .id();
        app.update();
        let mask = collisions(&mut app, move |c| {
            c.collider(e).unwrap().mask.as_deref().cloned()
        })
        .expect("a mask");
        for y in 0..h {
            for x in 0..w {
                let [r, g, b, a] = pixel(x, y);
                let keyed = color_key == Some([r, g, b]);
                let expected = a > threshold && !keyed;
                assert_eq!(
                    mask.get(x.into(), y.into()),
                    expected,
                    "({x}, {y}), threshold {threshold}, key {color_key:?}"
                );
            }
        }
        app.world_mut().entity_mut(e).despawn();
    }
}

/// `mask_from_region` reads BGRA as RGBA (the key too, in its own order), collides an
/// image without alpha as its box unless a key clears pixels, and refuses a region
/// outside the image.
#[test]
fn mask_from_region_reads_bgra_and_images_without_alpha() {
    let (w, h) = (9u32, 7u32);
    let rgba: Vec<[u8; 4]> = (0..w * h)
        .map(|i| {
            let (x, y) = (i % w, i / w);
            let red = if (x * y) % 4 == 1 { 250 } else { 40 };
            [red, 5, 60, if (x + 2 * y) % 3 == 0 { 0 } else { 255 }]
        })
        .collect();
    let bgra: Vec<u8> = rgba.iter().flat_map(|&[r, g, b, a]| [b, g, r, a]).collect();
    let rgba_bytes: Vec<u8> = rgba.iter().flatten().copied().collect();
    let region = URect::new(2, 1, 8, 7);
    for key in [None, Some([250, 5, 60])] {
        let from_rgba = mask_from_region(
            &image_of(TextureFormat::Rgba8UnormSrgb, w, h, rgba_bytes.clone()),
            region,
            0,
            key,
        )
        .unwrap();
        let from_bgra = mask_from_region(
            &image_of(TextureFormat::Bgra8UnormSrgb, w, h, bgra.clone()),
            region,
            0,
            key,
        )
        .unwrap();
        assert_eq!(from_bgra, from_rgba, "key {key:?}");
        let keyed = (0..region.height())
            .flat_map(|y| (0..region.width()).map(move |x| (x, y)))
            .filter(|&(x, y)| {
                let [r, g, b, a] = rgba[((y + region.min.y) * w + x + region.min.x) as usize];
                a > 0 && key != Some([r, g, b])
            })
            .count() as u64;
        assert_eq!(from_rgba.count(), keyed, "key {key:?}");
    }
    // One byte a pixel, no alpha: solid, unless keyed (grey 0 is black: key [0, 0, 0]).
    let grey: Vec<u8> = (0..w * h)
        .map(|i| if i % 4 == 0 { 0 } else { 200 })
        .collect();
    let grey_image = image_of(TextureFormat::R8Unorm, w, h, grey.clone());
    let whole = URect::new(0, 0, w, h);
    assert_eq!(
        mask_from_region(&grey_image, whole, 0, None).unwrap(),
        BitMask::solid(w, h).unwrap()
    );
    let keyed = mask_from_region(&grey_image, whole, 0, Some([0, 0, 0])).unwrap();
    let black = grey.iter().filter(|&&v| v == 0).count() as u64;
    assert_eq!(keyed.count(), u64::from(w * h) - black);
    let outside = mask_from_region(&grey_image, URect::new(0, 0, w + 1, h), 0, None);
    assert!(outside.is_err());
}

/// Vertices the debug plugin drew last frame: (line lists, line strips). Read from the
/// gizmo asset Bevy builds for the `PixelDebugGizmos` group, the renderer's input.
fn debug_vertices(app: &App) -> (usize, usize) {
    use bevy::gizmos::GizmoAsset;
    let group = std::any::TypeId::of::<bevy_pixel_collide::debug::PixelDebugGizmos>();
    app.world()
        .resource::<Assets<GizmoAsset>>()
        .iter()
        .filter(|(_, gizmo)| gizmo.config_typeid() == group)
        .map(|(_, gizmo)| {
            let view = gizmo.buffer().buffer();
            (view.list_positions.len(), view.strip_positions.len())
        })
        .fold((0, 0), |sum, n| (sum.0 + n.0, sum.1 + n.1))
}

/// The debug plugin draws what its settings ask for, of every collider not hidden from
/// it: each outline pixel one stroke, a contact only for a touching pair, nothing when
/// all is off.
#[test]
fn the_debug_plugin_draws_what_its_settings_ask_for() {
    let mut app = app_with_more(
        AssetPlugin::default(),
        PixelCollisionPlugin::default(),
        |app| {
            // Gizmos also draw skinned meshes' bounds, which need the mesh assets.
            app.init_asset::<Mesh>()
                .init_asset::<bevy::mesh::skinning::SkinnedMeshInverseBindposes>()
                .add_plugins((bevy::gizmos::GizmoPlugin, PixelCollisionDebugPlugin));
        },
    );
    let blob = add_image(
        &mut app,
        image(20, 14, |x, y| {
            let (u, v) = (x as f32 - 9.5, y as f32 - 6.5);
            u * u / 90.0 + v * v / 42.0 <= 1.0
        }),
    );
    let a = collider_at(&mut app, &blob, 0.0);
    let b = collider_at(&mut app, &blob, 15.0);
    // No camera here works out what is on screen: both are, until said otherwise.
    for e in [a, b] {
        app.world_mut()
            .entity_mut(e)
            .insert(ViewVisibility::VISIBLE);
    }
    let set = |app: &mut App, aabb, oriented_box, outline, contacts| {
        let mut settings = app.world_mut().resource_mut::<PixelDebugSettings>();
        settings.aabb = aabb;
        settings.oriented_box = oriented_box;
        settings.outline = outline;
        settings.contacts = contacts;
        app.update();
        app.update();
        debug_vertices(app)
    };
    assert_eq!(set(&mut app, false, false, false, false), (0, 0));
    let outline = {
        let mask = collisions(&mut app, move |c| {
            c.collider(a).unwrap().mask.as_deref().cloned()
        })
        .unwrap();
        mask.outline().len()
    };
    assert!(collisions(&mut app, move |c| c.touching(a, b)));
    // Two strokes' ends per outline pixel, both sprites the same shape.
    assert_eq!(
        set(&mut app, false, false, true, false),
        (2 * 2 * outline, 0)
    );
    app.world_mut().entity_mut(b).insert(HiddenFromPixelDebug);
    assert_eq!(set(&mut app, false, false, true, false), (2 * outline, 0));
    // Off screen, not drawn either.
    app.world_mut().entity_mut(a).insert(ViewVisibility::HIDDEN);
    assert_eq!(set(&mut app, false, false, true, false), (0, 0));
    app.world_mut()
        .entity_mut(a)
        .insert(ViewVisibility::VISIBLE);
    // A hidden collider's contacts are not drawn either; shown, the touching pair's is.
    assert_eq!(set(&mut app, false, false, false, true), (0, 0));
    app.world_mut()
        .entity_mut(b)
        .remove::<HiddenFromPixelDebug>();
    let contact = set(&mut app, false, false, false, true);
    assert!(contact.0 > 0 && contact.1 > 0, "{contact:?}");
    // Apart: no contact drawn; boxes and oriented boxes for both.
    app.world_mut()
        .get_mut::<Transform>(b)
        .unwrap()
        .translation
        .x = 100.0;
    assert_eq!(set(&mut app, false, false, false, true), (0, 0));
    let boxes = set(&mut app, true, false, false, false);
    let oriented = set(&mut app, false, true, false, false);
    assert!(boxes.0 + boxes.1 > 0, "{boxes:?}");
    // Each oriented box one closed strip of five corners (Bevy ends each strip with a
    // NaN separator).
    assert_eq!(oriented.0, 0);
    assert!(oriented.1 >= 2 * 5, "{oriented:?}");
}

/// `cast_collider` and `cast_mask`: a 2 × 2 bullet fired 10,000 px at a turned wall one
/// pixel thick stops where the core's time of impact against that wall says; the filter's
/// layers and excluded entities pass colliders by, the caster never hits itself, and a
/// cast that starts inside a collider reports it at fraction 0.
#[test]
fn casts_stop_at_the_first_collider_the_filter_accepts() {
    let mut app = app();
    let wall = add_image(&mut app, image(1, 300, |_, _| true));
    let wall_at = |app: &mut App, x: f32| {
        app.world_mut()
            .spawn((
                Sprite::from_image(wall.clone()),
                Transform::from_xyz(x, 0.0, 0.0).with_rotation(Quat::from_rotation_z(0.3)),
                PixelCollider::default(),
            ))
            .id()
    };
    let near = wall_at(&mut app, 100.0);
    let far = wall_at(&mut app, 200.0);
    let shell = square(&mut app, 2);
    let bullet = collider_at(&mut app, &shell, -5_000.0);
    app.update();
    let motion = MaskMotion::translation(Vec2::new(10_000.0, 3.0));
    let cast = move |filter: PixelQueryFilter| {
        move |c: PixelCollisions| c.cast_collider(bullet, motion, &filter)
    };
    let hit = collisions(&mut app, cast(PixelQueryFilter::default())).unwrap();
    assert_eq!(hit.entity, near);
    assert!(!hit.started_inside);
    let core = collisions(&mut app, move |c| {
        let (shell, shell_at) = c.collider(bullet).unwrap().placed().unwrap();
        let (wall, wall_at) = c.collider(near).unwrap().placed().unwrap();
        transformed_time_of_impact(shell, shell_at, motion, wall, wall_at)
    })
    .unwrap();
    assert_eq!(
        (hit.fraction, hit.point, hit.normal),
        (core.fraction, core.point, core.normal)
    );
    // Stopped on the wall's near side, a hair short of its middle line.
    let stop = -5_000.0 + motion.translation.x * hit.fraction;
    assert!((80.0..100.0).contains(&stop), "stopped at {stop}");

    let passing_near = PixelQueryFilter::default().excluding([near]);
    assert_eq!(
        collisions(&mut app, cast(passing_near)).map(|h| h.entity),
        Some(far)
    );
    app.world_mut()
        .entity_mut(near)
        .insert(PixelCollisionLayers::new(0b10, 0b10));
    app.update();
    let ones = PixelQueryFilter::from_layers(0b01);
    assert_eq!(
        collisions(&mut app, cast(ones)).map(|h| h.entity),
        Some(far)
    );
    let nothing = PixelQueryFilter::from_layers(0);
    assert_eq!(collisions(&mut app, cast(nothing)), None);

    // From inside the far wall: it is hit at once; the bullet itself never is.
    let mut inside = BitMask::new(3, 3);
    inside.set(1, 1, true);
    let in_far = Affine2::from_translation(Vec2::new(198.5, -1.5));
    let from_inside = collisions(&mut app, move |c| {
        c.cast_mask(&inside, in_far, motion, &PixelQueryFilter::default())
    })
    .unwrap();
    assert_eq!((from_inside.entity, from_inside.fraction), (far, 0.0));
    assert!(from_inside.started_inside);
    let nan = MaskMotion::translation(Vec2::NAN);
    assert_eq!(
        collisions(&mut app, move |c| c.cast_collider(bullet, nan, &default())),
        None
    );
}

/// `cast_shape`: a circle and a box cast as the world pixels whose centers they cover, so
/// fired at a wall one pixel thick they stop with their outermost such pixel at it; a mask
/// shape casts as `cast_mask`; bad and absurd shapes cast nothing.
#[test]
fn circles_and_boxes_cast_as_their_pixels() {
    let mut app = app();
    let wall_image = add_image(&mut app, image(1, 300, |_, _| true));
    let wall = app
        .world_mut()
        .spawn((
            Sprite::from_image(wall_image),
            Transform::from_xyz(100.5, 0.0, 0.0),
            PixelCollider::default(),
        ))
        .id();
    app.update();
    let motion = MaskMotion::translation(Vec2::new(10_000.0, 0.0));
    let travel = |shape: PixelQueryShape<'static>| {
        move |c: PixelCollisions| {
            c.cast_shape(&shape, motion, &PixelQueryFilter::default())
                .map(|hit| (hit.entity, hit.fraction * 10_000.0))
        }
    };
    let circle = PixelQueryShape::Circle {
        center: Vec2::ZERO,
        radius: 5.0,
    };
    let (hit, went) = collisions(&mut app, travel(circle)).unwrap();
    // Its rightmost covered pixel's center is at x = 4.5; the wall's side at 100.
    assert_eq!(hit, wall);
    assert!((went - 95.5).abs() < 1e-2, "{went}");
    let turned_box = PixelQueryShape::Box {
        center: Vec2::ZERO,
        half_size: Vec2::new(3.0, 2.0),
        rotation: 0.0,
    };
    let (_, went) = collisions(&mut app, travel(turned_box)).unwrap();
    assert!((went - 97.5).abs() < 1e-2, "{went}");
    for bad in [
        PixelQueryShape::Circle {
            center: Vec2::ZERO,
            radius: f32::NAN,
        },
        PixelQueryShape::Circle {
            center: Vec2::ZERO,
            radius: 1e5,
        },
        PixelQueryShape::Box {
            center: Vec2::INFINITY,
            half_size: Vec2::ONE,
            rotation: 0.0,
        },
    ] {
        assert_eq!(collisions(&mut app, travel(bad)), None, "{bad:?}");
    }
}
