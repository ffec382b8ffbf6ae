// Reading .msh files (MSH 2.2 / 4.1, ASCII / binary) and meshing .geo files.
#include <fstream>
#include <iostream>
#include <numbers>

#include <gmsh.h>
#include <gtest/gtest.h>
#include <omp.h>

#include "mesh/gmsh_extract.hpp"
#include "mesh/gmsh_session.hpp"
#include "mesh/mesh_source.hpp"
#include "tests/mesh/mesh_test_support.hpp"

namespace gpufem {
namespace {

using test::error_of;
using test::facets_measure;
using test::mesh_measure;
using test::TempFolder;

namespace geo = gmsh::model::geo;

/// A .msh flavour: MSH version and ASCII/binary.
struct MshFormat {
    double version;
    bool binary;
    const char* file_name;
};

const std::vector<MshFormat> msh_formats = {
    {2.2, false, "mesh22.msh"}, {4.1, false, "mesh41.msh"}, {4.1, true, "mesh41b.msh"}};

/// Builds the 2D test model in the current Gmsh session: the rectangle [0,2]x[0,1] split at
/// x = 1 into two surfaces ('left_part', 'right_part'), with boundary groups 'inlet' (x=0),
/// 'walls' (y=0 and y=1), an unnamed group (x=2) and, unless `groups` is false, nothing else.
void build_two_part_model(bool groups, bool recombine_right = false)
{
    const double h = 0.3;
    const int p1 = geo::addPoint(0, 0, 0, h), p2 = geo::addPoint(1, 0, 0, h);
    const int p3 = geo::addPoint(2, 0, 0, h), p4 = geo::addPoint(2, 1, 0, h);
    const int p5 = geo::addPoint(1, 1, 0, h), p6 = geo::addPoint(0, 1, 0, h);
    const int b1 = geo::addLine(p1, p2), b2 = geo::addLine(p2, p3), r = geo::addLine(p3, p4);
    const int t2 = geo::addLine(p4, p5), t1 = geo::addLine(p5, p6), l = geo::addLine(p6, p1);
    const int mid = geo::addLine(p2, p5);
    const int left = geo::addPlaneSurface({geo::addCurveLoop({b1, mid, t1, l})});
    const int right = geo::addPlaneSurface({geo::addCurveLoop({b2, r, t2, -mid})});
    if (recombine_right) geo::mesh::setRecombine(2, right);
    geo::synchronize();
    if (groups) {
        gmsh::model::addPhysicalGroup(2, {left}, 10);
        gmsh::model::setPhysicalName(2, 10, "left_part");
        gmsh::model::addPhysicalGroup(2, {right}, 20);
        gmsh::model::setPhysicalName(2, 20, "right_part");
        gmsh::model::addPhysicalGroup(1, {l}, 1);
        gmsh::model::setPhysicalName(1, 1, "inlet");
        gmsh::model::addPhysicalGroup(1, {b1, b2, t1, t2}, 2);
        gmsh::model::setPhysicalName(1, 2, "walls");
        gmsh::model::addPhysicalGroup(1, {r}, 7);  // unnamed
        gmsh::model::addPhysicalGroup(1, {b1, r, l}, 8);
        gmsh::model::setPhysicalName(1, 8, "mixed_sides");  // overlaps 'inlet' and 'walls'
    }
    gmsh::model::mesh::generate(2);
}

/// Writes the current model's mesh in one MSH flavour.
void write_msh(const std::filesystem::path& path, double version, bool binary)
{
    gmsh::option::setNumber("Mesh.MshFileVersion", version);
    gmsh::option::setNumber("Mesh.Binary", binary ? 1 : 0);
    gmsh::write(path.string());
}

Mesh load_file(const std::filesystem::path& path, int refine = 0)
{
    return test::load_path_mesh(MeshSpec::Kind::file, path, 1, refine);
}

void expect_same_groups(const PhysicalGroup& a, const PhysicalGroup& b)
{
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.dim, b.dim);
    EXPECT_EQ(a.tag, b.tag);
}

/// Expects two meshes to be the same up to Mesh::source (coordinates to 1e-14: ASCII MSH
/// files hold 16 significant digits, one short of a round trip).
void expect_same_mesh(const Mesh& a, const Mesh& b)
{
    EXPECT_EQ(a.dim, b.dim);
    EXPECT_EQ(a.cell_type, b.cell_type);
    ASSERT_EQ(a.coordinates.size(), b.coordinates.size());
    for (std::size_t i = 0; i < a.coordinates.size(); ++i)
        ASSERT_NEAR(a.coordinates[i], b.coordinates[i], 1e-14) << "coordinate " << i;
    EXPECT_EQ(a.cells, b.cells);
    EXPECT_EQ(a.cell_group, b.cell_group);
    ASSERT_EQ(a.subdomains.size(), b.subdomains.size());
    for (std::size_t i = 0; i < a.subdomains.size(); ++i)
        expect_same_groups(a.subdomains[i], b.subdomains[i]);
    ASSERT_EQ(a.boundaries.size(), b.boundaries.size());
    for (std::size_t i = 0; i < a.boundaries.size(); ++i) {
        expect_same_groups(a.boundaries[i].group, b.boundaries[i].group);
        EXPECT_EQ(a.boundaries[i].type, b.boundaries[i].type);
        EXPECT_EQ(a.boundaries[i].connectivity, b.boundaries[i].connectivity)
            << a.boundaries[i].group.name;
    }
}

TEST(MshFiles, AllFormatsReadBackAsExtracted)
{
    TempFolder folder;
    Mesh reference;
    {
        GmshSession session;
        build_two_part_model(true);
        reference = extract_mesh("model");
        for (const MshFormat& format : msh_formats)
            write_msh(folder / format.file_name, format.version, format.binary);
    }
    // The reference itself: two subdomains, four boundary groups, measures right.
    EXPECT_EQ(reference.cell_type, ElementType::triangle);
    EXPECT_NEAR(mesh_measure(reference), 2.0, 1e-12);
    ASSERT_EQ(reference.subdomains.size(), 2u);
    EXPECT_EQ(reference.subdomains[0].name, "left_part");
    EXPECT_EQ(reference.subdomains[1].tag, 20);
    EXPECT_EQ(reference.boundary_names(),
              (std::vector<std::string>{"inlet", "walls", "group7", "mixed_sides"}));
    EXPECT_NEAR(facets_measure(reference, *reference.find_boundary("inlet")), 1.0, 1e-12);
    EXPECT_NEAR(facets_measure(reference, *reference.find_boundary("walls")), 4.0, 1e-12);
    EXPECT_NEAR(facets_measure(reference, *reference.find_boundary("group7")), 1.0, 1e-12);
    EXPECT_NEAR(facets_measure(reference, *reference.find_boundary("mixed_sides")), 3.0, 1e-12);
    double left_area = 0;
    for (index_type c = 0; c < reference.num_cells(); ++c) {
        ASSERT_TRUE(reference.cell_group[c] == 10 || reference.cell_group[c] == 20);
        if (reference.cell_group[c] == 10) left_area += test::cell_measure(reference, c);
    }
    EXPECT_NEAR(left_area, 1.0, 1e-12);

    for (const MshFormat& format : msh_formats) {
        SCOPED_TRACE(format.file_name);
        const Mesh mesh = load_file(folder / format.file_name);
        EXPECT_EQ(mesh.source, (folder / format.file_name).string());
        expect_same_mesh(mesh, reference);
        if (format.binary) {
            EXPECT_EQ(mesh.coordinates, reference.coordinates);
        }
    }
}

TEST(MshFiles, ThreeDimensionalBinaryFile)
{
    TempFolder folder;
    Mesh reference;
    {
        GmshSession session;
        const int p1 = geo::addPoint(0, 0, 0, 0.5), p2 = geo::addPoint(1, 0, 0, 0.5);
        const int p3 = geo::addPoint(1, 1, 0, 0.5), p4 = geo::addPoint(0, 1, 0, 0.5);
        const std::vector<int> curves = {geo::addLine(p1, p2), geo::addLine(p2, p3),
                                         geo::addLine(p3, p4), geo::addLine(p4, p1)};
        const int square = geo::addPlaneSurface({geo::addCurveLoop(curves)});
        gmsh::vectorpair out;
        geo::extrude({{2, square}}, 0, 0, 1, out);
        geo::synchronize();
        gmsh::model::addPhysicalGroup(3, {out[1].second}, 5);
        gmsh::model::setPhysicalName(3, 5, "solid");
        gmsh::model::addPhysicalGroup(2, {square, out[0].second}, 3);
        gmsh::model::setPhysicalName(2, 3, "ends");
        gmsh::model::mesh::generate(3);
        reference = extract_mesh("model");
        write_msh(folder / "cube.msh", 4.1, true);
    }
    EXPECT_EQ(reference.dim, 3);
    EXPECT_EQ(reference.cell_type, ElementType::tetrahedron);
    EXPECT_NEAR(mesh_measure(reference), 1.0, 1e-12);
    ASSERT_EQ(reference.boundary_names(), std::vector<std::string>{"ends"});
    EXPECT_EQ(reference.boundaries[0].type, ElementType::triangle);
    EXPECT_NEAR(facets_measure(reference, reference.boundaries[0]), 2.0, 1e-12);
    expect_same_mesh(load_file(folder / "cube.msh"), reference);
}

TEST(MshFiles, RefineSplitsFileMeshes)
{
    TempFolder folder;
    {
        GmshSession session;
        build_two_part_model(true);
        write_msh(folder / "a.msh", 4.1, false);
    }
    const Mesh coarse = load_file(folder / "a.msh");
    const Mesh fine = load_file(folder / "a.msh", 1);
    EXPECT_EQ(fine.num_cells(), 4 * coarse.num_cells());
    EXPECT_NEAR(mesh_measure(fine), 2.0, 1e-12);
    EXPECT_NEAR(facets_measure(fine, *fine.find_boundary("walls")), 4.0, 1e-12);
    EXPECT_EQ(fine.find_boundary("walls")->size(), 2 * coarse.find_boundary("walls")->size());
}

TEST(MshFiles, NoPhysicalGroupsStillLoads)
{
    TempFolder folder;
    {
        GmshSession session;
        build_two_part_model(false);
        write_msh(folder / "plain.msh", 4.1, false);
    }
    const Mesh mesh = load_file(folder / "plain.msh");
    EXPECT_EQ(mesh.cell_type, ElementType::triangle);
    EXPECT_NEAR(mesh_measure(mesh), 2.0, 1e-12);
    EXPECT_TRUE(mesh.boundaries.empty());
    EXPECT_TRUE(mesh.subdomains.empty());
    for (int g : mesh.cell_group) ASSERT_EQ(g, 0);
}

TEST(MshFiles, MixedCellTypesLoadAsAMixedFirstOrderMesh)
{
    // Triangles (left) and quadrilaterals (right): one mesh, each cell's type kept, rows
    // padded to four nodes with -1; the boundary group holding both sides' lines.
    TempFolder folder;
    {
        GmshSession session;
        build_two_part_model(true, /*recombine_right=*/true);
        write_msh(folder / "mixed.msh", 4.1, false);
        gmsh::model::mesh::setOrder(2);
        write_msh(folder / "mixed2.msh", 4.1, false);
    }
    const Mesh mesh = load_file(folder / "mixed.msh");
    ASSERT_TRUE(mesh.is_mixed());
    EXPECT_EQ(mesh.cell_type, ElementType::quadrilateral);
    EXPECT_EQ(mesh.nodes_per_cell, 4);
    ASSERT_EQ(mesh.cell_types.size(), static_cast<std::size_t>(mesh.num_cells()));
    long long triangles = 0, quadrilaterals = 0;
    for (index_type c = 0; c < mesh.num_cells(); ++c) {
        const index_type last = mesh.cells[static_cast<std::size_t>(c) * 4 + 3];
        if (mesh.type_of_cell(c) == ElementType::triangle) {
            ++triangles;
            EXPECT_EQ(last, -1) << "cell " << c;
        } else {
            ++quadrilaterals;
            EXPECT_EQ(mesh.type_of_cell(c), ElementType::quadrilateral);
            EXPECT_GE(last, 0) << "cell " << c;
        }
    }
    EXPECT_GT(triangles, 0);
    EXPECT_GT(quadrilaterals, 0);
    EXPECT_NE(mesh.describe_cells().find("triangles"), std::string::npos) << mesh.describe_cells();
    // Of second order the same model loads too: numbered from its corners, each cell's
    // order-2 map placing the nodes (on this flat model, where order 1 puts them).
    const Mesh second = load_file(folder / "mixed2.msh");
    ASSERT_TRUE(second.is_mixed());
    EXPECT_EQ(second.cell_types, mesh.cell_types);
    EXPECT_EQ(second.num_nodes(), mesh.num_nodes());
    for (std::size_t i = 0; i < mesh.coordinates.size(); ++i)
        ASSERT_NEAR(second.coordinates[i], mesh.coordinates[i], 1e-12) << i;
}

TEST(GeoFiles, TheDefaultGmshThreadsMakeTheSameTetrahedraEveryTime)
{
    // HXT on several threads (or with Gmsh's logger running) varies its mesh from run to run;
    // on one thread (mesh.gmsh_threads' default) two meshings of a .geo, each in a fresh
    // worker as gpufem meshes, give the same nodes and cells.
    TempFolder folder;
    const test::MeshWorkerForTest worker;
    const auto geo = folder / "box.geo";
    std::ofstream(geo) << "SetFactory(\"OpenCASCADE\");\nBox(1) = {0, 0, 0, 1, 1, 1};\n"
                          "Physical Volume(\"domain\") = {1};\nPhysical Surface(\"boundary\") = {1, 2, 3, 4, 5, 6};\n";
    MeshSpec spec;
    spec.kind = MeshSpec::Kind::geo;
    spec.path = geo.string();
    spec.size = 0.12;
    const Mesh first = load_mesh_isolated(spec);
    for (int again = 0; again < 3; ++again) {
        const Mesh other = load_mesh_isolated(spec);
        EXPECT_GT(first.num_cells(), 1000);
        EXPECT_EQ(first.cells, other.cells) << "meshing " << again + 2;
        EXPECT_EQ(first.coordinates, other.coordinates) << "meshing " << again + 2;
    }
}

TEST(GeoFiles, AllThreadsMeansTheHostsNotTheOneGmshGivesOpenMp)
{
    // gmsh::initialize sets OpenMP's thread count to Gmsh's General.NumThreads (1): inside a
    // session "all of the host's threads" (gmsh_threads: 0) must come from before it. (They
    // came from OpenMP inside the session, so gmsh_threads: 0 meshed on one thread.)
    const int before = omp_get_max_threads();
    omp_set_num_threads(3);
    {
        const GmshSession session;
        EXPECT_EQ(session.host_threads(), 3);
        EXPECT_EQ(gmsh_meshing_threads(0, session), 3);
        EXPECT_EQ(gmsh_meshing_threads(1, session), 1);
        EXPECT_EQ(gmsh_meshing_threads(5, session), 5);
        std::cout << "OpenMP threads inside the session: " << omp_get_max_threads() << "\n";
    }
    EXPECT_EQ(omp_get_max_threads(), 3) << "the session gives the threads back";
    omp_set_num_threads(before);
}

TEST(MshFiles, MissingBrokenAndMisusedFilesAreNamed)
{
    TempFolder folder;
    const std::string missing = (folder / "nope.msh").string();
    std::string message = error_of([&] { load_file(missing); });
    EXPECT_NE(message.find("'" + missing + "' not found"), std::string::npos) << message;

    message = error_of([&] { load_file(folder.path()); });
    EXPECT_NE(message.find("folder"), std::string::npos) << message;

    std::ofstream(folder / "garbage.msh") << "this is not a mesh\n1 2 3\n";
    message = error_of([&] { load_file(folder / "garbage.msh"); });
    EXPECT_NE(message.find("garbage.msh"), std::string::npos) << message;

    std::ofstream(folder / "empty.msh") << "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n";
    message = error_of([&] { load_file(folder / "empty.msh"); });
    EXPECT_NE(message.find("no 2D or 3D cells"), std::string::npos) << message;

    MeshSpec sized;
    sized.kind = MeshSpec::Kind::file;
    sized.path = (folder / "empty.msh").string();
    sized.size = 0.1;
    message = error_of([&] { load_mesh(sized); });
    EXPECT_NE(message.find("mesh size"), std::string::npos) << message;
}

/// A hand-written MSH 2.2 file with sparse node tags, listed out of order, one node no cell
/// uses, and a boundary line (on nodes `line_nodes`).
void write_sparse_msh(const std::filesystem::path& path, const std::string& line_nodes)
{
    std::ofstream(path) << "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n"
                           "$PhysicalNames\n2\n1 3 \"bottom\"\n2 7 \"plate\"\n$EndPhysicalNames\n"
                           "$Nodes\n6\n"
                           "40 1 1 0\n10 0 0 0\n20 1 0 0\n30 0 1 0\n99 5 5 0\n50 2 0 0\n"
                           "$EndNodes\n"
                           "$Elements\n4\n"
                           "1 2 2 7 1 10 20 40\n2 2 2 7 1 10 40 30\n3 2 2 7 1 20 50 40\n"
                           "4 1 2 3 5 "
                        << line_nodes << "\n$EndElements\n";
}

TEST(MshFiles, NodesAreThoseOfTheCellsInTagOrder)
{
    TempFolder folder;
    write_sparse_msh(folder / "sparse.msh", "10 20");
    const Mesh mesh = load_file(folder / "sparse.msh");
    EXPECT_EQ(std::vector<double>(mesh.coordinates.begin(), mesh.coordinates.end()), (std::vector<double>{0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 2, 0, 0}));
    EXPECT_EQ(std::vector<index_type>(mesh.cells.begin(), mesh.cells.end()), (std::vector<index_type>{0, 1, 3, 0, 3, 2, 1, 4, 3}));
    EXPECT_EQ(mesh.cell_group, (HostVector<int>{7, 7, 7}));
    ASSERT_EQ(mesh.subdomains.size(), 1u);
    EXPECT_EQ(mesh.subdomains[0].name, "plate");
    ASSERT_EQ(mesh.boundary_names(), std::vector<std::string>{"bottom"});
    EXPECT_EQ(mesh.boundaries[0].group.tag, 3);
    EXPECT_EQ(mesh.boundaries[0].connectivity, (std::vector<index_type>{0, 1}));

    // A group with a facet on a node no cell uses does not make the mesh unusable: it is
    // ignored, with the reason, unless a condition names it (test_end_to_end).
    write_sparse_msh(folder / "stray.msh", "20 99");
    const Mesh stray = load_file(folder / "stray.msh");
    EXPECT_TRUE(stray.boundaries.empty());
    ASSERT_EQ(stray.ignored_boundaries.size(), 1u);
    EXPECT_EQ(stray.ignored_boundaries[0].name, "bottom");
    EXPECT_NE(stray.ignored_boundaries[0].reason.find("'bottom'"), std::string::npos);
    EXPECT_NE(stray.ignored_boundaries[0].reason.find("node 99, which no cell uses"), std::string::npos)
        << stray.ignored_boundaries[0].reason;
}

/// A .geo file: the rectangle [0,2]x[0,1] with characteristic length 0.5 and named groups.
void write_geo(const std::filesystem::path& path)
{
    std::ofstream(path) << "lc = 0.5;\n"
                           "Point(1) = {0, 0, 0, lc};\n"
                           "Point(2) = {2, 0, 0, lc};\n"
                           "Point(3) = {2, 1, 0, lc};\n"
                           "Point(4) = {0, 1, 0, lc};\n"
                           "Line(1) = {1, 2};\n"
                           "Line(2) = {2, 3};\n"
                           "Line(3) = {3, 4};\n"
                           "Line(4) = {4, 1};\n"
                           "Curve Loop(1) = {1, 2, 3, 4};\n"
                           "Plane Surface(1) = {1};\n"
                           "Physical Curve(\"bottom\") = {1};\n"
                           "Physical Curve(\"sides\") = {2, 4};\n"
                           "Physical Surface(\"plate\") = {1};\n";
}

Mesh load_geo(const std::filesystem::path& path, double size, int refine)
{
    MeshSpec spec;
    spec.kind = MeshSpec::Kind::geo;
    spec.path = path.string();
    spec.size = size;
    spec.refine = refine;
    return load_mesh(spec);
}

TEST(GeoFiles, MeshedWithSizeAndRefine)
{
    TempFolder folder;
    const auto path = folder / "plate.geo";
    write_geo(path);

    const Mesh own = load_geo(path, 0, 0);
    const Mesh sized = load_geo(path, 0.2, 0);
    const Mesh refined = load_geo(path, 0.2, 1);
    EXPECT_EQ(own.source, path.string());
    EXPECT_EQ(refined.source, path.string() + " (h=0.2, refine 1)");
    EXPECT_GT(sized.num_cells(), own.num_cells());
    EXPECT_EQ(refined.num_cells(), 4 * sized.num_cells());
    for (const Mesh* mesh : {&own, &sized, &refined}) {
        EXPECT_EQ(mesh->cell_type, ElementType::triangle);
        EXPECT_NEAR(mesh_measure(*mesh), 2.0, 1e-12);
        ASSERT_EQ(mesh->boundary_names(), (std::vector<std::string>{"bottom", "sides"}));
        EXPECT_NEAR(facets_measure(*mesh, *mesh->find_boundary("bottom")), 2.0, 1e-12);
        EXPECT_NEAR(facets_measure(*mesh, *mesh->find_boundary("sides")), 2.0, 1e-12);
        ASSERT_EQ(mesh->subdomains.size(), 1u);
        EXPECT_EQ(mesh->subdomains[0].name, "plate");
    }
    // h = 0.2 on the bottom edge of length 2: at least 10 segments.
    EXPECT_GE(sized.find_boundary("bottom")->size(), 10u);
}

TEST(GeoFiles, ErrorsNameTheFile)
{
    TempFolder folder;
    const std::string missing = (folder / "nope.geo").string();
    std::string message = error_of([&] { load_geo(missing, 0, 0); });
    EXPECT_NE(message.find("'" + missing + "' not found"), std::string::npos) << message;

    std::ofstream(folder / "broken.geo") << "Point(1) = {0, 0, 0 0.1};\nFoo;\n";
    message = error_of([&] { load_geo(folder / "broken.geo", 0, 0); });
    EXPECT_NE(message.find("broken.geo"), std::string::npos) << message;

    std::ofstream(folder / "points.geo") << "Point(1) = {0, 0, 0, 0.1};\n";
    message = error_of([&] { load_geo(folder / "points.geo", 0, 0); });
    EXPECT_NE(message.find("no surface or volume"), std::string::npos) << message;

    // A syntax error must not break Gmsh's parser for the files read after it.
    write_geo(folder / "plate.geo");
    EXPECT_NEAR(mesh_measure(load_geo(folder / "plate.geo", 0, 0)), 2.0, 1e-12);
}

}  // namespace
}  // namespace gpufem
