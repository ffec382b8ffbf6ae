// The matrix-free system (assemble_lma_system) on the CPU: right-hand side, initial guess and
// operator against the assembled CSR system.
#include <gtest/gtest.h>

#include "lma_test_support.hpp"

using namespace gpufem;

TEST(LmaSystem, MatchesAssembledSystemDouble)
{
    test::check_lma_system_against_assembly<double>(Executor::create_cpu());
}

TEST(LmaSystem, MatchesAssembledSystemFloat)
{
    test::check_lma_system_against_assembly<float>(Executor::create_cpu());
}

TEST(LmaSystem, MatchesAssembledSystemWithConvection)
{
    // Non-symmetric element matrices: full storage only.
    test::check_lma_system_against_assembly<double>(Executor::create_cpu(), {1.0, -0.5, 0.25});
}

TEST(LmaSystem, SymmetricStorageRefusesConvection)
{
    const auto exec = Executor::create_cpu();
    ProblemSpec problem = test::lma_system_problem();
    problem.convection = {1.0, 0.0};
    LmaOptions options;
    options.symmetric = true;
    EXPECT_THROW(assemble_lma_system<double>(exec, test::lma_mesh(ElementType::quadrilateral, 1),
                                             problem, options),
                 std::invalid_argument);
}

TEST(LmaSystem, UnknownKernelNameIsRefused)
{
    EXPECT_THROW(lma_kernel_from_name("warp"), std::invalid_argument);
    EXPECT_EQ(lma_kernel_from_name("twin"), LmaKernel::twin);
}

TEST(LmaSystem, WithoutDirichletTheRhsIsTheLoad)
{
    // No Dirichlet nodes: rhs = element loads + Neumann load, initial guess zero.
    const auto exec = Executor::create_cpu();
    const Mesh mesh = test::lma_mesh(ElementType::triangle, 2);
    ProblemSpec problem = test::lma_system_problem();
    problem.dirichlet.clear();
    const auto assembled = assemble_poisson<double>(exec, mesh, problem);
    const auto lma = assemble_lma_system<double>(exec, mesh, problem, LmaOptions{});
    EXPECT_EQ(lma.dirichlet_count, 0);
    EXPECT_LT(test::max_rel_diff(lma.rhs.to_host(), assembled.rhs.to_host()), 1e-13);
    for (double g : lma.initial_guess.to_host()) EXPECT_EQ(g, 0.0);
}
