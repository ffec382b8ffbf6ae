// The convection term b . grad u (CPU kernels, every type and order 1-4): the element
// convection matrix C = K(b) - K(0), C_ij = int N_i b . grad N_j, against a hand-computed P1
// triangle; C u = (b . c) int N_i for u = c . x + d (isoparametric spaces hold linear
// functions) on curved single cells and jittered meshes; C is not symmetric and its rows sum
// to zero; the assembled patch test with convection; bad velocities are rejected.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "element_test_support.hpp"
#include "high_order_meshes.hpp"
#include "simple_meshes.hpp"

using namespace gpufem;
using test::cpu_element;

namespace {

constexpr ElementType all_types[] = {ElementType::triangle, ElementType::quadrilateral,
                                     ElementType::tetrahedron, ElementType::hexahedron};

/// The convection velocity of the tests and the gradient of the linear test function.
constexpr double velocity[3] = {0.7, -1.3, 0.4};
constexpr double slope[3] = {0.6, -1.1, 0.8};

/// The first dim components of velocity.
std::vector<double> convection(int dim) { return {velocity, velocity + dim}; }

/// An affine map plus a smooth bump: a curved cell whose high-order nodes leave the
/// straight positions (order 1: a general affine simplex or a non-parallelogram box).
std::array<double, 3> curved(ElementType type, const double* xi)
{
    const int dim = element_dimension(type);
    std::array<double, 3> x = test::to_unit_cell(type, xi);
    const double x0 = x[0], y0 = x[1], z0 = x[2];
    x[0] = 0.3 + 1.2 * x0 + 0.3 * y0 + 0.05 * std::sin(1.3 * y0 + 0.4) + 0.1 * x0 * y0;
    x[1] = -0.2 - 0.2 * x0 + 0.9 * y0 + 0.05 * std::cos(0.7 * x0);
    if (dim == 3) {
        x[0] += 0.1 * z0;
        x[1] += 0.25 * z0;
        x[2] = 0.5 + 0.15 * x0 - 0.1 * y0 + 1.1 * z0 + 0.04 * std::sin(x0 * y0 + z0);
    }
    return x;
}

/// The meshes each check runs on: one curved cell, and a Gmsh mesh of the unit square/cube
/// with every node jittered (curved cells for order >= 2, non-affine boxes for order 1).
std::vector<Mesh> test_meshes(ElementType type, int order)
{
    std::vector<Mesh> meshes;
    meshes.push_back(
        test::lagrange_cell(type, order, [&](const double* xi) { return curved(type, xi); }));
    const double h = element_dimension(type) == 2 ? 0.34 : 0.5;
    Mesh mesh = test::unit_box_mesh(type, order, h);
    test::jitter_nodes(mesh, 0.03 * h / order, 17u * order + static_cast<unsigned>(type));
    meshes.push_back(std::move(mesh));
    return meshes;
}

/// Per-cell convection matrices C = K(b) - K(0) (same kappa) and loads int N_i (f = 1).
struct Convection {
    std::vector<double> c, with, without, volume_load;
};

Convection convection_matrices(const Mesh& mesh)
{
    const char* kappa = "1 + x*x + 0.5*y";
    const auto with = cpu_element(mesh, kappa, "1", convection(mesh.dim));
    const auto without = cpu_element(mesh, kappa, "1");
    Convection out{with.ke, with.ke, without.ke, without.fe};
    for (std::size_t k = 0; k < out.c.size(); ++k) out.c[k] -= without.ke[k];
    return out;
}

std::string label(const Mesh& mesh, std::size_t which)
{
    return std::string(element_type_name(mesh.cell_type)) + " order " +
           std::to_string(mesh.degree) + (which == 0 ? " curved cell" : " jittered mesh");
}

}  // namespace

TEST(Convection, P1ReferenceTriangleByHand)
{
    // b = (1, 0): C_ij = int N_i dN_j/dx = (area / 3) dN_j/dx with dN/dx = (-1, 1, 0).
    const Mesh m = test::single_cell(ElementType::triangle);
    const auto with = cpu_element(m, "1", "1", {1.0, 0.0});
    const auto without = cpu_element(m, "1", "1");
    const double row[3] = {-1, 1, 0};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            EXPECT_NEAR(with.ke[i * 3 + j] - without.ke[i * 3 + j], row[j] / 6.0, 1e-15)
                << "entry " << i << ", " << j;
}

TEST(Convection, ZeroVelocityGivesTheDiffusionMatrix)
{
    // The full-matrix path with b = 0 against the symmetric path without convection.
    for (ElementType type : all_types)
        for (int order = 1; order <= 4; ++order) {
            const Mesh m = test::lagrange_cell(
                type, order, [&](const double* xi) { return curved(type, xi); });
            const auto zero = cpu_element(m, "2 + x", "1", std::vector<double>(m.dim, 0.0));
            const auto none = cpu_element(m, "2 + x", "1");
            double scale = 0;
            for (double v : none.ke) scale = std::max(scale, std::abs(v));
            for (std::size_t k = 0; k < none.ke.size(); ++k)
                ASSERT_NEAR(zero.ke[k], none.ke[k], 1e-14 * scale)
                    << element_type_name(type) << " order " << order << " entry " << k;
            EXPECT_EQ(zero.fe, none.fe);
        }
}

TEST(Convection, ReproducesLinearFunctionsOnCurvedCells)
{
    // u = c . x + d is in every isoparametric Lagrange space, so b . grad u_h = b . c at every
    // quadrature point and C u_e = (b . c) int N_i, the load of f = b . c, to rounding.
    for (ElementType type : all_types)
        for (int order = 1; order <= 4; ++order) {
            const auto meshes = test_meshes(type, order);
            for (std::size_t which = 0; which < meshes.size(); ++which) {
                const Mesh& mesh = meshes[which];
                const int dim = mesh.dim;
                double bc = 0;
                for (int d = 0; d < dim; ++d) bc += velocity[d] * slope[d];
                const Convection r = convection_matrices(mesh);
                const std::size_t n = mesh.nodes_per_cell;
                double worst = 0, scale = 0;
                for (index_type e = 0; e < mesh.num_cells(); ++e) {
                    std::vector<double> u(n);
                    for (std::size_t i = 0; i < n; ++i) {
                        const double* x =
                            &mesh.coordinates[3 * static_cast<std::size_t>(mesh.cells[e * n + i])];
                        u[i] = 0.25;
                        for (int d = 0; d < dim; ++d) u[i] += slope[d] * x[d];
                    }
                    for (std::size_t i = 0; i < n; ++i) {
                        double cu = 0, magnitude = 0;
                        for (std::size_t j = 0; j < n; ++j) {
                            const std::size_t k = (e * n + i) * n + j;
                            cu += r.c[k] * u[j];
                            magnitude += (std::abs(r.with[k]) + std::abs(r.without[k])) *
                                         std::abs(u[j]);
                        }
                        worst = std::max(worst, std::abs(cu - bc * r.volume_load[e * n + i]));
                        scale = std::max(scale, magnitude);
                    }
                }
                EXPECT_LT(worst, 1e-10 * scale) << label(mesh, which);
            }
        }
}

TEST(Convection, MatrixIsNotSymmetricAndRowsSumToZero)
{
    // Rows: sum_j N_j = 1, so sum_j C_ij = int N_i b . grad 1 = 0. Columns do not vanish
    // (int b . grad N_j is a boundary flux), and C_ij != C_ji.
    for (ElementType type : all_types)
        for (int order = 1; order <= 4; ++order) {
            const auto meshes = test_meshes(type, order);
            for (std::size_t which = 0; which < meshes.size(); ++which) {
                const Mesh& mesh = meshes[which];
                const Convection r = convection_matrices(mesh);
                const std::size_t n = mesh.nodes_per_cell;
                double scale = 0, asymmetry = 0, worst_row = 0;
                for (double v : r.with) scale = std::max(scale, std::abs(v));
                for (index_type e = 0; e < mesh.num_cells(); ++e) {
                    const double* c = &r.c[static_cast<std::size_t>(e) * n * n];
                    for (std::size_t i = 0; i < n; ++i) {
                        double row = 0;
                        for (std::size_t j = 0; j < n; ++j) {
                            row += c[i * n + j];
                            asymmetry = std::max(asymmetry, std::abs(c[i * n + j] - c[j * n + i]));
                        }
                        worst_row = std::max(worst_row, std::abs(row));
                    }
                }
                EXPECT_GT(asymmetry, 1e-3 * scale) << label(mesh, which);
                EXPECT_LT(worst_row, 1e-11 * scale) << label(mesh, which);
            }
        }
}

TEST(Convection, AssembledPatchTestWithConvection)
{
    // Assembled without Dirichlet conditions, with constant kappa and f = b . c: for
    // u = c . x + d the diffusion part of A u leaves only boundary fluxes and the convection
    // part is the load, so (A u - rhs)_i = 0 at every interior node. Simplices are curved by
    // jittering their nodes; boxes are mapped by a global multilinear map (non-parallelogram
    // cells): on curved Q3 hexahedra the diffusion part's patch test is not exact under the
    // assembly's quadrature (the cofactors of J times dN_i exceed its degree).
    for (ElementType type : all_types)
        for (int order = 1; order <= 3; ++order) {
            const int dim = element_dimension(type);
            const double h = dim == 2 ? 0.3 : 0.5;
            Mesh mesh = test::unit_box_mesh(type, order, h);
            if (type == ElementType::triangle || type == ElementType::tetrahedron)
                test::jitter_nodes(mesh, 0.03 * h / order, 5u + order);
            else
                test::map_multilinearly(mesh);
            double bc = 0;
            for (int d = 0; d < dim; ++d) bc += velocity[d] * slope[d];
            ProblemSpec p;
            p.kappa = "0.3";
            p.f = "1";  // the load of f = b . c is bc times this one
            p.convection = convection(dim);
            const auto system = assemble_poisson<double>(Executor::create_cpu(), mesh, p);
            auto rhs = system.rhs.to_host();
            for (double& r : rhs) r *= bc;
            std::vector<double> u(mesh.num_nodes());
            for (index_type i = 0; i < mesh.num_nodes(); ++i) {
                u[i] = 0.25;
                for (int d = 0; d < dim; ++d) u[i] += slope[d] * mesh.coordinates[3 * i + d];
            }
            const test::PatchResidual r = test::interior_residual(mesh, system.matrix, u, rhs);
            const std::string what =
                std::string(element_type_name(type)) + " order " + std::to_string(order);
            EXPECT_GT(r.interior, 0) << what;
            EXPECT_LT(r.worst, 1e-12 * r.scale) << what;
        }
}

TEST(Convection, VelocityMustMatchTheMeshDimension)
{
    const auto exec = Executor::create_cpu();
    const Mesh plane = test::single_cell(ElementType::triangle);
    const Mesh solid = test::single_cell(ElementType::tetrahedron);
    const auto data = [&](const Mesh& m, const std::vector<double>& b) {
        const ReferenceElement ref = make_reference_element(m.cell_type, 1, 2);
        return make_element_data<double>(exec, m, ref, Expression("1"), Expression("0"), b);
    };
    const auto expect_rejected = [&](const Mesh& m, const std::vector<double>& b,
                                     const std::string& needle) {
        try {
            data(m, b);
            ADD_FAILURE() << "accepted " << b.size() << " components in " << m.dim << "D";
        } catch (const std::invalid_argument& error) {
            const std::string message = error.what();
            EXPECT_NE(message.find("problem.convection"), std::string::npos) << message;
            EXPECT_NE(message.find(needle), std::string::npos) << message;
        }
    };
    expect_rejected(solid, {1.0, 2.0}, "needs 3 components");
    expect_rejected(solid, {1.0, 2.0, 3.0, 4.0}, "got 4");
    expect_rejected(plane, {1.0, 2.0, 0.5}, "bz = 0.5");
    expect_rejected(plane, {1.0}, "got 1");
    expect_rejected(plane, {1.0, NAN}, "finite");

    // Accepted: 3 components with bz = 0 in 2D (stored as 2), none at all.
    const auto flat = data(plane, {1.0, -2.0, 0.0});
    EXPECT_EQ(flat.velocity.to_host(), (std::vector<double>{1.0, -2.0}));
    EXPECT_EQ(flat.args().has_convection, 1);
    EXPECT_EQ(velocity_at(flat.args(), 7, 1), -2.0);  // a constant velocity: the same at every point
    EXPECT_EQ(data(solid, {}).args().has_convection, 0);
    EXPECT_EQ(data(solid, {}).args().has_lower_order, 0);

    // The assembly passes problem.convection through.
    ProblemSpec p;
    p.convection = {1.0, 2.0};
    EXPECT_THROW(assemble_poisson<double>(exec, test::grid_mesh(ElementType::hexahedron, 2), p),
                 std::invalid_argument);
}
