// SPDX-License-Identifier: MIT
// Zobrist hashing keys, generated at compile time with a tiny xorshift
// generator (no <random>, no run-time initialisation, identical on every
// platform so that hashes are reproducible).
#ifndef CHESS_ZOBRIST_HPP
#define CHESS_ZOBRIST_HPP

#include <cstdint>

#include "chess/types.hpp"

namespace chess {

// xorshift64* (Vigna). Statistically more than good enough for hash keys and
// small enough to run inside a constant expression.
class XorShift64 {
  public:
    constexpr explicit XorShift64(std::uint64_t seed) : state_(seed != 0 ? seed : 1) {}

    constexpr std::uint64_t next() {
        state_ ^= state_ >> 12;
        state_ ^= state_ << 25;
        state_ ^= state_ >> 27;
        return state_ * 0x2545F4914F6CDD1DULL;
    }

  private:
    std::uint64_t state_;
};

// Perft results are cached per (position, remaining depth), so the table
// also carries one key per depth that is mixed into the position hash.
constexpr int kMaxHashedDepth = 64;

struct ZobristKeys {
    std::uint64_t piece[kNumPieceLists][64];
    std::uint64_t black_to_move;
    std::uint64_t castling[16]; // indexed by the full rights mask
    std::uint64_t ep_file[8];
    std::uint64_t depth[kMaxHashedDepth];

    constexpr ZobristKeys() : piece{}, black_to_move{}, castling{}, ep_file{}, depth{} {
        XorShift64 rng(0x9E3779B97F4A7C15ULL);
        for (auto &keys : piece) {
            for (auto &key : keys)
                key = rng.next();
        }
        black_to_move = rng.next();
        for (auto &key : castling)
            key = rng.next();
        for (auto &key : ep_file)
            key = rng.next();
        for (auto &key : depth)
            key = rng.next();
    }
};

inline constexpr ZobristKeys kZobrist{};

} // namespace chess

#endif // CHESS_ZOBRIST_HPP
