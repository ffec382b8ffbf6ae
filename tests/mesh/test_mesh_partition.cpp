// The partition of a mesh's cells among ranks: every cell in one part, balanced parts, the
// edge cut counted from the face adjacency, the same partition every time.
#include <gtest/gtest.h>

#include "mesh/cell_faces.hpp"
#include "mesh/grid_blocks.hpp"
#include "mesh/mesh_partition.hpp"
#include "mesh_test_support.hpp"

namespace gpufem {
namespace {

/// The faces between cells of different parts, counted from the face adjacency.
long long faces_between_parts(const Mesh& mesh, const std::vector<int>& part)
{
    const std::vector<int> no_groups;
    const CellFaces faces = cell_faces(mesh, Executor::create_cpu(), &no_groups);
    const std::vector<index_type> across = faces.neighbour.to_host();
    long long cut = 0;
    for (std::size_t slot = 0; slot < across.size(); ++slot) {
        const index_type c = static_cast<index_type>(slot / faces.faces_per_cell), other = across[slot];
        if (other > c && part[c] != part[other]) ++cut;
    }
    return cut;
}

/// Every cell in one part, balanced compact parts, the same every time: by METIS's k-way
/// partition (the cut counted) for a mesh of no grid, by coordinate bisection for a generated
/// box grid (whose cut is not counted).
void check_partitions(const Mesh& mesh)
{
        const bool grid = !mesh.generated_grid.shape.empty();
        for (int parts = 1; parts <= 4; ++parts) {
            SCOPED_TRACE(std::to_string(parts) + " parts" + (grid ? ", a generated grid" : ""));
            const CellPartition p = partition_cells(mesh, parts);
            ASSERT_EQ(p.part.size(), static_cast<std::size_t>(mesh.num_cells()));
            std::vector<index_type> count(parts, 0);
            for (int owner : p.part) {
                ASSERT_GE(owner, 0);
                ASSERT_LT(owner, parts);
                ++count[owner];
            }
            EXPECT_EQ(count, p.cells_per_part);
            for (index_type n : count) EXPECT_GT(n, 0);
            EXPECT_LT(p.imbalance(), grid ? 1.01 : 1.1);
            const long long cut = faces_between_parts(mesh, p.part);
            EXPECT_EQ(p.edge_cut, grid && parts > 1 ? -1 : cut);
            if (parts > 1) EXPECT_GT(cut, 0);
            // A compact partition: the cut is a small share of the faces (a random one cuts most).
            EXPECT_LT(cut, mesh.num_cells() / (mesh.dim == 3 ? 2 : 4));
            EXPECT_EQ(partition_cells(mesh, parts).part, p.part) << "not deterministic";
        }
}

TEST(MeshPartition, EveryCellInOneBalancedPartAndTheCutCounted)
{
    for (const auto& [shape, elements] : {std::pair{"unit_cube", "tetrahedron"}, std::pair{"unit_cube", "hexahedron"},
                                          std::pair{"unit_square", "triangle"}, std::pair{"unit_square", "quadrilateral"}}) {
        SCOPED_TRACE(elements);
        Mesh mesh = test::load_shape_mesh(shape, elements, std::string(shape) == "unit_cube" ? 0.125 : 0.05, 2);
        check_partitions(mesh);
        mesh.generated_grid = {};  // as a mesh read from a file: METIS
        check_partitions(mesh);
    }
}

TEST(MeshPartition, AMeshGpufemRefinedIsCutAlongItsCoarseCells)
{
    // METIS partitions the mesh the refinement started from; every refined cell goes with its
    // ancestor (the children of coarse cell k are cells k d .. k d + d - 1, d = 8 x 8 after two
    // refinements of tetrahedra), the parts balanced and the cut counted exactly.
    const Mesh mesh = test::load_path_mesh(MeshSpec::Kind::geo, GPUFEM_SOURCE_DIR "/cases/meshes/cube.geo", 1, 2);
    ASSERT_TRUE(mesh.refined_from);
    check_partitions(mesh);
    const CellPartition p = partition_cells(mesh, 3);
    EXPECT_NE(p.method.find("cells gpufem refined"), std::string::npos) << p.method;
    constexpr std::size_t descendants = 64;
    for (std::size_t c = 0; c < p.part.size(); ++c) ASSERT_EQ(p.part[c], p.part[c - c % descendants]) << "cell " << c;
}

TEST(MeshPartition, RefusesImpossiblePartCounts)
{
    const Mesh mesh = test::load_shape_mesh("unit_square", "quadrilateral", 0.5);
    EXPECT_THROW(partition_cells(mesh, 0), std::invalid_argument);
    EXPECT_THROW(partition_cells(mesh, static_cast<int>(mesh.num_cells()) + 1), std::invalid_argument);
}

TEST(GridBlocks, BlocksOfNearEqualBoxesWithTheFewestFacesBetweenThem)
{
    for (const auto& [shape, elements] : {std::pair{"unit_cube", "tetrahedron"}, std::pair{"unit_cube", "hexahedron"},
                                          std::pair{"unit_square", "triangle"}, std::pair{"unit_square", "quadrilateral"}}) {
        const bool cube = std::string(shape) == "unit_cube";
        const MeshSpec spec = test::shape_spec(shape, elements, cube ? 1.0 / 6 : 1.0 / 12, 1);
        const ShapeGrid grid = *box_shape_grid(spec);
        const Mesh mesh = load_mesh(spec);
        for (int parts : {1, 2, 3, 4, 5, 6, 8, 12}) {
            SCOPED_TRACE(std::string(elements) + ", " + std::to_string(parts) + " parts");
            const GridBlocks blocks = grid_blocks(grid.grid, parts);
            ASSERT_EQ(blocks.parts(), parts);
            for (int a = 0; a < 3; ++a) {
                const std::vector<long long>& cuts = blocks.cuts[a];
                ASSERT_EQ(cuts.size(), static_cast<std::size_t>(blocks.count[a]) + 1);
                EXPECT_EQ(cuts.front(), 0);
                EXPECT_EQ(cuts.back(), grid.grid.boxes[a]);
                for (std::size_t q = 0; q + 1 < cuts.size(); ++q) {
                    EXPECT_GE(cuts[q + 1] - cuts[q], grid.grid.boxes[a] / blocks.count[a]);
                    EXPECT_LE(cuts[q + 1] - cuts[q], (grid.grid.boxes[a] + blocks.count[a] - 1) / blocks.count[a]);
                }
            }
            for (int p = 0; p < parts; ++p) EXPECT_EQ(blocks.part_of(blocks.block_of(p)), p);
            const CellPartition partition = block_partition(grid, blocks);
            std::vector<index_type> count(parts, 0);
            for (int owner : partition.part) ++count[owner];
            EXPECT_EQ(count, partition.cells_per_part);
            EXPECT_EQ(partition.edge_cut, faces_between_parts(mesh, partition.part));
            EXPECT_EQ(block_summary(grid, blocks).cells_per_part, partition.cells_per_part);
            // Two parts of a cube or square: one plane across the middle.
            if (parts == 2) {
                const long long plane = cube ? 6 * 6 : 12;
                EXPECT_EQ(partition.edge_cut, plane * (std::string(elements) == "tetrahedron" ? 2 : 1));
            }
        }
        EXPECT_THROW(grid_blocks(grid.grid, cube ? 6 * 6 * 6 + 1 : 12 * 12 + 1), std::invalid_argument);
    }
}

}  // namespace
}  // namespace gpufem
