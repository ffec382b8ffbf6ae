#pragma once
// What each cell shape is, as one constant table per shape (mesh/shapes/<shape>_shape.cpp),
// looked up by ElementType: its names, dimension, corners and their reference and lattice
// coordinates, edges and faces, Lagrange node counts, first-order basis, refinement children,
// how a generated grid fills a box with it, and its Gmsh and VTK type numbers and node orders.
// Code that differs by shape reads these fields instead of switching on the type.
#include <array>
#include <span>

#include "mesh/mesh.hpp"

class vtkCell;

namespace gpufem {

/// A point of a shape's integer lattice, or a step between two (x, y, z; unused axes 0).
using LatticeVector = std::array<int, 3>;

/// A smaller cell placed in a shape's lattice: the image of its own lattice origin, the images
/// of its unit steps along its reference axes (its dimension's many; the rest zero), and its
/// shape (ElementType::line: the parent's own shape).
struct LatticeFrame {
    LatticeVector corner{};
    std::array<LatticeVector, 3> edges{};
    ElementType type = ElementType::line;
};

/// The first-order Lagrange basis at one reference point xi (dim coordinates): values[corners]
/// and gradients[corners * dim], corners in Gmsh's order.
using LinearBasis = void (*)(const double* xi, double* values, double* gradients);

/// A new VTK Lagrange cell of the shape with `points` points, its order set from them (the
/// caller owns it).
using VtkLagrangeCellMaker = vtkCell* (*)(int points);

/// Everything gpufem knows about one cell shape. Orders and numbers follow Gmsh: corners in
/// Gmsh's node order on Gmsh's reference shape (simplices with a vertex at 0 and unit legs,
/// boxes [-1, 1]^d, the prism the triangle times [-1, 1], the pyramid base [-1, 1]^2 apex 1).
struct ShapeTraits {
    ElementType type = ElementType::line;
    const char* name = "";    ///< "triangle"
    const char* plural = "";  ///< "triangles"
    int dim = 0;              ///< topological dimension
    int corners = 0;          ///< nodes of the first-order shape
    bool simplex = false;     ///< triangle, tetrahedron: lattice points x_i >= 0, sum <= m
    bool box = false;         ///< line, quadrilateral, hexahedron: products of the line
    std::span<const double> reference_corners;  ///< corners * dim reference coordinates
    /// The corners at lattice order 1 (order m: times m); the lattice point at reference u is
    /// m u on a unit axis, m (u + 1) / 2 on a symmetric one.
    std::span<const LatticeVector> lattice_corners;
    std::array<bool, 3> symmetric_axes{};  ///< reference axes over [-1, 1] (lattice [0, m])
    std::span<const std::array<int, 2>> edges;  ///< every edge as two corners
    /// Every 2D face as corners in cyclic order, the 4th -1 for triangles: the sides of a 3D
    /// shape, the shape itself in 2D (a line has none).
    std::span<const std::array<int, 4>> faces;
    std::array<int, 8> lagrange_nodes{};  ///< nodes of the complete Lagrange element, orders 1..8
    int max_degree = 4;                   ///< the highest Lagrange degree gpufem takes (boxes 8)
    LinearBasis linear_basis = nullptr;   ///< the first-order basis
    std::array<int, 4> gmsh_types{};      ///< MSH types read, orders 1..4 (-1: not read)
    /// The MSH types whose Gmsh node order (and up to order 4 basis) is the shape's Lagrange
    /// element's, orders 1..8 (-1: none; the prism above order 1 has gpufem's own,
    /// mesh/lagrange_basis.cpp; the boxes from order 5 have GLL nodes in Gmsh's order).
    std::array<int, 8> gmsh_basis_types{};
    int vtk_type = 0;                       ///< VTK's first-order cell type
    std::span<const int> vtk_corner_order;  ///< VTK's point i is corner vtk_corner_order[i]
    int vtk_lagrange_type = -1;             ///< VTK's Lagrange cell type (-1: none)
    VtkLagrangeCellMaker make_vtk_lagrange_cell = nullptr;  ///< null when VTK has none
    /// Without a Lagrange cell, VTK's quadratic cell (-1: none): the corners, then the
    /// midpoints of vtk_quadratic_edges (a degree-2 cell without its face or inner nodes).
    int vtk_quadratic_type = -1;
    std::span<const std::array<int, 2>> vtk_quadratic_edges;
    /// The cells that fill one unit box of a generated grid (empty: gpufem does not generate
    /// the shape), all positively oriented.
    std::span<const LatticeFrame> grid_box_cells;
    /// Uniform refinement: the children in the parent's lattice of order 2, pattern after
    /// pattern (the tetrahedron has one per diagonal of its inner octahedron).
    std::span<const LatticeFrame> children;
    int refinement_patterns = 1;

    /// Children per refinement pattern.
    int children_per_pattern() const { return static_cast<int>(children.size()) / refinement_patterns; }
    /// The children of one refinement pattern.
    std::span<const LatticeFrame> pattern_children(int pattern) const
    {
        const auto n = static_cast<std::size_t>(children_per_pattern());
        return children.subspan(static_cast<std::size_t>(pattern) * n, n);
    }
    /// Sides of dimension dim - 1: the faces of a 3D shape, the edges of a 2D one (a line's
    /// corners).
    int side_count() const
    {
        return static_cast<int>(dim == 3 ? faces.size() : dim == 2 ? edges.size() : static_cast<std::size_t>(corners));
    }
    /// The shape of 2D face f: a triangle or a quadrilateral.
    ElementType face_type(int f) const
    {
        return faces[static_cast<std::size_t>(f)][3] < 0 ? ElementType::triangle : ElementType::quadrilateral;
    }
};

/// The table of a shape (every ElementType has one).
const ShapeTraits& cell_shape(ElementType type);

}  // namespace gpufem
