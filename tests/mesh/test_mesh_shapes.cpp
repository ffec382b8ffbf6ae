// Built-in shapes: cell types, counts, measures, boundary groups and error messages.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <optional>
#include <set>

#include <gtest/gtest.h>

#include "mesh/mesh_source.hpp"
#include "tests/mesh/mesh_test_support.hpp"

namespace gpufem {
namespace {

using test::cell_jacobians;
using test::error_of;
using test::facets_measure;
using test::mesh_measure;
using test::node;

/// A boundary group a shape must have: its name, total length/area, and the plane
/// x[axis] = value that its nodes lie in (axis -1: no plane; radius 1 for the disk).
struct ExpectedGroup {
    std::string name;
    double measure;
    int axis = -1;
    double value = 0;
};

/// One shape/element combination and what its mesh must satisfy.
struct ShapeCase {
    std::string shape, elements;
    double size;
    int refine;
    ElementType type;
    int dim;
    index_type cells = -1;  ///< -1: unstructured, count not fixed
    index_type nodes = -1;
    double measure;
    double tolerance;
    std::vector<ExpectedGroup> groups;
    bool on_unit_circle = false;  ///< boundary nodes lie on the unit circle
};

std::ostream& operator<<(std::ostream& os, const ShapeCase& c)
{
    return os << c.shape << "/" << (c.elements.empty() ? "default" : c.elements) << "/h" << c.size
              << "/r" << c.refine;
}

std::vector<ExpectedGroup> square_groups()
{
    return {{"left", 1, 0, 0},   {"right", 1, 0, 1}, {"bottom", 1, 1, 0},
            {"top", 1, 1, 1},    {"boundary", 4}};
}

std::vector<ExpectedGroup> cube_groups()
{
    return {{"left", 1, 0, 0},  {"right", 1, 0, 1}, {"front", 1, 1, 0}, {"back", 1, 1, 1},
            {"bottom", 1, 2, 0}, {"top", 1, 2, 1},  {"boundary", 6}};
}

const double pi = std::numbers::pi;

std::vector<ShapeCase> shape_cases()
{
    return {
        {"unit_square", "", 0.25, 0, ElementType::quadrilateral, 2, 16, 25, 1, 1e-12, square_groups()},
        {"unit_square", "quadrilateral", 0.25, 1, ElementType::quadrilateral, 2, 64, 81, 1, 1e-12,
         square_groups()},
        {"unit_square", "quadrilateral", 0.3, 0, ElementType::quadrilateral, 2, 16, 25, 1, 1e-12,
         square_groups()},
        {"unit_square", "triangle", 0.1, 0, ElementType::triangle, 2, 200, 121, 1, 1e-12, square_groups()},
        {"unit_square", "triangle", 0.25, 1, ElementType::triangle, 2, 128, 81, 1, 1e-12, square_groups()},
        {"unit_cube", "", 0.25, 0, ElementType::hexahedron, 3, 64, 125, 1, 1e-12, cube_groups()},
        {"unit_cube", "hexahedron", 0.5, 1, ElementType::hexahedron, 3, 64, 125, 1, 1e-12, cube_groups()},
        {"unit_cube", "tetrahedron", 0.25, 0, ElementType::tetrahedron, 3, 384, 125, 1, 1e-12, cube_groups()},
        {"unit_cube", "tetrahedron", 0.5, 1, ElementType::tetrahedron, 3, 384, 125, 1, 1e-12, cube_groups()},
        {"l_shape", "", 0.25, 0, ElementType::quadrilateral, 2, 48, 65, 3, 1e-12, {{"boundary", 8}}},
        {"l_shape", "quadrilateral", 0.5, 1, ElementType::quadrilateral, 2, 48, 65, 3, 1e-12,
         {{"boundary", 8}}},
        {"l_shape", "triangle", 0.2, 0, ElementType::triangle, 2, 150, 96, 3, 1e-12, {{"boundary", 8}}},
        {"disk", "", 0.1, 0, ElementType::triangle, 2, -1, -1, pi, 0.01, {{"boundary", 2 * pi, -1, 0}}, true},
        {"disk", "quadrilateral", 0.1, 0, ElementType::quadrilateral, 2, -1, -1, pi, 0.01,
         {{"boundary", 2 * pi}}, true},
        {"disk", "quadrilateral", 0.2, 1, ElementType::quadrilateral, 2, -1, -1, pi, 0.01,
         {{"boundary", 2 * pi}}, true},
    };
}

class ShapeTest : public ::testing::TestWithParam<ShapeCase> {};

TEST_P(ShapeTest, MeshMatchesTheShape)
{
    const ShapeCase& c = GetParam();
    MeshSpec spec;
    spec.kind = MeshSpec::Kind::shape;
    spec.shape = c.shape;
    spec.elements = c.elements;
    spec.size = c.size;
    spec.refine = c.refine;
    const Mesh mesh = load_mesh(spec);

    EXPECT_EQ(mesh.dim, c.dim);
    EXPECT_EQ(mesh.cell_type, c.type);
    EXPECT_EQ(mesh.nodes_per_cell, element_node_count(c.type));
    EXPECT_EQ(mesh.cells.size() % mesh.nodes_per_cell, 0u);
    if (c.cells >= 0) {
        EXPECT_EQ(mesh.num_cells(), c.cells);
    }
    if (c.nodes >= 0) {
        EXPECT_EQ(mesh.num_nodes(), c.nodes);
    }
    EXPECT_GT(mesh.num_cells(), 0);
    EXPECT_NE(mesh.source.find("shape " + c.shape + " ("), std::string::npos) << mesh.source;

    // Connectivity in range, every node used, z = 0 in 2D.
    std::vector<char> used(mesh.num_nodes(), 0);
    for (index_type n : mesh.cells) {
        ASSERT_GE(n, 0);
        ASSERT_LT(n, mesh.num_nodes());
        used[n] = 1;
    }
    EXPECT_EQ(std::count(used.begin(), used.end(), 1), mesh.num_nodes()) << "unused nodes";
    if (c.dim == 2) {
        for (index_type n = 0; n < mesh.num_nodes(); ++n) ASSERT_EQ(node(mesh, n)[2], 0.0);
    }

    // No degenerate cell; consistent sign of the Jacobian inside each cell.
    for (index_type e = 0; e < mesh.num_cells(); ++e) {
        const std::vector<double> dets = cell_jacobians(mesh, e);
        for (double d : dets) {
            ASSERT_GT(std::abs(d), 1e-12) << "degenerate cell " << e;
            ASSERT_EQ(d > 0, dets[0] > 0) << "folded cell " << e;
        }
    }
    EXPECT_NEAR(mesh_measure(mesh), c.measure, c.tolerance);

    // One subdomain 'domain' holding every cell.
    ASSERT_EQ(mesh.subdomains.size(), 1u);
    EXPECT_EQ(mesh.subdomains[0].name, "domain");
    EXPECT_EQ(mesh.subdomains[0].dim, c.dim);
    ASSERT_EQ(mesh.cell_group.size(), static_cast<std::size_t>(mesh.num_cells()));
    for (int g : mesh.cell_group) ASSERT_EQ(g, mesh.subdomains[0].tag);

    // Boundary groups: names, measures, facet shapes and node positions.
    std::vector<std::string> names;
    for (const ExpectedGroup& g : c.groups) names.push_back(g.name);
    EXPECT_EQ(mesh.boundary_names(), names);
    const double tolerance = c.on_unit_circle ? 0.01 : 1e-12;
    for (const ExpectedGroup& g : c.groups) {
        const BoundaryFacets* facets = mesh.find_boundary(g.name);
        ASSERT_NE(facets, nullptr) << g.name;
        EXPECT_EQ(facets->group.dim, c.dim - 1);
        EXPECT_GT(facets->size(), 0u);
        EXPECT_EQ(element_dimension(facets->type), c.dim - 1);
        if (c.dim == 3) {
            EXPECT_EQ(facets->type, c.type == ElementType::hexahedron ? ElementType::quadrilateral
                                                                      : ElementType::triangle);
        }
        EXPECT_NEAR(facets_measure(mesh, *facets), g.measure, tolerance) << g.name;
        for (index_type n : facets->connectivity) {
            ASSERT_GE(n, 0);
            ASSERT_LT(n, mesh.num_nodes());
            const auto x = node(mesh, n);
            if (g.axis >= 0) {
                ASSERT_NEAR(x[g.axis], g.value, 1e-12) << g.name;
            }
            if (c.on_unit_circle) {
                ASSERT_NEAR(std::hypot(x[0], x[1]), 1.0, 1e-9) << g.name;
            }
        }
    }
    EXPECT_EQ(mesh.find_boundary("no_such_group"), nullptr);
}

INSTANTIATE_TEST_SUITE_P(Shapes, ShapeTest, ::testing::ValuesIn(shape_cases()));

Mesh load_shape(const std::string& shape, const std::string& elements = "", double size = 0,
                int refine = 0)
{
    return test::load_shape_mesh(shape, elements, size, 1, refine);
}

TEST(Shapes, DefaultsAndSource)
{
    const Mesh square = load_shape("unit_square");
    EXPECT_EQ(square.cell_type, ElementType::quadrilateral);
    EXPECT_EQ(square.num_cells(), 100);
    EXPECT_EQ(square.source, "shape unit_square (quadrilateral, h=0.1, refine 0)");
    EXPECT_EQ(load_shape("unit_cube", "", 0.5).cell_type, ElementType::hexahedron);
    EXPECT_EQ(load_shape("l_shape", "", 0.5).cell_type, ElementType::quadrilateral);
    EXPECT_EQ(load_shape("disk", "", 0.5).cell_type, ElementType::triangle);
}

TEST(Shapes, GeneratedNodesAreNumberedXFastest)
{
    // A generated square numbers its grid points row by row, x fastest.
    const Mesh mesh = load_shape("unit_square", "quadrilateral", 0.5);
    ASSERT_EQ(mesh.num_nodes(), 9);
    for (index_type n = 0; n < 9; ++n) {
        EXPECT_EQ(node(mesh, n)[0], 0.5 * (n % 3)) << n;
        EXPECT_EQ(node(mesh, n)[1], 0.5 * (n / 3)) << n;
    }
    const std::vector<index_type> first_cell = {0, 1, 4, 3};  // Gmsh's counter-clockwise order
    EXPECT_EQ(std::vector<index_type>(mesh.cells.begin(), mesh.cells.begin() + 4), first_cell);
}

TEST(Shapes, RefinementConvergesToTheCircle)
{
    const double coarse = std::abs(mesh_measure(load_shape("disk", "quadrilateral", 0.3)) - pi);
    const double fine = std::abs(mesh_measure(load_shape("disk", "quadrilateral", 0.3, 2)) - pi);
    EXPECT_LT(fine, coarse / 4);
}

TEST(Shapes, UnknownShapeIsNamed)
{
    const std::string message = error_of([] { load_shape("hexagon"); });
    EXPECT_NE(message.find("'hexagon'"), std::string::npos) << message;
    EXPECT_NE(message.find("unit_square"), std::string::npos) << message;
    EXPECT_NE(message.find("disk"), std::string::npos) << message;
}

TEST(Shapes, UnsupportedElementIsNamed)
{
    const std::string message = error_of([] { load_shape("unit_cube", "triangle"); });
    EXPECT_NE(message.find("'triangle'"), std::string::npos) << message;
    EXPECT_NE(message.find("hexahedron (default)"), std::string::npos) << message;
    EXPECT_NE(message.find("tetrahedron"), std::string::npos) << message;
    const std::string bogus = error_of([] { load_shape("unit_square", "pentagon"); });
    EXPECT_NE(bogus.find("'pentagon'"), std::string::npos) << bogus;
}

TEST(Shapes, BadSizeAndRefineAreRejected)
{
    EXPECT_NE(error_of([] { load_shape("unit_square", "", -0.1); }).find("positive"), std::string::npos);
    EXPECT_NE(error_of([] { load_shape("unit_square", "", 1e-9); }).find("use a larger mesh.size"),
              std::string::npos);
    EXPECT_NE(error_of([] { load_shape("disk", "", 1e-9); }).find("too small"), std::string::npos);
    EXPECT_NE(error_of([] { load_shape("unit_square", "", 0.5, -1); }).find("refine"), std::string::npos);
}

TEST(Shapes, RefinementBeyondTheMachineIsRefusedForGmshMeshes)
{
    // The disk goes through Gmsh: its refinement is guarded before Gmsh refines (4^10 times
    // its thousands of cells: past 32-bit cell counts on any machine).
    const std::string message = error_of([] { load_shape("disk", "", 0.03, 10); });
    EXPECT_NE(message.find("shape disk"), std::string::npos) << message;
    EXPECT_NE(message.find("refine 10 would make about"), std::string::npos) << message;
    EXPECT_NE(message.find("GB on the host"), std::string::npos) << message;
    EXPECT_NE(message.find("is the most that fits"), std::string::npos) << message;
}

TEST(Shapes, DescriptionListsShapesAndGroups)
{
    const std::string text = describe_shapes();
    for (const char* word : {"unit_square", "unit_cube", "l_shape", "disk", "quadrilateral", "triangle",
                             "hexahedron", "tetrahedron", "left", "right", "front", "back", "bottom",
                             "top", "boundary", "domain", "(default)"})
        EXPECT_NE(text.find(word), std::string::npos) << word;
}

}  // namespace
}  // namespace gpufem
