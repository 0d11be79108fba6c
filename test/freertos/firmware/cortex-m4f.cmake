# SPDX-License-Identifier: MIT
#
# cortex-m4f.cmake - toolchain file of the FreeRTOS test firmware: arm-none-eabi-gcc for a
# Cortex-M4 with its FPU (hard float, as the kernel's ARM_CM4F port needs), newlib-nano.
# --specs=nano.specs is given once, in the compile flags (CMake passes those to the link
# too); nosys.specs only to the link.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_CXX_COMPILER arm-none-eabi-g++)
set(CMAKE_ASM_COMPILER arm-none-eabi-gcc)
set(_cm4f "-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16")
set(CMAKE_C_FLAGS_INIT "${_cm4f} --specs=nano.specs -ffunction-sections -fdata-sections")
set(CMAKE_CXX_FLAGS_INIT "${_cm4f} --specs=nano.specs -ffunction-sections -fdata-sections -fno-exceptions -fno-rtti")
set(CMAKE_ASM_FLAGS_INIT "${_cm4f}")
set(CMAKE_EXE_LINKER_FLAGS_INIT "--specs=nosys.specs -nostartfiles -Wl,--gc-sections")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
