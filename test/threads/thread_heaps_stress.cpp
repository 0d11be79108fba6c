// SPDX-License-Identifier: MIT
// thread_heaps_stress: the per-thread default heaps of the C++ layer
// (TLSF_CPP_DEFAULT_HEAP_PER_THREAD=1, target tlsf::cpp_thread_heaps). Global new/delete,
// a default tlsf::allocator and the default tlsf::memory_resource, used by many threads:
//   1. cross-thread deletes: producers `new` patterned blocks, consumers on other threads
//      check and delete them (remote frees onto the owner's list);
//   2. thread exit with live blocks: threads allocate and exit, the main thread checks and
//      frees their blocks afterwards; later threads adopt the orphaned heaps, so the
//      number of heaps stays bounded by the threads alive at once;
//   3. containers on the default allocator and resource, filled on one thread and
//      destroyed on another.
// After each part: every block is freed (the shim's live-block count is back where it
// started) and tlsfm_check() finds the heaps consistent.
// Usage: thread_heaps_stress [threads] [iterations]
#include <tlsf/global_new.hpp>
#include <tlsf/tlsf.hpp>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory_resource>
#include <mutex>
#include <thread>
#include <vector>

namespace {

std::atomic<int> failures{0};

void check(bool condition, const char *what, int line) {
    if (condition) return;
    std::fprintf(stderr, "thread_heaps_stress:%d: check failed: %s\n", line, what);
    ++failures;
}
#define CHECK(condition) check((condition), #condition, __LINE__)

tlsfm_info info() {
    tlsfm_info result{};
    tlsfm_get_info(&result);
    return result;
}

// A block of `size` bytes filled from `seed`, so the consumer can see it arrived intact.
struct parcel {
    std::size_t size;
    unsigned seed;
    unsigned char *bytes;
};

parcel make_parcel(std::size_t size, unsigned seed) {
    auto *bytes = new unsigned char[size];
    for (std::size_t i = 0; i < size; ++i)
        bytes[i] = static_cast<unsigned char>(seed + i);
    return parcel{size, seed, bytes};
}

bool intact(const parcel &p) {
    for (std::size_t i = 0; i < p.size; ++i)
        if (p.bytes[i] != static_cast<unsigned char>(p.seed + i)) return false;
    return true;
}

// A locked queue of parcels between producers and consumers.
class mailbox {
  public:
    void put(parcel p) {
        std::lock_guard<std::mutex> hold(mutex_);
        parcels_.push_back(p);
        ready_.notify_one();
    }
    // False once every producer has finished and the queue is empty.
    bool take(parcel &out) {
        std::unique_lock<std::mutex> hold(mutex_);
        ready_.wait(hold, [&] { return !parcels_.empty() || producers_ == 0; });
        if (parcels_.empty()) return false;
        out = parcels_.front();
        parcels_.pop_front();
        return true;
    }
    void set_producers(int count) { producers_ = count; }
    void producer_done() {
        std::lock_guard<std::mutex> hold(mutex_);
        --producers_;
        ready_.notify_all();
    }

  private:
    std::mutex mutex_;
    std::condition_variable ready_;
    std::deque<parcel> parcels_;
    int producers_ = 0;
};

void cross_thread_deletes(int threads, int iterations) {
    const std::size_t live_before = info().live_blocks;
    {
        // Scoped: the queue and the thread list hold blocks of their own.
        mailbox box;
        const int producers = threads > 1 ? threads / 2 : 1;
        box.set_producers(producers);
        std::atomic<int> bad{0};
        std::atomic<long> delivered{0};
        std::vector<std::thread> workers;
        for (int t = 0; t < producers; ++t)
            workers.emplace_back([&, t] {
                unsigned state = 12345u + static_cast<unsigned>(t);
                for (int i = 0; i < iterations; ++i) {
                    state = state * 1103515245u + 12345u;
                    const std::size_t size = 1 + (state >> 8) % 2000;
                    box.put(make_parcel(size, state));
                    // Some blocks stay on the producer's thread, freed there (local frees
                    // interleaved with the remote ones taken back).
                    delete[] new char[1 + state % 300];
                }
                box.producer_done();
            });
        const int consumers = threads - producers > 0 ? threads - producers : 1;
        for (int t = 0; t < consumers; ++t)
            workers.emplace_back([&] {
                parcel p{};
                while (box.take(p)) {
                    if (!intact(p)) bad.fetch_add(1);
                    delete[] p.bytes;
                    delivered.fetch_add(1);
                }
            });
        for (std::thread &w : workers)
            w.join();
        CHECK(bad.load() == 0);
        CHECK(delivered.load() == static_cast<long>(producers) * iterations);
    }
    // The check first: it takes back the remote frees still queued on the heaps it
    // inspects (the live-block count includes those until then).
    CHECK(tlsfm_check() == 0);
    CHECK(info().live_blocks == live_before);
}

void exit_with_live_blocks(int threads, int iterations) {
    const std::size_t live_before = info().live_blocks;
    const int rounds = 8;
    std::size_t most_heaps = 0;
    for (int round = 0; round < rounds; ++round) {
        // Each thread leaves its blocks behind: parcels from new[], a vector on the
        // default allocator, a pmr vector on the default resource.
        std::vector<std::vector<parcel>> left(static_cast<std::size_t>(threads));
        std::vector<tlsf::vector<int>> vectors(static_cast<std::size_t>(threads));
        std::vector<std::pmr::vector<long>> pmr_vectors;
        for (int t = 0; t < threads; ++t)
            pmr_vectors.emplace_back(tlsf::default_resource());
        std::vector<std::thread> workers;
        for (int t = 0; t < threads; ++t)
            workers.emplace_back([&, t] {
                const auto slot = static_cast<std::size_t>(t);
                const int count = iterations / 50 + 1;
                for (int i = 0; i < count; ++i)
                    left[slot].push_back(
                        make_parcel(8 + static_cast<std::size_t>(i % 97) * 13,
                                    static_cast<unsigned>(round * 1000 + t * 31 + i)));
                for (int i = 0; i < count; ++i)
                    vectors[slot].push_back(i);
                for (int i = 0; i < count; ++i)
                    pmr_vectors[slot].push_back(i);
            });
        for (std::thread &w : workers)
            w.join();
        const tlsfm_info after_exit = info();
        CHECK(after_exit.orphan_heaps >= 1); // the exited threads' heaps, blocks and all
        if (after_exit.heaps > most_heaps) most_heaps = after_exit.heaps;
        CHECK(tlsfm_check() == 0);
        // The main thread frees what the exited threads allocated.
        for (std::size_t t = 0; t < left.size(); ++t) {
            for (const parcel &p : left[t]) {
                CHECK(intact(p));
                delete[] p.bytes;
            }
            for (std::size_t i = 0; i < vectors[t].size(); ++i)
                CHECK(vectors[t][i] == static_cast<int>(i));
        }
    }
    // Heaps are adopted by later threads: no more than one per thread alive at once (plus
    // the main thread's and those of the earlier parts).
    CHECK(most_heaps <= static_cast<std::size_t>(2 * threads + 2));
    // The check first: it takes back the remote frees still queued on the heaps it
    // inspects (the live-block count includes those until then).
    CHECK(tlsfm_check() == 0);
    CHECK(info().live_blocks == live_before);
}

void containers_across_threads(int threads, int iterations) {
    const std::size_t live_before = info().live_blocks;
    CHECK(tlsf::allocator<int>().uses_thread_heaps());
    CHECK(tlsf::allocator<int>() == tlsf::allocator<double>());
    CHECK(tlsf::default_resource()->uses_thread_heaps());
    CHECK(tlsf::default_resource()->is_equal(*tlsf::default_resource()));
    {
        std::vector<tlsf::vector<long>> made(static_cast<std::size_t>(threads));
        std::vector<std::thread> workers;
        for (int t = 0; t < threads; ++t)
            workers.emplace_back([&, t] {
                tlsf::vector<long> &v = made[static_cast<std::size_t>(t)];
                for (int i = 0; i < iterations; ++i)
                    v.push_back(static_cast<long>(i) * t);
                // Over-aligned blocks from the default resource, freed on this thread.
                std::pmr::memory_resource *r = tlsf::default_resource();
                void *wide = r->allocate(100, 256);
                CHECK(reinterpret_cast<std::uintptr_t>(wide) % 256 == 0);
                r->deallocate(wide, 100, 256);
            });
        for (std::thread &w : workers)
            w.join();
        // Destroyed on other threads than the ones that filled them.
        std::vector<std::thread> destroyers;
        for (int t = 0; t < threads; ++t)
            destroyers.emplace_back([&, t] {
                tlsf::vector<long> &v = made[static_cast<std::size_t>((t + 1) % threads)];
                for (std::size_t i = 0; i < v.size(); ++i)
                    if (v[i] != static_cast<long>(i) * ((t + 1) % threads)) CHECK(false);
                tlsf::vector<long>().swap(v);
            });
        for (std::thread &d : destroyers)
            d.join();
    }
    // The check first: it takes back the remote frees still queued on the heaps it
    // inspects (the live-block count includes those until then).
    CHECK(tlsfm_check() == 0);
    CHECK(info().live_blocks == live_before);
}

int parse(const char *text, int fallback) {
    const int value = text ? std::atoi(text) : fallback;
    return value > 0 ? value : fallback;
}

} // namespace

int main(int argc, char **argv) {
    const int threads = parse(argc > 1 ? argv[1] : nullptr, 4);
    const int iterations = parse(argc > 2 ? argv[2] : nullptr, 20000);
    {
        // operator new is really on the thread heaps: the shim counts the block.
        const std::size_t before = info().live_blocks;
        auto *probe = new int(7);
        CHECK(info().live_blocks == before + 1);
        CHECK(tlsf::thread_heaps_usable_size(probe) >= sizeof(int));
        delete probe;
        CHECK(info().live_blocks == before);
    }
    cross_thread_deletes(threads, iterations);
    exit_with_live_blocks(threads, iterations);
    containers_across_threads(threads, iterations);
    // Many threads at once, each deleting what another made.
    cross_thread_deletes(threads * 8, iterations / 16 + 1);
    if (failures != 0) {
        std::fprintf(stderr, "thread_heaps_stress: %d checks failed\n", failures.load());
        return 1;
    }
    const tlsfm_info end = info();
    std::printf("thread_heaps_stress: %d threads, %d iterations: ok (%zu heaps made)\n", threads,
                iterations, end.heaps);
    return 0;
}
