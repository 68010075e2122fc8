//! Checks a screenshot for the smoke test: it must exist, decode, and not be a single
//! colour. Prints the number of distinct colours; exits 1 with the reason otherwise.
//!
//! Usage: `cargo run --example check_screenshot -- PATH.png`

use std::collections::HashSet;
use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: check_screenshot PATH.png");
        return ExitCode::from(2);
    };
    let image = match image::open(&path) {
        Ok(image) => image.to_rgb8(),
        Err(err) => {
            println!("screenshot {path} missing or unreadable: {err}");
            return ExitCode::FAILURE;
        }
    };
    let colours: HashSet<[u8; 3]> = image.pixels().map(|p| p.0).collect();
    if colours.len() < 2 {
        println!("screenshot {path} is a single colour");
        return ExitCode::FAILURE;
    }
    println!(
        "screenshot {}×{} with {} colours",
        image.width(),
        image.height(),
        colours.len()
    );
    ExitCode::SUCCESS
}
