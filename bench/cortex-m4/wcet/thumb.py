# SPDX-License-Identifier: MIT
"""thumb.py - the machine code of an ELF image as arm-none-eabi-objdump shows it.

Reads `objdump -d` text into functions (one per symbol header) made of instructions and
data words, and classifies each instruction for the control-flow analysis: how control
leaves it (fall through, branch, conditional branch, call, return, table branch,
indirect...), which registers it writes, and how it touches memory (for the cycle model).

Only what objdump prints is used; the data bytes of a TBB/TBH table come from the
`.byte`/`.short`/`.word` lines objdump prints for the data mapping symbols ($d) that the
assembler puts after the table.
"""

import re
import shutil
import subprocess

CONDITIONS = ("eq", "ne", "cs", "hs", "cc", "lo", "mi", "pl", "vs", "vc", "hi", "ls",
              "ge", "lt", "gt", "le", "al")
_COND = "(?:" + "|".join(CONDITIONS) + ")"

# How control leaves an instruction.
FALL = "fall"              # to the next instruction
BRANCH = "branch"          # b <target> (conditional: also falls through)
CALL = "call"              # bl <target>
CALL_INDIRECT = "call-indirect"    # blx rN
RETURN = "return"          # bx lr, pop {.., pc}, ldm sp!, {.., pc}, ldr pc, [sp], #4
BRANCH_INDIRECT = "branch-indirect"  # bx rN (N != lr)
TABLE = "table"            # tbb / tbh
TRAP = "trap"              # udf, bkpt: execution stops (a fault or the debugger)
UNFOLLOWABLE = "unfollowable"  # anything else that writes pc, svc, wfi, wfe


class Instruction:
    """One line of objdump's disassembly that is an instruction."""

    def __init__(self, address, size, mnemonic, operands, text):
        self.address = address
        self.size = size              # bytes: 2 or 4
        self.mnemonic = mnemonic      # as printed, e.g. "bne.n", "ldrne", "itte"
        self.operands = operands      # as printed, comment stripped
        self.text = text              # mnemonic and operands, for reports
        self.base, self.cond = split_mnemonic(mnemonic)
        self.kind, self.target = classify(self)
        # Set by the function once IT blocks are known: the condition under which this
        # instruction executes when it sits inside an IT block (None outside), and the
        # address of that IT instruction.
        self.it_cond = None
        self.it_head = None
        # Set by the analysis for a call: the callee's Bound (None: not entered).
        self.callee = None

    @property
    def conditional(self):
        """True when the instruction may not execute or not branch (IT block, b<cc>)."""
        return self.it_cond is not None or (self.kind == BRANCH and self.cond is not None) \
            or self.base in ("cbz", "cbnz")

    def __repr__(self):
        return "%x: %s" % (self.address, self.text)


def split_mnemonic(mnemonic):
    """('ldrne', ...) -> ('ldr', 'ne'); width suffixes .n/.w dropped; 's' kept."""
    m = mnemonic.lower()
    for suffix in (".n", ".w"):
        if m.endswith(suffix):
            m = m[:-len(suffix)]
    if re.fullmatch(r"it[te]{0,3}", m):
        return m, None
    # The branch family first: b<cc>, bl, blx<cc>, bx<cc>.
    match = re.fullmatch(r"(bl|blx|bx|b)(" + _COND + r")?", m)
    if match and not (match.group(1) == "b" and m in ("bl", "blx", "bx")):
        return match.group(1), match.group(2)
    # Everything else: a known stem followed by an optional condition.
    match = re.fullmatch(r"([a-z0-9]+?)(" + _COND + r")", m)
    if match and match.group(1) in _CONDITIONAL_STEMS:
        return match.group(1), match.group(2)
    return m, None


# Stems the compiler puts inside IT blocks (with or without the S flag), used only to split
# a condition suffix off; a stem missing here leaves the mnemonic whole, which is harmless
# for everything but the cycle model, whose unknown-instruction rule then refuses.
_CONDITIONAL_STEMS = {
    "mov", "movs", "mvn", "mvns", "add", "adds", "adc", "adcs", "sub", "subs", "sbc", "sbcs",
    "rsb", "rsbs", "and", "ands", "orr", "orrs", "orn", "orns", "eor", "eors", "bic", "bics",
    "lsl", "lsls", "lsr", "lsrs", "asr", "asrs", "ror", "rors", "cmp", "cmn", "tst", "teq",
    "mul", "muls", "mla", "mls", "clz", "rbit", "rev", "uxtb", "uxth", "sxtb", "sxth",
    "ubfx", "sbfx", "bfi", "bfc", "movw", "movt", "neg", "negs", "addw", "subw",
    "ldr", "ldrb", "ldrh", "ldrsb", "ldrsh", "ldrd", "str", "strb", "strh", "strd",
    "ldm", "ldmia", "ldmdb", "stm", "stmia", "stmdb", "push", "pop", "nop", "udiv", "sdiv",
    "umull", "smull", "umlal", "smlal",
}

_REGISTER = r"(?:r\d+|sp|lr|pc|ip|fp|sl|sb)"


def register_list(operands):
    """The registers of a {..} list, ranges expanded: '{r4, r5-r7, pc}' -> [...]."""
    match = re.search(r"\{([^}]*)\}", operands)
    if not match:
        return []
    out = []
    for item in match.group(1).split(","):
        item = item.strip()
        if "-" in item:
            low, high = (canonical(x) for x in item.split("-"))
            out.extend("r%d" % n for n in range(int(low[1:]), int(high[1:]) + 1))
        elif item:
            out.append(canonical(item))
    return out


_ALIASES = {"ip": "r12", "fp": "r11", "sl": "r10", "sb": "r9", "sp": "r13", "lr": "r14",
            "pc": "r15"}


def canonical(register):
    register = register.strip().lower()
    return _ALIASES.get(register, register)


def _first_operand(operands):
    return canonical(operands.split(",")[0]) if operands else ""


def classify(insn):
    """(kind, target address or None) of an instruction."""
    base, ops = insn.base, insn.operands.lower()
    if base in ("b", "bl"):
        target = _address_operand(ops)
        if target is None:
            return UNFOLLOWABLE, None
        return (BRANCH if base == "b" else CALL), target
    if base in ("cbz", "cbnz"):
        return BRANCH, _address_operand(ops.split(",", 1)[1])
    if base == "blx":
        if re.fullmatch(_REGISTER, ops.strip()):
            return CALL_INDIRECT, None
        return UNFOLLOWABLE, None  # blx <imm> would switch to the ARM state
    if base == "bx":
        return (RETURN if canonical(ops) == "r14" else BRANCH_INDIRECT), None
    if base in ("tbb", "tbh"):
        return TABLE, None
    if base in ("udf", "bkpt"):
        return TRAP, None
    if base in ("svc", "wfi", "wfe"):
        return UNFOLLOWABLE, None
    if base in ("pop", "ldm", "ldmia", "ldmfd"):
        regs = register_list(ops)
        if "r15" in regs:
            stack = base == "pop" or re.match(r"\s*(sp|r13)!", ops)
            return (RETURN if stack else UNFOLLOWABLE), None
        return FALL, None
    if "r15" in writes(insn) or base in ("ldmdb", "ldmea"):
        # ldr pc, [sp], #4 is a one-register pop.
        if base == "ldr" and re.fullmatch(r"\s*pc,\s*\[sp\],\s*#4\s*", ops):
            return RETURN, None
        if base in ("ldmdb", "ldmea") and "r15" not in register_list(ops):
            return FALL, None
        return UNFOLLOWABLE, None
    return FALL, None


def _address_operand(ops):
    match = re.match(r"\s*([0-9a-f]+)\b", ops)
    return int(match.group(1), 16) if match else None


# Instructions that write no general register (besides pc for branches).
_NO_DEST = {"cmp", "cmn", "tst", "teq", "str", "strb", "strh", "strd", "push", "stm",
            "stmia", "stmdb", "stmea", "b", "bx", "cbz", "cbnz", "tbb", "tbh", "nop", "dmb",
            "dsb", "isb", "cpsid", "cpsie", "msr", "bkpt", "udf", "svc", "wfi", "wfe"}


def writes(insn):
    """The general registers an instruction writes (canonical names), as far as the
    analysis needs them: destinations, base-register writeback, lr for calls."""
    base, ops = insn.base, insn.operands.lower()
    if base.startswith("it"):
        return set()
    out = set()
    if base in ("bl", "blx"):
        out.update({"r14", "r0", "r1", "r2", "r3", "r12"})
    elif base in ("pop", "ldm", "ldmia", "ldmfd", "ldmdb", "ldmea"):
        out.update(register_list(ops))
    elif base in ("ldrd", "umull", "smull", "umlal", "smlal"):
        out.update(canonical(r) for r in ops.split(",")[:2])
    elif base not in _NO_DEST and ops:
        out.add(_first_operand(ops))
    # Writeback of the base register: [rN, #i]!, [rN], #i, ldm/stm rN!, push/pop (sp).
    if base in ("push", "pop"):
        out.add("r13")
    match = re.search(r"\[(\w+)[^\]]*\]!|\[(\w+)\],|^\s*(\w+)!", ops)
    if match:
        out.add(canonical(next(g for g in match.groups() if g)))
    return out


def address_registers(insn):
    """The registers a single load or store computes its address from ([rN, rM...])."""
    match = re.search(r"\[([^\]]*)\]", insn.operands.lower())
    if not match:
        return set()
    return {canonical(r) for r in re.findall(_REGISTER, match.group(1))}


def has_writeback(insn):
    ops = insn.operands.lower()
    return bool(re.search(r"\]!|\],", ops))


class Function:
    """A function as objdump lists it under its symbol header: instructions by address,
    and the data bytes (literal pools, jump tables) that sit between them."""

    def __init__(self, name, address):
        self.name = name
        self.address = address
        self.insns = {}      # address -> Instruction
        self.order = []      # instruction addresses, ascending
        self.data = {}       # address -> byte value
        self.parts = []      # with a cold part: the pieces, each with its own extent

    @property
    def end(self):
        last = max(self.order + list(self.data)) if (self.order or self.data) else self.address
        size = self.insns[last].size if last in self.insns else 1
        return last + size

    def contains(self, address):
        if self.parts:
            return any(part.contains(address) for part in self.parts)
        return self.address <= address < self.end

    def absorb(self, part):
        """Take in the instructions of `part`, this function's cold part (gcc's
        '<name>.cold', code it moved away from the hot path): the two are one function
        that branches between its pieces."""
        if not self.parts:
            whole = Function(self.name, self.address)
            whole.insns, whole.order, whole.data = dict(self.insns), list(self.order), \
                dict(self.data)
            self.parts = [whole]
        self.parts.append(part)
        self.insns.update(part.insns)
        self.data.update(part.data)
        self.order = sorted(self.order + part.order)

    def next_address(self, insn):
        return insn.address + insn.size

    def mark_it_blocks(self):
        """Give each instruction covered by an IT instruction its condition. An IT's mask is
        in its mnemonic: 'ite eq' covers two, the second under the opposite condition."""
        for index, address in enumerate(self.order):
            insn = self.insns[address]
            if not insn.base.startswith("it"):
                continue
            pattern = insn.base[1:]                      # 't', 'te', 'tte', ...
            cond = insn.operands.strip().lower()
            following = self.order[index + 1:index + 1 + len(pattern)]
            if len(following) < len(pattern):
                raise AnalysisError("%s: IT block at 0x%x runs past the function"
                                    % (self.name, address))
            for letter, covered in zip(pattern, following):
                self.insns[covered].it_cond = cond if letter == "t" else invert(cond)
                self.insns[covered].it_head = address


class AnalysisError(Exception):
    """The machine code holds something the analysis cannot follow: it refuses."""


_INVERSE = {"eq": "ne", "ne": "eq", "cs": "cc", "hs": "lo", "cc": "cs", "lo": "hs",
            "mi": "pl", "pl": "mi", "vs": "vc", "vc": "vs", "hi": "ls", "ls": "hi",
            "ge": "lt", "lt": "ge", "gt": "le", "le": "gt"}


def invert(cond):
    return _INVERSE.get(cond, cond)


_HEADER = re.compile(r"^([0-9a-f]+) <(.+)>:$")
_LINE = re.compile(r"^\s*([0-9a-f]+):\t([0-9a-f ]+?)\s*\t([^\t]+?)(?:\t(.*))?$")
_DATA_WIDTH = {".byte": 1, ".short": 2, ".word": 4}


def parse_objdump(text):
    """objdump -d text -> {name: Function}. Symbols at the same address (aliases) name the
    same Function."""
    functions = {}
    current = None
    for raw in text.splitlines():
        header = _HEADER.match(raw)
        if header:
            address = int(header.group(1), 16)
            if current is not None and current.address == address and not current.order:
                functions.setdefault(header.group(2), current)   # an alias: one function
                continue
            current = Function(header.group(2), address)
            functions.setdefault(current.name, current)
            continue
        line = _LINE.match(raw)
        if not line or current is None:
            continue
        address = int(line.group(1), 16)
        mnemonic = line.group(3).strip()
        operands = (line.group(4) or "").split("@")[0].split(";")[0].strip()
        if mnemonic in _DATA_WIDTH:
            value = int(operands, 16)
            for k in range(_DATA_WIDTH[mnemonic]):
                current.data[address + k] = (value >> (8 * k)) & 0xFF
            continue
        halfwords = line.group(2).split()
        size = 4 if len(halfwords) == 2 or len(halfwords[0]) == 8 else 2
        text_ = (mnemonic + " " + operands).strip()
        current.insns[address] = Instruction(address, size, mnemonic, operands, text_)
        current.order.append(address)
    for function in functions.values():
        function.order.sort()
        function.mark_it_blocks()
    for name in list(functions):
        match = re.fullmatch(r"(.+)\.cold(?:\.\d+)?", name)
        if match and match.group(1) in functions:
            functions[match.group(1)].absorb(functions[name])
    return functions


def objdump_tool():
    tool = shutil.which("arm-none-eabi-objdump")
    if tool is None:
        raise SystemExit("wcet: arm-none-eabi-objdump not found (Debian: binutils-arm-none-eabi)")
    return tool


def disassemble(elf_path):
    """{name: Function} of an ELF image (its executable sections)."""
    result = subprocess.run([objdump_tool(), "-d", elf_path], check=True,
                            capture_output=True, text=True)
    return parse_objdump(result.stdout)
