// SPDX-License-Identifier: MIT
// tlsf/heap_resource.hpp - tlsf::heap_resource: a std::pmr resource with a heap of its own.
//
// What std::pmr::unsynchronized_pool_resource is to the pmr world, with a TLSF heap inside:
// one object that owns its heap, grows it in chunks from an upstream resource, gives
// chunks back (trim, release, destruction) and reports blocks still allocated when it is
// destroyed. No lifetimes to order by hand:
//
//   tlsf::heap_resource arena;                         // grows from the default resource
//   std::pmr::map<int, std::pmr::string> names{&arena};
//   ...
//   arena.trim();                                      // empty chunks go back upstream
//
// Chunks: the first holds the control structure and the first pool; each later one is at
// least options.next_bytes, at least what the failed request needs, and at least the total
// held so far, so n bytes take O(log n) upstream calls. options.max_bytes caps the total.
// A chunk is asked for under the heap's lock, from inside an allocation, and goes back
// whole when it holds no block.
//
// Thread safety: none of its own, like std::pmr::unsynchronized_pool_resource. To share
// one between threads, give its heap a lock: arena.get_heap().set_lock(
// tlsf::lock_hooks_for(mutex)), before it is shared.
//
// Defined only where the standard library has <memory_resource>.
#ifndef TLSF_HEAP_RESOURCE_HPP
#define TLSF_HEAP_RESOURCE_HPP

#if defined(__has_include)
#if __has_include(<memory_resource>)
#include <memory_resource>
#endif
#endif

#if defined(__cpp_lib_memory_resource)

#include <cstddef>
#include <new>

#include "tlsf/config.hpp"
#include "tlsf/default_heap.hpp"
#include "tlsf/failure.hpp"
#include "tlsf/heap.hpp"

namespace tlsf {

struct heap_resource_options {
    // The first chunk asked of the upstream resource, control structure included. 0: as
    // much as next_bytes (or what the first request needs, if more).
    std::size_t initial_bytes = 0;
    // The least size of every later chunk (see above).
    std::size_t next_bytes = std::size_t{64} * 1024;
    // The most bytes held from upstream at once; a request that would need more fails
    // (std::bad_alloc). 0: no limit but the upstream's.
    std::size_t max_bytes = 0;
};

class heap_resource final : public std::pmr::memory_resource {
  public:
    // A resource that takes its chunks from `upstream` (by default the resource that is
    // std::pmr's default when it is built), which must outlive it. Nothing is asked of
    // upstream before the first allocation.
    heap_resource() noexcept : heap_resource(heap_resource_options{}) {}
    explicit heap_resource(
        const heap_resource_options &options,
        std::pmr::memory_resource *upstream = std::pmr::get_default_resource()) noexcept
        : upstream_(upstream), options_(options),
          heap_(lock_hooks{}, pool_source{&obtain, this, &give_back}) {}
    explicit heap_resource(std::pmr::memory_resource *upstream) noexcept
        : heap_resource(heap_resource_options{}, upstream) {}

    // A resource that first allocates from the `bytes` bytes at `buffer` (which stay the
    // caller's, and must outlive the resource) and grows from `upstream` after. With
    // std::pmr::null_memory_resource() as upstream it never grows.
    heap_resource(void *buffer, std::size_t bytes,
                  std::pmr::memory_resource *upstream = std::pmr::get_default_resource(),
                  const heap_resource_options &options = heap_resource_options{}) noexcept
        : heap_resource(options, upstream) {
        heap_.add_pool(buffer, bytes);
    }

    heap_resource(const heap_resource &) = delete;
    heap_resource &operator=(const heap_resource &) = delete;

    // Reports the blocks still allocated, if any (the heap's leak handler: by default a
    // line on stderr), then gives every chunk back upstream. A container that outlives the
    // resource holds freed memory; call release() first to drop its contents on purpose.
    ~heap_resource() override = default;

    // Every block allocated from the resource becomes invalid and every chunk goes back
    // upstream at once, as std::pmr's release(). No leak is reported. The resource stays
    // usable: the next allocation starts a new first chunk.
    void release() noexcept { heap_.release(); }

    // Give back upstream every chunk that holds no block (the first one, which holds the
    // control structure, stays). Returns the bytes given back. Linear in the chunks.
    std::size_t trim() noexcept { return heap_.trim(); }

    std::pmr::memory_resource *upstream_resource() const noexcept { return upstream_; }

    const heap_resource_options &options() const noexcept { return options_; }

    // The bytes held from upstream now.
    std::size_t upstream_bytes() const noexcept { return held_; }

    // The heap inside: statistics, check(), set_lock, set_slabs, the cache budget, the
    // failure and leak handlers.
    heap &get_heap() noexcept { return heap_; }
    const heap &get_heap() const noexcept { return heap_; }

  private:
    // At least `bytes` aligned to `align` (tlsf_memalign above tlsf::alignment). Throws
    // std::bad_alloc if neither the heap nor upstream (within max_bytes) has room: the
    // heap's failure handler hears it first. O(1) unless a chunk is added.
    void *do_allocate(std::size_t bytes, std::size_t align) override {
        void *block = heap_.memalign(align, bytes);
        if (block == nullptr) heap_.report_failure(failure::out_of_memory, bytes);
        return block;
    }

    // Frees (checked against `bytes` and `align` with TLSF_CPP_SIZE_CHECKS). O(1).
    void do_deallocate(void *block, std::size_t bytes, std::size_t align) override {
#if TLSF_CPP_SIZE_CHECKS
        heap_.free_sized(block, bytes, align);
#else
        (void)bytes;
        (void)align;
        heap_.free(block);
#endif
    }

    // Only this resource can free what it allocated.
    bool do_is_equal(const std::pmr::memory_resource &other) const noexcept override {
        return this == &other;
    }

    // The heap's pool source: a chunk as described at the top, from upstream.
    static region obtain(std::size_t needed, void *context) noexcept {
        auto &self = *static_cast<heap_resource *>(context);
        // A chunk becomes one pool: never larger than a pool can be (half the largest block,
        // as the default heap's pools), unless the request needs it.
        const std::size_t ceiling = tlsf_block_size_max() / 2;
        std::size_t wanted = self.held_ == 0 && self.options_.initial_bytes != 0
                                 ? self.options_.initial_bytes
                                 : self.options_.next_bytes;
        if (wanted < self.held_) wanted = self.held_;
        if (wanted > ceiling) wanted = ceiling;
        if (wanted < needed) wanted = needed;
        const std::size_t room = self.options_.max_bytes == 0 ? SIZE_MAX
                                 : self.options_.max_bytes > self.held_
                                     ? self.options_.max_bytes - self.held_
                                     : 0;
        if (needed > room) return region{};
        if (wanted > room) wanted = room;
        for (;;) {
            const std::size_t bytes = (wanted + alignment - 1) & ~(alignment - 1);
            if (void *memory = self.upstream_allocate(bytes)) {
                self.held_ += bytes;
                return region{memory, bytes};
            }
            if (wanted == needed) return region{}; // upstream has no room even for that
            wanted = needed;
        }
    }

    static void give_back(region memory, void *context) noexcept {
        auto &self = *static_cast<heap_resource *>(context);
        self.held_ -= memory.bytes;
        self.upstream_->deallocate(memory.memory, memory.bytes, alignment);
    }

    // Upstream's allocate, whose std::bad_alloc must not cross the heap's noexcept calls.
    void *upstream_allocate(std::size_t bytes) noexcept {
#if TLSF_CPP_EXCEPTIONS
        try {
            return upstream_->allocate(bytes, alignment);
        } catch (...) {
            return nullptr;
        }
#else
        return upstream_->allocate(bytes, alignment);
#endif
    }

    std::pmr::memory_resource *upstream_;
    heap_resource_options options_;
    std::size_t held_ = 0;
    heap heap_; // last: it gives its chunks back through the members above when destroyed
};

} // namespace tlsf

#endif // __cpp_lib_memory_resource

#endif // TLSF_HEAP_RESOURCE_HPP
