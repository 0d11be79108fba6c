/* SPDX-License-Identifier: MIT */
/*
 * elf32.h - a minimal reader for the 32-bit little-endian ARM ELF executables the
 * firmware build produces: loadable segments, sections by name and the symbol table.
 * Enough for the harness; not a general ELF library.
 */
#ifndef ELF32_H
#define ELF32_H

#include <stddef.h>
#include <stdint.h>

/* A PT_LOAD segment: `filesz` bytes from the file go to `paddr` (the load address; for
 * .data that is its image in flash), the rest up to `memsz` is zero. */
typedef struct elf32_segment {
    uint32_t paddr, vaddr, filesz, memsz;
    const uint8_t *data;
} elf32_segment_t;

typedef struct elf32_section {
    const char *name;
    uint32_t addr, size, type;
} elf32_section_t;

enum { ELF32_STT_OBJECT = 1, ELF32_STT_FUNC = 2 };

typedef struct elf32_symbol {
    const char *name;
    uint32_t value; /* address; bit 0 set for Thumb functions */
    uint32_t size;
    uint8_t type;   /* ELF32_STT_* */
    uint8_t global; /* binding is global or weak */
    uint16_t shndx; /* 0: undefined */
} elf32_symbol_t;

typedef struct elf32_file {
    uint8_t *bytes;
    size_t length;
    elf32_segment_t *segments;
    size_t segment_count;
    elf32_section_t *sections;
    size_t section_count;
    elf32_symbol_t *symbols;
    size_t symbol_count;
} elf32_file_t;

/* Read and parse `path`. Returns 0, or -1 with a message in `error`. */
int elf32_load(elf32_file_t *elf, const char *path, char *error, size_t error_size);
void elf32_free(elf32_file_t *elf);

/* The defined symbol called `name`, or NULL. */
const elf32_symbol_t *elf32_symbol(const elf32_file_t *elf, const char *name);
/* The function whose code holds `address`, or NULL. */
const elf32_symbol_t *elf32_function_at(const elf32_file_t *elf, uint32_t address);
/* The section called `name`, or NULL. */
const elf32_section_t *elf32_section(const elf32_file_t *elf, const char *name);

#endif /* ELF32_H */
