/* SPDX-License-Identifier: MIT */
// Helpers of the compatibility tests (test/compat): memory at a chosen misalignment, a census
// of a pool by tlsf_walk_pool, a reproducible random source and content patterns. Only the
// layer's tlsf.h (compat/mattconte/include) is used: what a mattconte program can call.
#ifndef TLSF_COMPAT_TEST_SUPPORT_H
#define TLSF_COMPAT_TEST_SUPPORT_H

#include "tlsf.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#ifndef TLSF_MATTCONTE_H
#error "the compatibility tests build against the layer's tlsf.h"
#endif

// AddressSanitizer poisons what in a pool is not the user's: tests that write a header
// skip under it.
#if defined(__SANITIZE_ADDRESS__)
#define COMPAT_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define COMPAT_TEST_ASAN 1
#endif
#endif

namespace compat_test {

inline std::uintptr_t Addr(const void *p) {
    return reinterpret_cast<std::uintptr_t>(p);
}
inline bool IsAligned(const void *p, std::size_t align) {
    return Addr(p) % align == 0;
}
inline unsigned char *Bytes(void *p) {
    return static_cast<unsigned char *>(p);
}

// `bytes` bytes of memory whose start is `offset` bytes past a multiple of 4 KiB (so any
// misalignment can be asked for), each byte 0xA5 until the heap takes it.
class Arena {
  public:
    explicit Arena(std::size_t bytes, std::size_t offset = 0)
        : storage_(new unsigned char[bytes + offset + kPage]), bytes_(bytes) {
        std::uintptr_t base = (Addr(storage_.get()) + kPage - 1) & ~std::uintptr_t(kPage - 1);
        start_ = storage_.get() + (base - Addr(storage_.get())) + offset;
        std::memset(start_, 0xA5, bytes);
    }
    unsigned char *start() const { return start_; }
    std::size_t size() const { return bytes_; }
    bool Holds(const void *p, std::size_t n = 1) const {
        return Addr(p) >= Addr(start_) && Addr(p) + n <= Addr(start_) + bytes_;
    }
    // Whether bytes [from, to) of the arena still hold the fill byte.
    bool Untouched(std::size_t from, std::size_t to) const {
        for (std::size_t i = from; i < to; ++i)
            if (start_[i] != 0xA5) return false;
        return true;
    }

  private:
    static constexpr std::size_t kPage = 4096;
    std::unique_ptr<unsigned char[]> storage_;
    unsigned char *start_;
    std::size_t bytes_;
};

// What tlsf_walk_pool reports of a pool, block by block and in sum.
struct Block {
    void *ptr;
    std::size_t size;
    int used;
};
struct Census {
    std::vector<Block> blocks;
    std::size_t used_blocks = 0, free_blocks = 0, used_bytes = 0, free_bytes = 0;
    std::size_t largest_free = 0;
    // Every byte of the pool: the blocks' usable bytes and headers, and the pool's overhead.
    std::size_t Accounted() const {
        return used_bytes + free_bytes + blocks.size() * tlsf_alloc_overhead() +
               tlsf_pool_overhead();
    }
};
inline void CountBlock(void *ptr, std::size_t size, int used, void *user) {
    Census *census = static_cast<Census *>(user);
    census->blocks.push_back(Block{ptr, size, used});
    if (used) {
        ++census->used_blocks;
        census->used_bytes += size;
    } else {
        ++census->free_blocks;
        census->free_bytes += size;
        if (size > census->largest_free) census->largest_free = size;
    }
}
inline Census Walk(pool_t pool) {
    Census census;
    tlsf_walk_pool(pool, CountBlock, &census);
    return census;
}

// The bytes a pool of `bytes` bytes at an aligned start makes available to its blocks and
// overhead: tlsf_add_pool leaves the bytes beyond a multiple of the alignment unused.
inline std::size_t PoolBytes(std::size_t bytes) {
    return bytes & ~(tlsf_align_size() - 1);
}

// A reproducible random source (xorshift64*), the same on every host.
class Random {
  public:
    explicit Random(std::uint64_t seed) : state_(seed * 0x9E3779B97F4A7C15ull | 1u) {}
    std::uint64_t Next() {
        state_ ^= state_ >> 12;
        state_ ^= state_ << 25;
        state_ ^= state_ >> 27;
        return state_ * 0x2545F4914F6CDD1Dull;
    }
    // Uniform in [0, n), n > 0.
    std::size_t Below(std::size_t n) { return static_cast<std::size_t>(Next() % n); }
    // A size from 1 to `most`, as likely in each power of two (small blocks are common).
    std::size_t Size(std::size_t most) {
        unsigned top = 0;
        while ((std::size_t(2) << top) <= most)
            ++top;
        std::size_t range = std::size_t(1) << Below(top + 1);
        std::size_t size = range + Below(range);
        return size > most ? most : size;
    }

  private:
    std::uint64_t state_;
};

// Content patterns: each block holds bytes derived from an id, so an overlap or a lost copy
// shows as a wrong byte.
inline unsigned char PatternByte(std::size_t id, std::size_t i) {
    return static_cast<unsigned char>((id * 131u + i * 7u) ^ (i >> 8));
}
inline void Fill(void *p, std::size_t n, std::size_t id) {
    for (std::size_t i = 0; i < n; ++i)
        Bytes(p)[i] = PatternByte(id, i);
}
inline bool Holds(const void *p, std::size_t n, std::size_t id) {
    for (std::size_t i = 0; i < n; ++i)
        if (static_cast<const unsigned char *>(p)[i] != PatternByte(id, i)) return false;
    return true;
}

// The heap and its pool are sound: mattconte's two checks, which its users call after
// every step, both say 0.
inline ::testing::AssertionResult Sound(tlsf_t heap, pool_t pool) {
    int heap_errors = tlsf_check(heap);
    int pool_errors = tlsf_check_pool(pool);
    if (heap_errors == 0 && pool_errors == 0) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure()
           << "tlsf_check " << heap_errors << ", tlsf_check_pool " << pool_errors;
}

} // namespace compat_test

#endif // TLSF_COMPAT_TEST_SUPPORT_H
