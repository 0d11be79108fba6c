// SPDX-License-Identifier: MIT
// Basic vocabulary of the chess engine: colours, piece codes, squares and moves.
//
// Everything here is a trivially copyable value type so that it can live in
// allocator-aware containers (std::list<Piece>, std::list<Move>) without any
// constructors getting in the way, and compiles on bare-metal targets.
#ifndef CHESS_TYPES_HPP
#define CHESS_TYPES_HPP

#include <cstdint>

namespace chess {

enum Color : std::uint8_t { kWhite = 0, kBlack = 1 };

constexpr Color opposite(Color c) {
    return static_cast<Color>(c ^ 1);
}

enum PieceType : std::uint8_t { kPawn = 0, kKnight, kBishop, kRook, kQueen, kKing, kNoPieceType };

constexpr int kNumPieceTypes = 6;
constexpr int kNumPieceLists = 2 * kNumPieceTypes; // one list per colour and type

// A board cell holds one byte: 0 for an empty square, otherwise bit 3 is the
// colour and bits 0..2 are (piece type + 1). Keeping 0 as "empty" makes the
// common emptiness test a plain zero check.
using PieceCode = std::uint8_t;

constexpr PieceCode kEmpty = 0;

// Never a real piece: used by attack tests to mark a square as "occupied by
// something that attacks nothing" (e.g. the landing square of an en passant
// capture that has not been played on the board yet).
constexpr PieceCode kBlockerCode = 0xFF;

constexpr PieceCode make_code(Color c, PieceType t) {
    return static_cast<PieceCode>((c << 3) | (t + 1));
}
constexpr PieceType type_of(PieceCode p) {
    return static_cast<PieceType>((p & 7) - 1);
}
constexpr Color color_of(PieceCode p) {
    return static_cast<Color>(p >> 3);
}

// Dense 0..11 index (white pawn .. black king) for piece lists and hash keys.
constexpr int list_index(PieceCode p) {
    return (p >> 3) * kNumPieceTypes + (p & 7) - 1;
}
constexpr int list_index(Color c, PieceType t) {
    return c * kNumPieceTypes + t;
}

// Squares are 0..63 with a1 = 0, b1 = 1, ..., h1 = 7, a2 = 8, ..., h8 = 63.
constexpr int kNoSquare = -1;
constexpr int file_of(int sq) {
    return sq & 7;
}
constexpr int rank_of(int sq) {
    return sq >> 3;
}
constexpr int make_square(int file, int rank) {
    return rank * 8 + file;
}
constexpr std::uint64_t square_bit(int sq) {
    return std::uint64_t{1} << sq;
}

// Castling rights as a 4-bit mask.
constexpr std::uint8_t kWhiteKingside = 1;
constexpr std::uint8_t kWhiteQueenside = 2;
constexpr std::uint8_t kBlackKingside = 4;
constexpr std::uint8_t kBlackQueenside = 8;
constexpr std::uint8_t kAllCastling = 15;

// An entry of a piece list. The list a Piece lives in already tells colour
// and type, but keeping the code makes a Piece self-describing when iterated.
struct Piece {
    std::uint8_t square;
    PieceCode code;
};

// Move flags. They describe what make() has to do beyond "move the piece":
// remove a captured piece, set the en passant square, move a castling rook.
namespace move_flags {
constexpr std::uint8_t kQuiet = 0;
constexpr std::uint8_t kCapture = 1;
constexpr std::uint8_t kDoublePush = 2;
constexpr std::uint8_t kEnPassant = 4; // always combined with kCapture
constexpr std::uint8_t kCastle = 8;
constexpr std::uint8_t kEnPassantCapture = kCapture | kEnPassant;
} // namespace move_flags

// A move is four bytes; for castling `from`/`to` are the king's squares.
struct Move {
    std::uint8_t from;
    std::uint8_t to;
    PieceType promotion; // kNoPieceType unless a pawn promotes
    std::uint8_t flags;  // move_flags bits
};

constexpr Move make_move(int from, int to, std::uint8_t flags, PieceType promotion = kNoPieceType) {
    return Move{static_cast<std::uint8_t>(from), static_cast<std::uint8_t>(to), promotion, flags};
}

constexpr bool operator==(Move a, Move b) {
    return a.from == b.from && a.to == b.to && a.promotion == b.promotion && a.flags == b.flags;
}
constexpr bool operator!=(Move a, Move b) {
    return !(a == b);
}

} // namespace chess

#endif // CHESS_TYPES_HPP
