/* SPDX-License-Identifier: MIT */
/*
 * tlsf_trace.h - record every call a program makes to its heap, compactly, through a sink
 * the program supplies: a file on Linux, a ring buffer drained over a UART or RTT on a
 * microcontroller. tools/replay (tlsf-replay) reads the result and runs it again on TLSF in
 * several configurations and on other heaps (docs/trace.md).
 *
 * The recorder sits beside the heap, not in it: a hook calls tlsf_trace_malloc and friends
 * after (or, for a free, before) the heap call it describes. Nothing here is compiled into
 * the core, so a program that does not record pays nothing; the hooks of the drop-in malloc,
 * the C++ default heap and the FreeRTOS port are compiled in only when asked for
 * (docs/trace.md, "Hooks").
 *
 * Two ways to name a block. With a table (the default), a free names the block by a small id
 * and the recorder knows how many bytes it gives back: the trace carries the recorder's own
 * totals, which a replay must reproduce, and frees of blocks allocated before recording
 * started are left out. By address (config.name_by_address), every record carries the
 * block's address instead, and the recorder keeps no table: a call costs the encoding of one
 * record and nothing else, which is what the drop-in malloc records a whole program with; the
 * replay then tells the blocks apart, and ignores the frees of blocks it never saw allocated.
 *
 * Memory and cost. Everything lives in memory the caller gives to tlsf_trace_create: the
 * recorder's state, a staging buffer for the encoded records (handed to the sink whenever it
 * is full), and, unless blocks are named by address, the table of the live blocks, which
 * maps an address to the block's id and requested size. Every call is bounded: at most
 * TLSF_TRACE_PROBES slots of the table are read (open addressing, linear probing, freed
 * slots left as tombstones that the next insertion in their window reuses, so nothing ever
 * moves and an id stays the block's slot), plus the encoding of one record (at most
 * TLSF_TRACE_RECORD_MAX bytes) and, when the buffer is full, one call of the sink; with
 * TLSF_TRACE_BATCH above 1 the table work of that many calls is done together, every
 * TLSF_TRACE_BATCH-th call. When the window of a new block holds only live blocks the table
 * is full: recording stops there, and the trace says so (a replay then refuses it). Give the
 * table at least twice as many slots as the program has live blocks at its peak.
 *
 * No allocation, no stdio, no global state: freestanding C99 (<stddef.h>, <stdint.h>).
 *
 * Threads: a recorder is not locked. Calls on one recorder must not overlap, and the order
 * of the records must be an order in which the heap calls could have happened: record a free
 * before the block is freed, an allocation after it returned, and hold the lock across a
 * realloc and its record (a block freed by the realloc can otherwise be handed to another
 * thread, whose record would come first). The drop-in malloc's hook does this with one
 * spinlock (docs/trace.md).
 *
 * ---- The format (version 1) ---------------------------------------------------------------
 * All integers are little-endian; "varint" is unsigned LEB128 (7 bits per byte, low first,
 * the high bit set on every byte but the last; at most 10 bytes, no redundant zero bytes).
 *
 * Header, 24 bytes:
 *    0  8  magic "TLSFtrc" followed by the version byte 0x01
 *    8  1  flags: bit 0 TLSF_TRACE_TIMES (every record starts with a time delta),
 *                 bit 1 TLSF_TRACE_ADDRESSES (every successful allocation carries its
 *                 address), bit 2 TLSF_TRACE_BY_ADDRESS (blocks are named by address, not
 *                 id: implies bit 1); the other bits are 0
 *    9  1  pointer size of the recording program, in bytes (4 or 8)
 *   10  1  log2 of the recording heap's alignment (0: unknown)
 *   11  1  the width of an id in bytes, 1 to 4: the fewest that hold every id (0 by address)
 *   12  4  the table's slot count: every id is below it (0 by address)
 *   16  8  clock ticks per second of the time deltas (0: unknown, or no times)
 *
 * Records follow, each starting with a tag byte: the operation in bits 0-3, TLSF_TRACE_FAILED
 * (0x10) on an allocation that returned NULL, TLSF_TRACE_TABLE_FULL (0x20) on the end record
 * of a recording the table stopped; bits 6-7 are 0. Then, in this order (an "id" is a
 * little-endian number of the header's id width):
 *   - with TLSF_TRACE_TIMES: varint, the clock's advance since the previous record;
 *   - per operation:
 *       MALLOC    varint size;                       unless failed: varint id [, address]
 *       CALLOC    varint size (count * size);        unless failed: varint id [, address]
 *       MEMALIGN  byte log2(alignment), varint size; unless failed: varint id [, address]
 *       REALLOC   varint old id, varint size;        unless failed: varint id [, address]
 *                 (a failed realloc leaves the old block live; one that succeeded freed it)
 *       FREE      varint id
 *       MARK      byte length n, then n bytes of label (a phase of the program)
 *       END       varint calls recorded, varint live blocks, varint live bytes, varint
 *                 peak live bytes, varint frees of untracked pointers, varint calls dropped
 *                 after the table filled; the last record of a trace
 *   - an address is a zigzag varint of its difference to the previous address recorded
 *     (zigzag: 2d for d >= 0, -2d - 1 for d < 0, modulo 2^64).
 * By address (TLSF_TRACE_BY_ADDRESS) every "id" above is an address instead, and the
 * addresses are always there: MALLOC size, address; REALLOC old address, size [, address];
 * FREE address. The END record's live blocks, live and peak live bytes and untracked frees
 * are then 0: the recorder does not know them.
 * Sizes are requested sizes; live bytes are the sum of the requested sizes of the live
 * blocks. An id is live from the record that returns it to the FREE or successful REALLOC
 * that names it. Frees of pointers the recorder never saw allocated (before recording started,
 * or NULL) are counted, not recorded. A trace that stops without an END record lost its tail
 * (the program did not exit through its destructors); one that stops inside a record is
 * truncated.
 */
#ifndef TLSF_TRACE_H
#define TLSF_TRACE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Format constants (see above) --------------------------------------------------------- */
#define TLSF_TRACE_VERSION 1
#define TLSF_TRACE_HEADER_BYTES 24
#define TLSF_TRACE_TIMES 0x01u      /* header flag */
#define TLSF_TRACE_ADDRESSES 0x02u  /* header flag */
#define TLSF_TRACE_BY_ADDRESS 0x04u /* header flag */

enum tlsf_trace_op {
    TLSF_TRACE_MALLOC = 1,
    TLSF_TRACE_CALLOC = 2,
    TLSF_TRACE_MEMALIGN = 3,
    TLSF_TRACE_REALLOC = 4,
    TLSF_TRACE_FREE = 5,
    TLSF_TRACE_MARK = 6,
    TLSF_TRACE_END = 7
};
#define TLSF_TRACE_OP_MASK 0x0Fu
#define TLSF_TRACE_FAILED 0x10u     /* tag bit: the allocation returned NULL */
#define TLSF_TRACE_TABLE_FULL 0x20u /* tag bit of END: recording stopped, table full */

/* The longest record the recorder writes (an END record, or a MARK with a full label). */
#define TLSF_TRACE_LABEL_MAX 255
#define TLSF_TRACE_RECORD_MAX (1 + 10 + 1 + TLSF_TRACE_LABEL_MAX)
/* Slots read at most per call (the bound of every call's table work). */
#define TLSF_TRACE_PROBES 64
/* Calls noted before their table work is done together (tlsf_trace.c: the slots' cache misses
 * then overlap): 32 on 64-bit targets, 1 (at once) elsewhere, where memory is scarce and
 * caches small. A compile-time setting of the recorder. */
#ifndef TLSF_TRACE_BATCH
#if UINTPTR_MAX > 0xFFFFFFFFu
#define TLSF_TRACE_BATCH 32
#else
#define TLSF_TRACE_BATCH 1
#endif
#endif

/* ---- The recorder --------------------------------------------------------------------------- */

/*
 * The sink: called with the next `length` bytes of the trace (header and whole records,
 * never part of a record), in order. Returns 0 when it took them all, anything else when it
 * could not: the recorder then stops (tlsf_trace_stats_t.sink_failed) and writes nothing
 * more, since a trace with a gap cannot be replayed.
 */
typedef int (*tlsf_trace_sink_t)(void *user, const void *bytes, size_t length);

/* A clock for time stamps: any monotonic count (cycles, microseconds, ticks). */
typedef uint64_t (*tlsf_trace_clock_t)(void *user);

typedef struct tlsf_trace_config {
    tlsf_trace_sink_t sink;    /* required */
    void *sink_user;           /* passed back to the sink */
    tlsf_trace_clock_t clock;  /* NULL: no time stamps */
    void *clock_user;          /* passed back to the clock */
    uint64_t ticks_per_second; /* of the clock, for the reader (0: unknown) */
    size_t buffer_bytes;       /* staging buffer: at least TLSF_TRACE_RECORD_MAX (0: 1 KiB) */
    unsigned heap_align_log2;  /* the recording heap's alignment, for the reader (0: unknown) */
    int record_addresses;      /* 1: allocations carry their address (TLSF_TRACE_ADDRESSES) */
    int memory_is_zero;        /* 1: the memory is all zero bytes (fresh from mmap): the
                                  table is not cleared, its untouched pages stay unused */
    int name_by_address;       /* 1: no table, blocks named by address (TLSF_TRACE_BY_ADDRESS) */
} tlsf_trace_config_t;

/* A recorder: it lives in the memory given to tlsf_trace_create. */
typedef struct tlsf_trace tlsf_trace_t;

/* What a recorder has seen: the program's own totals, which a replay must reproduce. */
typedef struct tlsf_trace_stats {
    uint64_t calls;           /* records of heap calls written (allocations and frees) */
    uint64_t live_blocks;     /* blocks allocated and not yet freed */
    uint64_t live_bytes;      /* their requested bytes */
    uint64_t peak_live_bytes; /* the highest live_bytes so far */
    uint64_t untracked_frees; /* frees (and reallocs) of pointers never recorded allocated */
    uint64_t dropped_calls;   /* calls ignored after recording stopped */
    uint64_t bytes_written;   /* trace bytes handed to the sink */
    uint64_t table_slots;     /* the table's slot count */
    int table_full;           /* 1: a block found no slot, recording stopped there */
    int sink_failed;          /* 1: the sink refused bytes, recording stopped there */
    int finished;             /* 1: tlsf_trace_finish was called */
} tlsf_trace_stats_t;

/*
 * tlsf_trace_memory_bytes: the memory tlsf_trace_create needs for a table of at least
 * `slots` slots (rounded up to a power of two; give twice the live blocks expected at the
 * peak; 0 for a recorder that names blocks by address, which has no table) and a staging
 * buffer of `buffer_bytes` (0: 1 KiB), alignment slack included. 0 if the sum overflows
 * size_t or `slots` is above 2^31.
 */
size_t tlsf_trace_memory_bytes(size_t slots, size_t buffer_bytes);

/*
 * tlsf_trace_create: build a recorder in `memory` (`bytes` bytes, any alignment), whose table
 * takes the largest power-of-two slot count that fits after the state and the staging buffer
 * (none by address), and write the header through the staging buffer (the sink first hears
 * of it when the buffer fills or on tlsf_trace_flush). Returns the recorder, or NULL if
 * `memory` or `config` or its sink is NULL, `config->buffer_bytes` is below
 * TLSF_TRACE_RECORD_MAX (and not 0), or the memory holds fewer than 16 slots (by address:
 * not the state and the buffer). The recorder holds no other resource.
 */
tlsf_trace_t *tlsf_trace_create(void *memory, size_t bytes, const tlsf_trace_config_t *config);

/*
 * The heap calls. Each records one call that has happened: `result` is what the heap
 * returned (NULL: the call failed, recorded with TLSF_TRACE_FAILED and no id). A NULL
 * recorder is ignored, so a hook needs no test of its own; so is every call after recording
 * stopped (finished, table full, sink failed), which only counts in dropped_calls.
 *
 * tlsf_trace_malloc: malloc(size) returned `result`. Every free of a recorded block must be
 * recorded: a block freed behind the recorder's back stays live in the trace and its slot.
 * tlsf_trace_calloc: calloc(count, size); the size recorded is the product, SIZE_MAX
 * when it overflows (such a call can only have failed).
 * tlsf_trace_memalign: an aligned allocation (memalign, aligned_alloc, posix_memalign). A
 * zero or non-power-of-two `align` is recorded rounded up to the next power of two (as
 * glibc's memalign serves it), 1 for 0.
 * tlsf_trace_realloc: realloc(old, size) returned `result`. With `result` non-NULL the old
 * block is freed and `result` allocated (also when they are equal: the id may change); with
 * NULL it failed and `old` stays live. `old` == NULL is recorded as a malloc; an `old` the
 * recorder does not know (allocated before recording started) counts as an untracked free
 * and the result is recorded as a malloc. A realloc to size 0 that freed the block (glibc's
 * and TLSF's realloc(p, 0)) must be recorded with tlsf_trace_free.
 * tlsf_trace_free: free(ptr), recorded before the heap frees it (see "Threads"). NULL is
 * ignored; a pointer the table does not hold counts in untracked_frees and writes nothing.
 */
void tlsf_trace_malloc(tlsf_trace_t *trace, size_t size, const void *result);
void tlsf_trace_calloc(tlsf_trace_t *trace, size_t count, size_t size, const void *result);
void tlsf_trace_memalign(tlsf_trace_t *trace, size_t align, size_t size, const void *result);
void tlsf_trace_realloc(tlsf_trace_t *trace, const void *old, size_t size, const void *result);
void tlsf_trace_free(tlsf_trace_t *trace, const void *ptr);

/*
 * tlsf_trace_mark: a label in the trace (a phase of the program: "boot", "frame 1000"), which
 * the replay reports next to the calls it names. At most TLSF_TRACE_LABEL_MAX bytes of
 * `label` are kept; NULL is the empty label. Not counted in calls.
 */
void tlsf_trace_mark(tlsf_trace_t *trace, const char *label);

/*
 * tlsf_trace_flush: hand what the staging buffer holds to the sink. Returns 0, or -1 if the
 * sink failed now or before (recording has then stopped) or the recorder is NULL.
 */
int tlsf_trace_flush(tlsf_trace_t *trace);

/*
 * tlsf_trace_finish: write the END record (the totals of tlsf_trace_get_stats) and flush.
 * Afterwards the recorder records nothing; the memory may be reused. Returns as
 * tlsf_trace_flush; a second call returns 0 and writes nothing.
 */
int tlsf_trace_finish(tlsf_trace_t *trace);

/* tlsf_trace_get_stats: the totals so far (the queued calls are recorded first). NULL
 * arguments are ignored. */
void tlsf_trace_get_stats(tlsf_trace_t *trace, tlsf_trace_stats_t *stats);

#ifdef __cplusplus
}
#endif

#endif /* TLSF_TRACE_H */
