// SPDX-License-Identifier: MIT
// timed_call.hpp - call an allocator's function and count the instructions it executes, under
// the insncount valgrind tool (insncount/insncount.c).
//
// The counter is read right before and right after the call, in one function that is never
// inlined, so what lies between the two reads is the same code for every allocator whose
// function has the same signature: the argument moves, the indirect call, and whatever the
// callee executes. An empty function of that signature (a bare `ret`) measured the same way
// gives the fixed part, so a call's count is the callee's own instructions, its `ret`
// included, as the Cortex-M4 harness counts a call from its first instruction to its return.
#ifndef TLSF_REPLAY_TIMED_CALL_HPP
#define TLSF_REPLAY_TIMED_CALL_HPP

#include <cstdint>
#include <type_traits>

#if defined(TLSF_REPLAY_HAVE_INSNCOUNT)
#include "insncount/insncount.h"
#endif

extern "C" void tlsf_replay_empty_function(void);

namespace replay {

inline std::uint64_t read_counter() {
#if defined(TLSF_REPLAY_HAVE_INSNCOUNT)
    return insncount_read();
#else
    return 0;
#endif
}

template <class R, class... A>
__attribute__((noinline)) R counted_call(std::uint64_t &count, R (*function)(A...), A... args) {
    const std::uint64_t before = read_counter();
    if constexpr (std::is_void_v<R>) {
        function(args...);
        count = read_counter() - before;
    } else {
        R result = function(args...);
        count = read_counter() - before;
        return result;
    }
}

// The fixed part of a counted call of this signature: the count of the empty function minus
// its one instruction. Measured once per signature.
template <class R, class... A>
std::uint64_t counted_call_overhead() {
    static const std::uint64_t overhead = [] {
        auto empty = reinterpret_cast<R (*)(A...)>(&tlsf_replay_empty_function);
        std::uint64_t count = 0;
        counted_call<R, A...>(count, empty, A()...);
        return count - 1;
    }();
    return overhead;
}

// Call `function` with `args`; with `counting`, leave the callee's instruction count in
// `count`.
template <class R, class... A>
R call_counting(bool counting, std::uint64_t &count, R (*function)(A...), A... args) {
    if (!counting) return function(args...);
    if constexpr (std::is_void_v<R>) {
        counted_call<R, A...>(count, function, args...);
        count -= counted_call_overhead<R, A...>();
    } else {
        R result = counted_call<R, A...>(count, function, args...);
        count -= counted_call_overhead<R, A...>();
        return result;
    }
}

} // namespace replay

#endif // TLSF_REPLAY_TIMED_CALL_HPP
