/*
 * tlsf_malloc.c - the C library's malloc family on one TLSF heap, for hosted Linux:
 * libtlsf_malloc.so, used with LD_PRELOAD or by linking it into a program.
 *
 * Memory. The heap's control structure and all its pools come from mmap. A request that no
 * free block can serve adds a pool: a chunk (4 MiB, or the largest pool the configuration
 * allows if that is less) for ordinary requests, or, for a request that needs more than a
 * quarter of a chunk, a pool sized to fit it exactly (no free tail for small blocks to
 * settle in). A pool is removed from the heap and unmapped when its last allocation is
 * freed: always if it was made for one large request; a chunk only when another empty chunk
 * is already kept, so that a program allocating and freeing across a chunk boundary does
 * not map and unmap on every call.
 *
 * Pools. An array sorted by address (itself mmap'd) finds the pool of a pointer in
 * O(log pools); each pool counts the allocations it holds, which is how "wholly free" is
 * known without walking it. A pointer outside every pool is not ours: free and realloc
 * report it and abort, like double frees and misaligned pointers, which the core reports
 * through its error handler (message on stderr with write(2), then abort()).
 *
 * Threads. One pthread mutex around every heap operation; the memset of calloc runs
 * outside it. Fork: pthread_atfork takes the mutex before fork() and releases it in parent
 * and child, so the child gets a consistent heap and an unlocked mutex.
 *
 * Nothing here allocates with malloc: initialisation uses mmap and static storage only, so
 * the allocator works from the first call, before main, in other libraries' constructors
 * and for the dynamic loader's own requests.
 *
 * Semantics are glibc's where TLSF's differ or say nothing: malloc(0) returns a unique
 * minimum-size block; realloc(p, 0) frees p and returns NULL; realloc(NULL, n) is
 * malloc(n); every failure sets errno = ENOMEM (EINVAL for a bad alignment);
 * posix_memalign wants a power-of-two multiple of sizeof(void *) and returns EINVAL or
 * ENOMEM; memalign rounds a non-power-of-two alignment up to the next power of two (EINVAL
 * above SIZE_MAX / 2 + 1); aligned_alloc refuses one with EINVAL (glibc 2.38 and C17);
 * valloc and pvalloc align to the page, pvalloc also rounds the size up to whole pages;
 * malloc_usable_size is tlsf_block_size. When realloc has to move a block it allocates a
 * plain (malloc-aligned) block, as glibc does, unless TLSF moves it itself.
 *
 * Environment: TLSF_MALLOC_REPORT=<file> appends one line per process at exit with the
 * pool counts and the result of a full heap check (used by scripts/run-under-shim.sh to
 * prove the library was in use).
 */
#define _GNU_SOURCE 1

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tlsf.h"
#include "tlsf_malloc.h"

#if defined(TLSF_MALLOC_PREFIXED) && TLSF_MALLOC_PREFIXED
#define API(name) tlsfm_##name
#else
#define API(name) name
#endif
#define EXPORT __attribute__((visibility("default")))

/* An ordinary pool. Requests that need more than a quarter of it get a pool of their own. */
#define CHUNK_BYTES ((size_t)4 << 20)
/* calloc from a freshly mapped pool zeroes only this much at each end (see calloc). */
#define ZERO_EDGE_BYTES ((size_t)256)

typedef struct pool_rec {
    uintptr_t start; /* the mapping is [start, start + map_bytes); the pool starts there */
    size_t map_bytes;
    pool_t pool;
    size_t live;   /* allocations in this pool */
    int dedicated; /* made for one large request: unmapped as soon as it is empty */
} pool_rec_t;

static pthread_mutex_t heap_lock = PTHREAD_MUTEX_INITIALIZER;

/* Everything below is guarded by heap_lock. */
static tlsf_t heap;
static size_t page_bytes;
static size_t chunk_bytes;
static size_t max_pool_bytes;
static size_t max_request;
static pool_rec_t *recs; /* sorted by start */
static size_t rec_count;
static size_t rec_capacity;
static size_t rec_map_bytes;
static size_t empty_chunks;
static size_t mapped_bytes;
static size_t peak_mapped_bytes;
static size_t map_count;
static size_t unmap_count;
static tlsf_error_t pending_error;
static const void *pending_ptr;

/* Set once by the constructor. */
static char report_path[512];

/* ---- Messages without stdio ---------------------------------------------------------- */

static size_t put_text(char *buf, size_t at, size_t cap, const char *text) {
    while (*text && at + 1 < cap)
        buf[at++] = *text++;
    return at;
}

static size_t put_number(char *buf, size_t at, size_t cap, uintmax_t value, unsigned base) {
    char digits[3 * sizeof value + 2];
    size_t n = 0;
    do {
        unsigned digit = (unsigned)(value % base);
        digits[n++] = (char)(digit < 10 ? '0' + digit : 'a' + (digit - 10));
        value /= base;
    } while (value != 0);
    while (n > 0 && at + 1 < cap)
        buf[at++] = digits[--n];
    return at;
}

static void write_all(int fd, const char *buf, size_t bytes) {
    while (bytes > 0) {
        ssize_t done = write(fd, buf, bytes);
        if (done < 0 && errno == EINTR) continue;
        if (done <= 0) return;
        buf += done;
        bytes -= (size_t)done;
    }
}

/* Report misuse (or an internal error) and abort. */
__attribute__((noreturn)) static void die(const char *function, const char *what, const void *ptr) {
    char message[512];
    size_t n = put_text(message, 0, sizeof message, "tlsf_malloc: ");
    n = put_text(message, n, sizeof message, function);
    n = put_text(message, n, sizeof message, "(0x");
    n = put_number(message, n, sizeof message, (uintptr_t)ptr, 16);
    n = put_text(message, n, sizeof message, "): ");
    n = put_text(message, n, sizeof message, what);
    n = put_text(message, n, sizeof message, "; aborting\n");
    write_all(2, message, n);
    abort();
}

/* ---- Locking and fork ------------------------------------------------------------------ */

static void lock(void) {
    pthread_mutex_lock(&heap_lock);
}

static void unlock(void) {
    pthread_mutex_unlock(&heap_lock);
}

__attribute__((noreturn)) static void die_locked(const char *function, const char *what,
                                                 const void *ptr) {
    unlock();
    die(function, what, ptr);
}

static void atfork_prepare(void) {
    lock();
}

static void atfork_parent(void) {
    unlock();
}

static void atfork_child(void) {
    /* The forking thread took the mutex in atfork_prepare and is the child's only thread. */
    unlock();
}

/* ---- The heap's error handler ---------------------------------------------------------- */

/* The core calls this with the lock held and then leaves the heap as it was; the caller
 * looks at pending_error when the core returns (check_pending_locked) and aborts there. */
static void on_heap_error(tlsf_t tlsf, tlsf_error_t reason, const void *ptr, void *user) {
    (void)tlsf;
    (void)user;
    if (pending_error == TLSF_ERROR_NONE) {
        pending_error = reason;
        pending_ptr = ptr;
    }
}

static void check_pending_locked(const char *function) {
    if (pending_error != TLSF_ERROR_NONE) {
        tlsf_error_t reason = pending_error;
        pending_error = TLSF_ERROR_NONE;
        die_locked(function, tlsf_error_string(reason), pending_ptr);
    }
}

/* ---- Arithmetic -------------------------------------------------------------------------- */

static int is_power_of_two(size_t value) {
    return value != 0 && (value & (value - 1)) == 0;
}

/* value rounded up to a multiple of the power of two `align`; callers keep it in range. */
static size_t round_up(size_t value, size_t align) {
    return (value + align - 1) & ~(align - 1);
}

static unsigned log2_floor(size_t value) {
    unsigned log2 = 0;
    while (value >>= 1)
        ++log2;
    return log2;
}

/*
 * The span the core gives a block that needs `need` bytes: the lower bound of the smallest
 * size class at or above it ("good fit", tlsf.h; the classes are described in
 * tlsf_config.h). Used to size a pool for one large request exactly; should the core round
 * differently, the request still succeeds (see alloc_locked), only less tightly.
 */
static size_t class_span(size_t need) {
    size_t align = tlsf_align_size();
    size_t linear_end = (align << TLSF_SL_INDEX_LOG2) * 2;
    if (need < linear_end) return round_up(need, align);
    return round_up(need, (size_t)1 << (log2_floor(need) - TLSF_SL_INDEX_LOG2));
}

/* Pool bytes for one request of `bytes` aligned to `align` (0: the default alignment), plus
 * `slack`; 0 when no pool can be that large. */
static size_t pool_bytes_for(size_t bytes, size_t align, size_t slack) {
    size_t word = tlsf_alloc_overhead();
    size_t min_span = tlsf_block_size_min() + word;
    size_t need, span;
    if (bytes > max_pool_bytes || align > max_pool_bytes || slack > max_pool_bytes) return 0;
    need = bytes + word;
    if (align > tlsf_align_size()) need += word; /* memalign records the alignment */
    if (need < min_span) need = min_span;
    span = class_span(need);
    if (align > tlsf_align_size()) /* room for the leading gap, as tlsf_memalign asks */
        span = class_span(span + align + min_span - tlsf_align_size());
    span += slack;
    if (span > max_pool_bytes - tlsf_pool_overhead()) return 0;
    return span + tlsf_pool_overhead();
}

/* ---- Pools ----------------------------------------------------------------------------- */

static void *map_pages(size_t bytes) {
    void *mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return mem == MAP_FAILED ? NULL : mem;
}

static int heap_init_locked(void) {
    long page;
    size_t control_bytes;
    void *control;
    if (heap != NULL) return 1;
    page = sysconf(_SC_PAGESIZE);
    page_bytes = page > 0 ? (size_t)page : 4096;
    /* tlsf_add_pool takes pools whose usable part is below tlsf_block_size_max(). */
    max_pool_bytes =
        (tlsf_block_size_max() - tlsf_align_size() + tlsf_pool_overhead()) & ~(page_bytes - 1);
    chunk_bytes = CHUNK_BYTES < max_pool_bytes ? CHUNK_BYTES : max_pool_bytes;
    control_bytes = round_up(tlsf_size(), page_bytes);
    control = map_pages(control_bytes);
    if (control == NULL) return 0;
    heap = tlsf_create(control);
    if (heap == NULL) {
        munmap(control, control_bytes);
        return 0;
    }
    tlsf_set_error_handler(heap, on_heap_error, NULL);
    { /* The largest request a pool can be made for (pool_bytes_for is monotonic). */
        size_t low = 0, high = max_pool_bytes;
        while (low < high) {
            size_t mid = low + (high - low + 1) / 2;
            if (pool_bytes_for(mid, 0, 0) != 0)
                low = mid;
            else
                high = mid - 1;
        }
        max_request = low;
    }
    return 1;
}

/* The pool holding `ptr`, or NULL if no pool does. */
static pool_rec_t *rec_find_locked(const void *ptr) {
    uintptr_t address = (uintptr_t)ptr;
    size_t low = 0, high = rec_count;
    pool_rec_t *rec;
    while (low < high) {
        size_t mid = low + (high - low) / 2;
        if (recs[mid].start <= address)
            low = mid + 1;
        else
            high = mid;
    }
    if (low == 0) return NULL;
    rec = &recs[low - 1];
    return address - rec->start < rec->map_bytes ? rec : NULL;
}

/* Make room for one more record (the array is mmap'd and doubles when full). */
static int rec_reserve_locked(void) {
    size_t bytes;
    pool_rec_t *grown;
    if (rec_count < rec_capacity) return 1;
    bytes = rec_map_bytes ? rec_map_bytes * 2 : page_bytes;
    grown = (pool_rec_t *)map_pages(bytes);
    if (grown == NULL) return 0;
    if (recs != NULL) {
        memcpy(grown, recs, rec_count * sizeof *recs);
        munmap(recs, rec_map_bytes);
    }
    recs = grown;
    rec_map_bytes = bytes;
    rec_capacity = bytes / sizeof *recs;
    return 1;
}

/*
 * Map a pool that can serve `bytes` at `align` and add it to the heap. `attempt` > 0 adds
 * slack, for when an earlier estimate fell short. Returns the start of the new pool's
 * mapping (records move when one is inserted, so callers keep addresses, not records), or
 * 0 when the request is too large or the system has no memory.
 */
static uintptr_t grow_locked(size_t bytes, size_t align, unsigned attempt) {
    size_t slack = attempt ? (bytes >> 4) + page_bytes * attempt : 0;
    size_t pool_bytes = pool_bytes_for(bytes, align, slack);
    size_t map_bytes, index;
    int dedicated;
    void *mem;
    pool_t pool;
    if (pool_bytes == 0 || !rec_reserve_locked()) return 0;
    dedicated = pool_bytes > chunk_bytes / 4;
    if (!dedicated) pool_bytes = chunk_bytes;
    map_bytes = round_up(pool_bytes, page_bytes);
    mem = map_pages(map_bytes);
    if (mem == NULL) return 0;
    pool = tlsf_add_pool(heap, mem, pool_bytes);
    if (pool == NULL) {
        pending_error = TLSF_ERROR_NONE;
        munmap(mem, map_bytes);
        return 0;
    }
    for (index = rec_count; index > 0 && recs[index - 1].start > (uintptr_t)mem; --index) {
    }
    memmove(recs + index + 1, recs + index, (rec_count - index) * sizeof *recs);
    recs[index].start = (uintptr_t)mem;
    recs[index].map_bytes = map_bytes;
    recs[index].pool = pool;
    recs[index].live = 0;
    recs[index].dedicated = dedicated;
    rec_count++;
    if (!dedicated) empty_chunks++;
    mapped_bytes += map_bytes;
    if (mapped_bytes > peak_mapped_bytes) peak_mapped_bytes = mapped_bytes;
    map_count++;
    return (uintptr_t)mem;
}

/* Take an empty pool out of the heap and give its memory back to the system. */
static void release_locked(pool_rec_t *rec, const char *function) {
    size_t index = (size_t)(rec - recs);
    void *mem = (void *)rec->start;
    size_t map_bytes = rec->map_bytes;
    tlsf_remove_pool(heap, rec->pool);
    if (pending_error != TLSF_ERROR_NONE)
        die_locked(function, "internal error: an empty pool still holds blocks", mem);
    if (!rec->dedicated) empty_chunks--;
    memmove(recs + index, recs + index + 1, (rec_count - index - 1) * sizeof *recs);
    rec_count--;
    munmap(mem, map_bytes);
    mapped_bytes -= map_bytes;
    unmap_count++;
}

/* A block at `ptr` was handed out: count it in its pool. */
static void note_alloc_locked(const void *ptr, const char *function) {
    pool_rec_t *rec = rec_find_locked(ptr);
    if (rec == NULL) die_locked(function, "internal error: a block outside every pool", ptr);
    if (rec->live++ == 0 && !rec->dedicated) empty_chunks--;
}

/* A block of pool `rec` was freed; release the pool if that emptied it (see the top). */
static void note_free_locked(pool_rec_t *rec, const char *function) {
    if (--rec->live != 0) return;
    if (!rec->dedicated) {
        empty_chunks++;
        if (empty_chunks == 1) return; /* the one empty chunk kept */
    }
    release_locked(rec, function);
}

/* ---- Allocation ---------------------------------------------------------------------- */

static void *heap_alloc(size_t bytes, size_t align) {
    return align ? tlsf_memalign(heap, align, bytes) : tlsf_malloc(heap, bytes);
}

/*
 * A block of `bytes` aligned to `align` (0: the default alignment, else a power of two
 * above it), adding pools as needed; NULL when there is no memory. *fresh (if not NULL)
 * tells whether the block is the only one of a pool mapped for it just now, whose memory
 * the system gave zeroed.
 */
static void *alloc_locked(size_t bytes, size_t align, int *fresh, const char *function) {
    void *ptr;
    unsigned attempt;
    if (fresh != NULL) *fresh = 0;
    if (heap == NULL && !heap_init_locked()) return NULL;
    ptr = heap_alloc(bytes, align);
    for (attempt = 0; ptr == NULL && attempt < 2; ++attempt) {
        uintptr_t start = grow_locked(bytes, align, attempt);
        pool_rec_t *rec;
        if (start == 0) return NULL;
        ptr = heap_alloc(bytes, align);
        rec = rec_find_locked((void *)start);
        if (ptr == NULL) {
            if (rec->dedicated) release_locked(rec, function); /* the estimate fell short */
            continue;
        }
        if (fresh != NULL && rec->dedicated && (uintptr_t)ptr - start < rec->map_bytes) *fresh = 1;
    }
    if (ptr != NULL) note_alloc_locked(ptr, function);
    return ptr;
}

/* malloc with `align` (a power of two): memalign, posix_memalign, aligned_alloc, valloc. */
static void *alloc_aligned(size_t align, size_t bytes, const char *function) {
    void *ptr;
    lock();
    ptr = alloc_locked(bytes, align > tlsf_align_size() ? align : 0, NULL, function);
    unlock();
    if (ptr == NULL) errno = ENOMEM;
    return ptr;
}

EXPORT void *API(malloc)(size_t bytes) {
    void *ptr;
    lock();
    ptr = alloc_locked(bytes, 0, NULL, "malloc");
    unlock();
    if (ptr == NULL) errno = ENOMEM;
    return ptr;
}

EXPORT void API(free)(void *ptr) {
    int saved_errno;
    pool_rec_t *rec;
    if (ptr == NULL) return;
    saved_errno = errno;
    lock();
    rec = rec_find_locked(ptr);
    if (rec == NULL) die_locked("free", "invalid pointer: not allocated by this heap", ptr);
    tlsf_free(heap, ptr);
    check_pending_locked("free");
    note_free_locked(rec, "free");
    unlock();
    errno = saved_errno;
}

EXPORT void *API(calloc)(size_t count, size_t size) {
    size_t bytes;
    int fresh;
    void *ptr;
    if (size != 0 && count > SIZE_MAX / size) {
        errno = ENOMEM;
        return NULL;
    }
    bytes = count * size;
    lock();
    ptr = alloc_locked(bytes, 0, &fresh, "calloc");
    unlock();
    if (ptr == NULL) {
        errno = ENOMEM;
        return NULL;
    }
    if (fresh && bytes > 2 * ZERO_EDGE_BYTES && !TLSF_FILL) {
        /* A pool mapped for this block alone: the system zeroed it, and the heap wrote only
         * near the block's ends (free-list links, the end sentinel's back link). Leaving
         * the middle alone keeps a large calloc from touching every page. (Not with
         * TLSF_FILL: the heap has written its fresh pattern over the whole block.) */
        memset(ptr, 0, ZERO_EDGE_BYTES);
        memset((char *)ptr + bytes - ZERO_EDGE_BYTES, 0, ZERO_EDGE_BYTES);
    } else {
        memset(ptr, 0, bytes);
    }
    return ptr;
}

EXPORT void *API(realloc)(void *ptr, size_t bytes) {
    void *moved;
    if (ptr == NULL) return API(malloc)(bytes);
    if (bytes == 0) { /* glibc: realloc(p, 0) frees p and returns NULL */
        API(free)(ptr);
        return NULL;
    }
    lock();
    if (rec_find_locked(ptr) == NULL)
        die_locked("realloc", "invalid pointer: not allocated by this heap", ptr);
    moved = tlsf_realloc(heap, ptr, bytes);
    check_pending_locked("realloc");
    if (moved == NULL) {
        /* No room in the heap: move the block into new memory ourselves. */
        moved = alloc_locked(bytes, 0, NULL, "realloc");
        if (moved != NULL) {
            size_t keep = tlsf_block_size(ptr);
            memcpy(moved, ptr, keep < bytes ? keep : bytes);
            tlsf_free(heap, ptr);
            check_pending_locked("realloc");
            note_free_locked(rec_find_locked(ptr), "realloc");
        }
    } else if (moved != ptr) {
        note_alloc_locked(moved, "realloc");
        note_free_locked(rec_find_locked(ptr), "realloc");
    }
    unlock();
    if (moved == NULL) errno = ENOMEM;
    return moved;
}

EXPORT void *API(memalign)(size_t align, size_t bytes) {
    /* glibc: an alignment that is not a power of two is rounded up to one. */
    if (align > SIZE_MAX / 2 + 1) {
        errno = EINVAL;
        return NULL;
    }
    if (!is_power_of_two(align)) align = align ? (size_t)1 << (log2_floor(align) + 1) : 1;
    return alloc_aligned(align, bytes, "memalign");
}

EXPORT int API(posix_memalign)(void **out, size_t align, size_t bytes) {
    int saved_errno = errno;
    void *ptr;
    if (align % sizeof(void *) != 0 || !is_power_of_two(align)) return EINVAL;
    ptr = alloc_aligned(align, bytes, "posix_memalign");
    errno = saved_errno;
    if (ptr == NULL) return ENOMEM;
    *out = ptr;
    return 0;
}

EXPORT void *API(aligned_alloc)(size_t align, size_t bytes) {
    if (!is_power_of_two(align)) {
        errno = EINVAL;
        return NULL;
    }
    return alloc_aligned(align, bytes, "aligned_alloc");
}

static size_t page_size(void) {
    long page = sysconf(_SC_PAGESIZE);
    return page > 0 ? (size_t)page : 4096;
}

EXPORT void *API(valloc)(size_t bytes) {
    return alloc_aligned(page_size(), bytes, "valloc");
}

EXPORT void *API(pvalloc)(size_t bytes) {
    size_t page = page_size();
    if (bytes > SIZE_MAX - page) {
        errno = ENOMEM;
        return NULL;
    }
    bytes = bytes ? round_up(bytes, page) : page;
    return alloc_aligned(page, bytes, "pvalloc");
}

EXPORT size_t API(malloc_usable_size)(void *ptr) {
    size_t usable;
    if (ptr == NULL) return 0;
    lock();
    if (rec_find_locked(ptr) == NULL)
        die_locked("malloc_usable_size", "invalid pointer: not allocated by this heap", ptr);
    usable = tlsf_block_size(ptr);
    unlock();
    return usable;
}

/* ---- Introspection --------------------------------------------------------------------- */

EXPORT void tlsfm_get_info(struct tlsfm_info *info) {
    size_t i;
    if (info == NULL) return;
    memset(info, 0, sizeof *info);
    lock();
    if (heap == NULL) heap_init_locked();
    info->pools = rec_count;
    for (i = 0; i < rec_count; ++i) {
        info->dedicated_pools += recs[i].dedicated != 0;
        info->live_blocks += recs[i].live;
    }
    info->empty_chunks = empty_chunks;
    info->mapped_bytes = mapped_bytes;
    info->peak_mapped_bytes = peak_mapped_bytes;
    info->maps = map_count;
    info->unmaps = unmap_count;
    info->chunk_bytes = chunk_bytes;
    info->max_request = max_request;
    if (heap != NULL) {
        tlsf_stats_t stats;
        tlsf_get_stats(heap, &stats);
        info->used_bytes = stats.used_bytes;
    }
    unlock();
}

static void count_used(void *ptr, size_t size, int used, void *user) {
    (void)ptr;
    (void)size;
    if (used) ++*(size_t *)user;
}

EXPORT int tlsfm_check(void) {
    int errors = 0;
    size_t i, empty = 0;
    lock();
    if (heap != NULL) {
        errors += tlsf_check(heap) != 0;
        for (i = 0; i < rec_count; ++i) {
            size_t used = 0;
            errors += tlsf_check_pool(recs[i].pool) != 0;
            tlsf_walk_pool(recs[i].pool, count_used, &used);
            errors += used != recs[i].live;
            errors += i > 0 && recs[i - 1].start + recs[i - 1].map_bytes > recs[i].start;
            empty += !recs[i].dedicated && recs[i].live == 0;
        }
        errors += empty != empty_chunks || empty_chunks > 1;
#if TLSF_STATS
        {
            tlsf_stats_t stats;
            size_t live = 0;
            tlsf_get_stats(heap, &stats);
            for (i = 0; i < rec_count; ++i)
                live += recs[i].live;
            errors += stats.live_blocks != live || stats.pool_count != rec_count;
        }
#endif
    }
    unlock();
    return errors;
}

/* ---- Start and exit ------------------------------------------------------------------ */

__attribute__((constructor)) static void tlsfm_start(void) {
    const char *path = getenv("TLSF_MALLOC_REPORT");
    if (path != NULL && strlen(path) < sizeof report_path)
        memcpy(report_path, path, strlen(path) + 1);
    pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
}

__attribute__((destructor)) static void tlsfm_exit_report(void) {
    struct tlsfm_info info;
    char line[512];
    size_t n;
    int fd, errors;
    if (report_path[0] == '\0') return;
    errors = tlsfm_check();
    tlsfm_get_info(&info);
    n = put_text(line, 0, sizeof line, "tlsf_malloc pid=");
    n = put_number(line, n, sizeof line, (uintmax_t)getpid(), 10);
    n = put_text(line, n, sizeof line, " maps=");
    n = put_number(line, n, sizeof line, info.maps, 10);
    n = put_text(line, n, sizeof line, " unmaps=");
    n = put_number(line, n, sizeof line, info.unmaps, 10);
    n = put_text(line, n, sizeof line, " pools=");
    n = put_number(line, n, sizeof line, info.pools, 10);
    n = put_text(line, n, sizeof line, " peak_mapped=");
    n = put_number(line, n, sizeof line, info.peak_mapped_bytes, 10);
    n = put_text(line, n, sizeof line, " live=");
    n = put_number(line, n, sizeof line, info.live_blocks, 10);
    n = put_text(line, n, sizeof line, " check=");
    n = put_number(line, n, sizeof line, (uintmax_t)errors, 10);
    n = put_text(line, n, sizeof line, "\n");
    fd = open(report_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) return;
    write_all(fd, line, n);
    close(fd);
}
