/*
 * SPDX-License-Identifier: MIT
 *
 * syscalls.h - the board services of the example firmware (syscalls.c): a console on
 * UART0 and the end of the program.
 */
#ifndef SYSCALLS_H
#define SYSCALLS_H

#ifdef __cplusplus
extern "C" {
#endif

/* Enable UART0's transmitter. Called by Reset_Handler before anything prints. */
void firmware_uart_init(void);

/* End the program with `status` (QEMU exits with it, through semihosting). */
__attribute__((noreturn)) void firmware_exit(int status);

/* Print `what` on UART0 without the C library (any context, even a fault), then end the
 * program with `status`. */
__attribute__((noreturn)) void firmware_panic(const char *what, int status);

/* configASSERT's target (FreeRTOSConfig.h). */
void firmware_assert_failed(const char *file, int line);

#ifdef __cplusplus
}
#endif

#endif /* SYSCALLS_H */
