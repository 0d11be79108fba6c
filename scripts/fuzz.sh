#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# fuzz.sh - build the libFuzzer target fuzz_heap (test/fuzz) with clang and run it for a
# bounded time: the command CI runs. FUZZ_TARGET=fuzz_adversary fuzzes the adversary instead
# (writes into the heap's own metadata between operations, each reported or harmless).
#
#   scripts/fuzz.sh [build-dir]      (default: build/fuzz)
#
# Environment:
#   FUZZ_SECONDS=120        how long to fuzz (libFuzzer -max_total_time)
#   FUZZ_TARGET=fuzz_heap   or fuzz_adversary
#   FUZZ_JOBS=1             parallel fuzzing processes (libFuzzer -fork), e.g. $(nproc)
#   FUZZ_BUILD_TYPE=RelWithDebInfo   Debug fuzzes the checked configuration (TLSF_CHECKS=2)
#   FUZZ_CMAKE_ARGS=...     more cmake arguments, e.g. "-DTLSF_SL_INDEX_LOG2=3"
#   FUZZ_ARGS=...           more libFuzzer arguments, e.g. "-max_len=8192"
#
# New inputs are kept in <build-dir>/corpus-work (the committed test/fuzz/corpus is only
# read). On a failure libFuzzer writes the input to <build-dir>/artifacts/crash-*; replay
# it with <build-dir>/test/fuzz/fuzz_replay --verbose <file>. Exit status 0 when the run
# found nothing. Ends with a line "fuzz: N executions, cov X, ft Y, corpus Z, ...".
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir=${1:-$root/build/fuzz}
seconds=${FUZZ_SECONDS:-120}
jobs=${FUZZ_JOBS:-1}
build_type=${FUZZ_BUILD_TYPE:-RelWithDebInfo}
target=${FUZZ_TARGET:-fuzz_heap}

command -v clang >/dev/null || { echo "fuzz: clang not found (scripts/install-deps.sh)" >&2; exit 2; }
mkdir -p "$dir"
# shellcheck disable=SC2086
cmake -S "$root" -B "$dir" -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_BUILD_TYPE="$build_type" -DTLSF_BUILD_TESTS=ON -DTLSF_FUZZ=ON \
  -DTLSF_FUZZ_SECONDS="$seconds" ${FUZZ_CMAKE_ARGS:-} >"$dir/configure.log" 2>&1 ||
  { cat "$dir/configure.log"; exit 1; }
cmake --build "$dir" --target "$target" fuzz_replay -j "$(nproc)" >"$dir/build.log" 2>&1 ||
  { tail -50 "$dir/build.log"; exit 1; }
binary=$(find "$dir" -name "$target" -type f -perm -u+x | head -1)
replay=$(find "$dir" -name fuzz_replay -type f -perm -u+x | head -1)
[[ -n "$binary" ]] || { echo "fuzz: $target was not built" >&2; exit 1; }

work=$dir/corpus-work${FUZZ_TARGET:+-$target}
artifacts=$dir/artifacts
mkdir -p "$work" "$artifacts"
log=$dir/fuzz.log
echo "fuzz: $binary for ${seconds}s (jobs $jobs), corpus $work + $root/test/fuzz/corpus"
parallel=()
if ((jobs > 1)); then parallel=(-fork="$jobs" -ignore_crashes=0); fi
status=0
# shellcheck disable=SC2086
"$binary" -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$artifacts/" \
  "${parallel[@]}" ${FUZZ_ARGS:-} "$work" "$root/test/fuzz/corpus" >"$log" 2>&1 || status=$?

# The last status line (#N DONE/pulse cov: ft: corp: exec/s:) and the final statistics.
last=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
runs=$(grep -E '^stat::number_of_executed_units:' "$log" | awk '{ s += $2 } END { print s + 0 }')
cov=$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<<"$last")
ft=$(sed -nE 's/.* ft: ([0-9]+).*/\1/p' <<<"$last")
corp=$(sed -nE 's/.* corp: ([0-9]+\/[0-9a-zA-Z]+).*/\1/p' <<<"$last")
rate=$(sed -nE 's/.* exec\/s: ([0-9]+).*/\1/p' <<<"$last")
if ((status != 0)); then
  echo "fuzz: FAILED (status $status); the end of the log ($log):"
  tail -40 "$log"
  for crash in "$artifacts"/*; do
    [[ -e "$crash" ]] || continue
    echo "fuzz: failing input $crash (base64: $(base64 -w0 "$crash" | head -c 400))"
    replay_mode=""
    [[ "$target" == fuzz_adversary ]] && replay_mode="--adversary "
    [[ -n "$replay" ]] && echo "fuzz: replay with $replay ${replay_mode}--verbose $crash"
  done
fi
echo "fuzz: ${runs:-?} executions, cov ${cov:-?}, ft ${ft:-?}, corpus ${corp:-?}, ${rate:-?} exec/s, ${seconds}s"
exit "$status"
