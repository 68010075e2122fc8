//! Checks a screenshot for the smoke test: it must exist, decode, and not be a single
//! color. Prints the number of distinct colors; exits 1 with the reason otherwise.
//!
//! With `--scene-percent P` (for a run with the overlay hidden), at least P % of the play
//! area below the status line must differ from the game's clear color: the scene drew
//! something of its own there, not only the egui status line.
//!
//! Usage: `cargo run --example check_screenshot -- PATH.png [--scene-percent P]`

use std::collections::HashSet;
use std::process::ExitCode;

/// The game's clear color, `Color::srgb(0.09, 0.11, 0.16)`, as 8-bit sRGB.
const CLEAR: [u8; 3] = [23, 28, 41];
/// The status line's band at the top of the window, logical pixels: left out of the count.
const STATUS_BAND: u32 = 90;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(path), scene_percent) = (args.first().cloned(), args.get(1..)) else {
        eprintln!("usage: check_screenshot PATH.png [--scene-percent P]");
        return ExitCode::from(2);
    };
    let scene_percent: Option<f64> = match scene_percent {
        Some([flag, value]) if flag == "--scene-percent" => match value.parse() {
            Ok(p) => Some(p),
            Err(_) => {
                eprintln!("--scene-percent: not a number: {value}");
                return ExitCode::from(2);
            }
        },
        Some([]) | None => None,
        Some(_) => {
            eprintln!("usage: check_screenshot PATH.png [--scene-percent P]");
            return ExitCode::from(2);
        }
    };
    let image = match image::open(&path) {
        Ok(image) => image.to_rgb8(),
        Err(err) => {
            println!("screenshot {path} missing or unreadable: {err}");
            return ExitCode::FAILURE;
        }
    };
    let colors: HashSet<[u8; 3]> = image.pixels().map(|p| p.0).collect();
    if colors.len() < 2 {
        println!("screenshot {path} is a single color");
        return ExitCode::FAILURE;
    }
    let mut verdict = format!(
        "screenshot {}×{} with {} colors",
        image.width(),
        image.height(),
        colors.len()
    );
    if let Some(wanted) = scene_percent {
        let (mut drawn, mut all) = (0u64, 0u64);
        for (_, y, pixel) in image.enumerate_pixels() {
            if y < STATUS_BAND {
                continue;
            }
            all += 1;
            let far = pixel.0.iter().zip(CLEAR).any(|(&c, k)| c.abs_diff(k) > 8);
            drawn += u64::from(far);
        }
        let percent = drawn as f64 * 100.0 / all.max(1) as f64;
        verdict += &format!(", {percent:.1}% of the play area drawn");
        if percent < wanted {
            println!("{verdict}: under {wanted}%, the scene drew (almost) nothing");
            return ExitCode::FAILURE;
        }
    }
    println!("{verdict}");
    ExitCode::SUCCESS
}
