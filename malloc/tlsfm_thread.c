/*
 * SPDX-License-Identifier: MIT
 *
 * tlsfm_thread.c - one TLSF heap per thread: its malloc and free paths, remote frees,
 * orphaned heaps and fork.
 *
 * Heaps. A thread's first malloc gives it a heap: an orphaned one if any (below), else a
 * new one (its control structure mmap'd). The heap grows by chunks: 4 MiB mappings at a
 * region boundary (tlsfm_os.h), each a TLSF pool behind a small header that names the
 * heap. A block's chunk header is therefore at the block's address rounded down to 4 MiB,
 * and its owning heap is one load away. free first compares the pointer with the pool of
 * the thread's hot chunk (thread_state_t: one subtraction and one compare), else asks the
 * region map (two loads), so that a pointer we never gave out is reported, not followed.
 * Each chunk counts its live blocks; an emptied chunk is unmapped unless it is the heap's
 * only empty one. The structures are in tlsfm_heap.h; statistics and the heap check in
 * tlsfm_inspect.c.
 *
 * Ownership. Only the owning thread touches a heap's TLSF structure and chunks (no lock):
 * the heap pointer lives in a thread-local variable. A block freed by another thread is
 * pushed onto the owner's remote list (tlsf_remote_stack.h, shared with tlsf_multi: a
 * Treiber stack, compare-and-swap on the head, release; the link is the block's first
 * word). The owner, on each malloc and free, exchanges the whole list for NULL (acquire)
 * into a private pending list when that is empty, and frees at most TLSFM_REMOTE_BATCH
 * blocks: the consumer side is wait-free and each call does a bounded amount of work.
 * Only the path that would map a new chunk takes back everything first (it is about to
 * make a system call anyway).
 *
 * Thread exit (a pthread key destructor): the heap takes back its remote list, unmaps its
 * empty chunk and joins the list of orphaned heaps with its live blocks, under the lock (an
 * orphaned heap unmaps each chunk as soon as it empties); the next new thread
 * adopts it. Frees into an orphaned heap take the lock and free directly (so memory freed
 * after its thread ended is reusable even if no thread adopts the heap); a push that raced
 * with the orphaning is taken back by the next such free, the adopter or the heap check.
 *
 * Fork. The atfork handlers hold the lock across fork(), so everything the lock guards is
 * consistent in the child. A heap owned by another thread may be in the middle of an
 * operation at that instant and its thread does not exist in the child: the child marks
 * such heaps abandoned and never touches them again (their blocks stay readable; freeing
 * one pushes it onto the abandoned heap's list, where it stays). No lock on any fast path
 * is needed for that.
 */
#define _GNU_SOURCE 1

#include "tlsfm_thread.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "tlsf.h"
#include "tlsfm_diag.h"
#include "tlsfm_heap.h"
#include "tlsfm_lock.h"
#include "tlsfm_os.h"

pthread_mutex_t tlsfm_global_mutex = PTHREAD_MUTEX_INITIALIZER;

static void global_mutex_lock(void *mutex) {
    pthread_mutex_lock((pthread_mutex_t *)mutex);
}
static void global_mutex_unlock(void *mutex) {
    pthread_mutex_unlock((pthread_mutex_t *)mutex);
}
const tlsf_lock_t tlsfm_global_lock = {global_mutex_lock, global_mutex_unlock, &tlsfm_global_mutex};

/* The cache budget's constants (see adapt_cache_budget). */
#define BIG_REQUEST ((size_t)1024) /* a request the cache cannot serve (its spans are below) */
#define BUDGET_WINDOW 64           /* big requests between two looks at the heap's mix */
#define MIXED_SHARE 16             /* one big request in this many or more: a mixed heap */
#define PLAIN_SHARE 64             /* fewer than one in this many: a mixed heap is plain again */
#define PLAIN_BUDGET ((size_t)256 << 10) /* half the core's hosted default: one per thread */
#define MIXED_BUDGET ((size_t)64 << 10)

/*
 * The calling thread's heap and what its fast paths test, in one thread-local record:
 * - a free of an address in [hot_start, hot_start + hot_bytes), the pool of one chunk of
 *   the thread's own heap (the one it last grew or freed into), is a free into its own
 *   heap: one subtraction and one compare, no region-map lookup (the range is exact, so a
 *   foreign pointer never passes it). hot_bytes is 0 when there is no such chunk.
 * - a request of fewer than small_end bytes (default alignment) is served from the
 *   thread's heap: one compare. small_end is BIG_REQUEST (or the large-block limit, if
 *   lower): the requests at or above it are counted for the cache budget
 *   (adapt_cache_budget) and the large ones leave for a mapping of their own. It is 0 while
 *   the thread has no heap, so the thread's first call takes that path too.
 * Invariant: hot_bytes != 0 and small_end != 0 only while heap != NULL, and the hot chunk
 * is a mapped chunk of `heap` (release_chunk clears it before unmapping).
 */
typedef struct thread_state {
    thread_heap_t *heap;
    uintptr_t hot_start;
    size_t hot_bytes;
    size_t small_end;
} thread_state_t;

static _Thread_local thread_state_t me __attribute__((tls_model("initial-exec")));

/* Guarded by the lock. */
thread_heap_t *tlsfm_all_heaps;
static thread_heap_t *orphans;
static pthread_key_t exit_key;
static int exit_key_state; /* 0: not made yet, 1: made, -1: failed */

static atomic_size_t chunk_bytes_cached; /* 0 until first computed */
static atomic_size_t large_limit_cached; /* tlsfm_chunk_bytes() / 4, 0 until first computed */

/* ---- Sizes ----------------------------------------------------------------------------- */

/* A chunk: 4 MiB, or less if the configuration's largest pool is smaller. */
__attribute__((noinline)) size_t tlsfm_chunk_bytes(void) {
    size_t bytes = atomic_load_explicit(&chunk_bytes_cached, memory_order_relaxed);
    if (bytes == 0) {
        size_t page = tlsfm_page_bytes();
        size_t max_pool = (tlsf_block_size_max() - tlsf_align_size() + tlsf_pool_overhead() +
                           CHUNK_HEADER_BYTES) &
                          ~(page - 1);
        bytes = CHUNK_BYTES < max_pool ? CHUNK_BYTES : max_pool;
        atomic_store_explicit(&chunk_bytes_cached, bytes, memory_order_relaxed);
        atomic_store_explicit(&large_limit_cached, bytes / 4, memory_order_relaxed);
    }
    return bytes;
}

/* Requests above this many bytes (with the alignment's slack) get a mapping of their own. */
static inline size_t large_limit(void) {
    size_t limit = atomic_load_explicit(&large_limit_cached, memory_order_relaxed);
    return limit != 0 ? limit : tlsfm_chunk_bytes() / 4;
}

/* `align` is 0 or above the default alignment (tlsfm_heap_alloc's contract). */
static inline int is_large(size_t bytes, size_t align) {
    size_t limit = large_limit();
    if (bytes > limit) return 1;
    return align != 0 && align > limit - bytes;
}

static chunk_t *chunk_of(const void *ptr) {
    return (chunk_t *)((uintptr_t)ptr & ~(uintptr_t)(TLSFM_REGION_BYTES - 1));
}

/* ---- Errors ------------------------------------------------------------------------------ */

/*
 * The core calls this and leaves the heap as it was. Misuse of a block (a double free, a
 * bad pointer, a corrupt header: reported by tlsf_free and tlsf_realloc only) aborts here
 * at once, naming heap->doing, so the paths that free need no test after the call (and
 * free can end in a tail call of tlsf_free). A pool error (tlsf_add_pool or
 * tlsf_remove_pool refusing) is recorded for the caller, which tests heap->pool_error.
 */
static void on_heap_error(tlsf_t tlsf, tlsf_error_t reason, const void *ptr, void *user) {
    thread_heap_t *heap = (thread_heap_t *)user;
    (void)tlsf;
    if (reason == TLSF_ERROR_BAD_POOL || reason == TLSF_ERROR_POOL_IN_USE) {
        heap->pool_error = reason;
        return;
    }
    tlsfm_die(heap->doing, tlsf_error_string(reason), ptr);
}

/* Run the core's free on `heap` on behalf of `function` (the name its errors report). */
static inline void free_naming(thread_heap_t *heap, void *ptr, const char *function) {
    heap->doing = function;
    tlsf_free(heap->tlsf, ptr);
    heap->doing = "free";
}

/* The mapping of a pointer given to free, realloc or malloc_usable_size: abort unless it
 * can be the start of one of our blocks. */
static tlsfm_mapping_t *mapping_of(const void *ptr, const char *function) {
    tlsfm_mapping_t *mapping = tlsfm_os_lookup(ptr);
    if (mapping == NULL) tlsfm_die(function, "invalid pointer: not allocated by this heap", ptr);
    if (mapping->kind == TLSFM_LARGE ? (uintptr_t)ptr != mapping->base + mapping->payload_offset
                                     : (uintptr_t)ptr - mapping->base < CHUNK_HEADER_BYTES)
        tlsfm_die(function, "invalid pointer: not the start of a block", ptr);
    return mapping;
}

/* ---- Chunks ------------------------------------------------------------------------------ */

static void maybe_lock(int locked) {
    if (!locked) tlsfm_lock();
}

static void maybe_unlock(int locked) {
    if (!locked) tlsfm_unlock();
}

/* The calling thread's fast free path covers `chunk` from now on. */
static void make_hot(chunk_t *chunk) {
    me.hot_start = (uintptr_t)chunk + CHUNK_HEADER_BYTES;
    me.hot_bytes = chunk->map.map_bytes - CHUNK_HEADER_BYTES;
}

/* Add a fresh chunk to the heap (the caller owns it) and make it the hot one; 0 when the
 * system has no memory. The chunk list changes under the lock (tlsfm_heap_get_info). */
static int grow(thread_heap_t *heap, int locked) {
    chunk_t *chunk;
    int grown = 0;
    maybe_lock(locked);
    chunk = (chunk_t *)tlsfm_os_map_chunk_locked(tlsfm_chunk_bytes(), heap);
    if (chunk != NULL) {
        chunk->pool = tlsf_add_pool(heap->tlsf, (char *)chunk + CHUNK_HEADER_BYTES,
                                    chunk->map.map_bytes - CHUNK_HEADER_BYTES);
        if (chunk->pool == NULL) {
            heap->pool_error = TLSF_ERROR_NONE;
            tlsfm_os_unmap_chunk_locked(&chunk->map);
        } else {
            counter_set(&chunk->live, 0);
            chunk->prev = NULL;
            chunk->next = heap->chunks;
            if (heap->chunks != NULL) heap->chunks->prev = chunk;
            heap->chunks = chunk;
            counter_add(&heap->chunk_count, 1);
            counter_add(&heap->empty_chunks, 1);
            grown = 1;
        }
    }
    maybe_unlock(locked);
    if (grown && heap == me.heap) make_hot(chunk);
    return grown;
}

/* Take an empty chunk out of the heap and give it back to the system. */
static void release_chunk(thread_heap_t *heap, chunk_t *chunk, int locked) {
    tlsf_remove_pool(heap->tlsf, chunk->pool);
    if (heap->pool_error != TLSF_ERROR_NONE)
        tlsfm_die("free", "internal error: an empty chunk still holds blocks", chunk);
    /* The lock holder may be another thread (an orphaned heap): its hot chunk is then one
     * of its own heap's, never this one, and stays. */
    if (me.hot_start == (uintptr_t)chunk + CHUNK_HEADER_BYTES) me.hot_bytes = 0;
    maybe_lock(locked);
    if (chunk->prev != NULL)
        chunk->prev->next = chunk->next;
    else
        heap->chunks = chunk->next;
    if (chunk->next != NULL) chunk->next->prev = chunk->prev;
    counter_sub(&heap->chunk_count, 1);
    counter_sub(&heap->empty_chunks, 1);
    tlsfm_os_unmap_chunk_locked(&chunk->map);
    maybe_unlock(locked);
}

static inline void note_alloc(thread_heap_t *heap, const void *ptr) {
    chunk_t *chunk = chunk_of(ptr);
    size_t live = counter(&chunk->live);
    counter_set(&chunk->live, live + 1);
    if (live == 0) counter_sub(&heap->empty_chunks, 1);
}

/* A block of `chunk` went back into the heap; unmap the chunk if that emptied it and the
 * heap already keeps an empty one. */
__attribute__((noinline)) static void chunk_emptied(thread_heap_t *heap, chunk_t *chunk,
                                                    int locked) {
    counter_add(&heap->empty_chunks, 1);
    /* An orphaned heap keeps no empty chunk: nobody allocates from it until adopted. */
    if (counter(&heap->empty_chunks) > 1 || heap_state(heap) == HEAP_ORPHAN)
        release_chunk(heap, chunk, locked);
}

static inline void note_free(thread_heap_t *heap, chunk_t *chunk, int locked) {
    size_t live = counter(&chunk->live) - 1;
    counter_set(&chunk->live, live);
    if (live == 0) chunk_emptied(heap, chunk, locked);
}

/* Free a block of `heap` by its owner (or by the lock holder, for an orphan). */
static inline void free_into(thread_heap_t *heap, void *ptr, const char *function, int locked) {
    free_naming(heap, ptr, function);
    note_free(heap, chunk_of(ptr), locked);
}

/* ---- Remote frees ------------------------------------------------------------------------ */

/* Free at most `limit` of the blocks other threads pushed onto the heap's list: those in
 * `pending`, then, when they run out first, the list taken with one exchange. */
__attribute__((noinline)) static void take_back_some(thread_heap_t *heap, size_t limit,
                                                     int locked) {
    size_t n;
    void *ptr;
    for (n = 0; n < limit; ++n) {
        ptr = tlsf_remote_stack_take(&heap->remote, &heap->pending);
        if (ptr == NULL) break;
        free_into(heap, ptr, "free (from another thread)", locked);
    }
}

/* Whether blocks other threads freed wait to be taken back: two loads. */
static inline int remote_waiting(thread_heap_t *heap) {
    return tlsf_remote_stack_waiting(&heap->remote, heap->pending);
}

/* The check every call makes. */
static inline void take_back(thread_heap_t *heap, size_t limit, int locked) {
    if (remote_waiting(heap)) take_back_some(heap, limit, locked);
}

/* Until both lists are seen empty (a push racing with the end waits for a later call). */
void tlsfm_heap_take_back_all(thread_heap_t *heap, int locked) {
    take_back(heap, SIZE_MAX, locked);
}

static void free_remote(thread_heap_t *owner, void *ptr, const char *function) {
    if (heap_state(owner) == HEAP_ORPHAN) {
        tlsfm_lock();
        if (heap_state(owner) == HEAP_ORPHAN) { /* nobody owns it: the lock holder does */
            take_back(owner, TLSFM_REMOTE_BATCH, 1);
            free_into(owner, ptr, function, 1);
            tlsfm_unlock();
            return;
        }
        tlsfm_unlock();
    }
    tlsf_remote_stack_push(&owner->remote, ptr);
}

/* ---- Heaps of threads -------------------------------------------------------------------- */

static thread_heap_t *new_heap_locked(void) {
    size_t head = (sizeof(thread_heap_t) + 63) & ~(size_t)63;
    size_t page = tlsfm_page_bytes();
    size_t bytes = (head + tlsf_size() + page - 1) & ~(page - 1);
    char *mem = (char *)tlsfm_os_map_pages(bytes);
    thread_heap_t *heap = (thread_heap_t *)mem;
    if (mem == NULL) return NULL;
    tlsf_remote_stack_init(&heap->remote); /* fresh pages are zero: for the record */
    heap->tlsf = tlsf_create(mem + head);
    if (heap->tlsf == NULL) return NULL; /* cannot happen: page-aligned, large enough */
    heap->doing = "free";
    heap->cache_budget = tlsf_cache_set_limit(heap->tlsf, PLAIN_BUDGET);
    tlsf_set_error_handler(heap->tlsf, on_heap_error, heap);
    heap->next_heap = tlsfm_all_heaps;
    tlsfm_all_heaps = heap;
    return heap;
}

static void on_thread_exit(void *value) {
    thread_heap_t *heap = (thread_heap_t *)value;
    chunk_t *chunk, *next;
    me.heap = NULL;
    me.hot_bytes = 0;
    me.small_end = 0;
    tlsfm_heap_take_back_all(heap, 0);
    tlsfm_lock();
    atomic_store_explicit(&heap->state, HEAP_ORPHAN, memory_order_release);
    for (chunk = heap->chunks; chunk != NULL; chunk = next) { /* its empty chunk goes back */
        next = chunk->next;
        if (counter(&chunk->live) == 0) release_chunk(heap, chunk, 1);
    }
    heap->next_orphan = orphans;
    orphans = heap;
    tlsfm_unlock();
}

/* The calling thread's first call: adopt an orphaned heap or make one. */
__attribute__((noinline)) static thread_heap_t *attach(void) {
    thread_heap_t *heap;
    int key_made;
    tlsfm_lock();
    if (exit_key_state == 0)
        exit_key_state = pthread_key_create(&exit_key, on_thread_exit) == 0 ? 1 : -1;
    key_made = exit_key_state > 0;
    heap = orphans;
    if (heap != NULL)
        orphans = heap->next_orphan;
    else
        heap = new_heap_locked();
    if (heap != NULL) {
        heap->next_orphan = NULL;
        atomic_store_explicit(&heap->state, HEAP_OWNED, memory_order_release);
    }
    tlsfm_unlock();
    if (heap == NULL) return NULL;
    me.heap = heap;
    me.small_end = large_limit() < BIG_REQUEST ? large_limit() + 1 : BIG_REQUEST;
    if (heap->chunks != NULL) make_hot(heap->chunks); /* an adopted heap */
    if (key_made) pthread_setspecific(exit_key, heap);
    return heap;
}

/* ---- Sizes of blocks of other threads -------------------------------------------------- */

#if defined(__SANITIZE_THREAD__)
#define TLSFM_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TLSFM_TSAN 1
#endif
#endif
#ifdef TLSFM_TSAN
void AnnotateIgnoreReadsBegin(const char *file, int line);
void AnnotateIgnoreReadsEnd(const char *file, int line);
#endif

/*
 * The usable size of a block that may belong to another thread's heap. Its size word shares
 * the header with a flag bit ("the block before is free") that the owner may set or clear
 * at the same moment, when it frees or allocates the block before it; the size bits do not
 * change while the block is live, so the value read is right whichever flag it sees. Under
 * ThreadSanitizer this one read is taken out of race detection (it would be reported as a
 * race with the owner's flag write, which is known and harmless).
 */
static size_t block_size_any_owner(void *ptr) {
    size_t size;
#ifdef TLSFM_TSAN
    AnnotateIgnoreReadsBegin(__FILE__, __LINE__);
#endif
    size = tlsf_block_size(ptr);
#ifdef TLSFM_TSAN
    AnnotateIgnoreReadsEnd(__FILE__, __LINE__);
#endif
    return size;
}

/* ---- Allocation -------------------------------------------------------------------------- */

/* The heap's TLSF structure: set when the heap is made, never cleared (telling the compiler
 * so lets it drop the core's NULL test from the inlined malloc). */
static inline tlsf_t heap_tlsf(const thread_heap_t *heap) {
    tlsf_t tlsf = heap->tlsf;
    if (tlsf == NULL) __builtin_unreachable();
    return tlsf;
}

static inline void *heap_block(thread_heap_t *heap, size_t bytes, size_t align) {
    return align ? tlsf_memalign(heap_tlsf(heap), align, bytes)
                 : tlsf_malloc(heap_tlsf(heap), bytes);
}

/*
 * The core's front cache keeps freed small blocks whole, so they cannot merge with their
 * neighbours. That costs nothing while the heap's requests are all small (the cache
 * recycles the memory it holds), but requests too big for the cache need contiguous free
 * space, and blocks sitting in the cache fragment it: the heap then grows into fresh pages
 * (glibc consolidates its fastbins on such requests for the same reason). So a heap whose
 * requests are mixed keeps a smaller cache: every BUDGET_WINDOW requests of at least
 * BIG_REQUEST bytes (they bypass the one-compare gate, see thread_state_t), the heap
 * compares their count with all its allocations since the last look (the core's
 * statistics): one in MIXED_SHARE (16) or more sets the budget to MIXED_BUDGET (64 KiB),
 * fewer than one in PLAIN_SHARE (64) sets PLAIN_BUDGET (256 KiB, half the core's hosted
 * default: there is one per thread), and in between it stays (so a heap near a threshold does not
 * flip, and flush, at every look). A heap with no big request keeps the budget it has. Lowering the
 * budget flushes the cache (bounded, tlsf.h), at most once per window.
 *
 * Measured (2 threads; instructions by callgrind, anonymous memory at the fullest moment
 * from bench/host/threads_bench.c, both against glibc): larson-like heaps (no request over
 * 1 KiB) keep 256 KiB, 104.2 M instructions against 101.5 M; alloc-test-like heaps (13% of
 * requests of 1 KiB or more) go to 64 KiB, 3,680-3,684 KiB against 3,604-3,608 and 117.2 M
 * instructions against 131.0 M (with 32 KiB: 3,676 KiB, 131.1 M). (The constants are at
 * the top; the core charges each cached block twice its span, so a budget holds at most
 * half of it in blocks.)
 */

__attribute__((noinline)) static void adapt_cache_budget(thread_heap_t *heap) {
    tlsf_stats_t stats;
    size_t allocations;
    size_t budget;
    tlsf_get_stats(heap_tlsf(heap), &stats);
    allocations = stats.alloc_count - heap->allocations_seen;
    heap->allocations_seen = stats.alloc_count;
    if (allocations == 0) return; /* a configuration without statistics: left alone */
    if (allocations <= (size_t)BUDGET_WINDOW * MIXED_SHARE)
        budget = MIXED_BUDGET;
    else if (allocations > (size_t)BUDGET_WINDOW * PLAIN_SHARE)
        budget = PLAIN_BUDGET;
    else
        return; /* in between: as it is (a heap near one share does not flip, and flush) */
    if (budget != heap->cache_budget)
        heap->cache_budget = tlsf_cache_set_limit(heap_tlsf(heap), budget);
}

static inline void note_big_request(thread_heap_t *heap) {
    if (++heap->big_requests % BUDGET_WINDOW == 0) adapt_cache_budget(heap);
}

/* Everything but a block that the caller's heap has: a large block, the thread's first
 * call, or a heap that must take back all remote frees and maybe grow. */
__attribute__((noinline)) static void *alloc_slow(thread_heap_t *heap, size_t bytes, size_t align,
                                                  int *fresh) {
    void *ptr;
    if (is_large(bytes, align)) return tlsfm_os_large_alloc(bytes, align, fresh);
    if (heap == NULL) {
        heap = attach();
        if (heap == NULL) return NULL;
        ptr = heap_block(heap, bytes, align);
        if (ptr != NULL) {
            note_alloc(heap, ptr);
            return ptr;
        }
    }
    /* About to map a chunk: first take back all the other threads freed. */
    tlsfm_heap_take_back_all(heap, 0);
    ptr = heap_block(heap, bytes, align);
    if (ptr == NULL && grow(heap, 0)) ptr = heap_block(heap, bytes, align);
    if (ptr == NULL) return NULL;
    note_alloc(heap, ptr);
    return ptr;
}

/* A request of at least BIG_REQUEST bytes: counted for the cache budget, then served as
 * any other (a large block or the thread's first call go on to alloc_slow). */
__attribute__((noinline)) static void *alloc_big(thread_heap_t *heap, size_t bytes, size_t align,
                                                 int *fresh) {
    void *ptr;
    if (heap == NULL || is_large(bytes, align)) return alloc_slow(heap, bytes, align, fresh);
    note_big_request(heap);
    take_back(heap, TLSFM_REMOTE_BATCH, 0);
    ptr = heap_block(heap, bytes, align);
    if (ptr == NULL) return alloc_slow(heap, bytes, align, fresh);
    note_alloc(heap, ptr);
    return ptr;
}

void *tlsfm_heap_alloc(size_t bytes, size_t align, int *fresh) {
    thread_heap_t *heap = me.heap;
    void *ptr;
    if (fresh != NULL) *fresh = 0;
    /* One compare for plain requests: no heap yet, or a big one (counted, maybe large). */
    if (bytes >= me.small_end) return alloc_big(heap, bytes, align, fresh);
    if (align != 0 && is_large(bytes, align)) return alloc_slow(heap, bytes, align, fresh);
    take_back(heap, TLSFM_REMOTE_BATCH, 0);
    ptr = heap_block(heap, bytes, align);
    if (ptr == NULL) return alloc_slow(heap, bytes, align, fresh);
    note_alloc(heap, ptr);
    return ptr;
}

/* Every case but the calling thread's own chunk. */
__attribute__((noinline)) static void free_elsewhere(void *ptr, const char *function) {
    tlsfm_mapping_t *mapping = mapping_of(ptr, function);
    if (mapping->kind == TLSFM_LARGE)
        tlsfm_os_large_free(mapping, ptr, function);
    else if (mapping->owner == me.heap && me.heap != NULL) {
        make_hot((chunk_t *)mapping); /* the next frees of this chunk take the fast path */
        free_into(me.heap, ptr, function, 0);
    } else
        free_remote((thread_heap_t *)mapping->owner, ptr, function);
}

/* A free into the caller's hot chunk that empties the chunk or finds remote frees waiting. */
__attribute__((noinline)) static void free_hot_slow(thread_heap_t *heap, void *ptr,
                                                    const char *function) {
    free_into(heap, ptr, function, 0);
    take_back(heap, TLSFM_REMOTE_BATCH, 0);
}

void tlsfm_heap_free(void *ptr, const char *function) {
    /* The pool of the caller's hot chunk (thread_state_t): no region-map lookup. */
    if ((uintptr_t)ptr - me.hot_start < me.hot_bytes) {
        thread_heap_t *heap = me.heap;
        chunk_t *chunk = chunk_of(ptr);
        size_t live = counter(&chunk->live);
        /* The common case ends in a tail call of the core's free: the count is lowered
         * first (a misuse the core finds aborts in on_heap_error, so the count is never
         * seen wrong), which is safe unless this block empties the chunk (it may then be
         * unmapped, after the free) or other threads' frees wait (taken back after it). */
        if (live > 1 && !remote_waiting(heap)) {
            counter_set(&chunk->live, live - 1);
            tlsf_free(heap->tlsf, ptr);
            return;
        }
        free_hot_slow(heap, ptr, function);
        return;
    }
    free_elsewhere(ptr, function);
}

void *tlsfm_heap_realloc(void *ptr, size_t bytes, const char *function) {
    tlsfm_mapping_t *mapping = mapping_of(ptr, function);
    size_t old;
    void *moved;
    if (mapping->kind == TLSFM_LARGE) {
        old = tlsfm_os_large_usable(mapping);
        /* Stays in its mapping while it still needs one and uses at least half of it; grows
         * without a copy (and without holding both copies) when it can. */
        if (bytes <= old && bytes >= old / 2 && is_large(bytes, 0)) return ptr;
        if (bytes > old && is_large(bytes, 0)) {
            moved = tlsfm_os_large_grow(mapping, bytes);
            if (moved != NULL) return moved;
        }
    } else {
        thread_heap_t *heap = me.heap;
        if (mapping->owner == heap && heap != NULL && !is_large(bytes, 0)) {
            take_back(heap, TLSFM_REMOTE_BATCH, 0);
            heap->doing = function;
            moved = tlsf_realloc(heap->tlsf, ptr, bytes);
            heap->doing = "free";
            if (moved != NULL) {
                if (moved != ptr) { /* the core moved it within the heap */
                    note_alloc(heap, moved);
                    note_free(heap, chunk_of(ptr), 0);
                }
                return moved;
            }
        }
        old = block_size_any_owner(ptr);
    }
    moved = tlsfm_heap_alloc(bytes, 0, NULL);
    if (moved == NULL) return NULL;
    memcpy(moved, ptr, old < bytes ? old : bytes);
    tlsfm_heap_free(ptr, function);
    return moved;
}

size_t tlsfm_heap_usable_size(void *ptr, const char *function) {
    tlsfm_mapping_t *mapping = mapping_of(ptr, function);
    if (mapping->kind == TLSFM_LARGE) return tlsfm_os_large_usable(mapping);
    return block_size_any_owner(ptr);
}

size_t tlsfm_heap_cache_budget(void) {
    return me.heap != NULL ? me.heap->cache_budget : 0;
}

int tlsfm_heap_is_inspectable_locked(thread_heap_t *heap) {
    return heap == me.heap || heap_state(heap) == HEAP_ORPHAN;
}

/* ---- Fork -------------------------------------------------------------------------------- */

static void atfork_prepare(void) {
    tlsfm_lock();
}

static void atfork_parent(void) {
    tlsfm_unlock();
}

static void atfork_child(void) {
    thread_heap_t *heap;
    for (heap = tlsfm_all_heaps; heap != NULL; heap = heap->next_heap)
        if (heap != me.heap && heap_state(heap) == HEAP_OWNED)
            atomic_store_explicit(&heap->state, HEAP_ABANDONED, memory_order_relaxed);
    /* The forking thread took the lock in atfork_prepare and is the child's only thread. */
    tlsfm_unlock();
}

void tlsfm_heap_start(void) {
    pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
}
