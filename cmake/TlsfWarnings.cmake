# SPDX-License-Identifier: MIT
# tlsf_warnings(<target> [INTERFACE]): the project's warning set, errors unless TLSF_WERROR=OFF.
function(tlsf_warnings target)
  set(scope PRIVATE)
  if(ARGN)
    set(scope ${ARGN})
  endif()
  target_compile_options(${target} ${scope}
    -Wall -Wextra -Wpedantic -Wconversion -Wshadow $<$<BOOL:${TLSF_WERROR}>:-Werror>)
endfunction()
