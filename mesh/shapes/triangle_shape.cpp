// The triangle: the unit triangle with corners (0, 0), (1, 0), (0, 1).
#include <vtkCellType.h>
#include <vtkLagrangeTriangle.h>

#include "mesh/shapes/shape_tables.hpp"

namespace gpufem {
namespace {

constexpr double reference_corners[] = {0, 0, 1, 0, 0, 1};
constexpr LatticeVector lattice_corners[] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
constexpr std::array<int, 2> edges[] = {{0, 1}, {0, 2}, {1, 2}};
constexpr std::array<int, 4> faces[] = {{0, 1, 2, -1}};
constexpr int vtk_corners[] = {0, 1, 2};
/// Two triangles per box, split along the diagonal from the lower-left corner.
constexpr LatticeFrame grid_box_cells[] = {{{0, 0, 0}, {{{1, 0, 0}, {1, 1, 0}}}},
                                           {{0, 0, 0}, {{{1, 1, 0}, {0, 1, 0}}}}};
/// Three corner triangles and the inverted one between them.
constexpr LatticeFrame children[] = {{{0, 0, 0}, {{{1, 0, 0}, {0, 1, 0}}}},
                                     {{1, 0, 0}, {{{1, 0, 0}, {0, 1, 0}}}},
                                     {{0, 1, 0}, {{{1, 0, 0}, {0, 1, 0}}}},
                                     {{1, 1, 0}, {{{-1, 0, 0}, {0, -1, 0}}}}};

void linear_basis(const double* xi, double* N, double* dN)
{
    const double u = xi[0], v = xi[1];
    N[0] = 1 - u - v, N[1] = u, N[2] = v;
    const double g[] = {-1, -1, 1, 0, 0, 1};
    for (int k = 0; k < 6; ++k) dN[k] = g[k];
}

vtkCell* make_vtk_lagrange_cell(int) { return vtkLagrangeTriangle::New(); }

}  // namespace

constinit const ShapeTraits triangle_shape = {
    .type = ElementType::triangle,
    .name = "triangle",
    .plural = "triangles",
    .dim = 2,
    .corners = 3,
    .simplex = true,
    .box = false,
    .reference_corners = reference_corners,
    .lattice_corners = lattice_corners,
    .symmetric_axes = {false, false, false},
    .edges = edges,
    .faces = faces,
    .lagrange_nodes = {3, 6, 10, 15, 21, 28, 36, 45},
    .max_degree = 4,
    .linear_basis = linear_basis,
    .gmsh_types = {2, 9, 21, 23},
    .gmsh_basis_types = {2, 9, 21, 23, -1, -1, -1, -1},
    .vtk_type = VTK_TRIANGLE,
    .vtk_corner_order = vtk_corners,
    .vtk_lagrange_type = VTK_LAGRANGE_TRIANGLE,
    .make_vtk_lagrange_cell = make_vtk_lagrange_cell,
    .vtk_quadratic_type = -1,
    .vtk_quadratic_edges = {},
    .grid_box_cells = grid_box_cells,
    .children = children,
    .refinement_patterns = 1,
};

}  // namespace gpufem
