/* SPDX-License-Identifier: MIT */
/*
 * seed_ring.c - how a microcontroller records its heap: the embedded seed's workload on a
 * fixed TLSF heap, every call recorded with the C API through a ring-buffer sink that
 * a "UART" drains. Runs on the host, where the UART is standard output:
 *
 *   seed_ring [ROUNDS] > seed.trace       (default 10 rounds)
 *   tlsf-replay seed.trace
 *
 * The workload (the seed: a board's allocator test in Rust, bench/host/seed_workload.cpp): a queue
 * of buffers; each round pushes, for each of 100 fixed values x repeated 6 times, a buffer of 4x
 * bytes filled with x, then drops all but the last 10 from the front. The queue is a growable array
 * of 16-byte entries (a Rust VecDeque on a 32-bit board: pointer, capacity, head, length), which
 * doubles from 4 entries by realloc, as Rust's does, and keeps its capacity when drained.
 *
 * What a firmware does the same way: the recorder's memory and the ring are static (no heap),
 * the recorder is called right after each heap call under whatever lock the heap has, a mark
 * names each round, and the ring's make_room callback blocks on the UART when the ring is
 * full, so nothing is lost. On a real board the consumer would rather be the UART's interrupt
 * or an RTT channel (tlsf_trace_ring.h), and the clock a cycle counter.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tlsf.h"
#include "tlsf_trace.h"
#include "tlsf_trace_ring.h"

/* The board had 175 KiB; a 64-bit host's control structure and headers are larger, so the
 * recording runs in more (the replay finds what each heap needs). */
#define HEAP_BYTES (512u * 1024u)
#define QUEUE_ENTRY_BYTES 16u
#define REPEATS 6
#define KEPT 10u

static const unsigned char seed_values[100] = {
    42, 17, 88, 33, 125, 5,   60,  72,  200, 94,  11, 77, 8,   39, 2,  50,  21,  99, 3,   150,
    64, 19, 55, 7,  31,  240, 59,  12,  101, 78,  23, 44, 61,  9,  37, 255, 70,  28, 6,   121,
    14, 85, 16, 68, 1,   91,  45,  35,  22,  109, 27, 47, 73,  4,  29, 200, 51,  13, 102, 8,
    54, 36, 66, 10, 20,  76,  200, 90,  25,  69,  56, 30, 87,  18, 80, 49,  132, 63, 74,  24,
    37, 57, 98, 15, 89,  53,  32,  123, 67,  38,  58, 82, 111, 58, 48, 122, 81,  26, 43,  34};

/* Static memory, as on a board: the heap, the recorder and the ring. The recorder's table
 * wants twice the live blocks at the peak (610 buffers and the queue: 2048 slots of two
 * words; tlsf_trace_memory_bytes gives the exact need). The unions give the heap's alignment. */
static union {
    long double align;
    unsigned char bytes[HEAP_BYTES];
} heap_memory;
static union {
    long double align;
    unsigned char bytes[2048 * 2 * sizeof(void *) + 1024];
} recorder_memory;
static unsigned char ring_storage[4096];

static tlsf_t heap;
static tlsf_trace_t *recorder;
static tlsf_trace_ring_t ring;

/* The "UART": a blocking write of what the ring holds. */
static int uart_drain(void *user, tlsf_trace_ring_t *full, size_t needed) {
    unsigned char chunk[256];
    size_t n;
    (void)user;
    (void)needed;
    while ((n = tlsf_trace_ring_read(full, chunk, sizeof chunk)) > 0)
        if (fwrite(chunk, 1, n, stdout) != n) return -1;
    return 0;
}

/* The heap calls with their records, as a hook would make them. */
static void *traced_malloc(size_t bytes) {
    void *block = tlsf_malloc(heap, bytes);
    tlsf_trace_malloc(recorder, bytes, block);
    return block;
}

static void *traced_realloc(void *old, size_t bytes) {
    void *block = tlsf_realloc(heap, old, bytes);
    tlsf_trace_realloc(recorder, old, bytes, block);
    return block;
}

static void traced_free(void *block) {
    tlsf_trace_free(recorder, block);
    tlsf_free(heap, block);
}

/* The queue: `entries` slots of QUEUE_ENTRY_BYTES, the buffer pointer kept in each. */
typedef struct queue {
    unsigned char *entries;
    size_t capacity, head, length;
} queue_t;

static int push_back(queue_t *q, void *buffer) {
    if (q->length == q->capacity) {
        size_t grown = q->capacity ? 2 * q->capacity : 4;
        unsigned char *moved = traced_realloc(q->entries, grown * QUEUE_ENTRY_BYTES);
        size_t k;
        if (moved == NULL) return -1;
        /* A ring that wrapped is made contiguous again, as VecDeque does after growing. */
        for (k = 0; k < q->head; ++k)
            memcpy(moved + (q->capacity + k) * QUEUE_ENTRY_BYTES, moved + k * QUEUE_ENTRY_BYTES,
                   QUEUE_ENTRY_BYTES);
        q->entries = moved;
        q->capacity = grown;
    }
    memcpy(q->entries + ((q->head + q->length) % q->capacity) * QUEUE_ENTRY_BYTES, &buffer,
           sizeof buffer);
    q->length++;
    return 0;
}

static void *pop_front(queue_t *q) {
    void *buffer;
    memcpy(&buffer, q->entries + q->head * QUEUE_ENTRY_BYTES, sizeof buffer);
    q->head = (q->head + 1) % q->capacity;
    q->length--;
    return buffer;
}

int main(int argc, char **argv) {
    tlsf_trace_config_t config = {0};
    queue_t queue = {NULL, 0, 0, 0};
    int rounds = argc > 1 ? atoi(argv[1]) : 10, round, repeat;
    size_t k;
    if (rounds < 1) {
        fprintf(stderr, "usage: seed_ring [ROUNDS >= 1] > seed.trace\n");
        return 2;
    }
    heap = tlsf_create_with_pool(heap_memory.bytes, sizeof heap_memory.bytes);
    if (tlsf_trace_ring_init(&ring, ring_storage, sizeof ring_storage, uart_drain, NULL) != 0)
        return 1;
    config.sink = tlsf_trace_ring_sink;
    config.sink_user = &ring;
    config.buffer_bytes = 512;
    config.heap_align_log2 = 3; /* the board's: 8-byte alignment */
    recorder = tlsf_trace_create(recorder_memory.bytes, sizeof recorder_memory.bytes, &config);
    if (heap == NULL || recorder == NULL) return 1;

    for (round = 0; round < rounds; ++round) {
        char label[32];
        snprintf(label, sizeof label, "round %d", round + 1);
        tlsf_trace_mark(recorder, label);
        for (repeat = 0; repeat < REPEATS; ++repeat) {
            for (k = 0; k < sizeof seed_values; ++k) {
                size_t bytes = 4u * seed_values[k];
                unsigned char *buffer = traced_malloc(bytes);
                if (buffer == NULL || push_back(&queue, buffer) != 0) {
                    fprintf(stderr, "seed_ring: out of memory in round %d\n", round + 1);
                    return 1;
                }
                memset(buffer, seed_values[k], bytes);
            }
        }
        while (queue.length > KEPT)
            traced_free(pop_front(&queue));
    }
    while (queue.length > 0)
        traced_free(pop_front(&queue));
    traced_free(queue.entries);

    if (tlsf_trace_finish(recorder) != 0 || uart_drain(NULL, &ring, 0) != 0) {
        fprintf(stderr, "seed_ring: the trace could not be written\n");
        return 1;
    }
    return fflush(stdout) == 0 ? 0 : 1;
}
