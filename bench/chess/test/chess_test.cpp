// SPDX-License-Identifier: MIT
// Tests for the allocator-parameterised chess engine.
//
// Perft depth: builds with CHESS_FULL_DEPTH=1 (Release) check every reference
// depth listed below; other builds (Debug, sanitizers) stop at a reduced
// depth. The environment variable CHESS_PERFT_MAX_DEPTH caps or raises the
// limit at run time (it never goes beyond the known reference values).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <list>
#include <memory>
#include <new>
#include <ostream>
#include <string>
#include <vector>

#include "chess/chess.hpp"
#include "chess/counting_allocator.hpp"
#include "chess/notation.hpp"
#include "chess/reference.hpp"

// ---- global operator new accounting ---------------------------------------------
// Replacing the global allocation functions lets a test prove that the engine
// never falls back to operator new when it has been given an allocator.

namespace {
std::atomic<std::uint64_t> g_global_new_calls{0};
} // namespace

// GCC sees free() paired with an inlined operator new and warns, not knowing
// that this file provides both sides of the pair.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
void *operator new(std::size_t size) {
    ++g_global_new_calls;
    if (void *p = std::malloc(size != 0 ? size : 1)) return p;
    throw std::bad_alloc();
}
void *operator new[](std::size_t size) {
    return ::operator new(size);
}
void operator delete(void *p) noexcept {
    std::free(p);
}
void operator delete[](void *p) noexcept {
    std::free(p);
}
void operator delete(void *p, std::size_t) noexcept {
    std::free(p);
}
void operator delete[](void *p, std::size_t) noexcept {
    std::free(p);
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

namespace {

using chess::Move;

#if defined(CHESS_FULL_DEPTH) && CHESS_FULL_DEPTH
constexpr bool kFullDepthBuild = true;
#else
constexpr bool kFullDepthBuild = false;
#endif

// Depth limit for a case: full or reduced by build type, then capped or
// raised by CHESS_PERFT_MAX_DEPTH, never beyond the reference data.
int depth_limit(int full_depth, int reduced_depth) {
    int limit = kFullDepthBuild ? full_depth : reduced_depth;
    if (const char *env = std::getenv("CHESS_PERFT_MAX_DEPTH")) {
        const int requested = std::atoi(env);
        if (requested > 0) limit = requested;
    }
    return std::min(limit, full_depth);
}

// ---- reference positions ---------------------------------------------------------

struct PerftCase {
    const char *name;
    const char *fen;
    std::vector<std::uint64_t> nodes; // perft(1), perft(2), ...
    int reduced_depth;
};

using chess::reference::kKiwipete;
using chess::reference::kPosition3;
using chess::reference::kPosition4;
using chess::reference::kPosition5;
using chess::reference::kPosition6;

const std::vector<PerftCase> &perft_cases() {
    static const std::vector<PerftCase> cases = {
        {"Start", chess::kStartFen, {20, 400, 8902, 197281, 4865609}, 4},
        {"Kiwipete", kKiwipete, {48, 2039, 97862, 4085603}, 3},
        {"Position3", kPosition3, {14, 191, 2812, 43238, 674624}, 4},
        {"Position4", kPosition4, {6, 264, 9467, 422333, 15833292}, 3},
        {"Position5", kPosition5, {44, 1486, 62379, 2103487}, 3},
        {"Position6", kPosition6, {46, 2079, 89890, 3894594}, 3},
    };
    return cases;
}

// Single-depth reference values for tricky special cases (en passant pins,
// castling checks, promotions, stalemate/checkmate tricks).
struct EdgeCase {
    const char *name;
    const char *fen;
    int depth;
    std::uint64_t nodes;
};

const EdgeCase kEdgeCases[] = {
    {"IllegalEpMovesOutOfCheck", "3k4/3p4/8/K1P4r/8/8/8/8 b - - 0 1", 6, 1134888},
    {"IllegalEpDiscoveredCheck", "8/8/4k3/8/2p5/8/B2P2K1/8 w - - 0 1", 6, 1015133},
    {"EpCaptureChecksOpponent", "8/8/1k6/2b5/2pP4/8/5K2/8 b - d3 0 1", 6, 1440467},
    {"ShortCastlingGivesCheck", "5k2/8/8/8/8/8/8/4K2R w K - 0 1", 6, 661072},
    {"LongCastlingGivesCheck", "3k4/8/8/8/8/8/8/R3K3 w Q - 0 1", 6, 803711},
    {"CastleRights", "r3k2r/1b4bq/8/8/8/8/7B/R3K2R w KQkq - 0 1", 4, 1274206},
    {"CastlingPrevented", "r3k2r/8/3Q4/8/8/5q2/8/R3K2R b KQkq - 0 1", 4, 1720476},
    {"PromoteOutOfCheck", "2K2r2/4P3/8/8/8/8/8/3k4 w - - 0 1", 6, 3821001},
    {"DiscoveredCheck", "8/8/1P2K3/8/2n5/1q6/8/5k2 b - - 0 1", 5, 1004658},
    {"PromoteToGiveCheck", "4k3/1P6/8/8/8/8/K7/8 w - - 0 1", 6, 217342},
    {"UnderpromoteToCheck", "8/P1k5/K7/8/8/8/8/8 w - - 0 1", 6, 92683},
    {"SelfStalemate", "K1k5/8/P7/8/8/8/8/8 w - - 0 1", 6, 2217},
    {"StalemateAndCheckmate", "8/k1P5/8/1K6/8/8/8/8 w - - 0 1", 7, 567584},
    {"DoubleCheck", "8/8/2k5/5q2/5n2/8/5K2/8 b - - 0 1", 4, 23527},
};

// Edge cases above this size only run in full-depth builds.
constexpr std::uint64_t kReducedEdgeCaseNodes = 1200000;

// ---- helpers --------------------------------------------------------------------

template <class MoveList>
std::vector<std::string> uci_moves(const MoveList &moves) {
    std::vector<std::string> out;
    for (const Move &m : moves) {
        char text[6];
        chess::to_uci(m, text);
        out.emplace_back(text);
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<std::string> legal_uci_moves(const char *fen) {
    chess::engine engine(std::allocator<char>(), 0);
    EXPECT_TRUE(engine.set_fen(fen)) << fen;
    return uci_moves(engine.legal_moves());
}

bool contains(const std::vector<std::string> &moves, const char *uci) {
    return std::find(moves.begin(), moves.end(), uci) != moves.end();
}

// Everything observable about a position, to compare before/after unmake.
struct Snapshot {
    chess::PieceCode board[64];
    chess::Color side;
    std::uint8_t castling;
    int ep;
    std::uint64_t hash;

    template <class Position>
    explicit Snapshot(const Position &pos)
        : board{}, side(pos.side_to_move()), castling(pos.castling_rights()), ep(pos.ep_square()),
          hash(pos.hash()) {
        std::memcpy(board, pos.board(), sizeof board);
    }
    bool operator==(const Snapshot &o) const {
        return std::memcmp(board, o.board, sizeof board) == 0 && side == o.side &&
               castling == o.castling && ep == o.ep && hash == o.hash;
    }
};

// Walks the whole move tree checking internal consistency at every node and
// exact restoration after every unmake. Returns the leaf count.
template <class Engine>
std::uint64_t checked_walk(Engine &engine, int depth) {
    const auto &pos = engine.position();
    EXPECT_TRUE(pos.is_consistent());
    if (depth == 0) return 1;
    const Snapshot before(pos);
    std::uint64_t nodes = 0;
    for (const Move &m : engine.legal_moves()) {
        chess::Undo undo;
        engine.make(m, undo);
        EXPECT_FALSE(
            pos.attacked(pos.king_square(chess::opposite(pos.side_to_move())), pos.side_to_move()))
            << "move left its own king in check";
        nodes += checked_walk(engine, depth - 1);
        engine.unmake(m, undo);
        if (!(Snapshot(pos) == before)) {
            char text[6];
            chess::to_uci(m, text);
            ADD_FAILURE() << "unmake did not restore the position after " << text;
            return nodes;
        }
    }
    return nodes;
}

// ---- perft against reference counts -------------------------------------------

struct PerftParam {
    std::size_t case_index;
    std::size_t tt_capacity;
};

// Readable parameter names in test output instead of raw bytes.
void PrintTo(const PerftParam &p, std::ostream *os) {
    *os << perft_cases()[p.case_index].name << " tt=" << p.tt_capacity;
}

class PerftTest : public ::testing::TestWithParam<PerftParam> {};

// The benchmarks' checks (chess/reference.hpp) agree with the per-depth table here, so
// what the benchmarks verify before timing is what this suite verifies.
TEST(Perft, BenchmarkChecksAgreeWithTheTable) {
    for (const chess::reference::perft_check &check : chess::reference::kBenchmarkChecks) {
        const PerftCase *found = nullptr;
        for (const PerftCase &c : perft_cases())
            if (std::strcmp(c.fen, check.fen) == 0) found = &c;
        ASSERT_NE(found, nullptr) << check.name;
        ASSERT_LE(static_cast<std::size_t>(check.depth), found->nodes.size()) << check.name;
        EXPECT_EQ(found->nodes[static_cast<std::size_t>(check.depth - 1)], check.nodes)
            << check.name;
    }
}

TEST_P(PerftTest, MatchesReferenceCounts) {
    const PerftCase &c = perft_cases()[GetParam().case_index];
    const int limit = depth_limit(static_cast<int>(c.nodes.size()), c.reduced_depth);
    // One engine for all depths: the table carries entries across searches,
    // which must not leak between depths.
    chess::engine engine(std::allocator<char>(), GetParam().tt_capacity);
    ASSERT_TRUE(engine.set_fen(c.fen));
    for (int depth = 1; depth <= limit; ++depth) {
        EXPECT_EQ(engine.perft(depth), c.nodes[static_cast<std::size_t>(depth - 1)])
            << c.name << " depth " << depth;
    }
    EXPECT_LE(engine.tt_size(), GetParam().tt_capacity);
    EXPECT_TRUE(engine.position().is_consistent());
}

std::vector<PerftParam> all_perft_params() {
    std::vector<PerftParam> params;
    for (std::size_t i = 0; i < perft_cases().size(); ++i) {
        params.push_back({i, 0});                         // table off
        params.push_back({i, chess::kDefaultTtCapacity}); // normal
        params.push_back({i, 64});                        // tiny: flushed constantly
    }
    return params;
}

std::string perft_param_name(const ::testing::TestParamInfo<PerftParam> &info) {
    const std::size_t tt = info.param.tt_capacity;
    return std::string(perft_cases()[info.param.case_index].name) + "_Tt" +
           (tt == 0 ? std::string("Off") : std::to_string(tt));
}

INSTANTIATE_TEST_SUITE_P(Reference, PerftTest, ::testing::ValuesIn(all_perft_params()),
                         perft_param_name);

void PrintTo(const EdgeCase &c, std::ostream *os) {
    *os << c.fen << " depth " << c.depth;
}

class EdgeCaseTest : public ::testing::TestWithParam<EdgeCase> {};

TEST_P(EdgeCaseTest, MatchesReferenceCount) {
    const EdgeCase &c = GetParam();
    if (!kFullDepthBuild && c.nodes > kReducedEdgeCaseNodes &&
        std::getenv("CHESS_PERFT_MAX_DEPTH") == nullptr) {
        GTEST_SKIP() << "large edge case only runs in full-depth (Release) builds";
    }
    EXPECT_EQ(chess::perft(c.fen, c.depth, std::allocator<char>()), c.nodes);
    EXPECT_EQ(chess::perft(c.fen, c.depth, std::allocator<char>(), 0), c.nodes);
}

INSTANTIATE_TEST_SUITE_P(Sedlak, EdgeCaseTest, ::testing::ValuesIn(kEdgeCases),
                         [](const ::testing::TestParamInfo<EdgeCase> &param_info) {
                             return std::string(param_info.param.name);
                         });

// ---- transposition table ---------------------------------------------------------

TEST(TranspositionTable, AnyCapacityGivesTheSameCounts) {
    const int depth = kFullDepthBuild ? 4 : 3;
    for (const char *fen : {chess::kStartFen, kKiwipete, kPosition3, kPosition4}) {
        const std::uint64_t reference = chess::perft(fen, depth, std::allocator<char>(), 0);
        for (std::size_t capacity : {std::size_t{1}, std::size_t{2}, std::size_t{7},
                                     chess::kDefaultTtCapacity, std::size_t{1} << 20}) {
            EXPECT_EQ(chess::perft(fen, depth, std::allocator<char>(), capacity), reference)
                << fen << " capacity " << capacity;
        }
    }
}

TEST(TranspositionTable, IsUsedAndStaysBounded) {
    // Kiwipete to depth 3 caches 49 subtrees (root + 48 depth-2 nodes), so a
    // 10-entry table has to be flushed several times.
    chess::engine engine(std::allocator<char>(), 10);
    ASSERT_TRUE(engine.set_fen(kKiwipete));
    EXPECT_EQ(engine.perft(3), 97862u);
    const chess::EngineStats &stats = engine.stats();
    EXPECT_EQ(stats.tt_stores, 49u);
    EXPECT_GE(stats.tt_clears, 4u);
    EXPECT_LE(engine.tt_size(), 10u);

    // Transpositions need three plies (a move order swap), so depth 5.
    chess::engine big(std::allocator<char>(), chess::kDefaultTtCapacity);
    ASSERT_TRUE(big.set_fen(kPosition3));
    EXPECT_EQ(big.perft(5), 674624u);
    EXPECT_GT(big.stats().tt_hits, 0u);
}

TEST(TranspositionTable, EverythingModeRecordsEveryInteriorNodeAndNeverClears) {
    // Start position to depth 3: interior nodes are the root (depth 3), its 20 children
    // (depth 2) and their 400 children (depth 1). Without transpositions at these plies
    // (a transposition needs four plies from the start) every one is a distinct entry.
    chess::engine engine(std::allocator<char>(), chess::kEverythingTtCapacity,
                         chess::tt_mode::everything);
    EXPECT_EQ(engine.table_mode(), chess::tt_mode::everything);
    EXPECT_EQ(engine.perft(3), 8902u);
    EXPECT_EQ(engine.stats().tt_stores, 421u);
    EXPECT_EQ(engine.tt_size(), 421u);
    EXPECT_EQ(engine.stats().tt_hits, 0u);
    // Bounded mode on the same search stores only the 21 nodes of depth >= 2.
    chess::engine bounded{std::allocator<char>()};
    EXPECT_EQ(bounded.perft(3), 8902u);
    EXPECT_EQ(bounded.stats().tt_stores, 21u);

    // Depth 4 reaches transpositions among the depth-1 nodes: hits, and every count right.
    // The table keeps growing across searches (never cleared).
    EXPECT_EQ(engine.perft(4), 197281u);
    EXPECT_GT(engine.stats().tt_hits, 0u);
    EXPECT_GT(engine.tt_size(), 421u + 8000u);
    EXPECT_EQ(engine.stats().tt_clears, 0u);
    EXPECT_EQ(engine.stats().tt_refused, 0u);
}

TEST(TranspositionTable, EverythingModeCapacityGuardsMemoryWithoutClearing) {
    // A guard of 100 entries: the first 100 stores are kept, the rest refused, the
    // table is never cleared, and the counts stay right.
    chess::engine engine(std::allocator<char>(), 100, chess::tt_mode::everything);
    ASSERT_TRUE(engine.set_fen(kKiwipete));
    EXPECT_EQ(engine.perft(3), 97862u);
    EXPECT_EQ(engine.tt_size(), 100u);
    EXPECT_EQ(engine.stats().tt_stores, 100u);
    EXPECT_GT(engine.stats().tt_refused, 0u);
    EXPECT_EQ(engine.stats().tt_clears, 0u);
    for (const char *fen : {chess::kStartFen, kKiwipete, kPosition3, kPosition4}) {
        const int depth = kFullDepthBuild ? 4 : 3;
        const std::uint64_t reference = chess::perft(fen, depth, std::allocator<char>(), 0);
        for (std::size_t capacity : {std::size_t{1}, std::size_t{50}, chess::kEverythingTtCapacity})
            EXPECT_EQ(chess::perft(fen, depth, std::allocator<char>(), capacity,
                                   chess::tt_mode::everything),
                      reference)
                << fen << " capacity " << capacity;
    }
}

TEST(TranspositionTable, DisabledTableIsNeverTouched) {
    chess::engine engine(std::allocator<char>(), 0);
    EXPECT_EQ(engine.perft(3), 8902u);
    EXPECT_EQ(engine.stats().tt_probes, 0u);
    EXPECT_EQ(engine.tt_size(), 0u);
}

// ---- allocator plumbing ----------------------------------------------------------

TEST(Allocator, EveryAllocationGoesThroughTheGivenAllocatorAndIsFreed) {
    chess::AllocationStats stats;
    std::uint64_t nodes = 0;
    const std::uint64_t global_before = g_global_new_calls.load();
    {
        chess::basic_engine<chess::counting_allocator<char>> engine(
            chess::counting_allocator<char>(stats), chess::kDefaultTtCapacity);
        EXPECT_GT(stats.allocations, 0u) << "piece lists are allocated at construction";
        ASSERT_TRUE(engine.set_fen(kKiwipete));
        nodes = engine.perft(3);
        EXPECT_GT(engine.tt_size(), 0u);
        EXPECT_GT(stats.bytes_in_use, 0u);
    }
    const std::uint64_t global_after = g_global_new_calls.load();

    EXPECT_EQ(nodes, 97862u);
    EXPECT_EQ(global_after, global_before) << "the engine used global operator new";
    EXPECT_GT(stats.allocations, 0u);
    EXPECT_EQ(stats.allocations, stats.deallocations);
    EXPECT_EQ(stats.bytes_in_use, 0u);
    // The benchmark relies on the engine allocating in proportion to the work:
    // about one list node per leaf (the last ply's move lists).
    EXPECT_GE(stats.allocations, nodes / 2);
}

TEST(Allocator, OneShotPerftUsesOnlyTheGivenAllocator) {
    chess::AllocationStats stats;
    const std::uint64_t global_before = g_global_new_calls.load();
    EXPECT_EQ(chess::perft(kPosition4, 3, chess::counting_allocator<char>(stats)), 9467u);
    EXPECT_EQ(g_global_new_calls.load(), global_before);
    EXPECT_GT(stats.allocations, 0u);
    EXPECT_EQ(stats.allocations, stats.deallocations);
    EXPECT_EQ(stats.bytes_in_use, 0u);
}

TEST(Allocator, FailedFenLoadLeaksNothing) {
    chess::AllocationStats stats;
    {
        chess::basic_engine<chess::counting_allocator<char>> engine(
            chess::counting_allocator<char>(stats), 16);
        EXPECT_FALSE(engine.set_fen("not a fen"));
        EXPECT_EQ(engine.perft(2), 400u);
    }
    EXPECT_EQ(stats.allocations, stats.deallocations);
    EXPECT_EQ(chess::perft("8/8/8/8/8/8/8/8 w - - 0 1", 2, chess::counting_allocator<char>(stats)),
              chess::kInvalidFen);
    EXPECT_EQ(stats.allocations, stats.deallocations);
}

TEST(Allocator, HeapUseStaysBoundedWithDefaultTable) {
    // The default table must fit a ~256 KiB microcontroller heap (nodes are
    // bigger on this 64-bit host than on a 32-bit MCU, so this is conservative).
    chess::AllocationStats stats;
    EXPECT_EQ(chess::perft(chess::kStartFen, kFullDepthBuild ? 5 : 4,
                           chess::counting_allocator<char>(stats)),
              kFullDepthBuild ? 4865609u : 197281u);
    EXPECT_LT(stats.peak_bytes_in_use, 256u * 1024u);
}

TEST(Allocator, DefaultConstructibleAllocatorWorks) {
    chess::basic_engine<std::allocator<char>> engine; // default allocator, default table
    EXPECT_EQ(engine.tt_capacity(), chess::kDefaultTtCapacity);
    EXPECT_EQ(engine.perft(3), 8902u);
    chess::basic_position<std::allocator<int>> position; // any value_type is rebound
    EXPECT_TRUE(position.is_consistent());
    EXPECT_EQ(chess::perft(chess::kStartFen, 3, std::allocator<int>(), 0), 8902u);
}

// ---- make/unmake -----------------------------------------------------------------

TEST(MakeUnmake, RestoresEverythingAndKeepsStateConsistent) {
    const int depth = kFullDepthBuild ? 4 : 3;
    const struct {
        const char *fen;
        std::uint64_t nodes_depth3;
        std::uint64_t nodes_depth4;
    } cases[] = {
        {kKiwipete, 97862, 4085603},
        {kPosition3, 2812, 43238},
        {kPosition4, 9467, 422333},
        {kPosition5, 62379, 2103487},
    };
    for (const auto &c : cases) {
        chess::AllocationStats stats;
        chess::basic_engine<chess::counting_allocator<char>> engine(
            chess::counting_allocator<char>(stats), 0);
        ASSERT_TRUE(engine.set_fen(c.fen));
        EXPECT_EQ(checked_walk(engine, depth), depth == 4 ? c.nodes_depth4 : c.nodes_depth3)
            << c.fen;
    }
}

TEST(MakeUnmake, IncrementalHashMatchesFenOfResultingPosition) {
    // 1. e4 from the start position: the hash after make() must equal the hash
    // of the same position loaded from FEN (en passant square included).
    chess::engine engine;
    chess::Move e2e4{};
    for (const Move &m : engine.legal_moves()) {
        char text[6];
        chess::to_uci(m, text);
        if (std::strcmp(text, "e2e4") == 0) e2e4 = m;
    }
    chess::Undo undo;
    engine.make(e2e4, undo);
    chess::engine loaded;
    ASSERT_TRUE(loaded.set_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"));
    EXPECT_EQ(engine.position().hash(), loaded.position().hash());
    engine.unmake(e2e4, undo);
    EXPECT_EQ(engine.position().hash(), chess::engine().position().hash());
}

// ---- move generation special cases ------------------------------------------------

TEST(MoveGen, StartPositionHasTwentyMoves) {
    const auto moves = legal_uci_moves(chess::kStartFen);
    EXPECT_EQ(moves.size(), 20u);
    EXPECT_TRUE(contains(moves, "g1f3"));
    EXPECT_TRUE(contains(moves, "e2e4"));
}

TEST(MoveGen, EnPassantExposingKingOnRankIsIllegal) {
    const auto moves = legal_uci_moves("8/8/8/KPp4r/8/8/8/7k w - c6 0 1");
    EXPECT_FALSE(contains(moves, "b5c6"));
    EXPECT_TRUE(contains(moves, "b5b6"));
}

TEST(MoveGen, EnPassantMayCaptureTheCheckingPawn) {
    const auto moves = legal_uci_moves("8/8/8/2k5/3Pp3/8/8/4K3 b - d3 0 1");
    EXPECT_TRUE(contains(moves, "e4d3"));
    EXPECT_FALSE(contains(moves, "e4e3")) << "a push does not resolve the check";
}

TEST(MoveGen, CastlingRules) {
    // f1 attacked: no short castling; b1 attacked does not stop long castling.
    auto moves = legal_uci_moves("1r1k1r2/8/8/8/8/8/8/R3K2R w KQ - 0 1");
    EXPECT_FALSE(contains(moves, "e1g1"));
    EXPECT_TRUE(contains(moves, "e1c1"));
    // In check: no castling at all.
    moves = legal_uci_moves("3kr3/8/8/8/8/8/8/R3K2R w KQ - 0 1");
    EXPECT_FALSE(contains(moves, "e1g1"));
    EXPECT_FALSE(contains(moves, "e1c1"));
    // Blocked path.
    moves = legal_uci_moves("3k4/8/8/8/8/8/8/RN2K1NR w KQ - 0 1");
    EXPECT_FALSE(contains(moves, "e1g1"));
    EXPECT_FALSE(contains(moves, "e1c1"));
}

TEST(MoveGen, PinnedPieceMovesOnlyAlongThePin) {
    const auto moves = legal_uci_moves("k3r3/8/8/8/8/8/4R3/4K3 w - - 0 1");
    for (const char *along : {"e2e3", "e2e4", "e2e5", "e2e6", "e2e7", "e2e8"}) {
        EXPECT_TRUE(contains(moves, along)) << along;
    }
    EXPECT_FALSE(contains(moves, "e2a2"));
    EXPECT_FALSE(contains(moves, "e2h2"));
}

TEST(MoveGen, DoubleCheckAllowsOnlyKingMoves) {
    // Rook e8 and knight d3 both check the king on e1.
    const auto moves = legal_uci_moves("3kr3/8/8/8/8/3n4/8/Q3K3 w - - 0 1");
    for (const std::string &m : moves)
        EXPECT_EQ(m.substr(0, 2), "e1") << m;
    EXPECT_FALSE(moves.empty());
}

TEST(MoveGen, PromotionsOfferAllFourPieces) {
    const auto moves = legal_uci_moves("1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1");
    for (const char *m : {"a7a8q", "a7a8r", "a7a8b", "a7a8n", "a7b8q", "a7b8r", "a7b8b", "a7b8n"}) {
        EXPECT_TRUE(contains(moves, m)) << m;
    }
}

TEST(MoveGen, CheckmateAndStalemateHaveNoMoves) {
    EXPECT_TRUE(
        legal_uci_moves("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3").empty());
    EXPECT_TRUE(legal_uci_moves("k7/2Q5/1K6/8/8/8/8/8 b - - 0 1").empty());
}

// ---- FEN ---------------------------------------------------------------------------

TEST(Fen, AcceptsValidInputAndOptionalFields) {
    chess::engine engine;
    EXPECT_TRUE(engine.set_fen(kPosition4));
    EXPECT_EQ(engine.position().side_to_move(), chess::kWhite);
    EXPECT_EQ(engine.position().castling_rights(), chess::kBlackKingside | chess::kBlackQueenside);
    EXPECT_TRUE(engine.set_fen("  4k3/8/8/8/8/8/8/4K3 b  ")); // trailing fields omitted
    EXPECT_EQ(engine.position().side_to_move(), chess::kBlack);
    EXPECT_TRUE(engine.set_fen("4k3/8/8/8/8/8/8/4K3 w - -"));
    EXPECT_TRUE(engine.position().is_consistent());
}

TEST(Fen, RejectsMalformedOrImpossiblePositionsAndKeepsTheOldOne) {
    chess::engine engine;
    ASSERT_TRUE(engine.set_fen(kKiwipete));
    const std::uint64_t hash = engine.position().hash();
    const char *const bad[] = {
        nullptr,
        "",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1",            // 7 ranks
        "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",   // bad digit
        "rnbqkbnr/ppppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",  // 9 files
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1",   // bad piece
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",   // bad side
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQxq - 0 1",   // bad castling
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq z9 0 1",  // bad ep
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1",   // bad clock
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 z", // trailing junk
        "8/8/8/8/8/8/8/4K3 w - - 0 1",                                // no black king
        "4k3/8/8/8/8/8/8/3KK3 w - - 0 1",                             // two white kings
        "P3k3/8/8/8/8/8/8/4K3 w - - 0 1",                             // pawn on rank 8
        "4k3/8/8/8/8/8/8/4K2r b - - 0 1",                             // white king capturable
    };
    for (const char *fen : bad) {
        EXPECT_FALSE(engine.set_fen(fen)) << (fen ? fen : "(null)");
        EXPECT_EQ(engine.position().hash(), hash);
    }
    EXPECT_EQ(engine.perft(2), 2039u);
}

TEST(Fen, DropsCastlingRightsAndEnPassantTheBoardContradicts) {
    chess::engine engine;
    // No rook on h1 / a8, and no pawn that could just have double-pushed to e4.
    ASSERT_TRUE(engine.set_fen("r3k3/8/8/8/8/8/8/R3K3 w KQkq e6 0 1"));
    EXPECT_EQ(engine.position().castling_rights(), chess::kWhiteQueenside | chess::kBlackQueenside);
    EXPECT_EQ(engine.position().ep_square(), chess::kNoSquare);
    ASSERT_TRUE(engine.set_fen("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1"));
    EXPECT_EQ(engine.position().ep_square(), chess::make_square(3, 5));
    EXPECT_EQ(engine.position().hash(), engine.position().compute_hash());
}

// ---- divide / notation ------------------------------------------------------------

TEST(Divide, SumsToPerftAndVisitsEveryRootMove) {
    chess::engine engine;
    ASSERT_TRUE(engine.set_fen(kKiwipete));
    std::vector<std::string> seen;
    std::uint64_t sum = 0;
    const std::uint64_t total = engine.divide(3, [&](Move m, std::uint64_t nodes) {
        char text[6];
        chess::to_uci(m, text);
        seen.emplace_back(text);
        sum += nodes;
    });
    EXPECT_EQ(total, 97862u);
    EXPECT_EQ(sum, total);
    EXPECT_EQ(seen.size(), 48u);
    EXPECT_TRUE(contains(uci_moves(engine.legal_moves()), "e1g1"));
}

TEST(Notation, FormatsUciMoves) {
    char text[6];
    chess::to_uci(chess::make_move(12, 28, chess::move_flags::kDoublePush), text);
    EXPECT_STREQ(text, "e2e4");
    chess::to_uci(chess::make_move(52, 60, chess::move_flags::kQuiet, chess::kKnight), text);
    EXPECT_STREQ(text, "e7e8n");
}

} // namespace
