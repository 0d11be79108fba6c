/* SPDX-License-Identifier: MIT */
/*
 * bench_asm.S - the host's landing points and the calibration functions.
 *
 * bench_trap   every call the host makes returns here (its lr is bench_trap | 1); the
 *              host stops the emulator when the pc reaches this address, before the
 *              instruction there executes, so the trap itself is never counted.
 * bench_panic  a failure that must be loud: _sbrk in a TLSF image, a fault. The host
 *              stops here too and reports the code in r0.
 * bench_calib_* functions whose instruction counts are known by construction; the host
 *              runs them first and refuses to report anything if its counter disagrees.
 */
    .syntax unified
    .cpu cortex-m4
    .thumb
    .text

    .global bench_trap
    .type bench_trap, %function
    .thumb_func
bench_trap:
    bkpt #0x42
    b bench_trap
    .size bench_trap, . - bench_trap

    .global bench_panic
    .type bench_panic, %function
    .thumb_func
bench_panic:
    bkpt #0x43
    b bench_panic
    .size bench_panic, . - bench_panic

/* Six instructions whatever r0 holds: a 32-bit encoding, an IT block whose one
 * conditional instruction is skipped when r0 != 0 and executed when r0 == 0 (a Cortex-M4
 * issues it either way), and the return. */
    .global bench_calib_straight
    .type bench_calib_straight, %function
    .thumb_func
bench_calib_straight:
    movs r1, #1
    add.w r0, r0, r1
    cmp r0, #1
    it eq
    moveq r0, #5
    bx lr
    .size bench_calib_straight, . - bench_calib_straight

/* r0 = n >= 1 iterations of two instructions, then the return: 2n + 1. */
    .global bench_calib_loop
    .type bench_calib_loop, %function
    .thumb_func
bench_calib_loop:
1:  subs r0, r0, #1
    bne 1b
    bx lr
    .size bench_calib_loop, . - bench_calib_loop

/* push, bl, (6 in bench_calib_straight), pop: 9. */
    .global bench_calib_call
    .type bench_calib_call, %function
    .thumb_func
bench_calib_call:
    push {r4, lr}
    bl bench_calib_straight
    pop {r4, pc}
    .size bench_calib_call, . - bench_calib_call
