#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Instructions per malloc and per free, from callgrind output files.

    callgrind_report.py OUT_CSV NAME=FILE [NAME=FILE ...]

Each FILE is the callgrind.out of one run of tlsf_callgrind_workload for allocator NAME
(libc, tlsf, tlsf-lean, jemalloc, mimalloc, tcmalloc, and page-study: the design study of
bench/study/page_heap.h). The raw file is read directly, not
through callgrind_annotate, because two things are needed per function that the
annotated listing does not give together: the inclusive instruction count (the entry
point plus everything it calls) and the exact number of calls it received. Dividing one
by the other gives instructions per call whatever else the process did.

A function is identified by its name and the object it lives in, since glibc's malloc
and a peer's malloc may both appear in one process.
"""
import csv
import re
import sys
from collections import defaultdict

# For each allocator: (object pattern, malloc names, free names). callgrind reports an
# aliased symbol under one of its names (mimalloc's mi_malloc shows up as "malloc"), and
# cannot place tcmalloc's code in its object at all ("???"), hence the alternatives.
ENTRY_POINTS = {
    "libc": (r"/libc\.so", {"malloc"}, {"free"}),
    "tlsf": (r"tlsf_callgrind_workload$", {r"re:^tlsf_malloc_"}, {r"re:^tlsf_free_"}),
    "page-study": (r"tlsf_callgrind_workload$", {"page_heap_malloc"}, {"page_heap_free"}),
    "jemalloc": (r"libjemalloc", {"malloc", "je_malloc"}, {"free", "je_free"}),
    "mimalloc": (r"libmimalloc", {"mi_malloc", "malloc"}, {"mi_free", "free"}),
    "tcmalloc": (r"libtcmalloc|^\?\?\?$", {"tc_malloc", "malloc"}, {"tc_free", "free"}),
}


def parse(path):
    """Returns (inclusive Ir, calls received) per (object, function)."""
    names = {"ob": {}, "fn": {}, "fl": {}}
    kinds = {"ob": "ob", "cob": "ob", "fn": "fn", "cfn": "fn",
             "fl": "fl", "fi": "fl", "fe": "fl", "cfi": "fl", "cfl": "fl"}
    positions = 1
    ob = fn = cob = cfn = None
    pending_call = None  # (callee key, count) waiting for its cost line
    inclusive = defaultdict(int)
    calls = defaultdict(int)

    def resolve(kind, value):
        m = re.match(r"\((\d+)\)(?:\s+(.*))?$", value)
        if not m:
            return value
        table = names[kinds[kind]]
        if m.group(2) is not None:
            table[m.group(1)] = m.group(2)
        return table.get(m.group(1), "?")

    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            if line.startswith("positions:"):
                positions = len(line.split()[1:])
                continue
            m = re.match(r"(c?ob|c?fn|fl|fi|fe|cfi|cfl)=(.*)$", line)
            if m:
                kind, value = m.group(1), resolve(m.group(1), m.group(2))
                if kind == "ob":
                    ob = value
                elif kind == "fn":
                    fn = value
                elif kind == "cob":
                    cob = value
                elif kind == "cfn":
                    cfn = value
                continue
            if line.startswith("calls="):
                count = int(line[6:].split()[0])
                pending_call = ((cob if cob is not None else ob, cfn), count)
                continue
            if not (line[0].isdigit() or line[0] in "+-*"):
                continue  # header lines (events:, summary:, ...)
            fields = line.split()
            cost = int(fields[positions]) if len(fields) > positions else 0
            inclusive[(ob, fn)] += cost  # self cost, or the inclusive cost of a call
            if pending_call is not None:
                callee, count = pending_call
                calls[callee] += count
                pending_call = None
                cob = None  # the callee's object defaults to the caller's next time
    return inclusive, calls


def matches(name, wanted):
    return any(re.search(w[3:], name) if w.startswith("re:") else name == w for w in wanted)


def per_call(inclusive, calls, object_pattern, wanted):
    """Ir per call of the most-called function that matches; (Ir/call, calls)."""
    best = None
    for (ob, fn), count in calls.items():
        if fn and ob and re.search(object_pattern, ob) and matches(fn, wanted):
            if best is None or count > best[1]:
                best = ((ob, fn), count)
    if best is None:
        return None, 0
    return inclusive[best[0]] / best[1], best[1]


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    rows = []
    for arg in sys.argv[2:]:
        name, path = arg.split("=", 1)
        inclusive, calls = parse(path)
        base = name if name in ENTRY_POINTS else name.split("-")[0]  # tlsf-lean: tlsf's
        pattern, mallocs, frees = ENTRY_POINTS[base]
        m_ir, m_calls = per_call(inclusive, calls, pattern, mallocs)
        f_ir, f_calls = per_call(inclusive, calls, pattern, frees)
        if m_ir is None or f_ir is None:
            print(f"{name}: entry points not found in {path}", file=sys.stderr)
            continue
        rows.append((name, m_ir, f_ir, m_calls, f_calls))

    print(f"{'allocator':<12} {'Ir/malloc':>10} {'Ir/free':>9} {'Ir/pair':>9} {'calls':>9}")
    with open(sys.argv[1], "w", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(["allocator", "ir_per_malloc", "ir_per_free", "ir_per_pair", "mallocs", "frees"])
        for name, m_ir, f_ir, m_calls, f_calls in rows:
            print(f"{name:<12} {m_ir:10.1f} {f_ir:9.1f} {m_ir + f_ir:9.1f} {m_calls:9d}")
            writer.writerow([name, f"{m_ir:.1f}", f"{f_ir:.1f}", f"{m_ir + f_ir:.1f}", m_calls, f_calls])


if __name__ == "__main__":
    main()
