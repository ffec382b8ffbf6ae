#pragma once
// Small hand-made meshes for assembly tests.
#include <random>

#include "mesh/mesh.hpp"

namespace gpufem::test {

/// One reference cell of the given type, scaled by s (nodes in Gmsh order). Boxes span
/// [0, s]^d, simplices are the unit simplex scaled by s.
inline Mesh single_cell(ElementType type, double s = 1.0)
{
    Mesh m;
    m.cell_type = type;
    m.dim = element_dimension(type);
    m.nodes_per_cell = element_node_count(type);
    std::vector<double> ref;
    switch (type) {
    case ElementType::triangle: ref = {0, 0, 0, 1, 0, 0, 0, 1, 0}; break;
    case ElementType::quadrilateral: ref = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0}; break;
    case ElementType::tetrahedron: ref = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1}; break;
    case ElementType::hexahedron:
        ref = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1};
        break;
    default: break;
    }
    for (double& x : ref) x *= s;
    m.coordinates.assign(ref.begin(), ref.end());
    for (int i = 0; i < m.nodes_per_cell; ++i) m.cells.push_back(i);
    m.cell_group = {0};
    m.source = "single test cell";
    return m;
}

/// A structured grid of n^dim boxes on [0,1]^dim (quads or hexes), optionally split into
/// simplices (2 triangles per square, 6 tetrahedra per cube), interior nodes jittered by
/// jitter*h so that cells are not all alike.
inline Mesh grid_mesh(ElementType type, int n, double jitter = 0.0, unsigned seed = 1)
{
    Mesh m;
    m.cell_type = type;
    m.dim = element_dimension(type);
    m.nodes_per_cell = element_node_count(type);
    const int dim = m.dim, np = n + 1;
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> dist(-jitter / n, jitter / n);
    auto id = [&](int i, int j, int k) { return static_cast<index_type>(i + np * (j + np * k)); };
    for (int k = 0; k < (dim == 3 ? np : 1); ++k)
        for (int j = 0; j < np; ++j)
            for (int i = 0; i < np; ++i) {
                double x[3] = {double(i) / n, double(j) / n, dim == 3 ? double(k) / n : 0.0};
                const bool interior = i > 0 && i < n && j > 0 && j < n && (dim == 2 || (k > 0 && k < n));
                if (interior)
                    for (int d = 0; d < dim; ++d) x[d] += dist(rng);
                m.coordinates.insert(m.coordinates.end(), {x[0], x[1], x[2]});
            }
    for (int k = 0; k < (dim == 3 ? n : 1); ++k)
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < n; ++i) {
                if (dim == 2) {
                    const index_type a = id(i, j, 0), b = id(i + 1, j, 0), c = id(i + 1, j + 1, 0),
                                     d = id(i, j + 1, 0);
                    if (type == ElementType::quadrilateral) m.cells.insert(m.cells.end(), {a, b, c, d});
                    else m.cells.insert(m.cells.end(), {a, b, c, a, c, d});
                } else {
                    const index_type v[8] = {id(i, j, k),         id(i + 1, j, k),
                                             id(i + 1, j + 1, k), id(i, j + 1, k),
                                             id(i, j, k + 1),     id(i + 1, j, k + 1),
                                             id(i + 1, j + 1, k + 1), id(i, j + 1, k + 1)};
                    if (type == ElementType::hexahedron) {
                        m.cells.insert(m.cells.end(), v, v + 8);
                    } else {
                        // Kuhn split of the cube along the diagonal v0-v6.
                        const int tets[6][4] = {{0, 1, 2, 6}, {0, 2, 3, 6}, {0, 3, 7, 6},
                                                {0, 7, 4, 6}, {0, 4, 5, 6}, {0, 5, 1, 6}};
                        for (const auto& t : tets)
                            for (int q = 0; q < 4; ++q) m.cells.push_back(v[t[q]]);
                    }
                }
            }
    m.cell_group.assign(m.cells.size() / m.nodes_per_cell, 0);
    m.source = "test grid";
    return m;
}

}  // namespace gpufem::test

#include <algorithm>
#include <map>

namespace gpufem::test {

/// Adds boundary groups to a mesh from its cells: the facets that belong to one cell only,
/// sorted into "left"/"right" (x = 0/1), "bottom"/"top" (y = 0/1 in 2D, z = 0/1 in 3D),
/// "front"/"back" (y = 0/1 in 3D) and "boundary" (all). Assumes the unit square / cube.
inline void add_box_boundaries(Mesh& m)
{
    std::vector<std::vector<int>> faces;
    ElementType facet_type = ElementType::line;
    switch (m.cell_type) {
    case ElementType::triangle: faces = {{0, 1}, {1, 2}, {2, 0}}; break;
    case ElementType::quadrilateral: faces = {{0, 1}, {1, 2}, {2, 3}, {3, 0}}; break;
    case ElementType::tetrahedron:
        faces = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};
        facet_type = ElementType::triangle;
        break;
    case ElementType::hexahedron:
        faces = {{0, 3, 2, 1}, {0, 1, 5, 4}, {0, 4, 7, 3}, {1, 2, 6, 5}, {2, 3, 7, 6}, {4, 5, 6, 7}};
        facet_type = ElementType::quadrilateral;
        break;
    default: return;
    }
    std::map<std::vector<index_type>, std::pair<int, std::vector<index_type>>> count;
    const int npe = m.nodes_per_cell;
    for (index_type e = 0; e < m.num_cells(); ++e)
        for (const auto& f : faces) {
            std::vector<index_type> nodes;
            for (int i : f) nodes.push_back(m.cells[e * npe + i]);
            auto key = nodes;
            std::sort(key.begin(), key.end());
            auto& entry = count[key];
            entry.first++;
            entry.second = nodes;
        }
    const char* names2[4] = {"left", "right", "bottom", "top"};
    const char* names3[6] = {"left", "right", "front", "back", "bottom", "top"};
    const int sides = m.dim == 2 ? 4 : 6;
    std::vector<BoundaryFacets> groups(sides + 1);
    for (int s = 0; s <= sides; ++s) {
        groups[s].group = {s == sides ? "boundary" : (m.dim == 2 ? names2[s] : names3[s]), m.dim - 1, s + 1};
        groups[s].type = facet_type;
        groups[s].nodes_per_facet = element_node_count(facet_type);
    }
    for (const auto& [key, entry] : count) {
        if (entry.first != 1) continue;
        const auto& nodes = entry.second;
        groups[sides].connectivity.insert(groups[sides].connectivity.end(), nodes.begin(), nodes.end());
        for (int axis = 0; axis < m.dim; ++axis)
            for (int side = 0; side < 2; ++side) {
                bool on = true;
                for (index_type n : nodes)
                    on = on && std::abs(m.coordinates[3 * n + axis] - side) < 1e-12;
                if (on) {
                    auto& g = groups[2 * axis + side].connectivity;
                    g.insert(g.end(), nodes.begin(), nodes.end());
                }
            }
    }
    m.boundaries = groups;
}

}  // namespace gpufem::test
