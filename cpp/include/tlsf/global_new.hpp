// SPDX-License-Identifier: MIT
// tlsf/global_new.hpp - replaces the global operator new and delete with the default heap.
//
// Include this header in exactly one translation unit of a program (main.cpp, say). It
// defines all twenty replaceable global allocation functions of C++17 - the eight forms of
// operator new and new[] (plain, std::nothrow_t, std::align_val_t, both) and the twelve
// of operator delete and delete[] (plain, sized, aligned, sized and aligned, nothrow,
// aligned and nothrow) - over tlsf::default_heap(). A second inclusion in the same program
// fails to link (the functions are defined twice), rather than splitting the program
// between two heaps. Configure the default heap with the switches of <tlsf/config.hpp>;
// in a single-file firmware image they can be #defined right before this include.
//
// Behaviour, as the standard requires:
//   - new(0) returns a unique non-null pointer; delete of nullptr does nothing.
//   - Alignment: every block is aligned to tlsf::alignment, and the plain forms to at
//     least __STDCPP_DEFAULT_NEW_ALIGNMENT__ (where that is larger, as with
//     -faligned-new=64, they use tlsf_memalign); the align_val_t forms (used for types
//     declared alignas(N) with N above __STDCPP_DEFAULT_NEW_ALIGNMENT__) use tlsf_memalign.
//   - Out of memory: the throwing forms call the installed std::new_handler and retry
//     until it succeeds; with no handler installed they throw std::bad_alloc, or, compiled
//     without exceptions, call the failure handler of <tlsf/failure.hpp> and abort if it
//     returns. The nothrow forms run the same loop but return nullptr where the others
//     would throw (and do not call the failure handler).
//   - Sized delete ignores the size: every block records its own.
//
// Cost: plain new is the default heap's lock, one tlsf_malloc, the unlock and a null
// test, inline; every delete is the lock, tlsf_free and the unlock. With a
// lock known at compile time (TLSF_LOCK_NONE, _EXCHANGE, _STD_MUTEX, _INTERRUPTS) nothing
// is called through a function pointer; on a Cortex-M4 with TLSF_LOCK_INTERRUPTS that is
// about 12 instructions in operator new and 9 in operator delete besides the core's own.
// The hosted lock (tlsf::exchange_lock: an atomic exchange and a store, inline) is not
// taken while the process has a single thread (<tlsf/default_heap.hpp>). First use,
// growth, the new_handler loop, failure and over-alignment are out of line.
//
// Sanitizers: under clang's ThreadSanitizer or MemorySanitizer this header defines no
// operator new or delete (TLSF_CPP_REPLACE_GLOBAL_NEW is 0 there, see <tlsf/config.hpp>):
// their runtimes define them, and a program cannot have both. The program then builds,
// links and runs with the sanitizer's allocator behind new and delete, and
// tlsf::replaces_global_new tells it so; everything else - the default heap, the
// allocators, the resources - is unchanged and instrumented. gcc's sanitizers and clang's
// AddressSanitizer take the replacement.
//
// With TLSF_CPP_DEFAULT_HEAP_PER_THREAD=1 (<tlsf/config.hpp>, CMake target
// tlsf::cpp_thread_heaps) the same functions use the calling thread's own heap instead
// (<tlsf/thread_heaps.hpp>): no lock; delete on another thread returns the block to its
// owner in bounded time; blocks outlive the thread that allocated them.
#ifndef TLSF_GLOBAL_NEW_HPP
#define TLSF_GLOBAL_NEW_HPP

#include <cstddef>
#include <new>

#include "tlsf/config.hpp"
#include "tlsf/default_heap.hpp"
#include "tlsf/failure.hpp"
#include "tlsf/thread_heaps.hpp"

namespace tlsf {
// Whether this program's global operator new and delete are the ones defined below.
inline constexpr bool replaces_global_new = TLSF_CPP_REPLACE_GLOBAL_NEW != 0;
} // namespace tlsf

namespace tlsf::detail {

// The alignment the plain forms must provide. It may exceed tlsf::alignment (i386 has
// 16-byte new alignment with 8-byte TLSF blocks); memalign then takes care of it.
#if defined(__STDCPP_DEFAULT_NEW_ALIGNMENT__)
inline constexpr std::size_t new_alignment = __STDCPP_DEFAULT_NEW_ALIGNMENT__;
#else
inline constexpr std::size_t new_alignment = alignof(std::max_align_t);
#endif

// The plain forms can take any block of the free lists: TLSF's alignment suffices. (Not
// where it is smaller than the alignment new must provide; those go through memalign.)
inline constexpr bool plain_new_is_malloc = new_alignment <= alignment;

// Runs the new_handler for a nothrow form: false when it reports that there is no more
// memory by throwing std::bad_alloc.
inline bool run_new_handler_nothrow(std::new_handler handler) noexcept {
#if TLSF_CPP_EXCEPTIONS
    try {
        handler();
    } catch (const std::bad_alloc &) {
        return false;
    }
#else
    handler();
#endif
    return true;
}

// One attempt of the slow path: the per-thread heaps (which grow by themselves), or the
// default heap, grown first when the fast path already searched its free lists.
inline void *slow_path_attempt(std::size_t bytes, std::size_t align, bool &searched) noexcept {
#if TLSF_CPP_DEFAULT_HEAP_PER_THREAD
    (void)searched;
    return thread_heaps_allocate(bytes, align);
#else
    heap &h = default_heap(); // gives it its memory on first use
    // After a search of the fast path: grow, then search once more (not a second miss).
    void *block = searched ? h.malloc_after_miss(bytes, align) : h.memalign(align, bytes);
    searched = false;
    return block;
#endif
}

// Every form beyond the first attempt: the new_handler loop, then failure - std::bad_alloc
// (or the failure handler without exceptions) for the throwing forms, nullptr for the
// nothrow ones. `searched`: the fast path already searched the free lists for this
// request, so growing the heap is what is left to try before the handler - searching
// again would count a second failure in the heap's statistics. Out of line: only runs when
// memory is short, on first use, and for over-aligned requests.
template <bool nothrow>
TLSF_DETAIL_COLD inline void *new_handler_loop(std::size_t bytes, std::size_t align,
                                               bool searched) noexcept(nothrow) {
    for (;;) {
        if (void *block = slow_path_attempt(bytes, align, searched)) return block;
        std::new_handler handler = std::get_new_handler();
        if constexpr (nothrow) {
            if (handler == nullptr || !run_new_handler_nothrow(handler)) return nullptr;
        } else {
            if (handler == nullptr) fail(failure::out_of_memory, bytes);
            handler();
        }
    }
}

inline void *global_new_slow(std::size_t bytes, std::size_t align, bool searched) {
    return new_handler_loop<false>(bytes, align, searched);
}
inline void *global_new_nothrow_slow(std::size_t bytes, std::size_t align, bool searched) noexcept {
    return new_handler_loop<true>(bytes, align, searched);
}

// The fast path of the plain forms, inline: the lock, one search of the free lists, the
// unlock. No call but tlsf_malloc's, no function pointer, no first-use check: a heap
// without memory has a null handle, and the slow path gives it its memory. `searched`
// tells the slow path whether the free lists were searched (not when the heap has no
// memory yet, or its lock is not known yet).
inline void *allocate_from_free_lists(std::size_t bytes, bool &searched) noexcept {
    searched = false;
#if TLSF_CPP_DEFAULT_HEAP_PER_THREAD
    return thread_heaps_allocate(bytes, new_alignment); // a failure is retried by the slow path
#else
    return default_heap_try_malloc(bytes, searched);
#endif
}

// operator new and new[] (size only).
inline void *global_new(std::size_t bytes) {
    if constexpr (plain_new_is_malloc) {
        bool searched;
        if (void *block = allocate_from_free_lists(bytes, searched)) return block;
        return global_new_slow(bytes, new_alignment, searched);
    } else {
        return global_new_slow(bytes, new_alignment, false);
    }
}

// operator new and new[] with std::nothrow_t.
inline void *global_new_nothrow(std::size_t bytes) noexcept {
    if constexpr (plain_new_is_malloc) {
        bool searched;
        if (void *block = allocate_from_free_lists(bytes, searched)) return block;
        return global_new_nothrow_slow(bytes, new_alignment, searched);
    } else {
        return global_new_nothrow_slow(bytes, new_alignment, false);
    }
}

// Every operator delete: the lock, tlsf_free, the unlock (default_heap_free; a delete
// expression tests for nullptr before calling, so it is rare here).
inline void global_delete(void *block) noexcept {
#if TLSF_CPP_DEFAULT_HEAP_PER_THREAD
    thread_heaps_free(block); // free(nullptr) does nothing
#else
    default_heap_free(block);
#endif
}

inline std::size_t to_size(std::align_val_t align) noexcept {
    return static_cast<std::size_t>(align);
}

} // namespace tlsf::detail

#if TLSF_CPP_REPLACE_GLOBAL_NEW

// ---- operator new: 8 forms ------------------------------------------------------------

void *operator new(std::size_t bytes) {
    return tlsf::detail::global_new(bytes);
}
void *operator new[](std::size_t bytes) {
    return tlsf::detail::global_new(bytes);
}
void *operator new(std::size_t bytes, const std::nothrow_t &) noexcept {
    return tlsf::detail::global_new_nothrow(bytes);
}
void *operator new[](std::size_t bytes, const std::nothrow_t &) noexcept {
    return tlsf::detail::global_new_nothrow(bytes);
}
void *operator new(std::size_t bytes, std::align_val_t align) {
    return tlsf::detail::global_new_slow(bytes, tlsf::detail::to_size(align), false);
}
void *operator new[](std::size_t bytes, std::align_val_t align) {
    return tlsf::detail::global_new_slow(bytes, tlsf::detail::to_size(align), false);
}
void *operator new(std::size_t bytes, std::align_val_t align, const std::nothrow_t &) noexcept {
    return tlsf::detail::global_new_nothrow_slow(bytes, tlsf::detail::to_size(align), false);
}
void *operator new[](std::size_t bytes, std::align_val_t align, const std::nothrow_t &) noexcept {
    return tlsf::detail::global_new_nothrow_slow(bytes, tlsf::detail::to_size(align), false);
}

// ---- operator delete: 12 forms --------------------------------------------------------

void operator delete(void *block) noexcept {
    tlsf::detail::global_delete(block);
}
void operator delete[](void *block) noexcept {
    tlsf::detail::global_delete(block);
}
void operator delete(void *block, std::size_t) noexcept {
    tlsf::detail::global_delete(block);
}
void operator delete[](void *block, std::size_t) noexcept {
    tlsf::detail::global_delete(block);
}
void operator delete(void *block, std::align_val_t) noexcept {
    tlsf::detail::global_delete(block);
}
void operator delete[](void *block, std::align_val_t) noexcept {
    tlsf::detail::global_delete(block);
}
void operator delete(void *block, std::size_t, std::align_val_t) noexcept {
    tlsf::detail::global_delete(block);
}
void operator delete[](void *block, std::size_t, std::align_val_t) noexcept {
    tlsf::detail::global_delete(block);
}
void operator delete(void *block, const std::nothrow_t &) noexcept {
    tlsf::detail::global_delete(block);
}
void operator delete[](void *block, const std::nothrow_t &) noexcept {
    tlsf::detail::global_delete(block);
}
void operator delete(void *block, std::align_val_t, const std::nothrow_t &) noexcept {
    tlsf::detail::global_delete(block);
}
void operator delete[](void *block, std::align_val_t, const std::nothrow_t &) noexcept {
    tlsf::detail::global_delete(block);
}

#endif // TLSF_CPP_REPLACE_GLOBAL_NEW

#endif // TLSF_GLOBAL_NEW_HPP
