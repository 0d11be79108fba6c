/* SPDX-License-Identifier: MIT */
/*
 * elf32.c - see elf32.h. Every offset and count read from the file is checked against
 * the file's length before use, so a truncated or foreign file is an error, not a crash.
 */
#include "elf32.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { EHDR_SIZE = 52, PT_LOAD = 1, SHT_SYMTAB = 2, EM_ARM = 40 };

static uint16_t get16(const uint8_t *p) {
    return (uint16_t)(p[0] | (p[1] << 8));
}
static uint32_t get32(const uint8_t *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static int fail(char *error, size_t error_size, const char *format, ...) {
    va_list args;
    va_start(args, format);
    vsnprintf(error, error_size, format, args);
    va_end(args);
    return -1;
}

/* Is [offset, offset + count * entry) inside the file? */
static int in_file(const elf32_file_t *elf, uint32_t offset, uint32_t count, uint32_t entry) {
    uint64_t end = (uint64_t)offset + (uint64_t)count * entry;
    return end <= elf->length;
}

/* The NUL-terminated string at `offset` of the string table section `strtab`. */
static const char *string_at(const elf32_file_t *elf, uint32_t strtab_offset, uint32_t strtab_size,
                             uint32_t offset) {
    const char *start;
    if (offset >= strtab_size) return "";
    start = (const char *)elf->bytes + strtab_offset + offset;
    if (memchr(start, 0, strtab_size - offset) == NULL) return "";
    return start;
}

static int parse(elf32_file_t *elf, char *error, size_t error_size) {
    const uint8_t *h = elf->bytes;
    uint32_t phoff, shoff, phentsize, phnum, shentsize, shnum, shstrndx, i;
    uint32_t shstr_offset, shstr_size;

    if (elf->length < EHDR_SIZE || memcmp(h, "\177ELF", 4) != 0)
        return fail(error, error_size, "not an ELF file");
    if (h[4] != 1 || h[5] != 1) return fail(error, error_size, "not a 32-bit little-endian ELF");
    if (get16(h + 18) != EM_ARM) return fail(error, error_size, "not an ARM ELF");
    phoff = get32(h + 28);
    shoff = get32(h + 32);
    phentsize = get16(h + 42);
    phnum = get16(h + 44);
    shentsize = get16(h + 46);
    shnum = get16(h + 48);
    shstrndx = get16(h + 50);
    if (phentsize < 32 || !in_file(elf, phoff, phnum, phentsize) || shentsize < 40 ||
        !in_file(elf, shoff, shnum, shentsize) || shstrndx >= shnum)
        return fail(error, error_size, "corrupt ELF header");

    /* Loadable segments. */
    elf->segments = calloc(phnum ? phnum : 1, sizeof *elf->segments);
    if (elf->segments == NULL) return fail(error, error_size, "out of memory");
    for (i = 0; i < phnum; ++i) {
        const uint8_t *p = h + phoff + i * phentsize;
        elf32_segment_t *seg;
        if (get32(p) != PT_LOAD) continue;
        seg = &elf->segments[elf->segment_count++];
        seg->vaddr = get32(p + 8);
        seg->paddr = get32(p + 12);
        seg->filesz = get32(p + 16);
        seg->memsz = get32(p + 20);
        if (!in_file(elf, get32(p + 4), seg->filesz, 1))
            return fail(error, error_size, "segment %u outside the file", i);
        seg->data = h + get32(p + 4);
    }

    /* Sections, named through the section header string table. */
    {
        const uint8_t *s = h + shoff + shstrndx * shentsize;
        shstr_offset = get32(s + 16);
        shstr_size = get32(s + 20);
        if (!in_file(elf, shstr_offset, shstr_size, 1))
            return fail(error, error_size, "corrupt section name table");
    }
    elf->sections = calloc(shnum ? shnum : 1, sizeof *elf->sections);
    if (elf->sections == NULL) return fail(error, error_size, "out of memory");
    elf->section_count = shnum;
    for (i = 0; i < shnum; ++i) {
        const uint8_t *s = h + shoff + i * shentsize;
        elf->sections[i].name = string_at(elf, shstr_offset, shstr_size, get32(s));
        elf->sections[i].type = get32(s + 4);
        elf->sections[i].addr = get32(s + 12);
        elf->sections[i].size = get32(s + 20);
    }

    /* The symbol table and its string table (named by the symtab's sh_link). */
    for (i = 0; i < shnum; ++i) {
        const uint8_t *s = h + shoff + i * shentsize;
        const uint8_t *link;
        uint32_t offset, size, entsize, count, strtab_offset, strtab_size, k;
        if (get32(s + 4) != SHT_SYMTAB) continue;
        offset = get32(s + 16);
        size = get32(s + 20);
        entsize = get32(s + 36);
        if (entsize < 16 || get32(s + 24) >= shnum)
            return fail(error, error_size, "corrupt symbol table");
        count = size / entsize;
        link = h + shoff + get32(s + 24) * shentsize;
        strtab_offset = get32(link + 16);
        strtab_size = get32(link + 20);
        if (!in_file(elf, offset, count, entsize) || !in_file(elf, strtab_offset, strtab_size, 1))
            return fail(error, error_size, "symbol table outside the file");
        elf->symbols = calloc(count ? count : 1, sizeof *elf->symbols);
        if (elf->symbols == NULL) return fail(error, error_size, "out of memory");
        for (k = 0; k < count; ++k) {
            const uint8_t *e = h + offset + k * entsize;
            elf32_symbol_t *sym = &elf->symbols[elf->symbol_count++];
            sym->name = string_at(elf, strtab_offset, strtab_size, get32(e));
            sym->value = get32(e + 4);
            sym->size = get32(e + 8);
            sym->type = (uint8_t)(e[12] & 0xF);
            sym->global = (uint8_t)((e[12] >> 4) != 0);
            sym->shndx = get16(e + 14);
        }
        break;
    }
    if (elf->symbols == NULL) return fail(error, error_size, "no symbol table (stripped?)");
    return 0;
}

int elf32_load(elf32_file_t *elf, const char *path, char *error, size_t error_size) {
    FILE *file;
    long length;
    memset(elf, 0, sizeof *elf);
    file = fopen(path, "rb");
    if (file == NULL) return fail(error, error_size, "%s: cannot open", path);
    if (fseek(file, 0, SEEK_END) != 0 || (length = ftell(file)) < 0 ||
        fseek(file, 0, SEEK_SET) != 0) {
        fclose(file);
        return fail(error, error_size, "%s: cannot read", path);
    }
    elf->length = (size_t)length;
    elf->bytes = malloc(elf->length ? elf->length : 1);
    if (elf->bytes == NULL || fread(elf->bytes, 1, elf->length, file) != elf->length) {
        fclose(file);
        elf32_free(elf);
        return fail(error, error_size, "%s: cannot read", path);
    }
    fclose(file);
    if (parse(elf, error, error_size) != 0) {
        char reason[200];
        snprintf(reason, sizeof reason, "%s", error);
        elf32_free(elf);
        return fail(error, error_size, "%s: %s", path, reason);
    }
    return 0;
}

void elf32_free(elf32_file_t *elf) {
    free(elf->bytes);
    free(elf->segments);
    free(elf->sections);
    free(elf->symbols);
    memset(elf, 0, sizeof *elf);
}

const elf32_symbol_t *elf32_symbol(const elf32_file_t *elf, const char *name) {
    size_t i;
    for (i = 0; i < elf->symbol_count; ++i)
        if (elf->symbols[i].shndx != 0 && strcmp(elf->symbols[i].name, name) == 0)
            return &elf->symbols[i];
    return NULL;
}

const elf32_symbol_t *elf32_function_at(const elf32_file_t *elf, uint32_t address) {
    size_t i;
    for (i = 0; i < elf->symbol_count; ++i) {
        const elf32_symbol_t *sym = &elf->symbols[i];
        uint32_t start = sym->value & ~1u;
        if (sym->type == ELF32_STT_FUNC && sym->shndx != 0 && address >= start &&
            address - start < sym->size)
            return sym;
    }
    return NULL;
}

const elf32_section_t *elf32_section(const elf32_file_t *elf, const char *name) {
    size_t i;
    for (i = 0; i < elf->section_count; ++i)
        if (strcmp(elf->sections[i].name, name) == 0) return &elf->sections[i];
    return NULL;
}
