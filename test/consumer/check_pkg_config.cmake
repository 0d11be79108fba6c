# SPDX-License-Identifier: MIT
# ctest consumer_pkg_config: a C program built with nothing but
#   cc consumer.c $(pkg-config --cflags --libs tlsf)
# against consumer_install's prefix. The library there was built with
# TLSF_SL_INDEX_LOG2=4, so Cflags must carry that define: without it the program would ask
# for symbols of another configuration and fail to link.
# The C++ consumer is built the same way.
# cmake -DWORK=<dir> -DC_COMPILER=.. -DCXX_COMPILER=.. -DPKG_CONFIG=<pkg-config> -P this
include(${CMAKE_CURRENT_LIST_DIR}/consumer_steps.cmake)
file(GLOB_RECURSE _pc ${WORK}/prefix/tlsf.pc)
get_filename_component(_pc_dir "${_pc}" DIRECTORY)
set(ENV{PKG_CONFIG_PATH} "${_pc_dir}")
execute_process(COMMAND ${PKG_CONFIG} --cflags --libs tlsf RESULT_VARIABLE _rc
  OUTPUT_VARIABLE _flags ERROR_VARIABLE _error OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT (_rc EQUAL 0))
  consumer_fail("pkg-config --cflags --libs tlsf: ${_error}")
endif()
message("pkg-config --cflags --libs tlsf: ${_flags}")
if(NOT (_flags MATCHES "-DTLSF_SL_INDEX_LOG2=4"))
  consumer_fail("Cflags lack the library's configuration define TLSF_SL_INDEX_LOG2=4")
endif()
separate_arguments(_flags UNIX_COMMAND "${_flags}")
set(program ${WORK}/pkg_config_consumer)
consumer_run("compile and link with pkg-config's flags" ${C_COMPILER} -std=c11
  ${CMAKE_CURRENT_LIST_DIR}/app/consumer.c ${_flags} -o ${program})
consumer_run("run" ${program})
# The C++ layer through the same flags: <tlsf/tlsf.hpp> is found under include/tlsf.
set(program_cpp ${WORK}/pkg_config_consumer_cpp)
consumer_run("compile the C++ consumer with pkg-config's flags" ${CXX_COMPILER} -std=c++17
  ${CMAKE_CURRENT_LIST_DIR}/app/consumer.cpp ${_flags} -o ${program_cpp})
consumer_run("run the C++ consumer" ${program_cpp})
# With strict warnings: -isystem keeps tlsf's headers out of the consumer's warnings.
set(program_strict ${WORK}/pkg_config_consumer_strict)
execute_process(COMMAND ${CXX_COMPILER} -std=c++17 -Wall -Wextra -Wpedantic -Wconversion
  -Wshadow -Wzero-as-null-pointer-constant -Wold-style-cast -Wpadded
  ${CMAKE_CURRENT_LIST_DIR}/app/consumer_strict.cpp ${_flags} -o ${program_strict}
  RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
message("${_out}")
if(NOT (_rc EQUAL 0) OR _out MATCHES "warning:")
  consumer_fail("the strict C++ consumer does not build quietly with pkg-config's flags")
endif()
consumer_run("run the strict C++ consumer" ${program_strict})
message("consumer_pkg_config: C and C++ built and ran with pkg-config's flags")
