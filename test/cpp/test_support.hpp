// SPDX-License-Identifier: MIT
// Helpers shared by the C++ layer's tests.
//
// The tests run in every configuration of scripts/test-all.sh. Where a check needs the
// heap's statistics it is skipped when they are compiled out (TLSF_STATS=0); sizes are
// kept below tlsf_block_size_max(), which the small configuration lowers to 1 MiB.
#ifndef TLSF_TEST_SUPPORT_HPP
#define TLSF_TEST_SUPPORT_HPP

#include <tlsf/heap.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace support {

// Whether tlsf_get_stats counts blocks and bytes (TLSF_STATS).
inline constexpr bool stats = TLSF_STATS != 0;

inline bool aligned(const void *pointer, std::size_t to) {
    return reinterpret_cast<std::uintptr_t>(pointer) % to == 0;
}

// Keeps a pointer observable, so that the compiler may not elide a new/delete pair.
inline void *volatile sink;
inline void keep(void *pointer) {
    sink = pointer;
}

// Memory for a heap, aligned like max_align_t.
class buffer {
  public:
    explicit buffer(std::size_t bytes)
        : words_((bytes + sizeof(std::max_align_t) - 1) / sizeof(std::max_align_t)) {}
    unsigned char *data() noexcept { return reinterpret_cast<unsigned char *>(words_.data()); }
    std::size_t size() const noexcept { return words_.size() * sizeof(std::max_align_t); }

  private:
    std::vector<std::max_align_t> words_;
};

// No block is allocated and the heap is consistent.
inline void expect_empty(const tlsf::heap &heap) {
    EXPECT_TRUE(heap.check());
    if constexpr (stats) {
        const tlsf::heap_stats now = heap.stats();
        EXPECT_EQ(now.live_blocks, 0u);
        EXPECT_EQ(now.used_bytes, 0u);
        EXPECT_EQ(now.alloc_count, now.free_count);
    }
}

// At least one block is allocated (checked only with statistics).
inline void expect_in_use(const tlsf::heap &heap) {
    if constexpr (stats) {
        EXPECT_GT(heap.stats().live_blocks, 0u);
        EXPECT_GT(heap.stats().used_bytes, 0u);
    }
}

} // namespace support

#endif // TLSF_TEST_SUPPORT_HPP
