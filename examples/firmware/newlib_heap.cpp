// SPDX-License-Identifier: MIT
//
// newlib_heap.cpp - newlib's allocator replaced by the TLSF default heap, so that the C
// library (printf's buffers, strdup, ...) and C++ (operator new, in main.cpp) share one
// heap and nothing reaches newlib's own (syscalls.c makes _sbrk a trap).
//
// newlib's code calls the reentrant forms (_malloc_r, ...); programs call the plain ones.
// Defining both keeps newlib's malloc objects out of the link. The heap's lock is its own
// (TLSF_LOCK_INTERRUPTS masks interrupts around each call), so newlib's __malloc_lock is
// not needed. Failures set errno to ENOMEM, as the C standard asks. (noexcept on the
// plain forms: newlib's <stdlib.h> declares them so for C++.)
#include <cerrno>
#include <cstddef>
#include <reent.h>

#include <tlsf/default_heap.hpp>

namespace {

inline tlsf::heap &heap() noexcept {
    return tlsf::default_heap(); // given its memory (the linker region) on first use
}

inline void *failed(struct _reent *reent) noexcept {
    reent->_errno = ENOMEM;
    return nullptr;
}

} // namespace

extern "C" {

void *_malloc_r(struct _reent *reent, std::size_t bytes) {
    void *block = heap().malloc(bytes);
    return block != nullptr || bytes == 0 ? block : failed(reent);
}

void _free_r(struct _reent *, void *block) {
    heap().free(block);
}

void *_calloc_r(struct _reent *reent, std::size_t count, std::size_t size) {
    void *block = heap().calloc(count, size); // checks count * size for overflow
    return block != nullptr || count == 0 || size == 0 ? block : failed(reent);
}

void *_realloc_r(struct _reent *reent, void *block, std::size_t bytes) {
    void *moved = heap().realloc(block, bytes);
    return moved != nullptr || bytes == 0 ? moved : failed(reent);
}

void *_memalign_r(struct _reent *reent, std::size_t align, std::size_t bytes) {
    void *block = heap().memalign(align, bytes);
    return block != nullptr ? block : failed(reent);
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

} // extern "C"
