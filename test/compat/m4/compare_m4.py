#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""compare_m4.py - the compatibility layer (compat/mattconte) beside the core on a Cortex-M4.

    compare_m4.py --objdump OBJDUMP --harness TLSF_M4_COUNTS --wcet DIR --csv OUT.csv
                  --core tlsf-O2-default.elf --layer tlsf-O2-mattconte.elf
                  --sizes size-baseline.elf size-O2-default-1.elf size-O2-mattconte-1.elf

Three comparisons of the two images, in one run:
  1. machine code: every function of the core in the layer's image (under its plain name,
     or its tag with the variant _vmc) is the default image's, instruction for instruction,
     names and addresses aside; the functions the layer adds are listed with their length;
  2. measured: the harness (bench/cortex-m4) runs both images over the same workloads; the
     maximum of each call through the layer is the core's plus what LAYER_COST states;
  3. static: wcet.py's analysis (bench/cortex-m4/wcet) bounds each entry point of both
     images; again the layer's bound is the core's plus LAYER_COST.
And the code size of init + malloc + free through each (the harness's probes). Exit 0 when
every comparison holds, 1 otherwise.
"""

import argparse
import csv
import fnmatch
import json
import os
import re
import subprocess
import sys

sys.dont_write_bytecode = True

# What the layer adds to a call, in instructions, on its longest path and on every path
# through the core (compat/mattconte/src/mattconte.c): malloc, memalign and realloc test the
# size for 0 and tail-call the core; create tests the alignment, add_pool rounds the start
# up and tests the range before their tail calls; free is the core's own. None is stated
# for init (create + add_pool) and the static bounds of create and add_pool, whose longest
# paths through the layer are its refusals (a message, then NULL) rather than the core's.
LAYER_COST = {
    "malloc": 2,
    "free": 0,
    "realloc": 2,
    "realloc-nocopy": 2,
    "memalign": 2,
}

TAG = re.compile(r"_a\d+_s\d+_m\d+_t\d+_c\d+_k[0-9a-z]*?(_vmc)?$")
FUNCTION = re.compile(r"^[0-9a-f]+ <([^>]+)>:$")
INSTRUCTION = re.compile(r"^\s*[0-9a-f]+:\t(.*)$")
TARGET = re.compile(r"\b[0-9a-f]+ <([^>+]+)(\+0x[0-9a-f]+)?>")


def base_name(symbol):
    return TAG.sub("", symbol)


def normalise(text):
    """An instruction without addresses or configuration tags: comparable across images."""
    text = text.split("\t@")[0].split(" @ ")[0].rstrip()  # objdump's comments
    if text.startswith(".word") or text.startswith(".short"):
        return text.split()[0]  # literal data: addresses differ between images
    return TARGET.sub(lambda m: "<%s%s>" % (base_name(m.group(1)), m.group(2) or ""), text)


def disassemble(objdump, elf):
    """{symbol: [normalised instruction]} for every function of the image."""
    out = subprocess.run([objdump, "-d", "--no-show-raw-insn", elf], check=True,
                         capture_output=True, text=True).stdout
    functions, current = {}, None
    for line in out.splitlines():
        match = FUNCTION.match(line)
        if match:
            current = functions.setdefault(match.group(1), [])
            continue
        match = INSTRUCTION.match(line)
        if match and current is not None:
            current.append(normalise(match.group(1)))
    return functions


def counterpart(symbol, layer):
    """The layer's symbol for the core image's `symbol`, or None."""
    if TAG.search(symbol):
        if symbol + "_vmc" in layer:
            return symbol + "_vmc"       # a core function the layer keeps tagged
        if base_name(symbol) in layer:
            return base_name(symbol)     # one of the eleven under its plain name
        return None
    return symbol if symbol in layer else None


def compare_code(objdump, core_elf, layer_elf):
    core, layer = disassemble(objdump, core_elf), disassemble(objdump, layer_elf)
    same, differ, matched = [], [], set()
    for symbol, code in sorted(core.items()):
        other = counterpart(symbol, layer)
        if other is None:
            continue
        matched.add(other)
        (same if layer[other] == code else differ).append((symbol, other))
    print("1. Machine code: %d functions of the core image found in the layer's, %d identical"
          % (len(same) + len(differ), len(same)))
    for symbol, other in differ:
        print("FAIL  %s differs from %s" % (other, symbol))
    plain = sorted(o for c, o in same if o != c and o == base_name(c))
    tagged = sorted(base_name(c) for c, o in same if o == c + "_vmc")
    print("  under mattconte's plain names: %s" % ", ".join(plain))
    print("  under their tags (with _vmc): %s" % ", ".join(tagged))
    added = sorted((s, len(code)) for s, code in layer.items() if s not in matched)
    print("  added by the layer (instructions): %s"
          % ", ".join("%s %d" % item for item in added if item[0].startswith("tlsf")))
    return not differ and len(same) > 0


# The harness's workload groups the layer runs: every one but "construct", whose
# c-malloc-zero expects the core's block for malloc(0) where mattconte's convention is NULL
# (the harness stops there). The constructions' worst paths are the static bounds' (3.).
GROUPS = ["random", "mixed", "sweep-fresh", "sweep-frag", "sweep-align", "sweep-realloc"]


def read_csv(path, calls, sizes):
    with open(path, newline="") as handle:
        for row in csv.DictReader(handle):
            if row["allocator"] != "tlsf":
                continue
            if row["record"] == "call" and row["scope"] == "all":
                key = (row["config"], row["function"])
                count, total, most = calls.get(key, (0, 0.0, 0))
                calls[key] = (count + int(row["calls"]),
                              total + float(row["mean"]) * int(row["calls"]),
                              max(most, int(row["max"])))
            elif row["record"] == "size" and row["function"] == "total":
                sizes[row["config"]] = int(row["max"])


def run_harness(harness, csv_path, images, sizes):
    """{(config, function): (calls, sum, max)} over GROUPS, and {config: init+malloc+free
    bytes}."""
    calls, probes = {}, {}
    for group in GROUPS:
        subprocess.run([harness, "--quiet", "--only", group, "--csv", csv_path] + images,
                       check=True, stdout=subprocess.DEVNULL)
        read_csv(csv_path, calls, probes)
    subprocess.run([harness, "--quiet", "--csv", csv_path] + sizes, check=True,
                   stdout=subprocess.DEVNULL)
    read_csv(csv_path, calls, probes)
    return calls, probes


def static_bounds(wcet_dir, core_elf, layer_elf):
    """{(config, function): (instructions, cycles)} by wcet.py's analysis."""
    sys.path.insert(0, wcet_dir)
    import analysis  # noqa: E402  (bench/cortex-m4/wcet)
    import thumb     # noqa: E402
    with open(os.path.join(wcet_dir, "config.json")) as handle:
        config = json.load(handle)
    # The layer's image: mattconte's entry points under their plain names; the core's
    # loops keep their bounds under the variant's tag.
    layer_config = json.loads(json.dumps(config))
    plain = {"malloc", "free", "realloc", "memalign", "create", "add_pool"}
    for root in layer_config["roots"]["core"]:
        if root["name"] in plain:
            root["symbol"] = "tlsf_" + root["name"]
    layer_config["bounded_loops"] += [dict(loop, symbol=loop["symbol"] + "_vmc")
                                      for loop in config["bounded_loops"]]
    bounds = {}
    for label, elf, cfg in (("default", core_elf, config), ("mattconte", layer_elf, layer_config)):
        functions = thumb.disassemble(elf)
        analyzer = analysis.Analyzer(functions, cfg)
        for root in cfg["roots"]["core"]:
            if root["name"] not in plain:
                continue
            names = sorted(n for n in functions if fnmatch.fnmatchcase(n, root["symbol"]))
            if not names:
                continue
            bound = analyzer.bound(names[0])
            bounds[(label, root["name"])] = (bound.instructions, bound.cycles)
    return bounds


def compare_costs(title, core, layer, names):
    """Print core / layer / added for each name; check the additions against LAYER_COST."""
    ok = True
    print(title)
    print("  %-16s %8s %8s %6s  %s" % ("function", "core", "layer", "added", "stated"))
    for name in names:
        if name not in core or name not in layer:
            continue
        added = layer[name] - core[name]
        stated = LAYER_COST.get(name)
        verdict = "" if stated is None else ("ok" if added == stated else "FAIL (%d)" % stated)
        ok = ok and (stated is None or added == stated)
        print("  %-16s %8d %8d %+6d  %s" % (name, core[name], layer[name], added, verdict))
    return ok


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    for option in ("--objdump", "--harness", "--wcet", "--csv", "--core", "--layer"):
        parser.add_argument(option, required=True)
    parser.add_argument("--sizes", nargs=3, required=True,
                        metavar=("BASELINE", "CORE_PROBE", "LAYER_PROBE"))
    args = parser.parse_args()

    ok = compare_code(args.objdump, args.core, args.layer)

    calls, sizes = run_harness(args.harness, args.csv, [args.core, args.layer], args.sizes)
    names = ["malloc", "free", "memalign", "realloc-nocopy", "create", "add_pool", "init"]
    core = {n: calls[("default", n)][2] for n in names if ("default", n) in calls}
    layer = {n: calls[("mattconte", n)][2] for n in names if ("mattconte", n) in calls}
    ok = compare_costs("2. Measured maxima (bench/cortex-m4 harness, -O2, every workload group "
                       "but construct; instructions):", core, layer, names) and ok
    means = ", ".join("%s %.1f / %.1f" % (n, calls[("default", n)][1] / calls[("default", n)][0],
                                          calls[("mattconte", n)][1] / calls[("mattconte", n)][0])
                      for n in ("malloc", "free", "realloc-nocopy") if ("mattconte", n) in calls)
    print("  means, core / layer: %s" % means)

    bounds = static_bounds(args.wcet, args.core, args.layer)
    static_names = ["malloc", "free", "memalign", "realloc", "create", "add_pool"]
    ok = compare_costs("3. Static bounds (wcet.py, instructions):",
                       {n: bounds[("default", n)][0] for n in static_names
                        if ("default", n) in bounds},
                       {n: bounds[("mattconte", n)][0] for n in static_names
                        if ("mattconte", n) in bounds}, static_names) and ok

    print("4. Code size of init + malloc + free (bytes): core %s, layer %s"
          % (sizes.get("default", "?"), sizes.get("mattconte", "?")))
    print("compare_m4: %s" % ("PASS" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
