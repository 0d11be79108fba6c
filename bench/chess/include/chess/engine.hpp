// SPDX-License-Identifier: MIT
// Perft search over basic_position, with a transposition table in one of two modes.
//
// Allocation profile (what makes this useful as an allocator benchmark):
//   * every interior node builds its own std::list<Move> (one node per legal
//     move) and frees it on return;
//   * captures and promotions erase/insert std::list<Piece> nodes in make()
//     and unmake();
//   * subtree counts are cached in a std::map keyed by Zobrist hash and depth:
//     - tt_mode::bounded (the default): only subtrees of depth 2 and more, and
//       the map is cleared whenever it reaches its capacity, so memory stays
//       small and the allocator also sees bursts of frees;
//     - tt_mode::everything (what a search engine's table does): every interior
//       node, depth 1 included, and never cleared; the capacity only guards
//       memory (when it is reached, new entries are no longer stored). The map
//       then grows through the whole search, interleaved with the move lists,
//       and the heap holds ever more live blocks between the short-lived ones.
#ifndef CHESS_ENGINE_HPP
#define CHESS_ENGINE_HPP

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <list>
#include <map>
#include <memory>
#include <utility>

#include "chess/movegen.hpp"
#include "chess/position.hpp"
#include "chess/types.hpp"
#include "chess/zobrist.hpp"

namespace chess {

// Transposition-table size used when none is given. About 200 KiB of map
// nodes on a 64-bit host and roughly 130 KiB on a 32-bit microcontroller.
constexpr std::size_t kDefaultTtCapacity = 4096;

// How the transposition table is used (see the top of this file).
enum class tt_mode {
    bounded,   // depth >= 2 only, cleared when full
    everything // every interior node, never cleared, capacity is a memory guard
};

// A memory guard for tt_mode::everything on a 64-bit host: at most about 200 MiB of map
// nodes (48 bytes each with glibc's header). Start-position perft(6) records about 2.1
// million entries, so the guard binds only from depth 7 or on wider positions.
constexpr std::size_t kEverythingTtCapacity = std::size_t{1} << 22;

// Returned by chess::perft() when the FEN cannot be loaded.
constexpr std::uint64_t kInvalidFen = std::numeric_limits<std::uint64_t>::max();

struct EngineStats {
    std::uint64_t tt_probes = 0;
    std::uint64_t tt_hits = 0;
    std::uint64_t tt_stores = 0;
    std::uint64_t tt_clears = 0;
    std::uint64_t tt_refused = 0; // tt_mode::everything: stores refused by the guard
};

template <class Alloc = std::allocator<char>>
class basic_engine {
    using alloc_traits = std::allocator_traits<Alloc>;

  public:
    using allocator_type = Alloc;
    using position_type = basic_position<Alloc>;
    using move_list = std::list<Move, typename alloc_traits::template rebind_alloc<Move>>;
    using tt_map =
        std::map<std::uint64_t, int, std::less<std::uint64_t>,
                 typename alloc_traits::template rebind_alloc<std::pair<const std::uint64_t, int>>>;

    // `tt_capacity` is the most subtree counts the table holds: in bounded mode
    // it is flushed when full, in everything mode it stops storing; 0 disables
    // the table. Starts in the initial position.
    explicit basic_engine(const Alloc &alloc = Alloc(),
                          std::size_t tt_capacity = kDefaultTtCapacity,
                          tt_mode mode = tt_mode::bounded)
        : move_alloc_(alloc), position_(alloc), tt_(typename tt_map::allocator_type(alloc)),
          tt_capacity_(tt_capacity), tt_mode_(mode) {}

    basic_engine(const basic_engine &) = delete;
    basic_engine &operator=(const basic_engine &) = delete;

    // Returns false (and keeps the current position) if the FEN is invalid.
    bool set_fen(const char *fen) { return position_.set_fen(fen); }

    const position_type &position() const { return position_; }

    // Number of leaf nodes of the legal move tree of the given depth.
    std::uint64_t perft(int depth) {
        if (depth <= 0) return 1;
        return count(depth);
    }

    // perft split by root move: calls on_move(Move, std::uint64_t nodes) for
    // every legal move and returns the total.
    template <class Fn>
    std::uint64_t divide(int depth, Fn &&on_move) {
        if (depth <= 0) return 1;
        move_list moves(move_alloc_);
        generate_legal_moves(position_, moves);
        std::uint64_t total = 0;
        for (const Move &m : moves) {
            Undo undo;
            position_.make(m, undo);
            const std::uint64_t nodes = depth > 1 ? count(depth - 1) : 1;
            position_.unmake(m, undo);
            on_move(m, nodes);
            total += nodes;
        }
        return total;
    }

    // Legal moves of the current position, allocated with the engine's allocator.
    move_list legal_moves() const {
        move_list moves(move_alloc_);
        generate_legal_moves(position_, moves);
        return moves;
    }

    void make(Move m, Undo &undo) { position_.make(m, undo); }
    void unmake(Move m, const Undo &undo) { position_.unmake(m, undo); }

    std::size_t tt_capacity() const { return tt_capacity_; }
    chess::tt_mode table_mode() const { return tt_mode_; }
    std::size_t tt_size() const { return tt_.size(); }
    void clear_tt() { tt_.clear(); }

    const EngineStats &stats() const { return stats_; }
    void reset_stats() { stats_ = EngineStats{}; }

  private:
    using move_alloc_type = typename move_list::allocator_type;

    std::uint64_t count(int depth) {
        // Bounded mode: depth 1 is answered by the move count alone, so caching
        // starts at 2. Everything mode records depth 1 too, as a search engine's
        // table records every position it searched.
        const int first_cached = tt_mode_ == tt_mode::everything ? 1 : 2;
        const bool use_tt = tt_capacity_ != 0 && depth >= first_cached && depth < kMaxHashedDepth;
        std::uint64_t key = 0;
        if (use_tt) {
            key = position_.hash() ^ kZobrist.depth[depth];
            ++stats_.tt_probes;
            const auto it = tt_.find(key);
            if (it != tt_.end()) {
                ++stats_.tt_hits;
                return static_cast<std::uint64_t>(it->second);
            }
        }

        move_list moves(move_alloc_);
        generate_legal_moves(position_, moves);
        if (depth == 1) {
            if (use_tt) store(key, static_cast<int>(moves.size()));
            return moves.size();
        }

        std::uint64_t nodes = 0;
        for (const Move &m : moves) {
            Undo undo;
            position_.make(m, undo);
            nodes += count(depth - 1);
            position_.unmake(m, undo);
        }

        // The value type is int (as in the original design); counts that do not
        // fit are simply not cached.
        if (use_tt && nodes <= static_cast<std::uint64_t>(std::numeric_limits<int>::max())) {
            store(key, static_cast<int>(nodes));
        }
        return nodes;
    }

    void store(std::uint64_t key, int nodes) {
        if (tt_.size() >= tt_capacity_) {
            if (tt_mode_ == tt_mode::everything) {
                ++stats_.tt_refused; // the guard: keep what is there, add nothing
                return;
            }
            tt_.clear(); // crude but bounded: start over rather than evict
            ++stats_.tt_clears;
        }
        tt_.insert(typename tt_map::value_type(key, nodes));
        ++stats_.tt_stores;
    }

    move_alloc_type move_alloc_;
    position_type position_;
    tt_map tt_;
    std::size_t tt_capacity_;
    chess::tt_mode tt_mode_;
    EngineStats stats_;
};

using engine = basic_engine<std::allocator<char>>;
using position = basic_position<std::allocator<char>>;

// One-shot perft with every allocation going through `alloc`. Returns
// kInvalidFen if the FEN cannot be loaded.
template <class Alloc>
std::uint64_t perft(const char *fen, int depth, const Alloc &alloc,
                    std::size_t tt_capacity = kDefaultTtCapacity, tt_mode mode = tt_mode::bounded) {
    basic_engine<Alloc> eng(alloc, tt_capacity, mode);
    if (!eng.set_fen(fen)) return kInvalidFen;
    return eng.perft(depth);
}

} // namespace chess

#endif // CHESS_ENGINE_HPP
