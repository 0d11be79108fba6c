/* SPDX-License-Identifier: MIT */
/*
 * tlsf_trace_format.h - the pieces of the trace format (tlsf_trace.h) that the recorder and
 * the reader share: the magic, and the varint and zigzag codings. Internal.
 */
#ifndef TLSF_TRACE_FORMAT_H
#define TLSF_TRACE_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "tlsf_trace.h"

/* "TLSFtrc" and the version byte. */
static const unsigned char trace_magic[8] = {'T', 'L', 'S', 'F', 't', 'r', 'c', TLSF_TRACE_VERSION};

/* The longest varint of a 64-bit value. */
#define TRACE_VARINT_MAX 10

/* Append `value` as a varint at `out`; returns the bytes written (1 to 10). */
static inline size_t trace_put_varint(unsigned char *out, uint64_t value) {
    size_t n = 0;
    while (value >= 0x80u) {
        out[n++] = (unsigned char)(value | 0x80u);
        value >>= 7;
    }
    out[n++] = (unsigned char)value;
    return n;
}

/* A signed difference as an unsigned number whose size follows its magnitude. */
static inline uint64_t trace_zigzag(uint64_t difference) {
    return (difference << 1) ^ (uint64_t)(-(int64_t)(difference >> 63));
}

static inline uint64_t trace_unzigzag(uint64_t value) {
    return (value >> 1) ^ (uint64_t)(-(int64_t)(value & 1u));
}

static inline void trace_put_u32(unsigned char *out, uint32_t value) {
    unsigned k;
    for (k = 0; k < 4; ++k)
        out[k] = (unsigned char)(value >> (8 * k));
}

static inline void trace_put_u64(unsigned char *out, uint64_t value) {
    unsigned k;
    for (k = 0; k < 8; ++k)
        out[k] = (unsigned char)(value >> (8 * k));
}

static inline uint32_t trace_get_u32(const unsigned char *in) {
    return (uint32_t)in[0] | (uint32_t)in[1] << 8 | (uint32_t)in[2] << 16 | (uint32_t)in[3] << 24;
}

static inline uint64_t trace_get_u64(const unsigned char *in) {
    return (uint64_t)trace_get_u32(in) | (uint64_t)trace_get_u32(in + 4) << 32;
}

#endif /* TLSF_TRACE_FORMAT_H */
