# SPDX-License-Identifier: MIT
"""timing.py - an upper bound on the Cortex-M4 cycles of each instruction, zero wait states.

Source: ARM Cortex-M4 Processor Technical Reference Manual (r0p1, ARM DDI 0439B / 100166),
section 3.3.1 "Cortex-M4 instructions", Table 3-1 "Cortex-M4 instruction set summary"
(cycle counts with zero wait states), and section 3.3.2 "Load/store timings" (the pairing
rules). The same figures are in ARM's Cortex-M4 Devices Generic User Guide (DUI 0553) and
in vendors' manuals that copy the table. Where the manual gives a range or "at least", the
bound takes the top of the range with zero wait states:

  P (pipeline refill after a taken branch) "ranges from 1 to 3": 3.
  Divide 2-12 (early termination): 12.
  Barriers 1+B, B at least 0: 1+P with P = 3 (nothing is outstanding at zero wait states).

Every weight below names its row. A cost depends on the instruction and, for loads and
stores, on the instruction just before it on the path (`previous`, None after any
branch): the manual's 3.3.2 adds a cycle when a load or store address depends on the
preceding data-processing result, and removes one when a single load or store follows a
single LDR whose result it does not use for its address. A taken branch's refill P is
charged on the taken edge (`TAKEN`), not here: a conditional branch not taken costs 1.
An instruction in an IT block is charged as if it executed: a failed condition costs at
most that (the manual gives no separate figure; it issues, as a branch not taken does).
"""

from thumb import AnalysisError, address_registers, has_writeback, register_list, writes

P = 3          # Table 3-1 note: P = 1..3, the bound takes 3
TAKEN = P      # extra cycles on a taken branch edge (B, BL, BX, POP {pc}, TBB...: "+P")

# Data processing, 1 cycle each (Table 3-1: Move, Add, Subtract, Multiply (MUL, MLA, MLS and
# the long multiplies are single-cycle on the M4), Saturate, Compare, Logical, Shift,
# Rotate, Count leading zeroes, Extend, Bit field, Reverse, Packing; NOP: 1; "Special
# register access" MRS and "Change processor state" CPSID/CPSIE: 1).
_ONE = {
    "mov", "movs", "movw", "movt", "mvn", "mvns", "add", "adds", "addw", "adc", "adcs",
    "adr", "sub", "subs", "subw", "sbc", "sbcs", "rsb", "rsbs", "neg", "negs", "mul", "muls",
    "mla", "mls", "umull", "smull", "umlal", "smlal", "ssat", "usat", "cmp", "cmn", "and",
    "ands", "eor", "eors", "orr", "orrs", "orn", "orns", "bic", "bics", "tst", "teq", "lsl",
    "lsls", "lsr", "lsrs", "asr", "asrs", "ror", "rors", "rrx", "rrxs", "clz", "rbit",
    "rev", "rev16", "revsh", "uxtb", "uxth", "sxtb", "sxth", "uxtab", "uxtah", "sxtab",
    "sxtah", "ubfx", "sbfx", "bfi", "bfc", "nop", "cpsid", "cpsie", "mrs", "sel",
    "uadd8", "usub8", "qadd", "qsub", "pkhbt", "pkhtb",
}
# MSR (PRIMASK, for the interrupt lock of the firmware app): the bound takes 2, above the
# table's single cycle, because writing PRIMASK may serialise the pipeline.
_TWO = {"msr"}
_DIVIDE = {"udiv", "sdiv"}           # Table 3-1 "Divide": 2-12
_BARRIER = {"dmb", "dsb", "isb"}     # Table 3-1 "Barriers": 1+B
_SINGLE_LOAD = {"ldr", "ldrb", "ldrh", "ldrsb", "ldrsh", "ldrex", "ldrexb", "ldrexh"}
_SINGLE_STORE = {"str", "strb", "strh", "strex", "strexb", "strexh"}
_MULTIPLE = {"ldm", "ldmia", "ldmfd", "ldmdb", "ldmea", "stm", "stmia", "stmea", "stmdb",
             "stmfd", "push", "pop"}


def is_data_processing(insn):
    return insn.base in _ONE or insn.base in _DIVIDE or insn.base in _TWO


def cost(insn, previous):
    """Cycles of `insn` (without the refill of a taken branch it makes), given the
    instruction before it on the path (None after a branch or at a function's entry)."""
    base = insn.base
    if base.startswith("it"):
        return 1                                   # Table 3-1 "If-Then": 1
    if base in _ONE:
        return 1
    if base in _TWO:
        return 2
    if base in _DIVIDE:
        return 12                                  # Table 3-1 "Divide": 2 to 12
    if base in _BARRIER:
        return 1 + P                               # Table 3-1 "Barriers": 1 + B
    if base in ("b", "cbz", "cbnz", "bl", "bx", "blx", "udf", "bkpt"):
        return 1                                   # Table 3-1 "Branch": 1 (+P if taken)
    if base in ("tbb", "tbh"):
        # 3.3.2: "at least two cycles for the load, one cycle for the add, and three cycles
        # for the pipeline reload": 2 + 1 here, the reload on the taken edge.
        return 3
    if base in _MULTIPLE:
        n = len(register_list(insn.operands))
        # Table 3-1 "Load Multiple"/"Store Multiple"/"Push"/"Pop": 1 + N (+P with pc, on
        # the return edge).
        return 1 + n
    if base in ("ldrd", "strd"):
        return 3                                   # Table 3-1 LDRD/STRD: 1 + N, N = 2
    if base in _SINGLE_LOAD or base in _SINGLE_STORE:
        return _single_load_store(insn, previous)
    raise AnalysisError("no Cortex-M4 cycle figure for '%s' at 0x%x" % (insn.text, insn.address))


def _single_load_store(insn, previous):
    ops = insn.operands.lower()
    literal = "[pc" in ops
    if insn.base in _SINGLE_STORE:
        # 3.3.2: "STR Rx,[Ry,#imm] is always one cycle"; other stores 2 (Table 3-1 "Store"
        # with its note on pipelining; writeback and register-offset forms take 2).
        register_offset = len(address_registers(insn)) > 1
        cycles = 2 if register_offset or has_writeback(insn) else 1
    else:
        cycles = 2                                 # Table 3-1 "Load": 2
        if literal:
            cycles += 1    # 3.3.2: "LDR Rx,[PC,#imm] might add a cycle" (fetch contention)
        # "Load to PC" (ldr pc, [sp], #4, a return): 2 + P, the P on the return edge.
    if previous is None or previous.it_cond is not None:
        return cycles + _address_stall(insn, previous)
    if _pipelines_after(previous, insn):
        return cycles - 1 if cycles > 1 else cycles
    return cycles + _address_stall(insn, previous)


def _address_stall(insn, previous):
    """3.3.2: 'Any load or store that generates an address dependent on the result of a
    preceding data processing operation stalls the pipeline for an additional cycle'. A
    writeback of a base register counts as such a result."""
    if previous is None:
        return 0
    written = set()
    if is_data_processing(previous):
        written = writes(previous)
    elif has_writeback(previous) or previous.base in ("push", "pop"):
        written = {"r13"} if previous.base in ("push", "pop") else writes(previous)
    return 1 if written & address_registers(insn) else 0


def _pipelines_after(previous, insn):
    """3.3.2: 'LDR [any] are pipelined when possible': a single load or store right after
    an unconditional single LDR (no writeback, not from pc), whose loaded register is not
    part of this instruction's address, saves one cycle. LDRD/STRD never pipeline."""
    if previous.base not in _SINGLE_LOAD or has_writeback(previous) or has_writeback(insn):
        return False
    if "[pc" in previous.operands.lower() or "[pc" in insn.operands.lower():
        return False
    return not (writes(previous) & address_registers(insn))
