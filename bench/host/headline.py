#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The last screen of scripts/bench.sh: each target of the project's issues, the figure
this run measured for it, and whether it is met.

    headline.py RESULTS_DIR

Reads the CSV files the other steps wrote into RESULTS_DIR (summary.csv, callgrind.csv,
perft_modes.csv, whole_programs.csv, threads_bench.csv); a file or row that is missing
shows as "n/a". Ends with issue 28's rows: TLSF against glibc, mimalloc and the
standard's std::pmr::unsynchronized_pool_resource, side by side. Writes the same table to RESULTS_DIR/headline.txt. Time ratios are to
glibc from one run side by side (below 1: faster than glibc); instruction counts are
deterministic.
"""
import csv
import os
import sys


def rows(results, name):
    path = os.path.join(results, name)
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        return list(csv.DictReader(f))


def number(value):
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def issue_28(ratio, perft_ratio, pair, programs):
    """The rows of issue 28's targets: TLSF's time against glibc's, mimalloc's and
    std::pmr::unsynchronized_pool_resource's in this run. The verdict is the hosted
    default's (TLSF's default heap, what tlsf::allocator<T>() and the global new give; its
    own heap where there is no default heap): met when its time is at or below the peer's.
    The pool is a target on the container rows only; elsewhere its figure is shown, n/a
    where it did not run."""
    default_gb, own_gb = "tlsf::allocator(default)", "tlsf::allocator"

    def gb(workload, pool_target):
        return (ratio(workload, default_gb), ratio(workload, own_gb),
                ratio(workload, "mimalloc"), ratio(workload, "pmr(pool)"), pool_target)

    def program(case):
        return (perft_ratio(case, "tlsf-default"), perft_ratio(case, "tlsf"),
                perft_ratio(case, "mimalloc"), perft_ratio(case, "pmr-pool"), False)

    rows = [
        ("perft(4), bounded table (Google Benchmark)", gb("chess_perft", False)),
        ("perft(5), bounded table (program)", program("bounded")),
        ("perft(5), table of everything (program)", program("everything")),
        ("perft start position, depth 6", program("start-d6")),
        ("perft Kiwipete, depth 5", program("kiwipete-d5")),
        ("std::map", gb("stl_map", True)),
        ("std::unordered_map", gb("stl_unordered_map", True)),
        ("std::list", gb("stl_list", True)),
        # The C API suite has no default heap: its TLSF is a heap of its own.
        ("workload 2, random sizes", (None, ratio("random_live", "tlsf"),
                                      ratio("random_live", "mimalloc"), None, False)),
    ]

    def shown(value):
        return "n/a" if value is None else f"{value:.2f}"

    def verdict(tlsf, peer):
        if tlsf is None or peer is None:
            return "n/a"
        return ("met" if tlsf <= peer else "NOT met") + f" ({tlsf / peer:.2f}x)"

    width = max(len(r[0]) for r in rows)
    out = ["", "==== issue 28: TLSF against mimalloc and std::pmr::unsynchronized_pool_resource",
           "", f"{'time / glibc (below 1: faster)':<{width}}  {'TLSF':>5}  {'own heap':>8}  "
           f"{'mimalloc':>8}  {'pool':>5}  {'TLSF <= mimalloc':<17}  TLSF <= pool"]
    met = total = 0
    for what, (default, own, mimalloc, pool, pool_target) in rows:
        tlsf = default if default is not None else own
        against_mimalloc = verdict(tlsf, mimalloc)
        against_pool = verdict(tlsf, pool) if pool_target else "-"
        for v in (against_mimalloc, against_pool):
            if v.startswith(("met", "NOT")):
                total += 1
                met += v.startswith("met")
        out.append(f"{what:<{width}}  {shown(default):>5}  {shown(own):>8}  {shown(mimalloc):>8}  "
                   f"{shown(pool):>5}  {against_mimalloc:<17}  {against_pool}")
    tlsf_ir, mimalloc_ir = pair("tlsf"), pair("mimalloc")
    if tlsf_ir is not None and mimalloc_ir is not None:
        total += 1
        met += tlsf_ir <= mimalloc_ir
    worst_program = max((number(r.get("ratio")) for r in programs
                         if r.get("heap") == "tlsf" and number(r.get("ratio")) is not None),
                        default=None)
    if worst_program is not None:
        total += 1
        met += worst_program <= 1.0
    ir = ("n/a" if tlsf_ir is None or mimalloc_ir is None else
          f"{tlsf_ir:.1f} against mimalloc's {mimalloc_ir:.1f}: "
          + ("met" if tlsf_ir <= mimalloc_ir else "NOT met"))
    out += [f"{'workload 2, instructions per pair':<{width}}  {ir}",
            f"{'whole programs, drop-in malloc (worst)':<{width}}  "
            + ("n/a" if worst_program is None else
               f"{worst_program:.2f}: " + ("met" if worst_program <= 1.0 else "NOT met")),
            "",
            f"{met} of {total} met. TLSF: the default heap (hosted default: what tlsf::allocator<T>()"
            " and global new",
            "use), which the verdicts judge; own heap: tlsf::allocator on a heap of its own. (x): "
            "TLSF's time / the peer's.",
            "pool: unsynchronized_pool_resource on new_delete_resource, a target on the container "
            "rows only (-)."]
    return out


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    results = sys.argv[1]
    summary = rows(results, "summary.csv")
    callgrind = rows(results, "callgrind.csv")
    perft = rows(results, "perft_modes.csv")
    programs = rows(results, "whole_programs.csv")
    threads = rows(results, "threads_bench.csv")

    def ratio(workload, allocator):
        for r in summary:
            if r.get("workload") == workload and r.get("allocator") == allocator:
                return number(r.get("ratio_to_libc"))
        return None

    def pair(allocator):
        for r in callgrind:
            if r.get("allocator") == allocator:
                return number(r.get("ir_per_pair"))
        return None

    def perft_ratio(case, allocator):
        # perft_modes.csv's ratio is glibc's time over the allocator's: its inverse is the
        # time ratio of every other row here.
        for r in perft:
            if r.get("case") == case and r.get("allocator") == allocator:
                speed = number(r.get("ratio_to_glibc"))
                return 1.0 / speed if speed else None
        return None

    def worst(values):
        values = [v for v in values if v is not None]
        return max(values) if values else None

    def thread_field(workload_prefix, field):
        for r in threads:
            if r.get("workload", "").startswith(workload_prefix):
                return number(r.get(field))
        return None

    # (what, figure, limit, unit): met when figure <= limit.
    targets = [
        ("perft(4), tlsf::allocator / glibc (Google Benchmark)",
         ratio("chess_perft", "tlsf::allocator"), 0.9, "x"),
        ("perft(5), tlsf::allocator / glibc time (perft program, bounded table)",
         perft_ratio("bounded", "tlsf"), 0.9, "x"),
        ("perft(5), locked default heap / glibc time (bounded table)",
         perft_ratio("bounded", "tlsf-default"), 1.0, "x"),
        ("perft(5), tlsf::allocator / glibc time (table of everything)",
         perft_ratio("everything", "tlsf"), 1.0, "x"),
        ("perft start d6 and Kiwipete d5, tlsf::allocator / glibc time (worst)",
         worst([perft_ratio("start-d6", "tlsf"), perft_ratio("kiwipete-d5", "tlsf")]), 0.9, "x"),
        ("perft start d6 and Kiwipete d5, locked default heap / glibc time (worst)",
         worst([perft_ratio("start-d6", "tlsf-default"), perft_ratio("kiwipete-d5", "tlsf-default")]),
         1.0, "x"),
        ("workload 2 (random sizes), TLSF / libc", ratio("random_live", "tlsf"), 1.0, "x"),
        ("workload 2, instructions per malloc+free (default configuration)", pair("tlsf"),
         100, "Ir"),
        ("workload 2, instructions per malloc+free (lean configuration)", pair("tlsf-lean"),
         100, "Ir"),
        ("std::map / std::list rows, TLSF / std::allocator (worst)",
         worst([ratio("stl_map", "tlsf::allocator"), ratio("stl_list", "tlsf::allocator")]),
         0.8, "x"),
        ("std::map / std::list rows, TLSF with slabs / std::allocator (worst)",
         worst([ratio("stl_map", "tlsf::allocator(slabs)"),
                ratio("stl_list", "tlsf::allocator(slabs)")]), 0.8, "x"),
        ("std::map / std::list rows, default heap (slabs) / std::allocator (worst)",
         worst([ratio("stl_map", "tlsf::allocator(default)"),
                ratio("stl_list", "tlsf::allocator(default)")]), 0.8, "x"),
        ("whole programs on the drop-in malloc / glibc (worst)",
         worst([number(r.get("ratio")) for r in programs if r.get("heap") == "tlsf"]), 1.0, "x"),
        ("threads, larson-like: drop-in malloc / glibc time", thread_field("larson", "time_ratio"),
         1.2, "x"),
        ("threads, alloc-test-like: drop-in malloc / glibc time",
         thread_field("alloc-test", "time_ratio"), 1.2, "x"),
        # Memory at the fullest moment, anonymous pages from smaps_rollup: exact, where
        # ru_maxrss (rss_ratio) lags by a few hundred KiB from run to run.
        ("threads, memory at the fullest moment / glibc (worst of the two)",
         worst([thread_field("larson", "anon_ratio"), thread_field("alloc-test", "anon_ratio")]),
         1.0, "x"),
        ("threads, blocks of 5-25 MiB: page faults / glibc", thread_field("large", "fault_ratio"),
         1.0, "x"),
    ]
    lines = ["", "==== headline: the targets, this run's figure, met or not", ""]
    width = max(len(t[0]) for t in targets)
    met = 0
    for what, figure, limit, unit in targets:
        if figure is None:
            verdict, shown = "n/a", "n/a"
        else:
            ok = figure <= limit
            met += ok
            verdict = "met" if ok else "NOT met"
            shown = f"{figure:.2f}" if unit == "x" else f"{figure:.1f}"
        bound = f"<= {limit:g}" + ("" if unit == "x" else " Ir")
        lines.append(f"{what:<{width}}  {shown:>7}  {bound:>9}  {verdict}")
    lines.append("")
    lines.append(f"{met} of {len(targets)} targets met in this run. Ratios are to glibc from one "
                 "run on this machine; the")
    lines.append("rows of small, fast calls (fixed pairs, workload 2, std::vector) move most "
                 "between CPUs and runs.")
    lines += issue_28(ratio, perft_ratio, pair, programs)
    text = "\n".join(lines)
    print(text)
    with open(os.path.join(results, "headline.txt"), "w", encoding="utf-8") as f:
        f.write(text + "\n")


if __name__ == "__main__":
    main()
