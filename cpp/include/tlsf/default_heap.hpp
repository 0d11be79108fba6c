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
//   lock     tlsf::exchange_lock or std::mutex (hosted; not taken while the process has
//            one thread), masked interrupts (Cortex-M), the program's own functions
//            (RTOS), or none (bare metal).
//
// Or it adopts a C heap the program already has, with that heap's lock
// (TLSF_DEFAULT_HEAP_ADOPT: the FreeRTOS port's heap, say), so C and C++ share one heap.
//
// Lifetime: built on first use, by whichever code asks first - a static constructor in any
// translation unit included - and never destroyed, so objects destroyed at exit can still
// free into it. The memory it obtained from the OS is reused, and returned to the OS only
// when the program asks: default_heap().trim() unmaps every pool that holds no block.
//
// Cost: first use gives it its memory (the static array or linker region), or its lock
// (TLSF_LOCK_USER), or the C heap it adopts. Before that, the global operator new finds it
// without memory at a fixed address and takes the slow path, which builds it. So
// default_heap() is one load and a predictable branch, and the global operator new, which
// takes the lock inline when it is known at compile time, does not even need that.
//
// Bare metal: with any lock but the hosted ones, the default heap registers no destructor,
// so nothing needs atexit or __dso_handle (which -nostartfiles leaves undefined); the heap
// object is built in static storage on first use. With tlsf::exchange_lock or std::mutex
// (an OS) the object and its lock are constant-initialised instead, so the lock exists
// before any code runs, and the destructor the compiler registers for them does nothing.
//
// Its lock is the one TLSF_DEFAULT_HEAP_LOCK selects: the global operator new and delete
// take that lock directly, so default_heap().set_lock() must not be used.
#ifndef TLSF_DEFAULT_HEAP_HPP
#define TLSF_DEFAULT_HEAP_HPP

#include <atomic>
#include <cstddef>
#include <cstring>
#include <new>

#include "tlsf/config.hpp"
#include "tlsf/heap.hpp"
#include "tlsf/lock.hpp"

#if TLSF_DEFAULT_HEAP_LOCK == TLSF_LOCK_STD_MUTEX
#include <mutex>
#endif
#if TLSF_DETAIL_HOSTED_LOCK
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
// default heap. Called when the default heap is first used (by each thread that arrives
// while it is being built, so it must return the same lock every time).
lock_hooks default_heap_lock() noexcept;
#endif

#if TLSF_DEFAULT_HEAP_ADOPT
// A C heap for the default heap to adopt: its handle and the lock its owner takes.
struct adopted_heap {
    tlsf_t handle;   // nullptr: not there yet (the default heap asks again at its next use)
    lock_hooks lock; // lock_hooks{}: the C heap is used by one thread only
};

// Defined by the program when TLSF_DEFAULT_HEAP_ADOPT is 1: the C heap the default heap is
// (for FreeRTOS: {pxPortGetTlsfHeap(), *pxPortGetHeapLock()}, in
// ports/freertos/tlsf_freertos.cpp). Called at the default heap's first use - by each
// thread that arrives then, so it must return the same heap every time - and again at
// later uses while it returns a null handle: until then every allocation fails as out of
// memory. Must not allocate from the default heap.
adopted_heap default_heap_adopt() noexcept;
#endif

namespace detail {

// Whether the default heap's lock is known only at run time (the program's own, or the
// adopted heap's): the fast paths then wait until the heap is built, which brings the lock.
#if TLSF_DEFAULT_HEAP_LOCK == TLSF_LOCK_USER || TLSF_DEFAULT_HEAP_LOCK == TLSF_LOCK_ADOPTED
#define TLSF_DETAIL_RUN_TIME_LOCK 1
#else
#define TLSF_DETAIL_RUN_TIME_LOCK 0
#endif

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

// Takes back a pool os_pool_source gave, when default_heap().trim() finds it empty.
inline void os_pool_give_back(region memory, void *context) noexcept {
    std::size_t &obtained = *static_cast<std::size_t *>(context);
    obtained -= memory.bytes;
#if TLSF_DETAIL_GROW_WITH_MMAP
#if defined(TLSF_DETAIL_LSAN)
    __lsan_unregister_root_region(memory.memory, memory.bytes);
#endif
    ::munmap(memory.memory, memory.bytes);
#else
    std::free(memory.memory);
#endif
}
#endif

#if TLSF_DETAIL_HOSTED_LOCK
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

// The default heap's lock (tlsf::exchange_lock, or std::mutex), not taken while the
// process has a single thread: no other thread can then be inside the heap, nor start
// before the call that skipped the lock returns (only this thread could start it). glibc's
// malloc skips its own atomics the same way. The unlock does not ask the C library's flag
// again, which may have changed in between. The exchange lock is simply released: one
// skipped while no other thread existed is free at the unlock (no other thread can have
// taken it in between), and storing "free" into a free lock changes nothing - one store,
// no test. std::mutex must not be unlocked unless held, so `held_` says whether it was
// taken (written only under the mutex).
struct default_heap_mutex {
#if TLSF_DEFAULT_HEAP_LOCK == TLSF_LOCK_EXCHANGE
    exchange_lock mutex;

    bool held() const noexcept {
        return mutex.is_locked();
    }
    void lock() noexcept {
        if (!process_single_threaded()) mutex.lock();
    }
    void unlock() noexcept {
        mutex.unlock();
    }
#else
    std::mutex mutex;
    bool held_ = false;

    bool held() const noexcept {
        return held_;
    }
    void lock() noexcept {
        if (process_single_threaded()) return;
        mutex.lock();
        held_ = true;
    }
    void unlock() noexcept {
        if (!held_) return;
        held_ = false;
        mutex.unlock();
    }
#endif
};
#endif

// The lock the default heap has from the start, where it is known at compile time. The
// program's own (TLSF_LOCK_USER) and the adopted heap's are run-time values, set when the
// heap is built.
#if TLSF_DETAIL_HOSTED_LOCK
constexpr lock_hooks constant_default_heap_lock(default_heap_mutex &mutex) noexcept {
    return lock_hooks_for(mutex);
}
#else
constexpr lock_hooks constant_default_heap_lock() noexcept {
#if TLSF_DEFAULT_HEAP_LOCK == TLSF_LOCK_INTERRUPTS
    return interrupt_lock_hooks();
#else
    return lock_hooks{};
#endif
}
#endif

// Where a heap object keeps its C handle, for the fast paths below, which read it from
// the default heap's storage before the object may exist (see default_heap_storage).
struct heap_layout {
    static constexpr std::size_t handle_offset = offsetof(heap, handle_);
};

#if TLSF_DETAIL_HOSTED_LOCK

// Everything the default heap is made of, constant-initialised: it exists, with its lock
// and pool source, before any constructor runs, so a static constructor in any
// translation unit may allocate - and it needs the mutex to exist before anyone takes it.
struct default_heap_state {
    default_heap_mutex mutex; // constexpr-constructible; before `instance`, which points at it
#if TLSF_DEFAULT_HEAP_GROW
    std::size_t obtained = 0; // bytes from the OS so far (os_pool_source's context)
#endif
    heap instance;
    // Set once the heap has its configured memory.
    std::atomic<bool> built{false};

    constexpr default_heap_state() noexcept
        : instance(constant_default_heap_lock(mutex), constant_pool_source()) {
    }

  private:
    constexpr pool_source constant_pool_source() noexcept {
#if TLSF_DEFAULT_HEAP_GROW
        return pool_source{&os_pool_source, &obtained, &os_pool_give_back};
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

inline std::atomic<bool> &default_heap_built() noexcept {
    return default_heap_storage_instance.state.built;
}

// The default heap object: a constant address, valid at any time.
inline heap &default_heap_object() noexcept {
    return default_heap_storage_instance.state.instance;
}

inline const void *default_heap_address() noexcept {
    return &default_heap_storage_instance.state.instance;
}

// The default heap's handle, for the fast paths: null until it has memory.
inline tlsf_t default_heap_handle() noexcept {
    return default_heap_object().native_handle();
}

#else // not TLSF_DETAIL_HOSTED_LOCK

// The default heap's storage: plain bytes, zero before any code runs, in which the heap
// object is built on first use (build_default_heap). Nothing here has a destructor, so
// nothing is registered with atexit and a bare-metal image needs no __dso_handle; the
// object is never destroyed, so objects destroyed at exit may still free into it.
//
// The fast paths read the object's C handle straight from these bytes (a memcpy of the
// bytes, which is how any object's representation may be read): zero - no memory yet,
// take the slow path - until the object exists and has memory. With a run-time lock they
// first wait for `built` instead.
struct default_heap_storage {
    alignas(heap) unsigned char bytes[sizeof(heap)];
#if TLSF_DEFAULT_HEAP_GROW
    std::size_t obtained;    // bytes from the OS so far (os_pool_source's context)
#endif
    std::atomic<bool> built; // the object exists and has its memory, lock or adopted heap
};

#if defined(__cpp_constinit)
constinit // verified where the language can: no dynamic initialisation, no order problem
#endif
    inline default_heap_storage default_heap_storage_instance{};

inline std::atomic<bool> &default_heap_built() noexcept {
    return default_heap_storage_instance.built;
}

// The default heap object. Only once it exists: after default_heap(), or where a block
// of it is at hand (a non-null pointer to free), or once `built` is seen set.
inline heap &default_heap_object() noexcept {
    return *std::launder(reinterpret_cast<heap *>(default_heap_storage_instance.bytes));
}

inline const void *default_heap_address() noexcept {
    return default_heap_storage_instance.bytes;
}

// The default heap's handle, for the fast paths: null until the object exists and has
// memory. With a lock known at compile time the fast paths come here before the object
// may exist, so this reads the bytes, never the object; with a run-time lock they come
// only once `built` is set, and read the object.
inline tlsf_t default_heap_handle() noexcept {
#if TLSF_DETAIL_RUN_TIME_LOCK
    return default_heap_object().native_handle();
#else
    tlsf_t handle;
    std::memcpy(&handle, default_heap_storage_instance.bytes + heap_layout::handle_offset,
                sizeof handle);
    return handle;
#endif
}

#endif // TLSF_DETAIL_HOSTED_LOCK

// Whether `h` is the default heap (an address comparison: the object need not exist).
inline bool is_default_heap(const heap &h) noexcept {
    return static_cast<const void *>(&h) == default_heap_address();
}

// Gives the default heap object its configured memory: the slabs and the cache budget
// first (the control structure is made with the first pool, and takes them then), then
// the static array and the linker region, whichever are configured. The budget is the
// one measured for the default heap (TLSF_CACHE_BYTES, tlsf_config.h), not a private
// heap's share of its size (heap.hpp, "The front cache"): it serves the whole program,
// and a drain there precedes growing from the OS.
inline void give_default_heap_its_memory(heap &instance) noexcept {
    instance.set_slabs(TLSF_DEFAULT_HEAP_SLABS);
    instance.set_cache_limit(static_cast<std::size_t>(TLSF_CACHE_BYTES));
#if TLSF_DEFAULT_HEAP_SIZE > 0
    // Zero-initialised static storage: in .bss, nothing runs before it is used.
    alignas(tlsf::alignment) static unsigned char memory[TLSF_DEFAULT_HEAP_SIZE];
    instance.add_pool(memory, sizeof memory);
#endif
#ifdef TLSF_DEFAULT_HEAP_START
    instance.add_pool(TLSF_DEFAULT_HEAP_START,
                      static_cast<std::size_t>(TLSF_DEFAULT_HEAP_END - TLSF_DEFAULT_HEAP_START));
#endif
    (void)instance;
}

#if TLSF_DETAIL_HOSTED_LOCK
// First use: runs once, however many threads arrive together (a function-local static's
// guard, thread-safe where the compiler makes those thread-safe - on this rare path only).
TLSF_DETAIL_COLD inline void build_default_heap() noexcept {
    static const bool given = (give_default_heap_its_memory(default_heap_object()), true);
    (void)given;
    default_heap_built().store(true, std::memory_order_release);
}
#else
// First use: builds the heap object in its storage and gives it its memory, or adopts the
// C heap. Once, however many threads arrive together: under the heap's own lock (the one
// known at compile time, the program's or the adopted heap's), with `built` checked again
// inside - no function-local static, whose guard (__cxa_guard_*) a bare-metal image may
// not want. The object is built unlocked and gets its lock last, so giving it its pools
// does not take a lock that may not nest (an RTOS mutex); no other thread sees it before
// `built` is set.
TLSF_DETAIL_COLD inline void build_default_heap() noexcept {
    default_heap_storage &storage = default_heap_storage_instance;
    void *const place = storage.bytes;
#if TLSF_DEFAULT_HEAP_ADOPT
    const adopted_heap adopted = default_heap_adopt();
    if (adopted.handle == nullptr) {
        // Nothing to adopt yet: an empty heap (allocations fail as out of memory), and the
        // next use asks again.
        if (!storage.built.load(std::memory_order_acquire)) ::new (place) heap();
        return;
    }
    const lock_hooks lock = adopted.lock;
#elif TLSF_DEFAULT_HEAP_LOCK == TLSF_LOCK_USER
    const lock_hooks lock = default_heap_lock();
#else
    const lock_hooks lock = constant_default_heap_lock();
#endif
    scoped_lock guard{lock};
    if (storage.built.load(std::memory_order_relaxed)) return; // another thread was first
#if TLSF_DEFAULT_HEAP_ADOPT
    ::new (place) heap(adopt, adopted.handle, lock);
#else
#if TLSF_DEFAULT_HEAP_GROW
    heap &instance = *::new (place) heap(
        lock_hooks{}, pool_source{&os_pool_source, &storage.obtained, &os_pool_give_back});
#else
    heap &instance = *::new (place) heap();
#endif
    give_default_heap_its_memory(instance);
    instance.set_lock(lock);
#endif
    storage.built.store(true, std::memory_order_release);
}
#endif

// Whether the fast paths may take the default heap's lock without building the heap
// first: always when the lock is known at compile time; the program's own lock
// (TLSF_LOCK_USER) and the adopted heap's are only known once the heap is built.
inline bool default_heap_lock_known() noexcept {
#if TLSF_DETAIL_RUN_TIME_LOCK
    return default_heap_built().load(std::memory_order_acquire);
#else
    return true;
#endif
}

// The default heap's lock as a scope guard, for the fast paths: inline where the lock is
// known at compile time - the same lock the heap's own hooks take, so the two exclude
// each other. With a run-time lock, only once default_heap_lock_known().
class default_heap_guard {
  public:
#if TLSF_DETAIL_HOSTED_LOCK
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
#elif TLSF_DETAIL_RUN_TIME_LOCK
    scoped_lock hooks_{default_heap_object().get_lock()};
#endif
};

} // namespace detail

// The process default heap, with its memory: built on the first call (thread-safe: see
// build_default_heap), never destroyed. Cheap to call: one load and a predictable branch.
// With TLSF_DEFAULT_HEAP_ADOPT, an empty heap while default_heap_adopt() has no C heap yet.
inline heap &default_heap() noexcept {
    if (!detail::default_heap_built().load(std::memory_order_acquire)) detail::build_default_heap();
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
// (a run-time lock before first use); a caller that retries should then grow the heap
// first, since a second search would count a second failure in its statistics.
inline void *default_heap_try_malloc(std::size_t bytes, bool &searched) noexcept {
    searched = false;
    if (!default_heap_lock_known()) return nullptr;
    default_heap_guard guard;
    tlsf_t handle = default_heap_handle();
    if (handle == nullptr) return nullptr;
    searched = true;
    void *block = tlsf_malloc(handle, bytes);
    TLSF_DETAIL_TRACE(if (block) tlsf_trace_malloc(default_heap_object().trace(), bytes, block));
    return block;
}

// Free a block of the default heap. Any pointer but nullptr came from it, so the heap has
// a control structure (and, with a run-time lock, its lock): no first-use or null-handle
// test is needed. nullptr is left to tlsf_free, which returns at once, except with a
// run-time lock, which may not exist yet: there it returns before the lock.
inline void default_heap_free(void *block) noexcept {
#if TLSF_DETAIL_RUN_TIME_LOCK
    if (block == nullptr) return;
#endif
    default_heap_guard guard;
    TLSF_DETAIL_TRACE(tlsf_trace_free(default_heap_object().trace(), block));
    tlsf_free(default_heap_handle(), block);
}

// heap::malloc and heap::free on `h`, through the fast paths above when `h` is the default
// heap: the same results (a failed search grows the heap, then searches once more).
inline void *heap_malloc(heap &h, std::size_t bytes) noexcept {
    if (is_default_heap(h)) {
        bool searched;
        if (void *block = default_heap_try_malloc(bytes, searched)) return block;
        if (searched) return h.malloc_after_miss(bytes); // grow, search once more
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
    if (is_default_heap(h)) return default_heap_free(block);
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
