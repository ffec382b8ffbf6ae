// The mesh cache across degrees and refinements: they are gpufem's work on Gmsh's mesh, so a
// mesh Gmsh made without regard to the degree serves every degree and refinement from one
// cache file, while on curved geometry, where the degree chooses the order of Gmsh's cells,
// each such order has its own. Either way a load from the cache gives exactly the mesh a load
// without it gives.
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "mesh/mesh_cache.hpp"
#include "mesh/mesh_cache_key.hpp"
#include "mesh/mesh_worker.hpp"
#include "tests/mesh/mesh_cache_test_support.hpp"
#include "tests/mesh/mesh_test_support.hpp"

namespace gpufem {
namespace {

namespace fs = std::filesystem;
using test::cached_spec;
using test::CountingLoad;

/// A unit square of straight lines: Gmsh makes first-order cells whatever the degree.
const std::string straight_geo = R"(lc = 0.4;
Point(1) = {0, 0, 0, lc}; Point(2) = {1, 0, 0, lc}; Point(3) = {1, 1, 0, lc}; Point(4) = {0, 1, 0, lc};
Line(1) = {1, 2}; Line(2) = {2, 3}; Line(3) = {3, 4}; Line(4) = {4, 1};
Curve Loop(1) = {1, 2, 3, 4}; Plane Surface(1) = {1};
Physical Surface("domain") = {1}; Physical Curve("edge") = {1, 2, 3, 4};
)";

/// The unit disk of four arcs: Gmsh makes cells of the degree's order, their nodes on the circle.
const std::string curved_geo = R"(lc = 0.5;
Point(1) = {0, 0, 0, lc}; Point(2) = {1, 0, 0, lc}; Point(3) = {0, 1, 0, lc};
Point(4) = {-1, 0, 0, lc}; Point(5) = {0, -1, 0, lc};
Circle(1) = {2, 1, 3}; Circle(2) = {3, 1, 4}; Circle(3) = {4, 1, 5}; Circle(4) = {5, 1, 2};
Curve Loop(1) = {1, 2, 3, 4}; Plane Surface(1) = {1};
Physical Surface("domain") = {1}; Physical Curve("boundary") = {1, 2, 3, 4};
)";

/// `spec` with another refinement and degree.
MeshSpec with(MeshSpec spec, int refine, int degree)
{
    spec.refine = refine;
    spec.degree = degree;
    return spec;
}

/// Expects the same final mesh: nodes, cells, groups, boundary facets and name.
void expect_same_final_mesh(const Mesh& cached, const Mesh& fresh)
{
    EXPECT_GT(cached.num_cells(), 0);
    EXPECT_EQ(cached.degree, fresh.degree);
    EXPECT_EQ(cached.coordinates, fresh.coordinates);
    EXPECT_EQ(cached.cells, fresh.cells);
    EXPECT_EQ(cached.cell_group, fresh.cell_group);
    EXPECT_EQ(cached.source, fresh.source);
    ASSERT_EQ(cached.boundary_names(), fresh.boundary_names());
    for (std::size_t b = 0; b < cached.boundaries.size(); ++b)
        EXPECT_EQ(cached.boundaries[b].connectivity, fresh.boundaries[b].connectivity) << cached.boundaries[b].group.name;
}

/// Loads `spec` through the cache (Gmsh's part counted by `load`) and refines and numbers it as
/// load_mesh does; expects the status `outcome` and exactly the mesh of a load without the cache.
void expect_load(CountingLoad& load, const MeshSpec& spec, MeshCacheStatus::Outcome outcome, const std::string& what)
{
    SCOPED_TRACE(what);
    const Mesh cached = finish_gmsh_mesh(load(spec), spec, nullptr);
    EXPECT_EQ(load.status.outcome, outcome) << load.status.describe();
    MeshSpec uncached = spec;
    uncached.cache = false;
    expect_same_final_mesh(cached, load_mesh(uncached));
}

constexpr auto hit = MeshCacheStatus::Outcome::hit;
constexpr auto stored = MeshCacheStatus::Outcome::stored;

TEST(MeshCacheDegrees, RefinementAndDegreeKeyOnlyTheOrderTheDegreeChooses)
{
    test::TempFolder folder;
    const MeshSpec spec = cached_spec(folder.write("square.geo", straight_geo));
    const auto keys = [&](int refine, int degree) { return mesh_cache_key(with(spec, refine, degree)); };
    const MeshCacheLookup base = keys(0, 1);
    ASSERT_TRUE(base.key && base.degree_order_key) << base.not_cached;
    EXPECT_NE(base.key->digest, base.degree_order_key->digest);
    for (const auto& [refine, degree] : std::vector<std::pair<int, int>>{{1, 1}, {0, 2}, {2, 3}, {1, 4}}) {
        const MeshCacheLookup lookup = keys(refine, degree);
        EXPECT_EQ(lookup.key->digest, base.key->digest) << "refine " << refine << ", degree " << degree;
        EXPECT_NE(lookup.degree_order_key->digest, base.degree_order_key->digest) << refine << ", " << degree;
    }
    // Degrees 1 and 2 refined alike ask Gmsh for cells of order 2 on curves, with the
    // geometry's points for that many refinements; unrefined degree 2 for the cells alone.
    EXPECT_EQ(keys(1, 1).degree_order_key->digest, keys(1, 2).degree_order_key->digest);
    EXPECT_NE(keys(1, 2).degree_order_key->digest, keys(0, 2).degree_order_key->digest);
    EXPECT_NE(keys(3, 2).degree_order_key->digest, keys(1, 2).degree_order_key->digest);
    MeshSpec on_maps = with(spec, 3, 2);
    on_maps.snap_to_geometry = false;
    EXPECT_EQ(mesh_cache_key(on_maps).degree_order_key->digest, keys(0, 2).degree_order_key->digest);
    // With gmsh_nodes Gmsh refines and places every node itself.
    MeshSpec by_gmsh = spec;
    by_gmsh.gmsh_nodes = true;
    EXPECT_NE(mesh_cache_key(with(by_gmsh, 1, 2)).key->digest, mesh_cache_key(with(by_gmsh, 0, 2)).key->digest);
    EXPECT_NE(mesh_cache_key(with(by_gmsh, 0, 3)).key->digest, mesh_cache_key(with(by_gmsh, 0, 2)).key->digest);
}

TEST(MeshCacheDegrees, StraightGeometryServesEveryDegreeAndRefinementFromOneFile)
{
    test::TempFolder folder;
    const MeshSpec spec = cached_spec(folder.write("square.geo", straight_geo));
    CountingLoad load;
    expect_load(load, spec, stored, "degree 1");
    for (const auto& [refine, degree] : std::vector<std::pair<int, int>>{{0, 2}, {0, 3}, {1, 1}, {1, 2}, {0, 1}}) {
        EXPECT_TRUE(mesh_cache_file_present(with(spec, refine, degree)));
        expect_load(load, with(spec, refine, degree), hit,
                    "refine " + std::to_string(refine) + ", degree " + std::to_string(degree));
    }
    EXPECT_EQ(load.meshings, 1) << "a hit does not mesh";
    EXPECT_EQ(test::cache_files(spec.path).size(), 1u);
    // What changes Gmsh's mesh still misses, whatever the degree.
    MeshSpec finer = with(spec, 0, 2);
    finer.size = 0.3;
    expect_load(load, finer, stored, "another size");
    folder.write("square.geo", "// edited\n" + straight_geo);
    expect_load(load, with(spec, 1, 3), stored, "the .geo edited");
    EXPECT_EQ(load.meshings, 3);
}

TEST(MeshCacheDegrees, FirstOrderMeshFilesServeEveryDegree)
{
    test::TempFolder folder;
    MeshSpec spec = cached_spec(folder.write("square.geo", straight_geo));
    MeshSpec made = spec;
    made.cache = false;
    const Mesh mesh = load_mesh(made);
    // The same square as a first-order MSH 2.2 file, from the .geo's mesh.
    std::string msh = "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n" + std::to_string(mesh.num_nodes()) + "\n";
    for (index_type n = 0; n < mesh.num_nodes(); ++n)
        msh += std::to_string(n + 1) + " " + std::to_string(mesh.coordinates[3 * n]) + " " +
               std::to_string(mesh.coordinates[3 * n + 1]) + " 0\n";
    msh += "$EndNodes\n$Elements\n" + std::to_string(mesh.num_cells()) + "\n";
    for (index_type c = 0; c < mesh.num_cells(); ++c)
        msh += std::to_string(c + 1) + " 2 2 1 1 " + std::to_string(mesh.cells[3 * c] + 1) + " " +
               std::to_string(mesh.cells[3 * c + 1] + 1) + " " + std::to_string(mesh.cells[3 * c + 2] + 1) + "\n";
    msh += "$EndElements\n";
    const MeshSpec file = cached_spec(folder.write("square.msh", msh), MeshSpec::Kind::file);
    CountingLoad load;
    expect_load(load, file, stored, "degree 1");
    expect_load(load, with(file, 0, 3), hit, "degree 3");
    expect_load(load, with(file, 2, 2), hit, "refine 2, degree 2");
    EXPECT_EQ(load.meshings, 1);
}

TEST(MeshCacheDegrees, CurvedGeometryHasAFilePerOrderOfGmshsCells)
{
    test::TempFolder folder;
    const MeshSpec spec = cached_spec(folder.write("disk.geo", curved_geo));
    CountingLoad load;
    expect_load(load, spec, stored, "degree 1: order 1");
    EXPECT_EQ(load(spec).degree, 1);
    expect_load(load, with(spec, 0, 2), stored, "degree 2: order 2, nodes on the circle");
    EXPECT_EQ(load(with(spec, 0, 2)).degree, 2);
    // Refined, the cells of order 2 carry the circle's points for that many refinements.
    expect_load(load, with(spec, 1, 1), stored, "degree 1 refined: order 2, points for 1 refinement");
    expect_load(load, with(spec, 1, 2), hit, "degree 2 refined: order 2, points for 1 refinement");
    expect_load(load, with(spec, 2, 2), stored, "degree 2 refined twice: points for 2 refinements");
    expect_load(load, with(spec, 0, 3), stored, "degree 3: order 3");
    expect_load(load, spec, hit, "degree 1 again");
    EXPECT_EQ(load.meshings, 5);
    EXPECT_EQ(test::cache_files(spec.path).size(), 5u);
    // A geometry_order given fixes Gmsh's order: one file for every degree (and one per
    // number of refinements, for the points).
    MeshSpec fixed = spec;
    fixed.geometry_order = 2;
    expect_load(load, fixed, stored, "geometry_order 2, degree 1");
    expect_load(load, with(fixed, 0, 3), hit, "geometry_order 2, degree 3");
    expect_load(load, with(fixed, 1, 2), stored, "geometry_order 2, refine 1, degree 2");
    expect_load(load, with(fixed, 1, 3), hit, "geometry_order 2, refine 1, degree 3");
    EXPECT_EQ(load.meshings, 7);
}

TEST(MeshCacheDegrees, TheWorkerSaysWhetherTheDegreeChoseTheOrder)
{
    // Through the worker the cache must still tell curved geometry (a file per order) from
    // straight (one file).
    const test::MeshWorkerForTest worker;
    test::TempFolder folder;
    const auto statuses = [](const MeshSpec& spec, const std::vector<std::pair<int, int>>& loads) {
        std::string text;
        for (const auto& [refine, degree] : loads) {
            MeshCacheStatus status;
            load_mesh_isolated(with(spec, refine, degree), nullptr, &status);
            text += status.describe() + " ";
        }
        return text;
    };
    const MeshSpec curved = cached_spec(folder.write("disk.geo", curved_geo));
    EXPECT_EQ(statuses(curved, {{0, 1}, {0, 2}, {1, 1}, {1, 2}}), "stored stored stored hit ");
    const MeshSpec straight = cached_spec(folder.write("square.geo", straight_geo));
    EXPECT_EQ(statuses(straight, {{0, 1}, {0, 2}, {1, 1}}), "stored hit hit ");
}

}  // namespace
}  // namespace gpufem
