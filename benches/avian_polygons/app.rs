//! The app and its timing: one side's physics app, and a step's time split by avian's
//! sets.

use std::time::{Duration, Instant};

use avian2d::prelude::*;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_pixel_collide::avian::{MaskColliderPlugin, MaskContacts};

use crate::{GRAVITY, LENGTH_UNIT, STEP, Side};

/// When the physics step reached each of avian's sets, this step.
#[derive(Resource, Default)]
pub struct PhaseClock {
    pub marks: [Option<Instant>; 4],
    pub steps: u64,
}

fn mark<const K: usize>(mut clock: ResMut<PhaseClock>) {
    clock.marks[K] = Some(Instant::now());
    if K == 3 {
        clock.steps += 1;
    }
}

/// One physics app: the game's physics (`src/physics.rs`) in a headless app, every core in
/// the compute pool as the game has it, one fixed step per update. Each side has only its
/// own collider type, as a game using one of them would: avian 0.7 adds its collider
/// trees' update systems once per collider type, and two of them in one app are ambiguous
/// (its physics schedule refuses to start).
/// How the mask side finds its contacts ([`MaskContacts`]'s settings).
#[derive(Debug, Clone, Copy)]
pub struct ContactSettings {
    pub tolerance: f32,
    pub prediction_threshold: f32,
}

pub fn physics_app(side: Side, contacts: ContactSettings) -> App {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut options = TaskPoolOptions::default();
    options.compute.min_threads = cores;
    let mut app = App::new();
    let mut mask_contacts = MaskContacts::with_tolerance(contacts.tolerance);
    mask_contacts.prediction_threshold = contacts.prediction_threshold;
    app.insert_resource(mask_contacts);
    app.add_plugins((
        MinimalPlugins.set(TaskPoolPlugin {
            task_pool_options: options,
        }),
        TransformPlugin,
    ));
    match side {
        Side::Masks => app.add_plugins((
            PhysicsPlugins::default()
                .with_length_unit(LENGTH_UNIT)
                .build()
                .disable::<ColliderBackendPlugin<Collider>>()
                .disable::<ColliderTreePlugin<Collider>>()
                .disable::<NarrowPhasePlugin<Collider>>(),
            MaskColliderPlugin,
        )),
        Side::Polygons => app.add_plugins(PhysicsPlugins::default().with_length_unit(LENGTH_UNIT)),
    };
    app.insert_resource(Gravity(Vec2::new(0.0, -GRAVITY)))
        .insert_resource(Time::<Fixed>::from_seconds(STEP))
        .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
            STEP,
        )))
        .init_resource::<PhaseClock>()
        .add_systems(
            PhysicsSchedule,
            (
                mark::<0>
                    .after(PhysicsStepSystems::First)
                    .before(PhysicsStepSystems::BroadPhase),
                mark::<1>
                    .after(PhysicsStepSystems::BroadPhase)
                    .before(PhysicsStepSystems::NarrowPhase),
                mark::<2>
                    .after(PhysicsStepSystems::NarrowPhase)
                    .before(PhysicsStepSystems::Solver),
                mark::<3>
                    .after(PhysicsStepSystems::Solver)
                    .before(PhysicsStepSystems::Sleeping),
            )
                .ambiguous_with_all(),
        );
    app.finish();
    app.cleanup();
    app
}

/// One step's times: the whole update, and avian's broad phase, narrow phase and solver.
#[derive(Clone, Copy, Default)]
pub struct StepTime {
    pub total: Duration,
    pub broad: Duration,
    pub narrow: Duration,
    pub solver: Duration,
}

/// Updates until one physics step has run.
pub fn step(app: &mut App) -> StepTime {
    let before = app.world().resource::<PhaseClock>().steps;
    let mut total = Duration::ZERO;
    for _ in 0..4 {
        let start = Instant::now();
        app.update();
        total += start.elapsed();
        let clock = app.world().resource::<PhaseClock>();
        if clock.steps > before {
            let [Some(a), Some(b), Some(c), Some(d)] = clock.marks else {
                panic!("a physics step that skipped one of avian's sets");
            };
            return StepTime {
                total,
                broad: b - a,
                narrow: c - b,
                solver: d - c,
            };
        }
    }
    panic!("four updates ran no physics step");
}
