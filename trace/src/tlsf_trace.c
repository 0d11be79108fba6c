/* SPDX-License-Identifier: MIT */
/*
 * tlsf_trace.c - the recorder (tlsf_trace.h).
 *
 * Layout of the caller's memory: the state (struct tlsf_trace), the staging buffer, the
 * table. The table is open addressing with linear probing over a power-of-two number of
 * slots; a slot holds a live block's address and requested size, and its index is the
 * block's id, so an id is small, stable while the block lives, and free again when it dies.
 *
 * Why the table's work is bounded (TLSF_TRACE_PROBES slots per call): a block is placed in
 * the first reusable slot (empty or tombstone) at most TLSF_TRACE_PROBES - 1 slots past its
 * home slot, so a lookup stops there at the latest (or at the first empty slot, which no
 * probe sequence crosses). Entries never move, which is what keeps ids stable; a freed slot
 * becomes a tombstone, except that a slot followed by an empty one becomes empty itself
 * (no block can sit behind an empty slot and rely on passing it), and so do the tombstones
 * just before it, up to TLSF_TRACE_PROBES of them: the ends of runs stay clean, so tombstones
 * do not pile up and lookups of absent pointers stay short.
 */
#include "tlsf_trace.h"

#include "tlsf_trace_format.h"

/* Slot states besides a live block's address (heap blocks are never at 0 or 1). */
#define SLOT_EMPTY ((uintptr_t)0)
#define SLOT_TOMBSTONE ((uintptr_t)1)
#define BUFFER_DEFAULT 1024u
#define SLOTS_MIN 16u
#define SLOTS_MAX ((size_t)1 << 31) /* ids are written as 32-bit numbers in the header */
#define STATE_ALIGN 16u

typedef struct trace_slot {
    uintptr_t address;
    size_t size; /* requested bytes */
} trace_slot_t;

struct tlsf_trace {
    tlsf_trace_sink_t sink;
    void *sink_user;
    tlsf_trace_clock_t clock;
    void *clock_user;
    unsigned char *buffer;
    size_t buffer_bytes;
    size_t used; /* bytes of the buffer holding records not yet given to the sink */
    trace_slot_t *slots;
    size_t slot_mask;    /* slots - 1 */
    unsigned hash_shift; /* 64 - log2(slots) */
    int addresses;       /* record addresses */
    int stopped;         /* finished, table full or sink failed: record nothing more */
    uint64_t last_time;
    uint64_t last_address;
    tlsf_trace_stats_t stats;
};

static size_t round_up(size_t value, size_t align) {
    return (value + align - 1) / align * align;
}

/* ---- The staging buffer and the sink ------------------------------------------------------ */

static int flush_buffer(tlsf_trace_t *trace) {
    if (trace->stats.sink_failed) return -1;
    if (trace->used == 0) return 0;
    if (trace->sink(trace->sink_user, trace->buffer, trace->used) != 0) {
        trace->stats.sink_failed = 1;
        trace->stopped = 1;
        return -1;
    }
    trace->stats.bytes_written += trace->used;
    trace->used = 0;
    return 0;
}

/* Room for the longest record at the end of the buffer (the sink takes the rest first), or
 * NULL when the sink failed. */
static unsigned char *record_begin(tlsf_trace_t *trace) {
    if (trace->buffer_bytes - trace->used < TLSF_TRACE_RECORD_MAX && flush_buffer(trace) != 0)
        return NULL;
    return trace->buffer + trace->used;
}

/* The tag, then the time delta when the recorder has a clock. */
static unsigned char *put_tag(tlsf_trace_t *trace, unsigned char *out, unsigned tag) {
    *out++ = (unsigned char)tag;
    if (trace->clock != NULL) {
        uint64_t now = trace->clock(trace->clock_user);
        out += trace_put_varint(out, now - trace->last_time);
        trace->last_time = now;
    }
    return out;
}

static unsigned char *put_address(tlsf_trace_t *trace, unsigned char *out, const void *ptr) {
    uint64_t address = (uint64_t)(uintptr_t)ptr;
    if (!trace->addresses) return out;
    out += trace_put_varint(out, trace_zigzag(address - trace->last_address));
    trace->last_address = address;
    return out;
}

static void record_end(tlsf_trace_t *trace, unsigned char *end) {
    trace->used = (size_t)(end - trace->buffer);
}

/* ---- The table ---------------------------------------------------------------------------- */

/* Fibonacci hashing: the top bits of the address times 2^64 / golden ratio. */
static size_t home_of(const tlsf_trace_t *trace, uintptr_t address) {
    return (size_t)(((uint64_t)address * UINT64_C(0x9E3779B97F4A7C15)) >> trace->hash_shift);
}

static trace_slot_t *slot_find(tlsf_trace_t *trace, uintptr_t address) {
    size_t at = home_of(trace, address), k;
    for (k = 0; k < TLSF_TRACE_PROBES; ++k) {
        trace_slot_t *slot = &trace->slots[(at + k) & trace->slot_mask];
        if (slot->address == address) return slot;
        if (slot->address == SLOT_EMPTY) return NULL;
    }
    return NULL;
}

static trace_slot_t *slot_place(tlsf_trace_t *trace, uintptr_t address) {
    size_t at = home_of(trace, address), k;
    for (k = 0; k < TLSF_TRACE_PROBES; ++k) {
        trace_slot_t *slot = &trace->slots[(at + k) & trace->slot_mask];
        if (slot->address <= SLOT_TOMBSTONE) return slot;
    }
    return NULL;
}

static void slot_release(tlsf_trace_t *trace, trace_slot_t *slot) {
    size_t at = (size_t)(slot - trace->slots), k;
    if (trace->slots[(at + 1) & trace->slot_mask].address != SLOT_EMPTY) {
        slot->address = SLOT_TOMBSTONE;
        return;
    }
    slot->address = SLOT_EMPTY;
    for (k = 1; k < TLSF_TRACE_PROBES; ++k) {
        trace_slot_t *before = &trace->slots[(at - k) & trace->slot_mask];
        if (before->address != SLOT_TOMBSTONE) break;
        before->address = SLOT_EMPTY;
    }
}

static uint32_t id_of(const tlsf_trace_t *trace, const trace_slot_t *slot) {
    return (uint32_t)(slot - trace->slots);
}

/* A call that cannot be recorded any more. */
static int dropped(tlsf_trace_t *trace) {
    if (!trace->stopped) return 0;
    trace->stats.dropped_calls++;
    return 1;
}

static void stop_table_full(tlsf_trace_t *trace) {
    trace->stats.table_full = 1;
    trace->stopped = 1;
    trace->stats.dropped_calls++;
}

static void add_live(tlsf_trace_t *trace, trace_slot_t *slot, const void *ptr, size_t size) {
    slot->address = (uintptr_t)ptr;
    slot->size = size;
    trace->stats.live_blocks++;
    trace->stats.live_bytes += size;
    if (trace->stats.live_bytes > trace->stats.peak_live_bytes)
        trace->stats.peak_live_bytes = trace->stats.live_bytes;
}

static void remove_live(tlsf_trace_t *trace, trace_slot_t *slot) {
    trace->stats.live_blocks--;
    trace->stats.live_bytes -= slot->size;
    slot_release(trace, slot);
}

/* ---- Creation ------------------------------------------------------------------------------ */

size_t tlsf_trace_memory_bytes(size_t slots, size_t buffer_bytes) {
    size_t count = SLOTS_MIN, bytes;
    if (slots == 0 || slots > SLOTS_MAX) return 0;
    while (count < slots)
        count <<= 1;
    if (buffer_bytes == 0) buffer_bytes = BUFFER_DEFAULT;
    if (buffer_bytes > (size_t)-1 / 2 || count > ((size_t)-1 / 2) / sizeof(trace_slot_t)) return 0;
    bytes = STATE_ALIGN + round_up(sizeof(struct tlsf_trace), STATE_ALIGN) +
            round_up(buffer_bytes, STATE_ALIGN);
    if (bytes > (size_t)-1 - count * sizeof(trace_slot_t)) return 0;
    return bytes + count * sizeof(trace_slot_t);
}

static void write_header(tlsf_trace_t *trace, unsigned flags, unsigned align_log2,
                         uint64_t ticks_per_second) {
    unsigned char *out = trace->buffer;
    unsigned k;
    for (k = 0; k < 8; ++k)
        out[k] = trace_magic[k];
    out[8] = (unsigned char)flags;
    out[9] = (unsigned char)sizeof(void *);
    out[10] = (unsigned char)align_log2;
    out[11] = 0;
    trace_put_u32(out + 12, (uint32_t)(trace->slot_mask + 1));
    trace_put_u64(out + 16, ticks_per_second);
    trace->used = TLSF_TRACE_HEADER_BYTES;
}

tlsf_trace_t *tlsf_trace_create(void *memory, size_t bytes, const tlsf_trace_config_t *config) {
    uintptr_t start, end;
    size_t buffer_bytes, state_bytes, room, count = SLOTS_MIN, k;
    tlsf_trace_t *trace;
    unsigned log2 = 4; /* log2(SLOTS_MIN) */
    if (memory == NULL || config == NULL || config->sink == NULL) return NULL;
    buffer_bytes = config->buffer_bytes ? config->buffer_bytes : BUFFER_DEFAULT;
    if (buffer_bytes < TLSF_TRACE_RECORD_MAX || buffer_bytes > (size_t)-1 / 4) return NULL;
    start = round_up((uintptr_t)memory, STATE_ALIGN);
    end = (uintptr_t)memory + bytes;
    if (end < (uintptr_t)memory) end = (uintptr_t)-1; /* a size that wraps: take what exists */
    state_bytes =
        round_up(sizeof(struct tlsf_trace), STATE_ALIGN) + round_up(buffer_bytes, STATE_ALIGN);
    if (end < start || end - start < state_bytes) return NULL;
    room = (size_t)(end - start) - state_bytes;
    if (room / sizeof(trace_slot_t) < SLOTS_MIN) return NULL;
    while (count < SLOTS_MAX && room / sizeof(trace_slot_t) >= 2 * count) {
        count <<= 1;
        ++log2;
    }

    trace = (tlsf_trace_t *)start;
    trace->sink = config->sink;
    trace->sink_user = config->sink_user;
    trace->clock = config->clock;
    trace->clock_user = config->clock_user;
    trace->buffer = (unsigned char *)start + round_up(sizeof(struct tlsf_trace), STATE_ALIGN);
    trace->buffer_bytes = buffer_bytes;
    trace->used = 0;
    trace->slots = (trace_slot_t *)(void *)((unsigned char *)start + state_bytes);
    trace->slot_mask = count - 1;
    trace->hash_shift = 64u - log2;
    trace->addresses = config->record_addresses != 0;
    trace->stopped = 0;
    trace->last_time = config->clock != NULL ? config->clock(config->clock_user) : 0;
    trace->last_address = 0;
    for (k = 0; k < count; ++k) {
        trace->slots[k].address = SLOT_EMPTY;
        trace->slots[k].size = 0;
    }
    {
        tlsf_trace_stats_t zero = {0};
        trace->stats = zero;
    }
    trace->stats.table_slots = count;
    write_header(trace,
                 (config->clock != NULL ? TLSF_TRACE_TIMES : 0u) |
                     (trace->addresses ? TLSF_TRACE_ADDRESSES : 0u),
                 config->heap_align_log2 < 64 ? config->heap_align_log2 : 0,
                 config->clock != NULL ? config->ticks_per_second : 0);
    return trace;
}

/* ---- The heap calls ------------------------------------------------------------------------- */

/* An allocation of `size` bytes (MALLOC, CALLOC) or with an alignment (MEMALIGN). */
static void record_allocation(tlsf_trace_t *trace, unsigned op, unsigned align_log2, size_t size,
                              const void *result) {
    trace_slot_t *slot = NULL;
    unsigned char *out;
    if (trace == NULL || dropped(trace)) return;
    if (result != NULL) {
        slot = slot_place(trace, (uintptr_t)result);
        if (slot == NULL) {
            stop_table_full(trace);
            return;
        }
    }
    out = record_begin(trace);
    if (out == NULL) return;
    out = put_tag(trace, out, op | (result == NULL ? TLSF_TRACE_FAILED : 0u));
    if (op == TLSF_TRACE_MEMALIGN) *out++ = (unsigned char)align_log2;
    out += trace_put_varint(out, size);
    if (slot != NULL) {
        out += trace_put_varint(out, id_of(trace, slot));
        out = put_address(trace, out, result);
        add_live(trace, slot, result, size);
    }
    record_end(trace, out);
    trace->stats.calls++;
}

void tlsf_trace_malloc(tlsf_trace_t *trace, size_t size, const void *result) {
    record_allocation(trace, TLSF_TRACE_MALLOC, 0, size, result);
}

void tlsf_trace_calloc(tlsf_trace_t *trace, size_t count, size_t size, const void *result) {
    size_t bytes = size != 0 && count > (size_t)-1 / size ? (size_t)-1 : count * size;
    record_allocation(trace, TLSF_TRACE_CALLOC, 0, bytes, result);
}

void tlsf_trace_memalign(tlsf_trace_t *trace, size_t align, size_t size, const void *result) {
    unsigned log2 = 0;
    while (log2 < 8 * sizeof(size_t) - 1 && ((size_t)1 << log2) < align)
        ++log2;
    record_allocation(trace, TLSF_TRACE_MEMALIGN, log2, size, result);
}

void tlsf_trace_realloc(tlsf_trace_t *trace, const void *old, size_t size, const void *result) {
    trace_slot_t *from, *to = NULL;
    unsigned char *out;
    if (trace == NULL || dropped(trace)) return;
    from = old != NULL ? slot_find(trace, (uintptr_t)old) : NULL;
    if (from == NULL) {
        if (old != NULL && result != NULL) trace->stats.untracked_frees++;
        record_allocation(trace, TLSF_TRACE_MALLOC, 0, size, result);
        return;
    }
    if (result != NULL) {
        to = slot_place(trace, (uintptr_t)result);
        if (to == NULL) {
            stop_table_full(trace);
            return;
        }
    }
    out = record_begin(trace);
    if (out == NULL) return;
    out = put_tag(trace, out, TLSF_TRACE_REALLOC | (result == NULL ? TLSF_TRACE_FAILED : 0u));
    out += trace_put_varint(out, id_of(trace, from));
    out += trace_put_varint(out, size);
    if (to != NULL) {
        out += trace_put_varint(out, id_of(trace, to));
        out = put_address(trace, out, result);
        /* The old block goes first: `to` may be the slot it frees when the new block sits
         * at the same address. It was placed before, so it is another slot. */
        remove_live(trace, from);
        add_live(trace, to, result, size);
    }
    record_end(trace, out);
    trace->stats.calls++;
}

void tlsf_trace_free(tlsf_trace_t *trace, const void *ptr) {
    trace_slot_t *slot;
    unsigned char *out;
    if (trace == NULL || ptr == NULL || dropped(trace)) return;
    slot = slot_find(trace, (uintptr_t)ptr);
    if (slot == NULL) {
        trace->stats.untracked_frees++;
        return;
    }
    out = record_begin(trace);
    if (out == NULL) return;
    out = put_tag(trace, out, TLSF_TRACE_FREE);
    out += trace_put_varint(out, id_of(trace, slot));
    remove_live(trace, slot);
    record_end(trace, out);
    trace->stats.calls++;
}

void tlsf_trace_mark(tlsf_trace_t *trace, const char *label) {
    unsigned char *out;
    size_t length = 0;
    if (trace == NULL || trace->stopped) return;
    out = record_begin(trace);
    if (out == NULL) return;
    out = put_tag(trace, out, TLSF_TRACE_MARK);
    if (label != NULL)
        while (length < TLSF_TRACE_LABEL_MAX && label[length] != '\0')
            ++length;
    *out++ = (unsigned char)length;
    {
        size_t k;
        for (k = 0; k < length; ++k)
            *out++ = (unsigned char)label[k];
    }
    record_end(trace, out);
}

int tlsf_trace_flush(tlsf_trace_t *trace) {
    if (trace == NULL) return -1;
    return flush_buffer(trace);
}

int tlsf_trace_finish(tlsf_trace_t *trace) {
    unsigned char *out;
    if (trace == NULL) return -1;
    if (trace->stats.finished) return 0;
    if (trace->stats.sink_failed) return -1;
    out = record_begin(trace);
    if (out == NULL) return -1;
    out = put_tag(trace, out,
                  TLSF_TRACE_END | (trace->stats.table_full ? TLSF_TRACE_TABLE_FULL : 0u));
    out += trace_put_varint(out, trace->stats.calls);
    out += trace_put_varint(out, trace->stats.live_blocks);
    out += trace_put_varint(out, trace->stats.live_bytes);
    out += trace_put_varint(out, trace->stats.peak_live_bytes);
    out += trace_put_varint(out, trace->stats.untracked_frees);
    out += trace_put_varint(out, trace->stats.dropped_calls);
    record_end(trace, out);
    trace->stats.finished = 1;
    trace->stopped = 1;
    return flush_buffer(trace);
}

void tlsf_trace_get_stats(const tlsf_trace_t *trace, tlsf_trace_stats_t *stats) {
    if (trace == NULL || stats == NULL) return;
    *stats = trace->stats;
}
