#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test_wcet.py - unit tests of the WCET analyser on hand-written Thumb-2 snippets.

Each test assembles a few functions with arm-none-eabi-as, links them with
arm-none-eabi-ld at a fixed address, and checks the analyser's bound or its refusal.
The expected figures are counted by hand in each snippet's comment: every instruction
issued on the longest path, IT-skipped ones included, as the harness counts them.

    python3 -m unittest test_wcet       (from this directory; ctest tlsf_m4_wcet_unit)
"""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True   # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import analysis  # noqa: E402
import thumb     # noqa: E402

TOOLS = all(shutil.which(t) for t in ("arm-none-eabi-as", "arm-none-eabi-ld",
                                      "arm-none-eabi-objdump"))

PROLOGUE = "\t.syntax unified\n\t.thumb\n\t.text\n"


def function(name, body):
    return ("\t.global {0}\n\t.type {0}, %function\n\t.thumb_func\n{0}:\n{1}\n"
            "\t.size {0}, .-{0}\n").format(name, body)


@unittest.skipUnless(TOOLS, "needs arm-none-eabi-as, -ld and -objdump")
class Snippets(unittest.TestCase):
    def setUp(self):
        self.directory = tempfile.mkdtemp(prefix="wcet-test-")

    def tearDown(self):
        shutil.rmtree(self.directory)

    def analyse(self, source, root, config=None):
        """The Bound of `root` in the assembled `source`."""
        asm = os.path.join(self.directory, "t.S")
        obj = os.path.join(self.directory, "t.o")
        elf = os.path.join(self.directory, "t.elf")
        with open(asm, "w") as handle:
            handle.write(PROLOGUE + source)
        subprocess.run(["arm-none-eabi-as", "-mcpu=cortex-m4", "-mthumb", asm, "-o", obj],
                       check=True)
        subprocess.run(["arm-none-eabi-ld", "-Ttext=0x1000", "-e", root, obj, "-o", elf],
                       check=True)
        functions = thumb.disassemble(elf)
        return analysis.Analyzer(functions, config or {}).bound(root)

    def refused(self, source, root, config=None):
        with self.assertRaises(thumb.AnalysisError) as caught:
            self.analyse(source, root, config)
        return str(caught.exception)

    # ---- straight code, IT blocks, conditional returns -------------------------------------

    def test_straight_line_instructions_and_cycles(self):
        # adds 1, ldr 2 (+1: its address was just computed), ldr 1 (pipelined after the
        # ldr), bx lr 1 + P 3: 4 instructions, 9 cycles.
        bound = self.analyse(function("f", "\tadds r0, #4\n\tldr r1, [r0]\n"
                                           "\tldr r2, [r0, #4]\n\tbx lr"), "f")
        self.assertEqual(bound.instructions, 4)
        self.assertEqual(bound.cycles, 1 + 3 + 1 + 4)

    def test_longest_in_cycles_may_take_another_path(self):
        # Fall through: cmp, beq (not taken), adds, bx = 4 instructions, 1+1+1+4 = 7 cycles.
        # Branch: cmp, beq (taken, +P), bx = 3 instructions, 1+4+4 = 9 cycles.
        bound = self.analyse(function("f", "\tcmp r0, #0\n\tbeq 1f\n\tadds r0, #1\n"
                                           "1:\tbx lr"), "f")
        self.assertEqual((bound.instructions, bound.cycles), (4, 9))
        self.assertEqual(len(bound.path), 4)
        self.assertEqual(len(bound.cycle_path), 3)
        self.assertTrue(bound.cycle_path[1][3])      # the beq leaves by its taken edge

    def test_it_block_counts_both_arms(self):
        # cmp, ite, moveq, movne, bx: all five issue whichever the condition.
        bound = self.analyse(function("f", "\tcmp r0, #0\n\tite eq\n\tmoveq r0, #1\n"
                                           "\tmovne r0, #2\n\tbx lr"), "f")
        self.assertEqual(bound.instructions, 5)

    def test_conditional_return_in_it_block(self):
        # cmp, it, bxeq (not taken), adds, adds, bx: 6; the taken return is 3.
        bound = self.analyse(function("f", "\tcmp r0, #0\n\tit eq\n\tbxeq lr\n"
                                           "\tadds r0, #1\n\tadds r0, #1\n\tbx lr"), "f")
        self.assertEqual(bound.instructions, 6)

    def test_conditional_pop_pc(self):
        # push, cmp, itt ne, movne, popne {r4, pc}; then movs, pop: 7 on the long way.
        bound = self.analyse(function("f", "\tpush {r4, lr}\n\tcmp r0, #0\n\titt ne\n"
                                           "\tmovne r0, #1\n\tpopne {r4, pc}\n"
                                           "\tmovs r0, #2\n\tpop {r4, pc}"), "f")
        self.assertEqual(bound.instructions, 7)

    def test_cbz(self):
        # cbz (not taken), adds, adds, bx: 4.
        bound = self.analyse(function("f", "\tcbz r0, 1f\n\tadds r0, #1\n\tadds r0, #1\n"
                                           "1:\tbx lr"), "f")
        self.assertEqual(bound.instructions, 4)

    # ---- table branches ----------------------------------------------------------------------

    TBB = ("\tcmp r0, #3\n\tbhi.n 9f\n\ttbb [pc, r0]\n"
           "1:\t.byte (2f-1b)/2, (3f-1b)/2, (4f-1b)/2, (9f-1b)/2\n\t.align 1\n"
           "2:\tmovs r0, #1\n\tbx lr\n3:\tmovs r0, #2\n\tbx lr\n"
           "4:\tmovs r0, #3\n\tadds r0, #1\n\tadds r0, #1\n9:\tbx lr")

    def test_tbb_follows_every_entry(self):
        # cmp, bhi, tbb, then entry 2: movs, adds, adds, bx: 7.
        bound = self.analyse(function("f", self.TBB), "f")
        self.assertEqual(bound.instructions, 7)

    def test_tbh(self):
        body = ("\tcmp r1, #2\n\tbhi 9f\n\ttbh [pc, r1, lsl #1]\n"
                "1:\t.short (2f-1b)/2, (3f-1b)/2, (9f-1b)/2\n"
                "2:\tmovs r0, #1\n3:\tmovs r0, #2\n9:\tbx lr")
        bound = self.analyse(function("f", body), "f")
        self.assertEqual(bound.instructions, 6)   # cmp, bhi, tbh, movs, movs, bx

    def test_tbb_without_bound_is_refused(self):
        body = self.TBB.replace("\tcmp r0, #3\n\tbhi.n 9f\n", "\tnop\n\tnop\n")
        self.assertIn("table's length is unknown", self.refused(function("f", body), "f"))

    # ---- calls and tail calls ----------------------------------------------------------------

    def test_tail_call_and_call(self):
        # g: adds, adds, bx = 3. f: push, bl (+g), adds, pop = 4 + 3. h: adds, b.w f = 2 + 7.
        source = (function("g", "\tadds r0, #1\n\tadds r0, #1\n\tbx lr")
                  + function("f", "\tpush {r4, lr}\n\tbl g\n\tadds r0, #1\n\tpop {r4, pc}")
                  + function("h", "\tadds r0, #1\n\tb.w f"))
        bound = self.analyse(source, "h")
        self.assertEqual(bound.instructions, 2 + 4 + 3)
        self.assertEqual(bound.callees, {"f", "g"})

    def test_conditional_tail_call(self):
        # f: cmp, bne g (taken: + g's 3) = 5; or fall: adds, bx = 4.
        source = (function("g", "\tadds r0, #1\n\tadds r0, #1\n\tbx lr")
                  + function("f", "\tcmp r0, #0\n\tbne.w g\n\tadds r0, #1\n\tbx lr"))
        self.assertEqual(self.analyse(source, "f").instructions, 5)

    def test_external_call_is_counted_not_entered(self):
        source = (function("memcpy", "1:\tsubs r2, #1\n\tbne 1b\n\tbx lr")
                  + function("f", "\tpush {r4, lr}\n\tbl memcpy\n\tpop {r4, pc}"))
        config = {"external_calls": [{"symbol": "memcpy", "why": "the copy"}]}
        bound = self.analyse(source, "f", config)
        self.assertEqual(bound.instructions, 3)
        self.assertTrue(any("memcpy" in text for text in bound.exclusions))

    def test_alias_is_the_same_function(self):
        source = ("\t.global g_alias\n\t.type g_alias, %function\n\t.thumb_func\ng_alias:\n"
                  + function("g", "\tadds r0, #1\n\tbx lr")
                  + function("f", "\tpush {r4, lr}\n\tbl g_alias\n\tpop {r4, pc}"))
        self.assertEqual(self.analyse(source, "f").instructions, 3 + 2)

    def test_recursion_is_refused(self):
        source = function("f", "\tpush {r4, lr}\n\tcbz r0, 1f\n\tsubs r0, #1\n\tbl f\n"
                               "1:\tpop {r4, pc}")
        self.assertIn("recursion", self.refused(source, "f"))

    # ---- loops -------------------------------------------------------------------------------

    LOOP = function("zero", "\tmovs r2, #0\n\tadds r1, r0, #16\n1:\tstr r2, [r0], #4\n"
                            "\tcmp r0, r1\n\tbne 1b\n\tbx lr")

    def test_loop_is_refused(self):
        self.assertIn("O(1) not shown", self.refused(self.LOOP, "zero"))

    def test_annotated_loop_is_bounded(self):
        config = {"bounded_loops": [{"symbol": "zero", "iterations": 4, "why": "16 bytes"}]}
        bound = self.analyse(self.LOOP, "zero", config)
        # movs, adds, 4 passes x (str, cmp, bne), bx: 2 + 12 + 1.
        self.assertEqual(bound.instructions, 15)
        self.assertEqual(bound.loops[0][2:4], (4, 3))

    def test_loop_count_must_match_the_annotation(self):
        source = function("two", "1:\tsubs r0, #1\n\tbne 1b\n2:\tsubs r1, #1\n\tbne 2b\n"
                                 "\tbx lr")
        config = {"bounded_loops": [{"symbol": "two", "iterations": 4, "why": "-"}]}
        self.assertIn("2 loops", self.refused(source, "two", config))

    def test_nested_loops_bounded_per_header(self):
        # Outer header 1: (ldr, cbz) up to 3 times; inner header 2: (subs, bne) up to 5
        # times over the whole call; then the outer latch (adds, cmp, bne).
        body = ("\tmovs r3, #0\n1:\tldr r2, [r0, r3]\n\tcbz r2, 3f\n2:\tsubs r2, #1\n"
                "\tbne 2b\n3:\tadds r3, #4\n\tcmp r3, #12\n\tbne 1b\n\tbx lr")
        config = {"bounded_loops": [{"symbol": "drain", "iterations": [3, 5], "why": "-"}]}
        bound = self.analyse(function("drain", body), "drain", config)
        passes = {b[1] - 0x1000: b[2:4] for b in bound.loops}
        # Outer pass from its header: ldr, cbz, adds, cmp, bne = 5; inner pass: subs, bne,
        # adds, cmp, bne = 5 (the last one leaves through the outer latch).
        self.assertEqual(passes, {2: (3, 5), 6: (5, 5)})
        self.assertEqual(bound.instructions, 1 + 3 * 5 + 5 * 5 + 1)

    def test_loop_entered_twice_is_refused(self):
        body = ("\tcbz r0, 2f\n1:\tsubs r1, #1\n2:\tsubs r1, #1\n\tbne 1b\n\tbx lr")
        config = {"bounded_loops": [{"symbol": "f", "iterations": 4, "why": "-"}]}
        self.assertIn("irreducible", self.refused(function("f", body), "f", config))

    def test_tbb_reached_around_its_guard_is_refused(self):
        body = "\tcbz r1, 8f\n" + self.TBB.replace("\ttbb [pc, r0]", "8:\ttbb [pc, r0]")
        self.assertIn("reached other than through its bound check",
                      self.refused(function("f", body), "f"))

    def test_cold_part_is_part_of_its_function(self):
        # f: cmp, bne.w f.cold (taken), then in f.cold: adds, adds, b.w back; bx: 6.
        source = (function("f", "\tcmp r0, #0\n\tbne.w f.cold\n.Lback:\tbx lr")
                  + function("f.cold", "\tadds r0, #1\n\tadds r0, #1\n\tb.w .Lback"))
        self.assertEqual(self.analyse(source, "f").instructions, 6)

    # ---- what cannot be followed -------------------------------------------------------------

    def test_indirect_branch_is_refused(self):
        self.assertIn("indirect", self.refused(function("f", "\tbx r3"), "f"))

    def test_indirect_call_is_refused_unless_configured(self):
        source = function("f", "\tpush {r4, lr}\n\tblx r3\n\tpop {r4, pc}")
        self.assertIn("indirect", self.refused(source, "f"))
        config = {"indirect_calls": [{"symbol": "f", "why": "the handler"}]}
        self.assertEqual(self.analyse(source, "f", config).instructions, 3)

    def test_computed_pc_write_is_refused(self):
        self.assertIn("cannot follow", self.refused(function("f", "\tadd pc, r1"), "f"))
        self.assertIn("cannot follow",
                      self.refused(function("f", "\tldr pc, [r0, #4]"), "f"))

    def test_running_off_the_end_is_refused(self):
        self.assertIn("runs off the end",
                      self.refused(function("f", "\tadds r0, #1") + function("g", "\tbx lr"),
                                   "f"))


class Mnemonics(unittest.TestCase):
    """The mnemonic splitter, without the cross tools."""

    def test_conditions_and_branches(self):
        split = thumb.split_mnemonic
        self.assertEqual(split("bls.n"), ("b", "ls"))
        self.assertEqual(split("bl"), ("bl", None))
        self.assertEqual(split("blx"), ("blx", None))
        self.assertEqual(split("bxeq"), ("bx", "eq"))
        self.assertEqual(split("bics"), ("bics", None))
        self.assertEqual(split("lsls"), ("lsls", None))
        self.assertEqual(split("ldrhhi"), ("ldrh", "hi"))
        self.assertEqual(split("movcs"), ("mov", "cs"))
        self.assertEqual(split("adcs"), ("adcs", None))
        self.assertEqual(split("itte"), ("itte", None))


if __name__ == "__main__":
    unittest.main()
