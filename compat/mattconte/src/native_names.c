/* SPDX-License-Identifier: MIT */
/*
 * native_names.c - compiled with the core (after plain_names.h): the eleven functions this
 * build names plainly, under their configuration-tagged names too, so that a file compiled
 * against the core's own tlsf.h with the layer's settings (tlsf::mattconte_native) links
 * with every name it may call. Each is a tail call of the plain function; mattconte's API
 * goes through the plain names and never reaches these.
 */
#include "plain_names.h"

#define NATIVE(name) TLSF_ABI_NAME(name)

void NATIVE(tlsf_destroy)(tlsf_t tlsf);
void NATIVE(tlsf_destroy)(tlsf_t tlsf) {
    tlsf_destroy(tlsf);
}
pool_t NATIVE(tlsf_get_pool)(tlsf_t tlsf);
pool_t NATIVE(tlsf_get_pool)(tlsf_t tlsf) {
    return tlsf_get_pool(tlsf);
}
void NATIVE(tlsf_remove_pool)(tlsf_t tlsf, pool_t pool);
void NATIVE(tlsf_remove_pool)(tlsf_t tlsf, pool_t pool) {
    tlsf_remove_pool(tlsf, pool);
}
void NATIVE(tlsf_free)(tlsf_t tlsf, void *ptr);
void NATIVE(tlsf_free)(tlsf_t tlsf, void *ptr) {
    tlsf_free(tlsf, ptr);
}
size_t NATIVE(tlsf_block_size)(void *ptr);
size_t NATIVE(tlsf_block_size)(void *ptr) {
    return tlsf_block_size(ptr);
}
size_t NATIVE(tlsf_size)(void);
size_t NATIVE(tlsf_size)(void) {
    return tlsf_size();
}
size_t NATIVE(tlsf_align_size)(void);
size_t NATIVE(tlsf_align_size)(void) {
    return tlsf_align_size();
}
size_t NATIVE(tlsf_block_size_min)(void);
size_t NATIVE(tlsf_block_size_min)(void) {
    return tlsf_block_size_min();
}
size_t NATIVE(tlsf_block_size_max)(void);
size_t NATIVE(tlsf_block_size_max)(void) {
    return tlsf_block_size_max();
}
size_t NATIVE(tlsf_pool_overhead)(void);
size_t NATIVE(tlsf_pool_overhead)(void) {
    return tlsf_pool_overhead();
}
size_t NATIVE(tlsf_alloc_overhead)(void);
size_t NATIVE(tlsf_alloc_overhead)(void) {
    return tlsf_alloc_overhead();
}
