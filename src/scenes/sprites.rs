//! Scenes "Pixel-accurate collision" and "Rotated pixel collision": the classic flower and
//! target. The player moves (and in the second scene rotates) both; every frame the
//! [`PixelCollisionPlugin`](bevy_pixel_collide::PixelCollisionPlugin) runs its box test first
//! and the per-pixel test only when the boxes overlap. While the pixels touch, a soccer
//! ball marks the contact point.

use bevy::math::bounding::IntersectsVolume;
use bevy::prelude::*;

use crate::autoplay::AutoplaySystems;
use crate::input::Controls;
use crate::play_area::PlayArea;
use crate::scene::GameScene;
use crate::{AppSystems, CollisionStats, StatusLine};
use bevy_pixel_collide::{
    PixelCollider, PixelColliderMask, PixelCollisionSystems, PixelCollisions,
};
use pixel_collide::Contact;

/// Pixels per second at full stick.
pub const MOVE_SPEED: f32 = 320.0;
/// Radians per second at full button.
pub const TURN_SPEED: f32 = 2.0;

/// Which input drives a sprite.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Driven {
    /// WASD / left stick: the flower.
    Primary,
    /// Arrows / right stick: the target.
    Secondary,
}

/// Marks the soccer ball shown at the contact point.
#[derive(Component, Debug, Default)]
pub struct ContactMarker;

/// The flower–target pair as of this frame.
#[derive(Resource, Debug, Clone, Copy, Default, PartialEq)]
pub struct PairReport {
    /// The boxes (rotated sprites' world AABBs) overlap.
    pub boxes: bool,
    /// Opaque pixels overlap.
    pub pixels: bool,
    /// Where and how they touch, while they do.
    pub contact: Option<Contact>,
    /// The target's position, for the status line.
    pub target_position: Vec2,
}

fn in_sprite_scene(scene: Option<Res<State<GameScene>>>) -> bool {
    scene.is_some_and(|s| matches!(s.get(), GameScene::PixelAccurate | GameScene::Rotated))
}

pub(crate) fn plugin(app: &mut App) {
    app.init_resource::<PairReport>();
    for scene in [GameScene::PixelAccurate, GameScene::Rotated] {
        app.add_systems(OnEnter(scene), spawn_scene)
            // Other scenes read the report (debug colors): it must not outlive its scene.
            .add_systems(OnExit(scene), |mut report: ResMut<PairReport>| {
                *report = default()
            });
    }
    app.add_systems(
        Update,
        move_sprites
            .in_set(AppSystems::Update)
            .run_if(in_sprite_scene),
    )
    .add_systems(
        Update,
        autoplay.in_set(AutoplaySystems).run_if(in_sprite_scene),
    )
    // After the plugin's pass, which runs once transforms are propagated: the report is
    // about what is drawn this frame.
    .add_systems(
        PostUpdate,
        (collide, place_marker)
            .chain()
            .after(PixelCollisionSystems::Events)
            .run_if(in_sprite_scene),
    );
}

fn spawn_scene(
    mut commands: Commands,
    scene: Res<State<GameScene>>,
    assets: Res<AssetServer>,
    mut report: ResMut<PairReport>,
) {
    let scene = *scene.get();
    *report = PairReport::default();
    commands.spawn((
        Name::new("Flower"),
        Sprite::from_image(assets.load("flower.png")),
        Transform::from_xyz(-220.0, 0.0, 0.0).with_rotation(Quat::from_rotation_z(
            if scene == GameScene::Rotated {
                0.35
            } else {
                0.0
            },
        )),
        PixelCollider::default(),
        Driven::Primary,
        DespawnOnExit(scene),
    ));
    commands.spawn((
        Name::new("Target"),
        Sprite::from_image(assets.load("target.png")),
        // Resting on a petal's tip, so the first screen already shows a pixel contact;
        // a move away shows the difference between the box and the pixel test.
        Transform::from_xyz(-110.0, 95.0, 1.0),
        PixelCollider::default(),
        Driven::Secondary,
        DespawnOnExit(scene),
    ));
    commands.spawn((
        Name::new("Contact marker"),
        Sprite::from_image(assets.load("soccer_ball.png")),
        Transform::from_xyz(0.0, 0.0, 5.0),
        Visibility::Hidden,
        ContactMarker,
        DespawnOnExit(scene),
    ));
}

/// Moves and turns the sprites by the player's input, then keeps each one's whole box in
/// the play area: every frame, so a window made smaller pulls them back in too.
fn move_sprites(
    time: Res<Time>,
    controls: Res<Controls>,
    scene: Res<State<GameScene>>,
    area: Res<PlayArea>,
    mut sprites: Query<(&Driven, &mut Transform, &PixelColliderMask)>,
) {
    let dt = time.delta_secs();
    let rotates = *scene.get() == GameScene::Rotated;
    for (driven, mut transform, collider) in &mut sprites {
        let (movement, turn) = match driven {
            Driven::Primary => (controls.move_primary, controls.rotate_primary),
            Driven::Secondary => (controls.move_secondary, controls.rotate_secondary),
        };
        if rotates && turn != 0.0 {
            transform.rotate_z(turn * TURN_SPEED * dt);
        }
        // The image's whole rectangle, turned and scaled as drawn (centered anchor); a
        // sprite whose image is still loading is kept in by its center.
        let half = collider.mask.as_ref().map_or(Vec2::ZERO, |mask| {
            let half_size = Vec2::new(mask.width() as f32, mask.height() as f32) / 2.0;
            let x_axis = (transform.rotation * Vec3::X).truncate() * transform.scale.x;
            let y_axis = (transform.rotation * Vec3::Y).truncate() * transform.scale.y;
            x_axis.abs() * half_size.x + y_axis.abs() * half_size.y
        });
        let moved = transform.translation.truncate() + movement * MOVE_SPEED * dt;
        let position = area.keep_inside(moved, half);
        if transform.translation.truncate() != position {
            transform.translation.x = position.x;
            transform.translation.y = position.y;
        }
    }
}

fn collide(
    collisions: PixelCollisions,
    sprites: Query<(Entity, &Driven, &GlobalTransform, &PixelColliderMask)>,
    mut report: ResMut<PairReport>,
    mut stats: ResMut<CollisionStats>,
) {
    let find = |which: Driven| sprites.iter().find(|(_, d, _, _)| **d == which);
    let (Some((flower, _, _, flower_mask)), Some((target, _, target_at, target_mask))) =
        (find(Driven::Primary), find(Driven::Secondary))
    else {
        return;
    };
    // The tutorial's box test is on the sprites' whole rectangles (the plugin's own boxes
    // are tighter: its set pixels'). An image still loading has none: nothing to say yet.
    let boxes = match (flower_mask.world_rect(), target_mask.world_rect()) {
        (Some(a), Some(b)) => a.intersects(&b),
        _ => false,
    };
    let pixels = collisions.touching(flower, target);
    *report = PairReport {
        boxes,
        pixels,
        contact: pixels.then(|| collisions.contact(flower, target)).flatten(),
        target_position: target_at.translation().truncate(),
    };
    let pass = collisions.stats();
    *stats = CollisionStats {
        broad_pairs: pass.box_pairs as u32,
        pixel_tests: pass.box_pairs as u32,
        contacts: pass.touching as u32,
        micros: pass.broad_micros + pass.narrow_micros,
    };
}

fn yes_no(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

fn place_marker(
    report: Res<PairReport>,
    mut status: ResMut<StatusLine>,
    mut marker: Query<(&mut Transform, &mut GlobalTransform, &mut Visibility), With<ContactMarker>>,
) {
    status.0 = format!(
        "Primitive collide: {} · Pixel collide: {}    Target at ({:.0}, {:.0})",
        yes_no(report.boxes),
        yes_no(report.pixels),
        report.target_position.x,
        report.target_position.y
    );
    for (mut transform, mut global, mut visibility) in &mut marker {
        match report.contact {
            Some(contact) => {
                transform.translation.x = contact.point.x;
                transform.translation.y = contact.point.y;
                // Transforms were propagated before the collision pass; the marker has no
                // parent, so its global transform is its transform.
                *global = GlobalTransform::from(*transform);
                *visibility = Visibility::Visible;
            }
            None => *visibility = Visibility::Hidden,
        }
    }
}

/// `--autoplay`: the target drifts into the flower until the pixels touch (the contact
/// marker shows), then wanders along it; in the rotated scene both turn.
fn autoplay(
    time: Res<Time>,
    scene: Res<State<GameScene>>,
    report: Res<PairReport>,
    driven: Query<(&Driven, &GlobalTransform)>,
    mut controls: ResMut<Controls>,
) {
    let t = time.elapsed_secs();
    let at = |which| {
        driven
            .iter()
            .find(|(d, _)| **d == which)
            .map(|(_, g)| g.translation().truncate())
    };
    let (Some(flower), Some(target)) = (at(Driven::Primary), at(Driven::Secondary)) else {
        return;
    };
    let towards = (flower - target).normalize_or_zero();
    controls.move_secondary = if report.pixels {
        Vec2::new(0.0, (t * 1.3).sin()) * 0.6
    } else {
        towards * 0.8
    };
    if *scene.get() == GameScene::Rotated {
        controls.rotate_primary = 0.6;
        controls.rotate_secondary = -0.4;
    }
}
