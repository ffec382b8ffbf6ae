// The tetrahedron: the unit tetrahedron with corners 0, e_x, e_y, e_z.
#include <vtkCellType.h>
#include <vtkLagrangeTetra.h>

#include "mesh/shapes/shape_tables.hpp"

namespace gpufem {
namespace {

constexpr double reference_corners[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
constexpr LatticeVector lattice_corners[] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
constexpr std::array<int, 2> edges[] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
constexpr std::array<int, 4> faces[] = {{0, 1, 2, -1}, {0, 1, 3, -1}, {0, 2, 3, -1}, {1, 2, 3, -1}};
constexpr int vtk_corners[] = {0, 1, 2, 3};
/// Kuhn's split of a box into 6 tetrahedra around its diagonal from (0, 0, 0) to (1, 1, 1),
/// one per order of the axes; odd orders have their 2nd and 3rd corners swapped (det J > 0).
constexpr LatticeFrame grid_box_cells[] = {
    {{0, 0, 0}, {{{1, 0, 0}, {1, 1, 0}, {1, 1, 1}}}}, {{0, 0, 0}, {{{1, 0, 1}, {1, 0, 0}, {1, 1, 1}}}},
    {{0, 0, 0}, {{{1, 1, 0}, {0, 1, 0}, {1, 1, 1}}}}, {{0, 0, 0}, {{{0, 1, 0}, {0, 1, 1}, {1, 1, 1}}}},
    {{0, 0, 0}, {{{0, 0, 1}, {1, 0, 1}, {1, 1, 1}}}}, {{0, 0, 0}, {{{0, 1, 1}, {0, 0, 1}, {1, 1, 1}}}}};
/// Three patterns, one per diagonal of the inner octahedron (joining the midpoints of the
/// edges 01-23, 02-13, 03-12): the 4 corner children, then the octahedron's 4 around that
/// diagonal (their first step along it).
constexpr LatticeFrame children[] = {
    {{0, 0, 0}, {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}},  {{1, 0, 0}, {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}},
    {{0, 1, 0}, {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}},  {{0, 0, 1}, {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}},
    {{1, 0, 0}, {{{-1, 1, 1}, {-1, 1, 0}, {-1, 0, 1}}}}, {{1, 0, 0}, {{{-1, 1, 1}, {-1, 0, 1}, {0, 0, 1}}}},
    {{1, 0, 0}, {{{-1, 1, 1}, {0, 0, 1}, {0, 1, 0}}}},   {{1, 0, 0}, {{{-1, 1, 1}, {0, 1, 0}, {-1, 1, 0}}}},
    {{0, 0, 0}, {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}},  {{1, 0, 0}, {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}},
    {{0, 1, 0}, {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}},  {{0, 0, 1}, {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}},
    {{0, 1, 0}, {{{1, -1, 1}, {0, -1, 1}, {1, -1, 0}}}}, {{0, 1, 0}, {{{1, -1, 1}, {0, 0, 1}, {0, -1, 1}}}},
    {{0, 1, 0}, {{{1, -1, 1}, {1, 0, 0}, {0, 0, 1}}}},   {{0, 1, 0}, {{{1, -1, 1}, {1, -1, 0}, {1, 0, 0}}}},
    {{0, 0, 0}, {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}},  {{1, 0, 0}, {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}},
    {{0, 1, 0}, {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}},  {{0, 0, 1}, {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}},
    {{0, 0, 1}, {{{1, 1, -1}, {1, 0, -1}, {0, 1, -1}}}}, {{0, 0, 1}, {{{1, 1, -1}, {0, 1, -1}, {0, 1, 0}}}},
    {{0, 0, 1}, {{{1, 1, -1}, {0, 1, 0}, {1, 0, 0}}}},   {{0, 0, 1}, {{{1, 1, -1}, {1, 0, 0}, {1, 0, -1}}}}};

void linear_basis(const double* xi, double* N, double* dN)
{
    const double u = xi[0], v = xi[1], w = xi[2];
    N[0] = 1 - u - v - w, N[1] = u, N[2] = v, N[3] = w;
    const double g[] = {-1, -1, -1, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    for (int k = 0; k < 12; ++k) dN[k] = g[k];
}

vtkCell* make_vtk_lagrange_cell(int) { return vtkLagrangeTetra::New(); }

}  // namespace

constinit const ShapeTraits tetrahedron_shape = {
    .type = ElementType::tetrahedron,
    .name = "tetrahedron",
    .plural = "tetrahedra",
    .dim = 3,
    .corners = 4,
    .simplex = true,
    .box = false,
    .reference_corners = reference_corners,
    .lattice_corners = lattice_corners,
    .symmetric_axes = {false, false, false},
    .edges = edges,
    .faces = faces,
    .lagrange_nodes = {4, 10, 20, 35, 56, 84, 120, 165},
    .max_degree = 4,
    .linear_basis = linear_basis,
    .gmsh_types = {4, 11, 29, 30},
    .gmsh_basis_types = {4, 11, 29, 30, -1, -1, -1, -1},
    .vtk_type = VTK_TETRA,
    .vtk_corner_order = vtk_corners,
    .vtk_lagrange_type = VTK_LAGRANGE_TETRAHEDRON,
    .make_vtk_lagrange_cell = make_vtk_lagrange_cell,
    .vtk_quadratic_type = -1,
    .vtk_quadratic_edges = {},
    .grid_box_cells = grid_box_cells,
    .children = children,
    .refinement_patterns = 3,
};

}  // namespace gpufem
