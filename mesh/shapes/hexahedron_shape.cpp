// The hexahedron: the cube [-1, 1]^3, corners counter-clockwise in z = -1, then in z = 1.
#include <vtkCellType.h>
#include <vtkLagrangeHexahedron.h>

#include "mesh/shapes/shape_tables.hpp"

namespace gpufem {
namespace {

constexpr double reference_corners[] = {-1, -1, -1, 1, -1, -1, 1, 1, -1, -1, 1, -1,
                                        -1, -1, 1,  1, -1, 1,  1, 1, 1,  -1, 1, 1};
constexpr LatticeVector lattice_corners[] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                             {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
constexpr std::array<int, 2> edges[] = {{0, 1}, {0, 3}, {0, 4}, {1, 2}, {1, 5}, {2, 3},
                                        {2, 6}, {3, 7}, {4, 5}, {4, 7}, {5, 6}, {6, 7}};
/// The sides x = -1, x = 1, y = -1, y = 1, z = -1, z = 1, each cyclic from its lowest corner
/// along its first free axis, then its second.
constexpr std::array<int, 4> faces[] = {{0, 3, 7, 4}, {1, 2, 6, 5}, {0, 1, 5, 4},
                                        {3, 2, 6, 7}, {0, 1, 2, 3}, {4, 5, 6, 7}};
constexpr int vtk_corners[] = {0, 1, 2, 3, 4, 5, 6, 7};
constexpr LatticeFrame grid_box_cells[] = {{{0, 0, 0}, {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}}};
/// The eight octants, x fastest, then y, then z.
constexpr LatticeFrame children[] = {
    {{0, 0, 0}, {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}}, {{1, 0, 0}, {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}},
    {{0, 1, 0}, {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}}, {{1, 1, 0}, {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}},
    {{0, 0, 1}, {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}}, {{1, 0, 1}, {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}},
    {{0, 1, 1}, {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}}, {{1, 1, 1}, {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}}};

void linear_basis(const double* xi, double* N, double* dN)
{
    box_linear_basis(3, reference_corners, xi, N, dN);
}

}  // namespace

constinit const ShapeTraits hexahedron_shape = {
    .type = ElementType::hexahedron,
    .name = "hexahedron",
    .plural = "hexahedra",
    .dim = 3,
    .corners = 8,
    .simplex = false,
    .box = true,
    .reference_corners = reference_corners,
    .lattice_corners = lattice_corners,
    .symmetric_axes = {true, true, true},
    .edges = edges,
    .faces = faces,
    .lagrange_nodes = {8, 27, 64, 125, 216, 343, 512, 729},
    .max_degree = 8,
    .linear_basis = linear_basis,
    .gmsh_types = {5, 12, 92, 93},
    .gmsh_basis_types = {5, 12, 92, 93, 94, 95, 96, 97},
    .vtk_type = VTK_HEXAHEDRON,
    .vtk_corner_order = vtk_corners,
    .vtk_lagrange_type = VTK_LAGRANGE_HEXAHEDRON,
    .make_vtk_lagrange_cell = make_uniform_order_cell<vtkLagrangeHexahedron>,
    .vtk_quadratic_type = -1,
    .vtk_quadratic_edges = {},
    .grid_box_cells = grid_box_cells,
    .children = children,
    .refinement_patterns = 1,
};

}  // namespace gpufem
