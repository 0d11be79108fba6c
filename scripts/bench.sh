#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Build the host benchmarks in Release and run all of them (about 10 minutes on 2 quiet
# cores; 20 when other builds share them).
#
#   scripts/bench.sh [--quick] [--no-deps]
#     --quick    short Google Benchmark runs (a smoke test; the figures are not stable)
#     --no-deps  do not call scripts/install-deps.sh first
#
# Builds in build/bench (TLSF_BENCH_BUILD_DIR overrides) and writes build/bench/results/:
#   bench.json             Google Benchmark output of tlsf_bench (all suites)
#   summary.csv, summary.txt   medians as ratios to libc (bench/host/summarize.py)
#   latency_*.csv          per-call latency of workload 2 (percentiles, distribution, every op)
#   fragmentation.csv      live bytes at the first failure in a 1 MiB heap
#   seed_workload.csv      the embedded seed's workload in a 175 KiB heap
#   perft_modes.csv, .txt  the perft program in both table modes (bench/chess/perft_modes.sh)
#   callgrind.csv          instructions per malloc and per free (scripts/callgrind.sh)
#   cachegrind.csv         D1 misses and mispredicted branches per malloc+free (the same)
#   threads_bench.csv      larson-like and alloc-test-like threads, glibc vs the drop-in
#                          malloc: time, peak RSS, instructions (bench/host/threads_bench.sh)
#   *.png                  pictures (scripts/plot_bench.gp), if gnuplot is installed
#   machine.txt            the machine, compiler and library versions
#   headline.txt           each target, its figure and whether it is met (printed last,
#                          bench/host/headline.py)
# Every comparison runs side by side in one process (the machine this was written on is
# shared and noisy) and is reported relative to glibc. jemalloc, mimalloc, tcmalloc and
# scudo (LLVM's hardened allocator, from clang's runtime) are optional: whichever is
# missing is skipped with a note.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${TLSF_BENCH_BUILD_DIR:-$root/build/bench}
results=$build/results
quick=0
deps=1
for arg in "$@"; do
  case $arg in
    --quick) quick=1 ;;
    --no-deps) deps=0 ;;
    *) echo "usage: $0 [--quick] [--no-deps]" >&2; exit 2 ;;
  esac
done
start=$SECONDS
section() { printf '\n==== [%3d s] %s\n' "$((SECONDS - start))" "$*"; }

if ((deps)); then
  # Missing optional packages must not stop the run: what is there gets measured.
  "$root/scripts/install-deps.sh" || echo "bench: install-deps.sh failed; using what is installed" >&2
fi

section "build (Release) in $build"
configure_log=$(cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
  -DTLSF_BUILD_BENCHMARKS=ON -DTLSF_BUILD_TESTS=OFF 2>&1) || { echo "$configure_log"; exit 1; }
grep -E 'bench/host|Warning' <<<"$configure_log" || true
cmake --build "$build" -j"$(nproc)" >/dev/null
rm -rf "$results"
mkdir -p "$results"
host=$build/bench/host

# jemalloc is dlopen()ed (never linked: it would replace malloc in the whole process) and
# needs room in the static TLS block for that (see bench/host/peers.hpp).
export GLIBC_TUNABLES="${GLIBC_TUNABLES:+$GLIBC_TUNABLES:}glibc.rtld.optional_static_tls=65536"

{
  echo "date:     $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "command:  scripts/bench.sh $*"
  echo "commit:   $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$root" diff --quiet 2>/dev/null || echo ' (with local changes)')"
  echo "cpu:      $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | xargs), $(nproc) cores"
  echo "kernel:   $(uname -sr)"
  echo "compiler: $(c++ --version | head -1)"
  echo "glibc:    $(ldd --version | head -1 | awk '{print $NF}')"
  for pkg in libbenchmark-dev libjemalloc2 libmimalloc2.0 libtcmalloc-minimal4; do
    echo "package:  $pkg $(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null || echo 'not installed')"
  done
} >"$results/machine.txt"

if [[ -x $host/tlsf_bench ]]; then
  section "Google Benchmark suites (C API, STL, chess): tlsf_bench"
  if ((quick)); then
    gbench=(--benchmark_min_time=0.02 --benchmark_repetitions=2)
  else
    gbench=(--benchmark_min_time=0.2 --benchmark_repetitions=12)
  fi
  # Repetitions in random order, so that a noisy minute hurts every allocator alike;
  # medians are compared.
  "$host/tlsf_bench" "${gbench[@]}" --benchmark_enable_random_interleaving=true \
    --benchmark_report_aggregates_only=true \
    --benchmark_out="$results/bench.json" --benchmark_out_format=json \
    >"$results/bench_console.txt" 2>&1 || { cat "$results/bench_console.txt"; exit 1; }
  grep '^note:' "$results/bench_console.txt" || true
  python3 "$root/bench/host/summarize.py" "$results/bench.json" "$results" | tee "$results/summary.txt"
else
  section "tlsf_bench not built (Google Benchmark missing): C API, STL and chess suites skipped"
fi

section "latency of single calls (workload 2): tlsf_latency"
"$host/tlsf_latency" --out "$results" | tee "$results/latency.txt"

section "fragmentation in a fixed heap: tlsf_fragmentation"
"$host/tlsf_fragmentation" --out "$results" | tee "$results/fragmentation.txt"

if [[ -x $host/tlsf_seed_workload ]]; then
  section "the embedded seed's workload: tlsf_seed_workload"
  "$host/tlsf_seed_workload" --out "$results" | tee "$results/seed_workload.txt"
  # The seed ran on a 32-bit board: its pointers, and TLSF's control structure, are
  # smaller. A 32-bit build answers what fits there (run under qemu when the kernel
  # cannot run 32-bit programs; only the layout counts, not the time).
  runner=()
  if echo 'int main(void){return 0;}' | cc -m32 -x c - -o "$build/m32-probe" 2>/dev/null; then
    if ! "$build/m32-probe" 2>/dev/null; then
      if command -v qemu-i386 >/dev/null; then runner=(qemu-i386 -L /); else runner=(none); fi
    fi
    if [[ ${runner[0]:-} != none ]]; then
      cmake -S "$root" -B "${build}-m32" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS=-m32 \
        -DCMAKE_CXX_FLAGS=-m32 -DTLSF_BUILD_BENCHMARKS=ON -DTLSF_BUILD_TESTS=OFF >/dev/null 2>&1 &&
        cmake --build "${build}-m32" --target tlsf_seed_workload -j"$(nproc)" >/dev/null 2>&1 &&
        "${runner[@]}" "${build}-m32/bench/host/tlsf_seed_workload" --fit-only |
        tee -a "$results/seed_workload.txt" ||
        echo "note: the 32-bit fit check could not be built or run"
    else
      echo "note: 32-bit programs cannot run here (no qemu-i386): 32-bit fit check skipped"
    fi
  else
    echo "note: no 32-bit compiler (gcc-multilib): 32-bit fit check skipped"
  fi
fi

# The chess engine's two table modes: bounded (small, cleared) and everything (grows
# through the search, as a search engine's table does), each on glibc, TLSF and the peers.
perft_program=$(find "$build" -path '*chess/perft' -type f -perm -u+x | head -1)
if [[ -n $perft_program ]]; then
  section "perft in both table modes: bench/chess/perft_modes.sh"
  modes_args=()
  if ((quick)); then modes_args+=(--quick); fi
  "$root/bench/chess/perft_modes.sh" "$perft_program" "$results" "${modes_args[@]}"
else
  echo "note: the perft program was not built, table modes skipped"
fi

section "instructions per call: scripts/callgrind.sh"
"$root/scripts/callgrind.sh" "$build" "$results" | tee "$results/callgrind.txt"

shim=$build/malloc/libtlsf_malloc.so
if [[ -f $shim ]]; then
  section "whole programs on the drop-in malloc: bench/host/whole_programs.sh"
  "$root/bench/host/whole_programs.sh" "$shim" "$results" | tee "$results/whole_programs.txt"
else
  echo "note: $shim not built, whole-program runs skipped"
fi

if [[ -f $shim && -x $host/tlsf_threads_bench ]]; then
  section "threads on the drop-in malloc (larson-like, alloc-test-like): bench/host/threads_bench.sh"
  "$root/bench/host/threads_bench.sh" "$build" "$results" | tee "$results/threads_bench.txt"
else
  echo "note: tlsf_threads_bench or $shim not built, thread benchmarks skipped"
fi

if command -v gnuplot >/dev/null; then
  section "pictures: scripts/plot_bench.gp"
  gnuplot -e "results='$results'" "$root/scripts/plot_bench.gp"
  ls "$results"/*.png
else
  echo "note: gnuplot not installed, no pictures"
fi

section "machine"
cat "$results/machine.txt"
echo "results in $results ($((SECONDS - start)) s); the long tables are in its *.txt files"
python3 "$root/bench/host/headline.py" "$results"
