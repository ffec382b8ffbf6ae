// The prism: the unit triangle times [-1, 1], the bottom triangle's corners 0 1 2 (w = -1),
// the top's 3 4 5 above them. Gmsh has its basis at order 1 only: gpufem's own above
// (mesh/lagrange_basis.cpp).
#include <vtkCellType.h>
#include <vtkLagrangeWedge.h>

#include "mesh/shapes/shape_tables.hpp"

namespace gpufem {
namespace {

constexpr double reference_corners[] = {0, 0, -1, 1, 0, -1, 0, 1, -1, 0, 0, 1, 1, 0, 1, 0, 1, 1};
constexpr LatticeVector lattice_corners[] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0},
                                             {0, 0, 1}, {1, 0, 1}, {0, 1, 1}};
constexpr std::array<int, 2> edges[] = {{0, 1}, {0, 2}, {1, 2}, {3, 4}, {3, 5},
                                        {4, 5}, {0, 3}, {1, 4}, {2, 5}};
constexpr std::array<int, 4> faces[] = {{0, 1, 2, -1}, {3, 4, 5, -1}, {0, 1, 4, 3}, {1, 2, 5, 4}, {2, 0, 3, 5}};
/// VTK lists the bottom triangle the other way round (its normal away from the top).
constexpr int vtk_corners[] = {0, 2, 1, 3, 5, 4};
/// The triangle's 4 children in each of the 2 layers.
constexpr LatticeFrame children[] = {
    {{0, 0, 0}, {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}}, {{1, 0, 0}, {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}},
    {{0, 1, 0}, {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}}, {{1, 1, 0}, {{{-1, 0, 0}, {0, -1, 0}, {0, 0, 1}}}},
    {{0, 0, 1}, {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}}, {{1, 0, 1}, {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}},
    {{0, 1, 1}, {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}}, {{1, 1, 1}, {{{-1, 0, 0}, {0, -1, 0}, {0, 0, 1}}}}};

/// The triangle's basis in (u, v) times the line's in w (bottom w = -1, top w = 1).
void linear_basis(const double* xi, double* N, double* dN)
{
    const double u = xi[0], v = xi[1], w = xi[2];
    const double t[3] = {1 - u - v, u, v};
    const double dt[3][2] = {{-1, -1}, {1, 0}, {0, 1}};
    for (int level = 0; level < 2; ++level) {
        const double s = level == 0 ? 0.5 * (1 - w) : 0.5 * (1 + w);
        const double ds = level == 0 ? -0.5 : 0.5;
        for (int a = 0; a < 3; ++a) {
            const int i = 3 * level + a;
            N[i] = t[a] * s;
            dN[3 * i + 0] = dt[a][0] * s;
            dN[3 * i + 1] = dt[a][1] * s;
            dN[3 * i + 2] = t[a] * ds;
        }
    }
}

}  // namespace

constinit const ShapeTraits prism_shape = {
    .type = ElementType::prism,
    .name = "prism",
    .plural = "prisms",
    .dim = 3,
    .corners = 6,
    .simplex = false,
    .box = false,
    .reference_corners = reference_corners,
    .lattice_corners = lattice_corners,
    .symmetric_axes = {false, false, true},
    .edges = edges,
    .faces = faces,
    .lagrange_nodes = {6, 18, 40, 75, 126, 196, 288, 405},
    .max_degree = 4,
    .linear_basis = linear_basis,
    .gmsh_types = {6, -1, -1, -1},
    .gmsh_basis_types = {6, -1, -1, -1, -1, -1, -1, -1},
    .vtk_type = VTK_WEDGE,
    .vtk_corner_order = vtk_corners,
    .vtk_lagrange_type = VTK_LAGRANGE_WEDGE,
    .make_vtk_lagrange_cell = make_uniform_order_cell<vtkLagrangeWedge>,
    .vtk_quadratic_type = -1,
    .vtk_quadratic_edges = {},
    .grid_box_cells = {},
    .children = children,
    .refinement_patterns = 1,
};

}  // namespace gpufem
