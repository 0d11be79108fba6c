// SPDX-License-Identifier: MIT
// tlsf/failure.hpp - what happens when an operation that cannot return null fails.
//
// The heap itself never throws: tlsf::heap::malloc returns nullptr when it runs out. The
// layers that must not return null - tlsf::allocator, tlsf::memory_resource, the throwing
// forms of the global operator new and the heap constructors - report the failure here.
//
// With exceptions (TLSF_CPP_EXCEPTIONS) they throw the exception the standard names for
// the case. Without exceptions there is nothing to throw, so the failure handler runs;
// it must not return (log, reset the board, longjmp to a recovery point...). If it
// returns, or none is installed, the program stops (detail::stop_program: std::abort()
// where there is an operating system, a trap on bare metal). With exceptions an installed
// handler also runs, just before the throw, which is a place to log.
#ifndef TLSF_FAILURE_HPP
#define TLSF_FAILURE_HPP

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>

#include "tlsf/config.hpp"

#if TLSF_CPP_EXCEPTIONS
#include <stdexcept>
#endif

namespace tlsf {

// Why an operation failed; each maps to the exception thrown when exceptions are on.
enum class failure {
    out_of_memory,  // no block large enough: std::bad_alloc
    array_too_long, // n * sizeof(T) does not fit in size_t: std::bad_array_new_length
    bad_memory      // a heap was given memory it cannot use: std::invalid_argument
};

// The failure handler: hears the reason and the number of bytes involved (the request,
// or the size of the memory a heap was given; the element count for array_too_long).
using failure_handler = void (*)(failure reason, std::size_t bytes);

namespace detail {
// Constant-initialised, so it is usable from static constructors in any order.
inline std::atomic<failure_handler> failure_handler_slot{nullptr};
} // namespace detail

// Install `handler` (nullptr: none) and return the previous one. Meant to be called at
// start-up; concurrent calls do not tear, but the returned value may already be stale.
// (A plain load and store rather than an exchange: no libatomic call on Cortex-M0.)
inline failure_handler set_failure_handler(failure_handler handler) noexcept {
    failure_handler previous = detail::failure_handler_slot.load(std::memory_order_acquire);
    detail::failure_handler_slot.store(handler, std::memory_order_release);
    return previous;
}

// The installed failure handler, or nullptr.
inline failure_handler get_failure_handler() noexcept {
    return detail::failure_handler_slot.load(std::memory_order_acquire);
}

namespace detail {

// The end of a program that cannot go on: std::abort() where there is an operating
// system. On bare metal (TLSF_CPP_HOSTED 0) a trap instead - an undefined instruction, so
// the core's fault handler runs (a HardFault or UsageFault on Cortex-M) and a debugger
// stops on the spot. Not abort(): newlib's abort() calls raise(), whose signal table is
// allocated with newlib's own malloc, which would put a second heap (and _sbrk, _kill,
// _getpid) into a firmware image that never asked for one.
[[noreturn]] inline void stop_program() noexcept {
#if !TLSF_CPP_HOSTED && (defined(__GNUC__) || defined(__clang__))
    __builtin_trap();
#else
    std::abort();
#endif
}

// Report a failure: run the handler, then throw (exceptions) or stop (no exceptions).
// Out of line of the fast paths: callers test for null and call this.
[[noreturn]] TLSF_DETAIL_COLD inline void fail(failure reason, std::size_t bytes) {
    if (failure_handler handler = get_failure_handler()) handler(reason, bytes);
#if TLSF_CPP_EXCEPTIONS
    switch (reason) {
    case failure::array_too_long:
        throw std::bad_array_new_length();
    case failure::bad_memory:
        throw std::invalid_argument("tlsf: heap memory unusable");
    case failure::out_of_memory:
        break;
    }
    throw std::bad_alloc();
#else
    stop_program();
#endif
}

} // namespace detail
} // namespace tlsf

#endif // TLSF_FAILURE_HPP
