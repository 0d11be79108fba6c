// SPDX-License-Identifier: MIT
// chess/reference.hpp - positions with published perft counts, to check the engine.
//
// The FENs are the standard perft test positions (chessprogramming.org "Perft Results");
// kBenchmarkChecks is the reference table of the project's brief (start position to depth
// 5, Kiwipete to 4, positions 3 and 4 to 5), which the benchmarks run on each allocator
// before they time anything.
#ifndef CHESS_REFERENCE_HPP
#define CHESS_REFERENCE_HPP

#include <cstdint>

#include "chess/fen.hpp"

namespace chess::reference {

inline constexpr const char *kKiwipete =
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
inline constexpr const char *kPosition3 = "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1";
inline constexpr const char *kPosition4 =
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1";
inline constexpr const char *kPosition5 =
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8";
inline constexpr const char *kPosition6 =
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10";

struct perft_check {
    const char *name;
    const char *fen;
    int depth;
    std::uint64_t nodes;
};

inline constexpr perft_check kBenchmarkChecks[] = {
    {"start position", kStartFen, 5, 4865609},
    {"Kiwipete", kKiwipete, 4, 4085603},
    {"position 3", kPosition3, 5, 674624},
    {"position 4", kPosition4, 5, 15833292},
};

} // namespace chess::reference

#endif // CHESS_REFERENCE_HPP
