#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Stage: the core and the C++ layer cross-compile for Cortex-M4 (Thumb-2), warning-free,
# at -Os and -O2, soft and hard float. Usage: arm-cross.sh <build-dir>
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=${1:-$root/build/test/arm-cross}
mkdir -p "$out"
for variant in "MinSizeRel soft" "Release hard"; do
  read -r type abi <<<"$variant"
  dir="$out/$type-$abi"
  cmake -S "$root" -B "$dir" -DCMAKE_TOOLCHAIN_FILE="$root/cmake/arm-none-eabi.cmake" \
    -DTLSF_M4_FLOAT_ABI="$abi" -DCMAKE_BUILD_TYPE="$type" -DCMAKE_C_FLAGS_RELEASE="-O2 -DNDEBUG" \
    -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" -DTLSF_BUILD_TESTS=OFF >"$dir.log" 2>&1 || { cat "$dir.log"; exit 1; }
  cmake --build "$dir" -j "$(nproc)" >>"$dir.log" 2>&1 || { tail -40 "$dir.log"; exit 1; }
  # The C++ headers, global new/delete included, compile for the target as well.
  compile_cxx() { # name, source: compile for the target with the project's warnings
    printf '%s\n' "$2" | arm-none-eabi-g++ -std=c++17 -mcpu=cortex-m4 -mthumb -mfloat-abi="$abi" \
      $([[ $abi == hard ]] && echo -mfpu=fpv4-sp-d16) -Os -fno-exceptions -fno-rtti \
      -Wall -Wextra -Wpedantic -Wconversion -Wshadow -Werror \
      -I"$root/core/include" -I"$root/cpp/include" -x c++ -c - -o "$dir/$1.o"
  }
  compile_cxx containers '#include <tlsf/tlsf.hpp>
int main() { tlsf::vector<int> v{1, 2, 3}; tlsf::map<int, int> m{{1, 2}}; return v[1] + m[1]; }'
  compile_cxx global_new '#include <tlsf/global_new.hpp>
int main() { int *p = new int(3); int r = *p; delete p; return r; }'
  echo "arm-cross: $type ($abi float): core and C++ layer built"
  arm-none-eabi-size "$dir/core/libtlsf.a" | tail -n +2 | awk '{t+=$1} END {print "  core .text total: " t " bytes"}'
done
