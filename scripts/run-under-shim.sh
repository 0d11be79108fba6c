#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# run-under-shim.sh - run a command twice, without and with libtlsf_malloc.so preloaded,
# and check that the TLSF malloc served it and changed nothing:
#   - both runs end with the same exit status, and print the same stdout (or the same
#     lines matching --filter);
#   - every process of the run under the shim that exited normally reported a clean heap
#     check (TLSF_MALLOC_REPORT: one line per process, written by the library at exit),
#     and at least one did, so the library really was loaded;
#   - nothing in the shim run's stderr comes from the library (it only writes there when
#     it aborts on misuse).
# LD_PRELOAD is inherited, so children (git's helpers, compilers run by make, ...) run
# under the shim too.
#
#   scripts/run-under-shim.sh [options] [--] command [args...]
#     --shim PATH        libtlsf_malloc.so (default: $TLSF_MALLOC_SHIM, else the newest
#                        build*/**/libtlsf_malloc.so of this checkout)
#     --filter REGEX     compare only the stdout lines matching REGEX (grep -E), e.g.
#                        '^\[  (PASSED|FAILED)  \] [0-9]+ tests?[.,]' (the summary
#                        of a GoogleTest binary, whose other lines have timings)
#     --no-baseline      only run under the shim; it must exit with status 0
#     --keep DIR         keep both outputs and the report in DIR
#
# Prints one summary line; exit status 0 when every check holds, 1 otherwise (with the
# differences), 2 on a usage error.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
shim=${TLSF_MALLOC_SHIM:-}
filter=
baseline=1
keep=

usage() {
  sed -n '2,/^set -uo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2
  exit 2
}

while (($#)); do
  case "$1" in
    --shim) shim=${2:?}; shift 2 ;;
    --filter) filter=${2:?}; shift 2 ;;
    --no-baseline) baseline=0; shift ;;
    --keep) keep=${2:?}; shift 2 ;;
    -h|--help) usage ;;
    --) shift; break ;;
    -*) echo "run-under-shim: unknown option $1" >&2; usage ;;
    *) break ;;
  esac
done
(($#)) || usage

if [[ -z "$shim" ]]; then
  shim=$(find "$root" -path "$root/.git" -prune -o -name libtlsf_malloc.so -type f -printf '%T@ %p\n' 2>/dev/null |
         sort -rn | head -1 | cut -d' ' -f2-)
fi
if [[ -z "$shim" || ! -f "$shim" ]]; then
  echo "run-under-shim: libtlsf_malloc.so not found (build the tlsf_malloc target, or pass --shim)" >&2
  exit 2
fi
shim=$(cd "$(dirname "$shim")" && pwd)/$(basename "$shim")

if [[ -n "$keep" ]]; then
  mkdir -p "$keep" && work=$(cd "$keep" && pwd)
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
report=$work/report
rm -f "$report"

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

base_status=0 base_time=-
if ((baseline)); then
  t0=$(now)
  env -u LD_PRELOAD "$@" >"$work/base.out" 2>"$work/base.err"
  base_status=$?
  base_time=$(elapsed "$t0" "$(now)")
fi

t0=$(now)
LD_PRELOAD="$shim${LD_PRELOAD:+:$LD_PRELOAD}" TLSF_MALLOC_REPORT="$report" "$@" \
  >"$work/shim.out" 2>"$work/shim.err"
shim_status=$?
shim_time=$(elapsed "$t0" "$(now)")

problems=()
if ((baseline)); then
  ((shim_status == base_status)) || problems+=("exit status $shim_status under the shim, $base_status without")
else
  ((shim_status == 0)) || problems+=("exit status $shim_status under the shim")
fi

select_lines() {
  if [[ -n "$filter" ]]; then grep -E -- "$filter" "$1" || true; else cat "$1"; fi
}
lines=$(select_lines "$work/shim.out" | wc -l)
if ((baseline)); then
  if ! diff <(select_lines "$work/base.out") <(select_lines "$work/shim.out") >"$work/diff"; then
    problems+=("stdout differs (< without the shim, > with it):")
    problems+=("$(head -40 "$work/diff")")
  fi
fi
if [[ -n "$filter" && $lines -eq 0 ]]; then
  problems+=("no stdout line matches --filter '$filter'")
fi

processes=0 bad_checks=0 peak=0
if [[ -s "$report" ]]; then
  processes=$(wc -l <"$report")
  bad_checks=$(grep -vc ' check=0$' "$report" || true)
  peak=$(sed -E 's/.* peak_mapped=([0-9]+).*/\1/' "$report" | sort -n | tail -1)
fi
((processes > 0)) || problems+=("no process reported from the shim: was libtlsf_malloc.so loaded? ($shim)")
((bad_checks == 0)) || problems+=("$bad_checks process(es) ended with a failed heap check:" "$(grep -v ' check=0$' "$report" | head -5)")
if grep -q '^tlsf_malloc: ' "$work/shim.err"; then
  problems+=("the shim reported misuse:" "$(grep '^tlsf_malloc: ' "$work/shim.err" | head -5)")
fi

summary="$(printf '%q ' "$@")"
summary=${summary% }
if ((${#problems[@]} == 0)); then
  printf 'run-under-shim: OK   %s\n' "$summary"
  printf '  status %d, %d stdout lines identical%s; %d process(es) under the shim, heap checks clean, peak pool memory %d MiB; %ss without, %ss with the shim\n' \
    "$shim_status" "$lines" "${filter:+ (filtered)}" "$processes" $((peak >> 20)) "$base_time" "$shim_time"
  exit 0
fi
printf 'run-under-shim: FAIL %s\n' "$summary"
printf '  %s\n' "${problems[@]}"
echo "  --- stderr under the shim (last 20 lines):"
tail -20 "$work/shim.err" | sed 's/^/  | /'
exit 1
