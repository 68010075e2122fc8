//! Side-by-side benchmark against pygame.mask: the project's half of
//! `../shared/bench/` (read `pygame_peer.py` and `compare.py` there).
//!
//! Reads `cases.csv` and its PNGs from the fixture directory and prints CSV
//! `case,op,ns,result` on stdout with pygame_peer.py's ops:
//! - `overlap`, `overlap_area`: axis-aligned, B's top-left at `(dx, dy)`.
//! - `rotated_overlap`: B turned counterclockwise on screen by `angle_b_deg` about its
//!   centre, its centre at A's centre + (dx, dy), computed from scratch for that angle
//!   (a sprite whose angle changes every frame). Only B's distance field, a property of the
//!   mask like the mask itself, is built once beforehand.
//! - `rotated_cached`: the same when the angle did not change: B's mask rotated into A's
//!   grid beforehand ([`BitMask::transformed`]), then an axis-aligned overlap.
//!
//! It also prints the tutorials' loops on the same masks (`tutorial_*` ops, which
//! compare.py ignores) and, on stderr, their time over ours per case.
//!
//! ns is the best of 5 repeats of a loop calibrated to ~20 ms, per call, as in
//! pygame_peer.py. Run:
//!   cargo bench --no-default-features --bench peer -- ../shared/bench/fixtures > ours.csv

use std::collections::HashMap;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Instant;

use bevy_math::{Affine2, Vec2};
use pixel_collide::baseline::{self, ColorArray};
use pixel_collide::transformed::transformed_overlap_area;
use pixel_collide::{BitMask, transformed_intersects};

fn best_ns(mut f: impl FnMut()) -> f64 {
    let mut n: u64 = 1;
    loop {
        let t = Instant::now();
        for _ in 0..n {
            f();
        }
        let dt = t.elapsed().as_secs_f64();
        if dt >= 0.002 {
            n = ((n as f64 * 0.02 / dt) as u64).max(1);
            break;
        }
        n *= 4;
    }
    (0..5)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..n {
                f();
            }
            t.elapsed().as_secs_f64() / n as f64 * 1e9
        })
        .fold(f64::INFINITY, f64::min)
}

struct Sprite {
    rgba: image::RgbaImage,
    mask: BitMask,
}

impl Sprite {
    fn colors(&self) -> ColorArray<'_> {
        ColorArray {
            width: self.rgba.width(),
            height: self.rgba.height(),
            rgba: self.rgba.as_raw(),
        }
    }
}

fn load(dir: &Path, name: &str) -> Result<Sprite, String> {
    let path = dir.join(name);
    let rgba = image::open(&path)
        .map_err(|e| format!("{}: {e}", path.display()))?
        .to_rgba8();
    let mask = BitMask::from_image(&rgba, 0);
    Ok(Sprite { rgba, mask })
}

/// B's mask-to-A transform for a rotated case: counterclockwise on screen (y down) is a
/// negative angle in mask space.
fn rotated_b(a: &BitMask, b: &BitMask, dx: f32, dy: f32, degrees: f32) -> Affine2 {
    let centre = Vec2::new(a.width() as f32, a.height() as f32) / 2.0 + Vec2::new(dx, dy);
    let half_b = Vec2::new(b.width() as f32, b.height() as f32) / 2.0;
    Affine2::from_angle_translation(-degrees.to_radians(), centre)
        * Affine2::from_translation(-half_b)
}

fn main() {
    // cargo bench passes `--bench`; everything else is the fixture directory, then
    // optional case-name filters (substrings) for a quicker look at a few cases.
    let mut args = std::env::args().skip(1).filter(|a| !a.starts_with("--"));
    let dir: PathBuf = args
        .next()
        .unwrap_or_else(|| "../shared/bench/fixtures".into())
        .into();
    let filters: Vec<String> = args.collect();
    if let Err(e) = run(&dir, &filters) {
        eprintln!("peer bench: {e}");
        std::process::exit(1);
    }
}

fn run(dir: &Path, filters: &[String]) -> Result<(), String> {
    let cases_path = dir.join("cases.csv");
    let cases = std::fs::read_to_string(&cases_path)
        .map_err(|e| format!("{}: {e}", cases_path.display()))?;
    let mut sprites: HashMap<String, Sprite> = HashMap::new();
    println!("case,op,ns,result");
    for line in cases.lines().skip(1).filter(|l| !l.trim().is_empty()) {
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        let [case, a_name, b_name, dx, dy, angle] = fields[..] else {
            return Err(format!("bad line in cases.csv: {line}"));
        };
        if !filters.is_empty() && !filters.iter().any(|f| case.contains(f.as_str())) {
            continue;
        }
        let number = |s: &str| -> Result<f32, String> {
            s.parse()
                .map_err(|_| format!("bad number {s:?} in: {line}"))
        };
        let (dx, dy, angle) = (number(dx)?, number(dy)?, number(angle)?);
        for name in [a_name, b_name] {
            if !sprites.contains_key(name) {
                sprites.insert(name.to_string(), load(dir, name)?);
            }
        }
        let (a, b) = (&sprites[a_name], &sprites[b_name]);
        let row = |op: &str, ns: f64, result: u64| println!("{case},{op},{ns:.1},{result}");
        let ratio = |op: &str, ours: f64, tutorial: f64| {
            eprintln!("{case:32} {op:16} tutorial/ours {:8.1}x", tutorial / ours);
        };

        if angle == 0.0 {
            let off = (dx as i32, dy as i32);
            let hit = a.mask.overlap(&b.mask, off).is_some();
            let ours = best_ns(|| {
                black_box(black_box(&a.mask).overlap(black_box(&b.mask), black_box(off)));
            });
            row("overlap", ours, hit.into());
            let tutorial = best_ns(|| {
                black_box(baseline::intersect_pixels(
                    a.colors(),
                    b.colors(),
                    black_box(off),
                    0,
                ));
            });
            row("tutorial_overlap", tutorial, hit.into());
            ratio("overlap", ours, tutorial);

            let area = a.mask.overlap_area(&b.mask, off);
            let ours = best_ns(|| {
                black_box(black_box(&a.mask).overlap_area(black_box(&b.mask), black_box(off)));
            });
            row("overlap_area", ours, area);
            let tutorial = best_ns(|| {
                black_box(baseline::overlap_area_pixels(
                    a.colors(),
                    b.colors(),
                    black_box(off),
                    0,
                ));
            });
            row("tutorial_overlap_area", tutorial, area);
            ratio("overlap_area", ours, tutorial);
        } else {
            let tb = rotated_b(&a.mask, &b.mask, dx, dy, angle);
            // The mask's distance field, like the mask, is built once per sprite.
            let hit = transformed_intersects(&a.mask, Affine2::IDENTITY, &b.mask, tb);
            let ours = best_ns(|| {
                let tb = rotated_b(&a.mask, &b.mask, black_box(dx), dy, black_box(angle));
                black_box(transformed_intersects(
                    &a.mask,
                    Affine2::IDENTITY,
                    &b.mask,
                    tb,
                ));
            });
            row("rotated_overlap", ours, hit.into());
            let tutorial = best_ns(|| {
                let tb = rotated_b(&a.mask, &b.mask, black_box(dx), dy, black_box(angle));
                black_box(baseline::intersect_pixels_transformed(
                    a.colors(),
                    Affine2::IDENTITY,
                    b.colors(),
                    tb,
                    0,
                ));
            });
            row("tutorial_rotated", tutorial, hit.into());
            ratio("rotated_overlap", ours, tutorial);

            let area = transformed_overlap_area(&a.mask, Affine2::IDENTITY, &b.mask, tb);
            let ours = best_ns(|| {
                let tb = rotated_b(&a.mask, &b.mask, black_box(dx), dy, black_box(angle));
                black_box(transformed_overlap_area(
                    &a.mask,
                    Affine2::IDENTITY,
                    &b.mask,
                    tb,
                ));
            });
            row("rotated_area", ours, area);
            let tutorial = best_ns(|| {
                let tb = rotated_b(&a.mask, &b.mask, black_box(dx), dy, black_box(angle));
                black_box(baseline::overlap_area_pixels_transformed(
                    a.colors(),
                    Affine2::IDENTITY,
                    b.colors(),
                    tb,
                    0,
                ));
            });
            row("tutorial_rotated_area", tutorial, area);
            ratio("rotated_area", ours, tutorial);

            let (rotated, offset) = b
                .mask
                .transformed(tb)
                .ok_or_else(|| format!("{case}: cannot rotate {b_name}"))?;
            let cached_hit = a.mask.overlap(&rotated, offset).is_some();
            let ours = best_ns(|| {
                black_box(black_box(&a.mask).overlap(black_box(&rotated), black_box(offset)));
            });
            row("rotated_cached", ours, cached_hit.into());
        }
    }
    Ok(())
}
