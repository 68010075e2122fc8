#!/usr/bin/env bash
# Side-by-side benchmark against pygame.mask (pygame-ce), everything from this repository:
#   ./bench.sh            time both halves, print the ratio table, write docs/peer-ratios.svg
#   ./bench.sh --check    no timing: both halves' results on the 32 and 128 px cases must agree
# Options for the timed run: --passes N (default 8), --rounds N per pass (default 9),
# --ops OP,OP... to time only those ops in both halves (e.g. `--ops erase,draw`), and
# after `--`, arguments for our half (e.g. `-- --kernel avx2`).
#
# Needs python3 (with venv) and cargo. pygame-ce goes into a venv of its own under
# target/, pinned so that pygame's half is the same code from one run to the next.
set -euo pipefail
cd "$(dirname "$0")"

check=0 passes=8 rounds=9 ops_args=() ours_args=()
while (($#)); do
  case "$1" in
    --check) check=1 ;;
    --passes) passes="$2"; shift ;;
    --rounds) rounds="$2"; shift ;;
    --ops) ops_args=(--ops "$2"); shift ;;
    --) shift; ours_args=("$@"); break ;;
    *) echo "bench.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

# A Python without venv (Debian's python3 alone) gets the packages that add it.
if ! python3 -c 'import venv, ensurepip' 2>/dev/null; then .ci/packages.sh bench; fi
venv=target/bench-venv
py="$venv/bin/python"
if ! PYGAME_HIDE_SUPPORT_PROMPT=1 "$py" -c 'import pygame' 2>/dev/null; then
  echo "bench.sh: creating $venv with pygame-ce" >&2
  python3 -m venv "$venv"
  "$py" -m pip install --quiet --disable-pip-version-check 'pygame-ce==2.5.8'
fi

# Absolute: cargo runs a bench in its own crate's directory (crates/pixel_collide).
fixtures="$PWD/target/peer-fixtures"
"$py" crates/pixel_collide/benches/peer/make_fixtures.py "$fixtures"

if ((check)); then
  # Results only, so the dev build serves (the kernels are the same code): the one
  # `./test.sh` made, the whole workspace's so that its features are the same and nothing
  # is built again, where the bench build would be another build of the core.
  out=target/peer-check
  mkdir -p "$out"
  cargo test --quiet --workspace --bench peer -- "$fixtures" --no-tutorials \
    --check _32_ _128_ _256_ >"$out/ours.csv" 2>"$out/ours.log"
  "$py" crates/pixel_collide/benches/peer/pygame_peer.py "$fixtures" --check _32_ _128_ _256_ >"$out/pygame.csv"
  exec "$py" crates/pixel_collide/benches/peer/compare.py check "$out/ours.csv" "$out/pygame.csv"
fi

# Build before anything is timed, so the first pass does not share the CPU with rustc.
cargo bench --quiet -p pixel_collide --bench peer --no-run
ours() {
  cargo bench --quiet -p pixel_collide --bench peer -- "$fixtures" --no-tutorials "$@"
}

# The two halves take turns, pass after pass, swapping which goes first, so both see the
# same machine: a slow spell (another build on the other core, a frequency drop) lands on
# one pass of each rather than on one half's whole run.
results=target/peer-results
rm -rf "$results/previous"
if [[ -d "$results/latest" ]]; then mv "$results/latest" "$results/previous"; fi
mkdir -p "$results/latest"
run_ours() {
  ours --rounds "$rounds" ${ops_args[@]+"${ops_args[@]}"} ${ours_args[@]+"${ours_args[@]}"} \
    >"$results/latest/ours-$1.csv" 2>"$results/latest/ours-$1.log"
}
run_pygame() {
  "$py" crates/pixel_collide/benches/peer/pygame_peer.py "$fixtures" --rounds "$rounds" ${ops_args[@]+"${ops_args[@]}"} >"$results/latest/pygame-$1.csv"
}
start=$SECONDS
for ((pass = 1; pass <= passes; pass++)); do
  echo "bench.sh: pass $pass of $passes" >&2
  if ((pass % 2)); then run_ours "$pass"; run_pygame "$pass"; else run_pygame "$pass"; run_ours "$pass"; fi
done
echo "bench.sh: timed in $((SECONDS - start)) s" >&2

# The chart is of every op: a run of some (--ops) only prints the table.
svg=(--svg docs/peer-ratios.svg)
if ((${#ops_args[@]})); then svg=(); fi
"$py" crates/pixel_collide/benches/peer/compare.py report "$results/latest" ${svg[@]+"${svg[@]}"} \
  --previous "$results/previous"
