# SPDX-License-Identifier: MIT
# ctest consumer_find_package: the consumer project finds the installed package
# (consumer_install's prefix) with find_package(tlsf 1.0), links tlsf::tlsf, tlsf::cpp,
# tlsf::malloc and tlsf::cpp_thread_heaps, and its programs run; the one with strict
# warnings (consumer_strict) builds without a warning.
# cmake -DWORK=<dir> -DC_COMPILER=.. -DCXX_COMPILER=.. -P this
include(${CMAKE_CURRENT_LIST_DIR}/consumer_steps.cmake)
set(build ${WORK}/package)
file(REMOVE_RECURSE ${build})
consumer_run("configure" ${CMAKE_COMMAND} -S ${CMAKE_CURRENT_LIST_DIR}/app -B ${build}
  ${CONSUMER_COMPILERS} -DTLSF_CONSUMER_MODE=package -DCMAKE_PREFIX_PATH=${WORK}/prefix)
include(${build}/consumer_facts.cmake)
consumer_run("build" ${CMAKE_COMMAND} --build ${build} -j 2)
consumer_run("consumer_c" ${build}/consumer_c)
consumer_run("consumer_cpp" ${build}/consumer_cpp)
if(CONSUMER_HAS_MALLOC)
  consumer_run("consumer_malloc" ${build}/consumer_malloc)
elseif(CMAKE_HOST_SYSTEM_NAME STREQUAL "Linux")
  message(FATAL_ERROR "find_package(tlsf) gave no tlsf::malloc on Linux")
endif()
consumer_build_quietly(${build} consumer_strict)
if(CONSUMER_HAS_THREAD_HEAPS)
  consumer_run("build consumer_thread_heaps" ${CMAKE_COMMAND} --build ${build}
    --target consumer_thread_heaps -j 2)
  consumer_run("consumer_thread_heaps" ${build}/consumer_thread_heaps)
elseif(CMAKE_HOST_SYSTEM_NAME STREQUAL "Linux")
  message(FATAL_ERROR "find_package(tlsf) gave no tlsf::cpp_thread_heaps on Linux")
endif()
message("consumer_find_package: tlsf::tlsf, tlsf::cpp, tlsf::malloc and "
        "tlsf::cpp_thread_heaps work installed; the headers are system headers")
