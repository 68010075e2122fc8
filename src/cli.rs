//! Command-line options: which scene to open, and the smoke test's `--frames`,
//! `--seconds`, `--screenshot` and `--abuse-window`.

use std::fmt;
use std::path::PathBuf;

use bevy::prelude::Resource;

use super::scene::GameScene;

/// What the command line asked for.
#[derive(Resource, Debug, Clone, PartialEq, Default)]
pub struct GameOptions {
    pub scene: GameScene,
    /// Quit after this many frames.
    pub frames: Option<u32>,
    /// Quit once this many seconds of game time have passed since the scene was ready
    /// (or `frames`, if sooner): a run that needs a few seconds of play gets them on a
    /// slow machine without taking longer on it.
    pub seconds: Option<f32>,
    /// Save the window here just before quitting.
    pub screenshot: Option<PathBuf>,
    /// Put the window through sizes no player should (a pixel, huge, minimised) in the
    /// first frames, then back to normal: the smoke test's window abuse run.
    pub abuse_window: bool,
    /// Write an animated GIF of the window here, until `frames`.
    pub record: Option<PathBuf>,
    /// Every how many frames the recording takes one.
    pub record_every: u32,
    /// Scripted input that shows each scene at work (see `crate::autoplay`).
    pub autoplay: bool,
    /// Start with the overlay hidden, as after F1: the whole play area shows.
    pub hide_overlay: bool,
    /// Log the frame rate every few seconds (`frame rate: SCENE N fps`), from Bevy's
    /// diagnostics, so native and web builds are measured the same way.
    pub log_fps: bool,
}

/// The longest `--seconds`: a day, so that a typo cannot ask for a run that never ends.
pub const MAX_SECONDS: f32 = 86_400.0;

/// Frames between two frames of a recording, unless `--record-every` says otherwise.
pub const DEFAULT_RECORD_EVERY: u32 = 3;

/// A command line that cannot be run; its message lists what would have been valid.
#[derive(Debug, Clone, PartialEq)]
pub enum CliError {
    UnknownScene(String),
    MissingValue(&'static str),
    BadFrames(String),
    BadSeconds(String),
    BadEvery(String),
    /// `--record` without `--frames`: the recording would never end.
    RecordWithoutFrames,
    UnknownOption(String),
    /// `--help`: not an error, but the game does not start.
    Help,
    /// `--list-scenes`: prints the scene names, one a line, for scripts.
    ListScenes,
    /// `--determinism-hash`: runs the seeded determinism scenario
    /// (`crate::sim::determinism`) and prints its hash instead of playing.
    DeterminismHash,
}

pub const USAGE: &str = "usage: pixel_collide [--scene NAME] [--frames N] [--seconds S] [--screenshot PATH] \
     [--record PATH.gif [--record-every K]] [--autoplay] [--hide-overlay] [--log-fps] [--abuse-window] [--list-scenes] [--determinism-hash]";

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names = GameScene::ALL.map(GameScene::name).join(", ");
        match self {
            CliError::UnknownScene(name) => {
                write!(f, "unknown scene {name:?}; valid scenes: {names}")
            }
            CliError::MissingValue(option) => write!(f, "{option} needs a value\n{USAGE}"),
            CliError::BadFrames(value) => {
                write!(f, "--frames needs a positive whole number, got {value:?}")
            }
            CliError::BadSeconds(value) => {
                write!(
                    f,
                    "--seconds needs a number of seconds above 0 and at most {MAX_SECONDS}, got {value:?}"
                )
            }
            CliError::BadEvery(value) => {
                write!(
                    f,
                    "--record-every needs a whole number from 1 to 60, got {value:?}"
                )
            }
            CliError::RecordWithoutFrames => write!(f, "--record needs --frames N: when to stop"),
            CliError::UnknownOption(option) => write!(f, "unknown option {option:?}\n{USAGE}"),
            CliError::Help => write!(f, "{USAGE}\nscenes: {names}"),
            CliError::ListScenes => write!(f, "{}", GameScene::ALL.map(GameScene::name).join("\n")),
            CliError::DeterminismHash => write!(f, "--determinism-hash runs no scene"),
        }
    }
}

impl std::error::Error for CliError {}

/// Parses the arguments after the program name.
pub fn parse_args<I: IntoIterator<Item = String>>(args: I) -> Result<GameOptions, CliError> {
    let mut options = GameOptions {
        record_every: DEFAULT_RECORD_EVERY,
        ..GameOptions::default()
    };
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => (flag.to_string(), Some(value.into())),
            _ => (arg.clone(), None),
        };
        let mut value = |name: &'static str| {
            inline
                .clone()
                .or_else(|| args.next())
                .ok_or(CliError::MissingValue(name))
        };
        match flag.as_str() {
            "--scene" => {
                let name = value("--scene")?;
                options.scene = GameScene::from_name(&name).ok_or(CliError::UnknownScene(name))?;
            }
            "--frames" => {
                let n = value("--frames")?;
                let frames = n
                    .parse::<u32>()
                    .ok()
                    .filter(|&f| f > 0)
                    .ok_or(CliError::BadFrames(n))?;
                options.frames = Some(frames);
            }
            "--seconds" => {
                let s = value("--seconds")?;
                let seconds = s
                    .parse::<f32>()
                    .ok()
                    .filter(|&t| t > 0.0 && t <= MAX_SECONDS)
                    .ok_or(CliError::BadSeconds(s))?;
                options.seconds = Some(seconds);
            }
            "--screenshot" => options.screenshot = Some(PathBuf::from(value("--screenshot")?)),
            "--abuse-window" => options.abuse_window = true,
            "--record" => options.record = Some(PathBuf::from(value("--record")?)),
            "--record-every" => {
                let n = value("--record-every")?;
                options.record_every = n
                    .parse::<u32>()
                    .ok()
                    .filter(|k| (1..=60).contains(k))
                    .ok_or(CliError::BadEvery(n))?;
            }
            "--autoplay" => options.autoplay = true,
            "--hide-overlay" => options.hide_overlay = true,
            "--log-fps" => options.log_fps = true,
            "--help" | "-h" => return Err(CliError::Help),
            "--list-scenes" => return Err(CliError::ListScenes),
            "--determinism-hash" => return Err(CliError::DeterminismHash),
            _ => return Err(CliError::UnknownOption(arg)),
        }
    }
    if options.record.is_some() && options.frames.is_none() {
        return Err(CliError::RecordWithoutFrames);
    }
    Ok(options)
}

/// The options a web page's address may set, as `?scene=terrain&autoplay`. The others
/// (screenshots, recordings, window abuse) write files or drive a native window.
const PAGE_OPTIONS: [&str; 5] = [
    "scene",
    "autoplay",
    "hide-overlay",
    "log-fps",
    "determinism-hash",
];
/// The command line's other options, which a page address may not set.
const NATIVE_OPTIONS: [&str; 5] = [
    "frames",
    "screenshot",
    "record",
    "record-every",
    "abuse-window",
];

/// The command line a page address's query (`?scene=terrain&hide-overlay`, with or
/// without the `?`) stands for. Parameters that are not the game's are left alone, as a
/// page does with the ones that sites and shortcuts add; a game option that has no meaning
/// in a browser is an error, so that it is not silently ignored.
pub fn args_from_query(query: &str) -> Result<Vec<String>, CliError> {
    let mut args = Vec::new();
    for pair in query.trim_start_matches('?').split('&') {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        let key = percent_decode(key);
        let flag = format!("--{key}");
        if PAGE_OPTIONS.contains(&key.as_str()) {
            args.push(flag);
            if key == "scene" {
                args.push(percent_decode(value));
            }
        } else if NATIVE_OPTIONS.contains(&key.as_str()) {
            return Err(CliError::UnknownOption(flag));
        }
    }
    Ok(args)
}

/// `%XX` escapes and `+` as a space, as browsers write query strings; a malformed escape
/// stays as it is.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let escaped = (bytes[i] == b'%')
            .then(|| text.get(i + 1..i + 3))
            .flatten()
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match (bytes[i], escaped) {
            (_, Some(byte)) => {
                out.push(byte);
                i += 3;
                continue;
            }
            (b'+', None) => out.push(b' '),
            (byte, None) => out.push(byte),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}
