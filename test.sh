#!/usr/bin/env bash
# Sets up and runs every test: unit, property and headless app tests (cargo test), the
# avian2d colliders' tests (feature avian), then the smoke test, which runs every scene
# in a real window under Xvfb.
set -euo pipefail
cd "$(dirname "$0")"
.ci/packages.sh test
cargo test
# The opt-in avian2d colliders: their own feature set, so a build of their own.
cargo test --features avian --test avian
.ci/smoke.sh
