//! Keyboard and gamepad, read once per frame into [`Controls`], so scenes never look at
//! devices and tests can fake either.

use bevy::prelude::*;

/// What the player asks for this frame. Axes are in [-1, 1], y up; rotations positive
/// counterclockwise.
#[derive(Resource, Debug, Clone, Default, PartialEq)]
pub struct Controls {
    /// Left stick / WASD: the flower (or the scene's main sprite).
    pub move_primary: Vec2,
    /// Right stick / arrow keys: the target.
    pub move_secondary: Vec2,
    /// Gamepad A/B, keyboard Q/E.
    pub rotate_primary: f32,
    /// Gamepad X/Y, keyboard comma/period.
    pub rotate_secondary: f32,
    /// Gamepad A / Space, this frame only (launch, fire).
    pub action: bool,
    /// Gamepad B / Enter, this frame only (set off a ball).
    pub detonate: bool,
    /// Shoulder buttons / PageUp, PageDown: previous (-1) or next (+1) scene.
    pub scene_step: i32,
    /// Number keys: a scene by its index.
    pub pick_scene: Option<usize>,
    /// F1 / gamepad Start.
    pub toggle_overlay: bool,
}

/// One row of the controls table the overlay shows.
pub struct Binding {
    pub action: &'static str,
    pub keyboard: &'static str,
    pub gamepad: &'static str,
}

pub const BINDINGS: &[Binding] = &[
    Binding {
        action: "Move flower / shape / Larry",
        keyboard: "W A S D",
        gamepad: "Left stick / D-pad",
    },
    Binding {
        action: "Move target / clover",
        keyboard: "Arrow keys",
        gamepad: "Right stick",
    },
    Binding {
        action: "Rotate flower / box",
        keyboard: "Q / E",
        gamepad: "LT / RT",
    },
    Binding {
        action: "Rotate target",
        keyboard: ", / .",
        gamepad: "X / Y",
    },
    Binding {
        action: "Launch or throw a ball / next shape",
        keyboard: "Space",
        gamepad: "A",
    },
    Binding {
        action: "Set off the oldest ball (terrain)",
        keyboard: "Enter",
        gamepad: "B",
    },
    Binding {
        action: "Scene",
        keyboard: "1-9, PageUp / PageDown",
        gamepad: "LB / RB",
    },
    Binding {
        action: "Overlay",
        keyboard: "F1",
        gamepad: "Start",
    },
];

/// Stick values below this are noise from a resting stick.
const DEAD_ZONE: f32 = 0.15;

const SCENE_KEYS: [KeyCode; 9] = [
    KeyCode::Digit1,
    KeyCode::Digit2,
    KeyCode::Digit3,
    KeyCode::Digit4,
    KeyCode::Digit5,
    KeyCode::Digit6,
    KeyCode::Digit7,
    KeyCode::Digit8,
    KeyCode::Digit9,
];

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<Controls>()
        .init_resource::<ButtonInput<KeyCode>>()
        .add_systems(Update, read_controls.in_set(super::AppSystems::ReadInput));
}

fn axis(keys: &ButtonInput<KeyCode>, neg: KeyCode, pos: KeyCode) -> f32 {
    f32::from(u8::from(keys.pressed(pos))) - f32::from(u8::from(keys.pressed(neg)))
}

fn dead_zone(v: Vec2) -> Vec2 {
    if v.length() < DEAD_ZONE || !v.is_finite() {
        Vec2::ZERO
    } else {
        v.clamp_length_max(1.0)
    }
}

pub(crate) fn read_controls(
    keys: Res<ButtonInput<KeyCode>>,
    gamepads: Query<&Gamepad>,
    mut controls: ResMut<Controls>,
) {
    let mut c = Controls {
        move_primary: Vec2::new(
            axis(&keys, KeyCode::KeyA, KeyCode::KeyD),
            axis(&keys, KeyCode::KeyS, KeyCode::KeyW),
        ),
        move_secondary: Vec2::new(
            axis(&keys, KeyCode::ArrowLeft, KeyCode::ArrowRight),
            axis(&keys, KeyCode::ArrowDown, KeyCode::ArrowUp),
        ),
        rotate_primary: axis(&keys, KeyCode::KeyE, KeyCode::KeyQ),
        rotate_secondary: axis(&keys, KeyCode::Period, KeyCode::Comma),
        action: keys.just_pressed(KeyCode::Space),
        detonate: keys.just_pressed(KeyCode::Enter),
        scene_step: i32::from(keys.just_pressed(KeyCode::PageDown))
            - i32::from(keys.just_pressed(KeyCode::PageUp)),
        pick_scene: SCENE_KEYS.iter().position(|&k| keys.just_pressed(k)),
        toggle_overlay: keys.just_pressed(KeyCode::F1),
    };
    for pad in &gamepads {
        let dpad = Vec2::new(
            f32::from(u8::from(pad.pressed(GamepadButton::DPadRight)))
                - f32::from(u8::from(pad.pressed(GamepadButton::DPadLeft))),
            f32::from(u8::from(pad.pressed(GamepadButton::DPadUp)))
                - f32::from(u8::from(pad.pressed(GamepadButton::DPadDown))),
        );
        c.move_primary += dead_zone(pad.left_stick()) + dpad;
        c.move_secondary += dead_zone(pad.right_stick());
        let button = |b| f32::from(u8::from(pad.pressed(b)));
        // The triggers, not A: A is the scene action, and one press must not do both.
        c.rotate_primary +=
            button(GamepadButton::LeftTrigger2) - button(GamepadButton::RightTrigger2);
        c.rotate_secondary += button(GamepadButton::West) - button(GamepadButton::North);
        c.action |= pad.just_pressed(GamepadButton::South);
        c.detonate |= pad.just_pressed(GamepadButton::East);
        c.scene_step += i32::from(pad.just_pressed(GamepadButton::RightTrigger))
            - i32::from(pad.just_pressed(GamepadButton::LeftTrigger));
        c.toggle_overlay |= pad.just_pressed(GamepadButton::Start);
    }
    c.move_primary = c.move_primary.clamp_length_max(1.0);
    c.move_secondary = c.move_secondary.clamp_length_max(1.0);
    c.rotate_primary = c.rotate_primary.clamp(-1.0, 1.0);
    c.rotate_secondary = c.rotate_secondary.clamp(-1.0, 1.0);
    c.scene_step = c.scene_step.signum();
    *controls = c;
}
