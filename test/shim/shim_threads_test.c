/*
 * SPDX-License-Identifier: MIT
 *
 * shim_threads_test.c - the per-thread heaps of the drop-in malloc, scenario by scenario,
 * with exact expectations (on the prefixed library: tlsfm_malloc, ...):
 *
 *   remote     a live thread's blocks freed by another thread wait on its remote list;
 *              the owner takes back exactly TLSFM_REMOTE_BATCH of them per malloc or free,
 *              and all of them at the heap check;
 *   orphan     a thread exits with live blocks (small and large): its heap is orphaned
 *              with them, frees from another thread go straight into it, and the next new
 *              thread adopts it (no new heap is made) and frees the rest on its own heap;
 *   chunks     one thread's blocks span several chunks: frees that alternate between the
 *              first and the last chunk (the fast path's hot chunk changes on every free)
 *              keep the per-chunk counts exact, the emptied chunks are unmapped, and a
 *              free into a chunk that was unmapped while it was the hot one is reported
 *              as a foreign pointer (in a child), not followed;
 *   fork       while threads allocate and free each other's blocks, the main thread forks:
 *              each child allocates, frees a block of a thread that does not exist in the
 *              child, and finds every heap it may inspect sound;
 *   large      (first, while nothing is cached) freed large mappings are reused without a
 *              system call: a smaller request takes a cached mapping's head cut at a
 *              4 MiB region (the tail stays cached), the pieces join again when freed, a
 *              larger request grows a cached mapping, realloc grows a large block
 *              without a copy, the cache keeps at most 64 MiB, and a mapping left unused
 *              longer than the decay is unmapped;
 *   budget     a thread's requests turn mixed (1 in 4 of at least 1 KiB): its heap's
 *              front-cache budget shrinks; rare big requests (1 in 100) restore it;
 *   misuse     free of a chunk's header, of a pointer no mapping covers, of a block of an
 *              unmapped chunk that was the hot one (see chunks), and a double free
 *              by another thread (found when the owner takes it back) abort with a message
 *              (each in a child).
 *
 * Built twice (test/shim/CMakeLists.txt): plain, and under ThreadSanitizer with its own
 * copy of the core and the library. Exit status 0 when every check held.
 */
#define _GNU_SOURCE 1

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TLSF_MALLOC_PREFIXED 1
#include "tlsf_malloc.h"
#include "tlsfm_os.h"     /* tlsfm_large_decay_ms */
#include "tlsfm_thread.h" /* TLSFM_REMOTE_BATCH */

static int failures;

/* Whether AddressSanitizer is in the build (it stops one misuse case before the core does). */
#if defined(__SANITIZE_ADDRESS__)
#define SHIM_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SHIM_TEST_ASAN 1
#endif
#endif
#ifndef SHIM_TEST_ASAN
#define SHIM_TEST_ASAN 0
#endif
static const int asan_build = SHIM_TEST_ASAN;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);               \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

static struct tlsfm_info info(void) {
    struct tlsfm_info now;
    tlsfm_get_info(&now);
    return now;
}

/* ---- large ----------------------------------------------------------------------------- */

#define MIB ((size_t)1 << 20)
#define LARGE_CACHE_CAP (64 * MIB) /* tlsfm_os.c: what freed large mappings may keep */

static void write_pages(unsigned char *block, size_t bytes) {
    size_t i;
    for (i = 0; i < bytes; i += 4096)
        block[i] = (unsigned char)(i >> 12);
}

static int all_zero(const unsigned char *block, size_t bytes) {
    size_t i;
    for (i = 0; i < bytes; ++i)
        if (block[i] != 0) return 0;
    return 1;
}

/* Whether the system calls and the cache's figures moved as expected since `before`. */
static int large_counts(const struct tlsfm_info *before, size_t maps, size_t unmaps, size_t hits,
                        size_t cached) {
    struct tlsfm_info now = info();
    return now.maps == before->maps + maps && now.unmaps == before->unmaps + unmaps &&
           now.cache_hits == before->cache_hits + hits && now.cached_bytes == cached;
}

static void test_large(void) {
    struct tlsfm_info start = info();
    unsigned char *a, *b, *c, *blocks[5];
    size_t i;
    struct timespec pause = {0, 200 * 1000 * 1000};
    if (start.max_request < 2 * LARGE_CACHE_CAP) return; /* no large blocks of these sizes */
    CHECK(start.cached_bytes == 0 && start.dedicated_pools == 0);
    tlsfm_large_decay_ms = 1000L * 3600; /* the exact counts below must not depend on time */
    /* Request + 64 bytes of header = 24 MiB exactly: one fresh mapping, cached whole. */
    a = (unsigned char *)tlsfm_malloc(24 * MIB - 64);
    CHECK(a != NULL);
    if (a == NULL) return;
    write_pages(a, 24 * MIB - 64);
    tlsfm_free(a);
    CHECK(large_counts(&start, 1, 0, 0, 24 * MIB));
    /* 5 MiB: the head of the cached mapping, cut at a region (8 MiB); the tail stays cached
     * (no munmap), and calloc still clears the reused pages. */
    b = (unsigned char *)tlsfm_calloc(1, 5 * MIB);
    CHECK(b != NULL && all_zero(b, 5 * MIB));
    CHECK(large_counts(&start, 1, 0, 1, 16 * MIB));
    CHECK(tlsfm_malloc_usable_size(b) >= 5 * MIB && tlsfm_malloc_usable_size(b) < 8 * MIB);
    /* 14 MiB: the 16 MiB tail, whole (its need rounded up to a region). */
    c = (unsigned char *)tlsfm_malloc(14 * MIB);
    CHECK(c != NULL && large_counts(&start, 1, 0, 2, 0));
    CHECK(tlsfm_malloc_usable_size(c) >= 14 * MIB && tlsfm_malloc_usable_size(c) < 16 * MIB);
    tlsfm_free(b);
    tlsfm_free(c);
    /* The pieces join: one cached range of 24 MiB. 13 MiB takes 16 of it (even though 24
     * is less than twice 13), and 23 MiB then takes all 24 again. */
    CHECK(large_counts(&start, 1, 0, 2, 24 * MIB));
    a = (unsigned char *)tlsfm_malloc(13 * MIB);
    CHECK(a != NULL && large_counts(&start, 1, 0, 3, 8 * MIB));
    tlsfm_free(a);
    a = (unsigned char *)tlsfm_malloc(23 * MIB);
    CHECK(a != NULL && large_counts(&start, 1, 0, 4, 0));
    CHECK(tlsfm_check() == 0);
    tlsfm_free(a);
    /* Larger than anything cached: the cached mapping grows (in place or moved, no munmap). */
    a = (unsigned char *)tlsfm_malloc(40 * MIB);
    CHECK(a != NULL && info().cache_hits == start.cache_hits + 5 && info().cached_bytes == 0);
    CHECK(info().unmaps == start.unmaps);
    if (a != NULL) write_pages(a, 40 * MIB);
    tlsfm_free(a);
    /* realloc grows a large block without a copy through the cache: 5 MiB (8 of the 40
     * cached) to 30 MiB keeps its contents, and the cache the rest, untouched. */
    i = info().cached_bytes;
    b = (unsigned char *)tlsfm_malloc(5 * MIB);
    CHECK(b != NULL && i >= 40 * MIB && info().cached_bytes == i - 8 * MIB);
    if (b != NULL) {
        struct tlsfm_info before = info();
        memset(b, 0x6b, 5 * MIB);
        c = (unsigned char *)tlsfm_realloc(b, 30 * MIB);
        CHECK(c != NULL && c[0] == 0x6b && c[5 * MIB - 1] == 0x6b);
        CHECK(info().cached_bytes == before.cached_bytes && info().cache_hits == before.cache_hits);
        CHECK(info().dedicated_pools == before.dedicated_pools && tlsfm_check() == 0);
        if (c != NULL) write_pages(c, 30 * MIB);
        tlsfm_free(c != NULL ? c : b);
    }
    /* The bound: five live blocks of 20 MiB, freed, leave at most 64 MiB cached. */
    for (i = 0; i < 5; ++i) {
        blocks[i] = (unsigned char *)tlsfm_malloc(20 * MIB);
        CHECK(blocks[i] != NULL);
        if (blocks[i] != NULL) write_pages(blocks[i], 20 * MIB);
    }
    for (i = 0; i < 5; ++i)
        tlsfm_free(blocks[i]);
    CHECK(info().cached_bytes <= LARGE_CACHE_CAP && info().cached_bytes >= 40 * MIB);
    CHECK(info().unmaps > start.unmaps && info().dedicated_pools == 0);
    CHECK(tlsfm_check() == 0);
    /* The decay: after a pause longer than it, the next large call unmaps every cached
     * range first, so a small large request finds nothing to reuse. */
    tlsfm_large_decay_ms = 20;
    start = info();
    nanosleep(&pause, NULL);
    a = (unsigned char *)tlsfm_malloc(2 * MIB);
    CHECK(a != NULL && info().cached_bytes == 0 && info().cache_hits == start.cache_hits);
    CHECK(info().unmaps > start.unmaps && info().maps == start.maps + 1);
    tlsfm_free(a);
    tlsfm_large_decay_ms = TLSFM_LARGE_DECAY_MS;
    CHECK(tlsfm_check() == 0);
}

/* ---- budget ---------------------------------------------------------------------------- */

/* `big_requests` requests of 2 KiB, each after `small_per_big` of 64 bytes, each freed at once. */
static void request_mix(size_t big_requests, size_t small_per_big) {
    size_t i, j;
    for (i = 0; i < big_requests; ++i) {
        for (j = 0; j < small_per_big; ++j)
            tlsfm_free(tlsfm_malloc(64));
        tlsfm_free(tlsfm_malloc(2048));
    }
}

static void *budget_thread(void *arg) {
    size_t *seen = (size_t *)arg;
    /* Two windows of 64 big requests per phase: the last look sees that phase only. */
    request_mix(128, 99);
    seen[0] = info().cache_budget;
    request_mix(128, 3);
    seen[1] = info().cache_budget;
    request_mix(128, 99);
    seen[2] = info().cache_budget;
    CHECK(tlsfm_check() == 0);
    return NULL;
}

static void test_budget(void) {
    pthread_t thread;
    size_t seen[3] = {0, 0, 0};
    pthread_create(&thread, NULL, budget_thread, seen);
    pthread_join(thread, NULL);
    if (seen[0] == 0) return; /* a configuration without the front cache */
    CHECK(seen[1] < seen[0]); /* the mixed budget is the smaller one */
    CHECK(seen[1] != 0);
    CHECK(seen[2] == seen[0]);
}

/* ---- remote ---------------------------------------------------------------------------- */

#define REMOTE_BLOCKS 200

static void *remote_blocks[REMOTE_BLOCKS];
static pthread_barrier_t remote_barrier;
static size_t remote_live[4];

static void *remote_owner(void *arg) {
    size_t i;
    void *p;
    (void)arg;
    for (i = 0; i < REMOTE_BLOCKS; ++i) {
        remote_blocks[i] = tlsfm_malloc(16 + 8 * (i % 50));
        memset(remote_blocks[i], (int)i, 16);
    }
    pthread_barrier_wait(&remote_barrier); /* 1: blocks made */
    pthread_barrier_wait(&remote_barrier); /* 2: the main thread freed them all */
    remote_live[0] = info().live_blocks;
    p = tlsfm_malloc(100); /* takes back one batch, then allocates */
    remote_live[1] = info().live_blocks;
    tlsfm_free(p); /* frees its own block, then takes back one more batch */
    remote_live[2] = info().live_blocks;
    CHECK(tlsfm_check() == 0); /* takes back the rest */
    remote_live[3] = info().live_blocks;
    return NULL;
}

static void test_remote(void) {
    pthread_t owner;
    size_t i, base = info().live_blocks;
    pthread_barrier_init(&remote_barrier, NULL, 2);
    pthread_create(&owner, NULL, remote_owner, NULL);
    pthread_barrier_wait(&remote_barrier);
    CHECK(info().live_blocks == base + REMOTE_BLOCKS);
    for (i = 0; i < REMOTE_BLOCKS; ++i)
        tlsfm_free(remote_blocks[i]); /* pushed: the owner is alive */
    pthread_barrier_wait(&remote_barrier);
    pthread_join(owner, NULL);
    CHECK(remote_live[0] == base + REMOTE_BLOCKS);
    CHECK(remote_live[1] == base + REMOTE_BLOCKS - TLSFM_REMOTE_BATCH + 1);
    CHECK(remote_live[2] == base + REMOTE_BLOCKS - 2 * TLSFM_REMOTE_BATCH);
    CHECK(remote_live[3] == base);
    pthread_barrier_destroy(&remote_barrier);
}

/* ---- orphan ---------------------------------------------------------------------------- */

#define ORPHAN_BLOCKS 300

static void *orphan_blocks[ORPHAN_BLOCKS];

static void *orphan_maker(void *arg) {
    size_t i;
    (void)arg;
    for (i = 0; i < ORPHAN_BLOCKS; ++i) {
        size_t bytes = i % 100 == 7 ? (size_t)3 << 20 : 24 + 40 * (i % 30);
        orphan_blocks[i] = tlsfm_malloc(bytes);
        memset(orphan_blocks[i], 0x5a, 24);
    }
    return NULL; /* exits with every block live */
}

static void *orphan_adopter(void *arg) {
    size_t i, heaps = *(size_t *)arg;
    void *p = tlsfm_malloc(64); /* the first call adopts the orphaned heap */
    struct tlsfm_info now = info();
    CHECK(now.heaps == heaps);
    for (i = 1; i < ORPHAN_BLOCKS; i += 2)
        tlsfm_free(orphan_blocks[i]); /* blocks of its own heap now */
    tlsfm_free(p);
    CHECK(tlsfm_check() == 0);
    return NULL;
}

static void test_orphan(void) {
    pthread_t thread;
    size_t i, base = info().live_blocks, heaps;
    struct tlsfm_info now;
    pthread_create(&thread, NULL, orphan_maker, NULL);
    pthread_join(thread, NULL);
    now = info();
    heaps = now.heaps;
    CHECK(now.orphan_heaps >= 1);
    CHECK(now.live_blocks == base + ORPHAN_BLOCKS);
    for (i = 0; i < ORPHAN_BLOCKS; ++i)
        CHECK(((unsigned char *)orphan_blocks[i])[23] == 0x5a);
    for (i = 0; i < ORPHAN_BLOCKS; i += 2)
        tlsfm_free(orphan_blocks[i]); /* straight into the orphaned heap, under the lock */
    CHECK(info().live_blocks == base + ORPHAN_BLOCKS / 2);
    CHECK(tlsfm_check() == 0);
    pthread_create(&thread, NULL, orphan_adopter, &heaps);
    pthread_join(thread, NULL);
    now = info();
    CHECK(now.live_blocks == base);
    CHECK(now.heaps == heaps); /* adopted, not made */
}

/* ---- chunks ---------------------------------------------------------------------------- */

#define CHUNK_BLOCKS 160                     /* of 64 KiB: 10 MiB, at least three chunks */
#define CHUNK_BLOCK_BYTES ((size_t)64 << 10) /* well below the large-block threshold */

static unsigned char *chunk_blocks[CHUNK_BLOCKS];

static void fill_chunks(void) {
    size_t i;
    for (i = 0; i < CHUNK_BLOCKS; ++i) {
        chunk_blocks[i] = tlsfm_malloc(CHUNK_BLOCK_BYTES);
        memset(chunk_blocks[i], (int)i, 64);
    }
}

static void test_chunks(void) {
    size_t i, base = info().live_blocks, pools = info().pools;
    struct tlsfm_info now;
    fill_chunks();
    now = info();
    CHECK(now.live_blocks == base + CHUNK_BLOCKS);
    CHECK(now.pools >= pools + 2);
    for (i = 0; i < CHUNK_BLOCKS / 2; ++i) { /* first chunk, last chunk, first, ... */
        CHECK(chunk_blocks[i][63] == (unsigned char)i);
        tlsfm_free(chunk_blocks[i]);
        CHECK(chunk_blocks[CHUNK_BLOCKS - 1 - i][63] == (unsigned char)(CHUNK_BLOCKS - 1 - i));
        tlsfm_free(chunk_blocks[CHUNK_BLOCKS - 1 - i]);
        if (i == CHUNK_BLOCKS / 4) CHECK(tlsfm_check() == 0); /* walks count each chunk */
    }
    now = info();
    CHECK(now.live_blocks == base);
    CHECK(now.pools <= pools + 1); /* at most one empty chunk kept */
    CHECK(tlsfm_check() == 0);
}

/* The last block's chunk is the hot one when it is emptied and unmapped (another chunk is
 * already kept empty); freeing the block again must not take the fast path. */
static void free_in_unmapped_hot_chunk(void) {
    size_t i;
    fill_chunks();
    for (i = 0; i < CHUNK_BLOCKS; ++i)
        tlsfm_free(chunk_blocks[i]);
    tlsfm_free(chunk_blocks[CHUNK_BLOCKS - 1]);
}

/* ---- fork ------------------------------------------------------------------------------ */

#define FORK_SLOTS 64

static struct {
    pthread_mutex_t lock;
    void *slot[FORK_SLOTS];
} shared = {PTHREAD_MUTEX_INITIALIZER, {NULL}};
static atomic_int stop_workers;
static atomic_int workers_ready; /* workers that have a heap: forks come after all have */

static void *fork_worker(void *arg) {
    uint32_t rng = (uint32_t)(uintptr_t)arg * 2654435761u + 1;
    int ready = 0;
    while (!atomic_load(&stop_workers)) {
        size_t i;
        void *mine, *old;
        rng ^= rng << 13;
        rng ^= rng >> 17;
        rng ^= rng << 5;
        i = rng % FORK_SLOTS;
        mine = tlsfm_malloc(rng % 3000 + 1);
        if (!ready) {
            ready = 1;
            atomic_fetch_add(&workers_ready, 1);
        }
        pthread_mutex_lock(&shared.lock); /* swap with a block another thread may have made */
        old = shared.slot[i];
        shared.slot[i] = mine;
        pthread_mutex_unlock(&shared.lock);
        tlsfm_free(old);
    }
    return NULL;
}

static int child_checks(void) {
    void *p = tlsfm_malloc(1000), *q = tlsfm_calloc(3, 5000), *theirs;
    int ok = p != NULL && q != NULL;
    /* The lock is free in the child (the workers may have held it for a moment). */
    pthread_mutex_init(&shared.lock, NULL);
    theirs = shared.slot[0];
    shared.slot[0] = NULL;
    tlsfm_free(theirs); /* a block of a heap whose thread is gone here */
    tlsfm_free(p);
    tlsfm_free(q);
    if (!ok) fprintf(stderr, "fork child: malloc or calloc failed\n");
    if (tlsfm_check() != 0) {
        fprintf(stderr, "fork child: heap check failed\n");
        ok = 0;
    }
    if (info().unchecked_heaps < 1) {
        fprintf(stderr, "fork child: the workers' heaps were inspected\n");
        ok = 0;
    }
    return ok;
}

static void test_fork(void) {
    pthread_t workers[3];
    int i, forks = 0;
    size_t s;
    atomic_store(&stop_workers, 0);
    atomic_store(&workers_ready, 0);
    for (i = 0; i < 3; ++i)
        pthread_create(&workers[i], NULL, fork_worker, (void *)(uintptr_t)(i + 1));
    while (atomic_load(&workers_ready) < 3)
        usleep(100);
    for (i = 0; i < 20; ++i) {
        int status = 0;
        pid_t pid;
        usleep(1000);
        pid = fork();
        if (pid == 0) _exit(child_checks() ? 0 : 7);
        if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
            WEXITSTATUS(status) == 0)
            ++forks;
    }
    atomic_store(&stop_workers, 1);
    for (i = 0; i < 3; ++i)
        pthread_join(workers[i], NULL);
    CHECK(forks == 20);
    for (s = 0; s < FORK_SLOTS; ++s)
        tlsfm_free(shared.slot[s]);
    CHECK(tlsfm_check() == 0);
}

/* ---- foreign --------------------------------------------------------------------------- */

static void *foreign_target;

static void *free_twice(void *ptr) {
    tlsfm_free(ptr);
    tlsfm_free(ptr);
    return NULL;
}

/* Freed twice by another thread: found when the owner takes the block back. */
static void remote_double_free(void) {
    pthread_t thread;
    void *p = tlsfm_malloc(40);
    pthread_create(&thread, NULL, free_twice, p);
    pthread_join(thread, NULL);
    tlsfm_free(tlsfm_malloc(40));
}

static void free_stack_pointer(void) {
    int local;
    tlsfm_free(&local);
}

static void free_chunk_header(void) {
    tlsfm_free((void *)((uintptr_t)foreign_target & ~(uintptr_t)((4u << 20) - 1)));
}

static void expect_abort(void (*misuse)(void), const char *expected) {
    int fds[2], status = 0;
    char output[512];
    ssize_t got;
    pid_t pid;
    if (pipe(fds) != 0) {
        CHECK(0);
        return;
    }
    pid = fork();
    if (pid == 0) {
        dup2(fds[1], 2);
        misuse();
        _exit(0);
    }
    close(fds[1]);
    got = read(fds[0], output, sizeof output - 1);
    output[got > 0 ? got : 0] = '\0';
    close(fds[0]);
    waitpid(pid, &status, 0);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
    CHECK(strstr(output, expected) != NULL);
}

static void test_foreign(void) {
    foreign_target = tlsfm_malloc(200);
    expect_abort(free_stack_pointer, "not allocated by this heap");
    expect_abort(free_chunk_header, "not the start of a block");
    expect_abort(free_in_unmapped_hot_chunk, "not allocated by this heap");
    if (!asan_build) /* ASan stops first, at the read of the freed block's link */
        expect_abort(remote_double_free, "double free");
    tlsfm_free(foreign_target);
}

int main(void) {
    test_large(); /* first: it expects an empty cache of large mappings */
    test_remote();
    test_orphan();
    test_chunks();
    test_budget();
    test_fork();
    test_foreign();
    printf("shim_threads_test: %s\n", failures ? "FAILED" : "all checks held");
    return failures != 0;
}
