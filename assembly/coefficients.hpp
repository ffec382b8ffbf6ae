#pragma once
// The problem's coefficients resolved against a mesh and evaluated on an executor: kappa
// (a scalar or a symmetric tensor), f, the reaction c and the convection velocity b, each one
// expression (per component) everywhere or one per region (a physical group of the mesh's
// dimension; every cell must lie in a region the map names). Values are evaluated region by
// region into one array per point, on the executor.
#include <functional>
#include <string>
#include <vector>

#include "assembly/coefficient_kernels.hpp"
#include "assembly/problem_spec.hpp"
#include "linalg/array.hpp"
#include "mesh/mesh.hpp"

namespace gpufem {

/// Which coefficient of the problem.
enum class CoefficientKind { kappa, f, reaction, convection };

/// One piece of a coefficient: the cells of a region (its physical tag and name) or every
/// cell (tag -1), and its components' expressions, or the cell data its value is given by.
struct CoefficientPiece {
    int tag = -1;
    std::string region;
    std::vector<std::string> components;
    /// The per-cell field (one of the cell_fields of the mesh the coefficient was resolved
    /// against) in place of components, or null.
    const CellField* field = nullptr;
};

/// A coefficient of a problem resolved against a mesh; no pieces: the problem has none (no
/// reaction or no convection term).
struct MeshCoefficient {
    CoefficientKind kind = CoefficientKind::kappa;
    std::string key;     ///< the case key: "kappa", "f", "c", "convection"
    int components = 1;  ///< 1, dim (a velocity) or dim (dim + 1) / 2 (a symmetric tensor)
    std::vector<CoefficientPiece> pieces;

    bool empty() const { return pieces.empty(); }
    /// One piece for every cell with every component constant.
    bool constant() const;
    /// A constant coefficient's components.
    std::vector<double> constant_values() const;
    /// "problem.kappa", "problem.kappa.steel", with ".xy" for a tensor's component.
    std::string name(const CoefficientPiece& piece, int component) const;
};

/// The coefficient of `kind` of the problem on the mesh. Throws std::runtime_error naming
/// problem.KEY: a region that is not a physical group of the mesh's dimension (with those it
/// has), cells in no region the map names (their groups and counts), a tensor with the wrong
/// number of components, a constant kappa <= 0 or c < 0, a convection of the wrong size, cell
/// data the mesh was not loaded with (its fields are read and checked by the mesh loader).
MeshCoefficient mesh_coefficient(const Mesh& mesh, const ProblemSpec& problem, CoefficientKind kind);

/// Where point k of a CoefficientPoints lies, for messages: its position and what it is
/// ("quadrature point 2 of cell 7", "centroid of cell 4").
struct PointPlace {
    double x[3] = {0, 0, 0};
    std::string what;
};

/// The coefficient's values on exec at the points `at` (their cells are the mesh's): one
/// point's components when constant, else components per point. Checks kappa positive
/// (tensors: positive definite), f and b finite, c >= 0; throws std::runtime_error naming the
/// key, the region, the expression, the value and place(k) of the first point that fails.
template <typename V>
Array<V> evaluate_coefficient(const ExecPtr& exec, const MeshCoefficient& coefficient, const CoefficientPoints& at,
                              const std::function<PointPlace(long long)>& place);

/// Each cell's physical tag on exec (mesh.cell_group; 0 for every cell when it has none).
Array<int> cell_regions(const ExecPtr& exec, const Mesh& mesh);

/// Which region tags a mesh's cells hold, among some candidates.
struct PresentTags {
    std::vector<int> tags;  ///< the candidates some cell holds, increasing
    bool others = false;    ///< some cell holds a tag that is none of the candidates
};

/// Which of `candidates` the mesh's cells hold (mesh.cell_group; every cell tag 0 when it has
/// none): one pass over the cells on the device where a mesh refined there keeps its regions,
/// else on the host's threads.
PresentTags present_region_tags(const Mesh& mesh, std::vector<int> candidates);

}  // namespace gpufem
