//! Pixel masks as colliders in avian2d (feature `avian`): mass properties from the pixels,
//! a crate dropped on a floor that comes to rest on it (not in it, not through it), and a
//! ball that rolls faster down a steeper slope.
//!
//!   cargo test --features avian --test avian
#![cfg(feature = "avian")]

use std::sync::Arc;
use std::time::Duration;

use avian2d::prelude::*;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use pixel_collide::avian::{MaskCollider, MaskColliderPlugins};
use pixel_collide::collision::BitMask;
use pixel_collide::collision::ball::disc_mask;

const FRAME: f64 = 1.0 / 60.0;

fn app() -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        TransformPlugin,
        PhysicsPlugins::default().with_length_unit(20.0),
        MaskColliderPlugins,
    ))
    .insert_resource(Gravity(Vec2::new(0.0, -600.0)))
    .insert_resource(Time::<Fixed>::from_seconds(FRAME))
    .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
        FRAME,
    )));
    app.finish();
    app.cleanup();
    app
}

fn solid(w: u32, h: u32) -> Arc<BitMask> {
    Arc::new(BitMask::solid(w, h).unwrap())
}

#[test]
fn mass_properties_are_summed_over_the_pixels() {
    let rect = MaskCollider::new(solid(40, 20));
    assert_eq!(rect.mass(2.0), 2.0 * 800.0);
    assert!(rect.center_of_mass().length() < 1e-4);
    let analytic = (40.0f32 * 40.0 + 20.0 * 20.0) / 12.0;
    assert!((rect.unit_angular_inertia() - analytic).abs() < 1e-3 * analytic);

    let disc = MaskCollider::new(Arc::new(disc_mask(64)));
    let r = 32.0f32;
    let area = std::f32::consts::PI * r * r;
    // Within a pixel's worth along the rim.
    assert!((disc.mass(1.0) - area).abs() < 2.0 * std::f32::consts::PI * r);
    assert!((disc.unit_angular_inertia() - r * r / 2.0).abs() < 0.05 * r * r / 2.0);
    assert!(disc.center_of_mass().length() < 0.5);

    // An L: its centre of mass sits in the corner's quarter, below and left of the box's.
    let mut l = BitMask::new(40, 40);
    for y in 0..40 {
        for x in 0..40 {
            l.set(x, y, x < 10 || y >= 30);
        }
    }
    let l = MaskCollider::new(Arc::new(l));
    let c = l.center_of_mass();
    assert!(c.x < -5.0 && c.y < -5.0, "{c}");
}

fn spawn_floor(app: &mut App, at: Vec2, angle: f32, size: (u32, u32)) -> Entity {
    app.world_mut()
        .spawn((
            RigidBody::Static,
            MaskCollider::new(solid(size.0, size.1)),
            Transform::from_translation(at.extend(0.0)).with_rotation(Quat::from_rotation_z(angle)),
        ))
        .id()
}

#[test]
fn a_crate_dropped_on_a_floor_comes_to_rest_on_it() {
    let mut app = app();
    // Floor top at y = -90.
    spawn_floor(&mut app, Vec2::new(0.0, -100.0), 0.0, (400, 20));
    let crate_ = app
        .world_mut()
        .spawn((
            RigidBody::Dynamic,
            MaskCollider::new(solid(24, 24)),
            Transform::from_xyz(0.0, 60.0, 0.0),
        ))
        .id();
    let mut rested_at = None;
    for frame in 0..360 {
        app.update();
        let t = app.world().get::<Transform>(crate_).unwrap().translation;
        let bottom = t.y - 12.0;
        assert!(
            bottom > -90.0 - 3.0,
            "frame {frame}: sank into the floor, bottom at {bottom}"
        );
        let v = app.world().get::<LinearVelocity>(crate_).unwrap().0;
        if rested_at.is_none() && (bottom + 90.0).abs() < 1.5 && v.length() < 1.0 {
            rested_at = Some(frame);
        }
    }
    let rested = rested_at.expect("the crate came to rest on the floor");
    assert!(rested < 240, "at rest within 4 s: frame {rested}");
    let t = app.world().get::<Transform>(crate_).unwrap();
    assert!(
        (t.translation.y - 12.0 + 90.0).abs() < 1.5,
        "{}",
        t.translation
    );
    assert!(
        t.translation.x.abs() < 2.0,
        "it fell straight: {}",
        t.translation
    );
}

/// How far a ball rolls in 2 s down a slope of `angle` radians.
fn roll(angle: f32) -> f32 {
    let mut app = app();
    spawn_floor(&mut app, Vec2::ZERO, -angle, (900, 20));
    // On the slope's surface near its top end, a little above it.
    let along = Vec2::from_angle(-angle);
    let up = along.perp();
    let start = -along * 300.0 + up * (10.0 + 16.0 + 2.0);
    let ball = app
        .world_mut()
        .spawn((
            RigidBody::Dynamic,
            MaskCollider::new(Arc::new(disc_mask(32))),
            Friction::new(0.8),
            Transform::from_translation(start.extend(0.0)),
        ))
        .id();
    for _ in 0..120 {
        app.update();
    }
    let end = app
        .world()
        .get::<Transform>(ball)
        .unwrap()
        .translation
        .truncate();
    (end - start).dot(along)
}

#[test]
fn a_ball_rolls_faster_down_a_steeper_slope() {
    let gentle = roll(0.15);
    let steep = roll(0.45);
    println!("rolled {gentle:.0} px at 0.15 rad, {steep:.0} px at 0.45 rad");
    assert!(gentle > 20.0, "it rolls at all: {gentle}");
    assert!(steep > gentle * 1.5, "{steep} against {gentle}");
}
