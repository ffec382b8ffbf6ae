// A part of a generated box shape made by its rank alone equals the part cut from the whole
// mesh under the same partition: cells, nodes and their numbering, ghosts by owner,
// coordinates, boundary facets and halo plans, for every generated cell type, orders 1 to 3
// and part counts that are not powers of two.
#include <gtest/gtest.h>

#include "assembly/grid_part.hpp"
#include "mesh/gmsh_session.hpp"
#include "mesh/mesh_source.hpp"
#include "mesh/mesh_test_support.hpp"

namespace gpufem {
namespace {

/// Part p made alone against the part cut from whole.
void expect_same_part(const GridPart& made, const PartMesh& cut, const PartNumbering& numbering)
{
    EXPECT_EQ(made.numbering.global, numbering.global);
    EXPECT_EQ(made.numbering.layout.owned, numbering.layout.owned);
    ASSERT_EQ(made.numbering.layout.ghost_blocks.size(), numbering.layout.ghost_blocks.size());
    for (std::size_t b = 0; b < numbering.layout.ghost_blocks.size(); ++b) {
        EXPECT_EQ(made.numbering.layout.ghost_blocks[b].owner, numbering.layout.ghost_blocks[b].owner);
        EXPECT_EQ(made.numbering.layout.ghost_blocks[b].count, numbering.layout.ghost_blocks[b].count);
    }
    EXPECT_EQ(made.part.own_cells, cut.own_cells);
    EXPECT_EQ(made.part.global_cells, cut.global_cells);
    const Mesh &a = made.part.mesh, &b = cut.mesh;
    EXPECT_EQ(a.cells, b.cells);
    EXPECT_EQ(a.coordinates, b.coordinates);
    EXPECT_EQ(a.cell_group, b.cell_group);
    EXPECT_EQ(a.nodes_per_cell, b.nodes_per_cell);
    EXPECT_EQ(a.degree, b.degree);
    EXPECT_EQ(a.cell_type, b.cell_type);
    ASSERT_EQ(a.boundaries.size(), b.boundaries.size());
    for (std::size_t g = 0; g < b.boundaries.size(); ++g) {
        EXPECT_EQ(a.boundaries[g].group.name, b.boundaries[g].group.name);
        EXPECT_EQ(a.boundaries[g].type, b.boundaries[g].type);
        EXPECT_EQ(a.boundaries[g].connectivity, b.boundaries[g].connectivity) << b.boundaries[g].group.name;
    }
}

TEST(GridPart, APartMadeAloneEqualsThePartCutFromTheWholeMesh)
{
    for (const auto& [shape, elements] : {std::pair{"unit_cube", "tetrahedron"}, std::pair{"unit_cube", "hexahedron"},
                                          std::pair{"unit_square", "triangle"}, std::pair{"unit_square", "quadrilateral"}})
        for (int degree = 1; degree <= 3; ++degree) {
            const bool cube = std::string(shape) == "unit_cube";
            const MeshSpec spec = test::shape_spec(shape, elements, cube ? 1.0 / 5 : 1.0 / 9, degree);
            const ShapeGrid grid = *box_shape_grid(spec);
            const Mesh whole = load_mesh(spec);
            ASSERT_EQ(grid.num_cells(), whole.num_cells());
            ASSERT_EQ(grid.grid.num_points(), whole.num_nodes());
            for (int parts : {1, 2, 3, 5, 6, 8}) {
                SCOPED_TRACE(std::string(elements) + " order " + std::to_string(degree) + ", " + std::to_string(parts) +
                             " parts");
                const GridBlocks blocks = grid_blocks(grid.grid, parts);
                const CellPartition partition = block_partition(grid, blocks);
                const std::vector<int> owners = node_owners(whole, partition);
                std::vector<PartNumbering> numbering;
                std::vector<PartNumbering> made_numbering;
                for (int p = 0; p < parts; ++p) {
                    numbering.push_back(part_node_numbering(whole, partition, owners, p));
                    const GridPart made = grid_part(grid, blocks, p);
                    made_numbering.push_back(made.numbering);
                    expect_same_part(made, part_mesh(whole, partition, owners, numbering.back()), numbering.back());
                }
                // Every node owned once; the halo plans of both agree.
                long long owned = 0;
                for (const PartNumbering& n : made_numbering) owned += n.layout.owned;
                EXPECT_EQ(owned, whole.num_nodes());
                const std::vector<HaloPlan> expected = halo_plans(numbering), made = halo_plans(made_numbering);
                for (int p = 0; p < parts; ++p) {
                    ASSERT_EQ(made[p].sends.size(), expected[p].sends.size());
                    for (std::size_t s = 0; s < expected[p].sends.size(); ++s) {
                        EXPECT_EQ(made[p].sends[s].peer, expected[p].sends[s].peer);
                        EXPECT_EQ(made[p].sends[s].local, expected[p].sends[s].local);
                    }
                }
            }
        }
}

TEST(GridPart, OnlyBoxShapesAreMadePartByPart)
{
    EXPECT_TRUE(box_shape_grid(test::shape_spec("unit_cube", "", 0.25, 1)).has_value());
    EXPECT_FALSE(box_shape_grid(test::shape_spec("l_shape", "", 0.25, 1)).has_value());
    EXPECT_FALSE(box_shape_grid(test::shape_spec("disk", "", 0.25, 1)).has_value());
    MeshSpec file;
    file.kind = MeshSpec::Kind::file;
    file.path = "part.msh";
    EXPECT_FALSE(box_shape_grid(file).has_value());
    // 2^31 nodes and more: named, whatever the memory of one process.
    try {
        box_shape_grid(test::shape_spec("unit_cube", "hexahedron", 1.0 / 1300, 1));
        FAIL() << "no error for 2.2e9 nodes";
    } catch (const MeshSourceError& e) {
        EXPECT_NE(std::string(e.what()).find("32-bit"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace gpufem
