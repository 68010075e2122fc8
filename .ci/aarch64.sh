#!/usr/bin/env bash
# The collision core on aarch64: linted, then every core test run under qemu. The x86-64
# builds of the word loops and mask edits are behind `cfg`, so only this shows that the
# portable paths, which are all an ARM CPU gets, still build without warnings and give the
# same answers. The game is not built here: Bevy for a second target would double CI.
# Under qemu the tests run about twenty times slower than natively, so the seeded cases
# are cut to a sixteenth here, through `PIXEL_COLLIDE_CASE_DIVISOR`, as under the x86 models:
# every case runs natively, where each build's kernels are tested too (the portable ones
# among them); what this adds is another architecture's compiler, floats and libm.
set -euo pipefail
cd "$(dirname "$0")/.."
target=aarch64-unknown-linux-gnu
.ci/packages.sh aarch64
if ! rustup target list --installed | grep -qx "$target"; then
  rustup target add "$target"
fi
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="qemu-aarch64 -L /usr/aarch64-linux-gnu"
core=(-p pixel_collide -p pixel_collide_support)
cargo clippy --target "$target" "${core[@]}" --all-targets -- -D warnings
PIXEL_COLLIDE_CASE_DIVISOR=16 cargo test --target "$target" "${core[@]}"
