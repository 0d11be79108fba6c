/* SPDX-License-Identifier: MIT */
/*
 * plain_names.h - the first file of every core source as this layer compiles it (the
 * compiler's -include, compat/mattconte/CMakeLists.txt).
 *
 * The core's tlsf.h makes each public name a macro for a configuration-tagged symbol. For
 * the functions of mattconte's API whose conventions the core shares, this takes the
 * macro away again, so the core's own definition is compiled under the plain name: no
 * wrapper, the same machine code (test/compat/m4 compares it instruction by instruction).
 * The prototypes below are the core's, under those names; they must match its definitions,
 * which the compiler checks. The other nine names of mattconte's API keep their tagged
 * core functions, which the layer's conventions call (mattconte.c), and every other symbol
 * of this build carries the tag and the variant `mc` (TLSF_ABI_VARIANT, tlsf_abi.h).
 */
#ifndef TLSF_MATTCONTE_PLAIN_NAMES_H
#define TLSF_MATTCONTE_PLAIN_NAMES_H

#include "tlsf.h"

#undef tlsf_destroy
#undef tlsf_get_pool
#undef tlsf_remove_pool
#undef tlsf_free
#undef tlsf_block_size
#undef tlsf_size
#undef tlsf_align_size
#undef tlsf_block_size_min
#undef tlsf_block_size_max
#undef tlsf_pool_overhead
#undef tlsf_alloc_overhead

void tlsf_destroy(tlsf_t tlsf);
pool_t tlsf_get_pool(tlsf_t tlsf);
void tlsf_remove_pool(tlsf_t tlsf, pool_t pool);
void tlsf_free(tlsf_t tlsf, void *ptr);
size_t tlsf_block_size(void *ptr);
size_t tlsf_size(void);
size_t tlsf_align_size(void);
size_t tlsf_block_size_min(void);
size_t tlsf_block_size_max(void);
size_t tlsf_pool_overhead(void);
size_t tlsf_alloc_overhead(void);

#endif /* TLSF_MATTCONTE_PLAIN_NAMES_H */
