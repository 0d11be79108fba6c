/* SPDX-License-Identifier: MIT */
/*
 * tlsf_compiler.h - the hints the core gives the compiler, and why.
 *
 * Both change where code is laid out, never what it does; a compiler without the GCC
 * extensions gets plain C99 from them.
 */
#ifndef TLSF_COMPILER_H
#define TLSF_COMPILER_H

#include "tlsf_config.h"

/* For the building blocks that several functions share and each must have inline (the
 * compiler would otherwise keep one out-of-line copy and call it, which the bounds on
 * Cortex-M4 would pay). */
#if defined(__GNUC__) || defined(__clang__)
#define TLSF_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define TLSF_ALWAYS_INLINE inline
#endif

/* For a helper that several functions off the real-time paths share: one copy, called,
 * rather than one inlined into each (code size on small targets). */
#if defined(__GNUC__) || defined(__clang__)
#define TLSF_SHARED_HELPER __attribute__((noinline))
#else
#define TLSF_SHARED_HELPER
#endif

/*
 * Branch layout for the bound: WORST_CASE(c) tells the compiler that the costlier side of
 * a test is the likely one, so that the longest path through malloc and free runs as a
 * straight line and the cheaper side pays the taken branch. On Cortex-M, whose bounds are
 * the ones stated (bench/cortex-m4/bounds.h), a side laid out of line costs an extra
 * branch back, so this lowers the worst case by that much and leaves the other paths'
 * counts as they were. Elsewhere the compiler's own layout, tuned for the common paths,
 * is kept.
 */
#if defined(__arm__) && (defined(__GNUC__) || defined(__clang__))
#define WORST_CASE(condition) __builtin_expect(!!(condition), 1)
#else
#define WORST_CASE(condition) (condition)
#endif

/* What TLSF_CODE (tlsf_config.h) asks of the lists: the smallest code (0), or list updates
 * without branches (2). */
#define CODE_SMALL (TLSF_CODE == 0)
#define LISTS_BRANCHLESS (TLSF_CODE == 2)

#endif /* TLSF_COMPILER_H */
