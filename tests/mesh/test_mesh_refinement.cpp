// gpufem's own uniform refinement and node numbering (mesh/mesh_refinement.hpp): lattice
// tables, node counts against closed forms, placement against Gmsh's high-order nodes and
// gpufem's generated lattices, shared entities numbered once, boundary groups, orientation,
// the shortest-diagonal split of tetrahedra, and curved meshes keeping their geometry.
#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <set>
#include <vector>

#include <gtest/gtest.h>

#include "mesh/lagrange_basis.hpp"
#include "mesh/lattice_table.hpp"
#include "mesh/mesh_refinement.hpp"
#include "mesh/mesh_source.hpp"
#include "tests/mesh/high_order_checks.hpp"
#include "tests/mesh/mesh_refinement_support.hpp"
#include "tests/mesh/mesh_test_support.hpp"

namespace gpufem {
namespace {

using test::local_edges;
using test::local_faces;
using test::node;
using test::TempFolder;

const ExecPtr& cpu()
{
    static const ExecPtr exec = Executor::create_cpu();
    return exec;
}

const ElementType cell_types[] = {ElementType::triangle, ElementType::quadrilateral,
                                  ElementType::tetrahedron, ElementType::hexahedron};

bool is_box(ElementType type)
{
    return type == ElementType::quadrilateral || type == ElementType::hexahedron;
}

/// Vertices, edges, faces (3D) and cells of a mesh's first-order topology, counted on the host.
struct EntityCounts {
    index_type vertices = 0, edges = 0, faces = 0, cells = 0;
};

EntityCounts count_entities(const Mesh& mesh)
{
    const int corners = element_node_count(mesh.cell_type);
    std::set<index_type> vertices;
    std::set<std::vector<index_type>> edges, faces;
    for (index_type c = 0; c < mesh.num_cells(); ++c) {
        const index_type* n = &mesh.cells[static_cast<std::size_t>(c) * mesh.nodes_per_cell];
        for (int v = 0; v < corners; ++v) vertices.insert(n[v]);
        const auto add = [&](const std::vector<int>& local, std::set<std::vector<index_type>>& to) {
            std::vector<index_type> key;
            for (int v : local) key.push_back(n[v]);
            std::sort(key.begin(), key.end());
            to.insert(key);
        };
        for (const auto& e : local_edges(mesh.cell_type)) add(e, edges);
        for (const auto& f : local_faces(mesh.cell_type)) add(f, faces);
    }
    return {static_cast<index_type>(vertices.size()), static_cast<index_type>(edges.size()),
            static_cast<index_type>(faces.size()), mesh.num_cells()};
}

/// Nodes of the complete Lagrange mesh of order k on that topology.
index_type lagrange_nodes(ElementType type, int k, const EntityCounts& e)
{
    return element_dimension(type) == 2 ? test::lagrange_nodes(type, k, e.vertices, e.edges, e.cells, 0)
                                        : test::lagrange_nodes(type, k, e.vertices, e.edges, e.faces, e.cells);
}

/// Expects the nodes of each element (cells or facets, in order) of two meshes to lie at the
/// same positions, and both meshes to have as many nodes.
void expect_same_positions(const Mesh& ours, std::span<const index_type> our_elements,
                           const Mesh& theirs, std::span<const index_type> their_elements,
                           double tolerance)
{
    ASSERT_EQ(our_elements.size(), their_elements.size());
    for (std::size_t i = 0; i < our_elements.size(); ++i)
        for (int axis = 0; axis < 3; ++axis)
            ASSERT_NEAR(node(ours, our_elements[i])[axis], node(theirs, their_elements[i])[axis], tolerance)
                << "entry " << i;
}

/// Expects no cell to repeat a node and every node to be used.
void expect_cells_use_every_node_once(const Mesh& mesh)
{
    std::vector<char> used(static_cast<std::size_t>(mesh.num_nodes()), 0);
    for (index_type c = 0; c < mesh.num_cells(); ++c) {
        const auto first = mesh.cells.begin() + static_cast<std::ptrdiff_t>(c) * mesh.nodes_per_cell;
        const std::set<index_type> distinct(first, first + mesh.nodes_per_cell);
        ASSERT_EQ(distinct.size(), static_cast<std::size_t>(mesh.nodes_per_cell)) << "cell " << c;
        for (index_type n : distinct) used[static_cast<std::size_t>(n)] = 1;
    }
    EXPECT_EQ(std::count(used.begin(), used.end(), 1), mesh.num_nodes());
}

TEST(LatticeTables, EveryPointOnOneEntity)
{
    for (ElementType type : {ElementType::line, ElementType::triangle, ElementType::quadrilateral,
                             ElementType::tetrahedron, ElementType::hexahedron})
        for (int m = 1; m <= 8; ++m) {
            SCOPED_TRACE(std::string(element_type_name(type)) + " order " + std::to_string(m));
            const LatticeTable& table = lattice_table(type, m);
            const int dim = element_dimension(type);
            const double k = m;
            const double expected = type == ElementType::line            ? k + 1
                                    : type == ElementType::triangle      ? (k + 1) * (k + 2) / 2
                                    : type == ElementType::quadrilateral ? (k + 1) * (k + 1)
                                    : type == ElementType::tetrahedron   ? (k + 1) * (k + 2) * (k + 3) / 6
                                                                         : (k + 1) * (k + 1) * (k + 1);
            ASSERT_EQ(table.points.size(), expected);
            if (m <= 4) {
                ASSERT_EQ(static_cast<int>(table.points.size()), lagrange_node_count(type, m));
            }
            std::vector<int> per_dim(4, 0);
            for (const LatticePoint& p : table.points) ++per_dim[p.dim];
            const int faces = dim == 3 ? static_cast<int>(local_faces(type).size()) : 0;
            const int face_points = dim == 3 ? table.face_points(is_box(type)) : 0;
            EXPECT_EQ(per_dim[0], element_node_count(type));
            if (dim > 1) {
                EXPECT_EQ(per_dim[1], static_cast<int>(local_edges(type).size()) * (m - 1));
            }
            if (dim == 3) {
                EXPECT_EQ(per_dim[2], faces * face_points);
            }
            EXPECT_EQ(per_dim[dim], table.interior_points);
        }
}

TEST(OwnNumbering, GeneratedShapesRaisedAreTheGeneratedLattices)
{
    // Degree-1 generated meshes raised to degree k are the generated degree-k meshes: same
    // node count ((n k + 1)^d), same positions cell by cell and facet by facet.
    for (ElementType type : cell_types) {
        const std::string shape = element_dimension(type) == 2 ? "unit_square" : "unit_cube";
        const Mesh linear = test::load_shape_mesh(shape, element_type_name(type), 0.5);
        for (int k = 1; k <= 4; ++k) {
            SCOPED_TRACE(std::string(element_type_name(type)) + " degree " + std::to_string(k));
            const Mesh ours = with_degree(linear, k, cpu());
            const Mesh generated = test::load_shape_mesh(shape, element_type_name(type), 0.5, k);
            ASSERT_EQ(ours.degree, k);
            ASSERT_EQ(ours.num_nodes(), generated.num_nodes());
            ASSERT_EQ(ours.num_nodes(), static_cast<index_type>(std::pow(2 * k + 1, linear.dim)));
            expect_same_positions(ours, ours.cells, generated, generated.cells, 1e-15);
            expect_cells_use_every_node_once(ours);
            ASSERT_EQ(ours.boundaries.size(), generated.boundaries.size());
            for (std::size_t g = 0; g < ours.boundaries.size(); ++g) {
                EXPECT_EQ(ours.boundaries[g].group.name, generated.boundaries[g].group.name);
                EXPECT_EQ(ours.boundaries[g].nodes_per_facet, generated.boundaries[g].nodes_per_facet);
                expect_same_positions(ours, ours.boundaries[g].connectivity, generated,
                                      generated.boundaries[g].connectivity, 1e-15);
            }
        }
    }
}

TEST(OwnNumbering, GmshMeshesGetGmshsHighOrderNodes)
{
    // Unstructured Gmsh meshes: gpufem's degree-k nodes on Gmsh's first-order mesh are Gmsh's
    // own high-order nodes (setOrder) cell by cell and facet by facet, their count is the
    // closed form of the topology (every shared edge and face numbered once), and every node is
    // where the first-order map puts it.
    TempFolder folder;
    for (ElementType type : cell_types) {
        const auto geo = test::write_box_geo(folder, type);
        const double h = element_dimension(type) == 2 ? 0.3 : 0.6;
        const Mesh linear = load_mesh(test::box_geo_spec(geo, h, 1));
        const EntityCounts entities = count_entities(linear);
        for (int k = 1; k <= 4; ++k) {
            SCOPED_TRACE(std::string(element_type_name(type)) + " degree " + std::to_string(k));
            MeshSpec spec = test::box_geo_spec(geo, h, k);
            spec.geometry_order = 1;
            const Mesh ours = load_mesh(spec);
            spec.geometry_order = 0;
            spec.gmsh_nodes = true;
            const Mesh gmsh = load_mesh(spec);
            ASSERT_EQ(ours.num_cells(), linear.num_cells());
            EXPECT_EQ(ours.num_nodes(), lagrange_nodes(type, k, entities));
            EXPECT_EQ(ours.num_nodes(), gmsh.num_nodes());
            expect_same_positions(ours, ours.cells, gmsh, gmsh.cells, 1e-12);
            expect_cells_use_every_node_once(ours);
            test::expect_nodes_at_reference_positions(ours, type, k, ours.cells);
            for (const char* group : {"boundary", "left"}) {
                ASSERT_NE(ours.find_boundary(group), nullptr) << group;
                expect_same_positions(ours, ours.find_boundary(group)->connectivity, gmsh,
                                      gmsh.find_boundary(group)->connectivity, 1e-12);
                test::expect_facets_in_cells(ours, *ours.find_boundary(group));
            }
        }
    }
}

TEST(Refinement, SplitsEveryCellAndFacetOfAGmshMesh)
{
    // Counts (cells x 2^d, nodes = the order-2g lattice of the parent), measure preserved,
    // every child oriented as its parent, facets split in their groups and inside the cells.
    TempFolder folder;
    for (ElementType type : cell_types)
        for (int g : {1, 2}) {
            SCOPED_TRACE(std::string(element_type_name(type)) + " order " + std::to_string(g));
            const auto geo = test::write_box_geo(folder, type);
            const double h = element_dimension(type) == 2 ? 0.3 : 0.6;
            MeshSpec spec = test::box_geo_spec(geo, h, g);
            spec.gmsh_nodes = true;  // Gmsh's mesh as it comes
            const Mesh coarse = load_mesh(spec);
            const EntityCounts entities = count_entities(coarse);
            const Mesh fine = refine_uniformly(coarse, cpu());
            const int dim = coarse.dim, children = 1 << dim;
            ASSERT_EQ(fine.degree, g);
            ASSERT_EQ(fine.num_cells(), children * coarse.num_cells());
            EXPECT_EQ(fine.num_nodes(), lagrange_nodes(type, 2 * g, entities));
            expect_cells_use_every_node_once(fine);
            if (g == 1) {
                EXPECT_NEAR(test::mesh_measure(fine), 1.0, 1e-12);
                for (index_type c = 0; c < coarse.num_cells(); ++c) {
                    const double parent = test::cell_jacobians(coarse, c)[0];
                    for (int s = 0; s < children; ++s)
                        for (double child : test::cell_jacobians(fine, c * children + s))
                            ASSERT_GT(child * parent, 0.0) << "cell " << c << " child " << s;
                }
            } else {
                test::expect_nodes_at_reference_positions(fine, type, g, fine.cells);
            }
            for (index_type c = 0; c < fine.num_cells(); ++c)
                ASSERT_EQ(fine.cell_group[c], coarse.cell_group[c / children]);
            ASSERT_EQ(fine.boundaries.size(), coarse.boundaries.size());
            for (std::size_t b = 0; b < coarse.boundaries.size(); ++b) {
                const BoundaryFacets& parent = coarse.boundaries[b];
                const BoundaryFacets& split = fine.boundaries[b];
                EXPECT_EQ(split.group.name, parent.group.name);
                EXPECT_EQ(split.size(), parent.size() << (dim - 1));
                if (g == 1) {
                    EXPECT_NEAR(test::facets_measure(fine, split), test::facets_measure(coarse, parent), 1e-12);
                }
                test::expect_facets_in_cells(fine, split);
            }
        }
}

TEST(Refinement, TetrahedraSplitAlongTheirShortestInnerDiagonal)
{
    TempFolder folder;
    const Mesh coarse = load_mesh(test::box_geo_spec(test::write_box_geo(folder, ElementType::tetrahedron), 0.5, 1));
    const Mesh fine = refine_uniformly(coarse, cpu());
    for (index_type c = 0; c < coarse.num_cells(); ++c) {
        const index_type* v = &coarse.cells[4 * static_cast<std::size_t>(c)];
        const auto mid = [&](int a, int b) {
            test::Vec3 m{};
            for (int i = 0; i < 3; ++i) m[i] = 0.5 * (node(coarse, v[a])[i] + node(coarse, v[b])[i]);
            return m;
        };
        const double lengths[3] = {test::norm(test::minus(mid(0, 1), mid(2, 3))),
                                   test::norm(test::minus(mid(0, 2), mid(1, 3))),
                                   test::norm(test::minus(mid(0, 3), mid(1, 2)))};
        // The inner children (4..7) share one edge: the diagonal chosen.
        std::vector<index_type> common(&fine.cells[4 * (8 * c + 4)], &fine.cells[4 * (8 * c + 4)] + 4);
        std::sort(common.begin(), common.end());
        for (int s = 5; s < 8; ++s) {
            std::vector<index_type> nodes(&fine.cells[4 * (8 * c + s)], &fine.cells[4 * (8 * c + s)] + 4);
            std::sort(nodes.begin(), nodes.end());
            std::vector<index_type> both;
            std::set_intersection(common.begin(), common.end(), nodes.begin(), nodes.end(), std::back_inserter(both));
            common = both;
        }
        ASSERT_EQ(common.size(), 2u) << "cell " << c;
        const double chosen = test::norm(test::minus(node(fine, common[0]), node(fine, common[1])));
        EXPECT_NEAR(chosen, *std::min_element(lengths, lengths + 3), 1e-14) << "cell " << c;
    }
}

TEST(Refinement, AGeneratedGridRefinesToTheFinerGrid)
{
    for (ElementType type : cell_types) {
        SCOPED_TRACE(element_type_name(type));
        const std::string shape = element_dimension(type) == 2 ? "unit_square" : "unit_cube";
        const Mesh fine = refine_uniformly(test::load_shape_mesh(shape, element_type_name(type), 0.5), cpu());
        const Mesh finer = test::load_shape_mesh(shape, element_type_name(type), 0.25);
        ASSERT_EQ(fine.num_cells(), finer.num_cells());
        ASSERT_EQ(fine.num_nodes(), finer.num_nodes());
        std::vector<test::Vec3> a, b;
        for (index_type n = 0; n < fine.num_nodes(); ++n) {
            a.push_back(node(fine, n));
            b.push_back(node(finer, n));
        }
        std::sort(a.begin(), a.end());
        std::sort(b.begin(), b.end());
        EXPECT_EQ(a, b);
    }
}

TEST(Refinement, CurvedMeshKeepsItsGeometry)
{
    // The disk at order 2 (Gmsh's nodes on the circle): refined twice, the cells describe the
    // same curved domain (a child's map is its parent's map restricted), so the area is kept
    // to rounding, while it differs from pi by the geometric error of the coarse map.
    for (const char* elements : {"triangle", "quadrilateral"}) {
        SCOPED_TRACE(elements);
        MeshSpec spec;
        spec.kind = MeshSpec::Kind::shape;
        spec.shape = "disk";
        spec.elements = elements;
        spec.size = 0.5;
        spec.degree = 2;
        const Mesh coarse = load_gmsh_mesh(spec);
        ASSERT_EQ(coarse.degree, 2);
        const Mesh fine = refine_uniformly(refine_uniformly(coarse, cpu()), cpu());
        const double area = test::curved_measure(coarse);
        EXPECT_GT(std::abs(area - std::numbers::pi), 1e-6);
        EXPECT_NEAR(test::curved_measure(fine), area, 1e-12);
        // Boundary nodes stay within the coarse map's distance from the circle.
        double coarse_error = 0, fine_error = 0;
        for (const auto& [mesh, error] : {std::pair{&coarse, &coarse_error}, std::pair{&fine, &fine_error}})
            for (index_type n : mesh->find_boundary("boundary")->connectivity)
                *error = std::max(*error, std::abs(std::hypot(node(*mesh, n)[0], node(*mesh, n)[1]) - 1));
        EXPECT_LT(coarse_error, 1e-12);  // Gmsh's nodes are on the circle
        EXPECT_GT(fine_error, 0.0);
        EXPECT_LT(fine_error, 0.02);
    }
}

TEST(Refinement, CurvedCellsRefinedForALowerDegreeMakeThatDegreesCellsDirectly)
{
    // P1 on the ball's cells of order 2, refined twice: the last refinement makes first-order
    // children from the parents' curved maps, the same nodes and cells as refining at order 2
    // and then taking the degree-1 nodes.
    MeshSpec spec = test::box_geo_spec(GPUFEM_SOURCE_DIR "/cases/meshes/ball.geo", 0.5, 1, 2);
    spec.snap_to_geometry = false;  // the coarse maps alone
    const Mesh coarse = load_gmsh_mesh(spec);
    ASSERT_EQ(coarse.degree, 2);
    const Mesh direct = load_mesh(spec);
    const Mesh through_order_2 = with_degree(refine_uniformly(refine_uniformly(coarse, cpu()), cpu()), 1, cpu());
    ASSERT_EQ(direct.degree, 1);
    ASSERT_EQ(direct.num_cells(), through_order_2.num_cells());
    ASSERT_EQ(direct.num_nodes(), through_order_2.num_nodes());
    EXPECT_NEAR(test::mesh_measure(direct), test::mesh_measure(through_order_2), 1e-12);
    const auto sorted_nodes = [](const Mesh& mesh) {
        std::vector<std::array<double, 3>> nodes;
        for (index_type n = 0; n < mesh.num_nodes(); ++n) nodes.push_back(node(mesh, n));
        std::sort(nodes.begin(), nodes.end());
        return nodes;
    };
    const auto a = sorted_nodes(direct), b = sorted_nodes(through_order_2);
    double largest = 0;
    for (std::size_t i = 0; i < a.size(); ++i)
        for (int c = 0; c < 3; ++c) largest = std::max(largest, std::abs(a[i][c] - b[i][c]));
    EXPECT_LT(largest, 1e-14);
    for (const BoundaryFacets& facets : direct.boundaries) EXPECT_EQ(facets.nodes_per_facet, 3) << facets.group.name;
}

TEST(Refinement, AFacetThatIsNoFaceOfTheCellsIgnoresItsGroup)
{
    Mesh mesh = test::load_shape_mesh("unit_square", "triangle", 0.5);
    BoundaryFacets bad = mesh.boundaries.front();
    bad.group.name = "diagonal";
    bad.connectivity = {0, 8};  // corner to corner: not an edge of the 2 x 2 grid's triangles
    mesh.boundaries.push_back(bad);
    for (const Mesh& out : {refine_uniformly(mesh, cpu()), with_degree(mesh, 2, cpu())}) {
        EXPECT_EQ(out.find_boundary("diagonal"), nullptr);
        ASSERT_FALSE(out.ignored_boundaries.empty());
        EXPECT_EQ(out.ignored_boundaries.back().name, "diagonal");
        EXPECT_NE(out.ignored_boundaries.back().reason.find("no cell's edge"), std::string::npos)
            << out.ignored_boundaries.back().reason;
    }
}

}  // namespace
}  // namespace gpufem
