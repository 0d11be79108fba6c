// SPDX-License-Identifier: MIT
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
//   lock     std::mutex (hosted; not taken while the process has one thread), masked
//            interrupts (Cortex-M), the program's own functions (RTOS), or none (bare
//            metal).
//
// Lifetime: built on first use, by whichever code asks first - a static constructor in any
// translation unit included - and never destroyed, so objects destroyed at exit can still
// free into it. The memory it obtained from the OS is never returned; it is reused.
//
// Cost: the heap object itself, its lock and pool source are constant-initialised (they
// exist before any code runs, at a fixed address); first use only gives it its memory
// (the static array or linker region) or, for TLSF_LOCK_USER, its lock. So default_heap()
// is one load and a predictable branch, and the global operator new, which takes the lock
// inline when it is known at compile time, does not even need that.
//
// Its lock is the one TLSF_DEFAULT_HEAP_LOCK selects: the global operator new and delete
// take that lock directly, so default_heap().set_lock() must not be used.
#ifndef TLSF_DEFAULT_HEAP_HPP
#define TLSF_DEFAULT_HEAP_HPP

#include <atomic>
#include <cstddef>
#include <new>

#include "tlsf/config.hpp"
#include "tlsf/heap.hpp"
#include "tlsf/lock.hpp"

#if TLSF_DEFAULT_HEAP_LOCK == TLSF_LOCK_STD_MUTEX
#include <mutex>
#if defined(__has_include)
#if __has_include(<sys/single_threaded.h>)
#include <sys/single_threaded.h> // glibc 2.32 and later: __libc_single_threaded
#define TLSF_DETAIL_SINGLE_THREADED_FLAG 1
#endif
#endif
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

#if TLSF_DEFAULT_HEAP_LOCK == TLSF_LOCK_STD_MUTEX
// Whether the process has a single thread now, as the C library knows it (glibc's
// __libc_single_threaded, false from the first pthread_create on); false where the
// library does not say.
inline bool process_single_threaded() noexcept {
#ifdef TLSF_DETAIL_SINGLE_THREADED_FLAG
    return __libc_single_threaded != 0;
#else
    return false;
#endif
}

// The default heap's std::mutex, not taken while the process has a single thread: no
// other thread can then be inside the heap, nor start before the call that skipped the
// lock returns (only this thread could start it). glibc's malloc skips its own atomics the
// same way. `held` says whether this lock took the mutex (it is written only under the
// mutex), so the unlock matches the lock even if the C library's flag changes between.
struct default_heap_mutex {
    std::mutex mutex;
    bool held = false;

    void lock() noexcept {
        if (process_single_threaded()) return;
        mutex.lock();
        held = true;
    }
    void unlock() noexcept {
        if (!held) return;
        held = false;
        mutex.unlock();
    }
};
#endif

// Everything the default heap is made of, constant-initialised: it exists, with its lock
// and pool source, before any constructor runs, so a static constructor in any
// translation unit may allocate.
struct default_heap_state {
#if TLSF_DEFAULT_HEAP_LOCK == TLSF_LOCK_STD_MUTEX
    default_heap_mutex mutex; // constexpr-constructible; before `instance`, which points at it
#endif
#if TLSF_DEFAULT_HEAP_GROW
    std::size_t obtained = 0; // bytes from the OS so far (os_pool_source's context)
#endif
    heap instance;
    // Set once the heap has its configured memory (and, for TLSF_LOCK_USER, its lock).
    std::atomic<bool> built{false};

    constexpr default_heap_state() noexcept : instance(constant_lock(), constant_pool_source()) {
    }

  private:
    // The lock, where it is known at compile time. The program's own (TLSF_LOCK_USER) is
    // a run-time call, made when the heap is built.
    constexpr lock_hooks constant_lock() noexcept {
#if TLSF_DEFAULT_HEAP_LOCK == TLSF_LOCK_STD_MUTEX
        return lock_hooks_for(mutex);
#elif TLSF_DEFAULT_HEAP_LOCK == TLSF_LOCK_INTERRUPTS
        return interrupt_lock_hooks();
#else
        return lock_hooks{};
#endif
    }

    constexpr pool_source constant_pool_source() noexcept {
#if TLSF_DEFAULT_HEAP_GROW
        return pool_source{&os_pool_source, &obtained};
#else
        return pool_source{};
#endif
    }
};

// The state in storage that is never destroyed (a union does not destroy its member):
// objects destroyed at exit may still free into the heap.
union default_heap_storage {
    constexpr default_heap_storage() noexcept : state() {}
    ~default_heap_storage() {}
    default_heap_state state;
};

#if defined(__cpp_constinit)
constinit // verified where the language can: no dynamic initialisation, no order problem
#endif
    inline default_heap_storage default_heap_storage_instance;

// The default heap object, without the first-use check: a constant address. For the
// fast paths of <tlsf/global_new.hpp>, which find out from a null native_handle() that
// the heap has no memory yet and then go through default_heap().
inline heap &default_heap_object() noexcept {
    return default_heap_storage_instance.state.instance;
}

// Gives the default heap its configured memory and (TLSF_LOCK_USER) its lock.
inline void give_default_heap_its_memory() noexcept {
    default_heap_state &state = default_heap_storage_instance.state;
    heap &instance = state.instance;
    // First: the control structure is made with the first pool, and takes the slabs then.
    instance.set_slabs(TLSF_DEFAULT_HEAP_SLABS);
#if TLSF_DEFAULT_HEAP_SIZE > 0
    // Zero-initialised static storage: in .bss, nothing runs before it is used.
    alignas(tlsf::alignment) static unsigned char memory[TLSF_DEFAULT_HEAP_SIZE];
    instance.add_pool(memory, sizeof memory);
#endif
#ifdef TLSF_DEFAULT_HEAP_START
    instance.add_pool(TLSF_DEFAULT_HEAP_START,
                      static_cast<std::size_t>(TLSF_DEFAULT_HEAP_END - TLSF_DEFAULT_HEAP_START));
#endif
#if TLSF_DEFAULT_HEAP_LOCK == TLSF_LOCK_USER
    // Last: no other thread sees the heap before it is built, so its pools need no lock,
    // and the program's lock is first taken by a real allocation.
    instance.set_lock(default_heap_lock());
#endif
    (void)instance;
}

// First use: runs once, however many threads arrive together (a function-local static's
// guard, thread-safe where the compiler makes those thread-safe - on this rare path only).
TLSF_DETAIL_COLD inline void build_default_heap() noexcept {
    static const bool given = (give_default_heap_its_memory(), true);
    (void)given;
    default_heap_storage_instance.state.built.store(true, std::memory_order_release);
}

// Whether the fast paths may take the default heap's lock without building the heap
// first: always when the lock is known at compile time; the program's own lock
// (TLSF_LOCK_USER) is only known once the heap is built.
inline bool default_heap_lock_known() noexcept {
#if TLSF_DEFAULT_HEAP_LOCK == TLSF_LOCK_USER
    return default_heap_storage_instance.state.built.load(std::memory_order_acquire);
#else
    return true;
#endif
}

// The default heap's lock as a scope guard, for the fast paths: inline where the lock is
// known at compile time - the same lock the heap's own hooks take, so the two exclude
// each other. With TLSF_LOCK_USER, only once default_heap_lock_known().
class default_heap_guard {
  public:
#if TLSF_DEFAULT_HEAP_LOCK == TLSF_LOCK_STD_MUTEX
    default_heap_guard() noexcept {
        default_heap_storage_instance.state.mutex.lock();
    }
    ~default_heap_guard() {
        default_heap_storage_instance.state.mutex.unlock();
    }
#else
    default_heap_guard() noexcept {
    } // user-provided: an empty guard is no "unused variable"
#endif
    default_heap_guard(const default_heap_guard &) = delete;
    default_heap_guard &operator=(const default_heap_guard &) = delete;

  private:
#if TLSF_DEFAULT_HEAP_LOCK == TLSF_LOCK_INTERRUPTS
    interrupt_guard masked_;
#elif TLSF_DEFAULT_HEAP_LOCK == TLSF_LOCK_USER
    scoped_lock hooks_{default_heap_object().get_lock()};
#endif
};

} // namespace detail

// The process default heap, with its memory: built on the first call (thread-safe where
// the compiler makes function-local statics thread-safe), never destroyed. Cheap to call:
// one load and a predictable branch.
inline heap &default_heap() noexcept {
    if (!detail::default_heap_storage_instance.state.built.load(std::memory_order_acquire))
        detail::build_default_heap();
    return detail::default_heap_object();
}

namespace detail {

// The default heap's fast paths, shared by the global operator new and delete
// (<tlsf/global_new.hpp>) and by tlsf::allocator and tlsf::memory_resource on the default
// heap (heap_malloc, heap_memalign, heap_free below): the lock taken inline
// (default_heap_guard), one core call, the unlock - no function pointer, no first-use
// check. (heap::malloc and heap::free take any heap's lock through its hooks: two indirect
// calls per call.)

// malloc from the default heap's free lists, without growing it. `searched` tells whether
// they were searched: not when the heap has no memory yet or its lock is not known yet
// (TLSF_LOCK_USER before first use); a caller that retries should then grow the heap
// first, since a second search would count a second failure in its statistics.
inline void *default_heap_try_malloc(std::size_t bytes, bool &searched) noexcept {
    searched = false;
    if (!default_heap_lock_known()) return nullptr;
    default_heap_guard guard;
    tlsf_t handle = default_heap_object().native_handle();
    if (handle == nullptr) return nullptr;
    searched = true;
    return tlsf_malloc(handle, bytes);
}

// Free a block of the default heap. Any pointer but nullptr came from it, so the heap has
// a control structure (and, with TLSF_LOCK_USER, its lock): no first-use or null-handle
// test is needed. nullptr is left to tlsf_free, which returns at once, except with
// TLSF_LOCK_USER, whose lock may not exist yet: there it returns before the lock.
inline void default_heap_free(void *block) noexcept {
#if TLSF_DEFAULT_HEAP_LOCK == TLSF_LOCK_USER
    if (block == nullptr) return;
#endif
    default_heap_guard guard;
    tlsf_free(default_heap_object().native_handle(), block);
}

// heap::malloc and heap::free on `h`, through the fast paths above when `h` is the default
// heap: the same results (a failed search grows the heap, then searches once more).
inline void *heap_malloc(heap &h, std::size_t bytes) noexcept {
    if (&h == &default_heap_object()) {
        bool searched;
        if (void *block = default_heap_try_malloc(bytes, searched)) return block;
        if (searched && !h.grow(bytes)) return nullptr;
    }
    return h.malloc(bytes);
}
// heap::memalign on `h`: a valid alignment up to tlsf::alignment is heap_malloc; any other
// (larger, or not a power of two) is left to heap::memalign, which judges it.
inline void *heap_memalign(heap &h, std::size_t align, std::size_t bytes) noexcept {
    const bool plain = align != 0 && align <= alignment && (align & (align - 1)) == 0;
    return plain ? heap_malloc(h, bytes) : h.memalign(align, bytes);
}
inline void heap_free(heap &h, void *block) noexcept {
    if (&h == &default_heap_object()) return default_heap_free(block);
    h.free(block);
}

} // namespace detail

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
