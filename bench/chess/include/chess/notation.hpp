// SPDX-License-Identifier: MIT
// Text form of squares and moves (UCI long algebraic, e.g. "e2e4", "e7e8q").
#ifndef CHESS_NOTATION_HPP
#define CHESS_NOTATION_HPP

#include "chess/types.hpp"

namespace chess {

// Writes two characters, e.g. "e4"; no terminator.
inline void write_square(int sq, char *out) {
    out[0] = static_cast<char>('a' + file_of(sq));
    out[1] = static_cast<char>('1' + rank_of(sq));
}

// Writes a NUL-terminated UCI move into `out`.
inline void to_uci(Move m, char (&out)[6]) {
    write_square(m.from, out);
    write_square(m.to, out + 2);
    const char *const kPromotionLetters = "pnbrqk";
    if (m.promotion != kNoPieceType) {
        out[4] = kPromotionLetters[m.promotion];
        out[5] = '\0';
    } else {
        out[4] = '\0';
    }
}

} // namespace chess

#endif // CHESS_NOTATION_HPP
