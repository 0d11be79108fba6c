#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write the seed corpus of the heap fuzzer (test/fuzz/corpus/).

Each seed is a small program in the interpreter's input format (fuzz_ops.h): a setup byte,
then operations. The seeds reach every operation and the interesting edges (invalid
alignments and pools, SIZE_MAX, largest_allocatable, misuse), so that libFuzzer starts
from there instead of from nothing, and so that the replay test (fuzz_replay) covers them
in every build.

    test/fuzz/make_corpus.py [output-directory]    (default: the corpus/ next to this file)
"""
import os
import random
import sys

# Opcode bytes (low 4 bits index fuzz_op_table in fuzz_ops.c).
MALLOC, CALLOC, MEMALIGN, MEMALIGN_OFFSET, ALIGNED_ALLOC = 0, 2, 3, 4, 5
REALLOC, FREE, ADD_POOL, REMOVE_POOL, CHECK, LARGEST, MISUSE = 6, 8, 11, 12, 13, 14, 15

# Special sizes (special_size() in fuzz_ops.c).
S_ZERO, S_ONE, S_WORD_LESS1, S_WORD, S_ALIGN_LESS1, S_ALIGN, S_ALIGN_PLUS1 = range(7)
S_MIN, S_MIN_PLUS1, S_1023, S_1024, S_1025, S_4096_LESS_WORD = range(7, 13)
S_MAX_REQ, S_MAX_REQ_PLUS1, S_BLOCK_MAX = 13, 14, 15
S_SIZE_MAX, S_SIZE_MAX_LESS1, S_HALF, S_HALF_PLUS1, S_MAX_LESS_ALIGN = 16, 17, 18, 19, 20
S_MAX_LESS_4096, S_PTRDIFF_MAX, S_SLOT0 = 21, 22, 23

# Invalid or extreme alignments (take_align(): 200 + case).
A_ZERO, A_3, A_24, A_48, A_ONE_AND_HALF, A_4K_PLUS16, A_SIZE_MAX, A_TOP_BIT, A_BLOCK_MAX, A_1M = (
    200 + i for i in range(10))


def setup(pools=1, with_pool=False, quarters=0):
    return bytes([(pools - 1) | (4 if with_pool else 0) | (quarters << 3)])


def size(n):
    """The shortest encoding of a size below 2^32."""
    if n < 256:
        return bytes([0, n])
    if n < 2048:
        return bytes([3]) + n.to_bytes(2, "little")
    if n < 65536:
        return bytes([4]) + n.to_bytes(2, "little")
    return bytes([5]) + n.to_bytes(4, "little")


def special(index):
    return bytes([7, index])


def near_largest(delta):
    """largest_allocatable() + delta, -63 <= delta <= 63."""
    return bytes([6, (0x80 | delta) if delta >= 0 else -delta])


def malloc(slot, sz):
    return bytes([MALLOC, slot]) + sz


def calloc(slot, count_byte, sz):
    return bytes([CALLOC, slot, count_byte]) + sz


def memalign(slot, align_byte, sz, aligned_alloc=False):
    return bytes([ALIGNED_ALLOC if aligned_alloc else MEMALIGN, slot, align_byte]) + sz


def memalign_offset(slot, align_byte, sz, offset_mode, offset_arg=0):
    tail = bytes([offset_mode]) + (bytes([offset_arg]) if offset_mode % 8 in (0, 1, 2, 3, 6) else b"")
    return bytes([MEMALIGN_OFFSET, slot, align_byte]) + sz + tail


def realloc(slot, sz):
    return bytes([REALLOC, slot]) + sz


def free(slot):
    return bytes([FREE, slot])


def add_pool(index, offset_mode=0, size_mode=0, extra=b""):
    return bytes([ADD_POOL, index, offset_mode | (size_mode << 2)]) + extra


def remove_pool(index):
    return bytes([REMOVE_POOL, index])


def check(reset_peak=False):
    return bytes([CHECK, 1 if reset_peak else 0])


def largest(slot):
    return bytes([LARGEST, slot])


def misuse(variant, slot, k=0):
    return bytes([MISUSE, variant, slot, k])


def seeds():
    yield "basic", setup(2) + b"".join([
        malloc(0, size(0)), malloc(1, size(1)), malloc(2, size(24)), malloc(3, size(100)),
        malloc(4, size(1000)), malloc(5, size(5000)), free(2), malloc(6, size(17)),
        realloc(3, size(300)), realloc(4, size(10)), realloc(7, size(64)), realloc(5, size(0)),
        free(0), free(9), check(), realloc(1, size(20000)), free(6), check(True)])

    yield "calloc", setup(1) + b"".join([
        calloc(0, 10, size(10)), calloc(1, 0, size(100)), calloc(2, 39, size(1000)),
        calloc(3, 240, size(2)),          # SIZE_MAX * 2: overflow
        calloc(4, 241, special(S_ALIGN)),  # (SIZE_MAX/2+1) * 16: overflow
        calloc(5, 242, bytes([7, 0])),      # 2^(bits/2) * 0
        calloc(6, 242, size(200)), free(0), calloc(0, 7, size(3000)), check()])

    yield "memalign", setup(2) + b"".join(
        [memalign(i, i % 20, size(50 + i * 13)) for i in range(20)] +
        [memalign(20 + i, a, size(64)) for i, a in enumerate(
            [A_ZERO, A_3, A_24, A_48, A_ONE_AND_HALF, A_4K_PLUS16, A_SIZE_MAX, A_TOP_BIT,
             A_BLOCK_MAX, A_1M])] +
        [memalign(31, 12, size(4000), aligned_alloc=True), memalign(32, 6, special(S_ZERO)),
         realloc(12, size(9000)), realloc(13, size(10)), realloc(31, size(30000)), check()])

    yield "memalign_offset", setup(2) + b"".join([
        memalign_offset(0, 6, size(200), 0, 1),     # offset 16, align 64
        memalign_offset(1, 8, size(1000), 1, 5),    # offset 80, align 256
        memalign_offset(2, 3, size(100), 2, 0),     # offset 0, align 8
        memalign_offset(3, 2, size(100), 3, 3),     # offset 12, align 4
        memalign_offset(4, 7, size(100), 4),        # offset not a multiple of the unit
        memalign_offset(5, 7, size(100), 5),        # offset == bytes
        memalign_offset(6, 7, size(0), 5),          # bytes == offset == 0
        memalign_offset(7, 7, size(100), 6, 1),     # offset just above bytes
        memalign_offset(8, 12, size(64), 7),        # offset near SIZE_MAX
        memalign_offset(9, A_24, size(64), 0, 1),   # bad alignment
        realloc(0, size(5000)), realloc(1, size(20)), check()])

    yield "pools", setup(1, with_pool=True, quarters=2) + b"".join([
        add_pool(1), add_pool(2, 1, 1, (1234).to_bytes(2, "little")), add_pool(3, 2),
        add_pool(3, 3), add_pool(3, 0, 3), add_pool(3, 0x10, 3), add_pool(3, 0, 2, bytes([5])),
        add_pool(3, 0, 2, bytes([30])), add_pool(1),
        bytes([ADD_POOL, 3, 0xE0]),   # NULL memory
        bytes([ADD_POOL, 0, 0x40]),   # a pool already in the heap, SIZE_MAX bytes
        bytes([ADD_POOL, 0, 0x00]),   # the same, tlsf_block_size_max() + overhead bytes
        malloc(0, size(3000)), malloc(1, size(40000)),
        remove_pool(0), remove_pool(1), free(0), free(1), remove_pool(0), remove_pool(1),
        remove_pool(2), remove_pool(2), check(), add_pool(0), add_pool(1, 0, 1, b"\x00\x10"),
        malloc(2, size(100)), check()])

    yield "largest", setup(4) + b"".join(
        [largest(i) for i in range(6)] + [check()] + [free(i) for i in range(0, 6, 2)] +
        [largest(10), malloc(11, near_largest(0)), malloc(12, near_largest(1)),
         malloc(13, near_largest(-1)), calloc(14, 1, near_largest(0)), check()])

    yield "special_sizes", setup(3) + b"".join(
        [malloc(i, special(i)) for i in range(24)] +
        [calloc(30 + i, 1, special(i)) for i in (0, 13, 16, 19)] +
        [realloc(0, special(S_SIZE_MAX)), realloc(1, special(S_MAX_REQ)),
         memalign(40, 6, special(S_SIZE_MAX)), memalign(41, 6, special(S_MAX_LESS_ALIGN)),
         check()])

    yield "misuse", setup(2) + b"".join([
        malloc(0, size(100)), malloc(1, size(100)), malloc(2, size(100)), malloc(3, size(300)),
        misuse(0, 1), misuse(1, 0, 3), misuse(2, 2, 7), misuse(3, 3, 2), misuse(4, 0),
        misuse(0, 0), misuse(0, 2), check(), misuse(0, 3)])

    # Fragmentation: many small blocks, every other freed, then the largest request.
    frag = [malloc(i, size(16 + (i * 37) % 200)) for i in range(64)]
    frag += [free(i) for i in range(0, 64, 2)] + [largest(0), check()]
    frag += [realloc(i, size(400)) for i in range(1, 64, 4)] + [check()]
    yield "fragmentation", setup(1, quarters=1) + b"".join(frag)

    # A few pseudo-random programs over the common operations.
    rng = random.Random(20261202)
    for n in range(4):
        ops = []
        for _ in range(150):
            kind = rng.choice("mmmmcfffrrlxpa")
            slot = rng.randrange(64)
            sz = size(rng.choice([rng.randrange(256), rng.randrange(4096), rng.randrange(40000)]))
            if kind == "m":
                ops.append(malloc(slot, sz))
            elif kind == "c":
                ops.append(calloc(slot, rng.randrange(8), sz))
            elif kind == "f":
                ops.append(free(slot))
            elif kind == "r":
                ops.append(realloc(slot, sz))
            elif kind == "l":
                ops.append(largest(slot))
            elif kind == "x":
                ops.append(check())
            elif kind == "p":
                ops.append(add_pool(rng.randrange(4)) if rng.random() < 0.6 else remove_pool(rng.randrange(4)))
            else:
                ops.append(memalign(slot, rng.randrange(4, 14), sz))
        yield "random%d" % n, setup(rng.randrange(1, 5), rng.random() < 0.5) + b"".join(ops)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
    os.makedirs(out, exist_ok=True)
    for name, data in seeds():
        with open(os.path.join(out, "seed-" + name), "wb") as f:
            f.write(data)
        print("%-28s %5d bytes" % ("seed-" + name, len(data)))


if __name__ == "__main__":
    main()
