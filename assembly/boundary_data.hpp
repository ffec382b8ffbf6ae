#pragma once
// Boundary data on the run's executor: Dirichlet values at the nodes of the groups' facets and
// the Neumann load, evaluated there from the expressions' programs (boundary_kernels.hpp).
// The host versions in boundary_conditions.hpp are the readable reference and test oracle.
#include <cstdint>
#include <functional>
#include <vector>

#include "assembly/element_data.hpp"
#include "assembly/problem_spec.hpp"
#include "linalg/array.hpp"
#include "mesh/mesh.hpp"

namespace gpufem {

/// Dirichlet data on an executor: mask[i] = 1 and values[i] = g(x_i) at constrained nodes,
/// zeros elsewhere; count = the number of constrained nodes.
template <typename V>
struct DirichletData {
    Array<std::uint8_t> mask;
    Array<V> values;
    index_type count = 0;
};

/// Changes the Dirichlet data of the mesh's conditions before an operator is built from them
/// (a rank's part: its ghosts' data as their owners have them); count must stay the masked nodes'.
template <typename V>
using DirichletAdjustment = std::function<void(DirichletData<V>&)>;

/// The mesh's node coordinates in double on data's executor: data's own array when V is
/// double, otherwise uploaded into storage.
template <typename V>
const double* double_coordinates(const Mesh& mesh, const ElementData<V>& data,
                                 Array<double>& storage);

/// The Dirichlet data of the conditions on exec (as dirichlet_nodes: every node of the
/// groups' facets, later groups win); coordinates are the mesh's on exec (double_coordinates).
/// Throws std::runtime_error naming the condition and the point where a value is not finite.
template <typename V>
DirichletData<V> dirichlet_data(const ExecPtr& exec, const Mesh& mesh, const double* coordinates,
                                const std::vector<BoundaryCondition>& conditions);

/// Adds the Neumann load of the conditions (as neumann_load) to rhs on its executor. Throws
/// std::runtime_error naming the condition and the quadrature point where g is not finite.
template <typename V>
void add_neumann_load(const Mesh& mesh, const double* coordinates,
                      const std::vector<BoundaryCondition>& conditions, Array<V>& rhs);

}  // namespace gpufem
