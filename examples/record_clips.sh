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

display="${CLIP_DISPLAY:-:98}"
lock="/tmp/.X${display#:}-lock"
if ! { [ -f "$lock" ] && kill -0 "$(tr -d ' ' < "$lock")" 2>/dev/null; }; then
  rm -f "$lock" "/tmp/.X11-unix/X${display#:}"
  Xvfb "$display" -screen 0 1280x720x24 -nolisten tcp >/dev/null 2>&1 &
  xvfb_pid=$!
  trap 'kill "$xvfb_pid" 2>/dev/null || true' EXIT
  for _ in $(seq 50); do [ -e "/tmp/.X11-unix/X${display#:}" ] && break; sleep 0.1; done
fi
export DISPLAY="$display"
XDG_RUNTIME_DIR="$(mktemp -d)"
export XDG_RUNTIME_DIR

scenes="${*:-$("$game" --list-scenes)}"
for scene in $scenes; do
  NO_COLOR=1 RUST_LOG="${RUST_LOG:-warn}" timeout 300 "$game" --scene "$scene" --autoplay \
    --frames "$frames" --record "$out/$scene.gif" --record-every "$every"
  echo "record_clips: $out/$scene.gif, $(( $(stat -c %s "$out/$scene.gif") / 1024 )) KB"
done
