#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Stage: the FreeRTOS heap port (ports/freertos). First its host tests against a recording
# fake kernel (test/freertos/host: locking, hooks, trace calls, misuse, regions, stats, no
# memory, the C++ default heap adopting the port's heap), built twice: with the core's
# statistics (the default) and without (TLSF_STATS=0: the port's own counts). Then a real
# FreeRTOS firmware under qemu-system-arm -M mps2-an386 (Cortex-M4F): test/freertos/firmware,
# one heap for pvPortMalloc, newlib's malloc, global new/delete, tlsf::allocator and
# std::pmr, built with cmake/arm-none-eabi.cmake in two variants (ucheap: heap_4 style with
# the scheduler-suspending lock; regions-isr: heap_5 style regions, the interrupt-masking
# lock and allocations of every kind in the tick interrupt), each run until it prints
# "freertos-heap-test: PASS" and exits 0. Each image is then checked for a second heap:
# no object of newlib's allocator (or abort/raise, which bring one) is linked, and tlsf's
# own objects reference no abort, atexit, __dso_handle or static-guard symbol.
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
for stats in 1 0; do
  host="$out/host-stats$stats"
  if { cmake -S "$root/test/freertos/host" -B "$host" -DCMAKE_BUILD_TYPE=Release -DTLSF_STATS=$stats &&
       cmake --build "$host" -j "$(nproc)" && ctest --test-dir "$host" --output-on-failure; } >"$host.log" 2>&1; then
    echo "freertos: host, TLSF_STATS=$stats: $(grep -E 'tests passed' "$host.log")"
  else
    tail -40 "$host.log"; echo "freertos: host tests (TLSF_STATS=$stats) FAILED"; status=1
  fi
done

kernel=${FREERTOS_KERNEL_PATH:-$root/../shared/third_party/FreeRTOS-Kernel}
if [[ ! -f "$kernel/include/FreeRTOS.h" ]]; then
  echo "freertos: firmware SKIPPED - no FreeRTOS kernel at '$kernel' (set FREERTOS_KERNEL_PATH to a FreeRTOS-Kernel tree)"
  exit $status
fi
kernel=$(cd "$kernel" && pwd)
for tool in arm-none-eabi-gcc arm-none-eabi-g++ arm-none-eabi-nm qemu-system-arm; do
  command -v "$tool" >/dev/null || { echo "freertos: $tool not found (scripts/install-deps.sh)" >&2; exit 1; }
done

# Symbols only newlib's allocator and what drags it in define: its heap state, its lock,
# _sbrk, and abort/raise/signal (newlib's signal table is allocated with its malloc).
newlib_heap_symbols='_sbrk|_sbrk_r|__malloc_lock|__malloc_unlock|__malloc_free_list|__malloc_sbrk_start|__malloc_av_|__malloc_current_mallinfo|__malloc_top_pad|__malloc_trim_threshold|_malloc_trim_r|_mallinfo_r|_malloc_usable_size_r|raise|_raise_r|signal|_signal_r|_init_signal|_kill|_kill_r|_getpid|_getpid_r'
# Archive members of newlib's allocator (nano and full) and of abort/signal.
newlib_heap_members='lib_a-(nano-)?(mallocr|freer|callocr|reallocr|memalignr|malignr|mallinfor|msizer|mstats|mtrim)\.o|lib_a-(mlock|sbrkr|abort|signal|signalr)\.o'
# What tlsf's objects must not reference on bare metal.
tlsf_forbidden='abort|raise|_sbrk|__dso_handle|__aeabi_atexit|__cxa_atexit|atexit|__cxa_guard_acquire|__cxa_guard_release|_malloc_r'

check_one_heap() { # dir: the image has no second heap
  local dir=$1 elf=$1/freertos_heap_test.elf map=$1/freertos_heap_test.map found defined
  defined=$(arm-none-eabi-nm --defined-only "$elf" | awk '{print $3}')
  found=$(grep -xE "$newlib_heap_symbols" <<<"$defined" || true)
  if [[ -n $found ]]; then echo "freertos: $dir: newlib allocator symbols in the image: $found"; return 1; fi
  found=$(grep -oE "$newlib_heap_members" "$map" | sort -u || true)
  if [[ -n $found ]]; then echo "freertos: $dir: newlib allocator objects linked: $found"; return 1; fi
  # malloc, free and abort are there, but they are ours (no newlib object defines them).
  for symbol in malloc free abort; do
    grep -qx "$symbol" <<<"$defined" ||
      { echo "freertos: $dir: $symbol missing from the image"; return 1; }
  done
  found=$(find "$dir/tlsf-freertos" \( -name '*.obj' -path '*tlsf_freertos*' -o -name 'libtlsf.a' \) \
            -exec arm-none-eabi-nm -u {} + | awk '{print $2}' | grep -xE "$tlsf_forbidden" | sort -u || true)
  if [[ -n $found ]]; then echo "freertos: $dir: tlsf objects reference: $found"; return 1; fi
}

for variant in ucheap regions-isr; do
  dir="$out/$variant"
  if ! { cmake -S "$root/test/freertos/firmware" -B "$dir" -DCMAKE_BUILD_TYPE=MinSizeRel \
           -DCMAKE_TOOLCHAIN_FILE="$root/cmake/arm-none-eabi.cmake" -DTLSF_M4_FLOAT_ABI=hard \
           -DFREERTOS_KERNEL_PATH="$kernel" -DTEST_VARIANT="$variant" &&
         cmake --build "$dir" -j "$(nproc)"; } >"$dir.build.log" 2>&1; then
    tail -40 "$dir.build.log"; echo "freertos: $variant: build FAILED"; status=1; continue
  fi
  if ! check_one_heap "$dir"; then status=1; fi
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
