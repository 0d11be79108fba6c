/* SPDX-License-Identifier: MIT */
/*
 * shim_api_test.c - the malloc family of libtlsf_malloc.so against glibc's semantics.
 *
 * Built twice: linked with the library (shim_api_linked) and not linked, run with
 * LD_PRELOAD (shim_api_preload). Either way it first proves that malloc is the library's
 * (dladdr) and finds tlsfm_get_info / tlsfm_check with dlsym. Misuse (double free, foreign
 * and misaligned pointers) is tried in forked children, which must die of SIGABRT with the
 * library's message on stderr.
 */
#define _GNU_SOURCE 1

#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tlsf.h"
#include "tlsf_malloc.h"

/*
 * Every call goes through a volatile function pointer: the compiler may not treat it as
 * malloc (GCC and Clang remove an unused malloc/free pair, fold malloc(n) == NULL to false
 * and warn about impossible constant requests), so each call really reaches the library.
 */
static void *(*volatile call_malloc)(size_t) = malloc;
static void (*volatile call_free)(void *) = free;
static void *(*volatile call_calloc)(size_t, size_t) = calloc;
static void *(*volatile call_realloc)(void *, size_t) = realloc;
static void *(*volatile call_memalign)(size_t, size_t) = memalign;
static int (*volatile call_posix_memalign)(void **, size_t, size_t) = posix_memalign;
static void *(*volatile call_aligned_alloc)(size_t, size_t) = aligned_alloc;
static void *(*volatile call_valloc)(size_t) = valloc;
static void *(*volatile call_pvalloc)(size_t) = pvalloc;
static size_t (*volatile call_malloc_usable_size)(void *) = malloc_usable_size;
#define malloc(n) call_malloc(n)
#define free(p) call_free(p)
#define calloc(n, s) call_calloc(n, s)
#define realloc(p, n) call_realloc(p, n)
#define memalign(a, n) call_memalign(a, n)
#define posix_memalign(o, a, n) call_posix_memalign(o, a, n)
#define aligned_alloc(a, n) call_aligned_alloc(a, n)
#define valloc(n) call_valloc(n)
#define pvalloc(n) call_pvalloc(n)
#define malloc_usable_size(p) call_malloc_usable_size(p)

static int failures;
static int checks;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        ++checks;                                                                                  \
        if (!(cond)) {                                                                             \
            ++failures;                                                                            \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);               \
        }                                                                                          \
    } while (0)

typedef void (*get_info_fn)(struct tlsfm_info *);
typedef int (*check_fn)(void);
static get_info_fn get_info;
static check_fn heap_check;

static struct tlsfm_info info(void) {
    struct tlsfm_info result;
    memset(&result, 0, sizeof result);
    if (get_info) get_info(&result);
    return result;
}

/* Sizes the compiler must not see (it rightly warns about constant impossible requests). */
static volatile size_t size_max = SIZE_MAX;
static size_t opaque(size_t value) {
    volatile size_t copy = value;
    return copy;
}

static size_t min_size(size_t a, size_t b) {
    return a < b ? a : b;
}

static int aligned(const void *ptr, size_t align) {
    return ((uintptr_t)ptr & (align - 1)) == 0;
}

static int all_bytes(const void *ptr, unsigned char value, size_t bytes) {
    const unsigned char *p = (const unsigned char *)ptr;
    size_t i;
    for (i = 0; i < bytes; ++i)
        if (p[i] != value) return 0;
    return 1;
}

/* Allocated before main, in a constructor, and freed in main. */
static char *before_main;
__attribute__((constructor)) static void allocate_before_main(void) {
    before_main = (char *)malloc(100);
    if (before_main) memcpy(before_main, "allocated before main", 22);
}

static void test_is_active(void) {
    Dl_info where;
    void *(*volatile malloc_fn)(size_t) = malloc;
    get_info = (get_info_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "tlsfm_get_info");
    heap_check = (check_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "tlsfm_check");
    CHECK(get_info != NULL);
    CHECK(heap_check != NULL);
    memset(&where, 0, sizeof where);
    CHECK(dladdr((void *)(uintptr_t)malloc_fn, &where) != 0);
    CHECK(where.dli_fname != NULL && strstr(where.dli_fname, "tlsf_malloc") != NULL);
    if (get_info == NULL || heap_check == NULL) {
        fprintf(stderr, "shim_api_test: libtlsf_malloc.so is not in use\n");
        exit(1);
    }
    CHECK(before_main != NULL && strcmp(before_main, "allocated before main") == 0);
    CHECK(malloc_usable_size(before_main) >= 100);
    free(before_main);
}

static void test_malloc(void) {
    void *a = malloc(0), *b = malloc(0), *p;
    size_t n;
    CHECK(a != NULL && b != NULL && a != b); /* glibc: a unique pointer */
    CHECK(aligned(a, ((size_t)1 << TLSF_ALIGN_LOG2)) && aligned(b, ((size_t)1 << TLSF_ALIGN_LOG2)));
    free(a);
    free(b);
    for (n = 1; n < 5000; n = n * 3 + 1) {
        p = malloc(n);
        CHECK(p != NULL && aligned(p, 16));
        CHECK(malloc_usable_size(p) >= n);
        memset(p, 0x5a, malloc_usable_size(p));
        free(p);
    }
    errno = 0;
    CHECK(malloc(size_max) == NULL && errno == ENOMEM);
    errno = 0;
    CHECK(malloc(size_max / 2) == NULL && errno == ENOMEM);
    errno = 0;
    CHECK(malloc(size_max - 4096) == NULL && errno == ENOMEM);
    CHECK(malloc_usable_size(NULL) == 0);
    free(NULL);
    errno = 1234; /* free keeps errno */
    p = malloc(10);
    errno = 1234;
    free(p);
    CHECK(errno == 1234);
}

static void test_calloc(void) {
    unsigned char *p;
    struct tlsfm_info limits = info();
    size_t big = min_size((size_t)48 << 20, limits.max_request);
    size_t medium = limits.chunk_bytes / 4 * 3;
    errno = 0;
    CHECK(calloc(size_max / 2, 3) == NULL && errno == ENOMEM);
    errno = 0;
    CHECK(calloc(opaque((size_t)1 << 40), opaque((size_t)1 << 40)) == NULL && errno == ENOMEM);
    p = (unsigned char *)calloc(0, 0);
    CHECK(p != NULL);
    free(p);
    /* Reuse of a dirty block must still come back zeroed. */
    p = (unsigned char *)malloc(1000);
    memset(p, 0xff, 1000);
    free(p);
    p = (unsigned char *)calloc(10, 100);
    CHECK(p != NULL && all_bytes(p, 0, 1000));
    free(p);
    /* A large calloc gets a pool of its own (zero pages, only the ends written). */
    p = (unsigned char *)malloc(big);
    CHECK(p != NULL);
    if (p) memset(p, 0xff, big);
    free(p);
    p = (unsigned char *)calloc(big / 8, 8);
    CHECK(p != NULL && all_bytes(p, 0, big));
    free(p);
    p = (unsigned char *)calloc(1, medium); /* in a chunk: the memset path */
    CHECK(p != NULL && all_bytes(p, 0, medium));
    free(p);
}

static void test_realloc(void) {
    unsigned char *p, *q;
    size_t i;
    struct tlsfm_info before, after, limits = info();
    size_t large = min_size((size_t)20 << 20, limits.max_request / 2);
    size_t larger = min_size((size_t)30 << 20, limits.max_request);
    p = (unsigned char *)realloc(NULL, 10);
    CHECK(p != NULL);
    for (i = 0; i < 10; ++i)
        p[i] = (unsigned char)i;
    q = (unsigned char *)realloc(p, 100000); /* grows, maybe moves */
    CHECK(q != NULL);
    for (i = 0; q && i < 10; ++i)
        CHECK(q[i] == i);
    p = (unsigned char *)realloc(q, 5); /* shrinks in place */
    CHECK(p == q);
    for (i = 0; p && i < 5; ++i)
        CHECK(p[i] == i);
    /* Into a pool of its own and back. */
    q = (unsigned char *)realloc(p, large);
    CHECK(q != NULL);
    for (i = 0; q && i < 5; ++i)
        CHECK(q[i] == i);
    if (q) memset(q + 5, 0x77, large - 5);
    p = (unsigned char *)realloc(q, larger);
    CHECK(p != NULL && p[4] == 4 && p[large - 1] == 0x77);
    q = (unsigned char *)realloc(p, 64);
    CHECK(q != NULL && q[4] == 4 && q[63] == 0x77);
    /* Failure leaves the block alone. */
    errno = 0;
    {
        unsigned char *volatile kept = q; /* realloc fails: the block stays valid */
        p = (unsigned char *)realloc(kept, size_max - 64);
        CHECK(p == NULL && errno == ENOMEM && kept[4] == 4);
        /* realloc(p, 0) frees p and returns NULL (glibc). */
        before = info();
        p = (unsigned char *)realloc(kept, 0);
    }
    after = info();
    CHECK(p == NULL);
    CHECK(after.live_blocks + 1 == before.live_blocks);
}

static void test_aligned(void) {
    size_t align, page = (size_t)sysconf(_SC_PAGESIZE);
    void *p;
    int rc;
    size_t max_request = info().max_request;
    for (align = 1; align <= ((size_t)1 << 22) && 4 * align < max_request; align <<= 1) {
        p = memalign(align, 100);
        CHECK(p != NULL && aligned(p, align) && malloc_usable_size(p) >= 100);
        if (p) memset(p, 1, 100);
        free(p);
        p = aligned_alloc(align, 3 * align);
        CHECK(p != NULL && aligned(p, align));
        free(p);
        p = NULL;
        rc = posix_memalign(&p, align, 77);
        if (align < sizeof(void *)) {
            CHECK(rc == EINVAL && p == NULL);
        } else {
            CHECK(rc == 0 && p != NULL && aligned(p, align));
        }
        free(p);
    }
    p = memalign(opaque(48), 10); /* glibc rounds the alignment up to a power of two */
    CHECK(p != NULL && aligned(p, 64));
    free(p);
    p = memalign(opaque(0), 10);
    CHECK(p != NULL);
    free(p);
    errno = 0;
    CHECK(memalign(size_max, 10) == NULL && errno == EINVAL);
    errno = 0;
    CHECK(aligned_alloc(opaque(48), 96) == NULL && errno == EINVAL);
    errno = 0;
    CHECK(aligned_alloc(opaque(0), 16) == NULL && errno == EINVAL);
    p = (void *)&rc;
    CHECK(posix_memalign(&p, 0, 8) == EINVAL && p == (void *)&rc);
    CHECK(posix_memalign(&p, 24, 8) == EINVAL);
    CHECK(posix_memalign(&p, sizeof(void *) / 2, 8) == EINVAL);
    errno = 4321;
    CHECK(posix_memalign(&p, 64, size_max - 8) == ENOMEM && p == (void *)&rc);
    CHECK(errno == 4321); /* posix_memalign reports through its result */
    errno = 0;
    CHECK(memalign(64, size_max - 8) == NULL && errno == ENOMEM);
    p = valloc(10);
    CHECK(p != NULL && aligned(p, page));
    free(p);
    p = pvalloc(1);
    CHECK(p != NULL && aligned(p, page) && malloc_usable_size(p) >= page);
    free(p);
    p = pvalloc(0);
    CHECK(p != NULL && aligned(p, page) && malloc_usable_size(p) >= page);
    free(p);
    errno = 0;
    CHECK(pvalloc(size_max - 10) == NULL && errno == ENOMEM);
}

static void test_pools(void) {
    struct tlsfm_info start = info(), now;
    void *big, *blocks[40];
    size_t i, chunk = start.chunk_bytes;
    CHECK(chunk >= ((size_t)1 << 20) || chunk >= start.max_request);
    /* A request larger than a chunk: a pool of its own, unmapped when freed. (A small
     * configuration, whose largest pool is a chunk, has none.) */
    if (start.max_request > chunk) {
        big = malloc(min_size(chunk * 3, start.max_request));
        now = info();
        CHECK(big != NULL && now.pools == start.pools + 1 &&
              now.dedicated_pools == start.dedicated_pools + 1);
        free(big);
        now = info();
        CHECK(now.pools == start.pools && now.dedicated_pools == start.dedicated_pools);
        /* Kept in the bounded cache of freed large mappings, and reused from there (unless
         * this process stalled for longer than the cache's decay, 100 ms, in between: the
         * range was then unmapped, which the unmap count shows). */
        CHECK(now.cached_bytes >= chunk * 3 && now.cached_bytes <= ((size_t)64 << 20));
        big = malloc(min_size(chunk * 3, start.max_request) - 4096);
        CHECK(big != NULL &&
              (info().cache_hits == now.cache_hits + 1 || info().unmaps > now.unmaps));
        if (big) memset(big, 0x33, chunk * 2);
        free(big);
        /* Larger than anything cached: a cached mapping is grown (its pages moved), and a
         * calloc from it is still all zero. */
        now = info();
        big = calloc(1, chunk * 20);
        CHECK(big != NULL &&
              (info().cache_hits == now.cache_hits + 1 || info().unmaps > now.unmaps));
        CHECK(big != NULL && all_bytes((unsigned char *)big, 0, chunk * 20));
        free(big);
        CHECK(heap_check() == 0);
    }
    /* Ordinary requests fill chunks; emptied chunks go back except one. */
    for (i = 0; i < 40; ++i) {
        blocks[i] = malloc(chunk / 5);
        CHECK(blocks[i] != NULL);
    }
    now = info();
    CHECK(now.pools >= start.pools + 8);
    for (i = 0; i < 40; ++i)
        free(blocks[i]);
    now = info();
    CHECK(now.pools <= start.pools + 1);
    CHECK(now.empty_chunks <= 1);
    CHECK(heap_check() == 0);
}

/* Small objects of three spans filling several chunks, freed in allocation order and then
 * in reverse: the emptied chunks go back except one, whatever the core kept of them (the
 * cache's blocks; the current slabs, when slabs are switched on: the removal of a pool
 * gives back both first). */
static void test_small_objects(void) {
    struct tlsfm_info start = info(), now;
    size_t count = start.chunk_bytes * 3 / 48, i;
    int round;
    void **objects = (void **)malloc(count * sizeof *objects);
    CHECK(objects != NULL);
    if (objects == NULL) return;
    for (round = 0; round < 2; ++round) {
        for (i = 0; i < count; ++i) {
            objects[i] = malloc(40 + i % 3 * 8); /* three spans */
            CHECK(objects[i] != NULL);
        }
        now = info();
        CHECK(now.pools >= start.pools + 2);
        for (i = 0; i < count; ++i)
            free(objects[round == 0 ? i : count - 1 - i]);
        now = info();
        CHECK(now.pools <= start.pools + 1);
        CHECK(now.empty_chunks <= 1);
        CHECK(heap_check() == 0);
    }
    free(objects);
}

/* Run `misuse` in a child; it must die of SIGABRT with `expected` in its stderr. */
static void expect_abort(void (*misuse)(void), const char *expected) {
    int fds[2], status = 0;
    char output[1024];
    size_t got = 0;
    ssize_t n;
    pid_t pid;
    if (pipe(fds) != 0) {
        CHECK(0);
        return;
    }
    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        dup2(fds[1], 2);
        close(fds[0]);
        signal(SIGABRT, SIG_DFL);
        misuse();
        _exit(0); /* survived: wrong */
    }
    close(fds[1]);
    while (got + 1 < sizeof output && (n = read(fds[0], output + got, sizeof output - 1 - got)) > 0)
        got += (size_t)n;
    output[got] = '\0';
    close(fds[0]);
    waitpid(pid, &status, 0);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
    CHECK(strstr(output, expected) != NULL);
    if (!(WIFSIGNALED(status) && strstr(output, expected)))
        fprintf(stderr, "  expected '%s', child said: %s\n", expected, output);
}

static char not_ours[64];
static void free_foreign(void) {
    void *volatile p = not_ours + 16; /* volatile: keep the compiler from seeing through it */
    free(p);
}
#if TLSF_CHECKS >= 1
static void double_free(void) {
    void *volatile p = malloc(64);
    void *volatile q = malloc(64); /* keeps p's block from merging away */
    free(p);
    free(p);
    free(q);
}
/* The core finds it in realloc: the message must name realloc, not free. */
static void realloc_freed(void) {
    void *volatile p = malloc(64);
    void *volatile q = malloc(64);
    void *volatile r;
    free(p);
    r = realloc(p, 200);
    (void)r;
    free(q);
}
/* A block of a chunk that still holds others: free's fast path (the count lowered, then the
 * core's free as a tail call) must still abort at once. */
static void double_free_fast(void) {
    void *volatile keep = malloc(64);
    void *volatile p = malloc(64);
    void *volatile q = malloc(64);
    free(p);
    free(p);
    free(q);
    free(keep);
}
static void free_misaligned(void) {
    char *p = (char *)malloc(64);
    void *volatile inside = p + 1;
    free(inside);
}
#endif
static void realloc_foreign(void) {
    void *volatile p = not_ours;
    void *volatile q = realloc(p, 100);
    (void)q;
}

static void test_misuse(void) {
    expect_abort(free_foreign, "free(0x");
    expect_abort(free_foreign, "not allocated by this heap");
    expect_abort(realloc_foreign, "realloc(0x");
#if TLSF_CHECKS >= 1
    expect_abort(double_free, "double free");
    expect_abort(double_free, "free(0x");
    expect_abort(double_free_fast, "double free");
    expect_abort(realloc_freed, "realloc(0x");
    expect_abort(realloc_freed, "double free");
    expect_abort(free_misaligned, "bad pointer");
#endif
}

static void test_fork(void) {
    int status = 0;
    void *keep = malloc(1000);
    pid_t pid;
    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        void *p = malloc(12345), *q = calloc(100, 100);
        int ok = p && q && heap_check() == 0;
        free(p);
        free(q);
        free(keep);
        _exit(ok && heap_check() == 0 ? 0 : 3);
    }
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    free(keep);
}

int main(void) {
    test_is_active();
    test_malloc();
    test_calloc();
    test_realloc();
    test_aligned();
    test_pools();
    test_small_objects();
    test_fork();
    test_misuse();
    CHECK(heap_check() == 0);
    printf("shim_api_test: %d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
