/* SPDX-License-Identifier: MIT */
/*
 * shim_workload.c - a program to record under the drop-in malloc (test/trace): threads that
 * allocate, reallocate and free, and hand blocks to each other (so frees and allocations of
 * one address race across threads: the records must still come in an order the replay
 * accepts), a fork whose child allocates and exits without exec, and a child it execs.
 *
 *   shim_workload THREADS ROUNDS [EXEC_PROGRAM]
 * Prints "done <checksum>".
 */
#define _GNU_SOURCE 1

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define SLOTS 64

static void *shared[SLOTS]; /* blocks one thread leaves for another to free */
static long rounds;

static uint32_t next_random(uint32_t *state) {
    *state = *state * 1664525u + 1013904223u;
    return *state >> 8;
}

static void *worker(void *arg) {
    uint32_t state = (uint32_t)(uintptr_t)arg * 7919u + 1u;
    void *own[32] = {0};
    uintptr_t sum = 0;
    long k;
    for (k = 0; k < rounds; ++k) {
        unsigned slot = next_random(&state) % 32, which = next_random(&state) % 4;
        size_t size = 1 + next_random(&state) % (which == 0 ? 5000 : 200);
        if (own[slot] != NULL && which == 1) {
            void *moved = realloc(own[slot], size);
            if (moved != NULL) own[slot] = moved;
        } else {
            free(own[slot]);
            own[slot] = which == 2 ? calloc(1, size) : malloc(size);
        }
        if (own[slot] != NULL) {
            memset(own[slot], (int)k, 1);
            sum += (uintptr_t)((unsigned char *)own[slot])[0];
        }
        if (which == 3) { /* trade a block with whichever thread comes by */
            unsigned s = next_random(&state) % SLOTS;
            void *mine = own[slot];
            own[slot] = __atomic_exchange_n(&shared[s], mine, __ATOMIC_ACQ_REL);
        }
    }
    for (k = 0; k < 32; ++k)
        free(own[k]);
    return (void *)sum;
}

int main(int argc, char **argv) {
    int threads = argc > 1 ? atoi(argv[1]) : 4, t;
    pthread_t ids[16];
    uintptr_t total = 0;
    pid_t child;
    rounds = argc > 2 ? atol(argv[2]) : 20000;
    if (threads < 1 || threads > 16 || rounds < 1) {
        fprintf(stderr, "usage: shim_workload THREADS(1-16) ROUNDS [EXEC_PROGRAM]\n");
        return 2;
    }
    /* A child that only allocates, then leaves without exec or destructors. */
    child = fork();
    if (child == 0) {
        void *p = malloc(1000);
        free(malloc(77));
        free(p);
        _exit(0);
    }
    waitpid(child, NULL, 0);
    for (t = 0; t < threads; ++t)
        pthread_create(&ids[t], NULL, worker, (void *)(uintptr_t)(t + 1));
    for (t = 0; t < threads; ++t) {
        void *sum;
        pthread_join(ids[t], &sum);
        total += (uintptr_t)sum;
    }
    for (t = 0; t < SLOTS; ++t)
        free(shared[t]);
    if (argc > 3) { /* a child that execs: it records into a file of its own */
        child = fork();
        if (child == 0) {
            execl(argv[3], argv[3], (char *)NULL);
            _exit(127);
        }
        waitpid(child, NULL, 0);
    }
    printf("done %lu\n", (unsigned long)total);
    return 0;
}
