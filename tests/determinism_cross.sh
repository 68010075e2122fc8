#!/usr/bin/env bash
# The core's determinism test (crates/pixel_collide/tests/collision/determinism.rs) on
# CPUs other than this one: it must give the hash committed in it everywhere. Natively
# (every word-loop build this CPU has), under qemu's x86-64 models Nehalem (popcnt, no
# AVX) and Haswell (AVX2, no AVX-512), on aarch64 under qemu-user (the portable loops,
# NEON, another maths unit), and in WebAssembly under Node (tests/wasi_run.mjs). Each run
# is the test binary straight, with the build the model should pick checked
# (PIXEL_COLLIDE_EXPECT_BUILD, as .ci/x86_models.sh).
# Correctness only: qemu's times mean nothing. Not part of .ci/run.
#   tests/determinism_cross.sh            all of them
#   tests/determinism_cross.sh x86        native and the x86-64 models only
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/pixel-collide/target-core}"
.ci/packages.sh aarch64   # qemu-user, and the aarch64 linker and libc
what=${1:-all}

# The collision test binary's path, from cargo's messages (its name carries a hash).
test_binary() {
  cargo test --quiet -p pixel_collide --test collision --no-run --message-format=json "$@" \
    | python3 -c '
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message.get("executable") and message.get("target", {}).get("name") == "collision":
        print(message["executable"])'
}

failed=()
# Runs the test: `name`, then the command that runs the binary. The log keeps the hashes
# each build gave.
run() {
  local name=$1 start=$SECONDS status=0 log
  shift
  log=$(mktemp)
  "$@" --exact determinism::every_build_gives_the_committed_hash --nocapture >"$log" 2>&1 \
    || status=$?
  grep -E '^determinism:|^test result|panicked|gave' "$log" | sed 's/^/  /' || true
  rm -f "$log"
  [ "$status" -eq 0 ] || failed+=("$name")
  echo "determinism: $name, exit $status, $(( SECONDS - start ))s"
}

x86=$(test_binary)
[ -n "$x86" ] || { echo "determinism: no x86-64 test binary" >&2; exit 1; }
run "native x86-64" "$x86"
run "qemu-x86_64 Nehalem" env PIXEL_COLLIDE_EXPECT_BUILD=Popcnt qemu-x86_64 -cpu Nehalem "$x86"
run "qemu-x86_64 Haswell" env PIXEL_COLLIDE_EXPECT_BUILD=Avx2 qemu-x86_64 -cpu Haswell "$x86"

if [ "$what" != x86 ]; then
  target=aarch64-unknown-linux-gnu
  if ! rustup target list --installed | grep -qx "$target"; then
    rustup target add "$target"
  fi
  export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
  arm=$(test_binary --target "$target")
  [ -n "$arm" ] || { echo "determinism: no aarch64 test binary" >&2; exit 1; }
  run "qemu-aarch64" env PIXEL_COLLIDE_EXPECT_BUILD=Portable \
    qemu-aarch64 -L /usr/aarch64-linux-gnu "$arm"
fi

if [ "$what" != x86 ]; then
  # WebAssembly under Node's WASI, as CI runs it (the test's arguments it is given here go
  # unread: the script names the test itself).
  run "wasm32 (Node's WASI)" .ci/wasm32.sh
fi

if [ ${#failed[@]} -gt 0 ]; then
  echo "determinism: FAILED on ${failed[*]}"
  exit 1
fi
echo "determinism: the committed hash on every CPU tried"
