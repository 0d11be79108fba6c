/*
 * SPDX-License-Identifier: MIT
 *
 * FreeRTOSConfig.h - the smallest configuration under which FreeRTOS's heap_4.c
 * (portable/MemMang, used unmodified from FREERTOS_KERNEL_PATH) compiles for the
 * Cortex-M4 benchmark images. No scheduler is built: the heap's two calls into the
 * kernel, vTaskSuspendAll and xTaskResumeAll, come from freertos_kernel_stubs.c.
 *
 * The heap is the application's (configAPPLICATION_ALLOCATED_HEAP): the build defines
 * the symbol ucHeap at the start of the images' heap region (--defsym), so heap_4 manages
 * the same RAM the other heaps get, without a .bss array that startup would zero.
 * configTOTAL_HEAP_SIZE defaults to the application images' 8 MiB; the count harness's
 * image passes its own (-DAPP_FREERTOS_HEAP_BYTES).
 *
 * configASSERT is left undefined, as in a release build: heap_4 then checks nothing at
 * run time (TLSF's default core does check a freed block's header; its lean core does
 * not).
 */
#ifndef FREERTOS_CONFIG_H
#define FREERTOS_CONFIG_H

#ifndef APP_FREERTOS_HEAP_BYTES
#define APP_FREERTOS_HEAP_BYTES (8u * 1024u * 1024u)
#endif

#define configUSE_PREEMPTION 1
#define configUSE_IDLE_HOOK 0
#define configUSE_TICK_HOOK 0
#define configCPU_CLOCK_HZ 168000000u
#define configTICK_RATE_HZ 1000u
#define configMAX_PRIORITIES 5
#define configMINIMAL_STACK_SIZE 128
#define configMAX_SYSCALL_INTERRUPT_PRIORITY (5u << 4) /* portmacro.h's BASEPRI helpers */
#define configTICK_TYPE_WIDTH_IN_BITS TICK_TYPE_WIDTH_32_BITS
#define configSUPPORT_DYNAMIC_ALLOCATION 1
#define configSUPPORT_STATIC_ALLOCATION 0
#define configAPPLICATION_ALLOCATED_HEAP 1
#define configTOTAL_HEAP_SIZE ((size_t)APP_FREERTOS_HEAP_BYTES)
#define configUSE_MALLOC_FAILED_HOOK 0
#define configENABLE_HEAP_PROTECTOR 0
#define configHEAP_CLEAR_MEMORY_ON_FREE 0

#endif /* FREERTOS_CONFIG_H */
