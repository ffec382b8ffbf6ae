#pragma once
// The partition of a mesh's cells among the ranks of a run: METIS's k-way partition of the
// cells' face-adjacency graph (two cells are neighbours when they share a face), so that each
// rank holds a compact, balanced piece and few faces cross between pieces.
#include <string>
#include <vector>

#include "linalg/types.hpp"
#include "mesh/mesh.hpp"

namespace gpufem {

/// Which part (rank) holds each cell of a mesh.
struct CellPartition {
    int parts = 1;
    std::vector<int> part;                  ///< per cell: its part, 0 .. parts - 1
    std::vector<index_type> cells_per_part;  ///< per part: its cells
    long long edge_cut = 0;                 ///< faces between cells of different parts (-1: not counted)
    std::string method = "one part";       ///< how the parts were made, for the report

    /// The largest part's cells over the mean (1: perfectly balanced).
    double imbalance() const;
};

/// The cells of mesh in `parts` parts: every cell in part 0 for one part; a box grid gpufem
/// generated (mesh.generated_grid) by coordinate_bisection; a mesh gpufem refined
/// (mesh.refined_from) by METIS's partition of the mesh it started from, each refined cell in
/// its ancestor's part (the coarse graph is partitioned in a moment where the refined one
/// would take seconds); otherwise METIS's k-way partition of the face-adjacency graph (a fixed
/// seed: the same mesh always gives the same partition). Throws std::invalid_argument for fewer than one part or more parts than
/// cells, std::runtime_error when METIS fails.
CellPartition partition_cells(const Mesh& mesh, int parts);

/// Recursive coordinate bisection of the cells' centres into `parts` parts (any count, not
/// only powers of two): each split across the widest extent, the counts in proportion to the
/// parts on each side. The part of each cell.
std::vector<int> coordinate_bisection(const Mesh& mesh, int parts);

}  // namespace gpufem
