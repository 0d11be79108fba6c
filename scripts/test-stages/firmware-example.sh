#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Stage: examples/firmware, the copyable firmware project, builds with
# cmake/arm-none-eabi.cmake (warnings as errors; soft float + newlib-nano, and hard float +
# full newlib) and runs to completion on QEMU's mps2-an386 board (Cortex-M4): its exit
# status must be 0 and its UART output must hold the expected results. About 30 s.
# Usage: firmware-example.sh [build-dir]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=${1:-$root/build/test/firmware-example}
mkdir -p "$out"
for tool in arm-none-eabi-g++ qemu-system-arm; do
  command -v "$tool" >/dev/null || { echo "firmware-example: $tool missing (scripts/install-deps.sh)" >&2; exit 1; }
done

# Two builds: the defaults (soft float, newlib-nano, -Os) and the other choices of the
# toolchain file (the FPU, which the startup code must enable, and the full newlib).
for variant in "MinSizeRel soft nano" "Release hard full"; do
  read -r type abi newlib <<<"$variant"
  dir=$out/$type-$abi-$newlib
  echo "--- firmware-example: $type, $abi float, newlib $newlib"
  if ! { cmake -S "$root/examples/firmware" -B "$dir" -DCMAKE_BUILD_TYPE="$type" \
           -DCMAKE_TOOLCHAIN_FILE="$root/cmake/arm-none-eabi.cmake" -DTLSF_M4_FLOAT_ABI="$abi" \
           -DTLSF_M4_NEWLIB="$newlib" -DFIRMWARE_WERROR=ON &&
         cmake --build "$dir" -j "$(nproc)"; } >"$dir.log" 2>&1; then
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
