# SPDX-License-Identifier: MIT
# Toolchain file: 32-bit x86 Linux (i386) with the host's GCC or Clang and gcc-multilib.
#
#   cmake -S . -B build-m32 -DCMAKE_TOOLCHAIN_FILE=cmake/i386-linux.cmake -DTLSF_GTEST_FROM_SOURCE=ON
#   (CC=clang CXX=clang++ works too)
#
# Tests run through qemu-i386 when it is installed (CMAKE_CROSSCOMPILING_EMULATOR), because
# not every kernel executes 32-bit binaries; ctest and gtest_discover_tests use it
# automatically. Without qemu-i386 the binaries are run directly.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR i686)

set(CMAKE_C_FLAGS_INIT "-m32")
set(CMAKE_CXX_FLAGS_INIT "-m32")
set(CMAKE_ASM_FLAGS_INIT "-m32")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-m32")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-m32")
set(CMAKE_MODULE_LINKER_FLAGS_INIT "-m32")

# Find the i386 multiarch libraries (e.g. pthread for GoogleTest) before the host's.
set(CMAKE_LIBRARY_ARCHITECTURE i386-linux-gnu)

find_program(TLSF_QEMU_I386 NAMES qemu-i386 qemu-i386-static
             DOC "User-mode emulator that runs the 32-bit test binaries")
if(TLSF_QEMU_I386)
  # -L /: the i386 loader and libraries are the host's multilib ones.
  set(CMAKE_CROSSCOMPILING_EMULATOR "${TLSF_QEMU_I386};-L;/")
endif()
