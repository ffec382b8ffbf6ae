#pragma once
// Interpolation between Lagrange spaces of lower degree and the mesh's own degree on the same
// mesh (assembly/lagrange_space.hpp): the transfers of p-multigrid (degree k -> k/2 -> 1, on
// boxes of odd degree k -> 3 -> 1, or k -> 1), and below degree 1 the transfers down the mesh
// hierarchy.
#include <optional>
#include <span>
#include <vector>

#include "linalg/csr.hpp"
#include "assembly/lagrange_space.hpp"
#include "linalg/array.hpp"
#include "mesh/grid_coarsening.hpp"
#include "mesh/mesh.hpp"
#include "mesh/structured_grid.hpp"

namespace gpufem {

/// P (mesh nodes x coarse nodes) from the degree-c space into the mesh's degree-k space (c as
/// lagrange_space takes it): the coarse nodes are the mesh nodes on the degree-c lattice of
/// some cell (c = 1: the vertices), columns in node order. Row j holds the degree-c basis functions of
/// a cell that contains node j at j's reference point (entries below 1e-14 dropped), so that
/// P u_c is the degree-k representation of u_c; conforming meshes give the same row from every
/// cell around a node (read off the first cell that holds it). Built on exec (on the
/// CPU by the host's threads), from the mesh's device copy where it has one. c = k gives the
/// identity. Throws std::invalid_argument for a c that lagrange_space does not take.
template <typename V>
Csr<V> lagrange_interpolation(const Mesh& mesh, int coarse_degree, const ExecPtr& exec);

/// lagrange_interpolation(mesh, 1, exec).
template <typename V>
Csr<V> degree_one_interpolation(const Mesh& mesh, const ExecPtr& exec)
{
    return lagrange_interpolation<V>(mesh, 1, exec);
}

/// Whether cells of this type are tensor-product boxes (quadrilaterals, hexahedra).
inline bool is_box_type(ElementType type)
{
    return type == ElementType::quadrilateral || type == ElementType::hexahedron;
}

/// Whether cells of this type are simplices (triangles, tetrahedra).
inline bool is_simplex_type(ElementType type)
{
    return type == ElementType::triangle || type == ElementType::tetrahedron;
}

/// Whether every cell of mesh is a quadrilateral, or every cell a hexahedron: a tensor-product
/// lattice, on which a lower degree need not divide the mesh's (lagrange_space).
inline bool has_box_cells(const Mesh& mesh)
{
    return !mesh.is_mixed() && is_box_type(mesh.cell_type);
}

/// The degrees p-multigrid passes through below k: halved while the degree is even and at
/// least 4 (each divides k), then 1: 8 -> 4, 2, 1; 6 -> 3, 1; 4 -> 2, 1; otherwise 1. With
/// through_three (boxes whose first coarse level is applied from the operator's own factors,
/// so that it costs no setup: assembly/pa_coarse_level.hpp) degree 7 passes through 3, whose
/// lattice rounds onto the mesh's: 7 -> 3, 1 (straight to 1 takes more than twice the
/// iterations; at degree 5 the two routes cost the same, and it goes straight to 1). With
/// through_two (triangles and tetrahedra, whose degree-2 space lies under degree 3) an odd
/// degree from 3 passes through 2 before 1: 3 -> 2, 1.
inline std::vector<int> pmg_coarse_degrees(int k, bool through_three = false, bool through_two = false)
{
    std::vector<int> out;
    if (through_three && k >= 7 && k % 2 == 1) out.push_back(3);
    for (int c = k; c >= 4 && c % 2 == 0;) out.push_back(c /= 2);
    const int last = out.empty() ? k : out.back();
    if (through_two && last >= 3 && last % 2 == 1) out.push_back(2);
    if (out.empty() || out.back() != 1) out.push_back(1);
    return out;
}

/// Whether every cell of mesh is a triangle, or every cell a tetrahedron.
inline bool has_simplex_cells(const Mesh& mesh)
{
    return !mesh.is_mixed() && is_simplex_type(mesh.cell_type);
}

/// degrees, or where it is empty pmg_coarse_degrees(mesh.degree): the lower degrees a caller
/// chose for p-multigrid on mesh.
inline std::vector<int> pmg_degrees_or_default(const Mesh& mesh, std::span<const int> degrees)
{
    return degrees.empty() ? pmg_coarse_degrees(mesh.degree) : std::vector<int>(degrees.begin(), degrees.end());
}

/// P (mesh nodes x coarse grid nodes) from the coarser grid of a generated mesh
/// (mesh/grid_coarsening) into the mesh's space: row j holds the bilinear / trilinear basis of
/// the coarse cell around node j at node j (read off the first cell that holds j), so that
/// P u_H is u_H on the finer grid. Built on exec.
template <typename V>
Csr<V> grid_interpolation(const Mesh& mesh, const GridCoarsening& coarse, const ExecPtr& exec);

/// The chain of p-multigrid transfers of the mesh, finest first: for each coarse degree of
/// pmg_degrees_or_default(mesh, degrees), the interpolation into the previous (finer) degree's
/// space, in that space's numbering (rows of the first: mesh nodes). Then, on a mesh gpufem
/// refined (Mesh::refined_from, straight cells), the h-levels down every refinement: the
/// degree-1 space into its parent mesh's, that into its parent's, ..., to the mesh gpufem
/// refined first. On a generated grid (degree 1, or below the degree-1 space of degree k):
/// the transfers down the grid's halvings
/// (grid_interpolation's, then from the grid of a quarter of the boxes, ..., while the boxes
/// per unit length stay even and at least 4) where can_coarsen_grid holds. Otherwise nothing
/// below degree 1. A mesh of several cell types goes down the degrees (each cell's rows by
/// its type's basis), never below degree 1.
/// Without with_first, the chain from its second transfer on (the first then made otherwise,
/// e.g. pa_first_transfer). degrees: the lower degrees (pmg_degrees_or_default).
template <typename V>
std::vector<Csr<V>> pmg_interpolations(const Mesh& mesh, const ExecPtr& exec, bool with_first = true,
                                       std::span<const int> degrees = {});

/// The coarse grid of each of pmg_interpolations' transfers, aligned with them: the box grid
/// whose node numbers are its columns for a level down a generated grid's halvings, nullopt for
/// a lower degree or a parent mesh of a refinement. What the Galerkin products by windows on
/// the lattice need (solver/multigrid/lattice_product.hpp). degrees as pmg_interpolations'.
std::vector<std::optional<StructuredGrid>> pmg_coarse_grids(const Mesh& mesh, std::span<const int> degrees = {});

/// One lower degree of p-multigrid on a mesh: the transfer into the next finer degree's space
/// (as pmg_interpolations') and the degree's space (its unknowns' mesh nodes).
template <typename V>
struct DegreeLevel {
    Csr<V> transfer;      ///< finer space's unknowns x this degree's
    LagrangeSpace space;  ///< this degree's space
};

/// pmg_interpolations' lower-degree levels alone (no h-levels), finest first: what it starts
/// from, and what p-multigrid across ranks numbers on each rank's part. The degree-1 space
/// keeps its dof map when degree_one_dof_map (the h-levels start from its cells). Empty at
/// degree 1. Without with_first the first level's transfer is left empty (not built).
/// degrees as pmg_interpolations'.
template <typename V>
std::vector<DegreeLevel<V>> degree_levels(const Mesh& mesh, const ExecPtr& exec, bool degree_one_dof_map = false,
                                          bool with_first = true, std::span<const int> degrees = {});

}  // namespace gpufem
