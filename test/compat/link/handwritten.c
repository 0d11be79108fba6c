/* SPDX-License-Identifier: MIT */
/*
 * A C program that knows mattconte/tlsf 3.1 only by its own copy of the declarations, as
 * objects compiled against mattconte's header do: no header of this project is included.
 * It links against the layer's plain symbols and calls each of the 20 functions. Like many
 * programs written for mattconte, it has helpers of its own named tlsf_calloc and
 * tlsf_usable_size: the layer must not define them (a duplicate symbol would not link).
 * Prints "handwritten: PASS" when every check holds.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

typedef void *tlsf_t;
typedef void *pool_t;
typedef void (*tlsf_walker)(void *ptr, size_t size, int used, void *user);

tlsf_t tlsf_create(void *mem);
tlsf_t tlsf_create_with_pool(void *mem, size_t bytes);
void tlsf_destroy(tlsf_t tlsf);
pool_t tlsf_get_pool(tlsf_t tlsf);
pool_t tlsf_add_pool(tlsf_t tlsf, void *mem, size_t bytes);
void tlsf_remove_pool(tlsf_t tlsf, pool_t pool);
void *tlsf_malloc(tlsf_t tlsf, size_t bytes);
void *tlsf_memalign(tlsf_t tlsf, size_t align, size_t bytes);
void *tlsf_realloc(tlsf_t tlsf, void *ptr, size_t size);
void tlsf_free(tlsf_t tlsf, void *ptr);
size_t tlsf_block_size(void *ptr);
size_t tlsf_size(void);
size_t tlsf_align_size(void);
size_t tlsf_block_size_min(void);
size_t tlsf_block_size_max(void);
size_t tlsf_pool_overhead(void);
size_t tlsf_alloc_overhead(void);
void tlsf_walk_pool(pool_t pool, tlsf_walker walker, void *user);
int tlsf_check(tlsf_t tlsf);
int tlsf_check_pool(pool_t pool);

/* The program's own helpers, under names the layer's library must leave free. */
void *tlsf_calloc(tlsf_t tlsf, size_t count, size_t size);
size_t tlsf_usable_size(void *ptr);
void *tlsf_calloc(tlsf_t tlsf, size_t count, size_t size) {
    void *p = count != 0 && size > (size_t)-1 / count ? NULL : tlsf_malloc(tlsf, count * size);
    if (p != NULL) memset(p, 0, count * size);
    return p;
}
size_t tlsf_usable_size(void *ptr) {
    return tlsf_block_size(ptr);
}

/* Defined in gnu_pool_arithmetic.c (C with GNU extensions, as ESP-IDF builds). */
size_t pool_bytes_after(pool_t pool, void *end);

static int failures;
static void check(int condition, const char *what) {
    if (!condition) {
        printf("handwritten: FAILED: %s\n", what);
        ++failures;
    }
}

static void count_blocks(void *ptr, size_t size, int used, void *user) {
    (void)ptr;
    (void)size;
    (void)used;
    ++*(int *)user;
}

/* Static memory with no more alignment than the C compiler gives a byte array of doubles
 * (4 bytes on i386): the layer rounds it up where it is given a size. */
static union {
    double align;
    unsigned char bytes[64 * 1024];
} memory, extra, control;

/* The gap from `p` to the next multiple of tlsf_align_size(). */
static size_t gap_of(const void *p) {
    return (tlsf_align_size() - (size_t)p % tlsf_align_size()) % tlsf_align_size();
}

int main(void) {
    tlsf_t heap = tlsf_create_with_pool(memory.bytes, sizeof memory.bytes);
    pool_t pool = tlsf_get_pool(heap), more;
    void *p, *q;
    int blocks = 0;
    check(heap == (void *)(memory.bytes + gap_of(memory.bytes)), "tlsf_create_with_pool");
    check((char *)pool == (char *)heap + tlsf_size(), "tlsf_get_pool");
    check(pool_bytes_after(pool, memory.bytes + sizeof memory.bytes) ==
              sizeof memory.bytes - gap_of(memory.bytes) - tlsf_size(),
          "byte arithmetic on a pool_t");
    check(tlsf_align_size() >= sizeof(void *) && tlsf_block_size_min() > 0 &&
              tlsf_block_size_max() > tlsf_block_size_min() && tlsf_pool_overhead() > 0 &&
              tlsf_alloc_overhead() == sizeof(size_t),
          "sizes");

    p = tlsf_calloc(heap, 10, 10);
    check(p != NULL && ((unsigned char *)p)[99] == 0 && tlsf_usable_size(p) >= 100,
          "the program's own tlsf_calloc and tlsf_usable_size");
    q = tlsf_memalign(heap, 256, 100);
    check(q != NULL && (size_t)q % 256 == 0, "tlsf_memalign");
    p = tlsf_realloc(heap, p, 1000);
    check(p != NULL && tlsf_block_size(p) >= 1000, "tlsf_realloc");
    check(tlsf_malloc(heap, 0) == NULL, "tlsf_malloc(0) is NULL");
    tlsf_walk_pool(pool, count_blocks, &blocks);
    check(blocks >= 3, "tlsf_walk_pool");
    check(tlsf_check(heap) == 0 && tlsf_check_pool(pool) == 0, "tlsf_check, tlsf_check_pool");
    tlsf_free(heap, p);
    tlsf_free(heap, q);

    more = tlsf_add_pool(heap, extra.bytes, sizeof extra.bytes);
    check(more == (void *)(extra.bytes + gap_of(extra.bytes)), "tlsf_add_pool");
    tlsf_remove_pool(heap, more);
    tlsf_destroy(heap);
    check(tlsf_create(control.bytes + gap_of(control.bytes)) ==
              (void *)(control.bytes + gap_of(control.bytes)),
          "tlsf_create");

    if (failures == 0) printf("handwritten: PASS\n");
    return failures != 0;
}
