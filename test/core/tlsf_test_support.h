/* SPDX-License-Identifier: MIT */
// Shared helpers for the core test suite: owned memory regions with guard bytes, a heap with
// an error log and its pools, content patterns, and a model of the size classes derived from
// the public API and tlsf_config.h (never from hard-coded 64-bit values).
#ifndef TLSF_TEST_SUPPORT_H
#define TLSF_TEST_SUPPORT_H

#include <tlsf.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <new>
#include <string>
#include <vector>

#if defined(__unix__) || defined(__APPLE__)
#include <sys/mman.h>
#define TLSF_TEST_HAVE_MMAP 1
#else
#define TLSF_TEST_HAVE_MMAP 0
#endif

// AddressSanitizer: the core poisons what in a pool is not the user's; the tests ask ASan
// instead of touching such memory.
#if defined(__SANITIZE_ADDRESS__)
#define TLSF_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TLSF_TEST_ASAN 1
#endif
#endif
#ifdef TLSF_TEST_ASAN
#include <sanitizer/asan_interface.h>
#endif

namespace tlsf_test {

// ---- Arithmetic ------------------------------------------------------------------------

inline std::size_t Align() {
    return tlsf_align_size();
}
inline std::size_t Word() {
    return tlsf_alloc_overhead();
}
inline std::size_t AlignUp(std::size_t v, std::size_t a) {
    return (v + a - 1) & ~(a - 1);
}
inline std::size_t AlignDown(std::size_t v, std::size_t a) {
    return v & ~(a - 1);
}
inline bool IsPowerOfTwo(std::size_t v) {
    return v != 0 && (v & (v - 1)) == 0;
}
inline std::uintptr_t Addr(const void *p) {
    return reinterpret_cast<std::uintptr_t>(p);
}
inline bool IsAligned(const void *p, std::size_t a) {
    return (Addr(p) & (a - 1)) == 0;
}
inline unsigned Log2Floor(std::size_t v) {
    unsigned r = 0;
    while (v >>= 1)
        ++r;
    return r;
}
// The largest power of two dividing the address (capped so 0 does not loop forever).
inline std::size_t NaturalAlignment(const void *p) {
    std::uintptr_t a = Addr(p);
    return a == 0 ? (std::size_t(1) << (sizeof(std::size_t) * 8 - 1))
                  : static_cast<std::size_t>(a & (~a + 1u));
}

// The smallest `bytes` tlsf_add_pool accepts, as tlsf.h documents it: "at least
// tlsf_pool_overhead() + tlsf_alloc_overhead() + tlsf_block_size_min() (one smallest block)".
inline std::size_t MinPoolBytes() {
    return tlsf_pool_overhead() + tlsf_alloc_overhead() + tlsf_block_size_min();
}

// The usable size of the smallest block, what malloc(0) gets ("a unique minimum-size
// block"), measured once; and its span (with the header word).
inline std::size_t MinUsable();
inline std::size_t MinSpan() {
    return MinUsable() + tlsf_alloc_overhead();
}
// Bytes that a pool of `bytes` offers to blocks (stats.pool_bytes).
inline std::size_t PoolSpan(std::size_t bytes) {
    return AlignDown(bytes - tlsf_pool_overhead(), Align());
}

// ---- Size classes ----------------------------------------------------------------------
//
// "Good fit" (tlsf.h): a request needs a span of its bytes plus the one-word header, aligned
// and at least one minimum block; the span is rounded up to the lower bound of its size
// class and the block keeps that span. Classes (tlsf_config.h): spans below
// 2 * (align << SL) are linear, `align` apart; above, each power of two is split into
// 2^SL equal classes.
struct SizeClasses {
    std::size_t align = tlsf_align_size();
    std::size_t word = tlsf_alloc_overhead();
    unsigned sl_log2 = TLSF_SL_INDEX_LOG2;
    std::size_t linear_end = (tlsf_align_size() << TLSF_SL_INDEX_LOG2) * 2;
    std::size_t min_span = MinSpan();
    std::size_t max_block = tlsf_block_size_max();

    // Smallest class lower bound >= span.
    std::size_t RoundUp(std::size_t span) const {
        if (span < linear_end) return AlignUp(span, align);
        std::size_t step = std::size_t(1) << (Log2Floor(span) - sl_log2);
        return AlignUp(span, step);
    }
    // The class lower bound <= span (the class a free block of this span is listed in).
    std::size_t RoundDown(std::size_t span) const {
        if (span < linear_end) return AlignDown(span, align);
        std::size_t step = std::size_t(1) << (Log2Floor(span) - sl_log2);
        return AlignDown(span, step);
    }
    std::size_t RequestSpan(std::size_t bytes) const {
        return std::max(AlignUp(bytes + word, align), min_span);
    }
    // The span malloc(bytes) gives when the free block it splits has room to spare.
    std::size_t MallocSpan(std::size_t bytes) const { return RoundUp(RequestSpan(bytes)); }
    std::size_t MallocUsable(std::size_t bytes) const { return MallocSpan(bytes) - word; }
    // The largest request of the top class: the largest request malloc can ever satisfy.
    std::size_t MaxRequest() const { return max_block - (max_block >> (sl_log2 + 1)) - word; }
    // The largest malloc that a single free block of this span satisfies.
    std::size_t LargestFor(std::size_t free_span) const {
        return free_span < min_span ? 0 : RoundDown(free_span) - word;
    }
    // Every class lower bound (a span) from the minimum block up to below block_size_max.
    std::vector<std::size_t> LowerBounds() const {
        std::vector<std::size_t> out;
        for (std::size_t s = AlignUp(min_span, align); s < linear_end; s += align)
            out.push_back(s);
        for (std::size_t k = linear_end; k != 0 && k < max_block; k <<= 1) {
            std::size_t step = k >> sl_log2;
            for (std::size_t c = 0; c < (std::size_t(1) << sl_log2); ++c)
                out.push_back(k + c * step);
        }
        return out;
    }
};

// ---- Content patterns ------------------------------------------------------------------

inline std::uint64_t Mix(std::uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

// Byte i of the pattern of `seed` is byte i % 8 of word i / 8, whatever the length, so a
// prefix of a longer fill matches a shorter check.
inline std::uint64_t PatternWord(std::uint64_t seed, std::size_t word_index) {
    return Mix(seed) + static_cast<std::uint64_t>(word_index) * 0xD6E8FEB86659FD93ull;
}

inline void Fill(void *ptr, std::size_t n, std::uint64_t seed) {
    unsigned char *b = static_cast<unsigned char *>(ptr);
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        std::uint64_t v = PatternWord(seed, i / 8);
        std::memcpy(b + i, &v, 8);
    }
    if (i < n) {
        std::uint64_t v = PatternWord(seed, i / 8);
        std::memcpy(b + i, &v, n - i);
    }
}

// Offset of the first byte that differs from the pattern, or n if all match.
inline std::size_t FirstMismatch(const void *ptr, std::size_t n, std::uint64_t seed) {
    const unsigned char *b = static_cast<const unsigned char *>(ptr);
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        std::uint64_t v = PatternWord(seed, i / 8);
        if (std::memcmp(b + i, &v, 8) != 0) break;
    }
    for (; i < n; ++i) {
        std::uint64_t v = PatternWord(seed, i / 8);
        unsigned char expect[8];
        std::memcpy(expect, &v, 8);
        if (b[i] != expect[i % 8]) return i;
    }
    return n;
}

inline bool Holds(const void *ptr, std::size_t n, std::uint64_t seed) {
    return FirstMismatch(ptr, n, seed) == n;
}

// Under ASan, the first byte of [p, p + n) that is poisoned (not the program's to touch), or
// nullptr; always nullptr without ASan.
inline const void *FirstPoisoned(const void *p, std::size_t n) {
#ifdef TLSF_TEST_ASAN
    return __asan_region_is_poisoned(const_cast<void *>(p), n);
#else
    (void)p;
    (void)n;
    return nullptr;
#endif
}
constexpr bool kAsan =
#ifdef TLSF_TEST_ASAN
    true;
#else
    false;
#endif

inline bool AllBytes(const void *ptr, std::size_t n, unsigned char value) {
    const unsigned char *b = static_cast<const unsigned char *>(ptr);
    for (std::size_t i = 0; i < n; ++i)
        if (b[i] != value) return false;
    return true;
}

// ---- Deterministic random numbers ---------------------------------------------------------

// splitmix64: the same sequence on every platform and standard library.
class Rng {
  public:
    explicit Rng(std::uint64_t seed) : state_(seed) {}
    std::uint64_t Next() {
        state_ += 0x9E3779B97F4A7C15ull;
        std::uint64_t z = state_;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    // Uniform in [0, n), n > 0 (the modulo bias is irrelevant here).
    std::size_t Below(std::size_t n) { return static_cast<std::size_t>(Next() % n); }
    // Uniform in [lo, hi].
    std::size_t Between(std::size_t lo, std::size_t hi) { return lo + Below(hi - lo + 1); }
    bool Chance(unsigned percent) { return Below(100) < percent; }

  private:
    std::uint64_t state_;
};

// ---- Memory the tests own ------------------------------------------------------------------

// The smallest power of two >= v (v > 0).
inline std::size_t CeilPowerOfTwo(std::size_t v) {
    std::size_t p = 1;
    while (p < v)
        p <<= 1;
    return p;
}

// `size` bytes with `guard` bytes of 0xCD on each side. The payload is aligned to at least
// `align` and naturally aligned up to 8 MiB (to the power of two at or above its size), so
// that everything the heap computes from addresses (memalign gaps, natural alignments) is
// the same in every run: the tests stay deterministic under address-space randomisation.
// The payload is left uninitialised unless Poison() is called (large pools are never touched).
class Region {
  public:
    static constexpr unsigned char kGuard = 0xCD;

    explicit Region(std::size_t size, std::size_t align = 64, std::size_t guard = 0)
        : size_(size), align_(std::max({align, std::size_t(64),
                                        std::min(CeilPowerOfTwo(size + 1), std::size_t(1) << 23)})),
          guard_(AlignUp(guard, align_)) {
        base_ = static_cast<unsigned char *>(
            ::operator new(size_ + 2 * guard_, std::align_val_t(align_)));
        std::memset(base_, kGuard, guard_);
        std::memset(base_ + guard_ + size_, kGuard, guard_);
    }
    ~Region() { ::operator delete(base_, std::align_val_t(align_)); }
    Region(const Region &) = delete;
    Region &operator=(const Region &) = delete;

    unsigned char *data() const { return base_ + guard_; }
    std::size_t size() const { return size_; }
    void Poison(unsigned char value = kGuard) { std::memset(data(), value, size_); }
    bool GuardsIntact() const {
        return AllBytes(base_, guard_, kGuard) && AllBytes(base_ + guard_ + size_, guard_, kGuard);
    }
    bool PayloadIs(unsigned char value) const { return AllBytes(data(), size_, value); }
    bool Contains(const void *p, std::size_t n = 0) const {
        return Addr(p) >= Addr(data()) && Addr(p) + n <= Addr(data()) + size_;
    }

  private:
    std::size_t size_;
    std::size_t align_;
    std::size_t guard_;
    unsigned char *base_;
};

// A large reservation whose pages materialise only when touched (mmap with MAP_NORESERVE),
// for pools at tlsf_block_size_max(). valid() is false if the system refuses it, and under
// ASan above 1 GiB (the core poisons a whole new pool: 1/8 of its size in shadow memory).
class HugeRegion {
  public:
    explicit HugeRegion(std::size_t size) : size_(size) {
        if (kAsan && size > (std::size_t(1) << 30)) return;
#if TLSF_TEST_HAVE_MMAP
        void *p = mmap(nullptr, size, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        base_ = p == MAP_FAILED ? nullptr : static_cast<unsigned char *>(p);
#endif
    }
    ~HugeRegion() {
#if TLSF_TEST_HAVE_MMAP
        if (base_) munmap(base_, size_);
#endif
    }
    HugeRegion(const HugeRegion &) = delete;
    HugeRegion &operator=(const HugeRegion &) = delete;
    bool valid() const {
        return base_ != nullptr;
    }
    unsigned char *data() const {
        return base_;
    }
    std::size_t size() const {
        return size_;
    }

  private:
    std::size_t size_;
    unsigned char *base_ = nullptr;
};

inline std::size_t MinUsable() {
    static const std::size_t usable = [] {
        Region control(tlsf_size());
        Region pool(4096);
        tlsf_t h = tlsf_create(control.data());
        void *p = h && tlsf_add_pool(h, pool.data(), pool.size()) ? tlsf_malloc(h, 0) : nullptr;
        return p ? tlsf_block_size(p) : 0;
    }();
    return usable;
}

// ---- Error reports -------------------------------------------------------------------------

struct ErrorEvent {
    tlsf_t heap;
    tlsf_error_t reason;
    const void *ptr;
};

struct ErrorLog {
    std::vector<ErrorEvent> events;
    static void Handler(tlsf_t heap, tlsf_error_t reason, const void *ptr, void *user) {
        static_cast<ErrorLog *>(user)->events.push_back({heap, reason, ptr});
    }
    void Clear() { events.clear(); }
};

// ---- A heap with its pools -----------------------------------------------------------------

struct WalkedBlock {
    void *ptr;
    std::size_t size;
    bool used;
};

inline std::vector<WalkedBlock> Walk(pool_t pool) {
    std::vector<WalkedBlock> out;
    tlsf_walk_pool(
        pool,
        [](void *ptr, std::size_t size, int used, void *user) {
            static_cast<std::vector<WalkedBlock> *>(user)->push_back({ptr, size, used != 0});
        },
        &out);
    return out;
}

inline tlsf_stats_t Stats(tlsf_t heap) {
    tlsf_stats_t s;
    std::memset(&s, 0, sizeof s);
    tlsf_get_stats(heap, &s);
    return s;
}

class Heap {
  public:
    // An empty heap (no pools) with an error log installed.
    Heap() : control_(tlsf_size(), 64) {
        heap_ = tlsf_create(control_.data());
        tlsf_set_error_handler(heap_, &ErrorLog::Handler, &log_);
    }
    // A heap with one pool of `pool_bytes`, whose memory starts `misalign` bytes (a multiple
    // of the heap alignment) past a 64-byte boundary.
    explicit Heap(std::size_t pool_bytes, std::size_t misalign = 0) : Heap() {
        AddPool(pool_bytes, misalign);
    }
    Heap(const Heap &) = delete;
    Heap &operator=(const Heap &) = delete;

    tlsf_t get() const { return heap_; }
    operator tlsf_t() const { return heap_; }
    ErrorLog &log() { return log_; }

    // A pool of `bytes` at `misalign` bytes past a naturally aligned address; `fill` >= 0
    // first fills its memory with that byte.
    pool_t AddPool(std::size_t bytes, std::size_t misalign = 0, int fill = -1) {
        regions_.push_back(std::make_unique<Region>(bytes + misalign));
        if (fill >= 0) regions_.back()->Poison(static_cast<unsigned char>(fill));
        pool_t pool = tlsf_add_pool(heap_, regions_.back()->data() + misalign, bytes);
        if (pool) pools_.push_back(pool);
        return pool;
    }
    void RemovePool(pool_t pool) {
        tlsf_remove_pool(heap_, pool);
        pools_.erase(std::remove(pools_.begin(), pools_.end(), pool), pools_.end());
    }
    const std::vector<pool_t> &pools() const { return pools_; }

    // tlsf_check and tlsf_check_pool of every pool.
    int Errors() const {
        int errors = tlsf_check(heap_);
        for (pool_t p : pools_)
            errors += tlsf_check_pool(p);
        return errors;
    }

  private:
    Region control_;
    tlsf_t heap_;
    ErrorLog log_;
    std::vector<std::unique_ptr<Region>> regions_;
    std::vector<pool_t> pools_;
};

// Everything observable about a heap: its statistics and the blocks of each pool.
struct Snapshot {
    tlsf_stats_t stats;
    std::vector<std::vector<WalkedBlock>> walks;
};

inline Snapshot Take(const Heap &h) {
    Snapshot s;
    s.stats = Stats(h.get());
    for (pool_t p : h.pools())
        s.walks.push_back(Walk(p));
    return s;
}

// The heap is as it was, except possibly failed_count when `ignore_failed`.
inline ::testing::AssertionResult SameHeap(const Snapshot &a, const Snapshot &b,
                                           bool ignore_failed = false) {
#define TLSF_TEST_FIELD(f)                                                                         \
    if (a.stats.f != b.stats.f)                                                                    \
        return ::testing::AssertionFailure()                                                       \
               << "stats." #f " changed: " << a.stats.f << " -> " << b.stats.f;
    TLSF_TEST_FIELD(pool_bytes)
    TLSF_TEST_FIELD(used_bytes)
    TLSF_TEST_FIELD(free_bytes)
    TLSF_TEST_FIELD(peak_used_bytes)
    TLSF_TEST_FIELD(live_blocks)
    TLSF_TEST_FIELD(alloc_count)
    TLSF_TEST_FIELD(free_count)
    TLSF_TEST_FIELD(largest_allocatable)
    TLSF_TEST_FIELD(pool_count)
    if (!ignore_failed) {
        TLSF_TEST_FIELD(failed_count)
    }
#undef TLSF_TEST_FIELD
    if (a.walks.size() != b.walks.size())
        return ::testing::AssertionFailure() << "pool count changed";
    for (std::size_t i = 0; i < a.walks.size(); ++i) {
        if (a.walks[i].size() != b.walks[i].size())
            return ::testing::AssertionFailure() << "pool " << i << ": " << a.walks[i].size()
                                                 << " blocks -> " << b.walks[i].size();
        for (std::size_t j = 0; j < a.walks[i].size(); ++j) {
            const WalkedBlock &x = a.walks[i][j];
            const WalkedBlock &y = b.walks[i][j];
            if (x.ptr != y.ptr || x.size != y.size || x.used != y.used)
                return ::testing::AssertionFailure()
                       << "pool " << i << " block " << j << " changed";
        }
    }
    return ::testing::AssertionSuccess();
}

// tlsf_largest_allocatable is exact: malloc(n) succeeds exactly when this holds (0 means
// that nothing, not even malloc(0), succeeds).
inline bool Fits(std::size_t n, std::size_t largest) {
    return largest != 0 && n <= largest;
}

// Largest-allocatable is exact: malloc(largest) succeeds and malloc(largest + 1) fails
// (0 means no malloc succeeds at all). Leaves the heap with the same free blocks.
inline ::testing::AssertionResult LargestIsExact(tlsf_t heap) {
    std::size_t largest = tlsf_largest_allocatable(heap);
    if (largest > 0) {
        void *p = tlsf_malloc(heap, largest);
        if (!p) return ::testing::AssertionFailure() << "malloc(largest=" << largest << ") failed";
        if (tlsf_block_size(p) < largest)
            return ::testing::AssertionFailure()
                   << "block of " << tlsf_block_size(p) << " for malloc(" << largest << ")";
        tlsf_free(heap, p);
        void *q = tlsf_malloc(heap, largest + 1);
        if (q) {
            tlsf_free(heap, q);
            return ::testing::AssertionFailure()
                   << "malloc(largest+1=" << largest + 1 << ") succeeded";
        }
    } else {
        void *q = tlsf_malloc(heap, 0);
        if (q) {
            tlsf_free(heap, q);
            return ::testing::AssertionFailure() << "largest is 0 but malloc(0) succeeded";
        }
    }
    if (tlsf_largest_allocatable(heap) != largest)
        return ::testing::AssertionFailure() << "largest changed after malloc+free";
    return ::testing::AssertionSuccess();
}

// Allocate until no free block is left (largest_allocatable == 0). Returns the blocks.
inline std::vector<void *> Exhaust(tlsf_t heap) {
    std::vector<void *> out;
    for (std::size_t largest; (largest = tlsf_largest_allocatable(heap)) != 0;) {
        void *p = tlsf_malloc(heap, largest);
        if (!p) break; // reported by the caller's checks (largest must be exact)
        out.push_back(p);
    }
    return out;
}

// Scale factor for long tests: the environment variable TLSF_STRESS_SCALE if set, else the
// build's default (TLSF_TEST_STRESS_SCALE: 1, or less under sanitizers).
#ifndef TLSF_TEST_STRESS_SCALE
#define TLSF_TEST_STRESS_SCALE 1
#endif
inline double StressScale() {
    const char *env = std::getenv("TLSF_STRESS_SCALE");
    double v = (env && *env) ? std::atof(env) : double(TLSF_TEST_STRESS_SCALE);
    return v > 0 ? v : 1.0;
}

// The misuse `call` is reported once, with `reason` and `ptr`, and changes nothing: the
// heap is as before, and its checks find what they found before (nothing, unless the test
// damaged a header on purpose).
inline ::testing::AssertionResult RefusedOnce(Heap &h, tlsf_error_t reason, const void *ptr,
                                              const std::function<void()> &call) {
    const Snapshot before = Take(h);
    const int errors_before = h.Errors();
    h.log().Clear();
    call();
    if (h.log().events.size() != 1)
        return ::testing::AssertionFailure() << h.log().events.size() << " reports";
    const ErrorEvent e = h.log().events[0];
    h.log().Clear();
    if (e.reason != reason)
        return ::testing::AssertionFailure() << "reason " << tlsf_error_string(e.reason)
                                             << ", expected " << tlsf_error_string(reason);
    if (e.ptr != ptr || e.heap != h.get())
        return ::testing::AssertionFailure() << "wrong pointer or heap in the report";
    ::testing::AssertionResult same = SameHeap(before, Take(h));
    if (!same) return same;
    if (h.Errors() != errors_before)
        return ::testing::AssertionFailure() << "the heap checks changed";
    return ::testing::AssertionSuccess();
}

// A copy of `n` bytes at `p`, which may be freed memory: under ASan that is poisoned, so it
// is unpoisoned for the copy and poisoned again.
inline std::vector<unsigned char> Read(const void *p, std::size_t n) {
    std::vector<unsigned char> bytes(n);
#ifdef TLSF_TEST_ASAN
    const bool poisoned = __asan_region_is_poisoned(const_cast<void *>(p), n) != nullptr;
    __asan_unpoison_memory_region(p, n);
#endif
    std::memcpy(bytes.data(), p, n);
#ifdef TLSF_TEST_ASAN
    if (poisoned) __asan_poison_memory_region(p, n);
#endif
    return bytes;
}

// Every byte of [p + from, p + to) is `value` (read as Read does).
inline ::testing::AssertionResult BytesAre(const void *p, std::size_t from, std::size_t to,
                                           unsigned value) {
    if (to < from) return ::testing::AssertionFailure() << "empty range " << from << ".." << to;
    std::vector<unsigned char> bytes = Read(static_cast<const char *>(p) + from, to - from);
    for (std::size_t i = 0; i < bytes.size(); ++i)
        if (bytes[i] != value)
            return ::testing::AssertionFailure() << "byte " << from + i << " is 0x" << std::hex
                                                 << unsigned(bytes[i]) << ", not 0x" << value;
    return ::testing::AssertionSuccess();
}

} // namespace tlsf_test

#endif // TLSF_TEST_SUPPORT_H
