/*
 * SPDX-License-Identifier: MIT
 *
 * semihosting.h - the two Arm semihosting calls the test firmware needs: write a string
 * to the host's stdout and end the run with a status (QEMU: -semihosting-config
 * enable=on,target=native). A semihosting call is `bkpt 0xab` with the operation in r0
 * and its argument in r1.
 */
#ifndef TEST_SEMIHOSTING_H
#define TEST_SEMIHOSTING_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { SEMIHOSTING_SYS_WRITE0 = 0x04, SEMIHOSTING_SYS_EXIT = 0x18 };
/* SYS_EXIT reasons: QEMU exits with status 0 for the first, 1 for any other. */
enum { SEMIHOSTING_EXIT_SUCCESS = 0x20026, SEMIHOSTING_EXIT_FAILURE = 0x20023 };

static inline uint32_t semihosting_call(uint32_t operation, const void *argument) {
    register uint32_t r0 __asm__("r0") = operation;
    register const void *r1 __asm__("r1") = argument;
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

/* Writes a NUL-terminated string to the host's stdout. */
static inline void semihosting_write(const char *text) {
    (void)semihosting_call(SEMIHOSTING_SYS_WRITE0, text);
}

/* Ends the emulation: QEMU exits 0 when `success`, 1 otherwise. */
__attribute__((noreturn)) static inline void semihosting_exit(int success) {
    const uintptr_t reason = success ? SEMIHOSTING_EXIT_SUCCESS : SEMIHOSTING_EXIT_FAILURE;
    (void)semihosting_call(SEMIHOSTING_SYS_EXIT, (const void *)reason);
    for (;;) {
    }
}

#ifdef __cplusplus
}
#endif

#endif /* TEST_SEMIHOSTING_H */
