#!/usr/bin/env bash
# Smoke test: every scene of the debug build (the one `cargo test` just built), in a real
# window on Xvfb with software Vulkan, with a screenshot. Each scene runs twice:
# - played by its autoplay script with the overlay hidden: the scene on screen must be the
#   one asked for, it must make contacts (and collect a clover, carve a crater, where the
#   scene is about that), and its screenshot must show the scene's own drawing over a part
#   of the play area;
# - as is, with --abuse-window (the window resized to a pixel, to 7000×5000, minimised,
#   then back): every step must be logged, and the screenshot must be 1280×720 again.
# Either fails when the game exits non-zero, panics, logs an ERROR, or the screenshot is
# missing or a single colour. Before them, the plugin under churn; after them, the
# point-query check (crates/bevy_pixel_collide/tests/harness/point_query.rs): the plugin's
# picking against the pixels the GPU drew; and the pieces check
# (crates/bevy_pixel_collide/tests/harness/pieces_in_place.rs): pieces that break off a
# destructible sprite draw where its pixels were. Screenshots and logs stay in target/smoke/.
set -euo pipefail
cd "$(dirname "$0")/.."

# The played runs need a few seconds of game time whatever the frame rate (a ball to
# land, a bridge blown after 4 s), so they end on game time from when the scene is ready,
# not on frames: a busy machine draws fewer frames, not more seconds, and its slower
# loading takes none of them. The abused ones need only their first 41 frames.
seconds="${SMOKE_SECONDS:-6}"
abused_frames="${SMOKE_ABUSED_FRAMES:-60}"
target_dir="${CARGO_TARGET_DIR:-target}"
out="target/smoke"
mkdir -p "$out"

cargo build --quiet --workspace --bin pixel_collide --example check_screenshot --example point_query \
  --example churn --example pieces_in_place
game="$target_dir/debug/pixel_collide"
check="$target_dir/debug/examples/check_screenshot"
point_query="$target_dir/debug/examples/point_query"
pieces_in_place="$target_dir/debug/examples/pieces_in_place"

# The plugin under churn (crates/bevy_pixel_collide/tests/harness/churn.rs), a short run of the
# debug build: every start ends once, the heap stays flat. No window needed.
if ! "$target_dir/debug/examples/churn" --colliders 20000 --churn 1000 --frames 600 >"$out/churn.log" 2>&1; then
  echo "smoke: churn FAILED (log: $out/churn.log)" >&2
  tail -3 "$out/churn.log" >&2
  exit 1
fi
echo "smoke: $(tail -2 "$out/churn.log" | head -1)"

. .ci/xvfb.sh
use_xvfb "${SMOKE_DISPLAY:-:99}" "$out/xvfb.log"

scenes=$("$game" --list-scenes)
[ -n "$scenes" ] || { echo "smoke: the game lists no scenes" >&2; exit 1; }
failed=0
# Scenes whose autoplay must make something happen beyond contacts: a clover collected,
# a crater carved.
with_events=" larry terrain "
for scene in $scenes; do
  for run in played abused; do
    name="$scene"; extra=(--autoplay --hide-overlay); check_args=(--scene-percent 0.5)
    end=(--seconds "$seconds")
    # The ball's bounces are contacts only in the frames that land on them: a busy
    # machine's fewer frames caught none of the first ones in 5 s. Two more seconds bring
    # the bounces of its rest.
    [ "$scene" = basketball ] && end=(--seconds "$(( seconds + 2 ))")
    if [ "$run" = abused ]; then
      name="$scene-abused"; extra=(--abuse-window); check_args=(); end=(--frames "$abused_frames")
    fi
    shot="$out/$name.png"
    log="$out/$name.log"
    start=$(date +%s)
    status=0
    NO_COLOR=1 RUST_LOG="${RUST_LOG:-info,wgpu=error,naga=warn}" timeout 300 \
      "$game" --scene "$scene" "${end[@]}" --screenshot "$shot" "${extra[@]}" >"$log" 2>&1 || status=$?
    problems=()
    [ "$status" -eq 0 ] || problems+=("exit status $status")
    grep -q "panicked" "$log" && problems+=("panicked")
    grep -qw "ERROR" "$log" && problems+=("logged errors: $(grep -m3 -w ERROR "$log" | tr '\n' ' ')")
    if ! verdict=$("$check" "$shot" "${check_args[@]}" 2>&1); then problems+=("$verdict"); fi
    case "$verdict" in *"1280×720"*) ;; *) problems+=("not back to 1280×720: $verdict") ;; esac
    summary=$(grep -o "scene on screen: .*" "$log" | head -1 || true)
    case "$summary" in
      "scene on screen: $scene;"*) ;;
      *) problems+=("asked for $scene, the log says: ${summary:-no scene}") ;;
    esac
    if [ "$run" = played ]; then
      contacts=$(echo "$summary" | sed -n 's/.*contacts in \([0-9]*\) of.*/\1/p')
      events=$(echo "$summary" | sed -n 's/.*; \([0-9]*\) scene events.*/\1/p')
      # The terrain's balls meet the ground in avian, not as pixel contacts: its craters
      # are what it does.
      if [ "$scene" != terrain ] && [ "${contacts:-0}" -eq 0 ]; then
        problems+=("autoplay made no contact")
      fi
      if [[ "$with_events" == *" $scene "* ]] && [ "${events:-0}" -eq 0 ]; then
        problems+=("autoplay collected or carved nothing")
      fi
    else
      steps=$(grep -c "window abuse:" "$log" || true)
      # The six steps of ABUSE in src/run_control.rs.
      [ "$steps" -eq 6 ] || problems+=("$steps of 6 window abuse steps logged")
    fi
    if [ ${#problems[@]} -eq 0 ]; then
      echo "smoke: $name ok in $(( $(date +%s) - start ))s, $verdict; ${summary#scene on screen: }"
    else
      echo "smoke: $name FAILED: ${problems[*]} (log: $log)" >&2
      failed=1
    fi
  done
done
start=$(date +%s)
if verdict=$(NO_COLOR=1 RUST_LOG="${RUST_LOG:-info,wgpu=error,naga=warn}" timeout 300 \
    "$point_query" "$out/point_query.png" 2>"$out/point_query.log"); then
  echo "smoke: point query ok in $(( $(date +%s) - start ))s: $verdict"
else
  echo "smoke: point query FAILED: $verdict (log: $out/point_query.log)" >&2
  failed=1
fi
start=$(date +%s)
if verdict=$(NO_COLOR=1 RUST_LOG="${RUST_LOG:-info,wgpu=error,naga=warn}" timeout 300 \
    "$pieces_in_place" "$out/pieces-before.png" "$out/pieces-after.png" 2>"$out/pieces_in_place.log"); then
  echo "smoke: pieces in place ok in $(( $(date +%s) - start ))s: $verdict"
else
  echo "smoke: pieces in place FAILED: $verdict (log: $out/pieces_in_place.log)" >&2
  failed=1
fi
exit "$failed"
