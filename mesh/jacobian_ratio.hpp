#pragma once
// The Jacobian ratio of a mesh's cells: for each cell the smallest det J of its geometric map
// over the largest |det J|, both taken at the cell's nodes (its corners for first-order cells,
// every Lagrange node of a curved cell). 1 for an affine simplex or a parallelogram or
// parallelepiped; it falls as a cell is distorted and is 0 or negative for a cell that is
// degenerate, inverted or folded. 3D cells must be positively oriented (Gmsh's convention); a
// 2D cell may have either orientation (Gmsh orients each surface as drawn), so in 2D the ratio
// is taken in the cell's own orientation and is negative only for a folded cell.
#include <vector>

#include "mesh/mesh.hpp"

namespace gpufem {

/// The Jacobian ratio of every cell, in mesh order (not finite values count as 0).
std::vector<double> jacobian_ratios(const Mesh& mesh);

/// The Jacobian ratios of a mesh's cells summed up.
struct JacobianRatioSummary {
    double min = 1;                    ///< the lowest ratio (1 for a mesh without cells)
    double max = 1;                    ///< the highest ratio
    long long non_positive = 0;        ///< cells whose ratio is <= 0 (inverted, folded, flat)
    std::vector<long long> first_non_positive;  ///< the first of them, in mesh order
};

/// The summary of jacobian_ratios(mesh), naming at most `named` non-positive cells.
JacobianRatioSummary summarise_jacobian_ratios(const Mesh& mesh, int named = 5);

}  // namespace gpufem
