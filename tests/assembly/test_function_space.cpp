// Spaces apart from the mesh: the layout of owned and ghost unknowns, the mesh's own spaces,
// and the lower-degree Lagrange spaces p-multigrid coarsens through.
#include <algorithm>
#include <array>
#include <set>
#include <stdexcept>

#include <gtest/gtest.h>

#include "assembly/function_space.hpp"
#include "assembly/lagrange_space.hpp"
#include "assembly/part_numbering.hpp"
#include "high_order_meshes.hpp"

namespace gpufem {
namespace {

using test::unit_box_mesh;

ExecPtr cpu() { return Executor::create_cpu(); }

TEST(FunctionSpace, LayoutNumbersOwnedUnknownsFirstThenGhostsByOwner)
{
    const DofLayout one = owned_layout(17);
    EXPECT_EQ(one.size(), 17);
    EXPECT_EQ(one.ghosts(), 0);
    EXPECT_FALSE(one.has_ghosts());

    DofLayout shared;
    shared.owned = 10;
    shared.ghost_blocks = {{1, 3}, {3, 2}};
    EXPECT_TRUE(shared.has_ghosts());
    EXPECT_EQ(shared.ghosts(), 5);
    EXPECT_EQ(shared.size(), 15);
    EXPECT_EQ(shared.ghost_begin(0), 10);
    EXPECT_EQ(shared.ghost_begin(1), 13);
    EXPECT_EQ(shared.ghost_begin(2), 15);
}

TEST(FunctionSpace, TheMeshsOwnSpacesCountItsNodesAndCells)
{
    const Mesh mesh = unit_box_mesh(ElementType::triangle, 2, 0.25);
    const FunctionSpace nodes = isoparametric_space(mesh);
    EXPECT_EQ(nodes.location, UnknownLocation::nodes);
    EXPECT_EQ(nodes.mesh, &mesh);
    EXPECT_EQ(nodes.degree, 2);
    EXPECT_EQ(nodes.size(), mesh.num_nodes());
    EXPECT_EQ(nodes.describe(), "degree-2 Lagrange space on " + std::to_string(mesh.num_nodes()) + " nodes");
    const FunctionSpace cells = cell_space(mesh);
    EXPECT_EQ(cells.location, UnknownLocation::cells);
    EXPECT_EQ(cells.size(), mesh.num_cells());
    EXPECT_EQ(row_space(42).size(), 42);
    EXPECT_EQ(row_space(42).mesh, nullptr);
    EXPECT_STREQ(unknown_location_name(UnknownLocation::cells), "cells");
}

/// The degree-c space's unknowns are the mesh nodes at the degree-c nodes of some cell, in
/// node order; its dof map and numbering agree; its embedding interpolates exactly.
void check_lower_degree_space(const Mesh& mesh, int c)
{
    SCOPED_TRACE(std::string(element_type_name(mesh.cell_type)) + " degree " + std::to_string(mesh.degree) +
                 " -> " + std::to_string(c));
    const LagrangeSpace space = lagrange_space(mesh, c, cpu());
    const std::vector<index_type> dof_nodes = space.dof_nodes.to_host(), node_dofs = space.node_dofs.to_host();
    const std::vector<index_type> cell_dofs = space.cell_dofs.to_host();
    const std::vector<int>& fine_local = space.embedding.fine_local;
    const int npc = mesh.nodes_per_cell, ncl = space.dofs_per_cell;
    ASSERT_EQ(static_cast<int>(fine_local.size()), ncl);
    EXPECT_EQ(space.degree(), c);
    EXPECT_EQ(space.size(), static_cast<index_type>(dof_nodes.size()));
    EXPECT_FALSE(space.space.layout.has_ghosts());
    const std::vector<int>& twin = space.embedding.fine_twin;
    ASSERT_TRUE(twin.empty() || static_cast<int>(twin.size()) == ncl);
    // An unknown between two nodes is named by the one of smaller (x, y, z).
    const auto naming_node = [&](index_type cell, int j) {
        const index_type node = mesh.cells[cell * npc + fine_local[j]];
        if (twin.empty() || twin[j] < 0) return node;
        const index_type other = mesh.cells[cell * npc + twin[j]];
        const auto at = [&](index_type n) {
            return std::array<double, 3>{mesh.coordinates[3 * n], mesh.coordinates[3 * n + 1], mesh.coordinates[3 * n + 2]};
        };
        return at(other) < at(node) ? other : node;
    };
    std::set<index_type> expected;
    for (index_type cell = 0; cell < mesh.num_cells(); ++cell)
        for (int j = 0; j < ncl; ++j) {
            const index_type node = naming_node(cell, j);
            expected.insert(node);
            ASSERT_EQ(cell_dofs[cell * ncl + j], node_dofs[node]) << "cell " << cell << " local " << j;
        }
    ASSERT_EQ(std::vector<index_type>(expected.begin(), expected.end()), dof_nodes);
    for (index_type node = 0; node < mesh.num_nodes(); ++node)
        EXPECT_EQ(node_dofs[node] >= 0, expected.count(node) == 1) << "node " << node;
    // The embedding: rows sum to one; a fine node that is coarse node m takes exactly m.
    for (int j = 0; j < npc; ++j) {
        double sum = 0;
        for (int m = 0; m < ncl; ++m) sum += space.embedding.weights[j * ncl + m];
        EXPECT_NEAR(sum, 1.0, 1e-10) << "row " << j;
    }
    for (int m = 0; m < ncl; ++m)
        for (int n = 0; n < ncl && (twin.empty() || twin[m] < 0); ++n)
            EXPECT_NEAR(space.embedding.weights[fine_local[m] * ncl + n], m == n ? 1.0 : 0.0, 1e-10);
}

TEST(FunctionSpace, LowerDegreeSpacesNumberTheirNodesAndCarryTheirDofMap)
{
    for (const ElementType type : {ElementType::triangle, ElementType::quadrilateral, ElementType::tetrahedron,
                                   ElementType::hexahedron}) {
        const bool cube = element_dimension(type) == 3;
        const Mesh quartic = unit_box_mesh(type, 4, cube ? 0.5 : 0.25);
        check_lower_degree_space(quartic, 2);
        check_lower_degree_space(quartic, 1);
        check_lower_degree_space(quartic, 4);
        const Mesh quadratic = unit_box_mesh(type, 2, cube ? 0.5 : 0.25);
        check_lower_degree_space(quadratic, 1);
        EXPECT_THROW(lagrange_space(quadratic, 3, cpu()), std::invalid_argument);
        // Degree 2 under 3: on simplices each edge midpoint is named by one of the two edge
        // nodes beside it; on boxes a tie (odd degrees only under an odd one).
        const Mesh cubic = unit_box_mesh(type, 3, cube ? 0.5 : 0.25);
        check_lower_degree_space(cubic, 1);
        EXPECT_THROW(lagrange_space(cubic, 4, cpu()), std::invalid_argument);
        if (type == ElementType::quadrilateral || type == ElementType::hexahedron) {
            EXPECT_THROW(lagrange_space(cubic, 2, cpu()), std::invalid_argument);
            continue;
        }
        check_lower_degree_space(cubic, 2);
        EXPECT_FALSE(lagrange_space(cubic, 2, cpu()).embedding.fine_twin.empty());
    }
    // Every edge carries one degree-2 unknown, every vertex one.
    const Mesh cubic = unit_box_mesh(ElementType::tetrahedron, 3, 0.5);
    std::set<std::pair<index_type, index_type>> edges;
    std::set<index_type> vertices;
    const int npc = cubic.nodes_per_cell;
    for (index_type cell = 0; cell < cubic.num_cells(); ++cell)
        for (int a = 0; a < 4; ++a) {
            vertices.insert(cubic.cells[cell * npc + a]);
            for (int b = a + 1; b < 4; ++b)
                edges.insert(std::minmax(cubic.cells[cell * npc + a], cubic.cells[cell * npc + b]));
        }
    EXPECT_EQ(lagrange_space(cubic, 2, cpu()).size(), static_cast<index_type>(edges.size() + vertices.size()));
}

/// The nodes part p holds: those of its cells and of the cells around the nodes it owns.
std::set<index_type> nodes_of_part(const Mesh& mesh, const CellPartition& partition, const std::vector<int>& owners,
                                   int p)
{
    const int npc = mesh.nodes_per_cell;
    std::set<index_type> nodes;
    for (index_type c = 0; c < mesh.num_cells(); ++c) {
        bool needed = partition.part[c] == p;
        for (int j = 0; j < npc; ++j) needed = needed || owners[mesh.cells[c * npc + j]] == p;
        if (needed)
            for (int j = 0; j < npc; ++j) nodes.insert(mesh.cells[c * npc + j]);
    }
    return nodes;
}

/// Ghost values after the halo plans' messages, on the host: each owner's sent values land
/// in the receiving part's ghost block of that owner.
std::vector<std::vector<double>> exchanged(const std::vector<PartNumbering>& numbering,
                                           const std::vector<HaloPlan>& plans)
{
    std::vector<std::vector<double>> values;
    for (const PartNumbering& n : numbering) {
        std::vector<double>& v = values.emplace_back(n.global.size(), -1.0);
        for (index_type l = 0; l < n.layout.owned; ++l) v[l] = 0.5 * n.global[l] + 3;
    }
    for (std::size_t q = 0; q < plans.size(); ++q)
        for (const HaloPlan::Send& send : plans[q].sends) {
            const DofLayout& to = numbering[send.peer].layout;
            std::size_t block = 0;
            while (to.ghost_blocks[block].owner != static_cast<int>(q)) ++block;
            EXPECT_EQ(send.local.size(), static_cast<std::size_t>(to.ghost_blocks[block].count));
            for (std::size_t k = 0; k < send.local.size(); ++k)
                values[send.peer][to.ghost_begin(block) + k] = values[q][send.local[k]];
        }
    return values;
}

TEST(PartNumbering, OwnedFirstThenGhostsByOwnerEveryNodeOwnedOnceAndTheHaloFillsTheGhosts)
{
    for (const ElementType type : {ElementType::tetrahedron, ElementType::hexahedron, ElementType::triangle}) {
        const Mesh mesh = unit_box_mesh(type, 2, element_dimension(type) == 3 ? 0.25 : 0.1);
        for (int parts = 1; parts <= 4; ++parts) {
            SCOPED_TRACE(std::string(element_type_name(type)) + ", " + std::to_string(parts) + " parts");
            const CellPartition partition = partition_cells(mesh, parts);
            const std::vector<int> owners = node_owners(mesh, partition);
            std::vector<PartNumbering> numbering;
            std::vector<int> owned_times(mesh.num_nodes(), 0);
            bool any_ghosts = false;
            for (int p = 0; p < parts; ++p) {
                const PartNumbering& n = numbering.emplace_back(part_node_numbering(mesh, partition, owners, p));
                const std::set<index_type> nodes = nodes_of_part(mesh, partition, owners, p);
                ASSERT_EQ(std::set<index_type>(n.global.begin(), n.global.end()), nodes);
                ASSERT_EQ(n.layout.size(), static_cast<index_type>(n.global.size()));
                EXPECT_TRUE(std::is_sorted(n.global.begin(), n.global.begin() + n.layout.owned));
                for (index_type l = 0; l < n.layout.owned; ++l) {
                    EXPECT_EQ(owners[n.global[l]], p);
                    ++owned_times[n.global[l]];
                }
                for (std::size_t b = 0; b < n.layout.ghost_blocks.size(); ++b) {
                    const GhostBlock& block = n.layout.ghost_blocks[b];
                    if (b > 0) EXPECT_LT(n.layout.ghost_blocks[b - 1].owner, block.owner);
                    EXPECT_NE(block.owner, p);
                    const auto first = n.global.begin() + n.layout.ghost_begin(b);
                    EXPECT_TRUE(std::is_sorted(first, first + block.count));
                    for (auto g = first; g != first + block.count; ++g) EXPECT_EQ(owners[*g], block.owner);
                }
                any_ghosts = any_ghosts || n.layout.has_ghosts();
            }
            EXPECT_EQ(any_ghosts, parts > 1);
            for (index_type node = 0; node < mesh.num_nodes(); ++node)
                ASSERT_EQ(owned_times[node], 1) << "node " << node << " owned " << owned_times[node] << " times";
            const std::vector<std::vector<double>> values = exchanged(numbering, halo_plans(numbering));
            for (int p = 0; p < parts; ++p)
                for (std::size_t l = 0; l < values[p].size(); ++l)
                    ASSERT_EQ(values[p][l], 0.5 * numbering[p].global[l] + 3) << "part " << p << " unknown " << l;
        }
    }
}

}  // namespace
}  // namespace gpufem
