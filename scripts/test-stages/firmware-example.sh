#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Stage: examples/firmware, the copyable firmware project, builds with
# cmake/arm-none-eabi.cmake (warnings as errors) twice - soft float, newlib-nano, tlsf by
# add_subdirectory; hard float, full newlib, tlsf installed and found by find_package -
# and each runs to completion on QEMU's mps2-an386 board (Cortex-M4): its exit status
# must be 0 and its UART output must hold the expected results. About 20 s.
# Usage: firmware-example.sh [build-dir]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=${1:-$root/build/test/firmware-example}
mkdir -p "$out"
for tool in arm-none-eabi-g++ qemu-system-arm; do
  command -v "$tool" >/dev/null || { echo "firmware-example: $tool missing (scripts/install-deps.sh)" >&2; exit 1; }
done

# Two builds: the defaults (soft float, newlib-nano, -Os, tlsf through add_subdirectory)
# and the other choices (the FPU, which the startup code must enable, the full newlib, and
# tlsf cross-built, installed and found with find_package).
toolchain=$root/cmake/arm-none-eabi.cmake
for variant in "MinSizeRel soft nano subdirectory" "Release hard full package"; do
  read -r type abi newlib library <<<"$variant"
  dir=$out/$type-$abi-$newlib
  echo "--- firmware-example: $type, $abi float, newlib $newlib, tlsf by $library"
  target=(-DCMAKE_BUILD_TYPE="$type" -DCMAKE_TOOLCHAIN_FILE="$toolchain"
          -DTLSF_M4_FLOAT_ABI="$abi" -DTLSF_M4_NEWLIB="$newlib")
  library_args=()
  if [[ $library == package ]]; then
    prefix=$out/tlsf-$abi-$newlib
    rm -rf "$prefix"
    if ! { cmake -S "$root" -B "$dir-tlsf" "${target[@]}" -DTLSF_BUILD_TESTS=OFF \
             -DCMAKE_INSTALL_PREFIX="$prefix" &&
           cmake --build "$dir-tlsf" --target install -j "$(nproc)"; } >"$dir-tlsf.log" 2>&1; then
      tail -40 "$dir-tlsf.log"; exit 1
    fi
    # tlsf_DIR: the toolchain file confines package searches to the compiler's sysroot.
    library_args=(-DFIRMWARE_TLSF_PACKAGE=ON -Dtlsf_DIR="$prefix/lib/cmake/tlsf")
  fi
  if ! { cmake -S "$root/examples/firmware" -B "$dir" "${target[@]}" "${library_args[@]}" \
           -DFIRMWARE_WERROR=ON && cmake --build "$dir" -j "$(nproc)"; } >"$dir.log" 2>&1; then
    tail -40 "$dir.log"; exit 1
  fi

  # The program ends itself through semihosting; the timeout only guards against a hang.
  status=0
  timeout 60 qemu-system-arm -M mps2-an386 -nographic -semihosting -monitor none \
    -kernel "$dir/firmware.elf" >"$dir.output.txt" 2>&1 </dev/null || status=$?
  cat "$dir.output.txt"
  if ((status != 0)); then
    echo "firmware-example: the firmware exited with status $status (124: timeout)" >&2; exit 1
  fi
  for expected in 'primes below 10000: 1229, the largest 9973' '  ending in 3: 310' \
                  'malloc uses the same heap                ok' \
                  'everything freed                         ok' \
                  'heap consistent (tlsf_check)             ok' 'firmware: PASS'; do
    grep -qxF -- "$expected" "$dir.output.txt" || { echo "firmware-example: missing line '$expected'" >&2; exit 1; }
  done
  if grep -q FAILED "$dir.output.txt"; then echo "firmware-example: a check failed" >&2; exit 1; fi
done
echo "firmware-example: built with the toolchain file, ran in qemu-system-arm -M mps2-an386, output as expected"
