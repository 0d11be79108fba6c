// SPDX-License-Identifier: MIT
// tlsf_newlib.cpp - one heap for C and C++ on a bare-metal newlib target: TLSF.
//
// Drop this file into a firmware build (see README.md, "Retargeting newlib to TLSF"):
//
//   * the global operator new and delete (all twenty forms) come from
//     <tlsf/global_new.hpp>, over tlsf::default_heap();
//   * newlib's allocator is replaced by the same heap: malloc, free, calloc, realloc,
//     memalign and their reentrant forms _malloc_r, _free_r, _calloc_r, _realloc_r,
//     _memalign_r, which is what newlib's own code (stdio buffers, strdup, ...) and
//     libstdc++ (the exception pool, __cxa_allocate_exception) call. Both newlib and
//     newlib-nano: their malloc objects are then never pulled from libc.a;
//   * the heap is the region between two linker symbols, given on the command line of
//     the whole image: -DTLSF_DEFAULT_HEAP_START=__heap_start
//     -DTLSF_DEFAULT_HEAP_END=__heap_end -DTLSF_DEFAULT_HEAP_LOCK=TLSF_LOCK_INTERRUPTS;
//   * it is built on its first use, whoever comes first - usually libstdc++'s emergency
//     exception pool, from a static constructor before main - so nothing has to run
//     before __libc_init_array;
//   * the lock is the heap's, not newlib's __malloc_lock, which newlib-nano does not call
//     consistently and which only exists inside the malloc we replace.
//     TLSF_LOCK_INTERRUPTS masks interrupts with PRIMASK, nesting-safe, inline in
//     operator new and delete (three instructions). With an RTOS, build with
//     TLSF_LOCK_USER instead and return its mutex or scheduler lock from
//     tlsf::default_heap_lock() (as below; the hooks must not allocate);
//   * _sbrk must trap (see app_syscalls.c): if a libc object that still uses newlib's
//     heap is linked (mallinfo, malloc_stats, ...) it fails at the first call, and the
//     link usually fails before that with "multiple definition of _malloc_r".
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <malloc.h>
#include <reent.h>

#include <tlsf/default_heap.hpp>
#include <tlsf/global_new.hpp>

#if TLSF_DEFAULT_HEAP_LOCK != TLSF_LOCK_INTERRUPTS && TLSF_DEFAULT_HEAP_LOCK != TLSF_LOCK_USER
#error                                                                                             \
    "build the image with -DTLSF_DEFAULT_HEAP_LOCK=TLSF_LOCK_INTERRUPTS (or TLSF_LOCK_USER, below)"
#endif

#ifdef TLSF_NEWLIB_COUNTERS
// Instrumentation for the emulator's report; not part of the recipe.
extern "C" {
std::uint32_t tlsf_newlib_calls;      // calls of the C allocation functions
std::uint32_t tlsf_newlib_locks;      // times the lock was taken (outermost)
std::uint32_t tlsf_newlib_lock_depth; // current nesting
}
#define TLSF_NEWLIB_COUNT(name) (++(name))
#else
#define TLSF_NEWLIB_COUNT(name) ((void)0)
#endif

namespace {

#if TLSF_DEFAULT_HEAP_LOCK == TLSF_LOCK_USER
// ---- The lock as hooks, the shape an RTOS mutex takes ----------------------------------
// Here, too, interrupts off (PRIMASK) around every heap operation, through function
// pointers and with counters, so that the demo can show the hooks are used and released.

std::uint32_t lock_depth;    // nesting: only the outermost unlock restores PRIMASK
std::uint32_t saved_primask; // PRIMASK as the outermost lock found it

void heap_lock(void *) noexcept {
    std::uint32_t primask;
    __asm volatile("mrs %0, primask\n\tcpsid i" : "=r"(primask)::"memory");
    if (lock_depth++ == 0) {
        saved_primask = primask;
        TLSF_NEWLIB_COUNT(tlsf_newlib_locks);
    }
#ifdef TLSF_NEWLIB_COUNTERS
    tlsf_newlib_lock_depth = lock_depth;
#endif
}

void heap_unlock(void *) noexcept {
    if (--lock_depth == 0) __asm volatile("msr primask, %0" ::"r"(saved_primask) : "memory");
#ifdef TLSF_NEWLIB_COUNTERS
    tlsf_newlib_lock_depth = lock_depth;
#endif
}
#endif // TLSF_LOCK_USER

inline tlsf::heap &heap() noexcept {
    return tlsf::default_heap(); // built on the first call
}

inline void *out_of_memory(struct _reent *reent) noexcept {
    reent->_errno = ENOMEM;
    return nullptr;
}

} // namespace

#if TLSF_DEFAULT_HEAP_LOCK == TLSF_LOCK_USER
// Called once, when the default heap is built.
tlsf::lock_hooks tlsf::default_heap_lock() noexcept {
    return tlsf::lock_hooks{&heap_lock, &heap_unlock, nullptr};
}
#endif

// ---- newlib's allocator ----------------------------------------------------------------
extern "C" {

void *_malloc_r(struct _reent *reent, std::size_t bytes) {
    TLSF_NEWLIB_COUNT(tlsf_newlib_calls);
    void *block = heap().malloc(bytes);
    return block != nullptr || bytes == 0 ? block : out_of_memory(reent);
}

void _free_r(struct _reent *, void *block) {
    TLSF_NEWLIB_COUNT(tlsf_newlib_calls);
    heap().free(block);
}

void *_calloc_r(struct _reent *reent, std::size_t count, std::size_t size) {
    TLSF_NEWLIB_COUNT(tlsf_newlib_calls);
    void *block = heap().calloc(count, size); // checks count * size for overflow
    return block != nullptr || count == 0 || size == 0 ? block : out_of_memory(reent);
}

void *_realloc_r(struct _reent *reent, void *block, std::size_t bytes) {
    TLSF_NEWLIB_COUNT(tlsf_newlib_calls);
    void *moved = heap().realloc(block, bytes);
    return moved != nullptr || bytes == 0 ? moved : out_of_memory(reent);
}

void *_memalign_r(struct _reent *reent, std::size_t align, std::size_t bytes) {
    TLSF_NEWLIB_COUNT(tlsf_newlib_calls);
    void *block = heap().memalign(align, bytes);
    return block != nullptr ? block : out_of_memory(reent);
}

std::size_t _malloc_usable_size_r(struct _reent *, void *block) {
    return block != nullptr ? tlsf::default_heap().usable_size(block) : 0;
}

void *malloc(std::size_t bytes) noexcept {
    return _malloc_r(_REENT, bytes);
}
void free(void *block) noexcept {
    _free_r(_REENT, block);
}
void *calloc(std::size_t count, std::size_t size) noexcept {
    return _calloc_r(_REENT, count, size);
}
void *realloc(void *block, std::size_t bytes) noexcept {
    return _realloc_r(_REENT, block, bytes);
}
void *memalign(std::size_t align, std::size_t bytes) noexcept {
    return _memalign_r(_REENT, align, bytes);
}
std::size_t malloc_usable_size(void *block) noexcept {
    return _malloc_usable_size_r(_REENT, block);
}

} // extern "C"
