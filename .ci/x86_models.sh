#!/usr/bin/env bash
# The core's tests on x86-64 CPUs without the newer vector builds, under qemu's CPU models:
# Haswell (AVX2, no AVX-512) and Nehalem (popcnt, no AVX). The machines CI runs on have
# AVX-512, so only this shows that each build is picked where it should be (the run fails
# if another one is: PIXEL_COLLIDE_EXPECT_BUILD) and gives the same answers on a CPU that
# lacks the others' instructions. Correctness only: qemu's times mean nothing. qemu
# emulates AVX2 slowly (the Haswell run is most of this step), so the seeded cases are cut
# as on aarch64, and tests of code with no build chosen by CPU are left out: the broad
# phase and the shapes (plain float code, the same instructions on every model) and the
# sprite tables' brute-force check (float support functions). Under Haswell those took
# half of the step. The determinism test, told the build to expect, runs only that one:
# the older builds are the same instructions on any x86-64 and ran natively.
# The two models run side by side, each on the test binaries straight (cargo would hold
# the target directory's lock for a whole run): one model's run ends on a few long tests
# that leave the other core idle.
set -euo pipefail
cd "$(dirname "$0")/.."
.ci/packages.sh aarch64   # qemu-user
# The core's test binaries. `.ci/run` sets X86_MODELS_TARGET_DIR to its main target
# directory, where `./test.sh` built them already: asked for as the whole workspace's
# (so that features unify as they did there), they are found built, not built again.
if [[ -n "${X86_MODELS_TARGET_DIR:-}" ]]; then
  export CARGO_TARGET_DIR="$X86_MODELS_TARGET_DIR"
  selection=(--workspace)
else
  selection=(-p pixel_collide -p pixel_collide_support)
fi
mapfile -t binaries < <(cargo test --quiet "${selection[@]}" --lib --tests --no-run \
  --message-format=json | python3 -c '
import json, sys
core = ("/crates/pixel_collide/", "/crates/pixel_collide_support/")
for line in sys.stdin:
    message = json.loads(line)
    source = message.get("target", {}).get("src_path", "")
    if (message.get("executable") and message.get("profile", {}).get("test")
            and any(part in source for part in core)):
        print(message["executable"])')
[ "${#binaries[@]}" -ge 3 ] || { echo "x86 models: found ${#binaries[@]} test binaries" >&2; exit 1; }
# Tests of code with no build chosen by CPU, left out (above).
skipped=(--skip broad_phase:: --skip shapes:: --skip sprite_tables_from_row_ends_match_the_definition)

# qemu names, at every start, the model's features its translator lacks (TSX, x2APIC...):
# nothing these tests use, so those lines are left out of the log.
run_model() {
  local cpu=$1 build=$2 start=$SECONDS
  export PIXEL_COLLIDE_EXPECT_BUILD="$build"
  echo "x86 models: $cpu, expecting the $build build"
  for binary in "${binaries[@]}"; do
    qemu-x86_64 -cpu "$cpu" "$binary" --exact overlap_kernel::tests::the_build_this_cpu_runs \
      --nocapture 2>&1 | grep -E '^word loops' || true
  done
  for binary in "${binaries[@]}"; do
    PIXEL_COLLIDE_CASE_DIVISOR="${X86_MODELS_CASE_DIVISOR:-16}" \
      qemu-x86_64 -cpu "$cpu" "$binary" --quiet "${skipped[@]}" 2>&1 \
      | grep -v "TCG doesn't support requested feature"
    [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "x86 models: $cpu FAILED in $binary"; return 1; }
  done
  echo "x86 models: $cpu passed in $(( SECONDS - start ))s"
}
logs=$(mktemp -d)
pids=()
for model in Nehalem:Popcnt Haswell:Avx2; do
  run_model "${model%%:*}" "${model##*:}" >"$logs/${model%%:*}.log" 2>&1 &
  pids+=($!)
done
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
cat "$logs"/Nehalem.log "$logs"/Haswell.log
rm -rf "$logs"
exit "$status"
