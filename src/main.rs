//! `cargo run --release`: the game. See README for options and controls.

use bevy::prelude::*;
use pixel_collide_game::{CliError, GamePlugin, parse_args};

fn main() -> AppExit {
    let options = match parse_args(std::env::args().skip(1)) {
        Ok(options) => options,
        Err(info @ (CliError::Help | CliError::ListScenes)) => {
            println!("{info}");
            return AppExit::Success;
        }
        Err(err) => {
            eprintln!("pixel_collide: {err}");
            return AppExit::error();
        }
    };
    App::new().add_plugins(GamePlugin { options }).run()
}
