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
//   - Alignment: every block is aligned to tlsf::alignment; the align_val_t forms (used
//     for types declared alignas(N) with N above __STDCPP_DEFAULT_NEW_ALIGNMENT__) use
//     tlsf_memalign.
//   - Out of memory: the throwing forms call the installed std::new_handler and retry
//     until it succeeds; with no handler installed they throw std::bad_alloc, or, compiled
//     without exceptions, call the failure handler of <tlsf/failure.hpp> and abort if it
//     returns. The nothrow forms run the same loop but return nullptr where the others
//     would throw (and do not call the failure handler).
//   - Sized delete ignores the size: every block records its own.
#ifndef TLSF_GLOBAL_NEW_HPP
#define TLSF_GLOBAL_NEW_HPP

#include <cstddef>
#include <new>

#include "tlsf/config.hpp"
#include "tlsf/default_heap.hpp"
#include "tlsf/failure.hpp"

namespace tlsf::detail {

// The alignment the plain forms must provide. It may exceed tlsf::alignment (i386 has
// 16-byte new alignment with 8-byte TLSF blocks); memalign then takes care of it.
#if defined(__STDCPP_DEFAULT_NEW_ALIGNMENT__)
inline constexpr std::size_t new_alignment = __STDCPP_DEFAULT_NEW_ALIGNMENT__;
#else
inline constexpr std::size_t new_alignment = alignof(std::max_align_t);
#endif

// The throwing forms: the new_handler loop, then failure (std::bad_alloc).
inline void *global_new(std::size_t bytes, std::size_t align) {
    heap &h = default_heap();
    for (;;) {
        if (void *block = h.memalign(align, bytes)) return block;
        std::new_handler handler = std::get_new_handler();
        if (handler == nullptr) fail(failure::out_of_memory, bytes);
        handler();
    }
}

// The nothrow forms: the same loop; nullptr where the throwing forms would fail.
inline void *global_new_nothrow(std::size_t bytes, std::size_t align) noexcept {
    heap &h = default_heap();
    for (;;) {
        if (void *block = h.memalign(align, bytes)) return block;
        std::new_handler handler = std::get_new_handler();
        if (handler == nullptr) return nullptr;
#if TLSF_CPP_EXCEPTIONS
        try {
            handler();
        } catch (const std::bad_alloc &) {
            return nullptr; // the handler's way of saying there is no more memory
        }
#else
        handler();
#endif
    }
}

inline void global_delete(void *block) noexcept {
    default_heap().free(block); // free ignores nullptr without locking
}

inline std::size_t to_size(std::align_val_t align) noexcept {
    return static_cast<std::size_t>(align);
}

} // namespace tlsf::detail

// ---- operator new: 8 forms ------------------------------------------------------------

void *operator new(std::size_t bytes) {
    return tlsf::detail::global_new(bytes, tlsf::detail::new_alignment);
}
void *operator new[](std::size_t bytes) {
    return tlsf::detail::global_new(bytes, tlsf::detail::new_alignment);
}
void *operator new(std::size_t bytes, const std::nothrow_t &) noexcept {
    return tlsf::detail::global_new_nothrow(bytes, tlsf::detail::new_alignment);
}
void *operator new[](std::size_t bytes, const std::nothrow_t &) noexcept {
    return tlsf::detail::global_new_nothrow(bytes, tlsf::detail::new_alignment);
}
void *operator new(std::size_t bytes, std::align_val_t align) {
    return tlsf::detail::global_new(bytes, tlsf::detail::to_size(align));
}
void *operator new[](std::size_t bytes, std::align_val_t align) {
    return tlsf::detail::global_new(bytes, tlsf::detail::to_size(align));
}
void *operator new(std::size_t bytes, std::align_val_t align, const std::nothrow_t &) noexcept {
    return tlsf::detail::global_new_nothrow(bytes, tlsf::detail::to_size(align));
}
void *operator new[](std::size_t bytes, std::align_val_t align, const std::nothrow_t &) noexcept {
    return tlsf::detail::global_new_nothrow(bytes, tlsf::detail::to_size(align));
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

#endif // TLSF_GLOBAL_NEW_HPP
