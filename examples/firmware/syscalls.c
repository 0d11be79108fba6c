/*
 * SPDX-License-Identifier: MIT
 *
 * syscalls.c - the system calls newlib needs on this board, without an operating system.
 *
 * stdout and stderr go to UART0; there are no files. _exit ends the program through
 * board_exit. _sbrk, newlib's way to grow its own heap, must never run: every allocation
 * goes to TLSF (newlib_heap.cpp), so a call means something bypassed it - stop loudly.
 */
#include <errno.h>
#include <stddef.h>
#include <sys/stat.h>

#include "board.h"

#define EXIT_SBRK_CALLED 125 /* the status that says "newlib's heap was used" */

int _write(int fd, const char *buffer, int length);
int _read(int fd, char *buffer, int length);
int _close(int fd);
int _fstat(int fd, struct stat *st);
int _isatty(int fd);
int _lseek(int fd, int offset, int whence);
void _exit(int status);
int _kill(int pid, int signal);
int _getpid(void);
void *_sbrk(ptrdiff_t increment);

int _write(int fd, const char *buffer, int length) {
    int i;
    if (fd != 1 && fd != 2) {
        errno = EBADF;
        return -1;
    }
    for (i = 0; i < length; ++i)
        board_uart_putc(buffer[i]);
    return length;
}

int _read(int fd, char *buffer, int length) {
    (void)fd;
    (void)buffer;
    (void)length;
    return 0; /* end of file: no input on this board */
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

void _exit(int status) {
    board_exit(status);
}

int _kill(int pid, int signal) {
    (void)pid;
    (void)signal;
    errno = EINVAL;
    return -1;
}

int _getpid(void) {
    return 1;
}

void *_sbrk(ptrdiff_t increment) {
    static const char text[] = "\nfirmware: _sbrk called: something used newlib's heap\n";
    const char *c;
    (void)increment;
    for (c = text; *c; ++c)
        board_uart_putc(*c);
    board_exit(EXIT_SBRK_CALLED);
}
