/* SPDX-License-Identifier: MIT */
/*
 * bounds.h - the documented worst cases of the TLSF core on a Cortex-M4, in the one place
 * the check reads them from.
 *
 * Each bound is the largest number of instructions one call may execute, over every
 * workload and construction of tlsf_m4_counts (see host/workloads.c), for the core as
 * built by bench/cortex-m4/CMakeLists.txt with arm-none-eabi-gcc 12.2 (Debian 12):
 * "default" is the default configuration, "smallest" is TLSF_SL_INDEX_LOG2=3
 * TLSF_MAX_BLOCK_LOG2=17 TLSF_STATS=0 TLSF_CHECKS=0, and "size" the same with
 * TLSF_CODE=0 (the smallest code). An instruction is every one the core
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
 * The checks2 rows grew with the hardened heap (docs/reliability.md): every flag of a size
 * word is sealed, BLOCK_PREV_FREE included, so a neighbour's flag change is a new seal; the
 * seal takes two multiplies; a block taken from a list and the neighbours a free merges
 * with have their links checked (each pointer inside the pools' range, pointing back);
 * add_pool records the pools' range. At O2: malloc 117 -> 158, free 145 -> 217, memalign
 * 208 -> 260, realloc-nocopy 443 -> 605, init 151 -> 177. Every other row is unchanged.
 * Then the metadata checks (issue 27's gaps): the seal's address multiply by the key (one
 * multiply less) lowered malloc to 153 and memalign to 257; a free-list neighbour that is a
 * block must carry a sealed free header (two more seals per unlink at worst: free 217 ->
 * 222 at O2, 310 -> 369 at Os, where the seal is a call), realloc checks the header after a
 * free block it may absorb (realloc-nocopy 605 -> 641), and creation computes the key's
 * inverse for the link encoding (four Newton steps: init 177 -> 201). Last, a span leaves
 * out BLOCK_PARKED, the one bit outside the seal (one more mask wherever a span is read:
 * malloc 154, free 225, memalign 258, realloc-nocopy 651 at O2); a free-list neighbour must
 * be exactly a head of the heap's classes or an aligned block start in the pools (free 249,
 * realloc-nocopy 694, malloc 159, memalign 266 at O2; the heads' place and count are loaded
 * since a sized heap holds fewer; init 201 -> 181). One test per neighbour, the head test
 * first, then the pools' range and the seal (not a plausibility test and a liveness test
 * that both asked for a head): malloc 149, memalign 247, realloc-nocopy 672 at O2, free at
 * Os 389 -> 391.
 *
 * Sized heaps (tlsf_create_sized, tlsf_create_compact; docs/design.md, "The control
 * structure") lowered every init row (tlsf_create zeroes two words per pass: O2 default
 * 129 -> 109) and left malloc, free, memalign and realloc as they were; the core grew by
 * their functions and by tlsf_get_pool and tlsf_check computing the heap's size (size:core
 * at Os +26 to +38 bytes, init+malloc+free at Os +2 to +6: create stores the pool limit,
 * which add_pool compares against instead of a constant; at O2 both went down).
 *
 * The checks' header kinds (a header checked as a block's, or as a block's or a slab
 * object's, tlsf_checks.h; the same test where slabs are compiled out, as here) lowered
 * the O2 checks2 realloc: realloc-nocopy 672 -> 669, static 727 -> 724, size:core 6634 ->
 * 6626 bytes; nothing else moved.
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
    X("O2", "default",   "malloc",                   100)                               \
    X("O2", "default",   "free",                     100)                               \
    X("O2", "default",   "memalign",                 182)                               \
    X("O2", "default",   "realloc-nocopy",           354)                               \
    X("O2", "default",   "init",                     109)                               \
    X("O2", "default",   "size:init+malloc+free",   1126)                               \
    X("O2", "default",   "size:core",               3930)                               \
    X("Os", "default",   "malloc",                   136)                               \
    X("Os", "default",   "free",                     137)                               \
    X("Os", "default",   "memalign",                 237)                               \
    X("Os", "default",   "realloc-nocopy",           463)                               \
    X("Os", "default",   "init",                     114)                               \
    X("Os", "default",   "size:init+malloc+free",    874)                               \
    X("Os", "default",   "size:core",               3090)                               \
    X("O2", "smallest",  "malloc",                    88)                               \
    X("O2", "smallest",  "free",                      86)                               \
    X("O2", "smallest",  "memalign",                 173)                               \
    X("O2", "smallest",  "realloc-nocopy",           327)                               \
    X("O2", "smallest",  "init",                      85)                               \
    X("O2", "smallest",  "size:init+malloc+free",   1028)                               \
    X("O2", "smallest",  "size:core",               3694)                               \
    X("Os", "smallest",  "malloc",                   126)                               \
    X("Os", "smallest",  "free",                     116)                               \
    X("Os", "smallest",  "memalign",                 230)                               \
    X("Os", "smallest",  "realloc-nocopy",           418)                               \
    X("Os", "smallest",  "init",                      90)                               \
    X("Os", "smallest",  "size:init+malloc+free",    766)                               \
    X("Os", "smallest",  "size:core",               2876)                               \
    X("O2", "size",      "malloc",                    88)                               \
    X("O2", "size",      "free",                      84)                               \
    X("O2", "size",      "memalign",                 174)                               \
    X("O2", "size",      "realloc-nocopy",           326)                               \
    X("O2", "size",      "init",                      85)                               \
    X("O2", "size",      "size:init+malloc+free",    880)                               \
    X("O2", "size",      "size:core",               3554)                               \
    X("Os", "size",      "malloc",                   118)                               \
    X("Os", "size",      "free",                      99)                               \
    X("Os", "size",      "memalign",                 221)                               \
    X("Os", "size",      "realloc-nocopy",           393)                               \
    X("Os", "size",      "init",                      87)                               \
    X("Os", "size",      "size:init+malloc+free",    600)                               \
    X("Os", "size",      "size:core",               2710)                               \
    X("O2", "checks0",   "malloc",                    98)                               \
    X("O2", "checks0",   "free",                      92)                               \
    X("O2", "checks0",   "memalign",                 182)                               \
    X("O2", "checks0",   "realloc-nocopy",           343)                               \
    X("O2", "checks0",   "init",                     109)                               \
    X("O2", "checks0",   "size:init+malloc+free",   1094)                               \
    X("O2", "checks0",   "size:core",               3870)                               \
    X("Os", "checks0",   "malloc",                   134)                               \
    X("Os", "checks0",   "free",                     122)                               \
    X("Os", "checks0",   "memalign",                 237)                               \
    X("Os", "checks0",   "realloc-nocopy",           435)                               \
    X("Os", "checks0",   "init",                     114)                               \
    X("Os", "checks0",   "size:init+malloc+free",    822)                               \
    X("Os", "checks0",   "size:core",               3034)                               \
    X("O2", "checks2",   "malloc",                   149)                               \
    X("O2", "checks2",   "free",                     249)                               \
    X("O2", "checks2",   "memalign",                 247)                               \
    X("O2", "checks2",   "realloc-nocopy",           669)                               \
    X("O2", "checks2",   "init",                     181)                               \
    X("O2", "checks2",   "size:init+malloc+free",   2624)                               \
    X("O2", "checks2",   "size:core",               6626)                               \
    X("Os", "checks2",   "malloc",                   240)                               \
    X("Os", "checks2",   "free",                     391)                               \
    X("Os", "checks2",   "memalign",                 350)                               \
    X("Os", "checks2",   "realloc-nocopy",           1005)                               \
    X("Os", "checks2",   "init",                     197)                               \
    X("Os", "checks2",   "size:init+malloc+free",   1694)                               \
    X("Os", "checks2",   "size:core",               4378)                               \
    X("O2", "cache",     "malloc",                   105)                               \
    X("O2", "cache",     "free",                     104)                               \
    X("O2", "cache",     "memalign",                 184)                               \
    X("O2", "cache",     "realloc-nocopy",           354)                               \
    X("O2", "cache",     "init",                     180)                               \
    X("O2", "cache",     "malloc-drain",            2829)                               \
    X("O2", "cache",     "size:init+malloc+free",   2242)                               \
    X("O2", "cache",     "size:core",               5336)                               \
    X("Os", "cache",     "malloc",                   156)                               \
    X("Os", "cache",     "free",                     138)                               \
    X("Os", "cache",     "memalign",                 247)                               \
    X("Os", "cache",     "realloc-nocopy",           470)                               \
    X("Os", "cache",     "init",                     184)                               \
    X("Os", "cache",     "malloc-drain",            3640)                               \
    X("Os", "cache",     "size:init+malloc+free",   1170)                               \
    X("Os", "cache",     "size:core",               3612)                               \
    X("O2", "leancache", "malloc",                    95)                               \
    X("O2", "leancache", "free",                      89)                               \
    X("O2", "leancache", "memalign",                 175)                               \
    X("O2", "leancache", "realloc-nocopy",           332)                               \
    X("O2", "leancache", "init",                     173)                               \
    X("O2", "leancache", "malloc-drain",            2758)                               \
    X("O2", "leancache", "size:init+malloc+free",   2062)                               \
    X("O2", "leancache", "size:core",               5092)                               \
    X("Os", "leancache", "malloc",                   146)                               \
    X("Os", "leancache", "free",                     120)                               \
    X("Os", "leancache", "memalign",                 240)                               \
    X("Os", "leancache", "realloc-nocopy",           432)                               \
    X("Os", "leancache", "init",                     176)                               \
    X("Os", "leancache", "malloc-drain",            3565)                               \
    X("Os", "leancache", "size:init+malloc+free",    1004)                               \
    X("Os", "leancache", "size:core",               3366)
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
    X("O2", "default",         "static:malloc",            100)                         \
    X("O2", "default",         "static-cycles:malloc",     139)                         \
    X("O2", "default",         "static:free",              100)                         \
    X("O2", "default",         "static-cycles:free",       138)                         \
    X("O2", "default",         "static:realloc",           354)                         \
    X("O2", "default",         "static:memalign",          182)                         \
    X("O2", "default",         "static:create",             52)                         \
    X("O2", "default",         "static:add_pool",           57)                         \
    X("Os", "default",         "static:malloc",            136)                         \
    X("Os", "default",         "static-cycles:malloc",     243)                         \
    X("Os", "default",         "static:free",              146)                         \
    X("Os", "default",         "static-cycles:free",       256)                         \
    X("Os", "default",         "static:realloc",           481)                         \
    X("Os", "default",         "static:memalign",          237)                         \
    X("Os", "default",         "static:create",             51)                         \
    X("Os", "default",         "static:add_pool",           63)                         \
    X("O2", "smallest",        "static:malloc",             88)                         \
    X("O2", "smallest",        "static-cycles:malloc",     127)                         \
    X("O2", "smallest",        "static:free",               86)                         \
    X("O2", "smallest",        "static-cycles:free",       121)                         \
    X("O2", "smallest",        "static:realloc",           328)                         \
    X("O2", "smallest",        "static:memalign",          173)                         \
    X("O2", "smallest",        "static:create",             28)                         \
    X("O2", "smallest",        "static:add_pool",           57)                         \
    X("Os", "smallest",        "static:malloc",            126)                         \
    X("Os", "smallest",        "static-cycles:malloc",     228)                         \
    X("Os", "smallest",        "static:free",              116)                         \
    X("Os", "smallest",        "static-cycles:free",       197)                         \
    X("Os", "smallest",        "static:realloc",           424)                         \
    X("Os", "smallest",        "static:memalign",          230)                         \
    X("Os", "smallest",        "static:create",             27)                         \
    X("Os", "smallest",        "static:add_pool",           63)                         \
    X("O2", "size",            "static:malloc",             88)                         \
    X("O2", "size",            "static-cycles:malloc",     124)                         \
    X("O2", "size",            "static:free",               84)                         \
    X("O2", "size",            "static-cycles:free",       124)                         \
    X("O2", "size",            "static:realloc",           327)                         \
    X("O2", "size",            "static:memalign",          174)                         \
    X("O2", "size",            "static:create",             28)                         \
    X("O2", "size",            "static:add_pool",           57)                         \
    X("Os", "size",            "static:malloc",            118)                         \
    X("Os", "size",            "static-cycles:malloc",     210)                         \
    X("Os", "size",            "static:free",               99)                         \
    X("Os", "size",            "static-cycles:free",       166)                         \
    X("Os", "size",            "static:realloc",           398)                         \
    X("Os", "size",            "static:memalign",          221)                         \
    X("Os", "size",            "static:create",             27)                         \
    X("Os", "size",            "static:add_pool",           60)                         \
    X("O2", "checks0",         "static:malloc",             98)                         \
    X("O2", "checks0",         "static-cycles:malloc",     137)                         \
    X("O2", "checks0",         "static:free",               92)                         \
    X("O2", "checks0",         "static-cycles:free",       127)                         \
    X("O2", "checks0",         "static:realloc",           343)                         \
    X("O2", "checks0",         "static:memalign",          182)                         \
    X("O2", "checks0",         "static:create",             52)                         \
    X("O2", "checks0",         "static:add_pool",           57)                         \
    X("Os", "checks0",         "static:malloc",            134)                         \
    X("Os", "checks0",         "static-cycles:malloc",     241)                         \
    X("Os", "checks0",         "static:free",              122)                         \
    X("Os", "checks0",         "static-cycles:free",       204)                         \
    X("Os", "checks0",         "static:realloc",           435)                         \
    X("Os", "checks0",         "static:memalign",          237)                         \
    X("Os", "checks0",         "static:create",             51)                         \
    X("Os", "checks0",         "static:add_pool",           63)                         \
    X("O2", "checks2",         "static:malloc",            177)                         \
    X("O2", "checks2",         "static-cycles:malloc",     251)                         \
    X("O2", "checks2",         "static:free",              273)                         \
    X("O2", "checks2",         "static-cycles:free",       374)                         \
    X("O2", "checks2",         "static:realloc",           724)                         \
    X("O2", "checks2",         "static:memalign",          277)                         \
    X("O2", "checks2",         "static:create",              94)                         \
    X("O2", "checks2",         "static:add_pool",           97)                         \
    X("Os", "checks2",         "static:malloc",            328)                         \
    X("Os", "checks2",         "static-cycles:malloc",     586)                         \
    X("Os", "checks2",         "static:free",              522)                         \
    X("Os", "checks2",         "static-cycles:free",       897)                         \
    X("Os", "checks2",         "static:realloc",           1319)                         \
    X("Os", "checks2",         "static:memalign",          438)                         \
    X("Os", "checks2",         "static:create",             107)                         \
    X("Os", "checks2",         "static:add_pool",           98)                         \
    X("O2", "cache",           "static:malloc",           3329)                         \
    X("O2", "cache",           "static-cycles:malloc",    5014)                         \
    X("O2", "cache",           "static:free",              107)                         \
    X("O2", "cache",           "static-cycles:free",       151)                         \
    X("O2", "cache",           "static:realloc",          3585)                         \
    X("O2", "cache",           "static:memalign",         3411)                         \
    X("O2", "cache",           "static:create",            123)                         \
    X("O2", "cache",           "static:add_pool",           57)                         \
    X("Os", "cache",           "static:malloc",           4231)                         \
    X("Os", "cache",           "static-cycles:malloc",    7384)                         \
    X("Os", "cache",           "static:free",              141)                         \
    X("Os", "cache",           "static-cycles:free",       241)                         \
    X("Os", "cache",           "static:realloc",          4562)                         \
    X("Os", "cache",           "static:memalign",         4322)                         \
    X("Os", "cache",           "static:create",            121)                         \
    X("Os", "cache",           "static:add_pool",           63)                         \
    X("O2", "leancache",       "static:malloc",           3255)                         \
    X("O2", "leancache",       "static-cycles:malloc",    4937)                         \
    X("O2", "leancache",       "static:free",               92)                         \
    X("O2", "leancache",       "static-cycles:free",       130)                         \
    X("O2", "leancache",       "static:realloc",          3499)                         \
    X("O2", "leancache",       "static:memalign",         3338)                         \
    X("O2", "leancache",       "static:create",            115)                         \
    X("O2", "leancache",       "static:add_pool",           58)                         \
    X("Os", "leancache",       "static:malloc",           4157)                         \
    X("Os", "leancache",       "static-cycles:malloc",    7302)                         \
    X("Os", "leancache",       "static:free",              123)                         \
    X("Os", "leancache",       "static-cycles:free",       211)                         \
    X("Os", "leancache",       "static:realloc",          4452)                         \
    X("Os", "leancache",       "static:memalign",         4251)                         \
    X("Os", "leancache",       "static:create",            113)                         \
    X("Os", "leancache",       "static:add_pool",           63)                         \
    X("O2", "chess-tlsf",      "static:new",               118)                         \
    X("O2", "chess-tlsf",      "static-cycles:new",        184)                         \
    X("O2", "chess-tlsf",      "static:delete",            109)                         \
    X("O2", "chess-tlsf",      "static-cycles:delete",     161)                         \
    X("O2", "chess-tlsf",      "static:delete-sized",      109)                         \
    X("O2", "chess-tlsf-lean", "static:new",               106)                         \
    X("O2", "chess-tlsf-lean", "static-cycles:new",        172)                         \
    X("O2", "chess-tlsf-lean", "static:delete",             95)                         \
    X("O2", "chess-tlsf-lean", "static-cycles:delete",     144)                         \
    X("O2", "chess-tlsf-lean", "static:delete-sized",       95)                         \
    X("O2", "demo-full",       "static:new",               130)                         \
    X("O2", "demo-full",       "static-cycles:new",        215)                         \
    X("O2", "demo-full",       "static:delete",            116)                         \
    X("O2", "demo-full",       "static-cycles:delete",     184)                         \
    X("O2", "demo-full",       "static:delete-sized",      116)
/* clang-format on */

#endif /* TLSF_M4_BOUNDS_H */
