#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Instructions per malloc and per free under workload 2, counted by valgrind's callgrind.
#
#   scripts/callgrind.sh [BUILD_DIR] [RESULTS_DIR]
#
# BUILD_DIR (default build/bench) must hold bench/host/tlsf_callgrind_workload, as
# scripts/bench.sh builds it. Each allocator runs in its own process under callgrind
# (1,000-block live set, 100,000 replacements); bench/host/callgrind_report.py divides
# the inclusive instruction count of each entry point by the calls it received. TLSF is
# counted twice: as configured (statistics and free-time checks on, the defaults) and
# built again in BUILD_DIR-lean with -DTLSF_STATS=0 -DTLSF_CHECKS=0. page-study is the design
# study of bench/study/page_heap.h (small blocks without headers, in pages), not the library.
# Then cachegrind (simulated caches and branch predictor) counts, for every allocator, the
# D1 cache misses and mispredicted branches per replacement (one free and one malloc): the
# difference between a run of 100,000 replacements and a run of none, divided by 100,000,
# so setup and teardown cancel out.
# Writes RESULTS_DIR/callgrind.csv, cachegrind.csv and the callgrind.<allocator>.out files.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build/bench}
results=${2:-$build/results}
ops=100000

if ! command -v valgrind >/dev/null; then
  echo "callgrind: valgrind not installed, skipped"
  exit 0
fi
program=$build/bench/host/tlsf_callgrind_workload
if [[ ! -x $program ]]; then
  echo "callgrind: $program not built (run scripts/bench.sh first)" >&2
  exit 1
fi
mkdir -p "$results"
# jemalloc is dlopen()ed and needs room in the static TLS block (see bench/host/peers.hpp).
export GLIBC_TUNABLES="${GLIBC_TUNABLES:+$GLIBC_TUNABLES:}glibc.rtld.optional_static_tls=65536"

# The lean TLSF configuration, built only for this measurement.
lean=${build}-lean
cmake -S "$root" -B "$lean" -DCMAKE_BUILD_TYPE=Release -DTLSF_BUILD_BENCHMARKS=ON \
  -DTLSF_BUILD_TESTS=OFF -DTLSF_STATS=0 -DTLSF_CHECKS=0 >/dev/null
cmake --build "$lean" --target tlsf_callgrind_workload -j"$(nproc)" >/dev/null

reports=()
run() { # name program allocator
  local out=$results/callgrind.$1.out
  local status=0
  valgrind --tool=callgrind --callgrind-out-file="$out" "$2" "$3" "$ops" \
    >"$results/callgrind.$1.log" 2>&1 || status=$?
  if ((status == 0)); then
    reports+=("$1=$out")
  elif ((status == 3)); then # the program's "not available": a missing optional peer
    echo "callgrind: $1 skipped ($(grep -m1 "note: $1" "$results/callgrind.$1.log" || echo "not available"))"
  else
    echo "callgrind: $1 failed, see $results/callgrind.$1.log" >&2
  fi
}
for allocator in libc tlsf jemalloc mimalloc tcmalloc page-study; do
  run "$allocator" "$program" "$allocator"
done
run tlsf-lean "$lean/bench/host/tlsf_callgrind_workload" tlsf

echo "workload 2 under callgrind: instructions (Ir) per call, inclusive of everything the entry point calls"
python3 "$root/bench/host/callgrind_report.py" "$results/callgrind.csv" "${reports[@]}"

# cachegrind's whole-program totals: D1 misses (reads + writes) and mispredicted branches
# (conditional + indirect). Prints nothing if the program fails (a missing optional peer).
cachegrind_totals() { # program allocator ops
  local out
  out=$(mktemp)
  if valgrind --tool=cachegrind --cache-sim=yes --branch-sim=yes --cachegrind-out-file="$out" \
    "$1" "$2" "$3" >/dev/null 2>&1; then
    awk '/^summary:/ {print $6 + $9, $12 + $14}' "$out"
  fi
  rm -f "$out"
}
echo
echo "workload 2 under cachegrind: per replacement (free + malloc), the difference of 100,000 and 0"
{
  echo "allocator,d1_misses_per_pair,mispredicts_per_pair"
  for allocator in libc tlsf jemalloc mimalloc tcmalloc page-study; do
    with=$(cachegrind_totals "$program" "$allocator" "$ops")
    without=$(cachegrind_totals "$program" "$allocator" 0)
    [[ -n $with && -n $without ]] || continue
    read -r misses_n branches_n <<<"$with"
    read -r misses_0 branches_0 <<<"$without"
    awk -v a="$allocator" -v m=$((misses_n - misses_0)) -v b=$((branches_n - branches_0)) \
      -v n="$ops" 'BEGIN {printf "%s,%.2f,%.2f\n", a, m / n, b / n}'
  done
} >"$results/cachegrind.csv"
column -s, -t "$results/cachegrind.csv"
