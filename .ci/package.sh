#!/usr/bin/env bash
# The two library crates as they would be published: the file list (no tests, benches,
# fixtures, clips or logs) and a manifest that resolves without the workspace.
# The core is verified too (built from its package alone against crates.io's bevy_math and
# image, a minute). The plugin is packaged beside it (so that its dependency on this
# version of the core resolves before the core is on crates.io) with --no-verify:
# verifying it would build Bevy a second time, in a target directory of its own (about
# 20 minutes here).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo package --quiet -p pixel_collide --allow-dirty
# Its warnings name the tests and examples left out of the package, on purpose.
if ! out=$(cargo package --quiet -p pixel_collide -p bevy_pixel_collide --allow-dirty --no-verify 2>&1); then
  echo "$out" >&2
  exit 1
fi
echo "$out" | grep -v "is not included in the published package" || true
for crate in pixel_collide bevy_pixel_collide; do
  files=$(cargo package --quiet -p "$crate" --allow-dirty --list)
  echo "$crate: $(echo "$files" | wc -l) files"
  unwanted=$(echo "$files" | grep -E '^(tests|benches|examples|assets|docs)/|\.(png|gif|svg|csv|py)$' || true)
  if [ -n "$unwanted" ]; then
    echo "package: $crate would ship files a user does not compile:" >&2
    echo "$unwanted" >&2
    exit 1
  fi
  for needed in Cargo.toml README.md LICENSE-MIT LICENSE-APACHE src/lib.rs; do
    echo "$files" | grep -qx "$needed" || { echo "package: $crate lacks $needed" >&2; exit 1; }
  done
done

# What a user's build gets from each library (normal and build dependencies; the plugin's
# examples open a window through dev-dependencies, which users never build).
plugin_tree=$(cargo tree -p bevy_pixel_collide --features avian -e normal,build,features --prefix none)
if echo "$plugin_tree" | grep -Eq '^(winit|x11|gilrs|bevy_winit|bevy_gilrs|bevy_egui|egui|bevy_text|cosmic-text)\b|bevy_internal feature "(bevy_winit|x11|bevy_gilrs|bevy_text|bevy_render)"'; then
  echo "package: bevy_pixel_collide pulls in a window, input, text or rendering:" >&2
  echo "$plugin_tree" | grep -E '^(winit|x11|gilrs|bevy_winit|bevy_gilrs|bevy_egui|egui|bevy_text|cosmic-text)\b|bevy_internal feature "(bevy_winit|x11|bevy_gilrs|bevy_text|bevy_render)"' | sort -u >&2
  exit 1
fi
core_bevy=$(cargo tree -p pixel_collide -e normal,build --prefix none | grep -E '^bevy' | grep -v '^bevy_math ' | sort -u || true)
if [ -n "$core_bevy" ]; then
  echo "package: pixel_collide depends on Bevy crates other than bevy_math:" >&2
  echo "$core_bevy" >&2
  exit 1
fi
echo "package: bevy_pixel_collide has no window, input, text or rendering; pixel_collide no Bevy crate but bevy_math"
