/* SPDX-License-Identifier: MIT */
/*
 * tlsf_bits.h - bit scans: the index of the highest and lowest set bit.
 *
 * These two operations are what make TLSF constant-time: a size class is found with one
 * "highest set bit" and a non-empty free list with one or two "lowest set bit" scans of
 * the bitmaps. With compiler builtins each is a single instruction on Cortex-M3/M4/M7
 * (CLZ: the bitmaps below are laid out so that no RBIT is needed) and on x86 (BSR/BSF,
 * LZCNT/TZCNT). The portable fallback is a fixed sequence of tests: its time does not
 * depend on the value either.
 */
#ifndef TLSF_BITS_H
#define TLSF_BITS_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

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

/* The number of zero bits above the highest set bit of a non-zero size. */
static inline TLSF_NO_ASAN unsigned bits_clz_size(size_t size) {
#if SIZE_MAX > UINT_MAX
    return (unsigned)__builtin_clzll((unsigned long long)size) -
           (unsigned)(sizeof(unsigned long long) * CHAR_BIT - TLSF_PTR_BITS);
#else
    return (unsigned)__builtin_clz((unsigned)size);
#endif
}

/* Index of the highest set bit of a non-zero size. */
static inline TLSF_NO_ASAN unsigned bits_fls_size(size_t size) {
    return (TLSF_PTR_BITS - 1u) - bits_clz_size(size);
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

static inline TLSF_NO_ASAN unsigned bits_fls_size(size_t size) {
#if SIZE_MAX > 0xFFFFFFFFu
    uint32_t high = (uint32_t)((uint64_t)size >> 32);
    return high ? 32u + bits_fls32(high) : bits_fls32((uint32_t)size);
#else
    return bits_fls32((uint32_t)size);
#endif
}

static inline TLSF_NO_ASAN unsigned bits_clz_size(size_t size) {
    return (TLSF_PTR_BITS - 1u) - bits_fls_size(size);
}

#endif /* TLSF_USE_BUILTIN_BITSCAN */

/*
 * Bitmap words: 32 positions, 0 to 31, each one bit (tlsf_control.h keeps a position per
 * size class and per bitmap word). The first set position at or after p is
 * p + bitmap_first(bitmap_from(word, p)), and the first after p is
 * bitmap_first(word & bitmap_after(p)): one scan either way. Which bit holds position 0
 * follows the scan the target has: on Arm, which counts leading zeros in one instruction
 * (CLZ) and has no count of trailing zeros, position 0 is the top bit; elsewhere (x86:
 * TZCNT or BSF; the portable fallback) it is bit 0.
 */
#if TLSF_USE_BUILTIN_BITSCAN && (defined(__arm__) || defined(__aarch64__))
#define BITMAP_FROM_TOP 1
#else
#define BITMAP_FROM_TOP 0
#endif

/* The bit of position `pos` (pos < 32). */
static inline TLSF_NO_ASAN uint32_t bitmap_bit(unsigned pos) {
    return BITMAP_FROM_TOP ? (uint32_t)0x80000000u >> pos : (uint32_t)1u << pos;
}

/* bitmap_bit(pos) if `flag` is 1, 0 if it is 0 (pos < 32). */
static inline TLSF_NO_ASAN uint32_t bitmap_bit_if(unsigned pos, uint32_t flag) {
    return BITMAP_FROM_TOP ? (flag << 31) >> pos : flag << pos;
}

/* The positions of `word` at or after `pos` (pos < 32), moved down so that pos is 0. */
static inline TLSF_NO_ASAN uint32_t bitmap_from(uint32_t word, unsigned pos) {
    return BITMAP_FROM_TOP ? word << pos : word >> pos;
}

/* The positions after `pos` (pos < 32) as a mask. */
static inline TLSF_NO_ASAN uint32_t bitmap_after(unsigned pos) {
    return BITMAP_FROM_TOP ? (uint32_t)0x7FFFFFFFu >> pos : (uint32_t)0xFFFFFFFEu << pos;
}

/* The first and the last set position of a non-zero word. */
static inline TLSF_NO_ASAN unsigned bitmap_first(uint32_t word) {
#if BITMAP_FROM_TOP
    return (unsigned)__builtin_clz(word);
#else
    return bits_ffs32(word);
#endif
}
static inline TLSF_NO_ASAN unsigned bitmap_last(uint32_t word) {
    return BITMAP_FROM_TOP ? 31u - bits_ffs32(word) : bits_fls32(word);
}

#endif /* TLSF_BITS_H */
