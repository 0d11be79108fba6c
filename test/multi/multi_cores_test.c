/*
 * SPDX-License-Identifier: MIT
 *
 * multi_cores_test.c - tlsf_multi (multi/) with threads standing in for cores: each
 * thread names itself core 0 or 1 through a thread-local variable, as firmware would read
 * its core ID register.
 *
 *   batch     core 1 frees 50 blocks of core 0: they wait on core 0's list; each malloc or
 *             free of core 0 takes back exactly TLSF_MULTI_BATCH; tlsf_multi_take_back
 *             the rest;
 *   pending then remote  a batch is half taken back when more blocks arrive: one
 *             tlsf_multi_take_back(SIZE_MAX) returns all of them (the stress test's final
 *             accounting once failed now and then for want of this);
 *   full      core 0's heap is full; core 1 frees one of its blocks; core 0's next malloc
 *             succeeds by taking back everything pending;
 *   foreign   a pointer in no core's region is ignored and counted;
 *   stress    both cores allocate, fill, hand blocks to each other through a mailbox and
 *             free what they receive, checking contents; at the end both heaps are
 *             empty and pass tlsf_check.
 * Built twice (test/multi/CMakeLists.txt): plain, and under ThreadSanitizer with its own
 * copy of the core. Exit status 0 when every check held.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tlsf_multi.h"

#define HEAP_BYTES ((size_t)256 * 1024)

static int failures;
static _Thread_local unsigned this_core_id;
static tlsf_multi_t multi;
static _Alignas(16) unsigned char memory[2][HEAP_BYTES];

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);               \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

static unsigned current_core(void *user) {
    (void)user;
    return this_core_id;
}

static size_t used_bytes(unsigned core) {
    tlsf_stats_t stats;
    tlsf_get_stats(multi.cores[core].heap, &stats);
    return stats.used_bytes;
}

/* Run `body` on core 1 (a thread) and wait for it. */
static void on_core_1(void *(*body)(void *), void *arg) {
    pthread_t thread;
    pthread_create(&thread, NULL, body, arg);
    pthread_join(thread, NULL);
}

static void *free_all(void *arg) {
    void **blocks = (void **)arg;
    size_t i;
    this_core_id = 1;
    for (i = 0; blocks[i] != NULL; ++i)
        tlsf_multi_free(&multi, blocks[i]);
    return NULL;
}

static void test_batch(void) {
    void *blocks[51];
    size_t i, empty = used_bytes(0), one_block, before;
    void *p;
    for (i = 0; i < 50; ++i)
        blocks[i] = tlsf_multi_malloc(&multi, 48);
    blocks[50] = NULL;
    one_block = (used_bytes(0) - empty) / 50;
    CHECK(tlsf_multi_owner(&multi, blocks[0]) == 0);
    on_core_1(free_all, blocks);
    CHECK(used_bytes(0) == empty + 50 * one_block); /* nothing taken back yet */
    p = tlsf_multi_malloc(&multi, 48);              /* one batch back, then one block */
    CHECK(used_bytes(0) == empty + (50 - TLSF_MULTI_BATCH + 1) * one_block);
    before = used_bytes(0);
    tlsf_multi_free(&multi, p); /* its own block, then one more batch */
    CHECK(used_bytes(0) == before - (1 + TLSF_MULTI_BATCH) * one_block);
    CHECK(tlsf_multi_take_back(&multi, SIZE_MAX) == 50 - 2 * TLSF_MULTI_BATCH);
    CHECK(used_bytes(0) == empty);
    CHECK(tlsf_check(multi.cores[0].heap) == 0);
}

/* Blocks freed remotely while an earlier batch is still being taken back: one
 * tlsf_multi_take_back(SIZE_MAX) returns both the rest of the batch and the newcomers. */
static void test_pending_then_remote(void) {
    void *first[9], *second[4];
    size_t i, empty = used_bytes(0);
    for (i = 0; i < 8; ++i)
        first[i] = tlsf_multi_malloc(&multi, 32);
    first[8] = NULL;
    for (i = 0; i < 3; ++i)
        second[i] = tlsf_multi_malloc(&multi, 96);
    second[3] = NULL;
    on_core_1(free_all, first);
    CHECK(tlsf_multi_take_back(&multi, 2) == 2); /* six of the first wait as a batch */
    on_core_1(free_all, second);                 /* three more arrive behind it */
    CHECK(tlsf_multi_take_back(&multi, SIZE_MAX) == 9);
    CHECK(used_bytes(0) == empty);
    CHECK(tlsf_multi_take_back(&multi, SIZE_MAX) == 0);
    CHECK(tlsf_check(multi.cores[0].heap) == 0);
}

static void test_full(void) {
    void *blocks[2] = {NULL, NULL}, *big, *again, *small[256];
    size_t largest = tlsf_largest_allocatable(multi.cores[0].heap), n = 0, i;
    big = tlsf_multi_malloc(&multi, largest);
    CHECK(big != NULL);
    while (n < 256 && (small[n] = tlsf_multi_malloc(&multi, 64)) != NULL)
        ++n; /* whatever the largest block left over */
    CHECK(n < 256 && tlsf_multi_malloc(&multi, 64) == NULL);
    blocks[0] = big;
    on_core_1(free_all, blocks);
    again = tlsf_multi_malloc(&multi, 64); /* takes back the big block first */
    CHECK(again != NULL);
    tlsf_multi_free(&multi, again);
    for (i = 0; i < n; ++i)
        tlsf_multi_free(&multi, small[i]);
    CHECK(tlsf_check(multi.cores[0].heap) == 0);
}

static void test_foreign(void) {
    int local = 0;
    size_t before = atomic_load(&multi.foreign_frees);
    tlsf_multi_free(&multi, &local);
    CHECK(atomic_load(&multi.foreign_frees) == before + 1);
    CHECK(tlsf_multi_owner(&multi, &local) == -1);
    CHECK(tlsf_multi_owner(&multi, memory[1] + 100) == 1);
}

/* ---- stress: blocks handed between the cores through a mailbox ------------------------ */

#define MAILBOX 64
#define ROUNDS 20000

static _Atomic(unsigned char *) mailbox[2][MAILBOX]; /* [to core][slot] */

static unsigned char pattern(uintptr_t address, size_t i) {
    return (unsigned char)((address >> 4) ^ i);
}

static void check_and_free(unsigned char *block) {
    size_t bytes = block[0] | (size_t)block[1] << 8, i;
    int intact = 1;
    for (i = 2; i < bytes && intact; ++i)
        intact = block[i] == pattern((uintptr_t)block, i);
    CHECK(intact); /* what the other core wrote is what this core reads */
    tlsf_multi_free(&multi, block);
}

static void *stress_core(void *arg) {
    unsigned core = (unsigned)(uintptr_t)arg, other = 1 - core;
    uint32_t rng = 0x9e3779b9u * (core + 1);
    int round;
    size_t i;
    this_core_id = core;
    for (round = 0; round < ROUNDS; ++round) {
        size_t bytes, slot;
        unsigned char *block, *old;
        rng ^= rng << 13;
        rng ^= rng >> 17;
        rng ^= rng << 5;
        bytes = 2 + rng % 600;
        block = (unsigned char *)tlsf_multi_malloc(&multi, bytes);
        if (block == NULL) continue; /* full for a moment: the other core holds blocks */
        block[0] = (unsigned char)bytes;
        block[1] = (unsigned char)(bytes >> 8);
        for (i = 2; i < bytes; ++i)
            block[i] = pattern((uintptr_t)block, i);
        slot = (rng >> 16) % MAILBOX;
        if (rng & 1) { /* send it to the other core, freeing what was waiting there */
            old = atomic_exchange(&mailbox[other][slot], block);
        } else { /* keep it briefly: free it now, and collect a block sent to us */
            old = atomic_exchange(&mailbox[core][slot], NULL);
            check_and_free(block);
        }
        if (old != NULL) check_and_free(old);
    }
    return NULL;
}

static void test_stress(void) {
    pthread_t cores[2];
    unsigned core;
    size_t i;
    for (core = 0; core < 2; ++core)
        pthread_create(&cores[core], NULL, stress_core, (void *)(uintptr_t)core);
    for (core = 0; core < 2; ++core)
        pthread_join(cores[core], NULL);
    for (core = 0; core < 2; ++core) {
        this_core_id = core; /* the main thread plays each core in turn */
        for (i = 0; i < MAILBOX; ++i) {
            unsigned char *block = atomic_exchange(&mailbox[core][i], NULL);
            if (block != NULL) check_and_free(block);
        }
    }
    /* The mailboxes were emptied by both "cores" before either takes back. */
    for (core = 0; core < 2; ++core) {
        this_core_id = core;
        tlsf_multi_take_back(&multi, SIZE_MAX);
        CHECK(tlsf_check(multi.cores[core].heap) == 0);
    }
    this_core_id = 0;
}

int main(void) {
    size_t empty0, empty1;
    CHECK(tlsf_multi_init(&multi, current_core, NULL));
    CHECK(tlsf_multi_add_core(&multi, 0, memory[0], HEAP_BYTES));
    CHECK(!tlsf_multi_add_core(&multi, 0, memory[1], HEAP_BYTES)); /* core 0 has one */
    CHECK(!tlsf_multi_add_core(&multi, 1, memory[0] + 64, 1024));  /* overlaps core 0 */
    CHECK(!tlsf_multi_add_core(&multi, 2, memory[1], HEAP_BYTES)); /* no such core */
    CHECK(tlsf_multi_add_core(&multi, 1, memory[1], HEAP_BYTES));
    this_core_id = 0;
    empty0 = used_bytes(0);
    empty1 = used_bytes(1);
    test_batch();
    test_pending_then_remote();
    test_full();
    test_foreign();
    test_stress();
    CHECK(used_bytes(0) == empty0 && used_bytes(1) == empty1);
    printf("multi_cores_test: %s\n", failures ? "FAILED" : "all checks held");
    return failures != 0;
}
