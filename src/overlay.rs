//! The egui overlay: F1 toggles the panel (scene list, debug hitboxes, alpha threshold,
//! live numbers, controls) and, with it, the scene's own window ([`OverlayState`]), so
//! that the whole play area shows. The status line and any loading problems stay on
//! screen.

use bevy::diagnostic::{DiagnosticsStore, FrameTimeDiagnosticsPlugin};
use bevy::picking::hover::HoverMap;
use bevy::picking::pointer::PointerId;
use bevy::prelude::*;
use bevy_egui::{EguiContext, EguiContexts, EguiPreUpdateSet, EguiPrimaryContextPass, egui};

use super::input::{BINDINGS, Controls};
use super::masks::AlphaThreshold;
use super::scene::GameScene;
use super::{CollisionStats, StatusLine};
use bevy_pixel_collide::PixelMasks;
use bevy_pixel_collide::debug::PixelDebugSettings;

#[derive(Resource, Debug, Clone, Copy)]
pub struct OverlayState {
    pub visible: bool,
}

impl Default for OverlayState {
    fn default() -> Self {
        OverlayState { visible: true }
    }
}

pub(super) fn plugin(app: &mut App) {
    let hidden = app
        .world()
        .get_resource::<super::GameOptions>()
        .is_some_and(|o| o.hide_overlay);
    app.insert_resource(OverlayState { visible: !hidden })
        .add_systems(
            PreUpdate,
            install_fonts
                .after(EguiPreUpdateSet::InitContexts)
                .before(EguiPreUpdateSet::BeginPass),
        )
        .add_systems(Update, toggle_overlay.after(super::AppSystems::ReadInput))
        .add_systems(EguiPrimaryContextPass, (status_line, problems, panel));
}

/// Run condition of the scenes' own windows: F1 hides them with the panel, so that the
/// whole play area shows.
pub fn overlay_shown(overlay: Res<OverlayState>) -> bool {
    overlay.visible
}

/// egui's two text fonts, without its emoji fonts: Ubuntu Light for prose, Hack for the
/// numbers, each the other's fallback (for `×`, `µ`, `°`, `…`). Set before a new context's
/// first pass, which is when egui takes them up, so no text is ever laid out without them.
fn install_fonts(mut new_contexts: Query<&mut EguiContext, Added<EguiContext>>) {
    use egui::{FontData, FontDefinitions, FontFamily};
    use epaint_default_fonts::{HACK_REGULAR, UBUNTU_LIGHT};
    for mut context in &mut new_contexts {
        let mut fonts = FontDefinitions::empty();
        for (name, bytes) in [("Ubuntu-Light", UBUNTU_LIGHT), ("Hack", HACK_REGULAR)] {
            fonts
                .font_data
                .insert(name.to_owned(), FontData::from_static(bytes).into());
        }
        let family = |names: [&str; 2]| names.map(str::to_owned).to_vec();
        fonts
            .families
            .insert(FontFamily::Proportional, family(["Ubuntu-Light", "Hack"]));
        fonts
            .families
            .insert(FontFamily::Monospace, family(["Hack", "Ubuntu-Light"]));
        context.get_mut().set_fonts(fonts);
    }
}

fn toggle_overlay(controls: Res<Controls>, mut overlay: ResMut<OverlayState>) {
    if controls.toggle_overlay {
        overlay.visible = !overlay.visible;
    }
}

fn status_line(
    mut contexts: EguiContexts,
    scene: Res<State<GameScene>>,
    status: Res<StatusLine>,
    overlay: Res<OverlayState>,
) -> Result {
    let ctx = contexts.ctx_mut()?;
    // Centered between the side windows, so it never runs under the panel (top right,
    // about 300 px with its margin) or a scene's window on the left.
    let side = if overlay.visible { PANEL_RESERVE } else { 16.0 };
    let max_width = (ctx.content_rect().width() - 2.0 * side).max(240.0);
    egui::Area::new(egui::Id::new("status"))
        .anchor(egui::Align2::CENTER_TOP, [0.0, 8.0])
        .show(ctx, |ui| {
            ui.set_max_width(max_width);
            egui::Frame::popup(ui.style()).show(ui, |ui| {
                ui.label(egui::RichText::new(scene.get().title()).strong().size(18.0));
                if !status.0.is_empty() {
                    let text = egui::RichText::new(&status.0).monospace().size(15.0);
                    ui.add(egui::Label::new(text).wrap());
                }
            });
        });
    Ok(())
}

/// The named sprites under the mouse, by their solid pixels (the plugin's picking
/// backend), nearest first; "nothing" over none.
fn pointer_over(hovered: Option<&HoverMap>, names: &Query<&Name>) -> String {
    let Some(hits) = hovered.and_then(|map| map.get(&PointerId::Mouse)) else {
        return "nothing".into();
    };
    let mut under: Vec<(f32, &str)> = hits
        .iter()
        .filter_map(|(entity, hit)| Some((hit.depth, names.get(*entity).ok()?.as_str())))
        .collect();
    under.sort_by(|a, b| a.0.total_cmp(&b.0));
    if under.is_empty() {
        return "nothing".into();
    }
    under
        .iter()
        .map(|(_, name)| *name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Room kept free on each side of the status line while the overlay shows.
const PANEL_RESERVE: f32 = 310.0;

fn problems(mut contexts: EguiContexts, masks: Res<PixelMasks>) -> Result {
    if masks.problems().is_empty() {
        return Ok(());
    }
    let ctx = contexts.ctx_mut()?;
    egui::Window::new("Problems")
        .anchor(egui::Align2::CENTER_BOTTOM, [0.0, -8.0])
        .resizable(false)
        .show(ctx, |ui| {
            for problem in masks.problems() {
                ui.colored_label(egui::Color32::from_rgb(255, 110, 90), problem);
            }
        });
    Ok(())
}

fn panel(
    mut contexts: EguiContexts,
    overlay: Res<OverlayState>,
    scene: Res<State<GameScene>>,
    mut next_scene: ResMut<NextState<GameScene>>,
    mut debug: ResMut<PixelDebugSettings>,
    mut threshold: ResMut<AlphaThreshold>,
    stats: Res<CollisionStats>,
    diagnostics: Res<DiagnosticsStore>,
    (hovered, names): (Option<Res<HoverMap>>, Query<&Name>),
) -> Result {
    if !overlay.visible {
        return Ok(());
    }
    let ctx = contexts.ctx_mut()?;
    // Top right, clear of the scenes' sprites, which start left of center; anchored, so a
    // window shrunk to nothing and grown back finds it there again.
    egui::Window::new("Pixel Collide  (F1 hides)")
        .anchor(egui::Align2::RIGHT_TOP, [-8.0, 8.0])
        .default_width(260.0)
        .show(ctx, |ui| {
            ui.heading("Scene");
            for (i, s) in GameScene::ALL.into_iter().enumerate() {
                if ui
                    .selectable_label(*scene.get() == s, format!("{}  {}", i + 1, s.title()))
                    .clicked()
                {
                    next_scene.set(s);
                }
            }
            ui.separator();
            ui.heading("Debug hitboxes");
            ui.checkbox(&mut debug.aabb, "Axis-aligned box (broad phase)");
            ui.checkbox(&mut debug.oriented_box, "Oriented box");
            ui.checkbox(&mut debug.outline, "Mask outline");
            ui.checkbox(&mut debug.contacts, "Contact point and normal");
            let mut value = threshold.0;
            ui.add(egui::Slider::new(&mut value, 0..=254).text("alpha threshold"));
            // Only on a real change: writing marks the resource changed.
            if value != threshold.0 {
                threshold.0 = value;
            }
            ui.separator();
            ui.heading("Live");
            egui::Grid::new("live").num_columns(2).show(ui, |ui| {
                for (name, value) in [
                    ("Frames per second", frames_per_second(&diagnostics)),
                    ("Pairs from broad phase", stats.broad_pairs.to_string()),
                    ("Pixel tests", stats.pixel_tests.to_string()),
                    ("Contacts", stats.contacts.to_string()),
                    ("Collision time", format!("{:.1} µs", stats.micros)),
                    ("Pointer over", pointer_over(hovered.as_deref(), &names)),
                ] {
                    ui.label(name);
                    ui.monospace(value);
                    ui.end_row();
                }
            });
            ui.separator();
            egui::CollapsingHeader::new("Controls")
                .default_open(false)
                .show(ui, |ui| {
                    egui::Grid::new("controls")
                        .num_columns(3)
                        .striped(true)
                        .show(ui, |ui| {
                            ui.strong("Action");
                            ui.strong("Keyboard");
                            ui.strong("Gamepad");
                            ui.end_row();
                            for b in BINDINGS {
                                ui.label(b.action);
                                ui.label(b.keyboard);
                                ui.label(b.gamepad);
                                ui.end_row();
                            }
                        });
                });
        });
    Ok(())
}

/// Bevy's own smoothed frame rate, for every window that shows one; a dash until it has
/// measured a few frames.
pub(crate) fn frames_per_second(diagnostics: &DiagnosticsStore) -> String {
    diagnostics
        .get(&FrameTimeDiagnosticsPlugin::FPS)
        .and_then(|fps| fps.smoothed())
        .map_or_else(|| "–".to_string(), |fps| format!("{fps:.0}"))
}
