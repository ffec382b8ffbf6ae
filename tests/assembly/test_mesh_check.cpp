// The mesh checked before assembly on the CPU (mesh_check_checks.hpp).
#include "mesh_check_checks.hpp"

using namespace gpufem;

TEST(MeshCheck, TangledFoldedTiltedAndNonFiniteMeshesAreRefused)
{
    test::check_meshes_are_validated(Executor::create_cpu());
}

TEST(MeshCheck, FoldedCurvedCellsPointToStraightCells)
{
    // A Q2 cell folded by its mid-edge node, as Gmsh's curved cells fold near a sharp boundary.
    Mesh folded = test::unit_box_mesh(ElementType::quadrilateral, 2, 0.5);
    folded.source = "folded";
    const index_type* cell = &folded.cells[0];
    for (int d = 0; d < 2; ++d)
        folded.coordinates[3 * cell[4] + d] =
            folded.coordinates[3 * cell[0] + d] + 2.5 * (folded.coordinates[3 * cell[3] + d] - folded.coordinates[3 * cell[0] + d]);
    const std::string message = test::mesh_check_message(Executor::create_cpu(), folded);
    EXPECT_NE(message.find("mesh.geometry_order: 1 runs them as straight-sided cells"), std::string::npos) << message;
}

TEST(MeshCheck, TwoDimensionalCellsOfBothOrientationsAreAccepted)
{
    // Every other triangle reversed (surfaces drawn the other way round): no overlap, accepted.
    Mesh mesh = test::grid_mesh(ElementType::triangle, 4, 0.2);
    mesh.source = "both orientations";
    for (index_type c = 0; c < mesh.num_cells(); c += 2) std::swap(mesh.cells[3 * c + 1], mesh.cells[3 * c + 2]);
    EXPECT_EQ(test::mesh_check_message(Executor::create_cpu(), mesh), "");
}

TEST(MeshCheck, JacobianSignsOfRandomlyMovedHighOrderCellsAreFound)
{
    // The CPU against itself: the check that some cells fold and most do not holds.
    test::check_jacobian_signs_match_cpu(Executor::create_cpu());
}

TEST(MeshCheck, PaFindsTheSignsOfDetJWithItsPointFactors)
{
    test::check_pa_jacobian_signs_match_cpu(Executor::create_cpu());
}
