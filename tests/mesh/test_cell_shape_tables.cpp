// The cell shapes' tables agree with themselves: each table is its type's, its counts match
// its lists, its edges and faces are those of one closed polytope, its lattice corners are its
// reference corners in lattice units, its first-order basis is nodal, and its refinement
// children tile the parent's volume.
#include <algorithm>
#include <cmath>
#include <set>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "mesh/kernel_shapes.hpp"
#include "mesh/shapes/cell_shape.hpp"

namespace gpufem {
namespace {

std::vector<ElementType> all_types()
{
    std::vector<ElementType> types;
    for (int t = 0; t < element_type_count; ++t) types.push_back(static_cast<ElementType>(t));
    return types;
}

TEST(CellShapeTables, EachTableIsItsTypesAndItsCountsMatchItsLists)
{
    for (const ElementType type : all_types()) {
        const ShapeTraits& shape = cell_shape(type);
        SCOPED_TRACE(shape.name);
        EXPECT_EQ(shape.type, type);
        EXPECT_EQ(shape.reference_corners.size(), static_cast<std::size_t>(shape.corners * shape.dim));
        EXPECT_EQ(shape.lattice_corners.size(), static_cast<std::size_t>(shape.corners));
        EXPECT_EQ(shape.lagrange_nodes[0], shape.corners);
        EXPECT_EQ(shape.gmsh_types[0], shape.gmsh_basis_types[0]);
        std::vector<int> order(shape.vtk_corner_order.begin(), shape.vtk_corner_order.end());
        std::sort(order.begin(), order.end());
        for (int i = 0; i < shape.corners; ++i) EXPECT_EQ(order.at(static_cast<std::size_t>(i)), i);
        EXPECT_EQ(shape.children.size() % static_cast<std::size_t>(shape.refinement_patterns), 0u);
        EXPECT_EQ(element_node_count(type), shape.corners);
        EXPECT_STREQ(element_type_name(type), shape.name);
    }
}

TEST(CellShapeTables, EdgesAndFacesBoundOnePolytope)
{
    for (const ElementType type : all_types()) {
        const ShapeTraits& shape = cell_shape(type);
        SCOPED_TRACE(shape.name);
        std::set<std::pair<int, int>> edges;
        for (const auto& edge : shape.edges) {
            EXPECT_NE(edge[0], edge[1]);
            EXPECT_TRUE(edges.insert(std::minmax(edge[0], edge[1])).second);
        }
        for (const auto& face : shape.faces) {
            const int n = face[3] < 0 ? 3 : 4;
            for (int k = 0; k < n; ++k)
                EXPECT_TRUE(edges.count(std::minmax(face[static_cast<std::size_t>(k)],
                                                    face[static_cast<std::size_t>((k + 1) % n)])))
                    << "face side " << k << " is no edge";
        }
        const long long v = shape.corners, e = static_cast<long long>(shape.edges.size());
        const long long f = static_cast<long long>(shape.faces.size());
        if (shape.dim == 3) EXPECT_EQ(v - e + f, 2);  // Euler: a closed polyhedron
        if (shape.dim == 2) EXPECT_EQ(v - e + f, 1);  // a polygon and itself
        if (shape.dim == 1) EXPECT_EQ(e, 1);
    }
}

TEST(CellShapeTables, LatticeCornersAreReferenceCornersInLatticeUnits)
{
    for (const ElementType type : all_types()) {
        const ShapeTraits& shape = cell_shape(type);
        SCOPED_TRACE(shape.name);
        for (int i = 0; i < shape.corners; ++i)
            for (int c = 0; c < shape.dim; ++c) {
                const double u = shape.reference_corners[static_cast<std::size_t>(i * shape.dim + c)];
                const double lattice = shape.symmetric_axes[static_cast<std::size_t>(c)] ? (u + 1) / 2 : u;
                EXPECT_EQ(lattice, shape.lattice_corners[static_cast<std::size_t>(i)][static_cast<std::size_t>(c)]);
            }
    }
}

TEST(CellShapeTables, FirstOrderBasisIsNodalAndSumsToOne)
{
    for (const ElementType type : all_types()) {
        const ShapeTraits& shape = cell_shape(type);
        SCOPED_TRACE(shape.name);
        std::vector<double> values(static_cast<std::size_t>(shape.corners));
        std::vector<double> gradients(static_cast<std::size_t>(shape.corners * shape.dim));
        for (int j = 0; j < shape.corners; ++j) {
            shape.linear_basis(&shape.reference_corners[static_cast<std::size_t>(j * shape.dim)], values.data(),
                               gradients.data());
            for (int i = 0; i < shape.corners; ++i)
                EXPECT_NEAR(values[static_cast<std::size_t>(i)], i == j ? 1.0 : 0.0, 1e-14) << i << " at " << j;
        }
        const double centre[3] = {0.2, 0.15, 0.1};
        shape.linear_basis(centre, values.data(), gradients.data());
        double sum = 0;
        for (const double value : values) sum += value;
        EXPECT_NEAR(sum, 1.0, 1e-14);
    }
}

/// |det| of a frame's edge vectors (dim of them).
long long frame_volume(const LatticeFrame& frame, int dim)
{
    const auto& e = frame.edges;
    if (dim == 1) return std::abs(e[0][0]);
    if (dim == 2) return std::abs(e[0][0] * e[1][1] - e[0][1] * e[1][0]);
    return std::abs(e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1]) -
                    e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0]) +
                    e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0]));
}

TEST(CellShapeTables, RefinementChildrenTileTheParent)
{
    // In lattice units a child's volume is |det| of its frame times its own shape's volume in
    // its lattice; the parent's order-2 lattice holds 2^dim times the parent's order-1 volume.
    const auto lattice_volume = [](ElementType type) {
        const ShapeTraits& shape = cell_shape(type);
        const double simplex = shape.dim == 2 ? 0.5 : 1.0 / 6;
        if (shape.box) return 1.0;
        if (shape.simplex) return simplex;
        return type == ElementType::prism ? 0.5 : 4.0 / 3;  // prism; pyramid: base 2 x 2, height 1
    };
    for (const ElementType type : all_types()) {
        const ShapeTraits& shape = cell_shape(type);
        SCOPED_TRACE(shape.name);
        for (int p = 0; p < shape.refinement_patterns; ++p) {
            double volume = 0;
            for (const LatticeFrame& child : shape.pattern_children(p)) {
                const ElementType child_type = child.type == ElementType::line ? type : child.type;
                volume += static_cast<double>(frame_volume(child, shape.dim)) * lattice_volume(child_type);
            }
            EXPECT_NEAR(volume, std::pow(2.0, shape.dim) * lattice_volume(type), 1e-12) << "pattern " << p;
        }
    }
}

TEST(CellShapeTables, KernelShapesCopyTheSides)
{
    const KernelShapes shapes = kernel_shapes();
    for (const ElementType type : all_types()) {
        const ShapeTraits& shape = cell_shape(type);
        const KernelShape& copy = shapes.of_type[static_cast<int>(type)];
        if (shape.dim < 2) {
            EXPECT_EQ(copy.faces, 0);
            continue;
        }
        EXPECT_EQ(copy.corners, shape.corners);
        EXPECT_EQ(static_cast<std::size_t>(copy.faces), shape.dim == 2 ? shape.edges.size() : shape.faces.size());
    }
}

}  // namespace
}  // namespace gpufem
