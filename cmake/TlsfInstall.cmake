# SPDX-License-Identifier: MIT
# install() rules, an exported CMake package and a pkg-config file:
#   find_package(tlsf) then link tlsf::tlsf (C), tlsf::cpp (C++ headers), tlsf::malloc (the
#   malloc shim, Linux only), tlsf::cpp_thread_heaps (the C++ layer on the shim's per-thread
#   heaps, Linux only; it brings tlsf::malloc_prefixed); or `pkg-config --cflags --libs tlsf`.
#
# Layout under the prefix:
#   include/tlsf/tlsf.h, tlsf_config.h, tlsf_version.h, tlsf_malloc.h   the C headers
#   include/tlsf/tlsf/*.hpp                                              the C++ headers
#   lib/libtlsf.a, lib/libtlsf_malloc.so, lib/libtlsf_malloc_prefixed.a
#   lib/cmake/tlsf/, lib/pkgconfig/tlsf.pc
# Only include/tlsf goes on a consumer's include path (CMake targets and pkg-config alike):
# `#include "tlsf.h"` and `#include <tlsf/tlsf.hpp>` both work, and that directory holds
# nothing but tlsf_*.h and the tlsf/ folder, so no name in it (tlsf_config.h; the C++
# layer's config.hpp, lock.hpp, ...) can shadow or clash with another package's header.
include(CMakePackageConfigHelpers)

set(_tlsf_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/tlsf)
set_target_properties(tlsf_cpp PROPERTIES EXPORT_NAME cpp)
install(TARGETS tlsf tlsf_cpp EXPORT tlsfTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/core/include/ ${PROJECT_SOURCE_DIR}/cpp/include/
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tlsf)

# tlsf::cpp_thread_heaps and the static library it links (the malloc shim's code with
# prefixed names). The library is installed as a file and imported by tlsfConfig.cmake as
# tlsf::malloc_prefixed: its build target links targets of the shim's folder that have no
# business in the package (its headers' interface, the remote-free stack, both for its own
# compilation only), and a consumer needs no more than the archive, tlsf_malloc.h, the
# prefix define, the core and Threads.
set(TLSF_PACKAGE_THREAD_HEAPS 0)
if(TARGET tlsf_cpp_thread_heaps AND TARGET tlsf_malloc_prefixed)
  get_target_property(_tlsf_prefixed_dir tlsf_malloc_prefixed SOURCE_DIR)
  install(TARGETS tlsf_malloc_prefixed ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(FILES ${_tlsf_prefixed_dir}/tlsf_malloc.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tlsf)
  set_target_properties(tlsf_cpp_thread_heaps PROPERTIES EXPORT_NAME cpp_thread_heaps)
  install(TARGETS tlsf_cpp_thread_heaps EXPORT tlsfTargets)
  set(TLSF_PACKAGE_THREAD_HEAPS 1)
  set(TLSF_PACKAGE_MALLOC_PREFIXED_FILE
      "${CMAKE_INSTALL_LIBDIR}/${CMAKE_STATIC_LIBRARY_PREFIX}tlsf_malloc_prefixed${CMAKE_STATIC_LIBRARY_SUFFIX}")
endif()
install(EXPORT tlsfTargets NAMESPACE tlsf:: DESTINATION ${_tlsf_cmake_dir})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/tlsfConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/tlsfConfig.cmake
  INSTALL_DESTINATION ${_tlsf_cmake_dir})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/tlsfConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/tlsfConfig.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/tlsfConfigVersion.cmake
  DESTINATION ${_tlsf_cmake_dir})

# pkg-config. The headers are system headers to the consumer (-isystem: its warnings judge
# its code, not ours). The configuration defines (TLSF_ALIGN_LOG2, TLSF_CHECKS, ...) that
# tlsf::tlsf carries are part of the ABI - the symbols are tagged with them - so Cflags
# repeats them:
# a program built with `pkg-config --cflags` agrees with the library it links. The prefix
# is found from the .pc file's own place (${pcfiledir}), so the tree can be installed with
# any --prefix or moved.
set(_tlsf_pc_dir ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
file(RELATIVE_PATH _tlsf_pc_to_prefix "/prefix/${_tlsf_pc_dir}" "/prefix")
string(REGEX REPLACE "/$" "" _tlsf_pc_to_prefix "${_tlsf_pc_to_prefix}")
set(_tlsf_pc_defines "$<TARGET_PROPERTY:tlsf,INTERFACE_COMPILE_DEFINITIONS>")
file(GENERATE OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/tlsf.pc CONTENT "\
prefix=\${pcfiledir}/${_tlsf_pc_to_prefix}
includedir=\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}
libdir=\${prefix}/${CMAKE_INSTALL_LIBDIR}

Name: tlsf
Description: ${PROJECT_DESCRIPTION}
Version: ${PROJECT_VERSION}
Cflags: -isystem \${includedir}/tlsf\
$<$<BOOL:${_tlsf_pc_defines}>: -D$<JOIN:${_tlsf_pc_defines}, -D>>
Libs: -L\${libdir} -ltlsf
")
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/tlsf.pc DESTINATION ${_tlsf_pc_dir})
