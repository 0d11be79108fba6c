// SPDX-License-Identifier: MIT
// Precomputed board geometry, built at compile time so that it lives in
// read-only memory (flash on a microcontroller) and needs no run-time
// initialisation or thread-safe static guards.
#ifndef CHESS_TABLES_HPP
#define CHESS_TABLES_HPP

#include <cstdint>

#include "chess/types.hpp"

namespace chess {
namespace tables {

// Ray directions. The four orthogonal ones come first so that "d < 4" tells
// a rook line from a bishop line.
constexpr int kNumDirections = 8;
constexpr int kFirstDiagonal = 4;
inline constexpr int kDirOffset[kNumDirections] = {8, -8, 1, -1, 9, 7, -7, -9};
inline constexpr int kDirFile[kNumDirections] = {0, 0, 1, -1, 1, -1, 1, -1};
inline constexpr int kDirRank[kNumDirections] = {1, -1, 0, 0, 1, 1, -1, -1};

struct Geometry {
    // Number of steps a slider can take from a square before leaving the board.
    std::uint8_t edge[64][kNumDirections];
    // Destination squares of knight and king jumps (up to 8 each).
    std::uint8_t knight_count[64];
    std::uint8_t knight[64][8];
    std::uint8_t king_count[64];
    std::uint8_t king[64][8];
    // Castling rights that survive a move from or to this square: touching a
    // king or rook home square (moving it, or capturing on it) loses rights.
    std::uint8_t castle_keep[64];

    constexpr Geometry() : edge{}, knight_count{}, knight{}, king_count{}, king{}, castle_keep{} {
        constexpr int kKnightFile[8] = {1, 2, 2, 1, -1, -2, -2, -1};
        constexpr int kKnightRank[8] = {2, 1, -1, -2, -2, -1, 1, 2};
        for (int sq = 0; sq < 64; ++sq) {
            const int f = file_of(sq);
            const int r = rank_of(sq);
            for (int d = 0; d < kNumDirections; ++d) {
                int steps = 0;
                int ff = f + kDirFile[d];
                int rr = r + kDirRank[d];
                while (on_board(ff, rr)) {
                    ++steps;
                    ff += kDirFile[d];
                    rr += kDirRank[d];
                }
                edge[sq][d] = static_cast<std::uint8_t>(steps);
                if (steps > 0) {
                    king[sq][king_count[sq]++] = static_cast<std::uint8_t>(sq + kDirOffset[d]);
                }
            }
            for (int j = 0; j < 8; ++j) {
                const int ff = f + kKnightFile[j];
                const int rr = r + kKnightRank[j];
                if (on_board(ff, rr)) {
                    knight[sq][knight_count[sq]++] = static_cast<std::uint8_t>(make_square(ff, rr));
                }
            }
            castle_keep[sq] = kAllCastling;
        }
        castle_keep[make_square(4, 0)] = kBlackKingside | kBlackQueenside; // e1
        castle_keep[make_square(7, 0)] = kAllCastling & ~kWhiteKingside;   // h1
        castle_keep[make_square(0, 0)] = kAllCastling & ~kWhiteQueenside;  // a1
        castle_keep[make_square(4, 7)] = kWhiteKingside | kWhiteQueenside; // e8
        castle_keep[make_square(7, 7)] = kAllCastling & ~kBlackKingside;   // h8
        castle_keep[make_square(0, 7)] = kAllCastling & ~kBlackQueenside;  // a8
    }

  private:
    static constexpr bool on_board(int f, int r) { return f >= 0 && f < 8 && r >= 0 && r < 8; }
};

inline constexpr Geometry kGeometry{};

} // namespace tables
} // namespace chess

#endif // CHESS_TABLES_HPP
