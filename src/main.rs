//! `cargo run --release`: the game; `./web.sh`: the same game in a browser. See README for
//! options and controls.

use bevy::prelude::*;
use pixel_collide_game::GamePlugin;
#[cfg(not(target_arch = "wasm32"))]
use pixel_collide_game::{CliError, parse_args};

#[cfg(not(target_arch = "wasm32"))]
fn main() -> AppExit {
    let options = match parse_args(std::env::args().skip(1)) {
        Ok(options) => options,
        Err(info @ (CliError::Help | CliError::ListScenes)) => {
            println!("{info}");
            return AppExit::Success;
        }
        Err(CliError::DeterminismHash) => {
            use pixel_collide_game::sim::determinism::{NarrowPhaseThreads, check};
            let threads = std::thread::available_parallelism().map_or(1, usize::from);
            let (same, line) = check(NarrowPhaseThreads::Scoped(threads));
            println!("{line}");
            return if same {
                AppExit::Success
            } else {
                AppExit::error()
            };
        }
        Err(err) => {
            eprintln!("pixel_collide: {err}");
            return AppExit::error();
        }
    };
    App::new().add_plugins(GamePlugin { options }).run()
}

/// The page's address stands for the command line; its errors go on the page.
#[cfg(target_arch = "wasm32")]
fn main() {
    use pixel_collide_game::web;
    let options = match web::options_from_page() {
        Ok(options) => options,
        Err(pixel_collide_game::CliError::DeterminismHash) => {
            web::show_determinism_hash();
            return;
        }
        Err(err) => {
            web::show_error(&format!("Pixel Collide: {err}"));
            return;
        }
    };
    let mut app = App::new();
    app.add_plugins(GamePlugin { options });
    web::show_panics_on_page();
    app.run();
}
