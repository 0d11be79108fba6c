/*
 * SPDX-License-Identifier: MIT
 *
 * tlsf_multi.c - one TLSF heap per core with lock-free remote frees (see tlsf_multi.h).
 *
 * Invariants: only core c touches cores[c].heap and cores[c].pending; other cores touch
 * only cores[c].remote, by pushing. Core c takes the blocks back from `remote` through
 * `pending` (tlsf_remote_stack.h: a push is a compare-and-swap, release; the owner empties
 * the stack with one exchange, acquire, so its side never retries) and frees at most
 * TLSF_MULTI_BATCH of them per malloc or free. A block on either list is still allocated
 * as far as the heap knows: it is freed only by its owner.
 */
#include "tlsf_multi.h"

int tlsf_multi_init(tlsf_multi_t *multi, tlsf_multi_core_fn current_core, void *user) {
    unsigned i;
    if (multi == NULL || current_core == NULL) return 0;
    multi->current_core = current_core;
    multi->user = user;
    atomic_init(&multi->foreign_frees, 0);
    for (i = 0; i < TLSF_MULTI_MAX_CORES; ++i) {
        tlsf_remote_stack_init(&multi->cores[i].remote);
        multi->cores[i].pending = NULL;
        multi->cores[i].heap = NULL;
        multi->cores[i].start = 0;
        multi->cores[i].end = 0;
    }
    return 1;
}

int tlsf_multi_add_core(tlsf_multi_t *multi, unsigned core, void *memory, size_t bytes) {
    uintptr_t start = (uintptr_t)memory, end;
    unsigned i;
    tlsf_t heap;
    if (multi == NULL || core >= TLSF_MULTI_MAX_CORES || memory == NULL) return 0;
    if (multi->cores[core].heap != NULL || bytes > UINTPTR_MAX - start) return 0;
    end = start + bytes;
    for (i = 0; i < TLSF_MULTI_MAX_CORES; ++i)
        if (multi->cores[i].heap != NULL && start < multi->cores[i].end &&
            multi->cores[i].start < end)
            return 0;
    heap = tlsf_create_with_pool(memory, bytes);
    if (heap == NULL) return 0;
    multi->cores[core].start = start;
    multi->cores[core].end = end;
    multi->cores[core].heap = heap;
    return 1;
}

int tlsf_multi_owner(const tlsf_multi_t *multi, const void *ptr) {
    uintptr_t address = (uintptr_t)ptr;
    unsigned i;
    for (i = 0; i < TLSF_MULTI_MAX_CORES; ++i)
        if (address - multi->cores[i].start < multi->cores[i].end - multi->cores[i].start)
            return (int)i;
    return -1;
}

/* The calling core's record, or NULL if the number is out of range or it has no heap. */
static tlsf_multi_core_t *this_core(tlsf_multi_t *multi) {
    unsigned core = multi->current_core(multi->user);
    if (core >= TLSF_MULTI_MAX_CORES || multi->cores[core].heap == NULL) return NULL;
    return &multi->cores[core];
}

/* Frees up to `limit` blocks: first what waits in `pending`, then, when that runs dry
 * before the limit, the whole `remote` list taken with one exchange. Each block costs
 * one tlsf_free, so the call is O(limit); the exchange never retries. */
static size_t take_back(tlsf_multi_core_t *self, size_t limit) {
    size_t n;
    void *block;
    for (n = 0; n < limit; ++n) {
        block = tlsf_remote_stack_take(&self->remote, &self->pending);
        if (block == NULL) break;
        tlsf_free(self->heap, block);
    }
    return n;
}

static void *allocate(tlsf_multi_t *multi, size_t align, size_t bytes) {
    tlsf_multi_core_t *self;
    void *ptr;
    if (multi == NULL || (self = this_core(multi)) == NULL) return NULL;
    take_back(self, TLSF_MULTI_BATCH);
    ptr = align ? tlsf_memalign(self->heap, align, bytes) : tlsf_malloc(self->heap, bytes);
    if (ptr == NULL && tlsf_remote_stack_waiting(&self->remote, self->pending)) {
        take_back(self, SIZE_MAX); /* out of room: what other cores freed may be enough */
        ptr = align ? tlsf_memalign(self->heap, align, bytes) : tlsf_malloc(self->heap, bytes);
    }
    return ptr;
}

void *tlsf_multi_malloc(tlsf_multi_t *multi, size_t bytes) {
    return allocate(multi, 0, bytes);
}

void *tlsf_multi_memalign(tlsf_multi_t *multi, size_t align, size_t bytes) {
    return allocate(multi, align, bytes);
}

void tlsf_multi_free(tlsf_multi_t *multi, void *ptr) {
    tlsf_multi_core_t *self, *owner;
    int index;
    if (multi == NULL || ptr == NULL) return;
    self = this_core(multi);
    index = tlsf_multi_owner(multi, ptr);
    if (index < 0) { /* not ours: never follow it */
        atomic_fetch_add_explicit(&multi->foreign_frees, 1, memory_order_relaxed);
        return;
    }
    owner = &multi->cores[index];
    if (owner == self) {
        tlsf_free(self->heap, ptr);
        take_back(self, TLSF_MULTI_BATCH);
        return;
    }
    tlsf_remote_stack_push(&owner->remote, ptr);
}

size_t tlsf_multi_take_back(tlsf_multi_t *multi, size_t limit) {
    tlsf_multi_core_t *self;
    if (multi == NULL || (self = this_core(multi)) == NULL) return 0;
    return take_back(self, limit);
}
