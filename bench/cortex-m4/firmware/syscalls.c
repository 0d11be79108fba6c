/* SPDX-License-Identifier: MIT */
/*
 * syscalls.c - the one newlib system call the benchmark images may need: _sbrk.
 *
 * newlib's malloc (full and nano) grows its heap with _sbrk. In the newlib images it
 * serves a fixed region, the arena: from __arena_start (past the stack, see m4.ld) to
 * __arena_end. In the TLSF images nothing may call it: it stops in bench_panic, which
 * the host reports as an error (BENCH_SBRK_SERVES is 0 there).
 */
#include <errno.h>
#include <stddef.h>

#include "bench_api.h"

void *_sbrk(ptrdiff_t increment);

#if BENCH_SBRK_SERVES

/* The current break; 0 (in .bss) until the first call. */
static char *sbrk_top;

void *_sbrk(ptrdiff_t increment) {
    char *top = sbrk_top ? sbrk_top : __arena_start;
    if (increment > __arena_end - top || increment < __arena_start - top) {
        errno = ENOMEM;
        return (void *)-1;
    }
    sbrk_top = top + increment;
    return top;
}

#else

void *_sbrk(ptrdiff_t increment) {
    (void)increment;
    bench_panic(BENCH_PANIC_SBRK);
    return (void *)-1;
}

#endif
