// SPDX-License-Identifier: MIT
//
// test_main.cpp - the heap_tlsf FreeRTOS firmware test (qemu-system-arm -M mps2-an386).
//
// One heap for the whole firmware: the kernel's pvPortMalloc (heap_tlsf.c), newlib's malloc
// family (newlib_malloc.c), the global operator new and delete, tlsf::allocator and a
// tlsf::memory_resource for std::pmr (the C++ default heap adopts the port's heap and lock:
// tlsf_freertos.cpp). Nothing else allocates: the image has no newlib allocator at all
// (scripts/test-stages/freertos.sh checks its symbols), and it links with -nostartfiles
// and no system-call library, with only the symbols docs/firmware.md lists.
//
// Worker tasks of one priority, time-sliced by the 1 kHz tick, churn the heap at once:
// queues and semaphores created, used and deleted; software timers created, fired and
// deleted (the timer task frees them); std::vector and std::map through the global new,
// tlsf::map and tlsf::vector through tlsf::allocator, std::pmr containers on a
// tlsf::memory_resource; malloc, calloc, realloc, memalign and strdup; raw
// pvPortMalloc/pvPortCalloc/vPortFree with content checks; tasks that create and delete
// tasks (the idle task frees those). In the "regions-isr" build the heap is three regions
// (heap_5 style), locked by masking interrupts, the tick interrupt allocates and frees
// too - pvPortMalloc, malloc and operator new - and the core's front cache is on. The
// "ucheap" build uses configTOTAL_HEAP_SIZE (heap_4 style, the application's ucHeap),
// suspends the scheduler, and grows the heap by two regions at run time.
//
// Before the workers, the supervisor allocates once in each of the five ways and checks
// that each block lies in the port's heap and that the port's statistics count each one,
// span for span. When every worker has finished and the idle task has freed their
// stacks, it checks: the heap is consistent (tlsf_check, tlsf_check_pool), the free bytes
// are back to the value before the workers started (nothing leaked), the port's counts
// agree with the TLSF heap's own statistics, with the C++ default heap's and with
// vPortGetHeapStats' walk, the malloc-failed hook ran exactly when an allocation failed.
// Then it prints one line,
//   freertos-heap-test: PASS (...)   or   freertos-heap-test: FAIL (...)
// and ends QEMU through semihosting (exit status 0 on PASS).
// strdup is POSIX: newlib declares it in strict C++ only with this.
#define _DEFAULT_SOURCE 1

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory_resource>
#include <new>
#include <vector>

#include <malloc.h> // memalign (newlib)

#include <tlsf/allocator.hpp>
#include <tlsf/containers.hpp>
#include <tlsf/default_heap.hpp>
#include <tlsf/memory_resource.hpp>

#include "FreeRTOS.h"
#include "queue.h"
#include "semphr.h"
#include "task.h"
#include "timers.h"

#include "heap_tlsf.h"
#include "semihosting.h"

#ifndef TEST_HEAP_REGIONS
#define TEST_HEAP_REGIONS 0
#endif

namespace {

// ---- Output and failure ----------------------------------------------------------------

// A line being built, without the C library's printf (which may allocate).
class line {
  public:
    line &operator<<(const char *text) {
        while (*text != '\0' && length_ + 1 < sizeof text_)
            text_[length_++] = *text++;
        text_[length_] = '\0';
        return *this;
    }
    line &operator<<(std::size_t value) {
        char digits[24];
        std::size_t n = 0;
        do {
            digits[n++] = static_cast<char>('0' + value % 10u);
            value /= 10u;
        } while (value != 0u);
        char reversed[24];
        for (std::size_t i = 0; i < n; ++i)
            reversed[i] = digits[n - 1 - i];
        reversed[n] = '\0';
        return *this << static_cast<const char *>(reversed);
    }
    const char *c_str() const { return text_; }

  private:
    char text_[256] = {};
    std::size_t length_ = 0;
};

[[noreturn]] void fail(const char *what, std::size_t detail = 0) {
    taskDISABLE_INTERRUPTS();
    line out;
    out << "freertos-heap-test: FAIL (" << what << ", " << detail << ")\n";
    semihosting_write(out.c_str());
    semihosting_exit(0);
}

void check(bool condition, const char *what, std::size_t detail = 0) {
    if (!condition) fail(what, detail);
}

// ---- Deterministic randomness (one generator per task) -------------------------------------

class rng {
  public:
    explicit rng(std::uint32_t seed) : state_(seed * 2654435761u + 1u) {}
    std::uint32_t next() {
        state_ ^= state_ << 13;
        state_ ^= state_ >> 17;
        state_ ^= state_ << 5;
        return state_;
    }
    std::uint32_t below(std::uint32_t n) { return next() % n; }

  private:
    std::uint32_t state_;
};

// ---- Shared state ------------------------------------------------------------------------

TaskHandle_t supervisor_handle;
// Raised by vApplicationMallocFailedHook; the supervisor provokes exactly two failures.
volatile std::size_t malloc_failures;
// Allocations the tick interrupt made (regions-isr build), and a switch that stops them
// while the supervisor counts allocations exactly.
volatile std::size_t tick_allocations;
volatile bool tick_allocations_paused;
// Evidence of preemption: the raw workers note who made the last step; a step that finds
// another worker's mark follows a task switch in the middle of a worker's loop.
volatile std::uintptr_t last_raw_worker;
volatile std::size_t raw_worker_switches;

void worker_done() {
    xTaskNotifyGive(supervisor_handle);
    vTaskDelete(nullptr);
}

// ---- Workers ------------------------------------------------------------------------------

// Queues of random shape, filled, drained (order and contents checked) and deleted; now
// and then a mutex and a counting semaphore beside them.
void queue_worker(void *parameter) {
    rng random(static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(parameter)));
    for (std::uint32_t round = 0; round < 300; ++round) {
        const UBaseType_t length = 1u + random.below(8);
        QueueHandle_t queue = xQueueCreate(length, sizeof(std::uint32_t));
        check(queue != nullptr, "xQueueCreate", round);
        for (std::uint32_t i = 0; i < length; ++i) {
            const std::uint32_t item = round * 16u + i;
            check(xQueueSend(queue, &item, 0) == pdPASS, "xQueueSend", round);
        }
        for (std::uint32_t i = 0; i < length; ++i) {
            std::uint32_t item = 0;
            check(xQueueReceive(queue, &item, 0) == pdPASS, "xQueueReceive", round);
            check(item == round * 16u + i, "queue order", round);
        }
        if (round % 8u == 0u) {
            SemaphoreHandle_t mutex = xSemaphoreCreateMutex();
            SemaphoreHandle_t counting = xSemaphoreCreateCounting(4, 0);
            check(mutex != nullptr && counting != nullptr, "semaphore create", round);
            check(xSemaphoreTake(mutex, 0) == pdPASS, "mutex take", round);
            check(xSemaphoreGive(mutex) == pdPASS, "mutex give", round);
            vSemaphoreDelete(counting);
            vSemaphoreDelete(mutex);
        }
        vQueueDelete(queue);
    }
    worker_done();
}

std::size_t timer_fires[4];

void timer_fired(TimerHandle_t timer) {
    const auto slot = reinterpret_cast<std::uintptr_t>(pvTimerGetTimerID(timer));
    ++timer_fires[slot];
}

// Timers created, started, left to fire a few times and deleted; the deletion is a
// command the timer task carries out (and frees the timer) later.
void timer_worker(void *) {
    std::size_t expected_min = 0;
    for (std::uint32_t round = 0; round < 30; ++round) {
        TimerHandle_t timers[4];
        for (std::uintptr_t slot = 0; slot < 4; ++slot) {
            timers[slot] =
                xTimerCreate("t", pdMS_TO_TICKS(1 + slot), slot % 2 == 0 ? pdTRUE : pdFALSE,
                             reinterpret_cast<void *>(slot), timer_fired);
            check(timers[slot] != nullptr, "xTimerCreate", round);
            check(xTimerStart(timers[slot], portMAX_DELAY) == pdPASS, "xTimerStart", round);
        }
        vTaskDelay(pdMS_TO_TICKS(6));
        for (TimerHandle_t timer : timers)
            check(xTimerDelete(timer, portMAX_DELAY) == pdPASS, "xTimerDelete", round);
        ++expected_min;
    }
    // Every timer had at least 6 ms to fire once: the one-shots exactly once per round.
    check(timer_fires[1] == expected_min, "one-shot timer fires", timer_fires[1]);
    check(timer_fires[0] >= expected_min, "auto-reload timer fires", timer_fires[0]);
    worker_done();
}

// A vector and a map of vectors, filled at random and checked against sums computed on
// the side; `make_vector` and `make_map` build them on the heap under test.
template <class MakeVector, class MakeMap>
void churn_containers(rng &random, std::uint32_t round, MakeVector make_vector, MakeMap make_map) {
    auto numbers = make_vector();
    std::uint32_t sum = 0;
    const std::uint32_t count = 1u + random.below(300);
    for (std::uint32_t i = 0; i < count; ++i) {
        numbers.push_back(random.next());
        sum += numbers.back();
    }
    auto table = make_map();
    for (std::uint32_t i = 0; i < 40; ++i) {
        const std::uint32_t key = random.below(64);
        table[key].assign(1u + random.below(48), static_cast<std::uint8_t>(key));
        if (random.below(4) == 0) table.erase(random.below(64));
    }
    for (const auto &entry : table)
        for (std::uint8_t byte : entry.second)
            check(byte == static_cast<std::uint8_t>(entry.first), "map contents", round);
    std::uint32_t again = 0;
    for (std::uint32_t n : numbers)
        again += n;
    check(again == sum, "vector contents", round);
}

// std::vector and std::map through the global operator new.
void container_worker(void *parameter) {
    rng random(static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(parameter)));
    for (std::uint32_t round = 0; round < 60; ++round)
        churn_containers(
            random, round, [] { return std::vector<std::uint32_t>{}; },
            [] { return std::map<std::uint32_t, std::vector<std::uint8_t>>{}; });
    worker_done();
}

// tlsf::vector and tlsf::map: tlsf::allocator on the default heap.
void tlsf_container_worker(void *parameter) {
    rng random(static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(parameter)));
    for (std::uint32_t round = 0; round < 60; ++round)
        churn_containers(
            random, round, [] { return tlsf::vector<std::uint32_t>{}; },
            [] { return tlsf::map<std::uint32_t, tlsf::vector<std::uint8_t>>{}; });
    worker_done();
}

// std::pmr containers on a tlsf::memory_resource over the default heap (the inner vectors
// get it too: uses-allocator construction). Some blocks are over-aligned (memalign).
void pmr_container_worker(void *parameter) {
    rng random(static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(parameter)));
    tlsf::memory_resource resource;
    for (std::uint32_t round = 0; round < 60; ++round) {
        churn_containers(
            random, round, [&] { return std::pmr::vector<std::uint32_t>{&resource}; },
            [&] {
                return std::pmr::map<std::uint32_t, std::pmr::vector<std::uint8_t>>{&resource};
            });
        void *aligned = resource.allocate(96, 64);
        check(reinterpret_cast<std::uintptr_t>(aligned) % 64u == 0u, "pmr alignment", round);
        resource.deallocate(aligned, 96, 64);
    }
    worker_done();
}

// The C library's allocator: malloc, calloc, realloc (growing and shrinking), memalign and
// strdup on 16 slots, contents checked before each free.
void c_library_worker(void *parameter) {
    const auto seed = static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(parameter));
    rng random(seed);
    struct slot {
        std::uint8_t *block;
        std::size_t size;
        std::uint8_t pattern;
    } slots[16] = {};
    for (std::uint32_t step = 0; step < 2000; ++step) {
        slot &s = slots[random.below(16)];
        if (s.block != nullptr) {
            for (std::size_t i = 0; i < s.size; ++i)
                check(s.block[i] == s.pattern, "C block contents", step);
            if (random.below(2) == 0) { // realloc: the contents move along
                const std::size_t size = 1u + random.below(400);
                auto *moved = static_cast<std::uint8_t *>(std::realloc(s.block, size));
                check(moved != nullptr, "realloc", step);
                const std::size_t kept = size < s.size ? size : s.size;
                for (std::size_t i = 0; i < kept; ++i)
                    check(moved[i] == s.pattern, "realloc kept the contents", step);
                std::memset(moved, s.pattern, size);
                s.block = moved;
                s.size = size;
                continue;
            }
            std::free(s.block);
            s.block = nullptr;
            continue;
        }
        s.size = 1u + random.below(300);
        s.pattern = static_cast<std::uint8_t>(seed + step);
        switch (random.below(4)) {
        case 0:
            s.block = static_cast<std::uint8_t *>(std::malloc(s.size));
            break;
        case 1:
            s.block = static_cast<std::uint8_t *>(std::calloc(s.size, 1));
            check(s.block != nullptr && s.block[s.size - 1] == 0u, "calloc zeroes", step);
            break;
        case 2:
            s.block = static_cast<std::uint8_t *>(memalign(32, s.size));
            check(reinterpret_cast<std::uintptr_t>(s.block) % 32u == 0u, "memalign", step);
            break;
        default: {
            char text[] = "a string for strdup";
            text[0] = static_cast<char>('a' + step % 26u);
            char *copy = strdup(text); // newlib's strdup calls its _malloc_r: ours
            check(copy != nullptr && std::strcmp(copy, text) == 0, "strdup", step);
            s.block = reinterpret_cast<std::uint8_t *>(copy);
            s.size = sizeof text; // what strdup allocated
            break;
        }
        }
        check(s.block != nullptr, "C allocation", step);
        std::memset(s.block, s.pattern, s.size);
    }
    for (slot &s : slots)
        std::free(s.block); // NULL for the empty ones: ignored
    worker_done();
}

// pvPortMalloc, pvPortCalloc and vPortFree in random order on 24 slots, each block filled
// with a pattern of its own and checked before it is freed.
void raw_worker(void *parameter) {
    const auto seed = static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(parameter));
    rng random(seed);
    struct slot {
        std::uint8_t *block;
        std::size_t size;
        std::uint8_t pattern;
    } slots[24] = {};
    for (std::uint32_t step = 0; step < 3000; ++step) {
        if (last_raw_worker != seed) raw_worker_switches = raw_worker_switches + 1u;
        last_raw_worker = seed;
        slot &s = slots[random.below(24)];
        if (s.block != nullptr) {
            for (std::size_t i = 0; i < s.size; ++i)
                check(s.block[i] == s.pattern, "block contents", step);
            vPortFree(s.block);
            s.block = nullptr;
            continue;
        }
        s.size = 1u + random.below(random.below(8) == 0 ? 2048 : 128);
        s.pattern = static_cast<std::uint8_t>(seed + step);
        if (random.below(3) == 0) {
            s.block = static_cast<std::uint8_t *>(pvPortCalloc(1, s.size));
            check(s.block != nullptr, "pvPortCalloc", step);
            for (std::size_t i = 0; i < s.size; ++i)
                check(s.block[i] == 0u, "calloc zeroes", step);
        } else {
            s.block = static_cast<std::uint8_t *>(pvPortMalloc(s.size));
            check(s.block != nullptr, "pvPortMalloc", step);
        }
        check(reinterpret_cast<std::uintptr_t>(s.block) % portBYTE_ALIGNMENT == 0u, "alignment",
              step);
        std::memset(s.block, s.pattern, s.size);
    }
    for (slot &s : slots)
        vPortFree(s.block); // NULL for the empty ones: ignored
    worker_done();
}

// A short-lived task: allocates a little, frees it, deletes itself (the idle task frees
// its stack and TCB).
void child_task(void *parameter) {
    auto *done = static_cast<volatile std::size_t *>(parameter);
    void *block = pvPortMalloc(96);
    check(block != nullptr, "child pvPortMalloc");
    vPortFree(block);
    *done = *done + 1u;
    vTaskDelete(nullptr);
}

void task_worker(void *) {
    volatile std::size_t done = 0;
    for (std::size_t round = 0; round < 40; ++round) {
        check(xTaskCreate(child_task, "child", configMINIMAL_STACK_SIZE,
                          const_cast<std::size_t *>(&done), 2, nullptr) == pdPASS,
              "xTaskCreate child", round);
        while (done <= round)
            vTaskDelay(1);
    }
    worker_done();
}

// ---- Heap regions ------------------------------------------------------------------------

#if TEST_HEAP_REGIONS
// heap_5 style: three regions, listed out of address order (TLSF does not care).
alignas(8) std::uint8_t region_a[64 * 1024];
alignas(8) std::uint8_t region_b[40 * 1024];
alignas(8) std::uint8_t region_c[48 * 1024];
constexpr std::size_t expected_pools = 3;
#else
// heap_4 style: ucHeap (the application's: configAPPLICATION_ALLOCATED_HEAP, so that the
// test knows where it is), plus two regions added at run time (a TLSF extension).
alignas(8) std::uint8_t extra_a[16 * 1024];
alignas(8) std::uint8_t extra_b[12 * 1024];
constexpr std::size_t expected_pools = 3;
#endif

bool in(const void *pointer, const std::uint8_t *memory, std::size_t bytes) {
    const auto *byte = static_cast<const std::uint8_t *>(pointer);
    return byte >= memory && byte < memory + bytes;
}

} // namespace

#if !TEST_HEAP_REGIONS
extern "C" {
alignas(8) std::uint8_t ucHeap[configTOTAL_HEAP_SIZE];
}
#endif

namespace {

// Whether `pointer` lies in the memory the port's heap was given.
bool in_port_heap(const void *pointer) {
#if TEST_HEAP_REGIONS
    return in(pointer, region_a, sizeof region_a) || in(pointer, region_b, sizeof region_b) ||
           in(pointer, region_c, sizeof region_c);
#else
    return in(pointer, ucHeap, sizeof ucHeap) || in(pointer, extra_a, sizeof extra_a) ||
           in(pointer, extra_b, sizeof extra_b);
#endif
}

// The span of a block: what it takes from the heap, header included (heap_4's unit).
std::size_t span(void *block) {
    return tlsf_block_size(block) + tlsf_alloc_overhead();
}

// One heap: a block in each of the five ways, each in the port's memory, each counted by
// the port's statistics - one allocation and its span apiece - and the C++ default heap is
// the port's heap with the same counts. Nothing else allocates meanwhile: the scheduler
// is suspended and the tick interrupt's allocations are paused.
void check_one_heap() {
    tick_allocations_paused = true;
    vTaskSuspendAll();
    HeapStats_t before;
    vPortGetHeapStats(&before);
    const std::size_t free_before = xPortGetFreeHeapSize();
    tlsf::allocator<std::uint64_t> allocator;
    tlsf::memory_resource resource;
    void *const blocks[] = {pvPortMalloc(40), std::malloc(40), ::operator new(40),
                            allocator.allocate(5), resource.allocate(40, 8)};
    std::size_t spans = 0;
    for (void *block : blocks) {
        check(block != nullptr && in_port_heap(block), "a block outside the port's heap");
        spans += span(block);
    }
    HeapStats_t during;
    vPortGetHeapStats(&during);
    check(during.xNumberOfSuccessfulAllocations == before.xNumberOfSuccessfulAllocations + 5u,
          "five ways, five allocations counted",
          during.xNumberOfSuccessfulAllocations - before.xNumberOfSuccessfulAllocations);
    check(xPortGetFreeHeapSize() == free_before - spans, "the free bytes lost the five spans",
          free_before - xPortGetFreeHeapSize());
    check(during.xAvailableHeapSpaceInBytes == xPortGetFreeHeapSize(), "walk and count differ");
    check(tlsf::default_heap().native_handle() == pxPortGetTlsfHeap(),
          "the C++ default heap is not the port's");
    check(tlsf::default_heap().stats().free_bytes == xPortGetFreeHeapSize(),
          "the C++ default heap counts differently", tlsf::default_heap().stats().free_bytes);
    vPortFree(blocks[0]);
    std::free(blocks[1]);
    ::operator delete(blocks[2]);
    allocator.deallocate(static_cast<std::uint64_t *>(blocks[3]), 5);
    resource.deallocate(blocks[4], 40, 8);
    HeapStats_t after;
    vPortGetHeapStats(&after);
    check(after.xNumberOfSuccessfulFrees == before.xNumberOfSuccessfulFrees + 5u,
          "five frees counted", after.xNumberOfSuccessfulFrees - before.xNumberOfSuccessfulFrees);
    check(xPortGetFreeHeapSize() == free_before, "the five blocks came back");
    (void)xTaskResumeAll();
    tick_allocations_paused = false;
}

// ---- The supervisor ----------------------------------------------------------------------

struct worker {
    TaskFunction_t function;
    const char *name;
    std::uintptr_t seed;
};

constexpr worker workers[] = {
    {queue_worker, "queue", 1},       {timer_worker, "timer", 2},
    {container_worker, "std", 3},     {tlsf_container_worker, "tlsf", 4},
    {pmr_container_worker, "pmr", 5}, {c_library_worker, "libc", 6},
    {raw_worker, "raw1", 7},          {raw_worker, "raw2", 8},
    {task_worker, "tasks", 9},
};
constexpr std::size_t worker_count = sizeof workers / sizeof workers[0];

tlsf_stats_t tlsf_statistics() {
    tlsf_stats_t stats;
    tlsf_locked_get_stats(pxPortGetHeapLock(), pxPortGetTlsfHeap(), &stats);
    return stats;
}

void supervisor(void *) {
#if !TEST_HEAP_REGIONS
    const HeapRegion_t more[] = {
        {extra_a, sizeof extra_a}, {extra_b, sizeof extra_b}, {nullptr, 0}};
    vPortDefineHeapRegions(more);
#endif
    check_one_heap();

    // The failure path: the hook runs for each NULL, the heap is unchanged.
    const std::size_t free_before_failures = xPortGetFreeHeapSize();
    check(pvPortMalloc(xPortGetLargestAllocatableSize() + 1u) == nullptr, "oversized pvPortMalloc");
    check(pvPortCalloc(SIZE_MAX / 2u, 4u) == nullptr, "overflowing pvPortCalloc");
    check(malloc_failures == 2u, "malloc-failed hook calls", malloc_failures);
    check(xPortGetFreeHeapSize() == free_before_failures, "failed calls changed the heap");
    void *largest = pvPortMalloc(xPortGetLargestAllocatableSize());
    check(largest != nullptr, "largest allocatable failed", xPortGetLargestAllocatableSize());
    vPortFree(largest);
    malloc_failures = 0;

    // The baseline: every task but the workers exists, timers and all.
    const UBaseType_t baseline_tasks = uxTaskGetNumberOfTasks();
    const std::size_t free_at_start = xPortGetFreeHeapSize();
    HeapStats_t start_stats;
    vPortGetHeapStats(&start_stats);
    xPortResetHeapMinimumEverFreeHeapSize();

    // Created with the scheduler suspended, so that they start together: the first one
    // created would otherwise run alone, outranking the supervisor, until it blocks.
    vTaskSuspendAll();
    for (const worker &w : workers)
        check(xTaskCreate(w.function, w.name, 512, reinterpret_cast<void *>(w.seed), 2, nullptr) ==
                  pdPASS,
              "xTaskCreate worker", w.seed);
    (void)xTaskResumeAll();
    for (std::size_t finished = 0; finished < worker_count; ++finished)
        (void)ulTaskNotifyTake(pdFALSE, portMAX_DELAY);

    // Let the timer task carry out the last deletions and the idle task free the workers.
    for (int wait = 0; wait < 1000 && uxTaskGetNumberOfTasks() != baseline_tasks; ++wait)
        vTaskDelay(2);
    vTaskDelay(10);
    check(uxTaskGetNumberOfTasks() == baseline_tasks, "deleted tasks not cleaned up",
          uxTaskGetNumberOfTasks());

    // The verdict.
    check(xPortCheckHeap() == 0u, "xPortCheckHeap failures", xPortCheckHeap());
    const std::size_t free_at_end = xPortGetFreeHeapSize();
    check(free_at_end == free_at_start, "leaked bytes", free_at_start - free_at_end);
    HeapStats_t stats;
    vPortGetHeapStats(&stats);
    check(stats.xAvailableHeapSpaceInBytes == free_at_end, "walked free bytes differ",
          stats.xAvailableHeapSpaceInBytes);
    check(stats.xNumberOfSuccessfulAllocations - stats.xNumberOfSuccessfulFrees ==
              start_stats.xNumberOfSuccessfulAllocations - start_stats.xNumberOfSuccessfulFrees,
          "live block count changed");
    const std::size_t allocations =
        stats.xNumberOfSuccessfulAllocations - start_stats.xNumberOfSuccessfulAllocations;
    check(allocations > 10000u, "too few allocations", allocations);
    check(stats.xMinimumEverFreeBytesRemaining < free_at_start, "minimum ever free did not move");
    check(stats.xMinimumEverFreeBytesRemaining == xPortGetMinimumEverFreeHeapSize(),
          "minimum ever differs");
    check(stats.xNumberOfFreeBlocks >= 1u &&
              stats.xSizeOfSmallestFreeBlockInBytes <= stats.xSizeOfLargestFreeBlockInBytes,
          "free block census");
    check(malloc_failures == 0u, "unexpected allocation failures", malloc_failures);
    const tlsf_stats_t core = tlsf_statistics();
    check(core.free_bytes == free_at_end, "TLSF's free bytes differ from the port's",
          core.free_bytes);
    check(tlsf::default_heap().stats().free_bytes == free_at_end,
          "the C++ default heap's free bytes differ from the port's",
          tlsf::default_heap().stats().free_bytes);
    check(tlsf::default_heap().check(), "the C++ default heap's check failed");
    check(tlsf_statistics().pool_count == expected_pools, "pool count",
          tlsf_statistics().pool_count);
    // Two raw workers time-sliced: each switch between them shows up at least once.
    check(raw_worker_switches > 4u, "too few task switches between the raw workers",
          raw_worker_switches);
#if configUSE_TICK_HOOK
    check(tick_allocations > 100u, "too few allocations in the tick interrupt", tick_allocations);
#endif

    line out;
    out << "freertos-heap-test: PASS (" << (TEST_HEAP_REGIONS ? "regions" : "ucHeap")
        << (TLSF_CACHE ? ", front cache" : "")
        << (configTLSF_HEAP_LOCK_MASKS_INTERRUPTS ? ", interrupt-masking lock" : ", scheduler lock")
        << ", " << worker_count << " workers, " << allocations << " allocations";
#if configUSE_TICK_HOOK
    out << " (" << static_cast<std::size_t>(tick_allocations) << " in the tick interrupt)";
#endif
    out << ", " << static_cast<std::size_t>(raw_worker_switches) << " switches between raw workers";
    out << ", " << expected_pools << " pools, free " << free_at_end << " of "
        << tlsf_statistics().pool_bytes << " bytes before and after, minimum ever "
        << stats.xMinimumEverFreeBytesRemaining << ")\n";
    semihosting_write(out.c_str());
    semihosting_exit(1);
}

} // namespace

// ---- Kernel hooks -------------------------------------------------------------------------

extern "C" {

// libstdc++'s error paths (std::__throw_length_error, compiled without exceptions in
// newlib-nano's libstdc++) end here. newlib's abort would raise SIGABRT, which pulls in
// newlib's signal table - allocated with newlib's own malloc - and _kill, _getpid, _exit.
[[noreturn]] void abort(void) noexcept {
    fail("abort called");
}

void test_assert_failed(const char *file, int line_number) {
    taskDISABLE_INTERRUPTS();
    line out;
    out << "freertos-heap-test: FAIL (configASSERT at " << file << ":"
        << static_cast<std::size_t>(line_number) << ")\n";
    semihosting_write(out.c_str());
    semihosting_exit(0);
}

void vApplicationMallocFailedHook(void) {
    malloc_failures = malloc_failures + 1u;
}

void vApplicationStackOverflowHook(TaskHandle_t, char *name) {
    taskDISABLE_INTERRUPTS();
    line out;
    out << "freertos-heap-test: FAIL (stack overflow in " << name << ")\n";
    semihosting_write(out.c_str());
    semihosting_exit(0);
}

#if configUSE_TICK_HOOK
// In an interrupt: allowed only with the interrupt-masking lock. Allocates and frees a
// block each tick - by turns with pvPortMalloc, malloc and operator new - so that
// interrupts land between the tasks' heap calls of every kind.
void vApplicationTickHook(void) {
    static std::uint32_t size = 8;
    if (tick_allocations_paused) return;
    void *block = nullptr;
    switch (tick_allocations % 3u) {
    case 0:
        block = pvPortMalloc(size);
        break;
    case 1:
        block = std::malloc(size);
        break;
    default:
        block = ::operator new(size, std::nothrow);
        break;
    }
    if (block == nullptr) fail("an allocation in the tick interrupt", size);
    std::memset(block, 0x5A, size);
    switch (tick_allocations % 3u) {
    case 0:
        vPortFree(block);
        break;
    case 1:
        std::free(block);
        break;
    default:
        ::operator delete(block);
        break;
    }
    size = size * 7u % 509u + 1u;
    tick_allocations = tick_allocations + 1u;
}
#endif

} // extern "C"

int main() {
#if TEST_HEAP_REGIONS
    // heap_5 style: the regions before the first allocation.
    const HeapRegion_t regions[] = {{region_b, sizeof region_b},
                                    {region_a, sizeof region_a},
                                    {region_c, sizeof region_c},
                                    {nullptr, 0}};
    vPortDefineHeapRegions(regions);
#endif
    semihosting_write("freertos-heap-test: scheduler starting\n");
    check(xTaskCreate(supervisor, "super", 1024, nullptr, 1, &supervisor_handle) == pdPASS,
          "xTaskCreate supervisor");
    vTaskStartScheduler();
    fail("vTaskStartScheduler returned");
}
