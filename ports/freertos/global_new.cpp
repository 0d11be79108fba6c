// SPDX-License-Identifier: MIT
//
// global_new.cpp - all twenty replaceable global operator new and delete forms on the
// default heap, which tlsf_freertos.cpp makes the FreeRTOS heap. Part of the CMake target
// tlsf::freertos_cpp; without CMake, compile it once in the program (or include
// <tlsf/global_new.hpp> in one translation unit of your own instead).
#include <tlsf/global_new.hpp>
