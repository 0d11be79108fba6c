# SPDX-License-Identifier: MIT
# consumer_run(<what> <command...>): run a command of a consumer test (cmake -P scripts in
# this folder), show its output, and stop the test with <what> in the message if it fails.
function(consumer_run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
  message("${_out}")
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (exit ${_rc}): ${ARGN}")
  endif()
endfunction()

# consumer_fail(<text>): stop the test with <text>, used as
#   if(NOT <condition>) consumer_fail("...") endif()
# (plain if(): a macro taking the condition would drop its empty strings).
function(consumer_fail text)
  message(FATAL_ERROR "${text}")
endfunction()

# The compilers of the enclosing build, handed down by test/consumer/CMakeLists.txt.
set(CONSUMER_COMPILERS -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_CXX_COMPILER=${CXX_COMPILER})

# consumer_build_quietly(<build dir> <target>): build <target> and fail if the compiler said
# anything ("warning:"): for the consumer with strict warnings, to which tlsf's headers must
# be system headers.
function(consumer_build_quietly build target)
  execute_process(COMMAND ${CMAKE_COMMAND} --build ${build} --target ${target} -j 2
    RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
  message("${_out}")
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "build ${target} failed (exit ${_rc})")
  endif()
  if(_out MATCHES "warning:")
    message(FATAL_ERROR "${target}: tlsf's headers warn in a consumer with strict warnings")
  endif()
  consumer_run("${target}" ${build}/${target})
endfunction()
