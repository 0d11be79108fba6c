// SPDX-License-Identifier: MIT
//
// main.cpp - a FreeRTOS application in C and C++ on one heap.
//
// A C-style task builds strings with malloc and strdup and sends them through a queue; a
// C++ task receives them into std::vector and std::map (global operator new), tlsf::vector
// (tlsf::allocator) and a std::pmr::vector (tlsf::memory_resource), and frees the C
// strings with free(). printf's buffer comes from malloc too. Every one of these
// allocations is a block of the FreeRTOS heap, counted by vPortGetHeapStats: the report
// task checks it, checks that the heap is back where it was when the tasks are gone, and
// ends the program (exit status 0 in QEMU).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory_resource>
#include <string>
#include <vector>

#include "FreeRTOS.h"
#include "heap_tlsf.h"
#include "queue.h"
#include "task.h"

#include <tlsf/allocator.hpp>
#include <tlsf/containers.hpp>
#include <tlsf/memory_resource.hpp>

extern "C" [[noreturn]] void firmware_exit(int status); // syscalls.c

namespace {

QueueHandle_t words;
TaskHandle_t reporter;
constexpr int word_count = 200;
int failures = 0;

void expect(bool holds, const char *what) {
    std::printf("%-52s %s\n", what, holds ? "ok" : "FAILED");
    if (!holds) ++failures;
}

// C style: strings from malloc and strdup, handed over through the queue.
void c_task(void *) {
    for (int i = 0; i < word_count; ++i) {
        char *word = static_cast<char *>(std::malloc(16));
        configASSERT(word != nullptr);
        std::snprintf(word, 16, "word-%03d", i);
        char *copy = strdup(word); // newlib's strdup: its malloc is the FreeRTOS heap too
        std::free(word);
        xQueueSend(words, &copy, portMAX_DELAY);
    }
    xTaskNotifyGive(reporter);
    vTaskDelete(nullptr);
}

// C++: the same words in containers on every C++ path. (A function of its own: a task
// ends in vTaskDelete, which does not return, so objects in the task function's own
// scope would never be destroyed.)
void collect_words() {
    tlsf::memory_resource resource; // std::pmr on the default heap
    std::vector<std::string> all;   // global operator new
    std::map<char, int> by_last_digit;
    tlsf::vector<std::size_t> lengths; // tlsf::allocator
    std::pmr::vector<std::pmr::string> odd{&resource};
    for (int i = 0; i < word_count; ++i) {
        char *word = nullptr;
        xQueueReceive(words, &word, portMAX_DELAY);
        all.emplace_back(word);
        ++by_last_digit[word[std::strlen(word) - 1]];
        lengths.push_back(std::strlen(word));
        if (i % 2 == 1) odd.emplace_back(word);
        std::free(word); // a C block, freed by C code in a C++ task: one heap
    }
    std::printf("c++ task: %u words, %u ending in 7, %u odd ones, last %s\n",
                static_cast<unsigned>(all.size()), static_cast<unsigned>(by_last_digit['7']),
                static_cast<unsigned>(odd.size()), all.back().c_str());
}

void cpp_task(void *) {
    collect_words();
    xTaskNotifyGive(reporter);
    vTaskDelete(nullptr);
}

// Hands `block` to the outside world: a malloc/free pair the compiler sees unused may be
// dropped altogether, and this check must see every allocation happen.
void *volatile last_block;
void *kept(void *block) {
    last_block = block;
    return block;
}

// Each way of allocating takes a block of the FreeRTOS heap, counted as one allocation.
void check_one_heap() {
    HeapStats_t before;
    vPortGetHeapStats(&before);
    tlsf::allocator<int> allocator;
    tlsf::memory_resource resource;
    void *blocks[] = {kept(pvPortMalloc(32)), kept(std::malloc(32)), kept(::operator new(32)),
                      kept(allocator.allocate(8)), kept(resource.allocate(32, 8))};
    HeapStats_t during;
    vPortGetHeapStats(&during);
    vPortFree(blocks[0]);
    std::free(blocks[1]);
    ::operator delete(blocks[2]);
    allocator.deallocate(static_cast<int *>(blocks[3]), 8);
    resource.deallocate(blocks[4], 32, 8);
    HeapStats_t after;
    vPortGetHeapStats(&after);
    std::printf(
        "pvPortMalloc, malloc, new, tlsf::allocator, pmr: %u allocations, %u frees\n",
        static_cast<unsigned>(during.xNumberOfSuccessfulAllocations -
                              before.xNumberOfSuccessfulAllocations),
        static_cast<unsigned>(after.xNumberOfSuccessfulFrees - during.xNumberOfSuccessfulFrees));
    expect(during.xNumberOfSuccessfulAllocations == before.xNumberOfSuccessfulAllocations + 5 &&
               after.xNumberOfSuccessfulFrees == during.xNumberOfSuccessfulFrees + 5 &&
               after.xAvailableHeapSpaceInBytes == before.xAvailableHeapSpaceInBytes,
           "five ways to allocate, one heap, every block counted");
}

void report_task(void *) {
    check_one_heap();
    const std::size_t free_before = xPortGetFreeHeapSize();
    TaskHandle_t c = nullptr, cpp = nullptr;
    configASSERT(xTaskCreate(c_task, "c", 512, nullptr, 2, &c) == pdPASS);
    configASSERT(xTaskCreate(cpp_task, "c++", 1024, nullptr, 2, &cpp) == pdPASS);
    ulTaskNotifyTake(pdFALSE, portMAX_DELAY);
    ulTaskNotifyTake(pdFALSE, portMAX_DELAY);
    vTaskDelay(pdMS_TO_TICKS(10)); // the idle task frees the deleted tasks' stacks
    HeapStats_t stats;
    vPortGetHeapStats(&stats);
    std::printf("heap: %u allocations, %u frees, %u bytes free, at least %u ever\n",
                static_cast<unsigned>(stats.xNumberOfSuccessfulAllocations),
                static_cast<unsigned>(stats.xNumberOfSuccessfulFrees),
                static_cast<unsigned>(stats.xAvailableHeapSpaceInBytes),
                static_cast<unsigned>(stats.xMinimumEverFreeBytesRemaining));
    expect(xPortGetFreeHeapSize() == free_before, "the tasks gave back every byte");
    expect(xPortCheckHeap() == 0, "heap consistent (xPortCheckHeap)");
    std::printf("freertos-example: %s\n", failures == 0 ? "PASS" : "FAIL");
    std::fflush(stdout);
    firmware_exit(failures == 0 ? 0 : 1);
}

// Out of memory in C++ (no exceptions): tlsf's failure handler, which must not return.
void out_of_memory(tlsf::failure, std::size_t bytes) {
    std::printf("out of memory (%u bytes)\n", static_cast<unsigned>(bytes));
    firmware_exit(2);
}

} // namespace

extern "C" void vApplicationMallocFailedHook(void) {
    std::printf("pvPortMalloc failed\n");
    firmware_exit(2);
}

extern "C" void vApplicationStackOverflowHook(TaskHandle_t, char *name) {
    std::printf("stack overflow in %s\n", name);
    firmware_exit(3);
}

int main() {
    tlsf::set_failure_handler(out_of_memory);
    std::printf("FreeRTOS %s and tlsf on mps2-an386, %s float\n", tskKERNEL_VERSION_NUMBER,
#if defined(__ARM_FP) && !defined(__SOFTFP__)
                "hard"
#else
                "soft"
#endif
    );
    words = xQueueCreate(8, sizeof(char *));
    configASSERT(words != nullptr);
    configASSERT(xTaskCreate(report_task, "report", 1024, nullptr, 1, &reporter) == pdPASS);
    vTaskStartScheduler();
    return 1; // not reached: the scheduler runs until report_task ends the program
}
