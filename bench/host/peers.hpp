// SPDX-License-Identifier: MIT
// peers.hpp - the other general-purpose allocators, called without replacing malloc.
//
// jemalloc, mimalloc and tcmalloc all export plain malloc/free from their shared
// libraries (Debian's jemalloc has no je_ prefix at all), so linking one of them would
// interpose malloc for the whole process and make "libc" mean that allocator. Instead
// each library is dlopen()ed with RTLD_LOCAL: its symbols stay out of the global scope,
// the process keeps glibc's malloc, and the peer's own entry points are looked up in
// that library only (jemalloc: its malloc/free; mimalloc: mi_malloc/mi_free; tcmalloc:
// tc_malloc/tc_free). load_peers() checks that malloc still resolves to libc afterwards.
//
// Which libraries exist is decided at CMake time (see CMakeLists.txt); a missing one is
// reported in the notes, never an error.
#ifndef TLSF_BENCH_PEERS_HPP
#define TLSF_BENCH_PEERS_HPP

#include <cstddef>
#include <string>
#include <vector>

namespace bench {

struct peer_api {
    std::string name;
    std::string library; // the file that was loaded
    void *(*allocate)(std::size_t);
    void (*deallocate)(void *);
    void *handle; // for looking up further entry points (dlsym)
};

struct peer_set {
    std::vector<peer_api> loaded;
    std::vector<std::string> notes; // one line per peer skipped, and why
};

// Loads every peer found at configure time, or only the one named `only`. Loading runs
// each library's start-up code (tcmalloc's alone executes millions of instructions), so
// a measurement of one peer loads just that one. Aborts if, afterwards, the process-wide
// malloc no longer comes from libc (that would silently falsify every "libc" figure).
peer_set load_peers(const char *only = nullptr);

// The environment setting jemalloc needs to be dlopen()ed (it reserves its thread-local
// data in the static TLS block); scripts/bench.sh exports it.
constexpr const char *kStaticTlsTunable = "GLIBC_TUNABLES=glibc.rtld.optional_static_tls=65536";

} // namespace bench

#endif // TLSF_BENCH_PEERS_HPP
