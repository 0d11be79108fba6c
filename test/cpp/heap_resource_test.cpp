// SPDX-License-Identifier: MIT
// tlsf::heap_resource: a pmr resource that owns its heap, grows it from an upstream
// resource and gives the chunks back; and tlsf::allocate_unique.
#include <tlsf/allocate_unique.hpp>
#include <tlsf/containers.hpp>
#include <tlsf/heap_resource.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <map>
#include <memory>
#include <memory_resource>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "test_support.hpp"

namespace {

// An upstream resource that counts what it lends and checks what it gets back.
class counting_upstream final : public std::pmr::memory_resource {
  public:
    std::size_t allocations = 0;
    std::size_t deallocations = 0;
    std::size_t outstanding = 0;
    std::size_t largest = 0;
    std::size_t limit = SIZE_MAX;

  private:
    void *do_allocate(std::size_t bytes, std::size_t align) override {
        if (bytes > limit) throw std::bad_alloc();
        ++allocations;
        outstanding += bytes;
        if (bytes > largest) largest = bytes;
        return std::pmr::new_delete_resource()->allocate(bytes, align);
    }
    void do_deallocate(void *memory, std::size_t bytes, std::size_t align) override {
        ++deallocations;
        outstanding -= bytes;
        std::pmr::new_delete_resource()->deallocate(memory, bytes, align);
    }
    bool do_is_equal(const std::pmr::memory_resource &other) const noexcept override {
        return this == &other;
    }
};

static_assert(!std::is_copy_constructible_v<tlsf::heap_resource>);
static_assert(std::is_base_of_v<std::pmr::memory_resource, tlsf::heap_resource>);

TEST(HeapResource, GrowsFromUpstreamOnlyWhenUsedAndGeometrically) {
    counting_upstream upstream;
    {
        tlsf::heap_resource arena(&upstream);
        EXPECT_EQ(arena.upstream_resource(), &upstream);
        EXPECT_EQ(upstream.allocations, 0u); // nothing before the first allocation
        std::pmr::vector<std::pmr::string> lines(&arena);
        for (int i = 0; i < 20000; ++i)
            lines.emplace_back(100, 'x');
        EXPECT_EQ(arena.upstream_bytes(), upstream.outstanding);
        EXPECT_TRUE(arena.get_heap().contains(lines.back().data()));
        // Doubling: about 2 MiB in use takes a handful of chunks, not one per 64 KiB.
        EXPECT_GT(upstream.outstanding, 2u * 1024 * 1024);
        EXPECT_LE(upstream.allocations, 12u);
        EXPECT_TRUE(arena.get_heap().check());
    }
    EXPECT_EQ(upstream.outstanding, 0u); // every chunk went back with the resource
    EXPECT_EQ(upstream.deallocations, upstream.allocations);
}

TEST(HeapResource, TrimGivesEmptyChunksBackAndReleaseEverything) {
    counting_upstream upstream;
    tlsf::heap_resource arena(&upstream);
    arena.get_heap().set_cache_limit(0);
    {
        std::pmr::vector<std::pmr::vector<char>> chunks(&arena);
        for (int i = 0; i < 40; ++i)
            chunks.emplace_back(std::size_t{32} * 1024, 'c');
    }
    const std::size_t before = upstream.outstanding;
    const std::size_t given = arena.trim();
    EXPECT_GT(given, 0u);
    EXPECT_EQ(upstream.outstanding, before - given);
    EXPECT_EQ(arena.get_heap().stats().pool_count, 1u); // the first chunk stays
    std::pmr::map<int, int> kept(&arena);
    for (int i = 0; i < 1000; ++i)
        kept.emplace(i, i);
    arena.release(); // kept's nodes are gone: forget them before the map is destroyed
    new (&kept) std::pmr::map<int, int>(&arena);
    EXPECT_EQ(upstream.outstanding, 0u);
    EXPECT_EQ(arena.upstream_bytes(), 0u);
    kept.emplace(1, 1); // usable again
    EXPECT_GT(upstream.outstanding, 0u);
}

TEST(HeapResource, MaxBytesCapsTheUpstreamAndFailureIsBadAlloc) {
    counting_upstream upstream;
    tlsf::heap_resource_options options;
    options.max_bytes = 256 * 1024;
    tlsf::heap_resource arena(options, &upstream);
    EXPECT_EQ(arena.options().max_bytes, 256u * 1024u);
    std::pmr::vector<int> grows(&arena);
    EXPECT_THROW(
        {
            for (;;)
                grows.push_back(1);
        },
        std::bad_alloc);
    EXPECT_LE(upstream.outstanding, options.max_bytes);
    EXPECT_GT(grows.size(), 10000u);
    // An upstream that throws is a failed growth, not an exception through the heap.
    counting_upstream stingy;
    stingy.limit = 100 * 1024;
    tlsf::heap_resource small(&stingy);
    EXPECT_THROW((void)small.allocate(200 * 1024), std::bad_alloc);
    void *fits = small.allocate(1000);
    EXPECT_NE(fits, nullptr);
    small.deallocate(fits, 1000);
}

TEST(HeapResource, StartsInABufferAndGrowsPastIt) {
    counting_upstream upstream;
    support::buffer first(64 * 1024);
    {
        tlsf::heap_resource arena(first.data(), first.size(), &upstream);
        void *inside = arena.allocate(1000);
        EXPECT_GE(static_cast<unsigned char *>(inside), first.data());
        EXPECT_LT(static_cast<unsigned char *>(inside), first.data() + first.size());
        EXPECT_EQ(upstream.allocations, 0u);
        void *outside = arena.allocate(200 * 1024);
        EXPECT_EQ(upstream.allocations, 1u);
        arena.deallocate(outside, 200 * 1024);
        arena.deallocate(inside, 1000);
        EXPECT_EQ(arena.trim(), upstream.largest); // the chunk, not the buffer
    }
    // A buffer alone with the null upstream: never grows.
    tlsf::heap_resource fixed(first.data(), first.size(), std::pmr::null_memory_resource());
    EXPECT_THROW((void)fixed.allocate(128 * 1024), std::bad_alloc);
}

TEST(HeapResource, EqualOnlyToItselfAndHonoursAlignment) {
    tlsf::heap_resource a;
    tlsf::heap_resource b;
    EXPECT_TRUE(a == a);
    EXPECT_FALSE(a == b);
    for (std::size_t align :
         {std::size_t{1}, std::size_t{16}, std::size_t{64}, std::size_t{4096}}) {
        void *block = a.allocate(100, align);
        EXPECT_TRUE(support::aligned(block, align)) << align;
        a.deallocate(block, 100, align);
    }
    support::expect_empty(a.get_heap());
}

TEST(HeapResource, DestructionWithLiveBlocksIsReported) {
    if (!support::stats) GTEST_SKIP() << "live blocks are not counted (TLSF_STATS=0)";
    static std::size_t leaked;
    leaked = 0;
    {
        tlsf::heap_resource arena;
        arena.get_heap().set_leak_handler(
            [](const tlsf::heap &, std::size_t blocks, std::size_t, void *) { leaked = blocks; });
        (void)arena.allocate(64);
    }
    EXPECT_EQ(leaked, 1u);
}

// ---- allocate_unique ------------------------------------------------------------------

struct tracked {
    static inline int alive = 0;
    int value;
    explicit tracked(int v) : value(v) { ++alive; }
    tracked() : tracked(0) {}
    ~tracked() { --alive; }
    tracked(const tracked &) = delete;
    tracked &operator=(const tracked &) = delete;
};

struct throws_on_third {
    static inline int built = 0;
    throws_on_third() {
        if (++built == 3) throw std::runtime_error("third");
    }
};

TEST(AllocateUnique, BuildsOnTheHeapAndFreesThere) {
    const auto owner = std::make_unique<tlsf::static_heap<64 * 1024>>();
    tlsf::heap &heap = *owner;
    {
        tlsf::unique_ptr<tracked> one = tlsf::allocate_unique<tracked>(heap, 42);
        EXPECT_EQ(one->value, 42);
        EXPECT_TRUE(heap.contains(one.get()));
        EXPECT_EQ(tracked::alive, 1);
        EXPECT_EQ(&one.get_deleter().get_allocator().get_heap(), &heap);
        auto many = tlsf::allocate_unique<tracked[]>(tlsf::allocator<int>(heap), 5);
        EXPECT_EQ(tracked::alive, 6);
        EXPECT_EQ(many[4].value, 0);
        EXPECT_EQ(many.get_deleter().size(), 5u);
        auto none = tlsf::allocate_unique<int[]>(heap, 0);
        EXPECT_NE(none.get(), nullptr);
        // The heap is handed to an object that takes an allocator.
        auto text = tlsf::allocate_unique<tlsf::string>(heap, std::size_t{100}, 't');
        EXPECT_TRUE(heap.contains(text->data()));
        tlsf::unique_ptr<tracked> moved = std::move(one);
        EXPECT_EQ(moved->value, 42);
    }
    EXPECT_EQ(tracked::alive, 0);
    support::expect_empty(heap);
}

TEST(AllocateUnique, FailuresFreeWhatWasTaken) {
    auto heap = std::make_unique<tlsf::static_heap<64 * 1024>>();
    EXPECT_THROW((void)tlsf::allocate_unique<char[]>(*heap, 1024 * 1024), std::bad_alloc);
    throws_on_third::built = 0;
    EXPECT_THROW((void)tlsf::allocate_unique<throws_on_third[]>(*heap, 5), std::runtime_error);
    throws_on_third::built = 2;
    EXPECT_THROW((void)tlsf::allocate_unique<throws_on_third>(*heap), std::runtime_error);
    support::expect_empty(*heap);
}

} // namespace
