/* SPDX-License-Identifier: MIT */
/*
 * print_silent.c - print.h for bare-metal builds: nothing is printed, and no stdio is
 * linked. The walker that prints is still a walker: tlsf_walk_pool(pool, NULL, user)
 * visits every block and says nothing, as the core's walk with no walker would.
 */
#include "print.h"

void tlsfmc_print_block(void *ptr, size_t size, int used, void *user) {
    (void)ptr;
    (void)size;
    (void)used;
    (void)user;
}

void tlsfmc_print_misaligned(const char *call, const void *mem, size_t align) {
    (void)call;
    (void)mem;
    (void)align;
}

void tlsfmc_print_pool_size(const char *call, size_t bytes, size_t least, size_t most) {
    (void)call;
    (void)bytes;
    (void)least;
    (void)most;
}

void tlsfmc_print_no_control(size_t bytes, size_t control) {
    (void)bytes;
    (void)control;
}
