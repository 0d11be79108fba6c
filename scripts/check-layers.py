#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check-layers.py - the core's files call each other downwards only.

    scripts/check-layers.py [--nm NM] LIBTLSF.a

Reads the symbols of each object of the core library (nm), draws the call graph between
its files (file A -> file B when A uses a symbol that B defines) and checks:
  1. each file calls only files below it, in the order of core/src/tlsf_internal.h
     (so there is no cycle);
  2. no file calls the public API (tlsf_*) defined in another file: between files, only
     internal functions (tlsfi_*) are called;
  3. every symbol a file defines is public (tlsf_*) or internal (tlsfi_*).
Prints the graph, one line per file with the files it calls. Exits 1 on a violation.
"""
import argparse
import collections
import re
import subprocess
import sys

# The layers, bottom first (core/src/tlsf_internal.h).
ORDER = ["tlsf_report", "tlsf_core", "tlsf_slab", "tlsf_cache", "tlsf_alloc",
         "tlsf_configure", "tlsf_pool", "tlsf_inspect"]


def read_symbols(nm, library):
    out = subprocess.run([nm, "-A", library], check=True, capture_output=True, text=True).stdout
    defined, used = collections.defaultdict(set), collections.defaultdict(set)
    for line in out.splitlines():
        # "lib.a:tlsf_alloc.c.o: 0000000000000000 T tlsf_malloc_a4_..." or "...:         U name"
        m = re.match(r"^[^:]+:([^:]+):\s*(?:[0-9a-fA-F]+\s+)?([A-Za-z])\s+(\S+)$", line)
        if not m:
            continue
        unit = re.sub(r"\.c(\.o|\.obj)?$|\.o$", "", m.group(1))
        kind, name = m.group(2), m.group(3)
        if kind == "U":
            used[unit].add(name)
        elif kind.isupper() and not name.startswith("__"):  # __*: the compiler's own helpers
            defined[unit].add(name)
    return defined, used


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nm", default="nm")
    parser.add_argument("library")
    args = parser.parse_args()
    defined, used = read_symbols(args.nm, args.library)
    owner = {name: unit for unit, names in defined.items() for name in names}
    errors = []
    for unit in defined:
        if unit not in ORDER:
            errors.append(f"{unit}: not in the layer order of this script (tlsf_internal.h)")
        for name in defined[unit]:
            if not name.startswith(("tlsf_", "tlsfi_")):
                errors.append(f"{unit}: defines {name}, neither tlsf_ (API) nor tlsfi_ (internal)")
    for unit in ORDER:
        calls = collections.defaultdict(set)
        for name in used.get(unit, ()):
            target = owner.get(name)
            if target is None or target == unit:
                continue
            calls[target].add(re.sub(r"_a\d+_s\d+_m\d+_t\d+_c\d+_k\w+$", "", name))
            if target not in ORDER or ORDER.index(target) >= ORDER.index(unit):
                errors.append(f"{unit} calls {name} in {target}, which is not below it")
            if name.startswith("tlsf_"):
                errors.append(f"{unit} calls the public {name} (in {target}): call an internal function")
        line = ", ".join(f"{t} ({', '.join(sorted(calls[t]))})" for t in ORDER if t in calls)
        print(f"{unit:14} -> {line or '-'}")
    for e in errors:
        print("check-layers: " + e, file=sys.stderr)
    print(f"check-layers: {len(ORDER)} files, {len(errors)} violations")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
