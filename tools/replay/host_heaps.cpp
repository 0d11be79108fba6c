// SPDX-License-Identifier: MIT
// host_heaps.cpp - the heaps of the host (heaps.hpp): TLSF in each configuration, glibc,
// jemalloc and mimalloc.
#include <dlfcn.h>
#include <malloc.h>
#include <sys/mman.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <sstream>

#include "heaps.hpp"
#include "peers.hpp"
#include "timed_call.hpp"
#include "tlsf_backend.h"

// A function that only returns: the calibration of every counted call (timed_call.hpp); and
// one of five instructions, to prove the counts exact (--check-counter).
#if defined(__x86_64__)
__asm__(".text\n"
        ".globl tlsf_replay_empty_function\n"
        ".type tlsf_replay_empty_function, @function\n"
        "tlsf_replay_empty_function:\n"
        "\tret\n"
        ".size tlsf_replay_empty_function, .-tlsf_replay_empty_function\n"
        ".globl tlsf_replay_five_function\n"
        ".type tlsf_replay_five_function, @function\n"
        "tlsf_replay_five_function:\n"
        "\tnop\n\tnop\n\tnop\n\tnop\n\tret\n"
        ".size tlsf_replay_five_function, .-tlsf_replay_five_function\n");
extern "C" void *tlsf_replay_five_function(void *, std::size_t);
#define TLSF_REPLAY_HAVE_FIVE 1
#else
extern "C" void tlsf_replay_empty_function(void) {
}
#endif

namespace replay {
namespace {

using std::uint64_t;

// "64k", "4K", "1m", "512", "default" -> bytes; false if malformed.
bool parse_bytes(const std::string &text, uint64_t &bytes) {
    char *end = nullptr;
    if (text.empty()) return false;
    const unsigned long long value = std::strtoull(text.c_str(), &end, 10);
    uint64_t scale = 1;
    if (*end == 'k' || *end == 'K')
        scale = 1024, ++end;
    else if (*end == 'm' || *end == 'M')
        scale = 1024 * 1024, ++end;
    else if (*end == 'g' || *end == 'G')
        scale = uint64_t{1} << 30, ++end;
    if (*end != '\0' || end == text.c_str()) return false;
    bytes = value * scale;
    return true;
}

std::string bytes_text(uint64_t bytes) {
    if (bytes != 0 && bytes % (1024 * 1024) == 0) return std::to_string(bytes >> 20) + "m";
    if (bytes != 0 && bytes % 1024 == 0) return std::to_string(bytes >> 10) + "k";
    return std::to_string(bytes);
}

// ---- TLSF on the host ---------------------------------------------------------------------

struct tlsf_settings {
    unsigned sl = 5, checks = 2;
    bool cache_given = false, slabs_given = false;
    uint64_t cache = 0, slabs = 0;
};

class host_tlsf_heap : public heap {
  public:
    host_tlsf_heap(std::string name, const tlsf_replay_backend_t *backend, tlsf_settings settings,
                   uint64_t max_heap)
        : heap(std::move(name)), backend_(backend), settings_(settings) {
        max_ = max_heap;
        if (max_ > backend_->block_max - 1) max_ = backend_->block_max - 1;
        if (settings_.cache_given && backend_->cache_bytes == 0 && settings_.cache != 0)
            set_note("this build has no front cache");
    }
    ~host_tlsf_heap() override {
        if (memory_ != nullptr) munmap(memory_, mapped_);
    }

    sizing how_sized() const override { return sizing::bisect; }
    uint64_t unit() const override { return backend_->align; }
    uint64_t min_bytes() const override { return backend_->heap_min_bytes; }
    uint64_t max_bytes() const override { return max_ / backend_->align * backend_->align; }

    bool start(uint64_t bytes) override {
        if (bytes == 0) bytes = max_bytes();
        if (bytes > max_bytes()) {
            set_error("a heap of " + std::to_string(bytes) + " bytes is above the largest, " +
                      std::to_string(max_bytes()));
            return false;
        }
        if (memory_ == nullptr || mapped_ < bytes) {
            if (memory_ != nullptr) munmap(memory_, mapped_);
            // Reserved, not committed: only the pages the heap writes (headers, links, and
            // what calloc and realloc write) become memory.
            void *mapped = mmap(nullptr, max_bytes(), PROT_READ | PROT_WRITE,
                                MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
            if (mapped == MAP_FAILED) {
                memory_ = nullptr;
                set_error("cannot reserve " + std::to_string(max_bytes()) + " bytes");
                return false;
            }
            memory_ = mapped;
            mapped_ = max_bytes();
        }
        heap_ = backend_->create_with_pool(memory_, bytes);
        if (heap_ == nullptr) {
            set_error("tlsf_create_with_pool refused " + std::to_string(bytes) + " bytes");
            return false;
        }
        if (settings_.cache_given) backend_->cache_set_limit(heap_, settings_.cache);
        if (settings_.slabs_given && settings_.slabs != 0 &&
            backend_->slabs_enable(heap_, settings_.slabs) != 0) {
            set_error("tlsf_slabs_enable refused " + std::to_string(settings_.slabs) + " bytes");
            return false;
        }
        return true;
    }

    uint64_t allocate(uint64_t size) override {
        return handle(call_counting(counting, last_count, backend_->malloc, heap_,
                                    static_cast<std::size_t>(size)));
    }
    uint64_t allocate_zeroed(uint64_t size) override {
        return handle(call_counting(counting, last_count, backend_->calloc, heap_, std::size_t{1},
                                    static_cast<std::size_t>(size)));
    }
    uint64_t allocate_aligned(uint64_t align, uint64_t size) override {
        return handle(call_counting(counting, last_count, backend_->memalign, heap_,
                                    static_cast<std::size_t>(align),
                                    static_cast<std::size_t>(size)));
    }
    uint64_t reallocate(uint64_t block, uint64_t size) override {
        return handle(call_counting(counting, last_count, backend_->realloc, heap_,
                                    reinterpret_cast<void *>(block),
                                    static_cast<std::size_t>(size)));
    }
    void release(uint64_t block) override {
        call_counting(counting, last_count, backend_->free, heap_, reinterpret_cast<void *>(block));
    }

    bool shape(heap_shape &out) override {
        tlsf_replay_stats_t stats;
        backend_->get_stats(heap_, &stats);
        out.used = stats.used_bytes;
        out.free = stats.free_bytes;
        out.largest = stats.largest_allocatable;
        return true;
    }

    bool map(std::vector<map_block> &blocks) override {
        struct walk_state {
            std::vector<map_block> *blocks;
            const char *base;
        } state{&blocks, static_cast<const char *>(memory_)};
        blocks.clear();
        backend_->walk(
            heap_,
            [](void *ptr, std::size_t size, int used, void *user) {
                auto *s = static_cast<walk_state *>(user);
                s->blocks->push_back(
                    {static_cast<uint64_t>(static_cast<const char *>(ptr) - s->base), size,
                     used != 0});
            },
            &state);
        return true;
    }

  private:
    static uint64_t handle(void *ptr) { return reinterpret_cast<uintptr_t>(ptr); }

    const tlsf_replay_backend_t *backend_;
    tlsf_settings settings_;
    uint64_t max_ = 0;
    void *memory_ = nullptr;
    std::size_t mapped_ = 0;
    ::tlsf_heap *heap_ = nullptr;
};

// The backends loaded so far, by library path (never closed: their code stays in use).
const tlsf_replay_backend_t *load_backend(const std::string &path, std::string &error) {
    static std::map<std::string, const tlsf_replay_backend_t *> loaded;
    auto found = loaded.find(path);
    if (found != loaded.end()) return found->second;
    void *library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
        error = dlerror();
        return nullptr;
    }
    auto *backend =
        static_cast<const tlsf_replay_backend_t *>(dlsym(library, TLSF_REPLAY_BACKEND_SYMBOL));
    if (backend == nullptr || backend->version != TLSF_REPLAY_BACKEND_VERSION) {
        error = path + ": no " TLSF_REPLAY_BACKEND_SYMBOL " table of this version";
        return nullptr;
    }
    loaded[path] = backend;
    return backend;
}

std::unique_ptr<heap> make_tlsf(const std::string &spec, const heap_options &options,
                                std::string &error) {
    tlsf_settings settings;
    std::string rest = spec.size() > 4 ? spec.substr(5) : "";
    std::istringstream fields(rest);
    std::string field;
    while (std::getline(fields, field, ',')) {
        const std::size_t equals = field.find('=');
        const std::string key = field.substr(0, equals);
        const std::string value = equals == std::string::npos ? "" : field.substr(equals + 1);
        uint64_t number = 0;
        if (!parse_bytes(value, number)) {
            error = "tlsf: '" + field + "' is not key=number (sl, checks, cache, slabs)";
            return nullptr;
        }
        if (key == "sl")
            settings.sl = static_cast<unsigned>(number);
        else if (key == "checks")
            settings.checks = static_cast<unsigned>(number);
        else if (key == "cache")
            settings.cache_given = true, settings.cache = number;
        else if (key == "slabs")
            settings.slabs_given = true, settings.slabs = number;
        else {
            error = "tlsf: unknown setting '" + key + "' (sl, checks, cache, slabs)";
            return nullptr;
        }
    }
    const std::string library = options.backends_dir + "/libtlsf_replay_sl" +
                                std::to_string(settings.sl) + "_c" +
                                std::to_string(settings.checks) + ".so";
    std::string why;
    const tlsf_replay_backend_t *backend = load_backend(library, why);
    if (backend == nullptr) {
        error = "tlsf: no backend for sl=" + std::to_string(settings.sl) +
                " checks=" + std::to_string(settings.checks) + " (" + why +
                "); the build makes those of TLSF_REPLAY_VARIANTS";
        return nullptr;
    }
    std::string name =
        "tlsf sl" + std::to_string(settings.sl) + " c" + std::to_string(settings.checks);
    const uint64_t cache = settings.cache_given ? settings.cache : backend->cache_bytes;
    name += cache != 0 ? " cache " + bytes_text(cache) : " nocache";
    if (settings.slabs_given && settings.slabs != 0) name += " slabs " + bytes_text(settings.slabs);
    return std::make_unique<host_tlsf_heap>(name, backend, settings, options.max_heap);
}

// ---- glibc and the peers -------------------------------------------------------------------

struct c_functions {
    void *(*malloc)(std::size_t);
    void *(*calloc)(std::size_t, std::size_t);
    void *(*memalign)(std::size_t, std::size_t);
    void *(*realloc)(void *, std::size_t);
    void (*free)(void *);
};

bool load_c_functions(const std::string &name, c_functions &f, std::string &error);

// A C library's heap: glibc's own, or a peer's, which is loaded only when the heap starts
// (loading one runs its start-up code, and jemalloc's needs static TLS room that only the
// counting process is given: bench/host/peers.hpp).
class c_heap : public heap {
  public:
    explicit c_heap(std::string name) : heap(std::move(name)) {}

    bool start(uint64_t) override {
        if (started_) {
            set_error(name() + " cannot start afresh in the same process");
            return false;
        }
        std::string why;
        if (!load_c_functions(name(), f_, why)) {
            set_error(why);
            faulted_ = true;
            return false;
        }
        started_ = true;
        return true;
    }
    bool faulted() const override { return faulted_; }
    uint64_t allocate(uint64_t size) override {
        return handle(
            call_counting(counting, last_count, f_.malloc, static_cast<std::size_t>(size)));
    }
    uint64_t allocate_zeroed(uint64_t size) override {
        return handle(call_counting(counting, last_count, f_.calloc, std::size_t{1},
                                    static_cast<std::size_t>(size)));
    }
    uint64_t allocate_aligned(uint64_t align, uint64_t size) override {
        return handle(call_counting(counting, last_count, f_.memalign,
                                    static_cast<std::size_t>(align),
                                    static_cast<std::size_t>(size)));
    }
    uint64_t reallocate(uint64_t block, uint64_t size) override {
        return handle(call_counting(counting, last_count, f_.realloc,
                                    reinterpret_cast<void *>(block),
                                    static_cast<std::size_t>(size)));
    }
    void release(uint64_t block) override {
        call_counting(counting, last_count, f_.free, reinterpret_cast<void *>(block));
    }

  private:
    static uint64_t handle(void *ptr) { return reinterpret_cast<uintptr_t>(ptr); }
    c_functions f_{};
    bool started_ = false, faulted_ = false;
};

template <class F>
bool look_up(void *library, const char *symbol, F &function) {
    void *address = dlsym(library, symbol);
    if (address == nullptr) return false;
    function = reinterpret_cast<F>(address); // POSIX: a dlsym result converts to a function
    return true;
}

bool load_c_functions(const std::string &name, c_functions &f, std::string &error) {
    if (name == "glibc") {
        f = c_functions{&::malloc, &::calloc, &::memalign, &::realloc, &::free};
        return true;
    }
    bench::peer_set peers = bench::load_peers(name.c_str());
    if (peers.loaded.empty()) {
        error = peers.notes.empty() ? name + ": not available" : peers.notes.front();
        return false;
    }
    const bench::peer_api &api = peers.loaded.front();
    f.malloc = api.allocate;
    f.free = api.deallocate;
    const bool mimalloc = name == "mimalloc";
    if (!look_up(api.handle, mimalloc ? "mi_calloc" : "calloc", f.calloc) ||
        !look_up(api.handle, mimalloc ? "mi_memalign" : "memalign", f.memalign) ||
        !look_up(api.handle, mimalloc ? "mi_realloc" : "realloc", f.realloc)) {
        error = name + ": " + api.library + " lacks calloc, memalign or realloc";
        return false;
    }
    return true;
}

} // namespace

std::unique_ptr<heap> make_heap(const std::string &spec, const heap_options &options,
                                std::string &error) {
    if (spec == "tlsf" || spec.rfind("tlsf:", 0) == 0) return make_tlsf(spec, options, error);
    if (spec == "glibc" || spec == "jemalloc" || spec == "mimalloc")
        return std::make_unique<c_heap>(spec);
    if (spec.rfind("m4:", 0) == 0) return make_m4_heap(spec.substr(3), options, error);
    error = "unknown heap '" + spec +
            "' (tlsf[:sl=N,checks=N,cache=BYTES,slabs=BYTES], glibc, jemalloc, mimalloc, "
            "m4:IMAGE)";
    return nullptr;
}

bool heap_available(const std::string &spec, const heap_options &options) {
    if (spec.rfind("m4:", 0) == 0) return m4_image_exists(spec.substr(3), options);
#if !defined(TLSF_BENCH_JEMALLOC_LIBRARY)
    if (spec == "jemalloc") return false;
#endif
#if !defined(TLSF_BENCH_MIMALLOC_LIBRARY)
    if (spec == "mimalloc") return false;
#endif
    return true;
}

bool check_counter(std::string &report) {
#if defined(TLSF_REPLAY_HAVE_INSNCOUNT) && defined(TLSF_REPLAY_HAVE_FIVE)
    // Counted as the heaps' calls are: a function of five instructions must count 5, with
    // every signature's calibration, whatever ran before.
    std::uint64_t count = 0;
    void *(*five)(void *, std::size_t) = &tlsf_replay_five_function;
    call_counting(true, count, five, static_cast<void *>(nullptr), std::size_t{0});
    const std::uint64_t first = count;
    call_counting(true, count, five, static_cast<void *>(nullptr), std::size_t{1});
    auto empty = reinterpret_cast<void (*)(void *)>(&tlsf_replay_empty_function);
    std::uint64_t empty_count = 0;
    call_counting(true, empty_count, empty, static_cast<void *>(nullptr));
    report = "five-instruction function: " + std::to_string(first) + " and " +
             std::to_string(count) + "; empty function: " + std::to_string(empty_count);
    return first == 5 && count == 5 && empty_count == 1;
#else
    report = "no instruction counter in this build";
    return false;
#endif
}

bool running_under_insncount() {
#if defined(TLSF_REPLAY_HAVE_INSNCOUNT)
    // Two reads in a row differ by the read's own instructions under the tool, by 0 outside.
    const std::uint64_t first = read_counter();
    const std::uint64_t second = read_counter();
    return second != first;
#else
    return false;
#endif
}

} // namespace replay
