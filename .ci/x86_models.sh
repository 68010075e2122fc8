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
# half of the step.
set -euo pipefail
cd "$(dirname "$0")/.."
.ci/packages.sh aarch64   # qemu-user
core=(-p pixel_collide -p pixel_collide_support)
host=$(rustc -vV | sed -n 's/^host: //p')
runner_var="CARGO_TARGET_$(echo "$host" | tr 'a-z-' 'A-Z_')_RUNNER"
cargo test --quiet "${core[@]}" --lib --tests --no-run
# qemu names, at every start, the model's features its translator lacks (TSX, x2APIC...):
# nothing these tests use, so those lines are left out of the log.
quiet_qemu() { "$@" 2> >(grep -v "TCG doesn't support requested feature" >&2); }
for model in Nehalem:Popcnt Haswell:Avx2; do
  cpu=${model%%:*} build=${model##*:}
  start=$SECONDS
  echo "x86 models: $cpu, expecting the $build build"
  quiet_qemu env "$runner_var=qemu-x86_64 -cpu $cpu" PIXEL_COLLIDE_EXPECT_BUILD="$build" \
    cargo test --quiet -p pixel_collide --lib -- --nocapture --exact \
    overlap_kernel::tests::the_build_this_cpu_runs | grep -E '^word loops'
  quiet_qemu env "$runner_var=qemu-x86_64 -cpu $cpu" PIXEL_COLLIDE_EXPECT_BUILD="$build" \
    PIXEL_COLLIDE_CASE_DIVISOR="${X86_MODELS_CASE_DIVISOR:-8}" \
    cargo test --quiet "${core[@]}" --lib --tests -- --skip broad_phase:: --skip shapes:: \
      --skip sprite_tables_from_row_ends_match_the_definition
  echo "x86 models: $cpu passed in $(( SECONDS - start ))s"
done
