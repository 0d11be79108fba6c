// SPDX-License-Identifier: MIT
// The hardened heap (TLSF_CHECKS 2): damage to the heap's own metadata, made the way a buggy
// program or a blind attacker makes it - a write of a byte or a word past the end of a block,
// into the next header, a use after free that writes a freed block's links or the back-link
// its successor follows, a pointer of an earlier heap, a header copied elsewhere, another
// heap's pool - is reported to the error handler with a fitting reason, nothing crashes, the
// refused call changes nothing, and no later allocation returns memory that overlaps a live
// block or lies outside the pools. One test per case of the hardening issue, each as a user
// would hit it.
//
// The writes into headers are the misuse under test, so they are made by functions AddressSanitizer
// does not instrument (in an ASan build the tests then run as elsewhere: the heap must catch
// what ASan would have caught).
#include "tlsf_test_support.h"

#include <functional>
#include <map>

using namespace tlsf_test;

namespace {

constexpr std::size_t kPool = 64 * 1024;
constexpr std::size_t kSlabBytes = 4096;
constexpr bool kSealed = TLSF_CHECKS >= 2;
constexpr bool kCache = TLSF_CACHE != 0;
constexpr bool kSlabs = TLSF_SLABS != 0;

// The flags in the low bits of a size word (core/src/tlsf_block.h), which a one-byte overflow
// past the end of the block before reaches on a little-endian machine.
constexpr unsigned char kFreeFlag = 1;
constexpr unsigned char kPrevFreeFlag = 2;
constexpr unsigned char kAlignedFlag = 4;

constexpr tlsf_error_t kCorruptList = TLSF_ERROR_CORRUPT_LIST;
constexpr tlsf_error_t kCorruptBlock = TLSF_ERROR_CORRUPT_BLOCK;

bool LittleEndian() {
    const std::uint16_t one = 1;
    unsigned char low;
    std::memcpy(&low, &one, 1);
    return low == 1;
}

// Why this build cannot run the sealed-header cases, or nullptr.
const char *WithoutSeals() {
    if (!kSealed) return "TLSF_CHECKS < 2: headers carry no seal";
    if (!LittleEndian()) return "the overflows below assume the flags in the first byte";
    return nullptr;
}

// ---- Raw access to the heap's memory -------------------------------------------------------

#if defined(__GNUC__) || defined(__clang__)
#define TLSF_TEST_NO_ASAN __attribute__((no_sanitize_address))
#else
#define TLSF_TEST_NO_ASAN
#endif

// Byte by byte through volatile pointers: no memcpy, which ASan intercepts even here.
TLSF_TEST_NO_ASAN void RawCopy(void *to, const void *from, std::size_t n) {
    volatile unsigned char *d = static_cast<volatile unsigned char *>(to);
    const volatile unsigned char *s = static_cast<const volatile unsigned char *>(from);
    for (std::size_t i = 0; i < n; ++i)
        d[i] = s[i];
}

std::uintptr_t LoadWord(const void *at) {
    std::uintptr_t w;
    RawCopy(&w, at, sizeof w);
    return w;
}
void StoreWord(void *at, std::uintptr_t w) {
    RawCopy(at, &w, sizeof w);
}
unsigned char LoadByte(const void *at) {
    unsigned char b;
    RawCopy(&b, at, 1);
    return b;
}
void StoreByte(void *at, unsigned char b) {
    RawCopy(at, &b, 1);
}

// ---- Where a plain block's metadata lies, from the public API ------------------------------
//
// A block in use: its header ends with the size word (and, with a seal word of its own on
// 32-bit targets, the seal), tlsf_alloc_overhead() bytes before the user pointer; the first
// byte past its usable bytes is the next block's size word, whose lowest byte holds the
// flags; the last word of its usable bytes is the next block's back-link, which the heap
// reads only while this block is free. A free block's first two words are its free-list
// links, a cached block's (or freed slab object's) first word its stack link.

unsigned char *At(void *p, std::ptrdiff_t offset) {
    return static_cast<unsigned char *>(p) + offset;
}
std::size_t Overhead() {
    return tlsf_alloc_overhead();
}
// The header: prev_phys word, then the rest of the overhead.
std::size_t HeaderBytes() {
    return Overhead() + sizeof(void *);
}
unsigned char *SizeWordOf(void *p) {
    return At(p, -static_cast<std::ptrdiff_t>(Overhead()));
}
unsigned char *BlockStart(void *p) {
    return At(p, -static_cast<std::ptrdiff_t>(HeaderBytes()));
}
unsigned char *NextSizeWord(void *p) {
    return At(p, static_cast<std::ptrdiff_t>(tlsf_block_size(p)));
}
unsigned char *NextBlock(void *p) {
    return At(p, static_cast<std::ptrdiff_t>(tlsf_block_size(p) + Overhead()));
}
unsigned char *BackLinkOfNext(void *p, std::size_t usable) {
    return At(p, static_cast<std::ptrdiff_t>(usable - sizeof(void *)));
}

// ---- A heap under attack -------------------------------------------------------------------

struct Block {
    unsigned char *ptr;
    std::size_t usable;
    std::uint64_t seed;
};

struct PoolRange {
    pool_t pool;
    unsigned char *start;
    std::size_t bytes;
};

// A heap in memory the test owns, with an error log, its pools, and the blocks the program
// holds (each filled with its own pattern): what the program would lose if the heap handed
// out memory twice.
// A sized heap's pool size (tlsf_create_sized), for an Arena of such a heap; the bytes of a
// compact heap (tlsf_create_compact), for an Arena of that.
struct SizedFor {
    std::size_t pool_bytes;
};
struct CompactOf {
    std::size_t bytes;
};

class Arena {
  public:
    Arena() : control_(tlsf_size(), 64) { Create(); }
    explicit Arena(std::size_t pool_bytes, std::size_t misalign = 0) : Arena() {
        OwnPool(pool_bytes, misalign);
    }
    // A sized heap (its control structure still in memory of tlsf_size() bytes, the rest of
    // which the test may write) with one pool of the size it was made for.
    explicit Arena(SizedFor sized) : control_(tlsf_size(), 64), sized_for_(sized.pool_bytes) {
        Create();
        OwnPool(sized.pool_bytes);
    }
    // A compact heap: its control structure and its one pool in one region.
    explicit Arena(CompactOf compact) : control_(compact.bytes, 64) {
        heap_ = tlsf_create_compact(control_.data(), compact.bytes);
        tlsf_set_error_handler(heap_, &ErrorLog::Handler, &log);
        const std::size_t pool = tlsf_compact_pool_bytes(compact.bytes);
        pools.push_back({tlsf_get_pool(heap_), control_.data() + tlsf_size_for(pool), pool});
    }
    Arena(const Arena &) = delete;
    Arena &operator=(const Arena &) = delete;

    tlsf_t heap() const { return heap_; }
    operator tlsf_t() const { return heap_; }
    ErrorLog log;
    std::vector<Block> live;
    std::vector<PoolRange> pools;

    // A pool in memory of its own, `misalign` bytes past a naturally aligned address.
    unsigned char *OwnPool(std::size_t bytes, std::size_t misalign = 0) {
        regions_.push_back(std::make_unique<Region>(bytes + misalign));
        unsigned char *mem = regions_.back()->data() + misalign;
        AddPool(mem, bytes);
        return mem;
    }
    pool_t AddPool(void *mem, std::size_t bytes) {
        pool_t pool = tlsf_add_pool(heap_, mem, bytes);
        if (pool) pools.push_back({pool, static_cast<unsigned char *>(mem), bytes});
        return pool;
    }
    // Destroy the heap and create it again in the same memory, with the same pools: the
    // program's pointers into the earlier heap are stale.
    void Recreate() {
        tlsf_destroy(heap_);
        Create();
        std::vector<PoolRange> old;
        old.swap(pools);
        for (const PoolRange &p : old)
            AddPool(p.start, p.bytes);
        live.clear();
    }

    // A block the program holds, filled with its pattern; nullptr if malloc failed.
    unsigned char *Hold(std::size_t bytes) { return Keep(tlsf_malloc(heap_, bytes)); }
    unsigned char *Keep(void *p) {
        if (p == nullptr) return nullptr;
        Block b{static_cast<unsigned char *>(p), tlsf_block_size(p), ++seed_};
        Fill(b.ptr, b.usable, b.seed);
        live.push_back(b);
        return b.ptr;
    }
    // The program frees `p` (it must be accepted).
    void Release(void *p) {
        Forget(p);
        tlsf_free(heap_, p);
    }
    // The program writes into its block itself from now on: its contents are no longer
    // checked (the memory stays the program's).
    void Unchecked(const void *p) {
        for (Block &b : live)
            if (b.ptr == p) b.seed = 0;
    }
    void Forget(const void *p) {
        live.erase(
            std::remove_if(live.begin(), live.end(), [p](const Block &b) { return b.ptr == p; }),
            live.end());
    }
    const Block *Find(const void *p) const {
        for (const Block &b : live)
            if (b.ptr == p) return &b;
        return nullptr;
    }

    Snapshot Take() const {
        Snapshot s;
        s.stats = Stats(heap_);
        for (const PoolRange &p : pools)
            s.walks.push_back(Walk(p.pool));
        return s;
    }
    // tlsf_check and tlsf_check_pool of every pool.
    int Errors() const {
        int errors = tlsf_check(heap_);
        for (const PoolRange &p : pools)
            errors += tlsf_check_pool(p.pool);
        return errors;
    }

    // Every block the program holds still holds its pattern.
    ::testing::AssertionResult Intact() const {
        for (const Block &b : live) {
            if (b.seed == 0) continue;
            std::size_t at = FirstMismatch(b.ptr, b.usable, b.seed);
            if (at != b.usable)
                return ::testing::AssertionFailure()
                       << "the block at " << static_cast<void *>(b.ptr) << " changed at byte "
                       << at;
        }
        return ::testing::AssertionSuccess();
    }

    bool InPools(const void *p, std::size_t usable) const {
        for (const PoolRange &r : pools)
            if (Addr(p) - Overhead() >= Addr(r.start) &&
                Addr(p) + usable <= Addr(r.start) + r.bytes)
                return true;
        return false;
    }

    // The misuse `call` is reported once, with `reason` (and `ptr` unless null), and changes
    // nothing: statistics, the blocks of every pool, what the heap's checks find, the
    // program's blocks.
    ::testing::AssertionResult Refuses(tlsf_error_t reason, const void *ptr,
                                       const std::function<void()> &call) {
        const Snapshot before = Take();
        const int errors_before = Errors();
        log.Clear();
        call();
        if (log.events.size() != 1)
            return ::testing::AssertionFailure() << log.events.size() << " reports, expected one";
        const ErrorEvent e = log.events[0];
        log.Clear();
        if (e.reason != reason)
            return ::testing::AssertionFailure()
                   << "reason \"" << tlsf_error_string(e.reason) << "\", expected \""
                   << tlsf_error_string(reason) << "\"";
        if ((ptr != nullptr && e.ptr != ptr) || e.heap != heap_)
            return ::testing::AssertionFailure() << "wrong pointer or heap in the report";
        ::testing::AssertionResult same = SameHeap(before, Take());
        if (!same) return same;
        if (Errors() != errors_before)
            return ::testing::AssertionFailure() << "the heap's checks changed";
        return Intact();
    }

    // free, realloc and tlsf_usable_size each refuse `ptr` for `reason`.
    ::testing::AssertionResult AllRefuse(tlsf_error_t reason, void *ptr) {
        ::testing::AssertionResult r = Refuses(reason, ptr, [&] { tlsf_free(heap_, ptr); });
        if (!r) return r << " (free)";
        r = Refuses(reason, ptr, [&] {
            if (tlsf_realloc(heap_, ptr, 3 * kPool / 4) != nullptr)
                ADD_FAILURE() << "realloc moved a refused block";
        });
        if (!r) return r << " (realloc growing)";
        r = Refuses(reason, ptr, [&] {
            if (tlsf_realloc(heap_, ptr, 1) != nullptr) ADD_FAILURE() << "realloc shrank it";
        });
        if (!r) return r << " (realloc shrinking)";
        r = Refuses(reason, ptr, [&] {
            if (tlsf_usable_size(heap_, ptr) != 0) ADD_FAILURE() << "a usable size";
        });
        if (!r) return r << " (tlsf_usable_size)";
        return ::testing::AssertionSuccess();
    }

    // From now on the heap hands out only memory that is free: allocations of every kind of
    // size (cached classes, slab objects, list classes; some freed again, so that frees,
    // caching, merging and drains run too) until the heap runs dry, each inside a pool and
    // overlapping no block the program holds nor another new one, and in the end every one
    // of them holds its contents. Reports are allowed (damage is reported when it is
    // touched); a crash, an overlap or memory outside the pools is a failure.
    ::testing::AssertionResult ServesOnlyFreeMemory() {
        static const std::size_t sizes[] = {24, 0,   40,   24,   100, 200, 248,  1000,
                                            24, 300, 3000, 5000, 24,  72,  8000, 20000};
        constexpr std::size_t kSizes = sizeof sizes / sizeof sizes[0];
        std::map<std::uintptr_t, std::uintptr_t> taken; // start -> end, headers included
        auto claim = [&](const void *p, std::size_t usable) {
            std::uintptr_t start = Addr(p) - Overhead(), end = Addr(p) + usable;
            auto it = taken.lower_bound(start);
            if (it != taken.end() && it->first < end) return false;
            if (it != taken.begin() && std::prev(it)->second > start) return false;
            taken[start] = end;
            return true;
        };
        for (const Block &b : live)
            if (!claim(b.ptr, b.usable))
                return ::testing::AssertionFailure() << "the program's blocks overlap";
        std::size_t misses = 0;
        for (std::size_t round = 0; round < 4000 && misses < 2 * kSizes; ++round) {
            const std::size_t n = sizes[round % kSizes];
            void *p = tlsf_malloc(heap_, n);
            if (p == nullptr) {
                ++misses;
                continue;
            }
            misses = 0;
            const std::size_t usable = tlsf_block_size(p);
            if (usable < n || !InPools(p, usable))
                return ::testing::AssertionFailure()
                       << "malloc(" << n << ") returned " << p << " (usable " << usable
                       << "), not inside a pool";
            if (!claim(p, usable))
                return ::testing::AssertionFailure()
                       << "malloc(" << n << ") returned " << p << ", which overlaps a live block";
            Keep(p);
            if (round % 3 == 2) { // give one back: the cache, the slabs and the merges run
                void *back = live[live.size() / 2].ptr;
                const std::size_t reports = log.events.size();
                tlsf_free(heap_, back);
                if (log.events.size() == reports) { // accepted: the memory is free again
                    Forget(back);
                    taken.erase(Addr(back) - Overhead());
                }
            }
        }
        tlsf_cache_flush(heap_);
        return Intact();
    }

  private:
    void Create() {
        heap_ = sized_for_ != 0 ? tlsf_create_sized(control_.data(), sized_for_)
                                : tlsf_create(control_.data());
        tlsf_set_error_handler(heap_, &ErrorLog::Handler, &log);
    }
    Region control_;
    std::size_t sized_for_ = 0;
    tlsf_t heap_ = nullptr;
    std::vector<std::unique_ptr<Region>> regions_;
    std::uint64_t seed_ = 0;
};

// The bytes from a pool's memory to its first block's user pointer (the heap's start padding
// and header), measured.
std::size_t FirstBlockOffset() {
    static const std::size_t offset = [] {
        Arena probe(kPool);
        void *p = tlsf_malloc(probe, 0);
        return p ? static_cast<std::size_t>(Addr(p) - Addr(probe.pools[0].start)) : 0;
    }();
    return offset;
}

// A request of a list class (above the cached and slab ones) whose span is the class's lower
// bound: a free block of that span serves exactly such a request, whole.
std::size_t ListRequest() {
    return SizeClasses().RoundDown(5000) - Word();
}

// The reasons a damaged header of the block itself may be reported with: a flag flipped is a
// corrupt block (the seal holds for the word with that flag flipped back); other damage leaves
// no trace of the header it was, so the pointer is no block's start any more (bad pointer).
bool DamagedHeaderReason(tlsf_error_t reason) {
    return reason == TLSF_ERROR_CORRUPT_BLOCK || reason == TLSF_ERROR_BAD_POINTER;
}

// Exactly one report since the log was cleared, for one of `reasons`.
::testing::AssertionResult ReportedOnce(const Arena &a,
                                        std::initializer_list<tlsf_error_t> reasons) {
    if (a.log.events.size() != 1)
        return ::testing::AssertionFailure() << a.log.events.size() << " reports, expected one";
    for (tlsf_error_t r : reasons)
        if (a.log.events[0].reason == r) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure()
           << "reason \"" << tlsf_error_string(a.log.events[0].reason) << "\"";
}

// At least one report since the log was cleared, each for one of `reasons`.
::testing::AssertionResult Reported(const Arena &a, std::initializer_list<tlsf_error_t> reasons) {
    if (a.log.events.empty()) return ::testing::AssertionFailure() << "no report";
    for (const ErrorEvent &e : a.log.events)
        if (std::find(reasons.begin(), reasons.end(), e.reason) == reasons.end())
            return ::testing::AssertionFailure()
                   << "reason \"" << tlsf_error_string(e.reason) << "\"";
    return ::testing::AssertionSuccess();
}

// A block of a list class, freed between blocks in use, the one before it (`before`) of a
// size the cache does not take, so that freeing `before` merges with it and unlinks it: the
// setting of the forged-link tests below. Both null if the heap could not hold them.
struct ListBlockBeforeAMerge {
    unsigned char *before = nullptr;
    unsigned char *freed = nullptr;
};
ListBlockBeforeAMerge FreeListBlockBeforeAMerge(Arena &a) {
    ListBlockBeforeAMerge n;
    a.Hold(100);
    n.before = a.Hold(1500);
    n.freed = a.Hold(ListRequest());
    a.Hold(100);
    if (n.before == nullptr || n.freed == nullptr) return {};
    a.Release(n.freed);
    return n;
}

// Free `block`, whose merge follows a link the test forged, with the log cleared first: the
// handler must hear of a corrupt list (and nothing else), and the heap must still hand out
// free memory only. Both are asserted, each with its own message.
void ExpectForgedLinkRefused(Arena &a, unsigned char *block) {
    a.log.Clear();
    a.Release(block);
    EXPECT_TRUE(Reported(a, {kCorruptList}));
    EXPECT_TRUE(a.ServesOnlyFreeMemory());
}

// A plain block and the block right after it, both held, with blocks held around them so
// that no free merges with the rest of the pool.
struct Neighbours {
    unsigned char *before = nullptr; // overflows into `next`
    unsigned char *next = nullptr;
};

::testing::AssertionResult MakeNeighbours(Arena &a, std::size_t before_bytes,
                                          std::size_t next_bytes, Neighbours *out) {
    a.Hold(100);
    out->before = a.Hold(before_bytes);
    out->next = a.Hold(next_bytes);
    a.Hold(100);
    if (!out->before || !out->next) return ::testing::AssertionFailure() << "malloc failed";
    if (NextBlock(out->before) != out->next)
        return ::testing::AssertionFailure() << "the blocks are not neighbours";
    return ::testing::AssertionSuccess();
}

// A one-byte overflow past the end of `p`: the first byte of the next header becomes
// `value(old)`.
void OverflowOneByte(void *p, const std::function<unsigned char(unsigned char)> &value) {
    unsigned char *at = NextSizeWord(p);
    StoreByte(at, value(LoadByte(at)));
}

} // namespace

// ---- 1. A one-byte overflow that sets only the next header's PREV_FREE flag -----------------

// The next block goes to the lists when freed. Its free once read the back-link (the
// overflowing block's last word, user data) and merged with whatever it pointed at.
TEST(Hardening, PrevFreeSetByAnOverflowIsACorruptBlockOnTheListPath) {
    if (const char *why = WithoutSeals()) GTEST_SKIP() << why;
    Arena a(kPool);
    Neighbours n;
    ASSERT_TRUE(MakeNeighbours(a, 1000, 5000, &n));
    OverflowOneByte(n.before, [](unsigned char b) { return b | kPrevFreeFlag; });
    EXPECT_TRUE(a.AllRefuse(TLSF_ERROR_CORRUPT_BLOCK, n.next));
    // The overflowing block's own free reads that header too.
    EXPECT_TRUE(a.AllRefuse(TLSF_ERROR_CORRUPT_BLOCK, n.before));
    EXPECT_EQ(tlsf_check(a), 0);
    EXPECT_TRUE(a.ServesOnlyFreeMemory());
}

// The same with the back-link crafted to pass for a free block before: it points at the
// overflowing block's own header (sealed, its span leads to the next block, but in use), or
// at a header forged inside its user data (free flag, span leading to the next block, a seal
// copied from a real header). The flipped flag breaks the next header's seal first.
TEST(Hardening, PrevFreeSetByAnOverflowWithACraftedBackLink) {
    if (const char *why = WithoutSeals()) GTEST_SKIP() << why;
    for (int forged = 0; forged < 2; ++forged) {
        Arena a(kPool);
        Neighbours n;
        ASSERT_TRUE(MakeNeighbours(a, 1000, 5000, &n));
        const std::size_t usable = tlsf_block_size(n.before);
        unsigned char *target = BlockStart(n.before);
        if (forged) {
            // A fake free block 4 alignment units into the user data, its span reaching the
            // next block, its word's high bits (the seal, where the word holds one) copied.
            target = At(n.before, static_cast<std::ptrdiff_t>(4 * Align()));
            const std::uintptr_t real = LoadWord(SizeWordOf(n.before));
            const std::uintptr_t span = Addr(BlockStart(n.next)) - Addr(target);
            StoreWord(target + sizeof(void *),
                      (real & ~std::uintptr_t(0xFFFFF)) | span | kFreeFlag);
        }
        a.Unchecked(n.before); // the program writes its own block
        StoreWord(BackLinkOfNext(n.before, usable), Addr(target));
        OverflowOneByte(n.before, [](unsigned char b) { return b | kPrevFreeFlag; });
        EXPECT_TRUE(a.Refuses(TLSF_ERROR_CORRUPT_BLOCK, n.next, [&] { tlsf_free(a, n.next); }))
            << forged;
        EXPECT_EQ(tlsf_check(a), 0);
        EXPECT_TRUE(a.ServesOnlyFreeMemory()) << forged;
    }
}

// The next block is small enough to be cached: its free was silently cached (the cache's
// path checked nothing behind it) and the later drain followed the back-link.
TEST(Hardening, PrevFreeSetByAnOverflowIsACorruptBlockOnTheCachePath) {
    if (const char *why = WithoutSeals()) GTEST_SKIP() << why;
    if (!kCache) GTEST_SKIP() << "no front cache";
    Arena a(kPool);
    Neighbours n;
    ASSERT_TRUE(MakeNeighbours(a, 1000, 24, &n));
    OverflowOneByte(n.before, [](unsigned char b) { return b | kPrevFreeFlag; });
    EXPECT_TRUE(a.AllRefuse(TLSF_ERROR_CORRUPT_BLOCK, n.next));
    // Blocks of the class cached meanwhile, then every way the cache is drained.
    void *other = a.Hold(24);
    ASSERT_NE(other, nullptr);
    a.Release(other);
    a.log.Clear();
    tlsf_cache_flush(a);
    EXPECT_EQ(tlsf_largest_allocatable(a), tlsf_largest_allocatable(a));
    EXPECT_TRUE(a.log.events.empty());
    EXPECT_EQ(tlsf_check(a), 0);
    EXPECT_TRUE(a.ServesOnlyFreeMemory());
}

// The next block is an object of the same slab: the free was accepted, and only
// tlsf_check_pool noticed.
TEST(Hardening, PrevFreeSetByAnOverflowIsACorruptBlockInASlab) {
    if (const char *why = WithoutSeals()) GTEST_SKIP() << why;
    if (!kSlabs) GTEST_SKIP() << "no slabs in this configuration";
    Arena a(kPool);
    ASSERT_EQ(tlsf_slabs_enable(a, kSlabBytes), 0);
    unsigned char *first = a.Hold(24);
    unsigned char *second = a.Hold(24);
    a.Hold(24);
    ASSERT_TRUE(first && second);
    ASSERT_EQ(NextBlock(first), second) << "objects of one slab lie one span apart";
    OverflowOneByte(first, [](unsigned char b) { return b | kPrevFreeFlag; });
    EXPECT_TRUE(a.AllRefuse(TLSF_ERROR_CORRUPT_BLOCK, second));
    EXPECT_TRUE(a.AllRefuse(TLSF_ERROR_CORRUPT_BLOCK, first));
    EXPECT_EQ(tlsf_check(a), 0);
    EXPECT_TRUE(a.ServesOnlyFreeMemory());
}

// ---- 1, 6: every one-byte overflow into the next header -----------------------------------

// Each flag alone (FREE alone is case 6: a corrupt block, not a double free), and bytes that
// change the span (a NUL terminator written one past the end, any byte): the next block's
// free, realloc and usable size are refused; a flipped flag is named a corrupt block, other
// damage a corrupt block or a bad pointer (the header no longer says which block it was);
// the overflowing block's own calls are refused as a corrupt block. Cached and list paths.
TEST(Hardening, EveryOneByteOverflowIntoTheNextHeaderIsRefused) {
    if (const char *why = WithoutSeals()) GTEST_SKIP() << why;
    struct Damage {
        const char *name;
        unsigned char (*value)(unsigned char);
        bool one_flag;
    };
    const Damage damages[] = {
        {"FREE", [](unsigned char b) { return static_cast<unsigned char>(b | kFreeFlag); }, true},
        {"PREV_FREE", [](unsigned char b) { return static_cast<unsigned char>(b | kPrevFreeFlag); },
         true},
        {"ALIGNED", [](unsigned char b) { return static_cast<unsigned char>(b ^ kAlignedFlag); },
         true},
        {"NUL", [](unsigned char) { return static_cast<unsigned char>(0); }, false},
        {"'A'", [](unsigned char) { return static_cast<unsigned char>('A'); }, false},
        {"span + align",
         [](unsigned char b) { return static_cast<unsigned char>(b + tlsf_align_size()); }, false},
    };
    for (std::size_t next_bytes : {24u, 200u, 5000u}) {
        for (const Damage &d : damages) {
            SCOPED_TRACE(std::string(d.name) + " into a block of " + std::to_string(next_bytes));
            Arena a(kPool);
            Neighbours n;
            ASSERT_TRUE(MakeNeighbours(a, 1000, next_bytes, &n));
            const unsigned char old = LoadByte(NextSizeWord(n.before));
            if (d.value(old) == old) continue; // (a NUL over a span whose low byte is 0)
            OverflowOneByte(n.before, d.value);
            a.log.Clear();
            tlsf_free(a, n.next);
            ASSERT_EQ(a.log.events.size(), 1u);
            const tlsf_error_t reason = a.log.events[0].reason;
            if (d.one_flag)
                EXPECT_EQ(reason, TLSF_ERROR_CORRUPT_BLOCK) << tlsf_error_string(reason);
            else
                EXPECT_TRUE(DamagedHeaderReason(reason)) << tlsf_error_string(reason);
            EXPECT_TRUE(a.AllRefuse(reason, n.next));
            EXPECT_TRUE(a.AllRefuse(TLSF_ERROR_CORRUPT_BLOCK, n.before));
            EXPECT_EQ(tlsf_check(a), 0);
            EXPECT_TRUE(a.ServesOnlyFreeMemory());
        }
    }
}

// Case 6 by name: an overflow that sets only the FREE flag of a block in use is a corrupt
// block, never a double free (only a header a backward merge left inside a free block is).
TEST(Hardening, AnOverflowThatSetsOnlyTheFreeFlagIsNoDoubleFree) {
    if (const char *why = WithoutSeals()) GTEST_SKIP() << why;
    for (std::size_t next_bytes : {24u, 5000u}) {
        Arena a(kPool);
        Neighbours n;
        ASSERT_TRUE(MakeNeighbours(a, 300, next_bytes, &n));
        OverflowOneByte(n.before, [](unsigned char b) { return b | kFreeFlag; });
        EXPECT_TRUE(a.AllRefuse(TLSF_ERROR_CORRUPT_BLOCK, n.next)) << next_bytes;
        EXPECT_TRUE(a.ServesOnlyFreeMemory());
    }
}

// A use after free writes the last word of a free block: the back-link of the block after
// it, which that block's free follows to merge. Pointed anywhere but at the free block (0,
// outside the pools, misaligned, a block in use, another free block, the block itself), the
// free is refused as a corrupt block and nothing changes.
TEST(Hardening, AForgedBackLinkIsNotFollowed) {
    if (const char *why = WithoutSeals()) GTEST_SKIP() << why;
    alignas(64) static unsigned char elsewhere[256];
    for (int target = 0; target < 6; ++target) {
        SCOPED_TRACE(target);
        Arena a(kPool);
        a.Hold(100);
        unsigned char *freed = a.Hold(5000);
        unsigned char *next = a.Hold(1500); // not cached: its free merges at once
        unsigned char *in_use = a.Hold(2000);
        a.Hold(100);
        unsigned char *other_free = a.Hold(5000);
        a.Hold(100);
        ASSERT_TRUE(freed && next && in_use && other_free);
        ASSERT_EQ(NextBlock(freed), next);
        const std::size_t usable = tlsf_block_size(freed);
        a.Release(freed);
        a.Release(other_free);
        const std::uintptr_t targets[] = {0,
                                          Addr(elsewhere + 64),
                                          Addr(BlockStart(freed)) + 8,
                                          Addr(BlockStart(in_use)),
                                          Addr(BlockStart(other_free)),
                                          Addr(BlockStart(next))};
        StoreWord(BackLinkOfNext(freed, usable), targets[target]);
        EXPECT_TRUE(a.Refuses(TLSF_ERROR_CORRUPT_BLOCK, next, [&] { tlsf_free(a, next); }));
        EXPECT_GT(tlsf_check(a), 0) << "the check follows the back-links of free blocks";
        EXPECT_TRUE(a.ServesOnlyFreeMemory());
    }
}

// ---- 3. A pointer from an earlier heap created in the same memory --------------------------

// Destroy a heap, create a new one in the same memory with the same pool, and free, resize or
// size a pointer of the earlier heap: refused as a bad pointer (each creation has its own
// key), statistics and blocks unchanged, and later allocations never overlap.
TEST(Hardening, APointerOfAnEarlierHeapInTheSameMemoryIsRefused) {
    if (const char *why = WithoutSeals()) GTEST_SKIP() << why;
    Arena a(kPool);
    a.Hold(100);
    std::vector<unsigned char *> stale = {a.Hold(24), a.Hold(300), a.Hold(2000), a.Hold(5000)};
    for (unsigned char *p : stale)
        ASSERT_NE(p, nullptr);
    const tlsf_t before = a.heap();
    a.Recreate();
    ASSERT_EQ(a.heap(), before) << "the same memory";
    for (unsigned char *p : stale)
        EXPECT_TRUE(a.AllRefuse(TLSF_ERROR_BAD_POINTER, p)) << static_cast<void *>(p);
    // Again with blocks of the new heap over the old ones (their contents left as they were,
    // so the old headers lie in the new blocks' memory).
    std::vector<void *> fresh;
    for (std::size_t n : {40u, 600u, 1500u, 7000u})
        fresh.push_back(tlsf_malloc(a, n));
    const std::vector<WalkedBlock> blocks = Walk(a.pools[0].pool);
    for (unsigned char *p : stale) {
        // (Unless the new heap's layout put a block of its own at the same address.)
        bool a_block_now = false;
        for (const WalkedBlock &b : blocks)
            a_block_now = a_block_now || b.ptr == p;
        if (!a_block_now) {
            EXPECT_TRUE(a.AllRefuse(TLSF_ERROR_BAD_POINTER, p)) << static_cast<void *>(p);
        }
    }
    for (void *f : fresh)
        a.Keep(f);
    EXPECT_EQ(a.Errors(), 0);
    EXPECT_TRUE(a.ServesOnlyFreeMemory());
}

// ---- 4. The seal is not linear -------------------------------------------------------------

// A header (with its block and the next header) copied to an address that differs in one bit,
// its flags changed in one bit: with a seal linear in XOR, bit 28 + k of the address and bit k
// of the word cancelled out, and such a copy passed every check. Every address bit the
// memory allows, every flag, and a plain copy: each is refused as a bad pointer.
TEST(Hardening, AHeaderCopiedToAnotherAddressIsRefusedWhateverBitsDiffer) {
    if (const char *why = WithoutSeals()) GTEST_SKIP() << why;
    // A reservation twice as large as the largest distance tried, the pool in its middle;
    // pages are committed only where the copies land.
    std::unique_ptr<HugeRegion> region;
    unsigned top = 0;
    for (unsigned bits = std::min<unsigned>(34, sizeof(std::size_t) * 8 - 2); bits >= 20; --bits) {
        region = std::make_unique<HugeRegion>(std::size_t(1) << bits);
        if (region->valid()) {
            top = bits - 2; // the largest distance 2^top, the pool 2^(bits-1) in
            break;
        }
    }
    if (top == 0) GTEST_SKIP() << "no address space for the copies";
    Arena a;
    unsigned char *pool = reinterpret_cast<unsigned char *>(
        AlignDown(Addr(region->data()) + region->size() / 2, kPool));
    ASSERT_NE(a.AddPool(pool, kPool), nullptr);
    a.Hold(100);
    unsigned char *p = a.Hold(200);
    a.Hold(100);
    ASSERT_NE(p, nullptr);
    const std::size_t usable = tlsf_block_size(p);
    const std::size_t copy_bytes = HeaderBytes() + usable + Overhead();
    const unsigned flags[] = {0, kFreeFlag, kPrevFreeFlag, kAlignedFlag, 8};
    std::size_t tried = 0;
    // Distances below twice the pool land inside it (interior pointers: Misuse.*).
    for (unsigned bit = Log2Floor(2 * kPool); bit <= top; ++bit) {
        unsigned char *copy =
            reinterpret_cast<unsigned char *>(Addr(p) ^ (std::uintptr_t(1) << bit));
        for (unsigned flag : flags) {
            SCOPED_TRACE("address bit " + std::to_string(bit) + ", flag " + std::to_string(flag));
            RawCopy(BlockStart(copy), BlockStart(p), copy_bytes);
            StoreByte(SizeWordOf(copy),
                      static_cast<unsigned char>(LoadByte(SizeWordOf(copy)) ^ flag));
            StoreByte(copy + usable, static_cast<unsigned char>(LoadByte(NextSizeWord(p)) ^ flag));
            EXPECT_TRUE(a.AllRefuse(TLSF_ERROR_BAD_POINTER, copy));
            ++tried;
        }
    }
    RecordProperty("address_bits_tried", static_cast<int>(top + 1 - Log2Floor(2 * kPool)));
    EXPECT_GT(tried, 0u);
    EXPECT_TRUE(a.ServesOnlyFreeMemory());
}

// ---- 5. tlsf_remove_pool of a pool that is not this heap's ---------------------------------

// Another heap's pool (empty or in use, apart or between this heap's pools), a misaligned
// pointer, memory outside the pools: refused as a bad pool, both heaps unchanged.
TEST(Hardening, RemovePoolRefusesAnotherHeapsPool) {
    if (const char *why = WithoutSeals()) GTEST_SKIP() << why;
    Region memory(3 * kPool);
    Arena a, b;
    ASSERT_NE(a.AddPool(memory.data(), kPool), nullptr);
    ASSERT_NE(b.AddPool(memory.data() + kPool, kPool), nullptr); // between a's two pools
    ASSERT_NE(a.AddPool(memory.data() + 2 * kPool, kPool), nullptr);
    Arena apart(kPool);
    for (int in_use = 0; in_use < 2; ++in_use) {
        SCOPED_TRACE(in_use ? "pools in use" : "empty pools");
        for (Arena *other : {&b, &apart}) {
            const Snapshot other_before = other->Take();
            EXPECT_TRUE(a.Refuses(TLSF_ERROR_BAD_POOL, other->pools[0].pool,
                                  [&] { tlsf_remove_pool(a, other->pools[0].pool); }));
            EXPECT_TRUE(other->log.events.empty());
            EXPECT_TRUE(SameHeap(other_before, other->Take()));
            EXPECT_EQ(other->Errors(), 0);
        }
        alignas(64) static unsigned char outside[1024];
        EXPECT_TRUE(a.Refuses(TLSF_ERROR_BAD_POOL, outside,
                              [&] { tlsf_remove_pool(a, reinterpret_cast<pool_t>(outside)); }));
        pool_t misaligned = reinterpret_cast<pool_t>(a.pools[0].start + 1);
        EXPECT_TRUE(
            a.Refuses(TLSF_ERROR_BAD_POOL, misaligned, [&] { tlsf_remove_pool(a, misaligned); }));
        if (!in_use) {
            for (Arena *h : {&a, &b, &apart})
                for (int i = 0; i < 3; ++i)
                    h->Hold(500);
        }
    }
    // The heaps still work, each within its own pools.
    EXPECT_TRUE(b.ServesOnlyFreeMemory());
    EXPECT_TRUE(a.ServesOnlyFreeMemory());
    EXPECT_TRUE(apart.ServesOnlyFreeMemory());
}

// A pool argument inside this heap's own pool that is no pool's start: at a block in use,
// and at a free block whose "sentinel" (the word before it, the last word of the block in
// use before it) the program happened to set to the block after it. Refused, nothing changes.
TEST(Hardening, RemovePoolRefusesAnAddressInsideAPool) {
    if (const char *why = WithoutSeals()) GTEST_SKIP() << why;
    Arena a(kPool);
    a.Hold(100);
    unsigned char *before = a.Hold(300);
    unsigned char *freed = a.Hold(3000);
    unsigned char *after = a.Hold(300);
    a.Hold(100);
    ASSERT_TRUE(before && freed && after);
    auto pool_at = [](void *p) {
        return reinterpret_cast<pool_t>(static_cast<unsigned char *>(p) - FirstBlockOffset());
    };
    auto refused = [&](pool_t pool) {
        const Snapshot snapshot = a.Take();
        a.log.Clear();
        tlsf_remove_pool(a, pool);
        ::testing::AssertionResult r =
            ReportedOnce(a, {TLSF_ERROR_BAD_POOL, TLSF_ERROR_POOL_IN_USE});
        if (!r) return r;
        r = SameHeap(snapshot, a.Take());
        if (!r) return r;
        return a.Intact();
    };
    EXPECT_TRUE(refused(pool_at(before)));
    a.Release(freed);
    // The program's own data: the last word of `before` holds the address of `after`'s block.
    a.Unchecked(before);
    StoreWord(BackLinkOfNext(before, tlsf_block_size(before)), Addr(BlockStart(after)));
    EXPECT_TRUE(refused(pool_at(freed)));
    EXPECT_EQ(a.Errors(), 0);
    EXPECT_TRUE(a.ServesOnlyFreeMemory());
}

// ---- 2. An overflow into a slab's own header ------------------------------------------------

// The block before a slab overflows into the slab's header. Its own free reports it; the
// slab's release, when its objects are freed and the cache flushed, must not re-seal the
// damaged word and merge with what it claims.
TEST(Hardening, AnOverflowIntoASlabsHeaderIsNotSealedAgain) {
    if (const char *why = WithoutSeals()) GTEST_SKIP() << why;
    if (!kSlabs) GTEST_SKIP() << "no slabs in this configuration";
    // The first block's user pointer on a slab boundary; a block of one slab's size in front
    // puts the slab right behind it.
    ASSERT_GT(FirstBlockOffset(), 0u);
    for (unsigned char flag : {kPrevFreeFlag, kFreeFlag}) {
        SCOPED_TRACE(static_cast<int>(flag));
        Arena a(kPool, kSlabBytes - FirstBlockOffset());
        unsigned char *front = a.Hold(kSlabBytes - Word());
        ASSERT_NE(front, nullptr);
        ASSERT_EQ(tlsf_slabs_enable(a, kSlabBytes), 0);
        unsigned char *object = a.Hold(24);
        ASSERT_NE(object, nullptr);
        ASSERT_EQ(Addr(NextBlock(front)), AlignDown(Addr(object), kSlabBytes))
            << "the slab right after the front block";
        OverflowOneByte(front,
                        [flag](unsigned char b) { return static_cast<unsigned char>(b | flag); });
        EXPECT_TRUE(a.AllRefuse(TLSF_ERROR_CORRUPT_BLOCK, front));
        a.Release(object); // the slab is empty now
        a.log.Clear();
        tlsf_cache_flush(a); // releases the empty slab: its header is checked first
        EXPECT_TRUE(ReportedOnce(a, {TLSF_ERROR_CORRUPT_BLOCK}));
        EXPECT_TRUE(a.ServesOnlyFreeMemory());
    }
}

// ---- The heap's own lists: links and headers of free, cached and slab blocks --------------

// A use after free zeroes the stack link of a cached block, or writes a pointer of its own
// there (a block in use, memory outside the heap): the pop that reads it reports a corrupt
// list, and no allocation returns the forged pointer or loses the class for good.
TEST(HardeningMetadata, AUseAfterFreeWriteToACachedBlocksLinkIsReported) {
    if (const char *why = WithoutSeals()) GTEST_SKIP() << why;
    if (!kCache) GTEST_SKIP() << "no front cache";
    alignas(64) static unsigned char elsewhere[256];
    for (int forged = 0; forged < 3; ++forged) {
        SCOPED_TRACE(forged);
        Arena a(kPool);
        unsigned char *victim = a.Hold(2000);
        std::vector<unsigned char *> cached;
        for (int i = 0; i < 4; ++i) {
            cached.push_back(a.Hold(24));
            a.Hold(100);
        }
        for (unsigned char *c : cached)
            a.Release(c);
        const std::uintptr_t values[] = {0, Addr(victim), Addr(elsewhere + 64)};
        StoreWord(cached.back(), values[forged]); // the top of the stack
        a.log.Clear();
        std::vector<void *> got;
        for (int i = 0; i < 3; ++i) {
            void *p = tlsf_malloc(a, 24);
            EXPECT_NE(p, static_cast<void *>(victim));
            EXPECT_NE(p, static_cast<void *>(elsewhere + 64));
            if (p != nullptr) got.push_back(a.Keep(p));
        }
        EXPECT_TRUE(ReportedOnce(a, {kCorruptList}));
        EXPECT_TRUE(a.ServesOnlyFreeMemory());
    }
}

// The same for the link of a freed slab object.
TEST(HardeningMetadata, AUseAfterFreeWriteToAFreedSlabObjectsLinkIsReported) {
    if (const char *why = WithoutSeals()) GTEST_SKIP() << why;
    if (!kSlabs) GTEST_SKIP() << "no slabs in this configuration";
    alignas(64) static unsigned char elsewhere[256];
    for (int forged = 0; forged < 3; ++forged) {
        SCOPED_TRACE(forged);
        Arena a(kPool);
        ASSERT_EQ(tlsf_slabs_enable(a, kSlabBytes), 0);
        tlsf_cache_set_limit(a, 0); // frees go to the slab's free list
        std::vector<unsigned char *> objects;
        for (int i = 0; i < 8; ++i)
            objects.push_back(a.Hold(24));
        unsigned char *victim = objects[0];
        for (int i = 1; i < 5; ++i)
            a.Release(objects[static_cast<std::size_t>(i)]);
        const std::uintptr_t values[] = {0, Addr(victim), Addr(elsewhere + 64)};
        StoreWord(objects[4], values[forged]); // the last freed: the list's head
        a.log.Clear();
        for (int i = 0; i < 4; ++i) {
            void *p = tlsf_malloc(a, 24);
            EXPECT_NE(p, static_cast<void *>(victim));
            EXPECT_NE(p, static_cast<void *>(elsewhere + 64));
            if (p != nullptr) a.Keep(p);
        }
        EXPECT_TRUE(ReportedOnce(a, {kCorruptList}));
        EXPECT_TRUE(a.ServesOnlyFreeMemory());
    }
}

// A use after free writes the free-list links of a free block (its first two words): zero, a
// block in use, memory outside the heap. The malloc that takes it, or the free that merges
// with it, reports a corrupt list instead of writing through them.
TEST(HardeningMetadata, AUseAfterFreeWriteToAFreeBlocksLinksIsReported) {
    if (const char *why = WithoutSeals()) GTEST_SKIP() << why;
    alignas(64) static unsigned char elsewhere[256];
    for (std::size_t word = 0; word < 2; ++word) {
        for (int forged = 0; forged < 3; ++forged) {
            for (int merge = 0; merge < 2; ++merge) {
                SCOPED_TRACE("word " + std::to_string(word) + ", value " + std::to_string(forged) +
                             (merge ? ", freed next to it" : ", taken by malloc"));
                Arena a(kPool);
                unsigned char *victim = a.Hold(100);
                unsigned char *first = a.Hold(ListRequest());
                unsigned char *between = a.Hold(1500); // not cached: it merges
                unsigned char *second = a.Hold(ListRequest());
                a.Hold(100);
                ASSERT_TRUE(victim && first && between && second);
                a.Release(first);
                a.Release(second); // the list: second, first
                const std::uintptr_t values[] = {0, Addr(BlockStart(victim)), Addr(elsewhere + 64)};
                StoreWord(first + word * sizeof(void *), values[forged]);
                a.log.Clear();
                if (merge) {
                    a.Release(between); // merges with both free blocks: unlinks them
                } else {
                    for (int i = 0; i < 2; ++i)
                        a.Keep(tlsf_malloc(a, ListRequest()));
                }
                // A pop of `first` does not read its back link (it knows the list's head),
                // and the pop of `second` before it writes that link again: harmless.
                if (word == 1 && !merge && a.log.events.empty()) continue;
                // A damaged back link of `first` fails the check of `second` (which `first`
                // must point back at): every malloc of the class reports it again.
                EXPECT_TRUE(Reported(a, {kCorruptList}));
                EXPECT_TRUE(a.Intact());
                EXPECT_TRUE(a.ServesOnlyFreeMemory());
            }
        }
    }
}

// An overflow into the header of a cached block, then a drain: the drain checks the header
// before it trusts the span in it, reports a corrupt block and leaves the block alone.
TEST(HardeningMetadata, AnOverflowIntoACachedBlocksHeaderIsReportedByTheDrain) {
    if (const char *why = WithoutSeals()) GTEST_SKIP() << why;
    if (!kCache) GTEST_SKIP() << "no front cache";
    for (int damage = 0; damage < 3; ++damage) {
        SCOPED_TRACE(damage);
        Arena a(kPool);
        Neighbours n;
        ASSERT_TRUE(MakeNeighbours(a, 1000, 24, &n));
        a.Release(n.next); // cached
        OverflowOneByte(n.before, [damage](unsigned char b) {
            return static_cast<unsigned char>(damage == 0   ? b + 4 * tlsf_align_size()
                                              : damage == 1 ? b | kFreeFlag
                                                            : b | kPrevFreeFlag);
        });
        a.log.Clear();
        tlsf_cache_flush(a);
        EXPECT_TRUE(ReportedOnce(a, {TLSF_ERROR_CORRUPT_BLOCK}));
        EXPECT_TRUE(a.AllRefuse(TLSF_ERROR_CORRUPT_BLOCK, n.before));
        EXPECT_TRUE(a.ServesOnlyFreeMemory());
    }
}

// An overflow into the header of a free block on the lists: the malloc that takes it checks
// the header first and reports it, and tlsf_check does not crash on it.
TEST(HardeningMetadata, AnOverflowIntoAFreeBlocksHeaderIsReportedByMalloc) {
    if (const char *why = WithoutSeals()) GTEST_SKIP() << why;
    for (int damage = 0; damage < 3; ++damage) {
        SCOPED_TRACE(damage);
        Arena a(kPool);
        Neighbours n;
        ASSERT_TRUE(MakeNeighbours(a, 1000, ListRequest(), &n));
        a.Release(n.next);
        OverflowOneByte(n.before, [damage](unsigned char b) {
            return static_cast<unsigned char>(damage == 0   ? b + 4 * tlsf_align_size()
                                              : damage == 1 ? b & ~kFreeFlag
                                                            : b | kAlignedFlag);
        });
        EXPECT_GE(tlsf_check(a), 0); // reads the damaged header: must not crash
        a.log.Clear();
        a.Keep(tlsf_malloc(a, ListRequest()));
        EXPECT_TRUE(ReportedOnce(a, {TLSF_ERROR_CORRUPT_BLOCK, kCorruptList}));
        EXPECT_TRUE(a.ServesOnlyFreeMemory());
    }
}

// A use after free writes past the end of a free block, into the header of the block in use
// after it: its span grown by the span of the block after it, so that the header at its new
// end is a real one. A malloc that takes the free block whole (and clears that block's
// PREV_FREE) must not seal the damaged word again: the block's own free must still report it,
// rather than free the block after it, which is in use.
TEST(HardeningMetadata, AWritePastAFreeBlockIsNotSealedAgainByMalloc) {
    if (const char *why = WithoutSeals()) GTEST_SKIP() << why;
    Arena a(kPool);
    a.Hold(100);
    unsigned char *freed = a.Hold(ListRequest());
    unsigned char *next = a.Hold(300);
    unsigned char *after = a.Hold(1500);
    a.Hold(100);
    ASSERT_TRUE(freed && next && after);
    ASSERT_EQ(NextBlock(freed), next);
    ASSERT_EQ(NextBlock(next), after);
    const std::size_t usable = tlsf_block_size(freed);
    const std::size_t after_span = tlsf_block_size(after) + Overhead();
    a.Release(freed); // free, on the lists; its span unchanged (its neighbours are in use)
    unsigned char *word = SizeWordOf(next);
    StoreWord(word, LoadWord(word) + after_span);
    a.log.Clear();
    a.Keep(tlsf_malloc(a, usable)); // takes the free block whole
    const std::size_t reports = a.log.events.size();
    tlsf_free(a, next);
    if (a.log.events.size() == reports) a.Forget(next); // accepted: the program let it go
    EXPECT_FALSE(a.log.events.empty()) << "the damaged header was accepted";
    EXPECT_TRUE(a.ServesOnlyFreeMemory());
}

// A write past a free block reaches the header of the block in use after it (its span grown
// by the next block's). A realloc of the block before the free one grows into the free block
// whole (which would clear that header's PREV_FREE) and then trims (which would set it): the
// damaged header must not be sealed again on the way. The realloc reports it or leaves it as it
// was, and the free of that block still reports it.
TEST(HardeningMetadata, AReallocThatGrowsThroughAFreeBlockDoesNotSealTheHeaderAfterIt) {
    if (const char *why = WithoutSeals()) GTEST_SKIP() << why;
    Arena a(kPool);
    a.Hold(100);
    unsigned char *grown = a.Hold(200);
    unsigned char *freed = a.Hold(ListRequest());
    unsigned char *next = a.Hold(300);
    unsigned char *after = a.Hold(1500);
    a.Hold(100);
    ASSERT_TRUE(grown && freed && next && after);
    ASSERT_EQ(NextBlock(grown), freed);
    ASSERT_EQ(NextBlock(freed), next);
    ASSERT_EQ(NextBlock(next), after);
    const std::size_t after_span = tlsf_block_size(after) + Overhead();
    a.Release(freed);
    unsigned char *word = SizeWordOf(next);
    StoreWord(word, LoadWord(word) + after_span);
    a.log.Clear();
    // Larger than the block, smaller than the block and the free one together.
    void *moved = tlsf_realloc(a, grown, tlsf_block_size(grown) + 40);
    if (moved != nullptr && moved != grown) {
        a.Forget(grown);
        a.Keep(moved);
    }
    const std::size_t reports = a.log.events.size();
    tlsf_free(a, next);
    if (a.log.events.size() == reports) a.Forget(next);
    EXPECT_FALSE(a.log.events.empty()) << "the damaged header was accepted";
    EXPECT_TRUE(a.ServesOnlyFreeMemory());
}

// A write sets the "parked" flag (the cache's and the slabs', just above the largest span and
// outside the seal) in the header of a block in use. When the block before it is freed to the
// lists, the heap updates that header; the user's bytes of the block must stay as they were
// (a parked block's first word is its cache link, which moves with its header).
TEST(HardeningMetadata, AParkedFlagOnABlockInUseLeavesItsBytesAlone) {
    if (const char *why = WithoutSeals()) GTEST_SKIP() << why;
    Arena a(kPool);
    Neighbours n;
    ASSERT_TRUE(MakeNeighbours(a, ListRequest(), 100, &n));
    unsigned char *word = SizeWordOf(n.next);
    StoreWord(word, LoadWord(word) | (std::uintptr_t(1) << TLSF_MAX_BLOCK_LOG2));
    a.log.Clear();
    a.Release(n.before); // to the lists: tells n.next that the block before it is free
    EXPECT_TRUE(a.Intact()) << "the bytes of a block in use changed";
    EXPECT_TRUE(a.ServesOnlyFreeMemory());
}

// A use after free writes the back-link inside a free block before a cached block (cached
// although the block before it is free, where the seal shares the size word): the drain that
// merges the cached block backwards must not follow the forged link.
TEST(HardeningMetadata, AForgedBackLinkOfACachedBlockIsNotFollowedByTheDrain) {
    if (const char *why = WithoutSeals()) GTEST_SKIP() << why;
    if (!kCache) GTEST_SKIP() << "no front cache";
    alignas(64) static unsigned char elsewhere[256];
    for (int forged = 0; forged < 3; ++forged) {
        SCOPED_TRACE(forged);
        Arena a(kPool);
        unsigned char *victim = a.Hold(300);
        unsigned char *freed = a.Hold(5000);
        unsigned char *cached = a.Hold(24);
        a.Hold(100);
        ASSERT_TRUE(victim && freed && cached);
        const std::size_t usable = tlsf_block_size(freed);
        a.Release(freed);
        a.Release(cached);
        bool is_cached = false;
        for (const WalkedBlock &b : Walk(a.pools[0].pool))
            is_cached = is_cached || b.ptr == cached;
        if (!is_cached) GTEST_SKIP() << "a block after a free one is not cached here";
        const std::uintptr_t values[] = {0, Addr(BlockStart(victim)), Addr(elsewhere + 64)};
        StoreWord(BackLinkOfNext(freed, usable), values[forged]);
        a.log.Clear();
        tlsf_cache_flush(a);
        EXPECT_TRUE(ReportedOnce(a, {TLSF_ERROR_CORRUPT_BLOCK, kCorruptList}));
        EXPECT_TRUE(a.ServesOnlyFreeMemory());
    }
}

// The same before a slab: the free block the slab's alignment left in front of it, whose
// last word is the slab block's back-link, written after the free; the slab's release merges
// backwards.
TEST(HardeningMetadata, AForgedBackLinkBeforeASlabIsNotFollowedByItsRelease) {
    if (const char *why = WithoutSeals()) GTEST_SKIP() << why;
    if (!kSlabs) GTEST_SKIP() << "no slabs in this configuration";
    Arena a(kPool);
    ASSERT_EQ(tlsf_slabs_enable(a, kSlabBytes), 0);
    unsigned char *object = a.Hold(24);
    ASSERT_NE(object, nullptr);
    unsigned char *slab = reinterpret_cast<unsigned char *>(AlignDown(Addr(object), kSlabBytes));
    // The slab's block's back-link: the word before its size word.
    StoreWord(BlockStart(slab), 0);
    a.Release(object);
    a.log.Clear();
    tlsf_cache_flush(a);
    EXPECT_TRUE(ReportedOnce(a, {TLSF_ERROR_CORRUPT_BLOCK, kCorruptList}));
    EXPECT_TRUE(a.ServesOnlyFreeMemory());
}

// A write of one byte past a memalign'd block reaches its alignment record (the word realloc
// reads to keep the alignment), not the next header. A realloc that moves the block must not
// shift by a damaged record (undefined behaviour) nor trust it: it either reports the damage or
// returns a block aligned as the heap aligns every block, with the contents kept.
TEST(HardeningMetadata, AnOverflowIntoAnAlignmentRecordIsHarmless) {
    if (const char *why = WithoutSeals()) GTEST_SKIP() << why;
    for (unsigned value : {0x00u, 0x3Fu, 0x40u, 0x7Fu, 0xFFu}) {
        SCOPED_TRACE(static_cast<int>(value));
        Arena a(kPool);
        unsigned char *p = a.Keep(tlsf_memalign(a, 256, 100));
        a.Hold(100);
        ASSERT_NE(p, nullptr);
        const std::size_t usable = tlsf_block_size(p);
        StoreByte(p + usable, static_cast<unsigned char>(value));
        a.log.Clear();
        const std::uint64_t seed = a.Find(p)->seed;
        void *moved = tlsf_realloc(a, p, 2 * kPool); // cannot grow in place: moves
        if (moved != nullptr) {
            EXPECT_TRUE(a.log.events.empty());
            EXPECT_TRUE(IsAligned(moved, Align()));
            EXPECT_TRUE(Holds(moved, usable, seed));
            a.Forget(p);
            a.Keep(moved);
        } else { // refused (reported), or failed: the block stays as it was
            EXPECT_LE(a.log.events.size(), 1u);
            EXPECT_TRUE(a.Intact());
        }
        EXPECT_TRUE(a.ServesOnlyFreeMemory());
    }
}

// tlsf_check follows a free block's span and list links: damaged ones (a span grown far past
// the pool, a zeroed link) must be counted, not followed.
// A free block alone in its class points back at the list head; a use after free adds a word
// to that link. The head's neighbour word then passes for a node that points back (it is the
// head's own link to the block): a list neighbour must be exactly a head node, or the merge
// that unlinks the block would leave its class marked non-empty with the block still first.
TEST(HardeningMetadata, ALinkIntoTheControlStructureMustBeAListHead) {
    if (const char *why = WithoutSeals()) GTEST_SKIP() << why;
    Arena a(kPool);
    const ListBlockBeforeAMerge n = FreeListBlockBeforeAMerge(a);
    ASSERT_TRUE(n.before && n.freed);
    unsigned char *before = n.before, *freed = n.freed;
    unsigned char *back = freed + sizeof(void *);
    ASSERT_LT(LoadWord(back) - Addr(a.heap()), tlsf_size()) << "its back link is a list head";
    StoreWord(back, LoadWord(back) + sizeof(void *));
    ExpectForgedLinkRefused(a, before);
}

// The same with a node inside the heap's state, before the first head, whose next-link word
// holds the block's address: with a pool's first block, the word that records where the
// heap's pools start (a pool starts with its first block where headers are a multiple of
// the alignment).
TEST(HardeningMetadata, ALinkIntoTheHeapsStateIsNoListNode) {
    if (const char *why = WithoutSeals()) GTEST_SKIP() << why;
    Arena a(kPool);
    unsigned char *freed = a.Hold(ListRequest()); // the pool's first block
    unsigned char *after = a.Hold(1500);          // not cached: its free merges
    a.Hold(100);
    ASSERT_TRUE(freed && after);
    unsigned char *control = reinterpret_cast<unsigned char *>(a.heap());
    unsigned char *word = nullptr;
    for (std::size_t at = 0; at + sizeof(void *) <= tlsf_size(); at += sizeof(void *))
        if (LoadWord(control + at) == Addr(BlockStart(freed))) {
            word = control + at;
            break;
        }
    if (word == nullptr) GTEST_SKIP() << "no word of the state holds the block's address here";
    a.Release(freed);
    StoreWord(freed + sizeof(void *), Addr(word - HeaderBytes())); // back link: the state
    ExpectForgedLinkRefused(a, after);
}

// A sized heap holds the heads of fewer classes (tlsf_create_sized): the memory where the
// next class's head would be is not the heap's. A back link forged to point there, where a
// word points back at the block, is no list node either.
TEST(HardeningMetadata, ALinkToAHeadASizedHeapLacksIsRefused) {
    if (const char *why = WithoutSeals()) GTEST_SKIP() << why;
    const std::size_t pool = std::min<std::size_t>(kPool, tlsf_block_size_max() / 4);
    Arena a(SizedFor{pool});
    ASSERT_LT(tlsf_size_for(pool), tlsf_size());
    const ListBlockBeforeAMerge n = FreeListBlockBeforeAMerge(a);
    ASSERT_TRUE(n.before && n.freed);
    unsigned char *before = n.before, *freed = n.freed;
    // Its back link is its class's head; the heap's last class ends its rows: the first
    // class it lacks is `missing - index` heads further.
    const SizeClasses classes;
    auto index_of = [&](std::size_t span) {
        const std::size_t linear = classes.linear_end;
        if (span < linear) return span / Align();
        const unsigned k = Log2Floor(span);
        const std::size_t sl = std::size_t(1) << TLSF_SL_INDEX_LOG2;
        return (k - Log2Floor(linear) + 2) * sl + (span >> (k - TLSF_SL_INDEX_LOG2)) - sl;
    };
    std::size_t row_end = classes.linear_end / 2; // the end of row 0
    while (row_end <= PoolSpan(pool))
        row_end <<= 1;
    const std::size_t count = index_of(row_end);
    const std::size_t index = index_of(classes.RoundDown(tlsf_block_size(freed) + Overhead()));
    unsigned char *head = reinterpret_cast<unsigned char *>(LoadWord(freed + sizeof(void *)));
    ASSERT_LT(Addr(head) - Addr(a.heap()), tlsf_size()) << "its back link is a list head";
    unsigned char *lacking = head + (count - index) * 2 * sizeof(void *);
    ASSERT_GE(Addr(lacking) + HeaderBytes(), Addr(a.heap()) + tlsf_size_for(pool))
        << "past the sized heap's control structure";
    StoreWord(lacking + HeaderBytes(), Addr(BlockStart(freed))); // "points back"
    StoreWord(freed + sizeof(void *), Addr(lacking));
    ExpectForgedLinkRefused(a, before);
}

TEST(HardeningMetadata, TlsfCheckCountsADamagedFreeBlockWithoutFollowingIt) {
    if (const char *why = WithoutSeals()) GTEST_SKIP() << why;
    for (int damage = 0; damage < 2; ++damage) {
        SCOPED_TRACE(damage);
        Arena a(kPool);
        Neighbours n;
        ASSERT_TRUE(MakeNeighbours(a, 1000, ListRequest(), &n));
        a.Release(n.next);
        if (damage == 0)
            StoreWord(SizeWordOf(n.next), LoadWord(SizeWordOf(n.next)) |
                                              std::uintptr_t(1) << (TLSF_MAX_BLOCK_LOG2 - 2));
        else
            StoreWord(n.next, 0);
        EXPECT_GT(tlsf_check(a), 0);
    }
}

// A new slab is cut from a free block whose links or header a use after free damaged: the
// slab's take must check that block as malloc does.
TEST(HardeningMetadata, ANewSlabIsNotCutFromADamagedFreeBlock) {
    if (const char *why = WithoutSeals()) GTEST_SKIP() << why;
    if (!kSlabs) GTEST_SKIP() << "no slabs in this configuration";
    for (int damage = 0; damage < 2; ++damage) {
        SCOPED_TRACE(damage ? "its span" : "its link");
        Arena a(kPool);
        a.Hold(100);
        unsigned char *freed = a.Hold(12000);
        a.Hold(100);
        ASSERT_NE(freed, nullptr);
        a.Keep(tlsf_malloc(a, tlsf_largest_allocatable(a))); // the free block is the only one
        a.Release(freed);
        if (damage)
            StoreWord(SizeWordOf(freed), LoadWord(SizeWordOf(freed)) + 4 * kSlabBytes);
        else
            StoreWord(freed, 0);
        ASSERT_EQ(tlsf_slabs_enable(a, kSlabBytes), 0);
        a.log.Clear();
        void *p = tlsf_malloc(a, 24); // a new slab, from the damaged block
        if (p != nullptr) a.Keep(p);
        EXPECT_TRUE(Reported(a, {kCorruptList, TLSF_ERROR_CORRUPT_BLOCK}));
        EXPECT_TRUE(a.ServesOnlyFreeMemory());
    }
}

// ---- Metadata: what the drain, the pops and the unlinks trust ------------------------------

// A use after free writes past a cached block into the header of the block in use after it
// (its span grown by the next block's): the drain that merges the cached block must not seal
// that header again.
TEST(HardeningMetadata, AWritePastACachedBlockIsNotSealedAgainByTheDrain) {
    if (const char *why = WithoutSeals()) GTEST_SKIP() << why;
    if (!kCache) GTEST_SKIP() << "no front cache";
    Arena a(kPool);
    a.Hold(100);
    unsigned char *cached = a.Hold(24);
    unsigned char *next = a.Hold(300);
    unsigned char *after = a.Hold(1500);
    a.Hold(100);
    ASSERT_TRUE(cached && next && after);
    ASSERT_EQ(NextBlock(cached), next);
    ASSERT_EQ(NextBlock(next), after);
    const std::size_t after_span = tlsf_block_size(after) + Overhead();
    a.Release(cached);
    StoreWord(SizeWordOf(next), LoadWord(SizeWordOf(next)) + after_span);
    a.log.Clear();
    tlsf_cache_flush(a);
    const std::size_t reports = a.log.events.size();
    tlsf_free(a, next);
    if (a.log.events.size() == reports) a.Forget(next);
    EXPECT_FALSE(a.log.events.empty()) << "the damaged header was accepted";
    EXPECT_TRUE(a.ServesOnlyFreeMemory());
}

// The drain merges a cached block with the free block after it, whose span a write past the
// cached block grew over a block in use: the drain must check that header before it trusts it.
TEST(HardeningMetadata, TheDrainChecksTheHeaderOfTheFreeBlockAfter) {
    if (const char *why = WithoutSeals()) GTEST_SKIP() << why;
    if (!kCache) GTEST_SKIP() << "no front cache";
    Arena a(kPool);
    a.Hold(100);
    unsigned char *cached = a.Hold(24);
    unsigned char *freed = a.Hold(ListRequest());
    unsigned char *after = a.Hold(300);
    a.Hold(100);
    ASSERT_TRUE(cached && freed && after);
    ASSERT_EQ(NextBlock(cached), freed);
    ASSERT_EQ(NextBlock(freed), after);
    const std::size_t after_span = tlsf_block_size(after) + Overhead();
    a.Release(cached);
    a.Release(freed);
    StoreWord(SizeWordOf(freed), LoadWord(SizeWordOf(freed)) + after_span);
    a.log.Clear();
    tlsf_cache_flush(a);
    EXPECT_TRUE(Reported(a, {TLSF_ERROR_CORRUPT_BLOCK, kCorruptList}));
    EXPECT_TRUE(a.ServesOnlyFreeMemory());
}

// A write past a slab object into the tag of the next one (fresh, or freed and on the slab's
// list): the malloc that hands that object out must not trust the size in the damaged tag;
// it reports a corrupt block once, and the request is served elsewhere. With and without
// the front cache (which keeps no object: slabs come first either way).
TEST(HardeningMetadata, ASlabPopDoesNotTrustADamagedTag) {
    if (const char *why = WithoutSeals()) GTEST_SKIP() << why;
    if (!kSlabs) GTEST_SKIP() << "no slabs in this configuration";
    for (int run = 0; run < 4; ++run) {
        const bool freed = run % 2 != 0, cached = run / 2 != 0;
        SCOPED_TRACE(std::string(freed ? "a freed object" : "a fresh object") +
                     (cached ? ", the default cache budget" : ", no cache"));
        Arena a(kPool);
        ASSERT_EQ(tlsf_slabs_enable(a, kSlabBytes), 0);
        if (!cached) tlsf_cache_set_limit(a, 0);
        unsigned char *first = a.Hold(24);
        unsigned char *second = freed ? a.Hold(24) : NextBlock(first);
        ASSERT_TRUE(first && second);
        ASSERT_EQ(NextBlock(first), second);
        if (freed) a.Release(second);
        a.Unchecked(first);
        OverflowOneByte(first, [](unsigned char b) {
            return static_cast<unsigned char>(b + 2 * tlsf_align_size());
        });
        a.log.Clear();
        void *p = tlsf_malloc(a, 24);
        EXPECT_NE(p, static_cast<void *>(second));
        EXPECT_NE(p, nullptr); // the lists serve it
        EXPECT_TRUE(ReportedOnce(a, {kCorruptBlock}));
        if (p != nullptr) a.Keep(p);
        EXPECT_TRUE(a.ServesOnlyFreeMemory());
    }
}

// The same for the front cache: a write past a block in use into the header of the cached
// block after it, then a malloc of that class.
TEST(HardeningMetadata, ACachePopDoesNotTrustADamagedHeader) {
    if (const char *why = WithoutSeals()) GTEST_SKIP() << why;
    if (!kCache) GTEST_SKIP() << "no front cache";
    Arena a(kPool);
    Neighbours n;
    ASSERT_TRUE(MakeNeighbours(a, 1000, 24, &n));
    const std::size_t usable = tlsf_block_size(n.next);
    a.Release(n.next);
    OverflowOneByte(n.before, [](unsigned char b) {
        return static_cast<unsigned char>(b + 4 * tlsf_align_size());
    });
    a.log.Clear();
    void *p = tlsf_malloc(a, 24);
    if (p == n.next && a.log.events.empty()) {
        EXPECT_EQ(tlsf_block_size(p), usable) << "the damaged size handed out";
    }
    if (p != nullptr) a.Keep(p);
    EXPECT_TRUE(a.ServesOnlyFreeMemory());
}

// A cached block's link with one bit flipped above the alignment, or the link of another
// cached block copied over it, decodes to an aligned address, which the pop follows: it must
// be refused (inside the pools' range and a cached block of the class) before it is used.
TEST(HardeningMetadata, ACachedLinkThatDecodesAlignedIsNotFollowed) {
    if (const char *why = WithoutSeals()) GTEST_SKIP() << why;
    if (!kCache) GTEST_SKIP() << "no front cache";
    std::vector<int> changes = {-1, static_cast<int>(Log2Floor(Align())), 12, 20, 28};
    if (sizeof(void *) == 8) changes.push_back(40);
    for (int change : changes) {
        SCOPED_TRACE(change < 0 ? std::string("a copied link") : "bit " + std::to_string(change));
        Arena a(kPool);
        std::vector<unsigned char *> cached;
        for (int i = 0; i < 4; ++i) {
            cached.push_back(a.Hold(24));
            a.Hold(100);
        }
        for (unsigned char *c : cached)
            a.Release(c);
        unsigned char *top = cached.back();
        if (change < 0)
            StoreWord(top, LoadWord(cached[1]));
        else
            StoreWord(top, LoadWord(top) ^ (std::uintptr_t(1) << change));
        a.log.Clear();
        EXPECT_TRUE(a.ServesOnlyFreeMemory());
        EXPECT_TRUE(Reported(a, {kCorruptList, TLSF_ERROR_CORRUPT_BLOCK}));
    }
}

// A free block alone in its class; a use after free writes its back link to point into
// memory that still holds an old link back to it (free memory keeps the links of the blocks
// it held: here written on purpose). The neighbours "point back", so the merge that unlinks
// the block trusts the link and leaves its class marked non-empty. A neighbour must be a
// list head or a free block with a sealed header. The same on a compact heap, whose pool
// lies where a full control structure's heads would be: no block there passes for a head.
void LeftoverNeighbourIsRefused(Arena &a) {
    const ListBlockBeforeAMerge n = FreeListBlockBeforeAMerge(a);
    ASSERT_TRUE(n.before && n.freed);
    unsigned char *before = n.before, *freed = n.freed;
    // An old node inside the free block's own memory, whose next link is the block.
    unsigned char *old_node = freed + 8 * Align();
    StoreWord(old_node + HeaderBytes(), Addr(BlockStart(freed)));
    StoreWord(freed + sizeof(void *), Addr(old_node));
    ExpectForgedLinkRefused(a, before);
}

TEST(HardeningMetadata, AListNeighbourOfACompactHeapMustBeAHeadOrASealedFreeBlock) {
    if (const char *why = WithoutSeals()) GTEST_SKIP() << why;
    Arena a(CompactOf{kPool});
    LeftoverNeighbourIsRefused(a);
}

TEST(HardeningMetadata, AListNeighbourMustBeAHeadOrASealedFreeBlock) {
    if (const char *why = WithoutSeals()) GTEST_SKIP() << why;
    Arena a(kPool);
    LeftoverNeighbourIsRefused(a);
}
