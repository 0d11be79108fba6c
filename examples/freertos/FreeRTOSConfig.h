/*
 * SPDX-License-Identifier: MIT
 *
 * FreeRTOSConfig.h - the kernel configuration of the example firmware (mps2-an386: a
 * Cortex-M4 at 25 MHz; its NVIC has 3 priority bits). The heap lines are the ones the TLSF
 * port reads; the rest is what any Cortex-M FreeRTOS project sets.
 */
#ifndef FREERTOS_CONFIG_H
#define FREERTOS_CONFIG_H

/* The heap (ports/freertos/heap_tlsf.c). heap_4 style: a static array of this size is the
 * heap, built at the first allocation - whichever comes first, a task's pvPortMalloc or a
 * C++ static constructor's new. (heap_5 style instead: leave configTOTAL_HEAP_SIZE out and
 * call vPortDefineHeapRegions before the first allocation; without either, an allocation
 * fails configASSERT.) */
#define configSUPPORT_DYNAMIC_ALLOCATION 1
#define configTOTAL_HEAP_SIZE (256 * 1024)
#define configUSE_MALLOC_FAILED_HOOK 1
/* 0: the heap's lock suspends the scheduler (tasks only allocate, as with heap_4). 1: it
 * masks interrupts up to configMAX_SYSCALL_INTERRUPT_PRIORITY, so that interrupt handlers
 * may allocate too - C and C++ alike, since C++ takes the same lock. */
#define configTLSF_HEAP_LOCK_MASKS_INTERRUPTS 0

/* Scheduling. */
#define configCPU_CLOCK_HZ 25000000UL
#define configTICK_RATE_HZ 1000
#define configUSE_PREEMPTION 1
#define configUSE_TIME_SLICING 1
#define configMAX_PRIORITIES 5
#define configMINIMAL_STACK_SIZE 256
#define configMAX_TASK_NAME_LEN 12
#define configUSE_16_BIT_TICKS 0
#define configIDLE_SHOULD_YIELD 1
#define configUSE_TASK_NOTIFICATIONS 1
#define configUSE_MUTEXES 1
#define configUSE_IDLE_HOOK 0
#define configUSE_TICK_HOOK 0
#define configUSE_TIMERS 0
#define configSUPPORT_STATIC_ALLOCATION 0
#define configCHECK_FOR_STACK_OVERFLOW 2

/* Cortex-M interrupt priorities: the board's NVIC implements 3 bits. */
#define configPRIO_BITS 3
#define configKERNEL_INTERRUPT_PRIORITY (7 << (8 - configPRIO_BITS))
#define configMAX_SYSCALL_INTERRUPT_PRIORITY (5 << (8 - configPRIO_BITS))

#define INCLUDE_vTaskDelete 1
#define INCLUDE_vTaskDelay 1

/* An assertion that fails stops the firmware with a message (syscalls.c). */
#ifdef __cplusplus
extern "C" {
#endif
void firmware_assert_failed(const char *file, int line);
#ifdef __cplusplus
}
#endif
#define configASSERT(x)                                                                            \
    if ((x) == 0) firmware_assert_failed(__FILE__, __LINE__)

#endif /* FREERTOS_CONFIG_H */
