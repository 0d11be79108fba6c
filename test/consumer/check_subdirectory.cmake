# SPDX-License-Identifier: MIT
# ctest consumer_add_subdirectory: a consumer adds tlsf with add_subdirectory and tlsf
# changes nothing of its build:
#   - its CMAKE_BUILD_TYPE stays what it was (empty here: tlsf must not force Release);
#   - no -Werror in any compile command (warnings of a newer compiler must not break it);
#   - `all` builds the consumer's programs and the libraries they link, and nothing else
#     of tlsf (no tests, examples, malloc shim), while tlsf::malloc can still be built;
#   - the programs run, and one built with strict warnings (consumer_strict) shows none:
#     tlsf's headers are system headers to the consumer.
# cmake -DTLSF_SOURCE_DIR=<tlsf> -DWORK=<dir> -DC_COMPILER=.. -DCXX_COMPILER=.. -P this
include(${CMAKE_CURRENT_LIST_DIR}/consumer_steps.cmake)
set(build ${WORK}/subdirectory)
file(REMOVE_RECURSE ${build})
consumer_run("configure" ${CMAKE_COMMAND} -S ${CMAKE_CURRENT_LIST_DIR}/app -B ${build}
  ${CONSUMER_COMPILERS} -DTLSF_CONSUMER_MODE=subdirectory -DTLSF_SOURCE_DIR=${TLSF_SOURCE_DIR}
  -DCMAKE_EXPORT_COMPILE_COMMANDS=ON)
include(${build}/consumer_facts.cmake)
if(NOT ("${CONSUMER_BUILD_TYPE_AFTER}" STREQUAL "${CONSUMER_BUILD_TYPE_BEFORE}"))
  consumer_fail("add_subdirectory(tlsf) changed CMAKE_BUILD_TYPE from '${CONSUMER_BUILD_TYPE_BEFORE}' to '${CONSUMER_BUILD_TYPE_AFTER}'")
endif()
file(STRINGS ${build}/CMakeCache.txt _cached REGEX "^CMAKE_BUILD_TYPE:")
if(NOT ("${_cached}" MATCHES "^CMAKE_BUILD_TYPE:[A-Z]+=$"))
  consumer_fail("the cached CMAKE_BUILD_TYPE is not the consumer's (empty): ${_cached}")
endif()

consumer_run("build all" ${CMAKE_COMMAND} --build ${build} -j 2)
file(READ ${build}/compile_commands.json _commands)
if(_commands MATCHES "-Werror")
  consumer_fail("a compile command has -Werror (TLSF_WERROR must be OFF in a subproject)")
endif()
if(NOT (_commands MATCHES "-Wconversion"))
  consumer_fail("tlsf's own warnings are gone (expected -Wconversion, as warnings)")
endif()

# What `all` produced: executables and libraries, consumer's and tlsf's.
file(GLOB_RECURSE _outputs LIST_DIRECTORIES false RELATIVE ${build}
  ${build}/*.a ${build}/*.so ${build}/consumer_* ${build}/tlsf/*_test ${build}/tlsf/example_*)
list(FILTER _outputs EXCLUDE REGEX "CMakeFiles/|\\.cmake$")
list(SORT _outputs)
set(_expected consumer_c consumer_cpp tlsf/core/libtlsf.a)
if(NOT ("${_outputs}" STREQUAL "${_expected}"))
  consumer_fail("`all` built [${_outputs}], expected only [${_expected}]")
endif()

consumer_run("consumer_c" ${build}/consumer_c)
consumer_run("consumer_cpp" ${build}/consumer_cpp)
if(CONSUMER_HAS_MALLOC)
  consumer_run("build consumer_malloc" ${CMAKE_COMMAND} --build ${build} --target consumer_malloc -j 2)
  consumer_run("consumer_malloc" ${build}/consumer_malloc)
endif()
consumer_build_quietly(${build} consumer_strict)
if(CONSUMER_HAS_THREAD_HEAPS)
  consumer_run("build consumer_thread_heaps" ${CMAKE_COMMAND} --build ${build}
    --target consumer_thread_heaps -j 2)
  consumer_run("consumer_thread_heaps" ${build}/consumer_thread_heaps)
endif()
message("consumer_add_subdirectory: build type, warnings and targets untouched")
