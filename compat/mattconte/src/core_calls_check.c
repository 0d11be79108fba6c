/* SPDX-License-Identifier: MIT */
/*
 * core_calls_check.c - compiled with the core (after plain_names.h, which includes the
 * core's tlsf.h): every prototype of core_calls.h declares a function the core's header
 * declares too, so the compiler refuses any that does not match. No code.
 */
#include "plain_names.h"

#include "core_calls.h"

/* (A translation unit must declare something of its own: ISO C.) */
typedef int tlsf_mattconte_core_calls_match;
