/* SPDX-License-Identifier: MIT */
/*
 * m4app.c - run whole application images (bench/cortex-m4/firmware-app) in Unicorn.
 *
 * Unlike tlsf_m4_counts, which calls one allocator function at a time, this runs an
 * image from its reset handler to the end of main (bench_trap), counting every
 * instruction. Counting is per translation block: a UC_HOOK_BLOCK hook adds the number of
 * Thumb instructions in the block (decoded from the flash image: a first halfword
 * 0b11101/0b11110/0b11111 starts a 32-bit instruction). That counts what the core
 * issues, IT-block instructions whose condition fails included, like the harness, and is
 * an order of magnitude faster than a hook per instruction. --code-hook counts with
 * UC_HOOK_CODE instead (executed instructions only, IT-skipped ones excluded), as a
 * cross-check.
 *
 * The host snapshots the counter when the pc enters app_mark_begin and app_mark_end
 * (the measured section), counts calls of _sbrk, and reads the image's app_report and
 * stdout (app_out) afterwards.
 *
 *   m4app --demo IMAGE                     run the C/C++-on-TLSF demo and check it
 *   m4app --perft [options] LABEL=IMAGE... perft in each image (labels: nano, full, tlsf,
 *                                          tlsf-lean, tlsf-cache, heap4, ...): per depth the
 *                                          nodes, instructions, nodes per million
 *                                          instructions and the ratio to newlib-nano; per
 *                                          heap the cost of every operator new and delete
 *                                          (mean, p99, p99.9, max) and, for TLSF images,
 *                                          of every tlsf_malloc / tlsf_free call
 *       --depths A-B      depths to run (default 3-3), one fresh run per image and depth
 *       --tt-mode M       bounded (default) or everything (app_chess.cpp's app_request)
 *       --check           exit 1 unless every node count is right, TLSF's longest core call
 *                         is within bounds.h (label "tlsf") and the ratio targets hold
 *                         (--min-nano-ratio R, default 1.46; --min-full-ratio R, default 1.0;
 *                         at the deepest depth)
 *       --data DIR        write DIR/m4-calls-<mode>-<label>.dat: the CCDF of the per-call
 *                         counts of the deepest depth (scripts/plot_m4_calls.gp)
 *   m4app --age [--data DIR] LABEL=IMAGE... the heap-age run (app_age.cpp): per level the
 *                                          heap's free blocks and the mean and max cost of
 *                                          new and delete; DIR/m4-age-<label>.dat
 *                                          (scripts/plot_m4_age.gp)
 *   --limit N   stop a run after N instructions (default 20e9)
 * Instructions are not cycles (see ../README.md), but they are exact and deterministic.
 * Exit status: 0 fine, 1 a check failed, 2 the emulation failed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unicorn/unicorn.h>

#include "app_report.h"
#include "bounds.h"
#include "elf32.h"

#define FLASH_BASE 0x00000000u
#define FLASH_SIZE 0x00100000u
#define RAM_BASE 0x20000000u
#define RAM_SIZE 0x20000000u
static uint64_t insn_limit = 20000000000ull;

/* The calls recorded one by one (between the marks): the global operator new and delete,
 * whatever heap is behind them, and the TLSF core's malloc and free. */
enum probe_kind { PROBE_NEW, PROBE_DELETE, PROBE_CORE_MALLOC, PROBE_CORE_FREE, PROBE_KINDS };
static const char *const probe_names[PROBE_KINDS] = {"operator new", "operator delete",
                                                     "tlsf_malloc", "tlsf_free"};
#define PROBE_ENTRIES 8

typedef struct probe {
    uint32_t entry[PROBE_ENTRIES]; /* the functions' addresses */
    unsigned entries;
    int active;       /* inside an outermost call */
    uint32_t ret;     /* its return address */
    uint64_t start;   /* the counter at its entry */
    uint32_t *cost;   /* instructions of each completed call */
    uint8_t *segment; /* the measured section it ran in (0, 1, ...) */
    size_t calls, room;
} probe_t;

typedef struct run {
    const char *path;
    elf32_file_t elf;
    uc_engine *uc;
    uint8_t *flash;
    uint32_t trap, panic, mark_begin, mark_end, mark_split, sbrk;
    uint64_t count, at_begin, at_end, at_split;
    unsigned marks_begin, marks_end;
    uint64_t sbrk_calls;
    int code_hook;
    uint32_t pc, r0, lr;
    app_report_t report;
    app_request_t request; /* written into the image's app_request when magic is set */
    probe_t probes[PROBE_KINDS];
    uint32_t probe_lo, probe_hi; /* the range of every probe entry, a quick filter */
    unsigned segments;           /* measured sections entered so far */
    char label[32];
    uint32_t recent[1024]; /* the last blocks entered, for the report of a panic */
    unsigned recent_next;
    uint64_t *profile; /* --profile: instructions per halfword address, measured section */
    int measuring;
    char *out;
    uint32_t out_len;
    char error[512];
} run_t;

static uint32_t thumb_length(const run_t *r, uint32_t at) {
    uint16_t first = (uint16_t)(r->flash[at] | (r->flash[at + 1] << 8));
    return (first >> 11) >= 0x1Du ? 4u : 2u;
}

static void probe_record(run_t *r, probe_t *p, uint32_t cost) {
    if (p->calls == p->room) {
        size_t room = p->room ? p->room * 2 : 65536;
        uint32_t *cost_more = realloc(p->cost, room * sizeof *p->cost);
        uint8_t *segment_more = cost_more ? realloc(p->segment, room) : NULL;
        if (cost_more) p->cost = cost_more;
        if (segment_more == NULL) {
            fprintf(stderr, "m4app: out of memory recording calls\n");
            exit(2);
        }
        p->segment = segment_more;
        p->room = room;
    }
    p->cost[p->calls] = cost;
    p->segment[p->calls++] = (uint8_t)(r->segments - 1u);
}

/* A block starts at `at`: a probed call returns here, or one begins. Only outermost
 * calls count (operator delete(void*, size_t) calling operator delete(void*) is one). The
 * return address starts a block of its own, since the call ended one. */
static void probe_block(run_t *r, uint32_t at) {
    unsigned k, e;
    for (k = 0; k < PROBE_KINDS; ++k) {
        probe_t *p = &r->probes[k];
        if (p->active) {
            if (at == p->ret) {
                p->active = 0;
                probe_record(r, p, (uint32_t)(r->count - p->start));
            }
            continue;
        }
        if (!r->measuring || at < r->probe_lo || at > r->probe_hi) continue;
        for (e = 0; e < p->entries; ++e) {
            if (at == p->entry[e]) {
                uint32_t lr = 0;
                uc_reg_read(r->uc, UC_ARM_REG_LR, &lr);
                p->active = 1;
                p->ret = lr & ~1u;
                p->start = r->count;
                break;
            }
        }
    }
}

static void note(run_t *r, uint32_t at) {
    r->recent[r->recent_next++ % 1024u] = at;
    if (r->probe_hi) probe_block(r, at);
    if (at == r->mark_begin) {
        r->measuring = 1;
        r->at_begin = r->count;
        r->marks_begin++;
        r->segments++;
    } else if (at == r->mark_split && r->mark_split) {
        r->at_split = r->count;
        r->segments++; /* the calls after the split (perft: the teardown) apart */
    } else if (at == r->mark_end) {
        r->measuring = 0;
        r->at_end = r->count;
        r->marks_end++;
    } else if (at == r->sbrk) {
        r->sbrk_calls++;
    }
}

static void on_block(uc_engine *uc, uint64_t address, uint32_t size, void *user) {
    run_t *r = user;
    uint32_t at = (uint32_t)address, end = at + size;
    note(r, at);
    if (end > FLASH_SIZE) end = FLASH_SIZE; /* code runs from flash only */
    while (at < end) {
        r->count++;
        if (r->profile && r->measuring) r->profile[at >> 1]++;
        at += thumb_length(r, at);
    }
    if (r->count > insn_limit) uc_emu_stop(uc);
}

static void on_code(uc_engine *uc, uint64_t address, uint32_t size, void *user) {
    run_t *r = user;
    (void)size;
    note(r, (uint32_t)address);
    r->count++;
    if (r->count > insn_limit) uc_emu_stop(uc);
}

static uint32_t symbol(const run_t *r, const char *name) {
    const elf32_symbol_t *s = elf32_symbol(&r->elf, name);
    return s ? s->value & ~1u : 0;
}

/* The probes' entry points, by symbol name: operator new and delete in their plain,
 * sized and array forms (Itanium names for a 32-bit size_t), the TLSF core's malloc and
 * free (the name carries the configuration: tlsf_malloc_a3_s4_...). */
static void find_probes(run_t *r) {
    static const char *const news[] = {"_Znwj", "_Znaj", "_ZnwjRKSt9nothrow_t",
                                       "_ZnajRKSt9nothrow_t"};
    static const char *const deletes[] = {"_ZdlPv", "_ZdlPvj", "_ZdaPv", "_ZdaPvj"};
    static const char *const core[] = {"tlsf_malloc_", "tlsf_free_"};
    size_t i, k;
    r->probe_lo = UINT32_MAX;
    r->probe_hi = 0;
    for (i = 0; i < r->elf.symbol_count; ++i) {
        const elf32_symbol_t *s = &r->elf.symbols[i];
        int kind = -1;
        if (s->type != ELF32_STT_FUNC || s->shndx == 0) continue;
        for (k = 0; k < sizeof news / sizeof news[0]; ++k)
            if (strcmp(s->name, news[k]) == 0) kind = PROBE_NEW;
        for (k = 0; k < sizeof deletes / sizeof deletes[0]; ++k)
            if (strcmp(s->name, deletes[k]) == 0) kind = PROBE_DELETE;
        if (strncmp(s->name, core[0], strlen(core[0])) == 0) kind = PROBE_CORE_MALLOC;
        if (strncmp(s->name, core[1], strlen(core[1])) == 0) kind = PROBE_CORE_FREE;
        if (kind < 0 || r->probes[kind].entries == PROBE_ENTRIES) continue;
        r->probes[kind].entry[r->probes[kind].entries++] = s->value & ~1u;
        if ((s->value & ~1u) < r->probe_lo) r->probe_lo = s->value & ~1u;
        if ((s->value & ~1u) > r->probe_hi) r->probe_hi = s->value & ~1u;
    }
    if (r->probe_hi == 0) r->probe_lo = 0;
}

static int fail(run_t *r, const char *what, uc_err err) {
    snprintf(r->error, sizeof r->error, "%s: %s: %s", r->path, what, uc_strerror(err));
    return -1;
}

/* Load, run from reset to bench_trap, read the report. */
static int run_image(run_t *r) {
    union {
        uc_cb_hookcode_t code;
        void *pointer;
    } callback;
    uc_hook hook;
    uc_err err;
    size_t i;
    uint32_t sp, reset, report_at, out_at, out_len_at;
    uint64_t exits[2];

    if (elf32_load(&r->elf, r->path, r->error, sizeof r->error) != 0) return -1;
    r->trap = symbol(r, "bench_trap");
    r->panic = symbol(r, "bench_panic");
    r->mark_begin = symbol(r, "app_mark_begin");
    r->mark_end = symbol(r, "app_mark_end");
    r->mark_split = symbol(r, "app_mark_split");
    r->sbrk = symbol(r, "_sbrk");
    report_at = symbol(r, "app_report");
    out_at = symbol(r, "app_out");
    out_len_at = symbol(r, "app_out_len");
    if (!r->trap || !r->panic || !report_at) {
        snprintf(r->error, sizeof r->error, "%s: not an application image (symbols missing)",
                 r->path);
        return -1;
    }

    err = uc_open(UC_ARCH_ARM, UC_MODE_THUMB | UC_MODE_MCLASS, &r->uc);
    if (err == UC_ERR_OK) err = uc_ctl_set_cpu_model(r->uc, UC_CPU_ARM_CORTEX_M4);
    if (err == UC_ERR_OK) err = uc_mem_map(r->uc, FLASH_BASE, FLASH_SIZE, UC_PROT_ALL);
    if (err == UC_ERR_OK) err = uc_mem_map(r->uc, RAM_BASE, RAM_SIZE, UC_PROT_ALL);
    if (err != UC_ERR_OK) return fail(r, "unicorn", err);
    r->flash = calloc(FLASH_SIZE, 1);
    if (r->flash == NULL) return fail(r, "host", UC_ERR_NOMEM);
    for (i = 0; i < r->elf.segment_count; ++i) {
        const elf32_segment_t *seg = &r->elf.segments[i];
        if (seg->filesz == 0) continue;
        if (seg->paddr >= FLASH_SIZE || seg->filesz > FLASH_SIZE - seg->paddr) {
            snprintf(r->error, sizeof r->error, "%s: segment at 0x%08x is not in flash", r->path,
                     seg->paddr);
            return -1;
        }
        memcpy(r->flash + seg->paddr, seg->data, seg->filesz);
        err = uc_mem_write(r->uc, seg->paddr, seg->data, seg->filesz);
        if (err != UC_ERR_OK) return fail(r, "load", err);
    }
    /* The vector table: initial sp, reset handler. */
    if (r->request.magic) {
        uint32_t at = symbol(r, "app_request");
        if (at == 0 || at + sizeof r->request > FLASH_SIZE) {
            snprintf(r->error, sizeof r->error, "%s: no app_request to write the request to",
                     r->path);
            return -1;
        }
        memcpy(r->flash + at, &r->request, sizeof r->request);
        err = uc_mem_write(r->uc, at, &r->request, sizeof r->request);
        if (err != UC_ERR_OK) return fail(r, "request", err);
    }
    if (!r->code_hook) find_probes(r);
    memcpy(&sp, r->flash, 4);
    memcpy(&reset, r->flash + 4, 4);
    uc_reg_write(r->uc, UC_ARM_REG_SP, &sp);

    if (r->code_hook) {
        callback.code = on_code;
        err = uc_hook_add(r->uc, &hook, UC_HOOK_CODE, callback.pointer, r, 1, 0);
    } else {
        callback.code = on_block;
        err = uc_hook_add(r->uc, &hook, UC_HOOK_BLOCK, callback.pointer, r, 1, 0);
    }
    if (err != UC_ERR_OK) return fail(r, "hook", err);
    exits[0] = r->trap;
    exits[1] = r->panic;
    err = uc_ctl_exits_enable(r->uc);
    if (err == UC_ERR_OK) err = uc_ctl_set_exits(r->uc, exits, 2);
    if (err != UC_ERR_OK) return fail(r, "exits", err);

    err = uc_emu_start(r->uc, reset | 1u, 0, 0, 0);
    uc_reg_read(r->uc, UC_ARM_REG_PC, &r->pc);
    uc_reg_read(r->uc, UC_ARM_REG_R0, &r->r0);
    uc_reg_read(r->uc, UC_ARM_REG_LR, &r->lr);
    if (err != UC_ERR_OK) {
        snprintf(r->error, sizeof r->error, "%s: emulation stopped at pc 0x%08x: %s", r->path,
                 r->pc, uc_strerror(err));
        return -1;
    }
    if (r->count > insn_limit) {
        snprintf(r->error, sizeof r->error, "%s: runaway: more than %llu instructions", r->path,
                 (unsigned long long)insn_limit);
        return -1;
    }
    if ((r->pc & ~1u) == r->panic) {
        const elf32_symbol_t *caller = elf32_function_at(&r->elf, r->lr & ~1u);
        unsigned k;
        const elf32_symbol_t *last = NULL;
        fprintf(stderr, "%s: the functions run last before bench_panic:\n", r->path);
        for (k = 0; k < 1024; ++k) {
            uint32_t at = r->recent[(r->recent_next + k) % 1024u];
            const elf32_symbol_t *fn = elf32_function_at(&r->elf, at);
            if (fn == last || at == 0) continue;
            last = fn;
            fprintf(stderr, "  0x%08x %s\n", at, fn ? fn->name : "?");
        }
        snprintf(r->error, sizeof r->error, "%s: bench_panic(%u): %s (called from %s)", r->path,
                 r->r0,
                 r->r0 == 1   ? "_sbrk called: something used newlib's own heap"
                 : r->r0 == 2 ? "fault or unexpected exception"
                 : r->r0 == 3 ? "_exit/abort called"
                              : "unknown code",
                 caller ? caller->name : "?");
        return -1;
    }
    if ((r->pc & ~1u) != r->trap) {
        snprintf(r->error, sizeof r->error, "%s: stopped at 0x%08x, not at bench_trap", r->path,
                 r->pc);
        return -1;
    }
    /* app_out is not linked when nothing writes to stdout. */
    err = uc_mem_read(r->uc, report_at, &r->report, sizeof r->report);
    if (err == UC_ERR_OK && out_len_at) err = uc_mem_read(r->uc, out_len_at, &r->out_len, 4);
    if (err != UC_ERR_OK) return fail(r, "read report", err);
    if (r->out_len > 65536) r->out_len = 65536;
    r->out = calloc(r->out_len + 1, 1);
    if (r->out == NULL) return fail(r, "host", UC_ERR_NOMEM);
    if (r->out_len) {
        err = uc_mem_read(r->uc, out_at, r->out, r->out_len);
        if (err != UC_ERR_OK) return fail(r, "read app_out", err);
    }
    if (r->report.magic != APP_REPORT_MAGIC || !r->report.done) {
        snprintf(r->error, sizeof r->error, "%s: main did not finish (no report)", r->path);
        return -1;
    }
    return 0;
}

static void close_run(run_t *r) {
    unsigned k;
    for (k = 0; k < PROBE_KINDS; ++k) {
        free(r->probes[k].cost);
        free(r->probes[k].segment);
    }
    if (r->uc) uc_close(r->uc);
    free(r->flash);
    free(r->out);
    free(r->profile);
    elf32_free(&r->elf);
}

static int failures;

static void expect(int condition, const char *what) {
    printf("  %-62s %s\n", what, condition ? "ok" : "FAILED");
    if (!condition) failures++;
}

static int demo(run_t *r) {
    static const char *names[APP_STEP_COUNT] = {"printf", "strdup", "std::map (100 inserts)",
                                                "throw + catch", "calloc/realloc/memalign"};
    static const uint32_t min_allocs[APP_STEP_COUNT] = {1, 1, 100, 1, 2};
    static const uint32_t min_frees[APP_STEP_COUNT] = {0, 1, 100, 1, 2};
    const app_report_t *a = &r->report;
    char line[160];
    int k;
    if (run_image(r) != 0) return -1;
    printf("demo %s: %llu instructions from reset to the end of main\n", r->path,
           (unsigned long long)r->count);
    printf("firmware stdout (%u bytes):\n%s", r->out_len, r->out);
    printf("TLSF statistics (deltas of alloc_count / free_count around each step):\n");
    for (k = 0; k < APP_STEP_COUNT; ++k)
        printf("  %-26s allocs +%-4u frees +%-4u  result %s, pointers in the TLSF region: %s\n",
               names[k], a->steps[k].alloc_delta, a->steps[k].free_delta,
               a->steps[k].ok ? "right" : "WRONG", a->steps[k].in_heap ? "yes" : "NO");
    printf("  allocations before main: %u; C allocation calls: %u; locks taken: %u; "
           "_sbrk calls: %llu (symbol %s)\n",
           a->allocs_before_main, a->retarget_calls, a->lock_calls,
           (unsigned long long)r->sbrk_calls, r->sbrk ? "linked" : "not even linked");
    printf("checks:\n");
    expect(strstr(r->out, "hello 42 from printf on the TLSF heap\n") != NULL,
           "printf's output reached the host");
    for (k = 0; k < APP_STEP_COUNT; ++k) {
        snprintf(line, sizeof line, "%s: right, from TLSF (allocs >= %u, frees >= %u, in region)",
                 names[k], min_allocs[k], min_frees[k]);
        expect(a->steps[k].ok && a->steps[k].in_heap && a->steps[k].alloc_delta >= min_allocs[k] &&
                   a->steps[k].free_delta >= min_frees[k],
               line);
    }
    expect(a->allocs_before_main >= 1, "the heap served an allocation before main (EH pool)");
    expect(a->retarget_calls > 0 && a->lock_calls > 0, "the C allocator and the lock were used");
    expect(a->lock_depth == 0, "the lock is released");
    expect(a->heap_check == 1, "tlsf_check: heap consistent");
    expect(r->sbrk_calls == 0, "_sbrk never called");
    return 0;
}

/* --profile: the functions that ran most instructions in the measured section. */
static void print_profile(run_t *r) {
    size_t i, n = 0, k;
    struct entry {
        const char *name;
        uint64_t insns;
    } top[512];
    for (i = 0; i < FLASH_SIZE / 2; ++i) {
        const elf32_symbol_t *fn;
        if (!r->profile[i]) continue;
        fn = elf32_function_at(&r->elf, (uint32_t)(i * 2));
        for (k = 0; k < n && top[k].name != (fn ? fn->name : "?"); ++k) {
        }
        if (k == n) {
            if (n == 512) continue;
            top[n].name = fn ? fn->name : "?";
            top[n++].insns = 0;
        }
        top[k].insns += r->profile[i];
    }
    for (i = 0; i < n; ++i) /* selection of the largest 25 */
        for (k = i + 1; k < n; ++k)
            if (top[k].insns > top[i].insns) {
                struct entry t = top[i];
                top[i] = top[k];
                top[k] = t;
            }
    printf("  profile of %s (measured section):\n", r->label);
    for (i = 0; i < n && i < 25; ++i)
        printf("    %10llu  %s\n", (unsigned long long)top[i].insns, top[i].name);
}

/* ---- per-call statistics ---- */

typedef struct call_summary {
    size_t calls;
    double mean;
    uint32_t p99, p999, max;
} call_summary_t;

static int compare_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The calls of probe `p` in measured section `segment` (-1: all), sorted, in a new
 * array; *count their number. */
static uint32_t *sorted_calls(const probe_t *p, int segment, size_t *count) {
    size_t i, n = 0;
    uint32_t *v = malloc((p->calls ? p->calls : 1) * sizeof *v);
    if (v == NULL) {
        fprintf(stderr, "m4app: out of memory\n");
        exit(2);
    }
    for (i = 0; i < p->calls; ++i)
        if (segment < 0 || p->segment[i] == (uint8_t)segment) v[n++] = p->cost[i];
    qsort(v, n, sizeof *v, compare_u32);
    *count = n;
    return v;
}

/* The value below which a fraction q of the calls lie (nearest rank). */
static uint32_t quantile(const uint32_t *sorted, size_t n, double q) {
    size_t rank = (size_t)(q * (double)n + 0.999999);
    if (n == 0) return 0;
    if (rank < 1) rank = 1;
    if (rank > n) rank = n;
    return sorted[rank - 1];
}

static call_summary_t summarize(const probe_t *p, int segment) {
    call_summary_t s;
    size_t i;
    uint64_t sum = 0;
    uint32_t *v = sorted_calls(p, segment, &s.calls);
    for (i = 0; i < s.calls; ++i)
        sum += v[i];
    s.mean = s.calls ? (double)sum / (double)s.calls : 0.0;
    s.p99 = quantile(v, s.calls, 0.99);
    s.p999 = quantile(v, s.calls, 0.999);
    s.max = s.calls ? v[s.calls - 1] : 0;
    free(v);
    return s;
}

/* bounds.h's bound of the default configuration at -O2 for `function`, or 0. */
static uint32_t m4_bound(const char *function) {
    uint32_t bound = 0;
#define TAKE_BOUND(opt, config, fn, value)                                                         \
    if (strcmp(opt, "O2") == 0 && strcmp(config, "default") == 0 && strcmp(fn, function) == 0)     \
        bound = value;
    TLSF_M4_BOUNDS(TAKE_BOUND)
#undef TAKE_BOUND
    return bound;
}

/* ---- perft ---- */

static const uint64_t perft_start_nodes[] = {1, 20, 400, 8902, 197281, 4865609, 119060324};

typedef struct perft_options {
    unsigned depth_from, depth_to;
    unsigned tt_mode; /* 0 bounded, 1 everything */
    int check;
    double min_nano, min_full;
    const char *data_dir;
} perft_options_t;

static uint64_t measured(const run_t *r) {
    return r->at_end - r->at_begin;
}

static int run_perft_image(run_t *r, const perft_options_t *o, unsigned depth) {
    r->request.magic = APP_REQUEST_MAGIC;
    r->request.perft_depth = depth;
    r->request.tt_mode = o->tt_mode;
    if (run_image(r) != 0) return -1;
    if (r->marks_begin != 1 || r->marks_end != 1) {
        snprintf(r->error, sizeof r->error, "%s: the marks were passed %u and %u times", r->path,
                 r->marks_begin, r->marks_end);
        return -1;
    }
    return 0;
}

static void write_calls(const perft_options_t *o, const run_t *r) {
    char path[1024];
    FILE *out;
    unsigned k;
    snprintf(path, sizeof path, "%s/m4-calls-%s-%s.dat", o->data_dir,
             o->tt_mode ? "everything" : "bounded", r->label);
    out = fopen(path, "w");
    if (out == NULL) {
        fprintf(stderr, "m4app: cannot write %s\n", path);
        failures++;
        return;
    }
    fprintf(out, "# perft(%u) from the start, table %s, heap %s (%s)\n", r->report.perft_depth,
            o->tt_mode ? "everything" : "bounded", r->label, r->path);
    for (k = 0; k < 2; ++k) { /* block 0: operator new, block 1: operator delete */
        size_t n, i;
        uint32_t *v = sorted_calls(&r->probes[k], -1, &n);
        fprintf(out, "# %s: instructions, fraction of calls taking at least that many (%zu)\n",
                probe_names[k], n);
        for (i = 0; i < n; ++i)
            if (i == 0 || v[i] != v[i - 1])
                fprintf(out, "%u %.9g\n", v[i], (double)(n - i) / (double)n);
        fprintf(out, "\n\n");
        free(v);
    }
    fclose(out);
}

static int perft(run_t *images, int n, const perft_options_t *o) {
    unsigned depth;
    int k, nano = -1, full = -1, tlsf = -1;
    for (k = 0; k < n; ++k) {
        if (strcmp(images[k].label, "nano") == 0) nano = k;
        if (strcmp(images[k].label, "full") == 0) full = k;
        if (strcmp(images[k].label, "tlsf") == 0) tlsf = k;
    }
    printf("perft from the start position on a Cortex-M4 (Unicorn), table %s, 8 MiB heap.\n"
           "Instructions between the marks, every one the core issues: instructions are not\n"
           "cycles (loads take 2, taken branches 2-4, flash wait states add more), but they are\n"
           "exact and the same on every run.\n\n",
           o->tt_mode ? "everything (every interior node, never cleared)"
                      : "bounded (depth >= 2, cleared at 4096 entries)");
    for (depth = o->depth_from; depth <= o->depth_to; ++depth) {
        run_t *runs = calloc((size_t)n, sizeof *runs);
        uint64_t nano_insns = 0;
        if (runs == NULL) return -1;
        printf("depth %u\n", depth);
        printf("  %-11s %10s %14s %12s %9s %14s %9s %10s %7s\n", "heap", "nodes", "instructions",
               "nodes/Minsn", "nano/heap", "search only", "nano/heap", "tt entries", "_sbrk");
        for (k = 0; k < n; ++k) {
            run_t *r = &runs[k];
            r->path = images[k].path;
            r->code_hook = images[k].code_hook;
            memcpy(r->label, images[k].label, sizeof r->label);
            if (depth == o->depth_to) { /* --profile: the deepest run only */
                r->profile = images[k].profile;
                images[k].profile = NULL;
            }
            if (run_perft_image(r, o, depth) != 0) {
                fprintf(stderr, "m4app: %s\n", r->error);
                for (k = 0; k < n; ++k)
                    close_run(&runs[k]);
                free(runs);
                return -1;
            }
        }
        if (nano >= 0) nano_insns = measured(&runs[nano]);
        for (k = 0; k < n; ++k) {
            const run_t *r = &runs[k];
            const uint64_t nodes = ((uint64_t)r->report.perft_hi << 32) | r->report.perft_lo;
            printf("  %-11s %10llu %14llu %12.1f ", r->label, (unsigned long long)nodes,
                   (unsigned long long)measured(r), 1e6 * (double)nodes / (double)measured(r));
            if (nano >= 0)
                printf("%9.3f", (double)nano_insns / (double)measured(r));
            else
                printf("%9s", "-");
            printf(" %14llu", (unsigned long long)(r->at_split - r->at_begin));
            if (nano >= 0)
                printf(" %9.3f", (double)(runs[nano].at_split - runs[nano].at_begin) /
                                     (double)(r->at_split - r->at_begin));
            else
                printf(" %9s", "-");
            printf(" %10u %7llu\n", r->report.tt_entries, (unsigned long long)r->sbrk_calls);
            if (o->check) {
                char line[160];
                snprintf(line, sizeof line, "%s: perft(%u) == %llu", r->label, depth,
                         (unsigned long long)perft_start_nodes[depth]);
                expect(nodes == perft_start_nodes[depth], line);
                snprintf(line, sizeof line, "%s: table mode %s ran, its guard never refused",
                         r->label, o->tt_mode ? "everything" : "bounded");
                expect(r->report.tt_mode == o->tt_mode &&
                           (o->tt_mode == 0 || r->report.tt_refused == 0),
                       line);
                if (strncmp(r->label, "tlsf", 4) == 0) {
                    snprintf(line, sizeof line, "%s: _sbrk never called", r->label);
                    expect(r->sbrk_calls == 0, line);
                }
            }
        }
        printf("  cost of each call, instructions: %-16s %8s %7s %6s %6s %6s\n", "", "calls",
               "mean", "p99", "p99.9", "max");
        for (k = 0; k < n; ++k) {
            const run_t *r = &runs[k];
            unsigned p;
            for (p = 0; p < PROBE_KINDS; ++p) {
                call_summary_t c;
                if (r->probes[p].entries == 0) continue;
                c = summarize(&r->probes[p], -1);
                printf("    %-11s %-16s %29zu %7.1f %6u %6u %6u\n", r->label, probe_names[p],
                       c.calls, c.mean, c.p99, c.p999, c.max);
                c = summarize(&r->probes[p], 0); /* segment 0: before app_mark_split */
                printf("    %-11s %-16s %29zu %7.1f %6u %6u %6u  (search only)\n", r->label,
                       probe_names[p], c.calls, c.mean, c.p99, c.p999, c.max);
            }
        }
        /* TLSF's longest core call against bounds.h (default configuration, -O2). */
        if (tlsf >= 0) {
            const run_t *r = &runs[tlsf];
            const uint32_t malloc_bound = m4_bound("malloc"), free_bound = m4_bound("free");
            const call_summary_t m = summarize(&r->probes[PROBE_CORE_MALLOC], -1);
            const call_summary_t f = summarize(&r->probes[PROBE_CORE_FREE], -1);
            char line[160];
            printf("  TLSF's longest core calls: tlsf_malloc %u (bound %u), tlsf_free %u (bound "
                   "%u), bench/cortex-m4/bounds.h\n",
                   m.max, malloc_bound, f.max, free_bound);
            if (o->check) {
                snprintf(line, sizeof line, "tlsf: %zu tlsf_malloc calls, longest %u <= %u",
                         m.calls, m.max, malloc_bound);
                expect(m.calls > 0 && malloc_bound > 0 && m.max <= malloc_bound, line);
                snprintf(line, sizeof line, "tlsf: %zu tlsf_free calls, longest %u <= %u", f.calls,
                         f.max, free_bound);
                expect(f.calls > 0 && free_bound > 0 && f.max <= free_bound, line);
            }
        }
        if (depth == o->depth_to) {
            for (k = 0; k < n; ++k) {
                const run_t *r = &runs[k];
                double t = (double)measured(r);
                if (o->data_dir) write_calls(o, r);
                if (k == nano || nano < 0) continue;
                if (strncmp(r->label, "tlsf", 4) != 0) continue;
                {
                    char line[160];
                    double ratio = (double)measured(&runs[nano]) / t;
                    int is_default = k == tlsf;
                    printf("newlib-nano / %s = %.3f\n", r->label, ratio);
                    snprintf(line, sizeof line, "newlib-nano / %s >= %.2f", r->label, o->min_nano);
                    if (o->check && is_default) expect(ratio >= o->min_nano, line);
                    if (full >= 0) {
                        ratio = (double)measured(&runs[full]) / t;
                        printf("newlib-full / %s = %.3f\n", r->label, ratio);
                        snprintf(line, sizeof line, "newlib-full / %s >= %.2f", r->label,
                                 o->min_full);
                        if (o->check && is_default) expect(ratio >= o->min_full, line);
                    }
                }
            }
            for (k = 0; k < n; ++k)
                if (runs[k].profile) print_profile(&runs[k]);
        }
        printf("\n");
        for (k = 0; k < n; ++k)
            close_run(&runs[k]);
        free(runs);
    }
    return 0;
}

/* ---- heap age ---- */

static int age(run_t *runs, int n, const char *data_dir) {
    int k;
    printf("Heap age on a Cortex-M4 (Unicorn), 8 MiB heap: the live set grows by 500 blocks "
           "of 8..4096 bytes\nper level with random frees; at each level 1,000 random blocks "
           "are replaced (delete + new)\nand every call is counted. Instructions, not cycles.\n");
    for (k = 0; k < n; ++k) {
        run_t *r = &runs[k];
        unsigned level;
        FILE *out = NULL;
        if (run_image(r) != 0) return -1;
        if (r->report.kind != 3 || r->report.age_levels != APP_AGE_LEVELS ||
            r->marks_begin != APP_AGE_LEVELS) {
            snprintf(r->error, sizeof r->error, "%s: not a complete heap-age run", r->path);
            return -1;
        }
        if (data_dir) {
            char path[1024];
            snprintf(path, sizeof path, "%s/m4-age-%s.dat", data_dir, r->label);
            out = fopen(path, "w");
            if (out == NULL) fprintf(stderr, "m4app: cannot write %s\n", path);
            if (out)
                fprintf(out,
                        "# heap age, %s (%s)\n# level free_blocks live_blocks new_mean "
                        "new_max delete_mean delete_max\n",
                        r->label, r->path);
        }
        printf("\n%s: %s\n  %5s %11s %11s %9s %8s %11s %10s\n", r->label, r->path, "level",
               "free blocks", "live blocks", "new mean", "new max", "delete mean", "delete max");
        for (level = 0; level < APP_AGE_LEVELS; ++level) {
            call_summary_t nw = summarize(&r->probes[PROBE_NEW], (int)level);
            call_summary_t dl = summarize(&r->probes[PROBE_DELETE], (int)level);
            printf("  %5u %11u %11u %9.1f %8u %11.1f %10u\n", level,
                   r->report.age_free_blocks[level], r->report.age_live_blocks[level], nw.mean,
                   nw.max, dl.mean, dl.max);
            if (out)
                fprintf(out, "%u %u %u %.2f %u %.2f %u\n", level, r->report.age_free_blocks[level],
                        r->report.age_live_blocks[level], nw.mean, nw.max, dl.mean, dl.max);
            if (nw.calls != 1000 || dl.calls != 1000) {
                snprintf(r->error, sizeof r->error,
                         "%s: level %u: %zu news and %zu deletes "
                         "recorded, not 1000 each",
                         r->path, level, nw.calls, dl.calls);
                if (out) fclose(out);
                return -1;
            }
        }
        if (out) fclose(out);
        expect(r->report.age_count_ok == 1,
               "every allocation succeeded and the free-block count is sound");
    }
    return 0;
}

int main(int argc, char **argv) {
    run_t runs[8];
    perft_options_t o;
    const char *data_dir = NULL;
    int n = 0, mode = 0, code_hook = 0, profile = 0, i, status;
    memset(runs, 0, sizeof runs);
    memset(&o, 0, sizeof o);
    o.depth_from = o.depth_to = 3;
    o.min_nano = 1.46;
    o.min_full = 1.0;
    for (i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--demo") == 0)
            mode = 1;
        else if (strcmp(argv[i], "--perft") == 0)
            mode = 2;
        else if (strcmp(argv[i], "--age") == 0)
            mode = 3;
        else if (strcmp(argv[i], "--check") == 0)
            o.check = 1;
        else if (strcmp(argv[i], "--code-hook") == 0)
            code_hook = 1;
        else if (strcmp(argv[i], "--profile") == 0)
            profile = 1;
        else if (strcmp(argv[i], "--min-nano-ratio") == 0 && i + 1 < argc)
            o.min_nano = atof(argv[++i]);
        else if (strcmp(argv[i], "--min-full-ratio") == 0 && i + 1 < argc)
            o.min_full = atof(argv[++i]);
        else if (strcmp(argv[i], "--limit") == 0 && i + 1 < argc)
            insn_limit = (uint64_t)atof(argv[++i]);
        else if (strcmp(argv[i], "--data") == 0 && i + 1 < argc)
            data_dir = argv[++i];
        else if (strcmp(argv[i], "--tt-mode") == 0 && i + 1 < argc &&
                 (strcmp(argv[i + 1], "bounded") == 0 || strcmp(argv[i + 1], "everything") == 0))
            o.tt_mode = strcmp(argv[++i], "everything") == 0;
        else if (strcmp(argv[i], "--depths") == 0 && i + 1 < argc &&
                 (sscanf(argv[i + 1], "%u-%u", &o.depth_from, &o.depth_to) == 2 ||
                  sscanf(argv[i + 1], "%u", &o.depth_from) == 1)) {
            if (strchr(argv[++i], '-') == NULL) o.depth_to = o.depth_from;
            if (o.depth_from < 1 || o.depth_to > 6 || o.depth_from > o.depth_to) {
                fprintf(stderr, "m4app: depths must be within 1-6\n");
                return 2;
            }
        } else if (argv[i][0] != '-' && n < 8) {
            char *eq = strchr(argv[i], '=');
            runs[n].path = eq ? eq + 1 : argv[i];
            snprintf(runs[n].label, sizeof runs[n].label, "%.*s", eq ? (int)(eq - argv[i]) : 5,
                     eq ? argv[i] : "image");
            n++;
        } else {
            fprintf(stderr,
                    "usage: m4app --demo IMAGE | --perft [--check] [--code-hook] [--profile] "
                    "[--depths A-B] [--tt-mode bounded|everything] [--data DIR] "
                    "[--min-nano-ratio R] [--min-full-ratio R] LABEL=IMAGE... | "
                    "--age [--data DIR] LABEL=IMAGE... [--limit N]\n");
            return 2;
        }
    }
    o.data_dir = data_dir;
    if (mode == 0 || n == 0 || (mode == 1 && n != 1)) {
        fprintf(stderr,
                "m4app: give --demo IMAGE, --perft LABEL=IMAGE... or --age LABEL=IMAGE...\n");
        return 2;
    }
    for (i = 0; i < n; ++i) {
        runs[i].code_hook = code_hook;
        if (profile && !code_hook) {
            runs[i].profile = calloc(FLASH_SIZE / 2, sizeof(uint64_t));
            if (runs[i].profile == NULL) return 2;
        }
    }
    status = mode == 1 ? demo(&runs[0]) : mode == 2 ? perft(runs, n, &o) : age(runs, n, data_dir);
    if (status != 0) {
        for (i = 0; i < n; ++i)
            if (runs[i].error[0]) fprintf(stderr, "m4app: %s\n", runs[i].error);
        for (i = 0; i < n; ++i)
            close_run(&runs[i]);
        return 2;
    }
    for (i = 0; i < n; ++i)
        close_run(&runs[i]);
    if (failures) printf("%d check(s) FAILED\n", failures);
    return failures ? 1 : 0;
}
