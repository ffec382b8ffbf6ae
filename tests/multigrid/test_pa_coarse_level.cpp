// p-multigrid's first coarse level of a pa operator made from its own factors
// (assembly/pa_coarse_level.hpp) against the element Galerkin product and the stored
// interpolation it replaces, and pmg's iterations with it.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "amg_test_support.hpp"
#include "assembly/pa_coarse_level.hpp"
#include "assembly/pa_operator.hpp"
#include "linalg/blas1.hpp"
#include "random_values.hpp"
#include "solver/case/case_file.hpp"
#include "solver/krylov/krylov.hpp"
#include "solver/multigrid/amg_preconditioner.hpp"
#include "solver/run/pipeline.hpp"

namespace gpufem {
namespace {

ExecPtr cpu() { return Executor::create_cpu(); }

/// y = a x on the host.
std::vector<double> product(const test::HostMatrix& a, const std::vector<double>& x)
{
    std::vector<double> y(static_cast<std::size_t>(a.rows), 0.0);
    for (index_type i = 0; i < a.rows; ++i)
        for (index_type k = a.ptr[i]; k < a.ptr[i + 1]; ++k) y[i] += a.val[k] * x[a.col[k]];
    return y;
}

/// y = a^T x on the host.
std::vector<double> transposed_product(const test::HostMatrix& a, const std::vector<double>& x)
{
    std::vector<double> y(static_cast<std::size_t>(a.cols), 0.0);
    for (index_type i = 0; i < a.rows; ++i)
        for (index_type k = a.ptr[i]; k < a.ptr[i + 1]; ++k) y[a.col[k]] += a.val[k] * x[i];
    return y;
}

/// Zero at the masked entries.
std::vector<double> zeroed(std::vector<double> x, const std::vector<std::uint8_t>& mask)
{
    for (std::size_t i = 0; i < x.size(); ++i)
        if (mask[i]) x[i] = 0;
    return x;
}

/// A case's mesh, discretisation and system, kept together (the system refers to the mesh).
struct BuiltCase {
    CaseSpec spec;
    CaseMesh mesh;
    std::unique_ptr<Discretisation<double>> disc;
    DiscreteSystem<double> system;
};

/// The case of text built on the CPU.
std::unique_ptr<BuiltCase> built_case(const std::string& text)
{
    auto out = std::make_unique<BuiltCase>();
    out->spec = parse_case_text(text, "p", "");
    out->mesh = load_case_mesh(out->spec, cpu());
    out->disc = make_discretisation<double>(out->spec, out->mesh);
    out->system = build_case_system(cpu(), *out->disc, out->spec);
    return out;
}

/// The case of a test: a partial Dirichlet boundary (its edges meet Neumann sides), a varying
/// kappa, pa, and with `convection` a convection term (the lower-order factors). A constant
/// kappa instead (`constant_kappa`) lets pa keep its factors per cell on these affine boxes.
CaseSpec coarse_level_case(const std::string& elements, int degree, bool convection, bool constant_kappa = false)
{
    const bool cube = elements == "hexahedron";
    std::string text = test::partial_dirichlet_case(cube ? "unit_cube" : "unit_square", elements, cube ? 0.5 : 0.25,
                                                    degree, "backend: cpu\nformat: pa");
    if (constant_kappa) text.replace(text.find("\"1 + x*y\""), 9, "2.5");
    CaseSpec spec = parse_case_text(text, "p", "");
    if (convection) spec.problem.convection = cube ? std::vector<double>{1.0, 0.5, 0.25} : std::vector<double>{1.0, 0.5};
    return spec;
}

/// The oracles of a coarse level: the element Galerkin product P^T K~ P that pmg makes
/// otherwise, and the stored interpolation P. The coarse Dirichlet nodes are those whose column
/// of P has an entry in a fine Dirichlet row; on the other rows and columns the level is that
/// product; its Dirichlet rows are its diagonal; the transfer is P M and M P^T. per_cell: the
/// fine operator must keep its factors per cell (the coarse level then reads them so).
void check_coarse_level(const CaseSpec& spec, bool per_cell, const std::string& what, unsigned seed)
{
    const CaseMesh mesh = load_case_mesh(spec, cpu());
    const auto disc = make_discretisation<double>(spec, mesh);
    const DiscreteSystem<double> system = build_case_system(cpu(), *disc, spec);
    const LinearOperator<double>& op = *system.op.op;
    EXPECT_EQ(op.parameters().find("per cell") != std::string::npos, per_cell) << what << ": " << op.parameters();
    // The element matrices computed again (no operator given), not read from pa's factors.
    const test::HostMatrix galerkin = test::to_host(disc->pmg_coarse_operators(cpu(), nullptr).front());
    const test::HostMatrix p = test::to_host(disc->pmg_interpolations(cpu()).front());
    std::optional<PmgMatrixFreeTransfers<double>> transfers = disc->pmg_matrix_free_transfers(cpu());
    ASSERT_TRUE(transfers) << what;
    ASSERT_TRUE(pa_coarse_level_applies(op, transfers->first)) << what;
    const std::unique_ptr<LinearOperator<double>> coarse = pa_coarse_level(op, transfers->first);
    ASSERT_TRUE(coarse) << what;
    ASSERT_EQ(coarse->rows(), galerkin.rows) << what;
    EXPECT_EQ(coarse->format(), "pa") << what;
    EXPECT_EQ(coarse->parameters().find("per cell") != std::string::npos, per_cell) << what << ": " << coarse->parameters();

    const std::vector<std::uint8_t> fine_mask = dynamic_cast<const PaOperator<double>&>(op).dirichlet_mask().to_host();
    std::vector<std::uint8_t> expected(static_cast<std::size_t>(p.cols), 0);
    for (index_type i = 0; i < p.rows; ++i)
        for (index_type k = p.ptr[i]; k < p.ptr[i + 1]; ++k)
            if (fine_mask[i] && std::abs(p.val[k]) > 1e-14) expected[p.col[k]] = 1;
    const std::vector<std::uint8_t> mask = dynamic_cast<const PaOperator<double>&>(*coarse).dirichlet_mask().to_host();
    ASSERT_EQ(mask, expected) << what;
    const auto held = static_cast<std::size_t>(std::count(mask.begin(), mask.end(), 1));
    EXPECT_GT(held, 0u) << what;
    EXPECT_LT(held, mask.size() / 2) << what;

    const std::vector<double> x = test::random_vector<double>(mask.size(), seed);
    Array<double> y(cpu(), mask.size());
    coarse->apply(Array<double>::from_host(cpu(), x), y);
    const std::vector<double> got = y.to_host(), diagonal = coarse->diagonal().to_host();
    const std::vector<double> reference = product(galerkin, zeroed(x, mask));
    std::vector<double> free_got, free_reference, free_diagonal, galerkin_diagonal;
    for (std::size_t i = 0; i < mask.size(); ++i) {
        if (mask[i]) {
            EXPECT_GT(diagonal[i], 0) << what << " row " << i;
            EXPECT_NEAR(got[i], diagonal[i] * x[i], 1e-12 * std::abs(diagonal[i])) << what << " row " << i;
            continue;
        }
        free_got.push_back(got[i]);
        free_reference.push_back(reference[i]);
        free_diagonal.push_back(diagonal[i]);
        for (index_type k = galerkin.ptr[i]; k < galerkin.ptr[i + 1]; ++k)
            if (galerkin.col[k] == static_cast<index_type>(i)) galerkin_diagonal.push_back(galerkin.val[k]);
    }
    EXPECT_LT(test::max_relative_difference(free_got, free_reference), 1e-12) << what;
    EXPECT_LT(test::max_relative_difference(free_diagonal, galerkin_diagonal), 1e-12) << what;

    Array<double> fine(cpu(), static_cast<std::size_t>(p.rows)), restricted(cpu(), mask.size());
    transfers->first.prolongation->apply(Array<double>::from_host(cpu(), x), fine);
    EXPECT_LT(test::max_relative_difference(fine.to_host(), product(p, zeroed(x, mask))), 1e-13) << what;
    const std::vector<double> r = test::random_vector<double>(static_cast<std::size_t>(p.rows), seed + 1);
    transfers->first.restriction->apply(Array<double>::from_host(cpu(), r), restricted);
    EXPECT_LT(test::max_relative_difference(restricted.to_host(), zeroed(transposed_product(p, r), mask)), 1e-13)
        << what;
}

}  // namespace

TEST(PaCoarseLevel, IsTheGalerkinProductOnItsFreeNodesAndItsTransferIsHeldAtZeroOnTheOthers)
{
    const unsigned seed = test::random_seed();
    for (const auto& [elements, degree, convection] :
         {std::tuple<std::string, int, bool>{"quadrilateral", 4, false}, std::tuple<std::string, int, bool>{"quadrilateral", 6, true},
          std::tuple<std::string, int, bool>{"quadrilateral", 8, false}, std::tuple<std::string, int, bool>{"hexahedron", 4, true},
          std::tuple<std::string, int, bool>{"hexahedron", 6, false}, std::tuple<std::string, int, bool>{"hexahedron", 8, false},
          std::tuple<std::string, int, bool>{"quadrilateral", 7, true}, std::tuple<std::string, int, bool>{"hexahedron", 7, false}}) {
        const std::string what = fmt::format("{} degree {}{} seed {}", elements, degree, convection ? " convection" : "", seed);
        check_coarse_level(coarse_level_case(elements, degree, convection), false, what, seed);
    }
}

TEST(PaCoarseLevel, ReadsTheFineFactorsKeptPerCell)
{
    // A constant kappa (and convection) on the affine boxes: the fine operator keeps one set of
    // factors per cell, and the coarse level made from them is still the Galerkin product.
    const unsigned seed = test::random_seed();
    for (const auto& [elements, degree, convection] :
         {std::tuple<std::string, int, bool>{"quadrilateral", 4, true}, std::tuple<std::string, int, bool>{"quadrilateral", 6, false},
          std::tuple<std::string, int, bool>{"hexahedron", 4, false}, std::tuple<std::string, int, bool>{"hexahedron", 6, true},
          std::tuple<std::string, int, bool>{"hexahedron", 7, false}}) {
        const std::string what =
            fmt::format("{} degree {}{}, constant kappa, seed {}", elements, degree, convection ? " convection" : "", seed);
        check_coarse_level(coarse_level_case(elements, degree, convection, true), true, what, seed);
    }
}

TEST(PaCoarseLevel, PmgWithItTakesTheIterationsOfTheGalerkinHierarchy)
{
    // The same CG solve preconditioned by pmg with the first coarse level from the element
    // Galerkin product and with the pa level over the fine factors: the iterations within two
    // and the same solution to the tolerance. (The two levels are one operator made in two
    // ways, rounded differently; on random right-hand sides the degree-4 hexahedra took 18
    // against 16 iterations for 2 of 41 seeds, within one for the others.)
    const unsigned seed = test::random_seed();
    for (const auto& [elements, degree] :
         {std::pair<std::string, int>{"quadrilateral", 6}, std::pair<std::string, int>{"hexahedron", 4},
          std::pair<std::string, int>{"hexahedron", 8}, std::pair<std::string, int>{"quadrilateral", 7},
          std::pair<std::string, int>{"hexahedron", 7}}) {
        const std::string what = fmt::format("{} degree {} seed {}", elements, degree, seed);
        const CaseSpec spec = coarse_level_case(elements, degree, false);
        const CaseMesh mesh = load_case_mesh(spec, cpu());
        const auto disc = make_discretisation<double>(spec, mesh);
        const DiscreteSystem<double> system = build_case_system(cpu(), *disc, spec);
        const LinearOperator<double>& op = *system.op.op;
        std::optional<PmgMatrixFreeTransfers<double>> galerkin_transfers = disc->pmg_matrix_free_transfers(cpu());
        std::optional<PmgMatrixFreeTransfers<double>> pa_transfers = disc->pmg_matrix_free_transfers(cpu());
        ASSERT_TRUE(galerkin_transfers && pa_transfers) << what;
        const AmgOptions options;
        const AmgPreconditioner<double> galerkin(op, options, galerkin_transfers->below,
                                                 disc->pmg_coarse_operators(cpu(), &op), {}, "element galerkin",
                                                 std::move(galerkin_transfers->first));
        std::unique_ptr<LinearOperator<double>> first = pa_coarse_level(op, pa_transfers->first);
        ASSERT_TRUE(first) << what;
        const AmgPreconditioner<double> pa(op, options, pa_transfers->below, disc->pmg_coarse_operators(cpu(), &op, true),
                                           {}, "element galerkin", std::move(pa_transfers->first), std::move(first));
        EXPECT_EQ(pa.report()["levels"][1]["format"], "pa") << what;
        const Array<double> b = Array<double>::from_host(cpu(), test::random_vector<double>(static_cast<std::size_t>(op.rows()), seed));
        SolveOptions o;
        o.tolerance = 1e-10;
        Array<double> x_galerkin(cpu(), b.size()), x_pa(cpu(), b.size());
        fill(x_galerkin, 0.0);
        fill(x_pa, 0.0);
        const SolveResult with_galerkin = solve(KrylovMethod::cg, KrylovVariant::merged, op, b, x_galerkin, o, &galerkin);
        const SolveResult with_pa = solve(KrylovMethod::cg, KrylovVariant::merged, op, b, x_pa, o, &pa);
        ASSERT_TRUE(with_galerkin.converged() && with_pa.converged()) << what;
        EXPECT_LE(std::abs(with_pa.iterations - with_galerkin.iterations), 2)
            << what << ": " << with_pa.iterations << " against " << with_galerkin.iterations;
        EXPECT_LT(test::max_relative_difference(x_pa.to_host(), x_galerkin.to_host()), 1e-8) << what;
    }
}

TEST(PaCoarseLevel, TheCaseChoosesHowTheFirstCoarseLevelIsMade)
{
    // solver.amg.pa_coarse through the pipeline: factors (the default) reports the pa level,
    // assembled the element Galerkin matrix; the same iterations within one, in double and
    // with the float cycle.
    for (const std::string precision : {"double", "float"}) {
        int iterations[2] = {0, 0};
        std::vector<double> solutions[2];
        for (int k = 0; k < 2; ++k) {
            const std::string choice = k == 0 ? "factors" : "assembled";
            const std::string what = choice + " in " + precision;
            const CaseSpec spec = parse_case_text(
                test::partial_dirichlet_case("unit_cube", "hexahedron", 0.5, 6,
                                             "backend: cpu\nformat: pa\nsolver: {preconditioner: pmg, tolerance: 1e-10, "
                                             "amg: {pa_coarse: " + choice + ", precision: " + precision + "}}"),
                "p", "");
            const CaseMesh mesh = load_case_mesh(spec, cpu());
            const auto disc = make_discretisation<double>(spec, mesh);
            const DiscreteSystem<double> system = build_case_system(cpu(), *disc, spec);
            const SystemSolution<double> solved = solve_system(system, spec.solver, disc.get());
            ASSERT_TRUE(solved.result.converged()) << what << ": " << solved.result.message;
            const nlohmann::json& level = solved.preconditioner["levels"][1];
            if (k == 0) {
                EXPECT_EQ(level["format"], "pa") << what;
                EXPECT_EQ(solved.preconditioner["coarse_operators"], pa_coarse_level_origin) << what;
            } else {
                EXPECT_FALSE(level.contains("format")) << what;
                EXPECT_EQ(solved.preconditioner["coarse_operators"], "element galerkin") << what;
            }
            iterations[k] = solved.result.iterations;
            solutions[k] = solved.x.to_host();
        }
        EXPECT_LE(std::abs(iterations[0] - iterations[1]), 1) << precision << ": " << iterations[0] << " against "
                                                              << iterations[1];
        EXPECT_LT(test::max_relative_difference(solutions[0], solutions[1]), 1e-8) << precision;
    }
}

TEST(PaCoarseLevel, IsMadeOnlyWhereItAppliesAndIsTheWholeGalerkinProductWithoutDirichletNodes)
{
    // Not made (first left as it was) on degree 2 (its coarse degree 1 is AMG's), on lma and
    // with Robin facets; without Dirichlet nodes (a reaction term makes the problem definite)
    // it is the element Galerkin product on every row and its transfer the stored one.
    const unsigned seed = test::random_seed();
    const std::string dirichlet = "problem: {f: 1, dirichlet: {boundary: 0}}\n";
    for (const std::string extra :
         {"degree: 2\nformat: pa\n" + dirichlet, "degree: 4\nformat: lma\n" + dirichlet,
          std::string("degree: 4\nformat: pa\nproblem: {f: 1, dirichlet: {left: 0}, robin: {right: {h: 2, u_inf: 1}}}\n")}) {
        const auto built = built_case("mesh: {shape: unit_cube, elements: hexahedron, size: 0.5}\nbackend: cpu\n" + extra);
        const DiscreteSystem<double>& system = built->system;
        std::optional<PmgMatrixFreeTransfers<double>> transfers = built->disc->pmg_matrix_free_transfers(cpu());
        ASSERT_TRUE(transfers) << extra;
        const LinearOperator<double>* before = transfers->first.prolongation.get();
        EXPECT_FALSE(pa_coarse_level_applies(*system.op.op, transfers->first)) << extra;
        EXPECT_EQ(pa_coarse_level(*system.op.op, transfers->first), nullptr) << extra;
        EXPECT_EQ(transfers->first.prolongation.get(), before) << extra;
    }
    const auto built = built_case("mesh: {shape: unit_square, elements: quadrilateral, size: 0.2}\n"
                                  "degree: 6\nproblem: {f: 1, c: 3}\nbackend: cpu\nformat: pa\n");
    const Discretisation<double>* disc = built->disc.get();
    const LinearOperator<double>& op = *built->system.op.op;
    std::optional<PmgMatrixFreeTransfers<double>> transfers = disc->pmg_matrix_free_transfers(cpu());
    ASSERT_TRUE(transfers);
    const LinearOperator<double>* before = transfers->first.prolongation.get();
    const std::unique_ptr<LinearOperator<double>> coarse = pa_coarse_level(op, transfers->first);
    ASSERT_TRUE(coarse);
    EXPECT_EQ(transfers->first.prolongation.get(), before);  // nothing to hold at zero
    EXPECT_TRUE(dynamic_cast<const PaOperator<double>&>(*coarse).dirichlet_mask().empty());
    const test::HostMatrix galerkin = test::to_host(disc->pmg_coarse_operators(cpu(), &op).front());
    const std::vector<double> x = test::random_vector<double>(static_cast<std::size_t>(coarse->rows()), seed);
    Array<double> y(cpu(), x.size());
    coarse->apply(Array<double>::from_host(cpu(), x), y);
    EXPECT_LT(test::max_relative_difference(y.to_host(), product(galerkin, x)), 1e-12);
}

}  // namespace gpufem
