// The mesh summary behind `gpufem mesh-info`: counts, groups and quality against what the
// meshes are by construction.
#include <gtest/gtest.h>

#include "mesh/mesh_summary.hpp"
#include "mesh_test_support.hpp"
#include "summary_meshes.hpp"

namespace gpufem {
namespace {

/// The size of the group `name` in the summary (-1: absent).
long long group_size(const MeshSummary& s, const std::string& name)
{
    for (const GroupSummary& g : s.groups)
        if (g.name == name) return g.size;
    return -1;
}

TEST(MeshSummary, GeneratedUnitCubeOfHexahedra)
{
    const int n = 4;
    const MeshSummary s = summarise_mesh(test::load_shape_mesh("unit_cube", "hexahedron", 1.0 / n));
    EXPECT_EQ(s.dim, 3);
    EXPECT_EQ(s.cells, n * n * n);
    ASSERT_EQ(s.cell_types.size(), 1u);
    EXPECT_EQ(s.cell_types[0].type, ElementType::hexahedron);
    EXPECT_EQ(s.nodes, (n + 1) * (n + 1) * (n + 1));
    EXPECT_EQ(s.geometry_order, 1);
    for (int d = 0; d < 3; ++d) {
        EXPECT_EQ(s.box_min[d], 0.0);
        EXPECT_EQ(s.box_max[d], 1.0);
    }
    ASSERT_EQ(s.regions().size(), 1u);
    EXPECT_EQ(s.regions()[0].name, "domain");
    EXPECT_EQ(s.regions()[0].size, n * n * n);
    EXPECT_EQ(s.cells_in_no_region, 0);
    for (const char* side : {"left", "right", "front", "back", "bottom", "top"}) EXPECT_EQ(group_size(s, side), n * n) << side;
    EXPECT_EQ(group_size(s, "boundary"), 6 * n * n);
    // Cubes: det J is the same at every corner, exactly.
    EXPECT_EQ(s.jacobian.min, 1.0);
    EXPECT_EQ(s.jacobian.max, 1.0);
    EXPECT_EQ(s.jacobian.non_positive, 0);
    EXPECT_EQ(s.triangle_angles.cells, 0);
    EXPECT_EQ(s.tetrahedron_angles.cells, 0);
}

/// Angles from 45 to 90 degrees over `cells` cells: the generated grids' simplices (half
/// squares, and Kuhn's six tetrahedra of a cube).
void expect_45_to_90_degrees(const AngleRange& angles, long long cells)
{
    EXPECT_EQ(angles.cells, cells);
    EXPECT_NEAR(angles.min, 45.0, 1e-9);
    EXPECT_NEAR(angles.max, 90.0, 1e-9);
}

TEST(MeshSummary, SimplicesOfGeneratedGridsHaveAnglesOf45To90Degrees)
{
    const MeshSummary tets = summarise_mesh(test::load_shape_mesh("unit_cube", "tetrahedron", 0.5));
    expect_45_to_90_degrees(tets.tetrahedron_angles, 6 * 8);
    EXPECT_EQ(tets.triangle_angles.cells, 0);
    EXPECT_DOUBLE_EQ(tets.jacobian.min, 1.0);  // affine cells
    const MeshSummary triangles = summarise_mesh(test::load_shape_mesh("unit_square", "triangle", 0.25));
    expect_45_to_90_degrees(triangles.triangle_angles, 2 * 16);
    EXPECT_EQ(triangles.tetrahedron_angles.cells, 0);
}

TEST(MeshSummary, GeoWithTwoNamedVolumesAndBoundaries)
{
    const test::TempFolder folder;
    const int n = 3;
    const MeshSummary s = summarise_mesh_file(folder.write("blocks.geo", test::two_blocks_geo(n)).string());
    EXPECT_EQ(s.cells, 2 * n * n * n);
    ASSERT_EQ(s.cell_types.size(), 1u);
    EXPECT_EQ(s.cell_types[0].type, ElementType::hexahedron);
    EXPECT_EQ(s.nodes, (2 * n + 1) * (n + 1) * (n + 1));
    EXPECT_EQ(s.box_max[0], 2.0);
    ASSERT_EQ(s.regions().size(), 2u);
    EXPECT_EQ(group_size(s, "left_block"), n * n * n);
    EXPECT_EQ(group_size(s, "right_block"), n * n * n);
    ASSERT_EQ(s.boundary_groups().size(), 2u);
    EXPECT_EQ(group_size(s, "inlet"), n * n);
    EXPECT_EQ(group_size(s, "outlet"), n * n);
    EXPECT_EQ(s.regions()[0].dim, 3);
    EXPECT_EQ(s.boundary_groups()[0].dim, 2);
    EXPECT_NEAR(s.jacobian.min, 1.0, 1e-12);  // boxes (Gmsh places the nodes at k/3, rounded)
}

TEST(MeshSummary, InvertedTetrahedronIsCountedAndNamed)
{
    const test::TempFolder folder;
    const MeshSummary s = summarise_mesh_file(folder.write("inverted.msh", test::inverted_tetrahedron_msh()).string());
    EXPECT_EQ(s.cells, 2);
    EXPECT_EQ(s.jacobian.non_positive, 1);
    ASSERT_EQ(s.jacobian.first_non_positive.size(), 1u);
    EXPECT_EQ(s.jacobian.first_non_positive[0], 1);
    ASSERT_EQ(s.non_positive_cells.size(), 1u);
    EXPECT_NE(s.non_positive_cells[0].find("cell 1 "), std::string::npos) << s.non_positive_cells[0];
    EXPECT_NE(s.non_positive_cells[0].find("(0, 0, -1)"), std::string::npos) << s.non_positive_cells[0];
    EXPECT_DOUBLE_EQ(s.jacobian.min, -1.0);
    EXPECT_DOUBLE_EQ(s.jacobian.max, 1.0);
    EXPECT_EQ(group_size(s, "solid"), 2);
}

TEST(MeshSummary, RaisedCornerHalvesTheHexahedronsJacobianRatio)
{
    const test::TempFolder folder;
    const MeshSummary s =
        summarise_mesh_file(folder.write("raised.msh", test::raised_corner_hexahedron_msh()).string());
    EXPECT_DOUBLE_EQ(s.jacobian.min, 0.5);
    EXPECT_DOUBLE_EQ(s.jacobian.max, 0.5);
    EXPECT_EQ(s.jacobian.non_positive, 0);
    EXPECT_EQ(s.box_max[2], 2.0);
}

TEST(MeshSummary, CurvedCellOfAnOrder2FileKeepsItsOrder)
{
    const test::TempFolder folder;
    const MeshSummary s = summarise_mesh_file(folder.write("curved.msh", test::curved_triangle_msh()).string());
    EXPECT_EQ(s.geometry_order, 2);
    EXPECT_EQ(s.nodes, 6);
    EXPECT_DOUBLE_EQ(s.jacobian.min, 5.0 / 7.0);
    EXPECT_DOUBLE_EQ(s.jacobian.max, 5.0 / 7.0);
    EXPECT_EQ(cell_counts_text(s), "1 triangle");
}

TEST(MeshSummary, ClockwiseQuadrilateralIsValidAndAFoldedOneIsNot)
{
    const test::TempFolder folder;
    const MeshSummary s =
        summarise_mesh_file(folder.write("quads.msh", test::oriented_and_folded_quadrilaterals_msh()).string());
    EXPECT_EQ(s.dim, 2);
    EXPECT_EQ(s.cells, 3);
    EXPECT_EQ(s.jacobian.non_positive, 1);
    ASSERT_EQ(s.jacobian.first_non_positive.size(), 1u);
    EXPECT_EQ(s.jacobian.first_non_positive[0], 2);
    EXPECT_DOUBLE_EQ(s.jacobian.min, -1.0);
    const std::vector<double> ratios = jacobian_ratios(load_gmsh_mesh(mesh_spec_for_path((folder / "quads.msh").string())));
    ASSERT_EQ(ratios.size(), 3u);
    EXPECT_DOUBLE_EQ(ratios[0], 1.0);
    EXPECT_DOUBLE_EQ(ratios[1], 1.0);
}

TEST(MeshSummary, NamesAtMostTheRequestedBadCells)
{
    Mesh mesh = test::load_shape_mesh("unit_square", "triangle", 0.25);
    // Mirror every node in x: every cell turns clockwise, which a 2D cell may be.
    for (index_type i = 0; i < mesh.num_nodes(); ++i) mesh.coordinates[3 * i] = -mesh.coordinates[3 * i];
    EXPECT_EQ(summarise_mesh(mesh).jacobian.non_positive, 0);
    // Collapse every cell onto the line y = 0: each is flat.
    for (index_type i = 0; i < mesh.num_nodes(); ++i) mesh.coordinates[3 * i + 1] = 0;
    const MeshSummary s = summarise_mesh(mesh, 3);
    EXPECT_EQ(s.jacobian.non_positive, 32);
    EXPECT_EQ(s.jacobian.first_non_positive, (std::vector<long long>{0, 1, 2}));
    EXPECT_EQ(s.non_positive_cells.size(), 3u);
}

TEST(MeshSummary, MissingFileIsAnErrorNamingIt)
{
    const std::string message = test::error_of([] { summarise_mesh_file("/nonexistent/part.msh"); });
    EXPECT_NE(message.find("'/nonexistent/part.msh'"), std::string::npos) << message;
}

}  // namespace
}  // namespace gpufem
