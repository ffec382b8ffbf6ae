// The pyramid: the square base [-1, 1]^2 at w = 0 (corners 0 1 2 3 counter-clockwise from
// (-1, -1)) and the apex 4 at w = 1. VTK has no Lagrange pyramid: gpufem takes degrees 1
// and 2 and writes degree 2 as VTK's quadratic pyramid.
#include <vtkCellType.h>

#include "mesh/shapes/shape_tables.hpp"

namespace gpufem {
namespace {

constexpr double reference_corners[] = {-1, -1, 0, 1, -1, 0, 1, 1, 0, -1, 1, 0, 0, 0, 1};
/// The reference pyramid itself (scaled by m at order m): the base [-m, m]^2, the apex m.
constexpr LatticeVector lattice_corners[] = {{-1, -1, 0}, {1, -1, 0}, {1, 1, 0}, {-1, 1, 0}, {0, 0, 1}};
constexpr std::array<int, 2> edges[] = {{0, 1}, {1, 2}, {2, 3}, {0, 3}, {0, 4}, {1, 4}, {2, 4}, {3, 4}};
constexpr std::array<int, 4> faces[] = {{0, 1, 2, 3}, {0, 1, 4, -1}, {1, 2, 4, -1}, {2, 3, 4, -1}, {3, 0, 4, -1}};
constexpr int vtk_corners[] = {0, 1, 2, 3, 4};
/// VTK_QUADRATIC_PYRAMID's edges, in the order of their midpoints among its 13 points.
constexpr std::array<int, 2> vtk_quadratic_edges[] = {{0, 1}, {1, 2}, {2, 3}, {3, 0},
                                                      {0, 4}, {1, 4}, {2, 4}, {3, 4}};
/// In the order-2 lattice (base [-2, 2]^2, apex (0, 0, 2)): 4 pyramids on the base's quarters
/// with their apexes halfway up the parent's edges to the apex, the top pyramid, the inverted
/// one between them (apex at the base's centre), and 4 tetrahedra, one under each base edge.
constexpr LatticeFrame children[] = {
    {{-1, -1, 0}, {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}},
    {{1, -1, 0}, {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}},
    {{1, 1, 0}, {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}},
    {{-1, 1, 0}, {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}},
    {{0, 0, 1}, {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}},
    {{0, 0, 1}, {{{1, 0, 0}, {0, -1, 0}, {0, 0, -1}}}},
    {{0, 0, 0}, {{{0, -2, 0}, {1, -1, 1}, {-1, -1, 1}}}, ElementType::tetrahedron},
    {{0, 0, 0}, {{{2, 0, 0}, {1, 1, 1}, {1, -1, 1}}}, ElementType::tetrahedron},
    {{0, 0, 0}, {{{0, 2, 0}, {-1, 1, 1}, {1, 1, 1}}}, ElementType::tetrahedron},
    {{0, 0, 0}, {{{-2, 0, 0}, {-1, -1, 1}, {-1, 1, 1}}}, ElementType::tetrahedron}};

/// The rational first-order basis, conforming with P1 tetrahedra on the triangular faces and
/// Q1 hexahedra on the base: the apex's is w; base corner (s, t) in {-1, 1}^2:
/// (1 - w + s u)(1 - w + t v) / (4 (1 - w)), bilinear on the base. Singular only at the apex,
/// where no quadrature point lies: there the base corners' values are their limit 0 and their
/// gradients the limit along the axis, (s, t, -1) / 4.
void linear_basis(const double* xi, double* N, double* dN)
{
    const double u = xi[0], v = xi[1], w = xi[2];
    const double r = 1 - w;
    const double corner[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
    for (int i = 0; i < 4; ++i) {
        const double s = corner[i][0], t = corner[i][1];
        if (r <= 0) {
            N[i] = 0;
            dN[3 * i + 0] = 0.25 * s, dN[3 * i + 1] = 0.25 * t, dN[3 * i + 2] = -0.25;
            continue;
        }
        const double a = r + s * u, b = r + t * v;
        N[i] = a * b / (4 * r);
        dN[3 * i + 0] = s * b / (4 * r);
        dN[3 * i + 1] = t * a / (4 * r);
        dN[3 * i + 2] = (-(a + b) * r + a * b) / (4 * r * r);
    }
    N[4] = w;
    dN[12] = 0, dN[13] = 0, dN[14] = 1;
}

}  // namespace

constinit const ShapeTraits pyramid_shape = {
    .type = ElementType::pyramid,
    .name = "pyramid",
    .plural = "pyramids",
    .dim = 3,
    .corners = 5,
    .simplex = false,
    .box = false,
    .reference_corners = reference_corners,
    .lattice_corners = lattice_corners,
    .symmetric_axes = {false, false, false},
    .edges = edges,
    .faces = faces,
    .lagrange_nodes = {5, 14, 30, 55, 91, 140, 204, 285},
    .max_degree = 2,
    .linear_basis = linear_basis,
    .gmsh_types = {7, -1, -1, -1},
    .gmsh_basis_types = {7, 14, 118, 119, -1, -1, -1, -1},
    .vtk_type = VTK_PYRAMID,
    .vtk_corner_order = vtk_corners,
    .vtk_lagrange_type = -1,
    .make_vtk_lagrange_cell = nullptr,
    .vtk_quadratic_type = VTK_QUADRATIC_PYRAMID,
    .vtk_quadratic_edges = vtk_quadratic_edges,
    .grid_box_cells = {},
    .children = children,
    .refinement_patterns = 1,
};

}  // namespace gpufem
