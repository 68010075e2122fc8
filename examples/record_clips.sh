#!/usr/bin/env bash
# Records README's clips: every scene in a real window under Xvfb (software Vulkan), with
# scripted input (--autoplay) so each shows what it is about, filmed by the game itself
# (--record) into docs/clips/SCENE.gif. Needs what ./test.sh installs (xvfb, Vulkan).
#
#   examples/record_clips.sh            # all scenes
#   examples/record_clips.sh crowd      # one
set -euo pipefail
cd "$(dirname "$0")/.."

frames="${CLIP_FRAMES:-120}"
every="${CLIP_EVERY:-5}"
out=docs/clips
target_dir="${CARGO_TARGET_DIR:-target}"
mkdir -p "$out"
cargo build --quiet --bin pixel_collide
game="$target_dir/debug/pixel_collide"

. .ci/xvfb.sh
use_xvfb "${CLIP_DISPLAY:-:98}" /dev/null

scenes="${*:-$("$game" --list-scenes)}"
for scene in $scenes; do
  NO_COLOR=1 RUST_LOG="${RUST_LOG:-warn}" timeout 300 "$game" --scene "$scene" --autoplay \
    --frames "$frames" --record "$out/$scene.gif" --record-every "$every"
  echo "record_clips: $out/$scene.gif, $(( $(stat -c %s "$out/$scene.gif") / 1024 )) KB"
done
