/* SPDX-License-Identifier: MIT */
/*
 * tlsf_trace_read.h - decode a trace written by the recorder (format: tlsf_trace.h), one
 * record at a time, from bytes in memory. Freestanding C99 like the recorder; tlsf-replay
 * (tools/replay) and the tests use it.
 *
 * The reader checks the encoding, not the meaning: every byte must belong to a well-formed
 * record (a known operation, no reserved bit, varints of at most 10 bytes that fit 64 bits,
 * an alignment below 64, ids below the header's slot count, nothing after END), and a record
 * cut short by the end of the data is reported as truncated. Whether a FREE names a live id
 * is the replay's question: it keeps the live set.
 */
#ifndef TLSF_TRACE_READ_H
#define TLSF_TRACE_READ_H

#include <stddef.h>
#include <stdint.h>

#include "tlsf_trace.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tlsf_trace_header {
    unsigned version;
    unsigned flags;            /* TLSF_TRACE_TIMES, TLSF_TRACE_ADDRESSES */
    unsigned pointer_bytes;    /* of the recording program */
    unsigned heap_align_log2;  /* of the recording heap, 0 if unknown */
    unsigned id_bytes;         /* the width of an id in the records */
    uint32_t slots;            /* every id is below this */
    uint64_t ticks_per_second; /* 0 if unknown */
} tlsf_trace_header_t;

/* One decoded record. Fields an operation does not carry are 0. */
typedef struct tlsf_trace_event {
    unsigned op;          /* enum tlsf_trace_op */
    int failed;           /* allocations: 1 when the call returned NULL */
    uint64_t time;        /* the clock's value (the sum of the deltas so far), with times */
    uint64_t size;        /* requested bytes (CALLOC: the product) */
    unsigned align_log2;  /* MEMALIGN */
    uint32_t id;          /* the block returned (allocations that succeeded) or freed (FREE) */
    uint32_t old_id;      /* REALLOC: the block given */
    uint64_t address;     /* with addresses: the block's address (allocations that succeeded;
                             by address also FREE's block) */
    uint64_t old_address; /* by address: REALLOC's block given */
    const char *label;    /* MARK: the label (not NUL-terminated), pointing into the data */
    size_t label_length;  /* MARK */
    /* END: the recorder's totals (tlsf_trace_stats_t) */
    int table_full;
    uint64_t end_calls, end_live_blocks, end_live_bytes, end_peak_live_bytes;
    uint64_t end_untracked_frees, end_dropped_calls;
} tlsf_trace_event_t;

/* What went wrong (tlsf_trace_read_error_string names each). */
typedef enum tlsf_trace_read_status {
    TLSF_TRACE_READ_OK = 0,
    TLSF_TRACE_READ_DONE = 1,          /* no more records (after END, or the data ended cleanly) */
    TLSF_TRACE_READ_NOT_A_TRACE = -1,  /* the data does not start with the magic */
    TLSF_TRACE_READ_VERSION = -2,      /* a format version this reader does not know */
    TLSF_TRACE_READ_BAD_HEADER = -3,   /* reserved header bits or fields set, or no slots */
    TLSF_TRACE_READ_TRUNCATED = -4,    /* the data ends inside a record (or the header) */
    TLSF_TRACE_READ_BAD_TAG = -5,      /* an unknown operation, or reserved tag bits set */
    TLSF_TRACE_READ_BAD_VARINT = -6,   /* longer than 10 bytes, beyond 64 bits, or redundant */
    TLSF_TRACE_READ_BAD_ID = -7,       /* an id at or above the header's slot count */
    TLSF_TRACE_READ_BAD_ALIGN = -8,    /* an alignment of 2^64 or more */
    TLSF_TRACE_READ_AFTER_END = -9,    /* bytes after the END record */
    TLSF_TRACE_READ_BAD_ARGUMENT = -10 /* a NULL reader, data or event */
} tlsf_trace_read_status_t;

typedef struct tlsf_trace_reader {
    const unsigned char *data;
    size_t length;
    size_t offset;                   /* of the next record */
    uint64_t records;                /* records decoded so far */
    uint64_t time;                   /* running sum of the time deltas */
    uint64_t address;                /* the previous address */
    int ended;                       /* the END record was read */
    tlsf_trace_read_status_t status; /* the first error met, or TLSF_TRACE_READ_OK */
    tlsf_trace_header_t header;
} tlsf_trace_reader_t;

/*
 * tlsf_trace_reader_open: check the header of the `length` bytes at `data` and set `reader`
 * up to decode the records after it. The data must stay in place while the reader is used.
 * Returns TLSF_TRACE_READ_OK, or NOT_A_TRACE, VERSION, BAD_HEADER, TRUNCATED (fewer than
 * TLSF_TRACE_HEADER_BYTES), BAD_ARGUMENT (a NULL reader, or NULL data with a length).
 */
tlsf_trace_read_status_t tlsf_trace_reader_open(tlsf_trace_reader_t *reader, const void *data,
                                                size_t length);

/*
 * tlsf_trace_read: decode the next record into `event`. Returns TLSF_TRACE_READ_OK, DONE when
 * there is none (the data ended at a record boundary or after END), or an error; after an
 * error reader->offset is where the bad record starts, and the reader stays in error (every
 * later call returns the same status).
 */
tlsf_trace_read_status_t tlsf_trace_read(tlsf_trace_reader_t *reader, tlsf_trace_event_t *event);

/* tlsf_trace_read_error_string: a short English description; never NULL. */
const char *tlsf_trace_read_error_string(tlsf_trace_read_status_t status);

/* tlsf_trace_op_name: "malloc", "calloc", "memalign", "realloc", "free", "mark", "end", or "?". */
const char *tlsf_trace_op_name(unsigned op);

#ifdef __cplusplus
}
#endif

#endif /* TLSF_TRACE_READ_H */
