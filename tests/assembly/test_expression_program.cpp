// ExpressionProgram: the translation of muParser's bytecode, run by evaluate_program and by the
// CPU expression kernels, against stock muParser on random points for every operator,
// function, constant and ternary; constant folding; rejected expressions; errors that name
// the point and the cell; error norms independent of the thread count.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "assembly/element_data.hpp"
#include "assembly/error_norms.hpp"
#include "assembly/expression.hpp"
#include "assembly/expression_kernels.hpp"
#include "assembly/poisson_assembly.hpp"
#include "assembly/reference_element.hpp"
#include "mesh/gll_output.hpp"
#include "high_order_meshes.hpp"
#include "expression_corpus.hpp"
#include "random_values.hpp"
#include "simple_meshes.hpp"

using namespace gpufem;

namespace {

TEST(ExpressionProgram, EveryFormAgreesWithStockMuParser)
{
    const unsigned seed = test::random_seed();
    const std::vector<double> xyz = test::random_points(2000, seed);
    for (const std::string& text : test::expression_corpus()) {
        const Expression expression(text);
        test::StockParser stock(text);
        const ExpressionProgram& program = expression.program();
        ASSERT_FALSE(program.code.empty()) << text;
        ASSERT_LE(program.stack_depth, expression_stack_limit) << text;
        for (std::size_t p = 0; p < xyz.size() / 3; ++p) {
            const double x = xyz[3 * p], y = xyz[3 * p + 1], z = xyz[3 * p + 2];
            const double expected = stock(x, y, z);
            const double by_program = evaluate_program(program.code.data(), x, y, z);
            ASSERT_TRUE(test::agree(by_program, expected))
                << text << " at (" << x << ", " << y << ", " << z << "): program " << by_program
                << ", muParser " << expected;
            ASSERT_TRUE(test::agree(expression.evaluate(x, y, z), expected)) << text;
        }
    }
}

TEST(ExpressionProgram, GradientIsTheDerivativeOfEveryForm)
{
    // Forward-mode differentiation (evaluate_program_gradient) against fourth-order central
    // differences at two steps, where those two agree (away from the kinks and jumps of abs,
    // sign, rint, comparisons, min/max and ternaries); the value is evaluate_program's.
    const unsigned seed = test::random_seed();
    const std::vector<double> xyz = test::random_points(300, seed);
    long long compared = 0, skipped = 0;
    for (const std::string& text : test::expression_corpus()) {
        const Expression expression(text);
        const ExprInstruction* code = expression.program().code.data();
        for (std::size_t p = 0; p < xyz.size() / 3; ++p) {
            const double at[3] = {xyz[3 * p], xyz[3 * p + 1], xyz[3 * p + 2]};
            double grad[3];
            const double value = evaluate_program_gradient(code, at[0], at[1], at[2], grad);
            ASSERT_TRUE(test::agree(value, evaluate_program(code, at[0], at[1], at[2])))
                << text << ": " << value << " against " << evaluate_program(code, at[0], at[1], at[2]);
            if (!std::isfinite(value)) continue;
            for (int d = 0; d < 3; ++d) {
                const auto difference = [&](double h) {
                    double shifted[3] = {at[0], at[1], at[2]};
                    const auto f = [&](double offset) {
                        shifted[d] = at[d] + offset;
                        return evaluate_program(code, shifted[0], shifted[1], shifted[2]);
                    };
                    return (-f(2 * h) + 8 * f(h) - 8 * f(-h) + f(-2 * h)) / (12 * h);
                };
                // One-sided second-order differences, to skip kinks exactly at the point.
                const auto one_sided = [&](double h) {
                    double shifted[3] = {at[0], at[1], at[2]};
                    shifted[d] = at[d] + h;
                    const double f1 = evaluate_program(code, shifted[0], shifted[1], shifted[2]);
                    shifted[d] = at[d] + 2 * h;
                    const double f2 = evaluate_program(code, shifted[0], shifted[1], shifted[2]);
                    return (-3 * value + 4 * f1 - f2) / (2 * h);
                };
                const double coarse = difference(1e-4), fine = difference(5e-5);
                const double forward = one_sided(1e-5), backward = one_sided(-1e-5);
                if (!std::isfinite(coarse) || std::abs(coarse - fine) > 1e-7 * (1 + std::abs(fine)) ||
                    std::abs(forward - backward) > 1e-4 * (1 + std::abs(fine))) {
                    ++skipped;
                    continue;
                }
                ++compared;
                EXPECT_NEAR(grad[d], fine, 1e-6 * (1 + std::abs(fine)))
                    << text << " d/d" << "xyz"[d] << " at (" << at[0] << ", " << at[1] << ", "
                    << at[2] << ")";
            }
        }
    }
    EXPECT_GT(compared, 20 * skipped);  // the comparison is not vacuous
}

TEST(ExpressionProgram, ConstantsFoldToOneValue)
{
    for (const char* text : {"7", "2*pi + 1", "sin(1)^2 + cos(1)^2", "max(1, 2, 3) ? 4 : 5"}) {
        const Expression expression(text);
        const ExpressionProgram& program = expression.program();
        EXPECT_TRUE(program.constant) << text;
        EXPECT_DOUBLE_EQ(program.constant_value, test::StockParser(text)(0, 0, 0)) << text;
    }
    const Expression two_pi_plus_one("2*pi + 1");
    const ExpressionProgram& folded = two_pi_plus_one.program();
    ASSERT_EQ(folded.code.size(), 2u);  // value, end
    EXPECT_EQ(folded.code[0].op, ExprOp::value);
    EXPECT_FALSE(Expression("1 + x - x").program().constant);
    EXPECT_FALSE(Expression("0*z").program().constant);
}

TEST(ExpressionProgram, RejectsWhatTheDeviceCannotRun)
{
    const auto message = [](const std::string& text) -> std::string {
        try {
            Expression expression(text);
        } catch (const std::invalid_argument& error) {
            return error.what();
        }
        return "";
    };
    EXPECT_NE(message("x = 2").find("assignment"), std::string::npos) << message("x = 2");
    // Right-nested: every level keeps two values on the stack (80 slots for 40 levels).
    std::string right = "x";
    for (int i = 0; i < 40; ++i) right = "(1 + x*" + right + ")";
    EXPECT_NE(message(right).find("stack slots"), std::string::npos) << message(right);
    // Left-nested (Horner's form written outside in): two slots whatever the depth.
    std::string left = "x";
    for (int i = 0; i < 40; ++i) left = "(" + left + ")*x + 1";
    EXPECT_EQ(message(left), "");
    EXPECT_LE(Expression(left).program().stack_depth, 3);
}

TEST(ExpressionKernelsCpu, PointsAndQuadraturePointsMatchMuParser)
{
    const unsigned seed = test::random_seed();
    const auto exec = Executor::create_cpu();
    const Mesh mesh = test::grid_mesh(ElementType::quadrilateral, 6, 0.2, seed);
    const ReferenceElement ref = make_reference_element(mesh.cell_type, 1, 3);
    const ElementData<double> geometry = make_geometry_data<double>(exec, mesh, ref);
    for (const std::string& text : test::expression_corpus()) {
        const Expression expression(text);
        test::StockParser stock(text);
        const Array<ExprInstruction> program = program_on(exec, expression);
        std::vector<double> out(static_cast<std::size_t>(mesh.num_cells()) * ref.num_points());
        kernels::cpu::evaluate_at_quadrature_points(*exec, program.data(), geometry,
                                                    ValueCheck::none, out.data());
        for (index_type e = 0; e < mesh.num_cells(); ++e)
            for (int q = 0; q < ref.num_points(); ++q) {
                const auto p = quadrature_point(mesh, ref, e, q);
                ASSERT_TRUE(test::agree(out[e * ref.num_points() + q], stock(p[0], p[1], p[2])))
                    << text << " cell " << e << " point " << q;
            }
        std::vector<double> nodal(mesh.num_nodes());
        kernels::cpu::evaluate_at_points(*exec, program.data(), mesh.coordinates.data(), nullptr,
                                         mesh.num_nodes(), ValueCheck::none, nodal.data());
        for (index_type i = 0; i < mesh.num_nodes(); ++i) {
            const double* x = &mesh.coordinates[3 * i];
            ASSERT_TRUE(test::agree(nodal[i], stock(x[0], x[1], x[2]))) << text << " node " << i;
        }
    }
}

TEST(ExpressionKernelsCpu, FirstFailingValueIsReported)
{
    const auto exec = Executor::create_cpu();
    const std::vector<double> xyz = {0.5, 0, 0, -0.5, 0, 0, 0.25, 0, 0, -2, 0, 0};
    const Expression kappa("x");
    const Array<ExprInstruction> program = program_on(exec, kappa);
    std::vector<double> out(4);
    EXPECT_EQ(kernels::cpu::evaluate_at_points(*exec, program.data(), xyz.data(), nullptr, 4,
                                               ValueCheck::positive, out.data()),
              1);
    EXPECT_EQ(kernels::cpu::evaluate_at_points(*exec, program.data(), xyz.data(), nullptr, 4,
                                               ValueCheck::finite, out.data()),
              -1);
    const Array<ExprInstruction> log_program = program_on(exec, Expression("log(x)"));
    EXPECT_EQ(kernels::cpu::evaluate_at_points(*exec, log_program.data(), xyz.data(), nullptr, 4,
                                               ValueCheck::finite, out.data()),
              1);
}

TEST(ExpressionKernelsCpu, BadKappaNamesThePointAndTheCell)
{
    const auto exec = Executor::create_cpu();
    const Mesh mesh = test::grid_mesh(ElementType::triangle, 4);
    const ReferenceElement ref = make_reference_element(mesh.cell_type, 1, 2);
    try {
        make_element_data<double>(exec, mesh, ref, Expression("x - 0.5"), Expression("1"), {});
        FAIL() << "kappa <= 0 accepted";
    } catch (const std::runtime_error& error) {
        const std::string what = error.what();
        EXPECT_NE(what.find("problem.kappa = 'x - 0.5'"), std::string::npos) << what;
        EXPECT_NE(what.find("of cell"), std::string::npos) << what;
        EXPECT_NE(what.find("positive"), std::string::npos) << what;
    }
    try {
        make_element_data<float>(exec, mesh, ref, Expression("1"), Expression("1/(x - x)"), {});
        FAIL() << "f = inf accepted";
    } catch (const std::runtime_error& error) {
        EXPECT_NE(std::string(error.what()).find("problem.f"), std::string::npos) << error.what();
    }
    try {
        make_element_data<double>(exec, mesh, ref, Expression("-1"), Expression("1"), {});
        FAIL() << "constant kappa -1 accepted";
    } catch (const std::runtime_error& error) {
        EXPECT_NE(std::string(error.what()).find("everywhere"), std::string::npos) << error.what();
    }
}

TEST(ErrorNormsCpu, FieldsAtTheEquispacedPointsAreTheNodalFieldsConverted)
{
    // On a mesh with GLL nodes (degree 6) the u_exact and error fields converted where they are
    // computed equal the nodal fields converted afterwards by the output's own conversion; the
    // norms do not change.
    const unsigned seed = test::random_seed();
    for (ElementType type : {ElementType::quadrilateral, ElementType::hexahedron}) {
        const Mesh mesh = test::unit_box_mesh(type, 6, 0.5);
        const std::vector<double> u = test::random_vector<double>(mesh.num_nodes(), seed);
        const Expression exact("sin(pi*x)*exp(y)*(1 + z^2)");
        const ExecPtr cpu = Executor::create_cpu();
        const Array<double> on_cpu = Array<double>::from_host(cpu, u);
        const NodalErrors nodal = compute_errors(mesh, on_cpu, exact);
        const EquispacedConversion conversion(cpu, mesh);
        const NodalErrors converted = compute_errors(mesh, on_cpu, exact, &conversion);
        const std::vector<MeshField> expected =
            equispaced_point_fields(mesh, {MeshField("u_exact", nodal.exact), MeshField("error", nodal.error)});
        const std::string what = std::string(element_type_name(type)) + " seed " + std::to_string(seed);
        EXPECT_EQ(converted.norms.l2, nodal.norms.l2) << what;
        EXPECT_EQ(converted.norms.max_nodal, nodal.norms.max_nodal) << what;
        ASSERT_EQ(converted.exact.size(), expected[0].values.size()) << what;
        double worst = 0, changed = 0;
        for (std::size_t i = 0; i < converted.exact.size(); ++i) {
            worst = std::max({worst, std::abs(converted.exact[i] - expected[0].values[i]),
                              std::abs(converted.error[i] - expected[1].values[i])});
            changed = std::max(changed, std::abs(converted.error[i] - nodal.error[i]));
        }
        EXPECT_LT(worst, 1e-12) << what;
        EXPECT_GT(changed, 1e-3) << what << ": the conversion moved nothing, the test proves nothing";
    }
}

TEST(ErrorNormsCpu, SameBitsForOneAndManyThreads)
{
    const unsigned seed = test::random_seed();
    const Mesh mesh = test::grid_mesh(ElementType::hexahedron, 6, 0.2, seed);
    const std::vector<double> u = test::random_vector<double>(mesh.num_nodes(), seed);
    const Expression exact("sin(pi*x)*exp(y)*(1 + z^2)");
    const int threads = omp_get_max_threads();
    omp_set_num_threads(1);
    const ErrorNorms one = compute_errors(mesh, u, exact);
    omp_set_num_threads(std::max(threads, 3));
    const ErrorNorms many = compute_errors(mesh, u, exact);
    omp_set_num_threads(threads);
    EXPECT_EQ(one.l2, many.l2);
    EXPECT_EQ(one.h1_semi, many.h1_semi);
    EXPECT_EQ(one.max_nodal, many.max_nodal);
    EXPECT_EQ(one.l2_exact, many.l2_exact);
    EXPECT_GT(one.l2, 0.0);
}

TEST(ErrorNormsCpu, ExactForTheInterpolantOfAPolynomialInTheSpace)
{
    // u = 1 + 2x - y + 3z is in the Q1 space of an affine (unjittered) hexahedral grid: all
    // errors vanish to rounding, and ||u||_L2 is the analytic value over the unit cube.
    const Mesh mesh = test::grid_mesh(ElementType::hexahedron, 4);
    const Expression exact("1 + 2*x - y + 3*z");
    std::vector<double> u(mesh.num_nodes());
    for (index_type i = 0; i < mesh.num_nodes(); ++i) {
        const double* x = &mesh.coordinates[3 * i];
        u[i] = 1 + 2 * x[0] - x[1] + 3 * x[2];
    }
    const ErrorNorms norms = compute_errors(mesh, u, exact);
    EXPECT_LT(norms.l2, 1e-13);
    EXPECT_LT(norms.h1_semi, 1e-12);  // the exact gradient, differentiated exactly
    EXPECT_LT(norms.max_nodal, 1e-14);
    // int over [0,1]^3 of (1 + 2x - y + 3z)^2 = mean^2 + variance = 3^2 + (4 + 1 + 9)/12 =
    // 61/6 (x, y, z independent uniform); the degree-4 rule integrates it exactly.
    EXPECT_NEAR(norms.l2_exact * norms.l2_exact, 61.0 / 6.0, 1e-12);
}

TEST(ErrorNormsCpu, ThinDomainsGetTheRightH1Error)
{
    // u = sin(pi y) on the unit square and on the strip [0, 2000] x [0, 1] (the same grid
    // stretched in x): u and its interpolant do not depend on x, so |u - u_h|_H1^2 on the strip
    // is 2000 times that on the square. (Central differences with a step of 1e-3 times the
    // mesh's extent, used before, differentiated sin(pi y) with a step of 2 on the strip.)
    const Expression exact("sin(pi*y)");
    const auto h1_semi = [&](double length) {
        Mesh mesh = test::grid_mesh(ElementType::quadrilateral, 16);
        for (index_type i = 0; i < mesh.num_nodes(); ++i) mesh.coordinates[3 * i] *= length;
        std::vector<double> u(mesh.num_nodes());
        for (index_type i = 0; i < mesh.num_nodes(); ++i)
            u[i] = std::sin(3.14159265358979323846 * mesh.coordinates[3 * i + 1]);
        return compute_errors(mesh, u, exact).h1_semi;
    };
    const double square = h1_semi(1.0), strip = h1_semi(2000.0);
    EXPECT_GT(square, 1e-3);  // the interpolant's error is not rounding
    EXPECT_NEAR(strip * strip, 2000 * square * square, 1e-9 * 2000 * square * square);
}

}  // namespace
