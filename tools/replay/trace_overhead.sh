#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# trace_overhead.sh - what recording costs: the whole programs of bench/host/whole_programs.sh
# under the drop-in malloc, without recording (libtlsf_malloc.so) and recording every call
# (libtlsf_malloc_trace.so with TLSF_MALLOC_TRACE), the two alternating.
#
#   tools/replay/trace_overhead.sh [BUILD_DIR] [ROUNDS]    (defaults: build, 5)
#
# Prints, per program, the median wall-clock and CPU (user + system) seconds of each and the
# ratio recording / not recording, and the size of the program's trace. Extra settings of
# the recording (TLSF_MALLOC_TRACE_IDS=1, TLSF_MALLOC_TRACE_TIME=1) can be given in the
# environment: they reach the recorded runs only.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$(realpath "${1:-$root/build}")
rounds=${2:-5}
plain=$build/malloc/libtlsf_malloc.so
traced=$build/malloc/libtlsf_malloc_trace.so
for library in "$plain" "$traced"; do
  [[ -f $library ]] || { echo "trace_overhead: $library not built" >&2; exit 1; }
done
workloads=$root/test/shim/workloads
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The settings of the recording, kept out of the plain runs' environment.
recording=()
for name in TLSF_MALLOC_TRACE_IDS TLSF_MALLOC_TRACE_TIME TLSF_MALLOC_TRACE_SLOTS; do
  if [[ -n ${!name:-} ]]; then recording+=("$name=${!name}"); unset "$name"; fi
done

# The programs of bench/host/whole_programs.sh.
programs=(
  "python3 (dict, sort, json; 300k entries)|env PYTHONMALLOC=malloc python3 $workloads/python_heavy.py 300000"
  "coreutils (sort, gzip, bzip2, xz, tar)|bash $workloads/coreutils_workload.sh"
)

# run LIBRARY TRACE_PATH command...: "wall cpu" seconds of one run, output discarded.
run() {
  local library=$1 trace=$2
  shift 2
  local -a environment=(LD_PRELOAD="$library")
  [[ -n $trace ]] && environment+=(TLSF_MALLOC_TRACE="$trace" "${recording[@]}")
  /usr/bin/time -f "%e %U %S" -o "$tmp/time" env "${environment[@]}" "$@" >/dev/null 2>&1 ||
    { echo "trace_overhead: failed: $*" >&2; return 1; }
  awk '{ printf "%.4f %.4f\n", $1, $2 + $3 }' "$tmp/time"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

printf '%-42s %9s %9s %6s %9s %9s %6s %10s\n' "program (median of $rounds runs)" "wall s" \
  "traced" "ratio" "cpu s" "traced" "ratio" "trace"
for entry in "${programs[@]}"; do
  IFS='|' read -r name command <<<"$entry"
  read -ra argv <<<"$command"
  dir=$tmp/traces
  : >"$tmp/plain" && : >"$tmp/traced"
  for ((i = 0; i < rounds; ++i)); do
    rm -rf "$dir" && mkdir -p "$dir"
    run "$plain" "" "${argv[@]}" >>"$tmp/plain"
    run "$traced" "$dir/trace" "${argv[@]}" >>"$tmp/traced"
  done
  bytes=$(cat "$dir"/trace* | wc -c)
  pw=$(cut -d' ' -f1 "$tmp/plain" | median) tw=$(cut -d' ' -f1 "$tmp/traced" | median)
  pc=$(cut -d' ' -f2 "$tmp/plain" | median) tc=$(cut -d' ' -f2 "$tmp/traced" | median)
  awk -v n="$name" -v pw="$pw" -v tw="$tw" -v pc="$pc" -v tc="$tc" -v b="$bytes" 'BEGIN {
    printf "%-42s %9.3f %9.3f %6.2f %9.3f %9.3f %6.2f %7.1f MiB\n", n, pw, tw, tw / pw, pc, tc, tc / pc, b / 1048576 }'
done
