//! The size a PNG declares, read before anything is decoded: a decoder allocates for
//! that size, so a file of a few bytes can ask for gigabytes. Checking it first lets a
//! loader refuse such a file within bounded memory.

/// The width and height in a PNG's IHDR chunk, which the format puts first; `None` when
/// the bytes do not start like a PNG (a decoder then says what is wrong).
///
/// Whenever a PNG decoder reads a header from the same bytes, it reads this size.
pub fn png_declared_size(bytes: &[u8]) -> Option<(u32, u32)> {
    const SIGNATURE: [u8; 8] = [0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a];
    if bytes.get(..8)? != SIGNATURE || bytes.get(12..16)? != b"IHDR" {
        return None;
    }
    let word = |at: usize| -> Option<u32> {
        Some(u32::from_be_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
    };
    Some((word(16)?, word(20)?))
}
