// SPDX-License-Identifier: MIT
// tlsf/lock.hpp - how a heap is made safe to share between threads.
//
// A TLSF heap is not locked internally (see tlsf.h). A tlsf::heap can be given a lock: two
// functions and a context pointer, called around every operation. Function pointers
// rather than a template parameter, so that every heap has the same type - an allocator
// or memory resource can then point at any heap, locked or not - and so that an RTOS
// primitive written in C fits without a wrapper class:
//
//   tlsf::lock_hooks hooks{[](void *) { vTaskSuspendAll(); },
//                          [](void *) { xTaskResumeAll(); }, nullptr};
//   heap.set_lock(hooks);
//
// Any type with lock() and unlock() (std::mutex, a class around an RTOS mutex) is adapted
// by lock_hooks_for. An unlocked heap pays one predictable branch per operation.
//
// One lock concept for C and C++: lock_hooks is the C API's tlsf_lock_t (<tlsf_lock.h>).
// A lock written once - the FreeRTOS port's (pxPortGetHeapLock()), a C library's - serves
// a tlsf::heap (set_lock(*c_lock)) and C code's tlsf_locked_* calls alike, and
// heap.get_lock() can be handed to C as a `const tlsf_lock_t *`.
//
// On Arm Cortex-M, interrupt_lock_hooks() masks interrupts instead (PRIMASK), and
// interrupt_guard does the same for a scope, inline, for code that knows at compile time
// that this is its lock (the global operator new with TLSF_LOCK_INTERRUPTS).
#ifndef TLSF_LOCK_HPP
#define TLSF_LOCK_HPP

#include <cstdint>

#include "tlsf/config.hpp"

#if TLSF_CPP_HOSTED
#include <atomic>
#include <chrono>
#include <thread>
#endif

// tlsf_lock_t, the one lock type of the C and C++ layers. A C header: its NULL tests are
// what -Wzero-as-null-pointer-constant flags in C++ (clang), so that warning is off for it.
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wzero-as-null-pointer-constant"
#endif
#include <tlsf_lock.h>
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic pop
#endif

namespace tlsf {

// A lock as plain functions: the C layer's tlsf_lock_t (<tlsf_lock.h>), so one lock value
// serves a tlsf::heap, the C API's tlsf_locked_* calls and the FreeRTOS port alike - pass
// a lock_hooks wherever a `const tlsf_lock_t *` is wanted, or build one from a
// tlsf_lock_t. Both functions null (the default): no locking. The functions must not
// throw (heap operations are noexcept) and must not allocate from the heap they guard.
// The constructors only add what C lacks: zero by default, and constexpr.
struct lock_hooks : ::tlsf_lock_t {
    constexpr lock_hooks() noexcept : ::tlsf_lock_t{nullptr, nullptr, nullptr} {}
    constexpr lock_hooks(void (*take)(void *), void (*give)(void *), void *state = nullptr) noexcept
        : ::tlsf_lock_t{take, give, state} {}
    // From a C lock: the same functions and context.
    constexpr lock_hooks(const ::tlsf_lock_t &c_lock) noexcept : ::tlsf_lock_t(c_lock) {}
};
// Nothing but the C struct: a lock_hooks passed or copied as a tlsf_lock_t loses nothing.
static_assert(sizeof(lock_hooks) == sizeof(::tlsf_lock_t), "lock_hooks must add no state");

// lock_hooks that call mutex.lock() and mutex.unlock() on `mutex`, which must outlive
// every use of the heap it guards. Works for any BasicLockable type.
template <class BasicLockable>
constexpr lock_hooks lock_hooks_for(BasicLockable &mutex) noexcept {
    return lock_hooks{[](void *m) { static_cast<BasicLockable *>(m)->lock(); },
                      [](void *m) { static_cast<BasicLockable *>(m)->unlock(); }, &mutex};
}

#if TLSF_CPP_CORTEX_M
// Masks interrupts (PRIMASK) for its lifetime, then restores the mask it found: guards
// nest, and one taken in an interrupt handler leaves the handler's state as it was.
// Three instructions in all (mrs and cpsid i, then msr), no memory but a register.
class interrupt_guard {
  public:
    interrupt_guard() noexcept {
        // The "memory" clobbers keep the compiler from moving heap accesses out of the
        // masked section.
        __asm__ volatile("mrs %0, primask\n\tcpsid i" : "=r"(saved_primask_)::"memory");
    }
    ~interrupt_guard() { __asm__ volatile("msr primask, %0" ::"r"(saved_primask_) : "memory"); }
    interrupt_guard(const interrupt_guard &) = delete;
    interrupt_guard &operator=(const interrupt_guard &) = delete;

  private:
    std::uint32_t saved_primask_;
};

namespace detail {

// The state interrupt_lock_hooks share. Hooks cannot keep the mask on the caller's stack
// as interrupt_guard does, so the outermost lock saves it here and only the outermost
// unlock restores it. No other code runs while interrupts are masked, so plain variables
// are enough.
struct interrupt_lock_state {
    std::uint32_t depth;
    std::uint32_t saved_primask;
};
inline interrupt_lock_state interrupt_lock_nesting{0, 0};

inline void interrupt_lock(void *) noexcept {
    std::uint32_t primask;
    __asm__ volatile("mrs %0, primask\n\tcpsid i" : "=r"(primask)::"memory");
    if (interrupt_lock_nesting.depth++ == 0) interrupt_lock_nesting.saved_primask = primask;
}

inline void interrupt_unlock(void *) noexcept {
    if (--interrupt_lock_nesting.depth == 0)
        __asm__ volatile("msr primask, %0" ::"r"(interrupt_lock_nesting.saved_primask) : "memory");
}

} // namespace detail

// lock_hooks that mask interrupts (PRIMASK) while any heap locked with them is in use,
// nesting-safe: the outermost unlock restores the mask the outermost lock found. They
// compose with interrupt_guard in either order. Usable in a constant expression, so a
// static heap can be built locked (see heap's constructor from a lock).
constexpr lock_hooks interrupt_lock_hooks() noexcept {
    return lock_hooks{&detail::interrupt_lock, &detail::interrupt_unlock, nullptr};
}
#endif // TLSF_CPP_CORTEX_M

#if TLSF_CPP_HOSTED
namespace detail {

// Tells the processor that this thread is waiting for a lock (x86's pause, Arm's yield): the
// sibling hyper-thread gets the pipeline, and leaving the loop costs no misspeculation.
inline void cpu_relax() noexcept {
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
    __builtin_ia32_pause();
#elif defined(__aarch64__) && (defined(__GNUC__) || defined(__clang__))
    __asm__ volatile("yield" ::: "memory");
#endif
}

} // namespace detail

// A lock of one atomic flag, for critical sections that are short and bounded - a TLSF
// operation is - on a system with an OS: taking it free is one atomic exchange, giving it
// back one release store (a plain store on x86), both inline. std::mutex (pthreads) costs
// a call into the C library each way: on the default heap 136 instructions per allocate
// and deallocate pair against this lock's 8 (docs/cpp.md, "The default heap's cost").
// Contended, a thread first spins on a read of the flag (no write: the cache line stays
// shared), then yields the processor, then sleeps for growing intervals (1 us to 128 us):
// a waiter needs no wake-up from the holder - so the release stays a store - and a holder
// that was preempted, even by a waiter of higher real-time priority on its core, gets the
// processor back. The price: no fairness, and a waiter that went to sleep may wake up to
// 128 us after the release. Threads that contend hard for one heap want a heap each.
// Not recursive; not for interrupt handlers or signal handlers. BasicLockable (and
// Lockable: try_lock), so it serves lock_hooks_for and std::lock_guard. The default
// constructor is constexpr: a lock with static storage exists before any code runs.
class exchange_lock {
  public:
    constexpr exchange_lock() noexcept = default;
    exchange_lock(const exchange_lock &) = delete;
    exchange_lock &operator=(const exchange_lock &) = delete;

    // Takes the lock, waiting as long as another thread holds it. Not recursive: a thread
    // that already holds it waits for itself forever.
    void lock() noexcept {
        if (taken_.exchange(true, std::memory_order_acquire)) wait_then_lock();
    }
    // Takes the lock if it is free and returns true; false at once if it is held (also by
    // the calling thread).
    bool try_lock() noexcept {
        return !taken_.load(std::memory_order_relaxed) &&
               !taken_.exchange(true, std::memory_order_acquire);
    }
    // Gives the lock back; the caller must hold it, or know that nobody does (unlocking a
    // free lock leaves it free, which the default heap relies on).
    void unlock() noexcept { taken_.store(false, std::memory_order_release); }
    // Whether some thread holds it now: a snapshot, exact only for the holder itself.
    bool is_locked() const noexcept { return taken_.load(std::memory_order_relaxed); }

  private:
    // Spins this many reads of the flag before each attempt, and yields this many times
    // before it starts to sleep.
    static constexpr int spins_per_attempt = 64;
    static constexpr unsigned yields_before_sleeping = 16;
    static constexpr unsigned longest_sleep_log2 = 7; // 128 us

    TLSF_DETAIL_COLD void wait_then_lock() noexcept {
        for (unsigned attempt = 0;; ++attempt) {
            for (int spin = 0; spin < spins_per_attempt && taken_.load(std::memory_order_relaxed);
                 ++spin)
                detail::cpu_relax();
            if (try_lock()) return;
            if (attempt < yields_before_sleeping) {
                std::this_thread::yield();
            } else {
                const unsigned log2 = attempt - yields_before_sleeping;
                std::this_thread::sleep_for(std::chrono::microseconds(
                    1u << (log2 < longest_sleep_log2 ? log2 : longest_sleep_log2)));
            }
        }
    }

    std::atomic<bool> taken_{false};
};
#endif // TLSF_CPP_HOSTED

namespace detail {

// Holds `hooks` for a scope. A copy, so that a lock replaced meanwhile is still released
// through the function that acquired it.
class scoped_lock {
  public:
    explicit scoped_lock(const lock_hooks &hooks) noexcept : hooks_(hooks) {
        tlsf_lock_acquire(&hooks_);
    }
    ~scoped_lock() { tlsf_lock_release(&hooks_); }
    scoped_lock(const scoped_lock &) = delete;
    scoped_lock &operator=(const scoped_lock &) = delete;

  private:
    lock_hooks hooks_;
};

} // namespace detail
} // namespace tlsf

#endif // TLSF_LOCK_HPP
