# SPDX-License-Identifier: MIT
# test/m4/wcet.cmake - the static worst case of the TLSF entry points, proven on the machine
# code of the Cortex-M4 images (bench/cortex-m4/wcet). Included at the end of
# bench/cortex-m4/CMakeLists.txt, after the firmware-app images are known:
#
#   tlsf_m4_wcet_unit  the analyser on hand-written Thumb-2 snippets (IT blocks, conditional
#                      returns, cbz, tbb/tbh, calls and tail calls, loops refused or bounded,
#                      indirect branches refused);
#   tlsf_m4_wcet       wcet.py --check on the TLSF images: fails when a path has a cycle the
#                      configuration does not bound, when the analysis meets code it cannot
#                      follow, when a static bound exceeds its bounds.h row, or when one is
#                      below the maximum tlsf_m4_bounds measured (its CSV, a fixture): the
#                      analysis and the stated loop bounds checked against the emulator;
#   tlsf_m4_wcet_app   the same for operator new/delete of the firmware-app images.
#
# Needs Python 3 (standard library) and arm-none-eabi-objdump; a second or so each.
set(_wcet_env PYTHONDONTWRITEBYTECODE=1)
add_test(NAME tlsf_m4_wcet_unit
         COMMAND ${Python3_EXECUTABLE} -B ${TLSF_M4_WCET_DIR}/test_wcet.py)
add_test(NAME tlsf_m4_wcet
         COMMAND ${Python3_EXECUTABLE} -B ${TLSF_M4_WCET_DIR}/wcet.py --check --quiet
                 --csv ${TLSF_M4_CHECK_CSV} @${TLSF_M4_CHECK_LIST})
set_tests_properties(tlsf_m4_wcet_unit tlsf_m4_wcet PROPERTIES LABELS "m4" TIMEOUT 120
                     ENVIRONMENT "${_wcet_env}")
set_tests_properties(tlsf_m4_wcet PROPERTIES FIXTURES_REQUIRED tlsf_m4_counts_csv)
if(TLSF_M4_WCET_APP_IMAGES)
  add_test(NAME tlsf_m4_wcet_app
           COMMAND ${Python3_EXECUTABLE} -B ${TLSF_M4_WCET_DIR}/wcet.py --check --quiet
                   ${TLSF_M4_WCET_APP_IMAGES})
  set_tests_properties(tlsf_m4_wcet_app PROPERTIES LABELS "m4" TIMEOUT 120
                       ENVIRONMENT "${_wcet_env}")
endif()
