// SPDX-License-Identifier: MIT
// m4_heaps.cpp - the Cortex-M4 heaps (heaps.hpp): the images of bench/cortex-m4 run by its
// emulator (host/m4emu.h), one call at a time, every instruction counted.
//
// The images' tables (firmware/bench_api.h) have malloc, free, realloc and memalign; a calloc
// is replayed as a malloc (its zeroing not counted). heap_4 has neither realloc nor memalign:
// a realloc is a malloc of the new size and a free of the old block (no copy, both counted as
// the one call), a memalign a malloc with room to align (size + align - 8).
#include <cstdint>
#include <cstdio>
#include <sys/stat.h>

#include "heaps.hpp"

// The harness's headers are C: in C++ a function named like its struct "hides" the struct's
// constructor (-Wshadow), which is harmless here.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wshadow"
extern "C" {
#include "m4emu.h"
}
#pragma GCC diagnostic pop

namespace replay {
namespace {

using std::uint32_t;
using std::uint64_t;

std::string image_path(const std::string &image, const heap_options &options) {
    return options.m4_images_dir + "/" + image + ".elf";
}

class m4_heap : public heap {
  public:
    explicit m4_heap(std::string name) : heap(std::move(name)) {}
    ~m4_heap() override { m4_close(&m_); }
    bool counts_in_process() const override { return true; }

    bool open(const std::string &path) {
        path_ = path;
        if (m4_open(&m_, path.c_str(), 1) != 0 || m4_calibrate(&m_) != 0) {
            set_error(path + ": " + m_.error);
            return false;
        }
        return true;
    }

    // A new emulator for each run: Unicorn 2.0.1 crashes (in tb_invalidate_phys_range) after
    // some million calls of uc_emu_start on one engine, which a bisection reaches; a fresh
    // engine also starts every run from the image's reset state.
    bool fresh_engine() {
        if (runs_++ == 0) return true; // the one open() made
        m4_close(&m_);
        if (m4_open(&m_, path_.c_str(), 1) != 0) {
            set_error(name() + ": " + m_.error);
            failed_ = true;
            return false;
        }
        return true;
    }
    const bench_api_t &api() const { return m_.api; }

    // One call of the image's function; the count goes to last_count.
    bool call(uint32_t function, std::initializer_list<uint32_t> args, uint32_t &result) {
        uint32_t argv[4] = {0, 0, 0, 0};
        unsigned argc = 0;
        for (uint32_t a : args)
            argv[argc++] = a;
        m4_result_t r;
        if (m4_call(&m_, function, argc, argv, &r) != 0) {
            set_error(name() + ": " + m_.error);
            failed_ = true;
            return false;
        }
        last_count = r.insns;
        result = r.r0;
        return true;
    }
    // A call with no result needed beyond the count (free).
    void call_void(uint32_t function, std::initializer_list<uint32_t> args) {
        uint32_t ignored = 0;
        call(function, args, ignored);
    }
    bool faulted() const override { return failed_; }

  protected:
    static bool fits32(uint64_t value) { return value <= UINT32_MAX; }
    m4_t m_{};
    bool failed_ = false;
    std::string path_;
    unsigned runs_ = 0;
};

// TLSF images: a heap of any size at the start of the arena.
class m4_tlsf_heap : public m4_heap {
  public:
    using m4_heap::m4_heap;

    bool prepare() {
        uint32_t control = 0, overhead = 0, block_min = 0, alloc_overhead = 0, align = 0;
        if (!call(api().fn_size, {}, control) || !call(api().fn_pool_overhead, {}, overhead) ||
            !call(api().fn_align_size, {}, align) ||
            !call(api().fn_block_size_min, {}, block_min) ||
            !call(api().fn_alloc_overhead, {}, alloc_overhead))
            return false;
        base_ = (api().arena_start + 4095u) & ~4095u;
        control_ = control;
        align_ = align;
        min_ = uint64_t{control} + overhead + block_min + alloc_overhead;
        return true;
    }
    sizing how_sized() const override { return sizing::bisect; }
    uint64_t unit() const override { return align_; }
    uint64_t min_bytes() const override { return min_; }
    uint64_t max_bytes() const override { return (api().arena_end - base_) / align_ * align_; }

    bool start(uint64_t bytes) override {
        if (bytes == 0) bytes = max_bytes();
        uint32_t created = 0, pool = 0;
        if (bytes < min_ || bytes > max_bytes()) return false;
        if (!fresh_engine()) return false;
        if (!call(api().fn_create, {base_}, created) || created == 0) return false;
        if (!call(api().fn_add_pool,
                  {created, base_ + control_, static_cast<uint32_t>(bytes - control_)}, pool) ||
            pool == 0)
            return false;
        heap_ = created;
        return true;
    }
    uint64_t allocate(uint64_t size) override {
        uint32_t r = 0;
        if (!fits32(size)) return last_count = 0, 0;
        return call(api().fn_malloc, {heap_, static_cast<uint32_t>(size)}, r) ? r : 0;
    }
    uint64_t allocate_zeroed(uint64_t size) override { return allocate(size); }
    uint64_t allocate_aligned(uint64_t align, uint64_t size) override {
        uint32_t r = 0;
        if (!fits32(size) || !fits32(align)) return last_count = 0, 0;
        return call(api().fn_memalign,
                    {heap_, static_cast<uint32_t>(align), static_cast<uint32_t>(size)}, r)
                   ? r
                   : 0;
    }
    uint64_t reallocate(uint64_t block, uint64_t size) override {
        uint32_t r = 0;
        if (!fits32(size)) return last_count = 0, 0;
        return call(api().fn_realloc,
                    {heap_, static_cast<uint32_t>(block), static_cast<uint32_t>(size)}, r)
                   ? r
                   : 0;
    }
    void release(uint64_t block) override {
        call_void(api().fn_free, {heap_, static_cast<uint32_t>(block)});
    }

  private:
    uint32_t base_ = 0, control_ = 0, align_ = 8, heap_ = 0;
    uint64_t min_ = 0;
};

// newlib's malloc (full or nano): a heap that _sbrk grows over the arena; its highest break
// is the heap it needs. heap_4: a fixed 64 MiB region it allocates from its low end, first
// fit; its highest block end is the heap it needs.
class m4_c_heap : public m4_heap {
  public:
    m4_c_heap(std::string name, bool heap4) : m4_heap(std::move(name)), heap4_(heap4) {
        set_note(heap4 ? "calloc as malloc; realloc as malloc + free (no copy); memalign as an "
                         "over-sized malloc"
                       : "calloc as malloc (the harness's table has no calloc)");
    }
    bool prepare() {
        if (!heap4_) {
            const elf32_symbol_t *top = elf32_symbol(&m_.elf, "sbrk_top");
            if (top == nullptr) {
                set_error(name() + ": no sbrk_top symbol to read the break from");
                return false;
            }
            break_address_ = top->value;
        }
        return true;
    }
    sizing how_sized() const override { return sizing::high_water; }
    uint64_t max_bytes() const override {
        return heap4_ ? uint64_t{64} << 20 : uint64_t{api().arena_end} - api().arena_start;
    }
    uint64_t high_water_bytes() const override { return high_; }

    bool start(uint64_t) override {
        if (!fresh_engine()) return false;
        high_ = 0;
        return true;
    }
    uint64_t allocate(uint64_t size) override {
        uint32_t r = 0;
        if (!fits32(size)) return last_count = 0, 0;
        if (!call(api().fn_malloc, {static_cast<uint32_t>(size)}, r)) return 0;
        note_high(r, size);
        return r;
    }
    uint64_t allocate_zeroed(uint64_t size) override { return allocate(size); }
    uint64_t allocate_aligned(uint64_t align, uint64_t size) override {
        uint32_t r = 0;
        if (!fits32(size) || !fits32(align)) return last_count = 0, 0;
        if (heap4_) return allocate(align > 8 ? size + align - 8 : size);
        if (!call(api().fn_memalign, {static_cast<uint32_t>(align), static_cast<uint32_t>(size)},
                  r))
            return 0;
        note_high(r, size);
        return r;
    }
    uint64_t reallocate(uint64_t block, uint64_t size) override {
        uint32_t r = 0;
        if (!fits32(size)) return last_count = 0, 0;
        if (heap4_) {
            const uint64_t moved = allocate(size);
            const uint64_t allocation_count = last_count;
            if (moved == 0) return 0;
            release(block);
            last_count += allocation_count;
            return moved;
        }
        if (!call(api().fn_realloc, {static_cast<uint32_t>(block), static_cast<uint32_t>(size)}, r))
            return 0;
        note_high(r, size);
        return r;
    }
    void release(uint64_t block) override {
        call_void(api().fn_free, {static_cast<uint32_t>(block)});
    }

  private:
    void note_high(uint32_t block, uint64_t size) {
        if (block == 0) return;
        uint64_t need;
        if (heap4_) {
            // The block ends at its start plus the size rounded to 8; pxEnd's 8-byte header
            // follows the last block.
            need = block + ((size + 7) & ~uint64_t{7}) + 8 - api().arena_start;
        } else {
            uint32_t top = 0;
            if (m4_read(&m_, break_address_, &top, sizeof top) != 0 || top == 0) return;
            need = uint64_t{top} - api().arena_start;
        }
        if (need > high_) high_ = need;
    }

    bool heap4_;
    uint32_t break_address_ = 0;
    uint64_t high_ = 0;
};

} // namespace

bool m4_image_exists(const std::string &image, const heap_options &options) {
    struct stat info;
    return !options.m4_images_dir.empty() && stat(image_path(image, options).c_str(), &info) == 0;
}

std::unique_ptr<heap> make_m4_heap(const std::string &image, const heap_options &options,
                                   std::string &error) {
    const std::string path = image_path(image, options);
    if (!m4_image_exists(image, options)) {
        error = "m4:" + image + ": no image " + path +
                " (build bench/cortex-m4: bench/cortex-m4/run-counts.sh, or -DTLSF_BUILD_M4=ON; "
                "--m4-images DIR)";
        return nullptr;
    }
    if (image.rfind("tlsf-", 0) == 0) {
        auto h = std::make_unique<m4_tlsf_heap>("m4 " + image);
        if (!h->open(path) || !h->prepare()) {
            error = h->error();
            return nullptr;
        }
        return h;
    }
    if (image == "newlib-nano" || image == "newlib-full" || image == "freertos-heap4") {
        auto h = std::make_unique<m4_c_heap>("m4 " + image, image == "freertos-heap4");
        if (!h->open(path) || !h->prepare()) {
            error = h->error();
            return nullptr;
        }
        return h;
    }
    error = "m4:" + image + ": not a heap image (tlsf-*, newlib-nano, newlib-full, freertos-heap4)";
    return nullptr;
}

} // namespace replay
