// SPDX-License-Identifier: MIT
// tlsf/heap.hpp - a TLSF heap as a C++ object: tlsf::heap and tlsf::static_heap<Bytes>.
//
// A tlsf::heap owns a TLSF control structure and pools placed in memory the program
// provides; it never allocates anything itself. On top of the C API it adds what a shared
// heap needs: an optional lock (<tlsf/lock.hpp>), an optional source of more pools for
// when it runs out (which also takes back the pools trim() and release() return), an
// error handler that stops the program on misuse, a report of the blocks still allocated
// when it is destroyed, a front-cache budget that follows its size, and a list of its
// pools so that check() and contains() see all of them.
//
// Thread safety: every member function takes the heap's lock; without one (the default
// for a heap you make) a heap is for one thread at a time, like std::pmr's unsynchronized
// resources. tlsf::default_heap() is locked.
//
// A heap is neither copyable nor movable. Allocators, memory resources and containers
// hold its address, and every block it handed out belongs to its control structure; a
// moved heap would leave all of them pointing at the old object.
//
// A heap can also adopt a C heap that something else owns (heap(tlsf::adopt, handle,
// lock)): the FreeRTOS port's, or any tlsf_t with its tlsf_lock_t. Then C and C++ share
// one heap and one lock, and the C++ object is only a view of it.
#ifndef TLSF_HEAP_HPP
#define TLSF_HEAP_HPP

#include <cstddef>
#include <cstdint>
#include <new>

#include <tlsf.h>

#include "tlsf/config.hpp"
#include "tlsf/failure.hpp"
#include "tlsf/lock.hpp"

#if TLSF_CPP_HOSTED
#include <cstdio>
#endif

#if TLSF_DETAIL_ASAN
#include <sanitizer/asan_interface.h>
#endif

namespace tlsf {

// The alignment of every block and pool (tlsf_align_size(), known at compile time).
inline constexpr std::size_t alignment = std::size_t{1} << TLSF_ALIGN_LOG2;

// A heap's statistics: tlsf_stats_t of tlsf.h, as heap::stats() fills it. Two fields are
// easy to misread:
//   failed_count         requests that failed: heap::stats() leaves out the misses that
//                        growing the heap then served (the core counts every miss).
//   largest_allocatable  the largest request served WITHOUT draining the front cache: a
//                        lower bound, O(1) and changing nothing. heap::largest_allocatable()
//                        is the exact answer, which drains the cache to give it.
using heap_stats = tlsf_stats_t;

// A span of memory: what a pool source hands over.
struct region {
    void *memory = nullptr;
    std::size_t bytes = 0;
};

// The tag of heap's adopting constructor: tlsf::heap view(tlsf::adopt, handle, lock).
struct adopt_t {
    explicit adopt_t() = default;
};
inline constexpr adopt_t adopt{};

// The tag of heap's compact constructor: tlsf::heap h(memory, bytes, tlsf::compact), a heap
// whose control structure is sized for the memory it is given (tlsf_create_compact).
struct compact_t {
    explicit compact_t() = default;
};
inline constexpr compact_t compact{};

namespace detail {
struct heap_layout; // <tlsf/default_heap.hpp>: where a heap keeps its handle
} // namespace detail

// Where a heap gets another pool when an allocation fails, and where it returns pools it
// no longer needs.
//
// `obtain(needed, context)` returns at least `needed` bytes (enough for the failed request,
// alignment and overheads included) or an empty region. The memory must stay valid until
// the heap gives it back, or for the heap's lifetime.
//
// `give_back(memory, context)`, if set, takes back a region `obtain` returned, exactly as
// it was returned: trim() gives back a pool that holds no block, release() and the
// heap's destructor give back everything. Only a region that became exactly one pool
// (aligned to tlsf::alignment, a multiple of it in size, no larger than a pool can be) is
// ever given back; any other stays until the program ends, as with no give_back at all.
//
// Both run with the heap's lock held, so they must not allocate from that heap.
struct pool_source {
    region (*obtain)(std::size_t needed, void *context) = nullptr;
    void *context = nullptr;
    void (*give_back)(region memory, void *context) = nullptr;
};

class heap;

// Hears a failure of an operation on `where` that cannot return null (tlsf::allocator,
// tlsf::memory_resource, tlsf::heap_resource, tlsf::allocate_unique): the reason and the
// bytes asked for. It runs before the process-wide failure handler (<tlsf/failure.hpp>)
// and the exception; like that one, without exceptions it must not return (if it does,
// the process-wide handler runs, then std::abort).
using heap_failure_handler = void (*)(heap &where, failure reason, std::size_t bytes, void *user);

// Hears that a heap is destroyed while blocks are still allocated from it: how many and
// their bytes (headers included). Those blocks are gone with the heap; a container that
// still holds one will touch freed memory. Runs in the heap's destructor: it must not
// throw.
using leak_handler = void (*)(const heap &leaking, std::size_t live_blocks, std::size_t used_bytes,
                              void *user);

class heap {
  public:
    // An empty heap: every allocation fails (or asks the pool source) until add_pool
    // gives it memory. constexpr: a static heap is initialised before any code runs.
    constexpr heap() noexcept = default;

    // An empty heap locked by `lock` that grows from `source`, as if set_lock and
    // set_pool_source had been called. constexpr, so that a static heap - the default
    // heap - has its lock and source from the start, with no code run at start-up.
    constexpr heap(const lock_hooks &lock, const pool_source &source) noexcept
        : lock_(lock), source_(source) {}

    // A heap over the `bytes` bytes at `memory`: the control structure (tlsf_size()
    // bytes, about 15 KiB on 64-bit targets and 3 KiB on 32-bit ones with the default
    // configuration) and the first pool. `memory` need not be aligned; the bytes skipped
    // to align it count against `bytes`. Throws std::invalid_argument if `memory` is null
    // or too small to hold a control structure and a pool (without exceptions: the
    // failure handler, reason failure::bad_memory).
    //
    // The full control structure, because such a heap may grow: given a pool source
    // (set_pool_source) or more memory (add_pool), it serves blocks as large as those
    // pools, like a std::pmr::monotonic_buffer_resource over a buffer with an upstream.
    // A heap that stays within its memory wastes most of it on small sizes (a quarter of
    // 64 KiB on 64-bit targets): it takes the compact form below, as static_heap does.
    heap(void *memory, std::size_t bytes) : heap(memory, bytes, std::nothrow) {
        if (handle_ == nullptr) detail::fail(failure::bad_memory, bytes);
    }

    // As above, but never fails loudly: if the memory is unusable the heap is empty
    // (operator bool is false).
    heap(void *memory, std::size_t bytes, std::nothrow_t) noexcept { add_pool(memory, bytes); }

    // A compact heap over the `bytes` bytes at `memory`: its control structure holds only
    // the size classes of the pool that follows it (tlsf_create_compact: 5 KiB of 64 KiB on
    // x86-64 instead of 15 KiB), so nearly all the memory serves blocks. The price: no
    // block can ever be larger than that first pool's, and memory given later (add_pool,
    // a pool source) becomes pools of at most that size (requests it cannot serve are not
    // passed to the pool source). `bytes` must be at least compact_minimum_bytes (at an
    // aligned `memory`). Throws or fails as the constructor above.
    heap(void *memory, std::size_t bytes, compact_t) : heap(memory, bytes, compact, std::nothrow) {
        if (handle_ == nullptr) detail::fail(failure::bad_memory, bytes);
    }
    heap(void *memory, std::size_t bytes, compact_t, std::nothrow_t) noexcept : compact_(true) {
        add_pool(memory, bytes);
    }

    // A view of the C heap `handle`, which its owner created and keeps (tlsf_create, the
    // FreeRTOS port's pxPortGetTlsfHeap(), a C library's heap), locked by `lock` - the
    // owner's lock, so that C and C++ exclude each other: *pxPortGetHeapLock() for the
    // FreeRTOS port, lock_hooks{} (the default) for a heap used by one thread. Every
    // operation works on the C heap: blocks from this object and from C code are the same
    // blocks (either side may free them, each under the lock), and stats() counts both.
    // The view owns nothing: its destructor leaves the C heap, its blocks and its front
    // cache as they are; the C heap's error handler stays the owner's until
    // set_error_handler replaces it. check() verifies the control structure (tlsf_check)
    // but not the pools, which only the owner knows, and contains() is false for them;
    // add_pool gives the C heap one more pool, which its owner does not know either (a
    // FreeRTOS firmware adds memory with vPortDefineHeapRegions instead). A null `handle`
    // gives an empty heap, as heap() does. The handle and lock must outlive the view.
    // constexpr and noexcept: nothing is called, so a static view exists before any code
    // runs. O(1).
    constexpr heap(adopt_t, tlsf_t handle, const lock_hooks &lock = lock_hooks{}) noexcept
        : handle_(handle), lock_(lock), adopted_(handle != nullptr) {}

    heap(const heap &) = delete;
    heap &operator=(const heap &) = delete;

    // Ends the heap. Blocks still allocated become invalid: if there are any (known with
    // TLSF_STATS, the default), the leak handler hears of them first (set_leak_handler;
    // by default one line on stderr where there is one). Then every pool obtained from
    // the pool source goes back to it (pool_source::give_back), and memory given with
    // add_pool returns to its owner. No lock is taken: nothing may use a heap that is
    // being destroyed. (Under AddressSanitizer the core poisons its pools; they are
    // unpoisoned here, or the owner's next use of the memory would be reported.) An
    // adopted C heap is left untouched: it lives on with its owner, who counts its blocks.
    ~heap() {
        if (adopted_) {
            for (const pool_link *link = pools_; link != nullptr; link = link->next)
                unpoison(region{const_cast<pool_link *>(link), link_bytes + link->bytes()});
            return;
        }
        report_leaks();
        release_unlocked();
    }

    // Whether the heap has memory (a control structure). False for an empty heap.
    explicit operator bool() const noexcept { return handle_ != nullptr; }

    // Whether this object is a view of a C heap it adopted (heap(tlsf::adopt, ...)).
    bool adopted() const noexcept { return adopted_; }

    // Give the `bytes` bytes at `memory` to the heap as one more pool; on an empty heap
    // the control structure goes there first (the compact one, for a heap built compact).
    // `memory` is aligned up as in the constructor; a region larger than a pool can be
    // (tlsf_block_size_max(), or a compact heap's first pool) becomes several pools. The memory
    // must not overlap the heap's other memory and must outlive the heap (or its release()).
    // Returns false, leaving the heap unchanged, if the memory is null or too small. O(1) per pool
    // made.
    bool add_pool(void *memory, std::size_t bytes) noexcept {
        detail::scoped_lock guard{lock_};
        return add_pool_locked(memory, bytes, false);
    }

    // At least `bytes` usable bytes aligned to tlsf::alignment, or nullptr. bytes == 0
    // gives a unique minimum-size block. O(1) (plus the pool source, if it runs).
    void *malloc(std::size_t bytes) noexcept {
        detail::scoped_lock guard{lock_};
        void *block = handle_ ? tlsf_malloc(handle_, bytes) : nullptr;
        if (block == nullptr) block = malloc_after_growing(bytes);
        TLSF_DETAIL_TRACE(tlsf_trace_malloc(trace_, bytes, block));
        return block;
    }

    // `count * size` zeroed bytes, or nullptr (also when the product overflows).
    void *calloc(std::size_t count, std::size_t size) noexcept {
        detail::scoped_lock guard{lock_};
        const bool searched = handle_ != nullptr;
        void *block = searched ? tlsf_calloc(handle_, count, size) : nullptr;
        if (block == nullptr && (size == 0 || count <= SIZE_MAX / size) &&
            grow_locked(count * size, alignment)) {
            block = tlsf_calloc(handle_, count, size);
            if (searched) count_recovery(block);
        }
        TLSF_DETAIL_TRACE(tlsf_trace_calloc(trace_, count, size, block));
        return block;
    }

    // At least `bytes` usable bytes at a multiple of `align`, or nullptr. `align` must be
    // a power of two (otherwise: nullptr); up to tlsf::alignment this is malloc. O(1).
    void *memalign(std::size_t align, std::size_t bytes) noexcept {
        if (align <= alignment) {
            if (align == 0 || (align & (align - 1)) != 0) return nullptr;
            return malloc(bytes);
        }
        detail::scoped_lock guard{lock_};
        void *block = handle_ ? tlsf_memalign(handle_, align, bytes) : nullptr;
        if (block == nullptr) block = memalign_after_growing(align, bytes);
        TLSF_DETAIL_TRACE(tlsf_trace_memalign(trace_, align, bytes, block));
        return block;
    }

    // Resize the block at `block` (tlsf_realloc): keeps the contents and a memalign
    // alignment; nullptr behaves as malloc; bytes == 0 frees and returns nullptr. On
    // failure returns nullptr and the old block is untouched. O(1) plus the copy.
    void *realloc(void *block, std::size_t bytes) noexcept {
        detail::scoped_lock guard{lock_};
        if (handle_ == nullptr && block != nullptr) return nullptr; // not a block of ours
        const bool searched = handle_ != nullptr;
        void *moved = searched ? tlsf_realloc(handle_, block, bytes) : nullptr;
        if (moved == nullptr && bytes != 0 && grow_locked(bytes, alignment)) {
            moved = tlsf_realloc(handle_, block, bytes);
            if (searched) count_recovery(moved);
        }
        TLSF_DETAIL_TRACE(bytes == 0 && block != nullptr
                              ? tlsf_trace_free(trace_, block)
                              : tlsf_trace_realloc(trace_, block, bytes, moved));
        return moved;
    }

    // Return a block to the heap. nullptr is ignored (without taking the lock). Misuse
    // the core detects (double free, misaligned pointer) goes to the error handler.
    void free(void *block) noexcept {
        if (block == nullptr) return;
        detail::scoped_lock guard{lock_};
        TLSF_DETAIL_TRACE(tlsf_trace_free(trace_, block));
        if (handle_) tlsf_free(handle_, block);
    }

#if TLSF_CPP_TRACE
    // Record every later call on this heap with `recorder` (nullptr: stop), under the heap's
    // lock (<tlsf/config.hpp>, TLSF_CPP_TRACE). Blocks allocated before stay out of the trace.
    void set_trace(tlsf_trace_t *recorder) noexcept {
        detail::scoped_lock guard{lock_};
        trace_ = recorder;
    }
    tlsf_trace_t *trace() const noexcept {
        return trace_;
    }
#endif

    // free() for a caller that knows what it asked for: `bytes` at `align`, as given to
    // malloc, memalign or realloc (C23's free_sized, checked). If the block cannot be
    // one allocated for that size - smaller than `bytes`, or larger than any block a
    // request of `bytes` gets - the block is not freed and the mismatch is misuse: a
    // line on stderr and the error handler (the default aborts; a handler of your own
    // hears TLSF_ERROR_BAD_POINTER and the heap is left as it was). A pointer that is not
    // a live block is reported as by free(). nullptr is ignored. O(1): one more read of
    // the block's header than free(). tlsf::allocator and tlsf::memory_resource use it
    // when TLSF_CPP_SIZE_CHECKS is on (<tlsf/config.hpp>).
    void free_sized(void *block, std::size_t bytes, std::size_t align = alignment) noexcept {
        if (block == nullptr) return;
        detail::scoped_lock guard{lock_};
        if (handle_ == nullptr) return;
        const std::size_t usable = tlsf_usable_size(handle_, block); // 0: reported already
        if (usable == 0) return;
        if (usable < bytes || usable > most_usable_for(bytes, align)) {
            report_size_mismatch(block, bytes, usable);
            return;
        }
        TLSF_DETAIL_TRACE(tlsf_trace_free(trace_, block));
        tlsf_free(handle_, block);
    }

    // The usable size of a block allocated from this heap (at least what was asked for);
    // 0 for nullptr; a pointer that is not a live block of this heap is misuse, reported
    // like a bad deallocate (tlsf_usable_size). Takes the lock: the block's size word also holds
    // the "previous block is free" flag, which a malloc or free of its neighbour changes.
    std::size_t usable_size(const void *block) const noexcept {
        if (block == nullptr) return 0;
        detail::scoped_lock guard{lock_};
        return tlsf_usable_size(handle_, block); // checked: a foreign block is reported
    }

    // The heap's statistics (tlsf_get_stats); all zero for an empty heap. O(1); it changes
    // nothing. See heap_stats for failed_count and largest_allocatable.
    heap_stats stats() const noexcept {
        heap_stats result{};
        detail::scoped_lock guard{lock_};
        if (handle_) tlsf_get_stats(handle_, &result);
        if (result.failed_count >= recovered_misses_) result.failed_count -= recovered_misses_;
        return result;
    }

    // Set peak_used_bytes to the current used_bytes.
    void reset_peak() noexcept {
        detail::scoped_lock guard{lock_};
        if (handle_) tlsf_reset_peak(handle_);
    }

    // The largest request malloc would satisfy right now without growing: exact, so it
    // first gives the front cache back to the free lists (tlsf_largest_allocatable), which
    // is why it is not const. Bounded but not O(1): up to cache_limit() / (2 * the
    // smallest block span) list frees - 240 with the 15 KiB automatic budget of a 256 KiB
    // heap (2.2 us measured on an x86-64 host), 8,192 with the full 512 KiB one (44 us) -
    // plus O(1) for the answer. After the flush, stats().largest_allocatable agrees with
    // it; the cache fills again as blocks are freed. Without a cache (cache_limit() == 0)
    // it is O(1).
    std::size_t largest_allocatable() noexcept {
        detail::scoped_lock guard{lock_};
        return handle_ ? tlsf_largest_allocatable(handle_) : 0;
    }

    // ---- The front cache ----------------------------------------------------------------
    //
    // With TLSF_CACHE (the default on 64-bit hosts) a freed small block waits whole on a
    // stack of its size class instead of being merged, so that the next request of that
    // class is a pop. A request the free lists cannot serve drains the cache first: up to
    // budget / (2 * the smallest span) list frees. The default budget follows the heap's
    // size: 1/16 of its pool memory, at most TLSF_CACHE_BYTES (512 KiB), recomputed as pools
    // come and go. A 256 KiB heap thus gets 15 KiB: a drain after a container's teardown
    // took 2.2 us, against 44 us with the full budget, and at most 1/32 of the heap waits
    // unmerged. The price: a container that fits whole in the full budget ran up to a
    // quarter faster with it (docs/cpp.md, "The front cache"); set_cache_limit(TLSF_CACHE_BYTES)
    // buys that back where latency does not matter. From 8 MiB of pools on a heap has the
    // full budget. The default heap keeps the full budget it was measured with; an
    // adopted C heap keeps its owner's until set_cache_limit is called.

    // Set the cache budget to `bytes` (at most TLSF_CACHE_BYTES; 0: no cache) for this
    // heap from now on, in place of the automatic one; the cache is flushed if it holds
    // more. Returns the budget in force: 0 where the cache is compiled out (TLSF_CACHE 0).
    // On an empty heap it applies to the control structure made later.
    std::size_t set_cache_limit(std::size_t bytes) noexcept {
        detail::scoped_lock guard{lock_};
        cache_request_ = bytes < cache_ceiling ? bytes : cache_ceiling;
        return apply_cache_budget();
    }

    // Return to the automatic budget (see above). Returns the budget now in force.
    std::size_t set_cache_limit_automatic() noexcept {
        detail::scoped_lock guard{lock_};
        cache_request_ = automatic_cache;
        return apply_cache_budget();
    }

    // The cache budget this object gave the heap (0 without a cache or a control
    // structure, and for an adopted C heap until set_cache_limit).
    std::size_t cache_limit() const noexcept {
        detail::scoped_lock guard{lock_};
        return cache_budget_;
    }

    // Give every cached block back to the free lists, merged with its free neighbours
    // (tlsf_cache_flush). Bounded as a drain is (see above); nothing without a cache.
    void flush_cache() noexcept {
        detail::scoped_lock guard{lock_};
        if (handle_) tlsf_cache_flush(handle_);
    }

    // ---- Returning memory ---------------------------------------------------------------

    // Give back to the pool source every pool it provided that now holds no block
    // (pool_source::give_back); returns the bytes given back, 0 without give_back. The
    // cache is flushed first, so that its blocks do not keep a pool. The pool that holds
    // the control structure stays; an adopted C heap gives nothing back (its pools are its
    // owner's). Linear in the number of pools; not for real-time paths.
    std::size_t trim() noexcept {
        detail::scoped_lock guard{lock_};
        if (handle_ == nullptr || source_.give_back == nullptr || adopted_) return 0;
        std::size_t given = 0;
        bool in_use = false;
        // A pool that holds blocks is not misuse here: tlsf_remove_pool refuses it, and
        // this handler only notes the refusal.
        tlsf_set_error_handler(handle_, &note_pool_in_use, &in_use);
        for (pool_link **place = &pools_; *place != nullptr;) {
            pool_link *link = *place;
            if (!link->returnable()) {
                place = &link->next;
                continue;
            }
            in_use = false;
            tlsf_remove_pool(handle_, pool_of(link));
            if (in_use) {
                place = &link->next;
                continue;
            }
            *place = link->next;
            const region whole{link, link_bytes + link->bytes()};
            unpoison(whole);
            source_.give_back(whole, source_.context);
            given += whole.bytes;
        }
        tlsf_set_error_handler(handle_, on_error_, on_error_user_);
        apply_cache_budget();
        return given;
    }

    // Forget every block and pool at once, as std::pmr's release(): every block allocated
    // from the heap becomes invalid, the pools from the pool source go back to it, memory
    // given with add_pool returns to its owner, and the heap is empty (operator bool
    // false) until it is given memory again or grows. No leak is reported: this is the
    // way to drop a heap's contents on purpose. Its settings (lock, source, handlers,
    // slabs, cache budget) stay. Linear in the number of pools. On an adopted C heap it
    // does nothing: the heap and its blocks are its owner's.
    void release() noexcept {
        detail::scoped_lock guard{lock_};
        if (!adopted_) release_unlocked();
    }

    // ---- Handlers -----------------------------------------------------------------------

    // Hear failures of the layers above this heap (see heap_failure_handler); nullptr: none.
    // Set it before the heap is shared, like the lock.
    void set_failure_handler(heap_failure_handler handler, void *user = nullptr) noexcept {
        on_failure_ = handler;
        on_failure_user_ = user;
    }

    // Report that an operation on this heap that cannot return null failed: this heap's
    // failure handler, then the process-wide one, then std::bad_alloc and friends
    // (without exceptions: std::abort). For the layers above (allocators, resources).
    [[noreturn]] TLSF_DETAIL_COLD void report_failure(failure reason, std::size_t bytes) {
        if (on_failure_ != nullptr) on_failure_(*this, reason, bytes, on_failure_user_);
        detail::fail(reason, bytes);
    }

    // Hear the destruction of this heap with blocks still allocated (see leak_handler);
    // nullptr: stay silent. The default is print_leaks.
    void set_leak_handler(leak_handler handler, void *user = nullptr) noexcept {
        on_leak_ = handler;
        on_leak_user_ = user;
    }

    // The default leak handler: one line on stderr where there is one (nothing on bare
    // metal). The program goes on: a leak at exit is common and harmless.
    static void print_leaks(const heap &leaking, std::size_t live_blocks, std::size_t used_bytes,
                            void *) noexcept {
#if TLSF_CPP_HOSTED
        std::fprintf(stderr, "tlsf: heap %p destroyed with %zu live blocks (%zu bytes)\n",
                     static_cast<const void *>(&leaking), live_blocks, used_bytes);
#else
        (void)leaking;
        (void)live_blocks;
        (void)used_bytes;
#endif
    }

    // The C heap, for the functions of tlsf.h this class does not wrap; nullptr while
    // empty. Calls through it bypass the lock (take get_lock(), e.g. with tlsf_locked_*).
    tlsf_t native_handle() const noexcept {
        return handle_;
    }

    // Ask the pool source for a pool that surely serves a request of `bytes` at `align`
    // and add it: what malloc and memalign do when the free lists fail, for a caller that
    // searched them itself through native_handle() under get_lock(). True if a pool was
    // added; false without a source, or when it gave nothing usable. Takes the lock.
    // (malloc_after_miss does this and the second search in one call, and keeps the
    // statistics exact.)
    bool grow(std::size_t bytes, std::size_t align = alignment) noexcept {
        detail::scoped_lock guard{lock_};
        return grow_locked(bytes, align);
    }

    // For a caller that searched the free lists itself (native_handle() under get_lock())
    // for `bytes` at `align` and found nothing: grow from the pool source, then search once
    // more, as malloc and memalign do. A request served this way is left out of
    // stats().failed_count, since it did not fail. nullptr when it cannot be served.
    TLSF_DETAIL_COLD void *malloc_after_miss(std::size_t bytes,
                                             std::size_t align = alignment) noexcept {
        detail::scoped_lock guard{lock_};
        return align <= alignment ? malloc_after_growing(bytes)
                                  : memalign_after_growing(align, bytes);
    }

    // The lock set by set_lock (or the constructor); lock_hooks{} when there is none.
    const lock_hooks &get_lock() const noexcept {
        return lock_;
    }

    // Lock every later operation with `hooks` (lock_hooks{}: no lock). Set it before the
    // heap is shared; changing it while another thread uses the heap is a data race.
    void set_lock(const lock_hooks &hooks) noexcept {
        lock_ = hooks;
    }

    // Ask `source` for another pool when an allocation fails, then retry once
    // (pool_source{}: never grow). Set before the heap is shared, like the lock.
    void set_pool_source(const pool_source &source) noexcept {
        source_ = source;
    }

    // Install the handler that hears about misuse (see tlsf_error_handler_t). The default
    // is abort_on_misuse; nullptr selects the core's default (TLSF_DEFAULT_ERROR_HANDLER in
    // tlsf_config.h: a message and abort on hosted builds; on bare metal the faulty call
    // silently does nothing). Applies to the current control structure and to one created
    // later.
    void set_error_handler(tlsf_error_handler_t handler, void *user) noexcept {
        detail::scoped_lock guard{lock_};
        on_error_ = handler;
        on_error_user_ = user;
        if (handle_) tlsf_set_error_handler(handle_, handler, user);
    }

    // Cut requests of up to TLSF_SLAB_REQUEST_MAX bytes (248 on 64-bit targets) from slabs
    // of `slab_bytes` bytes (tlsf_slabs_enable in tlsf.h: a power of two from 4 to 64 KiB,
    // or 0 for none). Their frees never merge, which makes node containers (std::list,
    // std::map) much faster, at the price of memory a full fixed heap cannot use for other
    // sizes; slabs serve their requests before the front cache, which is flushed when they
    // are switched on. Applies to the current control structure and to one created later.
    // False if the size is refused, or slabs are not built (TLSF_SLABS 0, as on 32-bit
    // targets); 0 always succeeds.
    bool set_slabs(std::size_t slab_bytes) noexcept {
        detail::scoped_lock guard{lock_};
        const bool valid = slab_bytes == 0 || (TLSF_SLABS && slab_bytes >= TLSF_SLAB_BYTES_MIN &&
                                               slab_bytes <= TLSF_SLAB_BYTES_MAX &&
                                               (slab_bytes & (slab_bytes - 1)) == 0);
        if (!valid || (handle_ && tlsf_slabs_enable(handle_, slab_bytes) != 0)) return false;
        slab_bytes_ = slab_bytes;
        return true;
    }

    // The slab size in force (set_slabs), 0 without slabs.
    std::size_t slabs() const noexcept {
        return slab_bytes_;
    }

    // The default error handler: reports a double free, a bad pointer or a corrupt block
    // (on stderr where there is one) and stops the program (std::abort, a trap on bare
    // metal), since the program's memory can no longer be trusted. A pool the core refuses is not
    // misuse here - add_pool returns false.
    static void abort_on_misuse(tlsf_t, tlsf_error_t reason, const void *pointer, void *) {
        if (reason == TLSF_ERROR_BAD_POOL) return;
#if TLSF_CPP_HOSTED
        std::fprintf(stderr, "tlsf: %s (pointer %p)\n", tlsf_error_string(reason),
                     const_cast<void *>(pointer));
#else
        (void)pointer;
#endif
        detail::stop_program(); // std::abort(), or a trap on bare metal (<tlsf/failure.hpp>)
    }

  private:
    friend struct detail::heap_layout;

    // Each pool added through add_pool starts with this link (one alignment unit), so
    // that check(), contains(), trim() and release() can find every pool.
    struct pool_link {
        pool_link *next;
        // The bytes of the pool proper, after the link (a multiple of the alignment), and in
        // bit 0 whether the pool is a whole region from the pool source that trim() and
        // release() give back.
        std::size_t bytes_and_returnable;

        std::size_t bytes() const noexcept { return bytes_and_returnable & ~std::size_t{1}; }
        bool returnable() const noexcept { return (bytes_and_returnable & 1) != 0; }
    };
    static constexpr std::size_t link_bytes =
        (sizeof(pool_link) + alignment - 1) & ~(alignment - 1);

  public:
    // The least memory heap(memory, bytes) accepts at an aligned `memory`: the control
    // structure and one pool (its link and one smallest block). TLSF_HEAP_MIN_BYTES is the
    // C layer's part (tlsf_abi.h).
    static constexpr std::size_t minimum_bytes = TLSF_HEAP_MIN_BYTES + link_bytes;
    // The same for a compact heap (heap(memory, bytes, compact), static_heap): a control
    // structure for one row of size classes, and the pool of one smallest block.
    static constexpr std::size_t compact_minimum_bytes = TLSF_COMPACT_MIN_BYTES + link_bytes;

    // Verify the control structure and every pool added through this object
    // (tlsf_check, tlsf_check_pool). True when consistent; an empty heap is. Linear in
    // the number of blocks: for tests and debugging, not for real-time paths.
    bool check() const noexcept {
        detail::scoped_lock guard{lock_};
        if (handle_ == nullptr) return true;
        bool consistent = tlsf_check(handle_) == 0;
        for (const pool_link *link = pools_; link != nullptr; link = link->next)
            consistent = consistent && tlsf_check_pool(pool_of(link)) == 0;
        return consistent;
    }

    // Whether `pointer` lies inside one of the heap's pools. Linear in the number of
    // pools: for assertions and tests.
    bool contains(const void *pointer) const noexcept {
        detail::scoped_lock guard{lock_};
        const auto address = reinterpret_cast<std::uintptr_t>(pointer);
        for (const pool_link *link = pools_; link != nullptr; link = link->next) {
            const auto begin = reinterpret_cast<std::uintptr_t>(pool_of(link));
            if (address >= begin && address < begin + link->bytes()) return true;
        }
        return false;
    }

  private:
    static constexpr std::size_t automatic_cache = SIZE_MAX;
    static constexpr std::size_t cache_ceiling = TLSF_CACHE ? TLSF_CACHE_BYTES : 0;
    // The automatic budget is this fraction of the pool memory (see "The front cache").
    static constexpr std::size_t cache_share_log2 = 4;

    static pool_t pool_of(const pool_link *link) noexcept {
        return reinterpret_cast<pool_t>(const_cast<char *>(reinterpret_cast<const char *>(link)) +
                                        link_bytes);
    }

    static void note_pool_in_use(tlsf_t, tlsf_error_t reason, const void *, void *user) {
        if (reason == TLSF_ERROR_POOL_IN_USE) *static_cast<bool *>(user) = true;
    }

    static void unpoison(const region &memory) noexcept {
#if TLSF_DETAIL_ASAN
        __asan_unpoison_memory_region(memory.memory, memory.bytes);
#else
        (void)memory;
#endif
    }

    // `from_source`: the region came from the pool source's obtain, and may be given back
    // if it becomes exactly one pool (and the control structure, on an empty heap).
    bool add_pool_locked(void *memory, std::size_t bytes, bool from_source) noexcept {
        if (memory == nullptr) return false;
        const std::size_t skip =
            (alignment - reinterpret_cast<std::uintptr_t>(memory) % alignment) % alignment;
        if (bytes < skip) return false;
        const region given{memory, bytes};
        char *next = static_cast<char *>(memory) + skip;
        bytes -= skip;

        tlsf_t target = handle_;
        std::size_t cap = pool_cap_;
        if (target == nullptr) {
            // A compact heap: the largest first pool that fits, with its link, after a
            // control structure sized for it (tlsf_compact_pool_bytes).
            cap = compact_ && bytes > link_bytes ? tlsf_compact_pool_bytes(bytes - link_bytes) : 0;
            if (compact_ && cap == 0) return false;
            const std::size_t control = compact_ ? tlsf_size_for(cap) : tlsf_size();
            if (bytes < control) return false;
            target = compact_ ? tlsf_create_sized(next, cap) : tlsf_create(next);
            tlsf_set_error_handler(target, on_error_, on_error_user_);
            if (slab_bytes_ != 0) tlsf_slabs_enable(target, slab_bytes_);
            next += control;
            bytes -= control;
        }
        // Pools of at most `largest` bytes (the core refuses one whose usable part reaches
        // tlsf_block_size_max(), a compact heap one larger than its first) and at least
        // `smallest` (tlsf.h's minimum: room for one smallest block), each after its link
        // and a multiple of the alignment (the core would leave the rest unused); a
        // remainder too small for a pool is left unused. So the core is never handed a
        // pool it would refuse.
        std::size_t largest = (tlsf_block_size_max() - 1 + tlsf_pool_overhead()) & ~(alignment - 1);
        if (cap != 0 && cap < largest) largest = cap & ~(alignment - 1);
        const std::size_t smallest =
            tlsf_pool_overhead() + tlsf_alloc_overhead() + tlsf_block_size_min();
        pool_link *first = nullptr;
        std::size_t made = 0;
        while (bytes >= link_bytes + smallest) {
            std::size_t pool_bytes = (bytes - link_bytes) & ~(alignment - 1);
            if (pool_bytes > largest) pool_bytes = largest;
            if (tlsf_add_pool(target, next + link_bytes, pool_bytes) == nullptr) break;
            pools_ = ::new (static_cast<void *>(next)) pool_link{pools_, pool_bytes};
            if (first == nullptr) first = pools_;
            ++made;
            next += link_bytes + pool_bytes;
            bytes -= link_bytes + pool_bytes;
        }
        if (made == 0) return false; // (a control structure made here is simply dropped)
        pool_cap_ = cap;
        // A region can be given back only whole, so only one that is exactly one pool
        // (plus, on an empty heap, the control structure).
        const bool whole =
            from_source && source_.give_back != nullptr && skip == 0 && made == 1 && bytes == 0;
        if (handle_ == nullptr) {
            handle_ = target;
            if (whole) control_region_ = given;
        } else if (whole) {
            first->bytes_and_returnable |= 1;
        }
        apply_cache_budget();
        return true;
    }

    // The most usable bytes a block allocated for `bytes` at `align` can have: the size
    // class rounding (less than 1/2^TLSF_SL_INDEX_LOG2 of the request), a remainder too
    // small to split off (below one smallest block span), the alignment padding and, for
    // memalign, the alignment. Generous, so that no correct deallocation is refused.
    static std::size_t most_usable_for(std::size_t bytes, std::size_t align) noexcept {
        const std::size_t slack = (bytes >> TLSF_SL_INDEX_LOG2) + 2 * tlsf_block_size_min() +
                                  2 * tlsf_alloc_overhead() + 2 * alignment +
                                  (align > alignment ? align : 0);
        return bytes > SIZE_MAX - slack ? SIZE_MAX : bytes + slack;
    }

    TLSF_DETAIL_COLD void report_size_mismatch(void *block, std::size_t bytes,
                                               std::size_t usable) noexcept {
#if TLSF_CPP_HOSTED
        std::fprintf(stderr,
                     "tlsf: deallocation size mismatch: %zu bytes given for the block at %p, "
                     "which holds %zu\n",
                     bytes, block, usable);
#else
        (void)bytes;
        (void)usable;
#endif
        if (on_error_ != nullptr) {
            on_error_(handle_, TLSF_ERROR_BAD_POINTER, block, on_error_user_);
        } else {
#if TLSF_DEFAULT_ERROR_HANDLER
            tlsf_default_error_handler(handle_, TLSF_ERROR_BAD_POINTER, block, nullptr);
#endif
        }
    }

    // The budget set_cache_limit asked for, or the automatic one; given to the core.
    std::size_t apply_cache_budget() noexcept {
        if (handle_ == nullptr) return cache_budget_ = 0;
        std::size_t budget = cache_request_;
        if (budget == automatic_cache && adopted_) return cache_budget_; // the owner's
        if (budget == automatic_cache) {
            heap_stats now{};
            tlsf_get_stats(handle_, &now); // pool_bytes is kept even without TLSF_STATS
            budget = now.pool_bytes >> cache_share_log2;
            if (budget > cache_ceiling) budget = cache_ceiling;
        }
        return cache_budget_ = tlsf_cache_set_limit(handle_, budget);
    }

    void report_leaks() const noexcept {
        if (handle_ == nullptr || on_leak_ == nullptr) return;
        heap_stats now{};
        tlsf_get_stats(handle_, &now); // live_blocks is 0 without TLSF_STATS
        if (now.live_blocks != 0) on_leak_(*this, now.live_blocks, now.used_bytes, on_leak_user_);
    }

    // release() without the lock (the destructor's).
    void release_unlocked() noexcept {
        for (const pool_link *link = pools_; link != nullptr; link = link->next)
            unpoison(region{const_cast<pool_link *>(link), link_bytes + link->bytes()});
        tlsf_destroy(handle_);
        pool_link *link = pools_;
        handle_ = nullptr;
        pools_ = nullptr;
        pool_cap_ = 0;
        recovered_misses_ = 0;
        cache_budget_ = 0;
        while (link != nullptr) { // each link lies in the memory it describes: read it first
            pool_link *const next = link->next;
            if (link->returnable())
                source_.give_back(region{link, link_bytes + link->bytes()}, source_.context);
            link = next;
        }
        if (control_region_.memory != nullptr) {
            unpoison(control_region_);
            source_.give_back(control_region_, source_.context);
            control_region_ = region{};
        }
    }

    // The pool size that surely serves a request of `bytes` at `align`: the block with its
    // header, alignment gap and alignment record (all within 16 alignment units), rounded
    // up twice by the "good fit" size classes (less than 1/2^TLSF_SL_INDEX_LOG2 each time:
    // the block, then the block with its gap), the pool overheads and, for an empty heap,
    // the control structure. 0 when no pool could serve it.
    std::size_t pool_bytes_for(std::size_t bytes, std::size_t align) const noexcept {
        const std::size_t limit = tlsf_block_size_max();
        if (bytes >= limit || align >= limit) return 0;
        std::size_t span = bytes + (align > alignment ? align : 0) + 16 * alignment;
        span += span >> TLSF_SL_INDEX_LOG2;
        span += span >> TLSF_SL_INDEX_LOG2;
        span += alignment + link_bytes + tlsf_pool_overhead();
        if (handle_ == nullptr) span += tlsf_size();
        return span;
    }

    // Called with the lock held after a failed allocation: add a pool from the source. A
    // compact heap's pools are at most its first one: a request that needs a larger one is
    // not passed on.
    bool grow_locked(std::size_t bytes, std::size_t align) noexcept {
        if (source_.obtain == nullptr) return false;
        const std::size_t needed = pool_bytes_for(bytes, align);
        if (needed == 0) return false;
        if (pool_cap_ != 0 && needed - link_bytes - alignment > pool_cap_) return false;
        const region more = source_.obtain(needed, source_.context);
        return more.memory != nullptr && add_pool_locked(more.memory, more.bytes, true);
    }

    // A request whose first search failed was served after growing: the core counted the
    // miss, stats() leaves it out.
    void count_recovery(const void *block) noexcept {
        if (block != nullptr) ++recovered_misses_;
    }

    // The rare second attempts of malloc and memalign (lock held), out of line so that
    // the first attempt needs few registers and falls straight through.
    TLSF_DETAIL_COLD void *malloc_after_growing(std::size_t bytes) noexcept {
        const bool searched = handle_ != nullptr;
        if (!grow_locked(bytes, alignment)) return nullptr;
        void *block = tlsf_malloc(handle_, bytes);
        if (searched) count_recovery(block);
        return block;
    }
    TLSF_DETAIL_COLD void *memalign_after_growing(std::size_t align, std::size_t bytes) noexcept {
        const bool searched = handle_ != nullptr;
        if (!grow_locked(bytes, align)) return nullptr;
        void *block = tlsf_memalign(handle_, align, bytes);
        if (searched) count_recovery(block);
        return block;
    }

    tlsf_t handle_ = nullptr;
    pool_link *pools_ = nullptr;
    bool compact_ = false;     // made by the compact constructor (static_heap)
    std::size_t pool_cap_ = 0; // a compact heap's largest pool (its first), 0 otherwise
    lock_hooks lock_{};
    pool_source source_{};
    tlsf_error_handler_t on_error_ = &heap::abort_on_misuse;
    void *on_error_user_ = nullptr;
    std::size_t slab_bytes_ = 0;                  // set_slabs
    bool adopted_ = false;                        // a view of a C heap someone else owns
    std::size_t cache_request_ = automatic_cache; // set_cache_limit
    std::size_t cache_budget_ = 0;                // the budget in force
    std::size_t recovered_misses_ = 0;            // see count_recovery
    region control_region_{};                     // from the source, with the control structure
    heap_failure_handler on_failure_ = nullptr;
    void *on_failure_user_ = nullptr;
#if TLSF_CPP_HOSTED
    leak_handler on_leak_ = &heap::print_leaks;
#else
    leak_handler on_leak_ = nullptr;
#endif
    void *on_leak_user_ = nullptr;
#if TLSF_CPP_TRACE
    tlsf_trace_t *trace_ = nullptr; // set_trace
#endif
};

namespace detail {
// The storage of a static_heap, in a base class so that it exists before the heap base
// is built on it.
template <std::size_t Bytes>
struct heap_storage {
    alignas(tlsf::alignment) unsigned char bytes[Bytes];
};
} // namespace detail

// A heap with its own storage of `Bytes` bytes, aligned for TLSF, inside the object: the
// name says the size is static, not the storage duration. Declared `static` or at
// namespace scope the storage is in .bss; as a member it is part of the enclosing object;
// as a local variable it is on the STACK - fine for a few KiB, a stack overflow for
// megabytes (make it static, or use tlsf::heap over memory you allocate, or a
// tlsf::heap_resource). As a global it is built during dynamic initialisation; used from
// other static constructors, make it a function-local static instead. Converts to
// tlsf::heap&.
//
// A compact heap (heap(memory, bytes, compact)): its control structure holds only the size
// classes of its storage, so a static_heap<64 KiB> keeps 60,304 bytes for blocks on x86-64
// (92%) where the full control structure left 50,080 (76%), and 64,144 on a 32-bit Arm
// target instead of 62,608 (docs/cpp.md); the least Bytes is 1,680 instead of 15,488 on
// x86-64. The price is that no block is larger than the storage, which a static heap's
// blocks never are anyway; memory added later becomes pools of at most that size. Bytes
// must be at least heap::compact_minimum_bytes.
template <std::size_t Bytes>
class static_heap : private detail::heap_storage<Bytes>, public heap {
    // A size that cannot hold the control structure and one smallest block fails to
    // compile; the compiler's note names the instantiation, whose second argument is the
    // minimum (heap::compact_minimum_bytes).
    template <std::size_t Have, std::size_t Minimum>
    struct size_check {
        static_assert(Have >= Minimum,
                      "tlsf::static_heap<Bytes>: Bytes is below the minimum for this "
                      "configuration (tlsf::heap::compact_minimum_bytes: see size_check<Bytes, "
                      "Minimum>)");
        static constexpr bool value = true;
    };
    static_assert(size_check<Bytes, heap::compact_minimum_bytes>::value, "");

  public:
    static constexpr std::size_t capacity = Bytes;
    // The least Bytes this configuration accepts.
    static constexpr std::size_t minimum = heap::compact_minimum_bytes;

    // Builds the heap in the storage. Throws std::invalid_argument if Bytes is too small
    // (without exceptions: the failure handler).
    static_heap() : heap(this->bytes, Bytes, compact) {}

    // As above; if Bytes is too small the heap is empty instead (operator bool is false).
    explicit static_heap(std::nothrow_t) noexcept
        : heap(this->bytes, Bytes, compact, std::nothrow) {}
};

} // namespace tlsf

#endif // TLSF_HEAP_HPP
