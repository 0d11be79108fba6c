# SPDX-License-Identifier: MIT
# test/m4/firmware_app.cmake - the whole-program Cortex-M4 images of
# bench/cortex-m4/firmware-app, run by tlsf_m4_app (included from firmware-app/app.cmake).
#
#   tlsf_m4_app_demo_{nano,full}  printf, strdup, std::map, a thrown and caught exception
#                                 and calloc/realloc/memalign all allocate from the TLSF
#                                 heap (alloc_count/free_count deltas, pointers inside the
#                                 heap's linker region), the heap served libstdc++'s
#                                 allocation before main, the lock was used and released,
#                                 tlsf_check is clean, and _sbrk was never called;
#   tlsf_m4_app_sbrk_trap         the demo plus one direct _sbrk call: the run must stop
#                                 in bench_panic(1) (the trap is loud);
#   tlsf_m4_app_perft             perft(3) = 8902 over newlib-nano, full newlib and TLSF,
#                                 _sbrk never called in the TLSF image; prints the
#                                 instruction totals and the ratios;
#   tlsf_m4_app_perft_everything  perft(3) with the table-everything mode (every interior
#                                 node, never cleared) over every heap (FreeRTOS heap_4
#                                 too when the kernel is there): node counts, the mode
#                                 ran, its guard never refused, TLSF's longest
#                                 tlsf_malloc/tlsf_free within bench/cortex-m4/bounds.h;
#   tlsf_m4_app_age               the heap-age run over every heap completes: 1,000 news
#                                 and deletes recorded per level, no allocation failed,
#                                 TLSF's pool walk finds exactly the live blocks;
#   tlsf_m4_app_perft_targets     (TLSF_M4_APP_TARGETS=ON only) also requires
#                                 newlib-nano/TLSF >= 1.46 and newlib-full/TLSF >= 1 at
#                                 perft(3), bounded table (not met);
#   tlsf_m4_app_perft_seed        (TLSF_M4_APP_TARGETS=ON only) perft(4), table
#                                 everything: newlib-nano/TLSF >= 1.46 (the seed's +46%).
option(TLSF_M4_APP_TARGETS "ctest: require the perft instruction-count targets" OFF)
foreach(variant nano full)
  add_test(NAME tlsf_m4_app_demo_${variant}
           COMMAND tlsf_m4_app --demo ${_app_out}/demo-${variant}.elf)
  set_tests_properties(tlsf_m4_app_demo_${variant} PROPERTIES LABELS "m4" TIMEOUT 60)
endforeach()
add_test(NAME tlsf_m4_app_sbrk_trap COMMAND tlsf_m4_app --demo ${_app_out}/demo-sbrk-probe.elf)
set_tests_properties(tlsf_m4_app_sbrk_trap PROPERTIES LABELS "m4" TIMEOUT 60
                     PASS_REGULAR_EXPRESSION "bench_panic\\(1\\): _sbrk called")
add_test(NAME tlsf_m4_app_perft
         COMMAND tlsf_m4_app --perft --check --min-nano-ratio 0 --min-full-ratio 0
                 ${TLSF_M4_APP_PERFT})
set_tests_properties(tlsf_m4_app_perft PROPERTIES LABELS "m4" TIMEOUT 120)
add_test(NAME tlsf_m4_app_perft_everything
         COMMAND tlsf_m4_app --perft --check --depths 3 --tt-mode everything --min-nano-ratio 0
                 --min-full-ratio 0 ${TLSF_M4_APP_PERFT})
set_tests_properties(tlsf_m4_app_perft_everything PROPERTIES LABELS "m4" TIMEOUT 120)
add_test(NAME tlsf_m4_app_age COMMAND tlsf_m4_app --age ${TLSF_M4_APP_AGE})
set_tests_properties(tlsf_m4_app_age PROPERTIES LABELS "m4" TIMEOUT 120)
if(TLSF_M4_APP_TARGETS)
  add_test(NAME tlsf_m4_app_perft_targets
           COMMAND tlsf_m4_app --perft --check ${TLSF_M4_APP_PERFT})
  set_tests_properties(tlsf_m4_app_perft_targets PROPERTIES LABELS "m4" TIMEOUT 120)
  add_test(NAME tlsf_m4_app_perft_seed
           COMMAND tlsf_m4_app --perft --check --depths 4 --tt-mode everything
                   --min-full-ratio 0 ${TLSF_M4_APP_PERFT})
  set_tests_properties(tlsf_m4_app_perft_seed PROPERTIES LABELS "m4" TIMEOUT 300)
endif()
