#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Instructions per malloc and per free of workload 2 (bench/host/callgrind_workload.cpp:
# random sizes 8..1024 over 1,000 live slots, 100,000 replacements) for each checks level,
# with and without the front cache, counted by callgrind as scripts/callgrind.sh counts
# them (inclusive count of each entry point / its calls, bench/host/callgrind_report.py).
#
#   scripts/config-costs.sh [OUT_DIR]      (default build/config-costs)
#
# Prints one line per configuration and writes OUT_DIR/config-costs.csv.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:-$root/build/config-costs}
ops=100000
mkdir -p "$out"
# name | cmake settings
configs=(
  "lean|-DTLSF_STATS=0 -DTLSF_CHECKS=0 -DTLSF_CACHE=0"
  "checks1|-DTLSF_CHECKS=1 -DTLSF_CACHE=0"
  "checks2|-DTLSF_CHECKS=2 -DTLSF_CACHE=0"
  "lean+cache|-DTLSF_STATS=0 -DTLSF_CHECKS=0 -DTLSF_CACHE=2"
  "checks1+cache|-DTLSF_CHECKS=1 -DTLSF_CACHE=2"
  "checks2+cache (hosted default)|-DTLSF_CHECKS=2 -DTLSF_CACHE=2"
)
echo "configuration,malloc,free,pair" >"$out/config-costs.csv"
for entry in "${configs[@]}"; do
  IFS='|' read -r name args <<<"$entry"
  dir="$out/$(tr -c 'a-z0-9\n' '-' <<<"$name")"
  # shellcheck disable=SC2086
  cmake -S "$root" -B "$dir" -DCMAKE_BUILD_TYPE=Release -DTLSF_BUILD_BENCHMARKS=ON \
    -DTLSF_BUILD_TESTS=OFF $args >"$dir.log" 2>&1
  cmake --build "$dir" --target tlsf_callgrind_workload -j "$(nproc)" >>"$dir.log" 2>&1
  valgrind --tool=callgrind --callgrind-out-file="$dir.callgrind.out" \
    "$dir/bench/host/tlsf_callgrind_workload" tlsf "$ops" >/dev/null 2>&1
  python3 "$root/bench/host/callgrind_report.py" "$dir.csv" "tlsf=$dir.callgrind.out" >/dev/null
  read -r malloc free < <(awk -F, '$1 == "tlsf" {print $2, $3}' "$dir.csv")
  printf '%-32s malloc %6.1f  free %6.1f  pair %6.1f\n' "$name" "$malloc" "$free" \
    "$(awk -v m="$malloc" -v f="$free" 'BEGIN {print m + f}')"
  awk -v n="$name" -v m="$malloc" -v f="$free" 'BEGIN {printf "%s,%.1f,%.1f,%.1f\n", n, m, f, m + f}' \
    >>"$out/config-costs.csv"
done
