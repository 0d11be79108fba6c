/* SPDX-License-Identifier: MIT */
/*
 * tlsf_trace_ring.h - a sink for microcontrollers: the trace goes into a ring buffer in RAM,
 * and something else takes it out (a UART interrupt, an RTT channel read by the debug probe,
 * a low-priority task writing to flash), with tlsf_trace_ring_read.
 *
 * One producer (the recorder, under the heap's lock) and one consumer, which may be an
 * interrupt handler on the same core: the producer only moves `head`, the consumer only
 * `tail`, each a word written in one store (atomic on a Cortex-M), and the bytes are stored
 * before `head` moves past them (volatile accesses, kept in program order). On a core with a
 * weaker memory order add a barrier where the comments say.
 *
 * When the ring lacks room for a chunk, the sink asks the `make_room` callback to make some:
 * block until the consumer has drained enough, or drain it itself (tlsf_trace_ring_read and a
 * blocking UART write, as trace/examples/seed_ring.c does). If the callback is NULL or
 * returns non-zero the sink fails, and the recorder stops (a trace with a gap cannot be
 * replayed); `overflows` counts those failures.
 *
 * Freestanding C99: no library calls.
 */
#ifndef TLSF_TRACE_RING_H
#define TLSF_TRACE_RING_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tlsf_trace_ring tlsf_trace_ring_t;

/* Make room in `ring` (at least `needed` free bytes); 0 when done, non-zero to give up. */
typedef int (*tlsf_trace_ring_make_room_t)(void *user, tlsf_trace_ring_t *ring, size_t needed);

struct tlsf_trace_ring {
    volatile unsigned char *storage;
    size_t mask;          /* size - 1: the size is a power of two */
    volatile size_t head; /* bytes ever written (the producer's) */
    volatile size_t tail; /* bytes ever read (the consumer's) */
    tlsf_trace_ring_make_room_t make_room;
    void *user;
    uint32_t overflows; /* chunks the sink could not take */
};

/*
 * tlsf_trace_ring_init: a ring over the `size` bytes at `storage` (a power of two, at least
 * 2). Returns 0, or -1 if `ring` or `storage` is NULL or `size` is not a power of two >= 2.
 * `make_room` may be NULL (the sink then fails when the ring is full).
 */
int tlsf_trace_ring_init(tlsf_trace_ring_t *ring, void *storage, size_t size,
                         tlsf_trace_ring_make_room_t make_room, void *user);

/*
 * tlsf_trace_ring_sink: the recorder's sink (tlsf_trace_sink_t) with the ring as `user`. A
 * chunk larger than the whole ring is written in pieces, asking for room before each. Returns
 * 0, or -1 (counted in overflows) when room could not be made, or `user` is NULL.
 */
int tlsf_trace_ring_sink(void *user, const void *bytes, size_t length);

/* tlsf_trace_ring_used: bytes waiting to be read. 0 for NULL. */
size_t tlsf_trace_ring_used(const tlsf_trace_ring_t *ring);

/*
 * tlsf_trace_ring_read: the consumer's side: move up to `max` waiting bytes to `out`, oldest
 * first. Returns the count (0 if empty, or for a NULL ring or NULL `out`).
 */
size_t tlsf_trace_ring_read(tlsf_trace_ring_t *ring, void *out, size_t max);

#ifdef __cplusplus
}
#endif

#endif /* TLSF_TRACE_RING_H */
