// Shapes gpufem generates itself (unit_square, unit_cube, l_shape): closed-form counts at every
// order, conformity (every face shared by at most two cells, the boundary group exactly the
// faces of one cell), the plane groups in their order and on their planes, then the whole
// boundary, distinct node positions, positive Jacobians, refinement = the finer grid, and the
// size guard.
#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "mesh/mesh_source.hpp"
#include "mesh/shape_catalogue.hpp"
#include "tests/mesh/mesh_test_support.hpp"

namespace gpufem {
namespace {

using test::cell_jacobians;
using test::node;

Mesh generated(const std::string& shape, const std::string& elements, double size, int degree,
               int refine = 0)
{
    return test::load_shape_mesh(shape, elements, size, degree, refine);
}

/// One generated shape and cell type.
struct GeneratedCase {
    std::string shape, elements;
    ElementType type;
    int dim;
    double boxes_per_unit_area;  ///< boxes of the grid per n^dim (l_shape: 3)
    int cells_per_box;
};

const std::vector<GeneratedCase> generated_cases = {
    {"unit_square", "quadrilateral", ElementType::quadrilateral, 2, 1, 1},
    {"unit_square", "triangle", ElementType::triangle, 2, 1, 2},
    {"unit_cube", "hexahedron", ElementType::hexahedron, 3, 1, 1},
    {"unit_cube", "tetrahedron", ElementType::tetrahedron, 3, 1, 6},
    {"l_shape", "quadrilateral", ElementType::quadrilateral, 2, 3, 1},
    {"l_shape", "triangle", ElementType::triangle, 2, 3, 2},
};

/// The vertex sets of a cell's faces (edges in 2D), each sorted; Gmsh's vertex order.
std::vector<std::vector<index_type>> cell_faces(const Mesh& mesh, index_type c)
{
    static const std::map<ElementType, std::vector<std::vector<int>>> faces = {
        {ElementType::triangle, {{0, 1}, {1, 2}, {2, 0}}},
        {ElementType::quadrilateral, {{0, 1}, {1, 2}, {2, 3}, {3, 0}}},
        {ElementType::tetrahedron, {{0, 1, 2}, {0, 1, 3}, {0, 2, 3}, {1, 2, 3}}},
        {ElementType::hexahedron,
         {{0, 1, 2, 3}, {4, 5, 6, 7}, {0, 1, 5, 4}, {1, 2, 6, 5}, {2, 3, 7, 6}, {3, 0, 4, 7}}},
    };
    std::vector<std::vector<index_type>> out;
    for (const auto& face : faces.at(mesh.cell_type)) {
        std::vector<index_type> vertices;
        for (int v : face) vertices.push_back(mesh.cells[c * mesh.nodes_per_cell + v]);
        std::sort(vertices.begin(), vertices.end());
        out.push_back(vertices);
    }
    return out;
}

TEST(GeneratedShapes, ClosedFormCountsAtEveryOrder)
{
    for (const GeneratedCase& c : generated_cases)
        for (int k = 1; k <= 4; ++k) {
            SCOPED_TRACE(c.shape + " " + c.elements + " order " + std::to_string(k));
            const long long n = 3;  // h = 1/3
            const Mesh mesh = generated(c.shape, c.elements, 1.0 / 3.0, k);
            const long long m = k * n;
            const long long nodes = c.shape == "l_shape" ? m * (m + 1) + (m + 1) * (2 * m + 1)
                                                         : static_cast<long long>(std::pow(m + 1, c.dim));
            EXPECT_EQ(mesh.num_nodes(), nodes);
            EXPECT_EQ(mesh.num_cells(),
                      static_cast<long long>(c.boxes_per_unit_area * std::pow(n, c.dim)) * c.cells_per_box);
            EXPECT_EQ(mesh.nodes_per_cell, lagrange_node_count(c.type, k));
            EXPECT_EQ(mesh.degree, k);
            const BoundaryFacets* boundary = mesh.find_boundary("boundary");
            ASSERT_NE(boundary, nullptr);
            EXPECT_EQ(boundary->degree, k);
            EXPECT_EQ(boundary->nodes_per_facet, lagrange_node_count(boundary->type, k));
            // Boundary facets: 4n (square), 8n (L), 6n^2 (cube; x2 as triangles).
            const long long facets = c.dim == 3 ? 6 * n * n * (c.type == ElementType::tetrahedron ? 2 : 1)
                                                : (c.shape == "l_shape" ? 8 * n : 4 * n);
            EXPECT_EQ(static_cast<long long>(boundary->size()), facets);
        }
}

TEST(GeneratedShapes, TheHostArraysMadeAheadAreTheSizesTheMeshTakes)
{
    // What a GPU run prepares while the driver starts (generated_mesh_host_bytes) is only
    // taken when it is exactly the size of the mesh's own arrays.
    for (const GeneratedCase& c : generated_cases)
        for (int k = 1; k <= 3; k += 2)
            for (int refine = 0; refine <= 1; ++refine) {
                SCOPED_TRACE(c.shape + " " + c.elements + " order " + std::to_string(k) + " refine " +
                             std::to_string(refine));
                const MeshSpec spec = test::shape_spec(c.shape, c.elements, 0.25, k, refine);
                const std::vector<std::size_t> bytes = generated_mesh_host_bytes(spec);
                const Mesh mesh = load_mesh(spec);
                ASSERT_EQ(bytes.size(), 3u);
                EXPECT_EQ(bytes[0], mesh.coordinates.size() * sizeof(double));
                EXPECT_EQ(bytes[1], mesh.cells.size() * sizeof(index_type));
                EXPECT_EQ(bytes[2], mesh.cell_group.size() * sizeof(int));
            }
    // Nothing for a mesh from Gmsh, or for a size the mesh phase refuses (it says why).
    EXPECT_TRUE(generated_mesh_host_bytes(test::shape_spec("disk", "triangle", 0.25, 1, 0)).empty());
    EXPECT_TRUE(generated_mesh_host_bytes(test::shape_spec("unit_cube", "hexahedron", 1e-5, 1, 0)).empty());
}

TEST(GeneratedShapes, ConformingWithTheBoundaryGroupAsTheOuterFaces)
{
    for (const GeneratedCase& c : generated_cases)
        for (int k : {1, 3}) {
            SCOPED_TRACE(c.shape + " " + c.elements + " order " + std::to_string(k));
            const Mesh mesh = generated(c.shape, c.elements, 0.25, k);
            std::map<std::vector<index_type>, int> face_count;
            for (index_type e = 0; e < mesh.num_cells(); ++e)
                for (const auto& face : cell_faces(mesh, e)) ++face_count[face];
            std::set<std::vector<index_type>> outer;
            for (const auto& [face, count] : face_count) {
                ASSERT_LE(count, 2) << "a face shared by more than two cells";
                if (count == 1) outer.insert(face);
            }
            // Every face of one cell is a boundary facet, once; no boundary facet is interior.
            const BoundaryFacets& boundary = *mesh.find_boundary("boundary");
            const int vertices = element_node_count(boundary.type);
            std::set<std::vector<index_type>> listed;
            for (std::size_t f = 0; f < boundary.size(); ++f) {
                std::vector<index_type> v(boundary.connectivity.begin() + f * boundary.nodes_per_facet,
                                          boundary.connectivity.begin() + f * boundary.nodes_per_facet + vertices);
                std::sort(v.begin(), v.end());
                ASSERT_TRUE(listed.insert(v).second) << "facet " << f << " listed twice";
            }
            EXPECT_EQ(listed, outer);
        }
}

TEST(GeneratedShapes, PlaneGroupsInTheirOrderThenTheWholeBoundary)
{
    for (const GeneratedCase& c : generated_cases)
        for (int k : {1, 2}) {
            SCOPED_TRACE(c.shape + " " + c.elements + " order " + std::to_string(k));
            const Mesh mesh = generated(c.shape, c.elements, 0.25, k);
            const std::vector<PlaneGroup>& planes = shape_plane_groups(c.shape);
            ASSERT_EQ(mesh.boundaries.size(), planes.size() + 1);
            const BoundaryFacets& boundary = mesh.boundaries.back();
            EXPECT_EQ(boundary.group.name, "boundary");
            EXPECT_EQ(boundary.group.tag, static_cast<int>(planes.size()) + 1);
            std::multiset<std::vector<index_type>> whole, on_planes;
            const auto add_facets = [](const BoundaryFacets& g, std::multiset<std::vector<index_type>>& to) {
                for (std::size_t f = 0; f < g.size(); ++f)
                    to.insert(std::vector<index_type>(g.connectivity.begin() + f * g.nodes_per_facet,
                                                      g.connectivity.begin() + (f + 1) * g.nodes_per_facet));
            };
            add_facets(boundary, whole);
            for (std::size_t g = 0; g < planes.size(); ++g) {
                const BoundaryFacets& group = mesh.boundaries[g];
                EXPECT_EQ(group.group.name, planes[g].name);
                EXPECT_EQ(group.group.tag, static_cast<int>(g) + 1);
                EXPECT_EQ(group.group.dim, c.dim - 1);
                EXPECT_EQ(group.nodes_per_facet, boundary.nodes_per_facet);
                ASSERT_GT(group.size(), 0u);
                for (index_type v : group.connectivity)
                    ASSERT_NEAR(mesh.coordinates[3 * v + planes[g].axis], planes[g].value, 1e-12)
                        << planes[g].name << " node " << v;
                add_facets(group, on_planes);
            }
            // The planes' facets, node for node, are facets of the whole boundary; on the square
            // and the cube the planes are all its sides.
            for (const auto& facet : on_planes) EXPECT_EQ(whole.count(facet), 1u);
            if (c.shape != "l_shape") EXPECT_EQ(on_planes, whole);
        }
}

TEST(GeneratedShapes, DistinctNodesAndPositiveJacobians)
{
    for (const GeneratedCase& c : generated_cases)
        for (int k : {1, 2, 4}) {
            SCOPED_TRACE(c.shape + " " + c.elements + " order " + std::to_string(k));
            const Mesh mesh = generated(c.shape, c.elements, 0.5, k);
            std::set<std::array<double, 3>> positions;
            for (index_type n = 0; n < mesh.num_nodes(); ++n) positions.insert(node(mesh, n));
            EXPECT_EQ(static_cast<index_type>(positions.size()), mesh.num_nodes()) << "two nodes at one point";
            std::vector<char> used(mesh.num_nodes(), 0);
            for (index_type n : mesh.cells) used[n] = 1;
            EXPECT_EQ(std::count(used.begin(), used.end(), 1), mesh.num_nodes()) << "a node no cell uses";
            for (index_type e = 0; e < mesh.num_cells(); ++e)
                for (double det : cell_jacobians(mesh, e)) ASSERT_GT(det, 0.0) << "cell " << e;
        }
}

TEST(GeneratedShapes, RefinementIsTheFinerGrid)
{
    for (const GeneratedCase& c : generated_cases) {
        SCOPED_TRACE(c.shape + " " + c.elements);
        const Mesh refined = generated(c.shape, c.elements, 0.5, 2, 2);
        const Mesh fine = generated(c.shape, c.elements, 0.125, 2, 0);
        EXPECT_EQ(refined.coordinates, fine.coordinates);
        EXPECT_EQ(refined.cells, fine.cells);
        ASSERT_EQ(refined.boundaries.size(), fine.boundaries.size());
        for (std::size_t g = 0; g < fine.boundaries.size(); ++g)
            EXPECT_EQ(refined.boundaries[g].connectivity, fine.boundaries[g].connectivity);
    }
}

TEST(GeneratedShapes, NoDeviceCopyWithoutADevice)
{
    MeshSpec spec;
    spec.shape = "unit_square";
    EXPECT_FALSE(load_mesh(spec).device);
    EXPECT_FALSE(load_mesh(spec, Executor::create_cpu()).device);
}

TEST(GeneratedShapes, TooLargeNamesTheLargestRefinementThatFits)
{
    std::string message;
    try {
        generated("unit_cube", "hexahedron", 0.01, 1, 6);
    } catch (const std::runtime_error& e) {
        message = e.what();
    }
    EXPECT_NE(message.find("shape unit_cube"), std::string::npos) << message;
    EXPECT_NE(message.find("32-bit"), std::string::npos) << message;
    EXPECT_NE(message.find("refine "), std::string::npos) << message;
    EXPECT_NE(message.find("is the most that fits"), std::string::npos) << message;
}

}  // namespace
}  // namespace gpufem
