// SPDX-License-Identifier: MIT
// peers.cpp - dlopen()s jemalloc, mimalloc and tcmalloc side by side with glibc.
#include "peers.hpp"

#include <dlfcn.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#if TLSF_BENCH_HAVE_PAGE_STUDY
#include "page_heap.h"
#endif

namespace bench {
namespace {

struct peer_recipe {
    const char *name;
    const char *library; // from CMake; nullptr when the library was not found
    const char *allocate_symbol;
    const char *deallocate_symbol;
};

// The library paths come from CMake as compile definitions of this file only.
#ifndef TLSF_BENCH_JEMALLOC_LIBRARY
#define TLSF_BENCH_JEMALLOC_LIBRARY nullptr
#endif
#ifndef TLSF_BENCH_MIMALLOC_LIBRARY
#define TLSF_BENCH_MIMALLOC_LIBRARY nullptr
#endif
#ifndef TLSF_BENCH_TCMALLOC_LIBRARY
#define TLSF_BENCH_TCMALLOC_LIBRARY nullptr
#endif
#ifndef TLSF_BENCH_SCUDO_LIBRARY
#define TLSF_BENCH_SCUDO_LIBRARY nullptr
#endif

constexpr peer_recipe kRecipes[] = {
    // Debian builds jemalloc without a prefix: its malloc/free *are* the entry points,
    // found here in the jemalloc library itself rather than in the global scope.
    {"jemalloc", TLSF_BENCH_JEMALLOC_LIBRARY, "malloc", "free"},
    {"mimalloc", TLSF_BENCH_MIMALLOC_LIBRARY, "mi_malloc", "mi_free"},
    // tcmalloc_minimal: tcmalloc without the heap profiler and checker hooks.
    {"tcmalloc", TLSF_BENCH_TCMALLOC_LIBRARY, "tc_malloc", "tc_free"},
    // scudo (LLVM's standalone hardened allocator, as Android uses it): every chunk header
    // checksummed, a double free or a foreign pointer refused (it aborts). Its malloc/free
    // are found in its own library, as jemalloc's are.
    {"scudo", TLSF_BENCH_SCUDO_LIBRARY, "malloc", "free"},
};

// The shared object that provides the process-wide `malloc`.
std::string global_malloc_owner() {
    Dl_info info{};
    void *global_malloc = dlsym(RTLD_DEFAULT, "malloc");
    if (global_malloc == nullptr || dladdr(global_malloc, &info) == 0 ||
        info.dli_fname == nullptr) {
        return "?";
    }
    return info.dli_fname;
}

bool is_libc(const std::string &path) {
    return path.find("libc.so") != std::string::npos;
}

#if TLSF_BENCH_HAVE_PAGE_STUDY
// The design study of bench/study/page_heap.h, as a peer: one heap over 256 MiB (every
// suite frees what it allocates, as on the TLSF heaps of the suites), made by load_peers.
page_heap *study_heap = nullptr;
void *study_allocate(std::size_t bytes) {
    return page_heap_malloc(study_heap, bytes);
}
void study_deallocate(void *ptr) {
    page_heap_free(study_heap, ptr);
}
bool make_study_heap() {
    constexpr std::size_t kBytes = std::size_t{256} << 20;
    static std::vector<std::max_align_t> memory(kBytes / sizeof(std::max_align_t));
    if (study_heap == nullptr) study_heap = page_heap_create(memory.data(), kBytes);
    return study_heap != nullptr;
}
#endif

} // namespace

peer_set load_peers(const char *only) {
    peer_set peers;
    for (const peer_recipe &recipe : kRecipes) {
        if (only != nullptr && std::strcmp(only, recipe.name) != 0) continue;
        if (recipe.library == nullptr) {
            peers.notes.push_back(std::string(recipe.name) +
                                  ": skipped, its shared library was not found at configure time");
            continue;
        }
        void *handle = dlopen(recipe.library, RTLD_NOW | RTLD_LOCAL);
        if (handle == nullptr) {
            std::string why = dlerror();
            if (why.find("static TLS") != std::string::npos) {
                why += " (run with ";
                why += kStaticTlsTunable;
                why += ", as scripts/bench.sh does)";
            }
            peers.notes.push_back(std::string(recipe.name) + ": skipped, " + why);
            continue;
        }
        void *allocate = dlsym(handle, recipe.allocate_symbol);
        void *deallocate = dlsym(handle, recipe.deallocate_symbol);
        if (allocate == nullptr || deallocate == nullptr) {
            peers.notes.push_back(std::string(recipe.name) + ": skipped, " + recipe.library +
                                  " lacks " + recipe.allocate_symbol + "/" +
                                  recipe.deallocate_symbol);
            dlclose(handle);
            continue;
        }
        peer_api api;
        api.name = recipe.name;
        api.library = recipe.library;
        // POSIX guarantees that a dlsym result converts to a function pointer.
        api.allocate = reinterpret_cast<void *(*)(std::size_t)>(allocate);
        api.deallocate = reinterpret_cast<void (*)(void *)>(deallocate);
        api.handle = handle;
        peers.loaded.push_back(api);
    }

#if TLSF_BENCH_HAVE_PAGE_STUDY
    // The design study only when named, or with TLSF_BENCH_STUDY set (it is no peer a
    // program could choose, and scripts/bench.sh's tables are of those).
    const bool study = only != nullptr ? std::strcmp(only, "page-study") == 0
                                       : std::getenv("TLSF_BENCH_STUDY") != nullptr;
    if (study && make_study_heap())
        peers.loaded.push_back(
            {"page-study", "bench/study/page_heap.c", study_allocate, study_deallocate, nullptr});
#endif

    const std::string owner = global_malloc_owner();
    if (!is_libc(owner)) {
        std::fprintf(stderr,
                     "bench: malloc resolves to %s, not libc: a peer allocator has been "
                     "interposed, so the libc figures would be wrong. Do not link or preload "
                     "jemalloc/mimalloc/tcmalloc.\n",
                     owner.c_str());
        std::abort();
    }
    return peers;
}

} // namespace bench
