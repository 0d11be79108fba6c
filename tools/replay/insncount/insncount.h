/* SPDX-License-Identifier: MIT */
/*
 * insncount.h - the client request of the insncount valgrind tool (insncount.c): a program
 * running under `valgrind --tool=insncount` reads the number of guest instructions executed
 * so far with insncount_read(); outside valgrind it reads 0.
 */
#ifndef INSNCOUNT_H
#define INSNCOUNT_H

#include <valgrind/valgrind.h>

/* The tool's request code: 'I', 'C' in the tool range, request 0. */
#define INSNCOUNT_READ (VG_USERREQ_TOOL_BASE('I', 'C') + 0)

#ifndef INSNCOUNT_TOOL_SIDE
/* The count: a short fixed sequence of no-op instructions that valgrind recognises (its own
 * instructions are counted too, the same number every time: tlsf-replay calibrates it). */
static inline unsigned long long insncount_read(void) {
    return (unsigned long long)VALGRIND_DO_CLIENT_REQUEST_EXPR(0, INSNCOUNT_READ, 0, 0, 0, 0, 0);
}
#endif

#endif /* INSNCOUNT_H */
