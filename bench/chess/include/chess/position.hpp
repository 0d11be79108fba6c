// SPDX-License-Identifier: MIT
// Board state with incremental make/unmake.
//
// The position keeps two views of the same pieces, as the emChess design
// does: an 8x8 board array for "what is on this square?" and one std::list
// of pieces per colour and type for "where are my knights?". The lists use
// the caller's allocator, so captures and promotions (list erase/insert)
// show up as allocator traffic, just like in the original benchmark.
#ifndef CHESS_POSITION_HPP
#define CHESS_POSITION_HPP

#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <list>
#include <memory>
#include <utility>

#include "chess/attacks.hpp"
#include "chess/fen.hpp"
#include "chess/tables.hpp"
#include "chess/types.hpp"
#include "chess/zobrist.hpp"

namespace chess {

// What make() destroys and unmake() needs back. Small on purpose: the search
// keeps one per ply on the stack instead of copying the whole position.
struct Undo {
    std::uint64_t hash;
    int ep_square;
    std::uint8_t castling;
    PieceCode captured; // kEmpty when the move captured nothing
};

template <class Alloc>
class basic_position {
    using alloc_traits = std::allocator_traits<Alloc>;

  public:
    using allocator_type = Alloc;
    using piece_list = std::list<Piece, typename alloc_traits::template rebind_alloc<Piece>>;

    // Starts out in the initial chess position, so a position is always legal
    // and searchable. Allocates the piece list nodes through `alloc`.
    explicit basic_position(const Alloc &alloc = Alloc())
        : lists_(make_lists(alloc, std::make_index_sequence<kNumPieceLists>{})) {
        FenData start;
        parse_fen(kStartFen, start);
        validate_fen(start);
        load(start);
    }

    // Copying would leave where_ pointing into the source's lists.
    basic_position(const basic_position &) = delete;
    basic_position &operator=(const basic_position &) = delete;

    // Loads a FEN. On failure returns false and leaves the position unchanged.
    bool set_fen(const char *fen) {
        FenData data;
        if (!parse_fen(fen, data) || !validate_fen(data)) return false;
        load(data);
        return true;
    }

    PieceCode piece_at(int sq) const { return board_[sq]; }
    const PieceCode *board() const { return board_; }
    const piece_list &pieces(Color c, PieceType t) const { return list(list_index(c, t)); }
    int king_square(Color c) const { return pieces(c, kKing).front().square; }
    Color side_to_move() const { return side_; }
    std::uint8_t castling_rights() const { return castling_; }
    int ep_square() const { return ep_square_; }
    std::uint64_t hash() const { return hash_; }

    bool attacked(int sq, Color by) const { return square_attacked(board_, sq, by); }
    bool in_check() const { return attacked(king_square(side_), opposite(side_)); }

    allocator_type get_allocator() const { return allocator_type(lists_[0].get_allocator()); }

    // Plays a legal move (as produced by the move generator).
    void make(Move m, Undo &undo) {
        const ZobristKeys &keys = kZobrist;
        const Color us = side_;
        const int from = m.from;
        const int to = m.to;

        undo.hash = hash_;
        undo.ep_square = ep_square_;
        undo.castling = castling_;
        undo.captured = kEmpty;

        if (ep_square_ != kNoSquare) hash_ ^= keys.ep_file[file_of(ep_square_)];
        ep_square_ = kNoSquare;

        if ((m.flags & move_flags::kEnPassant) != 0) {
            const int victim = captured_pawn_square(to, us);
            undo.captured = board_[victim];
            remove_piece(victim);
        } else if (board_[to] != kEmpty) {
            undo.captured = board_[to];
            remove_piece(to);
        }

        if (m.promotion != kNoPieceType) {
            remove_piece(from);
            add_piece(to, make_code(us, m.promotion));
        } else {
            move_piece(from, to);
        }

        if ((m.flags & move_flags::kCastle) != 0) {
            const int rook_from = to > from ? to + 1 : to - 2;
            const int rook_to = to > from ? to - 1 : to + 1;
            move_piece(rook_from, rook_to);
        }

        if ((m.flags & move_flags::kDoublePush) != 0) {
            ep_square_ = (from + to) / 2;
            hash_ ^= keys.ep_file[file_of(ep_square_)];
        }

        const tables::Geometry &geo = tables::kGeometry;
        const auto rights =
            static_cast<std::uint8_t>(castling_ & geo.castle_keep[from] & geo.castle_keep[to]);
        if (rights != castling_) {
            hash_ ^= keys.castling[castling_] ^ keys.castling[rights];
            castling_ = rights;
        }

        side_ = opposite(us);
        hash_ ^= keys.black_to_move;
    }

    // Takes back `m`, which must be the last move made with this `undo`.
    void unmake(Move m, const Undo &undo) {
        side_ = opposite(side_);
        const Color us = side_;
        const int from = m.from;
        const int to = m.to;

        if ((m.flags & move_flags::kCastle) != 0) {
            const int rook_from = to > from ? to + 1 : to - 2;
            const int rook_to = to > from ? to - 1 : to + 1;
            move_piece(rook_to, rook_from);
        }

        if (m.promotion != kNoPieceType) {
            remove_piece(to);
            add_piece(from, make_code(us, kPawn));
        } else {
            move_piece(to, from);
        }

        if (undo.captured != kEmpty) {
            const bool en_passant = (m.flags & move_flags::kEnPassant) != 0;
            add_piece(en_passant ? captured_pawn_square(to, us) : to, undo.captured);
        }

        // The piece helpers also updated hash_; the saved value overrides that.
        hash_ = undo.hash;
        ep_square_ = undo.ep_square;
        castling_ = undo.castling;
    }

    // Hash recomputed from scratch; equals hash() whenever the incremental
    // updates are right. Used by consistency checks.
    std::uint64_t compute_hash() const {
        const ZobristKeys &keys = kZobrist;
        std::uint64_t h = keys.castling[castling_];
        for (int sq = 0; sq < 64; ++sq) {
            if (board_[sq] != kEmpty) h ^= keys.piece[list_index(board_[sq])][sq];
        }
        if (side_ == kBlack) h ^= keys.black_to_move;
        if (ep_square_ != kNoSquare) h ^= keys.ep_file[file_of(ep_square_)];
        return h;
    }

    // Checks that the board array, the piece lists, the per-square list
    // iterators and the hash all agree. For tests; O(pieces).
    bool is_consistent() const {
        int listed = 0;
        for (int i = 0; i < kNumPieceLists; ++i) {
            for (const Piece &p : list(i)) {
                if (p.square >= 64 || board_[p.square] != p.code || list_index(p.code) != i)
                    return false;
                if (&*where_[p.square] != &p) return false;
                ++listed;
            }
        }
        int occupied = 0;
        for (int sq = 0; sq < 64; ++sq)
            occupied += board_[sq] != kEmpty ? 1 : 0;
        return listed == occupied && pieces(kWhite, kKing).size() == 1 &&
               pieces(kBlack, kKing).size() == 1 && hash_ == compute_hash();
    }

  private:
    using list_iterator = typename piece_list::iterator;

    template <std::size_t... I>
    static std::array<piece_list, kNumPieceLists> make_lists(const Alloc &alloc,
                                                             std::index_sequence<I...>) {
        using node_alloc = typename piece_list::allocator_type;
        return {{((void)I, piece_list(node_alloc(alloc)))...}};
    }

    piece_list &list(int index) { return lists_[static_cast<std::size_t>(index)]; }
    const piece_list &list(int index) const { return lists_[static_cast<std::size_t>(index)]; }

    // Square of the pawn taken by an en passant capture landing on `to`.
    static int captured_pawn_square(int to, Color capturer) {
        return capturer == kWhite ? to - 8 : to + 8;
    }

    // The three piece primitives keep board_, lists_, where_ and hash_ in step.
    // add/remove allocate/free a list node; move only rewrites the node.
    void add_piece(int sq, PieceCode code) {
        piece_list &pl = list(list_index(code));
        pl.push_back(Piece{static_cast<std::uint8_t>(sq), code});
        where_[sq] = std::prev(pl.end());
        board_[sq] = code;
        hash_ ^= kZobrist.piece[list_index(code)][sq];
    }

    void remove_piece(int sq) {
        const PieceCode code = board_[sq];
        list(list_index(code)).erase(where_[sq]);
        board_[sq] = kEmpty;
        hash_ ^= kZobrist.piece[list_index(code)][sq];
    }

    void move_piece(int from, int to) {
        const PieceCode code = board_[from];
        const list_iterator node = where_[from];
        node->square = static_cast<std::uint8_t>(to);
        where_[to] = node;
        board_[to] = code;
        board_[from] = kEmpty;
        const std::uint64_t *keys = kZobrist.piece[list_index(code)];
        hash_ ^= keys[from] ^ keys[to];
    }

    void load(const FenData &data) {
        for (piece_list &pl : lists_)
            pl.clear();
        hash_ = 0;
        for (int sq = 0; sq < 64; ++sq) {
            board_[sq] = kEmpty;
            if (data.board[sq] != kEmpty) add_piece(sq, data.board[sq]);
        }
        side_ = data.side_to_move;
        castling_ = data.castling;
        ep_square_ = data.ep_square;
        hash_ = compute_hash();
    }

    PieceCode board_[64] = {};
    std::array<piece_list, kNumPieceLists> lists_;
    list_iterator where_[64] = {}; // list node of the piece on each occupied square
    Color side_ = kWhite;
    std::uint8_t castling_ = 0;
    int ep_square_ = kNoSquare;
    std::uint64_t hash_ = 0;
};

} // namespace chess

#endif // CHESS_POSITION_HPP
