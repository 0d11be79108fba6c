/*
 * app_syscalls.c - the newlib system calls of the application images, no semihosting.
 *
 * _write    stdout and stderr go to app_out[], which the host reads after the run;
 * _sbrk     APP_SBRK_SERVES=1 (the newlib images): the arena past the stack, as the
 *           harness does; APP_SBRK_SERVES=0 (the TLSF images): a trap. Nothing may reach
 *           newlib's own heap there, so a call stops in bench_panic(BENCH_PANIC_SBRK),
 *           which the host reports as a failure;
 * the rest  what newlib's stdio and abort need, doing nothing.
 * Also the report object and the two marks the host watches (app_report.h).
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "app_report.h"
#include "bench_api.h"

#ifndef APP_SBRK_SERVES
#error "APP_SBRK_SERVES must be 0 or 1"
#endif

#define APP_PANIC_EXIT 3u /* _exit/abort: bench_panic(3) */

volatile app_report_t app_report;

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

int _write(int fd, const char *buffer, int length);
int _read(int fd, char *buffer, int length);
int _close(int fd);
int _fstat(int fd, struct stat *st);
int _isatty(int fd);
int _lseek(int fd, int offset, int whence);
void _exit(int status);
int _kill(int pid, int sig);
int _getpid(void);
void *_sbrk(ptrdiff_t increment);

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

#if APP_SBRK_SERVES

static char *sbrk_top; /* the current break; 0 until the first call */

void *_sbrk(ptrdiff_t increment) {
    char *top = sbrk_top ? sbrk_top : __arena_start;
    if (increment > __arena_end - top || increment < __arena_start - top) {
        errno = ENOMEM;
        return (void *)-1;
    }
    sbrk_top = top + increment;
    return top;
}

#else

/* The trap: anything that still calls newlib's own malloc (an object of libc's malloc
 * pulled in by a symbol the retargeting layer does not define) ends up here. */
void *_sbrk(ptrdiff_t increment) {
    (void)increment;
    for (;;)
        bench_panic(BENCH_PANIC_SBRK);
}

#endif
