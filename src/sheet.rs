//! A sprite sheet's description (`larry_sheet.sheet.ron`) and the frame grid it gives.
//!
//! Free of Bevy on purpose: it reads files from outside, so it is fuzzed
//! (`tests/fuzz`), and a fuzz build of Bevy would take most of an hour.

use bevy_math::UVec2;
use serde::Deserialize;

/// What a `.sheet.ron` says: `(frame_width: 48, frame_height: 64, frame_count: 8)`.
/// Frames are read left to right, then top to bottom.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SheetDescription {
    pub frame_width: u32,
    pub frame_height: u32,
    pub frame_count: u32,
}

/// Why a sprite sheet cannot be used. Every message names the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SheetError {
    /// The description is not the expected RON (or not text at all).
    Garbled { file: String, reason: String },
    /// A zero frame size or count.
    Empty { file: String },
    /// The sheet's size is not a whole number of frames.
    NotWholeFrames {
        file: String,
        sheet: UVec2,
        frame: UVec2,
    },
    /// More frames than the sheet holds.
    TooManyFrames { file: String, count: u32, fits: u32 },
    /// An odd frame count cannot split into right- and left-facing halves.
    NotTwoWay { file: String, count: u32 },
    /// More frames than [`MAX_SHEET_FRAMES`]: each gets a mask, so a description of
    /// one-pixel frames on a big sheet would ask for millions of them.
    OverFrameLimit { file: String, count: u32 },
}

/// The most frames a sheet description may ask for.
pub const MAX_SHEET_FRAMES: u32 = 1_024;

impl std::fmt::Display for SheetError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SheetError::Garbled { file, reason } => write!(
                f,
                "{file}: not a sprite sheet description ({reason}); expected e.g. \
                 `(frame_width: 48, frame_height: 64, frame_count: 8)`"
            ),
            SheetError::Empty { file } => {
                write!(
                    f,
                    "{file}: frame_width, frame_height and frame_count must be > 0"
                )
            }
            SheetError::NotWholeFrames { file, sheet, frame } => write!(
                f,
                "{file}: the sheet is {}×{} pixels, not a whole number of {}×{} frames",
                sheet.x, sheet.y, frame.x, frame.y
            ),
            SheetError::TooManyFrames { file, count, fits } => write!(
                f,
                "{file}: frame_count is {count} but the sheet holds only {fits} frames"
            ),
            SheetError::NotTwoWay { file, count } => write!(
                f,
                "{file}: frame_count {count} cannot split into right- and left-facing halves"
            ),
            SheetError::OverFrameLimit { file, count } => write!(
                f,
                "{file}: frame_count {count} is over the limit of {MAX_SHEET_FRAMES} frames"
            ),
        }
    }
}

impl std::error::Error for SheetError {}

/// The description next to a sheet: `larry_sheet.png` → `larry_sheet.sheet.ron`.
pub fn sheet_description_path(sheet: &str) -> String {
    let stem = sheet.rsplit_once('.').map_or(sheet, |(stem, _)| stem);
    format!("{stem}.sheet.ron")
}

/// Reads a `.sheet.ron` file's bytes, as the asset loader gets them; `file` names it in
/// errors. Not UTF-8 is [`SheetError::Garbled`] too.
pub fn sheet_description_from_bytes(
    bytes: &[u8],
    file: &str,
) -> Result<SheetDescription, SheetError> {
    let text = std::str::from_utf8(bytes).map_err(|err| SheetError::Garbled {
        file: file.to_owned(),
        reason: err.to_string(),
    })?;
    parse_sheet_description(text, file)
}

/// Parses a `.sheet.ron`; `file` names it in errors. Real RON (comments, any whitespace
/// and field order), but strict: unknown or missing fields and zero sizes are errors.
pub fn parse_sheet_description(text: &str, file: &str) -> Result<SheetDescription, SheetError> {
    let description: SheetDescription = ron::from_str(text).map_err(|err| SheetError::Garbled {
        file: file.to_owned(),
        reason: err.to_string(),
    })?;
    if description.frame_width == 0 || description.frame_height == 0 || description.frame_count == 0
    {
        return Err(SheetError::Empty {
            file: file.to_owned(),
        });
    }
    Ok(description)
}

/// Where the frames lie in a sheet whose size has been checked against its description.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SheetGrid {
    pub frame: UVec2,
    pub columns: u32,
    pub rows: u32,
    pub count: u32,
}

impl SheetDescription {
    /// The grid of a `sheet_size` sheet, or why it does not fit; `file` names the sheet.
    pub fn grid(&self, sheet_size: UVec2, file: &str) -> Result<SheetGrid, SheetError> {
        let frame = UVec2::new(self.frame_width, self.frame_height);
        if frame.cmpeq(UVec2::ZERO).any() || self.frame_count == 0 {
            return Err(SheetError::Empty {
                file: file.to_owned(),
            });
        }
        if self.frame_count > MAX_SHEET_FRAMES {
            return Err(SheetError::OverFrameLimit {
                file: file.to_owned(),
                count: self.frame_count,
            });
        }
        if !sheet_size.x.is_multiple_of(frame.x) || !sheet_size.y.is_multiple_of(frame.y) {
            return Err(SheetError::NotWholeFrames {
                file: file.to_owned(),
                sheet: sheet_size,
                frame,
            });
        }
        let (columns, rows) = (sheet_size.x / frame.x, sheet_size.y / frame.y);
        let fits = columns.saturating_mul(rows);
        if self.frame_count > fits {
            return Err(SheetError::TooManyFrames {
                file: file.to_owned(),
                count: self.frame_count,
                fits,
            });
        }
        Ok(SheetGrid {
            frame,
            columns,
            rows,
            count: self.frame_count,
        })
    }
}

impl SheetGrid {
    /// The top-left pixel of frame `index` in the sheet.
    pub fn origin(&self, index: u32) -> UVec2 {
        UVec2::new(index % self.columns, index / self.columns) * self.frame
    }
}
