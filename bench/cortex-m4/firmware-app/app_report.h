/* SPDX-License-Identifier: MIT */
/*
 * app_report.h - what the application images tell the host (host/m4app.c).
 *
 * The firmware fills the object `app_report` (in RAM) and writes its stdout into
 * `app_out`; the host finds both by name in the ELF symbol table and reads them after the
 * image has run to bench_trap. The host also snapshots its instruction counter whenever the
 * pc enters app_mark_begin / app_mark_end (see app_marks.c): the measured section.
 * Every field is a 32-bit word, so the layout is the same on both sides.
 */
#ifndef APP_REPORT_H
#define APP_REPORT_H

#include <stdint.h>

#define APP_REPORT_MAGIC 0x41505031u /* "APP1" */
#define APP_AGE_LEVELS 12            /* fragmentation levels of the heap-age run */

/* One step of the demo: the TLSF statistics before and after it. */
typedef struct app_step {
    uint32_t alloc_delta; /* tlsf alloc_count after - before */
    uint32_t free_delta;  /* tlsf free_count after - before */
    uint32_t ok;          /* the step's own check passed (1) */
    uint32_t in_heap;     /* the pointer(s) it produced lie in __heap_start..__heap_end */
} app_step_t;

enum {
    APP_STEP_PRINTF,
    APP_STEP_STRDUP,
    APP_STEP_MAP,
    APP_STEP_EXCEPTION,
    APP_STEP_CALLOC,
    APP_STEP_COUNT
};

typedef struct app_report {
    uint32_t magic;
    uint32_t kind; /* 1: demo, 2: perft */
    uint32_t done; /* main reached its end */
    /* demo */
    uint32_t allocs_before_main; /* alloc_count when main starts (libstdc++'s EH pool) */
    uint32_t retarget_calls;     /* calls of the malloc family (C side) */
    uint32_t lock_calls;         /* times the heap's lock was taken (TLSF_LOCK_INTERRUPTS:
                                    probes inside the lock that saw interrupts masked) */
    uint32_t lock_depth;         /* must be 0 at the end */
    uint32_t heap_check;         /* tlsf_check of the default heap: 1 if clean */
    uint32_t live_blocks_end;    /* blocks still allocated at the end */
    app_step_t steps[APP_STEP_COUNT];
    /* perft */
    uint32_t perft_depth;
    uint32_t perft_lo, perft_hi; /* the node count */
    uint32_t perft_allocs;       /* TLSF image: alloc_count delta over perft; else 0 */
    uint32_t tt_mode;            /* the table mode that ran: 0 bounded, 1 everything */
    uint32_t tt_capacity;        /* its capacity (entries) */
    uint32_t tt_entries;         /* entries at the end of the search */
    uint32_t tt_refused;         /* stores the capacity guard refused (everything mode) */
    /* heap age (app_age.cpp): per level, measured between a pair of marks */
    uint32_t age_levels;                      /* levels run */
    uint32_t age_free_blocks[APP_AGE_LEVELS]; /* the heap's free blocks at the level */
    uint32_t age_live_blocks[APP_AGE_LEVELS]; /* the program's live blocks at the level */
    uint32_t age_count_ok;                    /* the free-block count could be taken */
} app_report_t;

/* What the host asks for: the image holds defaults in flash (`app_request`, read-only
 * data) and the host overwrites them in its copy of the flash before the run, so that one
 * image serves every depth and mode. A field left 0 keeps the image's default. */
#define APP_REQUEST_MAGIC 0x52505041u /* "APPR" */
typedef struct app_request {
    uint32_t magic;
    uint32_t perft_depth; /* 0: the image's default (3) */
    uint32_t tt_mode;     /* 0 bounded, 1 everything */
    uint32_t tt_capacity; /* 0: the mode's default for an 8 MiB heap */
} app_request_t;

#ifdef __cplusplus
extern "C" {
#endif
#ifdef BENCH_TARGET
extern volatile app_report_t app_report;
extern const app_request_t app_request;
void app_mark_begin(void);
void app_mark_end(void);
void app_mark_split(void); /* a point inside the measured section (app_chess.cpp) */
#endif
#ifdef __cplusplus
}
#endif

#endif /* APP_REPORT_H */
