// The partial-assembly (pa) operator on the CPU: its tensor tables, and its system against the
// assembled CSR system (orders 1..8 of quadrilaterals and hexahedra, straight and curved,
// with and without anisotropic kappa, convection and reaction).
#include <gtest/gtest.h>

#include <numeric>

#include "assembly/operator_levels.hpp"
#include "assembly/pa_tensor_basis.hpp"
#include "pa_test_support.hpp"
#include "tensor_flux_test_support.hpp"

using namespace gpufem;

TEST(PaTensorBasis, IsAPartitionOfUnityInLexicographicOrder)
{
    for (ElementType type : {ElementType::quadrilateral, ElementType::hexahedron})
        for (int order = 1; order <= test::pa_highest_order; ++order) {
            const ReferenceElement ref = make_reference_element(type, order, assembly_quadrature_degree(type, order));
            const PaTensorBasis t = make_pa_tensor_basis(ref);
            EXPECT_EQ(t.p1, order + 1);
            EXPECT_EQ(t.q1, order + 1);  // the assembly rule: degree 2k + 1, k + 1 Gauss points
            for (int q = 0; q < t.q1; ++q) {
                double values = 0, slopes = 0;
                for (int i = 0; i < t.p1; ++i) {
                    values += t.basis[q * t.p1 + i];
                    slopes += t.derivative[q * t.p1 + i];
                }
                EXPECT_NEAR(values, 1.0, 1e-13);
                EXPECT_NEAR(slopes, 0.0, 1e-12);
            }
            // Each lexicographic position names a distinct node and point.
            std::vector<int> nodes = t.gmsh_of_lex, points = t.rule_of_lex;
            std::sort(nodes.begin(), nodes.end());
            std::sort(points.begin(), points.end());
            std::vector<int> expected_nodes(nodes.size()), expected_points(points.size());
            std::iota(expected_nodes.begin(), expected_nodes.end(), 0);
            std::iota(expected_points.begin(), expected_points.end(), 0);
            EXPECT_EQ(nodes, expected_nodes);
            EXPECT_EQ(points, expected_points);
            // Lexicographic node 1 lies next to node 0 along x, and the corners come first
            // in Gmsh's order: lexicographic 0 is Gmsh's node 0 at (-1, -1, -1).
            EXPECT_EQ(t.gmsh_of_lex[0], 0);
        }
}

TEST(PaTensorBasis, RefusesSimplices)
{
    const ReferenceElement ref = make_reference_element(ElementType::tetrahedron, 2, 4);
    try {
        make_pa_tensor_basis(ref);
        FAIL() << "tetrahedra accepted";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("format pa"), std::string::npos) << e.what();
    }
}

TEST(PaSystem, MatchesTheAssembledSystemDouble)
{
    test::check_pa_system_against_assembly<double>(Executor::create_cpu(), test::PaTerms::diffusion);
}

TEST(PaSystem, MatchesTheAssembledSystemWithTensorKappaConvectionAndReaction)
{
    test::check_pa_system_against_assembly<double>(Executor::create_cpu(), test::PaTerms::all);
}

TEST(PaSystem, MatchesTheAssembledSystemWithRobinFacets)
{
    test::check_pa_system_against_assembly<double>(Executor::create_cpu(), test::PaTerms::robin);
}

TEST(PaSystem, MatchesTheAssembledSystemFloat)
{
    test::check_pa_system_against_assembly<float>(Executor::create_cpu(), test::PaTerms::diffusion);
}

TEST(PaSystem, GivesAFloatCopyForAFloatMultigridCycle)
{
    test::check_pa_float_copy(Executor::create_cpu());
}

TEST(PaSystem, RefusesMixedMeshesAndSimplicesNamingTheFormat)
{
    const auto exec = Executor::create_cpu();
    ProblemSpec problem = test::pa_problem(2, test::PaTerms::diffusion);
    const auto expect_refusal = [&](const Mesh& mesh, const ProblemSpec& p, const std::string& word) {
        try {
            assemble_pa_system<double>(exec, mesh, p);
            FAIL() << "accepted: " << word;
        } catch (const std::invalid_argument& e) {
            const std::string message = e.what();
            EXPECT_NE(message.find("format pa"), std::string::npos) << message;
            EXPECT_NE(message.find(word), std::string::npos) << message;
        }
    };
    expect_refusal(test::unit_box_mesh(ElementType::triangle, 2, 0.25), problem, "triangle");
}

TEST(PaSystem, IsAnOperatorLevelThatRunsAcrossRanks)
{
    const OperatorChoice choice = find_operator("pa");
    ASSERT_TRUE(choice.matrix_free());
    EXPECT_TRUE(choice.level->across_ranks());
    EXPECT_TRUE(choice.level->keeps_element_matrices_with(FormatOptions{}));  // pmg's from its factors
    EXPECT_TRUE(find_operator("lma").level->across_ranks());
}

TEST(PaSystem, GivesPmgTheCoarseOperatorsOfTheElementMatrices)
{
    test::check_pa_coarse_operators<double>(Executor::create_cpu(), test::PaTerms::diffusion);
    test::check_pa_coarse_operators<double>(Executor::create_cpu(), test::PaTerms::all);
    test::check_pa_coarse_operators<float>(Executor::create_cpu(), test::PaTerms::all);
}

TEST(PaSystem, KeepsItsFactorsPerCellOnAffineMeshesWithConstantCoefficients)
{
    test::check_pa_cell_factors<double>(Executor::create_cpu());
    test::check_pa_cell_factors<float>(Executor::create_cpu());
}

TEST(PaTransfer, EqualsTheStoredInterpolationAndItsTranspose)
{
    test::check_pa_first_transfer<double>(Executor::create_cpu());
    test::check_pa_first_transfer<float>(Executor::create_cpu());
}

// The fluxes by sum factorisation (cell means and integrals, the Dirichlet rows' residual, the
// node sums) equal the general kernels' on quadrilaterals and hexahedra of orders 2 to 8.
TEST(TensorFluxes, MatchTheGeneralKernelsDouble)
{
    test::check_tensor_fluxes_against_general<double>(Executor::create_cpu());
}

TEST(TensorFluxes, MatchTheGeneralKernelsFloat)
{
    test::check_tensor_fluxes_against_general<float>(Executor::create_cpu());
}
