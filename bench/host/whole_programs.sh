#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# whole_programs.sh - whole programs on glibc's malloc and on the drop-in TLSF malloc
# (libtlsf_malloc.so through LD_PRELOAD, inherited by child processes), timed side by side.
#
#   bench/host/whole_programs.sh SHIM [RESULTS_DIR] [ROUNDS]
#
# Each program runs ROUNDS times (default 5: xz, which makes most of the coreutils time,
# swings by 30-50% from run to run on a shared VM on either heap) on each heap, the two
# alternating, so that a noisy minute hurts both alike; the figure is the median
# wall-clock time, and the ratio is TLSF / glibc (below 1: faster with TLSF). The
# workloads are those the shim tests run for correctness (test/shim/workloads): CPython
# with PYTHONMALLOC=malloc, so that every object comes from malloc, and
# sort/gzip/bzip2/xz/tar. Writes RESULTS_DIR/whole_programs.csv.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
shim=${1:?usage: whole_programs.sh SHIM [RESULTS_DIR] [ROUNDS]}
results=${2:-.}
rounds=${3:-5}
workloads=$root/test/shim/workloads
[[ -f $shim ]] || { echo "whole_programs: $shim not found" >&2; exit 1; }
shim=$(realpath "$shim") # LD_PRELOAD must not depend on the programs' working directories
mkdir -p "$results"
# Every process that loads the library appends a line to this file at exit: the proof
# that the TLSF runs really ran on TLSF.
report=$(mktemp)
trap 'rm -f "$report"' EXIT

programs=(
  "python3 (dict, sort, json; 300k entries)|env PYTHONMALLOC=malloc python3 $workloads/python_heavy.py 300000"
  "coreutils (sort, gzip, bzip2, xz, tar)|bash $workloads/coreutils_workload.sh"
)

seconds() { # command...: wall-clock seconds of one run, its output discarded
  local start end
  start=$(date +%s.%N)
  "$@" >/dev/null 2>&1 || { echo "whole_programs: failed: $*" >&2; return 1; }
  end=$(date +%s.%N)
  awk -v a="$start" -v b="$end" 'BEGIN { printf "%.4f\n", b - a }'
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "program,heap,median_s,ratio" >"$results/whole_programs.csv"
printf '%-42s %10s %10s %7s\n' "program (median of $rounds runs)" "glibc s" "TLSF s" "ratio"
for entry in "${programs[@]}"; do
  IFS='|' read -r name command <<<"$entry"
  read -ra argv <<<"$command"
  libc=() tlsf=()
  for ((i = 0; i < rounds; ++i)); do
    libc+=("$(seconds "${argv[@]}")")
    tlsf+=("$(seconds env LD_PRELOAD="$shim" TLSF_MALLOC_REPORT="$report" "${argv[@]}")")
    if [[ ! -s $report ]]; then
      echo "whole_programs: $name did not load $shim" >&2
      exit 1
    fi
    : >"$report"
  done
  a=$(printf '%s\n' "${libc[@]}" | median)
  b=$(printf '%s\n' "${tlsf[@]}" | median)
  ratio=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.4f", b / a }')
  printf '%-42s %10.3f %10.3f %7.2f\n' "$name" "$a" "$b" "$ratio"
  printf '"%s",glibc,%.4f,1\n"%s",tlsf,%.4f,%.4f\n' "$name" "$a" "$name" "$b" "$ratio" \
    >>"$results/whole_programs.csv"
done
