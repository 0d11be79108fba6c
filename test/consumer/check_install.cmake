# SPDX-License-Identifier: MIT
# ctest consumer_install (the fixture of consumer_find_package and consumer_pkg_config):
# builds tlsf's libraries on their own, in a configuration other than the default
# (TLSF_SL_INDEX_LOG2=4: the symbols' ABI tag changes, so a consumer that does not get the
# define from the package fails to link), installs them into <WORK>/prefix and checks the
# layout: everything under include/tlsf/, the C++ headers in include/tlsf/tlsf/.
# cmake -DTLSF_SOURCE_DIR=<tlsf> -DWORK=<dir> -DC_COMPILER=.. -DCXX_COMPILER=.. -P this
include(${CMAKE_CURRENT_LIST_DIR}/consumer_steps.cmake)
set(build ${WORK}/tlsf-build)
set(prefix ${WORK}/prefix)
file(REMOVE_RECURSE ${build} ${prefix})
consumer_run("configure tlsf" ${CMAKE_COMMAND} -S ${TLSF_SOURCE_DIR} -B ${build}
  ${CONSUMER_COMPILERS} -DCMAKE_BUILD_TYPE=Release -DTLSF_BUILD_TESTS=OFF
  -DTLSF_SL_INDEX_LOG2=4 -DCMAKE_INSTALL_PREFIX=${prefix})
consumer_run("build tlsf" ${CMAKE_COMMAND} --build ${build} -j 2)
consumer_run("install tlsf" ${CMAKE_COMMAND} --install ${build})

foreach(header tlsf.h tlsf_config.h tlsf_version.h tlsf/tlsf.hpp tlsf/global_new.hpp)
  if(NOT EXISTS ${prefix}/include/tlsf/${header})
    consumer_fail("not installed: include/tlsf/${header}")
  endif()
endforeach()
# include/tlsf is the directory on consumers' include paths: only tlsf_* names and the
# tlsf/ folder may be there; include/ itself holds nothing but tlsf/.
file(GLOB _on_path RELATIVE ${prefix}/include ${prefix}/include/* ${prefix}/include/tlsf/*)
list(FILTER _on_path EXCLUDE REGEX "^tlsf(/tlsf(_[a-z]+)*\\.h|/tlsf)?$")
if(NOT "${_on_path}" STREQUAL "")
  consumer_fail("installed where they can clash with other packages' headers: ${_on_path}")
endif()
file(GLOB_RECURSE _pc ${prefix}/tlsf.pc)
if("${_pc}" STREQUAL "")
  consumer_fail("tlsf.pc not installed")
endif()
file(GLOB_RECURSE _config ${prefix}/tlsfConfig.cmake)
if("${_config}" STREQUAL "")
  consumer_fail("tlsfConfig.cmake not installed")
endif()
message("consumer_install: ${prefix}")
