# Sourced by the scripts that run the game in a real window without a GPU (.ci/smoke.sh,
# examples/record_clips.sh): `use_xvfb DISPLAY LOG` points DISPLAY at a live X server on
# that display (its lock file names its pid), starting Xvfb there if there is none and
# stopping it when the script exits, and gives winit a private XDG_RUNTIME_DIR (its X11
# backend complains without one).
use_xvfb() {
  local display="$1" log="$2"
  local lock="/tmp/.X${display#:}-lock"
  if ! { [ -f "$lock" ] && kill -0 "$(tr -d ' ' < "$lock")" 2>/dev/null; }; then
    rm -f "$lock" "/tmp/.X11-unix/X${display#:}"
    Xvfb "$display" -screen 0 1280x720x24 -nolisten tcp >"$log" 2>&1 &
    xvfb_pid=$!
    trap 'kill "$xvfb_pid" 2>/dev/null || true' EXIT
    for _ in $(seq 50); do [ -e "/tmp/.X11-unix/X${display#:}" ] && break; sleep 0.1; done
  fi
  export DISPLAY="$display"
  XDG_RUNTIME_DIR="$(mktemp -d)"
  export XDG_RUNTIME_DIR
}
