/* SPDX-License-Identifier: MIT */
/*
 * fuzz_adversary.c - the libFuzzer entry point of the adversary: each input runs as in
 * fuzz_heap.c, with the misuse operation turned into writes into the heap's own metadata
 * (fuzz_ops.c, "The adversary"); the process aborts when damage is neither reported nor
 * harmless. Built with TLSF_FUZZ=ON; scripts/fuzz.sh runs it with FUZZ_TARGET=fuzz_adversary.
 */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_ops.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    tlsf_fuzz_adversary = 1;
    tlsf_fuzz_run(data, size);
    return 0;
}
