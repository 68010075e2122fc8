//! The scenes, as a Bevy state, and switching between them with number keys, the
//! gamepad's shoulder buttons or the overlay's list.

use bevy::prelude::*;

use super::input::Controls;

/// One playable scene (not named `Scene`, which is Bevy's). Entities a scene spawns carry
/// `DespawnOnExit(scene)`.
#[derive(States, Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum GameScene {
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
    /// Throwing the ball at targets on terrain that craters.
    Terrain,
}

impl GameScene {
    pub const ALL: [GameScene; 7] = [
        GameScene::PixelAccurate,
        GameScene::Rotated,
        GameScene::Basketball,
        GameScene::Hitboxes,
        GameScene::Larry,
        GameScene::Crowd,
        GameScene::Terrain,
    ];

    /// The name `--scene` takes.
    pub fn name(self) -> &'static str {
        match self {
            GameScene::PixelAccurate => "pixel",
            GameScene::Rotated => "rotated",
            GameScene::Basketball => "basketball",
            GameScene::Hitboxes => "hitboxes",
            GameScene::Larry => "larry",
            GameScene::Crowd => "crowd",
            GameScene::Terrain => "terrain",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            GameScene::PixelAccurate => "Pixel-accurate collision",
            GameScene::Rotated => "Rotated pixel collision",
            GameScene::Basketball => "Bouncing basketball",
            GameScene::Hitboxes => "Hitboxes",
            GameScene::Larry => "Larry and the clovers",
            GameScene::Crowd => "Crowd",
            GameScene::Terrain => "Destructible terrain",
        }
    }

    pub fn from_name(name: &str) -> Option<GameScene> {
        GameScene::ALL
            .into_iter()
            .find(|s| s.name().eq_ignore_ascii_case(name))
    }

    /// Its place in [`GameScene::ALL`].
    pub fn index(self) -> usize {
        GameScene::ALL.iter().position(|&s| s == self).unwrap_or(0)
    }

    /// The scene `step` places further in the list, wrapping around.
    pub fn cycled(self, step: i32) -> GameScene {
        let n = GameScene::ALL.len() as i32;
        GameScene::ALL[(self.index() as i32 + step).rem_euclid(n) as usize]
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
    scene: Res<State<GameScene>>,
    mut next: ResMut<NextState<GameScene>>,
) {
    let current = *scene.get();
    let wanted = controls
        .pick_scene
        .and_then(|i| GameScene::ALL.get(i).copied())
        .unwrap_or_else(|| current.cycled(controls.scene_step));
    if wanted != current {
        info!("scene: {}", wanted.title());
        next.set(wanted);
    }
}
