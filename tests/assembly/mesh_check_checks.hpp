#pragma once
// Meshes that must be refused before assembly, checked on an executor (shared by the CPU test
// test_mesh_check.cpp and the GPU test test_expression_gpu.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "assembly/geometry_check_kernels.hpp"
#include "assembly/mesh_check.hpp"
#include "assembly/reference_element.hpp"
#include "high_order_meshes.hpp"
#include "random_values.hpp"
#include "simple_meshes.hpp"

namespace gpufem::test {

/// The message check_mesh_geometry throws for this mesh on exec ("" if it accepts it).
inline std::string mesh_check_message(const ExecPtr& exec, const Mesh& mesh)
{
    const ReferenceElement ref = make_reference_element(mesh.cell_type, mesh.degree, 2 * mesh.degree + 1);
    const ElementData<double> data = make_geometry_data<double>(exec, mesh, ref);
    try {
        check_mesh_geometry(mesh, data);
    } catch (const std::runtime_error& e) {
        return e.what();
    }
    return "";
}

/// Valid meshes pass (both orientations); tangled, folded, tilted and non-finite ones are
/// refused naming the cell or node.
inline void check_meshes_are_validated(const ExecPtr& exec)
{
    for (ElementType type : {ElementType::triangle, ElementType::quadrilateral,
                             ElementType::tetrahedron, ElementType::hexahedron}) {
        SCOPED_TRACE(element_type_name(type));
        Mesh mesh = grid_mesh(type, 6, 0.2);
        mesh.source = "test grid";
        EXPECT_EQ(mesh_check_message(exec, mesh), "");
        // Mirrored (every cell inverted alike): still consistent, accepted.
        Mesh mirrored = mesh;
        for (std::size_t i = 0; i < mirrored.coordinates.size(); i += 3) mirrored.coordinates[i] *= -1;
        EXPECT_EQ(mesh_check_message(exec, mirrored), "");
        // Tangled: the interior node (2, 2[, 2]) moved 1.5 cells along x, past its neighbour.
        Mesh tangled = mesh;
        const int np = 7;
        const std::size_t node = mesh.dim == 2 ? 2 + np * 2 : 2 + np * (2 + np * 2);
        tangled.coordinates[3 * node] += 1.5 / 6;
        const std::string message = mesh_check_message(exec, tangled);
        EXPECT_TRUE(message.find("is tangled") != std::string::npos ||
                    message.find("is degenerate or folded") != std::string::npos)
            << message;
        EXPECT_NE(message.find("test grid"), std::string::npos) << message;
        EXPECT_NE(message.find("nodes at ("), std::string::npos) << message;
        // A coordinate that is not finite names the node.
        Mesh broken = mesh;
        broken.coordinates[3 * 5 + 1] = std::nan("");
        EXPECT_NE(mesh_check_message(exec, broken).find("node 5 has a coordinate that is not finite"),
                  std::string::npos);
    }
    // 2D meshes off the plane z = const: tilted about the x axis, and in the x-z plane.
    Mesh tilted = grid_mesh(ElementType::triangle, 4);
    tilted.source = "tilted";
    for (std::size_t i = 0; i < tilted.coordinates.size(); i += 3) {
        const double y = tilted.coordinates[i + 1];
        tilted.coordinates[i + 1] = y * std::cos(0.3);
        tilted.coordinates[i + 2] = y * std::sin(0.3);
    }
    EXPECT_NE(mesh_check_message(exec, tilted).find("is 2D but does not lie in a plane z = const"),
              std::string::npos);
    Mesh xz = grid_mesh(ElementType::quadrilateral, 4);
    for (std::size_t i = 0; i < xz.coordinates.size(); i += 3) std::swap(xz.coordinates[i + 1], xz.coordinates[i + 2]);
    EXPECT_NE(mesh_check_message(exec, xz).find("does not lie in a plane z = const"), std::string::npos);
    // A curved Q2 cell folded by its mid-edge node: det J changes sign inside the cell.
    Mesh folded = unit_box_mesh(ElementType::quadrilateral, 2, 0.5);
    folded.source = "folded";
    const index_type* cell = &folded.cells[0];
    const index_type mid = cell[4];  // first mid-edge node (Gmsh order: 4 vertices, then edges)
    const index_type a = cell[0], b = cell[3];
    for (int d = 0; d < 2; ++d)  // mid-edge node of edge 0-1 pushed beyond the opposite edge
        folded.coordinates[3 * mid + d] =
            folded.coordinates[3 * a + d] + 2.5 * (folded.coordinates[3 * b + d] - folded.coordinates[3 * a + d]);
    const std::string fold = mesh_check_message(exec, folded);
    EXPECT_TRUE(fold.find("is degenerate or folded") != std::string::npos ||
                fold.find("is tangled") != std::string::npos)
        << fold;
}

/// jacobian_signs on exec equals the CPU's on high-order cells (Q3 and Q4 hexahedra, Q6
/// quadrilaterals: 49 to 216 points a cell, the GPU's warp-per-cell path) whose nodes are
/// moved at random, some far enough to fold cells: the same counts, firsts and first bad point.
inline void check_jacobian_signs_match_cpu(const ExecPtr& exec)
{
    const unsigned seed = random_seed();
    std::mt19937 random(seed);
    const std::pair<ElementType, int> cells[] = {
        {ElementType::hexahedron, 3}, {ElementType::hexahedron, 4}, {ElementType::quadrilateral, 6}};
    for (const auto& [type, order] : cells) {
        Mesh mesh = unit_box_mesh(type, order, 0.25);
        const double spacing = 0.25 / order;
        std::uniform_real_distribution<double> small(-0.05 * spacing, 0.05 * spacing);
        std::uniform_int_distribution<index_type> node(0, mesh.num_nodes() - 1);
        for (int moved = 0; moved < 3;) {  // a few inner nodes past their neighbours: their cells fold
            double* x = &mesh.coordinates[3 * static_cast<std::size_t>(node(random))];
            if (std::min({x[0], x[1]}) < 0.01 || std::max({x[0], x[1]}) > 0.99) continue;
            x[0] += (moved++ % 2 ? 1.5 : -1.5) * spacing;
        }
        for (double& x : mesh.coordinates) x += small(random);
        if (mesh.dim == 2)
            for (std::size_t i = 2; i < mesh.coordinates.size(); i += 3) mesh.coordinates[i] = 0;
        const ReferenceElement ref = make_reference_element(mesh.cell_type, mesh.degree, 2 * mesh.degree + 1);
        const ElementData<double> on_host = make_geometry_data<double>(Executor::create_cpu(), mesh, ref);
        const ElementData<double> on_exec = make_geometry_data<double>(exec, mesh, ref);
        const JacobianSigns a = GPUFEM_DISPATCH(*on_host.coordinates.executor(),
                                                jacobian_signs(*on_host.coordinates.executor(), on_host.args()));
        const JacobianSigns b = GPUFEM_DISPATCH(*exec, jacobian_signs(*exec, on_exec.args()));
        const std::string what = std::string(element_type_name(type)) + " order " + std::to_string(order) +
                                 " seed " + std::to_string(seed);
        EXPECT_GE(on_host.num_points, 32) << what;
        EXPECT_GT(a.positive, 0) << what;
        EXPECT_GE(a.first_degenerate, 0) << what << ": no cell folded, the test proves nothing";
        EXPECT_EQ(a.positive, b.positive) << what;
        EXPECT_EQ(a.negative, b.negative) << what;
        EXPECT_EQ(a.first_positive, b.first_positive) << what;
        EXPECT_EQ(a.first_negative, b.first_negative) << what;
        EXPECT_EQ(a.first_degenerate, b.first_degenerate) << what;
    }
}

}  // namespace gpufem::test
