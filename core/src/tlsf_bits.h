/* SPDX-License-Identifier: MIT */
/*
 * tlsf_bits.h - bit scans: the index of the highest and lowest set bit.
 *
 * These two operations are what make TLSF constant-time: a size class is found with one
 * "highest set bit" and a non-empty free list with one or two "lowest set bit" scans of
 * the bitmaps. With compiler builtins each is a single instruction on Cortex-M3/M4/M7
 * (CLZ, or RBIT+CLZ) and on x86 (BSR/BSF, LZCNT/TZCNT). The portable fallback is a fixed
 * sequence of tests: its time does not depend on the value either.
 */
#ifndef TLSF_BITS_H
#define TLSF_BITS_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "tlsf_config.h"
#include "tlsf_sanitize.h"

#if TLSF_USE_BUILTIN_BITSCAN

/* Index of the highest set bit of a non-zero 32-bit word. */
static inline TLSF_NO_ASAN unsigned bits_fls32(uint32_t word) {
    return 31u - (unsigned)__builtin_clz(word);
}

/* Index of the lowest set bit of a non-zero 32-bit word. */
static inline TLSF_NO_ASAN unsigned bits_ffs32(uint32_t word) {
    return (unsigned)__builtin_ctz(word);
}

/* The number of zero bits above the highest set bit of a non-zero 32-bit word. */
static inline TLSF_NO_ASAN unsigned bits_clz32(uint32_t word) {
    return (unsigned)__builtin_clz(word);
}

/* Index of the highest set bit of a non-zero size. */
static inline TLSF_NO_ASAN unsigned bits_fls_size(size_t size) {
#if SIZE_MAX > UINT_MAX
    return (unsigned)(sizeof(unsigned long long) * CHAR_BIT - 1u) -
           (unsigned)__builtin_clzll((unsigned long long)size);
#else
    return 31u - (unsigned)__builtin_clz((unsigned)size);
#endif
}

#else /* portable fallback: five or six fixed steps, no data-dependent loop */

/* Five steps of the same shape, one per line. */
/* clang-format off */
static inline TLSF_NO_ASAN unsigned bits_fls32(uint32_t word) {
    unsigned index = 0;
    if (word & 0xFFFF0000u) { word >>= 16; index += 16; }
    if (word & 0x0000FF00u) { word >>= 8; index += 8; }
    if (word & 0x000000F0u) { word >>= 4; index += 4; }
    if (word & 0x0000000Cu) { word >>= 2; index += 2; }
    if (word & 0x00000002u) { index += 1; }
    return index;
}
/* clang-format on */

static inline TLSF_NO_ASAN unsigned bits_ffs32(uint32_t word) {
    return bits_fls32(word & (~word + 1u)); /* isolate the lowest set bit */
}

static inline TLSF_NO_ASAN unsigned bits_clz32(uint32_t word) {
    return 31u - bits_fls32(word);
}

static inline TLSF_NO_ASAN unsigned bits_fls_size(size_t size) {
#if SIZE_MAX > 0xFFFFFFFFu
    uint32_t high = (uint32_t)((uint64_t)size >> 32);
    return high ? 32u + bits_fls32(high) : bits_fls32((uint32_t)size);
#else
    return bits_fls32((uint32_t)size);
#endif
}

#endif /* TLSF_USE_BUILTIN_BITSCAN */

#endif /* TLSF_BITS_H */
