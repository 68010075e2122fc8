#!/usr/bin/env bash
# The game in a browser: builds every scene for WebAssembly into target/web/ (a static
# site: index.html, the JS glue, the wasm and the assets) and serves it on 127.0.0.1.
#   ./web.sh [--no-serve] [--port N]
# Installs what the build needs first: the wasm32 target and wasm-bindgen-cli at the
# version Cargo.lock pins (the two must match).
set -euo pipefail
cd "$(dirname "$0")"

serve=1
port=8080
while [ $# -gt 0 ]; do
  case "$1" in
    --no-serve) serve=0 ;;
    --port) port="${2:?--port needs a number}"; shift ;;
    *) echo "usage: $0 [--no-serve] [--port N]" >&2; exit 2 ;;
  esac
  shift
done

rustup target list --installed | grep -qx wasm32-unknown-unknown \
  || rustup target add wasm32-unknown-unknown
bindgen_version=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/[^0-9.]/, ""); print }' Cargo.lock)
if ! wasm-bindgen --version 2>/dev/null | grep -qx "wasm-bindgen $bindgen_version"; then
  # Not --locked: that lock file pins a webpki-roots release the registry no longer serves.
  # --force: cargo skips a version it recorded as installed even when the binary is gone.
  cargo install --force wasm-bindgen-cli --version "$bindgen_version"
fi

cargo build --profile web --target wasm32-unknown-unknown --bin pixel_collide
target_dir="${CARGO_TARGET_DIR:-target}"
site=target/web
rm -rf "$site"
mkdir -p "$site"
# Function names are a quarter of the file and only serve a debugger.
wasm-bindgen --target web --no-typescript --remove-name-section --remove-producers-section \
  --out-dir "$site" "$target_dir/wasm32-unknown-unknown/web/pixel_collide.wasm"
cp src/web/index.html "$site/"
cp -r assets "$site/assets"

wasm="$site/pixel_collide_bg.wasm"
echo "web build in $site: wasm $(( $(stat -c %s "$wasm") / 1024 )) KiB," \
  "$(( $(gzip -9 -c "$wasm" | wc -c) / 1024 )) KiB gzipped; whole site $(du -sk "$site" | cut -f1) KiB"
if [ "$serve" -eq 1 ]; then
  echo "serving on http://127.0.0.1:$port/  (?scene=terrain picks a scene; Ctrl-C stops)"
  exec python3 -m http.server --bind 127.0.0.1 --directory "$site" "$port"
fi
