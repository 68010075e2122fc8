//! The browser build's page (`./web.sh`, `src/web/index.html`): the game's options from the
//! page's address, and the messages a player reads on the page itself (loading, a missing
//! scene, a crash) rather than in a console they never open.

use web_sys::Element;

use crate::cli::{CliError, GameOptions, args_from_query, parse_args};

/// The element the page shows its message in; the page starts it as "Loading…".
const STATUS_ID: &str = "status";

/// The options `?scene=terrain&autoplay` and the like ask for.
pub fn options_from_page() -> Result<GameOptions, CliError> {
    let query = web_sys::window()
        .and_then(|window| window.location().search().ok())
        .unwrap_or_default();
    parse_args(args_from_query(&query)?)
}

fn status_element() -> Option<Element> {
    web_sys::window()?.document()?.get_element_by_id(STATUS_ID)
}

/// Replaces the page's message with `text`, styled as an error.
pub fn show_error(text: &str) {
    if let Some(status) = status_element() {
        status.set_text_content(Some(text));
        status.set_class_name("error");
    }
}

/// Takes the loading message off the page, once the scene has something to show.
pub fn hide_status() {
    if let Some(status) = status_element()
        && status.class_name() != "error"
    {
        status.set_class_name("hidden");
    }
}

/// A panic stops the game where the player cannot see why: after the hook Bevy installs
/// (which logs the message to the console), the message goes on the page too.
pub fn show_panics_on_page() {
    let logged = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        logged(info);
        show_error(&format!(
            "The game stopped: {info}\nReload the page to play again."
        ));
    }));
}

/// `?determinism-hash`: runs the determinism scenario (`crate::sim::determinism`) on the
/// page's thread, then logs its line to the console, where the browser test reads it, and
/// shows it on the page.
pub fn show_determinism_hash() {
    use crate::sim::determinism::{NarrowPhaseThreads, check};
    let (same, line) = check(NarrowPhaseThreads::Serial);
    web_sys::console::log_1(&line.as_str().into());
    if let Some(status) = status_element() {
        status.set_text_content(Some(&line));
        status.set_class_name(if same { "" } else { "error" });
    }
}
