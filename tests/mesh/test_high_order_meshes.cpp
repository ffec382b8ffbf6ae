// High-order meshes (spec.degree 1..4, boxes 1..8 with GLL nodes from 5): node counts, node
// placement in Gmsh's reference order,
// boundary facets of the cells' order, curved boundaries, .msh files of other orders, errors.
#include <algorithm>
#include <cstdlib>
#include <string>
#include <array>
#include <cmath>
#include <fstream>
#include <map>
#include <numbers>
#include <set>
#include <span>

#include <gmsh.h>
#include <gtest/gtest.h>

#include "mesh/gmsh_extract.hpp"
#include "mesh/gmsh_session.hpp"
#include "mesh/lagrange_basis.hpp"
#include "mesh/mesh_refinement.hpp"
#include "mesh/mesh_source.hpp"
#include "tests/mesh/high_order_checks.hpp"
#include "tests/mesh/mesh_test_support.hpp"

namespace gpufem {
namespace {

using test::error_of;
using test::expect_facets_in_cells;
using test::expect_nodes_at_reference_positions;
using test::lagrange_nodes;
using test::node;
using test::TempFolder;

namespace geo = gmsh::model::geo;

Mesh load_shape(const std::string& shape, const std::string& elements, double size, int order,
                int refine = 0)
{
    return test::load_shape_mesh(shape, elements, size, order, refine);
}

Mesh load_path(MeshSpec::Kind kind, const std::filesystem::path& path, int order, int refine = 0)
{
    return test::load_path_mesh(kind, path, order, refine);
}

/// One small straight-sided shape meshed with one cell type.
struct StraightCase {
    std::string shape, elements;
    ElementType type;
};

const std::vector<StraightCase> straight_cases = {
    {"unit_square", "triangle", ElementType::triangle},
    {"unit_square", "quadrilateral", ElementType::quadrilateral},
    {"unit_cube", "tetrahedron", ElementType::tetrahedron},
    {"unit_cube", "hexahedron", ElementType::hexahedron},
};

TEST(HighOrderShapes, NodeCountsPlacementAndFacets)
{
    for (const StraightCase& c : straight_cases) {
        const Mesh linear = load_shape(c.shape, c.elements, 0.5, 1);
        const int dim = linear.dim;
        const bool box = c.type == ElementType::quadrilateral || c.type == ElementType::hexahedron;
        // Entity counts of the first-order mesh (Euler characteristic 1 of a ball).
        const index_type V = linear.num_nodes(), C = linear.num_cells();
        const index_type boundary = static_cast<index_type>(linear.find_boundary("boundary")->size());
        index_type E = 0, F = 0;
        if (dim == 2) {
            F = C;
            E = V + F - 1;
        } else {
            F = ((box ? 6 : 4) * C + boundary) / 2;
            E = V + F - C - 1;
        }
        for (int k = 1; k <= max_lagrange_degree(c.type); ++k) {
            SCOPED_TRACE(c.shape + "/" + c.elements + "/order " + std::to_string(k));
            const Mesh mesh = load_shape(c.shape, c.elements, 0.5, k);
            EXPECT_EQ(mesh.cell_type, c.type);
            EXPECT_EQ(mesh.degree, k);
            ASSERT_EQ(mesh.nodes_per_cell, lagrange_node_count(c.type, k));
            ASSERT_EQ(mesh.num_cells(), C);
            EXPECT_EQ(mesh.source.find(", order") != std::string::npos, k > 1) << mesh.source;
            if (k > 1) {
                EXPECT_NE(mesh.source.find(", order " + std::to_string(k) + ")"), std::string::npos)
                    << mesh.source;
            }
            const index_type expected = dim == 2 ? lagrange_nodes(c.type, k, V, E, C, 0)
                                                 : lagrange_nodes(c.type, k, V, E, F, C);
            EXPECT_EQ(mesh.num_nodes(), expected);
            if (box) {  // structured n x n (x n) grid, n = 2
                EXPECT_EQ(mesh.num_nodes(), dim == 2 ? (2 * k + 1) * (2 * k + 1)
                                                     : (2 * k + 1) * (2 * k + 1) * (2 * k + 1));
            }

            // Every node used; no cell repeats a node; vertices as in the first-order mesh.
            std::vector<char> used(mesh.num_nodes(), 0);
            for (index_type e = 0; e < mesh.num_cells(); ++e) {
                const auto first = mesh.cells.begin() + e * mesh.nodes_per_cell;
                const std::set<index_type> distinct(first, first + mesh.nodes_per_cell);
                ASSERT_EQ(distinct.size(), static_cast<std::size_t>(mesh.nodes_per_cell));
                for (index_type n : distinct) used[n] = 1;
                for (int v = 0; v < element_node_count(c.type); ++v)
                    ASSERT_EQ(node(mesh, first[v]),
                              node(linear, linear.cells[e * linear.nodes_per_cell + v]));
            }
            EXPECT_EQ(std::count(used.begin(), used.end(), 1), mesh.num_nodes());
            expect_nodes_at_reference_positions(mesh, c.type, k, mesh.cells);
            if (k > 1) {  // gpufem's numbering of the first-order mesh places the same nodes
                const Mesh raised = with_degree(linear, k, Executor::create_cpu());
                EXPECT_EQ(raised.num_nodes(), mesh.num_nodes());
                expect_nodes_at_reference_positions(raised, c.type, k, raised.cells);
            }

            // Boundary facets: the cells' order, all their nodes, in the groups' planes.
            ASSERT_EQ(mesh.boundary_names(), linear.boundary_names());
            for (const BoundaryFacets& facets : mesh.boundaries) {
                SCOPED_TRACE(facets.group.name);
                const BoundaryFacets& facets1 = *linear.find_boundary(facets.group.name);
                EXPECT_EQ(facets.degree, k);
                EXPECT_EQ(facets.type, facets1.type);
                ASSERT_EQ(facets.nodes_per_facet, lagrange_node_count(facets.type, k));
                if (dim == 2) {
                    EXPECT_EQ(facets.nodes_per_facet, k + 1);
                }
                ASSERT_EQ(facets.size(), facets1.size());
                expect_facets_in_cells(mesh, facets);
                expect_nodes_at_reference_positions(mesh, facets.type, k, facets.connectivity);
                if (facets.group.name == "left") {
                    for (index_type n : facets.connectivity) ASSERT_EQ(node(mesh, n)[0], 0.0);
                }
            }
        }
    }
}

/// Area of a 2D mesh of any order by Gauss quadrature of its isoparametric map; also
/// expects the map's Jacobian determinant to be positive at every quadrature point.
double isoparametric_area(const Mesh& mesh)
{
    std::vector<double> points, weights;
    {
        GmshSession session;
        const int gmsh_type = gmsh::model::mesh::getElementType(
            mesh.cell_type == ElementType::triangle ? "Triangle" : "Quadrangle", 1);
        gmsh::model::mesh::getIntegrationPoints(gmsh_type, "Gauss" + std::to_string(2 * mesh.degree),
                                                points, weights);
    }
    std::vector<double> uv, values, gradients;
    for (std::size_t q = 0; q < weights.size(); ++q) {
        uv.push_back(points[3 * q]);
        uv.push_back(points[3 * q + 1]);
    }
    lagrange_basis(mesh.cell_type, mesh.degree, uv, values, gradients);
    const int n = mesh.nodes_per_cell;
    double area = 0;
    for (index_type e = 0; e < mesh.num_cells(); ++e) {
        for (std::size_t q = 0; q < weights.size(); ++q) {
            double J[2][2] = {};
            for (int i = 0; i < n; ++i) {
                const auto x = node(mesh, mesh.cells[e * n + i]);
                for (int a = 0; a < 2; ++a)
                    for (int b = 0; b < 2; ++b) J[a][b] += x[a] * gradients[(q * n + i) * 2 + b];
            }
            const double det = J[0][0] * J[1][1] - J[0][1] * J[1][0];
            EXPECT_GT(det, 0) << "cell " << e;
            area += weights[q] * det;
        }
    }
    return area;
}

TEST(HighOrderShapes, DiskBoundaryNodesLieOnTheCircle)
{
    const double pi = std::numbers::pi;
    double linear_error = 0;
    for (const char* elements : {"triangle", "quadrilateral"}) {
        for (int k = 1; k <= 4; ++k) {
            SCOPED_TRACE(std::string(elements) + "/order " + std::to_string(k));
            const Mesh mesh = load_shape("disk", elements, 0.4, k);
            const BoundaryFacets& boundary = *mesh.find_boundary("boundary");
            EXPECT_EQ(boundary.type, ElementType::line);
            EXPECT_EQ(boundary.degree, k);
            ASSERT_EQ(boundary.nodes_per_facet, k + 1);
            for (index_type n : boundary.connectivity)
                ASSERT_NEAR(std::hypot(node(mesh, n)[0], node(mesh, n)[1]), 1.0, 1e-12);
            expect_facets_in_cells(mesh, boundary);
            // The curved cells fill the disk: the area error falls fast with the order.
            const double error = std::abs(isoparametric_area(mesh) - pi);
            if (k == 1) {
                linear_error = error;
            } else {
                EXPECT_LT(error, linear_error / std::pow(10.0, k)) << "area error " << error;
            }
        }
    }
    // Degrees 5 to 8 on curved geometry: Gmsh's cells of order 4 describe it, the GLL nodes
    // are placed by their map (within the order-4 curve's distance of the circle).
    const Mesh six = load_shape("disk", "quadrilateral", 0.4, 6);
    EXPECT_EQ(six.degree, 6);
    const BoundaryFacets& boundary = *six.find_boundary("boundary");
    ASSERT_EQ(boundary.nodes_per_facet, 7);
    for (index_type n : boundary.connectivity)
        ASSERT_NEAR(std::hypot(node(six, n)[0], node(six, n)[1]), 1.0, 1e-4);
    expect_facets_in_cells(six, boundary);
    EXPECT_LT(std::abs(isoparametric_area(six) - pi), linear_error / 1e4);
}

TEST(HighOrderShapes, GeoFileCirclesAreCurved)
{
    TempFolder folder;
    std::ofstream(folder / "holed.geo")
        << "Point(1) = {-1, -1, 0, 0.5}; Point(2) = {1, -1, 0, 0.5};\n"
           "Point(3) = {1, 1, 0, 0.5}; Point(4) = {-1, 1, 0, 0.5};\n"
           "Point(5) = {0, 0, 0, 0.5}; Point(6) = {0.4, 0, 0, 0.2}; Point(7) = {-0.4, 0, 0, 0.2};\n"
           "Line(1) = {1, 2}; Line(2) = {2, 3}; Line(3) = {3, 4}; Line(4) = {4, 1};\n"
           "Circle(5) = {6, 5, 7}; Circle(6) = {7, 5, 6};\n"
           "Curve Loop(1) = {1, 2, 3, 4}; Curve Loop(2) = {5, 6};\n"
           "Plane Surface(1) = {1, 2};\n"
           "Physical Curve(\"hole\") = {5, 6};\nPhysical Surface(\"plate\") = {1};\n";
    const Mesh mesh = load_path(MeshSpec::Kind::geo, folder / "holed.geo", 3);
    EXPECT_EQ(mesh.source, (folder / "holed.geo").string() + " (order 3)");
    const BoundaryFacets& hole = *mesh.find_boundary("hole");
    ASSERT_EQ(hole.nodes_per_facet, 4);
    for (index_type n : hole.connectivity)
        ASSERT_NEAR(std::hypot(node(mesh, n)[0], node(mesh, n)[1]), 0.4, 1e-12);
    EXPECT_NEAR(isoparametric_area(mesh), 4 - std::numbers::pi * 0.16, 1e-5);
}

TEST(HighOrderShapes, OrderOneIsTheFirstOrderMesh)
{
    const Mesh mesh = load_shape("unit_square", "triangle", 0.5, 1);
    EXPECT_EQ(mesh.degree, 1);
    EXPECT_EQ(mesh.nodes_per_cell, 3);
    EXPECT_EQ(mesh.source, "shape unit_square (triangle, h=0.5, refine 0)");
    for (const BoundaryFacets& facets : mesh.boundaries) {
        EXPECT_EQ(facets.degree, 1);
        EXPECT_EQ(facets.nodes_per_facet, 2);
    }
}

TEST(HighOrderShapes, RefinedThenRaised)
{
    const Mesh mesh = load_shape("unit_square", "quadrilateral", 0.5, 2, 1);  // 4 x 4 cells
    EXPECT_EQ(mesh.num_cells(), 16);
    EXPECT_EQ(mesh.num_nodes(), 9 * 9);
    EXPECT_EQ(mesh.source, "shape unit_square (quadrilateral, h=0.5, refine 1, order 2)");
}

TEST(HighOrderShapes, OrderOutsideOneToEightIsNamed)
{
    TempFolder folder;
    std::ofstream(folder / "a.geo") << "Point(1) = {0, 0, 0, 0.1};\n";
    std::ofstream(folder / "a.msh") << "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n";
    // Degrees 5 to 8 are for quadrilaterals and hexahedra.
    for (const auto& [shape, elements] : {std::pair{"unit_square", "triangle"}, std::pair{"unit_cube", "tetrahedron"}}) {
        const std::string message = error_of([&] { load_shape(shape, elements, 0.5, 5); });
        EXPECT_NE(message.find("take degrees 1 to 4"), std::string::npos) << message;
        EXPECT_NE(message.find("quadrilaterals and hexahedra"), std::string::npos) << message;
    }
    for (int order : {0, 9}) {
        const std::string got = "(got " + std::to_string(order) + ")";
        std::string message = error_of([&] { load_shape("unit_square", "", 0.5, order); });
        EXPECT_NE(message.find("shape unit_square"), std::string::npos) << message;
        EXPECT_NE(message.find("order must be between 1 and 8 " + got), std::string::npos) << message;
        message = error_of([&] { load_path(MeshSpec::Kind::geo, folder / "a.geo", order); });
        EXPECT_NE(message.find("a.geo"), std::string::npos) << message;
        EXPECT_NE(message.find(got), std::string::npos) << message;
        message = error_of([&] { load_path(MeshSpec::Kind::file, folder / "a.msh", order); });
        EXPECT_NE(message.find("a.msh"), std::string::npos) << message;
        EXPECT_NE(message.find(got), std::string::npos) << message;
    }
}

/// Adds the unit square [0,1]^2 (mesh size 0.5) to the current Gmsh model; returns its tag.
int add_unit_square_surface()
{
    const int p1 = geo::addPoint(0, 0, 0, 0.5), p2 = geo::addPoint(1, 0, 0, 0.5);
    const int p3 = geo::addPoint(1, 1, 0, 0.5), p4 = geo::addPoint(0, 1, 0, 0.5);
    return geo::addPlaneSurface({geo::addCurveLoop(
        {geo::addLine(p1, p2), geo::addLine(p2, p3), geo::addLine(p3, p4), geo::addLine(p4, p1)})});
}

/// Writes a rectangle [0,2]x[0,1] meshed with triangles of `order` (groups 'walls' and
/// 'plate') as MSH 4.1 and returns the mesh as extracted in the writing session.
Mesh write_rectangle(const std::filesystem::path& path, int order, bool incomplete = false)
{
    GmshSession session;
    const int p1 = geo::addPoint(0, 0, 0, 0.5), p2 = geo::addPoint(2, 0, 0, 0.5);
    const int p3 = geo::addPoint(2, 1, 0, 0.5), p4 = geo::addPoint(0, 1, 0, 0.5);
    const std::vector<int> curves = {geo::addLine(p1, p2), geo::addLine(p2, p3),
                                     geo::addLine(p3, p4), geo::addLine(p4, p1)};
    const int surface = geo::addPlaneSurface({geo::addCurveLoop(curves)});
    if (incomplete) geo::mesh::setRecombine(2, surface);
    geo::synchronize();
    gmsh::model::addPhysicalGroup(2, {surface}, 1);
    gmsh::model::setPhysicalName(2, 1, "plate");
    gmsh::model::addPhysicalGroup(1, curves, 2);
    gmsh::model::setPhysicalName(1, 2, "walls");
    gmsh::model::mesh::generate(2);
    gmsh::option::setNumber("Mesh.SecondOrderIncomplete", incomplete ? 1 : 0);
    gmsh::model::mesh::setOrder(order);
    gmsh::option::setNumber("Mesh.MshFileVersion", 4.1);
    gmsh::write(path.string());
    return incomplete ? Mesh{} : extract_mesh("model", order);
}

TEST(HighOrderFiles, FileOfTheRequestedOrderIsKept)
{
    TempFolder folder;
    const Mesh reference = write_rectangle(folder / "p2.msh", 2);
    const Mesh mesh = load_path(MeshSpec::Kind::file, folder / "p2.msh", 2);
    EXPECT_EQ(mesh.source, (folder / "p2.msh").string() + " (order 2)");
    EXPECT_EQ(mesh.degree, 2);
    // The file's nodes, renumbered by gpufem: every cell and facet has the file's node
    // positions (as written to the file, 16 digits) in the same order.
    ASSERT_EQ(mesh.cells.size(), reference.cells.size());
    ASSERT_EQ(mesh.num_nodes(), reference.num_nodes());
    const auto same_positions = [&](const auto& ours, const auto& theirs) {
        ASSERT_EQ(ours.size(), theirs.size());
        for (std::size_t i = 0; i < ours.size(); ++i)
            for (int axis = 0; axis < 3; ++axis)
                ASSERT_NEAR(mesh.coordinates[3 * ours[i] + axis],
                            reference.coordinates[3 * theirs[i] + axis], 1e-14) << i;
    };
    same_positions(mesh.cells, reference.cells);
    same_positions(mesh.find_boundary("walls")->connectivity,
                   reference.find_boundary("walls")->connectivity);
    EXPECT_EQ(mesh.find_boundary("walls")->nodes_per_facet, 3);
}

TEST(HighOrderFiles, FileOfAnotherOrderIsConverted)
{
    TempFolder folder;
    const Mesh reference = write_rectangle(folder / "p2.msh", 2);
    const index_type V = [&] {
        std::set<index_type> vertices;
        for (index_type e = 0; e < reference.num_cells(); ++e)
            for (int v = 0; v < 3; ++v) vertices.insert(reference.cells[e * 6 + v]);
        return static_cast<index_type>(vertices.size());
    }();
    const index_type C = reference.num_cells(), E = V + C - 1;

    const Mesh p1 = load_path(MeshSpec::Kind::file, folder / "p2.msh", 1);
    EXPECT_EQ(p1.degree, 1);
    EXPECT_EQ(p1.nodes_per_cell, 3);
    EXPECT_EQ(p1.num_nodes(), V);
    EXPECT_EQ(p1.find_boundary("walls")->nodes_per_facet, 2);
    EXPECT_NEAR(test::mesh_measure(p1), 2.0, 1e-12);

    for (int k : {3, 4}) {
        const Mesh mesh = load_path(MeshSpec::Kind::file, folder / "p2.msh", k);
        EXPECT_EQ(mesh.degree, k);
        EXPECT_EQ(mesh.num_cells(), C);
        EXPECT_EQ(mesh.num_nodes(), lagrange_nodes(ElementType::triangle, k, V, E, C, 0));
        expect_nodes_at_reference_positions(mesh, ElementType::triangle, k, mesh.cells);
        const BoundaryFacets& walls = *mesh.find_boundary("walls");
        EXPECT_EQ(walls.nodes_per_facet, k + 1);
        expect_facets_in_cells(mesh, walls);
    }

    const Mesh refined = load_path(MeshSpec::Kind::file, folder / "p2.msh", 2, 1);
    EXPECT_EQ(refined.degree, 2);
    EXPECT_EQ(refined.num_cells(), 4 * C);
    expect_nodes_at_reference_positions(refined, ElementType::triangle, 2, refined.cells);
}

TEST(HighOrderFiles, TetrahedralFileIsRaised)
{
    TempFolder folder;
    {
        GmshSession session;
        gmsh::vectorpair out;
        geo::extrude({{2, add_unit_square_surface()}}, 0, 0, 1, out);
        geo::synchronize();
        gmsh::option::setNumber("Mesh.MeshSizeMax", 0.5);
        gmsh::model::mesh::generate(3);
        gmsh::write((folder / "tets.msh").string());
    }
    const Mesh linear = load_path(MeshSpec::Kind::file, folder / "tets.msh", 1);
    // Edges and faces of the first-order mesh: every vertex pair and triple of a tetrahedron.
    std::set<std::array<index_type, 2>> edges;
    std::set<std::array<index_type, 3>> faces;
    for (index_type e = 0; e < linear.num_cells(); ++e) {
        std::array<index_type, 4> v;
        std::copy_n(&linear.cells[e * 4], 4, v.begin());
        std::sort(v.begin(), v.end());
        for (int a = 0; a < 4; ++a)
            for (int b = a + 1; b < 4; ++b) {
                edges.insert({v[a], v[b]});
                for (int c = b + 1; c < 4; ++c) faces.insert({v[a], v[b], v[c]});
            }
    }
    for (int k : {2, 3}) {
        const Mesh mesh = load_path(MeshSpec::Kind::file, folder / "tets.msh", k);
        EXPECT_EQ(mesh.degree, k);
        EXPECT_EQ(mesh.num_nodes(),
                  lagrange_nodes(ElementType::tetrahedron, k, linear.num_nodes(),
                                 static_cast<index_type>(edges.size()),
                                 static_cast<index_type>(faces.size()), linear.num_cells()));
        expect_nodes_at_reference_positions(mesh, ElementType::tetrahedron, k, mesh.cells);
    }
}

TEST(HighOrderFiles, MixedOrdersAndIncompleteElementsAreRejected)
{
    TempFolder folder;
    // A first-order and a second-order triangle, on two surfaces (Gmsh keeps one element
    // type per entity and order: it drops the second triangle if both are on one surface).
    std::ofstream(folder / "mixed.msh") << "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n"
                                           "$Nodes\n7\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 1 1 0\n"
                                           "5 1 0.5 0\n6 0.5 1 0\n7 0.5 0.5 0\n$EndNodes\n"
                                           "$Elements\n2\n1 2 2 1 1 1 2 3\n"
                                           "2 9 2 1 2 2 4 3 5 6 7\n$EndElements\n";
    for (int order : {1, 2}) {
        const std::string message =
            error_of([&] { load_path(MeshSpec::Kind::file, folder / "mixed.msh", order); });
        EXPECT_NE(message.find("mixed.msh"), std::string::npos) << message;
        EXPECT_NE(message.find("mixes triangles and triangles of order 2"), std::string::npos)
            << message;
    }

    write_rectangle(folder / "q8.msh", 2, /*incomplete=*/true);
    const std::string message =
        error_of([&] { load_path(MeshSpec::Kind::file, folder / "q8.msh", 2); });
    EXPECT_NE(message.find("q8.msh"), std::string::npos) << message;
    EXPECT_NE(message.find("'Quadrilateral 8'"), std::string::npos) << message;
}

}  // namespace
}  // namespace gpufem

TEST(GmshSessions, LeaveTheEnvironmentAsItWas)
{
    // gmsh::initialize appends the executable's folder to PATH and PYTHONPATH each time; a
    // process opening thousands of sessions (a basis per call) grew PATH past what a child
    // process may be given, and the mesh worker could no longer be started (E2BIG).
    const char* path = std::getenv("PATH");
    const std::string before = path != nullptr ? path : "";
    const bool python_set = std::getenv("PYTHONPATH") != nullptr;
    for (int i = 0; i < 50; ++i) {
        const gpufem::GmshSession session;
    }
    const char* after = std::getenv("PATH");
    EXPECT_EQ(after != nullptr ? std::string(after) : std::string(), before);
    EXPECT_EQ(std::getenv("PYTHONPATH") != nullptr, python_set);
}
