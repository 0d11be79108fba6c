# SPDX-License-Identifier: MIT
# Included by core/CMakeLists.txt, so these functions exist wherever the core target does
# (the malloc shim's folder, the test folders, a consumer's add_subdirectory build).
#
# tlsf_core_objects(<name>): the sources of the core library (target `tlsf`) compiled once
# more, as the OBJECT library <name>, with exactly the core's configuration: its include
# directories, compile definitions (TLSF_CHECKS, TLSF_STATS, ... as the cache or the build
# type set them), compile options (-ffreestanding and the warning set) and C standard.
#
# For builds of the core that need flags the static library `tlsf` does not have:
# position-independent code for libtlsf_malloc.so, libFuzzer coverage, ThreadSanitizer.
# Add those to <name> afterwards. Linking <name> adds its objects and the usage
# requirements of `tlsf` (include directories and configuration), not the library, e.g.
#   tlsf_core_objects(tlsf_core_pic)
#   set_target_properties(tlsf_core_pic PROPERTIES POSITION_INDEPENDENT_CODE ON)
#   add_library(x SHARED x.c)
#   target_link_libraries(x PRIVATE tlsf_core_pic)
# The list of sources is read from `tlsf`, so a file added to the core is picked up here.
function(tlsf_core_objects name)
  if(NOT TARGET tlsf)
    message(FATAL_ERROR "tlsf_core_objects: the core target `tlsf` must be defined first")
  endif()
  get_target_property(_sources tlsf SOURCES)
  get_target_property(_dir tlsf SOURCE_DIR)
  set(_absolute "")
  foreach(_source IN LISTS _sources)
    if(IS_ABSOLUTE "${_source}")
      list(APPEND _absolute "${_source}")
    else()
      list(APPEND _absolute "${_dir}/${_source}")
    endif()
  endforeach()
  add_library(${name} OBJECT ${_absolute})
  target_include_directories(${name} PRIVATE $<TARGET_PROPERTY:tlsf,INCLUDE_DIRECTORIES>)
  target_compile_definitions(${name} PRIVATE $<TARGET_PROPERTY:tlsf,COMPILE_DEFINITIONS>)
  target_compile_options(${name} PRIVATE $<TARGET_PROPERTY:tlsf,COMPILE_OPTIONS>)
  set_target_properties(${name} PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON
                                           C_EXTENSIONS OFF)
  tlsf_core_usage(${name} INTERFACE)
endfunction()

# tlsf_core_usage(<target> [PRIVATE|PUBLIC|INTERFACE]): what is needed to include tlsf.h
# with the same configuration as the core - the usage requirements of `tlsf` - without
# linking the static library (PRIVATE unless given): for code whose core comes from
# tlsf_core_objects, or from a preloaded libtlsf_malloc.so.
function(tlsf_core_usage target)
  set(scope PRIVATE)
  if(ARGC GREATER 1)
    set(scope ${ARGV1})
  endif()
  target_include_directories(${target} ${scope}
    $<TARGET_PROPERTY:tlsf,INTERFACE_INCLUDE_DIRECTORIES>)
  target_compile_definitions(${target} ${scope}
    $<TARGET_PROPERTY:tlsf,INTERFACE_COMPILE_DEFINITIONS>)
endfunction()

# tlsf_tsan_core_objects(<name>): tlsf_core_objects(<name>) compiled with ThreadSanitizer,
# for the thread stress tests, when the C compiler (and the C++ one, if the project uses
# C++) can build and link with -fsanitize=thread; what links <name> is linked with it too.
# Sets <name>_FOUND in the caller's scope; nothing is defined when it is false.
function(tlsf_tsan_core_objects name)
  include(CheckCSourceCompiles)
  set(CMAKE_REQUIRED_FLAGS -fsanitize=thread)
  set(CMAKE_REQUIRED_LINK_OPTIONS -fsanitize=thread)
  check_c_source_compiles("int main(void) { return 0; }" TLSF_HAVE_TSAN_C)
  set(_ok ${TLSF_HAVE_TSAN_C})
  get_property(_languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if(_ok AND "CXX" IN_LIST _languages)
    include(CheckCXXSourceCompiles)
    check_cxx_source_compiles("int main() { return 0; }" TLSF_HAVE_TSAN_CXX)
    set(_ok ${TLSF_HAVE_TSAN_CXX})
  endif()
  if(_ok)
    tlsf_core_objects(${name})
    target_compile_options(${name} PRIVATE -fsanitize=thread -g)
    target_link_options(${name} INTERFACE -fsanitize=thread)
  endif()
  set(${name}_FOUND ${_ok} PARENT_SCOPE)
endfunction()
