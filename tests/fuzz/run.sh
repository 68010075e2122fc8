#!/usr/bin/env bash
# Fuzzes one target for SECONDS (default 600), then merges what it found that adds
# coverage into tests/fuzz/corpus/TARGET, which `cargo test` replays. Needs nightly and
# cargo-fuzz (`cargo install cargo-fuzz`). A failing input is saved under
# tests/fuzz/targets/artifacts/TARGET: once fixed, copy it to tests/fuzz/regressions/TARGET
# with a name that says what it found, so the replay keeps it.
#
#   tests/fuzz/run.sh transformed 600
set -euo pipefail
cd "$(dirname "$0")"
target=${1:?usage: run.sh TARGET [SECONDS]}
seconds=${2:-600}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$PWD/../../target/fuzz}
fuzz=(cargo +nightly fuzz run --fuzz-dir targets "$target")
mkdir -p "corpus/$target" "work/$target"
# New inputs go to work/ (not committed), starting from the committed corpus.
"${fuzz[@]}" "work/$target" "corpus/$target" -- \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
"${fuzz[@]}" "corpus/$target" "work/$target" -- -merge=1
