// SPDX-License-Identifier: MIT
// Umbrella header for the allocator-parameterised chess engine.
//
//   chess::basic_engine<Alloc>   perft search (std::list moves, std::map TT)
//   chess::basic_position<Alloc> board + std::list piece lists, make/unmake
//   chess::perft(fen, depth, alloc, tt_capacity)   one-shot convenience
//
// Freestanding-friendly: no iostream, exceptions, RTTI, threads or <random>.
#ifndef CHESS_CHESS_HPP
#define CHESS_CHESS_HPP

#include "chess/engine.hpp"
#include "chess/fen.hpp"
#include "chess/movegen.hpp"
#include "chess/position.hpp"
#include "chess/types.hpp"

#endif // CHESS_CHESS_HPP
