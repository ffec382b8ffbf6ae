#pragma once
// p-multigrid's coarse operators without the degree-k matrix: each lower degree's operator
// assembled from the cells' degree-k element matrices projected onto that degree (the
// element-wise Galerkin product), so a matrix-free fine level (lma, pa) needs no
// assembled high-order matrix.
#include <span>
#include <vector>

#include "assembly/lma_operator.hpp"
#include "assembly/problem_spec.hpp"
#include "linalg/csr.hpp"
#include "mesh/mesh.hpp"

namespace gpufem {

/// For each degree c of pmg_degrees_or_default(mesh, degrees), finest first: A_c = sum_e P^T K_e P,
/// K_e the problem's degree-k element matrices (as the system's) with the Dirichlet nodes'
/// rows and columns eliminated as the system does (diagonal kept), P the reference
/// interpolation from degree c (assembly/lagrange_space.hpp), in the numbering of that degree's
/// space (the columns of the matching pmg_interpolations transfer), on exec: the Galerkin
/// product R A P of the system's matrix A with the interpolation from degree c, without A.
/// At degree 1: the operator of the coarser grid (mesh/grid_coarsening), sum_e P_s^T K_e P_s
/// over the cells into their parent cells, P_s the coarse cell's basis at child s's nodes (the
/// columns of grid_interpolation), where can_coarsen_grid holds; else empty (and on a mesh of
/// several cell types, whose pmg takes R A P of its matrix). fine: the
/// system's operator. When it is an lma operator with its cells in their own order (the
/// atomic scatter), K_e are read from its storage; when it is a pa operator of the mesh, each
/// K_e P is computed from its quadrature-point factors by sum factorisation; otherwise the
/// element matrices of all cells are made once and freed before returning: stored as lma's
/// symmetric variant (an LmaOperator of its own; 36 values a hexahedron) when there is no
/// convection term, else cell-major in full. first_given: the first coarse degree's operator
/// is made elsewhere (pa_coarse_level); an empty matrix stands in its place.
template <typename V>
std::vector<Csr<V>> pmg_coarse_operators(const ExecPtr& exec, const Mesh& mesh,
                                         const ProblemSpec& problem,
                                         const LinearOperator<V>* fine = nullptr, bool first_given = false,
                                         std::span<const int> degrees = {});

}  // namespace gpufem
