/* SPDX-License-Identifier: MIT */
/* A C consumer: `#include "tlsf.h"` as the README writes it, a heap in a static array. */
#include <stdio.h>

#include "tlsf.h"

static _Alignas(16) unsigned char arena[64 * 1024];

int main(void) {
    tlsf_t heap = tlsf_create_with_pool(arena, sizeof arena);
    void *block = tlsf_malloc(heap, 100);
    int ok = heap != NULL && block != NULL && tlsf_block_size(block) >= 100;
    tlsf_free(heap, block);
    ok = ok && tlsf_check(heap) == 0;
    printf("consumer_c: tlsf %s %s\n", TLSF_VERSION, ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
