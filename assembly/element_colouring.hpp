#pragma once
// Greedy colouring of the cells of a mesh so that no two cells of one colour share a node:
// cells of one colour can scatter into a global vector concurrently without atomics.
#include <span>
#include <vector>

#include "linalg/host_vector.hpp"
#include "linalg/types.hpp"

namespace gpufem {

/// Cells grouped by colour: cells[colour_offsets[c] .. colour_offsets[c + 1]) have colour c.
struct ElementColouring {
    std::vector<index_type> colour_offsets;  ///< num_colours + 1 entries
    HostVector<index_type> cells;            ///< cell indices sorted by colour (stable)
    int num_colours() const { return static_cast<int>(colour_offsets.size()) - 1; }
};

/// Greedy colouring of the cell adjacency graph (cells adjacent when they share a node): each
/// cell takes the smallest colour none of its neighbours has, visiting the cells in their
/// order; when that needs more colours than the most cells at one node (a lower bound), also
/// in largest-degree-first order, keeping the one with fewer colours. Each node keeps the
/// colours of its cells as a bit set, so no cell adjacency is built (about 25 node reads and
/// writes per hexahedron). cells holds npe node indices per cell (cell-major), nodes in
/// [0, num_nodes). Deterministic.
ElementColouring colour_elements(std::span<const index_type> cells, int npe, index_type num_nodes);

}  // namespace gpufem
