#pragma once
// Checks shared by the high-order mesh tests: node placement against the first-order map,
// facets inside cells, and the node count of a complete Lagrange mesh from its entity counts.
#include <algorithm>
#include <span>
#include <vector>

#include <gtest/gtest.h>

#include "mesh/lagrange_basis.hpp"
#include "tests/mesh/mesh_test_support.hpp"

namespace gpufem::test {

/// Expects every node of each element (cells, or facets of `type`) to lie where the
/// first-order map of the element's vertices puts that node's Gmsh reference coordinates:
/// true of straight-sided meshes and checks that the nodes follow lagrange_reference_nodes.
inline void expect_nodes_at_reference_positions(const Mesh& mesh, ElementType type, int order,
                                         std::span<const index_type> connectivity)
{
    const int n = lagrange_node_count(type, order), vertices = element_node_count(type);
    std::vector<double> linear, gradients;
    lagrange_basis(type, 1, lagrange_reference_nodes(type, order), linear, gradients);
    for (std::size_t e = 0; e < connectivity.size() / n; ++e) {
        const index_type* nodes = &connectivity[e * n];
        for (int i = 0; i < n; ++i) {
            test::Vec3 x{};
            for (int v = 0; v < vertices; ++v)
                for (int c = 0; c < 3; ++c) x[c] += linear[i * vertices + v] * node(mesh, nodes[v])[c];
            for (int c = 0; c < 3; ++c)
                ASSERT_NEAR(node(mesh, nodes[i])[c], x[c], 1e-11)
                    << element_type_name(type) << " " << e << ", node " << i;
        }
    }
}

/// Expects every facet's nodes to be nodes of one cell.
inline void expect_facets_in_cells(const Mesh& mesh, const BoundaryFacets& facets)
{
    std::vector<std::vector<index_type>> cells_of(mesh.num_nodes());
    for (index_type c = 0; c < mesh.num_cells(); ++c)
        for (int i = 0; i < mesh.nodes_per_cell; ++i)
            cells_of[mesh.cells[c * mesh.nodes_per_cell + i]].push_back(c);
    for (std::size_t f = 0; f < facets.size(); ++f) {
        const index_type* nodes = &facets.connectivity[f * facets.nodes_per_facet];
        const auto holds_facet = [&](index_type c) {
            const auto first = mesh.cells.begin() + c * mesh.nodes_per_cell;
            return std::all_of(nodes, nodes + facets.nodes_per_facet, [&](index_type n) {
                return std::find(first, first + mesh.nodes_per_cell, n) != first + mesh.nodes_per_cell;
            });
        };
        const auto& candidates = cells_of[nodes[0]];
        ASSERT_TRUE(std::any_of(candidates.begin(), candidates.end(), holds_facet))
            << facets.group.name << " facet " << f;
    }
}

/// Nodes of a complete Lagrange mesh of order k built on a first-order mesh of V vertices,
/// E edges, F faces and C cells (3D): each entity adds its interior nodes.
inline index_type lagrange_nodes(ElementType cell, int k, index_type V, index_type E, index_type F,
                          index_type C)
{
    const bool box = cell == ElementType::quadrilateral || cell == ElementType::hexahedron;
    const index_type face = box ? (k - 1) * (k - 1) : (k - 1) * (k - 2) / 2;
    const index_type volume = box ? (k - 1) * (k - 1) * (k - 1) : (k - 1) * (k - 2) * (k - 3) / 6;
    return V + (k - 1) * E + face * F + volume * C;
}

}  // namespace gpufem::test
