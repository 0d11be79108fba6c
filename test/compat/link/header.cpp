/* SPDX-License-Identifier: MIT */
// The layer's tlsf.h in C++: the declarations a C++ file of a mattconte program sees.
#include "tlsf.h"

#include <cstddef>

int use_through_the_header(unsigned char *memory, std::size_t bytes);

int use_through_the_header(unsigned char *memory, std::size_t bytes) {
    tlsf_t heap = tlsf_create_with_pool(memory, bytes);
    if (heap == nullptr) return 1;
    // void * handles: a char * converts to pool_t, and either handle to the other.
    char *start = static_cast<char *>(tlsf_get_pool(heap));
    pool_t pool = start;
    tlsf_t same = pool;
    if (same != tlsf_get_pool(heap)) return 2;
    void *p = tlsf_malloc(heap, 64);
    if (p == nullptr || tlsf_malloc(heap, 0) != nullptr) return 3;
    tlsf_free(heap, p);
    return tlsf_check(heap) == 0 && tlsf_check_pool(pool) == 0 ? 0 : 4;
}
