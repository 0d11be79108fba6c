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
 *   m4app --perft [--check] nano=IMAGE full=IMAGE tlsf=IMAGE
 *                                          perft in each, instruction totals and ratios;
 *                                          --check: exit 1 unless perft is right in each
 *                                          and the targets hold (--min-nano-ratio R,
 *                                          default 1.46; --min-full-ratio R, default 1.0)
 * Exit status: 0 fine, 1 a check failed, 2 the emulation failed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unicorn/unicorn.h>

#include "app_report.h"
#include "elf32.h"

#define FLASH_BASE 0x00000000u
#define FLASH_SIZE 0x00100000u
#define RAM_BASE 0x20000000u
#define RAM_SIZE 0x20000000u
#define INSN_LIMIT 4000000000ull

typedef struct run {
    const char *path;
    elf32_file_t elf;
    uc_engine *uc;
    uint8_t *flash;
    uint32_t trap, panic, mark_begin, mark_end, sbrk;
    uint64_t count, at_begin, at_end;
    unsigned marks_begin, marks_end;
    uint64_t sbrk_calls;
    int code_hook;
    uint32_t pc, r0, lr;
    app_report_t report;
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

static void note(run_t *r, uint32_t at) {
    r->recent[r->recent_next++ % 1024u] = at;
    if (at == r->mark_begin) {
        r->measuring = 1;
        r->at_begin = r->count;
        r->marks_begin++;
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
    if (r->count > INSN_LIMIT) uc_emu_stop(uc);
}

static void on_code(uc_engine *uc, uint64_t address, uint32_t size, void *user) {
    run_t *r = user;
    (void)size;
    note(r, (uint32_t)address);
    r->count++;
    if (r->count > INSN_LIMIT) uc_emu_stop(uc);
}

static uint32_t symbol(const run_t *r, const char *name) {
    const elf32_symbol_t *s = elf32_symbol(&r->elf, name);
    return s ? s->value & ~1u : 0;
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
    if (r->count > INSN_LIMIT) {
        snprintf(r->error, sizeof r->error, "%s: runaway: more than %llu instructions", r->path,
                 INSN_LIMIT);
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

static int perft(run_t *runs, int n, int check, double min_nano, double min_full) {
    int k, nano = -1, full = -1;
    for (k = 0; k < n; ++k) {
        run_t *r = &runs[k];
        uint64_t nodes;
        if (run_image(r) != 0) return -1;
        nodes = ((uint64_t)r->report.perft_hi << 32) | r->report.perft_lo;
        if (r->marks_begin != 1 || r->marks_end != 1) {
            fprintf(stderr, "%s: the marks were passed %u and %u times\n", r->path, r->marks_begin,
                    r->marks_end);
            return -1;
        }
        printf("%-12s perft(%u) = %llu   instructions %12llu   (whole run %llu; _sbrk calls %llu",
               r->label, r->report.perft_depth, (unsigned long long)nodes,
               (unsigned long long)(r->at_end - r->at_begin), (unsigned long long)r->count,
               (unsigned long long)r->sbrk_calls);
        if (r->report.perft_allocs) printf("; TLSF allocations %u", r->report.perft_allocs);
        printf(")\n");
        if (r->profile) print_profile(r);
        if (check) {
            char line[160];
            snprintf(line, sizeof line, "%s: perft(%u) == 8902", r->label, r->report.perft_depth);
            expect(r->report.perft_depth != 3 || nodes == 8902, line);
        }
        if (strcmp(r->label, "nano") == 0) nano = k;
        if (strcmp(r->label, "full") == 0) full = k;
    }
    /* Ratios for every TLSF image (label "tlsf..."); the targets apply to "tlsf", the
     * default configuration. */
    for (k = 0; k < n; ++k) {
        const run_t *r = &runs[k];
        int is_default = strcmp(r->label, "tlsf") == 0;
        double t = (double)(r->at_end - r->at_begin);
        if (strncmp(r->label, "tlsf", 4) != 0) continue;
        if (check) {
            char line[160];
            snprintf(line, sizeof line, "%s: _sbrk never called", r->label);
            expect(r->sbrk_calls == 0, line);
        }
        if (nano >= 0) {
            double ratio = (double)(runs[nano].at_end - runs[nano].at_begin) / t;
            char line[160];
            printf("newlib-nano / %s = %.3f\n", r->label, ratio);
            snprintf(line, sizeof line, "newlib-nano / %s >= %.2f", r->label, min_nano);
            if (check && is_default) expect(ratio >= min_nano, line);
        }
        if (full >= 0) {
            double ratio = (double)(runs[full].at_end - runs[full].at_begin) / t;
            char line[160];
            printf("newlib-full / %s = %.3f\n", r->label, ratio);
            snprintf(line, sizeof line, "newlib-full / %s >= %.2f", r->label, min_full);
            if (check && is_default) expect(ratio >= min_full, line);
        }
    }
    return 0;
}

int main(int argc, char **argv) {
    run_t runs[8];
    int n = 0, mode = 0, check = 0, code_hook = 0, profile = 0, i, status;
    double min_nano = 1.46, min_full = 1.0;
    memset(runs, 0, sizeof runs);
    for (i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--demo") == 0)
            mode = 1;
        else if (strcmp(argv[i], "--perft") == 0)
            mode = 2;
        else if (strcmp(argv[i], "--check") == 0)
            check = 1;
        else if (strcmp(argv[i], "--code-hook") == 0)
            code_hook = 1;
        else if (strcmp(argv[i], "--profile") == 0)
            profile = 1;
        else if (strcmp(argv[i], "--min-nano-ratio") == 0 && i + 1 < argc)
            min_nano = atof(argv[++i]);
        else if (strcmp(argv[i], "--min-full-ratio") == 0 && i + 1 < argc)
            min_full = atof(argv[++i]);
        else if (argv[i][0] != '-' && n < 8) {
            char *eq = strchr(argv[i], '=');
            runs[n].path = eq ? eq + 1 : argv[i];
            snprintf(runs[n].label, sizeof runs[n].label, "%.*s", eq ? (int)(eq - argv[i]) : 5,
                     eq ? argv[i] : "image");
            n++;
        } else {
            fprintf(stderr,
                    "usage: m4app --demo IMAGE | --perft [--check] [--code-hook] [--profile] "
                    "[--min-nano-ratio R] [--min-full-ratio R] LABEL=IMAGE...\n");
            return 2;
        }
    }
    if (mode == 0 || n == 0 || (mode == 1 && n != 1)) {
        fprintf(stderr, "m4app: give --demo IMAGE or --perft LABEL=IMAGE...\n");
        return 2;
    }
    for (i = 0; i < n; ++i) {
        runs[i].code_hook = code_hook;
        if (profile && !code_hook) {
            runs[i].profile = calloc(FLASH_SIZE / 2, sizeof(uint64_t));
            if (runs[i].profile == NULL) return 2;
        }
    }
    status = mode == 1 ? demo(&runs[0]) : perft(runs, n, check, min_nano, min_full);
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
