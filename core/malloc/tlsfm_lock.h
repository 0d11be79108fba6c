/*
 * SPDX-License-Identifier: MIT
 *
 * tlsfm_lock.h - the drop-in malloc's one lock, in one place (so that it can become the
 * project's C lock type later without touching its users).
 *
 * It guards only what threads share and change rarely: the region map's writers, the
 * large-mapping cache and the counters of tlsfm_os.c, and the list of heaps and of
 * orphaned heaps in tlsfm_thread.c. No malloc or free of a thread on its own heap takes
 * it: only mapping or unmapping a pool, a large block, a thread's first call or its exit,
 * a free into an orphaned heap, the heap check and fork.
 */
#ifndef TLSFM_LOCK_H
#define TLSFM_LOCK_H

#include <pthread.h>

extern pthread_mutex_t tlsfm_global_mutex;

static inline void tlsfm_lock(void) {
    pthread_mutex_lock(&tlsfm_global_mutex);
}

static inline void tlsfm_unlock(void) {
    pthread_mutex_unlock(&tlsfm_global_mutex);
}

#endif /* TLSFM_LOCK_H */
