//! Draws the demo game's sprites procedurally and writes them as RGBA PNGs.
//!
//! ```text
//! cargo run --example make_assets [OUT_DIR]   # OUT_DIR defaults to assets/
//! ```
//!
//! It uses only `image` of the game's dependencies.
//!
//! Everything is built from signed distance functions (negative inside) painted with 4x4
//! supersampling, so edges get anti-aliased alpha and outside pixels stay at alpha 0: the
//! game's per-pixel masks come straight from these images. Noise is a seeded integer hash,
//! so every run writes byte-identical files.
//!
//! Written: `flower`, `target`, `soccer_ball`, `basketball`, `brick`, `stone`, `slow_stone`,
//! `clover`, `crate`, `gem`, `placeholder`, the color-keyed `larry_sheet` (with its
//! `larry_sheet.sheet.ron`) and the window-sized `terrain` of the destructible-terrain scene.

use std::f32::consts::{PI, TAU};
use std::path::Path;

use image::{Rgba, RgbaImage};

/// Straight (not premultiplied) sRGB color, each channel in `0..=1`.
type Color = [f32; 4];
/// A point in pixel units, y pointing down; pixel `(i, j)` covers `[i, i+1) x [j, j+1)`.
type P = (f32, f32);

/// Draws one whole sprite.
type Draw = fn() -> RgbaImage;

const MAGENTA: Rgba<u8> = Rgba([255, 0, 255, 255]);
const INK: Color = rgb(0.12, 0.09, 0.08);

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = std::env::args().nth(1).unwrap_or_else(|| "assets".into());
    let out = Path::new(&out);
    std::fs::create_dir_all(out)?;
    let sprites: [(&str, Draw); 13] = [
        ("flower", flower),
        ("target", target),
        ("soccer_ball", soccer_ball),
        ("basketball", basketball),
        ("brick", brick),
        ("stone", stone),
        ("slow_stone", slow_stone),
        ("larry_sheet", larry_sheet),
        ("clover", clover),
        ("crate", crate_),
        ("gem", gem),
        ("placeholder", placeholder),
        ("terrain", terrain),
    ];
    for (name, draw) in sprites {
        let path = out.join(format!("{name}.png"));
        let img = draw();
        img.save(&path)?;
        println!("{} ({}x{})", path.display(), img.width(), img.height());
    }
    let (w, h) = LARRY_FRAME;
    let ron = format!("(frame_width: {w}, frame_height: {h}, frame_count: {LARRY_FRAMES})\n");
    std::fs::write(out.join("larry_sheet.sheet.ron"), ron)?;
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Toolkit: a float canvas, supersampled painting, distance functions, colors and noise.
// ---------------------------------------------------------------------------------------

struct Canvas {
    w: u32,
    h: u32,
    px: Vec<Color>,
}

impl Canvas {
    fn new(w: u32, h: u32) -> Self {
        Self {
            w,
            h,
            px: vec![[0.0; 4]; (w * h) as usize],
        }
    }

    /// Composites `shade` over the canvas. `shade(p)` is the color at `p`, or `None` where
    /// the shape is absent; averaging 16 samples per pixel turns hard edges into soft alpha.
    fn paint(&mut self, shade: impl Fn(P) -> Option<Color>) {
        const N: usize = 4;
        for j in 0..self.h {
            for i in 0..self.w {
                let mut sum = [0.0f32; 4];
                for sy in 0..N {
                    for sx in 0..N {
                        let p = (
                            i as f32 + (sx as f32 + 0.5) / N as f32,
                            j as f32 + (sy as f32 + 0.5) / N as f32,
                        );
                        if let Some(c) = shade(p) {
                            for k in 0..3 {
                                sum[k] += c[k] * c[3];
                            }
                            sum[3] += c[3];
                        }
                    }
                }
                if sum[3] > 0.0 {
                    let a = sum[3] / (N * N) as f32;
                    let src = [sum[0] / sum[3], sum[1] / sum[3], sum[2] / sum[3], a];
                    let dst = &mut self.px[(j * self.w + i) as usize];
                    *dst = over(src, *dst);
                }
            }
        }
    }

    /// Fills `shape` (a distance function) with a color that may vary by position.
    fn fill(&mut self, shape: impl Fn(P) -> f32, color: impl Fn(P) -> Color) {
        self.paint(|p| (shape(p) < 0.0).then(|| color(p)));
    }

    /// Like [`Canvas::fill`] with a `width`-pixel ink rim, drawn as a grown copy underneath
    /// so that overlapping parts stay readable.
    fn outlined(&mut self, shape: impl Fn(P) -> f32, width: f32, color: impl Fn(P) -> Color) {
        self.fill(|p| shape(p) - width, |_| INK);
        self.fill(shape, color);
    }

    fn into_image(self) -> RgbaImage {
        RgbaImage::from_fn(self.w, self.h, |i, j| {
            let c = self.px[(j * self.w + i) as usize];
            if c[3] <= 0.0 {
                return Rgba([0; 4]);
            }
            Rgba(c.map(|v| (v.clamp(0.0, 1.0) * 255.0).round() as u8))
        })
    }
}

/// Porter-Duff "source over destination" in straight alpha.
fn over(s: Color, d: Color) -> Color {
    let a = s[3] + d[3] * (1.0 - s[3]);
    if a <= 0.0 {
        return [0.0; 4];
    }
    let mix = |k: usize| (s[k] * s[3] + d[k] * d[3] * (1.0 - s[3])) / a;
    [mix(0), mix(1), mix(2), a]
}

const fn rgb(r: f32, g: f32, b: f32) -> Color {
    [r, g, b, 1.0]
}

fn rgb8(r: u8, g: u8, b: u8) -> Color {
    rgb(r as f32 / 255.0, g as f32 / 255.0, b as f32 / 255.0)
}

/// Scales brightness, keeping alpha.
fn tint(c: Color, k: f32) -> Color {
    [c[0] * k, c[1] * k, c[2] * k, c[3]]
}

fn mix(a: Color, b: Color, t: f32) -> Color {
    let t = t.clamp(0.0, 1.0);
    std::array::from_fn(|k| a[k] + (b[k] - a[k]) * t)
}

fn with_alpha(c: Color, a: f32) -> Color {
    [c[0], c[1], c[2], a]
}

fn len(x: f32, y: f32) -> f32 {
    x.hypot(y)
}

/// Turns `p` into the frame of something centered at `c` and rotated by `angle` (radians,
/// clockwise on screen because y points down).
fn local(p: P, c: P, angle: f32) -> P {
    let (s, co) = angle.sin_cos();
    let (dx, dy) = (p.0 - c.0, p.1 - c.1);
    (dx * co + dy * s, -dx * s + dy * co)
}

fn disc(p: P, c: P, r: f32) -> f32 {
    len(p.0 - c.0, p.1 - c.1) - r
}

/// Approximate distance to a rotated ellipse: exact on the boundary's sign, which is all
/// that filling needs, and close enough near it for thin outlines.
fn ellipse(p: P, c: P, rx: f32, ry: f32, angle: f32) -> f32 {
    let (x, y) = local(p, c, angle);
    (len(x / rx, y / ry) - 1.0) * rx.min(ry)
}

fn segment(p: P, a: P, b: P) -> f32 {
    let (bx, by) = (b.0 - a.0, b.1 - a.1);
    let (px, py) = (p.0 - a.0, p.1 - a.1);
    let t = ((px * bx + py * by) / (bx * bx + by * by)).clamp(0.0, 1.0);
    len(px - bx * t, py - by * t)
}

/// A round-ended stroke from `a` to `b`: limbs, stems, seams.
fn capsule(p: P, a: P, b: P, r: f32) -> f32 {
    segment(p, a, b) - r
}

fn rounded_rect(p: P, min: P, max: P, r: f32) -> f32 {
    let (cx, cy) = ((min.0 + max.0) / 2.0, (min.1 + max.1) / 2.0);
    let (hx, hy) = ((max.0 - min.0) / 2.0 - r, (max.1 - min.1) / 2.0 - r);
    let (qx, qy) = ((p.0 - cx).abs() - hx, (p.1 - cy).abs() - hy);
    len(qx.max(0.0), qy.max(0.0)) + qx.max(qy).min(0.0) - r
}

/// Signed distance to a simple polygon (either winding), sign by the even-odd rule.
fn polygon(p: P, pts: &[P]) -> f32 {
    let mut d = f32::MAX;
    let mut inside = false;
    for (k, &a) in pts.iter().enumerate() {
        let b = pts[(k + 1) % pts.len()];
        d = d.min(segment(p, a, b));
        if (a.1 > p.1) != (b.1 > p.1) && p.0 < a.0 + (p.1 - a.1) / (b.1 - a.1) * (b.0 - a.0) {
            inside = !inside;
        }
    }
    if inside { -d } else { d }
}

/// Hash of a lattice point, uniform in `0..1`: xorshift rounds over a mixed seed, so the
/// output never depends on iteration order.
fn hash(x: i32, y: i32, seed: u32) -> f32 {
    let mut h = (x as u32).wrapping_mul(0x8da6_b343)
        ^ (y as u32).wrapping_mul(0xd816_3841)
        ^ seed.wrapping_mul(0xcb1a_b31f).wrapping_add(0x9e37_79b9);
    for _ in 0..2 {
        h ^= h << 13;
        h ^= h >> 17;
        h ^= h << 5;
        h = h.wrapping_mul(0x2c1b_3c6d);
    }
    (h >> 8) as f32 / (1u32 << 24) as f32
}

/// Smooth value noise in `0..1` with features about `scale` pixels across.
fn noise(p: P, scale: f32, seed: u32) -> f32 {
    let (x, y) = (p.0 / scale, p.1 / scale);
    let (ix, iy) = (x.floor() as i32, y.floor() as i32);
    let smooth = |t: f32| t * t * (3.0 - 2.0 * t);
    let (fx, fy) = (smooth(x - x.floor()), smooth(y - y.floor()));
    let h = |dx, dy| hash(ix + dx, iy + dy, seed);
    let top = h(0, 0) + (h(1, 0) - h(0, 0)) * fx;
    let bottom = h(0, 1) + (h(1, 1) - h(0, 1)) * fx;
    top + (bottom - top) * fy
}

/// Three octaves of [`noise`]: blotches with grain inside them.
fn fbm(p: P, scale: f32, seed: u32) -> f32 {
    (noise(p, scale, seed) * 4.0
        + noise(p, scale / 2.0, seed + 1) * 2.0
        + noise(p, scale / 4.0, seed + 2))
        / 7.0
}

// Unit-sphere helpers for the two balls: each pixel of the disc is a point on a sphere,
// turned by a fixed rotation so the pattern is seen at an angle.
type V3 = [f32; 3];

fn dot3(a: V3, b: V3) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn normalize3(a: V3) -> V3 {
    let l = dot3(a, a).sqrt();
    a.map(|v| v / l)
}

/// Rotates about x, then about z.
fn rotate3(v: V3, about_x: f32, about_z: f32) -> V3 {
    let (s, c) = about_x.sin_cos();
    let v = [v[0], v[1] * c - v[2] * s, v[1] * s + v[2] * c];
    let (s, c) = about_z.sin_cos();
    [v[0] * c - v[1] * s, v[0] * s + v[1] * c, v[2]]
}

/// The point of the sphere of radius `r` at `c` seen at `p` (x right, y up, z towards the
/// viewer), or `None` off the disc.
fn sphere_point(p: P, c: P, r: f32) -> Option<V3> {
    let (x, y) = ((p.0 - c.0) / r, (c.1 - p.1) / r);
    let zz = 1.0 - x * x - y * y;
    (zz > 0.0).then(|| [x, y, zz.sqrt()])
}

/// Diffuse light from the upper left plus a small highlight, as a brightness factor.
fn sphere_light(n: V3) -> f32 {
    let l = normalize3([-0.5, 0.6, 0.75]);
    let d = dot3(n, l).max(0.0);
    0.4 + 0.6 * d + 0.35 * d.powi(24)
}

// ---------------------------------------------------------------------------------------
// Sprites.
// ---------------------------------------------------------------------------------------

/// Eight separate petals, so the gaps between them are empty to the pixel test but
/// inside the bounding box; stem and leaves hang below.
fn flower() -> RgbaImage {
    let mut c = Canvas::new(256, 256);
    let center = (128.0, 104.0);
    let leaf_green = rgb8(70, 150, 60);

    let stem = |p: P| {
        // A gentle S: offset the stroke sideways by a sine of the height.
        let bend = ((p.1 - 120.0) / 136.0 * PI).sin() * 9.0;
        capsule((p.0 - bend, p.1), (128.0, 120.0), (128.0, 250.0), 4.5)
    };
    c.outlined(stem, 1.5, |p| {
        mix(rgb8(90, 160, 70), rgb8(50, 110, 45), (p.0 - 122.0) / 12.0)
    });
    for (at, angle, flip) in [
        ((166.0, 196.0), -0.5f32, 1.0f32),
        ((92.0, 218.0), 0.45, -1.0),
    ] {
        let leaf = move |p: P| ellipse(p, at, 34.0, 12.0, angle);
        c.outlined(leaf, 1.5, |p| {
            let (x, y) = local(p, at, angle);
            // A pale midrib plus a darker half, which reads as a leaf folded along its vein.
            if y.abs() < 1.0 && x.abs() < 30.0 {
                rgb8(150, 210, 120)
            } else if y * flip > 0.0 {
                tint(leaf_green, 0.8)
            } else {
                leaf_green
            }
        });
    }

    let petals = 8;
    for k in 0..petals {
        let a = k as f32 / petals as f32 * TAU + 0.2;
        let at = (center.0 + 54.0 * a.cos(), center.1 + 54.0 * a.sin());
        let petal = move |p: P| ellipse(p, at, 44.0, 18.0, a);
        c.outlined(petal, 2.0, |p| {
            let (x, y) = local(p, at, a);
            let t = (x + 44.0) / 88.0;
            let base = mix(rgb8(200, 40, 90), rgb8(255, 150, 185), t);
            // Faint veins fanning out from the base.
            let vein = ((y / (8.0 + 10.0 * t)) * PI * 1.5).cos().abs().powi(16);
            mix(base, rgb8(170, 30, 80), vein * 0.35 * t)
        });
    }

    c.outlined(
        |p| disc(p, center, 27.0),
        2.0,
        |p| {
            let r = len(p.0 - center.0, p.1 - center.1) / 27.0;
            mix(rgb8(255, 205, 60), rgb8(215, 120, 20), r * r)
        },
    );
    // Seeds on a golden-angle spiral, as in a real flower head.
    let golden = PI * (3.0 - 5f32.sqrt());
    let seeds: Vec<P> = (1..70)
        .map(|k| {
            let r = 24.0 * (k as f32 / 70.0).sqrt();
            let a = k as f32 * golden;
            (center.0 + r * a.cos(), center.1 + r * a.sin())
        })
        .collect();
    c.fill(
        |p| {
            seeds
                .iter()
                .map(|&s| disc(p, s, 1.3))
                .fold(f32::MAX, f32::min)
        },
        |_| rgb8(140, 70, 20),
    );
    c.into_image()
}

/// Archery colors from the outside in; the empty ring between black and blue means a
/// shot can pass "through" the target, which only the pixel test notices.
fn target() -> RgbaImage {
    let mut c = Canvas::new(64, 64);
    let center = (32.0, 32.0);
    let rings: [(f32, f32, Color); 5] = [
        (31.5, 25.0, rgb8(245, 242, 232)),
        (25.0, 19.5, rgb8(35, 35, 40)),
        (16.5, 11.5, rgb8(40, 140, 220)),
        (11.5, 6.5, rgb8(225, 40, 40)),
        (6.5, 0.0, rgb8(255, 210, 40)),
    ];
    for (outer, inner, color) in rings {
        let ring = move |p: P| {
            let r = disc(p, center, 0.0);
            (r - outer).max(inner - r)
        };
        c.fill(ring, |_| color);
        // Thin rings at each boundary, like the scoring lines on a real face.
        let line = move |p: P| (disc(p, center, outer - 0.4)).abs() - 0.5;
        c.fill(move |p| line(p).max(ring(p)), |_| with_alpha(INK, 0.6));
    }
    c.fill(|p| disc(p, center, 1.0), |_| INK);
    c.into_image()
}

/// A truncated icosahedron on a sphere: each point belongs to the face whose plane a ray
/// from the center meets first, so the pentagons come out as real pentagons.
fn soccer_ball() -> RgbaImage {
    let phi = (1.0 + 5f32.sqrt()) / 2.0;
    let mut verts = Vec::new();
    for a in [-1.0, 1.0] {
        for b in [-phi, phi] {
            verts.push(normalize3([0.0, a, b]));
            verts.push(normalize3([a, b, 0.0]));
            verts.push(normalize3([b, 0.0, a]));
        }
    }
    // Icosahedron neighbours are 63.4 degrees apart (cosine 1/sqrt 5); all others are further.
    let near = |a: V3, b: V3| dot3(a, b) > 0.4;
    let third = |a: V3, b: V3| -> V3 { std::array::from_fn(|k| a[k] + (b[k] - a[k]) / 3.0) };
    // (unit normal, distance of the face plane from the center, is pentagon)
    let mut faces: Vec<(V3, f32, bool)> = Vec::new();
    for (i, &v) in verts.iter().enumerate() {
        let n = verts.iter().find(|&&n| near(v, n)).copied().unwrap_or(v);
        faces.push((v, dot3(third(v, n), v), true));
        for (j, &w) in verts.iter().enumerate().skip(i + 1) {
            for &u in verts.iter().skip(j + 1) {
                if near(v, w) && near(w, u) && near(v, u) {
                    let normal =
                        normalize3([v[0] + w[0] + u[0], v[1] + w[1] + u[1], v[2] + w[2] + u[2]]);
                    faces.push((normal, dot3(third(v, w), normal), false));
                }
            }
        }
    }

    let mut c = Canvas::new(32, 32);
    let (center, r) = ((16.0, 16.0), 15.0);
    c.fill(|p| disc(p, center, r + 1.0), |_| INK);
    c.paint(|p| {
        let n = sphere_point(p, center, r)?;
        let q = rotate3(n, 0.45, 0.3);
        let (mut best, mut second, mut pentagon) = (f32::MIN, f32::MIN, false);
        for &(normal, d, is_pent) in &faces {
            let s = dot3(q, normal) / d;
            if s > best {
                (second, best, pentagon) = (best, s, is_pent);
            } else if s > second {
                second = s;
            }
        }
        let base = if pentagon {
            rgb8(30, 30, 35)
        } else if best - second < 0.012 {
            rgb8(120, 120, 125) // seam between two white hexagons
        } else {
            rgb8(250, 250, 245)
        };
        Some(tint(base, sphere_light(n)))
    });
    c.into_image()
}

/// The classic view: two great-circle seams crossing plus the two curved side seams, all
/// drawn on a slightly turned sphere so the ball looks round.
fn basketball() -> RgbaImage {
    let mut c = Canvas::new(48, 48);
    let (center, r) = ((24.0, 24.0), 22.5);
    c.fill(|p| disc(p, center, r + 1.0), |_| INK);
    c.paint(|p| {
        let n = sphere_point(p, center, r)?;
        let q = rotate3(n, 0.2, 0.35);
        // Seam half-width in sphere units, widened near the rim where the surface turns away.
        let w = 0.032 / n[2].max(0.5);
        let seam =
            q[0].abs() < w || q[1].abs() < w || (q[0].abs() - 0.48 - 0.45 * q[1] * q[1]).abs() < w;
        let pebbles = hash((p.0 * 1.5) as i32, (p.1 * 1.5) as i32, 7) * 0.12;
        let base = if seam {
            rgb8(35, 25, 20)
        } else {
            tint(rgb8(235, 115, 35), 1.0 - pebbles)
        };
        Some(tint(base, sphere_light(n)))
    });
    c.into_image()
}

/// Shared shape of the three platforms: an opaque slab whose corners are rounded off, so
/// the mask differs from the box only there.
fn platform(texture: impl Fn(P) -> Color) -> RgbaImage {
    let mut c = Canvas::new(320, 32);
    let slab = |p: P| rounded_rect(p, (0.0, 0.0), (320.0, 32.0), 5.0);
    c.fill(slab, |_| tint(INK, 1.2));
    c.fill(|p| slab(p) + 1.0, texture);
    c.into_image()
}

fn brick() -> RgbaImage {
    platform(|p| {
        // Two courses of 40x16 bricks, the second offset by half a brick (running bond).
        let row = ((p.1 + 1.0) / 16.0).floor();
        let x = p.0 + if row as i32 % 2 == 1 { 20.0 } else { 0.0 };
        let col = (x / 40.0).floor();
        let (u, v) = (x - col * 40.0, p.1 + 1.0 - row * 16.0);
        let grain = fbm(p, 6.0, 3);
        if u < 2.0 || v < 2.0 {
            return tint(rgb8(190, 178, 160), 0.85 + 0.25 * grain);
        }
        let k = 0.82 + 0.3 * hash(col as i32, row as i32, 11);
        let mut color = tint(rgb8(165, 68, 45), k * (0.8 + 0.35 * grain));
        if v < 3.5 {
            color = tint(color, 1.18);
        } else if v > 14.5 || u > 38.5 {
            color = tint(color, 0.75);
        }
        color
    })
}

/// Shared by the two stone slabs: four blocks with bevelled edges, a mottled face and a
/// couple of hairline cracks.
fn stone_texture(p: P, base: Color, seed: u32) -> Color {
    let block = (p.0 / 80.0).floor();
    let u = p.0 - block * 80.0;
    if u < 1.5 {
        return tint(base, 0.45);
    }
    let mottle = fbm(p, 12.0, seed);
    let speck = hash(p.0 as i32, p.1 as i32, seed + 5);
    let k =
        (0.88 + 0.14 * hash(block as i32, 0, seed)) * (0.75 + 0.45 * mottle) * (0.95 + 0.1 * speck);
    let mut color = tint(base, k);
    let crack = (p.1 - 16.0 - 10.0 * (noise(p, 18.0, seed + 9) - 0.5) * 2.0).abs();
    if crack < 0.6 && noise((p.0, 0.0), 40.0, seed + 3) > 0.6 {
        color = tint(color, 0.6);
    }
    if p.1 < 3.0 || u < 3.5 {
        color = tint(color, 1.2);
    } else if p.1 > 28.0 || u > 77.5 {
        color = tint(color, 0.72);
    }
    color
}

fn stone() -> RgbaImage {
    platform(|p| stone_texture(p, rgb8(150, 150, 155), 21))
}

/// Dark blue-green rock under a ragged cap of moss that drips down the face: the
/// slippery-looking one is the slow one.
fn slow_stone() -> RgbaImage {
    platform(|p| {
        let rock = stone_texture(p, rgb8(60, 95, 110), 41);
        let drip = (noise((p.0, 0.0), 5.0, 43) - 0.55).max(0.0) * 40.0;
        let edge = 5.0 + 4.0 * fbm((p.0, 0.0), 14.0, 42) + drip;
        let moss = fbm(p, 4.0, 44);
        if p.1 < edge {
            let shade = if p.1 > edge - 1.5 {
                0.7
            } else {
                0.8 + 0.45 * moss
            };
            tint(rgb8(95, 160, 55), shade)
        } else if fbm(p, 7.0, 45) > 0.68 {
            // Moss speckles clinging lower down.
            tint(rgb8(80, 135, 55), 0.8 + 0.3 * moss)
        } else {
            rock
        }
    })
}

const LARRY_FRAME: (u32, u32) = (48, 64);
const LARRY_FRAMES: u32 = 8;

/// Four walking frames facing right, then the same four mirrored to face left, on a
/// magenta color key. Edges are hard (no partial alpha) because a color key cannot
/// express a half-transparent pixel: blended edges would leave a pink fringe.
fn larry_sheet() -> RgbaImage {
    let (fw, fh) = LARRY_FRAME;
    let mut sheet = RgbaImage::from_pixel(fw * LARRY_FRAMES, fh, MAGENTA);
    for k in 0..4 {
        let frame = larry_frame(k as f32 / 4.0 * TAU);
        for (x, y, &px) in frame.enumerate_pixels() {
            sheet.put_pixel(k * fw + x, y, px);
            sheet.put_pixel((k + 4) * fw + (fw - 1 - x), y, px);
        }
    }
    sheet
}

/// One frame of the walk cycle at `phase` (radians), keyed onto magenta.
fn larry_frame(phase: f32) -> RgbaImage {
    let mut c = Canvas::new(LARRY_FRAME.0, LARRY_FRAME.1);
    let skin = rgb8(245, 195, 150);
    let shirt = rgb8(40, 160, 80);
    let trousers = rgb8(55, 70, 150);
    let shoes = rgb8(90, 50, 30);
    let bob = -1.5 * (2.0 * phase).cos().abs();
    let hip = (24.0, 41.0 + bob);
    let shoulder = (24.0, 26.0 + bob);
    // Angles from straight down, positive swinging forward (to the right).
    let at = |from: P, angle: f32, length: f32| {
        (from.0 + angle.sin() * length, from.1 + angle.cos() * length)
    };

    // Far-side limbs first and darker, so the near ones overlap them.
    for (side, dim) in [(PI, 0.72), (0.0, 1.0)] {
        let s = (phase + side).sin();
        let thigh = 0.5 * s;
        // The knee bends only while the leg swings forward, lifting the foot clear.
        let shin = thigh - 0.6 * (phase + side).cos().max(0.0);
        let knee = at(hip, thigh, 10.0);
        let ankle = at(knee, shin, 10.0);
        let arm = -0.55 * s;
        let elbow = at(shoulder, arm, 8.0);
        let hand = at(elbow, arm + 0.5, 7.0);
        let leg = move |p: P| capsule(p, hip, knee, 3.6).min(capsule(p, knee, ankle, 3.2));
        let foot = move |p: P| {
            capsule(
                p,
                (ankle.0 - 1.0, ankle.1 + 1.0),
                (ankle.0 + 4.5, ankle.1 + 1.5),
                2.6,
            )
        };
        let limb = move |p: P| capsule(p, shoulder, elbow, 2.8).min(capsule(p, elbow, hand, 2.5));
        let hand_disc = move |p: P| disc(p, hand, 2.8);
        if side == 0.0 {
            draw_torso(&mut c, hip, shoulder, shirt, skin);
        }
        c.outlined(leg, 1.0, |_| tint(trousers, dim));
        c.outlined(foot, 1.0, |_| tint(shoes, dim));
        c.outlined(limb, 1.0, |_| tint(shirt, dim * 0.9));
        c.outlined(hand_disc, 1.0, |_| tint(skin, dim));
    }
    key_onto_magenta(c)
}

fn draw_torso(c: &mut Canvas, hip: P, shoulder: P, shirt: Color, skin: Color) {
    let head = (shoulder.0 + 2.0, shoulder.1 - 12.0);
    c.outlined(
        |p| {
            rounded_rect(
                p,
                (hip.0 - 7.0, shoulder.1 - 3.0),
                (hip.0 + 7.0, hip.1 + 2.0),
                4.0,
            )
        },
        1.0,
        |p| {
            if p.1 > hip.1 - 2.0 {
                rgb8(60, 45, 35)
            } else {
                shirt
            } // belt
        },
    );
    c.outlined(
        |p| disc(p, head, 9.0).min(disc(p, (head.0 + 8.5, head.1 + 1.5), 2.2)),
        1.0,
        |_| skin,
    );
    // Hair and a cap brim over the forehead, swept back.
    c.outlined(
        |p| {
            let cap = disc(p, head, 9.3).max(p.1 - head.1 + 2.0);
            let brim = capsule(
                p,
                (head.0 + 2.0, head.1 - 2.5),
                (head.0 + 12.0, head.1 - 2.0),
                1.4,
            );
            cap.min(brim)
        },
        0.8,
        |_| rgb8(200, 40, 40),
    );
    c.fill(
        |p| disc(p, (head.0 - 7.5, head.1 + 1.0), 2.5).max(disc(p, head, 9.0)),
        |_| rgb8(110, 70, 40),
    );
    c.fill(
        |p| ellipse(p, (head.0 + 4.5, head.1 + 0.5), 1.3, 2.0, 0.0),
        |_| INK,
    );
    c.fill(
        |p| {
            capsule(
                p,
                (head.0 + 3.0, head.1 + 5.5),
                (head.0 + 6.5, head.1 + 5.0),
                0.6,
            )
        },
        |_| tint(skin, 0.6),
    );
}

/// Hardens alpha at one half: covered pixels become opaque, the rest the key color.
fn key_onto_magenta(c: Canvas) -> RgbaImage {
    let mut img = c.into_image();
    for px in img.pixels_mut() {
        *px = if px[3] >= 128 {
            Rgba([px[0], px[1], px[2], 255])
        } else {
            MAGENTA
        };
    }
    img
}

/// Four heart-shaped leaflets with pale chevrons, one leaf each way, and a short stem.
fn clover() -> RgbaImage {
    let mut c = Canvas::new(32, 32);
    let center = (16.0, 15.0);
    let green = rgb8(60, 170, 70);
    c.outlined(
        |p| capsule(p, center, (22.0, 29.5), 1.3),
        0.8,
        |_| tint(green, 0.8),
    );
    for k in 0..4 {
        let a = k as f32 * PI / 2.0 + PI / 4.0;
        let leaf = move |p: P| {
            let (x, y) = local(p, center, a);
            let lobes = disc((x, y.abs()), (9.0, 2.8), 3.8);
            let point = polygon((x, y), &[(1.5, 0.0), (8.0, -6.0), (10.0, 0.0), (8.0, 6.0)]);
            lobes.min(point)
        };
        c.outlined(leaf, 0.9, |p| {
            let (x, y) = local(p, center, a);
            let chevron = (x - 6.0 - y.abs() * 0.35).abs() < 0.6 && x > 4.0 && y.abs() < 4.0;
            if chevron {
                rgb8(190, 235, 180)
            } else {
                mix(tint(green, 0.75), green, x / 10.0)
            }
        });
    }
    c.into_image()
}

/// A battered wooden crate: planks inside a frame with a diagonal brace, the corners
/// knocked off and one of them splintered away, so its mask is far from its box.
fn crate_() -> RgbaImage {
    let mut c = Canvas::new(64, 64);
    let outline = [
        (10.0, 3.0),
        (54.0, 3.0),
        (61.0, 10.0),
        (61.0, 41.0),
        (57.0, 45.0),
        (60.0, 49.0),
        (54.0, 52.0),
        (56.0, 56.0),
        (49.0, 55.0),
        (45.0, 61.0),
        (10.0, 61.0),
        (3.0, 54.0),
        (3.0, 10.0),
    ];
    let wood = rgb8(190, 135, 70);
    c.outlined(
        |p| polygon(p, &outline),
        1.5,
        |p| {
            let grain = fbm((p.0 * 0.25, p.1 * 3.0), 3.0, 61);
            let frame = p.0 < 11.0 || p.0 > 53.0 || p.1 < 11.0 || p.1 > 53.0;
            let brace = (p.0 - p.1).abs() < 5.0;
            let k = if frame || brace { 0.8 } else { 1.0 };
            let board = ((p.1 - 11.0) / 10.5).floor();
            let seam = !frame && !brace && (p.1 - 11.0 - board * 10.5) < 1.0;
            if seam {
                tint(wood, 0.45)
            } else {
                tint(
                    wood,
                    k * (0.78 + 0.35 * grain) * (0.95 + 0.1 * hash(board as i32, 0, 62)),
                )
            }
        },
    );
    // Dark lines where the frame and the brace meet the planks, clipped by the broken edge.
    let panel = |p: P| rounded_rect(p, (11.0, 11.0), (53.0, 53.0), 0.0);
    let lines = |p: P| {
        let brace = ((p.0 - p.1).abs() - 5.0).abs().max(panel(p));
        (panel(p).abs().min(brace) - 0.5).max(polygon(p, &outline) + 1.0)
    };
    c.fill(lines, |_| with_alpha(INK, 0.8));
    for nail in [
        (7.0, 7.0),
        (57.0, 7.0),
        (7.0, 57.0),
        (50.0, 50.0),
        (14.0, 14.0),
    ] {
        c.fill(|p| disc(p, nail, 1.4), |_| rgb8(70, 70, 75));
    }
    c.into_image()
}

/// A cut gem seen from the side: table, crown facets and a pavilion narrowing to a point.
/// Each facet gets its own shade, lit from the upper left.
fn gem() -> RgbaImage {
    let mut c = Canvas::new(64, 64);
    let g = [
        (3.0, 24.0),
        (17.0, 24.0),
        (32.0, 24.0),
        (47.0, 24.0),
        (61.0, 24.0),
    ];
    let (t0, t1, tip) = ((18.0, 7.0), (46.0, 7.0), (32.0, 61.0));
    let facets: [(Vec<P>, f32); 9] = [
        (vec![g[0], t0, g[1]], 1.25),
        (vec![t0, g[2], g[1]], 1.05),
        (vec![t0, t1, g[2]], 1.35),
        (vec![t1, g[3], g[2]], 0.9),
        (vec![t1, g[4], g[3]], 0.75),
        (vec![g[0], g[1], tip], 1.0),
        (vec![g[1], g[2], tip], 0.8),
        (vec![g[2], g[3], tip], 0.65),
        (vec![g[3], g[4], tip], 0.5),
    ];
    let body = [g[0], t0, t1, g[4], tip];
    let blue = rgb8(60, 140, 230);
    c.fill(|p| polygon(p, &body) - 1.5, |_| INK);
    for (pts, k) in &facets {
        c.fill(
            |p| polygon(p, pts) - 0.3,
            |p| {
                let glint = noise(p, 5.0, 71) * 0.15;
                tint(blue, k + glint)
            },
        );
    }
    // Pale facet edges: the bright lines that make a gem read as cut rather than flat.
    let edges = |p: P| {
        facets
            .iter()
            .map(|(pts, _)| polygon(p, pts).abs())
            .fold(f32::MAX, f32::min)
            .max(polygon(p, &body) + 0.8)
            - 0.45
    };
    c.fill(edges, |_| with_alpha(rgb8(210, 235, 255), 0.8));
    // A four-pointed sparkle on the upper-left crown.
    let spark = (22.0, 14.0);
    c.fill(
        |p| {
            let (x, y) = ((p.0 - spark.0).abs(), (p.1 - spark.1).abs());
            (x * y).sqrt() - 0.7 + (x + y) * 0.08 - 0.3
        },
        |_| rgb(1.0, 1.0, 1.0),
    );
    c.into_image()
}

/// Magenta and black squares: unmistakably "texture missing".
fn placeholder() -> RgbaImage {
    RgbaImage::from_fn(32, 32, |x, y| {
        if (x / 8 + y / 8) % 2 == 0 {
            MAGENTA
        } else {
            Rgba([0, 0, 0, 255])
        }
    })
}

// ---------------------------------------------------------------------------------------
// Terrain: the destructible ground of the "Terrain" scene, the size of the window.
// ---------------------------------------------------------------------------------------

const TERRAIN_SIZE: (u32, u32) = (1280, 720);

/// Rolling ground: the height of its surface (y down) at `x`, with a big hill in the
/// middle.
fn terrain_surface(x: f32) -> f32 {
    let hill = 190.0 * (-((x - 690.0) / 150.0).powi(2)).exp();
    480.0
        + 45.0 * (x / 170.0 + 0.4).sin()
        + 22.0 * (x / 61.0 + 1.3).sin()
        + 40.0 * (fbm((x, 0.0), 90.0, 61) - 0.5)
        - hill
}

/// Negative inside the ground: the rolling surface; a hill with a tunnel through it, whose
/// top is held up by a natural bridge to the cliff on the right (cut the bridge and the
/// hilltop falls); an overhang off the cliff's top; two thin ledges on the cliff's face.
fn terrain_shape(p: P) -> f32 {
    let ground = terrain_surface(p.0) - p.1;
    let cliff = rounded_rect(p, (1080.0, 290.0), (1320.0, 800.0), 8.0);
    let bridge = capsule(p, (740.0, 352.0), (1090.0, 330.0), 13.0);
    let overhang = capsule(p, (1090.0, 297.0), (975.0, 272.0), 9.0);
    let ledges = rounded_rect(p, (968.0, 396.0), (1084.0, 401.0), 2.0).min(rounded_rect(
        p,
        (1006.0, 446.0),
        (1084.0, 450.0),
        1.5,
    ));
    let tunnel = capsule(p, (468.0, 455.0), (890.0, 404.0), 18.0);
    ground
        .min(cliff)
        .min(bridge)
        .min(overhang)
        .min(ledges)
        .max(-tunnel)
}

fn terrain() -> RgbaImage {
    let mut c = Canvas::new(TERRAIN_SIZE.0, TERRAIN_SIZE.1);
    c.fill(terrain_shape, |p| {
        // Grass where open air lies a few pixels above; layered earth below it.
        if terrain_shape((p.0, p.1 - 6.0)) >= 0.0 {
            let blade = hash(p.0 as i32, 0, 71);
            return tint(rgb8(88, 158, 58), 0.8 + 0.3 * blade + 0.2 * fbm(p, 8.0, 72));
        }
        let grain = fbm(p, 14.0, 73);
        let layer = ((p.1 + 30.0 * fbm(p, 120.0, 74)) / 23.0).sin();
        let base = mix(
            rgb8(128, 88, 56),
            rgb8(98, 70, 52),
            (p.1 / 720.0).clamp(0.0, 1.0),
        );
        let mut color = tint(base, 0.8 + 0.3 * grain + 0.08 * layer);
        if hash(p.0 as i32 / 3, p.1 as i32 / 3, 75) > 0.985 {
            color = tint(rgb8(150, 140, 128), 0.9 + 0.2 * grain);
        }
        color
    });
    c.into_image()
}
