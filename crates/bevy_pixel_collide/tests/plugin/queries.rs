//! `PixelCollisions`' spatial queries against brute force: seeded worlds of sprites
//! (random pixels, turned, scaled unevenly, flipped, some atlas frames), random layers,
//! some entities excluded; each answer compared with the core's query run on every
//! collider's placed mask, the filter applied by hand, no box culled. The core's queries
//! are tested against every pixel in `pixel_collide`'s own tests, and the placed masks
//! against the drawn sprites by the screenshot test (`tests/harness/point_query.rs`).

use bevy::math::Affine2;
use bevy::prelude::*;
use bevy_pixel_collide::prelude::*;
use pixel_collide::{
    convex_polygon_touches, nearest_solid_pixel, transformed_intersects, transformed_time_of_impact,
};
use pixel_collide_support::rng::SplitMix64;

use super::pixels::{add_image, app, collisions, image};

struct World {
    app: App,
    colliders: Vec<Entity>,
}

fn seeded_world(seed: u64) -> World {
    let mut app = app();
    let mut rng = SplitMix64(seed);
    let mut colliders = Vec::new();
    for _ in 0..12 {
        let (w, h) = (4 + rng.below(40) as u32, 4 + rng.below(40) as u32);
        let pixel_seed = rng.next_u64();
        let solid = move |x: u32, y: u32| {
            let mut r = SplitMix64(pixel_seed ^ u64::from(x) << 20 ^ u64::from(y));
            r.chance(0.35)
        };
        let mut sprite = if rng.chance(0.25) {
            // The second frame of a two-frame sheet.
            let sheet = add_image(&mut app, image(w * 2, h, solid));
            let layout = app
                .world_mut()
                .resource_mut::<Assets<TextureAtlasLayout>>()
                .add(TextureAtlasLayout::from_grid(
                    UVec2::new(w, h),
                    2,
                    1,
                    None,
                    None,
                ));
            Sprite::from_atlas_image(sheet, TextureAtlas { layout, index: 1 })
        } else {
            Sprite::from_image(add_image(&mut app, image(w, h, solid)))
        };
        sprite.flip_x = rng.chance(0.3);
        sprite.flip_y = rng.chance(0.3);
        let scale = Vec3::new(rng.range(0.5, 2.5), rng.range(0.5, 2.5), 1.0);
        let transform = Transform::from_xyz(rng.range(-80.0, 80.0), rng.range(-80.0, 80.0), 0.0)
            .with_rotation(Quat::from_rotation_z(rng.range(-3.2, 3.2)))
            .with_scale(scale);
        let layers = PixelCollisionLayers::new(1 << rng.below(3), u32::MAX);
        colliders.push(
            app.world_mut()
                .spawn((sprite, transform, PixelCollider::default(), layers))
                .id(),
        );
    }
    app.update();
    app.update();
    World { app, colliders }
}

fn random_filter(rng: &mut SplitMix64, colliders: &[Entity]) -> PixelQueryFilter {
    let layers = rng.below(8) as u32;
    let excluded = colliders.iter().copied().filter(|_| rng.chance(0.2));
    PixelQueryFilter::from_layers(layers).excluding(excluded)
}

/// The colliders a filter accepts, each with its placed mask, as the last pass left them.
fn accepted(
    app: &mut App,
    colliders: &[Entity],
    filter: &PixelQueryFilter,
) -> Vec<(Entity, pixel_collide::BitMask, Affine2)> {
    colliders
        .iter()
        .filter_map(|&e| {
            let layers = *app.world().get::<PixelCollisionLayers>(e)?;
            if !filter.accepts(e, Some(&layers)) {
                return None;
            }
            let placed = app.world().get::<PixelColliderMask>(e)?;
            let (mask, to_world) = placed.placed()?;
            Some((e, mask.clone(), to_world))
        })
        .collect()
}

#[test]
fn every_query_agrees_with_the_core_on_every_collider() {
    let mut checked = [0usize; 7];
    for seed in 0..4u64 {
        let World { mut app, colliders } = seeded_world(0x5ea7 + seed);
        let mut rng = SplitMix64(seed);
        for case in 0..60 {
            let filter = random_filter(&mut rng, &colliders);
            let bodies = accepted(&mut app, &colliders, &filter);
            let point = Vec2::new(rng.range(-110.0, 110.0), rng.range(-110.0, 110.0));
            let what = format!("seed {seed} case {case}");

            // Every hit along a ray, nearest first.
            let direction = Dir2::new(Vec2::from_angle(rng.range(-3.2, 3.2))).unwrap();
            let reach = rng.range(0.0, 300.0);
            let mut expected: Vec<(f32, Entity)> = bodies
                .iter()
                .filter_map(|(e, mask, to_world)| {
                    let to_mask = to_world.inverse();
                    let hit = mask.ray_cast(
                        to_mask.transform_point2(point),
                        to_mask.transform_vector2(direction.as_vec2()),
                        reach,
                    )?;
                    Some((hit.t, *e))
                })
                .collect();
            expected.sort_by(|a, b| a.partial_cmp(b).unwrap());
            let f = filter.clone();
            let hits = collisions(&mut app, move |c| {
                c.ray_hits(point, direction, reach, 99, &f)
            });
            let got: Vec<(f32, Entity)> = hits.iter().map(|h| (h.distance, h.entity)).collect();
            assert_eq!(got, expected, "{what}: ray hits");
            let f = filter.clone();
            let first = collisions(&mut app, move |c| c.cast_ray(point, direction, reach, &f));
            assert_eq!(
                first.map(|h| (h.distance, h.entity)),
                expected.first().copied()
            );
            checked[0] += expected.len();

            // What the point is inside.
            let mut expected: Vec<Entity> = bodies
                .iter()
                .filter(|(_, mask, to_world)| {
                    let p = to_world.inverse().transform_point2(point);
                    p.x >= 0.0 && p.y >= 0.0 && mask.get(p.x as i64, p.y as i64)
                })
                .map(|(e, ..)| *e)
                .collect();
            expected.sort();
            let f = filter.clone();
            let got = collisions(&mut app, move |c| c.point_intersections(point, &f));
            assert_eq!(got, expected, "{what}: point intersections");
            checked[1] += expected.len();

            // The nearest solid pixel.
            let max_distance = rng.range(0.0, 60.0);
            let expected = bodies
                .iter()
                .filter_map(|(e, mask, to_world)| {
                    let found = nearest_solid_pixel(mask, *to_world, point, max_distance)?;
                    Some((found.distance, *e))
                })
                .min_by(|a, b| a.partial_cmp(b).unwrap());
            let f = filter.clone();
            let got = collisions(&mut app, move |c| c.project_point(point, max_distance, &f));
            assert_eq!(
                got.map(|g| (g.distance, g.entity)),
                expected,
                "{what}: nearest"
            );
            checked[2] += usize::from(expected.is_some());

            // What a circle, a turned box and a mask cover.
            let radius = rng.range(0.0, 30.0);
            let half_size = Vec2::new(rng.range(0.0, 30.0), rng.range(0.0, 30.0));
            let rotation = rng.range(-3.2, 3.2);
            let mut stamp = pixel_collide::BitMask::new(9, 5);
            stamp.fill_circle(4.5, 2.5, 2.5);
            let stamp_to_world =
                pixel_collide::sprite_to_world(point, rotation, Vec2::splat(3.0), stamp.size());
            let corners = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)].map(|(u, v)| {
                point + Vec2::from_angle(rotation).rotate(half_size * Vec2::new(u, v))
            });
            type Covers<'a> = Box<dyn Fn(&pixel_collide::BitMask, Affine2) -> bool + 'a>;
            let checks: [(PixelQueryShape, Covers); 3] = [
                (
                    PixelQueryShape::Circle {
                        center: point,
                        radius,
                    },
                    Box::new(|m, t| nearest_solid_pixel(m, t, point, radius).is_some()),
                ),
                (
                    PixelQueryShape::Box {
                        center: point,
                        half_size,
                        rotation,
                    },
                    Box::new(|m, t| convex_polygon_touches(m, t, &corners)),
                ),
                (
                    PixelQueryShape::Mask {
                        mask: &stamp,
                        to_world: stamp_to_world,
                    },
                    Box::new(|m, t| transformed_intersects(&stamp, stamp_to_world, m, t)),
                ),
            ];
            for (shape, covers) in checks {
                let mut expected: Vec<Entity> = bodies
                    .iter()
                    .filter(|(_, m, t)| covers(m, *t))
                    .map(|(e, ..)| *e)
                    .collect();
                expected.sort();
                let (f, shape_owned) = (filter.clone(), owned(&shape));
                let got = collisions(&mut app, move |c| {
                    c.shape_intersections(&shape_owned.as_shape(), &f)
                });
                assert_eq!(got, expected, "{what}: {shape:?}");
                checked[3] += expected.len();
            }

            // Where a moving mask first touches.
            let motion = MaskMotion::translation(
                Vec2::from_angle(rng.range(-3.2, 3.2)) * rng.range(1.0, 400.0),
            );
            let expected = bodies
                .iter()
                .filter_map(|(e, m, t)| {
                    let hit = transformed_time_of_impact(&stamp, stamp_to_world, motion, m, *t)?;
                    Some((hit.fraction, *e))
                })
                .min_by(|a, b| a.partial_cmp(b).unwrap());
            let (f, s) = (filter.clone(), stamp.clone());
            let got = collisions(&mut app, move |c| {
                c.cast_mask(&s, stamp_to_world, motion, &f)
            });
            match (got, expected) {
                (None, None) => {}
                (Some(got), Some((fraction, entity))) => {
                    // The plugin casts a shortened motion against later colliders: the
                    // same path, so the same first touch, to f32's rounding.
                    assert!(
                        (got.fraction - fraction).abs() < 1e-5,
                        "{what}: {got:?} against {fraction}"
                    );
                    if (got.fraction - fraction).abs() == 0.0 {
                        assert_eq!(got.entity, entity, "{what}");
                    }
                    checked[4] += 1;
                }
                (got, expected) => panic!("{what}: cast {got:?} against {expected:?}"),
            }
            checked[5] += 1;

            // Every collider the moving mask touches, earliest first.
            let mut expected: Vec<(f32, Entity)> = bodies
                .iter()
                .filter_map(|(e, m, t)| {
                    let hit = transformed_time_of_impact(&stamp, stamp_to_world, motion, m, *t)?;
                    Some((hit.fraction, *e))
                })
                .collect();
            expected.sort_by(|a, b| a.partial_cmp(b).unwrap());
            let (f, s) = (filter.clone(), stamp.clone());
            let hits = collisions(&mut app, move |c| {
                c.cast_mask_hits(&s, stamp_to_world, motion, 99, &f)
            });
            let got: Vec<(f32, Entity)> = hits.iter().map(|h| (h.fraction, h.entity)).collect();
            assert_eq!(got, expected, "{what}: every hit of the cast");
            checked[6] += usize::from(expected.len() > 1);
        }
    }
    // Each query found something often enough for the comparison to mean something.
    assert!(checked.iter().all(|&n| n > 10), "{checked:?}");
}

/// A query shape that a system can own: the mask kept by value.
enum OwnedShape {
    Circle(Vec2, f32),
    Box(Vec2, Vec2, f32),
    Mask(std::sync::Arc<pixel_collide::BitMask>, Affine2),
}

fn owned(shape: &PixelQueryShape) -> OwnedShape {
    match *shape {
        PixelQueryShape::Circle { center, radius } => OwnedShape::Circle(center, radius),
        PixelQueryShape::Box {
            center,
            half_size,
            rotation,
        } => OwnedShape::Box(center, half_size, rotation),
        PixelQueryShape::Mask { mask, to_world } => {
            OwnedShape::Mask(std::sync::Arc::new(mask.clone()), to_world)
        }
    }
}

impl OwnedShape {
    fn as_shape(&self) -> PixelQueryShape<'_> {
        match self {
            OwnedShape::Circle(center, radius) => PixelQueryShape::Circle {
                center: *center,
                radius: *radius,
            },
            OwnedShape::Box(center, half_size, rotation) => PixelQueryShape::Box {
                center: *center,
                half_size: *half_size,
                rotation: *rotation,
            },
            OwnedShape::Mask(mask, to_world) => PixelQueryShape::Mask {
                mask,
                to_world: *to_world,
            },
        }
    }
}

/// Each `_predicate` form answers as its plain form with the colliders the predicate
/// rejects excluded by the filter (which the test above holds to brute force).
#[test]
fn predicates_answer_as_excluding_what_they_reject() {
    let World { mut app, colliders } = seeded_world(0x9e0d);
    let mut rng = SplitMix64(0x9e0d);
    let mut differed = 0;
    for case in 0..120 {
        let filter = random_filter(&mut rng, &colliders);
        let kept: Vec<Entity> = colliders
            .iter()
            .copied()
            .filter(|_| rng.chance(0.6))
            .collect();
        let rejected = colliders.iter().copied().filter(|e| !kept.contains(e));
        let excluding = filter.clone().excluding(rejected);
        let point = Vec2::new(rng.range(-110.0, 110.0), rng.range(-110.0, 110.0));
        let direction = Dir2::new(Vec2::from_angle(rng.range(-3.2, 3.2))).unwrap();
        let reach = rng.range(0.0, 300.0);
        let motion = MaskMotion::translation(Vec2::from_angle(rng.range(-3.2, 3.2)) * 150.0);
        let shape = PixelQueryShape::Circle {
            center: point,
            radius: rng.range(1.0, 12.0),
        };
        let shape = owned(&shape);
        let (f, e) = (filter.clone(), excluding.clone());
        let (by_predicate, by_filter, plain) = collisions(&mut app, move |c| {
            let keep = |entity: Entity| kept.contains(&entity);
            let shape = shape.as_shape();
            (
                (
                    c.cast_ray_predicate(point, direction, reach, &f, &keep),
                    c.project_point_predicate(point, 40.0, &f, &keep),
                    c.cast_shape_predicate(&shape, motion, &f, &keep),
                ),
                (
                    c.cast_ray(point, direction, reach, &e),
                    c.project_point(point, 40.0, &e),
                    c.cast_shape(&shape, motion, &e),
                ),
                (
                    c.cast_ray(point, direction, reach, &f),
                    c.project_point(point, 40.0, &f),
                    c.cast_shape(&shape, motion, &f),
                ),
            )
        });
        assert_eq!(by_predicate, by_filter, "case {case}");
        differed += usize::from(by_predicate != plain);
    }
    // The predicates did reject the answer at times: the test would see one ignored.
    assert!(
        differed > 10,
        "{differed} cases where a predicate changed the answer"
    );
}

/// Callbacks stop when told, and bad input finds nothing.
#[test]
fn callbacks_stop_when_told_and_bad_input_finds_nothing() {
    let World { mut app, colliders } = seeded_world(0xca11);
    let everything = PixelQueryShape::Circle {
        center: Vec2::ZERO,
        radius: 1e4,
    };
    let all = collisions(&mut app, move |c| {
        c.shape_intersections(&everything, &PixelQueryFilter::default())
    });
    assert_eq!(all.len(), colliders.len());
    let counted = collisions(&mut app, move |c| {
        let mut seen = 0;
        c.shape_intersections_callback(&everything, &default(), |_| {
            seen += 1;
            seen < 3
        });
        seen
    });
    assert_eq!(counted, 3);
    let bad = collisions(&mut app, |c| {
        let nothing = PixelQueryFilter::default();
        (
            c.point_intersections(Vec2::NAN, &nothing).len(),
            c.ray_hits(Vec2::NAN, Dir2::X, 100.0, 9, &nothing).len(),
            c.ray_hits(Vec2::ZERO, Dir2::X, f32::NAN, 9, &nothing).len(),
            c.project_point(Vec2::ZERO, -1.0, &nothing).is_some(),
            c.project_point(Vec2::INFINITY, 10.0, &nothing).is_some(),
            c.shape_intersections(
                &PixelQueryShape::Circle {
                    center: Vec2::ZERO,
                    radius: f32::NAN,
                },
                &nothing,
            )
            .len(),
            c.shape_intersections(
                &PixelQueryShape::Box {
                    center: Vec2::ZERO,
                    half_size: Vec2::new(5.0, -1.0),
                    rotation: 0.0,
                },
                &nothing,
            )
            .len(),
        )
    });
    assert_eq!(bad, (0, 0, 0, false, false, 0, 0));
}
