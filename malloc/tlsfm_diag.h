/*
 * SPDX-License-Identifier: MIT
 *
 * tlsfm_diag.h - messages of the drop-in malloc without stdio (which may allocate): text
 * and numbers put into a caller's buffer, written with write(2); and the one way the
 * library reports misuse: a message on stderr, then abort().
 */
#ifndef TLSFM_DIAG_H
#define TLSFM_DIAG_H

#include <stddef.h>
#include <stdint.h>

/* Append `text` to buf[at..cap) (keeping room for nothing else); returns the new length. */
size_t tlsfm_put_text(char *buf, size_t at, size_t cap, const char *text);

/* Append `value` in `base` (10 or 16); returns the new length. */
size_t tlsfm_put_number(char *buf, size_t at, size_t cap, uintmax_t value, unsigned base);

/* write(2) all of buf to fd, retrying on EINTR; gives up silently on another error. */
void tlsfm_write_all(int fd, const char *buf, size_t bytes);

/* "tlsf_malloc: <function>(0x<ptr>): <what>; aborting" on stderr, then abort(). */
__attribute__((noreturn)) void tlsfm_die(const char *function, const char *what, const void *ptr);

#endif /* TLSFM_DIAG_H */
