#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pixel_collide_fuzz::sheet_description(data));
