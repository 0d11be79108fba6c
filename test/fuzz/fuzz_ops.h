/* SPDX-License-Identifier: MIT */
/*
 * fuzz_ops.h - an interpreter that reads bytes as a sequence of heap operations, runs them
 * on a fresh TLSF heap and checks every result against a model of what tlsf.h promises.
 * Shared by the libFuzzer target (fuzz_heap.c) and the corpus replay test (replay_main.c).
 *
 * Input format (every read past the end yields zero bytes, so any input is valid):
 *   byte 0        setup: bits 0-1 = number of pools added at start - 1; bit 2 = make the
 *                 heap with tlsf_create_with_pool (its pool is pool slot 0); bits 3-4 =
 *                 how much of each pool slot those pools take (quarters, 00 = all); bit 5 =
 *                 slabs of 4 KiB (tlsf_slabs_enable, where TLSF_SLABS builds them)
 *   then, repeated until the input ends: one opcode byte (its low 4 bits select the
 *   operation in fuzz_op_table below) followed by that operation's argument bytes.
 *
 * Arguments: a block slot is one byte (mod FUZZ_SLOTS); a size is a mode byte and 0-4
 * more bytes (small, medium, up to a pool, near tlsf_largest_allocatable(), or one of the
 * special values such as 0, SIZE_MAX and the limits of tlsf.h); an alignment is one byte
 * (a power of two up to 2^19, or an invalid or extreme value).
 *
 * What is checked (the process aborts with a message on the first failure):
 *   - every block is aligned as asked, has at least the requested usable size, lies inside
 *     one pool currently in the heap and overlaps no other live block;
 *   - a block's contents (a pattern written over its whole usable size) survive every
 *     other operation; realloc keeps the common prefix and the alignment of memalign'd
 *     blocks; calloc returns zeroes;
 *   - malloc(n) and calloc succeed exactly when n <= tlsf_largest_allocatable(), so after
 *     largest_allocatable, malloc(largest) succeeds and malloc(largest + 1) fails (with
 *     slabs, a request of up to TLSF_SLAB_REQUEST_MAX bytes may also succeed from a slab's
 *     free object);
 *   - invalid alignments, offsets, sizes and pools give NULL (and the error handler hears
 *     exactly the documented reason), misuse (double free, misaligned or interior
 *     pointers) is reported and changes nothing;
 *   - tlsf_check and tlsf_check_pool return 0, walking the pools finds exactly the live
 *     blocks, the statistics agree with the model (periodically, and at the end of each
 *     input), and at the end every pool is one free block again and can be removed.
 */
#ifndef TLSF_FUZZ_OPS_H
#define TLSF_FUZZ_OPS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Run one input; returns the number of operations it held. Aborts on a failed check. */
size_t tlsf_fuzz_run(const uint8_t *data, size_t size);

/* Nonzero: print each operation to stderr (replay --verbose). */
extern int tlsf_fuzz_verbose;

/* Nonzero: the adversary (fuzz_ops.c, "The adversary"): the misuse operation overwrites the
 * heap's own metadata instead, and the checks become "the damage is reported, or harmless". */
extern int tlsf_fuzz_adversary;
/* What became of the inputs the adversary damaged. */
struct tlsf_fuzz_adversary_counts {
    size_t damaged;        /* inputs with at least one write */
    size_t reported;       /* ended by a report to the error handler */
    size_t found_by_check; /* tlsf_check or tlsf_check_pool counted the damage (either way) */
    size_t unnoticed;      /* ran to the end with no report: the damage was harmless */
};
extern struct tlsf_fuzz_adversary_counts tlsf_fuzz_adversary_counts;

/* The operations. fuzz_op_table maps the low 4 bits of an opcode byte to one of them (the
 * common operations have several codes). */
enum fuzz_op {
    FUZZ_MALLOC,
    FUZZ_CALLOC,
    FUZZ_MEMALIGN,
    FUZZ_MEMALIGN_OFFSET,
    FUZZ_ALIGNED_ALLOC,
    FUZZ_REALLOC,
    FUZZ_FREE,
    FUZZ_ADD_POOL,
    FUZZ_REMOVE_POOL,
    FUZZ_CHECK,
    FUZZ_LARGEST,
    FUZZ_MISUSE,
    FUZZ_OP_COUNT
};
extern const unsigned char fuzz_op_table[16];

#define FUZZ_SLOTS 64
#define FUZZ_POOLS 4

#ifdef __cplusplus
}
#endif

#endif /* TLSF_FUZZ_OPS_H */
