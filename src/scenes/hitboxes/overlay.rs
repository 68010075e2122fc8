//! Only with a window: the settings window, the gizmos and the shape labels.

use super::*;
use crate::overlay::OverlayState;

/// The scene's overlay window (egui): added only with a window, never in headless tests.
pub(crate) fn overlay_plugin(app: &mut App) {
    app.add_systems(
        EguiPrimaryContextPass,
        (draw_labels, settings_window).run_if(in_state(GameScene::Hitboxes)),
    )
    .add_systems(
        PostUpdate,
        draw_hitboxes
            .after(TransformSystems::Propagate)
            .run_if(in_state(GameScene::Hitboxes)),
    );
}

/// Each shape's name on it, painted by egui beneath its windows: the only text the game
/// draws outside egui, so Bevy's text stack (fonts, shaping, a glyph rasteriser: about a
/// fifth of the web download) is left out.
pub(super) fn draw_labels(
    mut contexts: EguiContexts,
    shapes: Res<HitboxShapes>,
    camera: Single<(&Camera, &GlobalTransform), With<Camera2d>>,
) -> Result {
    let painter = contexts
        .ctx_mut()?
        .layer_painter(egui::LayerId::background());
    let (camera, camera_transform) = *camera;
    for id in ShapeId::MOVABLE {
        let Some(on_screen) = shapes.center(id).filter(|c| c.is_finite()).and_then(|c| {
            camera
                .world_to_viewport(camera_transform, c.extend(0.0))
                .ok()
        }) else {
            continue;
        };
        painter.text(
            egui::pos2(on_screen.x, on_screen.y),
            egui::Align2::CENTER_CENTER,
            id.name(),
            egui::FontId::proportional(14.0),
            egui::Color32::from_white_alpha(204),
        );
    }
    Ok(())
}

pub(super) fn settings_window(
    overlay: Res<OverlayState>,
    mut contexts: EguiContexts,
    mut settings: ResMut<HitboxSettings>,
    mut shapes: ResMut<HitboxShapes>,
    mut bullet: ResMut<Bullet>,
    mut pointer: ResMut<HitboxPointer>,
) -> Result {
    let ctx = contexts.ctx_mut()?;
    let mut edited = *settings;
    // Anchored, so that it is back in its place whatever the window went through. F1
    // hides it with the panel; whether the pointer is over what egui still shows is
    // worked out below either way.
    let window = egui::Window::new("Hitboxes")
        .anchor(egui::Align2::LEFT_BOTTOM, [8.0, -8.0])
        .default_width(230.0)
        .resizable(false);
    if overlay.visible {
        window.show(ctx, |ui| {
            ui.horizontal(|ui| {
                ui.label("Edges:");
                ui.radio_value(&mut edited.edge_rule, EdgeRule::Strict, "strict <");
                ui.radio_value(&mut edited.edge_rule, EdgeRule::Inclusive, "inclusive <=");
            });
            if ui.button("Snap boxes edge to edge").clicked() {
                shapes.snap_boxes_edge_to_edge();
            }
            ui.checkbox(&mut edited.resolve, "Resolve: push apart by MTV");
            ui.checkbox(&mut edited.obb_as_aabb, "Rotated box as its AABB");
            ui.horizontal(|ui| {
                ui.checkbox(&mut edited.swept_bullet, "Swept bullet");
                if ui.button("Fire").clicked() {
                    bullet.fire();
                }
            });
            ui.checkbox(&mut edited.auto_fire, "Auto-fire every 1.5 s");
            ui.separator();
            ui.small("Space: next shape · WASD: move it · Q/E: turn OBB");
            ui.small("Mouse: drag a shape · Arrows: the clover");
        });
    }
    if edited != *settings {
        *settings = edited;
    }
    let over_ui = ctx.is_pointer_over_egui() || ctx.egui_wants_pointer_input();
    if pointer.over_ui != over_ui {
        pointer.over_ui = over_ui;
    }
    Ok(())
}

pub(super) const FALSE_HIT: Color = Color::srgb(1.0, 0.6, 0.1);
pub(super) const ACTIVE: Color = Color::srgba(1.0, 1.0, 1.0, 0.55);
pub(super) const ENCLOSING: Color = Color::srgba(0.3, 0.6, 1.0, 0.6);
pub(super) const CLOSEST: Color = Color::srgba(1.0, 1.0, 1.0, 0.35);
pub(super) const CLOSEST_HIT: Color = Color::srgb(1.0, 1.0, 1.0);
pub(super) const AXIS: Color = Color::srgb(0.95, 0.85, 0.2);
pub(super) const MTV: Color = Color::srgb(0.4, 0.9, 1.0);
pub(super) const BULLET: Color = Color::srgb(1.0, 0.95, 0.5);
/// A circle's closest point on a box it does not touch is drawn within this gap, in pixels.
pub(super) const CLOSEST_SHOWN_WITHIN: f32 = 60.0;

/// How a shape looks: red if any real contact, orange if only false hits, else green.
pub(super) fn shape_color(id: ShapeId, pairs: &[PairResult]) -> Color {
    let mut color = idle_color();
    for p in pairs
        .iter()
        .filter(|p| p.touching && (p.a == id || p.b == id))
    {
        if !p.false_hit {
            return hit_color();
        }
        color = FALSE_HIT;
    }
    color
}

pub(super) fn draw_geometry(
    gizmos: &mut Gizmos<PixelDebugGizmos>,
    geometry: Geometry,
    grow: f32,
    color: Color,
) {
    match geometry {
        Geometry::Aabb(b) => {
            gizmos.rect_2d(b.center(), b.max - b.min + Vec2::splat(grow * 2.0), color);
        }
        Geometry::Circle(c) => {
            gizmos
                .circle_2d(c.center, c.radius() + grow, color)
                .resolution(64);
        }
        Geometry::Obb(o) => {
            let [ax, _] = o.axes();
            if ax.is_finite() {
                let iso = Isometry2d::new(o.center, Rot2::from_sin_cos(ax.y, ax.x));
                gizmos.rect_2d(iso, o.half_size * 2.0 + Vec2::splat(grow * 2.0), color);
            }
        }
        Geometry::Point(p) => gizmos.cross_2d(p, 8.0 + grow, color),
    }
}

/// Half the shadow of a shape on a unit axis, for placing the separating line in the gap.
pub(super) fn shadow_half(geometry: Geometry, axis: Vec2) -> f32 {
    match geometry {
        Geometry::Aabb(b) => b.half_size().dot(axis.abs()),
        Geometry::Circle(c) => c.radius(),
        Geometry::Obb(o) => {
            let [ax, ay] = o.axes();
            o.half_size.x * ax.dot(axis).abs() + o.half_size.y * ay.dot(axis).abs()
        }
        Geometry::Point(_) => 0.0,
    }
}

pub(super) fn draw_hitboxes(
    shapes: Res<HitboxShapes>,
    settings: Res<HitboxSettings>,
    debug: Res<PixelDebugSettings>,
    report: Res<HitboxReport>,
    // Paired to stay within clippy's argument limit: the bullet is drawn between its steps.
    (bullet, fixed): (Res<Bullet>, Res<Time<Fixed>>),
    mut gizmos: Gizmos<PixelDebugGizmos>,
) {
    let pairs = &report.pairs;
    for id in ShapeId::ALL {
        let Some(geometry) = shapes.geometry(id) else {
            continue;
        };
        draw_geometry(&mut gizmos, geometry, 0.0, shape_color(id, pairs));
        if id == shapes.active {
            draw_geometry(&mut gizmos, geometry, 4.0, ACTIVE);
        }
    }
    if debug.aabb || settings.obb_as_aabb {
        let b = shapes.oriented.aabb();
        if b.min.is_finite() && b.max.is_finite() {
            let color = if settings.obb_as_aabb {
                FALSE_HIT
            } else {
                ENCLOSING
            };
            gizmos.rect_2d(b.center(), b.max - b.min, color);
        }
    }
    if debug.contacts {
        for p in pairs {
            draw_pair(&mut gizmos, &shapes, p);
        }
    }
    draw_bullet(&mut gizmos, &bullet, fixed.overstep_fraction());
}

pub(super) fn draw_pair(
    gizmos: &mut Gizmos<PixelDebugGizmos>,
    shapes: &HitboxShapes,
    p: &PairResult,
) {
    let (Some(ga), Some(gb)) = (shapes.geometry(p.a), shapes.geometry(p.b)) else {
        return;
    };
    // The circle is whichever of the two is one; the line runs from its center.
    let round = [ga, gb].into_iter().find_map(|g| match g {
        Geometry::Circle(c) => Some(c),
        _ => None,
    });
    if let (Some(point), Some(round)) = (p.closest, round) {
        // Far-off boxes' closest points would only clutter: show those about to matter.
        let gap = point.distance(round.center) - round.radius();
        if p.touching || gap < CLOSEST_SHOWN_WITHIN {
            let color = if p.touching { CLOSEST_HIT } else { CLOSEST };
            gizmos.line_2d(round.center, point, color);
            gizmos.circle_2d(point, 4.0, color);
        }
    }
    if let (Some((axis, gap)), Some(cb)) = (p.separating, shapes.center(p.b)) {
        // The separating line sits in the middle of the gap, across the axis.
        let on_line = cb + axis * (shadow_half(gb, axis) + gap / 2.0);
        let along = axis.perp() * 70.0;
        gizmos.line_2d(on_line - along, on_line + along, AXIS);
        gizmos.arrow_2d(on_line, on_line + axis * 25.0, AXIS);
    }
    if p.touching
        && let Some(mtv) = p.mtv
    {
        // Drawn on the shape "resolve" would move (the active one holds still), from its
        // center; short pushes are still worth seeing, so at least 20 px long.
        let (moved, push) = if p.a == shapes.active {
            (p.b, -mtv)
        } else {
            (p.a, mtv)
        };
        if let Some(from) = shapes.center(moved) {
            gizmos.arrow_2d(
                from,
                from + push.normalize_or_zero() * push.length().max(20.0),
                MTV,
            );
        }
    }
}

pub(super) fn draw_bullet(gizmos: &mut Gizmos<PixelDebugGizmos>, bullet: &Bullet, alpha: f32) {
    let wall = bullet.wall;
    let wall_color = if bullet.hit.is_some() {
        hit_color()
    } else {
        idle_color()
    };
    gizmos.rect_2d(wall.center(), wall.max - wall.min, wall_color);
    if let Some((from, to)) = bullet.tunnel.or(bullet.last_tunnel) {
        // The step that jumped the wall: neither end overlaps it.
        gizmos.line_2d(from, to, FALSE_HIT);
        gizmos.circle_2d(from, BULLET_RADIUS, FALSE_HIT);
        gizmos.circle_2d(to, BULLET_RADIUS, FALSE_HIT);
    }
    if bullet.in_flight || bullet.hit.is_some() {
        gizmos.line_2d(bullet.previous, bullet.position, CLOSEST);
        gizmos.circle_2d(bullet.drawn_at(alpha), BULLET_RADIUS, BULLET);
    }
    if let Some(hit) = bullet.hit {
        gizmos.cross_2d(hit, 10.0, hit_color());
        gizmos.circle_2d(hit, 7.0, hit_color());
    }
}
