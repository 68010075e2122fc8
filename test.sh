#!/usr/bin/env bash
# Sets up and runs every test: unit, property and headless app tests (cargo test, the
# avian2d colliders' among them: the game's default features include avian), then the
# smoke test, which runs every scene in a real window under Xvfb.
set -euo pipefail
cd "$(dirname "$0")"
.ci/packages.sh test
# Every target: benches run as tests too (a run each, in the test profile), so a bench
# that no longer builds or runs fails here. `--all-targets` leaves out doctests: they
# run by themselves.
cargo test --workspace --all-targets
cargo test --workspace --doc
.ci/smoke.sh
