/*
 * SPDX-License-Identifier: MIT
 *
 * FreeRTOSConfig.h - the kernel configuration of the heap_tlsf test firmware
 * (qemu-system-arm -M mps2-an386: a Cortex-M4F at 25 MHz with 3 NVIC priority bits).
 *
 * Preemptive, time-sliced, 1 kHz tick: the worker tasks share one priority, so the tick
 * switches between them in the middle of heap calls and container operations. Software
 * timers on (the timer task and its queue live on the heap too). Every assertion, stack
 * overflow and failed allocation ends the run with a failure line (test_main.cpp).
 */
#ifndef FREERTOS_CONFIG_H
#define FREERTOS_CONFIG_H

#define configCPU_CLOCK_HZ 25000000UL
#define configTICK_RATE_HZ 1000
#define configUSE_PREEMPTION 1
#define configUSE_TIME_SLICING 1
#define configUSE_PORT_OPTIMISED_TASK_SELECTION 1
#define configMAX_PRIORITIES 5
#define configMINIMAL_STACK_SIZE 256
#define configMAX_TASK_NAME_LEN 12
#define configUSE_16_BIT_TICKS 0
#define configIDLE_SHOULD_YIELD 1
#define configUSE_TASK_NOTIFICATIONS 1
#define configUSE_MUTEXES 1
#define configUSE_COUNTING_SEMAPHORES 1
#define configQUEUE_REGISTRY_SIZE 0
#define configUSE_IDLE_HOOK 0
/* The regions-isr build sets it to 1: the tick interrupt then allocates (test_main.cpp). */
#ifndef configUSE_TICK_HOOK
#define configUSE_TICK_HOOK 0
#endif
#define configCHECK_FOR_STACK_OVERFLOW 2
#define configUSE_MALLOC_FAILED_HOOK 1
#define configSUPPORT_DYNAMIC_ALLOCATION 1
#define configSUPPORT_STATIC_ALLOCATION 0
#define configUSE_TRACE_FACILITY 0
#define configUSE_STATS_FORMATTING_FUNCTIONS 0

/* Software timers: the timer task outranks the workers, so a deleted timer is freed
 * before the supervisor (lowest priority but idle) looks at the heap. */
#define configUSE_TIMERS 1
#define configTIMER_TASK_PRIORITY 3
#define configTIMER_QUEUE_LENGTH 16
#define configTIMER_TASK_STACK_DEPTH 512

/* The heap: heap_4 style (ucHeap of configTOTAL_HEAP_SIZE) unless the firmware is built
 * to define its regions itself (heap_5 style, TEST_HEAP_REGIONS=1). */
#if !defined(TEST_HEAP_REGIONS) || (TEST_HEAP_REGIONS == 0)
#define configTOTAL_HEAP_SIZE (128 * 1024)
#define configAPPLICATION_ALLOCATED_HEAP 1 /* test_main.cpp's ucHeap: the test knows where */
#endif
/* The port's own option (ports/freertos/README.md); the CMake file builds both values. */
#ifndef configTLSF_HEAP_LOCK_MASKS_INTERRUPTS
#define configTLSF_HEAP_LOCK_MASKS_INTERRUPTS 0
#endif

/* Cortex-M interrupt priorities: 3 bits on the MPS2 boards' NVIC. */
#define configPRIO_BITS 3
#define configKERNEL_INTERRUPT_PRIORITY (7 << (8 - configPRIO_BITS))
#define configMAX_SYSCALL_INTERRUPT_PRIORITY (5 << (8 - configPRIO_BITS))

#define INCLUDE_vTaskDelete 1
#define INCLUDE_vTaskDelay 1
#define INCLUDE_vTaskSuspend 1
#define INCLUDE_xTaskGetSchedulerState 1
#define INCLUDE_uxTaskGetStackHighWaterMark 0

/* test_main.cpp: prints the file and line, then ends the run as a failure. */
#ifdef __cplusplus
extern "C" {
#endif
void test_assert_failed(const char *file, int line);
#ifdef __cplusplus
}
#endif
#define configASSERT(x)                                                                            \
    if ((x) == 0) test_assert_failed(__FILE__, __LINE__)

#endif /* FREERTOS_CONFIG_H */
