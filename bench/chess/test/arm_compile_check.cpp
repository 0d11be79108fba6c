// SPDX-License-Identifier: MIT
// Engine-only translation unit for the bare-metal build check:
//
//   arm-none-eabi-g++ -std=c++17 -mcpu=cortex-m4 -mthumb -Os -fno-exceptions
//                     -fno-rtti -Wall -Wextra -Werror -I../include -c arm_compile_check.cpp
//
// It is compiled, never linked or run. It instantiates the engine with both
// a default-constructible allocator and a stateful one bound to a memory
// block, the two shapes of allocator the benchmark uses on a microcontroller.
#include <cstddef>
#include <cstdint>
#include <memory>

#include "chess/chess.hpp"
#include "chess/notation.hpp"

namespace {

// Stand-in for a heap object: a block of memory handed out linearly.
struct Arena {
    unsigned char *base;
    std::size_t size;
    std::size_t used;
};

// Stateful allocator bound to an Arena (not default-constructible). Freed
// memory is not reused; this is a compile check, not a real allocator.
template <class T>
class arena_allocator {
  public:
    using value_type = T;

    explicit arena_allocator(Arena &arena) noexcept : arena_(&arena) {}
    template <class U>
    arena_allocator(const arena_allocator<U> &other) noexcept : arena_(other.arena()) {}

    T *allocate(std::size_t n) {
        const std::size_t align = alignof(T);
        const std::size_t start = (arena_->used + align - 1) / align * align;
        const std::size_t bytes = n * sizeof(T);
        if (start + bytes > arena_->size) return nullptr;
        arena_->used = start + bytes;
        return reinterpret_cast<T *>(arena_->base + start);
    }
    void deallocate(T *, std::size_t) noexcept {}

    Arena *arena() const noexcept { return arena_; }

  private:
    Arena *arena_;
};

template <class T, class U>
bool operator==(const arena_allocator<T> &a, const arena_allocator<U> &b) noexcept {
    return a.arena() == b.arena();
}
template <class T, class U>
bool operator!=(const arena_allocator<T> &a, const arena_allocator<U> &b) noexcept {
    return !(a == b);
}

alignas(8) unsigned char g_heap[64 * 1024];

} // namespace

extern "C" std::uint64_t chess_arm_check_perft(const char *fen, int depth) {
    Arena arena{g_heap, sizeof g_heap, 0};
    const std::uint64_t with_arena = chess::perft(fen, depth, arena_allocator<char>(arena), 256);
    const std::uint64_t with_std = chess::perft(fen, depth, std::allocator<char>(), 0);
    return with_arena ^ with_std;
}

extern "C" std::uint64_t chess_arm_check_divide(int depth, char *first_move) {
    chess::basic_engine<std::allocator<char>> engine;
    bool first = true;
    return engine.divide(depth, [&](chess::Move m, std::uint64_t) {
        if (first) {
            char text[6];
            chess::to_uci(m, text);
            for (int i = 0; i < 6; ++i)
                first_move[i] = text[i];
            first = false;
        }
    });
}
