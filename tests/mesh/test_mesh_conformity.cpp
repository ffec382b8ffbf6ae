// The checks of a mesh before assembly (mesh_quality, mesh_conformity, hanging_nodes,
// mesh_overlap, mesh_parts) on small meshes made here: conforming grids pass; hanging nodes,
// faces with other corners, overlapping cells and slivers are refused naming the cell and
// node; cells of both orientations that do not overlap pass; separate parts are found.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <random>
#include <string>
#include <vector>

#include "../assembly/simple_meshes.hpp"
#include "random_values.hpp"
#include "mesh/gmsh_session.hpp"
#include "mesh/mesh_conformity.hpp"
#include "mesh/mesh_overlap.hpp"
#include "mesh/mesh_parts.hpp"
#include "mesh/mesh_quality.hpp"

using namespace gpufem;
using gpufem::test::grid_mesh;

namespace {

/// A first-order mesh of one cell type from its node positions and cells.
Mesh make_mesh(ElementType type, const std::vector<double>& xyz, const std::vector<index_type>& cells)
{
    Mesh mesh;
    mesh.dim = element_dimension(type);
    mesh.cell_type = type;
    mesh.nodes_per_cell = element_node_count(type);
    mesh.coordinates.assign(xyz.begin(), xyz.end());
    mesh.cells.assign(cells.begin(), cells.end());
    mesh.cell_group.assign(cells.size() / mesh.nodes_per_cell, 0);
    mesh.source = "test mesh";
    return mesh;
}

/// The message of the checks every mesh passes before assembly ("" when it passes).
std::string check_message(const Mesh& mesh)
{
    try {
        check_mesh_coordinates(mesh);
        check_cell_quality(mesh);
        check_mesh_conformity(mesh, face_slots(mesh, Executor::create_cpu()));
    } catch (const MeshSourceError& e) {
        return e.what();
    }
    return "";
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

/// Hexahedra given as {x, y, z, side}: lowest corner and side (nodes shared by position).
Mesh hexahedra(const std::vector<std::array<double, 4>>& boxes)
{
    std::vector<double> xyz;
    std::vector<index_type> cells;
    const auto node = [&](double x, double y, double z) {
        for (std::size_t i = 0; i < xyz.size(); i += 3)
            if (xyz[i] == x && xyz[i + 1] == y && xyz[i + 2] == z) return static_cast<index_type>(i / 3);
        xyz.insert(xyz.end(), {x, y, z});
        return static_cast<index_type>(xyz.size() / 3 - 1);
    };
    for (const auto& [x, y, z, s] : boxes)
        for (const auto& c : {std::array<double, 3>{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}})
            cells.push_back(node(x + s * c[0], y + s * c[1], z + s * c[2]));
    return make_mesh(ElementType::hexahedron, xyz, cells);
}

}  // namespace

TEST(MeshConformity, ConformingGridsPass)
{
    for (ElementType type : {ElementType::triangle, ElementType::quadrilateral, ElementType::tetrahedron,
                             ElementType::hexahedron}) {
        SCOPED_TRACE(element_type_name(type));
        Mesh mesh = grid_mesh(type, 4, 0.2);
        mesh.source = "grid";
        EXPECT_EQ(check_message(mesh), "");
    }
}

TEST(MeshConformity, HangingNodeOnQuadrilateralsIsRefused)
{
    // A cell of height 2 on the left, two of height 1 on the right: node (1, 1) hangs.
    const Mesh mesh = make_mesh(ElementType::quadrilateral,
                                {0, 0, 0, 1, 0, 0, 1, 2, 0, 0, 2, 0, 2, 0, 0, 2, 1, 0, 1, 1, 0, 2, 2, 0},
                                {0, 1, 2, 3, 1, 4, 5, 6, 6, 5, 7, 2});
    const std::string message = check_message(mesh);
    EXPECT_TRUE(contains(message, "test mesh is not conforming: node 6 at (1, 1, 0)")) << message;
    EXPECT_TRUE(contains(message, "hanging node")) << message;
    EXPECT_TRUE(contains(message, "of cell 0 (counted from 0; nodes at (0, 0, 0), (1, 0, 0)")) << message;
}

TEST(MeshConformity, HangingNodeOnTrianglesIsRefused)
{
    // The hypotenuse of the lower-left triangle is split at (0.5, 0.5) by the two on its other side.
    const Mesh mesh = make_mesh(ElementType::triangle, {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 0.5, 0.5, 0},
                                {0, 1, 2, 1, 3, 4, 4, 3, 2});
    const std::string message = check_message(mesh);
    EXPECT_TRUE(contains(message, "node 4 at (0.5, 0.5, 0) lies on edge")) << message;
}

TEST(MeshConformity, HangingNodesIn3DAreRefused)
{
    // Four hexahedra of side 1 on the top face of one of side 2: (1, 1, 2) hangs inside it.
    const Mesh hexes = hexahedra({{0, 0, 0, 2}, {0, 0, 2, 1}, {1, 0, 2, 1}, {0, 1, 2, 1}, {1, 1, 2, 1}});
    const std::string message = check_message(hexes);
    EXPECT_TRUE(contains(message, "is not conforming")) << message;
    EXPECT_TRUE(contains(message, "lies on face")) << message;
    // A tetrahedron's face split at the middle of one of its edges by two others.
    const Mesh tets = make_mesh(ElementType::tetrahedron,
                                {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0.5, 0.5, 0, 1, 1, 1},
                                {0, 1, 2, 3, 1, 4, 3, 5, 4, 2, 3, 5});
    const std::string tet_message = check_message(tets);
    EXPECT_TRUE(contains(tet_message, "node 4 at (0.5, 0.5, 0) lies on face")) << tet_message;
}

TEST(MeshConformity, QuadrilateralFaceAgainstTrianglesIsRefused)
{
    // Two tetrahedra on the top face of a cube, split along its diagonal 4-6.
    Mesh mesh = hexahedra({{0, 0, 0, 1}});
    std::vector<double> xyz(mesh.coordinates.begin(), mesh.coordinates.end());
    xyz.insert(xyz.end(), {0.5, 0.5, 2});
    // Mixed cells: the hexahedron, then the tetrahedra (rows padded with -1).
    mesh.coordinates.assign(xyz.begin(), xyz.end());
    std::vector<index_type> cells(mesh.cells.begin(), mesh.cells.end());
    cells.insert(cells.end(), {4, 5, 6, 8, -1, -1, -1, -1, 4, 6, 7, 8, -1, -1, -1, -1});
    mesh.cells.assign(cells.begin(), cells.end());
    mesh.cell_types.assign({static_cast<std::uint8_t>(ElementType::hexahedron),
                            static_cast<std::uint8_t>(ElementType::tetrahedron),
                            static_cast<std::uint8_t>(ElementType::tetrahedron)});
    mesh.cell_group.assign(3, 0);
    const std::string message = check_message(mesh);
    EXPECT_TRUE(contains(message, "on a face with other corners") || contains(message, "lies on face")) << message;
}

TEST(MeshConformity, OverlappingTrianglesAreRefused)
{
    // The unit square as two triangles, and a third on two of their edges.
    const Mesh mesh = make_mesh(ElementType::triangle, {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0},
                                {0, 1, 2, 0, 2, 3, 0, 1, 3});
    const std::string message = check_message(mesh);
    EXPECT_TRUE(contains(message, "test mesh is tangled")) << message;
    EXPECT_TRUE(contains(message, "overlaps cell")) << message;
}

TEST(MeshConformity, CellsOfBothOrientationsThatDoNotOverlapPass)
{
    // Two squares side by side, the right one's corners clockwise (as a surface drawn the other way).
    const Mesh mesh = make_mesh(ElementType::quadrilateral,
                                {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 2, 0, 0, 2, 1, 0},
                                {0, 1, 2, 3, 1, 2, 5, 4});
    EXPECT_EQ(check_message(mesh), "");
    const std::optional<Overlap> none = find_overlap_2d(mesh, face_slots(mesh, Executor::create_cpu()));
    EXPECT_FALSE(none.has_value());
    // Triangles of a jittered grid, every other one reversed: still no overlap.
    Mesh grid = grid_mesh(ElementType::triangle, 5, 0.2);
    for (index_type c = 0; c < grid.num_cells(); c += 2) std::swap(grid.cells[3 * c + 1], grid.cells[3 * c + 2]);
    EXPECT_EQ(check_message(grid), "");
    // A tangled grid (an interior node moved past its neighbour) is refused.
    Mesh tangled = grid_mesh(ElementType::quadrilateral, 6);
    tangled.coordinates[3 * (2 + 7 * 2)] += 1.5 / 6;
    EXPECT_TRUE(contains(check_message(tangled), "is tangled")) << check_message(tangled);
}

TEST(MeshQuality, SliversAreRefusedAndPoorCellsCounted)
{
    // A flat tetrahedron: volume 1e-19 with edges about 1 (as Gmsh's slivers).
    const Mesh sliver = make_mesh(ElementType::tetrahedron, {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 1e-18}, {0, 1, 2, 3});
    const std::string message = check_message(sliver);
    EXPECT_TRUE(contains(message, "cell 0 (counted from 0; nodes at (0, 0, 0)")) << message;
    EXPECT_TRUE(contains(message, "is a sliver or degenerate")) << message;
    // A thin one: counted, not refused.
    const Mesh thin = make_mesh(ElementType::tetrahedron, {0, 0, 0, 1, 0, 0, 0, 1, 0, 0.3, 0.3, 1e-4}, {0, 1, 2, 3});
    const QualitySummary summary = check_cell_quality(thin);
    EXPECT_EQ(summary.poor, 1);
    EXPECT_GT(summary.worst, 1e-8);
    // Ideal cells have quality 1.
    for (ElementType type : {ElementType::triangle, ElementType::quadrilateral, ElementType::hexahedron}) {
        const Mesh one = grid_mesh(type, 1);
        EXPECT_NEAR(cell_qualities(one)[0], type == ElementType::triangle ? 0.5 / 0.4330127018922193 / 2 : 1.0, 1e-12);
    }
}

TEST(MeshQuality, EveryCellsQualityAndTheFirstWorstCellOnTheHostsThreads)
{
    // Random tetrahedra and triangles (unconnected, a few thousand): each cell's quality is its
    // volume or area against the regular simplex's with its longest edge; the worst cell is the
    // first of the lowest quality (two cells made alike to tie), the poor ones counted.
    std::mt19937 rng(test::random_seed());
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    for (const ElementType type : {ElementType::tetrahedron, ElementType::triangle}) {
        const int corners = type == ElementType::tetrahedron ? 4 : 3, cells = 5000;
        std::vector<double> xyz;
        std::vector<index_type> connectivity;
        for (int c = 0; c < cells; ++c)
            for (int k = 0; k < corners; ++k) {
                for (int d = 0; d < 3; ++d) xyz.push_back(d == 2 && corners == 3 ? 0.0 : unit(rng));
                connectivity.push_back(static_cast<index_type>(c * corners + k));
            }
        // Cells 1234 and 4321: the same thin simplex, the lowest quality of all.
        for (const int c : {1234, 4321})
            for (int k = 0; k < corners; ++k)
                for (int d = 0; d < 3; ++d) {
                    const double thin[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1e-7, 0}, {0.3, 0.3, 1e-7}};
                    xyz[static_cast<std::size_t>(3 * (c * corners + k) + d)] = thin[k][d];
                }
        const Mesh mesh = make_mesh(type, xyz, connectivity);
        const std::vector<double> quality = cell_qualities(mesh);
        ASSERT_EQ(quality.size(), static_cast<std::size_t>(cells));
        long long poor = 0;
        for (int c = 0; c < cells; ++c) {
            const double* p[4];
            for (int k = 0; k < corners; ++k) p[k] = &xyz[static_cast<std::size_t>(3 * (c * corners + k))];
            double longest = 0;
            for (int a = 0; a < corners; ++a)
                for (int b = a + 1; b < corners; ++b)
                    longest = std::max(longest, std::hypot(p[a][0] - p[b][0], p[a][1] - p[b][1], p[a][2] - p[b][2]));
            double u[3], v[3], w[3];
            for (int d = 0; d < 3; ++d) u[d] = p[1][d] - p[0][d], v[d] = p[2][d] - p[0][d];
            double expected = 0;
            if (corners == 4) {
                for (int d = 0; d < 3; ++d) w[d] = p[3][d] - p[0][d];
                const double volume = std::abs(u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0]) +
                                               u[2] * (v[0] * w[1] - v[1] * w[0])) / 6;
                expected = volume / (std::pow(longest, 3) / (6 * std::sqrt(2.0)));
            } else {
                expected = std::abs(u[0] * v[1] - u[1] * v[0]) / 2 / (std::sqrt(3.0) / 4 * longest * longest);
            }
            EXPECT_NEAR(quality[static_cast<std::size_t>(c)], expected, 1e-12 * std::max(1.0, expected)) << "cell " << c;
            poor += quality[static_cast<std::size_t>(c)] < 1e-2;
        }
        const QualitySummary summary = check_cell_quality(mesh, {1e-20, 1e-2});
        EXPECT_EQ(summary.worst_cell, 1234);
        EXPECT_EQ(summary.worst, quality[1234]);
        EXPECT_EQ(summary.poor, poor);
    }
}

TEST(MeshQuality, TwoDimensionalMeshesMustBeFlat)
{
    Mesh bent = grid_mesh(ElementType::triangle, 3);
    bent.coordinates[3 * 5 + 2] = 0.25;
    EXPECT_TRUE(contains(check_message(bent), "is 2D but does not lie in a plane z = const")) << check_message(bent);
}

TEST(MeshParts, SeparatePartsAreFound)
{
    // Two squares that share no node, and two that share one corner only.
    const Mesh apart = make_mesh(ElementType::quadrilateral,
                                 {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 2, 0, 0, 3, 0, 0, 3, 1, 0, 2, 1, 0},
                                 {0, 1, 2, 3, 4, 5, 6, 7});
    EXPECT_EQ(parts_through_nodes(apart).count, 2);
    const Mesh corner = make_mesh(ElementType::quadrilateral,
                                  {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 2, 1, 0, 2, 2, 0, 1, 2, 0},
                                  {0, 1, 2, 3, 2, 4, 5, 6});
    EXPECT_EQ(parts_through_nodes(corner).count, 1);
    EXPECT_EQ(parts_through_faces(corner, face_slots(corner, Executor::create_cpu())).count, 2);
    EXPECT_TRUE(contains(part_text(apart, parts_through_nodes(apart), 1), "part of 1 cells")) << part_text(apart, parts_through_nodes(apart), 1);
}

TEST(MeshParts, PartsOnAllThreadsMatchASerialSearch)
{
    // A triangle grid with random cells removed (cutting it into pieces) and the rest shuffled:
    // the parts found through faces on all threads equal those of a breadth-first search.
    std::mt19937 rng(test::random_seed());
    for (const double removed : {0.0, 0.3, 0.45, 0.6}) {
        SCOPED_TRACE(removed);
        const Mesh grid = grid_mesh(ElementType::tetrahedron, 24);
        std::vector<index_type> keep;
        std::bernoulli_distribution drop(removed);
        for (index_type c = 0; c < grid.num_cells(); ++c)
            if (!drop(rng)) keep.push_back(c);
        std::shuffle(keep.begin(), keep.end(), rng);
        Mesh mesh = grid;
        mesh.cells.clear();
        for (const index_type c : keep)
            mesh.cells.insert(mesh.cells.end(), grid.cells.begin() + 4 * c, grid.cells.begin() + 4 * c + 4);
        mesh.cell_group.assign(keep.size(), grid.cell_group.empty() ? 0 : grid.cell_group.front());
        const FaceSlots faces = face_slots(mesh, Executor::create_cpu());
        const MeshParts parts = parts_through_faces(mesh, faces);
        // The reference: a breadth-first search from each unlabelled cell in cell order.
        std::vector<index_type> label(keep.size(), -1);
        index_type count = 0;
        for (std::size_t start = 0; start < keep.size(); ++start) {
            if (label[start] >= 0) continue;
            std::vector<index_type> queue{static_cast<index_type>(start)};
            label[start] = count;
            for (std::size_t q = 0; q < queue.size(); ++q)
                for (int f = 0; f < faces.faces_per_cell; ++f) {
                    const index_type other = faces.neighbour[static_cast<std::size_t>(queue[q]) * faces.faces_per_cell + f];
                    if (other >= 0 && label[static_cast<std::size_t>(other)] < 0) {
                        label[static_cast<std::size_t>(other)] = count;
                        queue.push_back(other);
                    }
                }
            ++count;
        }
        EXPECT_EQ(parts.count, count);
        EXPECT_EQ(parts.of_cell, label);
        if (removed == 0.0) EXPECT_EQ(count, 1);
        if (removed >= 0.45) EXPECT_GT(count, 10);
    }
}

TEST(MeshConformity, FaceOfThreeCellsIsRefused)
{
    // Three triangles on the edge 0-1.
    const Mesh mesh = make_mesh(ElementType::triangle, {0, 0, 0, 1, 0, 0, 0.5, 1, 0, 0.5, -1, 0, 0.5, 2, 0},
                                {0, 1, 2, 1, 0, 3, 0, 1, 4});
    const std::string message = check_message(mesh);
    EXPECT_TRUE(contains(message, "shared by three or more cells")) << message;
    EXPECT_TRUE(contains(message, "nodes at (")) << message;
}

TEST(MeshConformity, TetrahedronOnTopOfAnotherIsRefused)
{
    // Two tetrahedra on the same side of the face 0-1-2 they share.
    const Mesh mesh = make_mesh(ElementType::tetrahedron, {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0.2, 0.2, 0.5},
                                {0, 1, 2, 3, 0, 1, 2, 4});
    const std::string message = check_message(mesh);
    EXPECT_TRUE(contains(message, "test mesh is tangled: cell 0")) << message;
}

TEST(MeshChecksTiming, DISABLED_MultiMillionCellGrids)
{
    // The cost of every check on generated grids (GPUFEM_TIMING_N boxes a side, default 160:
    // 4.1M hexahedra, 24.6M tetrahedra); run with --gtest_also_run_disabled_tests.
    const char* n_text = std::getenv("GPUFEM_TIMING_N");
    const int n = n_text ? std::atoi(n_text) : 160;
    const auto seconds = [](auto&& work) {
        const auto start = std::chrono::steady_clock::now();
        const std::clock_t cpu = std::clock();
        work();
        return std::array<double, 2>{std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
                                     double(std::clock() - cpu) / CLOCKS_PER_SEC};
    };
    for (ElementType type : {ElementType::hexahedron, ElementType::tetrahedron, ElementType::quadrilateral}) {
        const int side = type == ElementType::quadrilateral ? n * 12 : (type == ElementType::tetrahedron ? n / 2 : n);
        const Mesh mesh = grid_mesh(type, side, 0.1);
        FaceSlots faces;
        const auto coords = seconds([&] { check_mesh_coordinates(mesh); });
        const auto quality = seconds([&] { check_cell_quality(mesh); });
        const auto adjacency = seconds([&] { faces = face_slots(mesh, Executor::create_cpu()); });
        const auto conformity = seconds([&] { check_mesh_conformity(mesh, faces); });
        const auto parts = seconds([&] { EXPECT_EQ(parts_through_faces(mesh, faces).count, 1); });
        std::printf("%s: %d cells; wall (cpu) s: coordinates %.3f (%.3f), quality %.3f (%.3f), face adjacency %.3f "
                    "(%.3f), conformity %.3f (%.3f), parts %.3f (%.3f)\n",
                    element_type_plural(type), mesh.num_cells(), coords[0], coords[1], quality[0], quality[1],
                    adjacency[0], adjacency[1], conformity[0], conformity[1], parts[0], parts[1]);
    }
}
