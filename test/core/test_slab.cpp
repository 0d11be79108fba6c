// SPDX-License-Identifier: MIT
// Slabs (TLSF_SLABS, tlsf_slabs_enable): the switch and its argument rules; small requests
// cut as objects of one span from blocks aligned to the slab size; objects behave as blocks
// to every other call (usable size, realloc, the walk, the statistics, the misuse checks);
// empty slabs go back to the lists (at the last free of a slab that is not current, at a
// flush for the current ones, at once when slabs are switched off); a heap with no room for
// a slab still serves small requests from the lists; a randomized run against a model.
#include "tlsf_test_support.h"

#include <functional>
#include <set>

using namespace tlsf_test;

namespace {

constexpr std::size_t kPool = 256 * 1024;
constexpr std::size_t kSlab = 4096;
constexpr bool kSlabs = TLSF_SLABS != 0;

// The largest request a slab serves (tlsf.h: 248 bytes on 64-bit by default).
std::size_t MaxObjectRequest() {
    return TLSF_SLAB_REQUEST_MAX;
}

// The span of the object malloc(bytes) gets: the request and its header word, aligned, at
// least the smallest block's (the exact classes: no rounding to a class).
std::size_t ObjectSpan(std::size_t bytes) {
    return AlignUp(bytes + Word(), Align()); // at least Align(): a tag and one link word
}

// The start of the slab that would hold `p`: its address masked by the slab size.
std::uintptr_t SlabBase(const void *p, std::size_t slab_bytes = kSlab) {
    return Addr(p) & ~static_cast<std::uintptr_t>(slab_bytes - 1);
}

const WalkedBlock *Find(const std::vector<WalkedBlock> &walk, const void *p) {
    for (const WalkedBlock &b : walk)
        if (b.ptr == p) return &b;
    return nullptr;
}

// Whether the walk shows `p` as an object of a slab: a slab is reported as its unused part
// (free, at its start, which is aligned to the slab size) and its objects (tlsf.h,
// tlsf_walk_pool). An ordinary block has no such entry at its masked address in these tests.
bool InSlab(const std::vector<WalkedBlock> &walk, const void *p, std::size_t slab_bytes = kSlab) {
    const std::uintptr_t base = SlabBase(p, slab_bytes);
    bool state = false;
    for (const WalkedBlock &b : walk)
        state = state || (Addr(b.ptr) == base && !b.used && b.ptr != p);
    return state && Find(walk, p) != nullptr && Addr(p) > base;
}
bool InSlab(pool_t pool, const void *p, std::size_t slab_bytes = kSlab) {
    return InSlab(Walk(pool), p, slab_bytes);
}

// Some free block of the walk covers [from, from + bytes).
bool FreeBlockCovers(pool_t pool, std::uintptr_t from, std::size_t bytes) {
    for (const WalkedBlock &b : Walk(pool))
        if (!b.used && Addr(b.ptr) <= from && from + bytes <= Addr(b.ptr) + b.size) return true;
    return false;
}

// No block in use lies in [from, from + bytes).
bool NothingUsedIn(pool_t pool, std::uintptr_t from, std::size_t bytes) {
    for (const WalkedBlock &b : Walk(pool))
        if (b.used && Addr(b.ptr) >= from && Addr(b.ptr) < from + bytes) return false;
    return true;
}

// The pool of `bytes` is one free block again (everything freed, flushed, merged).
::testing::AssertionResult OneFreeBlock(pool_t pool, std::size_t bytes) {
    const std::vector<WalkedBlock> walk = Walk(pool);
    if (walk.size() != 1)
        return ::testing::AssertionFailure() << walk.size() << " blocks, expected one";
    if (walk[0].used) return ::testing::AssertionFailure() << "the only block is in use";
    if (walk[0].size + Word() != PoolSpan(bytes))
        return ::testing::AssertionFailure() << "one free block of " << walk[0].size + Word()
                                             << " bytes, not the pool's " << PoolSpan(bytes);
    return ::testing::AssertionSuccess();
}

// Frees every pointer of `ptrs`, flushes the cache (the empty slabs go back): the first
// pool of `pool_bytes` is one free block again, and nothing was reported.
::testing::AssertionResult FreedToOneBlock(Heap &h, const std::vector<void *> &ptrs,
                                           std::size_t pool_bytes) {
    for (void *p : ptrs)
        tlsf_free(h, p);
    tlsf_cache_flush(h);
    ::testing::AssertionResult one = OneFreeBlock(h.pools()[0], pool_bytes);
    if (!one) return one;
    if (!h.log().events.empty())
        return ::testing::AssertionFailure() << h.log().events.size() << " reports";
    return ::testing::AssertionSuccess();
}

// The blocks of the walk are in address order and do not overlap.
::testing::AssertionResult InAddressOrder(const std::vector<WalkedBlock> &walk) {
    for (std::size_t i = 1; i < walk.size(); ++i)
        if (Addr(walk[i - 1].ptr) + walk[i - 1].size + Word() > Addr(walk[i].ptr))
            return ::testing::AssertionFailure() << "block " << i << " overlaps the one before";
    return ::testing::AssertionSuccess();
}

// free, realloc and tlsf_usable_size all refuse `ptr` for `reason`.
::testing::AssertionResult AllRefuse(Heap &h, tlsf_error_t reason, void *ptr) {
    ::testing::AssertionResult r = RefusedOnce(h, reason, ptr, [&] { tlsf_free(h, ptr); });
    if (!r) return r << " (free)";
    r = RefusedOnce(h, reason, ptr, [&] {
        if (tlsf_realloc(h, ptr, 10) != nullptr) ADD_FAILURE() << "realloc returned a block";
    });
    if (!r) return r << " (realloc)";
    r = RefusedOnce(h, reason, ptr, [&] {
        if (tlsf_usable_size(h, ptr) != 0) ADD_FAILURE() << "usable size of a bad pointer";
    });
    if (!r) return r << " (usable_size)";
    return ::testing::AssertionSuccess();
}

// Objects of malloc(bytes) until one lands in another slab than the first: returns the
// first slab's objects, in allocation order; *next gets the first object of the next slab.
std::vector<void *> FillOneSlab(tlsf_t h, std::size_t bytes, void **next,
                                std::size_t slab_bytes = kSlab) {
    std::vector<void *> objects;
    *next = nullptr;
    for (int i = 0; i < 100000; ++i) {
        void *p = tlsf_malloc(h, bytes);
        if (p == nullptr) break;
        if (!objects.empty() && SlabBase(p, slab_bytes) != SlabBase(objects[0], slab_bytes)) {
            *next = p;
            break;
        }
        objects.push_back(p);
    }
    return objects;
}

// Objects of malloc(bytes) filling one slab (*first, in allocation order), then `more` of
// the next slab (*second, its first object first; as many as the first slab holds if
// `more` is 0): fails unless both slabs are found and the first holds more than 10.
::testing::AssertionResult FillSlabAndNext(tlsf_t h, std::size_t bytes, std::size_t more,
                                           std::vector<void *> *first,
                                           std::vector<void *> *second) {
    void *next = nullptr;
    *first = FillOneSlab(h, bytes, &next);
    if (next == nullptr) return ::testing::AssertionFailure() << "no second slab";
    if (first->size() <= 10u)
        return ::testing::AssertionFailure() << "a slab of " << first->size() << " objects";
    *second = {next};
    const std::size_t want = more != 0 ? more : first->size();
    while (second->size() < want) {
        second->push_back(tlsf_malloc(h, bytes));
        if (SlabBase(second->back()) != SlabBase(next))
            return ::testing::AssertionFailure() << "object " << second->size() << " elsewhere";
    }
    return ::testing::AssertionSuccess();
}
// The front cache's budgets the tests run with: the default and none. The cache keeps no
// object (slabs serve their spans first), so both must behave alike.
const std::size_t kBudgets[] = {std::size_t{TLSF_CACHE_BYTES}, std::size_t{0}};

} // namespace

// ---- The switch ---------------------------------------------------------------------------

TEST(Slab, WithoutSlabsOnlyZeroIsAccepted) {
    if (kSlabs) GTEST_SKIP() << "TLSF_SLABS == 1";
    Heap h(kPool);
    EXPECT_EQ(tlsf_slabs_enable(h, 4096), -1);
    EXPECT_EQ(tlsf_slabs_enable(h, 65536), -1);
    EXPECT_EQ(tlsf_slabs_enable(h, 0), 0);
    EXPECT_EQ(tlsf_slabs_enable(nullptr, 4096), -1);
    EXPECT_EQ(tlsf_slabs_size(h), 0u);
    EXPECT_EQ(tlsf_slabs_size(nullptr), 0u);
    void *p = tlsf_malloc(h, 24); // an ordinary block
    ASSERT_NE(p, nullptr);
    EXPECT_GE(tlsf_usable_size(h, p), 24u);
    tlsf_free(h, p);
    EXPECT_EQ(h.Errors(), 0);
    EXPECT_TRUE(h.log().events.empty());
}

// Switching slabs on flushes the front cache: a block of a slab's span it kept would
// otherwise wait there, since requests of that span now take objects first. The cached
// block merges back at once (the pool is one free block again without a flush of its own),
// and the next request of its size gets an object.
TEST(Slab, SwitchingOnFlushesTheCache) {
    if (!kSlabs) GTEST_SKIP() << "TLSF_SLABS == 0";
    Heap h(kPool);
    void *block = tlsf_malloc(h, 24); // an ordinary block, which the cache keeps once freed
    ASSERT_NE(block, nullptr);
    tlsf_free(h, block);
    pool_t pool = h.pools()[0];
    ASSERT_FALSE(OneFreeBlock(pool, kPool)) << "the cache did not keep the block";
    ASSERT_EQ(tlsf_slabs_enable(h, kSlab), 0);
    EXPECT_TRUE(OneFreeBlock(pool, kPool));
    void *object = tlsf_malloc(h, 24);
    ASSERT_NE(object, nullptr);
    EXPECT_TRUE(InSlab(pool, object));
    tlsf_free(h, object);
    EXPECT_EQ(h.Errors(), 0);
    EXPECT_TRUE(h.log().events.empty());
}

TEST(Slab, EnableAcceptsOnlyPowersOfTwoFrom4KiBTo64KiB) {
    if (!kSlabs) GTEST_SKIP() << "TLSF_SLABS == 0";
    Heap h(kPool);
    EXPECT_EQ(tlsf_slabs_enable(nullptr, 4096), -1);
    EXPECT_EQ(tlsf_slabs_enable(nullptr, 0), -1);
    EXPECT_EQ(tlsf_slabs_size(nullptr), 0u);
    EXPECT_EQ(tlsf_slabs_size(h), 0u); // a new heap has no slabs
    EXPECT_EQ(tlsf_slabs_enable(h, 0), 0);
    EXPECT_EQ(tlsf_slabs_size(h), 0u);
    for (std::size_t bad :
         {std::size_t{1}, std::size_t{16}, std::size_t{2048}, std::size_t{4095}, std::size_t{4097},
          std::size_t{6144}, std::size_t{12288}, std::size_t{65535}, std::size_t{65537},
          std::size_t{131072}, std::size_t(-1)}) {
        EXPECT_EQ(tlsf_slabs_enable(h, bad), -1) << bad;
        EXPECT_EQ(tlsf_slabs_size(h), 0u) << bad;
    }
    for (std::size_t good : {std::size_t{4096}, std::size_t{8192}, std::size_t{16384},
                             std::size_t{32768}, std::size_t{65536}}) {
        EXPECT_EQ(tlsf_slabs_enable(h, good), 0) << good;
        EXPECT_EQ(tlsf_slabs_size(h), good) << good;
        EXPECT_EQ(tlsf_slabs_enable(h, 3 * good / 2), -1) << good; // refused: no change
        EXPECT_EQ(tlsf_slabs_size(h), good) << good;
    }
    EXPECT_EQ(tlsf_slabs_enable(h, 0), 0);
    EXPECT_EQ(tlsf_slabs_size(h), 0u);
    EXPECT_EQ(h.Errors(), 0);
}

// The slab size finds an object's slab by masking, so it cannot change while a slab exists
// (an empty current slab too, until a flush gives it back); the same size is accepted.
TEST(Slab, TheSizeIsFixedWhileTheHeapHoldsASlab) {
    if (!kSlabs) GTEST_SKIP() << "TLSF_SLABS == 0";
    Heap h(kPool);
    ASSERT_EQ(tlsf_slabs_enable(h, 4096), 0);
    void *p = tlsf_malloc(h, 24);
    ASSERT_NE(p, nullptr);
    ASSERT_TRUE(InSlab(h.pools()[0], p, 4096));
    EXPECT_EQ(tlsf_slabs_enable(h, 16384), -1);
    EXPECT_EQ(tlsf_slabs_size(h), 4096u);
    EXPECT_EQ(tlsf_slabs_enable(h, 4096), 0);
    EXPECT_EQ(tlsf_slabs_size(h), 4096u);
    // Switched off with an object live: the slab stays, so the size still cannot change.
    EXPECT_EQ(tlsf_slabs_enable(h, 0), 0);
    EXPECT_EQ(tlsf_slabs_enable(h, 16384), -1);
    EXPECT_EQ(tlsf_slabs_enable(h, 4096), 0);
    tlsf_free(h, p);
    EXPECT_EQ(tlsf_slabs_enable(h, 16384), -1); // the slab is kept until a flush
    EXPECT_EQ(tlsf_slabs_size(h), 4096u);
    tlsf_cache_flush(h); // the empty slab goes back
    EXPECT_TRUE(OneFreeBlock(h.pools()[0], kPool));
    EXPECT_EQ(tlsf_slabs_enable(h, 16384), 0);
    EXPECT_EQ(tlsf_slabs_size(h), 16384u);
    // The new size is in force: a slab holds more than 16384 / 2 bytes of objects.
    void *next = nullptr;
    std::vector<void *> objects = FillOneSlab(h, 24, &next, 16384);
    ASSERT_NE(next, nullptr);
    EXPECT_LE(objects.size() * ObjectSpan(24), 16384u);
    EXPECT_GT(objects.size() * ObjectSpan(24), 16384u / 2);
    for (void *o : objects)
        EXPECT_EQ(SlabBase(o, 16384), SlabBase(objects[0], 16384));
    EXPECT_EQ(h.Errors(), 0);
    for (void *o : objects)
        tlsf_free(h, o);
    tlsf_free(h, next);
    tlsf_cache_flush(h);
    EXPECT_TRUE(OneFreeBlock(h.pools()[0], kPool));
    EXPECT_TRUE(h.log().events.empty());
}

// ---- Objects ------------------------------------------------------------------------------

// Consecutive small requests of one size share a slab, one span apart; each object is
// aligned and offers exactly its span less the header word, whatever the request within
// the span; every size up to MaxObjectRequest() is served this way.
TEST(Slab, ObjectsOfOneSizeShareASlabOneSpanApart) {
    if (!kSlabs) GTEST_SKIP() << "TLSF_SLABS == 0";
    for (std::size_t bytes = 0; bytes <= MaxObjectRequest(); ++bytes) {
        Heap h(kPool);
        ASSERT_EQ(tlsf_slabs_enable(h, kSlab), 0);
        const std::size_t span = ObjectSpan(bytes);
        std::vector<void *> objects;
        for (int i = 0; i < 8; ++i)
            objects.push_back(tlsf_malloc(h, bytes));
        for (std::size_t i = 0; i < objects.size(); ++i) {
            void *p = objects[i];
            ASSERT_NE(p, nullptr) << bytes;
            EXPECT_TRUE(IsAligned(p, Align())) << bytes;
            EXPECT_EQ(SlabBase(p), SlabBase(objects[0])) << bytes << " object " << i;
            EXPECT_EQ(tlsf_usable_size(h, p), span - Word()) << bytes;
            EXPECT_EQ(tlsf_block_size(p), span - Word()) << bytes;
            EXPECT_GE(tlsf_usable_size(h, p), bytes);
            EXPECT_GT(Addr(p), SlabBase(p)) << bytes; // the slab's state comes first
            if (i > 0) {
                const std::uintptr_t a = Addr(objects[i - 1]), b = Addr(p);
                EXPECT_EQ(a > b ? a - b : b - a, span) << bytes << " object " << i;
            }
        }
        EXPECT_TRUE(InSlab(h.pools()[0], objects[0])) << bytes << " bytes: not from a slab";
        EXPECT_EQ(h.Errors(), 0) << bytes;
        for (void *p : objects)
            tlsf_free(h, p);
        EXPECT_TRUE(h.log().events.empty()) << bytes;
    }
}

// Each span has slabs of its own; requests that round to the same span share one.
TEST(Slab, EachSpanHasItsOwnSlab) {
    if (!kSlabs) GTEST_SKIP() << "TLSF_SLABS == 0";
    Heap h(kPool);
    ASSERT_EQ(tlsf_slabs_enable(h, kSlab), 0);
    std::map<std::size_t, void *> first; // span -> its first object
    std::vector<void *> all;
    for (std::size_t bytes = 1; bytes <= MaxObjectRequest(); bytes += 7) {
        void *p = tlsf_malloc(h, bytes);
        ASSERT_NE(p, nullptr) << bytes;
        all.push_back(p);
        const std::size_t span = ObjectSpan(bytes);
        auto it = first.find(span);
        if (it == first.end())
            first[span] = p;
        else
            EXPECT_EQ(SlabBase(p), SlabBase(it->second)) << bytes;
    }
    std::set<std::uintptr_t> bases;
    for (const auto &entry : first)
        bases.insert(SlabBase(entry.second));
    EXPECT_EQ(bases.size(), first.size()); // one slab per span
    EXPECT_EQ(h.Errors(), 0);
    for (void *p : all)
        tlsf_free(h, p);
    tlsf_cache_flush(h);
    EXPECT_TRUE(OneFreeBlock(h.pools()[0], kPool));
}

// Every object's usable bytes are its own: filling each one completely, through many
// mallocs and frees of several sizes, never changes another's contents or the heap.
TEST(Slab, WritingTheWholeUsableSizeLeavesTheNeighboursIntact) {
    if (!kSlabs) GTEST_SKIP() << "TLSF_SLABS == 0";
    Heap h(kPool);
    ASSERT_EQ(tlsf_slabs_enable(h, kSlab), 0);
    struct Live {
        void *p;
        std::size_t usable;
        std::uint64_t seed;
    };
    std::vector<Live> live;
    const std::size_t sizes[] = {1, 24, 40, 56, 100, 120, 200, MaxObjectRequest()};
    std::uint64_t seed = 1;
    for (int round = 0; round < 6; ++round) {
        for (int i = 0; i < 300; ++i) {
            const std::size_t bytes = sizes[static_cast<std::size_t>(i) % 8];
            void *p = tlsf_malloc(h, bytes);
            ASSERT_NE(p, nullptr);
            const std::size_t usable = tlsf_usable_size(h, p);
            ASSERT_GE(usable, bytes);
            Fill(p, usable, seed);
            live.push_back({p, usable, seed++});
        }
        // Free every third (from a different start each round), checking it first.
        std::vector<Live> kept;
        for (std::size_t i = 0; i < live.size(); ++i) {
            if ((i + static_cast<std::size_t>(round)) % 3 == 0) {
                ASSERT_TRUE(Holds(live[i].p, live[i].usable, live[i].seed)) << i;
                tlsf_free(h, live[i].p);
            } else {
                kept.push_back(live[i]);
            }
        }
        live.swap(kept);
        for (const Live &l : live)
            ASSERT_TRUE(Holds(l.p, l.usable, l.seed)) << "round " << round;
        ASSERT_EQ(tlsf_check(h), 0);
        ASSERT_EQ(tlsf_check_pool(h.pools()[0]), 0);
    }
    for (const Live &l : live) {
        EXPECT_TRUE(Holds(l.p, l.usable, l.seed));
        tlsf_free(h, l.p);
    }
    EXPECT_TRUE(h.log().events.empty());
    tlsf_cache_flush(h);
    EXPECT_TRUE(OneFreeBlock(h.pools()[0], kPool));
}

// Requests above MaxObjectRequest() bytes and alignments above tlsf_align_size() get ordinary
// blocks; memalign with an alignment the heap gives anyway behaves as malloc (an object), and so
// does calloc (zeroed).
TEST(Slab, LargeAndOverAlignedRequestsGetOrdinaryBlocks) {
    if (!kSlabs) GTEST_SKIP() << "TLSF_SLABS == 0";
    for (std::size_t bytes : {MaxObjectRequest() + 1, std::size_t{300}, std::size_t{1000}}) {
        Heap h(kPool);
        ASSERT_EQ(tlsf_slabs_enable(h, kSlab), 0);
        void *p = tlsf_malloc(h, bytes);
        ASSERT_NE(p, nullptr);
        EXPECT_FALSE(InSlab(h.pools()[0], p)) << bytes;
        EXPECT_EQ(Walk(h.pools()[0]).size(), 2u) << bytes; // the block and the pool's rest
        tlsf_free(h, p);
    }
    for (std::size_t align = 2 * Align(); align <= 1024; align *= 2) {
        Heap h(kPool);
        ASSERT_EQ(tlsf_slabs_enable(h, kSlab), 0);
        void *p = tlsf_memalign(h, align, 24);
        void *q = tlsf_aligned_alloc(h, align, 24);
        ASSERT_TRUE(p && q) << align;
        EXPECT_TRUE(IsAligned(p, align) && IsAligned(q, align)) << align;
        EXPECT_FALSE(InSlab(h.pools()[0], p)) << align;
        EXPECT_FALSE(InSlab(h.pools()[0], q)) << align;
        tlsf_free(h, p);
        tlsf_free(h, q);
        EXPECT_EQ(h.Errors(), 0);
    }
    Heap h(kPool);
    ASSERT_EQ(tlsf_slabs_enable(h, kSlab), 0);
    void *m = tlsf_malloc(h, 24);
    ASSERT_NE(m, nullptr);
    ASSERT_TRUE(InSlab(h.pools()[0], m));
    Fill(m, 24, 5);
    tlsf_free(h, m); // dirty: calloc must zero it
    std::vector<void *> objects;
    for (std::size_t align = 1; align <= Align(); align *= 2) {
        void *p = tlsf_memalign(h, align, 24);
        ASSERT_NE(p, nullptr) << align;
        EXPECT_EQ(SlabBase(p), SlabBase(m)) << align;
        objects.push_back(p);
    }
    void *z = tlsf_calloc(h, 3, 8);
    ASSERT_NE(z, nullptr);
    EXPECT_EQ(SlabBase(z), SlabBase(m));
    EXPECT_TRUE(AllBytes(z, 24, 0));
    objects.push_back(z);
    for (void *p : objects)
        EXPECT_TRUE(InSlab(h.pools()[0], p));
    for (void *p : objects)
        tlsf_free(h, p);
    EXPECT_EQ(h.Errors(), 0);
    EXPECT_TRUE(h.log().events.empty());
}

// A freed object is the first one handed out again (LIFO), the most recent first, whether
// the front cache keeps it or its slab's free list.
TEST(Slab, AFreedObjectIsHandedOutAgainFirst) {
    if (!kSlabs) GTEST_SKIP() << "TLSF_SLABS == 0";
    for (std::size_t budget : kBudgets) {
        SCOPED_TRACE("cache budget " + std::to_string(budget));
        Heap h(kPool);
        ASSERT_EQ(tlsf_cache_set_limit(h, budget), budget);
        ASSERT_EQ(tlsf_slabs_enable(h, kSlab), 0);
        void *a = tlsf_malloc(h, 24);
        void *b = tlsf_malloc(h, 24);
        void *c = tlsf_malloc(h, 24);
        ASSERT_TRUE(a && b && c);
        tlsf_free(h, b);
        EXPECT_EQ(tlsf_malloc(h, 24), b);
        tlsf_free(h, c);
        EXPECT_EQ(tlsf_malloc(h, 17), c); // a request of the same span gets it too
        tlsf_free(h, a);
        tlsf_free(h, b);
        EXPECT_EQ(tlsf_malloc(h, 24), b);
        EXPECT_EQ(tlsf_malloc(h, 24), a);
        // Flushed to the slab's free list, they are its first objects again.
        tlsf_free(h, a);
        tlsf_free(h, b);
        tlsf_cache_flush(h); // c keeps the slab
        const std::set<void *> again = {tlsf_malloc(h, 24), tlsf_malloc(h, 24)};
        EXPECT_EQ(again, (std::set<void *>{a, b}));
        EXPECT_EQ(h.Errors(), 0);
        tlsf_free(h, a);
        tlsf_free(h, b);
        tlsf_free(h, c);
        EXPECT_TRUE(h.log().events.empty());
    }
}

// ---- Statistics and giving slabs back -----------------------------------------------------

// used_bytes grows by each object's span (not by the slab's size) and live_blocks by one;
// once everything is freed and flushed, the statistics are as at the start and the pool is
// one free block again: the empty slabs went back to the lists. The flush changes no
// statistic.
TEST(Slab, StatisticsCountObjectsAndEmptySlabsGoBack) {
    if (!kSlabs) GTEST_SKIP() << "TLSF_SLABS == 0";
    for (std::size_t budget : kBudgets) {
        SCOPED_TRACE("cache budget " + std::to_string(budget));
        Heap h(kPool);
        ASSERT_EQ(tlsf_cache_set_limit(h, budget), budget);
        ASSERT_EQ(tlsf_slabs_enable(h, kSlab), 0);
        const tlsf_stats_t start = Stats(h);
        std::vector<void *> objects;
        std::size_t used = start.used_bytes;
        for (int i = 0; i < 40; ++i) {
            const std::size_t bytes = i % 2 ? 24 : 100;
            void *p = tlsf_malloc(h, bytes);
            ASSERT_NE(p, nullptr);
            objects.push_back(p);
            used += ObjectSpan(bytes);
            if (TLSF_STATS) {
                const tlsf_stats_t s = Stats(h);
                EXPECT_EQ(s.used_bytes, used) << i;
                EXPECT_EQ(s.free_bytes, s.pool_bytes - used) << i;
                EXPECT_EQ(s.live_blocks, static_cast<std::size_t>(i + 1)) << i;
                EXPECT_EQ(s.alloc_count, start.alloc_count + static_cast<std::size_t>(i + 1)) << i;
                EXPECT_EQ(s.peak_used_bytes, used) << i;
            }
        }
        EXPECT_EQ(Stats(h).pool_bytes, start.pool_bytes);
        for (void *p : objects)
            tlsf_free(h, p);
        const tlsf_stats_t freed = Stats(h);
        if (TLSF_STATS) {
            EXPECT_EQ(freed.used_bytes, start.used_bytes);
            EXPECT_EQ(freed.live_blocks, 0u);
            EXPECT_EQ(freed.free_count, start.free_count + objects.size());
        }
        tlsf_cache_flush(h);
        const tlsf_stats_t flushed = Stats(h);
        EXPECT_EQ(flushed.used_bytes, freed.used_bytes);
        EXPECT_EQ(flushed.free_bytes, freed.free_bytes);
        EXPECT_EQ(flushed.live_blocks, freed.live_blocks);
        EXPECT_TRUE(OneFreeBlock(h.pools()[0], kPool));
        EXPECT_EQ(tlsf_largest_allocatable(h), SizeClasses().LargestFor(PoolSpan(kPool)));
        EXPECT_EQ(h.Errors(), 0);
        EXPECT_TRUE(h.log().events.empty());
    }
}

// tlsf_get_stats's largest_allocatable leaves the heap as it is; with the cache's budget
// at 0 the cache is always empty, but an empty slab kept as its span's current one is memory
// that only a flush (tlsf_largest_allocatable's, or a malloc's drain) gives back: below the
// exact answer while that slab is held, equal to it once it went back (tlsf.h).
TEST(Slab, StatsLargestAllocatableIsBelowTheExactOneOnlyWhileASlabIsEmpty) {
    if (!kSlabs) GTEST_SKIP() << "TLSF_SLABS == 0";
    Heap h(kPool);
    ASSERT_EQ(tlsf_cache_set_limit(h, 0), 0u);
    ASSERT_EQ(tlsf_slabs_enable(h, kSlab), 0);
    void *p = tlsf_malloc(h, 24);
    ASSERT_NE(p, nullptr);
    tlsf_free(h, p); // to its slab, which stays current and empty: the cache stays empty
    // The statistics change nothing: the empty slab is still out of the lists...
    const tlsf_stats_t held = Stats(h);
    // ...and the exact answer gives it back first (tlsf.h).
    const std::size_t exact = tlsf_largest_allocatable(h);
    EXPECT_LE(held.largest_allocatable, exact); // (equal where the class bounds are coarse)
    const tlsf_stats_t s = Stats(h);
    EXPECT_EQ(s.largest_allocatable, exact);
    EXPECT_TRUE(LargestIsExact(h));
    EXPECT_TRUE(OneFreeBlock(h.pools()[0], kPool));
    EXPECT_EQ(h.Errors(), 0);
}

// A slab that is not the current one of its span goes back to the lists at its last free,
// without a flush: its memory is one free block with its neighbours again, whatever the
// front cache's budget (it keeps no object).
TEST(Slab, AnEmptiedSlabThatIsNotCurrentGoesBackAtOnce) {
    if (!kSlabs) GTEST_SKIP() << "TLSF_SLABS == 0";
    for (std::size_t budget : kBudgets) {
        SCOPED_TRACE("cache budget " + std::to_string(budget));
        Heap h(kPool);
        ASSERT_EQ(tlsf_cache_set_limit(h, budget), budget);
        ASSERT_EQ(tlsf_slabs_enable(h, kSlab), 0);
        std::vector<void *> first, second;
        ASSERT_TRUE(FillSlabAndNext(h, 24, 10, &first, &second));
        void *next = second[0];
        const std::uintptr_t base = SlabBase(first[0]);
        const tlsf_stats_t before = Stats(h);
        // Freed from the middle out, so that the slab is listed as partial first.
        for (std::size_t i = first.size() / 2; i < first.size(); ++i)
            tlsf_free(h, first[i]);
        ASSERT_TRUE(InSlab(h.pools()[0], first[0])); // some objects still live
        for (std::size_t i = 0; i < first.size() / 2; ++i)
            tlsf_free(h, first[i]);
        if (TLSF_STATS) {
            EXPECT_EQ(Stats(h).used_bytes, before.used_bytes - first.size() * ObjectSpan(24));
            EXPECT_EQ(Stats(h).live_blocks, second.size());
        }
        pool_t pool = h.pools()[0];
        EXPECT_TRUE(FreeBlockCovers(pool, base, kSlab - 2 * Word())) << "the slab is still there";
        EXPECT_TRUE(NothingUsedIn(pool, base, kSlab));
        EXPECT_TRUE(InSlab(pool, next)); // the current slab stays
        EXPECT_EQ(h.Errors(), 0);
        for (void *p : second)
            tlsf_free(h, p);
        tlsf_cache_flush(h);
        EXPECT_TRUE(OneFreeBlock(pool, kPool));
        EXPECT_TRUE(h.log().events.empty());
    }
}

// When the current slab is full, a slab with a freed object is made current before a new
// one is cut: memory freed in any slab of a span serves that span again, whatever the front
// cache's budget (a free reaches the slab).
TEST(Slab, AFreedObjectOfAFullSlabIsUsedBeforeANewSlab) {
    if (!kSlabs) GTEST_SKIP() << "TLSF_SLABS == 0";
    for (std::size_t budget : kBudgets) {
        SCOPED_TRACE("cache budget " + std::to_string(budget));
        Heap h(kPool);
        ASSERT_EQ(tlsf_cache_set_limit(h, budget), budget);
        ASSERT_EQ(tlsf_slabs_enable(h, kSlab), 0);
        std::vector<void *> first, second; // slabs of one span hold as many objects
        ASSERT_TRUE(FillSlabAndNext(h, 40, 0, &first, &second));
        void *next = second[0];
        void *hole = first[5];
        tlsf_free(h, hole);
        EXPECT_EQ(tlsf_malloc(h, 40), hole);
        void *third = tlsf_malloc(h, 40); // both full now: a new slab
        ASSERT_NE(third, nullptr);
        EXPECT_NE(SlabBase(third), SlabBase(first[0]));
        EXPECT_NE(SlabBase(third), SlabBase(next));
        EXPECT_EQ(h.Errors(), 0);
        std::vector<void *> all = first;
        all.insert(all.end(), second.begin(), second.end());
        all.push_back(third);
        EXPECT_TRUE(FreedToOneBlock(h, all, kPool));
    }
}

// ---- The walk ------------------------------------------------------------------------------

// The walk reports each object handed out at the pointer malloc returned, with its usable
// size, in use while live and free once freed, in address order; the blocks it reports in
// use are exactly the live ones.
TEST(Slab, TheWalkReportsEachObjectHandedOut) {
    if (!kSlabs) GTEST_SKIP() << "TLSF_SLABS == 0";
    Heap h(kPool);
    ASSERT_EQ(tlsf_slabs_enable(h, kSlab), 0);
    const std::size_t sizes[] = {24, 24,  24, 100, 100, 200, 24, MaxObjectRequest(),
                                 1,  100, 24, 3000};
    std::vector<void *> objects;
    std::vector<std::size_t> usable;
    for (std::size_t bytes : sizes) {
        objects.push_back(tlsf_malloc(h, bytes));
        ASSERT_NE(objects.back(), nullptr);
        usable.push_back(tlsf_usable_size(h, objects.back()));
    }
    std::vector<bool> live(objects.size(), true);
    for (std::size_t i : {1u, 4u, 6u}) {
        tlsf_free(h, objects[i]);
        live[i] = false;
    }
    const std::vector<WalkedBlock> walk = Walk(h.pools()[0]);
    EXPECT_TRUE(InAddressOrder(walk));
    for (std::size_t i = 0; i < objects.size(); ++i) {
        const WalkedBlock *b = Find(walk, objects[i]);
        ASSERT_NE(b, nullptr) << "object " << i << " not reported";
        EXPECT_EQ(b->size, usable[i]) << i;
        EXPECT_EQ(b->used, live[i]) << i;
    }
    std::size_t used = 0;
    for (const WalkedBlock &b : walk) {
        if (!b.used) continue;
        ++used;
        auto it = std::find(objects.begin(), objects.end(), b.ptr);
        ASSERT_NE(it, objects.end()) << "a block in use that malloc did not return";
        EXPECT_TRUE(live[static_cast<std::size_t>(it - objects.begin())]);
    }
    EXPECT_EQ(used, static_cast<std::size_t>(std::count(live.begin(), live.end(), true)));
    // A walk changes nothing: the freed objects are handed out again, most recent first.
    EXPECT_EQ(tlsf_malloc(h, 24), objects[6]);
    EXPECT_EQ(tlsf_malloc(h, 24), objects[1]);
    EXPECT_EQ(tlsf_malloc(h, 100), objects[4]);
    EXPECT_EQ(h.Errors(), 0);
    EXPECT_TRUE(FreedToOneBlock(h, objects, kPool));
}

// ---- The checks --------------------------------------------------------------------------

// tlsf_check and tlsf_check_pool find nothing wrong with a heap whose slabs hold freed
// objects: cached ones (the default budget), ones on their slabs' free lists (no budget,
// or after a flush moved them there), and a slab's never handed out ones.
TEST(Slab, TheChecksAcceptFreedObjects) {
    if (!kSlabs) GTEST_SKIP() << "TLSF_SLABS == 0";
    for (std::size_t budget : kBudgets) {
        SCOPED_TRACE("cache budget " + std::to_string(budget));
        Heap h(kPool);
        ASSERT_EQ(tlsf_cache_set_limit(h, budget), budget);
        ASSERT_EQ(tlsf_slabs_enable(h, kSlab), 0);
        EXPECT_EQ(h.Errors(), 0); // no slab
        std::vector<void *> objects;
        for (int i = 0; i < 12; ++i)
            objects.push_back(tlsf_malloc(h, i % 3 == 0   ? 24
                                             : i % 3 == 1 ? 100
                                                          : MaxObjectRequest()));
        EXPECT_EQ(tlsf_check(h), 0);
        EXPECT_EQ(tlsf_check_pool(h.pools()[0]), 0); // objects in use, fresh ones
        for (std::size_t i = 0; i < objects.size(); i += 2)
            tlsf_free(h, objects[i]);
        EXPECT_EQ(tlsf_check(h), 0);
        EXPECT_EQ(tlsf_check_pool(h.pools()[0]), 0); // freed ones
        tlsf_cache_flush(h);
        EXPECT_EQ(tlsf_check(h), 0);
        EXPECT_EQ(tlsf_check_pool(h.pools()[0]), 0); // freed ones on their slabs' lists
        for (std::size_t i = 1; i < objects.size(); i += 2)
            tlsf_free(h, objects[i]);
        EXPECT_EQ(tlsf_check(h), 0);
        EXPECT_EQ(tlsf_check_pool(h.pools()[0]), 0); // slabs with no object in use
        tlsf_cache_flush(h);
        EXPECT_TRUE(OneFreeBlock(h.pools()[0], kPool));
        EXPECT_TRUE(h.log().events.empty());
    }
}

// ---- realloc -------------------------------------------------------------------------------

// Within the object's usable size realloc returns the same pointer (the object does not
// shrink); beyond it the object moves, the contents come along and the old object is freed;
// realloc to 0 frees.
TEST(Slab, ReallocStaysWithinTheObjectAndMovesBeyondIt) {
    if (!kSlabs) GTEST_SKIP() << "TLSF_SLABS == 0";
    Heap h(kPool);
    ASSERT_EQ(tlsf_slabs_enable(h, kSlab), 0);
    void *keep = tlsf_malloc(h, 24); // keeps the slab of span 32 in use throughout
    void *p = tlsf_realloc(h, nullptr, 20);
    ASSERT_TRUE(keep && p);
    ASSERT_TRUE(InSlab(h.pools()[0], p));
    const std::size_t usable = tlsf_usable_size(h, p);
    ASSERT_EQ(usable, ObjectSpan(20) - Word());
    Fill(p, usable, 7);
    for (std::size_t n : {usable, std::size_t{1}, std::size_t{20}, usable - 1}) {
        EXPECT_EQ(tlsf_realloc(h, p, n), p) << n;
        EXPECT_EQ(tlsf_usable_size(h, p), usable) << n;
    }
    EXPECT_TRUE(Holds(p, usable, 7));

    const tlsf_stats_t before = Stats(h);
    void *q = tlsf_realloc(h, p, 100); // another span: another slab's object
    ASSERT_NE(q, nullptr);
    EXPECT_NE(q, p);
    EXPECT_TRUE(Holds(q, usable, 7));
    EXPECT_GE(tlsf_usable_size(h, q), 100u);
    EXPECT_TRUE(InSlab(h.pools()[0], q));
    if (TLSF_STATS) {
        const tlsf_stats_t after = Stats(h);
        EXPECT_EQ(after.live_blocks, before.live_blocks);
        EXPECT_EQ(after.used_bytes, before.used_bytes - ObjectSpan(20) + ObjectSpan(100));
        EXPECT_EQ(after.alloc_count, before.alloc_count + 1);
        EXPECT_EQ(after.free_count, before.free_count + 1);
    }
    const WalkedBlock *old = nullptr;
    const std::vector<WalkedBlock> walk = Walk(h.pools()[0]);
    old = Find(walk, p);
    ASSERT_NE(old, nullptr);
    EXPECT_FALSE(old->used); // freed
    EXPECT_EQ(tlsf_malloc(h, 20), p);
    tlsf_free(h, p);

    // Beyond the largest object span: an ordinary block, with the contents.
    const std::size_t q_usable = tlsf_usable_size(h, q);
    Fill(q, q_usable, 8);
    void *r = tlsf_realloc(h, q, 1000);
    ASSERT_NE(r, nullptr);
    EXPECT_TRUE(Holds(r, q_usable, 8));
    EXPECT_FALSE(InSlab(h.pools()[0], r));
    // Shrinking an ordinary block keeps it an ordinary block.
    EXPECT_EQ(tlsf_realloc(h, r, 24), r);
    EXPECT_TRUE(Holds(r, 24, 8));
    tlsf_free(h, r);

    // A realloc that cannot be served fails and leaves the object as it was.
    Fill(keep, tlsf_block_size(keep), 9);
    const tlsf_stats_t unchanged = Stats(h);
    EXPECT_EQ(tlsf_realloc(h, keep, std::size_t(-1) / 2), nullptr);
    EXPECT_EQ(tlsf_realloc(h, keep, kPool), nullptr);
    EXPECT_TRUE(Holds(keep, tlsf_block_size(keep), 9));
    EXPECT_EQ(tlsf_usable_size(h, keep), ObjectSpan(24) - Word());
    if (TLSF_STATS) {
        EXPECT_EQ(Stats(h).failed_count, unchanged.failed_count + 2);
        EXPECT_EQ(Stats(h).used_bytes, unchanged.used_bytes);
        EXPECT_EQ(Stats(h).live_blocks, unchanged.live_blocks);
    }

    // realloc(ptr, 0) frees the object.
    const tlsf_stats_t live_one = Stats(h);
    EXPECT_EQ(tlsf_realloc(h, keep, 0), nullptr);
    if (TLSF_STATS) {
        EXPECT_EQ(Stats(h).live_blocks, live_one.live_blocks - 1);
        EXPECT_EQ(Stats(h).used_bytes, live_one.used_bytes - ObjectSpan(24));
    }
    EXPECT_TRUE(h.log().events.empty());
    EXPECT_EQ(h.Errors(), 0);
    tlsf_cache_flush(h);
    EXPECT_TRUE(OneFreeBlock(h.pools()[0], kPool));
}

// ---- Misuse --------------------------------------------------------------------------------

// A second free (or a realloc, or tlsf_usable_size) of a freed object is a double free,
// wherever the object waits: in the front cache, on its slab's free list (with the cache
// off, or after a flush moved it there), or in a slab that has gone back to the lists. The
// heap is left as it was and hands the object out once only.
TEST(Slab, DoubleFreeOfAnObjectIsReported) {
    if (!kSlabs) GTEST_SKIP() << "TLSF_SLABS == 0";
    if (TLSF_CHECKS < 1) GTEST_SKIP() << "TLSF_CHECKS == 0";
    enum Where { kCached, kOnItsSlab, kFlushedToItsSlab };
    for (std::size_t bytes : {std::size_t{8}, std::size_t{24}}) // the smallest span, and 32
        for (Where where : {kCached, kOnItsSlab, kFlushedToItsSlab}) {
            SCOPED_TRACE(where == kCached      ? "cached"
                         : where == kOnItsSlab ? "on its slab's free list"
                                               : "flushed to its slab's free list");
            SCOPED_TRACE(bytes);
            Heap h(kPool);
            if (where == kOnItsSlab) {
                ASSERT_EQ(tlsf_cache_set_limit(h, 0), 0u);
            }
            ASSERT_EQ(tlsf_slabs_enable(h, kSlab), 0);
            void *a = tlsf_malloc(h, bytes);
            void *b = tlsf_malloc(h, bytes);
            void *c = tlsf_malloc(h, bytes);
            ASSERT_TRUE(a && b && c);
            ASSERT_EQ(tlsf_block_size(b), ObjectSpan(bytes) - Word());
            Fill(a, tlsf_block_size(a), 1);
            Fill(c, tlsf_block_size(c), 3);
            tlsf_free(h, b);
            if (where == kFlushedToItsSlab) tlsf_cache_flush(h); // a and c keep the slab
            EXPECT_TRUE(AllRefuse(h, TLSF_ERROR_DOUBLE_FREE, b));
            EXPECT_EQ(h.Errors(), 0);
            EXPECT_TRUE(Holds(a, tlsf_block_size(a), 1));
            EXPECT_TRUE(Holds(c, tlsf_block_size(c), 3));
            // b was not put back twice: it comes back once, then another object.
            void *again = tlsf_malloc(h, bytes);
            void *other = tlsf_malloc(h, bytes);
            EXPECT_EQ(again, b);
            EXPECT_NE(other, b);
            EXPECT_TRUE(h.log().events.empty());
            for (void *p : {again, other, a, c})
                tlsf_free(h, p);
            EXPECT_EQ(h.Errors(), 0);
        }

    // An object whose slab has gone back to the lists is still freed already.
    Heap h(kPool);
    ASSERT_EQ(tlsf_cache_set_limit(h, 0), 0u);
    ASSERT_EQ(tlsf_slabs_enable(h, kSlab), 0);
    void *next = nullptr;
    std::vector<void *> full = FillOneSlab(h, 100, &next);
    ASSERT_NE(next, nullptr);
    for (void *p : full)
        tlsf_free(h, p); // not current: the slab goes back
    ASSERT_FALSE(InSlab(h.pools()[0], full[0]));
    EXPECT_TRUE(RefusedOnce(h, TLSF_ERROR_DOUBLE_FREE, full[0], [&] { tlsf_free(h, full[0]); }));
    tlsf_free(h, next);
    EXPECT_TRUE(h.log().events.empty());
    EXPECT_EQ(h.Errors(), 0);
    tlsf_cache_flush(h);
    EXPECT_TRUE(OneFreeBlock(h.pools()[0], kPool));
}

TEST(Slab, InteriorPointerOfAnObjectIsReported) {
    if (!kSlabs) GTEST_SKIP() << "TLSF_SLABS == 0";
    if (TLSF_CHECKS < 2) GTEST_SKIP() << "TLSF_CHECKS < 2";
    Heap h(kPool);
    ASSERT_EQ(tlsf_slabs_enable(h, kSlab), 0);
    for (std::size_t bytes : {std::size_t{24}, std::size_t{100}, MaxObjectRequest()}) {
        unsigned char *p = static_cast<unsigned char *>(tlsf_malloc(h, bytes));
        void *other = tlsf_malloc(h, bytes);
        ASSERT_TRUE(p && other);
        Fill(p, tlsf_block_size(p), bytes);
        for (std::size_t off = Align(); off < tlsf_block_size(p); off += Align())
            EXPECT_TRUE(AllRefuse(h, TLSF_ERROR_BAD_POINTER, p + off)) << bytes << " + " << off;
        EXPECT_TRUE(Holds(p, tlsf_block_size(p), bytes));
        tlsf_free(h, p);
        tlsf_free(h, other);
    }
    EXPECT_TRUE(h.log().events.empty());
    EXPECT_EQ(h.Errors(), 0);
}

// A slab's own pointer (its address, where its state lies) is no block malloc returned: a
// bad pointer, whether the block before the slab is in use or free. (The first slab of a
// fresh pool follows the free gap its alignment left; the next one follows the first.)
TEST(Slab, TheSlabsOwnPointerIsABadPointer) {
    if (!kSlabs) GTEST_SKIP() << "TLSF_SLABS == 0";
    if (TLSF_CHECKS < 2) GTEST_SKIP() << "TLSF_CHECKS < 2";
    Heap h(kPool);
    ASSERT_EQ(tlsf_slabs_enable(h, kSlab), 0);
    void *after_gap = tlsf_malloc(h, 24);
    void *after_slab = tlsf_malloc(h, 100);
    ASSERT_TRUE(after_gap && after_slab);
    ASSERT_TRUE(InSlab(h.pools()[0], after_gap));
    ASSERT_TRUE(InSlab(h.pools()[0], after_slab));
    // The first slab follows the free gap at the pool's start (the pool's first block);
    // the second one follows the first.
    const std::vector<WalkedBlock> walk = Walk(h.pools()[0]);
    ASSERT_GE(walk.size(), 2u);
    EXPECT_FALSE(walk[0].used);
    EXPECT_EQ(Addr(walk[1].ptr), SlabBase(after_gap));
    EXPECT_EQ(SlabBase(after_slab), SlabBase(after_gap) + kSlab);
    for (void *object : {after_slab, after_gap}) {
        void *slab = reinterpret_cast<void *>(SlabBase(object));
        EXPECT_TRUE(AllRefuse(h, TLSF_ERROR_BAD_POINTER, slab))
            << "the block before the slab is " << (object == after_gap ? "free" : "in use");
        void *q = tlsf_malloc(h, tlsf_block_size(object)); // the slab still works
        ASSERT_NE(q, nullptr);
        EXPECT_EQ(SlabBase(q), SlabBase(object));
        tlsf_free(h, q);
    }
    tlsf_free(h, after_gap);
    tlsf_free(h, after_slab);
    EXPECT_TRUE(h.log().events.empty());
    EXPECT_EQ(h.Errors(), 0);
    tlsf_cache_flush(h);
    EXPECT_TRUE(OneFreeBlock(h.pools()[0], kPool));
}

// Two objects one span apart: a write of one word past the usable bytes of the lower one
// overwrites the header word of the higher one. The free (or realloc, or usable size) of
// the overflowed object reports a corrupt block; the damaged object is no block any more.
// A write past the highest object of a full slab reaches the header of the block after
// the slab, with the same result.
TEST(Slab, AnOverflowIntoTheNextHeaderIsReported) {
    if (!kSlabs) GTEST_SKIP() << "TLSF_SLABS == 0";
    if (TLSF_CHECKS < 2) GTEST_SKIP() << "TLSF_CHECKS < 2";
    if (kAsan) GTEST_SKIP() << "ASan reports the overflow itself";
    Heap h(kPool);
    ASSERT_EQ(tlsf_slabs_enable(h, kSlab), 0);
    unsigned char saved[sizeof(std::size_t)];
    for (std::size_t bytes : {std::size_t{8}, std::size_t{24}}) { // the smallest span, and 32
        SCOPED_TRACE(bytes);
        unsigned char *first = static_cast<unsigned char *>(tlsf_malloc(h, bytes));
        unsigned char *second = static_cast<unsigned char *>(tlsf_malloc(h, bytes));
        ASSERT_TRUE(first && second);
        unsigned char *lower = std::min(first, second), *higher = std::max(first, second);
        ASSERT_EQ(lower + ObjectSpan(bytes), higher);
        unsigned char *past = lower + tlsf_block_size(lower);
        ASSERT_EQ(past + Word(), higher);
        std::memcpy(saved, past, sizeof saved);
        std::memset(past, 'A', sizeof saved);
        EXPECT_TRUE(RefusedOnce(h, TLSF_ERROR_CORRUPT_BLOCK, lower, [&] { tlsf_free(h, lower); }));
        EXPECT_TRUE(RefusedOnce(h, TLSF_ERROR_CORRUPT_BLOCK, lower, [&] {
            if (tlsf_realloc(h, lower, 2000) != nullptr) ADD_FAILURE();
        }));
        EXPECT_TRUE(RefusedOnce(h, TLSF_ERROR_CORRUPT_BLOCK, lower, [&] {
            if (tlsf_usable_size(h, lower) != 0) ADD_FAILURE();
        }));
        EXPECT_TRUE(RefusedOnce(h, TLSF_ERROR_BAD_POINTER, higher, [&] { tlsf_free(h, higher); }));
        std::memcpy(past, saved, sizeof saved);
        EXPECT_EQ(h.Errors(), 0);
        tlsf_free(h, first);
        tlsf_free(h, second);
    }

    // The highest object of a full slab: one word past it is the next block's size word.
    void *next = nullptr;
    const std::vector<void *> full = FillOneSlab(h, 100, &next);
    ASSERT_NE(next, nullptr);
    unsigned char *top = static_cast<unsigned char *>(*std::max_element(full.begin(), full.end()));
    unsigned char *beyond = top + tlsf_block_size(top);
    ASSERT_EQ(Addr(beyond) + Word(), SlabBase(top) + kSlab) << "not the slab's last object";
    std::memcpy(saved, beyond, sizeof saved);
    std::memset(beyond, 'B', sizeof saved);
    EXPECT_TRUE(RefusedOnce(h, TLSF_ERROR_CORRUPT_BLOCK, top, [&] { tlsf_free(h, top); }));
    std::memcpy(beyond, saved, sizeof saved);
    EXPECT_EQ(h.Errors(), 0);

    for (void *p : full)
        tlsf_free(h, p);
    tlsf_free(h, next);
    EXPECT_TRUE(h.log().events.empty());
    EXPECT_EQ(h.Errors(), 0);
    tlsf_cache_flush(h);
    EXPECT_TRUE(OneFreeBlock(h.pools()[0], kPool));
}

namespace {

// The word before an object: its tag.
std::size_t TagOf(const void *object) {
    std::size_t tag;
    std::memcpy(&tag, static_cast<const unsigned char *>(object) - Word(), sizeof tag);
    return tag;
}

void SetTagOf(void *object, std::size_t tag) {
    std::memcpy(static_cast<unsigned char *>(object) - Word(), &tag, sizeof tag);
}

} // namespace

// Tags are sealed at their slab's site (tlsf_seal.h): every object of a slab has the same
// tag, which a free changes in one flag only, and the objects of another slab of the same
// span have another (with sealed headers; without, the tag is the span and flags alone).
// The fast paths rely on it: a fresh object's tag is a copy, the tag after an object is
// compared with its own.
TEST(Slab, TheObjectsOfASlabShareOneTag) {
    if (!kSlabs) GTEST_SKIP() << "TLSF_SLABS == 0";
    if (kAsan) GTEST_SKIP() << "ASan poisons the tags";
    for (std::size_t budget : kBudgets) {
        SCOPED_TRACE("cache budget " + std::to_string(budget));
        Heap h(kPool);
        ASSERT_EQ(tlsf_slabs_enable(h, kSlab), 0);
        tlsf_cache_set_limit(h, budget);
        std::vector<void *> first, second;
        ASSERT_TRUE(FillSlabAndNext(h, 40, 3, &first, &second));
        const std::size_t tag = TagOf(first[0]);
        for (void *p : first)
            EXPECT_EQ(TagOf(p), tag);
        EXPECT_EQ(TagOf(second[1]), TagOf(second[0]));
        if (TLSF_CHECKS >= 2) {
            EXPECT_NE(TagOf(second[0]), tag) << "the same tag in another slab";
        }
        // A free changes one flag (the same one in either slab); the reuse changes it back.
        tlsf_free(h, first[5]);
        tlsf_free(h, second[1]);
        const std::size_t changed = TagOf(first[5]) ^ tag;
        EXPECT_NE(changed, 0u);
        EXPECT_EQ(changed & (changed - 1), 0u) << "a free changes more than one flag";
        EXPECT_EQ(TagOf(second[1]) ^ TagOf(second[0]), changed);
        EXPECT_EQ(tlsf_malloc(h, 40), second[1]); // the current slab's freed object
        EXPECT_EQ(TagOf(second[1]), TagOf(second[0]));
        first.erase(first.begin() + 5);
        first.insert(first.end(), second.begin(), second.end());
        EXPECT_EQ(h.Errors(), 0);
        EXPECT_TRUE(FreedToOneBlock(h, first, kPool));
    }
}

// The seal binds a tag to its slab: the tag of an object of another slab of the same span,
// copied over an object's, makes that object's pointer a bad pointer (free, realloc and
// usable size refuse it), whether the copy says in use or freed; the object is whole again
// once its own tag is back.
TEST(Slab, ATagCopiedFromAnotherSlabIsRefused) {
    if (!kSlabs) GTEST_SKIP() << "TLSF_SLABS == 0";
    if (TLSF_CHECKS < 2) GTEST_SKIP() << "TLSF_CHECKS < 2";
    if (kAsan) GTEST_SKIP() << "ASan poisons the tags";
    Heap h(kPool);
    ASSERT_EQ(tlsf_slabs_enable(h, kSlab), 0);
    std::vector<void *> first, second;
    ASSERT_TRUE(FillSlabAndNext(h, 40, 3, &first, &second));
    tlsf_free(h, second[2]);
    void *victim = first[3];
    const std::size_t own = TagOf(victim);
    for (void *source : {second[0], second[2]}) {
        SCOPED_TRACE(source == second[0] ? "a tag in use" : "a freed object's tag");
        SetTagOf(victim, TagOf(source));
        EXPECT_TRUE(AllRefuse(h, TLSF_ERROR_BAD_POINTER, victim));
        SetTagOf(victim, own);
    }
    EXPECT_EQ(h.Errors(), 0);
    first.push_back(second[0]);
    first.push_back(second[1]);
    EXPECT_TRUE(FreedToOneBlock(h, first, kPool));
}

// ---- A full heap ---------------------------------------------------------------------------

// On a 64 KiB heap with 4 KiB slabs, small requests succeed until the heap is full (the
// last ones from the lists, when no slab fits any more); once all are freed and the heap
// flushed, the pool is one free block and the statistics are as at the start.
TEST(Slab, AFullHeapGoesBackToOneFreeBlock) {
    if (!kSlabs) GTEST_SKIP() << "TLSF_SLABS == 0";
    constexpr std::size_t kSmallPool = 64 * 1024;
    const std::vector<std::vector<std::size_t>> patterns = {
        {24}, {MaxObjectRequest()}, {24, 100, 200, MaxObjectRequest(), 8}, {40, 56, 40, 120}};
    for (const std::vector<std::size_t> &sizes : patterns) {
        Heap h(kSmallPool);
        ASSERT_EQ(tlsf_slabs_enable(h, 4096), 0);
        const tlsf_stats_t start = Stats(h);
        std::vector<void *> objects;
        std::size_t bytes_total = 0;
        while (void *p = tlsf_malloc(h, sizes[objects.size() % sizes.size()])) {
            Fill(p, tlsf_usable_size(h, p), objects.size());
            bytes_total += tlsf_usable_size(h, p) + Word();
            objects.push_back(p);
            ASSERT_LT(objects.size(), kSmallPool / MinSpan()) << "more objects than fit";
        }
        // Most of the pool was handed out (slabs of several spans waste some).
        EXPECT_GT(bytes_total, PoolSpan(kSmallPool) / 2) << sizes.size();
        EXPECT_EQ(h.Errors(), 0);
        for (std::size_t i = 0; i < objects.size(); ++i) {
            EXPECT_TRUE(Holds(objects[i], tlsf_usable_size(h, objects[i]), i)) << i;
            tlsf_free(h, objects[i]);
        }
        tlsf_cache_flush(h);
        EXPECT_TRUE(OneFreeBlock(h.pools()[0], kSmallPool)) << sizes.size();
        if (TLSF_STATS) {
            EXPECT_EQ(Stats(h).used_bytes, start.used_bytes);
            EXPECT_EQ(Stats(h).live_blocks, 0u);
        }
        EXPECT_EQ(h.Errors(), 0);
        EXPECT_TRUE(h.log().events.empty());
    }
}

// A slab needs a free block with room for its size at its alignment; without one, a small
// request gets an ordinary block from the lists (and is not counted as failed). Once there
// is room again, small requests get objects again.
TEST(Slab, WithoutRoomForASlabSmallRequestsGetOrdinaryBlocks) {
    if (!kSlabs) GTEST_SKIP() << "TLSF_SLABS == 0";
    constexpr std::size_t kSmallPool = 64 * 1024;
    Heap h(kSmallPool);
    ASSERT_EQ(tlsf_slabs_enable(h, 4096), 0);
    const std::size_t largest = tlsf_largest_allocatable(h);
    void *big = tlsf_malloc(h, largest - 4096); // leaves about 4 KiB: too little for a slab
    ASSERT_NE(big, nullptr);
    const std::size_t failed = Stats(h).failed_count;
    void *p = tlsf_malloc(h, 24);
    ASSERT_NE(p, nullptr);
    EXPECT_FALSE(InSlab(h.pools()[0], p));
    EXPECT_EQ(p, static_cast<char *>(big) + tlsf_block_size(big) + Word()); // right after big
    EXPECT_EQ(tlsf_usable_size(h, p), ObjectSpan(24) - Word());
    EXPECT_EQ(Stats(h).failed_count, failed);
    EXPECT_EQ(Walk(h.pools()[0]).size(), 3u); // big, p and the rest
    EXPECT_EQ(h.Errors(), 0);
    tlsf_free(h, big);
    void *q = tlsf_malloc(h, 24); // room again: an object
    ASSERT_NE(q, nullptr);
    EXPECT_TRUE(InSlab(h.pools()[0], q));
    tlsf_free(h, p);
    tlsf_free(h, q);
    tlsf_cache_flush(h);
    EXPECT_TRUE(OneFreeBlock(h.pools()[0], kSmallPool));
    EXPECT_TRUE(h.log().events.empty());
}

// tlsf_largest_allocatable says 0 when the lists are empty, but a slab with free objects
// still serves requests of its span (tlsf.h); switched off, then on again with the same
// size, the heap keeps using the slab it has.
TEST(Slab, ASlabServesItsSpanWhenTheListsAreEmpty) {
    if (!kSlabs) GTEST_SKIP() << "TLSF_SLABS == 0";
    constexpr std::size_t kSmallPool = 64 * 1024;
    Heap h(kSmallPool);
    ASSERT_EQ(tlsf_slabs_enable(h, 4096), 0);
    void *a = tlsf_malloc(h, 24);
    ASSERT_NE(a, nullptr);
    ASSERT_TRUE(InSlab(h.pools()[0], a));
    ASSERT_EQ(tlsf_slabs_enable(h, 0), 0); // the slab keeps its live object
    std::vector<void *> blocks = Exhaust(h);
    EXPECT_EQ(tlsf_largest_allocatable(h), 0u);
    EXPECT_EQ(tlsf_malloc(h, 24), nullptr); // slabs are off: nothing
    ASSERT_EQ(tlsf_slabs_enable(h, 4096), 0);
    void *b = tlsf_malloc(h, 24);
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(SlabBase(b), SlabBase(a));
    EXPECT_EQ(tlsf_malloc(h, 300), nullptr);
    EXPECT_EQ(h.Errors(), 0);
    tlsf_free(h, a);
    tlsf_free(h, b);
    EXPECT_TRUE(FreedToOneBlock(h, blocks, kSmallPool));
}

// ---- Switching off, pools, destroy ---------------------------------------------------------

// tlsf_slabs_enable(h, 0): objects in use stay valid and can be resized and freed, new
// small requests get ordinary blocks, and the empty slabs go back at once.
TEST(Slab, SwitchingOffKeepsObjectsAndGivesEmptySlabsBack) {
    if (!kSlabs) GTEST_SKIP() << "TLSF_SLABS == 0";
    for (std::size_t budget : kBudgets) {
        SCOPED_TRACE("cache budget " + std::to_string(budget));
        Heap h(kPool);
        ASSERT_EQ(tlsf_cache_set_limit(h, budget), budget);
        ASSERT_EQ(tlsf_slabs_enable(h, kSlab), 0);
        void *a = tlsf_malloc(h, 24);
        void *b = tlsf_malloc(h, 24);
        void *x = tlsf_malloc(h, 24);
        void *c = tlsf_malloc(h, 100);
        void *d = tlsf_malloc(h, 200);
        ASSERT_TRUE(a && b && x && c && d);
        Fill(a, tlsf_block_size(a), 1);
        Fill(b, tlsf_block_size(b), 2);
        Fill(d, tlsf_block_size(d), 4);
        tlsf_free(h, x); // a's slab keeps a and b
        tlsf_free(h, c); // c's slab has no object in use now
        const std::uintptr_t empty_base = SlabBase(c);
        const tlsf_stats_t before = Stats(h);
        ASSERT_EQ(tlsf_slabs_enable(h, 0), 0);
        EXPECT_EQ(tlsf_slabs_size(h), 0u);
        pool_t pool = h.pools()[0];
        EXPECT_TRUE(FreeBlockCovers(pool, empty_base, kSlab - 2 * Word())) << "empty slab kept";
        EXPECT_TRUE(NothingUsedIn(pool, empty_base, kSlab));
        EXPECT_EQ(Stats(h).used_bytes, before.used_bytes);
        EXPECT_TRUE(InSlab(pool, a));
        EXPECT_TRUE(InSlab(pool, d));
        EXPECT_TRUE(Holds(a, tlsf_block_size(a), 1));
        EXPECT_EQ(tlsf_usable_size(h, b), ObjectSpan(24) - Word());
        EXPECT_EQ(tlsf_realloc(h, b, 10), b);
        EXPECT_TRUE(Holds(b, tlsf_block_size(b), 2));
        // New small requests: ordinary blocks (not the objects freed before).
        void *e = tlsf_malloc(h, 24);
        void *f = tlsf_malloc(h, 100);
        ASSERT_TRUE(e && f);
        EXPECT_NE(e, x);
        EXPECT_NE(f, c);
        EXPECT_FALSE(InSlab(pool, e));
        EXPECT_FALSE(InSlab(pool, f));
        EXPECT_EQ(tlsf_slabs_enable(h, 2 * kSlab), -1); // a's slab is still there
        // An object moved by realloc becomes an ordinary block.
        void *g = tlsf_realloc(h, d, 220);
        ASSERT_NE(g, nullptr);
        EXPECT_NE(g, d);
        EXPECT_TRUE(Holds(g, ObjectSpan(200) - Word(), 4));
        EXPECT_FALSE(InSlab(pool, g));
        EXPECT_EQ(h.Errors(), 0);
        for (void *p : {a, b, e, f, g})
            tlsf_free(h, p);
        EXPECT_TRUE(h.log().events.empty());
        tlsf_cache_flush(h);
        EXPECT_TRUE(OneFreeBlock(pool, kPool));
        EXPECT_EQ(tlsf_slabs_enable(h, 2 * kSlab), 0); // no slab left
        EXPECT_EQ(h.Errors(), 0);
    }
}

// tlsf_remove_pool refuses a pool that holds an object, and takes it once all objects are
// freed (its flush gives the empty current slab back); tlsf_destroy leaves the pool one
// free block.
TEST(Slab, RemovePoolAndDestroyWorkOnceTheObjectsAreFreed) {
    if (!kSlabs) GTEST_SKIP() << "TLSF_SLABS == 0";
    {
        Heap h(kPool);
        ASSERT_EQ(tlsf_slabs_enable(h, kSlab), 0);
        pool_t pool = h.pools()[0];
        std::vector<void *> objects;
        for (std::size_t bytes :
             {std::size_t{24}, std::size_t{24}, std::size_t{100}, MaxObjectRequest()})
            objects.push_back(tlsf_malloc(h, bytes));
        tlsf_remove_pool(h, pool);
        ASSERT_EQ(h.log().events.size(), 1u);
        EXPECT_EQ(h.log().events[0].reason, TLSF_ERROR_POOL_IN_USE);
        EXPECT_EQ(Stats(h).pool_count, 1u);
        h.log().Clear();
        for (void *p : objects)
            tlsf_free(h, p);
        h.RemovePool(pool);
        EXPECT_TRUE(h.log().events.empty());
        EXPECT_EQ(Stats(h).pool_count, 0u);
        EXPECT_EQ(Stats(h).pool_bytes, 0u);
        EXPECT_EQ(tlsf_check(h), 0);
    }
    {
        Region memory(tlsf_size() + kPool);
        tlsf_t t = tlsf_create_with_pool(memory.data(), memory.size());
        ASSERT_NE(t, nullptr);
        ErrorLog log;
        tlsf_set_error_handler(t, &ErrorLog::Handler, &log);
        ASSERT_EQ(tlsf_slabs_enable(t, kSlab), 0);
        std::vector<void *> objects;
        for (std::size_t bytes = 1; bytes <= MaxObjectRequest(); bytes += 13)
            objects.push_back(tlsf_malloc(t, bytes));
        for (void *p : objects) {
            ASSERT_NE(p, nullptr);
            tlsf_free(t, p);
        }
        tlsf_destroy(t);
        EXPECT_TRUE(OneFreeBlock(tlsf_get_pool(t), memory.size() - tlsf_size()));
        EXPECT_EQ(tlsf_check(t), 0);
        EXPECT_EQ(tlsf_check_pool(tlsf_get_pool(t)), 0);
        EXPECT_TRUE(log.events.empty());
    }
}

// Objects can lie in any pool of the heap; each slab lies in one pool.
TEST(Slab, ObjectsComeFromEveryPool) {
    if (!kSlabs) GTEST_SKIP() << "TLSF_SLABS == 0";
    constexpr std::size_t kSmallPool = 64 * 1024;
    Heap h(kSmallPool);
    pool_t second = h.AddPool(kSmallPool);
    ASSERT_NE(second, nullptr);
    ASSERT_EQ(tlsf_slabs_enable(h, 4096), 0);
    std::vector<void *> objects;
    while (void *p = tlsf_malloc(h, 56))
        objects.push_back(p);
    // Each pool's objects, as its walk reports them (the free parts at the slabs' starts).
    std::size_t in_slabs[2] = {0, 0};
    for (std::size_t i = 0; i < 2; ++i) {
        const std::vector<WalkedBlock> walk = Walk(h.pools()[i]);
        std::set<std::uintptr_t> slab_starts;
        for (const WalkedBlock &b : walk)
            if (!b.used && Addr(b.ptr) % 4096 == 0) slab_starts.insert(Addr(b.ptr));
        for (const WalkedBlock &b : walk)
            if (b.used && slab_starts.count(SlabBase(b.ptr)) != 0) ++in_slabs[i];
    }
    EXPECT_GT(in_slabs[0], 0u);
    EXPECT_GT(in_slabs[1], 0u);
    EXPECT_EQ(h.Errors(), 0);
    for (void *p : objects)
        tlsf_free(h, p);
    h.RemovePool(second);
    EXPECT_TRUE(h.log().events.empty());
    tlsf_cache_flush(h);
    EXPECT_TRUE(OneFreeBlock(h.pools()[0], kSmallPool));
}

// ---- Fill patterns -------------------------------------------------------------------------

// With TLSF_FILL an object is handed out holding the alloc pattern, fresh or reused, and a
// freed object holds the free pattern beyond its link word.
TEST(Slab, ObjectsGetTheFillPatterns) {
    if (!kSlabs) GTEST_SKIP() << "TLSF_SLABS == 0";
    if (!TLSF_FILL) GTEST_SKIP() << "TLSF_FILL == 0";
    Heap h(kPool);
    ASSERT_EQ(tlsf_slabs_enable(h, kSlab), 0);
    void *keep = tlsf_malloc(h, 100);
    void *p = tlsf_malloc(h, 100);
    ASSERT_TRUE(keep && p);
    const std::size_t usable = tlsf_usable_size(h, p);
    EXPECT_TRUE(BytesAre(p, 0, usable, TLSF_FILL_ALLOC_BYTE));
    Fill(p, usable, 9);
    tlsf_free(h, p);
    EXPECT_TRUE(BytesAre(p, Word(), usable, TLSF_FILL_FREE_BYTE));
    void *q = tlsf_malloc(h, 100);
    ASSERT_EQ(q, p);
    EXPECT_TRUE(BytesAre(q, 0, usable, TLSF_FILL_ALLOC_BYTE));
    void *z = tlsf_calloc(h, 1, 100);
    ASSERT_NE(z, nullptr);
    EXPECT_TRUE(AllBytes(z, 100, 0));
    tlsf_free(h, q);
    tlsf_free(h, z);
    tlsf_free(h, keep);
    EXPECT_EQ(h.Errors(), 0);
}

// ---- Randomized ----------------------------------------------------------------------------

// 20,000 random mallocs (1 to 300 bytes: objects of every span and ordinary blocks), frees
// and reallocs against a model of the live blocks and their contents, for the smallest and
// the largest slab size; the heap checks every 1,000 operations, and at the end everything
// is freed and the pool is one free block after a flush.
TEST(Slab, RandomOperationsAgreeWithAModel) {
    if (!kSlabs) GTEST_SKIP() << "TLSF_SLABS == 0";
    // 4 MiB, or half the largest block where blocks are smaller (TLSF_MAX_BLOCK_LOG2).
    const std::size_t kBigPool = std::min<std::size_t>(4 * 1024 * 1024, tlsf_block_size_max() / 2);
    for (std::size_t slab_bytes : {std::size_t{4096}, std::size_t{65536}}) {
        SCOPED_TRACE("slab " + std::to_string(slab_bytes));
        Heap h(kBigPool);
        ASSERT_EQ(tlsf_slabs_enable(h, slab_bytes), 0);
        struct Block {
            std::size_t filled; // bytes holding the pattern of `seed`
            std::uint64_t seed;
        };
        std::map<void *, Block> live;
        Rng rng(0x51AB + slab_bytes);
        std::uint64_t next_seed = 1;
        for (int op = 1; op <= 20000; ++op) {
            const std::size_t target = op < 10000 ? 600 : 150; // grow, then shrink
            const unsigned malloc_percent = live.size() < target ? 60 : 40;
            if (live.empty() || rng.Chance(malloc_percent)) {
                const std::size_t bytes = rng.Between(1, 300);
                void *p = tlsf_malloc(h, bytes);
                ASSERT_NE(p, nullptr) << op;
                ASSERT_TRUE(IsAligned(p, Align())) << op;
                const std::size_t usable = tlsf_usable_size(h, p);
                ASSERT_GE(usable, bytes) << op;
                ASSERT_EQ(live.count(p), 0u) << op << ": handed out twice";
                Fill(p, usable, next_seed);
                live[p] = {usable, next_seed++};
            } else {
                auto it = live.begin();
                std::advance(it, static_cast<std::ptrdiff_t>(rng.Below(live.size())));
                void *p = it->first;
                const Block b = it->second;
                ASSERT_TRUE(Holds(p, b.filled, b.seed)) << op;
                if (rng.Chance(70)) {
                    tlsf_free(h, p);
                    live.erase(it);
                } else {
                    const std::size_t bytes = rng.Chance(3) ? 0 : rng.Between(1, 300);
                    void *q = tlsf_realloc(h, p, bytes);
                    live.erase(it);
                    if (bytes == 0) {
                        ASSERT_EQ(q, nullptr) << op;
                    } else {
                        ASSERT_NE(q, nullptr) << op;
                        ASSERT_EQ(live.count(q), 0u) << op << ": handed out twice";
                        const std::size_t usable = tlsf_usable_size(h, q);
                        ASSERT_GE(usable, bytes) << op;
                        ASSERT_TRUE(Holds(q, std::min(b.filled, bytes), b.seed)) << op;
                        Fill(q, usable, next_seed);
                        live[q] = {usable, next_seed++};
                    }
                }
            }
            if (op % 1000 != 0) continue;
            ASSERT_EQ(tlsf_check(h), 0) << op;
            ASSERT_EQ(tlsf_check_pool(h.pools()[0]), 0) << op;
            ASSERT_TRUE(h.log().events.empty()) << op;
            if (TLSF_STATS) {
                ASSERT_EQ(Stats(h).live_blocks, live.size()) << op;
            }
            std::size_t used = 0;
            const std::vector<WalkedBlock> walk = Walk(h.pools()[0]);
            ASSERT_TRUE(InAddressOrder(walk)) << op;
            for (const WalkedBlock &w : walk) {
                if (!w.used) continue;
                ++used;
                auto it = live.find(w.ptr);
                ASSERT_NE(it, live.end()) << op << ": the walk shows a block that is not live";
                ASSERT_EQ(w.size, it->second.filled) << op;
            }
            ASSERT_EQ(used, live.size()) << op;
            for (const auto &entry : live)
                ASSERT_TRUE(Holds(entry.first, entry.second.filled, entry.second.seed)) << op;
        }
        for (const auto &entry : live) {
            ASSERT_TRUE(Holds(entry.first, entry.second.filled, entry.second.seed));
            tlsf_free(h, entry.first);
        }
        EXPECT_TRUE(h.log().events.empty());
        if (TLSF_STATS) {
            EXPECT_EQ(Stats(h).live_blocks, 0u);
        }
        tlsf_cache_flush(h);
        EXPECT_TRUE(OneFreeBlock(h.pools()[0], kBigPool));
        EXPECT_EQ(h.Errors(), 0);
    }
}
