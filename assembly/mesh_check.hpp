#pragma once
// The mesh checked before assembly (a wrong mesh must not give a wrong answer presented as
// right): finite coordinates, 2D meshes in a plane z = const, and det J of one sign at every
// quadrature point of every cell (no tangled, inverted or folded cells). In 2D each cell may
// have its own orientation (Gmsh orients each surface as drawn): mixed signs are refused only
// where cells overlap.
#include "assembly/element_data.hpp"
#include "mesh/mesh.hpp"

namespace gpufem {

/// Throws std::runtime_error naming the mesh and the first bad node or cell (with its nodes)
/// when a coordinate is not finite, a 2D mesh leaves the plane z = const, or det J vanishes,
/// is not finite or changes sign inside a cell or between cells (2D: between cells only where
/// they overlap; data: the mesh's geometry
/// and the assembly quadrature on the executor; the sign test runs there).
template <typename V>
void check_mesh_geometry(const Mesh& mesh, const ElementData<V>& data);

}  // namespace gpufem
