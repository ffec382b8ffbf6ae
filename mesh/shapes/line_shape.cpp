// The line: the segment [-1, 1] with corners -1 and 1. gpufem writes no line cells and reads
// lines only as the facets of 2D meshes.
#include <vtkCellType.h>

#include "mesh/shapes/shape_tables.hpp"

namespace gpufem {
namespace {

constexpr double reference_corners[] = {-1, 1};
constexpr LatticeVector lattice_corners[] = {{0, 0, 0}, {1, 0, 0}};
constexpr std::array<int, 2> edges[] = {{0, 1}};
constexpr int vtk_corners[] = {0, 1};
constexpr LatticeFrame children[] = {{{0, 0, 0}, {{{1, 0, 0}}}}, {{1, 0, 0}, {{{1, 0, 0}}}}};

void linear_basis(const double* xi, double* N, double* dN)
{
    N[0] = 0.5 * (1 - xi[0]), N[1] = 0.5 * (1 + xi[0]);
    dN[0] = -0.5, dN[1] = 0.5;
}

}  // namespace

constinit const ShapeTraits line_shape = {
    .type = ElementType::line,
    .name = "line",
    .plural = "lines",
    .dim = 1,
    .corners = 2,
    .simplex = false,
    .box = true,
    .reference_corners = reference_corners,
    .lattice_corners = lattice_corners,
    .symmetric_axes = {true, false, false},
    .edges = edges,
    .faces = {},
    .lagrange_nodes = {2, 3, 4, 5, 6, 7, 8, 9},
    .max_degree = 8,
    .linear_basis = linear_basis,
    .gmsh_types = {1, 8, 26, 27},
    .gmsh_basis_types = {1, 8, 26, 27, 28, 62, 63, 64},
    .vtk_type = VTK_LINE,
    .vtk_corner_order = vtk_corners,
    .vtk_lagrange_type = -1,
    .make_vtk_lagrange_cell = nullptr,
    .vtk_quadratic_type = -1,
    .vtk_quadratic_edges = {},
    .grid_box_cells = {},
    .children = children,
    .refinement_patterns = 1,
};

}  // namespace gpufem
