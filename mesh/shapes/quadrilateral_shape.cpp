// The quadrilateral: the square [-1, 1]^2, corners counter-clockwise from (-1, -1).
#include <vtkCellType.h>
#include <vtkLagrangeQuadrilateral.h>

#include "mesh/shapes/shape_tables.hpp"

namespace gpufem {
namespace {

constexpr double reference_corners[] = {-1, -1, 1, -1, 1, 1, -1, 1};
constexpr LatticeVector lattice_corners[] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}};
constexpr std::array<int, 2> edges[] = {{0, 1}, {0, 3}, {1, 2}, {2, 3}};
constexpr std::array<int, 4> faces[] = {{0, 1, 2, 3}};
constexpr int vtk_corners[] = {0, 1, 2, 3};
constexpr LatticeFrame grid_box_cells[] = {{{0, 0, 0}, {{{1, 0, 0}, {0, 1, 0}}}}};
/// The four quarters, x fastest.
constexpr LatticeFrame children[] = {{{0, 0, 0}, {{{1, 0, 0}, {0, 1, 0}}}},
                                     {{1, 0, 0}, {{{1, 0, 0}, {0, 1, 0}}}},
                                     {{0, 1, 0}, {{{1, 0, 0}, {0, 1, 0}}}},
                                     {{1, 1, 0}, {{{1, 0, 0}, {0, 1, 0}}}}};

void linear_basis(const double* xi, double* N, double* dN)
{
    box_linear_basis(2, reference_corners, xi, N, dN);
}

}  // namespace

constinit const ShapeTraits quadrilateral_shape = {
    .type = ElementType::quadrilateral,
    .name = "quadrilateral",
    .plural = "quadrilaterals",
    .dim = 2,
    .corners = 4,
    .simplex = false,
    .box = true,
    .reference_corners = reference_corners,
    .lattice_corners = lattice_corners,
    .symmetric_axes = {true, true, false},
    .edges = edges,
    .faces = faces,
    .lagrange_nodes = {4, 9, 16, 25, 36, 49, 64, 81},
    .max_degree = 8,
    .linear_basis = linear_basis,
    .gmsh_types = {3, 10, 36, 37},
    .gmsh_basis_types = {3, 10, 36, 37, 38, 47, 48, 49},
    .vtk_type = VTK_QUAD,
    .vtk_corner_order = vtk_corners,
    .vtk_lagrange_type = VTK_LAGRANGE_QUADRILATERAL,
    .make_vtk_lagrange_cell = make_uniform_order_cell<vtkLagrangeQuadrilateral>,
    .vtk_quadratic_type = -1,
    .vtk_quadratic_edges = {},
    .grid_box_cells = grid_box_cells,
    .children = children,
    .refinement_patterns = 1,
};

}  // namespace gpufem
