/* SPDX-License-Identifier: MIT */
/*
 * print.h - what the layer prints where mattconte's tlsf.c printed: the default walker's
 * line per block, and why a heap or a pool was refused.
 *
 * Two builds, one chosen by CMake (TLSF_MATTCONTE_PRINT): print_stdio.c prints on stdout
 * with printf, as mattconte does (hosted targets); print_silent.c prints nothing, so that
 * a bare-metal build needs no stdio. The core itself never prints.
 */
#ifndef TLSF_MATTCONTE_PRINT_H
#define TLSF_MATTCONTE_PRINT_H

#include <stddef.h>

/* The walker tlsf_walk_pool uses when given none: one line per block, in mattconte's
 * format (tab, pointer, "used" or "free", "size:" and the usable size in hex, and in
 * parentheses the block's start, its header's size before the pointer). `user` is
 * ignored. */
void tlsfmc_print_block(void *ptr, size_t size, int used, void *user);

/* `call` refused `mem`, which is not a multiple of `align`. */
void tlsfmc_print_misaligned(const char *call, const void *mem, size_t align);

/* `call` could not make a pool of `bytes` bytes: a pool holds `least` to `most`. */
void tlsfmc_print_pool_size(const char *call, size_t bytes, size_t least, size_t most);

/* tlsf_create_with_pool's `bytes` do not hold the control structure (`control` bytes). */
void tlsfmc_print_no_control(size_t bytes, size_t control);

#endif /* TLSF_MATTCONTE_PRINT_H */
