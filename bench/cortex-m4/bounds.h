/*
 * bounds.h - the documented worst cases of the TLSF core on a Cortex-M4, in the one place
 * the check reads them from.
 *
 * Each bound is the largest number of instructions one call may execute, over every
 * workload and construction of tlsf_m4_counts (see host/workloads.c), for the core as
 * built by bench/cortex-m4/CMakeLists.txt with arm-none-eabi-gcc 12.2 (Debian 12):
 * "default" is the default configuration, "smallest" is TLSF_SL_INDEX_LOG2=3
 * TLSF_MAX_BLOCK_LOG2=17 TLSF_STATS=0 TLSF_CHECKS=0. An instruction is every one the core
 * issues, IT-skipped ones included (see host/m4emu.h).
 *
 * Instruction counts in the emulator are deterministic, so each bound is the measured
 * maximum itself: the ctest `tlsf_m4_bounds` (test/m4) fails as soon as a change makes a
 * call longer or a probe larger. When a change makes them shorter the check says
 * "lower the bound": do, to keep the gain. Another compiler version may shift them.
 *
 * Configurations (bench/cortex-m4/CMakeLists.txt): "checks0" and "checks2" are the default
 * with TLSF_CHECKS=0 and 2 (2 adds a seal word to every header on 32-bit targets); "cache"
 * is the default with the front cache (TLSF_CACHE=1, TLSF_CACHE_BYTES=1024), "leancache"
 * the same with TLSF_STATS=0 TLSF_CHECKS=0. In the cache images the constructions of the
 * list paths run with the cache's budget set to 0 (their premises need every free to
 * reach the lists; the call still pays the cache's tests), and the cache's own
 * constructions with the full budget.
 *
 * Functions: malloc, free, memalign, realloc-nocopy (realloc minus the instructions inside
 * memcpy), init (tlsf_create + tlsf_add_pool of one pool), malloc-drain (cache images: a
 * malloc that fails after draining a full cache, every drained block merging with free
 * blocks on both sides: the longest call there is, bounded by the budget); and code sizes
 * in bytes: size:init+malloc+free and size:core, every function the probe links (static
 * helpers and C library routines such as memset included, startup code excluded).
 */
#ifndef TLSF_M4_BOUNDS_H
#define TLSF_M4_BOUNDS_H

/* X(opt, config, function, bound), one row per bound, kept aligned as a table. */
/* clang-format off */
#define TLSF_M4_BOUNDS(X)                                                               \
    X("O2", "default",   "malloc",                   117)                               \
    X("O2", "default",   "free",                     115)                               \
    X("O2", "default",   "memalign",                 207)                               \
    X("O2", "default",   "realloc-nocopy",           391)                               \
    X("O2", "default",   "init",                     160)                               \
    X("O2", "default",   "size:init+malloc+free",   1140)                               \
    X("O2", "default",   "size:core",               4074)                               \
    X("Os", "default",   "malloc",                   140)                               \
    X("Os", "default",   "free",                     149)                               \
    X("Os", "default",   "memalign",                 245)                               \
    X("Os", "default",   "realloc-nocopy",           480)                               \
    X("Os", "default",   "init",                     167)                               \
    X("Os", "default",   "size:init+malloc+free",    914)                               \
    X("Os", "default",   "size:core",               3152)                               \
    X("O2", "smallest",  "malloc",                   105)                               \
    X("O2", "smallest",  "free",                     100)                               \
    X("O2", "smallest",  "memalign",                 195)                               \
    X("O2", "smallest",  "realloc-nocopy",           356)                               \
    X("O2", "smallest",  "init",                     115)                               \
    X("O2", "smallest",  "size:init+malloc+free",   1058)                               \
    X("O2", "smallest",  "size:core",               4750)                               \
    X("Os", "smallest",  "malloc",                   129)                               \
    X("Os", "smallest",  "free",                     124)                               \
    X("Os", "smallest",  "memalign",                 238)                               \
    X("Os", "smallest",  "realloc-nocopy",           435)                               \
    X("Os", "smallest",  "init",                     122)                               \
    X("Os", "smallest",  "size:init+malloc+free",    780)                               \
    X("Os", "smallest",  "size:core",               2908)                               \
    X("O2", "checks0",   "malloc",                   115)                               \
    X("O2", "checks0",   "free",                     106)                               \
    X("O2", "checks0",   "memalign",                 207)                               \
    X("O2", "checks0",   "realloc-nocopy",           378)                               \
    X("O2", "checks0",   "init",                     160)                               \
    X("O2", "checks0",   "size:init+malloc+free",   1110)                               \
    X("O2", "checks0",   "size:core",               4032)                               \
    X("Os", "checks0",   "malloc",                   139)                               \
    X("Os", "checks0",   "free",                     130)                               \
    X("Os", "checks0",   "memalign",                 245)                               \
    X("Os", "checks0",   "realloc-nocopy",           448)                               \
    X("Os", "checks0",   "init",                     167)                               \
    X("Os", "checks0",   "size:init+malloc+free",    856)                               \
    X("Os", "checks0",   "size:core",               3086)                               \
    X("O2", "checks2",   "malloc",                   134)                               \
    X("O2", "checks2",   "free",                     166)                               \
    X("O2", "checks2",   "memalign",                 232)                               \
    X("O2", "checks2",   "realloc-nocopy",           485)                               \
    X("O2", "checks2",   "init",                     182)                               \
    X("O2", "checks2",   "size:init+malloc+free",   1628)                               \
    X("O2", "checks2",   "size:core",               4870)                               \
    X("Os", "checks2",   "malloc",                   165)                               \
    X("Os", "checks2",   "free",                     218)                               \
    X("Os", "checks2",   "memalign",                 278)                               \
    X("Os", "checks2",   "realloc-nocopy",           607)                               \
    X("Os", "checks2",   "init",                     185)                               \
    X("Os", "checks2",   "size:init+malloc+free",   1186)                               \
    X("Os", "checks2",   "size:core",               3492)                               \
    X("O2", "cache",     "malloc",                   126)                               \
    X("O2", "cache",     "free",                     128)                               \
    X("O2", "cache",     "memalign",                 209)                               \
    X("O2", "cache",     "realloc-nocopy",           402)                               \
    X("O2", "cache",     "init",                     264)                               \
    X("O2", "cache",     "malloc-drain",            6340)                               \
    X("O2", "cache",     "size:init+malloc+free",   1552)                               \
    X("O2", "cache",     "size:core",               4826)                               \
    X("Os", "cache",     "malloc",                   154)                               \
    X("Os", "cache",     "free",                     157)                               \
    X("Os", "cache",     "memalign",                 254)                               \
    X("Os", "cache",     "realloc-nocopy",           495)                               \
    X("Os", "cache",     "init",                     271)                               \
    X("Os", "cache",     "malloc-drain",            7529)                               \
    X("Os", "cache",     "size:init+malloc+free",   1182)                               \
    X("Os", "cache",     "size:core",               3590)                               \
    X("O2", "leancache", "malloc",                   114)                               \
    X("O2", "leancache", "free",                     111)                               \
    X("O2", "leancache", "memalign",                 196)                               \
    X("O2", "leancache", "realloc-nocopy",           367)                               \
    X("O2", "leancache", "init",                     249)                               \
    X("O2", "leancache", "malloc-drain",            6148)                               \
    X("O2", "leancache", "size:init+malloc+free",   1440)                               \
    X("O2", "leancache", "size:core",               4592)                               \
    X("Os", "leancache", "malloc",                   144)                               \
    X("Os", "leancache", "free",                     134)                               \
    X("Os", "leancache", "memalign",                 247)                               \
    X("Os", "leancache", "realloc-nocopy",           451)                               \
    X("Os", "leancache", "init",                     256)                               \
    X("Os", "leancache", "malloc-drain",            7458)                               \
    X("Os", "leancache", "size:init+malloc+free",   1016)                               \
    X("Os", "leancache", "size:core",               3322)
/* clang-format on */

#endif /* TLSF_M4_BOUNDS_H */
