# SPDX-License-Identifier: MIT
#
# TLSF_MALLOC_SOURCES: the sources of the drop-in malloc (malloc/), for the targets that
# build it - libtlsf_malloc.so, tlsf_malloc_prefixed - and for the tests that compile their
# own copy (with ThreadSanitizer). They are C11 (atomics, _Thread_local): give the target
# C_STANDARD 11.
#   tlsf_malloc.c     the malloc API (errno, argument rules, calloc, exit report)
#   tlsfm_thread.c    one TLSF heap per thread, remote frees, orphaned heaps, fork
#   tlsfm_inspect.c   statistics and the heap check of the thread heaps
#   tlsfm_os.c        mappings from the system, the region map, large blocks and their cache
#   tlsfm_diag.c      messages without stdio
set(TLSF_MALLOC_SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/tlsf_malloc.c
    ${CMAKE_CURRENT_LIST_DIR}/tlsfm_thread.c
    ${CMAKE_CURRENT_LIST_DIR}/tlsfm_inspect.c
    ${CMAKE_CURRENT_LIST_DIR}/tlsfm_os.c
    ${CMAKE_CURRENT_LIST_DIR}/tlsfm_diag.c)
