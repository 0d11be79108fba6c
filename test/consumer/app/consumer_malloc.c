/* SPDX-License-Identifier: MIT */
/* Linked with tlsf::malloc: malloc is the shim's, and tlsfm_get_info sees the allocation. */
#include <stdio.h>
#include <stdlib.h>

#include "tlsf_malloc.h"

int main(void) {
    struct tlsfm_info before, during;
    void *block;
    int ok;
    tlsfm_get_info(&before);
    block = malloc(1000);
    tlsfm_get_info(&during);
    ok = block != NULL && during.live_blocks == before.live_blocks + 1;
    free(block);
    ok = ok && tlsfm_check() == 0;
    printf("consumer_malloc: %s\n", ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
