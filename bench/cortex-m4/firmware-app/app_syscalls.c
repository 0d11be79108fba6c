/* SPDX-License-Identifier: MIT */
/*
 * app_syscalls.c - the newlib system calls of the application images, no semihosting.
 *
 * _write    stdout and stderr go to app_out[], which the host reads after the run;
 * the rest  what newlib's stdio and abort need, doing nothing.
 * _sbrk is the harness's (../firmware/syscalls.c): with BENCH_SBRK_SERVES=1 (the newlib
 * images) it serves the arena past the stack; with 0 (the TLSF images) it is a trap, so
 * that anything still reaching newlib's own heap stops in bench_panic(BENCH_PANIC_SBRK),
 * which the host reports as a failure.
 * Also the report object and the two marks the host watches (app_report.h).
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "app_report.h"
#include "bench_api.h"

#define APP_PANIC_EXIT 3u /* _exit/abort: bench_panic(3) */

volatile app_report_t app_report;

/* The host's request (app_report.h): read-only data in flash, overwritten in the host's
 * copy of the flash before the run; these are the image's defaults. It is defined here,
 * apart from its readers, so that no compiler can fold these values into them. */
const app_request_t app_request = {APP_REQUEST_MAGIC, 0, 0, 0};

/* What crtbegin.o would define: the handle C++ static destructors register under
 * (-nostartfiles leaves it out). */
void *__dso_handle = &__dso_handle;

/* stdout, as the host sees it. */
char app_out[8192];
volatile uint32_t app_out_len;

/* The measured section: the host snapshots its counter when the pc gets here. noinline
 * and an asm statement, so that each stays a real function called at its place. */
__attribute__((noinline)) void app_mark_begin(void) {
    __asm volatile("" ::: "memory");
}
__attribute__((noinline)) void app_mark_end(void) {
    __asm volatile("" ::: "memory");
}
__attribute__((noinline)) void app_mark_split(void) {
    __asm volatile("" ::: "memory");
}

int _write(int fd, const char *buffer, int length);
int _read(int fd, char *buffer, int length);
int _close(int fd);
int _fstat(int fd, struct stat *st);
int _isatty(int fd);
int _lseek(int fd, int offset, int whence);
void _exit(int status);
int _kill(int pid, int sig);
int _getpid(void);

int _write(int fd, const char *buffer, int length) {
    int i;
    if (fd != 1 && fd != 2) {
        errno = EBADF;
        return -1;
    }
    for (i = 0; i < length && app_out_len < sizeof app_out; ++i)
        app_out[app_out_len++] = buffer[i];
    return length;
}

int _read(int fd, char *buffer, int length) {
    (void)fd;
    (void)buffer;
    (void)length;
    return 0;
}

int _close(int fd) {
    (void)fd;
    return -1;
}

int _fstat(int fd, struct stat *st) {
    (void)fd;
    st->st_mode = S_IFCHR;
    return 0;
}

int _isatty(int fd) {
    (void)fd;
    return 1;
}

int _lseek(int fd, int offset, int whence) {
    (void)fd;
    (void)offset;
    (void)whence;
    return 0;
}

void _exit(int status) {
    (void)status;
    for (;;)
        bench_panic(APP_PANIC_EXIT);
}

int _kill(int pid, int sig) {
    (void)pid;
    (void)sig;
    errno = EINVAL;
    return -1;
}

int _getpid(void) {
    return 1;
}
