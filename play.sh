#!/usr/bin/env bash
# Sets up what the game needs on Debian/Ubuntu and plays it: ./play.sh [--scene NAME]
set -euo pipefail
cd "$(dirname "$0")"
.ci/packages.sh run
exec cargo run --release -- "$@"
