/* SPDX-License-Identifier: MIT */
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
    X("O2", "default",   "realloc-nocopy",           393)                               \
    X("O2", "default",   "init",                     160)                               \
    X("O2", "default",   "size:init+malloc+free",   1140)                               \
    X("O2", "default",   "size:core",               4074)                               \
    X("Os", "default",   "malloc",                   140)                               \
    X("Os", "default",   "free",                     149)                               \
    X("Os", "default",   "memalign",                 245)                               \
    X("Os", "default",   "realloc-nocopy",           484)                               \
    X("Os", "default",   "init",                     167)                               \
    X("Os", "default",   "size:init+malloc+free",    914)                               \
    X("Os", "default",   "size:core",               3152)                               \
    X("O2", "smallest",  "malloc",                   105)                               \
    X("O2", "smallest",  "free",                     100)                               \
    X("O2", "smallest",  "memalign",                 195)                               \
    X("O2", "smallest",  "realloc-nocopy",           357)                               \
    X("O2", "smallest",  "init",                     115)                               \
    X("O2", "smallest",  "size:init+malloc+free",   1058)                               \
    X("O2", "smallest",  "size:core",               4750)                               \
    X("Os", "smallest",  "malloc",                   129)                               \
    X("Os", "smallest",  "free",                     124)                               \
    X("Os", "smallest",  "memalign",                 238)                               \
    X("Os", "smallest",  "realloc-nocopy",           439)                               \
    X("Os", "smallest",  "init",                     122)                               \
    X("Os", "smallest",  "size:init+malloc+free",    780)                               \
    X("Os", "smallest",  "size:core",               2908)                               \
    X("O2", "checks0",   "malloc",                   115)                               \
    X("O2", "checks0",   "free",                     106)                               \
    X("O2", "checks0",   "memalign",                 207)                               \
    X("O2", "checks0",   "realloc-nocopy",           380)                               \
    X("O2", "checks0",   "init",                     160)                               \
    X("O2", "checks0",   "size:init+malloc+free",   1110)                               \
    X("O2", "checks0",   "size:core",               4032)                               \
    X("Os", "checks0",   "malloc",                   139)                               \
    X("Os", "checks0",   "free",                     130)                               \
    X("Os", "checks0",   "memalign",                 245)                               \
    X("Os", "checks0",   "realloc-nocopy",           452)                               \
    X("Os", "checks0",   "init",                     167)                               \
    X("Os", "checks0",   "size:init+malloc+free",    856)                               \
    X("Os", "checks0",   "size:core",               3086)                               \
    X("O2", "checks2",   "malloc",                   134)                               \
    X("O2", "checks2",   "free",                     166)                               \
    X("O2", "checks2",   "memalign",                 232)                               \
    X("O2", "checks2",   "realloc-nocopy",           488)                               \
    X("O2", "checks2",   "init",                     182)                               \
    X("O2", "checks2",   "size:init+malloc+free",   1628)                               \
    X("O2", "checks2",   "size:core",               4870)                               \
    X("Os", "checks2",   "malloc",                   165)                               \
    X("Os", "checks2",   "free",                     218)                               \
    X("Os", "checks2",   "memalign",                 278)                               \
    X("Os", "checks2",   "realloc-nocopy",           611)                               \
    X("Os", "checks2",   "init",                     185)                               \
    X("Os", "checks2",   "size:init+malloc+free",   1186)                               \
    X("Os", "checks2",   "size:core",               3492)                               \
    X("O2", "cache",     "malloc",                   126)                               \
    X("O2", "cache",     "free",                     130)                               \
    X("O2", "cache",     "memalign",                 209)                               \
    X("O2", "cache",     "realloc-nocopy",           404)                               \
    X("O2", "cache",     "init",                     264)                               \
    X("O2", "cache",     "malloc-drain",            6340)                               \
    X("O2", "cache",     "size:init+malloc+free",   1552)                               \
    X("O2", "cache",     "size:core",               4826)                               \
    X("Os", "cache",     "malloc",                   154)                               \
    X("Os", "cache",     "free",                     161)                               \
    X("Os", "cache",     "memalign",                 254)                               \
    X("Os", "cache",     "realloc-nocopy",           499)                               \
    X("Os", "cache",     "init",                     271)                               \
    X("Os", "cache",     "malloc-drain",            7529)                               \
    X("Os", "cache",     "size:init+malloc+free",   1182)                               \
    X("Os", "cache",     "size:core",               3590)                               \
    X("O2", "leancache", "malloc",                   114)                               \
    X("O2", "leancache", "free",                     113)                               \
    X("O2", "leancache", "memalign",                 196)                               \
    X("O2", "leancache", "realloc-nocopy",           369)                               \
    X("O2", "leancache", "init",                     249)                               \
    X("O2", "leancache", "malloc-drain",            6148)                               \
    X("O2", "leancache", "size:init+malloc+free",   1440)                               \
    X("O2", "leancache", "size:core",               4592)                               \
    X("Os", "leancache", "malloc",                   144)                               \
    X("Os", "leancache", "free",                     138)                               \
    X("Os", "leancache", "memalign",                 247)                               \
    X("Os", "leancache", "realloc-nocopy",           455)                               \
    X("Os", "leancache", "init",                     256)                               \
    X("Os", "leancache", "malloc-drain",            7458)                               \
    X("Os", "leancache", "size:init+malloc+free",   1016)                               \
    X("Os", "leancache", "size:core",               3322)
/* clang-format on */

/*
 * The static bounds (wcet/wcet.py --check, the ctests tlsf_m4_wcet and tlsf_m4_wcet_app;
 * the harness does not read this table): "static:F" is the longest path of entry point F
 * in instructions, found on the machine code over every path (not only those the
 * workloads run), counted as the harness counts; "static-cycles:F" an upper bound of its
 * cycles with zero wait states (ARM's Cortex-M4 TRM timings, wcet/timing.py). F: malloc,
 * free, realloc (its memcpy call counted, not entered), memalign, create, add_pool, and
 * new, delete, delete-sized for the firmware-app images (config: the image's name). In
 * the cache images malloc, realloc and memalign include a full cache drain. Where a static
 * bound is above the measured maximum, wcet/README.md says why, path by path.
 */
/* X(opt, config, function, bound) */
/* clang-format off */
#define TLSF_M4_STATIC_BOUNDS(X)                                                        \
    X("O2", "default",         "static:malloc",            117)                         \
    X("O2", "default",         "static-cycles:malloc",     169)                         \
    X("O2", "default",         "static:free",              115)                         \
    X("O2", "default",         "static-cycles:free",       169)                         \
    X("O2", "default",         "static:realloc",           394)                         \
    X("O2", "default",         "static:memalign",          207)                         \
    X("O2", "default",         "static:create",            102)                         \
    X("O2", "default",         "static:add_pool",           58)                         \
    X("Os", "default",         "static:malloc",            140)                         \
    X("Os", "default",         "static-cycles:malloc",     232)                         \
    X("Os", "default",         "static:free",              158)                         \
    X("Os", "default",         "static-cycles:free",       271)                         \
    X("Os", "default",         "static:realloc",           502)                         \
    X("Os", "default",         "static:memalign",          245)                         \
    X("Os", "default",         "static:create",            102)                         \
    X("Os", "default",         "static:add_pool",           65)                         \
    X("O2", "smallest",        "static:malloc",            105)                         \
    X("O2", "smallest",        "static-cycles:malloc",     154)                         \
    X("O2", "smallest",        "static:free",              100)                         \
    X("O2", "smallest",        "static-cycles:free",       152)                         \
    X("O2", "smallest",        "static:realloc",           357)                         \
    X("O2", "smallest",        "static:memalign",          195)                         \
    X("O2", "smallest",        "static:create",             57)                         \
    X("O2", "smallest",        "static:add_pool",           58)                         \
    X("Os", "smallest",        "static:malloc",            129)                         \
    X("Os", "smallest",        "static-cycles:malloc",     215)                         \
    X("Os", "smallest",        "static:free",              124)                         \
    X("Os", "smallest",        "static-cycles:free",       208)                         \
    X("Os", "smallest",        "static:realloc",           439)                         \
    X("Os", "smallest",        "static:memalign",          238)                         \
    X("Os", "smallest",        "static:create",             57)                         \
    X("Os", "smallest",        "static:add_pool",           65)                         \
    X("O2", "checks0",         "static:malloc",            115)                         \
    X("O2", "checks0",         "static-cycles:malloc",     167)                         \
    X("O2", "checks0",         "static:free",              106)                         \
    X("O2", "checks0",         "static-cycles:free",       161)                         \
    X("O2", "checks0",         "static:realloc",           380)                         \
    X("O2", "checks0",         "static:memalign",          207)                         \
    X("O2", "checks0",         "static:create",            102)                         \
    X("O2", "checks0",         "static:add_pool",           58)                         \
    X("Os", "checks0",         "static:malloc",            139)                         \
    X("Os", "checks0",         "static-cycles:malloc",     231)                         \
    X("Os", "checks0",         "static:free",              130)                         \
    X("Os", "checks0",         "static-cycles:free",       215)                         \
    X("Os", "checks0",         "static:realloc",           452)                         \
    X("Os", "checks0",         "static:memalign",          245)                         \
    X("Os", "checks0",         "static:create",            102)                         \
    X("Os", "checks0",         "static:add_pool",           65)                         \
    X("O2", "checks2",         "static:malloc",            134)                         \
    X("O2", "checks2",         "static-cycles:malloc",     192)                         \
    X("O2", "checks2",         "static:free",              166)                         \
    X("O2", "checks2",         "static-cycles:free",       240)                         \
    X("O2", "checks2",         "static:realloc",           489)                         \
    X("O2", "checks2",         "static:memalign",          232)                         \
    X("O2", "checks2",         "static:create",            110)                         \
    X("O2", "checks2",         "static:add_pool",           72)                         \
    X("Os", "checks2",         "static:malloc",            165)                         \
    X("Os", "checks2",         "static-cycles:malloc",     279)                         \
    X("Os", "checks2",         "static:free",              227)                         \
    X("Os", "checks2",         "static-cycles:free",       395)                         \
    X("Os", "checks2",         "static:realloc",           629)                         \
    X("Os", "checks2",         "static:memalign",          278)                         \
    X("Os", "checks2",         "static:create",            110)                         \
    X("Os", "checks2",         "static:add_pool",           75)                         \
    X("O2", "cache",           "static:malloc",           7490)                         \
    X("O2", "cache",           "static-cycles:malloc",   11863)                         \
    X("O2", "cache",           "static:free",              130)                         \
    X("O2", "cache",           "static-cycles:free",       197)                         \
    X("O2", "cache",           "static:realloc",          7777)                         \
    X("O2", "cache",           "static:memalign",         7574)                         \
    X("O2", "cache",           "static:create",            206)                         \
    X("O2", "cache",           "static:add_pool",           58)                         \
    X("Os", "cache",           "static:malloc",           8704)                         \
    X("Os", "cache",           "static-cycles:malloc",   15435)                         \
    X("Os", "cache",           "static:free",              170)                         \
    X("Os", "cache",           "static-cycles:free",       300)                         \
    X("Os", "cache",           "static:realloc",          9074)                         \
    X("Os", "cache",           "static:memalign",         8804)                         \
    X("Os", "cache",           "static:create",            206)                         \
    X("Os", "cache",           "static:add_pool",           65)                         \
    X("O2", "leancache",       "static:malloc",           7288)                         \
    X("O2", "leancache",       "static-cycles:malloc",   11661)                         \
    X("O2", "leancache",       "static:free",              113)                         \
    X("O2", "leancache",       "static-cycles:free",       176)                         \
    X("O2", "leancache",       "static:realloc",          7551)                         \
    X("O2", "leancache",       "static:memalign",         7369)                         \
    X("O2", "leancache",       "static:create",            191)                         \
    X("O2", "leancache",       "static:add_pool",           58)                         \
    X("Os", "leancache",       "static:malloc",           8630)                         \
    X("Os", "leancache",       "static-cycles:malloc",   15105)                         \
    X("Os", "leancache",       "static:free",              138)                         \
    X("Os", "leancache",       "static-cycles:free",       235)                         \
    X("Os", "leancache",       "static:realloc",          8948)                         \
    X("Os", "leancache",       "static:memalign",         8733)                         \
    X("Os", "leancache",       "static:create",            191)                         \
    X("Os", "leancache",       "static:add_pool",           65)                         \
    X("O2", "chess-tlsf",      "static:new",               135)                         \
    X("O2", "chess-tlsf",      "static-cycles:new",        214)                         \
    X("O2", "chess-tlsf",      "static:delete",            125)                         \
    X("O2", "chess-tlsf",      "static-cycles:delete",     193)                         \
    X("O2", "chess-tlsf",      "static:delete-sized",      125)                         \
    X("O2", "chess-tlsf-lean", "static:new",               123)                         \
    X("O2", "chess-tlsf-lean", "static-cycles:new",        199)                         \
    X("O2", "chess-tlsf-lean", "static:delete",            110)                         \
    X("O2", "chess-tlsf-lean", "static-cycles:delete",     176)                         \
    X("O2", "chess-tlsf-lean", "static:delete-sized",      110)                         \
    X("O2", "demo-full",       "static:new",               147)                         \
    X("O2", "demo-full",       "static-cycles:new",        245)                         \
    X("O2", "demo-full",       "static:delete",            131)                         \
    X("O2", "demo-full",       "static-cycles:delete",     215)                         \
    X("O2", "demo-full",       "static:delete-sized",      131)
/* clang-format on */

#endif /* TLSF_M4_BOUNDS_H */
