/* SPDX-License-Identifier: MIT */
/*
 * tlsf_trace_ring.c - the ring-buffer sink (tlsf_trace_ring.h). `head` and `tail` count bytes
 * since the start and wrap with size_t; their difference is the fill, whatever the wrap.
 */
#include "tlsf_trace_ring.h"

int tlsf_trace_ring_init(tlsf_trace_ring_t *ring, void *storage, size_t size,
                         tlsf_trace_ring_make_room_t make_room, void *user) {
    if (ring == NULL || storage == NULL || size < 2 || (size & (size - 1)) != 0) return -1;
    ring->storage = (volatile unsigned char *)storage;
    ring->mask = size - 1;
    ring->head = 0;
    ring->tail = 0;
    ring->make_room = make_room;
    ring->user = user;
    ring->overflows = 0;
    return 0;
}

size_t tlsf_trace_ring_used(const tlsf_trace_ring_t *ring) {
    return ring != NULL ? ring->head - ring->tail : 0;
}

static size_t ring_room(const tlsf_trace_ring_t *ring) {
    return ring->mask + 1 - (ring->head - ring->tail);
}

int tlsf_trace_ring_sink(void *user, const void *bytes, size_t length) {
    tlsf_trace_ring_t *ring = (tlsf_trace_ring_t *)user;
    const unsigned char *from = (const unsigned char *)bytes;
    if (ring == NULL) return -1;
    while (length > 0) {
        size_t piece = length < ring->mask + 1 ? length : ring->mask + 1, k, head;
        while (ring_room(ring) < piece) {
            if (ring->make_room == NULL ||
                ring->make_room(ring->user, ring, piece - ring_room(ring)) != 0) {
                ring->overflows++;
                return -1;
            }
        }
        head = ring->head;
        for (k = 0; k < piece; ++k)
            ring->storage[(head + k) & ring->mask] = from[k];
        /* (A core with weak ordering needs a store barrier here.) */
        ring->head = head + piece;
        from += piece;
        length -= piece;
    }
    return 0;
}

size_t tlsf_trace_ring_read(tlsf_trace_ring_t *ring, void *out, size_t max) {
    unsigned char *to = (unsigned char *)out;
    size_t tail, count, k;
    if (ring == NULL || out == NULL) return 0;
    tail = ring->tail;
    count = ring->head - tail;
    /* (A core with weak ordering needs a load barrier here.) */
    if (count > max) count = max;
    for (k = 0; k < count; ++k)
        to[k] = ring->storage[(tail + k) & ring->mask];
    ring->tail = tail + count;
    return count;
}
