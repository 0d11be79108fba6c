// SPDX-License-Identifier: MIT
// tlsf/thread_heaps.hpp - the per-thread default heaps (TLSF_CPP_DEFAULT_HEAP_PER_THREAD=1).
//
// With that switch the global operator new and delete (<tlsf/global_new.hpp>), a
// default-constructed tlsf::allocator and a default tlsf::memory_resource allocate from
// the calling thread's own TLSF heap. The heaps are those of the drop-in malloc
// (malloc/, see its README), used through its prefixed static library
// tlsf_malloc_prefixed, so the C and C++ layers share one implementation:
//
//   - a thread allocates and frees on its own heap without a lock or an atomic
//     read-modify-write: the core's bounded tlsf_malloc / tlsf_free, plus a two-load
//     region-map lookup on free to find the owner (blocks lie in 4 MiB-aligned chunks);
//   - a block freed on another thread is pushed lock-free onto its owner's remote-free
//     list; the owner takes back at most 16 of them on each of its next calls, so every
//     call stays bounded and a remote free is reclaimed within the owner's next calls;
//   - a thread that exits with live blocks leaves its heap to a shared list; a new thread
//     adopts it, and frees into it meanwhile take a lock;
//   - fork from a threaded program is safe (atfork handlers), requests above 1 MiB get a
//     mapping of their own, with a bounded cache of freed ones.
//
// This is not header-only: link the CMake target tlsf::cpp_thread_heaps, which defines
// TLSF_CPP_DEFAULT_HEAP_PER_THREAD=1 program-wide and links tlsf_malloc_prefixed. Linux.
#ifndef TLSF_THREAD_HEAPS_HPP
#define TLSF_THREAD_HEAPS_HPP

#include <cstddef>

#include "tlsf/config.hpp"
#include "tlsf/heap.hpp"

#if TLSF_CPP_DEFAULT_HEAP_PER_THREAD

#if !defined(TLSF_MALLOC_PREFIXED) || !TLSF_MALLOC_PREFIXED
#error "TLSF_CPP_DEFAULT_HEAP_PER_THREAD: link the CMake target tlsf::cpp_thread_heaps"
#endif
#include <tlsf_malloc.h>

namespace tlsf {

// At least `bytes` bytes aligned to `align` (a power of two; 0 or anything up to
// tlsf::alignment means the heap's own alignment) from the calling thread's heap. Zero
// bytes give a minimum-size block; null when the system has no memory (a huge size, or an
// alignment above SIZE_MAX / 2 + 1). O(1) on the thread's own heap, plus taking back at
// most 16 blocks other threads freed into it; the thread's first call, and a request that
// needs a new chunk or its own mapping, take a lock or call the system.
inline void *thread_heaps_allocate(std::size_t bytes, std::size_t align) noexcept {
    if (align <= alignment) return ::tlsfm_malloc(bytes);
    return ::tlsfm_memalign(align, bytes);
}

// Free a block from thread_heaps_allocate (on any thread, including after the thread that
// allocated it exited). Null is ignored. A pointer that no thread heap handed out aborts
// with a message; a double free is reported by the core's checks. O(1): into the caller's
// heap, or one lock-free push onto the owner's remote-free list (a lock when the owner has
// exited and no thread adopted its heap yet).
inline void thread_heaps_free(void *block) noexcept {
    ::tlsfm_free(block);
}

// Usable bytes of a block from thread_heaps_allocate (not null): at least what was asked.
inline std::size_t thread_heaps_usable_size(void *block) noexcept {
    return ::tlsfm_malloc_usable_size(block);
}

} // namespace tlsf

#endif // TLSF_CPP_DEFAULT_HEAP_PER_THREAD

#endif // TLSF_THREAD_HEAPS_HPP
