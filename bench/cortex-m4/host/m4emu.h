/* SPDX-License-Identifier: MIT */
/*
 * m4emu.h - run functions of a Cortex-M4 firmware image in Unicorn and count the
 * instructions each call executes.
 *
 * m4_open loads the ELF (code and .data's initial image in flash, RAM mapped for the
 * rest), reads the image's bench_api table and runs Reset_Handler. m4_call then calls one
 * function the way a C caller would: arguments in r0-r3, sp at the top of the stack, lr
 * at bench_trap, and runs until the pc reaches bench_trap (or bench_panic). Every
 * instruction executed on the way is counted by a UC_HOOK_CODE hook, including the ones
 * in whatever the function calls (memcpy, __aeabi_* helpers, _sbrk, ...); those inside
 * memcpy and memmove (full newlib's realloc copies with memmove) are also counted on
 * their own, so that a realloc can be reported without its copy. The trap itself is never
 * executed, so a count covers the call and nothing else: from its first instruction to
 * its return.
 *
 * What counts as an instruction: every instruction the core issues, including a
 * conditional instruction of an IT block whose condition fails (the Cortex-M4 executes it
 * as a NOP, in a cycle, just as it spends one on a conditional branch not taken). Unicorn
 * does not call the code hook for those, so the hook finds them itself: when it sees an
 * IT instruction it notes the addresses of the block's 1-4 instructions, and any of them
 * the hook does not see is added as skipped (m4_result_t.it_skipped). A caller that wants
 * only the instructions that passed their condition subtracts that number.
 */
#ifndef M4EMU_H
#define M4EMU_H

#include <stddef.h>
#include <stdint.h>

#include <unicorn/unicorn.h>

#include "bench_api.h"
#include "elf32.h"

/* The memory map of firmware/m4.ld. */
#define M4_FLASH_BASE 0x00000000u
#define M4_FLASH_SIZE 0x00100000u /* 1 MiB */
#define M4_RAM_BASE 0x20000000u
#define M4_RAM_SIZE 0x20000000u /* 512 MiB, allocated by the host only where touched */

/* A call that runs longer than this is taken to be stuck. */
#define M4_CALL_LIMIT 50000000u

typedef struct m4 {
    uc_engine *uc;
    uint8_t *flash; /* a copy of the flash image, to decode IT instructions */
    elf32_file_t elf;
    bench_api_t api;        /* the image's table, addresses as seen by the target */
    uint32_t copy_begin[2]; /* [begin, end): the code of memcpy and memmove, or 0, 0 */
    uint32_t copy_end[2];
    uint64_t count;      /* instructions executed by the current call */
    uint64_t copy_count; /* of which inside memcpy or memmove */
    uint64_t it_skipped; /* of which IT-block instructions whose condition failed */
    uint32_t it_addr[4]; /* the open IT block: addresses of its instructions */
    unsigned it_count;   /* how many; 0 when no IT block is open */
    unsigned it_next;    /* index of the first one not seen yet */
    uint64_t total;      /* instructions executed since m4_open, all calls */
    int tracing;         /* 1: record the next call's instructions (then it becomes 2) */
    uint32_t *trace;     /* their addresses, bit 0 set where skipped by an IT condition */
    size_t trace_count, trace_capacity;
    char error[512]; /* why the last failing function failed */
} m4_t;

typedef struct m4_result {
    uint32_t r0;         /* the return value */
    uint64_t insns;      /* instructions the call executed */
    uint64_t copy_insns; /* of which inside memcpy or memmove */
    uint64_t it_skipped; /* of which skipped by their IT condition (see above) */
} m4_result_t;

/* Load `path`. With `run` == 0 only the ELF and its table are read (code-size probes);
 * otherwise the emulator is set up and Reset_Handler has run. Returns 0 or -1
 * (message in m->error; m4_close is still needed). */
int m4_open(m4_t *m, const char *path, int run);
void m4_close(m4_t *m);

/* Run Reset_Handler again: .data and .bss back to their initial state. */
int m4_reset(m4_t *m);

/* Call the Thumb function at `fn` with up to four word arguments. Returns 0, or -1 if the
 * call did not return to bench_trap (panic, fault, runaway; message in m->error). */
int m4_call(m4_t *m, uint32_t fn, unsigned argc, const uint32_t *argv, m4_result_t *result);

/* Check the instruction counter against the calibration functions (see bench_asm.S). */
int m4_calibrate(m4_t *m);

int m4_read(m4_t *m, uint32_t address, void *buffer, size_t size);
int m4_write(m4_t *m, uint32_t address, const void *buffer, size_t size);

/* A NUL-terminated string of the image (the labels in the table), or "?". */
const char *m4_string(m4_t *m, uint32_t address, char *buffer, size_t size);

#endif /* M4EMU_H */
