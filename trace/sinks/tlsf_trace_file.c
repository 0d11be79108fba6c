/* SPDX-License-Identifier: MIT */
/*
 * tlsf_trace_file.c - the file sink (tlsf_trace_file.h). System calls only: no allocation,
 * no stdio, so that it can run inside malloc.
 */
#define _GNU_SOURCE 1

#include "tlsf_trace_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/file.h>
#include <unistd.h>

/* Append `text` to `out` (capacity `size`, at `n`); returns the new length, or `size` when
 * it does not fit (the caller then fails with ENAMETOOLONG). */
static size_t put_text(char *out, size_t n, size_t size, const char *text) {
    while (*text != '\0') {
        if (n + 1 >= size) return size;
        out[n++] = *text++;
    }
    out[n] = '\0';
    return n;
}

static size_t put_number(char *out, size_t n, size_t size, unsigned long value) {
    char digits[24];
    size_t count = 0;
    do {
        digits[count++] = (char)('0' + value % 10);
        value /= 10;
    } while (value != 0);
    while (count > 0) {
        if (n + 1 >= size) return size;
        out[n++] = digits[--count];
    }
    out[n] = '\0';
    return n;
}

/* The pattern with every "%p" replaced by the pid; returns 1 if there was one, -1 if the
 * result does not fit. */
static int expand(const char *pattern, char *out, size_t size) {
    size_t n = 0;
    int had_pid = 0;
    out[0] = '\0';
    while (*pattern != '\0' && n < size) {
        if (pattern[0] == '%' && pattern[1] == 'p') {
            n = put_number(out, n, size, (unsigned long)getpid());
            pattern += 2;
            had_pid = 1;
        } else {
            char one[2] = {*pattern++, '\0'};
            n = put_text(out, n, size, one);
        }
    }
    return n >= size ? -1 : had_pid;
}

static int open_exclusive(tlsf_trace_file_t *file, const char *path) {
    file->fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (file->fd < 0) return -1;
    if (flock(file->fd, LOCK_EX | LOCK_NB) != 0) {
        int saved = errno;
        close(file->fd);
        file->fd = -1;
        errno = saved;
        return -1;
    }
    if (ftruncate(file->fd, 0) != 0) {
        int saved = errno;
        close(file->fd);
        file->fd = -1;
        errno = saved;
        return -1;
    }
    return 0;
}

int tlsf_trace_file_open(tlsf_trace_file_t *file, const char *pattern) {
    size_t n;
    int had_pid;
    if (file == NULL) {
        errno = EINVAL;
        return -1;
    }
    file->fd = -1;
    file->path[0] = '\0';
    if (pattern == NULL || pattern[0] == '\0') {
        errno = EINVAL;
        return -1;
    }
    had_pid = expand(pattern, file->path, sizeof file->path);
    if (had_pid < 0) {
        errno = ENAMETOOLONG;
        return -1;
    }
    if (open_exclusive(file, file->path) == 0) return 0;
    if (had_pid || errno != EWOULDBLOCK) return -1;
    /* Another process records into this path: this one gets its own, "<path>.<pid>". */
    n = 0;
    while (file->path[n] != '\0')
        ++n;
    n = put_text(file->path, n, sizeof file->path, ".");
    if (n < sizeof file->path)
        n = put_number(file->path, n, sizeof file->path, (unsigned long)getpid());
    if (n >= sizeof file->path) {
        file->path[0] = '\0';
        errno = ENAMETOOLONG;
        return -1;
    }
    return open_exclusive(file, file->path);
}

int tlsf_trace_file_sink(void *user, const void *bytes, size_t length) {
    tlsf_trace_file_t *file = (tlsf_trace_file_t *)user;
    const char *at = (const char *)bytes;
    int saved = errno;
    if (file == NULL || file->fd < 0) return -1;
    while (length > 0) {
        ssize_t written = write(file->fd, at, length);
        if (written < 0) {
            if (errno == EINTR) continue;
            errno = saved;
            return -1;
        }
        at += written;
        length -= (size_t)written;
    }
    errno = saved;
    return 0;
}

void tlsf_trace_file_close(tlsf_trace_file_t *file) {
    if (file == NULL || file->fd < 0) return;
    close(file->fd);
    file->fd = -1;
}
