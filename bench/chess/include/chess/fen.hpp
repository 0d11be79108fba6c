// SPDX-License-Identifier: MIT
// FEN parsing into a plain data record, plus the sanity checks that let the
// rest of the engine trust its input (exactly one king each, no capturable
// king, castling rights and en passant square consistent with the board).
#ifndef CHESS_FEN_HPP
#define CHESS_FEN_HPP

#include <cstdint>

#include "chess/attacks.hpp"
#include "chess/types.hpp"

namespace chess {

inline constexpr const char *kStartFen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

struct FenData {
    PieceCode board[64];
    Color side_to_move;
    std::uint8_t castling;
    int ep_square; // kNoSquare when absent
    int halfmove_clock;
    int fullmove_number;
};

namespace detail {

inline bool is_space(char ch) {
    return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r';
}

inline const char *skip_spaces(const char *p) {
    while (is_space(*p))
        ++p;
    return p;
}

inline bool piece_from_char(char ch, PieceCode &code) {
    const char *const kLetters = "PNBRQKpnbrqk";
    for (int i = 0; kLetters[i] != '\0'; ++i) {
        if (kLetters[i] == ch) {
            const Color color = i < kNumPieceTypes ? kWhite : kBlack;
            code = make_code(color, static_cast<PieceType>(i % kNumPieceTypes));
            return true;
        }
    }
    return false;
}

// Parses a non-negative decimal number; saturates instead of overflowing.
inline const char *parse_counter(const char *p, int &value) {
    if (*p < '0' || *p > '9') return nullptr;
    value = 0;
    for (; *p >= '0' && *p <= '9'; ++p) {
        if (value < 1000000) value = value * 10 + (*p - '0');
    }
    return p;
}

} // namespace detail

// Syntax-only parse. Trailing fields may be omitted ("... w" is accepted, with
// no castling, no en passant, clocks 0 and 1). Returns false on malformed text.
inline bool parse_fen(const char *fen, FenData &out) {
    if (fen == nullptr) return false;
    out = FenData{};
    out.side_to_move = kWhite;
    out.ep_square = kNoSquare;
    out.fullmove_number = 1;

    const char *p = detail::skip_spaces(fen);
    int rank = 7;
    int file = 0;
    for (; *p != '\0' && !detail::is_space(*p); ++p) {
        const char ch = *p;
        if (ch == '/') {
            if (file != 8 || rank == 0) return false;
            --rank;
            file = 0;
        } else if (ch >= '1' && ch <= '8') {
            file += ch - '0';
            if (file > 8) return false;
        } else {
            PieceCode code = kEmpty;
            if (file > 7 || !detail::piece_from_char(ch, code)) return false;
            out.board[make_square(file, rank)] = code;
            ++file;
        }
    }
    if (rank != 0 || file != 8) return false;

    p = detail::skip_spaces(p);
    if (*p == 'w') {
        out.side_to_move = kWhite;
    } else if (*p == 'b') {
        out.side_to_move = kBlack;
    } else {
        return false;
    }
    ++p;
    if (*p != '\0' && !detail::is_space(*p)) return false;

    p = detail::skip_spaces(p);
    if (*p == '\0') return true;
    if (*p == '-') {
        ++p;
    } else {
        for (; *p != '\0' && !detail::is_space(*p); ++p) {
            switch (*p) {
            case 'K':
                out.castling |= kWhiteKingside;
                break;
            case 'Q':
                out.castling |= kWhiteQueenside;
                break;
            case 'k':
                out.castling |= kBlackKingside;
                break;
            case 'q':
                out.castling |= kBlackQueenside;
                break;
            default:
                return false;
            }
        }
    }
    if (*p != '\0' && !detail::is_space(*p)) return false;

    p = detail::skip_spaces(p);
    if (*p == '\0') return true;
    if (*p == '-') {
        ++p;
    } else {
        if (p[0] < 'a' || p[0] > 'h' || p[1] < '1' || p[1] > '8') return false;
        out.ep_square = make_square(p[0] - 'a', p[1] - '1');
        p += 2;
    }
    if (*p != '\0' && !detail::is_space(*p)) return false;

    p = detail::skip_spaces(p);
    if (*p == '\0') return true;
    p = detail::parse_counter(p, out.halfmove_clock);
    if (p == nullptr || (*p != '\0' && !detail::is_space(*p))) return false;

    p = detail::skip_spaces(p);
    if (*p == '\0') return true;
    p = detail::parse_counter(p, out.fullmove_number);
    if (p == nullptr) return false;
    return *detail::skip_spaces(p) == '\0';
}

// Semantic checks. Rejects positions the engine cannot search (missing or
// extra kings, pawns on the first/last rank, the side that just moved left in
// check). Quietly drops castling rights and en passant squares the board
// contradicts, so that make() and the move generator may rely on them.
inline bool validate_fen(FenData &data) {
    int king_count[2] = {0, 0};
    int king_square[2] = {kNoSquare, kNoSquare};
    for (int sq = 0; sq < 64; ++sq) {
        const PieceCode c = data.board[sq];
        if (c == kEmpty) continue;
        if (type_of(c) == kKing) {
            ++king_count[color_of(c)];
            king_square[color_of(c)] = sq;
        } else if (type_of(c) == kPawn && (rank_of(sq) == 0 || rank_of(sq) == 7)) {
            return false;
        }
    }
    if (king_count[kWhite] != 1 || king_count[kBlack] != 1) return false;

    const Color us = data.side_to_move;
    const Color them = opposite(us);
    if (square_attacked(data.board, king_square[them], us)) return false;

    auto holds = [&data](int sq, Color c, PieceType t) {
        return data.board[sq] == make_code(c, t);
    };
    if (!holds(make_square(4, 0), kWhite, kKing)) data.castling &= kBlackKingside | kBlackQueenside;
    if (!holds(make_square(7, 0), kWhite, kRook)) data.castling &= ~kWhiteKingside & kAllCastling;
    if (!holds(make_square(0, 0), kWhite, kRook)) data.castling &= ~kWhiteQueenside & kAllCastling;
    if (!holds(make_square(4, 7), kBlack, kKing)) data.castling &= kWhiteKingside | kWhiteQueenside;
    if (!holds(make_square(7, 7), kBlack, kRook)) data.castling &= ~kBlackKingside & kAllCastling;
    if (!holds(make_square(0, 7), kBlack, kRook)) data.castling &= ~kBlackQueenside & kAllCastling;

    // An en passant square only makes sense right behind an enemy pawn that
    // could just have advanced two squares from its (now empty) start square.
    if (data.ep_square != kNoSquare) {
        const int ep = data.ep_square;
        const int forward = us == kWhite ? 8 : -8; // direction our pawns move
        const int expected_rank = us == kWhite ? 5 : 2;
        const bool plausible = rank_of(ep) == expected_rank && data.board[ep] == kEmpty &&
                               data.board[ep + forward] == kEmpty &&
                               data.board[ep - forward] == make_code(them, kPawn);
        if (!plausible) data.ep_square = kNoSquare;
    }
    return true;
}

} // namespace chess

#endif // CHESS_FEN_HPP
