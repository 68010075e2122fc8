//! The scenes, as a Bevy state, and switching between them with number keys, the
//! gamepad's shoulder buttons or the overlay's list.

use bevy::prelude::*;

use super::input::Controls;

/// One playable scene. Entities a scene spawns carry `DespawnOnExit(scene)`.
#[derive(States, Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Scene {
    /// Flower and target, axis-aligned: the XNA per-pixel sample.
    #[default]
    PixelAccurate,
    /// The same, rotating: the transformed per-pixel sample.
    Rotated,
    /// The tutorial's physics demo: a basketball on three platforms.
    Basketball,
    /// The hitbox lessons: boxes, circles, points, oriented boxes, borders.
    Hitboxes,
    /// A sprite-sheet character collecting clovers.
    Larry,
    /// Thousands of rotating sprites with a broad phase.
    Crowd,
}

impl Scene {
    pub const ALL: [Scene; 6] = [
        Scene::PixelAccurate,
        Scene::Rotated,
        Scene::Basketball,
        Scene::Hitboxes,
        Scene::Larry,
        Scene::Crowd,
    ];

    /// The name `--scene` takes.
    pub fn name(self) -> &'static str {
        match self {
            Scene::PixelAccurate => "pixel",
            Scene::Rotated => "rotated",
            Scene::Basketball => "basketball",
            Scene::Hitboxes => "hitboxes",
            Scene::Larry => "larry",
            Scene::Crowd => "crowd",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            Scene::PixelAccurate => "Pixel-accurate collision",
            Scene::Rotated => "Rotated pixel collision",
            Scene::Basketball => "Bouncing basketball",
            Scene::Hitboxes => "Hitboxes",
            Scene::Larry => "Larry and the clovers",
            Scene::Crowd => "Crowd",
        }
    }

    pub fn from_name(name: &str) -> Option<Scene> {
        Scene::ALL
            .into_iter()
            .find(|s| s.name().eq_ignore_ascii_case(name))
    }

    /// Its place in [`Scene::ALL`].
    pub fn index(self) -> usize {
        Scene::ALL.iter().position(|&s| s == self).unwrap_or(0)
    }

    /// The scene `step` places further in the list, wrapping around.
    pub fn cycled(self, step: i32) -> Scene {
        let n = Scene::ALL.len() as i32;
        Scene::ALL[(self.index() as i32 + step).rem_euclid(n) as usize]
    }
}

pub(super) fn plugin(app: &mut App) {
    app.add_systems(
        Update,
        switch_scene
            .in_set(super::AppSystems::ReadInput)
            .after(super::input::read_controls),
    );
}

fn switch_scene(
    controls: Res<Controls>,
    scene: Res<State<Scene>>,
    mut next: ResMut<NextState<Scene>>,
) {
    let current = *scene.get();
    let wanted = controls
        .pick_scene
        .and_then(|i| Scene::ALL.get(i).copied())
        .unwrap_or_else(|| current.cycled(controls.scene_step));
    if wanted != current {
        info!("scene: {}", wanted.title());
        next.set(wanted);
    }
}
