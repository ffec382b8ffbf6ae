// Prisms, pyramids and meshes of several cell types on curved geometry: Gmsh gives them at
// order 2, gpufem keeps their maps beside the corners (Mesh::curved_cells) and places every
// node of refinement and of the degree by them, so the nodes on a cylinder's side lie on it
// (at Gmsh's order-2 nodes exactly) where straight cells put them on chords, the volume
// converges at the rate of curved cells, and the maps travel through the worker and the cache.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cmath>
#include <numbers>
#include <string>
#include <utility>

#include "mesh/curved_cells.hpp"
#include "mesh/lagrange_basis.hpp"
#include "mesh/mesh_cache.hpp"
#include "mesh/mesh_refinement.hpp"
#include "mesh/mesh_source.hpp"
#include "mesh/mesh_worker.hpp"
#include "tests/mesh/mesh_refinement_support.hpp"
#include "tests/mixed_mesh_geometries.hpp"

namespace gpufem {
namespace {

constexpr double pi = std::numbers::pi;

/// Gauss-Legendre points and weights on [0, 1], 5 of them.
constexpr double gauss_x[5] = {0.04691007703066800, 0.23076534494715845, 0.5, 0.76923465505284155,
                               0.95308992296933200};
constexpr double gauss_w[5] = {0.11846344252809454, 0.23931433524968324, 0.28444444444444444,
                               0.23931433524968324, 0.11846344252809454};

/// A quadrature of a 3D reference cell (collapsed Gauss on the tetrahedron, the prism's
/// triangle and the pyramid).
void reference_quadrature(ElementType type, std::vector<double>& points, std::vector<double>& weights)
{
    for (int i = 0; i < 5; ++i)
        for (int j = 0; j < 5; ++j)
            for (int k = 0; k < 5; ++k) {
                const double x = gauss_x[i], y = gauss_x[j], z = gauss_x[k];
                const double w = gauss_w[i] * gauss_w[j] * gauss_w[k];
                switch (type) {
                case ElementType::tetrahedron:
                    points.insert(points.end(), {x, y * (1 - x), z * (1 - x) * (1 - y)});
                    weights.push_back(w * (1 - x) * (1 - x) * (1 - y));
                    break;
                case ElementType::prism:
                    points.insert(points.end(), {x, y * (1 - x), 2 * z - 1});
                    weights.push_back(2 * w * (1 - x));
                    break;
                case ElementType::pyramid:  // base [-1, 1]^2 at z = 0, apex (0, 0, 1)
                    points.insert(points.end(), {(2 * x - 1) * (1 - z), (2 * y - 1) * (1 - z), z});
                    weights.push_back(4 * w * (1 - z) * (1 - z));
                    break;
                default:
                    points.insert(points.end(), {2 * x - 1, 2 * y - 1, 2 * z - 1});
                    weights.push_back(8 * w);
                }
            }
}

/// The volume of a 3D mesh of any cell types and degree, by quadrature of its cells' maps.
double curved_volume(const Mesh& mesh)
{
    double volume = 0;
    for (index_type c = 0; c < mesh.num_cells(); ++c) {
        const ElementType type = mesh.type_of_cell(c);
        std::vector<double> points, weights, values, gradients;
        reference_quadrature(type, points, weights);
        lagrange_basis(type, mesh.degree, points, values, gradients);
        const int n = lagrange_node_count(type, mesh.degree);
        for (std::size_t q = 0; q < weights.size(); ++q) {
            double j[3][3] = {};
            for (int i = 0; i < n; ++i) {
                const test::Vec3 p = test::node(mesh, mesh.cells[static_cast<std::size_t>(c) * mesh.nodes_per_cell + i]);
                for (int a = 0; a < 3; ++a)
                    for (int b = 0; b < 3; ++b) j[a][b] += p[a] * gradients[(q * n + i) * 3 + b];
            }
            const double det = j[0][0] * (j[1][1] * j[2][2] - j[1][2] * j[2][1]) -
                               j[0][1] * (j[1][0] * j[2][2] - j[1][2] * j[2][0]) +
                               j[0][2] * (j[1][0] * j[2][1] - j[1][1] * j[2][0]);
            volume += weights[q] * std::abs(det);
        }
    }
    return volume;
}

/// The largest distance from the unit cylinder (around z) of a node of the "side" facets.
double side_distance(const Mesh& mesh)
{
    const BoundaryFacets* side = mesh.find_boundary("side");
    EXPECT_NE(side, nullptr);
    double largest = 0;
    for (const index_type n : side->connectivity)
        if (n >= 0) largest = std::max(largest, std::abs(std::hypot(test::node(mesh, n)[0], test::node(mesh, n)[1]) - 1));
    return largest;
}

/// The spec of a cylinder's .geo: degree k, r refinements, geometry_order g (0: chosen).
MeshSpec cylinder_spec(const std::filesystem::path& geo, int k, int r = 0, int g = 0)
{
    MeshSpec spec = test::box_geo_spec(geo, 0, k, r);
    spec.geometry_order = g;
    spec.cache = false;
    return spec;
}

TEST(CurvedBlocks, ExtrudedPrismsFollowTheCylinder)
{
    const test::MeshWorkerForTest worker;
    test::TempFolder folder;
    const auto geo = folder.write("cylinder.geo", test::cylinder_extruded(0.35, false));
    // Gmsh's mesh of order 2: the corners, and the cells' maps beside them.
    const Mesh coarse = load_gmsh_mesh_isolated(cylinder_spec(geo, 2));
    EXPECT_EQ(coarse.cell_type, ElementType::prism);
    EXPECT_EQ(coarse.degree, 1);
    ASSERT_TRUE(coarse.curved_cells);
    EXPECT_EQ(coarse.curved_cells->nodes_per_row, 18);
    EXPECT_TRUE(curved_cells_fit(coarse));

    const Mesh straight = load_mesh_isolated(cylinder_spec(geo, 2, 0, 1));
    const Mesh curved = load_mesh_isolated(cylinder_spec(geo, 2));
    EXPECT_FALSE(curved.curved_cells);
    ASSERT_EQ(curved.num_nodes(), straight.num_nodes());
    // The order-2 nodes on the side are Gmsh's, on the cylinder; straight cells' on chords.
    EXPECT_LT(side_distance(curved), 1e-9);
    EXPECT_GT(side_distance(straight), 5e-3);
    const double straight_error = std::abs(curved_volume(straight) - pi);
    const double curved_error = std::abs(curved_volume(curved) - pi);
    EXPECT_LT(curved_error, straight_error / 50) << curved_error << " against " << straight_error;
    // Degree 3 and 4: placed by the order-2 maps, within their distance of the cylinder.
    for (int k : {3, 4}) {
        const Mesh high = load_mesh_isolated(cylinder_spec(geo, k));
        EXPECT_LT(side_distance(high), 2e-3) << k;
        EXPECT_LT(std::abs(curved_volume(high) - pi), straight_error / 50) << k;
    }
}

/// A section of a ring (1 < r < 1.5, 0 < z < 0.3) revolved a quarter turn about the z axis
/// in 7 layers of prisms, as in Gmsh's tutorial t3.
constexpr const char* revolved_part = R"(lc = 0.03;
Point(1) = {1, 0, 0, lc}; Point(2) = {1.5, 0, 0, lc}; Point(3) = {1.5, 0, 0.3, lc}; Point(4) = {1, 0, 0.3, lc};
Line(1) = {1, 2}; Line(2) = {2, 3}; Line(3) = {3, 4}; Line(4) = {4, 1};
Curve Loop(1) = {1, 2, 3, 4}; Plane Surface(1) = {1};
r[] = Extrude {{0, 0, 1}, {0, 0, 0}, Pi / 2} { Surface{1}; Layers{7}; Recombine; };
Physical Volume("part") = {r[1]};
Physical Surface("start") = {1}; Physical Surface("end") = {r[0]};
)";

TEST(CurvedBlocks, ARevolvedPartsArcEdgesHaveTheirMidpointsOnTheArcs)
{
    // The prisms' edges along the revolution (corner i to i + 3) are arcs: at degree 2 the
    // midpoints of those on the curved walls (r = 1 and 1.5) lie on them (at their ends' radius
    // and height), straight cells' on chords. (Gmsh places the midpoints of edges inside the
    // volume and on the flat ends by the straight map.)
    const test::MeshWorkerForTest worker;
    test::TempFolder folder;
    const auto geo = folder.write("revolved.geo", revolved_part);
    const std::vector<double> reference = equispaced_reference_nodes(ElementType::prism, 2);
    std::array<int, 3> midpoint{};  // gpufem's node at the middle of edge (i, i + 3)
    for (int i = 0; i < 3; ++i)
        for (std::size_t j = 0; j < reference.size() / 3; ++j)
            if (std::abs(reference[3 * j] - reference[3 * i]) < 1e-12 &&
                std::abs(reference[3 * j + 1] - reference[3 * i + 1]) < 1e-12 && std::abs(reference[3 * j + 2]) < 1e-12)
                midpoint[static_cast<std::size_t>(i)] = static_cast<int>(j);
    for (int g : {0, 1}) {
        const Mesh mesh = load_mesh_isolated(cylinder_spec(geo, 2, 0, g));
        ASSERT_EQ(mesh.cell_type, ElementType::prism);
        std::vector<char> seen(static_cast<std::size_t>(mesh.num_nodes()), 0);
        long long arcs = 0;
        double off = 0;
        for (index_type c = 0; c < mesh.num_cells(); ++c)
            for (int i = 0; i < 3; ++i) {
                const index_type* row = mesh.cells.data() + static_cast<std::size_t>(c) * mesh.nodes_per_cell;
                const index_type m = row[midpoint[static_cast<std::size_t>(i)]];
                const test::Vec3 end = test::node(mesh, row[i]), middle = test::node(mesh, m);
                const double r = std::hypot(end[0], end[1]);
                if (seen[static_cast<std::size_t>(m)] || (std::abs(r - 1) > 1e-9 && std::abs(r - 1.5) > 1e-9)) continue;
                seen[static_cast<std::size_t>(m)] = 1;  // an arc on the inner or outer wall
                ++arcs;
                off = std::max({off, std::abs(std::hypot(middle[0], middle[1]) - std::hypot(end[0], end[1])),
                                std::abs(middle[2] - end[2])});
            }
        std::printf("geometry_order %d: %lld arc midpoints on the walls, farthest %.3e off its arc\n", g, arcs, off);
        EXPECT_GT(arcs, 100);
        if (g == 0) EXPECT_LT(off, 1e-9);
        else EXPECT_GT(off, 1e-3);  // chords: r (1 - cos(pi / 28))
    }
}

/// Expects the corners of a refined mesh's curved maps at its nodes (the children's maps are
/// their parents' maps at the children's nodes).
void expect_maps_at_the_corners(const Mesh& mesh)
{
    ASSERT_TRUE(mesh.curved_cells);
    const CellGeometry& maps = *mesh.curved_cells;
    ASSERT_EQ(maps.cells.size(), static_cast<std::size_t>(mesh.num_cells()) * maps.nodes_per_row);
    for (index_type c = 0; c < mesh.num_cells(); ++c)
        for (int j = 0; j < element_node_count(mesh.type_of_cell(c)); ++j) {
            const index_type node = mesh.cells[static_cast<std::size_t>(c) * mesh.nodes_per_cell + j];
            const index_type corner = maps.cells[static_cast<std::size_t>(c) * maps.nodes_per_row + j];
            for (int axis = 0; axis < 3; ++axis)
                ASSERT_NEAR(mesh.coordinates[3 * node + axis], maps.coordinates[3 * corner + axis], 1e-14) << c;
        }
}

TEST(CurvedBlocks, RefinedCellsKeepToTheParentsMapsAndTheirSidesMoveOntoTheCylinder)
{
    const test::MeshWorkerForTest worker;
    test::TempFolder folder;
    const ExecPtr cpu = Executor::create_cpu();
    for (const auto& geo : {folder.write("prisms.geo", test::cylinder_extruded(0.5, false)),
                            folder.write("four.geo", test::cylinder_four_types(0.5))}) {
        SCOPED_TRACE(geo.filename().string());
        const Mesh coarse = load_gmsh_mesh_isolated(cylinder_spec(geo, 2, 1));
        ASSERT_TRUE(coarse.curved_cells);
        ASSERT_TRUE(coarse.cad_boundary);  // the side's points for one refinement
        EXPECT_EQ(coarse.cad_boundary->lattice_order, 4);
        const Mesh once = refine_uniformly(coarse, cpu);
        expect_maps_at_the_corners(once);
        expect_maps_at_the_corners(refine_uniformly(once, cpu));
        // Refined once and twice onto the cylinder: at P1 and P2 every node of the side on it
        // (the vertices and the children's maps' nodes moved there), where straight
        // refinement leaves them on the coarse chords; the volume converges at the rate of
        // curved cells (x16 a refinement) where the coarse maps' stays put.
        const double unrefined = std::abs(curved_volume(load_mesh_isolated(cylinder_spec(geo, 2))) - pi);
        double previous = unrefined;
        for (int r : {1, 2}) {
            const Mesh curved = load_mesh_isolated(cylinder_spec(geo, 2, r));
            const Mesh straight = load_mesh_isolated(cylinder_spec(geo, 2, r, 1));
            EXPECT_LT(side_distance(curved), 1e-12) << r;
            EXPECT_GT(side_distance(straight), 1e-3) << r;
            EXPECT_LT(side_distance(load_mesh_isolated(cylinder_spec(geo, 1, r))), 1e-12) << r;
            const double error = std::abs(curved_volume(curved) - pi);
            std::printf("refine %d: volume error %.3e (unrefined %.3e)\n", r, error, unrefined);
            EXPECT_LT(error, previous / 8) << r;
            previous = error;
        }
        // Degree 3 (prisms; pyramids take 1 and 2): its nodes placed by the moved maps,
        // within their distance of the cylinder.
        if (coarse.is_mixed()) continue;
        const Mesh cubic = load_mesh_isolated(cylinder_spec(geo, 3, 1));
        EXPECT_LT(side_distance(cubic), 1e-4);
        EXPECT_LT(std::abs(curved_volume(cubic) - pi), unrefined / 8);
    }
}

TEST(CurvedBlocks, PyramidsAndFourCellTypesFollowTheCylinder)
{
    const test::MeshWorkerForTest worker;
    test::TempFolder folder;
    const auto geo = folder.write("four.geo", test::cylinder_four_types(0.4));
    const Mesh coarse = load_gmsh_mesh_isolated(cylinder_spec(geo, 2));
    ASSERT_TRUE(coarse.curved_cells);
    EXPECT_TRUE(coarse.is_mixed());
    for (ElementType type : {ElementType::tetrahedron, ElementType::pyramid, ElementType::hexahedron})
        EXPECT_TRUE(coarse.has_cells_of(type)) << element_type_plural(type);
    const Mesh curved = load_mesh_isolated(cylinder_spec(geo, 2));
    const Mesh straight = load_mesh_isolated(cylinder_spec(geo, 2, 0, 1));
    EXPECT_LT(side_distance(curved), 1e-9);
    EXPECT_GT(side_distance(straight), 5e-3);
    const double straight_error = std::abs(curved_volume(straight) - pi / 1);
    EXPECT_LT(std::abs(curved_volume(curved) - pi), straight_error / 50);
    // Refined (pyramids into pyramids and tetrahedra), the side's triangles and
    // quadrilaterals onto the cylinder.
    const Mesh refined = load_mesh_isolated(cylinder_spec(geo, 2, 1));
    EXPECT_LT(side_distance(refined), 1e-12);
    EXPECT_LT(std::abs(curved_volume(refined) - pi), straight_error / 50);
}

TEST(CurvedBlocks, ADiskOfTrianglesAndQuadrilateralsFollowsTheCircle)
{
    // 2D: the upper half disk in quadrilaterals, the lower in triangles.
    const test::MeshWorkerForTest worker;
    test::TempFolder folder;
    const auto geo = folder.write("disk.geo", R"(lc = 0.3;
Point(1) = {0, 0, 0, lc}; Point(2) = {1, 0, 0, lc}; Point(3) = {0, 1, 0, lc}; Point(4) = {-1, 0, 0, lc};
Point(5) = {0, -1, 0, lc};
Circle(1) = {2, 1, 3}; Circle(2) = {3, 1, 4}; Circle(3) = {4, 1, 5}; Circle(4) = {5, 1, 2}; Line(5) = {4, 2};
Curve Loop(1) = {1, 2, 5}; Plane Surface(1) = {1}; Curve Loop(2) = {3, 4, -5}; Plane Surface(2) = {2};
Recombine Surface{1};
Physical Surface("disk") = {1, 2}; Physical Curve("circle") = {1, 2, 3, 4};
)");
    for (int r : {0, 1}) {
        const Mesh curved = load_mesh_isolated(cylinder_spec(geo, 2, r));
        const Mesh straight = load_mesh_isolated(cylinder_spec(geo, 2, r, 1));
        ASSERT_TRUE(curved.is_mixed());
        double on_curved = 0, on_straight = 0;
        for (const auto& [mesh, off] : {std::pair{&curved, &on_curved}, std::pair{&straight, &on_straight}})
            for (const index_type n : mesh->find_boundary("circle")->connectivity)
                if (n >= 0) *off = std::max(*off, std::abs(test::norm(test::node(*mesh, n)) - 1));
        EXPECT_LT(on_curved, r == 0 ? 1e-9 : 1e-12) << r;  // refined onto the circle
        EXPECT_GT(on_straight, 5e-3) << r;
    }
}

TEST(CurvedBlocks, MapsTravelThroughTheCacheAndGmshNodesRefusesThem)
{
    const test::MeshWorkerForTest worker;
    test::TempFolder folder;
    const auto geo = folder.write("cylinder.geo", test::cylinder_extruded(0.35, false));
    MeshSpec spec = cylinder_spec(geo, 2, 1);
    spec.cache = true;
    MeshCacheStatus first, second;
    const Mesh made = load_mesh_isolated(spec, nullptr, &first);
    const Mesh cached = load_mesh_isolated(spec, nullptr, &second);
    EXPECT_EQ(first.outcome, MeshCacheStatus::Outcome::stored);
    EXPECT_EQ(second.outcome, MeshCacheStatus::Outcome::hit);
    EXPECT_EQ(made.coordinates, cached.coordinates);
    EXPECT_EQ(made.cells, cached.cells);

    MeshSpec gmsh_nodes = cylinder_spec(geo, 2);
    gmsh_nodes.gmsh_nodes = true;
    const std::string message = test::error_of([&] { load_mesh_isolated(gmsh_nodes); });
    EXPECT_NE(message.find("cylinder.geo"), std::string::npos) << message;
    EXPECT_NE(message.find("leave gmsh_nodes out"), std::string::npos) << message;
}

}  // namespace
}  // namespace gpufem
