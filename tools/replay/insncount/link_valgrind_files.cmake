# SPDX-License-Identifier: MIT
# cmake -DSOURCE=DIR -DTARGET=DIR -P link_valgrind_files.cmake: link every file of valgrind's
# library directory (the core's preload libraries, suppressions, target descriptions) into
# TARGET, where the insncount tool lives, so that VALGRIND_LIB=TARGET finds both.
file(GLOB _files "${SOURCE}/*")
foreach(_file IN LISTS _files)
  get_filename_component(_name "${_file}" NAME)
  if(NOT EXISTS "${TARGET}/${_name}")
    file(CREATE_LINK "${_file}" "${TARGET}/${_name}" SYMBOLIC)
  endif()
endforeach()
