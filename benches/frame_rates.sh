#!/usr/bin/env bash
# Frames per second of every scene, as a player sees them on this machine: the native
# debug and release builds in a window under Xvfb, and the web build in headless Chromium
# (software rendering everywhere: no GPU here). Each figure is the game's own
# `--log-fps` line (Bevy's frame-time diagnostics, averaged over its last 120 frames)
# after SECONDS of play with the overlay hidden.
#   benches/frame_rates.sh [SECONDS]   (15 by default)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-15}"
target_dir="${CARGO_TARGET_DIR:-target}"
.ci/packages.sh test
# The debug game as the tests and the smoke test build it: with an example, so that the
# dev-dependencies' features unify as theirs do and their build of Bevy serves.
cargo build --workspace --bin pixel_collide --example check_screenshot
cargo build --release --bin pixel_collide
. .ci/xvfb.sh
mkdir -p target/frame-rates
use_xvfb :98 target/frame-rates/xvfb.log

for build in debug release; do
  for scene in $("$target_dir/debug/pixel_collide" --list-scenes); do
    log="target/frame-rates/$build-$scene.log"
    timeout "$seconds" "$target_dir/$build/pixel_collide" --scene "$scene" --hide-overlay \
      --log-fps >"$log" 2>&1 || true
    fps=$(grep -o "frame rate: $scene [0-9.]* fps" "$log" | tail -n1 | awk '{print $4}')
    echo "native $build: $scene ${fps:-none} fps"
  done
done
.ci/web.sh --fps-seconds "$seconds" | sed -n 's/^\([a-z]*\): .* \([0-9.]*\) fps$/web: \1 \2 fps/p'
