//! `--autoplay`: scripted input that makes each scene show what it is about, for the
//! README's clips (`--record`): the target drifts into the flower until the contact
//! marker shows, Larry walks to the nearest clover, the active hitbox circles, the terrain
//! gets thrown at (and, once, the bridge under the hilltop blown, so the hilltop tumbles).
//! It writes
//! [`Controls`] after the devices are read, so the scenes run exactly as for a player.

use bevy::prelude::*;

use super::input::Controls;
use super::scene::GameScene;
use super::scenes::larry::{Clover, Larry};
use super::scenes::sprites::{Driven, PairReport};
use super::scenes::terrain::TerrainSim;
use super::{AppSystems, GameOptions};

pub(super) fn plugin(app: &mut App) {
    app.add_systems(
        Update,
        (steer, blow_the_bridge)
            .after(super::input::read_controls)
            .in_set(AppSystems::ReadInput)
            .run_if(|options: Res<GameOptions>| options.autoplay),
    );
}

/// Where the bridge that holds the hilltop is (world px), and when autoplay blows it.
const BRIDGE: Vec2 = Vec2::new(360.0, 24.0);
const BRIDGE_AT_SECONDS: f32 = 4.0;

/// Once per round, a crater at the bridge: the hilltop comes loose and tumbles.
fn blow_the_bridge(
    time: Res<Time>,
    scene: Res<State<GameScene>>,
    sim: Option<ResMut<TerrainSim>>,
    mut blown: Local<bool>,
) {
    let Some(mut sim) = sim.filter(|_| *scene.get() == GameScene::Terrain) else {
        *blown = false;
        return;
    };
    if !*blown && time.elapsed_secs() >= BRIDGE_AT_SECONDS {
        *blown = true;
        sim.explode_at(BRIDGE);
    }
}

fn steer(
    time: Res<Time>,
    scene: Res<State<GameScene>>,
    report: Option<Res<PairReport>>,
    driven: Query<(&Driven, &GlobalTransform)>,
    larry: Query<&GlobalTransform, With<Larry>>,
    clovers: Query<&GlobalTransform, With<Clover>>,
    mut controls: ResMut<Controls>,
) {
    let t = time.elapsed_secs();
    match scene.get() {
        GameScene::PixelAccurate | GameScene::Rotated => {
            let at = |which| {
                driven
                    .iter()
                    .find(|(d, _)| **d == which)
                    .map(|(_, g)| g.translation().truncate())
            };
            let (Some(flower), Some(target)) = (at(Driven::Primary), at(Driven::Secondary)) else {
                return;
            };
            // Towards the flower until the pixels touch, then wander along it.
            let touching = report.is_some_and(|r| r.pixels);
            let towards = (flower - target).normalize_or_zero();
            controls.move_secondary = if touching {
                Vec2::new(0.0, (t * 1.3).sin()) * 0.6
            } else {
                towards * 0.8
            };
            if *scene.get() == GameScene::Rotated {
                controls.rotate_primary = 0.6;
                controls.rotate_secondary = -0.4;
            }
        }
        GameScene::Larry => {
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
        GameScene::Hitboxes => {
            controls.move_primary = Vec2::new(t.cos(), t.sin()) * 0.7;
            controls.rotate_primary = 0.5;
        }
        // A new ball every four seconds.
        GameScene::Basketball => {
            controls.action = t % 4.0 < time.delta_secs();
        }
        // The crowd moves on its own.
        GameScene::Crowd => {}
        // Sweep the aim up and down; throw every three seconds (a throw explodes where it
        // comes to rest); Larry walks right, then left.
        GameScene::Terrain => {
            controls.move_primary = Vec2::new(0.3 * (t * 0.7).cos(), (t * 0.9).sin());
            controls.move_secondary = Vec2::new((t * 0.4).sin().signum(), 0.0);
            controls.action = t % 3.0 < time.delta_secs();
        }
    }
}
