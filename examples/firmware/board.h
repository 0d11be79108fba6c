/*
 * SPDX-License-Identifier: MIT
 *
 * board.h - the two things this firmware needs from the mps2-an386 board: a serial
 * console (UART0) and a way to end the program with an exit status (semihosting, which
 * QEMU answers when started with -semihosting; on real hardware a debugger does).
 */
#ifndef BOARD_H
#define BOARD_H

#ifdef __cplusplus
extern "C" {
#endif

/* Enable UART0's transmitter. Called by Reset_Handler before anything prints. */
void board_uart_init(void);

/* Send one byte on UART0, waiting while its transmit buffer is full. */
void board_uart_putc(char c);

/* End the program: report `status` to the debugger or QEMU (QEMU exits with it). Does
 * not return; without a debugger attached it stops in a breakpoint loop. */
__attribute__((noreturn)) void board_exit(int status);

#ifdef __cplusplus
}
#endif

#endif /* BOARD_H */
