#pragma once
// Meshes that must be refused before assembly, checked on an executor (shared by the CPU test
// test_mesh_check.cpp and the GPU test test_expression_gpu.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "assembly/mesh_check.hpp"
#include "assembly/reference_element.hpp"
#include "high_order_meshes.hpp"
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

}  // namespace gpufem::test
