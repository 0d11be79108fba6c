// SPDX-License-Identifier: MIT
// seed_workload.cpp - workload 5: the embedded seed's allocation pattern.
//
// The seed allocates, for each of 100 fixed values x (the list is repeated 6 times), a
// buffer of 4*x bytes filled with x and keeps the buffers in a queue; then it frees all
// but the last 10. Here the queue is a std::deque of std::vector<uint8_t>, both on the
// allocator under test, so the deque's own chunks come from the same heap, as they did
// in the seed (a VecDeque of VecDeques). libc and the peers are unbounded.
//
// First the tool finds, on a fresh 175 KiB tlsf::heap each time (control structure
// included, as on the seed's board), the largest repeat count that fits; the seed ran out
// at 7. TLSF is then timed in a 175 KiB heap if the seed's 6 repeats fit, otherwise in
// the smallest heap that holds them (64-bit pointers make the queue's entries and TLSF's
// control structure larger than on the board). After one untimed warm-up round, each of
// 100 rounds measures the allocation phase and the free phase separately, in thread CPU
// time; rounds are interleaved across allocators so that noise hits them alike.
//
//   tlsf_seed_workload [--out DIR] [--fit-only]
// writes DIR/seed_workload.csv. --fit-only stops after the fit search: for a 32-bit build
// run under emulation (scripts/bench.sh), where only the layout, not the time, is real.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <deque>
#include <iterator>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include <tlsf/tlsf.hpp>

#include "raw_heaps.hpp"
#include "stl_allocators.hpp"

namespace {

constexpr std::uint8_t kSeedValues[100] = {
    42, 17, 88, 33, 125, 5,   60,  72,  200, 94,  11, 77, 8,   39, 2,  50,  21,  99, 3,   150,
    64, 19, 55, 7,  31,  240, 59,  12,  101, 78,  23, 44, 61,  9,  37, 255, 70,  28, 6,   121,
    14, 85, 16, 68, 1,   91,  45,  35,  22,  109, 27, 47, 73,  4,  29, 200, 51,  13, 102, 8,
    54, 36, 66, 10, 20,  76,  200, 90,  25,  69,  56, 30, 87,  18, 80, 49,  132, 63, 74,  24,
    37, 57, 98, 15, 89,  53,  32,  123, 67,  38,  58, 82, 111, 58, 48, 122, 81,  26, 43,  34};
constexpr int kRepeats = 6;
constexpr std::size_t kKept = 10;
constexpr int kRounds = 100;
constexpr std::size_t kHeapBytes = 175 * 1024;
constexpr std::size_t kProbeBytes = 512 * 1024; // the largest heap the tool tries

template <class Alloc, class T>
using rebind = typename std::allocator_traits<Alloc>::template rebind_alloc<T>;

template <class Alloc>
struct seed_queue {
    using buffer = std::vector<std::uint8_t, rebind<Alloc, std::uint8_t>>;
    using type = std::deque<buffer, rebind<Alloc, buffer>>;
};

// The allocation phase: every value of every repeat becomes a buffer at the back.
template <class Alloc>
void allocate_phase(typename seed_queue<Alloc>::type &queue, const Alloc &alloc, int repeats) {
    using buffer = typename seed_queue<Alloc>::buffer;
    const typename buffer::allocator_type buffer_alloc(alloc);
    for (int r = 0; r < repeats; ++r) {
        for (std::uint8_t x : kSeedValues)
            queue.emplace_back(std::size_t{4} * x, x, buffer_alloc);
    }
}

// The free phase: all but the last kKept buffers leave from the front.
template <class Queue>
void free_phase(Queue &queue) {
    while (queue.size() > kKept)
        queue.pop_front();
}

// The CPU time of this thread: a phase lasts some 10 us, and on a shared machine the
// wall clock would also count whatever ran while this thread was preempted.
std::uint64_t thread_cpu_ns() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000u +
           static_cast<std::uint64_t>(ts.tv_nsec);
}

struct phase_stats {
    std::vector<double> samples_ns;
    double sum() const {
        double total = 0;
        for (double s : samples_ns)
            total += s;
        return total;
    }
    double avg() const { return sum() / static_cast<double>(samples_ns.size()); }
    double min() const { return *std::min_element(samples_ns.begin(), samples_ns.end()); }
    double max() const { return *std::max_element(samples_ns.begin(), samples_ns.end()); }
    double median() const {
        std::vector<double> sorted = samples_ns;
        std::sort(sorted.begin(), sorted.end());
        return sorted[sorted.size() / 2];
    }
};

struct contender {
    std::string name;
    std::string heap;
    phase_stats allocation, release;
    virtual ~contender() = default;
    virtual void round() = 0;
};

template <class Alloc>
struct contender_for : contender {
    Alloc alloc;
    contender_for(std::string n, std::string h, const Alloc &a) : alloc(a) {
        name = std::move(n);
        heap = std::move(h);
    }
    void round() override {
        typename seed_queue<Alloc>::type queue{
            rebind<Alloc, typename seed_queue<Alloc>::buffer>(alloc)};
        const std::uint64_t t0 = thread_cpu_ns();
        allocate_phase(queue, alloc, kRepeats);
        const std::uint64_t t1 = thread_cpu_ns();
        free_phase(queue);
        const std::uint64_t t2 = thread_cpu_ns();
        allocation.samples_ns.push_back(static_cast<double>(t1 - t0));
        release.samples_ns.push_back(static_cast<double>(t2 - t1));
    }
};

template <class Alloc>
std::unique_ptr<contender> make(std::string name, std::string heap, const Alloc &alloc) {
    return std::make_unique<contender_for<Alloc>>(std::move(name), std::move(heap), alloc);
}

// Whether `repeats` repeats of the allocation phase fit in a fresh TLSF heap of `bytes`
// bytes at `memory`; `peak` receives the heap's peak use.
bool fits(unsigned char *memory, std::size_t bytes, int repeats, std::size_t &peak) {
    tlsf::heap heap(memory, bytes);
    const tlsf::allocator<char> alloc(heap);
    try {
        seed_queue<tlsf::allocator<char>>::type queue{alloc};
        allocate_phase(queue, alloc, repeats);
        free_phase(queue);
    } catch (const std::bad_alloc &) {
        return false;
    }
    peak = heap.stats().peak_used_bytes;
    return true;
}

// The smallest heap, in whole KiB up to kProbeBytes, that holds `repeats` repeats.
std::size_t smallest_heap_for(unsigned char *memory, int repeats) {
    std::size_t peak = 0;
    for (std::size_t kib = 16; kib * 1024 <= kProbeBytes; ++kib) {
        if (fits(memory, kib * 1024, repeats, peak)) return kib * 1024;
    }
    return 0;
}

// The same question for bare blocks through the C API, the pointers kept outside the
// heap: what the queue itself costs.
int largest_raw_fit(unsigned char *memory) {
    int best = 0;
    for (int repeats = 1; repeats < 64; ++repeats) {
        tlsf_t heap = tlsf_create_with_pool(memory, kHeapBytes);
        std::vector<void *> blocks;
        bool ok = true;
        for (int r = 0; r < repeats && ok; ++r) {
            for (std::uint8_t x : kSeedValues) {
                void *p = tlsf_malloc(heap, std::size_t{4} * x);
                if (p == nullptr) {
                    ok = false;
                    break;
                }
                std::memset(p, x, std::size_t{4} * x);
                blocks.push_back(p);
            }
        }
        if (!ok) break;
        best = repeats;
    }
    return best;
}

} // namespace

int main(int argc, char **argv) {
    std::string out_dir = ".";
    bool fit_only = false;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
            out_dir = argv[++i];
        } else if (std::strcmp(argv[i], "--fit-only") == 0) {
            fit_only = true;
        } else {
            std::fprintf(stderr, "usage: %s [--out DIR] [--fit-only]\n", argv[0]);
            return 2;
        }
    }

    // First what fits in 175 KiB: the seed's board ran out at 7 repeats.
    alignas(tlsf::alignment) static unsigned char probe_memory[kProbeBytes];
    int largest = 0;
    std::size_t peak_at_largest = 0, peak = 0;
    while (largest < 64 && fits(probe_memory, kHeapBytes, largest + 1, peak)) {
        ++largest;
        peak_at_largest = peak;
    }
    std::printf("175 KiB TLSF heap, %zu-bit (control structure %zu B): largest repeat count that "
                "fits is %d with std::deque<std::vector> (peak use %zu B), %d as bare tlsf_malloc "
                "blocks\n",
                sizeof(void *) * 8, tlsf_size(), largest, peak_at_largest,
                largest_raw_fit(probe_memory));
    if (fit_only) return 0;

    // The timed TLSF heap is 175 KiB when the seed's 6 repeats fit; otherwise (64-bit
    // pointers double the queue's entries) the smallest whole-KiB heap that holds them.
    std::size_t heap_bytes = kHeapBytes;
    if (largest < kRepeats) {
        heap_bytes = smallest_heap_for(probe_memory, kRepeats);
        if (heap_bytes == 0) {
            std::printf("%d repeats do not fit even in %zu KiB\n", kRepeats, kProbeBytes / 1024);
            return 1;
        }
        std::printf("%d repeats do not fit in 175 KiB here; the smallest TLSF heap that holds them "
                    "is %zu KiB, used for the timing\n",
                    kRepeats, heap_bytes / 1024);
    }
    alignas(tlsf::alignment) static unsigned char timed_memory[kProbeBytes];
    tlsf::heap seed_heap(timed_memory, heap_bytes);
    const std::string heap_label = std::to_string(heap_bytes / 1024) + " KiB";

    bench::heap_set heaps(std::size_t{1} << 20);
    std::vector<std::unique_ptr<contender>> contenders;
    contenders.push_back(make("std::allocator", "unbounded", std::allocator<char>()));
    contenders.push_back(make("tlsf::allocator", heap_label, tlsf::allocator<char>(seed_heap)));
    for (const bench::peer_heap &peer : heaps.peers()) {
        contenders.push_back(
            make(peer.name(), "unbounded", bench::peer_allocator<char>(peer.api())));
    }

    // One untimed round first: the rounds then measure the allocators, not the page faults
    // of their first use of memory.
    for (auto &c : contenders)
        c->round();
    for (auto &c : contenders)
        c->allocation = c->release = phase_stats{};
    for (int round = 0; round < kRounds; ++round) {
        for (auto &c : contenders)
            c->round();
    }

    const std::size_t buffers = std::size(kSeedValues) * kRepeats;
    std::printf("seed workload: %zu buffers (100 values x %d), 4*x bytes each, then free all but "
                "%zu; %d rounds, thread CPU time in us\n",
                buffers, kRepeats, kKept, kRounds);
    std::printf("%-16s %-10s %-9s %8s %8s %8s %8s %9s\n", "allocator", "heap", "phase", "avg",
                "median", "min", "max", "avg/libc");
    FILE *csv = std::fopen((out_dir + "/seed_workload.csv").c_str(), "w");
    if (csv == nullptr) {
        std::perror("seed_workload.csv");
        return 1;
    }
    std::fprintf(csv, "allocator,heap,phase,avg_us,min_us,max_us,median_us,avg_ratio_to_libc\n");
    const contender &libc = *contenders.front();
    for (const auto &c : contenders) {
        const char *names[] = {"allocate", "free"};
        const phase_stats *mine[] = {&c->allocation, &c->release};
        const phase_stats *base[] = {&libc.allocation, &libc.release};
        for (int i = 0; i < 2; ++i) {
            const phase_stats &s = *mine[i];
            const double ratio = s.sum() / base[i]->sum();
            std::printf("%-16s %-10s %-9s %8.2f %8.2f %8.2f %8.2f %9.2f\n", c->name.c_str(),
                        c->heap.c_str(), names[i], s.avg() / 1000, s.median() / 1000,
                        s.min() / 1000, s.max() / 1000, ratio);
            std::fprintf(csv, "%s,%s,%s,%.3f,%.3f,%.3f,%.3f,%.3f\n", c->name.c_str(),
                         c->heap.c_str(), names[i], s.avg() / 1000, s.min() / 1000, s.max() / 1000,
                         s.median() / 1000, ratio);
        }
    }
    std::fclose(csv);
    for (const std::string &note : heaps.notes())
        std::printf("note: %s\n", note.c_str());
    return 0;
}
