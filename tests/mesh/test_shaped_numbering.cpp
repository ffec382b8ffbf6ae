// gpufem's degree-k nodes on prisms, pyramids and meshes of several cell types: the lattice tables
// of prisms and pyramids, node counts against the closed form of the topology (every shared edge
// and face, triangular or quadrilateral, numbered once), every node where its cell's first-order
// map puts it, and boundary facets (triangles and quadrilaterals in one group) made of their cells'
// nodes; their uniform refinement.
#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "mesh/gmsh_session.hpp"
#include "mesh/lagrange_basis.hpp"
#include "mesh/lattice_table.hpp"
#include "mesh/mesh_refinement.hpp"
#include "mesh/mesh_source.hpp"
#include "mesh/mesh_worker.hpp"
#include "tests/mesh/mesh_refinement_support.hpp"
#include "tests/mixed_mesh_geometries.hpp"

namespace gpufem {
namespace {

using test::local_edges;
using test::local_faces;
using test::node;
using test::TempFolder;

/// Points inside one cell of the shape at degree k (closed forms).
long long interior_points(ElementType type, long long k)
{
    switch (type) {
    case ElementType::triangle: return (k - 1) * (k - 2) / 2;
    case ElementType::quadrilateral: return (k - 1) * (k - 1);
    case ElementType::tetrahedron: return (k - 1) * (k - 2) * (k - 3) / 6;
    case ElementType::hexahedron: return (k - 1) * (k - 1) * (k - 1);
    case ElementType::prism: return (k - 1) * (k - 2) / 2 * (k - 1);
    case ElementType::pyramid: return (k - 2) * (k - 1) * (2 * k - 3) / 6;  // sum of j^2, j < k - 1
    default: return 0;
    }
}

/// The nodes of degree k on a first-order mesh's topology: vertices, then (k - 1) per edge,
/// a triangle's or quadrilateral's interior per face, and each cell's interior.
long long closed_form_nodes(const Mesh& linear, int k)
{
    std::set<index_type> vertices;
    std::set<std::vector<index_type>> edges, triangles, quadrilaterals;
    long long inside = 0;
    for (index_type c = 0; c < linear.num_cells(); ++c) {
        const ElementType type = linear.type_of_cell(c);
        const index_type* n = &linear.cells[static_cast<std::size_t>(c) * linear.nodes_per_cell];
        for (int v = 0; v < element_node_count(type); ++v) vertices.insert(n[v]);
        const auto key = [&](const std::vector<int>& local) {
            std::vector<index_type> sorted;
            for (int v : local) sorted.push_back(n[v]);
            std::sort(sorted.begin(), sorted.end());
            return sorted;
        };
        for (const auto& e : local_edges(type)) edges.insert(key(e));
        for (const auto& f : local_faces(type)) (f.size() == 3 ? triangles : quadrilaterals).insert(key(f));
        inside += interior_points(type, k);
    }
    const long long m = k;
    return static_cast<long long>(vertices.size()) + static_cast<long long>(edges.size()) * (m - 1) +
           static_cast<long long>(triangles.size()) * (m - 1) * (m - 2) / 2 +
           static_cast<long long>(quadrilaterals.size()) * (m - 1) * (m - 1) + inside;
}

/// Expects every cell's degree-k nodes distinct, its row padded with -1 after them, every node
/// used, and each node where the cell's first-order map (Gmsh's first-order basis) puts the
/// reference node.
void expect_nodes_placed(const Mesh& ours, const Mesh& linear)
{
    std::vector<char> used(static_cast<std::size_t>(ours.num_nodes()), 0);
    std::map<ElementType, std::vector<double>> first_order;  // [q][j] per type
    for (index_type c = 0; c < ours.num_cells(); ++c) {
        const ElementType type = ours.type_of_cell(c);
        const int n = lagrange_node_count(type, ours.degree), corners = element_node_count(type);
        if (!first_order.count(type)) {
            std::vector<double> gradients;
            lagrange_basis(type, 1, lagrange_reference_nodes(type, ours.degree), first_order[type], gradients);
        }
        const index_type* row = &ours.cells[static_cast<std::size_t>(c) * ours.nodes_per_cell];
        const index_type* corner = &linear.cells[static_cast<std::size_t>(c) * linear.nodes_per_cell];
        const std::set<index_type> distinct(row, row + n);
        ASSERT_EQ(distinct.size(), static_cast<std::size_t>(n)) << "cell " << c;
        for (int i = n; i < ours.nodes_per_cell; ++i) ASSERT_EQ(row[i], -1) << "cell " << c;
        for (int q = 0; q < n; ++q) {
            ASSERT_GE(row[q], 0) << "cell " << c;
            used[static_cast<std::size_t>(row[q])] = 1;
            for (int axis = 0; axis < 3; ++axis) {
                double x = 0;
                for (int j = 0; j < corners; ++j)
                    x += first_order[type][static_cast<std::size_t>(q * corners + j)] * node(linear, corner[j])[axis];
                ASSERT_NEAR(node(ours, row[q])[axis], x, 1e-12) << "cell " << c << " node " << q;
            }
        }
    }
    EXPECT_EQ(std::count(used.begin(), used.end(), 1), ours.num_nodes());
}

/// Expects every facet of every boundary group to be made of nodes of one cell holding its
/// corners (its triangles' rows padded with -1 in a group of both shapes).
void expect_facets_of_cells(const Mesh& ours)
{
    std::map<index_type, std::vector<index_type>> cells_of_node;
    for (index_type c = 0; c < ours.num_cells(); ++c) cells_of_node[ours.cells[static_cast<std::size_t>(c) * ours.nodes_per_cell]].push_back(c);
    std::vector<std::set<index_type>> cell_nodes(static_cast<std::size_t>(ours.num_cells()));
    for (index_type c = 0; c < ours.num_cells(); ++c)
        for (int i = 0; i < ours.nodes_per_cell; ++i) {
            const index_type n = ours.cells[static_cast<std::size_t>(c) * ours.nodes_per_cell + i];
            if (n >= 0) cell_nodes[static_cast<std::size_t>(c)].insert(n);
        }
    ASSERT_FALSE(ours.boundaries.empty());
    for (const BoundaryFacets& facets : ours.boundaries) {
        SCOPED_TRACE(facets.group.name);
        const int triangle = lagrange_node_count(ElementType::triangle, ours.degree);
        for (std::size_t f = 0; f < facets.size(); ++f) {
            const index_type* row = &facets.connectivity[f * facets.nodes_per_facet];
            const int n = facets.mixed_triangles && row[triangle] < 0 ? triangle : facets.nodes_per_facet;
            for (int i = n; i < facets.nodes_per_facet; ++i) ASSERT_EQ(row[i], -1) << "facet " << f;
            bool found = false;
            for (const std::set<index_type>& nodes : cell_nodes)
                if (std::all_of(row, row + n, [&](index_type v) { return nodes.count(v) > 0; })) found = true;
            ASSERT_TRUE(found) << "facet " << f << " is no cell's face";
        }
    }
}

}  // namespace

TEST(ShapedLattices, PrismAndPyramidPointsLieOnOneEntityEach)
{
    for (ElementType type : {ElementType::prism, ElementType::pyramid})
        for (int m = 1; m <= 4; ++m) {
            SCOPED_TRACE(std::string(element_type_name(type)) + " order " + std::to_string(m));
            const LatticeTable& table = lattice_table(type, m);
            ASSERT_EQ(static_cast<int>(table.points.size()), lagrange_node_count(type, m));
            std::vector<int> per_dim(4, 0);
            for (const LatticePoint& p : table.points) ++per_dim[p.dim];
            EXPECT_EQ(per_dim[0], element_node_count(type));
            EXPECT_EQ(per_dim[1], static_cast<int>(local_edges(type).size()) * (m - 1));
            int face_points = 0;
            for (const auto& f : local_faces(type)) face_points += f.size() == 3 ? (m - 1) * (m - 2) / 2 : (m - 1) * (m - 1);
            EXPECT_EQ(per_dim[2], face_points);
            EXPECT_EQ(per_dim[3], interior_points(type, m));
            EXPECT_EQ(table.interior_points, interior_points(type, m));
            // Each point's (s, t) on its face is where it lies: distinct points per entity.
            std::set<std::vector<int>> seen;
            for (const LatticePoint& p : table.points)
                EXPECT_TRUE(seen.insert({p.dim, p.entity, p.s, p.t, p.interior}).second);
        }
}

TEST(ShapedNumbering, PrismsPyramidsAndMixedMeshesNumberEverySharedPointOnce)
{
    // Meshed as gpufem meshes (in its worker: Gmsh's pyramids need a fresh Gmsh).
    const test::MeshWorkerForTest worker;
    TempFolder folder;
    const auto prisms = folder.write("prisms.geo", test::cube_prisms(3));
    const auto four = folder.write("four.geo", test::cube_four_types(6));
    const auto square = folder.write("square.geo", test::square_triangles_quadrilaterals(5));
    for (const auto& [geo, highest] : {std::pair{prisms, 4}, std::pair{four, 2}, std::pair{square, 4}}) {
        const Mesh linear = load_mesh_isolated(test::box_geo_spec(geo, 0, 1));
        ASSERT_TRUE(linear.first_order_only() || linear.is_mixed()) << geo;
        for (int k = 1; k <= highest; ++k) {
            SCOPED_TRACE(geo.filename().string() + " degree " + std::to_string(k));
            const Mesh ours = load_mesh_isolated(test::box_geo_spec(geo, 0, k));
            ASSERT_EQ(ours.degree, k);
            ASSERT_EQ(ours.num_cells(), linear.num_cells());
            EXPECT_EQ(ours.cell_types.size(), linear.cell_types.size());
            EXPECT_EQ(static_cast<long long>(ours.num_nodes()), closed_form_nodes(linear, k));
            expect_nodes_placed(ours, linear);
            expect_facets_of_cells(ours);
            EXPECT_TRUE(ours.ignored_boundaries.empty());
        }
    }
    // Pyramids take degrees 1 and 2 only.
    EXPECT_THROW(load_mesh_isolated(test::box_geo_spec(four, 0, 3)), MeshSourceError);
}

namespace {

/// Children of one cell of the shape under uniform refinement, by child shape.
std::map<ElementType, long long> children_of(ElementType type)
{
    if (type == ElementType::pyramid) return {{ElementType::pyramid, 6}, {ElementType::tetrahedron, 4}};
    return {{type, element_dimension(type) == 2 ? 4 : 8}};
}

/// Expects every child's nodes to be points of its parent's order-2 lattice (placed by the
/// parent's first-order map), each child's corners distinct.
void expect_children_on_parent_lattices(const Mesh& fine, const Mesh& coarse)
{
    index_type next = 0;
    std::map<ElementType, std::vector<double>> first_order;  // at the order-2 lattice, [q][j]
    for (index_type c = 0; c < coarse.num_cells(); ++c) {
        const ElementType type = coarse.type_of_cell(c);
        const int corners = element_node_count(type);
        if (!first_order.count(type)) {
            std::vector<double> gradients;
            lagrange_basis(type, 1, lagrange_reference_nodes(type, 2), first_order[type], gradients);
        }
        const std::vector<double>& values = first_order[type];
        const index_type* parent = &coarse.cells[static_cast<std::size_t>(c) * coarse.nodes_per_cell];
        std::vector<std::array<double, 3>> lattice;
        for (std::size_t q = 0; q < values.size() / corners; ++q) {
            std::array<double, 3> x{};
            for (int j = 0; j < corners; ++j)
                for (int axis = 0; axis < 3; ++axis) x[axis] += values[q * corners + j] * node(coarse, parent[j])[axis];
            lattice.push_back(x);
        }
        long long count = 0;
        for (const auto& [shape, n] : children_of(type)) count += n;
        for (long long s = 0; s < count; ++s, ++next) {
            const ElementType child = fine.type_of_cell(next);
            const index_type* row = &fine.cells[static_cast<std::size_t>(next) * fine.nodes_per_cell];
            const std::set<index_type> distinct(row, row + element_node_count(child));
            ASSERT_EQ(distinct.size(), static_cast<std::size_t>(element_node_count(child))) << "child " << next;
            EXPECT_EQ(fine.cell_group[static_cast<std::size_t>(next)], coarse.cell_group[static_cast<std::size_t>(c)]);
            for (int k = 0; k < element_node_count(child); ++k) {
                bool found = false;
                for (const auto& x : lattice) {
                    double d = 0;
                    for (int axis = 0; axis < 3; ++axis) d = std::max(d, std::abs(x[axis] - node(fine, row[k])[axis]));
                    found = found || d < 1e-12;
                }
                ASSERT_TRUE(found) << "child " << next << " node " << k << " is off parent " << c << "'s lattice";
            }
        }
    }
    EXPECT_EQ(next, fine.num_cells());
}

}  // namespace

TEST(ShapedRefinement, PrismsPyramidsAndMixedMeshesSplitIntoTheirChildren)
{
    // Prisms into 8 prisms, pyramids into 6 pyramids and 4 tetrahedra, the other shapes as
    // alone; every child on its parent's order-2 lattice, the nodes those lattices' points
    // (each shared point once: the closed form of the order-2 nodes), boundary facets (groups
    // of triangles and quadrilaterals) split and made of the children's nodes; refined twice,
    // then given degree 2.
    const test::MeshWorkerForTest worker;
    TempFolder folder;
    for (const auto& geo : {folder.write("prisms.geo", test::cube_prisms(2)), folder.write("four.geo", test::cube_four_types(6)),
                            folder.write("square.geo", test::square_triangles_quadrilaterals(4))}) {
        SCOPED_TRACE(geo.filename().string());
        const Mesh coarse = load_mesh_isolated(test::box_geo_spec(geo, 0, 1));
        const Mesh once = load_mesh_isolated(test::box_geo_spec(geo, 0, 1, 1));
        std::map<ElementType, long long> expected, found;
        for (index_type c = 0; c < coarse.num_cells(); ++c)
            for (const auto& [shape, n] : children_of(coarse.type_of_cell(c))) expected[shape] += n;
        for (index_type c = 0; c < once.num_cells(); ++c) ++found[once.type_of_cell(c)];
        EXPECT_EQ(found, expected);
        EXPECT_EQ(static_cast<long long>(once.num_nodes()), closed_form_nodes(coarse, 2));
        expect_children_on_parent_lattices(once, coarse);
        expect_facets_of_cells(once);
        EXPECT_TRUE(once.ignored_boundaries.empty());
        ASSERT_EQ(once.boundaries.size(), coarse.boundaries.size());
        for (std::size_t g = 0; g < once.boundaries.size(); ++g)
            EXPECT_EQ(once.boundaries[g].size(), (coarse.dim == 2 ? 2 : 4) * coarse.boundaries[g].size())
                << once.boundaries[g].group.name;
        const Mesh twice = load_mesh_isolated(test::box_geo_spec(geo, 0, 1, 2));
        EXPECT_EQ(static_cast<long long>(twice.num_nodes()), closed_form_nodes(once, 2));
        expect_children_on_parent_lattices(twice, once);
        const Mesh raised = load_mesh_isolated(test::box_geo_spec(geo, 0, 2, 1));
        EXPECT_EQ(static_cast<long long>(raised.num_nodes()), closed_form_nodes(once, 2));
        expect_nodes_placed(raised, once);
        expect_facets_of_cells(raised);
    }
}

}  // namespace gpufem
