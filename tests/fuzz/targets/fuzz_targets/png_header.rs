#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pixel_collide_fuzz::png_header(data));
