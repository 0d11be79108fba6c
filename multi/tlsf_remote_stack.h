/*
 * SPDX-License-Identifier: MIT
 *
 * tlsf_remote_stack.h - the lock-free list of blocks freed by threads (or cores) that do
 * not own them, shared by the per-core heaps (tlsf_multi.c) and the malloc shim's
 * per-thread heaps (malloc/tlsfm_thread.c). C11 (<stdatomic.h>), header only: the
 * CMake target tlsf::remote_stack carries its folder.
 *
 * Two ends:
 *   tlsf_remote_stack_t  the shared end: any thread pushes a block it may not free itself.
 *   pending              the owner's end, a plain `void *`: blocks the owner took from
 *                        the stack and has not freed yet. Only the owner reads or writes
 *                        it, so it is a separate argument: the owner keeps it where it
 *                        likes - beside its other private fields, on a cache line apart
 *                        from the stack's head (the shim, where pushers on other cores
 *                        would otherwise steal that line on each push), or next to the
 *                        head where RAM is scarce and there are no caches (tlsf_multi.h).
 * A block on either list is still allocated as far as its heap knows: the owner frees it.
 * The link is the block's first word, so no memory is added per block. There is one owner
 * at a time; a handover (the shim's orphaned heaps) is ordered by a lock.
 *
 * Memory ordering. A push stores the link into the block and publishes it with a
 * compare-and-swap, release. The owner empties the whole stack with one exchange,
 * acquire. Every successful push and every exchange is a read-modify-write of the head,
 * so each push's release heads a release sequence that every later modification of the
 * head continues; the owner's acquire exchange therefore synchronises with every push
 * whose block it receives, and sees their links and whatever the pushers wrote into the
 * blocks before freeing them. The owner then follows the links with plain loads.
 * The relaxed loads (tlsf_remote_stack_waiting, and before the exchange) only decide
 * whether to exchange: a NULL that is already out of date leaves the new blocks for the
 * owner's next call, never loses them. A non-NULL one cannot be out of date the other
 * way, since only the owner empties the stack: the exchange that follows returns a list.
 *
 * No ABA problem: the only compare-and-swap is the push's, which depends on nothing but
 * the head's current value (if the head went A -> B -> A in between, linking the block to
 * A is still right), and the owner never unlinks single blocks with a compare-and-swap;
 * it takes the whole list.
 */
#ifndef TLSF_REMOTE_STACK_H
#define TLSF_REMOTE_STACK_H

#include <stdatomic.h>
#include <stddef.h>

/* A locked fallback would make a push wait for another thread, and a push from a signal
 * handler or an interrupt could then deadlock. ARMv6-M (Cortex-M0/M0+) has no LDREX/STREX. */
#if ATOMIC_POINTER_LOCK_FREE != 2
#error "tlsf_remote_stack.h needs lock-free compare-and-swap on pointers (ARMv7-M or later)"
#endif

/* The shared end: the head of a singly linked list of blocks, NULL when empty. */
typedef struct tlsf_remote_stack {
    _Atomic(void *) head;
} tlsf_remote_stack_t;

/* Make `stack` empty; before any thread uses it (not atomic with respect to them). */
static inline void tlsf_remote_stack_init(tlsf_remote_stack_t *stack) {
    atomic_init(&stack->head, NULL);
}

/* Any thread (in practice not the owner, which frees its own blocks directly): put
 * `block` (not NULL, at least a pointer in size and alignment, no longer used by the
 * caller) on the stack. Lock-free: the compare-and-swap fails only when the head changed
 * since it was read - another push or the owner's exchange succeeded in between - or, on
 * LL/SC machines (ARM's LDREX/STREX), when the reservation was lost, e.g. to an interrupt;
 * so some thread always makes progress, and a push retries once per concurrent change of
 * this one head (plus those spurious failures). */
static inline void tlsf_remote_stack_push(tlsf_remote_stack_t *stack, void *block) {
    void *head = atomic_load_explicit(&stack->head, memory_order_relaxed);
    do {
        *(void **)block = head;
    } while (!atomic_compare_exchange_weak_explicit(&stack->head, &head, block,
                                                    memory_order_release, memory_order_relaxed));
}

/* The owner: whether blocks wait, in `pending` (the owner's list) or on the stack. Two
 * loads, no store: the check every call of the owner can afford. */
static inline int tlsf_remote_stack_waiting(tlsf_remote_stack_t *stack, const void *pending) {
    return pending != NULL || atomic_load_explicit(&stack->head, memory_order_relaxed) != NULL;
}

/* The owner: the next block to free, or NULL when nothing waits. The block comes from
 * `*pending`; when that is empty, the whole stack is first moved there with one exchange.
 * O(1) and wait-free: at most a load, one exchange (never retried: the owner takes all
 * there is, whatever was pushed in between) and the load of one link. Blocks come out
 * newest first within each exchange. */
static inline void *tlsf_remote_stack_take(tlsf_remote_stack_t *stack, void **pending) {
    void *block = *pending;
    if (block == NULL) {
        if (atomic_load_explicit(&stack->head, memory_order_relaxed) == NULL) return NULL;
        block = atomic_exchange_explicit(&stack->head, NULL, memory_order_acquire);
    }
    *pending = *(void **)block;
    return block;
}

#endif /* TLSF_REMOTE_STACK_H */
