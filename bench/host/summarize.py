#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Summarise a Google Benchmark JSON file of tlsf_bench as ratios to libc.

    summarize.py BENCH_JSON OUT_DIR

Benchmarks are named <workload>/<allocator>. For each workload the baseline is the
allocator named "libc" (C API suites) or "std::allocator" (STL and chess suites: operator
new over glibc malloc). Every figure is the median over the repetitions of the CPU time
(on a shared machine, wall time also counts the time other processes had the core), and
the ratio is median time / baseline median time: below 1 is faster than libc. cv is the
coefficient of variation over the repetitions, a measure of how noisy the machine was.

Prints a table and writes into OUT_DIR:
    summary.csv            workload, allocator, median time, unit, ratio, cv, rate
    ratios_<group>.csv     one row per workload, one column per allocator (for plotting);
                           groups: c_api, stl, chess
"""
import csv
import json
import os
import sys

BASELINES = ("libc", "std::allocator")
GROUPS = (("c_api", ("fixed_pair", "random_live")), ("stl", ("stl_",)), ("chess", ("chess_",)))


def load(path):
    """[(workload, allocator, entry, cv or None)] in the order the suite registered them."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    runs = data.get("benchmarks", [])
    medians = {r["run_name"]: r for r in runs
               if r.get("run_type") == "aggregate" and r.get("aggregate_name") == "median"}
    cvs = {r["run_name"]: r for r in runs
           if r.get("run_type") == "aggregate" and r.get("aggregate_name") == "cv"}
    if not medians:  # a run without repetitions: the single iteration entries
        medians = {r.get("run_name", r["name"]): r for r in runs if r.get("run_type") != "aggregate"}
    order = []
    for r in runs:
        name = r.get("run_name", r["name"])
        if name in medians and name not in order:
            order.append(name)
    # Registration order groups each workload's allocators; interleaving shuffles the
    # file, so restore it from the family index the library records.
    order.sort(key=lambda n: (medians[n].get("family_index", 0),
                              medians[n].get("per_family_instance_index", 0)))
    rows = []
    for name in order:
        workload, _, allocator = name.rpartition("/")
        cv = cvs.get(name, {}).get("cpu_time")
        rows.append((workload, allocator, medians[name], cv))
    return rows, data.get("context", {})


def rate_text(entry):
    if "nodes_per_s" in entry:
        return f"{entry['nodes_per_s'] / 1e6:.1f} Mnodes/s", entry["nodes_per_s"]
    if "items_per_second" in entry:
        return f"{1e9 / entry['items_per_second']:.2f} ns/op", entry["items_per_second"]
    return "", ""


def group_of(workload):
    for group, prefixes in GROUPS:
        if workload.startswith(prefixes):
            return group
    return "other"


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    rows, context = load(sys.argv[1])
    out_dir = sys.argv[2]

    baseline = {}
    for workload, allocator, entry, _ in rows:
        if allocator in BASELINES and not entry.get("error_occurred"):
            baseline.setdefault(workload, entry["cpu_time"])

    print(f"{context.get('num_cpus', '?')} CPUs at {context.get('mhz_per_cpu', '?')} MHz, "
          f"{context.get('date', '')}; median CPU time of the repetitions; "
          f"ratio = time / libc time (below 1: faster than libc)")
    print(f"{'workload':<20} {'allocator':<26} {'time':>12} {'ratio':>7} {'cv':>6}  rate")
    matrices = {}
    with open(os.path.join(out_dir, "summary.csv"), "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["workload", "allocator", "median_time", "unit", "ratio_to_libc",
                         "cv_percent", "rate_per_second"])
        previous = None
        for workload, allocator, entry, cv in rows:
            shown = workload if workload != previous else ""
            previous = workload
            if entry.get("error_occurred"):
                print(f"{shown:<20} {allocator:<26} error: {entry.get('error_message', '')}")
                writer.writerow([workload, allocator, "", "", "", "", ""])
                continue
            time, unit = entry["cpu_time"], entry["time_unit"]
            ratio = time / baseline[workload] if workload in baseline else float("nan")
            cv_text = f"{100 * cv:5.1f}%" if cv is not None else "     -"
            text, rate = rate_text(entry)
            print(f"{shown:<20} {allocator:<26} {time:9.3g} {unit:<2} {ratio:7.2f} {cv_text}  {text}")
            writer.writerow([workload, allocator, f"{time:.6g}", unit, f"{ratio:.4f}",
                             f"{100 * cv:.2f}" if cv is not None else "", rate])
            matrix = matrices.setdefault(group_of(workload), {"allocators": [], "rows": {}})
            if allocator not in matrix["allocators"]:
                matrix["allocators"].append(allocator)
            matrix["rows"].setdefault(workload, {})[allocator] = ratio

    for group, matrix in matrices.items():
        with open(os.path.join(out_dir, f"ratios_{group}.csv"), "w", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(["workload"] + matrix["allocators"])
            for workload, ratios in matrix["rows"].items():
                writer.writerow([workload] + [f"{ratios[a]:.4f}" if a in ratios else ""
                                              for a in matrix["allocators"]])


if __name__ == "__main__":
    main()
