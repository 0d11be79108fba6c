// SPDX-License-Identifier: MIT
// heaps.hpp - the heaps a trace is replayed on, behind one interface.
//
//   tlsf[:sl=N,checks=N,cache=BYTES,slabs=BYTES]   the core on the host, one shared library
//        per compile-time setting (sl, checks: tlsf_backend.h), the runtime ones applied to
//        each fresh heap (cache budget: tlsf_cache_set_limit, 0 = off; slabs:
//        tlsf_slabs_enable). A fixed heap of any size: sized by bisection.
//   glibc, jemalloc, mimalloc   the host's allocators (the peers dlopen()ed as
//        bench/host/peers.hpp does): unbounded, so only their instruction counts.
//   m4:IMAGE   an image of the Cortex-M4 harness (bench/cortex-m4) run under Unicorn:
//        tlsf-O2-default and the other TLSF images (a fixed heap, bisected), newlib-nano and
//        newlib-full (the heap _sbrk serves: sized by its highest break), freertos-heap4
//        (sized by its highest block end: heap_4 is address-ordered first fit, so a heap
//        ending there makes the same choices). Every call's instructions counted exactly.
//
// Handles are whatever identifies a block to the heap (a host pointer, a target address);
// 0 is a failed allocation.
#ifndef TLSF_REPLAY_HEAPS_HPP
#define TLSF_REPLAY_HEAPS_HPP

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace replay {

struct heap_shape {
    std::uint64_t used = 0;    // bytes in allocated blocks, headers included
    std::uint64_t free = 0;    // bytes free in the heap
    std::uint64_t largest = 0; // the largest request served without draining a cache
};

struct map_block {
    std::uint64_t offset; // from the start of the heap's memory
    std::uint64_t size;   // usable bytes (as the heap's walk reports them)
    bool used;
};

enum class sizing {
    bisect,     // a fixed heap of any size: bisection finds the smallest that holds the trace
    high_water, // the heap grows into a region: its highest point is the size it needs
    none        // grows from the system: no size to report
};

struct heap_options {
    std::uint64_t max_heap = std::uint64_t{4} << 30; // the largest fixed heap tried
    std::string backends_dir;                        // the TLSF backends' libraries
    std::string m4_images_dir;                       // the Cortex-M4 harness's images
};

class heap {
  public:
    explicit heap(std::string name) : name_(std::move(name)) {}
    virtual ~heap() = default;
    heap(const heap &) = delete;
    heap &operator=(const heap &) = delete;

    const std::string &name() const { return name_; }
    virtual sizing how_sized() const { return sizing::none; }
    virtual std::uint64_t unit() const { return 1; }      // bisection step: the alignment
    virtual std::uint64_t min_bytes() const { return 0; } // the smallest heap it accepts
    virtual std::uint64_t max_bytes() const { return 0; } // the largest heap it can have
    // Instructions are counted in this process (the emulator) rather than under valgrind.
    virtual bool counts_in_process() const { return false; }

    // A fresh, empty heap of `bytes` bytes (bisect; 0 for the largest) or as the allocator
    // starts (the others). False with error() set when that is impossible.
    virtual bool start(std::uint64_t bytes) = 0;

    virtual std::uint64_t allocate(std::uint64_t size) = 0;
    virtual std::uint64_t allocate_zeroed(std::uint64_t size) = 0;
    virtual std::uint64_t allocate_aligned(std::uint64_t align, std::uint64_t size) = 0;
    virtual std::uint64_t reallocate(std::uint64_t handle, std::uint64_t size) = 0;
    virtual void release(std::uint64_t handle) = 0;

    // After a run (high_water): the heap size the run needed.
    virtual std::uint64_t high_water_bytes() const { return 0; }
    // The heap's state now, when it can tell.
    virtual bool shape(heap_shape &) { return false; }
    virtual bool map(std::vector<map_block> &) { return false; }

    // The emulator or the heap itself failed (not an allocation returning NULL): the run
    // stops with error().
    virtual bool faulted() const { return false; }

    // With `counting`, every call leaves its instruction count in last_count.
    bool counting = false;
    std::uint64_t last_count = 0;
    const std::string &error() const { return error_; }
    // How the replay differs from the recorded calls on this heap ("calloc as malloc").
    const std::string &note() const { return note_; }

  protected:
    void set_error(std::string message) { error_ = std::move(message); }
    void set_note(std::string message) { note_ = std::move(message); }

  private:
    std::string name_;
    std::string error_;
    std::string note_;
};

// The heap a spec names (see above), or nullptr with `error` saying why.
std::unique_ptr<heap> make_heap(const std::string &spec, const heap_options &options,
                                std::string &error);

// The Cortex-M4 images: factories from m4_heaps.cpp (nullptr and an error without Unicorn).
std::unique_ptr<heap> make_m4_heap(const std::string &image, const heap_options &options,
                                   std::string &error);
// Whether the image exists (the default set includes only those that do).
bool m4_image_exists(const std::string &image, const heap_options &options);

// Whether a heap of the default set is there: the peer's library was found when this was
// built, the Cortex-M4 image exists.
bool heap_available(const std::string &spec, const heap_options &options);

// Whether this process runs under the insncount valgrind tool.
bool running_under_insncount();
// Under the tool: count a known function as the heaps' calls are counted; true when the
// counts are exact (`report` says what was counted).
bool check_counter(std::string &report);

} // namespace replay

#endif // TLSF_REPLAY_HEAPS_HPP
