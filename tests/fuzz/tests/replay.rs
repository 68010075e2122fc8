//! Replays every committed input of every fuzz target through its check, on stable: the
//! minimised corpus (the coverage the fuzzer found) and the inputs that once failed.

use std::path::Path;

const TARGETS: [(&str, fn(&[u8])); 4] = [
    ("png_header", pixel_collide_fuzz::png_header),
    ("sheet_description", pixel_collide_fuzz::sheet_description),
    ("mask_from_rgba8", pixel_collide_fuzz::mask_from_rgba8),
    ("transformed", pixel_collide_fuzz::transformed),
];

#[test]
fn every_committed_input_passes_its_check() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (target, check) in TARGETS {
        let mut replayed = 0;
        for folder in ["corpus", "regressions"] {
            let Ok(entries) = std::fs::read_dir(root.join(folder).join(target)) else {
                continue;
            };
            for entry in entries {
                let path = entry.unwrap().path();
                let input = std::fs::read(&path).unwrap();
                let outcome = std::panic::catch_unwind(|| check(&input));
                assert!(outcome.is_ok(), "{target}: {} fails", path.display());
                replayed += 1;
            }
        }
        assert!(
            replayed > 0,
            "{target}: no committed inputs under {}",
            root.display()
        );
    }
}
