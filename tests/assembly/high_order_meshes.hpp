#pragma once
// Order-k meshes for assembly tests: single Lagrange cells under a given map, Gmsh meshes of
// the unit square / cube, and random node perturbations.
#include <array>
#include <random>
#include <string>

#include "mesh/lagrange_basis.hpp"
#include "mesh/mesh_source.hpp"

namespace gpufem::test {

/// One Lagrange cell of this type and order: its nodes are x = map(xi) for Gmsh's reference
/// nodes xi (in Gmsh's order); map takes dim reference coordinates and returns x, y, z.
template <typename Map>
Mesh lagrange_cell(ElementType type, int order, Map&& map)
{
    Mesh m;
    m.cell_type = type;
    m.degree = order;
    m.dim = element_dimension(type);
    m.nodes_per_cell = lagrange_node_count(type, order);
    const std::vector<double> xi = lagrange_reference_nodes(type, order);
    for (int i = 0; i < m.nodes_per_cell; ++i) {
        const std::array<double, 3> x = map(&xi[static_cast<std::size_t>(i) * m.dim]);
        m.coordinates.insert(m.coordinates.end(), x.begin(), x.end());
        m.cells.push_back(i);
    }
    m.cell_group = {0};
    m.source = "single test cell of order " + std::to_string(order);
    return m;
}

/// Gmsh's reference shape onto the unit cell of single_cell(): simplices unchanged, boxes
/// [-1,1]^d onto [0,1]^d.
inline std::array<double, 3> to_unit_cell(ElementType type, const double* xi)
{
    const int dim = element_dimension(type);
    const bool box = type == ElementType::quadrilateral || type == ElementType::hexahedron;
    std::array<double, 3> x = {0, 0, 0};
    for (int c = 0; c < dim; ++c) x[c] = box ? 0.5 * (xi[c] + 1.0) : xi[c];
    return x;
}

/// The unit square (2D types) or unit cube (3D types) with cells of this type and order and
/// element size h, as gpufem generates it (a structured grid; simplices split each box), with
/// the shape's boundary groups (left, right, bottom, top; front, back in 3D; boundary), refined
/// `refine` times.
inline Mesh unit_box_mesh(ElementType type, int order, double h, int refine = 0)
{
    MeshSpec spec;
    spec.kind = MeshSpec::Kind::shape;
    spec.shape = element_dimension(type) == 2 ? "unit_square" : "unit_cube";
    spec.elements = element_type_name(type);
    spec.size = h;
    spec.degree = order;
    spec.refine = refine;
    return load_mesh(spec);
}

/// Moves every node by one global multilinear map of the unit box (x + 0.3 x y + 0.1 x y z,
/// y - 0.2 x y + 0.2 y z, z + 0.25 x z): a grid's boxes become general quadrilaterals and
/// hexahedra (not parallelograms) with multilinear maps.
inline void map_multilinearly(Mesh& m)
{
    for (index_type i = 0; i < m.num_nodes(); ++i) {
        double* x = &m.coordinates[3 * static_cast<std::size_t>(i)];
        const double x0 = x[0], y0 = x[1], z0 = x[2];
        x[0] = x0 + 0.3 * x0 * y0 + 0.1 * x0 * y0 * z0;
        x[1] = y0 - 0.2 * x0 * y0 + 0.2 * y0 * z0;
        x[2] = z0 + 0.25 * x0 * z0;
    }
}

/// Moves every node by a uniform random offset in [-amplitude, amplitude] per coordinate
/// (the cells become curved; keep amplitude well below h/order to keep them valid).
inline void jitter_nodes(Mesh& m, double amplitude, unsigned seed)
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> dist(-amplitude, amplitude);
    for (index_type i = 0; i < m.num_nodes(); ++i)
        for (int d = 0; d < m.dim; ++d)
            m.coordinates[3 * static_cast<std::size_t>(i) + d] += dist(rng);
}

}  // namespace gpufem::test
