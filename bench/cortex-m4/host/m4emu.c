/* SPDX-License-Identifier: MIT */
/*
 * m4emu.c - see m4emu.h.
 */
#include "m4emu.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(m4_t *m, const char *format, ...) {
    va_list args;
    va_start(args, format);
    vsnprintf(m->error, sizeof m->error, format, args);
    va_end(args);
    return -1;
}

/* The halfword at `address` of the flash image (an instruction, or its first half). */
static uint16_t flash_halfword(const m4_t *m, uint32_t address) {
    return (uint16_t)(m->flash[address] | (m->flash[address + 1] << 8));
}

/* Thumb-2: a first halfword 0b11101..., 0b11110... or 0b11111... starts a 32-bit
 * instruction; anything else is a 16-bit one. */
static uint32_t thumb_length(uint16_t first) {
    return (first >> 11) >= 0x1Du ? 4u : 2u;
}

/* --trace: remember each instruction's address (bit 0 set: skipped by its condition). */
static void trace_add(m4_t *m, uint32_t entry) {
    if (m->trace_count == m->trace_capacity) {
        size_t capacity = m->trace_capacity ? 2 * m->trace_capacity : 1024;
        uint32_t *grown = realloc(m->trace, capacity * sizeof *grown);
        if (grown == NULL) return; /* the trace is a debugging aid: lose the tail */
        m->trace = grown;
        m->trace_capacity = capacity;
    }
    m->trace[m->trace_count++] = entry;
}

/* The instructions [from, to) of the open IT block were skipped by their condition:
 * count them (in copy_count too when they are memcpy's or memmove's). */
static void it_skip(m4_t *m, unsigned from, unsigned to) {
    unsigned k;
    for (k = from; k < to; ++k) {
        m->count++;
        m->it_skipped++;
        if ((m->it_addr[k] >= m->copy_begin[0] && m->it_addr[k] < m->copy_end[0]) ||
            (m->it_addr[k] >= m->copy_begin[1] && m->it_addr[k] < m->copy_end[1]))
            m->copy_count++;
        if (m->tracing == 1) trace_add(m, m->it_addr[k] | 1u);
    }
}

/* The hook saw the instruction at `address` while an IT block is open: the block's
 * instructions before it that the hook did not see were skipped by their condition. */
static void it_account(m4_t *m, uint32_t address) {
    unsigned k;
    for (k = m->it_next; k < m->it_count; ++k) {
        if (m->it_addr[k] == address) {
            it_skip(m, m->it_next, k);
            m->it_next = k + 1;
            if (m->it_next == m->it_count) m->it_count = 0;
            return;
        }
    }
    /* Past the block: the rest of it was skipped. */
    it_skip(m, m->it_next, m->it_count);
    m->it_count = 0;
}

/* The instruction at `address` is IT with mask bits `mask` (non-zero): note the
 * addresses of the 1-4 instructions it makes conditional. */
static void it_open(m4_t *m, uint32_t address, unsigned mask) {
    unsigned n = mask & 1u ? 4u : mask & 2u ? 3u : mask & 4u ? 2u : 1u, k;
    uint32_t at = address + 2;
    for (k = 0; k < n && at + 1 < M4_FLASH_SIZE; ++k) {
        m->it_addr[k] = at;
        at += thumb_length(flash_halfword(m, at));
    }
    m->it_count = k;
    m->it_next = 0;
}

/* UC_HOOK_CODE over all addresses: Unicorn calls it for each instruction it executes
 * (not for IT-block instructions whose condition fails: see it_account). */
static void count_instruction(uc_engine *uc, uint64_t address, uint32_t size, void *user) {
    m4_t *m = user;
    uint32_t at = (uint32_t)address;
    if (m->it_count) it_account(m, at);
    m->count++;
    if (m->tracing == 1) trace_add(m, at);
    if (size == 2 && at < M4_FLASH_SIZE - 1) {
        uint16_t insn = flash_halfword(m, at);
        if ((insn & 0xFF00u) == 0xBF00u && (insn & 0xFu) != 0) it_open(m, at, insn & 0xFu);
    }
    if (m->count > M4_CALL_LIMIT) uc_emu_stop(uc);
}

/* UC_HOOK_CODE over the address range of memcpy or memmove only. */
static void count_copy(uc_engine *uc, uint64_t address, uint32_t size, void *user) {
    m4_t *m = user;
    (void)uc;
    (void)address;
    (void)size;
    m->copy_count++;
}

int m4_read(m4_t *m, uint32_t address, void *buffer, size_t size) {
    uc_err err = uc_mem_read(m->uc, address, buffer, size);
    if (err != UC_ERR_OK)
        return fail(m, "read of %zu bytes at 0x%08x: %s", size, address, uc_strerror(err));
    return 0;
}

int m4_write(m4_t *m, uint32_t address, const void *buffer, size_t size) {
    uc_err err = uc_mem_write(m->uc, address, buffer, size);
    if (err != UC_ERR_OK)
        return fail(m, "write of %zu bytes at 0x%08x: %s", size, address, uc_strerror(err));
    return 0;
}

const char *m4_string(m4_t *m, uint32_t address, char *buffer, size_t size) {
    size_t i;
    const elf32_segment_t *seg;
    /* Read from the file's load image, so that this works without an emulator too. */
    for (i = 0; i < m->elf.segment_count; ++i) {
        seg = &m->elf.segments[i];
        if (address >= seg->paddr && address - seg->paddr < seg->filesz) {
            size_t avail = seg->filesz - (address - seg->paddr);
            size_t n = avail < size - 1 ? avail : size - 1;
            memcpy(buffer, seg->data + (address - seg->paddr), n);
            buffer[n] = 0; /* the string ends at its NUL or where the segment does */
            return buffer;
        }
    }
    snprintf(buffer, size, "?");
    return buffer;
}

/* The bench_api table, read word by word from the file's load image. */
static int read_table(m4_t *m) {
    const elf32_symbol_t *sym = elf32_symbol(&m->elf, "bench_api");
    uint32_t words[sizeof(bench_api_t) / 4];
    size_t i, k;
    if (sym == NULL) return fail(m, "no bench_api symbol: not a benchmark image");
    if (sym->size != sizeof(bench_api_t))
        return fail(m, "bench_api is %u bytes, the host expects %zu: rebuild the images", sym->size,
                    sizeof(bench_api_t));
    for (i = 0; i < m->elf.segment_count; ++i) {
        const elf32_segment_t *seg = &m->elf.segments[i];
        if (sym->value >= seg->paddr && sym->value - seg->paddr + sym->size <= seg->filesz) {
            const uint8_t *p = seg->data + (sym->value - seg->paddr);
            for (k = 0; k < sizeof words / 4; ++k)
                words[k] = (uint32_t)p[4 * k] | ((uint32_t)p[4 * k + 1] << 8) |
                           ((uint32_t)p[4 * k + 2] << 16) | ((uint32_t)p[4 * k + 3] << 24);
            memcpy(&m->api, words, sizeof words);
            if (m->api.magic != BENCH_API_MAGIC || m->api.version != BENCH_API_VERSION)
                return fail(m, "bench_api has the wrong magic or version: rebuild the images");
            return 0;
        }
    }
    return fail(m, "bench_api is not in a loaded segment");
}

int m4_open(m4_t *m, const char *path, int run) {
    const elf32_symbol_t *copy;
    uc_err err;
    uc_hook hook;
    size_t i;
    uint32_t exits_thumb[2];
    uint64_t exits[2];
    union {
        uc_cb_hookcode_t code;
        void *pointer;
    } callback;

    memset(m, 0, sizeof *m);
    if (elf32_load(&m->elf, path, m->error, sizeof m->error) != 0) return -1;
    if (read_table(m) != 0) return -1;
    if (!run) return 0;

    /* A Cortex-M4: Thumb only, M-profile exception model. */
    err = uc_open(UC_ARCH_ARM, UC_MODE_THUMB | UC_MODE_MCLASS, &m->uc);
    if (err == UC_ERR_OK) err = uc_ctl_set_cpu_model(m->uc, UC_CPU_ARM_CORTEX_M4);
    if (err == UC_ERR_OK) err = uc_mem_map(m->uc, M4_FLASH_BASE, M4_FLASH_SIZE, UC_PROT_ALL);
    if (err == UC_ERR_OK) err = uc_mem_map(m->uc, M4_RAM_BASE, M4_RAM_SIZE, UC_PROT_ALL);
    if (err != UC_ERR_OK) return fail(m, "unicorn: %s", uc_strerror(err));

    /* Each loadable segment at its load address: .data's initial values go to flash,
     * where Reset_Handler copies them from. The host keeps its own copy of the flash. */
    m->flash = calloc(M4_FLASH_SIZE, 1);
    if (m->flash == NULL) return fail(m, "out of memory");
    for (i = 0; i < m->elf.segment_count; ++i) {
        const elf32_segment_t *seg = &m->elf.segments[i];
        if (seg->filesz == 0) continue;
        if (m4_write(m, seg->paddr, seg->data, seg->filesz) != 0)
            return fail(m, "%s: segment at 0x%08x does not fit the memory map", path, seg->paddr);
        if (seg->paddr >= M4_FLASH_BASE + M4_FLASH_SIZE ||
            seg->filesz > M4_FLASH_BASE + M4_FLASH_SIZE - seg->paddr)
            return fail(m, "%s: segment at 0x%08x is not in flash", path, seg->paddr);
        memcpy(m->flash + (seg->paddr - M4_FLASH_BASE), seg->data, seg->filesz);
    }

    /* Count every instruction; those of memcpy and memmove also on their own.
     * (uc_hook_add takes the callback as void *; the union converts without the cast ISO
     * C frowns on.) */
    callback.code = count_instruction;
    err = uc_hook_add(m->uc, &hook, UC_HOOK_CODE, callback.pointer, m, 1, 0);
    if (err != UC_ERR_OK) return fail(m, "unicorn hook: %s", uc_strerror(err));
    for (i = 0; i < 2; ++i) {
        const char *name = i == 0 ? "memcpy" : "memmove";
        copy = elf32_symbol(&m->elf, name);
        if (copy == NULL || copy->type != ELF32_STT_FUNC) continue;
        if (copy->size == 0) return fail(m, "%s: %s has no size in the symbol table", path, name);
        m->copy_begin[i] = copy->value & ~1u;
        m->copy_end[i] = m->copy_begin[i] + copy->size;
        callback.code = count_copy;
        err = uc_hook_add(m->uc, &hook, UC_HOOK_CODE, callback.pointer, m, m->copy_begin[i],
                          m->copy_end[i] - 1);
        if (err != UC_ERR_OK) return fail(m, "unicorn hook: %s", uc_strerror(err));
    }

    /* Stop when the pc reaches bench_trap (a call returned) or bench_panic. */
    exits_thumb[0] = m->api.trap;
    exits_thumb[1] = m->api.panic;
    for (i = 0; i < 2; ++i)
        exits[i] = exits_thumb[i] & ~1u;
    err = uc_ctl_exits_enable(m->uc);
    if (err == UC_ERR_OK) err = uc_ctl_set_exits(m->uc, exits, 2);
    if (err != UC_ERR_OK) return fail(m, "unicorn exits: %s", uc_strerror(err));

    return m4_reset(m);
}

void m4_close(m4_t *m) {
    if (m->uc) uc_close(m->uc);
    free(m->flash);
    free(m->trace);
    elf32_free(&m->elf);
    memset(m, 0, sizeof *m);
}

int m4_reset(m4_t *m) {
    m4_result_t result;
    if (m4_call(m, m->api.reset, 0, NULL, &result) != 0) {
        char reason[sizeof m->error];
        snprintf(reason, sizeof reason, "%s", m->error);
        return fail(m, "Reset_Handler: %s", reason);
    }
    return 0;
}

int m4_call(m4_t *m, uint32_t fn, unsigned argc, const uint32_t *argv, m4_result_t *result) {
    static const int arg_regs[4] = {UC_ARM_REG_R0, UC_ARM_REG_R1, UC_ARM_REG_R2, UC_ARM_REG_R3};
    uint32_t sp = m->api.stack_top, lr = m->api.trap | 1u, zero = 0, pc = 0, r0 = 0;
    unsigned i;
    uc_err err;

    memset(result, 0, sizeof *result);
    if (fn == 0) return fail(m, "call of a function the image does not have");
    if (argc > 4) return fail(m, "m4_call takes at most four arguments");
    for (i = 0; i < 4; ++i)
        uc_reg_write(m->uc, arg_regs[i], i < argc ? &argv[i] : &zero);
    uc_reg_write(m->uc, UC_ARM_REG_SP, &sp);
    uc_reg_write(m->uc, UC_ARM_REG_LR, &lr);

    m->count = 0;
    m->copy_count = 0;
    m->it_skipped = 0;
    m->it_count = 0;
    if (m->tracing == 1) m->trace_count = 0;
    err = uc_emu_start(m->uc, fn | 1u, 0, 0, 0); /* `until` is replaced by the exits */
    if (m->it_count) it_account(m, 0);           /* cannot happen: the return is a branch */
    if (m->tracing == 1) m->tracing = 2;         /* one call only */
    m->total += m->count;
    uc_reg_read(m->uc, UC_ARM_REG_PC, &pc);
    uc_reg_read(m->uc, UC_ARM_REG_R0, &r0);
    if (err != UC_ERR_OK)
        return fail(m, "emulation stopped at pc 0x%08x: %s", pc, uc_strerror(err));
    if (m->count > M4_CALL_LIMIT)
        return fail(m, "runaway call: more than %u instructions, pc 0x%08x", M4_CALL_LIMIT, pc);
    if ((pc & ~1u) == (m->api.panic & ~1u))
        return fail(m, "bench_panic(%u) (%s)", r0,
                    r0 == BENCH_PANIC_SBRK    ? "_sbrk called in a TLSF image"
                    : r0 == BENCH_PANIC_FAULT ? "fault or unexpected exception"
                                              : "unknown code");
    if ((pc & ~1u) != (m->api.trap & ~1u))
        return fail(m, "emulation stopped at pc 0x%08x, not at bench_trap", pc);
    result->r0 = r0;
    result->insns = m->count;
    result->copy_insns = m->copy_count;
    result->it_skipped = m->it_skipped;
    return 0;
}

int m4_calibrate(m4_t *m) {
    /* function, argument, expected count */
    const struct {
        const char *name;
        uint32_t fn, arg, expect;
    } cases[] = {
        {"calib_straight (IT condition true)", m->api.calib_straight, 0, 6},
        {"calib_straight (IT condition false)", m->api.calib_straight, 7, 6},
        {"calib_loop(1)", m->api.calib_loop, 1, 3},
        {"calib_loop(1000)", m->api.calib_loop, 1000, 2001},
        {"calib_call", m->api.calib_call, 0, 9},
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        m4_result_t result;
        if (m4_call(m, cases[i].fn, 1, &cases[i].arg, &result) != 0) return -1;
        if (result.insns != cases[i].expect)
            return fail(m, "calibration %s: counted %llu instructions, expected %u", cases[i].name,
                        (unsigned long long)result.insns, cases[i].expect);
    }
    return 0;
}
