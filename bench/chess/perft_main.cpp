// SPDX-License-Identifier: MIT
// perft command-line driver for the allocator benchmark.
//
//   perft [--fen FEN] [--depth N] [--alloc NAME] [--tt N] [--tt-mode MODE] [--divide]
//         [--expect N]
//
// Prints e.g. "perft(5) = 4865609 nodes, 1.23 s, 3.96e+06 nodes/s, alloc=libc, tt=bounded,
// teardown 0.001 s" (the search, then the engine's destruction, timed apart) and
// "table: N entries, ...".
// To benchmark another allocator, write a run_xxx(const Options&) function
// that calls run_perft() with an instance of it and add one line to
// kAllocators below.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <memory_resource>

#include <tlsf/allocator.hpp>
#include <tlsf/heap.hpp>
#include <tlsf/memory_resource.hpp>

#include "chess/chess.hpp"
#include "chess/counting_allocator.hpp"
#include "chess/malloc_allocator.hpp"
#include "chess/notation.hpp"

namespace {

struct Options {
    const char *fen = chess::kStartFen;
    int depth = 5;
    const char *alloc = "libc";
    std::size_t tt_capacity = chess::kDefaultTtCapacity;
    bool tt_given = false; // --tt given: it overrides the mode's default capacity
    chess::tt_mode tt_mode = chess::tt_mode::bounded;
    bool divide = false;
    bool check = false; // --expect given: exit 1 unless the count is `expected`
    std::uint64_t expected = 0;
};

// Runs and reports the perft described by `opt` on an engine whose containers
// all allocate through `alloc`. The search is timed, and then the engine's teardown
// (the table and lists freed, then `after_teardown()`: an arena's release()), which the
// table-everything mode makes long. Returns the node count, or chess::kInvalidFen if the
// FEN was rejected.
template <class Alloc, class AfterTeardown = void (*)()>
std::uint64_t run_perft(
    const Options &opt, const Alloc &alloc, AfterTeardown after_teardown = [] {}) {
    using engine_type = chess::basic_engine<Alloc>;
    auto engine = std::make_unique<engine_type>(alloc, opt.tt_capacity, opt.tt_mode);
    if (!engine->set_fen(opt.fen)) {
        std::fprintf(stderr, "perft: invalid FEN: %s\n", opt.fen);
        return chess::kInvalidFen;
    }

    const auto start = std::chrono::steady_clock::now();
    std::uint64_t nodes = 0;
    if (opt.divide) {
        nodes = engine->divide(opt.depth, [](chess::Move m, std::uint64_t count) {
            char text[6];
            chess::to_uci(m, text);
            std::printf("%s: %llu\n", text, static_cast<unsigned long long>(count));
        });
    } else {
        nodes = engine->perft(opt.depth);
    }
    const auto searched = std::chrono::steady_clock::now();
    const std::size_t entries = engine->tt_size();
    const chess::EngineStats stats = engine->stats();
    engine.reset();
    after_teardown();
    const std::chrono::duration<double> search = searched - start;
    const std::chrono::duration<double> teardown = std::chrono::steady_clock::now() - searched;

    const double seconds = search.count();
    const double rate = seconds > 0.0 ? static_cast<double>(nodes) / seconds : 0.0;
    const bool everything = opt.tt_mode == chess::tt_mode::everything;
    std::printf("perft(%d) = %llu nodes, %.3f s, %.3g nodes/s, alloc=%s, tt=%s, teardown %.3f s\n",
                opt.depth, static_cast<unsigned long long>(nodes), seconds, rate, opt.alloc,
                everything ? "everything" : "bounded", teardown.count());
    std::printf("table: %zu entries (capacity %zu), %llu stores, %llu hits, %llu clears, "
                "%llu refused\n",
                entries, opt.tt_capacity, static_cast<unsigned long long>(stats.tt_stores),
                static_cast<unsigned long long>(stats.tt_hits),
                static_cast<unsigned long long>(stats.tt_clears),
                static_cast<unsigned long long>(stats.tt_refused));
    return nodes;
}

// ---- allocator choices ------------------------------------------------------

std::uint64_t run_libc(const Options &opt) {
    return run_perft(opt, chess::malloc_allocator<char>());
}

std::uint64_t run_std(const Options &opt) {
    return run_perft(opt, std::allocator<char>());
}

// A TLSF heap of the program's own, without a lock (perft runs on one thread), that
// takes its pools from malloc: 1 MiB at first, then as much again as it has each time it
// runs out, so any depth and TT size fit. (The benchmark's heap is one pool of 64 MiB,
// touched in advance; here the first search also pays for growing and first touches.)
class growing_heap {
  public:
    growing_heap() { heap_.set_pool_source(tlsf::pool_source{&malloc_pools::more, &pools_}); }
    growing_heap(const growing_heap &) = delete;
    growing_heap &operator=(const growing_heap &) = delete;
    tlsf::heap &get() noexcept { return heap_; }
    void report() const {
        std::printf("heap: %zu pool(s) from malloc, %zu bytes\n", pools_.count, pools_.obtained);
    }

  private:
    struct malloc_pools {
        static constexpr std::size_t kMax = 48; // doubling: beyond any address space
        void *memory[kMax] = {};
        std::size_t count = 0;
        std::size_t obtained = 0;

        malloc_pools() = default;
        malloc_pools(const malloc_pools &) = delete;
        malloc_pools &operator=(const malloc_pools &) = delete;
        ~malloc_pools() {
            for (std::size_t i = 0; i < count; ++i)
                std::free(memory[i]);
        }
        static tlsf::region more(std::size_t needed, void *context) noexcept {
            auto &self = *static_cast<malloc_pools *>(context);
            std::size_t bytes = self.obtained > needed ? self.obtained : needed;
            if (bytes < (std::size_t{1} << 20)) bytes = std::size_t{1} << 20;
            void *pool = self.count < kMax ? std::malloc(bytes) : nullptr;
            if (pool == nullptr) return {};
            self.memory[self.count++] = pool;
            self.obtained += bytes;
            return {pool, bytes};
        }
    };
    malloc_pools pools_; // declared first, so that it outlives the heap in its pools
    tlsf::heap heap_;
};

std::uint64_t run_tlsf(const Options &opt) {
    growing_heap heap;
    const std::uint64_t nodes = run_perft(opt, tlsf::allocator<char>(heap.get()));
    heap.report();
    return nodes;
}

std::uint64_t run_tlsf_default(const Options &opt) {
    return run_perft(opt, tlsf::allocator<char>());
}

std::uint64_t run_pmr_tlsf(const Options &opt) {
    growing_heap heap;
    tlsf::memory_resource resource(heap.get());
    const std::uint64_t nodes = run_perft(opt, std::pmr::polymorphic_allocator<char>(&resource));
    heap.report();
    return nodes;
}

// The upstream of the standard's resources below: new_delete_resource() (their default),
// counted, so that the program can say how much memory each resource held.
class counted_upstream final : public std::pmr::memory_resource {
  public:
    void report(const char *who) const {
        std::printf("%s: %zu block(s) from new_delete_resource, at most %zu bytes held\n", who,
                    calls_, peak_);
    }

  private:
    void *do_allocate(std::size_t bytes, std::size_t alignment) override {
        void *p = std::pmr::new_delete_resource()->allocate(bytes, alignment);
        ++calls_;
        held_ += bytes;
        if (held_ > peak_) peak_ = held_;
        return p;
    }
    void do_deallocate(void *p, std::size_t bytes, std::size_t alignment) override {
        std::pmr::new_delete_resource()->deallocate(p, bytes, alignment);
        held_ -= bytes;
    }
    bool do_is_equal(const std::pmr::memory_resource &other) const noexcept override {
        return this == &other;
    }

    std::size_t calls_ = 0;
    std::size_t held_ = 0;
    std::size_t peak_ = 0;
};

// The standard's pooling resource, default options, on the standard's default upstream:
// what std::pmr offers a single-threaded program. It keeps its chunks until destroyed.
std::uint64_t run_pmr_pool(const Options &opt) {
    counted_upstream upstream;
    std::uint64_t nodes = 0;
    {
        std::pmr::unsynchronized_pool_resource pool(&upstream);
        nodes = run_perft(opt, std::pmr::polymorphic_allocator<char>(&pool));
    }
    upstream.report("pool");
    return nodes;
}

// The standard's arena: allocation bumps a pointer, deallocation does nothing, release()
// frees everything. Its only release point here is the end of the search: the table and
// the position's piece lists live from the first root move to the last, so a release per
// root move would free them under the engine. So it holds the search's whole allocation
// volume (perft(5): about 116 MB bounded, 70 MB table-everything, against a peak of 0.2
// and 5 MB live), growing from 1 MiB (the TLSF heap's first pool) on new_delete_resource();
// its release() is timed as the engine's teardown, since it is the arena's free.
std::uint64_t run_pmr_monotonic(const Options &opt) {
    counted_upstream upstream;
    std::pmr::monotonic_buffer_resource arena(std::size_t{1} << 20, &upstream);
    const std::uint64_t nodes =
        run_perft(opt, std::pmr::polymorphic_allocator<char>(&arena), [&] { arena.release(); });
    upstream.report("monotonic");
    return nodes;
}

std::uint64_t run_counting(const Options &opt) {
    chess::AllocationStats stats;
    const std::uint64_t nodes = run_perft(opt, chess::counting_allocator<char>(stats));
    if (nodes != chess::kInvalidFen) {
        const double per_node =
            nodes > 0 ? static_cast<double>(stats.allocations) / static_cast<double>(nodes) : 0.0;
        std::printf(
            "allocations=%llu deallocations=%llu (%.3f per node), bytes=%llu, peak=%llu bytes\n",
            static_cast<unsigned long long>(stats.allocations),
            static_cast<unsigned long long>(stats.deallocations), per_node,
            static_cast<unsigned long long>(stats.bytes_allocated),
            static_cast<unsigned long long>(stats.peak_bytes_in_use));
    }
    return nodes;
}

struct AllocatorChoice {
    const char *name;
    std::uint64_t (*run)(const Options &);
    const char *description;
};

constexpr AllocatorChoice kAllocators[] = {
    {"libc", run_libc, "malloc/free from the C library"},
    {"std", run_std, "std::allocator (global operator new/delete)"},
    {"tlsf", run_tlsf, "tlsf::allocator on a heap of its own, no lock, grown from malloc"},
    {"tlsf-default", run_tlsf_default, "tlsf::allocator on tlsf::default_heap() (locked)"},
    {"pmr-tlsf", run_pmr_tlsf, "std::pmr::polymorphic_allocator on tlsf::memory_resource"},
    {"pmr-pool", run_pmr_pool, "std::pmr::unsynchronized_pool_resource on new_delete_resource"},
    {"pmr-monotonic", run_pmr_monotonic,
     "std::pmr::monotonic_buffer_resource, released after the search"},
    {"counting", run_counting, "malloc/free plus allocation statistics"},
};

// ---- command line -------------------------------------------------------------

void print_usage(std::FILE *to) {
    std::fprintf(to,
                 "usage: perft [--fen FEN] [--depth N] [--alloc NAME] [--tt N] [--tt-mode MODE]"
                 " [--divide] [--expect N]\n"
                 "  --fen FEN    position to search (default: start position)\n"
                 "  --depth N    search depth, 1..%d (default 5)\n"
                 "  --tt-mode M  bounded: cache subtrees of depth >= 2, clear the table when\n"
                 "               full (default); everything: cache every interior node, never\n"
                 "               clear, stop storing when full (a search engine's table)\n"
                 "  --tt N       transposition table capacity in entries, 0 = off (default %zu,\n"
                 "               or %zu with --tt-mode everything)\n"
                 "  --divide     print the node count of every root move\n"
                 "  --expect N   exit with status 1 unless the node count is N\n"
                 "  --alloc NAME allocator, one of:\n",
                 chess::kMaxHashedDepth - 1, chess::kDefaultTtCapacity,
                 chess::kEverythingTtCapacity);
    for (const AllocatorChoice &choice : kAllocators) {
        std::fprintf(to, "      %-14s %s\n", choice.name, choice.description);
    }
}

bool parse_unsigned(const char *text, unsigned long long max, unsigned long long &value) {
    if (text == nullptr || *text < '0' || *text > '9') return false;
    char *end = nullptr;
    value = std::strtoull(text, &end, 10);
    return *end == '\0' && value <= max;
}

// Returns 0 on success, otherwise the exit code to use.
int parse_options(int argc, char **argv, Options &opt) {
    for (int i = 1; i < argc; ++i) {
        const char *arg = argv[i];
        const char *value = i + 1 < argc ? argv[i + 1] : nullptr;
        unsigned long long number = 0;
        if (std::strcmp(arg, "--help") == 0 || std::strcmp(arg, "-h") == 0) {
            print_usage(stdout);
            return -1;
        } else if (std::strcmp(arg, "--divide") == 0) {
            opt.divide = true;
            continue;
        } else if (value == nullptr) {
            std::fprintf(stderr, "perft: missing value or unknown option '%s'\n", arg);
            return 2;
        } else if (std::strcmp(arg, "--fen") == 0) {
            opt.fen = value;
        } else if (std::strcmp(arg, "--depth") == 0) {
            if (!parse_unsigned(value, chess::kMaxHashedDepth - 1, number) || number == 0) {
                std::fprintf(stderr, "perft: bad depth '%s'\n", value);
                return 2;
            }
            opt.depth = static_cast<int>(number);
        } else if (std::strcmp(arg, "--tt") == 0) {
            if (!parse_unsigned(value, static_cast<unsigned long long>(SIZE_MAX), number)) {
                std::fprintf(stderr, "perft: bad TT capacity '%s'\n", value);
                return 2;
            }
            opt.tt_capacity = static_cast<std::size_t>(number);
            opt.tt_given = true;
        } else if (std::strcmp(arg, "--tt-mode") == 0) {
            if (std::strcmp(value, "bounded") == 0) {
                opt.tt_mode = chess::tt_mode::bounded;
            } else if (std::strcmp(value, "everything") == 0) {
                opt.tt_mode = chess::tt_mode::everything;
            } else {
                std::fprintf(stderr, "perft: unknown table mode '%s'\n", value);
                return 2;
            }
        } else if (std::strcmp(arg, "--alloc") == 0) {
            opt.alloc = value;
        } else if (std::strcmp(arg, "--expect") == 0) {
            if (!parse_unsigned(value, UINT64_MAX, number)) {
                std::fprintf(stderr, "perft: bad node count '%s'\n", value);
                return 2;
            }
            opt.check = true;
            opt.expected = number;
        } else {
            std::fprintf(stderr, "perft: unknown option '%s'\n", arg);
            return 2;
        }
        ++i; // consumed the value
    }
    if (opt.tt_mode == chess::tt_mode::everything && !opt.tt_given)
        opt.tt_capacity = chess::kEverythingTtCapacity;
    return 0;
}

} // namespace

int main(int argc, char **argv) {
    Options opt;
    const int status = parse_options(argc, argv, opt);
    if (status != 0) {
        if (status > 0) print_usage(stderr);
        return status > 0 ? status : 0;
    }
    for (const AllocatorChoice &choice : kAllocators) {
        if (std::strcmp(choice.name, opt.alloc) == 0) {
            const std::uint64_t nodes = choice.run(opt);
            if (nodes == chess::kInvalidFen) return 1;
            if (opt.check && nodes != opt.expected) {
                std::fprintf(stderr, "perft: expected %llu nodes\n",
                             static_cast<unsigned long long>(opt.expected));
                return 1;
            }
            return 0;
        }
    }
    std::fprintf(stderr, "perft: unknown allocator '%s'\n", opt.alloc);
    print_usage(stderr);
    return 2;
}
