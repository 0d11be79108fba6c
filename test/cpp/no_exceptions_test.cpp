// SPDX-License-Identifier: MIT
// The C++ layer compiled with -fno-exceptions -fno-rtti, with the global operator new
// replaced, over a fixed 1 MiB default heap without a lock (the firmware configuration).
// Where the standard would throw, the failure handler runs instead; this program's handler
// records the call and longjmps back to the test, which is safe here because no frame it
// skips has a destructor to run. The default (no handler, or one that returns) aborts,
// which is checked in a child process.
//
// A plain program rather than GoogleTest, which is built with exceptions. Exit status 0
// when every check passes.
#include <tlsf/global_new.hpp>
#include <tlsf/tlsf.hpp>

#include <csetjmp>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <new>

#if defined(__unix__) || defined(__APPLE__)
#include <csignal>
#include <sys/wait.h>
#include <unistd.h>
#define TLSF_TEST_HAS_FORK 1
#endif

static_assert(TLSF_CPP_EXCEPTIONS == 0, "compile this test with -fno-exceptions");
static_assert(TLSF_CPP_RTTI == 0, "compile this test with -fno-rtti");
static_assert(TLSF_DEFAULT_HEAP_LOCK == TLSF_LOCK_NONE);

namespace {

constexpr std::size_t kTooBig = 4 * 1024 * 1024; // the default heap has 1 MiB

int failed_checks = 0;

void check(bool holds, const char *what) {
    if (!holds) {
        ++failed_checks;
        std::printf("FAILED: %s\n", what);
    }
}

void *volatile sink;
void keep(void *pointer) {
    sink = pointer;
}

// What the failure handler heard.
struct heard_t {
    int calls;
    tlsf::failure reason;
    std::size_t bytes;
};
heard_t heard;
std::jmp_buf recovery;

void record_and_escape(tlsf::failure reason, std::size_t bytes) {
    ++heard.calls;
    heard.reason = reason;
    heard.bytes = bytes;
    std::longjmp(recovery, 1);
}

// Runs `action`, which must end in the failure handler; true if it did, having been
// heard with `reason` and `bytes`.
template <class Action>
bool ends_in_handler(Action action, tlsf::failure reason, std::size_t bytes) {
    heard = heard_t{};
    if (setjmp(recovery) == 0) {
        action();
        return false; // returned: the handler was not called
    }
    return heard.calls == 1 && heard.reason == reason && heard.bytes == bytes;
}

void global_new_forms_call_the_handler() {
    check(ends_in_handler([] { keep(::operator new(kTooBig)); }, tlsf::failure::out_of_memory,
                          kTooBig),
          "new calls the failure handler");
    check(ends_in_handler([] { keep(::operator new[](kTooBig)); }, tlsf::failure::out_of_memory,
                          kTooBig),
          "new[] calls the failure handler");
    check(ends_in_handler([] { keep(::operator new (kTooBig, std::align_val_t{64})); },
                          tlsf::failure::out_of_memory, kTooBig),
          "aligned new calls the failure handler");
    check(ends_in_handler([] { keep(::operator new[](kTooBig, std::align_val_t{64})); },
                          tlsf::failure::out_of_memory, kTooBig),
          "aligned new[] calls the failure handler");
}

int new_handler_calls = 0;

void new_handler_runs_first() {
    new_handler_calls = 0;
    std::set_new_handler([] {
        if (++new_handler_calls == 2) std::set_new_handler(nullptr);
    });
    check(ends_in_handler([] { keep(::operator new(kTooBig)); }, tlsf::failure::out_of_memory,
                          kTooBig),
          "new calls the failure handler after the new_handler gives up");
    check(new_handler_calls == 2, "the new_handler ran twice first");
}

void nothrow_forms_return_null() {
    heard = heard_t{};
    check(::operator new(kTooBig, std::nothrow) == nullptr, "nothrow new returns null");
    check(::operator new[](kTooBig, std::nothrow) == nullptr, "nothrow new[] returns null");
    check(::operator new (kTooBig, std::align_val_t{64}, std::nothrow) == nullptr,
          "aligned nothrow new returns null");
    check(::operator new[](kTooBig, std::align_val_t{64}, std::nothrow) == nullptr,
          "aligned nothrow new[] returns null");
    check(heard.calls == 0, "nothrow forms do not call the failure handler");
}

void allocator_and_resource_call_the_handler() {
    static tlsf::static_heap<64 * 1024> heap;
    check(ends_in_handler(
              [] {
                  tlsf::allocator<std::uint64_t> words(heap);
                  keep(words.allocate(std::numeric_limits<std::size_t>::max() / 4));
              },
              tlsf::failure::array_too_long, std::numeric_limits<std::size_t>::max() / 4),
          "allocator::allocate reports n * sizeof(T) overflow");
    check(ends_in_handler(
              [] {
                  tlsf::allocator<char> bytes(heap);
                  keep(bytes.allocate(128 * 1024));
              },
              tlsf::failure::out_of_memory, 128 * 1024),
          "allocator::allocate reports exhaustion");
    check(ends_in_handler(
              [] {
                  tlsf::memory_resource resource(heap);
                  keep(resource.allocate(128 * 1024, 64));
              },
              tlsf::failure::out_of_memory, 128 * 1024),
          "memory_resource::allocate reports exhaustion");
    check(
        ends_in_handler([] { tlsf::heap unusable(nullptr, 100); }, tlsf::failure::bad_memory, 100),
        "a heap constructor reports unusable memory");
    check(heap.stats().live_blocks == 0, "nothing leaked from the heap");
    check(heap.check(), "the heap is consistent after the escapes");
}

void everything_else_works() {
    const tlsf::heap_stats before = tlsf::default_heap().stats();
    {
        tlsf::map<int, tlsf::string> names;
        names.emplace(1, tlsf::string(100, 'x'));
        int *number = new int(5);
        keep(number);
        check(tlsf::default_heap().contains(number), "new allocates from the default heap");
        delete number;
        std::pmr::vector<int> numbers(tlsf::default_resource());
        numbers.assign(100, 1);
        check(tlsf::default_heap().contains(numbers.data()), "pmr vector on the default heap");
        tlsf::memory_resource a;
        tlsf::memory_resource b;
        check(a == a && !(a == b), "without RTTI a resource is equal only to itself");
    }
    const tlsf::heap_stats after = tlsf::default_heap().stats();
    check(after.live_blocks == before.live_blocks, "containers return every block");
    check(tlsf::default_heap().check(), "the default heap is consistent");
}

#ifdef TLSF_TEST_HAS_FORK
// Runs `action` in a child process; true if the child died of SIGABRT.
template <class Action>
bool aborts(Action action) {
    std::fflush(stdout);
    const pid_t child = fork();
    if (child == 0) {
        action();
        _exit(0);
    }
    int status = 0;
    if (child < 0 || waitpid(child, &status, 0) != child) return false;
    return WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
}

void default_failure_aborts() {
    check(aborts([] {
              tlsf::set_failure_handler(nullptr);
              keep(::operator new(kTooBig));
          }),
          "with no failure handler, new aborts");
    check(aborts([] {
              tlsf::set_failure_handler([](tlsf::failure, std::size_t) {});
              keep(::operator new(kTooBig));
          }),
          "a failure handler that returns is followed by abort");
}
#endif

} // namespace

int main() {
    tlsf::set_failure_handler(&record_and_escape);
    global_new_forms_call_the_handler();
    new_handler_runs_first();
    nothrow_forms_return_null();
    allocator_and_resource_call_the_handler();
    everything_else_works();
#ifdef TLSF_TEST_HAS_FORK
    default_failure_aborts();
#endif
    tlsf::set_failure_handler(nullptr);
    if (failed_checks == 0) std::printf("all checks passed\n");
    return failed_checks == 0 ? 0 : 1;
}
