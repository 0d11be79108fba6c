# SPDX-License-Identifier: MIT
# ctest consumer_install (the fixture of consumer_find_package and consumer_pkg_config):
# builds tlsf's libraries on their own, in a configuration other than the default
# (TLSF_SL_INDEX_LOG2=4: the symbols' ABI tag changes, so a consumer that does not get the
# define from the package fails to link), installs them into <WORK>/prefix and checks the
# layout: the C headers under include/tlsf/, none directly in include/.
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

foreach(header tlsf.h tlsf_config.h tlsf_version.h tlsf.hpp global_new.hpp)
  if(NOT EXISTS ${prefix}/include/tlsf/${header})
    consumer_fail("not installed: include/tlsf/${header}")
  endif()
endforeach()
file(GLOB _loose ${prefix}/include/*.h)
if(NOT "${_loose}" STREQUAL "")
  consumer_fail("headers installed directly into include/, where they can clash: ${_loose}")
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
