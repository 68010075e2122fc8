#!/usr/bin/env bash
# CI's web step: builds the web site with ./web.sh and plays every scene of it in headless
# Chromium with software WebGL (tests/web/browser.mjs). Chromium comes from Debian,
# playwright-core from npm into a cache outside the clone, so later runs are warm.
#   .ci/web.sh [--fps-seconds N]   (N seconds per scene, printing the logged frame rate)
set -euo pipefail
cd "$(dirname "$0")/.."
.ci/packages.sh web

playwright_version=1.65.2
export PLAYWRIGHT_DIR="$HOME/.cache/pixel-collide/npm"
if [ ! -f "$PLAYWRIGHT_DIR/node_modules/playwright-core/package.json" ] \
  || ! grep -q "\"version\": \"$playwright_version\"" "$PLAYWRIGHT_DIR/node_modules/playwright-core/package.json"; then
  mkdir -p "$PLAYWRIGHT_DIR"
  npm install --prefix "$PLAYWRIGHT_DIR" --no-save --no-audit --no-fund \
    "playwright-core@$playwright_version" >/dev/null
fi

./web.sh --no-serve
node tests/web/browser.mjs target/web "$@"
