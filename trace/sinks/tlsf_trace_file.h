/* SPDX-License-Identifier: MIT */
/*
 * tlsf_trace_file.h - a sink that writes the trace to a file (POSIX: open, flock, write).
 *
 * It allocates nothing and uses no stdio, so it can serve a recorder inside malloc itself
 * (the drop-in malloc's TLSF_MALLOC_TRACE, docs/trace.md). Several processes may be given the
 * same path (a program and the children it starts inherit the environment): the path names
 * one trace per process as follows.
 *   - "%p" in the path is replaced by the process id (every process writes its own file);
 *   - otherwise the first process to open the path takes an exclusive lock on it (flock,
 *     held until it exits) and truncates it; a process that finds the path locked by a
 *     living process writes "<path>.<pid>" instead.
 * So `TLSF_MALLOC_TRACE=gcc.trace gcc -c x.c` leaves the driver's trace in gcc.trace and the
 * compiler's (cc1) in gcc.trace.<pid>. A second recording to the same path overwrites the
 * first.
 */
#ifndef TLSF_TRACE_FILE_H
#define TLSF_TRACE_FILE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TLSF_TRACE_FILE_PATH_MAX 512

typedef struct tlsf_trace_file {
    int fd;                              /* -1 when closed */
    char path[TLSF_TRACE_FILE_PATH_MAX]; /* the file actually written */
} tlsf_trace_file_t;

/*
 * tlsf_trace_file_open: open the trace file for `pattern` as described above (created with
 * mode 0644, close-on-exec). Returns 0, or -1 (errno set; file->fd is -1) when `file` or
 * `pattern` is NULL or empty (EINVAL), the path with the pid does not fit
 * TLSF_TRACE_FILE_PATH_MAX (ENAMETOOLONG), or the file cannot be opened or truncated.
 */
int tlsf_trace_file_open(tlsf_trace_file_t *file, const char *pattern);

/*
 * tlsf_trace_file_sink: the recorder's sink (tlsf_trace_sink_t) with a tlsf_trace_file_t as
 * `user`: writes all `length` bytes, retrying short writes and EINTR. Returns 0, or -1 on a
 * write error or a closed file (NULL `user`, fd -1). Keeps errno as it was, since it runs
 * inside the program's malloc and free.
 */
int tlsf_trace_file_sink(void *user, const void *bytes, size_t length);

/* tlsf_trace_file_close: close the file (and drop the lock). NULL or closed: nothing. */
void tlsf_trace_file_close(tlsf_trace_file_t *file);

#ifdef __cplusplus
}
#endif

#endif /* TLSF_TRACE_FILE_H */
