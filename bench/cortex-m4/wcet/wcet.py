#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""wcet.py - the worst case of the TLSF core's entry points, proven on the machine code.

    wcet.py [options] IMAGE.elf... | @LIST

For each Cortex-M4 image (bench/cortex-m4: tlsf-<opt>-<config>.elf; firmware-app images
with the global operator new), disassembles the code with arm-none-eabi-objdump, builds the
control-flow graph of each entry point with every function it calls, proves it has no
cycle (a loop is accepted only when config.json bounds it), and prints the longest path
in instructions (counted as the harness counts them: every instruction issued, IT-skipped
ones included) and an upper bound in cycles (timing.py), beside the harness's measured
maximum (--csv, m4-counts.csv).

Options:
  --config FILE   the assumptions (default: config.json beside this script)
  --csv FILE      the harness's CSV, for the measured maxima
  --bounds FILE   bounds.h, for --check (default: ../bounds.h)
  --check         exit 1 if a function cannot be analysed (a loop, an indirect branch...),
                  if a static bound exceeds its "static:" / "static-cycles:" row in bounds.h,
                  or (with --csv) if a static bound is below the measured maximum: a
                  soundness check of the analysis and of config.json's loop bounds
  --path NAME     print the longest path of entry point NAME (malloc, free, ..., or a
                  symbol), callees expanded, for each image
  --cycles        with --path: the longest path in cycles instead of instructions
  --markdown      the table as Markdown (for README files)
  --quiet         only the check's verdicts and failures

Exit status: 0 fine, 1 check failed or analysis refused, 2 usage or tool error.
"""

import argparse
import csv
import json
import os
import re
import sys

sys.dont_write_bytecode = True   # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import analysis  # noqa: E402
import thumb     # noqa: E402
import timing    # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


class Image:
    def __init__(self, path):
        self.path = path
        self.label = os.path.basename(path)[:-4] if path.endswith(".elf") else \
            os.path.basename(path)
        match = re.fullmatch(r"tlsf-(O2|Os)-(.+)", self.label)
        if match:
            self.family, self.opt, self.config = "core", match.group(1), match.group(2)
        else:
            self.family, self.opt, self.config = "app", "O2", self.label


def expand_images(arguments):
    paths = []
    for argument in arguments:
        if argument.startswith("@"):
            with open(argument[1:]) as listing:
                paths.extend(line.strip() for line in listing if line.strip())
        else:
            paths.append(argument)
    return paths


def find_root(functions, pattern):
    import fnmatch
    names = sorted(n for n in functions if fnmatch.fnmatchcase(n, pattern))
    return names[0] if names else None


def read_measured(path):
    """{(opt, config, function): max} from the harness CSV (scope 'all', TLSF rows)."""
    measured = {}
    if not path:
        return measured
    if not os.path.exists(path):
        raise SystemExit("wcet: no CSV %s (run the harness with --csv first)" % path)
    with open(path, newline="") as handle:
        for row in csv.DictReader(handle):
            if row["record"] == "call" and row["allocator"] == "tlsf" and row["scope"] == "all":
                measured[(row["opt"], row["config"], row["function"])] = int(row["max"])
    return measured


def read_bounds(path):
    """{(opt, config, function): bound} from bounds.h's X-macro table."""
    bounds = {}
    with open(path) as handle:
        for match in re.finditer(r'X\("([^"]*)",\s*"([^"]*)",\s*"([^"]*)",\s*(\d+)\)',
                                 handle.read()):
            bounds[(match.group(1), match.group(2), match.group(3))] = int(match.group(4))
    return bounds


class Result:
    def __init__(self, image, root, symbol):
        self.image, self.root, self.symbol = image, root, symbol
        self.bound = None
        self.error = None
        self.measured = None


def analyse_image(image, config, measured):
    """[Result] for every entry point of the image's family found in it."""
    functions = thumb.disassemble(image.path)
    analyzer = analysis.Analyzer(functions, config)
    results = []
    for root in config["roots"][image.family]:
        symbol = find_root(functions, root["symbol"])
        if symbol is None:
            continue
        result = Result(image, root, symbol)
        try:
            result.bound = analyzer.bound(symbol)
        except thumb.AnalysisError as error:
            result.error = str(error)
        names = root.get("measured") or []
        names = [names] if isinstance(names, str) else names
        values = [measured[(image.opt, image.config, n)] for n in names
                  if (image.opt, image.config, n) in measured]
        result.measured = max(values) if values else None
        results.append(result)
    return results, analyzer


def print_table(results):
    print("%-22s %-16s %8s %9s %9s %6s  %s" % ("image", "function", "static", "cycles<=",
                                                "measured", "gap", "symbol"))
    for r in results:
        if r.error:
            print("%-22s %-16s %8s  REFUSED: %s" % (r.image.label, r.root["name"], "-", r.error))
            continue
        measured = "-" if r.measured is None else str(r.measured)
        gap = "-" if r.measured is None else str(r.bound.instructions - r.measured)
        print("%-22s %-16s %8d %9d %9s %6s  %s" % (r.image.label, r.root["name"],
                                                   r.bound.instructions, r.bound.cycles,
                                                   measured, gap, r.symbol))
    notes = {}
    for r in results:
        if r.error:
            continue
        for text in r.bound.exclusions:
            notes.setdefault("excluded: " + text, set()).add(r.root["name"])
        for function, header, iterations, pass_i, pass_c in r.bound.loops:
            text = ("bounded loop in %s at 0x%x: %d passes x %d instructions (%d cycles) "
                    "at most" % (function, header, iterations, pass_i, pass_c))
            notes.setdefault(text, set()).add(r.image.label)
    if notes:
        print("\nAssumptions (config.json):")
        for text, where in sorted(notes.items()):
            print("  - %s  [%s]" % (text, ", ".join(sorted(where))))


def print_markdown(results):
    print("| image | function | static | cycles <= | measured | gap |")
    print("|---|---|---:|---:|---:|---:|")
    for r in results:
        if r.error:
            print("| %s | %s | refused | | | |" % (r.image.label, r.root["name"]))
            continue
        measured = "-" if r.measured is None else str(r.measured)
        gap = "" if r.measured is None else str(r.bound.instructions - r.measured)
        print("| %s | %s | %d | %d | %s | %s |" % (r.image.label, r.root["name"],
                                                 r.bound.instructions, r.bound.cycles,
                                                 measured, gap))


def print_path(analyzer, symbol, indent=0, out=sys.stdout, cycles=False):
    bound = analyzer.bounds[symbol]
    pad = "  " * indent
    out.write("%s%s: %d instructions, <= %d cycles (longest path in %s)\n"
              % (pad, symbol, bound.instructions, bound.cycles,
                 "cycles" if cycles else "instructions"))
    for kind, cost_i, cost_c, taken in (bound.cycle_path if cycles else bound.path):
        if kind[0] == "insn":
            insn = kind[1]
            mark = " [IT %s]" % insn.it_cond if insn.it_cond else ""
            callee = insn.callee
            own = cost_c - (callee.cycles if callee is not None else 0)
            refill = " +%d taken" % timing.TAKEN if taken else ""
            out.write("%s  %6x  %-40s %2d cyc%s%s\n" % (pad, insn.address, insn.text, own,
                                                        refill, mark))
            if insn.kind == thumb.CALL and callee is not None:
                print_path(analyzer, callee.name, indent + 2, out, cycles)
            continue
        if kind[0] == "tail" and kind[1] is not None:
            out.write("%s  (tail call)\n" % pad)
            print_path(analyzer, kind[1].name, indent + 2, out, cycles)
        elif kind[0] == "loop":
            for header, iterations, pass_i, pass_c in kind[1]:
                out.write("%s  loop at 0x%x: %d passes x <= %d instructions (%d cycles)\n"
                          % (pad, header, iterations, pass_i, pass_c))
            out.write("%s    (%s)\n" % (pad, kind[2]))


def check(results, bounds, quiet=False):
    """The --check verdicts; returns True when all is well."""
    ok, checked = True, 0
    print("\nCheck against bounds.h (static rows)")
    for r in results:
        if r.error:
            ok = False
            print("FAIL  %-22s %-16s refused: %s" % (r.image.label, r.root["name"], r.error))
            continue
        if r.measured is not None and r.bound.instructions < r.measured:
            ok = False
            print("FAIL  %-22s %-16s static bound %d below the measured maximum %d: the "
                  "analysis or a stated loop bound (config.json) is wrong"
                  % (r.image.label, r.root["name"], r.bound.instructions, r.measured))
        for prefix, value in (("static:", r.bound.instructions),
                              ("static-cycles:", r.bound.cycles)):
            key = (r.image.opt, r.image.config, prefix + r.root["name"])
            if key not in bounds:
                if quiet:
                    continue
                print("note  %-22s %-24s %6d (no row in bounds.h)" % (r.image.label,
                                                                     key[2], value))
                continue
            checked += 1
            bound = bounds[key]
            if value > bound:
                ok = False
                print("FAIL  %-22s %-24s %6d > bound %d" % (r.image.label, key[2], value, bound))
            elif value < bound:
                print("ok    %-22s %-24s %6d <= bound %d (lower the bound in bounds.h)"
                      % (r.image.label, key[2], value, bound))
            else:
                print("ok    %-22s %-24s %6d == bound" % (r.image.label, key[2], value))
    if checked == 0:
        print("FAIL  no static bound in bounds.h applies to the images given")
        ok = False
    return ok


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("images", nargs="+")
    parser.add_argument("--config", default=os.path.join(HERE, "config.json"))
    parser.add_argument("--csv")
    parser.add_argument("--bounds", default=os.path.join(HERE, "..", "bounds.h"))
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--path")
    parser.add_argument("--cycles", action="store_true")
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    with open(args.config) as handle:
        config = json.load(handle)
    measured = read_measured(args.csv)
    results = []
    for path in expand_images(args.images):
        image = Image(path)
        if image.family == "app" and not re.match(r"(chess|demo)-", image.label):
            continue   # newlib-*, size-* probes: no entry points of their own to prove
        if not os.path.exists(path):
            print("wcet: no image %s" % path, file=sys.stderr)
            return 2
        image_results, analyzer = analyse_image(image, config, measured)
        results.extend(image_results)
        if args.path:
            for r in image_results:
                if args.path in (r.root["name"], r.symbol) and r.bound:
                    print("== %s" % image.label)
                    print_path(analyzer, r.symbol, cycles=args.cycles)
                elif args.path in (r.root["name"], r.symbol):
                    print("== %s: %s" % (image.label, r.error))
    if not results:
        print("wcet: no entry point found in the images given", file=sys.stderr)
        return 2
    if args.markdown:
        print_markdown(results)
    elif not args.quiet and not args.path:
        print_table(results)
    if args.check:
        return 0 if check(results, read_bounds(args.bounds), args.quiet) else 1
    return 1 if any(r.error for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
