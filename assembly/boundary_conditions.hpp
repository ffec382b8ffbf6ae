#pragma once
// Boundary data on the host: which nodes carry Dirichlet values, and the Neumann load vector.
#include <cstdint>
#include <vector>

#include "assembly/problem_spec.hpp"
#include "mesh/mesh.hpp"

namespace gpufem {

/// Dirichlet nodes: mask[i] = 1 and values[i] = g(x_i) for constrained nodes.
struct DirichletNodes {
    std::vector<std::uint8_t> mask;
    std::vector<double> values;
    index_type count = 0;
};

/// The facets of the boundary group a condition names; kind is "dirichlet", "neumann" or
/// "robin" for the message. Throws std::runtime_error naming the condition when the mesh has no such
/// boundary group (with the reason when it was ignored, or the groups that exist).
const BoundaryFacets& condition_facets(const Mesh& mesh, const std::string& group,
                                       const char* kind);

/// A boundary group's facets by shape: the group itself, or for a group of triangles and
/// quadrilaterals (BoundaryFacets::mixed_triangles, a mixed mesh's boundary) its triangles
/// and its quadrilaterals as two groups of one shape each (either may be empty).
std::vector<BoundaryFacets> facets_by_shape(const BoundaryFacets& facets);

/// Checks that every group named by a boundary condition is a boundary group of the mesh,
/// and that no Neumann or Robin group lies wholly on Dirichlet nodes (its flux would be dropped);
/// throws std::runtime_error naming the condition, the group and the groups that exist.
void check_boundary_groups(const Mesh& mesh, const ProblemSpec& problem);

/// Evaluates the Dirichlet expressions at all nodes of their groups' facets, high-order nodes
/// included (interpolation of g at the Lagrange nodes); later groups win where groups share
/// nodes.
DirichletNodes dirichlet_nodes(const Mesh& mesh, const std::vector<BoundaryCondition>& conditions);

/// Neumann load: b_i = sum over facets of the groups of int_facet g N_i ds, on isoparametric
/// Lagrange facets of the facets' order k (lines, triangles, quadrilaterals; the facet map
/// uses all its nodes, so curved boundaries are followed), quadrature exact to degree 2k+1 on
/// the reference facet. Returns one value per node (zeros where no flux).
std::vector<double> neumann_load(const Mesh& mesh, const std::vector<BoundaryCondition>& conditions);

}  // namespace gpufem
