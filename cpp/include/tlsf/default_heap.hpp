// tlsf/default_heap.hpp - the process default heap: tlsf::default_heap().
//
// The heap that a default-constructed tlsf::allocator, a default tlsf::memory_resource and
// the global operator new of <tlsf/global_new.hpp> use. Its memory, growth and lock are
// chosen at compile time (see <tlsf/config.hpp>):
//
//   memory   a static array (TLSF_DEFAULT_HEAP_SIZE), a linker-defined region
//            (TLSF_DEFAULT_HEAP_START/END), memory given at run time
//            (install_default_heap), and - on a system with an OS, when none of the first
//            two is configured - pools from the OS added as it runs out
//            (TLSF_DEFAULT_HEAP_GROW), so a program runs out only where libc would.
//   lock     std::mutex (hosted), the program's own functions (RTOS), or none (bare metal).
//
// Lifetime: built on first use, by whichever code asks first - a static constructor in any
// translation unit included - and never destroyed, so objects destroyed at exit can still
// free into it. The memory it obtained from the OS is never returned; it is reused.
#ifndef TLSF_DEFAULT_HEAP_HPP
#define TLSF_DEFAULT_HEAP_HPP

#include <cstddef>
#include <new>

#include "tlsf/config.hpp"
#include "tlsf/heap.hpp"
#include "tlsf/lock.hpp"

#if TLSF_DEFAULT_HEAP_LOCK == TLSF_LOCK_STD_MUTEX
#include <mutex>
#endif

#if TLSF_DEFAULT_HEAP_GROW
#if defined(__has_include)
#if __has_include(<sys/mman.h>) && !defined(_WIN32)
#include <sys/mman.h>
#define TLSF_DETAIL_GROW_WITH_MMAP 1
#endif
#endif
#ifndef TLSF_DETAIL_GROW_WITH_MMAP
#include <cstdlib>
#define TLSF_DETAIL_GROW_WITH_MMAP 0
#endif
// LeakSanitizer does not scan memory it did not allocate; pools from mmap are registered
// with it so that pointers stored in them keep their targets reachable.
#if TLSF_DETAIL_ASAN
#define TLSF_DETAIL_LSAN 1
#elif defined(__has_feature)
#if __has_feature(leak_sanitizer)
#define TLSF_DETAIL_LSAN 1
#endif
#endif
#if defined(TLSF_DETAIL_LSAN) && TLSF_DETAIL_GROW_WITH_MMAP
#include <sanitizer/lsan_interface.h>
#endif
#endif // TLSF_DEFAULT_HEAP_GROW

#ifdef TLSF_DEFAULT_HEAP_START
extern "C" char TLSF_DEFAULT_HEAP_START[];
extern "C" char TLSF_DEFAULT_HEAP_END[];
#endif

namespace tlsf {

#if TLSF_DEFAULT_HEAP_LOCK == TLSF_LOCK_USER
// Defined by the program when TLSF_DEFAULT_HEAP_LOCK is TLSF_LOCK_USER: the lock of the
// default heap. Called once, when the default heap is first used.
lock_hooks default_heap_lock() noexcept;
#endif

namespace detail {

#if TLSF_DEFAULT_HEAP_GROW
// The default heap's pool source: a pool of at least TLSF_DEFAULT_HEAP_GROW_SIZE, at least
// what the request needs and at least everything obtained so far (geometric growth), in
// 64 KiB steps. `context` points at the running total. Runs under the heap's lock.
inline region os_pool_source(std::size_t needed, void *context) noexcept {
    std::size_t &obtained = *static_cast<std::size_t *>(context);
    constexpr std::size_t step = std::size_t{64} * 1024;
    // Doubling stops at half the largest pool, so a pool is never trimmed.
    const std::size_t ceiling = tlsf_block_size_max() / 2;
    std::size_t wanted = needed;
    if (wanted < static_cast<std::size_t>(TLSF_DEFAULT_HEAP_GROW_SIZE))
        wanted = static_cast<std::size_t>(TLSF_DEFAULT_HEAP_GROW_SIZE);
    if (wanted < obtained && obtained <= ceiling) wanted = obtained;
    if (wanted > ceiling && needed <= ceiling) wanted = ceiling;
    for (;;) {
        const std::size_t bytes = (wanted + step - 1) / step * step;
#if TLSF_DETAIL_GROW_WITH_MMAP
        void *memory =
            ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (memory == MAP_FAILED) memory = nullptr;
#if defined(TLSF_DETAIL_LSAN)
        if (memory) __lsan_register_root_region(memory, bytes);
#endif
#else
        void *memory = std::malloc(bytes); // only when there is no mmap; never freed
#endif
        if (memory != nullptr) {
            obtained += bytes;
            return region{memory, bytes};
        }
        // The OS refused the generous size: settle for what the request needs.
        if (wanted == needed) return region{};
        wanted = needed;
    }
}
#endif

// Everything the default heap is made of, built once in static storage that is never
// destroyed (a function-local static object would be destroyed at exit, while other
// static objects may still free into it).
struct default_heap_state {
    heap instance;
#if TLSF_DEFAULT_HEAP_LOCK == TLSF_LOCK_STD_MUTEX
    std::mutex mutex;
#endif
#if TLSF_DEFAULT_HEAP_GROW
    std::size_t obtained = 0;
#endif
};

inline heap &make_default_heap() noexcept {
    alignas(default_heap_state) static unsigned char storage[sizeof(default_heap_state)];
    auto *state = ::new (static_cast<void *>(storage)) default_heap_state{};
    heap &instance = state->instance;
#if TLSF_DEFAULT_HEAP_SIZE > 0
    // Zero-initialised static storage: in .bss, nothing runs before it is used.
    alignas(tlsf::alignment) static unsigned char memory[TLSF_DEFAULT_HEAP_SIZE];
    instance.add_pool(memory, sizeof memory);
#endif
#ifdef TLSF_DEFAULT_HEAP_START
    instance.add_pool(TLSF_DEFAULT_HEAP_START,
                      static_cast<std::size_t>(TLSF_DEFAULT_HEAP_END - TLSF_DEFAULT_HEAP_START));
#endif
#if TLSF_DEFAULT_HEAP_GROW
    instance.set_pool_source(pool_source{&os_pool_source, &state->obtained});
#endif
#if TLSF_DEFAULT_HEAP_LOCK == TLSF_LOCK_STD_MUTEX
    instance.set_lock(lock_hooks_for(state->mutex));
#elif TLSF_DEFAULT_HEAP_LOCK == TLSF_LOCK_USER
    instance.set_lock(default_heap_lock());
#endif
    return instance;
}

} // namespace detail

// The process default heap. Built on the first call (thread-safe where the compiler makes
// function-local statics thread-safe), never destroyed. Cheap to call: one guard check.
inline heap &default_heap() noexcept {
    static heap &instance = detail::make_default_heap();
    return instance;
}

// Give `bytes` bytes at `memory` to the default heap. While the heap has no memory (no
// static array or linker region is configured and it has not grown yet) they receive its
// control structure and first pool; otherwise they become one more pool. The memory must
// stay valid until the program ends. Returns false if it is null or too small (see
// heap::add_pool).
inline bool install_default_heap(void *memory, std::size_t bytes) noexcept {
    return default_heap().add_pool(memory, bytes);
}

} // namespace tlsf

#endif // TLSF_DEFAULT_HEAP_HPP
