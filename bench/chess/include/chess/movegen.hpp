// SPDX-License-Identifier: MIT
// Legal move generation.
//
// Moves are generated fully legal (not "pseudo-legal then filter"), which lets
// perft count the last ply from the size of the move list. Legality comes
// from a one-time analysis of the king's situation per node:
//   * checkers  -> a mask of squares that resolve a single check (block or
//                  capture); in double check the mask is empty and only the
//                  king may move;
//   * pins      -> a pinned piece may only move along the line between its
//                  king and the pinner;
//   * king moves are checked square by square with the king lifted off the
//                  board (so it cannot hide "behind itself" from a slider);
//   * en passant removes two pieces from one rank at once, which the masks
//                  above cannot describe, so it is verified directly.
#ifndef CHESS_MOVEGEN_HPP
#define CHESS_MOVEGEN_HPP

#include <cstdint>

#include "chess/attacks.hpp"
#include "chess/tables.hpp"
#include "chess/types.hpp"

namespace chess {
namespace detail {

constexpr std::uint64_t kAllSquares = ~std::uint64_t{0};

struct KingSafety {
    std::uint64_t check_mask;                      // legal targets for non-king moves
    std::uint64_t pinned;                          // our pieces pinned to our king
    std::uint64_t pin_ray[tables::kNumDirections]; // king..pinner line per direction
    int checkers;
};

inline KingSafety analyse_king_safety(const PieceCode *board, int king_sq, Color us) {
    const tables::Geometry &geo = tables::kGeometry;
    const Color them = opposite(us);
    KingSafety info{kAllSquares, 0, {}, 0};

    // Two checkers never share a resolving square, so the second one empties
    // the mask, which is exactly the double-check rule.
    auto add_checker = [&info](std::uint64_t resolving) {
        info.check_mask = info.checkers == 0 ? resolving : 0;
        ++info.checkers;
    };

    const PieceCode their_pawn = make_code(them, kPawn);
    const int f = file_of(king_sq);
    const int r = rank_of(king_sq);
    if (us == kWhite) {
        if (r < 7) {
            if (f > 0 && board[king_sq + 7] == their_pawn) add_checker(square_bit(king_sq + 7));
            if (f < 7 && board[king_sq + 9] == their_pawn) add_checker(square_bit(king_sq + 9));
        }
    } else {
        if (r > 0) {
            if (f > 0 && board[king_sq - 9] == their_pawn) add_checker(square_bit(king_sq - 9));
            if (f < 7 && board[king_sq - 7] == their_pawn) add_checker(square_bit(king_sq - 7));
        }
    }

    const PieceCode their_knight = make_code(them, kKnight);
    for (int i = 0; i < geo.knight_count[king_sq]; ++i) {
        const int s = geo.knight[king_sq][i];
        if (board[s] == their_knight) add_checker(square_bit(s));
    }

    // Walk each ray out of the king: an enemy slider behind zero of our pieces
    // gives check, behind exactly one of our pieces pins it.
    const PieceCode their_queen = make_code(them, kQueen);
    for (int d = 0; d < tables::kNumDirections; ++d) {
        const PieceCode their_slider =
            make_code(them, d < tables::kFirstDiagonal ? kRook : kBishop);
        std::uint64_t ray = 0;
        int shield = kNoSquare; // our first piece on the ray, if any
        int s = king_sq;
        for (int n = geo.edge[king_sq][d]; n > 0; --n) {
            s += tables::kDirOffset[d];
            ray |= square_bit(s);
            const PieceCode c = board[s];
            if (c == kEmpty) continue;
            if (color_of(c) == us) {
                if (shield != kNoSquare) break; // two of ours: nothing can pin
                shield = s;
                continue;
            }
            if (c == their_slider || c == their_queen) {
                if (shield == kNoSquare) {
                    add_checker(ray);
                } else {
                    info.pinned |= square_bit(shield);
                    info.pin_ray[d] = ray;
                }
            }
            break;
        }
    }
    return info;
}

// Squares a piece on `from` may move to without exposing its king to a pin.
inline std::uint64_t pin_mask(const KingSafety &info, int from) {
    if ((info.pinned & square_bit(from)) == 0) return kAllSquares;
    for (std::uint64_t ray : info.pin_ray) {
        if ((ray & square_bit(from)) != 0) return ray;
    }
    return 0; // unreachable: every pinned piece lies on its pin ray
}

template <class Position, class MoveList>
class LegalMoveGenerator {
  public:
    LegalMoveGenerator(const Position &pos, MoveList &out)
        : pos_(pos), board_(pos.board()), us_(pos.side_to_move()), them_(opposite(us_)),
          king_sq_(pos.king_square(us_)), safety_(analyse_king_safety(board_, king_sq_, us_)),
          out_(out) {}

    void run() {
        if (safety_.checkers < 2) {
            pawns();
            knights();
            sliders(kBishop, tables::kFirstDiagonal, tables::kNumDirections);
            sliders(kRook, 0, tables::kFirstDiagonal);
            sliders(kQueen, 0, tables::kNumDirections);
        }
        king();
        if (safety_.checkers == 0) castling();
    }

  private:
    void emit(int from, int to, std::uint8_t flags, PieceType promotion = kNoPieceType) {
        out_.push_back(make_move(from, to, flags, promotion));
    }

    bool is_enemy(PieceCode c) const { return c != kEmpty && color_of(c) == them_; }

    void pawns() {
        const int forward = us_ == kWhite ? 8 : -8;
        const int start_rank = us_ == kWhite ? 1 : 6;
        const int promotion_rank = us_ == kWhite ? 7 : 0;
        const int ep = pos_.ep_square();

        auto emit_pawn = [&](int from, int to, std::uint8_t flags) {
            if (rank_of(to) == promotion_rank) {
                emit(from, to, flags, kQueen);
                emit(from, to, flags, kRook);
                emit(from, to, flags, kBishop);
                emit(from, to, flags, kKnight);
            } else {
                emit(from, to, flags);
            }
        };

        for (const Piece &p : pos_.pieces(us_, kPawn)) {
            const int from = p.square;
            const std::uint64_t allowed = safety_.check_mask & pin_mask(safety_, from);
            const int one = from + forward; // on the board: pawns never stand on the last rank

            if (board_[one] == kEmpty) {
                if ((allowed & square_bit(one)) != 0) emit_pawn(from, one, move_flags::kQuiet);
                const int two = one + forward;
                if (rank_of(from) == start_rank && board_[two] == kEmpty &&
                    (allowed & square_bit(two)) != 0) {
                    emit(from, two, move_flags::kDoublePush);
                }
            }

            for (int side = -1; side <= 1; side += 2) {
                const int file = file_of(from) + side;
                if (file < 0 || file > 7) continue;
                const int to = one + side;
                if (is_enemy(board_[to])) {
                    if ((allowed & square_bit(to)) != 0) emit_pawn(from, to, move_flags::kCapture);
                } else if (to == ep) {
                    // Play the capture hypothetically: both pawns leave, ours lands.
                    const int victim = to - forward;
                    const std::uint64_t vacated = square_bit(from) | square_bit(victim);
                    if (!square_attacked(board_, king_sq_, them_, vacated, to)) {
                        emit(from, to, move_flags::kEnPassantCapture);
                    }
                }
            }
        }
    }

    void knights() {
        const tables::Geometry &geo = tables::kGeometry;
        for (const Piece &p : pos_.pieces(us_, kKnight)) {
            const int from = p.square;
            // A knight jump never stays on a line through the king, so a pinned
            // knight has no legal move at all.
            if ((safety_.pinned & square_bit(from)) != 0) continue;
            for (int i = 0; i < geo.knight_count[from]; ++i) {
                const int to = geo.knight[from][i];
                const PieceCode c = board_[to];
                if ((safety_.check_mask & square_bit(to)) == 0) continue;
                if (c == kEmpty) {
                    emit(from, to, move_flags::kQuiet);
                } else if (color_of(c) == them_) {
                    emit(from, to, move_flags::kCapture);
                }
            }
        }
    }

    void sliders(PieceType type, int first_dir, int end_dir) {
        const tables::Geometry &geo = tables::kGeometry;
        for (const Piece &p : pos_.pieces(us_, type)) {
            const int from = p.square;
            const std::uint64_t allowed = safety_.check_mask & pin_mask(safety_, from);
            if (allowed == 0) continue;
            for (int d = first_dir; d < end_dir; ++d) {
                int to = from;
                for (int n = geo.edge[from][d]; n > 0; --n) {
                    to += tables::kDirOffset[d];
                    const PieceCode c = board_[to];
                    const bool permitted = (allowed & square_bit(to)) != 0;
                    if (c == kEmpty) {
                        if (permitted) emit(from, to, move_flags::kQuiet);
                        continue;
                    }
                    if (permitted && color_of(c) == them_) emit(from, to, move_flags::kCapture);
                    break;
                }
            }
        }
    }

    void king() {
        const tables::Geometry &geo = tables::kGeometry;
        const std::uint64_t lifted = square_bit(king_sq_);
        for (int i = 0; i < geo.king_count[king_sq_]; ++i) {
            const int to = geo.king[king_sq_][i];
            const PieceCode c = board_[to];
            if (c != kEmpty && color_of(c) == us_) continue;
            if (square_attacked(board_, to, them_, lifted)) continue;
            emit(king_sq_, to, c == kEmpty ? move_flags::kQuiet : move_flags::kCapture);
        }
    }

    // Only called when not in check. validate_fen() and make() guarantee that a
    // castling right implies king and rook still stand on their home squares.
    void castling() {
        const std::uint8_t rights = pos_.castling_rights();
        const int base = us_ == kWhite ? 0 : 56; // a1 or a8
        const std::uint8_t kingside = us_ == kWhite ? kWhiteKingside : kBlackKingside;
        const std::uint8_t queenside = us_ == kWhite ? kWhiteQueenside : kBlackQueenside;
        const int e = base + 4;
        if ((rights & kingside) != 0 && board_[base + 5] == kEmpty && board_[base + 6] == kEmpty &&
            !square_attacked(board_, base + 5, them_) &&
            !square_attacked(board_, base + 6, them_)) {
            emit(e, base + 6, move_flags::kCastle);
        }
        if ((rights & queenside) != 0 && board_[base + 3] == kEmpty && board_[base + 2] == kEmpty &&
            board_[base + 1] == kEmpty && !square_attacked(board_, base + 3, them_) &&
            !square_attacked(board_, base + 2, them_)) {
            emit(e, base + 2, move_flags::kCastle);
        }
    }

    const Position &pos_;
    const PieceCode *board_;
    Color us_;
    Color them_;
    int king_sq_;
    KingSafety safety_;
    MoveList &out_;
};

} // namespace detail

// Appends every legal move of the side to move to `out` (a container with
// push_back(Move), e.g. std::list<Move, A>). Order: pawns, knights, bishops,
// rooks, queens, king, castling.
template <class Position, class MoveList>
void generate_legal_moves(const Position &pos, MoveList &out) {
    detail::LegalMoveGenerator<Position, MoveList>(pos, out).run();
}

} // namespace chess

#endif // CHESS_MOVEGEN_HPP
