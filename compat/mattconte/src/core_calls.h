/* SPDX-License-Identifier: MIT */
/*
 * core_calls.h - the core functions behind the nine names of mattconte's API whose
 * conventions differ from the core's (mattconte.c), under names of their own: core_malloc
 * is the core's tlsf_malloc, and so on, each the configuration-tagged symbol of this
 * layer's build of the core (plain_names.h says which names are plain instead).
 *
 * The core's handle types are spelled out as the structs they point to, so that this file
 * can be read beside the layer's tlsf.h (whose handles are `void *`). The prototypes are
 * the core's own (core/include/tlsf.h); core_calls_check.c has the compiler compare them.
 */
#ifndef TLSF_MATTCONTE_CORE_CALLS_H
#define TLSF_MATTCONTE_CORE_CALLS_H

#include <stddef.h>

#include "tlsf_abi.h"

struct tlsf_heap;
struct tlsf_pool;

#define core_create TLSF_ABI_NAME(tlsf_create)
#define core_add_pool TLSF_ABI_NAME(tlsf_add_pool)
#define core_malloc TLSF_ABI_NAME(tlsf_malloc)
#define core_memalign TLSF_ABI_NAME(tlsf_memalign)
#define core_realloc TLSF_ABI_NAME(tlsf_realloc)
#define core_walk_pool TLSF_ABI_NAME(tlsf_walk_pool)
#define core_check TLSF_ABI_NAME(tlsf_check)
#define core_check_pool TLSF_ABI_NAME(tlsf_check_pool)

struct tlsf_heap *core_create(void *mem);
struct tlsf_pool *core_add_pool(struct tlsf_heap *tlsf, void *mem, size_t bytes);
void *core_malloc(struct tlsf_heap *tlsf, size_t bytes);
void *core_memalign(struct tlsf_heap *tlsf, size_t align, size_t bytes);
void *core_realloc(struct tlsf_heap *tlsf, void *ptr, size_t bytes);
void core_walk_pool(struct tlsf_pool *pool, void (*walker)(void *, size_t, int, void *),
                    void *user);
int core_check(struct tlsf_heap *tlsf);
int core_check_pool(struct tlsf_pool *pool);

/* The core's sizes as constants (tlsf_abi.h; the core checks they equal its functions'):
 * the alignment, the control structure, a block's header, a pool's overhead, the smallest
 * and largest spans of a block, and the least bytes of a pool (one smallest block). */
#define CORE_ALIGN ((size_t)1 << TLSF_ALIGN_LOG2)
#define CORE_CONTROL_BYTES ((size_t)TLSF_CONTROL_BYTES)
#define CORE_HEADER_BYTES ((size_t)TLSF_HEADER_BYTES)
#define CORE_POOL_OVERHEAD ((size_t)TLSF_POOL_OVERHEAD_BYTES)
#define CORE_MIN_SPAN ((size_t)TLSF_MIN_SPAN_BYTES)
#define CORE_MAX_SPAN (((size_t)1 << TLSF_MAX_BLOCK_LOG2) - CORE_ALIGN)
#define CORE_POOL_LEAST (CORE_POOL_OVERHEAD + CORE_MIN_SPAN)

#endif /* TLSF_MATTCONTE_CORE_CALLS_H */
