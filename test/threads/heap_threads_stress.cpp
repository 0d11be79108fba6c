// SPDX-License-Identifier: MIT
// heap_threads_stress.cpp - threads share a tlsf::heap: they allocate, fill, check, resize
// and free blocks, and hand blocks to each other, so that most blocks are freed by a thread
// other than the one that allocated them and read by a thread that did not write them.
//
//   heap_threads_stress [threads] [operations per thread]
//
// Two heaps, one after the other:
//   default  tlsf::default_heap(): its hosted configuration, locked with std::mutex and
//            growing from the OS (large requests make it add pools under contention);
//   hooked   a tlsf::heap on a static buffer whose lock is a user lock_hooks pair (a spin
//            lock on std::atomic_flag), as an RTOS hook would be installed.
// Blocks travel two ways: a mutex-protected queue, and mailboxes taken over with
// std::atomic exchange (release/acquire), so the contents written by one thread must be
// visible to the next through the heap's lock and the mailbox alone.
//
// The core has no lock of its own (tlsf.h: calls on one heap must not overlap); the C++
// layer's lock_hooks are what is tested. Built with -fsanitize=thread when the compiler
// can (test/threads/CMakeLists.txt), with a copy of the core compiled the same way, so
// ThreadSanitizer sees every access of the heap. Exit status 0 when every check held.
#include <tlsf/tlsf.hpp>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

namespace {

struct block {
    unsigned char *ptr = nullptr;
    std::size_t bytes = 0;
    std::uint32_t seed = 0;
    std::size_t align = 0; // 0: malloc'd; else memalign'd with this alignment
};

std::atomic<int> failures{0};

void fail(const char *what, const block &b) {
    std::fprintf(stderr, "heap_threads_stress: %s (block %p, %zu bytes, seed %u)\n", what,
                 static_cast<void *>(b.ptr), b.bytes, static_cast<unsigned>(b.seed));
    failures.fetch_add(1);
}

// Deterministic per thread: xorshift32.
struct rng {
    std::uint32_t state;
    std::uint32_t next() {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        return state;
    }
    std::uint32_t below(std::uint32_t n) { return next() % n; }
};

unsigned char pattern(std::uint32_t seed, std::size_t i) {
    return static_cast<unsigned char>((seed * 2654435761u) >> 24 ^ i);
}

// The bytes of a block that are written and checked: all of them, except in large blocks
// only the first and last 4 KiB (each byte costs a lot under ThreadSanitizer).
constexpr std::size_t edge = 4096;
std::size_t next_index(std::size_t i, std::size_t bytes) {
    ++i;
    return bytes > 4 * edge && i == edge ? bytes - edge : i;
}

void fill(block &b, std::size_t from = 0) {
    for (std::size_t i = from; i < b.bytes; i = next_index(i, b.bytes))
        b.ptr[i] = pattern(b.seed, i);
}

// The first `bytes` bytes (at most b.bytes) hold the pattern.
bool intact(const block &b, std::size_t bytes) {
    for (std::size_t i = 0; i < bytes; i = next_index(i, b.bytes))
        if (b.ptr[i] != pattern(b.seed, i)) return false;
    return true;
}

// A spin lock usable as tlsf::lock_hooks: the "RTOS" lock of the hooked heap.
struct spin_lock {
    std::atomic_flag flag = ATOMIC_FLAG_INIT;
    static void lock(void *self) {
        while (static_cast<spin_lock *>(self)->flag.test_and_set(std::memory_order_acquire))
            std::this_thread::yield();
    }
    static void unlock(void *self) {
        static_cast<spin_lock *>(self)->flag.clear(std::memory_order_release);
    }
};

// Blocks in transit between threads.
struct exchange {
    std::mutex lock;
    std::vector<block> queue;
    static constexpr int mailbox_count = 8;
    std::atomic<block *> mailboxes[mailbox_count] = {};
};

class stress {
  public:
    stress(tlsf::heap &heap, std::size_t large) : heap_(heap), large_(large) {}

    void run(int threads, int operations) {
        std::vector<std::thread> workers;
        for (int t = 0; t < threads; ++t)
            workers.emplace_back([this, t, operations] { worker(t, operations); });
        for (std::thread &w : workers)
            w.join();
        // What is still in transit is freed here, after its contents are checked.
        for (block &b : exchange_.queue)
            release(b);
        exchange_.queue.clear();
        for (std::atomic<block *> &box : exchange_.mailboxes)
            if (block *b = box.exchange(nullptr)) {
                release(*b);
                delete b;
            }
    }

  private:
    block allocate(rng &r, std::uint32_t seed) {
        block b;
        b.seed = seed;
        const std::uint32_t kind = r.below(100);
        b.bytes = kind < 2 ? large_ + r.below(4096) : 1 + r.below(kind < 30 ? 64 : 2048);
        if (kind >= 90) {
            b.align = std::size_t{64} << r.below(6);
            b.ptr = static_cast<unsigned char *>(heap_.memalign(b.align, b.bytes));
            if (b.ptr && reinterpret_cast<std::uintptr_t>(b.ptr) % b.align != 0)
                fail("memalign: misaligned", b);
        } else if (kind >= 80) {
            b.ptr = static_cast<unsigned char *>(heap_.calloc(1, b.bytes));
            for (std::size_t i = 0; b.ptr && i < b.bytes; ++i)
                if (b.ptr[i] != 0) {
                    fail("calloc: not zero", b);
                    break;
                }
        } else {
            b.ptr = static_cast<unsigned char *>(heap_.malloc(b.bytes));
        }
        if (b.ptr == nullptr) {
            b.bytes = 0;
            return b;
        }
        // usable_size takes the heap's lock: its read of the size word does not race with
        // the neighbours' updates of that word's "previous block is free" flag.
        if (heap_.usable_size(b.ptr) < b.bytes) fail("usable size below the request", b);
        fill(b);
        return b;
    }

    void release(block &b) {
        if (b.ptr == nullptr) return;
        if (!intact(b, b.bytes)) fail("contents changed", b);
        heap_.free(b.ptr);
        b = block{};
    }

    void resize(rng &r, block &b) {
        if (b.ptr == nullptr) return;
        const std::size_t bytes = 1 + r.below(4096);
        auto *moved = static_cast<unsigned char *>(heap_.realloc(b.ptr, bytes));
        if (moved == nullptr) return; // out of memory: the old block is untouched
        const std::size_t kept = bytes < b.bytes ? bytes : b.bytes;
        b.ptr = moved;
        if (!intact(b, kept)) fail("realloc lost contents", b);
        if (b.align && reinterpret_cast<std::uintptr_t>(moved) % b.align != 0)
            fail("realloc lost the alignment", b);
        const std::size_t old = b.bytes;
        b.bytes = bytes;
        if (bytes > old) fill(b, old);
    }

    void worker(int thread, int operations) {
        rng r{0x9e3779b9u * static_cast<std::uint32_t>(thread + 1)};
        std::vector<block> own(64);
        std::uint32_t seed = static_cast<std::uint32_t>(thread) << 24;
        for (int op = 0; op < operations; ++op) {
            block &slot = own[r.below(static_cast<std::uint32_t>(own.size()))];
            const std::uint32_t what = r.below(100);
            if (what < 40) { // replace a block of our own
                release(slot);
                slot = allocate(r, ++seed);
            } else if (what < 55) {
                resize(r, slot);
            } else if (what < 70) { // hand one over through the queue
                if (slot.ptr == nullptr) slot = allocate(r, ++seed);
                std::lock_guard<std::mutex> guard{exchange_.lock};
                if (exchange_.queue.size() < 256) {
                    exchange_.queue.push_back(slot);
                    slot = block{};
                }
            } else if (what < 85) { // take one from the queue: check it and free it here
                block taken;
                {
                    std::lock_guard<std::mutex> guard{exchange_.lock};
                    if (!exchange_.queue.empty()) {
                        taken = exchange_.queue.back();
                        exchange_.queue.pop_back();
                    }
                }
                release(taken);
            } else { // swap through a mailbox: leave ours, take whatever was there
                if (slot.ptr == nullptr) slot = allocate(r, ++seed);
                auto *mine = new block(slot);
                slot = block{};
                std::atomic<block *> &box = exchange_.mailboxes[r.below(exchange::mailbox_count)];
                if (block *theirs = box.exchange(mine, std::memory_order_acq_rel)) {
                    if (r.below(2) == 0) {
                        release(*theirs);
                    } else { // keep it, write into it, maybe free it later
                        slot = *theirs;
                        if (!intact(slot, slot.bytes)) fail("mailbox block changed", slot);
                        slot.seed = ++seed;
                        fill(slot);
                    }
                    delete theirs;
                }
            }
        }
        for (block &b : own)
            release(b);
    }

    tlsf::heap &heap_;
    std::size_t large_;
    exchange exchange_;
};

bool settled(const char *name, tlsf::heap &heap, const tlsf::heap_stats &before) {
    const tlsf::heap_stats after = heap.stats();
    bool ok = heap.check();
    if (!ok) std::fprintf(stderr, "heap_threads_stress: %s: heap check failed\n", name);
    if (after.live_blocks != before.live_blocks || after.used_bytes != before.used_bytes) {
        std::fprintf(
            stderr, "heap_threads_stress: %s: %zu live blocks, %zu bytes used (before: %zu, %zu)\n",
            name, after.live_blocks, after.used_bytes, before.live_blocks, before.used_bytes);
        ok = false;
    }
    std::printf("heap_threads_stress: %s: %zu allocations, %zu pools, peak %zu bytes%s\n", name,
                after.alloc_count - before.alloc_count, after.pool_count, after.peak_used_bytes,
                ok ? "" : " - FAILED");
    return ok;
}

alignas(tlsf::alignment) unsigned char hooked_memory[8u << 20];

} // namespace

int main(int argc, char **argv) {
    const int threads = argc > 1 ? std::atoi(argv[1]) : 4;
    const int operations = argc > 2 ? std::atoi(argv[2]) : 20000;
    if (threads < 1 || operations < 1) {
        std::fprintf(stderr, "usage: heap_threads_stress [threads] [operations per thread]\n");
        return 2;
    }
    bool ok = true;

    tlsf::heap &fallback = tlsf::default_heap();
    const tlsf::heap_stats before = fallback.stats();
    // Requests of 1.5 MiB exceed the OS growth step, so pools are added under contention.
    stress(fallback, std::size_t{3} << 19).run(threads, operations);
    ok = settled("default heap (std::mutex)", fallback, before) && ok;

    spin_lock spin;
    tlsf::heap hooked(hooked_memory, sizeof hooked_memory);
    hooked.set_lock(tlsf::lock_hooks{&spin_lock::lock, &spin_lock::unlock, &spin});
    const tlsf::heap_stats hooked_before = hooked.stats();
    // A fixed heap: the large requests sometimes fail, and the test accepts that.
    stress(hooked, std::size_t{1} << 19).run(threads, operations);
    ok = settled("heap with user lock hooks", hooked, hooked_before) && ok;

    if (failures.load() != 0)
        std::fprintf(stderr, "heap_threads_stress: %d failed checks\n", failures.load());
    return ok && failures.load() == 0 ? 0 : 1;
}
