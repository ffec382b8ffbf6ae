#pragma once
// Internal to mesh/: the lattice points of order m of one element shape, each described by
// the mesh entity it lies inside (a vertex, an edge, a face, the element's own interior), and
// the uniform-refinement patterns of the shapes, as small host tables that the lattice
// kernels read. The points of order m are the nodes of the complete Lagrange element of order
// m, in Gmsh's node order, so a cell's lattice of order m is its list of degree-m nodes.
#include <array>
#include <vector>

#include "mesh/mesh.hpp"

namespace gpufem {

/// One lattice point of an element: the entity it lies inside, and where on it.
struct LatticePoint {
    int dim = 0;       ///< dimension of that entity: 0 vertex, 1 edge, 2 face, 3 volume
    int entity = 0;    ///< local vertex, edge (LatticeTable::edges) or face (::faces) of the
                       ///< element; 0 for the element's own interior when it is a volume
    int s = 0, t = 0;  ///< edge: steps from the edge's first vertex; triangular face: the
                       ///< weights of its vertices 1 and 2; quadrilateral face: steps from
                       ///< its vertex 0 toward vertex 1 and toward vertex 3
    int interior = -1; ///< running number among the points inside the element itself (dim
                       ///< equal to the element's dimension), -1 for the others
};

/// The lattice of order m of one element shape.
struct LatticeTable {
    ElementType type = ElementType::triangle;
    int order = 1;
    std::vector<LatticePoint> points;       ///< in Gmsh's node order of the order-m element
    std::vector<std::array<int, 3>> coordinates;  ///< integer lattice coordinates of each
                                            ///< point (0..m per axis; simplices: x_i >= 0,
                                            ///< sum <= m; boxes: [0, m]^d; prisms: the
                                            ///< triangle's times [0, m]; pyramids: the
                                            ///< reference pyramid scaled by m, layer z of
                                            ///< [z - m, m - z]^2 in steps of 2)
    std::vector<std::array<int, 2>> edges;  ///< every edge, as two local vertices
    std::vector<std::array<int, 4>> faces;  ///< every 2D face (the element itself when it is
                                            ///< 2D) as local vertices in cyclic order; the
                                            ///< 4th is -1 for triangles
    int interior_points = 0;                ///< points inside the element itself

    /// The local edge joining two local vertices (either order), or -1.
    int edge_between(int a, int b) const;
    /// The point with these integer coordinates (z = 0 in 2D, 0 on a line), or -1.
    int point_at(const std::array<int, 3>& at) const;
    /// Points per edge interior (m - 1) and per face interior ((m-1)(m-2)/2 triangles,
    /// (m-1)^2 quadrilaterals).
    int edge_points() const { return order - 1; }
    int face_points(bool quadrilateral) const;
};

/// The table of `type` (any shape) at order m (1..8); built from lagrange_reference_nodes once
/// per shape and order, then remembered. Prisms have triangular and quadrilateral faces.
const LatticeTable& lattice_table(ElementType type, int m);

/// The reference coordinates (Gmsh's reference shape, element_dimension values) of the
/// lattice point with integer coordinates `at` (LatticeTable::coordinates) of order m.
std::vector<double> lattice_reference_point(ElementType type, const std::array<int, 3>& at, int m);

/// The reference coordinates of the node of the degree-m element at lattice point `at`:
/// lattice_reference_point's, or for an element with GLL nodes (has_gll_nodes) the GLL points
/// along each axis.
std::vector<double> element_reference_point(ElementType type, const std::array<int, 3>& at, int m);

/// Uniform refinement of one shape: its children, each an affine image of a reference element
/// with half its size. children[p][c][q] is the parent's lattice point of order 2g
/// (its index in lattice_table(type, 2g)) that is node q of child c, in Gmsh's node order of
/// the order-g child; every child has the parent's orientation. Tetrahedra have three
/// patterns, one per diagonal of the inner octahedron (diagonals[p], two lattice points of
/// order 2g, the midpoints of opposite edges: 01-23, 02-13, 03-12); the other shapes one.
struct RefinementPattern {
    ElementType type = ElementType::triangle;
    int order = 1;  ///< g, the order of parent and children
    std::vector<std::vector<std::vector<int>>> children;  ///< [pattern][child][node]
    std::vector<ElementType> child_types;                 ///< each child's shape
    std::vector<std::array<int, 2>> diagonals;            ///< tetrahedra: one per pattern
};

/// The refinement pattern of `type` at order g (1..4), remembered: 2^dim children of the
/// parent's shape; prisms 8 (the triangle's 4 in 2 layers); pyramids 6 pyramids (4 on the
/// base's quarters, the top one, the inverted one between them) and 4 tetrahedra.
const RefinementPattern& refinement_pattern(ElementType type, int g);

}  // namespace gpufem
