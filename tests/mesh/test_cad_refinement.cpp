// Refinement onto the CAD geometry: the boundary nodes gpufem's refinement makes on a
// geometry Gmsh meshed with curved cells lie on its curved surfaces and curves (circles, a
// sphere, a cylinder across its seam), the cells unfolded; the domain's measure converges at
// the rate of curved cells; refine_onto_geometry: false keeps them on the coarse maps; the
// points travel through the worker and the mesh cache.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numbers>
#include <string>

#include "mesh/cad_boundary.hpp"
#include "mesh/jacobian_ratio.hpp"
#include "mesh/mesh_cache.hpp"
#include "mesh/mesh_source.hpp"
#include "mesh/mesh_worker.hpp"
#include "tests/mesh/mesh_refinement_support.hpp"

namespace gpufem {
namespace {

/// The largest distance of a boundary node (every group's facets) from the geometry.
double boundary_distance(const Mesh& mesh, const std::function<double(const test::Vec3&)>& distance)
{
    double largest = 0;
    for (const BoundaryFacets& facets : mesh.boundaries)
        for (const index_type n : facets.connectivity)
            if (n >= 0) largest = std::max(largest, distance(test::node(mesh, n)));
    return largest;
}

/// Distance from the unit circle around the origin (2D) or the unit sphere (3D).
double from_unit_sphere(const test::Vec3& x)
{
    return std::abs(test::norm(x) - 1);
}

/// Distance from the box's faces or the hole's cylinder, whichever is nearest.
double from_box_with_hole(const test::Vec3& x)
{
    const double hole = std::abs(std::hypot(x[0] - 1, x[1] - 0.5) - 0.3);
    return std::min({hole, std::abs(x[0]), std::abs(x[0] - 2), std::abs(x[1]), std::abs(x[1] - 1), std::abs(x[2]),
                     std::abs(x[2] - 1)});
}

TEST(RefinementOntoGeometry, TheDisksBoundaryNodesLieOnTheCircle)
{
    for (const char* elements : {"triangle", "quadrilateral"})
        for (int degree : {2, 3}) {
            SCOPED_TRACE(std::string(elements) + " degree " + std::to_string(degree));
            MeshSpec spec = test::shape_spec("disk", elements, 0.5, degree, 2);
            const Mesh onto = load_mesh(spec);
            ASSERT_NE(onto.find_boundary("boundary"), nullptr);
            EXPECT_LT(boundary_distance(onto, from_unit_sphere), 1e-13);
            spec.snap_to_geometry = false;
            const Mesh coarse_maps = load_mesh(spec);
            // Gmsh's quadrilaterals of the coarse disk are nearly folded at order 3 already
            // (Jacobian ratio -0.002 on the coarse maps): the geometry must not make them worse.
            const double onto_ratio = summarise_jacobian_ratios(onto).min;
            const double coarse_ratio = summarise_jacobian_ratios(coarse_maps).min;
            EXPECT_GT(onto_ratio, std::min(0.0, coarse_ratio));
            EXPECT_GT(boundary_distance(coarse_maps, from_unit_sphere), 1e-6);
        }
    // Straight cells keep their refined boundary nodes on the coarse cells' sides: moved by
    // their sagitta they would fold the thin cells at the boundary.
    MeshSpec straight = test::shape_spec("disk", "triangle", 0.5, 1, 2);
    straight.geometry_order = 1;
    EXPECT_EQ(load_gmsh_mesh(straight).cad_boundary, nullptr);
}

TEST(RefinementOntoGeometry, TheDisksAreaConvergesAtTheRateOfCurvedCells)
{
    // Order-2 cells refined from a coarse disk: with their boundary nodes on the circle the
    // area's error falls as h^4 (about 16 per refinement); on the coarse maps it stays the
    // coarse cells'.
    double previous = 0;
    for (int refine = 1; refine <= 3; ++refine) {
        MeshSpec spec = test::shape_spec("disk", "triangle", 0.5, 2, refine);
        const double error = std::abs(test::curved_measure(load_mesh(spec)) - std::numbers::pi);
        spec.snap_to_geometry = false;
        const double coarse = std::abs(test::curved_measure(load_mesh(spec)) - std::numbers::pi);
        std::printf("refine %d: area error %.3e on the circle, %.3e on the coarse maps\n", refine, error, coarse);
        EXPECT_LT(error, coarse / 4);
        if (refine > 1) EXPECT_GT(previous / error, 12.0);
        previous = error;
    }
}

TEST(RefinementOntoGeometry, TheBallsBoundaryNodesLieOnTheSphereAndItsVolumeConverges)
{
    MeshSpec spec = test::box_geo_spec(GPUFEM_SOURCE_DIR "/cases/meshes/ball.geo", 0.5, 2);
    double previous = 0;
    for (int refine = 1; refine <= 3; ++refine) {
        spec.refine = refine;
        const Mesh mesh = load_mesh(spec);
        EXPECT_LT(boundary_distance(mesh, from_unit_sphere), 1e-12);
        EXPECT_GT(summarise_jacobian_ratios(mesh).min, 0.0);
        const double error = std::abs(test::curved_measure(mesh) - 4 * std::numbers::pi / 3);
        std::printf("refine %d: volume error %.3e\n", refine, error);
        if (refine > 1) EXPECT_GT(previous / error, 6.0);  // h^3 or better
        previous = error;
    }
}

TEST(RefinementOntoGeometry, ACylindricalHoleStaysRoundAcrossItsSeam)
{
    test::TempFolder folder;
    MeshSpec spec = test::box_geo_spec(folder.write("box_with_hole.geo", test::box_with_hole_geo), 0, 2, 2);
    for (int degree : {1, 2, 3}) {  // Gmsh's cells of order 2, 2, 3
        SCOPED_TRACE("degree " + std::to_string(degree));
        spec.degree = degree;
        spec.snap_to_geometry = true;
        const Mesh onto = load_mesh(spec);
        ASSERT_TRUE(onto.find_boundary("walls"));
        EXPECT_LT(boundary_distance(onto, from_box_with_hole), 1e-12);
        EXPECT_GT(summarise_jacobian_ratios(onto).min, 0.0);
        spec.snap_to_geometry = false;
        EXPECT_GT(boundary_distance(load_mesh(spec), from_box_with_hole), 1e-6);
    }
}

TEST(RefinementOntoGeometry, TheGeometrysPointsComeThroughTheWorkerAndTheCache)
{
    // The worker's mesh carries the points (the same as Gmsh's in this process); the cache
    // keeps them, and asks Gmsh again for another number of refinements.
    test::TempFolder folder;
    MeshSpec spec = test::box_geo_spec(folder.write("box_with_hole.geo", test::box_with_hole_geo), 0, 2, 1);
    const Mesh in_process = load_gmsh_mesh(spec);
    ASSERT_TRUE(in_process.cad_boundary);
    EXPECT_EQ(in_process.cad_boundary->lattice_order, 4);
    const test::MeshWorkerForTest worker;
    const Mesh isolated = load_gmsh_mesh_isolated(spec);
    ASSERT_TRUE(isolated.cad_boundary);
    EXPECT_EQ(isolated.cad_boundary->facets, in_process.cad_boundary->facets);
    EXPECT_EQ(isolated.cad_boundary->points, in_process.cad_boundary->points);

    spec.cache = true;
    const Mesh fresh = load_mesh(spec);
    const Mesh cached = load_mesh(spec);
    EXPECT_TRUE(std::equal(fresh.coordinates.begin(), fresh.coordinates.end(), cached.coordinates.begin(),
                           cached.coordinates.end()));
    EXPECT_LT(boundary_distance(cached, from_box_with_hole), 1e-12);
    spec.refine = 2;
    EXPECT_LT(boundary_distance(load_mesh(spec), from_box_with_hole), 1e-12);
}

TEST(RefinementOntoGeometry, TheLatticeNamesCornersAndEdgesFromEachEdgesFirstCorner)
{
    for (ElementType facet : {ElementType::line, ElementType::triangle, ElementType::quadrilateral}) {
        const std::vector<CadLatticePoint> lattice = cad_lattice(facet, 4);
        const int corners = element_node_count(facet);
        EXPECT_EQ(lattice.size(), facet == ElementType::line ? 5u : facet == ElementType::triangle ? 15u : 25u);
        int on_corners = 0, on_edges = 0;
        for (const CadLatticePoint& p : lattice) {
            on_corners += p.corner >= 0;
            on_edges += p.edge >= 0;
            if (p.edge >= 0) EXPECT_TRUE(p.step >= 1 && p.step <= 3);
        }
        EXPECT_EQ(on_corners, corners);
        EXPECT_EQ(on_edges, facet == ElementType::line ? 0 : 3 * corners);
    }
}

}  // namespace
}  // namespace gpufem
