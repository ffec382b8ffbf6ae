// The partial-assembly (pa) operator on the GPU against the assembled CSR system on the GPU
// (itself tested against the CPU): orders 1..8 of quadrilaterals and hexahedra, straight and
// curved, with and without anisotropic kappa, convection and reaction, double and float.
#include <gtest/gtest.h>

#include "gpu_test.hpp"
#include "pa_test_support.hpp"
#include "tensor_flux_test_support.hpp"

using namespace gpufem;

TEST(PaGpu, MatchesTheAssembledSystemDouble)
{
    GPUFEM_REQUIRE_GPU();
    test::check_pa_system_against_assembly<double>(Executor::create_cuda(0), test::PaTerms::diffusion);
}

TEST(PaGpu, MatchesTheAssembledSystemWithTensorKappaConvectionAndReaction)
{
    GPUFEM_REQUIRE_GPU();
    test::check_pa_system_against_assembly<double>(Executor::create_cuda(0), test::PaTerms::all);
}

TEST(PaGpu, MatchesTheAssembledSystemWithRobinFacets)
{
    GPUFEM_REQUIRE_GPU();
    test::check_pa_system_against_assembly<double>(Executor::create_cuda(0), test::PaTerms::robin);
    test::check_pa_system_against_assembly<float>(Executor::create_cuda(0), test::PaTerms::robin);
}

TEST(PaGpu, MatchesTheAssembledSystemFloat)
{
    GPUFEM_REQUIRE_GPU();
    test::check_pa_system_against_assembly<float>(Executor::create_cuda(0), test::PaTerms::all);
}

TEST(PaGpu, GivesAFloatCopyForAFloatMultigridCycle)
{
    GPUFEM_REQUIRE_GPU();
    test::check_pa_float_copy(Executor::create_cuda(0));
}

TEST(PaGpu, EqualsTheCpuOperator)
{
    GPUFEM_REQUIRE_GPU();
    const auto cpu = Executor::create_cpu();
    const auto gpu = Executor::create_cuda(0);
    const unsigned seed = test::random_seed();
    for (ElementType type : {ElementType::quadrilateral, ElementType::hexahedron})
        for (int order = 1; order <= test::pa_highest_order; ++order) {
            const Mesh mesh = test::pa_mesh(type, order, true, seed + order);
            const ProblemSpec problem = test::pa_problem(mesh.dim, test::PaTerms::all);
            const PaSystem<double> on_cpu = assemble_pa_system<double>(cpu, mesh, problem);
            const PaSystem<double> on_gpu = assemble_pa_system<double>(gpu, mesh, problem);
            const std::vector<double> x = test::random_vector<double>(mesh.num_nodes(), seed);
            Array<double> y_cpu(cpu, mesh.num_nodes()), y_gpu(gpu, mesh.num_nodes());
            on_cpu.op->apply(Array<double>::from_host(cpu, x), y_cpu);
            on_gpu.op->apply(Array<double>::from_host(gpu, x), y_gpu);
            const std::string what = std::string(element_type_name(type)) + " order " + std::to_string(order) +
                                     " seed " + std::to_string(seed);
            EXPECT_LT(test::max_rel_diff(y_gpu.to_host(), y_cpu.to_host()), 1e-12) << what;
            EXPECT_LT(test::max_rel_diff(on_gpu.rhs.to_host(), on_cpu.rhs.to_host()), 1e-12) << what;
            EXPECT_LT(test::max_rel_diff(on_gpu.op->diagonal().to_host(), on_cpu.op->diagonal().to_host()), 1e-12)
                << what;
        }
}

TEST(PaGpu, GivesPmgTheCoarseOperatorsOfTheElementMatrices)
{
    GPUFEM_REQUIRE_GPU();
    test::check_pa_coarse_operators<double>(Executor::create_cuda(0), test::PaTerms::diffusion);
    test::check_pa_coarse_operators<double>(Executor::create_cuda(0), test::PaTerms::all);
    test::check_pa_coarse_operators<float>(Executor::create_cuda(0), test::PaTerms::all);
}

TEST(PaGpu, TransferEqualsTheStoredInterpolationAndItsTranspose)
{
    GPUFEM_REQUIRE_GPU();
    test::check_pa_first_transfer<double>(Executor::create_cuda(0));
    test::check_pa_first_transfer<float>(Executor::create_cuda(0));
}

// The flux kernels by sum factorisation on the GPU against the general kernels on the CPU.
TEST(PaGpu, TensorFluxesMatchTheGeneralKernelsOnTheCpu)
{
    GPUFEM_REQUIRE_GPU();
    test::check_tensor_fluxes_against_general<double>(Executor::create_cuda(0));
    test::check_tensor_fluxes_against_general<float>(Executor::create_cuda(0));
}
