// SPDX-License-Identifier: MIT
// "Is this square attacked?" on a plain 8x8 board array.
//
// The function works on a raw board rather than on a position so that it can
// be used both by FEN validation (before any position exists) and by the move
// generator, which asks hypothetical questions ("would my king be safe if
// these squares were empty?") without modifying the const position.
#ifndef CHESS_ATTACKS_HPP
#define CHESS_ATTACKS_HPP

#include <cstdint>

#include "chess/tables.hpp"
#include "chess/types.hpp"

namespace chess {

// True when any piece of colour `by` attacks `sq`.
//
// The occupancy can be edited on the fly: squares set in `vacated` are treated
// as empty and `blocker` (unless kNoSquare) as holding a piece that blocks
// rays but attacks nothing. The piece standing on `sq` itself is irrelevant.
inline bool square_attacked(const PieceCode *board, int sq, Color by, std::uint64_t vacated = 0,
                            int blocker = kNoSquare) {
    const tables::Geometry &geo = tables::kGeometry;
    auto occupant = [&](int s) -> PieceCode {
        if (s == blocker) return kBlockerCode;
        if ((vacated & square_bit(s)) != 0) return kEmpty;
        return board[s];
    };

    // Pawns capture diagonally forward, so look diagonally backward from sq.
    const PieceCode pawn = make_code(by, kPawn);
    const int f = file_of(sq);
    const int r = rank_of(sq);
    if (by == kWhite) {
        if (r > 0) {
            if (f > 0 && occupant(sq - 9) == pawn) return true;
            if (f < 7 && occupant(sq - 7) == pawn) return true;
        }
    } else {
        if (r < 7) {
            if (f > 0 && occupant(sq + 7) == pawn) return true;
            if (f < 7 && occupant(sq + 9) == pawn) return true;
        }
    }

    const PieceCode knight = make_code(by, kKnight);
    for (int i = 0; i < geo.knight_count[sq]; ++i) {
        if (occupant(geo.knight[sq][i]) == knight) return true;
    }
    const PieceCode king = make_code(by, kKing);
    for (int i = 0; i < geo.king_count[sq]; ++i) {
        if (occupant(geo.king[sq][i]) == king) return true;
    }

    const PieceCode queen = make_code(by, kQueen);
    const PieceCode rook = make_code(by, kRook);
    const PieceCode bishop = make_code(by, kBishop);
    for (int d = 0; d < tables::kNumDirections; ++d) {
        const PieceCode slider = d < tables::kFirstDiagonal ? rook : bishop;
        int s = sq;
        for (int n = geo.edge[sq][d]; n > 0; --n) {
            s += tables::kDirOffset[d];
            const PieceCode c = occupant(s);
            if (c == kEmpty) continue;
            if (c == slider || c == queen) return true;
            break; // the first piece on the ray shields everything behind it
        }
    }
    return false;
}

} // namespace chess

#endif // CHESS_ATTACKS_HPP
