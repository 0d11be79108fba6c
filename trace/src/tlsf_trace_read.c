/* SPDX-License-Identifier: MIT */
/*
 * tlsf_trace_read.c - the decoder (tlsf_trace_read.h). Every read is bounds-checked against
 * the data's length: a trace cut anywhere, or filled with garbage, gives a status, never a
 * read past the end.
 */
#include "tlsf_trace_read.h"

#include "tlsf_trace_format.h"

/* A cursor over one record: where it is, where the data ends, and the first error. */
typedef struct cursor {
    const unsigned char *at;
    const unsigned char *end;
    tlsf_trace_read_status_t status;
} cursor_t;

static unsigned get_byte(cursor_t *c) {
    if (c->status != TLSF_TRACE_READ_OK) return 0;
    if (c->at == c->end) {
        c->status = TLSF_TRACE_READ_TRUNCATED;
        return 0;
    }
    return *c->at++;
}

static uint64_t get_varint(cursor_t *c) {
    uint64_t value = 0;
    unsigned shift = 0, k;
    for (k = 0; k < TRACE_VARINT_MAX; ++k) {
        unsigned byte = get_byte(c);
        if (c->status != TLSF_TRACE_READ_OK) return 0;
        /* The tenth byte holds bit 63 only. */
        if (k == TRACE_VARINT_MAX - 1 && byte > 1u) {
            c->status = TLSF_TRACE_READ_BAD_VARINT;
            return 0;
        }
        value |= (uint64_t)(byte & 0x7Fu) << shift;
        if ((byte & 0x80u) == 0) {
            /* A last byte of zero after others would be a redundant encoding. */
            if (byte == 0 && k > 0) c->status = TLSF_TRACE_READ_BAD_VARINT;
            return value;
        }
        shift += 7;
    }
    c->status = TLSF_TRACE_READ_BAD_VARINT;
    return 0;
}

static uint32_t get_id(cursor_t *c, const tlsf_trace_header_t *header) {
    uint32_t id = 0;
    unsigned k;
    for (k = 0; k < header->id_bytes; ++k)
        id |= (uint32_t)get_byte(c) << (8 * k);
    if (c->status == TLSF_TRACE_READ_OK && id >= header->slots) c->status = TLSF_TRACE_READ_BAD_ID;
    return id;
}

tlsf_trace_read_status_t tlsf_trace_reader_open(tlsf_trace_reader_t *reader, const void *data,
                                                size_t length) {
    const unsigned char *bytes = (const unsigned char *)data;
    tlsf_trace_reader_t fresh = {0};
    unsigned k;
    if (reader == NULL || (data == NULL && length != 0)) return TLSF_TRACE_READ_BAD_ARGUMENT;
    *reader = fresh;
    reader->data = bytes;
    reader->length = length;
    reader->status = TLSF_TRACE_READ_TRUNCATED;
    if (length < 8) {
        /* A prefix of the magic is a truncated trace; anything else is not a trace. */
        for (k = 0; k < length; ++k)
            if (bytes[k] != trace_magic[k]) reader->status = TLSF_TRACE_READ_NOT_A_TRACE;
        return (tlsf_trace_read_status_t)reader->status;
    }
    for (k = 0; k < 7; ++k)
        if (bytes[k] != trace_magic[k]) return reader->status = TLSF_TRACE_READ_NOT_A_TRACE;
    if (bytes[7] != TLSF_TRACE_VERSION) return reader->status = TLSF_TRACE_READ_VERSION;
    if (length < TLSF_TRACE_HEADER_BYTES) return (tlsf_trace_read_status_t)reader->status;
    reader->header.version = bytes[7];
    reader->header.flags = bytes[8];
    reader->header.pointer_bytes = bytes[9];
    reader->header.heap_align_log2 = bytes[10];
    reader->header.id_bytes = bytes[11];
    reader->header.slots = trace_get_u32(bytes + 12);
    reader->header.ticks_per_second = trace_get_u64(bytes + 16);
    if ((bytes[8] & ~(TLSF_TRACE_TIMES | TLSF_TRACE_ADDRESSES | TLSF_TRACE_BY_ADDRESS)) != 0 ||
        (bytes[9] != 4 && bytes[9] != 8) || bytes[10] >= 64)
        return reader->status = TLSF_TRACE_READ_BAD_HEADER;
    if ((bytes[8] & TLSF_TRACE_BY_ADDRESS)
            ? !(bytes[8] & TLSF_TRACE_ADDRESSES) || bytes[11] != 0 || reader->header.slots != 0
            : bytes[11] < 1 || bytes[11] > 4 || reader->header.slots == 0 ||
                  (bytes[11] < 4 && reader->header.slots > (uint32_t)1 << (8 * bytes[11])))
        return reader->status = TLSF_TRACE_READ_BAD_HEADER;
    reader->offset = TLSF_TRACE_HEADER_BYTES;
    reader->status = TLSF_TRACE_READ_OK;
    return TLSF_TRACE_READ_OK;
}

static uint64_t get_address(cursor_t *c, tlsf_trace_reader_t *reader) {
    reader->address += trace_unzigzag(get_varint(c));
    return reader->address;
}

static int by_address(const tlsf_trace_reader_t *reader) {
    return (reader->header.flags & TLSF_TRACE_BY_ADDRESS) != 0;
}

/* The allocation's result: its id (none by address) and, with addresses, its address. */
static void get_result(cursor_t *c, tlsf_trace_reader_t *reader, tlsf_trace_event_t *event) {
    if (!by_address(reader)) event->id = get_id(c, &reader->header);
    if (reader->header.flags & TLSF_TRACE_ADDRESSES) event->address = get_address(c, reader);
}

tlsf_trace_read_status_t tlsf_trace_read(tlsf_trace_reader_t *reader, tlsf_trace_event_t *event) {
    tlsf_trace_event_t fresh = {0};
    cursor_t c;
    unsigned tag, op;
    if (reader == NULL || event == NULL) return TLSF_TRACE_READ_BAD_ARGUMENT;
    if (reader->status != TLSF_TRACE_READ_OK) return (tlsf_trace_read_status_t)reader->status;
    *event = fresh;
    if (reader->offset == reader->length) return TLSF_TRACE_READ_DONE;
    if (reader->ended) return reader->status = TLSF_TRACE_READ_AFTER_END;
    c.at = reader->data + reader->offset;
    c.end = reader->data + reader->length;
    c.status = TLSF_TRACE_READ_OK;

    tag = get_byte(&c);
    op = tag & TLSF_TRACE_OP_MASK;
    if (op < TLSF_TRACE_MALLOC || op > TLSF_TRACE_END || (tag & 0xC0u) != 0 ||
        ((tag & TLSF_TRACE_FAILED) && op > TLSF_TRACE_REALLOC) ||
        ((tag & TLSF_TRACE_TABLE_FULL) && op != TLSF_TRACE_END))
        return reader->status = TLSF_TRACE_READ_BAD_TAG;
    event->op = op;
    event->failed = (tag & TLSF_TRACE_FAILED) != 0;
    if (reader->header.flags & TLSF_TRACE_TIMES) reader->time += get_varint(&c);
    event->time = reader->time;

    switch (op) {
    case TLSF_TRACE_MALLOC:
    case TLSF_TRACE_CALLOC:
    case TLSF_TRACE_MEMALIGN:
        if (op == TLSF_TRACE_MEMALIGN) {
            event->align_log2 = get_byte(&c);
            if (c.status == TLSF_TRACE_READ_OK && event->align_log2 >= 64)
                c.status = TLSF_TRACE_READ_BAD_ALIGN;
        }
        event->size = get_varint(&c);
        if (!event->failed) get_result(&c, reader, event);
        break;
    case TLSF_TRACE_REALLOC:
        if (by_address(reader))
            event->old_address = get_address(&c, reader);
        else
            event->old_id = get_id(&c, &reader->header);
        event->size = get_varint(&c);
        if (!event->failed) get_result(&c, reader, event);
        break;
    case TLSF_TRACE_FREE:
        if (by_address(reader))
            event->address = get_address(&c, reader);
        else
            event->id = get_id(&c, &reader->header);
        break;
    case TLSF_TRACE_MARK:
        event->label_length = get_byte(&c);
        event->label = (const char *)c.at;
        if (c.status == TLSF_TRACE_READ_OK && (size_t)(c.end - c.at) < event->label_length)
            c.status = TLSF_TRACE_READ_TRUNCATED;
        else
            c.at += event->label_length;
        break;
    default: /* TLSF_TRACE_END */
        event->table_full = (tag & TLSF_TRACE_TABLE_FULL) != 0;
        event->end_calls = get_varint(&c);
        event->end_live_blocks = get_varint(&c);
        event->end_live_bytes = get_varint(&c);
        event->end_peak_live_bytes = get_varint(&c);
        event->end_untracked_frees = get_varint(&c);
        event->end_dropped_calls = get_varint(&c);
        reader->ended = 1;
        break;
    }
    if (c.status != TLSF_TRACE_READ_OK) {
        tlsf_trace_event_t cleared = {0};
        *event = cleared;
        return reader->status = c.status;
    }
    reader->offset = (size_t)(c.at - reader->data);
    reader->records++;
    return TLSF_TRACE_READ_OK;
}

const char *tlsf_trace_read_error_string(tlsf_trace_read_status_t status) {
    switch (status) {
    case TLSF_TRACE_READ_OK:
        return "no error";
    case TLSF_TRACE_READ_DONE:
        return "no more records";
    case TLSF_TRACE_READ_NOT_A_TRACE:
        return "not a TLSF trace (no TLSFtrc magic)";
    case TLSF_TRACE_READ_VERSION:
        return "a trace format version this reader does not know";
    case TLSF_TRACE_READ_BAD_HEADER:
        return "corrupt header (reserved bits, pointer size or slots)";
    case TLSF_TRACE_READ_TRUNCATED:
        return "truncated: the data ends inside a record";
    case TLSF_TRACE_READ_BAD_TAG:
        return "corrupt record: unknown operation or reserved tag bits";
    case TLSF_TRACE_READ_BAD_VARINT:
        return "corrupt record: a number longer than 64 bits";
    case TLSF_TRACE_READ_BAD_ID:
        return "corrupt record: a block id beyond the header's slot count";
    case TLSF_TRACE_READ_BAD_ALIGN:
        return "corrupt record: an alignment of 2^64 or more";
    case TLSF_TRACE_READ_AFTER_END:
        return "corrupt trace: bytes after the END record";
    case TLSF_TRACE_READ_BAD_ARGUMENT:
        return "bad argument (NULL reader, data or event)";
    }
    return "unknown status";
}

const char *tlsf_trace_op_name(unsigned op) {
    static const char *const names[] = {"?",       "malloc", "calloc", "memalign",
                                        "realloc", "free",   "mark",   "end"};
    return op <= TLSF_TRACE_END ? names[op] : "?";
}
