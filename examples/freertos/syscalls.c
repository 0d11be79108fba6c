/*
 * SPDX-License-Identifier: MIT
 *
 * syscalls.c - what the C library and libstdc++ need from the board, and nothing more
 * (docs/firmware.md, "Symbols a firmware provides"). Linked with -nostartfiles and no
 * system-call library (no nosys.specs), so a missing piece is a link error, never a stub
 * that hides a second heap:
 *
 *   _write, _read, _close, _fstat, _isatty, _lseek   newlib's stdio (printf): stdout and
 *                                                   stderr go to UART0, there are no files
 *   abort                                           libstdc++'s error paths; newlib's own
 *                                                   abort would raise a signal, whose table
 *                                                   newlib allocates with its own malloc
 *   __dso_handle                                    crtbegin.o's: static objects with a
 *                                                   destructor register under it - here
 *                                                   libstdc++'s std::pmr objects (tlsf's
 *                                                   default heap registers none)
 *
 * malloc and its family are tlsf::freertos_newlib's (ports/freertos/newlib_malloc.c): the
 * FreeRTOS heap. _sbrk is deliberately absent - nothing may grow newlib's heap.
 *
 * UART0 is an Arm CMSDK APB UART at 0x40004000 (QEMU connects it to its terminal with
 * -nographic). The program ends through Arm semihosting (QEMU: -semihosting).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "syscalls.h"

typedef struct cmsdk_uart {
    volatile uint32_t data;  /* write: the byte to send */
    volatile uint32_t state; /* bit 0: transmit buffer full */
    volatile uint32_t ctrl;  /* bit 0: transmitter enabled */
    volatile uint32_t intstatus;
    volatile uint32_t bauddiv; /* clock / baud rate; at least 16 */
} cmsdk_uart_t;

#define UART0 ((cmsdk_uart_t *)0x40004000u)

void firmware_uart_init(void) {
    UART0->bauddiv = 16u; /* 25 MHz / 16: QEMU ignores the rate but wants a valid one */
    UART0->ctrl = 1u;
}

static void uart_putc(char c) {
    while (UART0->state & 1u) {
    }
    UART0->data = (uint8_t)c;
}

static void uart_puts(const char *text) {
    while (*text != '\0')
        uart_putc(*text++);
}

void firmware_exit(int status) {
    /* Semihosting SYS_EXIT_EXTENDED: "the application exited", with its status. */
    const uint32_t block[2] = {0x20026u, (uint32_t)status};
    register uint32_t r0 __asm("r0") = 0x20u;
    register const void *r1 __asm("r1") = block;
    __asm volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    for (;;) { /* no debugger: stay here */
    }
}

void firmware_panic(const char *what, int status) {
    uart_puts("\nfirmware: ");
    uart_puts(what);
    uart_puts("\n");
    firmware_exit(status);
}

void firmware_assert_failed(const char *file, int line) {
    char digits[12];
    int n = 0;
    uart_puts("\nfirmware: configASSERT failed at ");
    uart_puts(file);
    uart_putc(':');
    do {
        digits[n++] = (char)('0' + line % 10);
        line /= 10;
    } while (line > 0 && n < (int)sizeof digits);
    while (n > 0)
        uart_putc(digits[--n]);
    firmware_panic("stopped", 4);
}

void abort(void) {
    firmware_panic("abort", 134);
}

void *__dso_handle = &__dso_handle;

int _write(int fd, const char *buffer, int length);
int _read(int fd, char *buffer, int length);
int _close(int fd);
int _fstat(int fd, struct stat *st);
int _isatty(int fd);
int _lseek(int fd, int offset, int whence);

int _write(int fd, const char *buffer, int length) {
    int i;
    if (fd != 1 && fd != 2) {
        errno = EBADF;
        return -1;
    }
    for (i = 0; i < length; ++i)
        uart_putc(buffer[i]);
    return length;
}

int _read(int fd, char *buffer, int length) {
    (void)fd;
    (void)buffer;
    (void)length;
    return 0; /* end of file: no input */
}

int _close(int fd) {
    (void)fd;
    errno = EBADF;
    return -1;
}

int _fstat(int fd, struct stat *st) {
    (void)fd;
    st->st_mode = S_IFCHR; /* a terminal: stdio buffers it by lines */
    return 0;
}

int _isatty(int fd) {
    return fd >= 0 && fd <= 2;
}

int _lseek(int fd, int offset, int whence) {
    (void)fd;
    (void)offset;
    (void)whence;
    errno = ESPIPE;
    return -1;
}
