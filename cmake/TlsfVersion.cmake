# SPDX-License-Identifier: MIT
# tlsf_check_version_header(<header>): stops the configure step when the version macros of
# <header> (core/include/tlsf_version.h) differ from project()'s VERSION, so that a release
# cannot ship one version in CMake's package files and another in the headers.
function(tlsf_check_version_header header)
  file(STRINGS "${header}" _lines REGEX "^#define TLSF_VERSION_(MAJOR|MINOR|PATCH) ")
  foreach(part MAJOR MINOR PATCH)
    set(_value "")
    foreach(_line IN LISTS _lines)
      if(_line MATCHES "^#define TLSF_VERSION_${part} +([0-9]+)")
        set(_value "${CMAKE_MATCH_1}")
      endif()
    endforeach()
    if(NOT "${_value}" STREQUAL "${PROJECT_VERSION_${part}}")
      message(FATAL_ERROR "${header}: TLSF_VERSION_${part} is '${_value}' but "
                          "project(tlsf VERSION ${PROJECT_VERSION}) says "
                          "'${PROJECT_VERSION_${part}}': change both together")
    endif()
  endforeach()
  file(STRINGS "${header}" _string REGEX "^#define TLSF_VERSION \"")
  if(NOT _string MATCHES "\"${PROJECT_VERSION_MAJOR}\\.${PROJECT_VERSION_MINOR}\\.${PROJECT_VERSION_PATCH}\"")
    message(FATAL_ERROR "${header}: TLSF_VERSION (${_string}) is not \"${PROJECT_VERSION}\"")
  endif()
endfunction()
