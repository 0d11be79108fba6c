/* SPDX-License-Identifier: MIT */
/*
 * fuzz_ops.c - the heap-operation interpreter and its model (see fuzz_ops.h).
 *
 * The heap's control structure and its pool slots live in one arena, allocated once and
 * reused by every input; each input starts from tlsf_create and ends with every pool
 * removed. Under AddressSanitizer the core poisons what is not the user's; the arena is
 * unpoisoned between inputs. Under valgrind (when <valgrind/memcheck.h> was found) the
 * arena is marked undefined at the start of each input, so memcheck reports any read of
 * heap memory the core did not write first.
 */
#define _DEFAULT_SOURCE /* mmap's MAP_ANONYMOUS */
#include "fuzz_ops.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tlsf.h"

#if defined(__unix__) || defined(__APPLE__)
#include <sys/mman.h>
#endif

#if defined(__SANITIZE_ADDRESS__)
#define FUZZ_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FUZZ_ASAN 1
#endif
#endif
#ifdef FUZZ_ASAN
#include <sanitizer/asan_interface.h>
#endif
#if defined(TLSF_FUZZ_HAVE_VALGRIND) && TLSF_FUZZ_HAVE_VALGRIND
#include <valgrind/memcheck.h>
#endif

/*
 * Known deviations of the core from tlsf.h can be tolerated while they are being fixed
 * (compile definitions; all 0 = strict, the default):
 *   TLSF_FUZZ_ALLOW_OFFSET_BEYOND_BYTES  tlsf_memalign_offset with offset >= bytes (bytes
 *                                        != 0) may succeed instead of returning NULL
 */
#ifndef TLSF_FUZZ_ALLOW_OFFSET_BEYOND_BYTES
#define TLSF_FUZZ_ALLOW_OFFSET_BEYOND_BYTES 0
#endif

int tlsf_fuzz_verbose;
int tlsf_fuzz_adversary;
struct tlsf_fuzz_adversary_counts tlsf_fuzz_adversary_counts;

const unsigned char fuzz_op_table[16] = {
    FUZZ_MALLOC,        FUZZ_MALLOC,   FUZZ_CALLOC,      FUZZ_MEMALIGN, FUZZ_MEMALIGN_OFFSET,
    FUZZ_ALIGNED_ALLOC, FUZZ_REALLOC,  FUZZ_REALLOC,     FUZZ_FREE,     FUZZ_FREE,
    FUZZ_FREE,          FUZZ_ADD_POOL, FUZZ_REMOVE_POOL, FUZZ_CHECK,    FUZZ_LARGEST,
    FUZZ_MISUSE};

static const char *const op_names[FUZZ_OP_COUNT] = {
    "malloc", "calloc",   "memalign",    "memalign_offset", "aligned_alloc", "realloc",
    "free",   "add_pool", "remove_pool", "check",           "largest",       "misuse"};

/* Pool slot capacities: the regions of the arena where pools may be placed. */
static const size_t slot_capacity[FUZZ_POOLS] = {96 * 1024, 48 * 1024, 16 * 1024, 4 * 1024};

typedef struct live {
    unsigned char *ptr; /* NULL: the slot is empty */
    size_t bytes;       /* requested */
    size_t usable;      /* tlsf_block_size() when allocated */
    size_t keep_align;  /* the alignment a later realloc must keep */
    int recorded;       /* from memalign above tlsf_align_size(): the block's last usable
                           word is followed by its alignment record */
    uint32_t seed;      /* contents: pattern(seed, i) for every i < usable */
    int pool;           /* the pool slot holding the block */
} live_t;

typedef struct pool_slot {
    unsigned char *mem; /* the pool's memory and size, while it is in the heap */
    size_t bytes;
    size_t span; /* what it added to stats.pool_bytes */
    pool_t pool; /* NULL: not in the heap */
} pool_slot_t;

typedef struct input {
    const uint8_t *at, *end;
} input_t;

/* The arena: allocated once, reused by every input. */
static unsigned char *arena;
static size_t arena_bytes;
static unsigned char *slot_base[FUZZ_POOLS];

static struct model {
    tlsf_t heap;
    live_t live[FUZZ_SLOTS];
    pool_slot_t pools[FUZZ_POOLS];
    uint32_t next_seed;
    size_t op_index;
    const char *op_name;
    size_t failed_requests; /* what stats.failed_count must say */
    int slabs;              /* the input switched slabs on (tlsf_slabs_enable, 4 KiB) */
    /* The adversary (tlsf_fuzz_adversary): the heap's metadata was overwritten, and the blocks
     * the program freed last, which a use after free writes. */
    int tainted;
    int seen_by_check; /* tlsf_check or tlsf_check_pool counted the damage */
    struct {
        unsigned char *ptr;
        size_t usable;
    } freed[8];
    unsigned freed_next;
    struct {
        int count;
        tlsf_error_t reason;
        const void *ptr;
        tlsf_t heap;
        void *user;
    } error;
} M;

/* With slabs a request of up to TLSF_SLAB_REQUEST_MAX bytes may also be served by a free
 * object of a slab of its span (tlsf.h, tlsf_largest_allocatable); the lists' answer stays
 * exact for the rest. */
static int slab_may_serve(size_t bytes) {
    return M.slabs && bytes <= TLSF_SLAB_REQUEST_MAX;
}

/* ---- Failures ---------------------------------------------------------------------- */

static void fail(const char *what, const void *ptr, size_t a, size_t b) {
    fprintf(stderr,
            "fuzz_heap: operation %zu (%s): %s\n"
            "  pointer %p, values %zu (0x%zx), %zu (0x%zx)\n",
            M.op_index, M.op_name ? M.op_name : "setup", what, ptr, a, a, b, b);
    fflush(stderr);
    abort();
}

#define REQUIRE(cond, what, ptr, a, b)                                                             \
    do {                                                                                           \
        if (!(cond)) fail(what, ptr, (size_t)(a), (size_t)(b));                                    \
    } while (0)

static void on_error(tlsf_t heap, tlsf_error_t reason, const void *ptr, void *user) {
    M.error.count++;
    M.error.reason = reason;
    M.error.ptr = ptr;
    M.error.heap = heap;
    M.error.user = user;
}

/* Where tlsf_fuzz_run gives up a heap whose damage was reported (the adversary). */
static jmp_buf abandon_point;

/* The adversary's damage was reported to the error handler: the contract is kept, and the
 * heap is not used any further. */
static void abandon(const char *how) {
    if (tlsf_fuzz_verbose)
        fprintf(stderr, "  damage reported (%s: %s): heap abandoned\n", how,
                tlsf_error_string(M.error.reason));
    tlsf_fuzz_adversary_counts.reported++;
    longjmp(abandon_point, 1);
}

static void expect_no_error(const char *call) {
    if (M.error.count != 0 && M.tainted) abandon(call);
    if (M.error.count != 0) {
        fprintf(stderr, "fuzz_heap: %s reported \"%s\" unexpectedly\n", call,
                tlsf_error_string(M.error.reason));
        fail("unexpected call of the error handler", M.error.ptr, (size_t)M.error.reason, 0);
    }
}

static void expect_error(tlsf_error_t reason, const void *ptr, const char *call) {
    if (M.error.count != 1 || M.error.reason != reason || M.error.ptr != ptr ||
        M.error.heap != M.heap || M.error.user != (void *)&M) {
        if (M.tainted && M.error.count != 0) abandon(call);
        fprintf(
            stderr,
            "fuzz_heap: %s: expected one report of \"%s\" for %p, got %d (last: \"%s\" for %p)\n",
            call, tlsf_error_string(reason), ptr, M.error.count,
            M.error.count ? tlsf_error_string(M.error.reason) : "-", M.error.ptr);
        fail("the error handler did not hear what tlsf.h promises", ptr, (size_t)reason,
             (size_t)M.error.count);
    }
    M.error.count = 0;
}

/* ---- Reading the input ------------------------------------------------------------- */

static uint8_t take8(input_t *in) {
    return in->at < in->end ? *in->at++ : 0;
}
static uint16_t take16(input_t *in) {
    uint16_t low = take8(in);
    return (uint16_t)(low | (uint16_t)(take8(in) << 8));
}
static uint32_t take32(input_t *in) {
    uint32_t low = take16(in);
    return low | ((uint32_t)take16(in) << 16);
}

static size_t align_size(void) {
    return tlsf_align_size();
}
static size_t word_size(void) {
    return tlsf_alloc_overhead();
}
static int is_power_of_two(size_t v) {
    return v != 0 && (v & (v - 1)) == 0;
}
static size_t natural_alignment(const void *ptr) {
    uintptr_t a = (uintptr_t)ptr;
    return (size_t)(a & (~a + 1u));
}

/* Sizes at the edges of what tlsf.h describes. */
static size_t special_size(uint8_t which) {
    size_t a = align_size(), w = word_size(), max = tlsf_block_size_max();
    switch (which % 24) {
    case 0:
        return 0;
    case 1:
        return 1;
    case 2:
        return w - 1;
    case 3:
        return w;
    case 4:
        return a - 1;
    case 5:
        return a;
    case 6:
        return a + 1;
    case 7:
        return tlsf_block_size_min();
    case 8:
        return tlsf_block_size_min() + 1;
    case 9:
        return 1023;
    case 10:
        return 1024;
    case 11:
        return 1025;
    case 12:
        return 4096 - w;
    case 13:
        return max - w;
    case 14:
        return max - w + 1;
    case 15:
        return max;
    case 16:
        return SIZE_MAX;
    case 17:
        return SIZE_MAX - 1;
    case 18:
        return SIZE_MAX / 2;
    case 19:
        return SIZE_MAX / 2 + 1;
    case 20:
        return SIZE_MAX - a;
    case 21:
        return SIZE_MAX - 4096;
    case 22:
        return (size_t)PTRDIFF_MAX;
    default:
        return slot_capacity[0];
    }
}

static size_t take_size(input_t *in) {
    uint8_t mode = take8(in);
    switch (mode % 8) {
    case 0:
    case 1:
    case 2:
        return take8(in);
    case 3:
        return take16(in) % 2048u;
    case 4:
        return take16(in);
    case 5:
        return take32(in) % (uint32_t)(slot_capacity[0] + 1);
    case 6: { /* around the largest request that can succeed now */
        size_t largest = tlsf_largest_allocatable(M.heap);
        uint8_t delta = take8(in);
        if (delta & 0x80) return largest + (delta & 63u);
        return largest > (size_t)(delta & 63u) ? largest - (delta & 63u) : 0;
    }
    default:
        return special_size(take8(in));
    }
}

static size_t take_align(input_t *in) {
    uint8_t mode = take8(in);
    if (mode < 200) return (size_t)1 << (mode % 20);
    switch (mode % 10) {
    case 0:
        return 0;
    case 1:
        return 3;
    case 2:
        return 24;
    case 3:
        return 48;
    case 4:
        return align_size() + align_size() / 2;
    case 5:
        return ((size_t)1 << 12) + 16;
    case 6:
        return SIZE_MAX;
    case 7:
        return (SIZE_MAX >> 1) + 1;
    case 8:
        return tlsf_block_size_max();
    default:
        return (size_t)1 << 20;
    }
}

static size_t take_count(input_t *in) {
    uint8_t mode = take8(in);
    if (mode < 240) return mode % 40u;
    switch (mode % 4) {
    case 0:
        return SIZE_MAX;
    case 1:
        return SIZE_MAX / 2 + 1;
    case 2:
        return (size_t)1 << (sizeof(size_t) * 4);
    default:
        return 0;
    }
}

/* ---- The model's blocks -------------------------------------------------------------- */

/*
 * Contents. Block memory is filled and checked a word at a time, without AddressSanitizer
 * checks or libFuzzer's comparison tracing (which made these loops take 90% of the time);
 * instead a whole block is checked to be addressable at once (__asan_region_is_poisoned),
 * which is what catches a usable size larger than what the core unpoisoned.
 */
#if defined(__clang__) && defined(FUZZ_ASAN)
#define FUZZ_NO_ASAN __attribute__((no_sanitize("address", "coverage")))
#elif defined(__clang__)
#define FUZZ_NO_ASAN __attribute__((no_sanitize("coverage")))
#elif defined(FUZZ_ASAN)
#define FUZZ_NO_ASAN __attribute__((no_sanitize("address")))
#else
#define FUZZ_NO_ASAN
#endif

static void require_addressable(const unsigned char *p, size_t bytes) {
#ifdef FUZZ_ASAN
    const void *bad = __asan_region_is_poisoned((void *)(uintptr_t)p, bytes);
    if (bad != NULL)
        fail("bytes within the usable size are poisoned (not the user's)", bad,
             (size_t)((const unsigned char *)bad - p), bytes);
#else
    (void)p;
    (void)bytes;
#endif
}

/* The pattern of word `index` of a block: the block's bytes are these words' bytes. */
static FUZZ_NO_ASAN uint64_t pattern_word(uint32_t seed, size_t index) {
    return (((uint64_t)seed << 32) | seed) ^ ((uint64_t)index * 0x9E3779B97F4A7C15ull);
}

static FUZZ_NO_ASAN unsigned char pattern(uint32_t seed, size_t i) {
    uint64_t word = pattern_word(seed, i / 8);
    unsigned char bytes[8];
    memcpy(bytes, &word, 8);
    return bytes[i % 8];
}

static FUZZ_NO_ASAN void fill_pattern(unsigned char *p, uint32_t seed, size_t bytes) {
    size_t i;
    for (i = 0; i + 8 <= bytes; i += 8) {
        uint64_t word = pattern_word(seed, i / 8);
        memcpy(p + i, &word, 8);
    }
    for (; i < bytes; ++i)
        p[i] = pattern(seed, i);
}

/* The first i < bytes where the block does not hold the pattern, or `bytes`. */
static FUZZ_NO_ASAN size_t pattern_mismatch(const unsigned char *p, uint32_t seed, size_t bytes) {
    size_t i;
    for (i = 0; i + 8 <= bytes; i += 8) {
        uint64_t word = pattern_word(seed, i / 8), have;
        memcpy(&have, p + i, 8);
        if (have != word) break;
    }
    for (; i < bytes; ++i)
        if (p[i] != pattern(seed, i)) return i;
    return bytes;
}

/* The first i < bytes where the block is not zero, or `bytes`. */
static FUZZ_NO_ASAN size_t nonzero_at(const unsigned char *p, size_t bytes) {
    size_t i;
    for (i = 0; i + 8 <= bytes; i += 8) {
        uint64_t have;
        memcpy(&have, p + i, 8);
        if (have != 0) break;
    }
    for (; i < bytes; ++i)
        if (p[i] != 0) return i;
    return bytes;
}

static void fill(live_t *b) {
    require_addressable(b->ptr, b->usable);
    fill_pattern(b->ptr, b->seed, b->usable);
}

static void verify(const live_t *b, size_t upto) {
    size_t at;
    require_addressable(b->ptr, upto);
    at = pattern_mismatch(b->ptr, b->seed, upto);
    if (at != upto) fail("the contents of a live block changed", b->ptr + at, at, b->usable);
}

/* The active pool slot whose memory holds [start, end), or -1. */
static int pool_of(const unsigned char *start, const unsigned char *end) {
    int i;
    for (i = 0; i < FUZZ_POOLS; ++i) {
        const pool_slot_t *p = &M.pools[i];
        if (p->pool != NULL && start >= p->mem && end <= p->mem + p->bytes) return i;
    }
    return -1;
}

/* Does [start, end) overlap a live block (its header word included)? */
static const live_t *overlapping(const unsigned char *start, const unsigned char *end) {
    int i;
    for (i = 0; i < FUZZ_SLOTS; ++i) {
        const live_t *b = &M.live[i];
        if (b->ptr != NULL && start < b->ptr + b->usable && b->ptr - word_size() < end) return b;
    }
    return NULL;
}

/* Take a fresh block into slot b: check where it is, then fill it. */
static void adopt(live_t *b, void *ptr, size_t bytes, size_t keep_align, int zeroed) {
    unsigned char *p = (unsigned char *)ptr;
    size_t usable = tlsf_block_size(ptr), i;
    const live_t *other;
    REQUIRE(((uintptr_t)p & (align_size() - 1)) == 0, "a block is not aligned to tlsf_align_size()",
            p, align_size(), 0);
    REQUIRE(usable >= bytes, "tlsf_block_size() is below the requested size", p, usable, bytes);
    b->pool = pool_of(p - word_size(), p + usable);
    REQUIRE(b->pool >= 0, "a block lies outside every pool of the heap", p, usable, 0);
    other = overlapping(p - word_size(), p + usable);
    if (other) fail("a block overlaps a live block", p, usable, (size_t)(other->ptr - p));
    if (zeroed) {
        require_addressable(p, bytes);
        i = nonzero_at(p, bytes);
        if (i != bytes) fail("calloc memory is not zero", p + i, i, bytes);
    }
    b->ptr = p;
    b->bytes = bytes;
    b->usable = usable;
    b->keep_align = keep_align < align_size() ? align_size() : keep_align;
    b->recorded = 0; /* the memalign and realloc callers say otherwise */
    b->seed = ++M.next_seed * 2654435761u;
    fill(b);
}

/* The program no longer holds the `usable` bytes at `ptr`: a use after free may write them. */
static void note_freed(unsigned char *ptr, size_t usable) {
    M.freed[M.freed_next % 8].ptr = ptr;
    M.freed[M.freed_next % 8].usable = usable;
    M.freed_next++;
}

static void release(live_t *b) {
    verify(b, b->usable);
    if (M.tainted && tlsf_block_size(b->ptr) != b->usable) {
        /* The adversary changed the block's header: its free must report it. */
        tlsf_free(M.heap, b->ptr);
        if (M.error.count != 0) abandon("tlsf_free of a damaged block");
        fail("free accepted a block whose header was overwritten", b->ptr, tlsf_block_size(b->ptr),
             b->usable);
    }
    REQUIRE(tlsf_block_size(b->ptr) == b->usable, "tlsf_block_size() changed", b->ptr,
            tlsf_block_size(b->ptr), b->usable);
    tlsf_free(M.heap, b->ptr);
    expect_no_error("tlsf_free");
    note_freed(b->ptr, b->usable);
    b->ptr = NULL;
}

static live_t *take_slot(input_t *in) {
    return &M.live[take8(in) % FUZZ_SLOTS];
}

/* A slot for a new block: whatever it held is freed first. */
static live_t *take_empty_slot(input_t *in) {
    live_t *b = take_slot(in);
    if (b->ptr) release(b);
    return b;
}

static size_t live_count(int pool) {
    size_t n = 0;
    int i;
    for (i = 0; i < FUZZ_SLOTS; ++i)
        if (M.live[i].ptr && (pool < 0 || M.live[i].pool == pool)) n++;
    return n;
}

/* The largest pool bytes tlsf_add_pool takes: its usable part stays below
 * tlsf_block_size_max(). */
static size_t max_pool_bytes(void) {
    return tlsf_block_size_max() - align_size() + tlsf_pool_overhead();
}

/* A new pool of `bytes` added `span` to stats.pool_bytes: no more than it has, and all of
 * it but the pool overhead and the rounding to the alignment. Remembered for the checks. */
static void note_pool_span(pool_slot_t *slot, size_t span) {
    REQUIRE(span <= slot->bytes && slot->bytes - span < tlsf_pool_overhead() + align_size(),
            "stats.pool_bytes grew by an implausible amount for a new pool", slot->mem, span,
            slot->bytes);
    slot->span = span;
}

/* ---- Whole-heap checks --------------------------------------------------------------- */

struct walk_state {
    int pool;
    size_t used;
    const unsigned char *last_end;
};

static void walker(void *ptr, size_t size, int used, void *user) {
    struct walk_state *w = (struct walk_state *)user;
    const pool_slot_t *slot = &M.pools[w->pool];
    unsigned char *p = (unsigned char *)ptr;
    REQUIRE(p - word_size() >= w->last_end, "tlsf_walk_pool went backwards or overlapped", p, size,
            0);
    REQUIRE(p >= slot->mem && p + size <= slot->mem + slot->bytes,
            "tlsf_walk_pool reported a block outside the pool", p, size, slot->bytes);
    w->last_end = p + size;
    if (used) {
        int i, found = 0;
        for (i = 0; i < FUZZ_SLOTS; ++i)
            if (M.live[i].ptr == p) {
                REQUIRE(M.live[i].usable == size && M.live[i].pool == w->pool,
                        "tlsf_walk_pool reports a live block with another size or pool", p, size,
                        M.live[i].usable);
                found = 1;
            }
        REQUIRE(found, "tlsf_walk_pool reports a used block that was never handed out", p, size, 0);
        w->used++;
    } else {
        const live_t *other = overlapping(p, p + size);
        if (other) fail("a free block overlaps a live block", p, size, (size_t)(other->ptr - p));
    }
}

static void check_stats(void) {
    tlsf_stats_t s;
    size_t active = 0, span_sum = 0;
    int i;
    for (i = 0; i < FUZZ_POOLS; ++i)
        if (M.pools[i].pool) {
            active++;
            span_sum += M.pools[i].span;
        }
    memset(&s, 0xa5, sizeof s);
    tlsf_get_stats(M.heap, &s);
    REQUIRE(s.pool_count == active, "stats.pool_count is wrong", NULL, s.pool_count, active);
    REQUIRE(s.pool_bytes == span_sum, "stats.pool_bytes is wrong", NULL, s.pool_bytes, span_sum);
    /* The statistics leave the front cache alone, so their answer is what the heap serves
     * without a drain: never above the exact one (except for a cached slab object, which
     * a flush gives to its slab, not the lists), and equal to it once flushed. */
    REQUIRE(s.largest_allocatable <= tlsf_largest_allocatable(M.heap) ||
                slab_may_serve(s.largest_allocatable),
            "stats.largest_allocatable above tlsf_largest_allocatable()", NULL,
            s.largest_allocatable, tlsf_largest_allocatable(M.heap));
    tlsf_get_stats(M.heap, &s);
    REQUIRE(s.largest_allocatable == tlsf_largest_allocatable(M.heap),
            "stats.largest_allocatable differs from tlsf_largest_allocatable() after a flush", NULL,
            s.largest_allocatable, tlsf_largest_allocatable(M.heap));
#if TLSF_STATS
    REQUIRE(s.live_blocks == live_count(-1), "stats.live_blocks is wrong", NULL, s.live_blocks,
            live_count(-1));
    REQUIRE(s.used_bytes + s.free_bytes == s.pool_bytes, "used + free != pool bytes", NULL,
            s.used_bytes, s.free_bytes);
    REQUIRE(s.peak_used_bytes >= s.used_bytes, "peak below used", NULL, s.peak_used_bytes,
            s.used_bytes);
    REQUIRE(s.alloc_count - s.free_count == s.live_blocks, "alloc - free != live", NULL,
            s.alloc_count - s.free_count, s.live_blocks);
    REQUIRE(s.failed_count == M.failed_requests, "stats.failed_count is wrong", NULL,
            s.failed_count, M.failed_requests);
    REQUIRE(live_count(-1) != 0 || s.used_bytes == 0, "used bytes without live blocks", NULL,
            s.used_bytes, 0);
#endif
}

/* The adversary's invariant on a damaged heap whose damage no call has reported yet: every
 * live block holds its contents, and the heap's checks run on it without a fault. They may
 * count the damage (noted); the operations go on, since it is theirs to report it when they
 * touch it. (Walks and statistics describe what the headers say, which the damage may have
 * changed without any harm yet: not checked.) */
static void tainted_check(void) {
    int i, errors = tlsf_check(M.heap);
    for (i = 0; i < FUZZ_POOLS; ++i)
        if (M.pools[i].pool) errors += tlsf_check_pool(M.pools[i].pool);
    if (errors != 0 && !M.seen_by_check) {
        M.seen_by_check = 1;
        tlsf_fuzz_adversary_counts.found_by_check++;
    }
    for (i = 0; i < FUZZ_SLOTS; ++i)
        if (M.live[i].ptr) verify(&M.live[i], M.live[i].usable);
    expect_no_error("the checks");
}

static void full_check(void) {
    int i;
    if (M.tainted) {
        tainted_check();
        return;
    }
    REQUIRE(tlsf_check(M.heap) == 0, "tlsf_check failed", M.heap, 0, 0);
    for (i = 0; i < FUZZ_POOLS; ++i) {
        struct walk_state w;
        if (!M.pools[i].pool) continue;
        REQUIRE(tlsf_check_pool(M.pools[i].pool) == 0, "tlsf_check_pool failed", M.pools[i].mem,
                (size_t)i, 0);
        w.pool = i;
        w.used = 0;
        w.last_end = M.pools[i].mem;
        tlsf_walk_pool(M.pools[i].pool, walker, &w);
        REQUIRE(w.used == live_count(i), "tlsf_walk_pool missed live blocks", M.pools[i].mem,
                w.used, live_count(i));
    }
    for (i = 0; i < FUZZ_SLOTS; ++i)
        if (M.live[i].ptr) verify(&M.live[i], M.live[i].usable);
    check_stats();
}

/* ---- Operations -------------------------------------------------------------------- */

/* malloc, calloc and memalign with alignment <= tlsf_align_size() succeed exactly when the
 * request is at most tlsf_largest_allocatable() (tlsf.h: "exact, not an estimate"), which
 * is 0 when nothing, not even malloc(0), can succeed. */
static void expect_exact(const void *p, size_t bytes, size_t largest, const char *call) {
    int fits = largest > 0 && bytes <= largest;
    if (M.tainted) return; /* damage may fail a request (and is reported then) */
    if (!fits && p != NULL && slab_may_serve(bytes)) return;
    if (fits && p == NULL) {
        fprintf(stderr, "fuzz_heap: %s(%zu) failed with largest_allocatable %zu\n", call, bytes,
                largest);
        fail("a request within largest_allocatable failed", p, bytes, largest);
    }
    if (!fits && p != NULL) {
        fprintf(stderr, "fuzz_heap: %s(%zu) succeeded with largest_allocatable %zu\n", call, bytes,
                largest);
        fail("a request above largest_allocatable succeeded", p, bytes, largest);
    }
}

static void op_malloc(input_t *in) {
    live_t *b = take_empty_slot(in);
    size_t bytes = take_size(in), largest = tlsf_largest_allocatable(M.heap);
    void *p = tlsf_malloc(M.heap, bytes);
    if (tlsf_fuzz_verbose) fprintf(stderr, "  malloc(%zu) = %p\n", bytes, p);
    expect_no_error("tlsf_malloc");
    expect_exact(p, bytes, largest, "tlsf_malloc");
    if (p)
        adopt(b, p, bytes, 0, 0);
    else
        M.failed_requests++;
}

static void op_calloc(input_t *in) {
    live_t *b = take_empty_slot(in);
    size_t count = take_count(in), size = take_size(in);
    size_t largest = tlsf_largest_allocatable(M.heap);
    int overflow = size != 0 && count > SIZE_MAX / size;
    void *p = tlsf_calloc(M.heap, count, size);
    if (tlsf_fuzz_verbose) fprintf(stderr, "  calloc(%zu, %zu) = %p\n", count, size, p);
    expect_no_error("tlsf_calloc");
    if (overflow)
        REQUIRE(p == NULL, "calloc succeeded although count * size overflows", p, count, size);
    else
        expect_exact(p, count * size, largest, "tlsf_calloc");
    if (p)
        adopt(b, p, count * size, 0, 1);
    else
        M.failed_requests++;
}

static void op_memalign(input_t *in, int aligned_alloc) {
    live_t *b = take_empty_slot(in);
    size_t align = take_align(in), bytes = take_size(in);
    size_t largest = tlsf_largest_allocatable(M.heap);
    void *p = aligned_alloc ? tlsf_aligned_alloc(M.heap, align, bytes)
                            : tlsf_memalign(M.heap, align, bytes);
    if (tlsf_fuzz_verbose)
        fprintf(stderr, "  %s(%zu, %zu) = %p\n", aligned_alloc ? "aligned_alloc" : "memalign",
                align, bytes, p);
    expect_no_error("tlsf_memalign");
    if (!is_power_of_two(align))
        REQUIRE(p == NULL, "memalign accepted an alignment that is not a power of two", p, align,
                bytes);
    else if (align <= align_size())
        expect_exact(p, bytes, largest, "tlsf_memalign (small alignment)");
    if (p == NULL) {
        M.failed_requests++;
        return;
    }
    REQUIRE(((uintptr_t)p & (align - 1)) == 0, "memalign: the block is not aligned", p, align,
            bytes);
    adopt(b, p, bytes, align, 0);
    b->recorded = align > align_size();
}

static size_t take_offset(input_t *in, size_t align, size_t bytes) {
    uint8_t mode = take8(in);
    size_t unit = align && align < align_size() ? align : align_size();
    switch (mode % 8) {
    case 0:
    case 1:
    case 2:
    case 3:
        return (size_t)take8(in) % 16u * unit;
    case 4:
        return unit / 2; /* not a multiple (0 when unit is 1) */
    case 5:
        return bytes;
    case 6:
        return (bytes & ~(unit - 1)) + unit * (take8(in) % 3u);
    default:
        return SIZE_MAX & ~(unit - 1);
    }
}

static void op_memalign_offset(input_t *in) {
    live_t *b = take_empty_slot(in);
    size_t align = take_align(in), bytes = take_size(in), offset = take_offset(in, align, bytes);
    size_t largest = tlsf_largest_allocatable(M.heap);
    size_t unit = align < align_size() ? align : align_size();
    int arguments_valid = is_power_of_two(align) && offset % unit == 0;
    int offset_in_range = bytes == 0 || offset < bytes;
    void *p = tlsf_memalign_offset(M.heap, align, bytes, offset);
    if (tlsf_fuzz_verbose)
        fprintf(stderr, "  memalign_offset(%zu, %zu, %zu) = %p\n", align, bytes, offset, p);
    expect_no_error("tlsf_memalign_offset");
    if (!arguments_valid)
        REQUIRE(p == NULL, "memalign_offset accepted a bad alignment or offset", p, align, offset);
    else if (!offset_in_range && !TLSF_FUZZ_ALLOW_OFFSET_BEYOND_BYTES)
        REQUIRE(p == NULL, "memalign_offset accepted offset >= bytes (tlsf.h: NULL)", p, offset,
                bytes);
    else if (align <= align_size() && offset_in_range)
        expect_exact(p, bytes, largest, "tlsf_memalign_offset (small alignment)");
    if (p == NULL) {
        M.failed_requests++;
        return;
    }
    REQUIRE(((uintptr_t)p + offset) % align == 0, "memalign_offset: ptr + offset not aligned", p,
            align, offset);
    {
        size_t natural = natural_alignment(p), keep = natural < align ? natural : align;
        adopt(b, p, bytes, keep, 0);
        b->recorded = align > align_size();
    }
}

static void op_realloc(input_t *in) {
    live_t *b = take_slot(in);
    size_t bytes = take_size(in), largest = tlsf_largest_allocatable(M.heap);
    live_t old = *b;
    unsigned char *p;
    size_t keep, i;
    if (b->ptr == NULL) { /* realloc(NULL, n) is malloc(n) */
        p = (unsigned char *)tlsf_realloc(M.heap, NULL, bytes);
        if (tlsf_fuzz_verbose) fprintf(stderr, "  realloc(NULL, %zu) = %p\n", bytes, (void *)p);
        expect_no_error("tlsf_realloc");
        expect_exact(p, bytes, largest, "tlsf_realloc(NULL)");
        if (p)
            adopt(b, p, bytes, 0, 0);
        else
            M.failed_requests++;
        return;
    }
    verify(b, b->usable);
    p = (unsigned char *)tlsf_realloc(M.heap, b->ptr, bytes);
    if (tlsf_fuzz_verbose)
        fprintf(stderr, "  realloc(%p, %zu) = %p\n", (void *)b->ptr, bytes, (void *)p);
    expect_no_error("tlsf_realloc");
    if (bytes == 0) { /* frees and returns NULL */
        REQUIRE(p == NULL, "realloc(p, 0) did not return NULL", p, 0, 0);
        note_freed(b->ptr, b->usable);
        b->ptr = NULL;
        return;
    }
    if (p == NULL) {
        M.failed_requests++;
        /* Moving needs malloc(bytes) (memalign for memalign'd blocks) to succeed. */
        REQUIRE(M.tainted || largest == 0 || bytes > largest || old.keep_align > align_size(),
                "realloc failed although malloc(bytes) would have succeeded", old.ptr, bytes,
                largest);
        REQUIRE(tlsf_block_size(old.ptr) == old.usable, "a failed realloc changed the block",
                old.ptr, tlsf_block_size(old.ptr), old.usable);
        verify(&old, old.usable);
        return;
    }
    keep = bytes < old.usable ? bytes : old.usable;
    require_addressable(p, keep);
    i = pattern_mismatch(p, old.seed, keep);
    if (i != keep) fail("realloc did not keep the contents", p + i, i, keep);
    REQUIRE(((uintptr_t)p & (old.keep_align - 1)) == 0, "realloc lost the block's alignment", p,
            old.keep_align, bytes);
    b->ptr = NULL; /* the old block is gone (or is p) */
    if (p != old.ptr) note_freed(old.ptr, old.usable);
    adopt(b, p, bytes, old.keep_align, 0);
    b->recorded = old.recorded;
}

static void op_free(input_t *in) {
    live_t *b = take_slot(in);
    if (tlsf_fuzz_verbose) fprintf(stderr, "  free(%p)\n", (void *)b->ptr);
    if (b->ptr) {
        release(b);
    } else {
        tlsf_free(M.heap, NULL);
        expect_no_error("tlsf_free(NULL)");
    }
}

static void op_add_pool(input_t *in) {
    int index = take8(in) % FUZZ_POOLS;
    uint8_t mode = take8(in);
    pool_slot_t *slot = &M.pools[index];
    size_t a = align_size(), capacity = slot_capacity[index];
    /* tlsf.h: at least tlsf_pool_overhead() + tlsf_alloc_overhead() + tlsf_block_size_min() */
    size_t min_bytes = tlsf_pool_overhead() + word_size() + tlsf_block_size_min();
    size_t offset, bytes;
    unsigned char *mem;
    int valid;
    pool_t pool;
    tlsf_stats_t before, after;
    switch (mode & 3) {
    case 0:
        offset = 0;
        break;
    case 1:
        offset = a;
        break;
    case 2:
        offset = a / 2;
        break;
    default:
        offset = 1;
        break;
    }
    switch ((mode >> 2) & 3) {
    case 0:
        bytes = capacity - offset;
        break;
    case 1:
        bytes = capacity / 2 + take16(in) % (capacity / 2 - offset);
        break;
    case 2:
        bytes = min_bytes - a - 2 + take8(in) % (3 * a);
        break; /* around the minimum */
    default:
        bytes = (mode & 0x10) ? SIZE_MAX : tlsf_block_size_max() + tlsf_pool_overhead();
    }
    mem = slot_base[index] + offset;
    if (slot->pool != NULL || (mode & 0xe0) == 0xe0) {
        /* A slot in use (overlapping pools are not allowed) or on purpose: arguments that
         * must be refused before the memory is touched. */
        mem = (mode & 0x20) ? NULL : slot_base[index];
        bytes = (mode & 0x40) ? SIZE_MAX : tlsf_block_size_max() + tlsf_pool_overhead();
        if (mem == NULL) bytes = capacity;
    }
    valid = mem != NULL && ((uintptr_t)mem & (a - 1)) == 0 && bytes >= min_bytes &&
            bytes <= capacity && bytes <= max_pool_bytes();
    tlsf_get_stats(M.heap, &before);
    pool = tlsf_add_pool(M.heap, mem, bytes);
    if (tlsf_fuzz_verbose)
        fprintf(stderr, "  add_pool(slot %d, %p, %zu) = %p\n", index, (void *)mem, bytes,
                (void *)pool);
    tlsf_get_stats(M.heap, &after);
    if (!valid) {
        REQUIRE(pool == NULL, "tlsf_add_pool accepted an invalid pool", mem, bytes, capacity);
        expect_error(TLSF_ERROR_BAD_POOL, mem, "tlsf_add_pool");
        REQUIRE(after.pool_count == before.pool_count && after.pool_bytes == before.pool_bytes,
                "a refused pool changed the heap", mem, after.pool_count, before.pool_count);
        return;
    }
    expect_no_error("tlsf_add_pool");
    REQUIRE(pool != NULL, "tlsf_add_pool refused a valid pool", mem, bytes, 0);
    REQUIRE(after.pool_count == before.pool_count + 1, "tlsf_add_pool: statistics not updated", mem,
            after.pool_count, before.pool_count);
    slot->mem = mem;
    slot->bytes = bytes;
    slot->pool = pool;
    note_pool_span(slot, after.pool_bytes - before.pool_bytes);
}

static void op_remove_pool(input_t *in) {
    int index = take8(in) % FUZZ_POOLS;
    pool_slot_t *slot = &M.pools[index];
    tlsf_stats_t before, after;
    if (slot->pool == NULL) {
        tlsf_remove_pool(M.heap, NULL);
        expect_no_error("tlsf_remove_pool(NULL)");
        return;
    }
    tlsf_get_stats(M.heap, &before);
    tlsf_remove_pool(M.heap, slot->pool);
    tlsf_get_stats(M.heap, &after);
    if (tlsf_fuzz_verbose)
        fprintf(stderr, "  remove_pool(slot %d) with %zu live\n", index, live_count(index));
    if (live_count(index) > 0) {
        expect_error(TLSF_ERROR_POOL_IN_USE, slot->pool, "tlsf_remove_pool");
        REQUIRE(after.pool_count == before.pool_count, "a pool in use was removed", slot->mem,
                after.pool_count, before.pool_count);
        return;
    }
    expect_no_error("tlsf_remove_pool");
    REQUIRE(after.pool_count + 1 == before.pool_count &&
                after.pool_bytes + slot->span == before.pool_bytes,
            "tlsf_remove_pool: statistics not updated", slot->mem, after.pool_count,
            before.pool_count);
    slot->pool = NULL;
#ifdef FUZZ_ASAN
    ASAN_UNPOISON_MEMORY_REGION(slot->mem, slot->bytes);
#endif
}

static void op_check(input_t *in) {
    uint8_t mode = take8(in);
    if (mode & 2) { /* the front cache given back to the lists first */
        if (tlsf_fuzz_verbose) fprintf(stderr, "  cache flush\n");
        tlsf_cache_flush(M.heap);
        expect_no_error("tlsf_cache_flush");
    }
    if (mode & 4) { /* a small budget: full often, so refused frees and drains are common */
        size_t limit = (size_t)(mode >> 3) * 64u;
        if (limit > TLSF_CACHE_BYTES) limit = TLSF_CACHE_BYTES;
        if (tlsf_fuzz_verbose) fprintf(stderr, "  cache limit %zu\n", limit);
        REQUIRE(tlsf_cache_set_limit(M.heap, limit) == (TLSF_CACHE ? limit : 0),
                "tlsf_cache_set_limit: not the budget asked for", NULL, limit, 0);
        expect_no_error("tlsf_cache_set_limit");
    }
    full_check();
    if (mode & 1) {
        tlsf_stats_t s;
        tlsf_reset_peak(M.heap);
        tlsf_get_stats(M.heap, &s);
#if TLSF_STATS
        REQUIRE(s.peak_used_bytes == s.used_bytes, "tlsf_reset_peak: peak != used", NULL,
                s.peak_used_bytes, s.used_bytes);
#endif
    }
}

static void op_largest(input_t *in) {
    live_t *b = take_empty_slot(in);
    size_t largest = tlsf_largest_allocatable(M.heap);
    void *p;
    if (tlsf_fuzz_verbose) fprintf(stderr, "  largest_allocatable = %zu\n", largest);
    expect_no_error("tlsf_largest_allocatable"); /* it drains the cache */
    if (M.tainted) {                             /* exactness is not the adversary's concern */
        p = tlsf_malloc(M.heap, largest);
        expect_no_error("tlsf_malloc(largest)");
        if (p) adopt(b, p, largest, 0, 0);
        return;
    }
    if (largest == 0) { /* no free block at all: not even malloc(0) can succeed */
        p = tlsf_malloc(M.heap, 0);
        if (p != NULL && slab_may_serve(0)) { /* but a slab's free object */
            adopt(b, p, 0, 0, 0);
            return;
        }
        REQUIRE(p == NULL, "largest_allocatable is 0 but malloc(0) succeeded", p, 0, 0);
        M.failed_requests++;
        return;
    }
    p = tlsf_malloc(M.heap, largest + 1);
    if (p != NULL && slab_may_serve(largest + 1)) {
        adopt(b, p, largest + 1, 0, 0);
        return;
    }
    REQUIRE(p == NULL, "malloc(largest_allocatable + 1) succeeded", p, largest, 0);
    M.failed_requests++;
    p = tlsf_malloc(M.heap, largest);
    expect_no_error("tlsf_malloc(largest)");
    REQUIRE(p != NULL, "malloc(largest_allocatable) failed", NULL, largest, 0);
    adopt(b, p, largest, 0, 0);
}

#if TLSF_CHECKS >= 1
static int stats_equal(const tlsf_stats_t *x, const tlsf_stats_t *y) {
    return x->pool_bytes == y->pool_bytes && x->used_bytes == y->used_bytes &&
           x->free_bytes == y->free_bytes && x->live_blocks == y->live_blocks &&
           x->alloc_count == y->alloc_count && x->free_count == y->free_count &&
           x->largest_allocatable == y->largest_allocatable && x->pool_count == y->pool_count;
}
#endif

static void misuse_null_heap(void) {
    tlsf_stats_t s;
    unsigned char *spare = slot_base[FUZZ_POOLS - 1];
    REQUIRE(tlsf_check(NULL) == 1, "tlsf_check(NULL) != 1", NULL, 0, 0);
    REQUIRE(tlsf_check_pool(NULL) == 1, "tlsf_check_pool(NULL) != 1", NULL, 0, 0);
    REQUIRE(tlsf_largest_allocatable(NULL) == 0, "largest_allocatable(NULL) != 0", NULL, 0, 0);
    REQUIRE(tlsf_block_size(NULL) == 0, "tlsf_block_size(NULL) != 0", NULL, 0, 0);
    REQUIRE(tlsf_get_pool(NULL) == NULL, "tlsf_get_pool(NULL) != NULL", NULL, 0, 0);
    REQUIRE(tlsf_create(NULL) == NULL, "tlsf_create(NULL) != NULL", NULL, 0, 0);
    REQUIRE(tlsf_create(arena + 1) == NULL, "tlsf_create(misaligned) != NULL", NULL, 0, 0);
    REQUIRE(tlsf_add_pool(NULL, spare, slot_capacity[FUZZ_POOLS - 1]) == NULL,
            "tlsf_add_pool(NULL heap) != NULL", NULL, 0, 0);
    tlsf_get_stats(NULL, &s);
    tlsf_get_stats(M.heap, NULL);
    tlsf_reset_peak(NULL);
    tlsf_remove_pool(NULL, M.pools[0].pool);
    tlsf_remove_pool(M.heap, NULL);
    tlsf_walk_pool(NULL, walker, NULL);
    tlsf_free(M.heap, NULL);
    tlsf_destroy(NULL);
    tlsf_set_error_handler(NULL, on_error, NULL);
    REQUIRE(tlsf_error_string((tlsf_error_t)12345) != NULL, "tlsf_error_string returned NULL", NULL,
            0, 0);
#if TLSF_CHECKS >= 1
    REQUIRE(tlsf_malloc(NULL, 16) == NULL, "tlsf_malloc(NULL heap) != NULL", NULL, 0, 0);
    REQUIRE(tlsf_calloc(NULL, 1, 16) == NULL, "tlsf_calloc(NULL heap) != NULL", NULL, 0, 0);
    REQUIRE(tlsf_memalign(NULL, 64, 16) == NULL, "tlsf_memalign(NULL heap) != NULL", NULL, 0, 0);
    REQUIRE(tlsf_realloc(NULL, NULL, 16) == NULL, "tlsf_realloc(NULL heap) != NULL", NULL, 0, 0);
    tlsf_free(NULL, NULL);
#endif
    expect_no_error("calls with NULL arguments");
}

#if TLSF_CHECKS >= 2
/* Copy bytes that may lie past the end of a live block (the next block's header): the
 * writes there are misuse on purpose, which the core then refuses, so ASan must not stop
 * them. */
static FUZZ_NO_ASAN void copy_raw(unsigned char *to, const unsigned char *from, size_t n) {
    size_t i;
    for (i = 0; i < n; ++i)
        to[i] = from[i];
}

/* A pointer into memory no heap wrote (zeroed, as a fresh stack or static buffer is), and
 * a write of 1..4 bytes past a plain live block's end (into the next header): free,
 * realloc and tlsf_usable_size refuse both with the right reason and change nothing. */
static void misuse_sealed(live_t *b, uint8_t variant, uint8_t k) {
    static union {
        unsigned char bytes[256];
        long double align; /* C99 has no max_align_t */
        void *pointer;
    } zeroed;
    unsigned char saved[4], junk[4];
    size_t n = 1 + k % 4;
    unsigned char *ptr = variant == 5 ? zeroed.bytes + 2 * align_size() : b->ptr;
    unsigned char *past = b->ptr + b->usable;
    tlsf_error_t reason = variant == 5 ? TLSF_ERROR_BAD_POINTER : TLSF_ERROR_CORRUPT_BLOCK;
    if (variant == 6) {
        if (b->recorded) return; /* past its end is its alignment record, not a header */
        /* The first byte changes a sealed bit for sure (FREE): a change of PREV_FREE alone
         * is not sealed, and is caught where it is relied on (tlsf_checks.h). */
        size_t i;
        copy_raw(saved, past, n);
        for (i = 0; i < n; ++i)
            junk[i] = (unsigned char)(saved[i] ^ (i == 0 ? 0x01 | (k & 0x04) : 0x41 + k % 16));
        copy_raw(past, junk, n);
    }
    if (tlsf_fuzz_verbose)
        fprintf(stderr, "  %s(%p)\n", variant == 5 ? "zeroed" : "overflow", (void *)ptr);
    tlsf_free(M.heap, ptr);
    expect_error(reason, ptr, "free");
    REQUIRE(tlsf_realloc(M.heap, ptr, (size_t)k + 1) == NULL, "realloc of a refused pointer", ptr,
            0, 0);
    expect_error(reason, ptr, "realloc");
    REQUIRE(tlsf_usable_size(M.heap, ptr) == 0, "usable size of a refused pointer", ptr, 0, 0);
    expect_error(reason, ptr, "tlsf_usable_size");
    if (variant == 6) copy_raw(past, saved, n);
}
#endif

static void op_misuse(input_t *in) {
    uint8_t variant = take8(in) % 7;
    live_t *b = take_slot(in);
    uint8_t k = take8(in);
    tlsf_stats_t before, after;
    if (variant == 4) {
        misuse_null_heap();
        return;
    }
#if TLSF_CHECKS >= 1
    if (b->ptr == NULL) return;
    verify(b, b->usable);
    if (variant == 0) { /* double free */
        unsigned char *ptr = b->ptr;
        release(b);
        tlsf_get_stats(M.heap, &before);
        tlsf_free(M.heap, ptr);
        tlsf_get_stats(M.heap, &after);
        if (tlsf_fuzz_verbose) fprintf(stderr, "  double free(%p)\n", (void *)ptr);
        expect_error(TLSF_ERROR_DOUBLE_FREE, ptr, "a double free");
        REQUIRE(stats_equal(&before, &after), "a double free changed the heap", ptr, 0, 0);
        return;
    }
    tlsf_get_stats(M.heap, &before);
    if (variant >= 5) {
#if TLSF_CHECKS >= 2
        misuse_sealed(b, variant, k);
#else
        return;
#endif
    } else if (variant == 1 || variant == 2) { /* misaligned pointers */
        unsigned char *bad = b->ptr + 1 + k % (align_size() - 1);
        void *r = NULL;
        if (variant == 1)
            tlsf_free(M.heap, bad);
        else
            r = tlsf_realloc(M.heap, bad, (size_t)k + 1);
        if (tlsf_fuzz_verbose)
            fprintf(stderr, "  misaligned %s(%p)\n", variant == 1 ? "free" : "realloc",
                    (void *)bad);
        REQUIRE(r == NULL, "realloc of a misaligned pointer did not return NULL", bad, 0, 0);
        expect_error(TLSF_ERROR_BAD_POINTER, bad, "a misaligned pointer");
    } else { /* variant 3: an aligned pointer inside a live block */
#if TLSF_CHECKS >= 2
        size_t a = align_size(), units = b->usable / a;
        unsigned char *inside;
        if (units < 5) return;
        /* At least 3 alignment units in, so the header the core reads is user data. */
        inside = b->ptr + a * (3 + k % (units - 3));
        if (inside >= b->ptr + b->usable) return;
        tlsf_free(M.heap, inside);
        if (tlsf_fuzz_verbose) fprintf(stderr, "  interior free(%p)\n", (void *)inside);
        expect_error(TLSF_ERROR_BAD_POINTER, inside, "an interior pointer");
#else
        (void)k;
        return;
#endif
    }
    tlsf_get_stats(M.heap, &after);
    REQUIRE(stats_equal(&before, &after), "a refused pointer changed the heap", b->ptr, 0, 0);
    verify(b, b->usable);
#else
    (void)b;
    (void)k;
    (void)before;
    (void)after;
#endif
}

/* ---- The adversary ------------------------------------------------------------------ */

/*
 * With tlsf_fuzz_adversary set, the misuse operation becomes a write into the heap's own
 * metadata, of the kinds a buggy program or a blind attacker makes (tlsf.h, TLSF_CHECKS 2):
 *
 *   the size word of a block in use (a write before its start) or of the block after it (a
 *   write past its end: the next block's header, whatever that block is - in use, free,
 *   cached, a slab object, a slab, the sentinel); and, in memory the program freed (a use
 *   after free), a free block's two list links, a cached block's or a freed slab object's
 *   link, a free block's header, the back-link its successor follows, the header past it.
 *
 * The value written: one bit flipped, a random word, one or two random low bytes (an
 * overflow), or a forged pointer (0, a live block, a live block's header, a freed block, a
 * list head in the control structure, memory outside the heap).
 *
 * The invariant after each operation: either the damage was reported to the error handler
 * and the heap is given up, or every live block holds its contents, every block handed out
 * lies inside a pool and overlaps no live block (adopt), and tlsf_check and tlsf_check_pool
 * run without a fault (they may count the damage: the operations go on, since the heap's
 * calls are to report it when they touch it). At the end every block is freed and every
 * pool removed without a report, or a report ends the input there.
 *
 * What the adversary does not write, because the contract does not cover it (tlsf.h): the
 * program's own data (a live block's user bytes: its contents are its business); the control
 * structure (the program's memory, outside the pools); a pool's first word (where the pool
 * records its end: only a write before the pool's memory reaches it); a memalign'd block's
 * alignment record (the word before the next header); and a slab's state at its start (the
 * head of its free list and its bounds: written only through a pointer into memory the slab
 * took over, skipped as the first 128 bytes after every slab boundary when slabs are on).
 *
 * It steers around nothing: every write it can make is damage the core must report or
 * survive (docs/reliability.md, "The adversary").
 */

/* Reads and writes of the heap's words, which ASan poisons: the writes are the misuse. */
static FUZZ_NO_ASAN size_t load_word(const unsigned char *at) {
    size_t v = 0;
    unsigned i;
    for (i = 0; i < sizeof v; ++i)
        v |= (size_t)at[i] << (8 * i);
    return v;
}
static FUZZ_NO_ASAN void store_word(unsigned char *at, size_t v) {
    unsigned i;
    for (i = 0; i < sizeof v; ++i)
        at[i] = (unsigned char)(v >> (8 * i));
}

/* May the adversary write the word at `at`? Inside a pool of the heap, outside every live
 * block's user bytes, and not in a slab's state (see above). */
static int adversary_may_write(const unsigned char *at) {
    int i;
    if (at == NULL || ((uintptr_t)at & (sizeof(size_t) - 1)) != 0) return 0;
    if (pool_of(at, at + sizeof(size_t)) < 0) return 0;
    if (M.slabs && (uintptr_t)at % 4096u < 128u) return 0;
    for (i = 0; i < FUZZ_SLOTS; ++i) {
        const live_t *b = &M.live[i];
        if (b->ptr != NULL && at < b->ptr + b->usable && b->ptr < at + sizeof(size_t)) return 0;
    }
    return 1;
}

/* The first live block at or after slot `from`, or NULL. */
static live_t *live_from(unsigned from) {
    unsigned i;
    for (i = 0; i < FUZZ_SLOTS; ++i) {
        live_t *b = &M.live[(from + i) % FUZZ_SLOTS];
        if (b->ptr) return b;
    }
    return NULL;
}

struct free_entries {
    unsigned char *ptr[64];
    size_t size[64];
    unsigned count;
};

static void collect_free(void *ptr, size_t size, int used, void *user) {
    struct free_entries *f = (struct free_entries *)user;
    /* A slab's state is reported as a free entry at the slab's start (tlsf_walk_pool). */
    if (used || f->count == 64 || (M.slabs && (uintptr_t)ptr % 4096u == 0)) return;
    f->ptr[f->count] = (unsigned char *)ptr;
    f->size[f->count] = size;
    f->count++;
}

/* A forged pointer the program could hold. */
static size_t forged_pointer(size_t which) {
    static union {
        unsigned char bytes[256];
        void *pointer;
    } outside;
    const live_t *b = live_from((unsigned)(which >> 8));
    const unsigned char *freed = M.freed[(which >> 8) % 8].ptr;
    switch (which % 6) {
    case 0:
        return 0;
    case 1:
        return b ? (size_t)(uintptr_t)b->ptr : 0;
    case 2:
        return b ? (size_t)(uintptr_t)(b->ptr - word_size() - sizeof(size_t)) : 0;
    case 3:
        return (size_t)(uintptr_t)freed;
    case 4: /* a list head lies somewhere in the control structure */
        return (size_t)(uintptr_t)M.heap + 32 * ((which >> 8) % 64);
    default:
        return (size_t)(uintptr_t)(outside.bytes + 64);
    }
}

static void op_corrupt(input_t *in) {
    uint8_t what = take8(in), how = take8(in), pick = take8(in);
    size_t value = (size_t)take32(in);
    unsigned char *at = NULL;
    const live_t *b = live_from(pick);
    unsigned char *freed = M.freed[pick % 8].ptr;
    size_t freed_usable = M.freed[pick % 8].usable, old, word;
    M.op_name = "corrupt";
    if (TLSF_CHECKS < 2) return; /* without seals damage goes unnoticed by design */
    if (sizeof(size_t) > 4) value |= (size_t)take32(in) << 16 << 16;
    switch (what % 8) {
    case 0: /* a write before a live block: its own size word */
        if (b) at = b->ptr - word_size();
        break;
    case 1: /* a write past a live block's end: the next header */
        if (b) at = b->ptr + b->usable + (b->recorded ? sizeof(size_t) : 0);
        break;
    case 2: /* use after free: the first link */
        if (freed) at = freed;
        break;
    case 3: /* the second link */
        if (freed) at = freed + sizeof(size_t);
        break;
    case 4: /* the back-link the next block follows */
        if (freed) at = freed + freed_usable - sizeof(size_t);
        break;
    case 5: /* the freed block's header */
        if (freed) at = freed - word_size();
        break;
    case 6: /* past the freed block's end: the next header */
        if (freed) at = freed + freed_usable;
        break;
    default: { /* any free entry of a pool: free, cached, a freed slab object, fresh objects */
        struct free_entries f;
        int pool = (int)(pick % FUZZ_POOLS);
        unsigned e;
        f.count = 0;
        if (M.pools[pool].pool) tlsf_walk_pool(M.pools[pool].pool, collect_free, &f);
        if (f.count == 0) break;
        e = (unsigned)(value >> 8) % f.count;
        switch ((how >> 4) & 3) {
        case 0:
            at = f.ptr[e] - word_size();
            break;
        case 1:
            at = f.ptr[e];
            break;
        case 2:
            at = f.ptr[e] + sizeof(size_t);
            break;
        default:
            at = f.ptr[e] + f.size[e] - sizeof(size_t);
            break;
        }
    }
    }
    if (!adversary_may_write(at)) return;
    old = load_word(at);
    switch (how & 3) {
    case 0: /* one bit */
        word = old ^ ((size_t)1 << (value % (8 * sizeof(size_t))));
        break;
    case 1: /* a random word */
        word = value;
        break;
    case 2: { /* an overflow of one or two bytes */
        size_t mask = (how & 4) ? 0xFFFFu : 0xFFu;
        word = (old & ~mask) | (value & mask);
        break;
    }
    default:
        word = forged_pointer(value);
        break;
    }
    if (word == old) return;
    if (tlsf_fuzz_verbose)
        fprintf(stderr, "  corrupt %p (target %u, mode %u): 0x%zx -> 0x%zx\n", (void *)at,
                (unsigned)(what % 8), (unsigned)(how & 3), old, word);
    store_word(at, word);
    if (!M.tainted) tlsf_fuzz_adversary_counts.damaged++;
    M.tainted = 1;
}

/* ---- One input --------------------------------------------------------------------- */

/* The arena's memory: at a fixed address where the system grants it, since a heap's key (and
 * so whether a damaged word passes its checks by chance) depends on the heap's address: a run
 * is then the same every time, also under address-space randomisation. */
static unsigned char *arena_memory(size_t bytes) {
#if defined(MAP_ANONYMOUS) && UINTPTR_MAX > 0xFFFFFFFFu
    void *p = mmap((void *)(uintptr_t)0x300000000000u, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p != MAP_FAILED) return (unsigned char *)p;
#endif
    return (unsigned char *)malloc(bytes);
}

static void arena_init(void) {
    size_t round = align_size() > 64 ? align_size() : 64, bytes = tlsf_size(), i;
    unsigned char *raw, *at;
    if (arena != NULL) return;
    for (i = 0; i < FUZZ_POOLS; ++i)
        bytes += (slot_capacity[i] + round - 1) & ~(round - 1);
    raw = arena_memory(bytes + 4096); /* reachable through arena until exit */
    if (raw == NULL) fail("out of memory for the arena", NULL, bytes, 0);
    arena = raw + (4096 - (uintptr_t)raw % 4096) % 4096;
    arena_bytes = bytes;
    /* Slot 0 right after the control structure, where tlsf_create_with_pool puts its pool. */
    at = arena + tlsf_size();
    for (i = 0; i < FUZZ_POOLS; ++i) {
        slot_base[i] = at;
        at += (slot_capacity[i] + round - 1) & ~(round - 1);
    }
}

static void setup(input_t *in) {
    size_t i;
    tlsf_stats_t stats;
    uint8_t flags = take8(in);
    int pools = (flags & 3) + 1, with_pool = (flags & 4) != 0, quarters = (flags >> 3) & 3;
    arena_init();
    memset(&M, 0, sizeof M);
#ifdef FUZZ_ASAN
    ASAN_UNPOISON_MEMORY_REGION(arena, arena_bytes);
#endif
#if defined(TLSF_FUZZ_HAVE_VALGRIND) && TLSF_FUZZ_HAVE_VALGRIND
    VALGRIND_MAKE_MEM_UNDEFINED(arena, arena_bytes);
#endif
    for (i = 0; i < (size_t)pools; ++i) {
        pool_slot_t *slot = &M.pools[i];
        slot->mem = slot_base[i];
        slot->bytes = quarters ? slot_capacity[i] / 4 * (size_t)quarters : slot_capacity[i];
        if (slot->bytes > max_pool_bytes()) slot->bytes = max_pool_bytes();
    }
    if (with_pool) {
        M.heap = tlsf_create_with_pool(arena, tlsf_size() + M.pools[0].bytes);
        REQUIRE(M.heap != NULL, "tlsf_create_with_pool failed", arena, M.pools[0].bytes, 0);
        M.pools[0].pool = tlsf_get_pool(M.heap);
        REQUIRE((unsigned char *)M.pools[0].pool == slot_base[0],
                "tlsf_get_pool is not at heap + tlsf_size()", M.pools[0].pool, 0, 0);
    } else {
        M.heap = tlsf_create(arena);
        REQUIRE(M.heap != NULL, "tlsf_create failed", arena, 0, 0);
    }
    tlsf_set_error_handler(M.heap, on_error, &M);
    if (flags & 0x20) { /* slabs: refused (-1) where they are not built */
        M.slabs = tlsf_slabs_enable(M.heap, 4096) == 0;
        REQUIRE(M.slabs == TLSF_SLABS, "tlsf_slabs_enable(4096) disagrees with TLSF_SLABS", NULL,
                (size_t)M.slabs, TLSF_SLABS);
    }
    tlsf_get_stats(M.heap, &stats);
    if (with_pool) note_pool_span(&M.pools[0], stats.pool_bytes);
    for (i = with_pool ? 1 : 0; i < (size_t)pools; ++i) {
        size_t before = stats.pool_bytes;
        M.pools[i].pool = tlsf_add_pool(M.heap, M.pools[i].mem, M.pools[i].bytes);
        expect_no_error("tlsf_add_pool (setup)");
        REQUIRE(M.pools[i].pool != NULL, "tlsf_add_pool failed", M.pools[i].mem, M.pools[i].bytes,
                0);
        tlsf_get_stats(M.heap, &stats);
        note_pool_span(&M.pools[i], stats.pool_bytes - before);
    }
    M.op_name = "setup";
    full_check();
}

static void teardown(void) {
    int i;
    tlsf_stats_t s;
    M.op_name = "teardown";
    full_check();
    for (i = 0; i < FUZZ_SLOTS; ++i)
        if (M.live[i].ptr) release(&M.live[i]);
    full_check();
    if (M.tainted) { /* damage no call reported: everything must still go back */
        for (i = 0; i < FUZZ_POOLS; ++i)
            if (M.pools[i].pool) {
                tlsf_remove_pool(M.heap, M.pools[i].pool);
                expect_no_error("tlsf_remove_pool (teardown)");
                M.pools[i].pool = NULL;
            }
        tlsf_get_stats(M.heap, &s);
        REQUIRE(s.pool_count == 0, "pools remain after removing all of them", NULL, s.pool_count,
                0);
        tlsf_destroy(M.heap);
        expect_no_error("tlsf_destroy");
        M.heap = NULL;
        tlsf_fuzz_adversary_counts.unnoticed++;
        return;
    }
    for (i = 0; i < FUZZ_POOLS; ++i) {
        struct walk_state w;
        pool_slot_t *slot = &M.pools[i];
        if (!slot->pool) continue;
        w.pool = i;
        w.used = 0;
        w.last_end = slot->mem;
        tlsf_walk_pool(slot->pool, walker, &w);
        REQUIRE(w.used == 0, "a pool still has blocks in use after everything was freed", slot->mem,
                w.used, 0);
        tlsf_remove_pool(M.heap, slot->pool);
        expect_no_error("tlsf_remove_pool (teardown)");
        slot->pool = NULL;
    }
    tlsf_get_stats(M.heap, &s);
    REQUIRE(s.pool_count == 0 && s.pool_bytes == 0 && s.largest_allocatable == 0,
            "pools remain after removing all of them", NULL, s.pool_count, s.pool_bytes);
    REQUIRE(tlsf_check(M.heap) == 0, "tlsf_check failed on the empty heap", M.heap, 0, 0);
    check_stats();
    tlsf_destroy(M.heap);
    M.heap = NULL;
}

size_t tlsf_fuzz_run(const uint8_t *data, size_t size) {
    input_t in;
    volatile size_t ops = 0; /* read after a longjmp */
    in.at = data;
    in.end = data + size;
    setup(&in);
    if (setjmp(abandon_point) != 0) { /* the adversary's damage was reported */
        M.heap = NULL;
        return ops;
    }
    while (in.at < in.end) {
        unsigned op = fuzz_op_table[take8(&in) & 15u];
        ops = ops + 1;
        M.op_index = ops;
        M.op_name = op_names[op];
        switch (op) {
        case FUZZ_MALLOC:
            op_malloc(&in);
            break;
        case FUZZ_CALLOC:
            op_calloc(&in);
            break;
        case FUZZ_MEMALIGN:
            op_memalign(&in, 0);
            break;
        case FUZZ_MEMALIGN_OFFSET:
            op_memalign_offset(&in);
            break;
        case FUZZ_ALIGNED_ALLOC:
            op_memalign(&in, 1);
            break;
        case FUZZ_REALLOC:
            op_realloc(&in);
            break;
        case FUZZ_FREE:
            op_free(&in);
            break;
        case FUZZ_ADD_POOL:
            op_add_pool(&in);
            break;
        case FUZZ_REMOVE_POOL:
            op_remove_pool(&in);
            break;
        case FUZZ_CHECK:
            op_check(&in);
            break;
        case FUZZ_LARGEST:
            op_largest(&in);
            break;
        default:
            if (tlsf_fuzz_adversary)
                op_corrupt(&in);
            else
                op_misuse(&in);
            break;
        }
        if (M.tainted || ops % 32 == 0) full_check();
    }
    teardown();
    return ops;
}
