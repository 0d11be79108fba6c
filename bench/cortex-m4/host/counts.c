/* SPDX-License-Identifier: MIT */
/*
 * counts.c - tlsf_m4_counts: instructions per call of TLSF and newlib's allocators on a
 * Cortex-M4, and the TLSF core's code size.
 *
 *   tlsf_m4_counts [options] IMAGE.elf... | @LIST
 *
 *   --csv FILE      also write every figure as CSV (columns: see README.md)
 *   --check         compare the TLSF maxima and sizes with bounds.h; exit 1 if one is over
 *   --only GROUP    run only the workloads of one group (random, mixed, construct, ...)
 *   --no-it-skipped count only instructions that pass their condition (see m4emu.h)
 *   --trace W#N     print every instruction of call N of workload W (the names in the
 *                   "where" column), e.g. --trace c-free-both#9, for each image run
 *   --quiet         print only the check's verdicts and errors
 *   @LIST           a file naming one image per line (the build writes m4-images.txt)
 *
 * Each image is a firmware ELF built by bench/cortex-m4/CMakeLists.txt; its bench_api
 * table says what it holds. TLSF and newlib images run every workload of workloads.c on
 * a fresh heap each and every call is counted; code-size probes are only read.
 *
 * Every allocation is checked on the host: alignment, inside the arena, not overlapping
 * any live block (a bitmap of the arena), and tags written at both ends of each block
 * must survive until it is freed or moved (realloc must carry them along). After each
 * workload a TLSF heap must pass tlsf_check and tlsf_check_pool. Any failure aborts the
 * run with exit status 2: a count is only reported for an allocator that behaved.
 */
#define _POSIX_C_SOURCE 200809L /* popen, for --trace's disassembly */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bounds.h"
#include "m4emu.h"
#include "workloads.h"

/* ---- What is counted ---- */

enum fn_id {
    F_MALLOC,
    F_FREE,
    F_REALLOC,
    F_REALLOC_NOCOPY, /* realloc minus the instructions inside memcpy/memmove */
    F_MEMALIGN,
    F_INIT, /* tlsf_create + tlsf_add_pool of the first pool */
    F_CREATE,
    F_ADD_POOL,
    F_MALLOC_DRAIN, /* a malloc that drains the front cache (OPF_DRAIN): its own bound */
    F_COUNT
};
static const char *const fn_names[F_COUNT] = {"malloc",         "free",     "realloc",
                                              "realloc-nocopy", "memalign", "init",
                                              "create",         "add_pool", "malloc-drain"};

typedef struct call_stat {
    uint64_t calls, sum, min, max;
    const workload_t *where; /* the call that hit the max */
    size_t where_op;         /* its index in the workload, or SIZE_MAX for a heap's setup */
    uint32_t where_size;     /* its request (free: the size of the block freed) */
    uint32_t where_old;      /* realloc: the block's size before */
} call_stat_t;

/* The measured call of a construction. */
typedef struct branch {
    const char *label;
    const workload_t *workload;
    size_t op;
    int fn;
    uint64_t insns, nocopy;
} branch_t;

#define MAX_IMAGES 64
#define MAX_GROUPS 8
#define ALL_GROUPS MAX_GROUPS /* stats index of the totals */

typedef struct image {
    const char *path;
    m4_t m;
    char allocator[32], opt[16], config[32];
    char title[64];  /* "tlsf O2 default" */
    char column[16]; /* short, for the constructions table */
    tlsf_params_t params;
    uint32_t tlsf_size; /* TLSF: bytes of the control structure */
    call_stat_t stats[MAX_GROUPS + 1][F_COUNT];
    branch_t *branches;
    size_t branch_count;
    unsigned unexpected_nulls; /* newlib: a NULL where TLSF succeeds (reported, not fatal) */
    double seconds;
} image_t;

static image_t images[MAX_IMAGES];
static size_t image_count;
static int count_it_skipped = 1;
static int quiet;
static char trace_workload[64]; /* --trace: workload name and op index */
static size_t trace_op = SIZE_MAX;

static void short_name(const char *name, char *buffer, size_t size);

static void die(const char *format, ...) {
    va_list args;
    va_start(args, format);
    fprintf(stderr, "tlsf_m4_counts: ");
    vfprintf(stderr, format, args);
    fprintf(stderr, "\n");
    va_end(args);
    exit(2);
}

static void *xcalloc(size_t count, size_t size) {
    void *p = calloc(count, size);
    if (p == NULL) die("out of memory");
    return p;
}

static int group_index(const char *group) {
    size_t i;
    for (i = 0; i < workload_group_count; ++i)
        if (strcmp(workload_groups[i], group) == 0) return (int)i;
    return -1;
}

/* ---- One workload on one image ---- */

typedef struct slot {
    uint32_t ptr, size, tag;
} slot_t;

typedef struct run {
    image_t *img;
    m4_t *m;
    int tlsf;
    const workload_t *w;
    int group;
    size_t op; /* index of the current op */
    uint32_t heap;
    uint32_t pool[64];
    uint32_t pool_count;
    slot_t *slots;
} run_t;

/* Which 8-byte granules of the RAM live blocks cover (shared by all runs). */
static uint8_t *paint;
static uint32_t paint_base, paint_granules;

static void fail_run(const run_t *r, const char *format, ...) {
    va_list args;
    va_start(args, format);
    fprintf(stderr, "tlsf_m4_counts: %s: workload %s, op %zu: ", r->img->title, r->w->name, r->op);
    vfprintf(stderr, format, args);
    fprintf(stderr, "\n");
    va_end(args);
    exit(2);
}

/* Count one call of `fn`: `size` is the request (or the size of the block freed),
 * `old` the size before a realloc. */
static void record(run_t *r, int fn, uint64_t insns, size_t op, uint32_t size, uint32_t old) {
    int scopes[2];
    size_t i;
    scopes[0] = r->group;
    scopes[1] = ALL_GROUPS;
    for (i = 0; i < 2; ++i) {
        call_stat_t *s = &r->img->stats[scopes[i]][fn];
        if (s->calls == 0 || insns < s->min) s->min = insns;
        /* On a tie, prefer a construction's labelled call: it says what the path is. */
        int labelled = op != SIZE_MAX && r->w->ops[op].label != NULL;
        int keep_labelled = s->where && s->where_op != SIZE_MAX && s->where->ops[s->where_op].label;
        if (s->calls == 0 || insns > s->max || (insns == s->max && labelled && !keep_labelled)) {
            s->max = insns;
            s->where = r->w;
            s->where_op = op;
            s->where_size = size;
            s->where_old = old;
        }
        s->calls++;
        s->sum += insns;
    }
}

static uint64_t counted(const m4_result_t *res) {
    return count_it_skipped ? res->insns : res->insns - res->it_skipped;
}

static uint32_t call(run_t *r, uint32_t fn, unsigned argc, const uint32_t *argv, m4_result_t *res) {
    if (m4_call(r->m, fn, argc, argv, res) != 0) fail_run(r, "%s", r->m->error);
    return res->r0;
}

static uint32_t read32(run_t *r, uint32_t address) {
    uint8_t b[4];
    if (m4_read(r->m, address, b, 4) != 0) fail_run(r, "%s", r->m->error);
    return (uint32_t)b[0] | ((uint32_t)b[1] << 8) | ((uint32_t)b[2] << 16) | ((uint32_t)b[3] << 24);
}

static void write32(run_t *r, uint32_t address, uint32_t value) {
    uint8_t b[4];
    b[0] = (uint8_t)value;
    b[1] = (uint8_t)(value >> 8);
    b[2] = (uint8_t)(value >> 16);
    b[3] = (uint8_t)(value >> 24);
    if (m4_write(r->m, address, b, 4) != 0) fail_run(r, "%s", r->m->error);
}

/* Mark (on != 0) or clear the granules of [ptr, ptr + size); marking checks they were
 * all clear: two live blocks never overlap. */
static void paint_range(run_t *r, uint32_t ptr, uint32_t size, int on) {
    uint32_t first = (ptr - paint_base) >> 3;
    uint32_t count = size ? (size + 7u) >> 3 : 1u, g;
    for (g = first; g < first + count; ++g) {
        uint8_t bit = (uint8_t)(1u << (g & 7u));
        if (on) {
            if (paint[g >> 3] & bit)
                fail_run(r, "block 0x%08x + %u overlaps a live block", ptr, size);
            paint[g >> 3] |= bit;
        } else {
            paint[g >> 3] &= (uint8_t)~bit;
        }
    }
}

/* The tags a live block carries at its first and last word. */
static void write_tags(run_t *r, slot_t *s) {
    if (s->size >= 4) write32(r, s->ptr, s->tag);
    if (s->size >= 8) write32(r, s->ptr + s->size - 4, ~s->tag);
}

static void check_tags(run_t *r, const slot_t *s, const char *when) {
    if (s->size >= 4 && read32(r, s->ptr) != s->tag)
        fail_run(r, "%s: the first word of block 0x%08x was overwritten", when, s->ptr);
    if (s->size >= 8 && read32(r, s->ptr + s->size - 4) != ~s->tag)
        fail_run(r, "%s: the last word of block 0x%08x was overwritten", when, s->ptr);
}

/* Release a block on the host side and, uncounted, in the allocator (newlib cleanup). */
static void free_quietly(run_t *r, uint32_t ptr) {
    m4_result_t res;
    uint32_t args[2];
    unsigned n = 0;
    if (r->tlsf) args[n++] = r->heap;
    args[n++] = ptr;
    call(r, r->m->api.fn_free, n, args, &res);
}

/* A call that should have produced a block of `size` bytes aligned to `align` returned
 * `ptr`: check it and make it the slot's block. */
static void took(run_t *r, const op_t *op, uint32_t ptr, uint32_t align) {
    slot_t *s = &r->slots[op->slot];
    uint32_t need = align > 8 && (align & (align - 1)) == 0 ? align : 8;
    int expect_null = (op->flags & OPF_EXPECT_NULL) != 0;
    if (ptr == 0) {
        if (!expect_null) {
            if (r->tlsf) fail_run(r, "unexpected NULL for %u bytes", op->size);
            r->img->unexpected_nulls++;
        }
        s->ptr = 0;
        return;
    }
    if (expect_null) {
        if (r->tlsf) fail_run(r, "expected NULL, got 0x%08x", ptr);
        free_quietly(r, ptr); /* newlib had the memory: give it back, keep the slot empty */
        s->ptr = 0;
        return;
    }
    if (ptr % need != 0) fail_run(r, "0x%08x is not aligned to %u", ptr, need);
    if (ptr < r->m->api.arena_start || ptr > r->m->api.arena_end ||
        op->size > r->m->api.arena_end - ptr)
        fail_run(r, "block 0x%08x + %u is outside the arena", ptr, op->size);
    s->ptr = ptr;
    s->size = op->size;
    s->tag = 0x9E3779B1u * (uint32_t)(r->op + 1) ^ 0x5A5A0000u;
    paint_range(r, s->ptr, s->size, 1);
    write_tags(r, s);
}

static void run_op(run_t *r, const op_t *op) {
    m4_result_t res;
    uint32_t args[4], ptr;
    unsigned n = 0;
    slot_t *s = &r->slots[op->slot];
    const bench_api_t *api = &r->m->api;
    branch_t *branch = NULL;
    int fn = -1;

    if (op->kind != OP_ADJACENT && op->label) {
        image_t *img = r->img;
        branch = &img->branches[img->branch_count++];
        branch->label = op->label;
        branch->workload = r->w;
        branch->op = r->op;
    }
    if (r->tlsf) args[n++] = r->heap;

    switch ((op_kind_t)op->kind) {
    case OP_MALLOC:
        if (s->ptr) fail_run(r, "malloc into a slot in use");
        args[n++] = op->size;
        ptr = call(r, api->fn_malloc, n, args, &res);
        record(r, fn = (op->flags & OPF_DRAIN) ? F_MALLOC_DRAIN : F_MALLOC, counted(&res), r->op,
               op->size, 0);
        took(r, op, ptr, 8);
        break;
    case OP_MEMALIGN:
        if (s->ptr) fail_run(r, "memalign into a slot in use");
        args[n++] = op->align;
        args[n++] = op->size;
        ptr = call(r, api->fn_memalign, n, args, &res);
        record(r, fn = F_MEMALIGN, counted(&res), r->op, op->size, 0);
        took(r, op, ptr, op->align);
        break;
    case OP_FREE:
        if (s->ptr) {
            check_tags(r, s, "before free");
            paint_range(r, s->ptr, s->size, 0);
        }
        args[n++] = s->ptr;
        call(r, api->fn_free, n, args, &res);
        record(r, fn = F_FREE, counted(&res), r->op, s->ptr ? s->size : 0, 0);
        s->ptr = 0;
        break;
    case OP_REALLOC: {
        slot_t old = *s;
        if (old.ptr) check_tags(r, &old, "before realloc");
        args[n++] = old.ptr;
        args[n++] = op->size;
        ptr = call(r, api->fn_realloc, n, args, &res);
        record(r, fn = F_REALLOC, counted(&res), r->op, op->size, old.ptr ? old.size : 0);
        record(r, F_REALLOC_NOCOPY, counted(&res) - res.copy_insns, r->op, op->size,
               old.ptr ? old.size : 0);
        if (ptr == 0 && op->size != 0) {
            /* Failed: the old block must be intact (or there was none). */
            if (old.ptr) check_tags(r, &old, "after a failed realloc");
            if (!(op->flags & OPF_EXPECT_NULL)) {
                if (r->tlsf) fail_run(r, "unexpected NULL from realloc(%u)", op->size);
                r->img->unexpected_nulls++;
            }
            break;
        }
        if (op->flags & OPF_EXPECT_NULL) {
            if (r->tlsf) fail_run(r, "realloc: expected NULL, got 0x%08x", ptr);
        }
        if (old.ptr) {
            /* The contents up to the smaller size moved along. */
            uint32_t keep = old.size < op->size ? old.size : op->size;
            if (ptr && keep >= 4 && read32(r, ptr) != old.tag)
                fail_run(r, "realloc lost the first word of the block");
            if (ptr && old.size >= 8 && op->size >= old.size &&
                read32(r, ptr + old.size - 4) != ~old.tag)
                fail_run(r, "realloc lost the last word of the block");
            paint_range(r, old.ptr, old.size, 0);
            s->ptr = 0;
        }
        if (ptr) took(r, op, ptr, 8);
        break;
    }
    case OP_ADJACENT: {
        const slot_t *second = &r->slots[op->align];
        uint32_t usable;
        if (!r->tlsf) break; /* a premise about TLSF's layout */
        if (s->ptr == 0 || second->ptr == 0) fail_run(r, "adjacency check on an empty slot");
        usable = call(r, api->fn_block_size, 1, &s->ptr, &res);
        if (second->ptr != s->ptr + usable + r->img->params.overhead + op->size)
            fail_run(r,
                     "construction premise: block 0x%08x (usable %u) is not followed by "
                     "block 0x%08x; the construction no longer reaches its branch",
                     s->ptr, usable, second->ptr);
        break;
    }
    }
    if (branch) {
        branch->fn = fn;
        branch->insns = counted(&res);
        branch->nocopy = counted(&res) - res.copy_insns;
    }
}

/* A fresh heap for workload r->w. */
static void setup_heap(run_t *r) {
    const bench_api_t *api = &r->m->api;
    m4_result_t res;
    uint32_t bytes, count, i, address, args[3];
    uint64_t create_insns;
    if (!r->tlsf) {
        if (m4_reset(r->m) != 0) fail_run(r, "%s", r->m->error); /* newlib's state */
        return;
    }
    count = heap_pools(&r->img->params, r->w->heap, &bytes);
    if (count > sizeof r->pool / sizeof r->pool[0]) fail_run(r, "too many pools");
    r->heap = (api->arena_start + 4095u) & ~4095u;
    if (call(r, api->fn_create, 1, &r->heap, &res) != r->heap) fail_run(r, "tlsf_create failed");
    create_insns = counted(&res);
    record(r, F_CREATE, create_insns, SIZE_MAX, 0, 0);
    address = (r->heap + r->img->tlsf_size + 4095u) & ~4095u;
    for (i = 0; i < count; ++i) {
        if ((uint64_t)address + bytes > api->arena_end) fail_run(r, "the pools do not fit");
        args[0] = r->heap;
        args[1] = address;
        args[2] = bytes;
        if (call(r, api->fn_add_pool, 3, args, &res) != address)
            fail_run(r, "tlsf_add_pool(%u bytes) failed", bytes);
        record(r, F_ADD_POOL, counted(&res), SIZE_MAX, bytes, 0);
        if (i == 0) record(r, F_INIT, create_insns + counted(&res), SIZE_MAX, bytes, 0);
        r->pool[i] = address;
        address = (address + bytes + 4095u) & ~4095u;
    }
    r->pool_count = count;
    if (r->img->params.cache_bytes != 0 && r->w->cache_limit != CACHE_LIMIT_DEFAULT) {
        args[0] = r->heap;
        args[1] = r->w->cache_limit;
        if (call(r, api->fn_cache_set_limit, 2, args, &res) != r->w->cache_limit)
            fail_run(r, "tlsf_cache_set_limit(%u) failed", r->w->cache_limit);
    }
}

/* After a workload: the heap is consistent; forget its blocks. */
static void finish(run_t *r) {
    uint32_t i;
    m4_result_t res;
    if (r->tlsf) {
        if (call(r, r->m->api.fn_check, 1, &r->heap, &res) != 0)
            fail_run(r, "tlsf_check reports errors after the workload");
        for (i = 0; i < r->pool_count; ++i)
            if (call(r, r->m->api.fn_check_pool, 1, &r->pool[i], &res) != 0)
                fail_run(r, "tlsf_check_pool reports errors after the workload");
    }
    for (i = 0; i < r->w->slots; ++i)
        if (r->slots[i].ptr) paint_range(r, r->slots[i].ptr, r->slots[i].size, 0);
}

/* --trace: the disassembly of the traced image, from arm-none-eabi-objdump if the build
 * found it (TLSF_M4_OBJDUMP); addresses and function names only otherwise. */
typedef struct disassembly {
    uint32_t address;
    char *text;
} disassembly_t;

static disassembly_t *disassembly;
static size_t disassembly_count;

static void load_disassembly(const char *elf) {
#ifdef TLSF_M4_OBJDUMP
    char command[4200], line[512];
    size_t capacity = 0, i;
    FILE *pipe;
    for (i = 0; i < disassembly_count; ++i)
        free(disassembly[i].text);
    disassembly_count = 0;
    snprintf(command, sizeof command, "'%s' -d --no-show-raw-insn '%s'", TLSF_M4_OBJDUMP, elf);
    pipe = popen(command, "r");
    if (pipe == NULL) return;
    while (fgets(line, sizeof line, pipe)) {
        unsigned address;
        char *tab = strchr(line, '\t'), *end;
        /* "     510:\tcmp\tr1, #0" */
        if (line[0] != ' ' || tab == NULL || sscanf(line, " %x:", &address) != 1) continue;
        if (disassembly_count == capacity) {
            capacity = capacity ? 2 * capacity : 4096;
            disassembly = realloc(disassembly, capacity * sizeof *disassembly);
            if (disassembly == NULL) die("out of memory");
        }
        for (end = tab; *end; ++end)
            if (*end == '\t') *end = ' ';
        tab[strcspn(tab, "\r\n")] = 0;
        disassembly[disassembly_count].address = address;
        disassembly[disassembly_count].text = xcalloc(strlen(tab + 1) + 1, 1);
        memcpy(disassembly[disassembly_count].text, tab + 1, strlen(tab + 1));
        disassembly_count++;
    }
    pclose(pipe);
#else
    (void)elf;
#endif
}

static const char *disassembled(uint32_t address) {
    size_t lo = 0, hi = disassembly_count;
    while (lo < hi) { /* objdump lists addresses in increasing order */
        size_t mid = lo + (hi - lo) / 2;
        if (disassembly[mid].address < address)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < disassembly_count && disassembly[lo].address == address ? disassembly[lo].text : "";
}

/* --trace: the instructions of the call just made, with the functions they belong to. */
static void print_trace(image_t *img, const workload_t *w, size_t op) {
    const m4_t *m = &img->m;
    const elf32_symbol_t *functions[64];
    uint64_t per_function[64];
    size_t i, k, distinct = 0, skipped = 0;
    load_disassembly(img->path);
    printf("\nTrace: %s, %s#%zu: %zu instructions\n", img->title, w->name, op, m->trace_count);
    for (i = 0; i < m->trace_count; ++i) {
        uint32_t address = m->trace[i] & ~1u;
        const elf32_symbol_t *fn = elf32_function_at(&m->elf, address);
        char name[96], at[128];
        short_name(fn ? fn->name : "?", name, sizeof name);
        snprintf(at, sizeof at, "%s+0x%x", name, fn ? address - (fn->value & ~1u) : 0u);
        printf("  %5zu  %05x  %-28s %s%s\n", i + 1, address, at, disassembled(address),
               (m->trace[i] & 1u) ? "  (IT condition failed)" : "");
        skipped += m->trace[i] & 1u;
        for (k = 0; k < distinct && functions[k] != fn; ++k) {
        }
        if (k == distinct && distinct < 64) {
            functions[distinct] = fn;
            per_function[distinct++] = 0;
        }
        if (k < distinct) per_function[k]++;
    }
    printf("  by function:");
    for (k = 0; k < distinct; ++k) {
        char name[96];
        short_name(functions[k] ? functions[k]->name : "?", name, sizeof name);
        printf("%s %s %llu", k ? "," : "", name, (unsigned long long)per_function[k]);
    }
    printf("; IT-skipped %zu\n", skipped);
}

static void run_workload(image_t *img, const workload_t *w) {
    run_t r;
    size_t i;
    memset(&r, 0, sizeof r);
    r.img = img;
    r.m = &img->m;
    r.tlsf = img->m.api.kind == BENCH_KIND_TLSF;
    r.w = w;
    r.group = group_index(w->group);
    if (r.group < 0 || r.group >= MAX_GROUPS) die("workload %s: unknown group", w->name);
    r.slots = xcalloc(w->slots, sizeof *r.slots);
    r.op = SIZE_MAX;
    setup_heap(&r);
    for (i = 0; i < w->count; ++i) {
        int traced = i == trace_op && strcmp(w->name, trace_workload) == 0;
        r.op = i;
        if (traced) img->m.tracing = 1;
        run_op(&r, &w->ops[i]);
        if (traced) {
            print_trace(img, w, i);
            img->m.tracing = 0;
        }
    }
    finish(&r);
    free(r.slots);
}

/* ---- Images ---- */

static void load_image(image_t *img, const char *path) {
    const bench_api_t *api;
    char buffer[64];
    img->path = path;
    if (m4_open(&img->m, path, 1) != 0) die("%s: %s", path, img->m.error);
    api = &img->m.api;
    snprintf(img->allocator, sizeof img->allocator, "%s",
             m4_string(&img->m, api->allocator, buffer, sizeof buffer));
    snprintf(img->opt, sizeof img->opt, "%s", m4_string(&img->m, api->opt, buffer, sizeof buffer));
    snprintf(img->config, sizeof img->config, "%s",
             m4_string(&img->m, api->config, buffer, sizeof buffer));
    if (api->kind == BENCH_KIND_TLSF) {
        snprintf(img->title, sizeof img->title, "%s %s %s", img->allocator, img->opt, img->config);
        snprintf(img->column, sizeof img->column, "%s/%.8s", img->opt, img->config);
    } else {
        snprintf(img->title, sizeof img->title, "%s", img->allocator);
        snprintf(img->column, sizeof img->column, "%.12s", img->allocator);
    }
    if (m4_calibrate(&img->m) != 0) die("%s: %s", path, img->m.error);
}

/* The TLSF configuration of an image, from its table and its own answers. */
static void read_params(image_t *img) {
    m4_t *m = &img->m;
    m4_result_t res;
    uint32_t block_max;
    tlsf_params_t *p = &img->params;
    if (m->api.kind != BENCH_KIND_TLSF) {
        /* newlib runs the constructions of the default TLSF configuration. */
        p->align_log2 = 3;
        p->sl_index_log2 = 4;
        p->max_block_log2 = 28;
        p->pool_overhead = 8;
        p->largest_pool = (1u << 28) - 8 + 8;
        p->cache_bytes = 0;
        p->overhead = 4;
        p->min_span = 16;
        return;
    }
    p->align_log2 = m->api.cfg_align_log2;
    p->sl_index_log2 = m->api.cfg_sl_index_log2;
    p->max_block_log2 = m->api.cfg_max_block_log2;
    p->cache_bytes = m->api.cfg_cache_bytes;
    if (m4_call(m, m->api.fn_alloc_overhead, 0, NULL, &res) != 0) die("%s", m->error);
    p->overhead = res.r0;
    if (m4_call(m, m->api.fn_block_size_min, 0, NULL, &res) != 0) die("%s", m->error);
    p->min_span = res.r0 + p->overhead;
    if (m4_call(m, m->api.fn_pool_overhead, 0, NULL, &res) != 0) die("%s", m->error);
    p->pool_overhead = res.r0;
    if (m4_call(m, m->api.fn_block_size_max, 0, NULL, &res) != 0) die("%s", m->error);
    block_max = res.r0;
    if (m4_call(m, m->api.fn_size, 0, NULL, &res) != 0) die("%s", m->error);
    img->tlsf_size = res.r0;
    if (block_max != (1u << p->max_block_log2)) die("%s: tlsf_block_size_max disagrees", img->path);
    /* Every span stays below block_max: the usable part of the largest pool is
     * block_max - alignment. */
    p->largest_pool = block_max - (1u << p->align_log2) + p->pool_overhead;
}

/* An allocator without realloc or memalign (FreeRTOS's heap_4: its table leaves them 0)
 * runs only the workloads that do not need them. */
static int can_run(const image_t *img, const workload_t *w) {
    size_t k;
    for (k = 0; k < w->count; ++k) {
        if (w->ops[k].kind == OP_REALLOC && img->m.api.fn_realloc == 0) return 0;
        if (w->ops[k].kind == OP_MEMALIGN && img->m.api.fn_memalign == 0) return 0;
    }
    return 1;
}

/* Run every workload (of `only`, if given) on a TLSF or newlib image. */
static void run_image(image_t *img, const char *only) {
    workload_t *workloads;
    size_t count, i, labels = 0;
    clock_t start = clock();
    read_params(img);
    workloads = workloads_build(&img->params, &count);
    if (workloads == NULL) die("%s: the constructions do not fit this configuration", img->title);
    for (i = 0; i < count; ++i) {
        size_t k;
        for (k = 0; k < workloads[i].count; ++k)
            labels += workloads[i].ops[k].label != NULL;
    }
    img->branches = xcalloc(labels ? labels : 1, sizeof *img->branches);
    for (i = 0; i < count; ++i)
        if ((only == NULL || strcmp(only, workloads[i].group) == 0) && can_run(img, &workloads[i]))
            run_workload(img, &workloads[i]);
    img->seconds = (double)(clock() - start) / CLOCKS_PER_SEC;
    /* The stats keep pointers into the workloads: they stay allocated until exit. */
}

/* ---- Reports ---- */

static double mean(const call_stat_t *s) {
    return s->calls ? (double)s->sum / (double)s->calls : 0.0;
}

static void where(const call_stat_t *s, char *buffer, size_t size) {
    const op_t *op;
    if (s->where == NULL) {
        snprintf(buffer, size, "-");
    } else if (s->where_op == SIZE_MAX) {
        if (s->where_size)
            snprintf(buffer, size, "%s setup, pool of %u bytes", s->where->name, s->where_size);
        else
            snprintf(buffer, size, "%s setup", s->where->name);
    } else {
        op = &s->where->ops[s->where_op];
        if (op->kind == OP_MEMALIGN)
            snprintf(buffer, size, "%s#%zu size=%u align=%u", s->where->name, s->where_op,
                     s->where_size, op->align);
        else if (op->kind == OP_REALLOC)
            snprintf(buffer, size, "%s#%zu size=%u from %u", s->where->name, s->where_op,
                     s->where_size, s->where_old);
        else
            snprintf(buffer, size, "%s#%zu size=%u", s->where->name, s->where_op, s->where_size);
        if (op->label) snprintf(buffer + strlen(buffer), size - strlen(buffer), " (%s)", op->label);
    }
}

static int is_run(const image_t *img) {
    return img->m.api.kind == BENCH_KIND_TLSF || img->m.api.kind == BENCH_KIND_NEWLIB;
}

static void print_images(void) {
    size_t i;
    printf("\nImages\n");
    for (i = 0; i < image_count; ++i) {
        const image_t *img = &images[i];
        const bench_api_t *api = &img->m.api;
        if (api->kind == BENCH_KIND_TLSF)
            printf("  %-18s TLSF_ALIGN_LOG2=%u SL_INDEX_LOG2=%u MAX_BLOCK_LOG2=%u STATS=%u "
                   "CHECKS=%u, control structure %u bytes  %s\n",
                   img->title, api->cfg_align_log2, api->cfg_sl_index_log2, api->cfg_max_block_log2,
                   api->cfg_stats, api->cfg_checks, img->tlsf_size, img->path);
        else if (api->kind == BENCH_KIND_NEWLIB && strncmp(img->allocator, "freertos", 8) == 0)
            printf("  %-18s FreeRTOS heap_4 as shipped (pvPortMalloc/vPortFree; no realloc or "
                   "memalign: only the workloads without them)  %s\n",
                   img->title, img->path);
        else if (api->kind == BENCH_KIND_NEWLIB)
            printf("  %-18s newlib's malloc as shipped, heap grown by _sbrk  %s\n", img->title,
                   img->path);
    }
}

static void print_summary(void) {
    size_t i;
    int f;
    printf("\nInstructions per call, Cortex-M4 Thumb-2 (every call of every workload)\n");
    printf("%-18s %-14s %8s %9s %7s %7s  %s\n", "image", "function", "calls", "mean", "min", "max",
           "where the max was hit (workload#op)");
    for (i = 0; i < image_count; ++i) {
        image_t *img = &images[i];
        if (!is_run(img)) continue;
        for (f = 0; f < F_COUNT; ++f) {
            const call_stat_t *s = &img->stats[ALL_GROUPS][f];
            char at[160];
            if (s->calls == 0) continue;
            where(s, at, sizeof at);
            printf("%-18s %-14s %8llu %9.2f %7llu %7llu  %s\n", img->title, fn_names[f],
                   (unsigned long long)s->calls, mean(s), (unsigned long long)s->min,
                   (unsigned long long)s->max, at);
        }
        if (img->unexpected_nulls)
            printf("%-18s note: %u allocation(s) returned NULL where TLSF succeeds\n", img->title,
                   img->unexpected_nulls);
    }
}

static void print_groups(void) {
    size_t i, g;
    int f;
    printf("\nMean / max per workload group\n%-18s %-14s", "image", "function");
    for (g = 0; g < workload_group_count; ++g)
        printf(" %15s", workload_groups[g]);
    printf("\n");
    for (i = 0; i < image_count; ++i) {
        image_t *img = &images[i];
        if (!is_run(img)) continue;
        for (f = 0; f <= F_MEMALIGN; ++f) {
            if (img->stats[ALL_GROUPS][f].calls == 0) continue;
            printf("%-18s %-14s", img->title, fn_names[f]);
            for (g = 0; g < workload_group_count; ++g) {
                const call_stat_t *s = &img->stats[g][f];
                char cell[32];
                if (s->calls)
                    snprintf(cell, sizeof cell, "%.1f/%llu", mean(s), (unsigned long long)s->max);
                else
                    snprintf(cell, sizeof cell, "-");
                printf(" %15s", cell);
            }
            printf("\n");
        }
    }
}

/* Has an image before image `i`, or image `i` before branch `b`, a branch labelled so? (The
 * table has one row per label, in the order labels first appear: constructions that only
 * some configurations build, such as the front cache's, get rows too.) */
static int label_seen_before(size_t i, size_t b) {
    const char *label = images[i].branches[b].label;
    size_t j, k;
    for (j = 0; j <= i; ++j) {
        size_t end = j == i ? b : images[j].branch_count;
        if (!is_run(&images[j])) continue;
        for (k = 0; k < end; ++k)
            if (strcmp(images[j].branches[k].label, label) == 0) return 1;
    }
    return 0;
}

static void print_branch_row(const char *label, int width) {
    size_t i, k;
    printf("%-*s", width, label);
    for (i = 0; i < image_count; ++i) {
        const image_t *img = &images[i];
        char cell[32];
        if (!is_run(img) || img->branch_count == 0) continue;
        snprintf(cell, sizeof cell, "-");
        for (k = 0; k < img->branch_count; ++k) {
            const branch_t *br = &img->branches[k];
            if (strcmp(br->label, label) != 0) continue;
            if (br->insns != br->nocopy)
                snprintf(cell, sizeof cell, "%llu/%llu", (unsigned long long)br->insns,
                         (unsigned long long)br->nocopy);
            else
                snprintf(cell, sizeof cell, "%llu", (unsigned long long)br->insns);
        }
        printf(" %11s", cell);
    }
    printf("\n");
}

static void print_branches(void) {
    size_t i, b;
    int width = 4, any = 0;
    for (i = 0; i < image_count; ++i) {
        if (!is_run(&images[i])) continue;
        for (b = 0; b < images[i].branch_count; ++b) {
            any = 1;
            if ((int)strlen(images[i].branches[b].label) > width)
                width = (int)strlen(images[i].branches[b].label);
        }
    }
    if (!any) return;
    printf("\nConstructions: instructions of the labelled call "
           "(realloc: all / without memcpy+memmove; -: not built for that image)\n");
    printf("%-*s", width, "call");
    for (i = 0; i < image_count; ++i)
        if (is_run(&images[i]) && images[i].branch_count) printf(" %11s", images[i].column);
    printf("\n");
    for (i = 0; i < image_count; ++i) {
        if (!is_run(&images[i])) continue;
        for (b = 0; b < images[i].branch_count; ++b)
            if (!label_seen_before(i, b)) print_branch_row(images[i].branches[b].label, width);
    }
}

/* ---- Code size ---- */

typedef struct size_entry {
    const char *name;
    uint32_t size;
    int library; /* a global symbol outside the core: memset, ... */
} size_entry_t;

typedef struct size_report {
    uint32_t total, core, library;
    int64_t text_delta; /* .text section growth over the baseline, padding included */
    size_entry_t *entries;
    size_t count;
} size_report_t;

static int by_size(const void *a, const void *b) {
    const size_entry_t *x = a, *y = b;
    if (x->size != y->size) return x->size < y->size ? 1 : -1;
    return strcmp(x->name, y->name);
}

/* The functions of `probe` that `baseline` (the startup alone) does not have. */
static void measure_size(const image_t *probe, const image_t *baseline, size_report_t *out) {
    const elf32_file_t *elf = &probe->m.elf;
    const elf32_section_t *text = elf32_section(elf, ".text");
    const elf32_section_t *base_text = elf32_section(&baseline->m.elf, ".text");
    size_t i;
    memset(out, 0, sizeof *out);
    out->entries = xcalloc(elf->symbol_count ? elf->symbol_count : 1, sizeof *out->entries);
    for (i = 0; i < elf->symbol_count; ++i) {
        const elf32_symbol_t *sym = &elf->symbols[i];
        size_entry_t *e;
        if (sym->type != ELF32_STT_FUNC || sym->shndx == 0 || sym->size == 0) continue;
        if (elf32_symbol(&baseline->m.elf, sym->name) != NULL) continue;
        e = &out->entries[out->count++];
        e->name = sym->name;
        e->size = sym->size;
        e->library = sym->global && strncmp(sym->name, "tlsf_", 5) != 0;
        out->total += e->size;
        if (e->library)
            out->library += e->size;
        else
            out->core += e->size;
    }
    qsort(out->entries, out->count, sizeof *out->entries, by_size);
    out->text_delta = text && base_text ? (int64_t)text->size - (int64_t)base_text->size : 0;
}

static const char *size_part_name(uint32_t part) {
    return part == BENCH_SIZE_HOT    ? "init+malloc+free"
           : part == BENCH_SIZE_CORE ? "core"
                                     : "baseline";
}

/* Length of a configuration tag "_a3_s4_m28_t1_c1" at `text`, or 0. */
static size_t tag_length(const char *text) {
    static const char letters[] = "asmtc";
    const char *p = text;
    size_t k;
    for (k = 0; k < 5; ++k) {
        if (p[0] != '_' || p[1] != letters[k] || p[2] < '0' || p[2] > '9') return 0;
        for (p += 2; *p >= '0' && *p <= '9'; ++p) {
        }
    }
    return (size_t)(p - text);
}

/* "tlsf_free_a3_s4_m28_t1_c1.part.0" -> "tlsf_free.part.0": drop the configuration tag. */
static void short_name(const char *name, char *buffer, size_t size) {
    const char *p;
    for (p = name; *p; ++p) {
        size_t n = tag_length(p);
        if (n) {
            snprintf(buffer, size, "%.*s%s", (int)(p - name), name, p + n);
            return;
        }
    }
    snprintf(buffer, size, "%s", name);
}

static const image_t *find_baseline(void) {
    size_t i;
    for (i = 0; i < image_count; ++i)
        if (images[i].m.api.kind == BENCH_KIND_SIZE && images[i].m.api.part == BENCH_SIZE_BASELINE)
            return &images[i];
    return NULL;
}

static void print_sizes(void) {
    const image_t *baseline = find_baseline();
    size_t i, k;
    int any = 0;
    for (i = 0; i < image_count; ++i) {
        const image_t *img = &images[i];
        size_report_t rep;
        if (img->m.api.kind != BENCH_KIND_SIZE || img->m.api.part == BENCH_SIZE_BASELINE) continue;
        if (baseline == NULL) die("size probes need the baseline probe too");
        if (!any) {
            printf("\nCode size in bytes: functions linked in besides the startup code "
                   "(core = TLSF's own, lib = C library)\n");
            printf("%-4s %-9s %-17s %6s %6s %5s %7s  %s\n", "opt", "config", "part", "total",
                   "core", "lib", ".text+", "functions");
            any = 1;
        }
        measure_size(img, baseline, &rep);
        printf("%-4s %-9s %-17s %6u %6u %5u %7lld  ", img->opt, img->config,
               size_part_name(img->m.api.part), rep.total, rep.core, rep.library,
               (long long)rep.text_delta);
        for (k = 0; k < rep.count; ++k) {
            char name[64];
            short_name(rep.entries[k].name, name, sizeof name);
            printf("%s%s %u", k ? ", " : "", name, rep.entries[k].size);
        }
        printf("\n");
        free(rep.entries);
    }
}

/* ---- CSV ---- */

static void csv_field(FILE *f, const char *text) {
    fputc('"', f);
    for (; *text; ++text) {
        if (*text == '"') fputc('"', f);
        fputc(*text, f);
    }
    fputc('"', f);
}

static void csv_prefix(FILE *f, const char *record, const image_t *img, const char *scope,
                       const char *function) {
    fprintf(f, "%s,%s,%s,%s,", record, img->allocator, img->opt, img->config);
    csv_field(f, scope);
    fputc(',', f);
    csv_field(f, function);
}

static void write_csv(const char *path) {
    FILE *f = fopen(path, "w");
    const image_t *baseline = find_baseline();
    size_t i, g, b, k;
    int fn;
    if (f == NULL) die("cannot write %s", path);
    fprintf(f, "record,allocator,opt,config,scope,function,calls,mean,min,max,where\n");
    for (i = 0; i < image_count; ++i) {
        const image_t *img = &images[i];
        if (is_run(img)) {
            for (g = 0; g <= workload_group_count; ++g) {
                size_t index = g < workload_group_count ? g : ALL_GROUPS;
                const char *scope = g < workload_group_count ? workload_groups[g] : "all";
                for (fn = 0; fn < F_COUNT; ++fn) {
                    const call_stat_t *s = &img->stats[index][fn];
                    char at[160];
                    if (s->calls == 0) continue;
                    where(s, at, sizeof at);
                    csv_prefix(f, "call", img, scope, fn_names[fn]);
                    fprintf(f, ",%llu,%.3f,%llu,%llu,", (unsigned long long)s->calls, mean(s),
                            (unsigned long long)s->min, (unsigned long long)s->max);
                    csv_field(f, at);
                    fputc('\n', f);
                }
            }
            for (b = 0; b < img->branch_count; ++b) {
                const branch_t *br = &img->branches[b];
                char at[160];
                snprintf(at, sizeof at, "%s#%zu", br->workload->name, br->op);
                for (k = 0; k < (br->fn == F_REALLOC ? 2u : 1u); ++k) {
                    uint64_t n = k ? br->nocopy : br->insns;
                    csv_prefix(f, "branch", img, br->label,
                               fn_names[k ? F_REALLOC_NOCOPY : br->fn]);
                    fprintf(f, ",1,%llu,%llu,%llu,", (unsigned long long)n, (unsigned long long)n,
                            (unsigned long long)n);
                    csv_field(f, at);
                    fputc('\n', f);
                }
            }
        } else if (img->m.api.kind == BENCH_KIND_SIZE && img->m.api.part != BENCH_SIZE_BASELINE &&
                   baseline) {
            size_report_t rep;
            const char *part = size_part_name(img->m.api.part);
            measure_size(img, baseline, &rep);
            csv_prefix(f, "size", img, part, "total");
            fprintf(f, ",,,,%u,\n", rep.total);
            csv_prefix(f, "size", img, part, "core");
            fprintf(f, ",,,,%u,\n", rep.core);
            csv_prefix(f, "size", img, part, "library");
            fprintf(f, ",,,,%u,\n", rep.library);
            csv_prefix(f, "size", img, part, ".text-delta");
            fprintf(f, ",,,,%lld,\n", (long long)rep.text_delta);
            for (k = 0; k < rep.count; ++k) {
                char name[64];
                short_name(rep.entries[k].name, name, sizeof name);
                csv_prefix(f, "size", img, part, name);
                fprintf(f, ",,,,%u,\n", rep.entries[k].size);
            }
            free(rep.entries);
        }
    }
    fclose(f);
}

/* ---- Check against bounds.h ---- */

typedef struct bound {
    const char *opt, *config, *function;
    uint64_t bound;
} bound_t;

#define TLSF_M4_BOUND_ENTRY(opt, config, function, bound) {opt, config, function, bound},
static const bound_t bounds[] = {TLSF_M4_BOUNDS(TLSF_M4_BOUND_ENTRY)};

/* The measured value a bound applies to; 0 if its image was not run. */
static int measured(const bound_t *bd, uint64_t *value, const char **at, char *buffer,
                    size_t size) {
    const image_t *baseline = find_baseline();
    size_t i;
    int fn;
    for (i = 0; i < image_count; ++i) {
        const image_t *img = &images[i];
        if (strcmp(img->opt, bd->opt) != 0 || strcmp(img->config, bd->config) != 0) continue;
        if (strncmp(bd->function, "size:", 5) == 0) {
            size_report_t rep;
            if (img->m.api.kind != BENCH_KIND_SIZE || baseline == NULL ||
                strcmp(size_part_name(img->m.api.part), bd->function + 5) != 0)
                continue;
            measure_size(img, baseline, &rep);
            *value = rep.total;
            free(rep.entries);
            *at = "";
            return 1;
        }
        if (img->m.api.kind != BENCH_KIND_TLSF) continue;
        for (fn = 0; fn < F_COUNT; ++fn) {
            const call_stat_t *s = &img->stats[ALL_GROUPS][fn];
            if (strcmp(fn_names[fn], bd->function) != 0 || s->calls == 0) continue;
            *value = s->max;
            where(s, buffer, size);
            *at = buffer;
            return 1;
        }
    }
    return 0;
}

static int check_bounds(void) {
    size_t i;
    int over = 0, checked = 0;
    printf("\nCheck against bounds.h\n");
    for (i = 0; i < sizeof bounds / sizeof bounds[0]; ++i) {
        const bound_t *bd = &bounds[i];
        uint64_t value;
        const char *at;
        char buffer[160];
        if (!measured(bd, &value, &at, buffer, sizeof buffer)) continue;
        checked++;
        if (value > bd->bound) {
            over = 1;
            printf("FAIL  tlsf %-3s %-9s %-22s %6llu > bound %llu  %s\n", bd->opt, bd->config,
                   bd->function, (unsigned long long)value, (unsigned long long)bd->bound, at);
        } else if (value < bd->bound) {
            printf("ok    tlsf %-3s %-9s %-22s %6llu <= bound %llu (lower the bound in bounds.h)\n",
                   bd->opt, bd->config, bd->function, (unsigned long long)value,
                   (unsigned long long)bd->bound);
        } else {
            printf("ok    tlsf %-3s %-9s %-22s %6llu == bound\n", bd->opt, bd->config, bd->function,
                   (unsigned long long)value);
        }
    }
    if (checked == 0) {
        printf("FAIL  no bound applies to the images given\n");
        return 1;
    }
    return over;
}

/* ---- Main ---- */

static void add_image(const char *path) {
    if (image_count == MAX_IMAGES) die("more than %d images", MAX_IMAGES);
    images[image_count++].path = path;
}

/* @LIST: one image path per line. The strings live until exit. */
static void add_list(const char *list) {
    FILE *f = fopen(list, "r");
    char line[4096];
    if (f == NULL) die("cannot read %s", list);
    while (fgets(line, sizeof line, f)) {
        size_t n = strcspn(line, "\r\n");
        char *copy;
        line[n] = 0;
        if (n == 0 || line[0] == '#') continue;
        copy = xcalloc(n + 1, 1);
        memcpy(copy, line, n);
        add_image(copy);
    }
    fclose(f);
}

static void usage(void) {
    fprintf(stderr, "usage: tlsf_m4_counts [--csv FILE] [--check] [--only GROUP] [--no-it-skipped] "
                    "[--trace WORKLOAD#OP] [--quiet] IMAGE.elf... | @LIST\n");
    exit(2);
}

int main(int argc, char **argv) {
    const char *csv = NULL, *only = NULL;
    int check = 0, i, status = 0;
    size_t k;
    clock_t start = clock();

    for (i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc)
            csv = argv[++i];
        else if (strcmp(argv[i], "--check") == 0)
            check = 1;
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
            only = argv[++i];
        else if (strcmp(argv[i], "--no-it-skipped") == 0)
            count_it_skipped = 0;
        else if (strcmp(argv[i], "--quiet") == 0)
            quiet = 1;
        else if (strcmp(argv[i], "--trace") == 0 && i + 1 < argc) {
            const char *hash = strrchr(argv[++i], '#');
            if (hash == NULL || (size_t)(hash - argv[i]) >= sizeof trace_workload) usage();
            snprintf(trace_workload, sizeof trace_workload, "%.*s", (int)(hash - argv[i]), argv[i]);
            trace_op = (size_t)strtoul(hash + 1, NULL, 10);
        } else if (argv[i][0] == '@')
            add_list(argv[i] + 1);
        else if (argv[i][0] == '-')
            usage();
        else
            add_image(argv[i]);
    }
    if (image_count == 0) usage();
    if (only && group_index(only) < 0) die("unknown group %s", only);
    if (check && count_it_skipped == 0) die("--check applies to the default counting only");
    paint_base = M4_RAM_BASE;
    paint_granules = M4_RAM_SIZE / 8;
    paint = xcalloc(paint_granules / 8, 1);

    for (k = 0; k < image_count; ++k) {
        const char *path = images[k].path;
        image_t *img = &images[k];
        memset(img, 0, sizeof *img);
        img->path = path;
        if (m4_open(&img->m, path, 0) != 0) die("%s: %s", path, img->m.error);
        if (img->m.api.kind == BENCH_KIND_SIZE) {
            char buffer[32];
            snprintf(img->allocator, sizeof img->allocator, "tlsf");
            snprintf(img->opt, sizeof img->opt, "%s",
                     m4_string(&img->m, img->m.api.opt, buffer, sizeof buffer));
            snprintf(img->config, sizeof img->config, "%s",
                     m4_string(&img->m, img->m.api.config, buffer, sizeof buffer));
            continue;
        }
        m4_close(&img->m);
        load_image(img, path);
        run_image(img, only);
        if (!quiet)
            fprintf(stderr, "%-18s %6.2f s, %llu instructions emulated\n", img->title, img->seconds,
                    (unsigned long long)img->m.total);
    }

    if (!quiet) {
        printf("Counting: every instruction a call issues, from its first to its return, "
               "including\ncalled helpers (memcpy, _sbrk, locks) and %s.\n",
               count_it_skipped ? "IT-block instructions whose condition fails"
                                : "NOT IT-block instructions whose condition fails");
        print_images();
        print_summary();
        print_groups();
        print_branches();
        print_sizes();
    }
    if (csv) write_csv(csv);
    if (check) status = check_bounds();
    if (!quiet) fprintf(stderr, "total %.1f s\n", (double)(clock() - start) / CLOCKS_PER_SEC);
    for (k = 0; k < image_count; ++k)
        m4_close(&images[k].m);
    return status;
}
