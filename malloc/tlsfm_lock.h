/*
 * SPDX-License-Identifier: MIT
 *
 * tlsfm_lock.h - the drop-in malloc's one lock, as the project's C lock type (tlsf_lock.h):
 * a tlsf_lock_t over a pthread mutex, the same concept the FreeRTOS port and the C++
 * layer use.
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

#include "tlsf_lock.h"

extern pthread_mutex_t tlsfm_global_mutex;
/* {lock the mutex, unlock it, &tlsfm_global_mutex} (tlsfm_thread.c). */
extern const tlsf_lock_t tlsfm_global_lock;

static inline void tlsfm_lock(void) {
    tlsf_lock_acquire(&tlsfm_global_lock);
}

static inline void tlsfm_unlock(void) {
    tlsf_lock_release(&tlsfm_global_lock);
}

#endif /* TLSFM_LOCK_H */
