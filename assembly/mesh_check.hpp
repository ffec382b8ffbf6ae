#pragma once
// The mesh checked before assembly (a wrong mesh must not give a wrong answer presented as
// right): finite coordinates, 2D meshes in a plane z = const, and det J of one sign at every
// quadrature point of every cell (no tangled, inverted or folded cells). In 2D each cell may
// have its own orientation (Gmsh orients each surface as drawn): mixed signs are refused only
// where cells overlap.
#include "assembly/element_data.hpp"
#include "assembly/geometry_check_kernels.hpp"
#include "mesh/mesh.hpp"

namespace gpufem {

/// Throws std::runtime_error naming the mesh and the first bad node or cell (with its nodes)
/// when a coordinate is not finite, a 2D mesh leaves the plane z = const, or det J vanishes,
/// is not finite or changes sign inside a cell or between cells (2D: between cells only where
/// they overlap; data: the mesh's geometry
/// and the assembly quadrature on the executor; the sign test runs there).
template <typename V>
void check_mesh_geometry(const Mesh& mesh, const ElementData<V>& data);

/// check_mesh_geometry's test of det J from signs found elsewhere (with a pa operator's point
/// factors) over num_points points a cell: throws as it does. exec: where a 2D mesh's cells
/// are compared for overlap. (The coordinates are check_mesh_coordinates', mesh/mesh_quality.hpp.)
void check_jacobian_signs(const Mesh& mesh, const JacobianSigns& signs, int num_points, const ExecPtr& exec);

}  // namespace gpufem
