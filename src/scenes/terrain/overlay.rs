//! The terrain scene's overlay: its window of numbers and settings, and the dotted arc of
//! the next throw.

use super::*;

/// The scene's overlay window and drawing: added only with a window.
pub(crate) fn overlay_plugin(app: &mut App) {
    app.add_systems(
        EguiPrimaryContextPass,
        terrain_window.run_if(in_state(GameScene::Terrain).and_then(overlay_shown)),
    )
    .add_systems(
        Update,
        draw_aim
            .after(AppSystems::Update)
            .run_if(in_state(GameScene::Terrain)),
    );
}

/// The scene's window: the terrain's numbers and the settings.
fn terrain_window(
    mut contexts: EguiContexts,
    sim: Option<Res<TerrainSim>>,
    pieces: Query<(), With<DetachedPiece>>,
    terrain: Query<&DestructibleState, With<TerrainSprite>>,
    mut settings: ResMut<TerrainSettings>,
) -> Result {
    let ctx = contexts.ctx_mut()?;
    egui::Window::new("Terrain")
        .anchor(egui::Align2::LEFT_BOTTOM, [8.0, -8.0])
        .resizable(false)
        .show(ctx, |ui| {
            let mut s = *settings;
            ui.add(
                egui::Slider::new(&mut s.crater_radius, CRATER_RANGE.0..=CRATER_RANGE.1)
                    .text("crater radius"),
            );
            ui.add(egui::Slider::new(&mut s.throws, 1..=20).text("throws per round"));
            ui.checkbox(&mut s.preview, "Preview the throw");
            if s != *settings {
                *settings = s.sanitised();
            }
            if let Some(sim) = &sim {
                egui::Grid::new("terrain numbers").show(ui, |ui| {
                    let rows = [
                        ("Terrain pixels", sim.terrain().count().to_string()),
                        ("Components", sim.components.to_string()),
                        ("Falling pieces", pieces.iter().count().to_string()),
                        ("Balls in play", sim.balls_in_play.to_string()),
                        (
                            "Pixels lost settling",
                            terrain.single().map_or(0, |t| t.lost).to_string(),
                        ),
                        ("Pieces cut last", sim.last_pieces.to_string()),
                        ("Last edit", format!("{:.0} µs", sim.last_edit_micros)),
                        ("Aim", format!("{:.0}°", sim.aim.to_degrees())),
                        ("Power", format!("{:.0} px/s", sim.power)),
                    ];
                    // Two to a row: the window stays low, under the terrain's surface
                    // at the left, where Larry walks and a target stands.
                    for pair in rows.chunks(2) {
                        for (name, value) in pair {
                            ui.label(*name);
                            ui.monospace(value);
                        }
                        ui.end_row();
                    }
                });
            }
        });
    Ok(())
}

/// The dotted arc of the next throw up to where it first lands, by the bodies' physics.
fn draw_aim(
    settings: Res<TerrainSettings>,
    sim: Option<Res<TerrainSim>>,
    substeps: Res<SubstepCount>,
    mut preview: Local<Preview>,
    mut gizmos: Gizmos<PixelDebugGizmos>,
) {
    let Some(sim) = sim else { return };
    if sim.throws_left == 0 || sim.round_over() {
        return;
    }
    let direction = Vec2::from_angle(sim.aim);
    gizmos.line_2d(
        THROW_FROM,
        THROW_FROM + direction * (20.0 + sim.power * 0.05),
        Color::srgb(1.0, 0.85, 0.3),
    );
    if !settings.preview {
        return;
    }
    // Stepping the flight 150 times is worth doing only when the throw or the ground
    // changed.
    let key = (
        sim.aim.to_bits(),
        sim.power.to_bits(),
        Arc::as_ptr(sim.terrain.terrain_shared()) as usize,
        sim.terrain().count(),
    );
    if preview.key != Some(key) {
        preview.key = Some(key);
        preview.dots = flight(&sim, direction * sim.power, substeps.0);
    }
    for &dot in &preview.dots {
        gizmos.circle_2d(dot, 2.0, Color::srgba(1.0, 1.0, 1.0, 0.8));
    }
}

/// Where a ball thrown at `velocity` flies until it first touches the terrain, one dot every
/// [`PREVIEW_EVERY`] fixed steps: avian's integrator (semi-implicit Euler, `substeps` a
/// step, no damping) under the same gravity, and the ball's mask against the terrain's.
fn flight(sim: &TerrainSim, velocity: Vec2, substeps: u32) -> Vec<Vec2> {
    let substeps = substeps.clamp(1, 64);
    let h = FIXED_STEP / substeps as f32;
    let (mut at, mut velocity) = (THROW_FROM, velocity);
    let (w, h_px) = sim.ball_mask.size();
    let mut dots = Vec::new();
    for step in 0..PREVIEW_STEPS {
        for _ in 0..substeps {
            velocity.y -= GRAVITY * h;
            at += velocity * h;
        }
        let corner = sim.terrain.to_mask(at) - Vec2::new(w as f32, h_px as f32) / 2.0;
        let offset = (corner.x.round() as i32, corner.y.round() as i32);
        if sim.terrain().overlap(&sim.ball_mask, offset).is_some() {
            dots.push(at);
            break;
        }
        if step % PREVIEW_EVERY == 0 {
            dots.push(at);
        }
    }
    dots
}

/// The preview's dots, and the aim, power and ground they were computed for.
#[derive(Default)]
struct Preview {
    key: Option<(u32, u32, usize, u64)>,
    dots: Vec<Vec2>,
}
