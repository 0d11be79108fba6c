// SPDX-License-Identifier: MIT
// peers.cpp - dlopen()s jemalloc, mimalloc and tcmalloc side by side with glibc.
#include "peers.hpp"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

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

constexpr peer_recipe kRecipes[] = {
    // Debian builds jemalloc without a prefix: its malloc/free *are* the entry points,
    // found here in the jemalloc library itself rather than in the global scope.
    {"jemalloc", TLSF_BENCH_JEMALLOC_LIBRARY, "malloc", "free"},
    {"mimalloc", TLSF_BENCH_MIMALLOC_LIBRARY, "mi_malloc", "mi_free"},
    // tcmalloc_minimal: tcmalloc without the heap profiler and checker hooks.
    {"tcmalloc", TLSF_BENCH_TCMALLOC_LIBRARY, "tc_malloc", "tc_free"},
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
