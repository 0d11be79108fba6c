// SPDX-License-Identifier: MIT
// tlsf/config.hpp - the compile-time switches of the C++ layer, in one place.
//
// Like the core's settings (tlsf_config.h), each switch can be given on the compiler
// command line (-DTLSF_DEFAULT_HEAP_SIZE=65536), in the header named by TLSF_USER_CONFIG,
// or with #define before the first tlsf header of a translation unit.
//
// The switches are program-wide. The default heap is defined by inline functions, so two
// translation units that see different settings would break the one-definition rule.
// Give them as compile definitions of the whole executable (or in TLSF_USER_CONFIG), or
// use them in a single translation unit, as a firmware image that includes
// <tlsf/global_new.hpp> from main.cpp does.
//
// Where the process default heap (tlsf::default_heap()) gets its memory:
//
//   TLSF_DEFAULT_HEAP_SIZE    bytes of a static array that becomes its first pool. 0 (the
//                             default) means no array.
//   TLSF_DEFAULT_HEAP_START   together: the names of two linker symbols bounding a region
//   TLSF_DEFAULT_HEAP_END     that becomes a pool (firmware: -DTLSF_DEFAULT_HEAP_START=
//                             __heap_start -DTLSF_DEFAULT_HEAP_END=__heap_end). They are
//                             declared as extern "C" char NAME[].
//   TLSF_DEFAULT_HEAP_GROW    1: when the heap is exhausted, add a pool obtained from the
//                             operating system (mmap where it exists, std::malloc
//                             otherwise). Default: 1 on a system with an OS when neither
//                             of the above is set, else 0 (a fixed heap runs out
//                             deterministically).
//   TLSF_DEFAULT_HEAP_GROW_SIZE  the smallest pool growth asks for (default 1 MiB). Each
//                             new pool is also at least as large as all the earlier ones,
//                             so a program that uses N bytes makes O(log N) OS calls.
//   TLSF_DEFAULT_HEAP_SLABS   the slab size of the default heap (heap::set_slabs), or 0 for
//                             none. Default: 4096 where the heap grows and the core has
//                             slabs (TLSF_SLABS: 64-bit hosts), 0 elsewhere. Slabs make
//                             node containers faster and leave memory that a fixed heap
//                             could have given to other sizes; a heap that grows has more.
//
// Memory can also be given at run time, in any configuration, with
// tlsf::install_default_heap(memory, bytes): before the first allocation that is where
// the control structure goes; later it becomes one more pool.
//
// Or the default heap is a C heap the program already has (one heap for C and C++):
//
//   TLSF_DEFAULT_HEAP_ADOPT   1: the program defines
//                             `tlsf::adopted_heap tlsf::default_heap_adopt() noexcept`
//                             (<tlsf/default_heap.hpp>), returning a tlsf_t and the lock its
//                             owner takes - for FreeRTOS, pxPortGetTlsfHeap() and
//                             *pxPortGetHeapLock(), which ports/freertos/tlsf_freertos.cpp
//                             (CMake: tlsf::freertos_cpp) defines. The global operator new
//                             and delete, a default tlsf::allocator and a default
//                             tlsf::memory_resource then use that heap under that lock, and
//                             C code keeps using it too. None of the memory switches above
//                             may be set, nor TLSF_DEFAULT_HEAP_LOCK (the lock is the
//                             owner's). Default 0.
//
// How the default heap is locked (TLSF_DEFAULT_HEAP_LOCK):
//
//   TLSF_LOCK_EXCHANGE   tlsf::exchange_lock (<tlsf/lock.hpp>): one atomic flag, taken with
//                        an atomic exchange and given back with a release store, inline;
//                        contended, it spins, then yields, then sleeps. The default on a
//                        system with an OS. Not taken while the process has one thread.
//   TLSF_LOCK_STD_MUTEX  a std::mutex: a call into pthreads each way (136 instructions per
//                        allocate+deallocate pair against the exchange lock's 8); waiters
//                        block in the kernel and are woken in turn. Not taken while the
//                        process has one thread.
//   TLSF_LOCK_NONE       no lock: bare metal, or a program with one thread. The default
//                        without an OS.
//   TLSF_LOCK_USER       the program defines `tlsf::lock_hooks tlsf::default_heap_lock()
//                        noexcept` (see <tlsf/lock.hpp>), returning the lock and unlock
//                        functions of its RTOS. It is called once, on first use. Every
//                        operation then calls them through function pointers.
//   TLSF_LOCK_ADOPTED    set by TLSF_DEFAULT_HEAP_ADOPT, not by hand: the lock the adopted
//                        C heap's owner takes, through function pointers.
//   TLSF_LOCK_INTERRUPTS Arm Cortex-M (single core): interrupts are masked (PRIMASK)
//                        around every operation and the previous mask restored. Nesting
//                        is safe, interrupt handlers may allocate, and so may RTOS tasks
//                        (nothing is scheduled while interrupts are masked); the price is
//                        interrupt latency of one heap operation, which TLSF bounds.
//                        Three instructions per operation in the global operator new and
//                        delete; other operations call interrupt_lock_hooks().
//
// Per-thread default heaps (TLSF_CPP_DEFAULT_HEAP_PER_THREAD, hosted Linux only, default 0):
//
//   0  the global operator new and delete, a default-constructed tlsf::allocator and a
//      default tlsf::memory_resource use tlsf::default_heap(): one heap, one lock.
//   1  they use the per-thread heaps of the drop-in malloc (malloc/, its prefixed
//      static library tlsf_malloc_prefixed: tlsfm_malloc, tlsfm_free, ...): each thread
//      allocates from its own TLSF heap without a lock; a block deleted on another thread
//      is pushed lock-free onto its owner's list and taken back in batches of at most 16
//      on the owner's next calls; a thread that exits with live blocks leaves its heap to
//      the next new thread. NOT header-only: link the CMake target tlsf::cpp_thread_heaps
//      (it defines this macro and links tlsf_malloc_prefixed). tlsf::default_heap() still
//      exists, as an ordinary locked heap for explicit use.
//
// NONE, EXCHANGE, STD_MUTEX and INTERRUPTS are known at compile time: the global operator
// new and delete, and tlsf::allocator on the default heap, take them inline, without a
// call through a function pointer.
//
// Checks and sanitizers:
//
//   TLSF_CPP_SIZE_CHECKS  1: tlsf::allocator::deallocate(p, n) and
//                         tlsf::memory_resource::deallocate(p, bytes, align) check the size
//                         against the block (heap::free_sized) and report a mismatch as
//                         misuse. Default: 1 without NDEBUG (debug builds), 0 with it: it
//                         reads the block's header once more on every deallocation.
//   TLSF_CPP_REPLACE_GLOBAL_NEW  1: <tlsf/global_new.hpp> defines the global operator new
//                         and delete. Default 1, except under clang's ThreadSanitizer and
//                         MemorySanitizer: their runtimes, which clang links statically,
//                         define every operator new themselves (a second definition does
//                         not link), and the shared runtime (-shared-libsan) crashes at
//                         start-up on Debian 12 even for an empty program. There the
//                         sanitizer's allocator serves new and delete, which is also what
//                         lets it see every allocation; tlsf::allocator, the resources and
//                         the default heap work as usual. gcc's sanitizers (shared
//                         runtimes) and clang's AddressSanitizer accept the replacement,
//                         and the core tells ASan about its blocks. 0 keeps the C++
//                         library's operator new in any build (one program, one switch).
#ifndef TLSF_CPP_CONFIG_HPP
#define TLSF_CPP_CONFIG_HPP

#include <tlsf_abi.h> // the core's settings (tlsf_config.h, with TLSF_USER_CONFIG) and what follows from them

// The values TLSF_DEFAULT_HEAP_LOCK can take.
#define TLSF_LOCK_NONE 0
#define TLSF_LOCK_STD_MUTEX 1
#define TLSF_LOCK_USER 2
#define TLSF_LOCK_INTERRUPTS 3
#define TLSF_LOCK_ADOPTED 4
#define TLSF_LOCK_EXCHANGE 5

// TLSF_CPP_EXCEPTIONS: 1 when the code is compiled with exceptions. Failures then throw
// (std::bad_alloc and friends); with 0 they call the failure handler (<tlsf/failure.hpp>).
#ifndef TLSF_CPP_EXCEPTIONS
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS) || defined(_CPPUNWIND)
#define TLSF_CPP_EXCEPTIONS 1
#else
#define TLSF_CPP_EXCEPTIONS 0
#endif
#endif

// TLSF_CPP_RTTI: 1 when dynamic_cast is available. Without it, tlsf::memory_resource
// compares equal only to itself (see <tlsf/memory_resource.hpp>).
#ifndef TLSF_CPP_RTTI
#if defined(__cpp_rtti) || defined(__GXX_RTTI) || defined(_CPPRTTI)
#define TLSF_CPP_RTTI 1
#else
#define TLSF_CPP_RTTI 0
#endif
#endif

// TLSF_CPP_HOSTED: 1 when there is an operating system to ask for memory, to provide
// std::mutex and to print to. Bare-metal toolchains (arm-none-eabi) define none of these.
#ifndef TLSF_CPP_HOSTED
#if defined(__unix__) || defined(__APPLE__) || defined(_WIN32)
#define TLSF_CPP_HOSTED 1
#else
#define TLSF_CPP_HOSTED 0
#endif
#endif

// Internal: whether AddressSanitizer instruments this code (the core then poisons the
// parts of a pool its user does not own).
#if defined(__SANITIZE_ADDRESS__)
#define TLSF_DETAIL_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TLSF_DETAIL_ASAN 1
#endif
#endif
#ifndef TLSF_DETAIL_ASAN
#define TLSF_DETAIL_ASAN 0
#endif

// Internal: whether clang's ThreadSanitizer or MemorySanitizer instruments this code (see
// TLSF_CPP_REPLACE_GLOBAL_NEW).
#if defined(__clang__) && defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define TLSF_DETAIL_SANITIZER_OWNS_NEW 1
#endif
#endif
#ifndef TLSF_DETAIL_SANITIZER_OWNS_NEW
#define TLSF_DETAIL_SANITIZER_OWNS_NEW 0
#endif

#ifndef TLSF_CPP_REPLACE_GLOBAL_NEW
#define TLSF_CPP_REPLACE_GLOBAL_NEW (!TLSF_DETAIL_SANITIZER_OWNS_NEW)
#endif

#ifndef TLSF_CPP_SIZE_CHECKS
#ifdef NDEBUG
#define TLSF_CPP_SIZE_CHECKS 0
#else
#define TLSF_CPP_SIZE_CHECKS 1
#endif
#endif

#ifndef TLSF_DEFAULT_HEAP_SIZE
#define TLSF_DEFAULT_HEAP_SIZE 0
#endif

#ifndef TLSF_DEFAULT_HEAP_ADOPT
#define TLSF_DEFAULT_HEAP_ADOPT 0
#endif
#if TLSF_DEFAULT_HEAP_ADOPT
#if TLSF_DEFAULT_HEAP_SIZE != 0 || defined(TLSF_DEFAULT_HEAP_START) ||                             \
    (defined(TLSF_DEFAULT_HEAP_GROW) && TLSF_DEFAULT_HEAP_GROW)
#error                                                                                             \
    "TLSF_DEFAULT_HEAP_ADOPT: the adopted C heap has the memory; leave TLSF_DEFAULT_HEAP_SIZE, _START/_END and _GROW unset"
#endif
#if defined(TLSF_DEFAULT_HEAP_LOCK) && TLSF_DEFAULT_HEAP_LOCK != TLSF_LOCK_ADOPTED
#error                                                                                             \
    "TLSF_DEFAULT_HEAP_ADOPT: the lock is the adopted C heap's; leave TLSF_DEFAULT_HEAP_LOCK unset"
#endif
#define TLSF_DEFAULT_HEAP_LOCK TLSF_LOCK_ADOPTED
#elif defined(TLSF_DEFAULT_HEAP_LOCK) && TLSF_DEFAULT_HEAP_LOCK == TLSF_LOCK_ADOPTED
#error "TLSF_LOCK_ADOPTED comes with TLSF_DEFAULT_HEAP_ADOPT=1"
#endif

#if defined(TLSF_DEFAULT_HEAP_START) != defined(TLSF_DEFAULT_HEAP_END)
#error "TLSF_DEFAULT_HEAP_START and TLSF_DEFAULT_HEAP_END must be defined together"
#endif

#ifndef TLSF_DEFAULT_HEAP_GROW
#if TLSF_CPP_HOSTED && TLSF_DEFAULT_HEAP_SIZE == 0 && !defined(TLSF_DEFAULT_HEAP_START) &&         \
    !TLSF_DEFAULT_HEAP_ADOPT
#define TLSF_DEFAULT_HEAP_GROW 1
#else
#define TLSF_DEFAULT_HEAP_GROW 0
#endif
#endif

#ifndef TLSF_DEFAULT_HEAP_GROW_SIZE
#define TLSF_DEFAULT_HEAP_GROW_SIZE (1024 * 1024)
#endif

#ifndef TLSF_DEFAULT_HEAP_SLABS
#if TLSF_DEFAULT_HEAP_GROW && TLSF_SLABS
#define TLSF_DEFAULT_HEAP_SLABS 4096
#else
#define TLSF_DEFAULT_HEAP_SLABS 0
#endif
#endif

#ifndef TLSF_DEFAULT_HEAP_LOCK
#if TLSF_CPP_HOSTED
#define TLSF_DEFAULT_HEAP_LOCK TLSF_LOCK_EXCHANGE
#else
#define TLSF_DEFAULT_HEAP_LOCK TLSF_LOCK_NONE
#endif
#endif

#if TLSF_DEFAULT_HEAP_LOCK != TLSF_LOCK_NONE && TLSF_DEFAULT_HEAP_LOCK != TLSF_LOCK_STD_MUTEX &&   \
    TLSF_DEFAULT_HEAP_LOCK != TLSF_LOCK_USER && TLSF_DEFAULT_HEAP_LOCK != TLSF_LOCK_INTERRUPTS &&  \
    TLSF_DEFAULT_HEAP_LOCK != TLSF_LOCK_ADOPTED && TLSF_DEFAULT_HEAP_LOCK != TLSF_LOCK_EXCHANGE
#error                                                                                             \
    "TLSF_DEFAULT_HEAP_LOCK must be TLSF_LOCK_NONE, TLSF_LOCK_EXCHANGE, TLSF_LOCK_STD_MUTEX, TLSF_LOCK_USER or TLSF_LOCK_INTERRUPTS"
#endif
#if TLSF_DEFAULT_HEAP_LOCK == TLSF_LOCK_EXCHANGE && !TLSF_CPP_HOSTED
#error "TLSF_LOCK_EXCHANGE yields and sleeps when contended: a system with an OS only"
#endif

// Internal: the default heap's lock is one of the hosted locks (TLSF_LOCK_EXCHANGE,
// TLSF_LOCK_STD_MUTEX), an object inside the default heap's constant-initialised state,
// skipped while the process has a single thread.
#if TLSF_DEFAULT_HEAP_LOCK == TLSF_LOCK_EXCHANGE || TLSF_DEFAULT_HEAP_LOCK == TLSF_LOCK_STD_MUTEX
#define TLSF_DETAIL_HOSTED_LOCK 1
#else
#define TLSF_DETAIL_HOSTED_LOCK 0
#endif

#ifndef TLSF_CPP_DEFAULT_HEAP_PER_THREAD
#define TLSF_CPP_DEFAULT_HEAP_PER_THREAD 0
#endif
#if TLSF_CPP_DEFAULT_HEAP_PER_THREAD && TLSF_DEFAULT_HEAP_ADOPT
#error "TLSF_CPP_DEFAULT_HEAP_PER_THREAD and TLSF_DEFAULT_HEAP_ADOPT exclude each other"
#endif
#if TLSF_CPP_DEFAULT_HEAP_PER_THREAD && !TLSF_CPP_HOSTED
#error "TLSF_CPP_DEFAULT_HEAP_PER_THREAD needs a hosted system (the thread heaps of malloc/)"
#endif

// TLSF_CPP_TRACE: 1 lets a heap record its calls (heap::set_trace, with a recorder of
// trace/include/tlsf_trace.h: link tlsf::trace), the default heap's inline paths of global
// new and delete included (docs/trace.md). 0 (default): no member, not one instruction.
#ifndef TLSF_CPP_TRACE
#define TLSF_CPP_TRACE 0
#endif
#if TLSF_CPP_TRACE
#include "tlsf_trace.h"
#define TLSF_DETAIL_TRACE(call) call
#else
#define TLSF_DETAIL_TRACE(call)
#endif

// TLSF_CPP_CORTEX_M: 1 on an Arm M-profile core, where interrupts are masked with PRIMASK.
#if defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M'
#define TLSF_CPP_CORTEX_M 1
#else
#define TLSF_CPP_CORTEX_M 0
#endif

#if TLSF_DEFAULT_HEAP_LOCK == TLSF_LOCK_INTERRUPTS && !TLSF_CPP_CORTEX_M
#error "TLSF_LOCK_INTERRUPTS masks interrupts with PRIMASK: Arm Cortex-M only"
#endif

// Internal: marks the rare path of an allocation (out of memory, growth, first use) so
// that the compiler keeps it out of line and the common path stays short: fewer registers
// to save, no spills, a straight fall-through.
#if defined(__GNUC__) || defined(__clang__)
#define TLSF_DETAIL_COLD __attribute__((cold, noinline))
#elif defined(_MSC_VER)
#define TLSF_DETAIL_COLD __declspec(noinline)
#else
#define TLSF_DETAIL_COLD
#endif

#endif // TLSF_CPP_CONFIG_HPP
