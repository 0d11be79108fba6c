#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# threads_bench.sh - the multi-threaded workloads of threads_bench.c on glibc's malloc and
# on the drop-in TLSF malloc (libtlsf_malloc.so through LD_PRELOAD), side by side.
#
#   bench/host/threads_bench.sh BUILD_DIR [RESULTS_DIR] [ROUNDS]
#     BUILD_DIR  a Release build with TLSF_BUILD_BENCHMARKS=ON, tlsf_threads_bench and
#                tlsf_malloc built (scripts/bench.sh makes one)
#   THREADS_BENCH_INSTRUCTIONS=0  skip the instruction counts (valgrind's callgrind)
#
# Wall clock: each workload runs ROUNDS times (default 3) per malloc, alternating; the
# figure is the median, the ratio TLSF / glibc (below 1: TLSF faster). Peak RSS is the
# largest ru_maxrss of the rounds (its counters lag by up to a few hundred KiB: compare
# with care); the anonymous memory at the workload's fullest moment (exact, read from
# /proc/self/smaps_rollup: the figure to compare heaps by) and the minor page faults
# (ru_minflt, nearly deterministic: what the large blocks cost) are medians. Instructions: one smaller run of each under callgrind
# (threads serialised: the count of the work, without contention or cache effects).
# The checksums of both mallocs must agree, and every TLSF process must end with a clean
# heap check (TLSF_MALLOC_REPORT). Writes RESULTS_DIR/threads_bench.csv.
set -euo pipefail
build=${1:?usage: threads_bench.sh BUILD_DIR [RESULTS_DIR] [ROUNDS]}
results=${2:-.}
rounds=${3:-3}
bench=$build/bench/host/tlsf_threads_bench
shim=$build/malloc/libtlsf_malloc.so
for f in "$bench" "$shim"; do
  [[ -f $f ]] || { echo "threads_bench: $f not built" >&2; exit 1; }
done
shim=$(realpath "$shim")
mkdir -p "$results"
report=$(mktemp)
trap 'rm -f "$report"' EXIT

# name|arguments for the timed runs|arguments for the instruction count ("-": none; the
# large blocks' cost is page faults, which callgrind does not see; realloc growth is counted
# for its copies)
workloads=(
  "larson (2 threads, cross-thread frees)|larson 2 100 1000 20000|larson 2 20 1000 10000"
  "alloc-test (2 independent threads)|alloc-test 2 2000000 1000|alloc-test 2 200000 1000"
  "large blocks (5-25 MiB, every page written)|large 1 200|-"
  "realloc growth (1 to 64 MiB, 2 threads)|grow 2 10|grow 1 2"
)

field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p"; } # name: the value of name=... in a line
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (a > 0) ? b / a : 0 }'; }
instructions() { # preload command...: total instructions of the command under callgrind
  local preload=$1
  shift
  LD_PRELOAD=$preload valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

csv=$results/threads_bench.csv
echo "workload,glibc_s,tlsf_s,time_ratio,glibc_rss_kib,tlsf_rss_kib,rss_ratio,glibc_instructions,tlsf_instructions,instruction_ratio,glibc_faults,tlsf_faults,fault_ratio,glibc_anon_kib,tlsf_anon_kib,anon_ratio" >"$csv"
printf '%-44s %9s %9s %6s %10s %10s %6s %13s %13s %6s %9s %9s %6s %9s %9s %6s\n' workload \
  "glibc s" "tlsf s" ratio "glibc KiB" "tlsf KiB" ratio "glibc instr" "tlsf instr" ratio \
  "glibc flt" "tlsf flt" ratio "glibc anon" "tlsf anon" ratio
for entry in "${workloads[@]}"; do
  IFS='|' read -r name args small <<<"$entry"
  glibc_s=() tlsf_s=() glibc_flt=() tlsf_flt=() glibc_anon=() tlsf_anon=() glibc_rss=0 tlsf_rss=0 glibc_sum="" tlsf_sum=""
  for ((r = 0; r < rounds; r++)); do
    line=$("$bench" $args)
    glibc_s+=("$(field seconds <<<"$line")")
    glibc_flt+=("$(field minor_faults <<<"$line")")
    glibc_anon+=("$(field anon_at_peak_kib <<<"$line")")
    glibc_sum=$(field checksum <<<"$line")
    rss=$(field peak_rss_kib <<<"$line"); ((rss > glibc_rss)) && glibc_rss=$rss
    line=$(LD_PRELOAD=$shim TLSF_MALLOC_REPORT=$report "$bench" $args)
    tlsf_s+=("$(field seconds <<<"$line")")
    tlsf_flt+=("$(field minor_faults <<<"$line")")
    tlsf_anon+=("$(field anon_at_peak_kib <<<"$line")")
    tlsf_sum=$(field checksum <<<"$line")
    rss=$(field peak_rss_kib <<<"$line"); ((rss > tlsf_rss)) && tlsf_rss=$rss
  done
  [[ $glibc_sum == "$tlsf_sum" ]] || { echo "threads_bench: $name: checksums differ" >&2; exit 1; }
  g=$(printf '%s\n' "${glibc_s[@]}" | median)
  t=$(printf '%s\n' "${tlsf_s[@]}" | median)
  gf=$(printf '%s\n' "${glibc_flt[@]}" | median)
  tf=$(printf '%s\n' "${tlsf_flt[@]}" | median)
  ga=$(printf '%s\n' "${glibc_anon[@]}" | median)
  ta=$(printf '%s\n' "${tlsf_anon[@]}" | median)
  gi="" ti="" ri=""
  if [[ ${THREADS_BENCH_INSTRUCTIONS:-1} != 0 && $small != - ]] && command -v valgrind >/dev/null; then
    gi=$(instructions "" "$bench" $small)
    ti=$(instructions "$shim" "$bench" $small)
    ri=$(ratio "$gi" "$ti")
  fi
  printf '%-44s %9.3f %9.3f %6s %10d %10d %6s %13s %13s %6s %9.0f %9.0f %6s %9.0f %9.0f %6s\n' \
    "$name" "$g" "$t" "$(ratio "$g" "$t")" "$glibc_rss" "$tlsf_rss" "$(ratio "$glibc_rss" "$tlsf_rss")" \
    "$gi" "$ti" "$ri" "$gf" "$tf" "$(ratio "$gf" "$tf")" "$ga" "$ta" "$(ratio "$ga" "$ta")"
  echo "\"$name\",$g,$t,$(ratio "$g" "$t"),$glibc_rss,$tlsf_rss,$(ratio "$glibc_rss" "$tlsf_rss"),$gi,$ti,$ri,$gf,$tf,$(ratio "$gf" "$tf"),$ga,$ta,$(ratio "$ga" "$ta")" >>"$csv"
done
bad=$(grep -vc ' check=0$' "$report" || true)
if ((bad != 0)); then
  echo "threads_bench: $bad TLSF process(es) ended with a failed heap check:" >&2
  grep -v ' check=0$' "$report" >&2
  exit 1
fi
echo "($(wc -l <"$report") TLSF processes, every heap check clean; wall clock on $(nproc) cores: re-measure on a quiet machine)"
