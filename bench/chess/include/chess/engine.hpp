// Perft search over basic_position, with a bounded transposition table.
//
// Allocation profile (what makes this useful as an allocator benchmark):
//   * every interior node builds its own std::list<Move> (one node per legal
//     move) and frees it on return;
//   * captures and promotions erase/insert std::list<Piece> nodes in make()
//     and unmake();
//   * subtree counts are cached in a std::map keyed by Zobrist hash; the map
//     is cleared whenever it reaches its capacity, so memory stays bounded
//     and the allocator also sees bursts of frees.
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

// Returned by chess::perft() when the FEN cannot be loaded.
constexpr std::uint64_t kInvalidFen = std::numeric_limits<std::uint64_t>::max();

struct EngineStats {
    std::uint64_t tt_probes = 0;
    std::uint64_t tt_hits = 0;
    std::uint64_t tt_stores = 0;
    std::uint64_t tt_clears = 0;
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

    // `tt_capacity` is the number of cached subtree counts kept before the
    // table is flushed; 0 disables the table. Starts in the initial position.
    explicit basic_engine(const Alloc &alloc = Alloc(),
                          std::size_t tt_capacity = kDefaultTtCapacity)
        : move_alloc_(alloc), position_(alloc), tt_(typename tt_map::allocator_type(alloc)),
          tt_capacity_(tt_capacity) {}

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
    std::size_t tt_size() const { return tt_.size(); }
    void clear_tt() { tt_.clear(); }

    const EngineStats &stats() const { return stats_; }
    void reset_stats() { stats_ = EngineStats{}; }

  private:
    using move_alloc_type = typename move_list::allocator_type;

    std::uint64_t count(int depth) {
        // depth 1 is answered by the move count alone, so caching starts at 2.
        const bool use_tt = tt_capacity_ != 0 && depth >= 2 && depth < kMaxHashedDepth;
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
        if (depth == 1) return moves.size();

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
    EngineStats stats_;
};

using engine = basic_engine<std::allocator<char>>;
using position = basic_position<std::allocator<char>>;

// One-shot perft with every allocation going through `alloc`. Returns
// kInvalidFen if the FEN cannot be loaded.
template <class Alloc>
std::uint64_t perft(const char *fen, int depth, const Alloc &alloc,
                    std::size_t tt_capacity = kDefaultTtCapacity) {
    basic_engine<Alloc> eng(alloc, tt_capacity);
    if (!eng.set_fen(fen)) return kInvalidFen;
    return eng.perft(depth);
}

} // namespace chess

#endif // CHESS_ENGINE_HPP
