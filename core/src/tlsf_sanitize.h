/*
 * tlsf_sanitize.h - cooperation with AddressSanitizer.
 *
 * When the core is compiled with AddressSanitizer (__SANITIZE_ADDRESS__ with GCC, the
 * address_sanitizer feature with Clang), everything in a pool that the user does not own
 * is poisoned: block headers, free blocks and the end sentinel. A use after free, or an
 * overflow that reaches heap metadata inside a pool, is then reported by ASan at the
 * faulting access instead of corrupting the heap silently.
 *
 * The heap itself must read and write that poisoned metadata, so every function of the
 * core carries TLSF_NO_ASAN (no instrumentation of its own accesses; the attribute must
 * be on all of them, or GCC refuses to inline one into another).
 */
#ifndef TLSF_SANITIZE_H
#define TLSF_SANITIZE_H

#include <stddef.h>

#if defined(__SANITIZE_ADDRESS__)
#define TLSF_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TLSF_ASAN 1
#endif
#endif

#ifdef TLSF_ASAN
#include <sanitizer/asan_interface.h>
#define TLSF_NO_ASAN __attribute__((no_sanitize("address")))
#else
#define TLSF_NO_ASAN
#endif

/* Mark bytes as not the user's (poison) or as the user's (unpoison). No-ops without ASan. */
static inline TLSF_NO_ASAN void memory_poison(const void *start, size_t bytes) {
#ifdef TLSF_ASAN
    __asan_poison_memory_region(start, bytes);
#else
    (void)start;
    (void)bytes;
#endif
}

static inline TLSF_NO_ASAN void memory_unpoison(const void *start, size_t bytes) {
#ifdef TLSF_ASAN
    __asan_unpoison_memory_region(start, bytes);
#else
    (void)start;
    (void)bytes;
#endif
}

#endif /* TLSF_SANITIZE_H */
