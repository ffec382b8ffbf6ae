// Device expressions against stock muParser and the CPU kernels (label gpu): every operator,
// function, constant and ternary of the corpus at random points to 1e-14; coefficients at
// quadrature points of random meshes; the first failing value; error norms and nodal error
// fields of random solutions on every cell type and orders 1-3; kappa errors naming the cell.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "assembly/element_data.hpp"
#include "boundary_data_checks.hpp"
#include "mesh/gll_output.hpp"
#include "mesh_check_checks.hpp"
#include "assembly/error_norms.hpp"
#include "assembly/expression.hpp"
#include "assembly/expression_kernels.hpp"
#include "assembly/reference_element.hpp"
#include "expression_corpus.hpp"
#include "gpu_test.hpp"
#include "high_order_meshes.hpp"
#include "random_values.hpp"
#include "simple_meshes.hpp"

using namespace gpufem;

namespace {

constexpr ElementType all_types[] = {ElementType::triangle, ElementType::quadrilateral,
                                     ElementType::tetrahedron, ElementType::hexahedron};

/// A mesh of this type and order with randomly moved nodes (curved cells for order >= 2).
Mesh random_mesh(ElementType type, int order, unsigned seed)
{
    const bool plane = element_dimension(type) == 2;
    if (order == 1) return test::grid_mesh(type, plane ? 30 : 8, 0.2, seed);
    const double h = plane ? 0.25 : 0.5;
    Mesh mesh = test::unit_box_mesh(type, order, h);
    test::jitter_nodes(mesh, 0.02 * h / order, seed);
    return mesh;
}

TEST(ExpressionGpu, CorpusAgreesWithStockMuParser)
{
    GPUFEM_REQUIRE_GPU();
    const unsigned seed = test::random_seed();
    const auto gpu = Executor::create_cuda();
    const std::vector<double> xyz = test::random_points(20000, seed);
    const std::size_t n = xyz.size() / 3;
    const Array<double> points = Array<double>::from_host(gpu, xyz);
    Array<double> out(gpu, n);
    for (const std::string& text : test::expression_corpus()) {
        const Expression expression(text);
        test::StockParser stock(text);
        const Array<ExprInstruction> program = program_on(gpu, expression);
        kernels::cuda::evaluate_at_points(*gpu, program.data(), points.data(), nullptr,
                                          static_cast<index_type>(n), ValueCheck::none,
                                          out.data());
        const std::vector<double> device = out.to_host();
        for (std::size_t p = 0; p < n; ++p) {
            const double expected = stock(xyz[3 * p], xyz[3 * p + 1], xyz[3 * p + 2]);
            ASSERT_TRUE(test::agree(device[p], expected))
                << text << " at (" << xyz[3 * p] << ", " << xyz[3 * p + 1] << ", "
                << xyz[3 * p + 2] << "): device " << device[p] << ", muParser " << expected;
        }
    }
}

TEST(ExpressionGpu, QuadraturePointValuesMatchCpu)
{
    GPUFEM_REQUIRE_GPU();
    const unsigned seed = test::random_seed();
    const auto cpu = Executor::create_cpu();
    const auto gpu = Executor::create_cuda();
    for (ElementType type : all_types)
        for (int order = 1; order <= 3; ++order) {
            const Mesh mesh = random_mesh(type, order, seed + order);
            const ReferenceElement ref = make_reference_element(type, order, 2 * order + 1);
            const ElementData<double> gc = make_geometry_data<double>(cpu, mesh, ref);
            const ElementData<double> gg = make_geometry_data<double>(gpu, mesh, ref);
            const std::size_t n = static_cast<std::size_t>(mesh.num_cells()) * ref.num_points();
            for (const char* text :
                 {"1 + x*y*z", "sin(pi*x)*sin(pi*y) + x^2*exp(-y)", "x < 0.5 ? 1 : 10 + z"}) {
                const Expression expression(text);
                std::vector<double> host(n);
                kernels::cpu::evaluate_at_quadrature_points(
                    *cpu, program_on(cpu, expression).data(), gc, ValueCheck::none, host.data());
                Array<double> device(gpu, n);
                const Array<ExprInstruction> program = program_on(gpu, expression);
                kernels::cuda::evaluate_at_quadrature_points(*gpu, program.data(), gg,
                                                             ValueCheck::none, device.data());
                const std::vector<double> d = device.to_host();
                for (std::size_t k = 0; k < n; ++k)
                    ASSERT_TRUE(test::agree(d[k], host[k]))
                        << text << " " << element_type_name(type) << " order " << order
                        << " value " << k;
                Array<float> device_float(gpu, n);
                kernels::cuda::evaluate_at_quadrature_points(*gpu, program.data(), gg,
                                                             ValueCheck::none,
                                                             device_float.data());
                const std::vector<float> f = device_float.to_host();
                for (std::size_t k = 0; k < n; ++k) ASSERT_EQ(f[k], static_cast<float>(host[k]));
            }
        }
}

TEST(ExpressionGpu, FirstFailingValueIsTheLowestIndex)
{
    GPUFEM_REQUIRE_GPU();
    const unsigned seed = test::random_seed();
    const auto gpu = Executor::create_cuda();
    std::vector<double> xyz = test::random_points(100000, seed);
    const std::size_t n = xyz.size() / 3;
    // kappa = 2 + x is positive on [-1, 1]; make a few scattered points fail.
    std::mt19937 rng(seed);
    std::size_t lowest = n;
    for (int k = 0; k < 5; ++k) {
        const std::size_t at = std::uniform_int_distribution<std::size_t>(n / 10, n - 1)(rng);
        xyz[3 * at] = -3;
        lowest = std::min(lowest, at);
    }
    const Array<double> points = Array<double>::from_host(gpu, xyz);
    const Array<ExprInstruction> program = program_on(gpu, Expression("2 + x"));
    Array<double> out(gpu, n);
    EXPECT_EQ(kernels::cuda::evaluate_at_points(*gpu, program.data(), points.data(), nullptr,
                                                static_cast<index_type>(n), ValueCheck::positive,
                                                out.data()),
              static_cast<long long>(lowest));
    EXPECT_EQ(kernels::cuda::evaluate_at_points(*gpu, program.data(), points.data(), nullptr,
                                                static_cast<index_type>(n), ValueCheck::finite,
                                                out.data()),
              -1);
}

TEST(ExpressionGpu, ErrorNormsMatchCpu)
{
    GPUFEM_REQUIRE_GPU();
    const unsigned seed = test::random_seed();
    const auto cpu = Executor::create_cpu();
    const auto gpu = Executor::create_cuda();
    const Expression exact("sin(pi*x)*exp(y)*(1 + z^2)");
    for (ElementType type : all_types)
        for (int order = 1; order <= 3; ++order) {
            const Mesh mesh = random_mesh(type, order, seed + 7 * order);
            const std::vector<double> u = test::random_vector<double>(mesh.num_nodes(), seed);
            const NodalErrors host =
                compute_errors(mesh, Array<double>::from_host(cpu, u), exact);
            const NodalErrors device =
                compute_errors(mesh, Array<double>::from_host(gpu, u), exact);
            const std::string where =
                std::string(element_type_name(type)) + " order " + std::to_string(order);
            EXPECT_NEAR(device.norms.l2, host.norms.l2, 1e-12 * host.norms.l2) << where;
            EXPECT_NEAR(device.norms.h1_semi, host.norms.h1_semi, 1e-12 * host.norms.h1_semi)
                << where;
            EXPECT_NEAR(device.norms.l2_exact, host.norms.l2_exact, 1e-12 * host.norms.l2_exact)
                << where;
            // sin and exp of CUDA and glibc may differ in the last bit.
            EXPECT_NEAR(device.norms.max_nodal, host.norms.max_nodal, 1e-14 * host.norms.max_nodal)
                << where;
            ASSERT_EQ(device.exact.size(), host.exact.size());
            for (std::size_t i = 0; i < host.exact.size(); ++i) {
                ASSERT_TRUE(test::agree(device.exact[i], host.exact[i])) << where << " node " << i;
                ASSERT_NEAR(device.error[i], host.error[i], 1e-14 * (1 + std::abs(host.exact[i])))
                    << where << " node " << i;
            }
            // A float solution goes through the same path.
            const std::vector<float> uf(u.begin(), u.end());
            const NodalErrors from_float =
                compute_errors(mesh, Array<float>::from_host(gpu, uf), exact);
            EXPECT_NEAR(from_float.norms.l2, host.norms.l2, 1e-5 * host.norms.l2) << where;
        }
}

TEST(ExpressionGpu, ErrorFieldsConvertedToEquispacedPointsOnTheDeviceMatchTheCpu)
{
    // A mesh with GLL nodes: the u_exact and error fields converted on the device before they
    // are copied equal the CPU's converted on the host.
    GPUFEM_REQUIRE_GPU();
    const unsigned seed = test::random_seed();
    const auto cpu = Executor::create_cpu();
    const auto gpu = Executor::create_cuda();
    const Expression exact("sin(pi*x)*exp(y)*(1 + z^2)");
    for (ElementType type : {ElementType::quadrilateral, ElementType::hexahedron})
        for (int order : {5, 8}) {
            const Mesh mesh = test::unit_box_mesh(type, order, 0.5);
            const std::vector<double> u = test::random_vector<double>(mesh.num_nodes(), seed);
            const NodalErrors host = compute_errors(mesh, Array<double>::from_host(cpu, u), exact);
            const std::vector<MeshField> expected =
                equispaced_point_fields(mesh, {MeshField("u_exact", host.exact), MeshField("error", host.error)});
            const EquispacedConversion conversion(gpu, mesh);
            const NodalErrors device = compute_errors(mesh, Array<double>::from_host(gpu, u), exact, &conversion);
            const std::string where = std::string(element_type_name(type)) + " order " + std::to_string(order) +
                                      " seed " + std::to_string(seed);
            ASSERT_EQ(device.exact.size(), expected[0].values.size()) << where;
            for (std::size_t i = 0; i < device.exact.size(); ++i) {
                ASSERT_NEAR(device.exact[i], expected[0].values[i], 1e-12 * (1 + std::abs(expected[0].values[i])))
                    << where << " point " << i;
                ASSERT_NEAR(device.error[i], expected[1].values[i], 1e-12 * (1 + std::abs(expected[0].values[i])))
                    << where << " point " << i;
            }
        }
}

TEST(ExpressionGpu, BadKappaNamesTheSameCellAsTheCpu)
{
    GPUFEM_REQUIRE_GPU();
    const auto cpu = Executor::create_cpu();
    const auto gpu = Executor::create_cuda();
    const Mesh mesh = test::grid_mesh(ElementType::tetrahedron, 6);
    const ReferenceElement ref = make_reference_element(mesh.cell_type, 1, 2);
    const auto message = [&](const ExecPtr& exec) -> std::string {
        try {
            make_element_data<float>(exec, mesh, ref, Expression("x + y - 1.2"), Expression("1"),
                                     {});
        } catch (const std::runtime_error& error) {
            return error.what();
        }
        return "";
    };
    const std::string on_cpu = message(cpu);
    EXPECT_NE(on_cpu.find("of cell"), std::string::npos) << on_cpu;
    EXPECT_EQ(message(gpu), on_cpu);
}

}  // namespace

TEST(ExpressionGpu, BoundaryDataMatchesTheHostReference)
{
    GPUFEM_REQUIRE_GPU();
    test::check_boundary_data_matches_host(Executor::create_cuda(), test::random_seed());
    test::check_boundary_data_errors(Executor::create_cuda());
}

TEST(ExpressionGpu, MeshChecksRefuseTheSameMeshes)
{
    GPUFEM_REQUIRE_GPU();
    test::check_meshes_are_validated(Executor::create_cuda());
}

TEST(ExpressionGpu, JacobianSignsOfHighOrderCellsEqualTheCpus)
{
    GPUFEM_REQUIRE_GPU();
    test::check_jacobian_signs_match_cpu(Executor::create_cuda());
}

TEST(ExpressionGpu, PaFindsTheSignsOfDetJWithItsPointFactorsAsTheCpu)
{
    // In 3D by sum factorisation in the point factors' kernel (3 to 8 points per direction).
    GPUFEM_REQUIRE_GPU();
    test::check_pa_jacobian_signs_match_cpu(Executor::create_cuda());
}
