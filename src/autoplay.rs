//! `--autoplay`: scripted input that makes each scene show what it is about, for the
//! README's clips (`--record`). Each scene scripts its own autoplay in [`AutoplaySystems`];
//! the shell only turns the set on. The scripts write [`Controls`](crate::input::Controls)
//! after the devices are read, so the scenes run exactly as for a player.

use bevy::prelude::*;

use super::{AppSystems, GameOptions};

/// The scenes' autoplay scripts: they run after the devices are read, and only with
/// `--autoplay`.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AutoplaySystems;

pub(super) fn plugin(app: &mut App) {
    app.configure_sets(
        Update,
        AutoplaySystems
            .after(super::input::read_controls)
            .in_set(AppSystems::ReadInput)
            .run_if(|options: Option<Res<GameOptions>>| options.is_some_and(|o| o.autoplay)),
    );
}
