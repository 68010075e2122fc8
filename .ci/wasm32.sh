#!/usr/bin/env bash
# The core's determinism test in WebAssembly: built for wasm32-wasip1 and run under Node's
# WASI (tests/wasi_run.mjs), it must give the hash committed in it, as on x86-64 and
# aarch64. The float arithmetic is WebAssembly's, the browser's; the web build itself
# (wasm32-unknown-unknown) runs the same instructions for what the core computes. Only
# that test: the others use threads, which wasip1 has not.
set -euo pipefail
cd "$(dirname "$0")/.."
target=wasm32-wasip1
if ! rustup target list --installed | grep -qx "$target"; then
  rustup target add "$target"
fi
binary=$(cargo test --quiet -p pixel_collide --test collision --target "$target" --no-run \
  --message-format=json | python3 -c '
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message.get("executable") and message.get("target", {}).get("name") == "collision":
        print(message["executable"])')
[ -n "$binary" ] || { echo "wasm32: no test binary" >&2; exit 1; }
node --no-warnings tests/wasi_run.mjs "$binary" --test-threads=1 --nocapture \
  --exact determinism::every_build_gives_the_committed_hash
