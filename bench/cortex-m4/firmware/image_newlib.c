/* SPDX-License-Identifier: MIT */
/*
 * image_newlib.c - the newlib benchmark image: malloc, free, realloc and memalign of the
 * C library it is linked with (full newlib, or newlib-nano with --specs=nano.specs).
 *
 * The host calls them directly; each count includes newlib's locking stubs and, when the
 * heap grows, _sbrk (syscalls.c). The heap state lives in newlib's .data/.bss, so the
 * host starts a fresh heap by running Reset_Handler again.
 */
#include <malloc.h>
#include <stdlib.h>

#include "bench_api.h"

const bench_api_t bench_api BENCH_API_SECTION = {
    BENCH_PLATFORM_FIELDS,
    .kind = BENCH_KIND_NEWLIB,
    .allocator = BENCH_ALLOCATOR,
    .opt = BENCH_OPT,
    .config = "-",
    .fn_malloc = (bench_fn_t)malloc,
    .fn_free = (bench_fn_t)free,
    .fn_realloc = (bench_fn_t)realloc,
    .fn_memalign = (bench_fn_t)memalign,
};

int main(void) {
    return 0; /* the host does the rest */
}
