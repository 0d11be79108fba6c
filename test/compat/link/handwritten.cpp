/* SPDX-License-Identifier: MIT */
// A C++ program that declares mattconte/tlsf 3.1's functions itself, extern "C" as its
// header does, with no header of this project; header.cpp, in the same program, includes
// the layer's tlsf.h. Both reach the layer's plain symbols. Prints "handwritten C++: PASS".
#include <cstddef>
#include <cstdio>

extern "C" {
typedef void *tlsf_t;
typedef void *pool_t;
typedef void (*tlsf_walker)(void *ptr, std::size_t size, int used, void *user);
tlsf_t tlsf_create(void *mem);
tlsf_t tlsf_create_with_pool(void *mem, std::size_t bytes);
void tlsf_destroy(tlsf_t tlsf);
pool_t tlsf_get_pool(tlsf_t tlsf);
pool_t tlsf_add_pool(tlsf_t tlsf, void *mem, std::size_t bytes);
void tlsf_remove_pool(tlsf_t tlsf, pool_t pool);
void *tlsf_malloc(tlsf_t tlsf, std::size_t bytes);
void *tlsf_memalign(tlsf_t tlsf, std::size_t align, std::size_t bytes);
void *tlsf_realloc(tlsf_t tlsf, void *ptr, std::size_t size);
void tlsf_free(tlsf_t tlsf, void *ptr);
std::size_t tlsf_block_size(void *ptr);
std::size_t tlsf_size(void);
std::size_t tlsf_align_size(void);
std::size_t tlsf_block_size_min(void);
std::size_t tlsf_block_size_max(void);
std::size_t tlsf_pool_overhead(void);
std::size_t tlsf_alloc_overhead(void);
void tlsf_walk_pool(pool_t pool, tlsf_walker walker, void *user);
int tlsf_check(tlsf_t tlsf);
int tlsf_check_pool(pool_t pool);
}

// In header.cpp: a heap over `memory`, used through the layer's header; 0 if it worked.
int use_through_the_header(unsigned char *memory, std::size_t bytes);

namespace {

int failures = 0;
void check(bool condition, const char *what) {
    if (!condition) {
        std::printf("handwritten C++: FAILED: %s\n", what);
        ++failures;
    }
}

alignas(16) unsigned char memory[64 * 1024];
alignas(16) unsigned char extra[16 * 1024];
alignas(16) unsigned char control[32 * 1024];

void count(void *, std::size_t, int used, void *user) {
    *static_cast<int *>(user) += used;
}

} // namespace

int main() {
    tlsf_t heap = tlsf_create_with_pool(memory, sizeof memory);
    check(heap == static_cast<void *>(memory), "tlsf_create_with_pool");
    char *bytes = reinterpret_cast<char *>(extra);
    pool_t pool = bytes; // a char * is a pool_t, as with mattconte's header
    check(tlsf_add_pool(heap, pool, sizeof extra) == pool, "tlsf_add_pool");
    void *p = tlsf_malloc(heap, 300);
    void *q = tlsf_memalign(heap, 1024, 300);
    p = tlsf_realloc(heap, p, 3000);
    check(p && q && tlsf_block_size(p) >= 3000, "malloc, memalign, realloc");
    int used = 0;
    tlsf_walk_pool(tlsf_get_pool(heap), count, &used);
    tlsf_walk_pool(pool, count, &used);
    check(used == 2, "tlsf_walk_pool");
    check(tlsf_check(heap) == 0 && tlsf_check_pool(pool) == 0, "checks");
    tlsf_free(heap, p);
    tlsf_free(heap, q);
    tlsf_remove_pool(heap, pool);
    check(tlsf_size() % tlsf_align_size() == 0 && tlsf_block_size_min() < tlsf_block_size_max() &&
              tlsf_pool_overhead() > 0 && tlsf_alloc_overhead() > 0,
          "sizes");
    tlsf_destroy(heap);
    check(tlsf_create(control) == static_cast<void *>(control), "tlsf_create");
    check(use_through_the_header(memory, sizeof memory) == 0, "the layer's header in C++");
    if (failures == 0) std::printf("handwritten C++: PASS\n");
    return failures != 0;
}
