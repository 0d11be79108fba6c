/* SPDX-License-Identifier: MIT */
/*
 * shim_stress.c - several threads allocate, fill, check and free blocks of the TLSF malloc,
 * and hand blocks to each other through a shared queue, so that blocks are freed and
 * reallocated by threads other than the one that allocated them. Some requests are large
 * enough to get (and, freed, return) pools of their own, so pools come and go under
 * contention. Meanwhile the main thread forks: each child must find a consistent, unlocked
 * heap. At the end the heap must pass tlsfm_check().
 *
 *   shim_stress [threads] [operations per thread] [forks]
 *
 * Built three ways (test/shim/CMakeLists.txt): against the prefixed static library
 * (tlsfm_malloc, ...; SHIM_STRESS_PREFIXED=1), also under ThreadSanitizer, which brings
 * its own malloc; and against plain malloc, run with libtlsf_malloc.so preloaded.
 */
#define _GNU_SOURCE 1

#include <dlfcn.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(SHIM_STRESS_PREFIXED) && SHIM_STRESS_PREFIXED
#define TLSF_MALLOC_PREFIXED 1
#include "tlsf_malloc.h"
#define M(name) tlsfm_##name
#else
#include "tlsf_malloc.h"
#define M(name) name
#endif

#define SLOTS 128
#define QUEUE 256
#define MAX_THREADS 16

typedef struct block {
    unsigned char *ptr;
    size_t bytes;
    uint32_t seed;
    size_t align;
} block_t;

static struct {
    pthread_mutex_t lock;
    block_t items[QUEUE];
    size_t head, count;
} queue = {PTHREAD_MUTEX_INITIALIZER, {{NULL, 0, 0, 0}}, 0, 0};

static size_t max_request = (size_t)64 << 20; /* tlsfm_info.max_request */
static int (*heap_check)(void);
static void (*get_info)(struct tlsfm_info *);
static volatile int failed;

static void fail(const char *what, const block_t *b) {
    fprintf(stderr, "shim_stress: %s (block %p, %zu bytes, seed %u)\n", what, (void *)b->ptr,
            b->bytes, (unsigned)b->seed);
    failed = 1;
    abort();
}

static uint32_t next_random(uint32_t *state) {
    uint32_t x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *state = x;
}

static unsigned char pattern(uint32_t seed, size_t i) {
    return (unsigned char)(seed ^ (uint32_t)(i * 131u) ^ (uint32_t)(i >> 9));
}

/* The bytes of a block that are filled and checked: all of a small block; of a large one
 * both ends and every 4093rd byte between (keeps large blocks cheap). */
static size_t next_index(size_t i, size_t bytes) {
    return (bytes <= 4096 || i < 2048 || i + 2048 >= bytes) ? i + 1 : i + 4093;
}

static void fill(const block_t *b) {
    size_t i;
    for (i = 0; i < b->bytes; i = next_index(i, b->bytes))
        b->ptr[i] = pattern(b->seed, i);
}

static void verify(const block_t *b) {
    size_t i;
    if (b->align && ((uintptr_t)b->ptr & (b->align - 1)) != 0) fail("misaligned", b);
    if (M(malloc_usable_size)(b->ptr) < b->bytes) fail("usable size below the request", b);
    for (i = 0; i < b->bytes; i = next_index(i, b->bytes))
        if (b->ptr[i] != pattern(b->seed, i)) fail("contents changed", b);
}

static size_t random_size(uint32_t *rng) {
    uint32_t r = next_random(rng) % 1000;
    if (r < 700) return next_random(rng) % 128;
    if (r < 950) return next_random(rng) % 4096;
    if (r < 998) return next_random(rng) % (256 * 1024);
    if (max_request < (size_t)6 << 20) /* a small configuration: up to its largest request */
        return max_request / 2 + next_random(rng) % (max_request / 2);
    return (size_t)(1536 * 1024) + next_random(rng) % (4 * 1024 * 1024); /* own pool */
}

static int allocate(block_t *b, uint32_t *rng, uint32_t seed) {
    size_t bytes = random_size(rng);
    uint32_t how = next_random(rng) % 10;
    b->bytes = bytes;
    b->seed = seed;
    b->align = 0;
    if (how < 5) {
        b->ptr = (unsigned char *)M(malloc)(bytes);
    } else if (how < 7) {
        size_t i;
        b->ptr = (unsigned char *)M(calloc)(1, bytes);
        if (b->ptr)
            for (i = 0; i < bytes; i = next_index(i, bytes))
                if (b->ptr[i] != 0) fail("calloc not zeroed", b);
    } else if (how == 7) {
        b->align = (size_t)1 << (4 + next_random(rng) % 10);
        b->ptr = (unsigned char *)M(memalign)(b->align, bytes);
    } else if (how == 8) {
        void *p = NULL;
        b->align = (size_t)1 << (3 + next_random(rng) % 12);
        if (M(posix_memalign)(&p, b->align, bytes) != 0) p = NULL;
        b->ptr = (unsigned char *)p;
    } else {
        b->align = (size_t)1 << (4 + next_random(rng) % 8);
        b->ptr = (unsigned char *)M(aligned_alloc)(b->align, bytes);
    }
    if (b->ptr == NULL) return 0;
    fill(b);
    return 1;
}

static void release(block_t *b) {
    verify(b);
    M(free)(b->ptr);
    b->ptr = NULL;
}

/* Grow or shrink a block; realloc keeps the common prefix (and the alignment is dropped). */
static void resize(block_t *b, uint32_t *rng, uint32_t seed) {
    size_t bytes = random_size(rng) + 1, keep = bytes < b->bytes ? bytes : b->bytes;
    block_t old = *b;
    unsigned char *p;
    size_t i;
    verify(b);
    p = (unsigned char *)M(realloc)(b->ptr, bytes);
    if (p == NULL) fail("realloc failed", b);
    for (i = 0; i < keep; i = next_index(i, old.bytes))
        if (p[i] != pattern(old.seed, i)) fail("realloc lost contents", &old);
    b->ptr = p;
    b->bytes = bytes;
    b->seed = seed;
    b->align = 0;
    fill(b);
}

static int queue_push(const block_t *b) {
    int ok = 0;
    pthread_mutex_lock(&queue.lock);
    if (queue.count < QUEUE) {
        queue.items[(queue.head + queue.count++) % QUEUE] = *b;
        ok = 1;
    }
    pthread_mutex_unlock(&queue.lock);
    return ok;
}

static int queue_pop(block_t *b) {
    int ok = 0;
    pthread_mutex_lock(&queue.lock);
    if (queue.count > 0) {
        *b = queue.items[queue.head];
        queue.head = (queue.head + 1) % QUEUE;
        queue.count--;
        ok = 1;
    }
    pthread_mutex_unlock(&queue.lock);
    return ok;
}

typedef struct worker {
    pthread_t thread;
    unsigned id;
    unsigned long operations;
} worker_t;

static void *work(void *arg) {
    worker_t *self = (worker_t *)arg;
    block_t slots[SLOTS];
    uint32_t rng = 0x9e3779b9u * (self->id + 1);
    uint32_t seed = self->id << 24;
    unsigned long op;
    size_t i;
    memset(slots, 0, sizeof slots);
    for (op = 0; op < self->operations && !failed; ++op) {
        block_t *b = &slots[next_random(&rng) % SLOTS];
        uint32_t what = next_random(&rng) % 100;
        if (b->ptr == NULL) {
            if (what < 15) {
                if (queue_pop(b)) verify(b); /* adopt a block another thread made */
            } else {
                allocate(b, &rng, ++seed);
            }
        } else if (what < 30) {
            if (queue_push(b)) b->ptr = NULL; /* give it away */
        } else if (what < 50) {
            resize(b, &rng, ++seed);
        } else {
            release(b);
        }
    }
    for (i = 0; i < SLOTS; ++i)
        if (slots[i].ptr) release(&slots[i]);
    return NULL;
}

/* Fork while the workers run: the child must be able to allocate and see a sound heap. */
static int fork_once(void) {
    int status = 0;
    pid_t pid = fork();
    if (pid < 0) return 0;
    if (pid == 0) {
        void *p = M(malloc)(1000), *q = M(calloc)(3, 5000);
        int ok = p != NULL && q != NULL && (heap_check == NULL || heap_check() == 0);
        M(free)(p);
        M(free)(q);
        _exit(ok ? 0 : 7);
    }
    if (waitpid(pid, &status, 0) != pid) return 0;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int main(int argc, char **argv) {
    unsigned threads = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 4;
    unsigned long operations = argc > 2 ? strtoul(argv[2], NULL, 10) : 200000;
    unsigned forks = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 10) : 10;
    worker_t workers[MAX_THREADS];
    struct tlsfm_info info;
    block_t b;
    unsigned i, forked = 0;
#if defined(SHIM_STRESS_PREFIXED) && SHIM_STRESS_PREFIXED
    heap_check = tlsfm_check;
    get_info = tlsfm_get_info;
#else
    heap_check = (int (*)(void))(uintptr_t)dlsym(RTLD_DEFAULT, "tlsfm_check");
    get_info = (void (*)(struct tlsfm_info *))(uintptr_t)dlsym(RTLD_DEFAULT, "tlsfm_get_info");
    if (heap_check == NULL || get_info == NULL) {
        fprintf(stderr, "shim_stress: libtlsf_malloc.so is not in use (LD_PRELOAD it)\n");
        return 1;
    }
#endif
    get_info(&info);
    max_request = info.max_request;
    if (threads < 1) threads = 1;
    if (threads > MAX_THREADS) threads = MAX_THREADS;
    for (i = 0; i < threads; ++i) {
        workers[i].id = i;
        workers[i].operations = operations;
        if (pthread_create(&workers[i].thread, NULL, work, &workers[i]) != 0) {
            fprintf(stderr, "shim_stress: pthread_create failed\n");
            return 1;
        }
    }
    for (i = 0; i < forks; ++i) {
        forked += (unsigned)fork_once();
        usleep(2000);
    }
    for (i = 0; i < threads; ++i)
        pthread_join(workers[i].thread, NULL);
    while (queue_pop(&b))
        release(&b);
    get_info(&info);
    printf("shim_stress: %u threads x %lu operations, %u/%u forks ok; pools %zu (maps %zu, "
           "unmaps %zu, peak %zu KiB), live blocks %zu, check %d\n",
           threads, operations, forked, forks, info.pools, info.maps, info.unmaps,
           info.peak_mapped_bytes >> 10, info.live_blocks, heap_check());
    if (failed || forked != forks || heap_check() != 0) return 1;
#if defined(SHIM_STRESS_PREFIXED) && SHIM_STRESS_PREFIXED
    /* Every heap keeps at most one empty chunk; the large-block cache is bounded. */
    if (info.live_blocks != 0 || info.dedicated_pools != 0 || info.empty_chunks > info.heaps ||
        info.cached_bytes > ((size_t)64 << 20))
        return 1;
#endif
    return 0;
}
