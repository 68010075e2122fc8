#!/usr/bin/env bash
# The crater bench (benches/destructible.rs) built as the web build is (profile `web`,
# wasm32 with SIMD) and run by Node: the same craters as natively, in WebAssembly, with
# no browser's renderer sharing the cores. Its report goes to the console.
#   benches/web_destructible.sh
# Needs what ./web.sh installs (the wasm32 target, wasm-bindgen-cli) and Node.
set -euo pipefail
cd "$(dirname "$0")/.."
target_dir="${CARGO_TARGET_DIR:-target}"
# The wasm file's name is the bench's with a hash: the newest is this build's.
built=$(cargo build --profile web --target wasm32-unknown-unknown --bench destructible \
  --message-format json 2>/dev/null \
  | python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "destructible":
        print(m["filenames"][0])')
[ -n "$built" ] || { echo "web_destructible: the bench did not build" >&2; exit 1; }
out="$target_dir/web-bench"
rm -rf "$out"
wasm-bindgen --target nodejs --no-typescript --out-dir "$out" "$built"
node "$out/$(basename "${built%.wasm}").js"
