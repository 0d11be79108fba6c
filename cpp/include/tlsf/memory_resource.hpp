// SPDX-License-Identifier: MIT
// tlsf/memory_resource.hpp - tlsf::memory_resource: a std::pmr::memory_resource over a heap.
//
// For std::pmr containers. Their allocator (std::pmr::polymorphic_allocator) never
// propagates, so a container built on a resource stays on it through assignments and
// swaps, and it hands itself to the elements (uses-allocator construction): a
// std::pmr::vector<std::pmr::string> puts the strings on the same heap as the vector.
// No tlsf::pmr aliases are provided, since they would only repeat the std::pmr ones:
//
//   tlsf::static_heap<64 * 1024> heap;
//   tlsf::memory_resource resource{heap};
//   std::pmr::map<int, std::pmr::string> names{&resource};
//
// std::pmr::set_default_resource(tlsf::default_resource()) sends every std::pmr container
// built without a resource to the default heap.
//
// Defined only where the standard library has <memory_resource>.
#ifndef TLSF_MEMORY_RESOURCE_HPP
#define TLSF_MEMORY_RESOURCE_HPP

#if defined(__has_include)
#if __has_include(<memory_resource>)
#include <memory_resource>
#endif
#endif

#if defined(__cpp_lib_memory_resource)

#include <cstddef>
#include <new>

#include "tlsf/default_heap.hpp"
#include "tlsf/failure.hpp"
#include "tlsf/heap.hpp"
#include "tlsf/thread_heaps.hpp"

namespace tlsf {

// A std::pmr::memory_resource that allocates from a tlsf::heap it does not own. As thread
// safe as that heap: the default heap is locked, so the default resource may be shared;
// a heap of your own is unlocked unless given a lock (heap::set_lock), so a resource on it
// is for one thread at a time, like std::pmr::unsynchronized_pool_resource. For a resource
// that owns its heap, grows and gives memory back, see tlsf::heap_resource
// (<tlsf/heap_resource.hpp>).
class memory_resource final : public std::pmr::memory_resource {
  public:
    // A resource on the process default heap; with TLSF_CPP_DEFAULT_HEAP_PER_THREAD=1, on
    // the calling thread's own heap at each call (<tlsf/thread_heaps.hpp>).
#if TLSF_CPP_DEFAULT_HEAP_PER_THREAD
    memory_resource() noexcept : heap_(nullptr) {
    }
#else
    memory_resource() noexcept : heap_(&default_heap()) {
    }
#endif

    // A resource on `h`, which must outlive every container using the resource.
    explicit memory_resource(heap &h) noexcept : heap_(&h) {
    }

    // The heap this resource allocates from. Not for a resource on the per-thread heaps.
    heap &get_heap() const noexcept {
        return *heap_;
    }

    // True for a default resource when TLSF_CPP_DEFAULT_HEAP_PER_THREAD=1.
    bool uses_thread_heaps() const noexcept {
        return heap_ == nullptr;
    }

  private:
    // At least `bytes` bytes aligned to `align` (tlsf_memalign above tlsf::alignment).
    // Throws std::bad_alloc if the heap has no block large enough (without exceptions:
    // the failure handler). O(1).
    void *do_allocate(std::size_t bytes, std::size_t align) override {
        heap *const on = heap_; // one copy, kept for the failure path as well
#if TLSF_CPP_DEFAULT_HEAP_PER_THREAD
        void *block =
            on ? detail::heap_memalign(*on, align, bytes) : thread_heaps_allocate(bytes, align);
#else
        void *block = detail::heap_memalign(*on, align, bytes); // inline lock on the default heap
#endif
        if (block == nullptr) out_of_memory(on, bytes);
        return block;
    }

    // The heap's failure handler, then the process-wide one and std::bad_alloc (null: the
    // per-thread heaps, which have no heap object).
    [[noreturn]] TLSF_DETAIL_COLD static void out_of_memory(heap *on, std::size_t bytes) {
        if (on != nullptr) on->report_failure(failure::out_of_memory, bytes);
        detail::fail(failure::out_of_memory, bytes);
    }

    // Frees. The size and alignment are not needed, the block records its own; with
    // TLSF_CPP_SIZE_CHECKS (debug builds) they are checked against it (heap::free_sized)
    // and a mismatch is reported as misuse. O(1).
    void do_deallocate(void *block, std::size_t bytes, std::size_t align) override {
#if TLSF_CPP_DEFAULT_HEAP_PER_THREAD
        if (heap_ == nullptr) return thread_heaps_free(block);
#endif
#if TLSF_CPP_SIZE_CHECKS
        heap_->free_sized(block, bytes, align);
#else
        (void)bytes;
        (void)align;
        detail::heap_free(*heap_, block);
#endif
    }

    // Equal to another tlsf::memory_resource on the same heap: each can free what the
    // other allocated. Without RTTI the other's type cannot be known, so only the same
    // object compares equal - still correct, merely fewer moves become O(1).
    bool do_is_equal(const std::pmr::memory_resource &other) const noexcept override {
        if (this == &other) return true;
#if TLSF_CPP_RTTI
        const auto *same_kind = dynamic_cast<const tlsf::memory_resource *>(&other);
        return same_kind != nullptr && same_kind->heap_ == heap_;
#else
        return false;
#endif
    }

    heap *heap_;
};

// A memory resource on the default heap that is never destroyed, for
// std::pmr::set_default_resource and for containers that live until exit.
inline memory_resource *default_resource() noexcept {
    alignas(memory_resource) static unsigned char storage[sizeof(memory_resource)];
    static memory_resource *const instance = ::new (static_cast<void *>(storage)) memory_resource();
    return instance;
}

} // namespace tlsf

#endif // __cpp_lib_memory_resource

#endif // TLSF_MEMORY_RESOURCE_HPP
