/* SPDX-License-Identifier: MIT */
/*
 * fuzz_heap.c - the libFuzzer entry point: each input is a sequence of heap operations run
 * by the interpreter of fuzz_ops.c, which aborts (and so makes libFuzzer save the input)
 * when the heap breaks a promise of tlsf.h. Built with -fsanitize=fuzzer,address,undefined
 * when TLSF_FUZZ=ON (see CMakeLists.txt and scripts/fuzz.sh).
 */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_ops.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    tlsf_fuzz_run(data, size);
    return 0;
}
