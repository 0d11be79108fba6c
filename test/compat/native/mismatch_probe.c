/* SPDX-License-Identifier: MIT */
/*
 * A file that calls this library's additions through the core's tlsf.h. Built with the
 * layer's settings (tlsf::mattconte_native) it links against tlsf::mattconte and runs;
 * built with any other configuration, the ctest compat_mismatch_fails_to_link expects the
 * link to fail on the configuration-tagged name, where a heap laid out two ways would
 * otherwise be found at run time.
 */
#include <stdio.h>

#include "tlsf.h"

int main(void) {
    tlsf_stats_t stats;
    stats.pool_count = 7;
    tlsf_get_stats(NULL, &stats); /* a NULL heap is ignored */
    printf("mismatch probe: linked, pool_count %u\n", (unsigned)stats.pool_count);
    return stats.pool_count == 7 ? 0 : 1;
}
