// SPDX-License-Identifier: MIT
// tlsf/heap.hpp - a TLSF heap as a C++ object: tlsf::heap and tlsf::static_heap<Bytes>.
//
// A tlsf::heap owns a TLSF control structure and pools placed in memory the program
// provides; it never allocates anything itself. On top of the C API it adds what a shared
// heap needs: an optional lock (<tlsf/lock.hpp>), an optional source of more pools for
// when it runs out, an error handler that stops the program on misuse, and a list of its
// pools so that check() and contains() see all of them.
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

// A heap's statistics; see tlsf_get_stats in tlsf.h.
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

namespace detail {
struct heap_layout; // <tlsf/default_heap.hpp>: where a heap keeps its handle
} // namespace detail

// Where a heap gets another pool when an allocation fails. `obtain(needed, context)`
// returns at least `needed` bytes (enough for the failed request, alignment and overheads
// included) or an empty region. It runs with the heap's lock held, so it must not
// allocate from that heap. The memory must stay valid for the heap's lifetime.
struct pool_source {
    region (*obtain)(std::size_t needed, void *context) = nullptr;
    void *context = nullptr;
};

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
    heap(void *memory, std::size_t bytes) : heap(memory, bytes, std::nothrow) {
        if (handle_ == nullptr) detail::fail(failure::bad_memory, bytes);
    }

    // As above, but never fails loudly: if the memory is unusable the heap is empty
    // (operator bool is false).
    heap(void *memory, std::size_t bytes, std::nothrow_t) noexcept { add_pool(memory, bytes); }

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

    // Ends the heap. Blocks still allocated become invalid; the memory returns to its
    // owner. Nothing is checked or freed: the heap owns nothing. (Under AddressSanitizer
    // the core poisons its pools; they are unpoisoned here, or the owner's next use of
    // the memory - a later stack frame, say - would be reported.) An adopted C heap is
    // left untouched: it lives on with its owner.
    ~heap() {
#if TLSF_DETAIL_ASAN
        for (const pool_link *link = pools_; link != nullptr; link = link->next)
            __asan_unpoison_memory_region(pool_of(link), link->bytes);
#endif
        if (!adopted_) tlsf_destroy(handle_);
    }

    // Whether the heap has memory (a control structure). False for an empty heap.
    explicit operator bool() const noexcept {
        return handle_ != nullptr;
    }

    // Whether this object is a view of a C heap it adopted (heap(tlsf::adopt, ...)).
    bool adopted() const noexcept {
        return adopted_;
    }

    // Give the `bytes` bytes at `memory` to the heap as one more pool; on an empty heap
    // the control structure goes there first. `memory` is aligned up as in the
    // constructor; a region larger than a pool can be (tlsf_block_size_max()) becomes
    // several pools. The memory must not overlap the heap's other memory and must
    // outlive the heap. Returns false, leaving the heap unchanged, if the memory is null
    // or too small. O(1) per pool made.
    bool add_pool(void *memory, std::size_t bytes) noexcept {
        detail::scoped_lock guard{lock_};
        return add_pool_locked(memory, bytes);
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
        void *block = handle_ ? tlsf_calloc(handle_, count, size) : nullptr;
        if (block == nullptr && (size == 0 || count <= SIZE_MAX / size) &&
            grow_locked(count * size, alignment))
            block = tlsf_calloc(handle_, count, size);
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
        void *moved = handle_ ? tlsf_realloc(handle_, block, bytes) : nullptr;
        if (moved == nullptr && bytes != 0 && grow_locked(bytes, alignment))
            moved = tlsf_realloc(handle_, block, bytes);
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

    // The usable size of a block allocated from this heap (at least what was asked for);
    // 0 for nullptr; a pointer that is not a live block of this heap is misuse, reported
    // like a bad deallocate (tlsf_usable_size). Takes the lock: the block's size word also holds
    // the "previous block is free" flag, which a malloc or free of its neighbour changes.
    std::size_t usable_size(const void *block) const noexcept {
        if (block == nullptr) return 0;
        detail::scoped_lock guard{lock_};
        return tlsf_usable_size(handle_, block); // checked: a foreign block is reported
    }

    // The heap's statistics (tlsf_get_stats); all zero for an empty heap. O(1).
    heap_stats stats() const noexcept {
        heap_stats result{};
        detail::scoped_lock guard{lock_};
        if (handle_) tlsf_get_stats(handle_, &result);
        return result;
    }

    // Set peak_used_bytes to the current used_bytes.
    void reset_peak() noexcept {
        detail::scoped_lock guard{lock_};
        if (handle_) tlsf_reset_peak(handle_);
    }

    // The largest request malloc would satisfy right now without growing (exact). O(1).
    std::size_t largest_allocatable() const noexcept {
        detail::scoped_lock guard{lock_};
        return handle_ ? tlsf_largest_allocatable(handle_) : 0;
    }

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
            if (address >= begin && address < begin + link->bytes) return true;
        }
        return false;
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
    bool grow(std::size_t bytes, std::size_t align = alignment) noexcept {
        detail::scoped_lock guard{lock_};
        return grow_locked(bytes, align);
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
    // sizes. Applies to the current control structure and to one created later. False if
    // the size is refused, or slabs are not built (TLSF_SLABS 0, as on 32-bit targets); 0
    // always succeeds.
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
    // that check() and contains() can find every pool.
    struct pool_link {
        pool_link *next;
        std::size_t bytes; // of the pool proper, after the link
    };
    static constexpr std::size_t link_bytes =
        (sizeof(pool_link) + alignment - 1) & ~(alignment - 1);

  public:
    // The least memory heap(memory, bytes) accepts at an aligned `memory`: the control
    // structure and one pool (its link and one smallest block). TLSF_HEAP_MIN_BYTES is the
    // C layer's part (tlsf_config.h).
    static constexpr std::size_t minimum_bytes = TLSF_HEAP_MIN_BYTES + link_bytes;

  private:
    static pool_t pool_of(const pool_link *link) noexcept {
        return reinterpret_cast<pool_t>(const_cast<char *>(reinterpret_cast<const char *>(link)) +
                                        link_bytes);
    }

    bool add_pool_locked(void *memory, std::size_t bytes) noexcept {
        if (memory == nullptr) return false;
        const auto address = reinterpret_cast<std::uintptr_t>(memory);
        const auto skip = static_cast<std::size_t>((alignment - address % alignment) % alignment);
        if (bytes < skip) return false;
        char *next = static_cast<char *>(memory) + skip;
        bytes -= skip;

        tlsf_t target = handle_;
        if (target == nullptr) {
            const std::size_t control = tlsf_size();
            if (bytes < control) return false;
            target = tlsf_create(next);
            tlsf_set_error_handler(target, on_error_, on_error_user_);
            if (slab_bytes_ != 0) tlsf_slabs_enable(target, slab_bytes_);
            next += control;
            bytes -= control;
        }
        // Pools of at most `largest` bytes (the core refuses one whose usable part reaches
        // tlsf_block_size_max()) and at least `smallest` (tlsf.h's minimum: room for one
        // smallest block), each after its link; a remainder too small for a pool is left
        // unused. So the core is never handed a pool it would refuse.
        const std::size_t largest =
            (tlsf_block_size_max() - 1 + tlsf_pool_overhead()) & ~(alignment - 1);
        const std::size_t smallest =
            tlsf_pool_overhead() + tlsf_alloc_overhead() + tlsf_block_size_min();
        bool added = false;
        while (bytes >= link_bytes + smallest) {
            std::size_t pool_bytes = bytes - link_bytes;
            if (pool_bytes > largest) pool_bytes = largest;
            if (tlsf_add_pool(target, next + link_bytes, pool_bytes) == nullptr) break;
            pools_ = ::new (static_cast<void *>(next)) pool_link{pools_, pool_bytes};
            next += link_bytes + pool_bytes;
            bytes -= link_bytes + pool_bytes;
            added = true;
        }
        if (added) handle_ = target;
        return added;
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

    // Called with the lock held after a failed allocation: add a pool from the source.
    bool grow_locked(std::size_t bytes, std::size_t align) noexcept {
        if (source_.obtain == nullptr) return false;
        const std::size_t needed = pool_bytes_for(bytes, align);
        if (needed == 0) return false;
        const region more = source_.obtain(needed, source_.context);
        return more.memory != nullptr && add_pool_locked(more.memory, more.bytes);
    }

    // The rare second attempts of malloc and memalign (lock held), out of line so that
    // the first attempt needs few registers and falls straight through.
    TLSF_DETAIL_COLD void *malloc_after_growing(std::size_t bytes) noexcept {
        return grow_locked(bytes, alignment) ? tlsf_malloc(handle_, bytes) : nullptr;
    }
    TLSF_DETAIL_COLD void *memalign_after_growing(std::size_t align, std::size_t bytes) noexcept {
        return grow_locked(bytes, align) ? tlsf_memalign(handle_, align, bytes) : nullptr;
    }

    tlsf_t handle_ = nullptr;
    pool_link *pools_ = nullptr;
    lock_hooks lock_{};
    pool_source source_{};
    tlsf_error_handler_t on_error_ = &heap::abort_on_misuse;
    void *on_error_user_ = nullptr;
    std::size_t slab_bytes_ = 0; // set_slabs
    bool adopted_ = false;       // a view of a C heap someone else owns
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

// A heap with its own storage of `Bytes` bytes, aligned for TLSF: static storage when the
// object is static, part of the enclosing object or stack frame otherwise. Bytes must
// cover the control structure (see heap's constructor) plus the pool. As a global it is
// built during dynamic initialisation; used from other static constructors, make it a
// function-local static instead. Converts to tlsf::heap&.
template <std::size_t Bytes>
class static_heap : private detail::heap_storage<Bytes>, public heap {
    // A size that cannot hold the control structure and one smallest block fails to
    // compile; the compiler's note names the instantiation, whose second argument is the
    // minimum (heap::minimum_bytes).
    template <std::size_t Have, std::size_t Minimum>
    struct size_check {
        static_assert(Have >= Minimum,
                      "tlsf::static_heap<Bytes>: Bytes is below the minimum for this "
                      "configuration (tlsf::heap::minimum_bytes: see size_check<Bytes, "
                      "Minimum>)");
        static constexpr bool value = true;
    };
    static_assert(size_check<Bytes, heap::minimum_bytes>::value, "");

  public:
    static constexpr std::size_t capacity = Bytes;
    // The least Bytes this configuration accepts.
    static constexpr std::size_t minimum = heap::minimum_bytes;

    // Builds the heap in the storage. Throws std::invalid_argument if Bytes is too small
    // (without exceptions: the failure handler).
    static_heap() : heap(this->bytes, Bytes) {}

    // As above; if Bytes is too small the heap is empty instead (operator bool is false).
    explicit static_heap(std::nothrow_t) noexcept : heap(this->bytes, Bytes, std::nothrow) {}
};

} // namespace tlsf

#endif // TLSF_HEAP_HPP
