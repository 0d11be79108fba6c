/* SPDX-License-Identifier: MIT */
/*
 * print_stdio.c - print.h on stdout, for hosted builds (and bare-metal ones built with
 * TLSF_MATTCONTE_PRINT, whose C library has printf).
 */
#include <stdio.h>

#include "core_calls.h"
#include "print.h"

void tlsfmc_print_block(void *ptr, size_t size, int used, void *user) {
    (void)user;
    /* mattconte's line, field for field: the size as a 32-bit hex number. */
    printf("\t%p %s size: %x (%p)\n", ptr, used ? "used" : "free", (unsigned)size,
           (void *)((char *)ptr - CORE_HEADER_BYTES));
}

void tlsfmc_print_misaligned(const char *call, const void *mem, size_t align) {
    printf("%s: memory at %p must be aligned to %zu bytes.\n", call, mem, align);
}

void tlsfmc_print_pool_size(const char *call, size_t bytes, size_t least, size_t most) {
    printf("%s: a pool of %zu bytes is refused: it must hold %zu to %zu bytes.\n", call, bytes,
           least, most);
}

void tlsfmc_print_no_control(size_t bytes, size_t control) {
    printf("tlsf_create_with_pool: %zu bytes do not hold the control structure (%zu).\n", bytes,
           control);
}
