#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Stage: the FreeRTOS heap port (ports/freertos). First its host tests against a recording
# fake kernel (test/freertos/host: locking, hooks, trace calls, misuse, regions, stats);
# then a real FreeRTOS firmware under qemu-system-arm -M mps2-an386 (Cortex-M4F):
# test/freertos/firmware, built in two variants
# (ucheap: heap_4 style with the scheduler-suspending lock; regions-isr: heap_5 style
# regions, the interrupt-masking lock and allocations in the tick interrupt), each run
# until it prints "freertos-heap-test: PASS" and exits 0.
#
#   scripts/test-stages/freertos.sh [build-dir]
#
# The kernel: FREERTOS_KERNEL_PATH (environment), else ../shared/third_party/FreeRTOS-Kernel
# beside the repository. Without a kernel the stage is skipped (exit 0) with a message.
# QEMU runs with -icount (virtual time counts instructions), so a run is deterministic:
# the same task switches, the same counts, whatever the host's load.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=${1:-$root/build/test/freertos}
mkdir -p "$out"
status=0
# The host tests need no kernel.
host="$out/host"
if { cmake -S "$root/test/freertos/host" -B "$host" -DCMAKE_BUILD_TYPE=Release &&
     cmake --build "$host" -j "$(nproc)" && ctest --test-dir "$host" --output-on-failure; } >"$host.log" 2>&1; then
  echo "freertos: host: $(grep -E 'tests passed' "$host.log")"
else
  tail -40 "$host.log"; echo "freertos: host tests FAILED"; status=1
fi

kernel=${FREERTOS_KERNEL_PATH:-$root/../shared/third_party/FreeRTOS-Kernel}
if [[ ! -f "$kernel/include/FreeRTOS.h" ]]; then
  echo "freertos: firmware SKIPPED - no FreeRTOS kernel at '$kernel' (set FREERTOS_KERNEL_PATH to a FreeRTOS-Kernel tree)"
  exit $status
fi
kernel=$(cd "$kernel" && pwd)
for tool in arm-none-eabi-gcc arm-none-eabi-g++ qemu-system-arm; do
  command -v "$tool" >/dev/null || { echo "freertos: $tool not found (scripts/install-deps.sh)" >&2; exit 1; }
done
for variant in ucheap regions-isr; do
  dir="$out/$variant"
  if ! { cmake -S "$root/test/freertos/firmware" -B "$dir" -DCMAKE_BUILD_TYPE=MinSizeRel \
           -DCMAKE_TOOLCHAIN_FILE="$root/test/freertos/firmware/cortex-m4f.cmake" \
           -DFREERTOS_KERNEL_PATH="$kernel" -DTEST_VARIANT="$variant" &&
         cmake --build "$dir" -j "$(nproc)"; } >"$dir.build.log" 2>&1; then
    tail -40 "$dir.build.log"; echo "freertos: $variant: build FAILED"; status=1; continue
  fi
  # 60 s is a hang, not a slow run: a run takes well under a second of emulation.
  if timeout 60 qemu-system-arm -M mps2-an386 -nographic -monitor none -serial none \
       -semihosting-config enable=on,target=native -icount shift=5,sleep=off \
       -kernel "$dir/freertos_heap_test.elf" >"$dir.run.log" 2>&1 &&
     grep -q '^freertos-heap-test: PASS' "$dir.run.log"; then
    echo "freertos: $variant: $(grep '^freertos-heap-test: PASS' "$dir.run.log")"
  else
    cat "$dir.run.log"; echo "freertos: $variant: run FAILED"; status=1
  fi
done
exit $status
