/* SPDX-License-Identifier: MIT */
/*
 * tlsf_sanitize.h - cooperation with AddressSanitizer and valgrind, and the fill patterns.
 *
 * AddressSanitizer. When the core is compiled with it (__SANITIZE_ADDRESS__ with GCC, the
 * address_sanitizer feature with Clang), everything in a pool that the user does not own
 * is poisoned: block headers, free blocks and the end sentinel. A use after free, or an
 * overflow that reaches heap metadata inside a pool, is then reported by ASan at the
 * faulting access instead of corrupting the heap silently. The heap itself must read and
 * write that poisoned metadata, so every function of the core carries TLSF_NO_ASAN (no
 * instrumentation of its own accesses; the attribute must be on all of them, or GCC
 * refuses to inline one into another).
 *
 * Valgrind (TLSF_MEMCHECK=1). Memcheck is told that a block handed out is a heap block
 * (VALGRIND_MALLOCLIKE_BLOCK), that a freed one is gone (VALGRIND_FREELIKE_BLOCK: its bytes
 * become inaccessible) and that a realloc in place resized it (RESIZEINPLACE). Pools start
 * inaccessible. The heap's own accesses to its headers and links, which lie inside freed
 * memory, must not be errors; valgrind has no "uninstrumented function" attribute, so the
 * heap makes each word accessible just before it touches it: every header and link word is
 * reached through a slot accessor of tlsf_block.h, and each accessor passes its word
 * through metadata_word(). The alternative, VALGRIND_DISABLE_ERROR_REPORTING around each
 * public function, needs a wrapper with a single exit around every entry point (the hot
 * paths have several returns), and the heap's writes into inaccessible bytes would still
 * leave those words inaccessible, so every later read of them would be an error to
 * suppress too. Marking words is local and stays correct as the hot paths change, as long
 * as they reach headers and links through the accessors. It costs one client request per
 * access under valgrind (a few instructions natively). The price: the words the heap
 * keeps in a free block (its two links, its last word) stay accessible, so a use after
 * free of exactly those words is not reported; and with TLSF_CHECKS=2, free reads the
 * word before a block's header, the previous block's last word, which thereby counts as
 * written for memcheck.
 *
 * Memcheck is told a block ends where the next block starts, one word before the end of
 * its usable bytes (that word is addressable on its own): the free list points at block
 * starts, and a pointer to the next block would otherwise be a pointer into the leaked
 * block before it, making it "possibly" instead of "definitely" lost.
 *
 * Fill patterns (TLSF_FILL=1): see tlsf_config.h.
 *
 * With none of them, every function here compiles to nothing (or returns its argument).
 */
#ifndef TLSF_SANITIZE_H
#define TLSF_SANITIZE_H

#include <stddef.h>

#include "tlsf_abi.h"
#include "tlsf_compiler.h"

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

#if TLSF_FILL
#include <string.h>
#endif

#if TLSF_MEMCHECK
#include <valgrind/memcheck.h>
#endif

/* ASan: mark bytes as not the user's (poison) or as the user's (unpoison). */
static inline TLSF_NO_ASAN void asan_poison(const void *start, size_t bytes) {
#ifdef TLSF_ASAN
    __asan_poison_memory_region(start, bytes);
#else
    (void)start;
    (void)bytes;
#endif
}

static inline TLSF_NO_ASAN void asan_unpoison(const void *start, size_t bytes) {
#ifdef TLSF_ASAN
    __asan_unpoison_memory_region(start, bytes);
#else
    (void)start;
    (void)bytes;
#endif
}

/* Valgrind: the heap is about to read or write the metadata word at `word`; make it
 * accessible and defined (it holds what the heap wrote there). Returns `word`. */
static inline TLSF_NO_ASAN void *metadata_word(void *word) {
#if TLSF_MEMCHECK
    (void)VALGRIND_MAKE_MEM_DEFINED(word, sizeof(size_t));
#endif
    return word;
}

/* Valgrind: `bytes` at `start` belong to nobody (pool memory not in any block). */
static inline TLSF_NO_ASAN void valgrind_no_access(const void *start, size_t bytes) {
#if TLSF_MEMCHECK
    (void)VALGRIND_MAKE_MEM_NOACCESS(start, bytes);
#else
    (void)start;
    (void)bytes;
#endif
}

/* Valgrind: `bytes` at `start` are the user's, with contents not yet written. */
static inline TLSF_NO_ASAN void valgrind_undefined(const void *start, size_t bytes) {
#if TLSF_MEMCHECK
    if (bytes) (void)VALGRIND_MAKE_MEM_UNDEFINED(start, bytes);
#else
    (void)start;
    (void)bytes;
#endif
}

/*
 * Valgrind: a block is handed out at `ptr` with `usable` bytes, of which memcheck tracks the
 * first `tracked` as a heap block (see the top of this file); the rest is addressable user
 * memory, not yet written.
 */
static inline TLSF_NO_ASAN void valgrind_block_alloc(void *ptr, size_t tracked, size_t usable) {
#if TLSF_MEMCHECK
    VALGRIND_MALLOCLIKE_BLOCK(ptr, tracked, 0, 0);
    valgrind_undefined((char *)ptr + tracked, usable - tracked);
#else
    (void)ptr;
    (void)tracked;
    (void)usable;
#endif
}

/*
 * Valgrind: the block at `ptr` was resized in place from `old_tracked`/`old_usable` bytes
 * to `new_tracked`/`new_usable`. The word just past the smaller tracked part, if it is
 * usable in both sizes, is user data that the block keeps: memcheck's resize would make it
 * undefined (growing) or inaccessible (shrinking), so its validity bits are carried over.
 */
static inline TLSF_NO_ASAN void valgrind_block_resize(void *ptr, size_t old_tracked,
                                                      size_t old_usable, size_t new_tracked,
                                                      size_t new_usable) {
#if TLSF_MEMCHECK
    size_t kept_at = old_tracked < new_tracked ? old_tracked : new_tracked;
    size_t kept_end = old_usable < new_usable ? old_usable : new_usable;
    unsigned char bits[sizeof(size_t)];
    char *kept = (char *)ptr + kept_at;
    int keep = kept_end > kept_at && RUNNING_ON_VALGRIND;
    if (keep) (void)VALGRIND_GET_VBITS(kept, bits, kept_end - kept_at);
    VALGRIND_RESIZEINPLACE_BLOCK(ptr, old_tracked, new_tracked, 0);
    valgrind_undefined((char *)ptr + new_tracked, new_usable - new_tracked);
    if (keep) (void)VALGRIND_SET_VBITS(kept, bits, kept_end - kept_at);
#else
    (void)ptr;
    (void)old_tracked;
    (void)old_usable;
    (void)new_tracked;
    (void)new_usable;
#endif
}

/* TLSF_FILL: a block's fresh bytes get TLSF_FILL_ALLOC_BYTE. They still count as never
 * written for valgrind (the pattern is there to be noticed, not to be relied on). */
static inline TLSF_NO_ASAN void fill_fresh(void *start, size_t bytes) {
#if TLSF_FILL
    memset(start, TLSF_FILL_ALLOC_BYTE, bytes);
    valgrind_undefined(start, bytes);
#else
    (void)start;
    (void)bytes;
#endif
}

/* TLSF_FILL: bytes the user gave back get TLSF_FILL_FREE_BYTE. */
static inline TLSF_NO_ASAN void fill_freed(void *start, size_t bytes) {
#if TLSF_FILL
    memset(start, TLSF_FILL_FREE_BYTE, bytes);
#else
    (void)start;
    (void)bytes;
#endif
}

/*
 * The user gives the `bytes` usable bytes of the block at `start` back (tlsf_free calls
 * this before it touches the block): they get the free pattern, memcheck forgets the block
 * and ASan poisons it. In that order, since each step makes the bytes unwritable for the
 * next tool.
 */
static inline TLSF_NO_ASAN void memory_given_back(void *start, size_t bytes) {
    fill_freed(start, bytes);
#if TLSF_MEMCHECK
    VALGRIND_FREELIKE_BLOCK(start, 0);
#endif
    asan_poison(start, bytes);
}

#endif /* TLSF_SANITIZE_H */
