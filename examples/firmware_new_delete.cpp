// SPDX-License-Identifier: MIT
// Firmware style: a static heap region, the global operator new and delete replaced, no
// operating system anywhere.
//
// The whole configuration is the two lines before the includes: the default heap is a
// 64 KiB static array (in .bss, usable before main) and, with one thread, it needs no
// lock; with a fixed region it never asks an OS for memory. Including
// <tlsf/global_new.hpp> in this one file routes every new and delete of the program -
// the standard containers' included - to that heap. Built with -fno-exceptions
// -fno-rtti, as firmware usually is: running out of memory calls the failure handler
// installed in main instead of throwing std::bad_alloc.
//
// The CI runs it on the host and, when arm-none-eabi-g++ is installed, compiles it for a
// Cortex-M4.
#define TLSF_DEFAULT_HEAP_SIZE (64 * 1024)
#define TLSF_DEFAULT_HEAP_LOCK TLSF_LOCK_NONE
#include <tlsf/global_new.hpp>

#include <tlsf/tlsf.hpp>

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <vector>

namespace {

// Out of memory. A board would log the size, light its fault LED and let the watchdog
// reset it; this must not return.
[[noreturn]] void on_heap_failure(tlsf::failure, std::size_t) {
    std::abort();
}

// A sensor reading, and a filter that keeps the last few readings of a channel.
struct reading {
    std::size_t channel;
    int value;
};

class moving_average {
  public:
    explicit moving_average(std::size_t window) : window_(window) { samples_.reserve(window); }

    void add(int value) {
        if (samples_.size() == window_) samples_.erase(samples_.begin());
        samples_.push_back(value);
    }

    int value() const {
        long sum = 0;
        for (int sample : samples_)
            sum += sample;
        return samples_.empty() ? 0 : static_cast<int>(sum / static_cast<long>(samples_.size()));
    }

  private:
    std::size_t window_;
    std::vector<int> samples_; // std::allocator -> operator new -> the TLSF heap
};

} // namespace

int main() {
    tlsf::set_failure_handler(&on_heap_failure);
    tlsf::heap &heap = tlsf::default_heap();
    const std::size_t blocks_at_start = heap.stats().live_blocks;

    bool ok;
    {
        // Objects made with new (make_unique), in a container: all on the static heap.
        std::vector<std::unique_ptr<moving_average>> channels;
        for (int channel = 0; channel < 4; ++channel)
            channels.push_back(std::make_unique<moving_average>(8));
        for (int tick = 0; tick < 100; ++tick) {
            const reading r{static_cast<std::size_t>(tick % 4), 1000 + (tick * 37) % 100};
            channels[r.channel]->add(r.value);
        }
        const int average = channels[0]->value();
        ok = heap.contains(channels.front().get()) && average >= 1000 && average < 1100;
    }
    // Everything went back, and the heap is intact.
    ok = ok && heap.stats().live_blocks == blocks_at_start && heap.check();
    return ok ? 0 : 1;
}
