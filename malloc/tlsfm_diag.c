/*
 * SPDX-License-Identifier: MIT
 *
 * tlsfm_diag.c - messages without stdio (see tlsfm_diag.h).
 */
#include "tlsfm_diag.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

size_t tlsfm_put_text(char *buf, size_t at, size_t cap, const char *text) {
    while (*text && at + 1 < cap)
        buf[at++] = *text++;
    return at;
}

size_t tlsfm_put_number(char *buf, size_t at, size_t cap, uintmax_t value, unsigned base) {
    char digits[3 * sizeof value + 2];
    size_t n = 0;
    do {
        unsigned digit = (unsigned)(value % base);
        digits[n++] = (char)(digit < 10 ? '0' + digit : 'a' + (digit - 10));
        value /= base;
    } while (value != 0);
    while (n > 0 && at + 1 < cap)
        buf[at++] = digits[--n];
    return at;
}

void tlsfm_write_all(int fd, const char *buf, size_t bytes) {
    while (bytes > 0) {
        ssize_t done = write(fd, buf, bytes);
        if (done < 0 && errno == EINTR) continue;
        if (done <= 0) return;
        buf += done;
        bytes -= (size_t)done;
    }
}

void tlsfm_die(const char *function, const char *what, const void *ptr) {
    char message[512];
    size_t n = tlsfm_put_text(message, 0, sizeof message, "tlsf_malloc: ");
    n = tlsfm_put_text(message, n, sizeof message, function);
    n = tlsfm_put_text(message, n, sizeof message, "(0x");
    n = tlsfm_put_number(message, n, sizeof message, (uintptr_t)ptr, 16);
    n = tlsfm_put_text(message, n, sizeof message, "): ");
    n = tlsfm_put_text(message, n, sizeof message, what);
    n = tlsfm_put_text(message, n, sizeof message, "; aborting\n");
    tlsfm_write_all(2, message, n);
    abort();
}
