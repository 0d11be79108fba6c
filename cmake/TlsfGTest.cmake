# SPDX-License-Identifier: MIT
# Provides GTest::gtest and GTest::gtest_main: Debian's prebuilt library, or GoogleTest built
# from Debian's sources (/usr/src/googletest) when the prebuilt one cannot serve the build
# (-m32, sanitizers, a cross compiler).
include(GoogleTest)
if(TLSF_GTEST_FROM_SOURCE OR TLSF_SANITIZE)
  if(NOT TARGET gtest)
    set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
    set(BUILD_GMOCK OFF CACHE BOOL "" FORCE)
    add_subdirectory(/usr/src/googletest ${CMAKE_BINARY_DIR}/googletest EXCLUDE_FROM_ALL)
  endif()
  if(NOT TARGET GTest::gtest)
    add_library(GTest::gtest ALIAS gtest)
    add_library(GTest::gtest_main ALIAS gtest_main)
  endif()
else()
  find_package(GTest REQUIRED)
endif()
