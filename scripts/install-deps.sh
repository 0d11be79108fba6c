#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Install the Debian 12 packages the build, tests and benchmarks use (as root). Packages
# already present are not fetched again, so a second run costs nothing.
#   scripts/install-deps.sh            everything
#   scripts/install-deps.sh --minimal  what the core and its tests need
set -euo pipefail

minimal=(cmake make gcc g++ libgtest-dev googletest)
full=(clang libclang-rt-14-dev gcc-multilib g++-multilib qemu-user valgrind
      libbenchmark-dev gcc-arm-none-eabi libnewlib-arm-none-eabi
      libstdc++-arm-none-eabi-newlib libunicorn-dev pkg-config qemu-system-arm gnuplot-nox
      libjemalloc-dev libmimalloc-dev libgoogle-perftools-dev python3 clang-format)

wanted=("${minimal[@]}")
if [[ "${1:-}" != "--minimal" ]]; then wanted+=("${full[@]}"); fi

missing=()
for pkg in "${wanted[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#wanted[@]} packages present"
  exit 0
fi
if [[ $(id -u) -ne 0 ]]; then
  echo "install-deps: missing ${missing[*]}; run as root (or with sudo) to install them" >&2
  exit 1
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
