/*
 * SPDX-License-Identifier: MIT
 *
 * freertos_kernel_stubs.c - the kernel calls heap_4.c makes, without a kernel.
 *
 * heap_4 brackets every pvPortMalloc and vPortFree with vTaskSuspendAll and
 * xTaskResumeAll. These stand-ins keep the shape of the kernel's (single core): suspend
 * increments the suspension count; resume masks interrupts (PRIMASK, as the TLSF images'
 * lock does), decrements it and, back at zero, checks for a pended yield, then restores
 * PRIMASK. The real xTaskResumeAll does more (it raises BASEPRI through a critical
 * section, walks the pending-ready list, handles pended ticks), so the heap_4 counts
 * here are a lower bound of what a FreeRTOS application pays.
 *
 * vPortGetHeapStats (used by the heap-age run, outside the measurements) also enters a
 * critical section: vPortEnterCritical / vPortExitCritical, here PRIMASK with nesting.
 */
#include <stdint.h>

#include "FreeRTOS.h"
#include "task.h"

static volatile UBaseType_t scheduler_suspended;
static volatile BaseType_t yield_pending;

void vTaskSuspendAll(void) {
    scheduler_suspended = scheduler_suspended + 1u;
    __asm volatile("" ::: "memory");
}

BaseType_t xTaskResumeAll(void) {
    uint32_t primask;
    BaseType_t yielded = pdFALSE;
    __asm volatile("mrs %0, primask\n\tcpsid i" : "=r"(primask)::"memory");
    scheduler_suspended = scheduler_suspended - 1u;
    if (scheduler_suspended == 0u && yield_pending != pdFALSE) {
        yield_pending = pdFALSE;
        yielded = pdTRUE;
    }
    __asm volatile("msr primask, %0" ::"r"(primask) : "memory");
    return yielded;
}

static uint32_t critical_nesting;
static uint32_t critical_primask;

void vPortEnterCritical(void) {
    uint32_t primask;
    __asm volatile("mrs %0, primask\n\tcpsid i" : "=r"(primask)::"memory");
    if (critical_nesting++ == 0u) critical_primask = primask;
}

void vPortExitCritical(void) {
    if (--critical_nesting == 0u)
        __asm volatile("msr primask, %0" ::"r"(critical_primask) : "memory");
}
