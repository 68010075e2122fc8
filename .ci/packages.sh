#!/usr/bin/env bash
# Installs the Debian packages the game needs, skipping those already present.
#   .ci/packages.sh build   what `cargo build` needs (gamepads via gilrs: libudev)
#   .ci/packages.sh run     + a window: X client libraries
#   .ci/packages.sh test    + a window without a GPU: Xvfb and software Vulkan (llvmpipe)
#   .ci/packages.sh bench   Python with venv, for ./bench.sh's pygame half
#   .ci/packages.sh aarch64 a linker and libc for aarch64 and qemu to run its tests
#   .ci/packages.sh web     Chromium, to play the web build in .ci/web.sh (Node and npm too,
#                           unless a `node` is already on the PATH)
set -euo pipefail

build=(pkg-config libudev-dev libx11-dev gcc)
run=(libxkbcommon-x11-0 libxcursor1 libxrandr2 libxi6 libvulkan1 mesa-vulkan-drivers)
test=(xvfb)
bench=(python3 python3-venv)
aarch64=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user)
web=(chromium)
command -v node >/dev/null || web+=(nodejs npm)

case "${1:-run}" in
  build) wanted=("${build[@]}") ;;
  run) wanted=("${build[@]}" "${run[@]}") ;;
  test) wanted=("${build[@]}" "${run[@]}" "${test[@]}") ;;
  bench) wanted=("${bench[@]}") ;;
  aarch64) wanted=("${aarch64[@]}") ;;
  web) wanted=("${web[@]}") ;;
  *) echo "usage: $0 build|run|test|bench|aarch64|web" >&2; exit 2 ;;
esac

missing=()
for pkg in "${wanted[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "system packages: all present (${wanted[*]})"
  exit 0
fi

echo "system packages: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "system packages: installed ${missing[*]}"
