/* SPDX-License-Identifier: MIT */
/*
 * bench_api.h - the table through which the host harness drives a firmware image.
 *
 * Every image (see bench/cortex-m4/CMakeLists.txt) defines one `bench_api` object in the
 * section .bench_api. The host finds it by name in the ELF symbol table, reads it from
 * the emulator's memory and then knows where everything is: the functions to call, the
 * address a call returns to, the memory it may use for heaps, the TLSF configuration.
 *
 * The same header describes the table on both sides. On the target (BENCH_TARGET
 * defined) the fields have their real pointer types; on the host each is a uint32_t
 * holding the target address. Every field is one 32-bit word, so the layouts agree.
 * Function addresses are Thumb addresses (bit 0 set); 0 means "not in this image".
 */
#ifndef BENCH_API_H
#define BENCH_API_H

#include <stdint.h>

#define BENCH_API_MAGIC 0x4D344254u /* "TB4M" */
#define BENCH_API_VERSION 4u

/* What an image contains. */
enum bench_kind {
    BENCH_KIND_TLSF = 1,   /* the TLSF core: the tlsf_* entry points are filled in */
    BENCH_KIND_NEWLIB = 2, /* newlib's malloc family (full or nano) */
    BENCH_KIND_SIZE = 3    /* a code-size probe: never run, only its symbols are read */
};

/* What a size probe references (BENCH_KIND_SIZE); macros, so that #if can test them. */
#define BENCH_SIZE_BASELINE 0 /* the startup code alone */
#define BENCH_SIZE_HOT 1      /* tlsf_create + tlsf_add_pool + tlsf_malloc + tlsf_free */
#define BENCH_SIZE_CORE 2     /* every public function of the core */

#ifdef BENCH_TARGET
typedef void (*bench_fn_t)(void);
#define BENCH_FN(name) bench_fn_t name
#define BENCH_STR(name) const char *name
#define BENCH_ADDR(name) const void *name
#else
#define BENCH_FN(name) uint32_t name
#define BENCH_STR(name) uint32_t name
#define BENCH_ADDR(name) uint32_t name
#endif

typedef struct bench_api {
    uint32_t magic;   /* BENCH_API_MAGIC */
    uint32_t version; /* BENCH_API_VERSION */
    uint32_t kind;    /* enum bench_kind */
    uint32_t part;    /* BENCH_SIZE_* (size probes only) */

    /* Labels for the report: "tlsf" / "newlib-full" / "newlib-nano", "O2" / "Os",
     * "default" / "smallest" / "-". */
    BENCH_STR(allocator);
    BENCH_STR(opt);
    BENCH_STR(config);

    /* The platform: where calls return to, where a failure ends up, the reset entry
     * point, the initial stack pointer and the memory free for heaps. */
    BENCH_FN(trap);  /* a call's return address: the host stops when it gets there */
    BENCH_FN(panic); /* bench_panic(code): sbrk in a TLSF image, faults */
    BENCH_FN(reset); /* Reset_Handler: .data, .bss, constructors, main, then trap */
    BENCH_ADDR(stack_top);
    BENCH_ADDR(arena_start); /* RAM past the stack, up to arena_end, unused by the image */
    BENCH_ADDR(arena_end);

    /* Hand-written functions of known length: the host checks its count against them. */
    BENCH_FN(calib_straight); /* 6 instructions, one of them skipped by an IT block */
    BENCH_FN(calib_loop);     /* r0 = n >= 1: 2n + 1 instructions */
    BENCH_FN(calib_call);     /* calls calib_straight: 3 + 6 instructions */

    /* The allocator. TLSF: the tlsf_* functions (heap first). newlib: malloc(size),
     * free(ptr), realloc(ptr, size), memalign(align, size); the rest are 0. */
    BENCH_FN(fn_malloc);
    BENCH_FN(fn_free);
    BENCH_FN(fn_realloc);
    BENCH_FN(fn_memalign);
    BENCH_FN(fn_create);
    BENCH_FN(fn_add_pool);
    BENCH_FN(fn_check);
    BENCH_FN(fn_check_pool);
    BENCH_FN(fn_size);
    BENCH_FN(fn_align_size);
    BENCH_FN(fn_block_size);
    BENCH_FN(fn_block_size_max);
    BENCH_FN(fn_pool_overhead);

    /* The TLSF configuration the core was compiled with (see tlsf_config.h). */
    uint32_t cfg_align_log2;
    uint32_t cfg_sl_index_log2;
    uint32_t cfg_max_block_log2;
    uint32_t cfg_stats;
    uint32_t cfg_checks;
    uint32_t cfg_cache_bytes;     /* TLSF_CACHE_BYTES with the front cache, else 0 */
    BENCH_FN(fn_cache_set_limit); /* tlsf_cache_set_limit (TLSF only) */
    BENCH_FN(fn_alloc_overhead);  /* tlsf_alloc_overhead (TLSF only) */
    BENCH_FN(fn_block_size_min);  /* tlsf_block_size_min (TLSF only) */
} bench_api_t;

#ifdef BENCH_TARGET
/* The fields common to every image, from startup.c and bench_asm.S. */
void bench_trap(void);
void bench_panic(uint32_t code);
void Reset_Handler(void);
void bench_calib_straight(void);
void bench_calib_loop(void);
void bench_calib_call(void);
extern char __stack_top[], __arena_start[], __arena_end[];

#define BENCH_PLATFORM_FIELDS                                                                      \
    .magic = BENCH_API_MAGIC, .version = BENCH_API_VERSION, .trap = bench_trap,                    \
    .panic = (bench_fn_t)bench_panic, .reset = Reset_Handler, .stack_top = __stack_top,            \
    .arena_start = __arena_start, .arena_end = __arena_end,                                        \
    .calib_straight = bench_calib_straight, .calib_loop = bench_calib_loop,                        \
    .calib_call = bench_calib_call

/* Place the table where the linker keeps it (see m4.ld). */
#define BENCH_API_SECTION __attribute__((used, section(".bench_api")))
#endif

/* Panic codes passed to bench_panic (in r0 when the host stops there). */
enum bench_panic_code {
    BENCH_PANIC_SBRK = 1, /* _sbrk called in an image that must not use it */
    BENCH_PANIC_FAULT = 2 /* a fault or unexpected exception */
};

#endif /* BENCH_API_H */
