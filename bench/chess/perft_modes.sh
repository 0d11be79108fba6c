#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# perft_modes.sh - the host perft program side by side on glibc, TLSF (its own heap, the
# default heap, through std::pmr), the standard's own resources (std::pmr's
# unsynchronized_pool_resource and monotonic_buffer_resource, see perft_main.cpp) and the
# peers that are installed (jemalloc, mimalloc, tcmalloc, each preloaded under --alloc
# libc), in these cases:
#   bounded, everything  the start position to depth 5 in both transposition-table modes
#   start-d6             the start position to depth 6 (bounded table)
#   kiwipete-d5          Kiwipete to depth 5 (bounded table)
# The last two are the positions the front cache's targets name; a run takes 2-4 s, so
# only glibc, TLSF's own and default heaps and mimalloc (the fastest peer) run them, five
# times each. (The monotonic arena would hold 2.9 GB at depth 6: it never frees before the
# search ends.)
#
#   bench/chess/perft_modes.sh PERFT OUT_DIR [--quick]
#     PERFT    the perft program (build/.../bench/chess/perft or .../chess/perft)
#     OUT_DIR  gets perft_modes.txt (the table) and perft_modes.csv
#     --quick  the two modes at depth 4, one run each (a smoke test); default: depth 5,
#              nine runs each (a run takes 0.1-0.2 s, and single runs swing by 30% on a
#              shared VM), then the two deep cases
#
# The modes: bounded (the table caches subtrees of depth >= 2 and is cleared at 4,096
# entries: memory stays small) and everything (every interior node, depth 1 included,
# never cleared: the table grows through the search, as a search engine's does). Runs
# are interleaved (repetition, case, allocator), so that a noisy moment hurts every
# allocator alike; the median of each is reported, with glibc's time / its time (above
# 1: faster than glibc). A run's time is one perft call: the search and the engine's
# teardown (the table freed), as on the Cortex-M4 (bench/cortex-m4/firmware-app). Every
# run must count the reference nodes (--expect).
set -euo pipefail
perft=${1:?usage: perft_modes.sh PERFT OUT_DIR [--quick]}
out=${2:?usage: perft_modes.sh PERFT OUT_DIR [--quick]}
depth=5 reps=9 expect=4865609 quick=0
if [[ ${3:-} == --quick ]]; then depth=4 reps=1 expect=197281 quick=1; fi
mkdir -p "$out"

# name|--alloc|library to preload (empty: none)
contestants=("glibc|libc|" "tlsf|tlsf|" "tlsf-default|tlsf-default|" "pmr-tlsf|pmr-tlsf|"
  "pmr-pool|pmr-pool|" "pmr-monotonic|pmr-monotonic|")
for peer in jemalloc:libjemalloc.so.2 mimalloc:libmimalloc.so.2 tcmalloc:libtcmalloc_minimal.so.4; do
  # awk reads to the end: an early exit would end the pipe while ldconfig still writes
  # (its list is near a pipe's 64 KiB), and pipefail would fail the run on its SIGPIPE.
  lib=$(ldconfig -p 2>/dev/null | awk -v so="${peer#*:}" '$1 == so && lib == "" { lib = $NF } END { print lib }')
  if [[ -n $lib ]]; then
    contestants+=("${peer%%:*}|libc|$lib")
  else
    echo "note: ${peer#*:} not installed, ${peer%%:*} skipped"
  fi
done

# case|depth|FEN (empty: the start position)|table mode|nodes|runs|who (all, or the
# contestants' names, separated by spaces)
kiwipete='r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1'
cases=("bounded|$depth||bounded|$expect|$reps|all" "everything|$depth||everything|$expect|$reps|all")
if ((!quick)); then
  deep="glibc tlsf tlsf-default mimalloc"
  cases+=("start-d6|6||bounded|119060324|5|$deep" "kiwipete-d5|5|$kiwipete|bounded|193690690|5|$deep")
fi

times=$(mktemp)
trap 'rm -f "$times"' EXIT
for ((rep = 0; rep < reps; ++rep)); do
  for entry in "${cases[@]}"; do
    IFS='|' read -r case case_depth fen mode nodes runs who <<<"$entry"
    ((rep < runs)) || continue
    for c in "${contestants[@]}"; do
      IFS='|' read -r name alloc preload <<<"$c"
      [[ $who == all || " $who " == *" $name "* ]] || continue
      # The whole output, then its first line: `| head -1` could end the pipe before
      # perft's last write, and pipefail would then fail the run on its SIGPIPE.
      line=$(env ${preload:+LD_PRELOAD=$preload} "$perft" --depth "$case_depth" ${fen:+--fen "$fen"} \
        --alloc "$alloc" --tt-mode "$mode" --expect "$nodes")
      line=${line%%$'\n'*}
      seconds=$(sed -E 's/.* nodes, ([0-9.]+) s,.*, teardown ([0-9.]+) s$/\1 \2/' <<<"$line" | awk '{ printf "%.4f", $1 + $2 }')
      echo "$case $name $seconds $nodes" >>"$times"
    done
  done
done

# Medians, and each allocator's ratio to glibc in the same case.
{
  echo "perft: the start position to depth $depth in both table modes, median of $reps run(s)${cases[2]:+; to depth 6, and Kiwipete to depth 5 (bounded table), median of 5}"
  echo "ratio = glibc's time / the allocator's (above 1: faster)"
  printf '%-11s %-14s %10s %14s %8s\n' case allocator seconds nodes/s ratio
  awk '
    { key = $1 " " $2; t[key] = t[key] " " $3; nodes[key] = $4
      if (!(key in order)) order[key] = ++n
      if (!($1 in seen)) { seen[$1] = 1; cases[++m] = $1 } }
    function median(list,   a, k, i, j, x) {
      k = split(list, a, " ")
      for (i = 2; i <= k; ++i) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; --j) a[j + 1] = a[j]; a[j + 1] = x }
      return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
    }
    END {
      for (i = 1; i <= m; ++i) {
        base = median(t[cases[i] " glibc"])
        for (key in t) {
          split(key, part, " ")
          if (part[1] != cases[i]) continue
          s = median(t[key])
          rows[order[key]] = sprintf("%-11s %-14s %10.3f %14.4g %8.3f", part[1], part[2], s, nodes[key] / s, base / s)
          csv[order[key]] = sprintf("%s,%s,%.4f,%.6g,%.4f", part[1], part[2], s, nodes[key] / s, base / s)
        }
      }
      for (i = 1; i <= n; ++i) if (i in rows) { print rows[i]; print csv[i] > "/dev/stderr" }
    }' "$times" 2> >( (echo "case,allocator,seconds,nodes_per_second,ratio_to_glibc"; cat) >"$out/perft_modes.csv")
} | tee "$out/perft_modes.txt"
