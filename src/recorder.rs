//! `--record PATH.gif`: the game films itself. Every `--record-every` frames it takes a
//! screenshot of the window (Bevy's screenshot API), halves it, and at `--frames` writes
//! them as an animated GIF that plays at the speed the game ran. README's clips are made
//! this way by `examples/record_clips.sh`.

use std::fs::File;
use std::io::BufWriter;
use std::path::Path;

use bevy::diagnostic::{FrameCount, update_frame_count};
use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured};
use image::imageops::FilterType;

use super::cli::GameOptions;

/// Frames to wait for the last screenshots before giving up with an error.
const TIMEOUT_FRAMES: u32 = 600;
/// Width of the recorded frames: a clip of a few seconds stays at a few hundred KB.
const CLIP_WIDTH: u32 = 400;
/// How hard the GIF encoder works on each frame's palette (1 best, 30 fastest).
const QUANTIZER_SPEED: i32 = 10;

/// The frames taken so far, and whether the clip is written.
#[derive(Resource, Debug, Default)]
pub struct Recording {
    /// (game frame, seconds since start, picture), in the order they arrive.
    shots: Vec<(u32, f32, image::RgbaImage)>,
    requested: u32,
    /// The clip is written (or failed): the game may quit.
    pub finished: bool,
}

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<Recording>().add_systems(
        Last,
        record
            .after(update_frame_count)
            .run_if(|o: Res<GameOptions>| o.record.is_some()),
    );
}

fn record(
    mut commands: Commands,
    options: Res<GameOptions>,
    time: Res<Time>,
    frame: Res<FrameCount>,
    mut recording: ResMut<Recording>,
    mut exit: MessageWriter<AppExit>,
) {
    let (Some(path), Some(frames)) = (&options.record, options.frames) else {
        return;
    };
    let frame = frame.0;
    if recording.finished {
        return;
    }
    if frame < frames {
        if frame.is_multiple_of(options.record_every.max(1)) {
            recording.requested += 1;
            let at = time.elapsed_secs();
            commands.spawn(Screenshot::primary_window()).observe(
                move |shot: On<ScreenshotCaptured>, mut recording: ResMut<Recording>| match shot
                    .image
                    .clone()
                    .try_into_dynamic()
                {
                    Ok(picture) => {
                        let (w, h) = (picture.width(), picture.height());
                        let height = (h * CLIP_WIDTH / w.max(1)).max(1);
                        let small = image::imageops::resize(
                            &picture.to_rgba8(),
                            CLIP_WIDTH,
                            height,
                            FilterType::Triangle,
                        );
                        recording.shots.push((frame, at, small));
                    }
                    Err(err) => {
                        warn!("a recorded frame could not be read: {err}");
                        recording.requested = recording.requested.saturating_sub(1);
                    }
                },
            );
        }
        return;
    }
    if (recording.shots.len() as u32) < recording.requested
        && frame.saturating_sub(frames) < TIMEOUT_FRAMES
    {
        return;
    }
    recording.finished = true;
    let mut shots = std::mem::take(&mut recording.shots);
    shots.sort_by_key(|(frame, _, _)| *frame);
    match write_gif(path, &shots) {
        Ok(bytes) => info!(
            "recorded {} frames to {} ({} KB)",
            shots.len(),
            path.display(),
            bytes / 1024
        ),
        Err(err) => {
            error!("cannot write {}: {err}", path.display());
            exit.write(AppExit::error());
        }
    }
}

/// Writes the frames as a looping GIF, each shown until the next was taken; returns the
/// file's size.
fn write_gif(path: &Path, shots: &[(u32, f32, image::RgbaImage)]) -> Result<u64, String> {
    let Some((_, _, first)) = shots.first() else {
        return Err("no frame was captured".into());
    };
    let (w, h) = (first.width(), first.height());
    let (Ok(gw), Ok(gh)) = (u16::try_from(w), u16::try_from(h)) else {
        return Err(format!("frames of {w}×{h} are too large for a GIF"));
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    }
    let file = File::create(path).map_err(|e| e.to_string())?;
    let mut encoder =
        gif::Encoder::new(BufWriter::new(file), gw, gh, &[]).map_err(|e| e.to_string())?;
    encoder
        .set_repeat(gif::Repeat::Infinite)
        .map_err(|e| e.to_string())?;
    let mut previous: Option<&image::RgbaImage> = None;
    for (k, (_, at, picture)) in shots.iter().enumerate() {
        if picture.dimensions() != (w, h) {
            // The window changed size while recording: that frame is left out.
            continue;
        }
        let next = shots.get(k + 1).map_or(*at + 0.1, |(_, t, _)| *t);
        let mut rgba = picture.as_raw().clone();
        // Pixels the same as in the frame before are left transparent over it: a scene with
        // a detailed still background then costs only what moves (the terrain's clip was
        // 1.8 MB without this).
        if let Some(before) = previous {
            for (now, then) in rgba
                .chunks_exact_mut(4)
                .zip(before.as_raw().chunks_exact(4))
            {
                if now == then {
                    now.fill(0);
                }
            }
        }
        previous = Some(picture);
        let mut frame = gif::Frame::from_rgba_speed(gw, gh, &mut rgba, QUANTIZER_SPEED);
        frame.dispose = gif::DisposalMethod::Keep;
        // Centiseconds; browsers show anything under 2 as 10.
        frame.delay = (((next - at) * 100.0).round() as u16).max(2);
        encoder.write_frame(&frame).map_err(|e| e.to_string())?;
    }
    drop(encoder);
    std::fs::metadata(path)
        .map(|m| m.len())
        .map_err(|e| e.to_string())
}
