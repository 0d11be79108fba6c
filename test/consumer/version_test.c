/* SPDX-License-Identifier: MIT */
/*
 * tlsf_version_test: the version macros of tlsf_version.h (reached through tlsf.h) equal
 * the version in CMake's project() call, which CMake passes in as EXPECTED_MAJOR, _MINOR,
 * _PATCH and EXPECTED_VERSION. (CMake also refuses to configure when they differ; this
 * checks the header a program actually includes.)
 */
#include <stdio.h>
#include <string.h>

#include "tlsf.h"

int main(void) {
    int ok = TLSF_VERSION_MAJOR == EXPECTED_MAJOR && TLSF_VERSION_MINOR == EXPECTED_MINOR &&
             TLSF_VERSION_PATCH == EXPECTED_PATCH && strcmp(TLSF_VERSION, EXPECTED_VERSION) == 0 &&
             TLSF_VERSION_NUMBER == EXPECTED_MAJOR * 10000 + EXPECTED_MINOR * 100 + EXPECTED_PATCH;
    printf("tlsf.h: %s (%d), CMake: %s: %s\n", TLSF_VERSION, TLSF_VERSION_NUMBER, EXPECTED_VERSION,
           ok ? "equal" : "DIFFERENT");
    return ok ? 0 : 1;
}
