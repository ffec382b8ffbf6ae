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
#include "assembly/pa_operator.hpp"
#include "assembly/pa_system.hpp"
#include "assembly/poisson_assembly.hpp"
#include "assembly/reference_element.hpp"
#include "high_order_meshes.hpp"
#include "linalg/blas1.hpp"
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

/// Every count and first of got equals expected's.
inline void expect_same_signs(const JacobianSigns& got, const JacobianSigns& expected, const std::string& what)
{
    EXPECT_EQ(got.positive, expected.positive) << what;
    EXPECT_EQ(got.negative, expected.negative) << what;
    EXPECT_EQ(got.first_positive, expected.first_positive) << what;
    EXPECT_EQ(got.first_negative, expected.first_negative) << what;
    EXPECT_EQ(got.first_degenerate, expected.first_degenerate) << what;
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
        // A few inner nodes three spacings past their neighbours: their cells fold (1.5 spacings
        // left every cell unfolded for about 1 seed in 50).
        for (int moved = 0; moved < 3;) {
            double* x = &mesh.coordinates[3 * static_cast<std::size_t>(node(random))];
            if (std::min({x[0], x[1]}) < 0.01 || std::max({x[0], x[1]}) > 0.99) continue;
            x[0] += (moved++ % 2 ? 3.0 : -3.0) * spacing;
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
        expect_same_signs(b, a, what);
    }
}

/// pa's signs of det J, found with its point factors on exec (on a GPU in 3D by sum
/// factorisation), equal jacobian_signs' on the CPU at the same points: hexahedra of orders
/// 2, 3, 5 and 7 (3 to 8 points per direction) and Q4 quadrilaterals, nodes moved at random
/// (some folding cells), once mirrored (every cell negative); and a tangled grid is refused by
/// pa's assembly with the message of the check before assembly.
inline void check_pa_jacobian_signs_match_cpu(const ExecPtr& exec)
{
    const unsigned seed = random_seed();
    std::mt19937 random(seed);
    const ExecPtr cpu = Executor::create_cpu();
    const std::pair<ElementType, int> cells[] = {{ElementType::hexahedron, 2}, {ElementType::hexahedron, 3},
                                                 {ElementType::hexahedron, 5}, {ElementType::hexahedron, 7},
                                                 {ElementType::quadrilateral, 4}};
    for (const auto& [type, order] : cells)
        for (const bool mirrored : {false, true}) {
            Mesh mesh = unit_box_mesh(type, order, mirrored ? 0.5 : 0.25);
            const double spacing = 0.25 / order;
            std::uniform_real_distribution<double> small(-0.05 * spacing, 0.05 * spacing);
            std::uniform_int_distribution<index_type> node(0, mesh.num_nodes() - 1);
            // Inner nodes past their neighbours: three equispaced spacings, past the widest gap
            // of the GLL nodes from degree 5 (a move of 1.5 spacings left every cell unfolded
            // for about 1 seed in 20 at degree 7).
            for (int moved = 0; moved < 3 && !mirrored;) {
                double* x = &mesh.coordinates[3 * static_cast<std::size_t>(node(random))];
                if (std::min({x[0], x[1]}) < 0.01 || std::max({x[0], x[1]}) > 0.99) continue;
                x[0] += (moved++ % 2 ? 3.0 : -3.0) * spacing;
            }
            for (std::size_t i = 0; i < mesh.coordinates.size(); ++i)
                mesh.coordinates[i] = (mirrored && i % 3 == 0 ? -1 : 1) * mesh.coordinates[i] + small(random);
            if (mesh.dim == 2)
                for (std::size_t i = 2; i < mesh.coordinates.size(); i += 3) mesh.coordinates[i] = 0;
            const ReferenceElement ref = assembly_reference_element(mesh);
            const ElementData<double> on_host = make_geometry_data<double>(cpu, mesh, ref);
            const JacobianSigns expected = GPUFEM_DISPATCH(*cpu, jacobian_signs(*cpu, on_host.args()));
            AssemblyTimes times;  // with kappa and f at the points, as pa's assembly reads them
            const ElementData<double> on_exec =
                timed_problem_element_data<double>(exec, mesh, ref, ProblemSpec{}, times, false);
            Array<double> rhs(exec, static_cast<std::size_t>(mesh.num_nodes()));
            fill(rhs, 0.0);
            const PaOperator<double> op(exec, on_exec, make_pa_tensor_basis(ref), {}, rhs, RobinFacets{});
            const JacobianSigns got = op.jacobian_signs();
            const std::string what = std::string(element_type_name(type)) + " order " + std::to_string(order) +
                                     (mirrored ? " mirrored" : "") + " seed " + std::to_string(seed);
            if (mirrored) {
                EXPECT_EQ(expected.negative, mesh.num_cells()) << what;
            } else {
                EXPECT_GT(expected.positive, 0) << what;
                EXPECT_GE(expected.first_degenerate, 0) << what << ": no cell folded, the test proves nothing";
            }
            expect_same_signs(got, expected, what);
        }
    Mesh tangled = grid_mesh(ElementType::hexahedron, 6, 0.2);
    tangled.source = "tangled grid";
    tangled.coordinates[3 * (2 + 7 * (2 + 7 * 2))] += 1.5 / 6;  // the interior node (2, 2, 2) past its neighbour
    std::string message;  // the check before assembly at pa's points
    try {
        check_mesh_geometry(tangled, make_geometry_data<double>(exec, tangled, assembly_reference_element(tangled)));
    } catch (const std::runtime_error& e) {
        message = e.what();
    }
    EXPECT_NE(message.find("tangled grid"), std::string::npos) << message;
    const ProblemSpec problem;  // kappa 1, f 1
    try {
        assemble_pa_system<double>(exec, tangled, problem);
        ADD_FAILURE() << "pa assembled a tangled mesh";
    } catch (const std::runtime_error& e) {
        EXPECT_EQ(std::string(e.what()), message);
    }
}

}  // namespace gpufem::test
