# SPDX-License-Identifier: MIT
# arm-none-eabi.cmake - CMake toolchain file for bare-metal Cortex-M4 (Thumb-2) with the
# Debian/Ubuntu GNU Arm Embedded toolchain (arm-none-eabi-gcc/g++, newlib).
#
#   cmake -S . -B build-m4 -DCMAKE_TOOLCHAIN_FILE=cmake/arm-none-eabi.cmake \
#         -DTLSF_BUILD_TESTS=OFF [-DTLSF_M4_FLOAT_ABI=hard] [-DTLSF_M4_NEWLIB=full]
#
# Cache options (changing one in an existing build tree takes effect at the next configure):
#   TLSF_M4_FLOAT_ABI  soft (default): -mfloat-abi=soft, no FPU instructions. FreeRTOS port:
#                      GCC_ARM_CM3 (the M3 port runs on an M4 and saves no FPU registers).
#                      hard: -mfloat-abi=hard -mfpu=fpv4-sp-d16, the M4F's FPU. FreeRTOS
#                      port: GCC_ARM_CM4F. The startup code must then enable CP10/CP11 in
#                      CPACR before any float is used (examples/*/startup.c do).
#                      The matching port's name is left in TLSF_M4_FREERTOS_PORT, which
#                      ports/freertos/CMakeLists.txt takes as FREERTOS_PORT's default (and
#                      refuses a FREERTOS_PORT that does not match).
#   TLSF_M4_NEWLIB     nano (default): --specs=nano.specs, newlib-nano (small malloc, printf).
#                      full: the full newlib.
#   TLSF_M4_TOOLCHAIN_PREFIX  the compiler prefix, default arm-none-eabi-.
#
# The CPU, float ABI and specs are compile and link options of every target (directory
# options set here), not part of CMAKE_<LANG>_FLAGS: a -DCMAKE_C_FLAGS=... of the user's
# replaces those flags, and would otherwise silently build for the compiler's default
# target. Do not repeat --specs=nano.specs in your own flags: GCC refuses it twice.
#
# Executables need a linker script, startup code and the newlib system calls of their own:
# examples/firmware/ (bare metal) and examples/freertos/ (FreeRTOS) are complete projects
# to copy; docs/firmware.md lists what a firmware must provide. try_compile() builds
# static libraries only, so CMake's compiler checks never link.

set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

set(TLSF_M4_TOOLCHAIN_PREFIX "arm-none-eabi-" CACHE STRING "Cross compiler prefix")
set(TLSF_M4_FLOAT_ABI "soft" CACHE STRING
    "Cortex-M4 float ABI: soft (FreeRTOS port GCC_ARM_CM3) or hard (FPU, FreeRTOS port GCC_ARM_CM4F)")
set_property(CACHE TLSF_M4_FLOAT_ABI PROPERTY STRINGS soft hard)
set(TLSF_M4_NEWLIB "nano" CACHE STRING "C library flavour: nano (newlib-nano) or full")
set_property(CACHE TLSF_M4_NEWLIB PROPERTY STRINGS nano full)

# try_compile() projects re-read this file: hand the choices down to them.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES
     TLSF_M4_TOOLCHAIN_PREFIX TLSF_M4_FLOAT_ABI TLSF_M4_NEWLIB)

find_program(TLSF_M4_GCC ${TLSF_M4_TOOLCHAIN_PREFIX}gcc)
find_program(TLSF_M4_GXX ${TLSF_M4_TOOLCHAIN_PREFIX}g++)
if(NOT TLSF_M4_GCC)
  message(FATAL_ERROR "arm-none-eabi.cmake: ${TLSF_M4_TOOLCHAIN_PREFIX}gcc not found "
                      "(Debian: apt-get install gcc-arm-none-eabi libnewlib-arm-none-eabi)")
endif()
set(CMAKE_C_COMPILER ${TLSF_M4_GCC})
set(CMAKE_ASM_COMPILER ${TLSF_M4_GCC})
if(TLSF_M4_GXX)
  set(CMAKE_CXX_COMPILER ${TLSF_M4_GXX})
endif()
get_filename_component(_tlsf_m4_bin ${TLSF_M4_GCC} DIRECTORY)
find_program(CMAKE_OBJCOPY ${TLSF_M4_TOOLCHAIN_PREFIX}objcopy HINTS ${_tlsf_m4_bin})
find_program(CMAKE_SIZE ${TLSF_M4_TOOLCHAIN_PREFIX}size HINTS ${_tlsf_m4_bin})

# Code generation: Cortex-M4, Thumb-2, the chosen float ABI, and the FreeRTOS port for it.
set(_tlsf_m4_cpu -mcpu=cortex-m4 -mthumb)
if(TLSF_M4_FLOAT_ABI STREQUAL "hard")
  list(APPEND _tlsf_m4_cpu -mfloat-abi=hard -mfpu=fpv4-sp-d16)
  set(TLSF_M4_FREERTOS_PORT GCC_ARM_CM4F)
elseif(TLSF_M4_FLOAT_ABI STREQUAL "soft")
  list(APPEND _tlsf_m4_cpu -mfloat-abi=soft)
  set(TLSF_M4_FREERTOS_PORT GCC_ARM_CM3)
else()
  message(FATAL_ERROR "TLSF_M4_FLOAT_ABI must be soft or hard, not '${TLSF_M4_FLOAT_ABI}'")
endif()

# newlib flavour: the specs file picks libc_nano/libstdc++_nano and the matching headers.
if(TLSF_M4_NEWLIB STREQUAL "nano")
  set(_tlsf_m4_specs --specs=nano.specs)
elseif(TLSF_M4_NEWLIB STREQUAL "full")
  set(_tlsf_m4_specs "")
else()
  message(FATAL_ERROR "TLSF_M4_NEWLIB must be nano or full, not '${TLSF_M4_NEWLIB}'")
endif()

# The target's flags as options of every target, compile and link alike (CMake links with
# the compiler driver, which picks the multilib and specs from them). Options, not
# CMAKE_<LANG>_FLAGS_INIT: those only initialise the cache, which the user's own
# -DCMAKE_<LANG>_FLAGS replaces. COMPILE_OPTIONS do not reach the link line, so the specs
# appear once on each (GCC refuses a second --specs=nano.specs).
add_compile_options(${_tlsf_m4_cpu} ${_tlsf_m4_specs})
add_link_options(${_tlsf_m4_cpu} ${_tlsf_m4_specs})

# Each function and object in its own section so that --gc-sections drops what is unused:
# defaults the user's flags may replace.
set(CMAKE_C_FLAGS_INIT "-ffunction-sections -fdata-sections")
set(CMAKE_CXX_FLAGS_INIT "-ffunction-sections -fdata-sections")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-Wl,--gc-sections")

# Find headers and libraries in the target's sysroot only, programs on the host.
execute_process(COMMAND ${TLSF_M4_GCC} -print-sysroot
                OUTPUT_VARIABLE _tlsf_m4_sysroot OUTPUT_STRIP_TRAILING_WHITESPACE)
if(_tlsf_m4_sysroot)
  set(CMAKE_FIND_ROOT_PATH ${_tlsf_m4_sysroot})
endif()
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
