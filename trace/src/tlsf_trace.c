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
 *
 * Why calls are queued (TLSF_TRACE_BATCH, tlsf_trace.h): a slot is wherever the hash puts
 * it, so in a large table each call's slot is a cache miss, most of the recorder's cost on a
 * host (CPython under the drop-in malloc, 12.7 million calls, a 4-million-slot table: 43 ns
 * per call recorded one at a time, against 22 ns in batches of 32). A call therefore only
 * notes its arguments (and the time); every TLSF_TRACE_BATCH calls the recorder first
 * touches the home slots of the whole batch (prefetch, so that the misses overlap) and then
 * records the calls in their order. The records, ids and totals are those of one call at a
 * time; tlsf_trace_flush, tlsf_trace_finish, tlsf_trace_mark and tlsf_trace_get_stats
 * record the queue first. The encoding is kept short for the same reason: ids have a fixed
 * width (the header's), sizes of one or two bytes take no loop.
 */
#include "tlsf_trace.h"

#include "tlsf_trace_format.h"

/* Slot states besides a live block's address (heap blocks are never at 0 or 1). */
#define SLOT_EMPTY ((uintptr_t)0)
#define SLOT_TOMBSTONE ((uintptr_t)1)
#define BUFFER_DEFAULT 1024u
#define SLOTS_MIN 16u
#define SLOTS_MAX ((size_t)1 << 31) /* ids are at most 4 bytes */
#define STATE_ALIGN 16u
/* The longest record of a heap call: tag, time, alignment, size, the old block and the new
 * (ids of at most 4 bytes, or addresses), an address. */
#define CALL_RECORD_MAX (1 + 10 + 1 + 10 + 10 + 10 + 10)

typedef struct trace_slot {
    uintptr_t address;
    size_t size; /* requested bytes */
} trace_slot_t;

/* A call noted, not yet recorded. */
typedef struct trace_call {
    const void *result; /* the block returned (free: the block freed) */
    const void *old;    /* realloc: the block given */
    size_t size;
    size_t home; /* of the slot looked up first (the realloc's old block's, or the result's) */
    uint64_t time;
    unsigned char op;
    unsigned char align_log2;
} trace_call_t;

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
    unsigned id_bytes;   /* the width of an id in the records: 1 to 4 */
    int addresses;       /* record addresses */
    int by_address;      /* no table: blocks are named by address */
    int stopped;         /* finished, table full or sink failed: record nothing more */
    uint64_t last_time;
    uint64_t last_address;
    unsigned queued; /* calls noted in `queue`, not yet recorded */
    trace_call_t queue[TLSF_TRACE_BATCH];
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

/* Room for `longest` bytes at the end of the buffer (the sink takes the rest first), or NULL
 * when the sink failed. */
static unsigned char *record_begin(tlsf_trace_t *trace, size_t longest) {
    if (trace->buffer_bytes - trace->used < longest && flush_buffer(trace) != 0) return NULL;
    return trace->buffer + trace->used;
}

static void record_end(tlsf_trace_t *trace, unsigned char *end) {
    trace->used = (size_t)(end - trace->buffer);
}

/* The tag, then the time delta when the recorder has a clock (`now`: the clock's reading
 * when the call was made). */
static unsigned char *put_tag(tlsf_trace_t *trace, unsigned char *out, unsigned tag, uint64_t now) {
    *out++ = (unsigned char)tag;
    if (trace->clock != NULL) {
        out += trace_put_varint(out, now - trace->last_time);
        trace->last_time = now;
    }
    return out;
}

static uint64_t clock_now(const tlsf_trace_t *trace) {
    return trace->clock != NULL ? trace->clock(trace->clock_user) : 0;
}

/* A size: most take one or two bytes, written without the loop. */
static unsigned char *put_size(unsigned char *out, size_t size) {
    if (size < 0x80u) {
        out[0] = (unsigned char)size;
        return out + 1;
    }
    if (size < 0x4000u) {
        out[0] = (unsigned char)(size | 0x80u);
        out[1] = (unsigned char)(size >> 7);
        return out + 2;
    }
    return out + trace_put_varint(out, size);
}

/* An id in the header's fixed width (the buffer always has room for four bytes). */
static unsigned char *put_id(const tlsf_trace_t *trace, unsigned char *out, size_t id) {
    trace_put_u32(out, (uint32_t)id);
    return out + trace->id_bytes;
}

static unsigned char *put_address(tlsf_trace_t *trace, unsigned char *out, const void *ptr) {
    uint64_t address = (uint64_t)(uintptr_t)ptr;
    if (!trace->addresses) return out;
    out += trace_put_varint(out, trace_zigzag(address - trace->last_address));
    trace->last_address = address;
    return out;
}

/* ---- The table ---------------------------------------------------------------------------- */

/* Fibonacci hashing: the top bits of the address times 2^64 / golden ratio. */
static size_t home_of(const tlsf_trace_t *trace, const void *address) {
    return (size_t)(((uint64_t)(uintptr_t)address * UINT64_C(0x9E3779B97F4A7C15)) >>
                    trace->hash_shift);
}

/* The slot of the live block at `address` (home: home_of(address)), or NULL. */
static trace_slot_t *slot_find(tlsf_trace_t *trace, size_t home, const void *address) {
    size_t k;
    for (k = 0; k < TLSF_TRACE_PROBES; ++k) {
        trace_slot_t *slot = &trace->slots[(home + k) & trace->slot_mask];
        if (slot->address == (uintptr_t)address) return slot;
        if (slot->address == SLOT_EMPTY) return NULL;
    }
    return NULL;
}

/* A reusable slot for a block whose home is `home`, or NULL when the table is full there. */
static trace_slot_t *slot_place(tlsf_trace_t *trace, size_t home) {
    size_t k;
    for (k = 0; k < TLSF_TRACE_PROBES; ++k) {
        trace_slot_t *slot = &trace->slots[(home + k) & trace->slot_mask];
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

static size_t id_of(const tlsf_trace_t *trace, const trace_slot_t *slot) {
    return (size_t)(slot - trace->slots);
}

/* The call being recorded finds no slot: it is dropped, and so is everything after it. */
static void stop_table_full(tlsf_trace_t *trace) {
    trace->stats.table_full = 1;
    trace->stopped = 1;
    trace->stats.dropped_calls++;
}

/* Room for a call's record, or NULL when the sink failed: the call is dropped. */
static unsigned char *call_record_begin(tlsf_trace_t *trace) {
    unsigned char *out = record_begin(trace, CALL_RECORD_MAX);
    if (out == NULL) trace->stats.dropped_calls++;
    return out;
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
    if (slots > SLOTS_MAX) return 0;
    if (slots == 0) count = 0; /* by address: no table */
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
    out[11] = (unsigned char)trace->id_bytes;
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
    if (config->name_by_address) {
        count = 0;
    } else {
        if (room / sizeof(trace_slot_t) < SLOTS_MIN) return NULL;
        while (count < SLOTS_MAX && room / sizeof(trace_slot_t) >= 2 * count) {
            count <<= 1;
            ++log2;
        }
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
    trace->id_bytes = count ? (log2 + 7) / 8 : 0;
    trace->by_address = config->name_by_address != 0;
    trace->addresses = config->record_addresses != 0 || trace->by_address;
    trace->stopped = 0;
    trace->last_time = config->clock != NULL ? config->clock(config->clock_user) : 0;
    trace->last_address = 0;
    trace->queued = 0;
    /* Memory fresh from the system is zero, every slot empty already: not touching it keeps
     * the pages the table never uses out of memory. */
    if (!config->memory_is_zero) {
        for (k = 0; k < count; ++k) {
            trace->slots[k].address = SLOT_EMPTY;
            trace->slots[k].size = 0;
        }
    }
    {
        tlsf_trace_stats_t zero = {0};
        trace->stats = zero;
    }
    trace->stats.table_slots = count;
    write_header(trace,
                 (config->clock != NULL ? TLSF_TRACE_TIMES : 0u) |
                     (trace->addresses ? TLSF_TRACE_ADDRESSES : 0u) |
                     (trace->by_address ? TLSF_TRACE_BY_ADDRESS : 0u),
                 config->heap_align_log2 < 64 ? config->heap_align_log2 : 0,
                 config->clock != NULL ? config->ticks_per_second : 0);
    return trace;
}

/* ---- Recording the queued calls ------------------------------------------------------------ */

/* An allocation (MALLOC, CALLOC, MEMALIGN); `op` may differ from the call's (a realloc of an
 * unknown block is recorded as a malloc). `home` is the result's. */
static void record_allocation(tlsf_trace_t *trace, const trace_call_t *call, unsigned op,
                              size_t home) {
    trace_slot_t *slot = NULL;
    unsigned char *out;
    if (call->result != NULL) {
        slot = slot_place(trace, home);
        if (slot == NULL) {
            stop_table_full(trace);
            return;
        }
    }
    out = call_record_begin(trace);
    if (out == NULL) return;
    out = put_tag(trace, out, op | (slot == NULL ? TLSF_TRACE_FAILED : 0u), call->time);
    if (op == TLSF_TRACE_MEMALIGN) *out++ = call->align_log2;
    out = put_size(out, call->size);
    if (slot != NULL) {
        out = put_id(trace, out, id_of(trace, slot));
        out = put_address(trace, out, call->result);
        add_live(trace, slot, call->result, call->size);
    }
    record_end(trace, out);
    trace->stats.calls++;
}

static void record_realloc(tlsf_trace_t *trace, const trace_call_t *call) {
    trace_slot_t *from, *to = NULL;
    unsigned char *out;
    from = slot_find(trace, call->home, call->old);
    if (from == NULL) {
        if (call->result != NULL) trace->stats.untracked_frees++;
        record_allocation(trace, call, TLSF_TRACE_MALLOC, home_of(trace, call->result));
        return;
    }
    if (call->result != NULL) {
        to = slot_place(trace, home_of(trace, call->result));
        if (to == NULL) {
            stop_table_full(trace);
            return;
        }
    }
    out = call_record_begin(trace);
    if (out == NULL) return;
    out =
        put_tag(trace, out, TLSF_TRACE_REALLOC | (to == NULL ? TLSF_TRACE_FAILED : 0u), call->time);
    out = put_id(trace, out, id_of(trace, from));
    out = put_size(out, call->size);
    if (to != NULL) {
        out = put_id(trace, out, id_of(trace, to));
        out = put_address(trace, out, call->result);
        /* The new slot is taken before the old one is released: the release looks at the
         * next slot, which may be this one, to decide whether it may become empty. The
         * totals follow the call's order: the old block's bytes go first. */
        to->address = (uintptr_t)call->result;
        remove_live(trace, from);
        add_live(trace, to, call->result, call->size);
    }
    record_end(trace, out);
    trace->stats.calls++;
}

static void record_free(tlsf_trace_t *trace, const trace_call_t *call) {
    trace_slot_t *slot = slot_find(trace, call->home, call->result);
    unsigned char *out;
    if (slot == NULL) {
        trace->stats.untracked_frees++;
        return;
    }
    out = call_record_begin(trace);
    if (out == NULL) return;
    out = put_tag(trace, out, TLSF_TRACE_FREE, call->time);
    out = put_id(trace, out, id_of(trace, slot));
    remove_live(trace, slot);
    record_end(trace, out);
    trace->stats.calls++;
}

/* Record the queued calls in their order, their first slots touched beforehand. */
static void record_queue(tlsf_trace_t *trace) {
    unsigned k, count = trace->queued;
    trace->queued = 0;
    for (k = 0; k < count; ++k) {
        trace_call_t *call = &trace->queue[k];
        call->home = home_of(trace, call->op == TLSF_TRACE_REALLOC ? call->old : call->result);
#if defined(__GNUC__) || defined(__clang__)
        __builtin_prefetch(&trace->slots[call->home], 1);
#endif
    }
    for (k = 0; k < count; ++k) {
        const trace_call_t *call = &trace->queue[k];
        if (trace->stopped) {
            trace->stats.dropped_calls += count - k;
            return;
        }
        switch (call->op) {
        case TLSF_TRACE_REALLOC:
            record_realloc(trace, call);
            break;
        case TLSF_TRACE_FREE:
            record_free(trace, call);
            break;
        default:
            record_allocation(trace, call, call->op, call->home);
            break;
        }
    }
}

/* ---- Blocks named by address ----------------------------------------------------------------- */

/* The record of one call, at once: there is no table to look up. */
static void record_by_address(tlsf_trace_t *trace, unsigned op, unsigned align_log2, size_t size,
                              const void *result, const void *old) {
    unsigned char *out = call_record_begin(trace);
    if (out == NULL) return;
    if (op == TLSF_TRACE_FREE) {
        out = put_tag(trace, out, TLSF_TRACE_FREE, clock_now(trace));
        out = put_address(trace, out, result);
    } else {
        out = put_tag(trace, out, op | (result == NULL ? TLSF_TRACE_FAILED : 0u), clock_now(trace));
        if (op == TLSF_TRACE_REALLOC) out = put_address(trace, out, old);
        if (op == TLSF_TRACE_MEMALIGN) *out++ = (unsigned char)align_log2;
        out = put_size(out, size);
        if (result != NULL) out = put_address(trace, out, result);
    }
    record_end(trace, out);
    trace->stats.calls++;
}

/* ---- The heap calls ------------------------------------------------------------------------- */

static void note_call(tlsf_trace_t *trace, unsigned op, unsigned align_log2, size_t size,
                      const void *result, const void *old) {
    trace_call_t *call;
    if (trace == NULL) return;
    if (trace->stopped) {
        trace->stats.dropped_calls++;
        return;
    }
    if (trace->by_address) {
        record_by_address(trace, op, align_log2, size, result, old);
        return;
    }
    call = &trace->queue[trace->queued++];
    call->result = result;
    call->old = old;
    call->size = size;
    call->time = clock_now(trace);
    call->op = (unsigned char)op;
    call->align_log2 = (unsigned char)align_log2;
    if (trace->queued == TLSF_TRACE_BATCH) record_queue(trace);
}

void tlsf_trace_malloc(tlsf_trace_t *trace, size_t size, const void *result) {
    note_call(trace, TLSF_TRACE_MALLOC, 0, size, result, NULL);
}

void tlsf_trace_calloc(tlsf_trace_t *trace, size_t count, size_t size, const void *result) {
    size_t bytes = size != 0 && count > (size_t)-1 / size ? (size_t)-1 : count * size;
    note_call(trace, TLSF_TRACE_CALLOC, 0, bytes, result, NULL);
}

void tlsf_trace_memalign(tlsf_trace_t *trace, size_t align, size_t size, const void *result) {
    unsigned log2 = 0;
    while (log2 < 8 * sizeof(size_t) - 1 && ((size_t)1 << log2) < align)
        ++log2;
    note_call(trace, TLSF_TRACE_MEMALIGN, log2, size, result, NULL);
}

void tlsf_trace_realloc(tlsf_trace_t *trace, const void *old, size_t size, const void *result) {
    if (old == NULL)
        note_call(trace, TLSF_TRACE_MALLOC, 0, size, result, NULL);
    else
        note_call(trace, TLSF_TRACE_REALLOC, 0, size, result, old);
}

void tlsf_trace_free(tlsf_trace_t *trace, const void *ptr) {
    if (ptr == NULL) return;
    note_call(trace, TLSF_TRACE_FREE, 0, 0, ptr, NULL);
}

void tlsf_trace_mark(tlsf_trace_t *trace, const char *label) {
    unsigned char *out;
    size_t length = 0, k;
    if (trace == NULL) return;
    record_queue(trace);
    if (trace->stopped) return;
    out = record_begin(trace, TLSF_TRACE_RECORD_MAX);
    if (out == NULL) return;
    out = put_tag(trace, out, TLSF_TRACE_MARK, clock_now(trace));
    if (label != NULL)
        while (length < TLSF_TRACE_LABEL_MAX && label[length] != '\0')
            ++length;
    *out++ = (unsigned char)length;
    for (k = 0; k < length; ++k)
        *out++ = (unsigned char)label[k];
    record_end(trace, out);
}

int tlsf_trace_flush(tlsf_trace_t *trace) {
    if (trace == NULL) return -1;
    record_queue(trace);
    return flush_buffer(trace);
}

int tlsf_trace_finish(tlsf_trace_t *trace) {
    unsigned char *out;
    if (trace == NULL) return -1;
    record_queue(trace);
    if (trace->stats.finished) return 0;
    if (trace->stats.sink_failed) return -1;
    out = record_begin(trace, TLSF_TRACE_RECORD_MAX);
    if (out == NULL) return -1;
    out =
        put_tag(trace, out, TLSF_TRACE_END | (trace->stats.table_full ? TLSF_TRACE_TABLE_FULL : 0u),
                clock_now(trace));
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

void tlsf_trace_get_stats(tlsf_trace_t *trace, tlsf_trace_stats_t *stats) {
    if (trace == NULL || stats == NULL) return;
    record_queue(trace);
    *stats = trace->stats;
}
