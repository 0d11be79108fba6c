/*
 * SPDX-License-Identifier: MIT
 *
 * tlsf_malloc.c - the C library's malloc family on TLSF heaps, one per thread, for hosted
 * Linux: libtlsf_malloc.so, used with LD_PRELOAD or by linking it into a program.
 *
 * This file is the API only: the C library's argument rules, errno, calloc's zeroing and
 * the exit report. The memory comes from the thread heaps (tlsfm_thread.c: one TLSF heap
 * per thread without a lock, remote frees, orphaned heaps, fork), which get it from the
 * system through tlsfm_os.c (4 MiB chunks at region boundaries, the region map that finds
 * the mapping of a pointer in O(1), large blocks with a bounded cache). This file calls
 * only tlsfm_thread.h.
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
 * malloc_usable_size is the block's usable size. When realloc has to move a block it
 * allocates a plain (malloc-aligned) block, as glibc does. free keeps errno.
 *
 * Misuse: a pointer that is not the start of one of our blocks, given to free, realloc or
 * malloc_usable_size, is reported and the process aborts (tlsfm_diag.h), like double frees
 * and misaligned pointers, which the core reports through its error handler.
 *
 * Environment: TLSF_MALLOC_REPORT=<file> appends one line per process at exit with the
 * mapping counts and the result of tlsfm_check() (used by scripts/run-under-shim.sh to
 * prove the library was in use).
 */
#define _GNU_SOURCE 1

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tlsf.h"
#include "tlsf_malloc.h"
#include "tlsfm_diag.h"
#include "tlsfm_thread.h"
#include "tlsfm_trace.h" /* empty unless TLSF_MALLOC_TRACE: libtlsf_malloc_trace.so */

#if defined(TLSF_MALLOC_PREFIXED) && TLSF_MALLOC_PREFIXED
#define API(name) tlsfm_##name
#else
#define API(name) name
#endif
#define EXPORT __attribute__((visibility("default")))

/* Set once by the constructor. */
static char report_path[512];

static int is_power_of_two(size_t value) {
    return value != 0 && (value & (value - 1)) == 0;
}

static size_t round_up(size_t value, size_t align) {
    return (value + align - 1) & ~(align - 1);
}

static unsigned log2_floor(size_t value) {
    unsigned log2 = 0;
    while (value >>= 1)
        ++log2;
    return log2;
}

static size_t page_size(void) {
    long page = sysconf(_SC_PAGESIZE);
    return page > 0 ? (size_t)page : 4096;
}

/* malloc with `align` (a power of two): memalign, posix_memalign, aligned_alloc, valloc. */
static void *alloc_aligned(size_t align, size_t bytes) {
    void *ptr = tlsfm_heap_alloc(bytes, align > tlsf_align_size() ? align : 0, NULL);
    TLSFM_TRACE_MEMALIGN(align, bytes, ptr);
    if (ptr == NULL) errno = ENOMEM;
    return ptr;
}

EXPORT void *API(malloc)(size_t bytes) {
    void *ptr = tlsfm_heap_alloc(bytes, 0, NULL);
    TLSFM_TRACE_MALLOC(bytes, ptr);
    if (ptr == NULL) errno = ENOMEM;
    return ptr;
}

EXPORT void API(free)(void *ptr) {
    if (ptr == NULL) return;
    TLSFM_TRACE_FREE(ptr);
    tlsfm_heap_free(ptr, "free"); /* keeps errno (tlsfm_os.c unmaps without touching it) */
}

EXPORT void *API(calloc)(size_t count, size_t size) {
    size_t bytes;
    int fresh;
    void *ptr;
    if (size != 0 && count > SIZE_MAX / size) {
        TLSFM_TRACE_CALLOC(count, size, NULL);
        errno = ENOMEM;
        return NULL;
    }
    bytes = count * size;
    ptr = tlsfm_heap_alloc(bytes, 0, &fresh);
    TLSFM_TRACE_CALLOC(count, size, ptr);
    if (ptr == NULL) {
        errno = ENOMEM;
        return NULL;
    }
    /* A fresh large mapping is zero pages: leaving it alone keeps a large calloc from
     * touching every page. */
    if (!fresh) memset(ptr, 0, bytes);
    return ptr;
}

EXPORT void *API(realloc)(void *ptr, size_t bytes) {
    void *moved;
    if (ptr == NULL) return API(malloc)(bytes);
    if (bytes == 0) { /* glibc: realloc(p, 0) frees p and returns NULL */
        API(free)(ptr);
        return NULL;
    }
    TLSFM_TRACE_REALLOC_BEGIN();
    moved = tlsfm_heap_realloc(ptr, bytes, "realloc");
    TLSFM_TRACE_REALLOC_END(ptr, bytes, moved);
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
    return alloc_aligned(align, bytes);
}

EXPORT int API(posix_memalign)(void **out, size_t align, size_t bytes) {
    int saved_errno = errno;
    void *ptr;
    if (align % sizeof(void *) != 0 || !is_power_of_two(align)) return EINVAL;
    ptr = alloc_aligned(align, bytes);
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
    return alloc_aligned(align, bytes);
}

EXPORT void *API(valloc)(size_t bytes) {
    return alloc_aligned(page_size(), bytes);
}

EXPORT void *API(pvalloc)(size_t bytes) {
    size_t page = page_size();
    if (bytes > SIZE_MAX - page) {
        errno = ENOMEM;
        return NULL;
    }
    bytes = bytes ? round_up(bytes, page) : page;
    return alloc_aligned(page, bytes);
}

EXPORT size_t API(malloc_usable_size)(void *ptr) {
    if (ptr == NULL) return 0;
    return tlsfm_heap_usable_size(ptr, "malloc_usable_size");
}

/* ---- Introspection --------------------------------------------------------------------- */

EXPORT void tlsfm_get_info(struct tlsfm_info *info) {
    tlsfm_heap_get_info(info);
}

EXPORT int tlsfm_check(void) {
    return tlsfm_heap_check();
}

/* ---- Start and exit ------------------------------------------------------------------ */

__attribute__((constructor)) static void tlsfm_start(void) {
    const char *path = getenv("TLSF_MALLOC_REPORT");
    if (path != NULL && strlen(path) < sizeof report_path)
        memcpy(report_path, path, strlen(path) + 1);
    tlsfm_heap_start();
    TLSFM_TRACE_START();
}

static size_t put_field(char *line, size_t n, const char *name, size_t value) {
    n = tlsfm_put_text(line, n, 512, name);
    return tlsfm_put_number(line, n, 512, value, 10);
}

__attribute__((destructor)) static void tlsfm_exit_report(void) {
    struct tlsfm_info info;
    char line[512];
    size_t n;
    int fd, errors;
    if (report_path[0] == '\0') return;
    errors = tlsfm_check();
    tlsfm_get_info(&info);
    n = put_field(line, 0, "tlsf_malloc pid=", (size_t)getpid());
    n = put_field(line, n, " maps=", info.maps);
    n = put_field(line, n, " unmaps=", info.unmaps);
    n = put_field(line, n, " pools=", info.pools);
    n = put_field(line, n, " peak_mapped=", info.peak_mapped_bytes);
    n = put_field(line, n, " live=", info.live_blocks);
    n = put_field(line, n, " heaps=", info.heaps);
    n = put_field(line, n, " unchecked=", info.unchecked_heaps);
    n = put_field(line, n, " large_cached=", info.cached_bytes);
    n = put_field(line, n, " large_cache_hits=", info.cache_hits);
    n = put_field(line, n, " check=", (size_t)errors);
    n = tlsfm_put_text(line, n, sizeof line, "\n");
    fd = open(report_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) return;
    tlsfm_write_all(fd, line, n);
    close(fd);
}
