/*
 * SPDX-License-Identifier: MIT
 *
 * fake/task.h - the kernel version and the scheduler calls heap_tlsf.c uses (see
 * fake/FreeRTOS.h).
 */
#ifndef FAKE_TASK_H
#define FAKE_TASK_H

#include "FreeRTOS.h"

#define tskKERNEL_VERSION_MAJOR 11
#define tskKERNEL_VERSION_MINOR 1

#ifdef __cplusplus
extern "C" {
#endif
void vTaskSuspendAll(void);
BaseType_t xTaskResumeAll(void);
#ifdef __cplusplus
}
#endif

#endif /* FAKE_TASK_H */
