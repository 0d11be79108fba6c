/*
 * SPDX-License-Identifier: MIT
 *
 * tlsf_version.h - the library's version, as numbers for the preprocessor.
 *
 * Semantic versioning: MAJOR changes when the API or the ABI breaks, MINOR when something
 * is added compatibly, PATCH for fixes only. These values must equal the VERSION of
 * project(tlsf ...) in the top-level CMakeLists.txt; CMake stops at configure time when
 * they differ, and a test compares them with the version CMake passes in.
 *
 *   #if TLSF_VERSION_NUMBER >= 10100   (1.1.0 or later)
 */
#ifndef TLSF_VERSION_H
#define TLSF_VERSION_H

#define TLSF_VERSION_MAJOR 1
#define TLSF_VERSION_MINOR 0
#define TLSF_VERSION_PATCH 0

/* "MAJOR.MINOR.PATCH", for messages and logs. */
#define TLSF_VERSION "1.0.0"

/* MAJOR * 10000 + MINOR * 100 + PATCH: one integer that orders versions (MINOR and PATCH
 * stay below 100). */
#define TLSF_VERSION_NUMBER                                                                        \
    (TLSF_VERSION_MAJOR * 10000 + TLSF_VERSION_MINOR * 100 + TLSF_VERSION_PATCH)

#endif /* TLSF_VERSION_H */
