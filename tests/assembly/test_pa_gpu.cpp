// The partial-assembly (pa) operator on the GPU against the assembled CSR system on the GPU
// (itself tested against the CPU): orders 1..8 of quadrilaterals and hexahedra, straight and
// curved, with and without anisotropic kappa, convection and reaction, double and float.
#include <gtest/gtest.h>

#include "gpu_test.hpp"
#include "pa_test_support.hpp"
#include "mesh/gll_output.hpp"
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

TEST(PaGpu, KeepsItsFactorsPerCellOnAffineMeshesWithConstantCoefficients)
{
    GPUFEM_REQUIRE_GPU();
    test::check_pa_cell_factors<double>(Executor::create_cuda(0));
    test::check_pa_cell_factors<float>(Executor::create_cuda(0));
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

// Point values of meshes with GLL nodes converted to the equispaced points on the GPU (where
// the fluxes and the solution are) equal the host's conversion.
TEST(PaGpu, EquispacedConversionMatchesTheHost)
{
    GPUFEM_REQUIRE_GPU();
    const unsigned seed = test::random_seed();
    const ExecPtr gpu = Executor::create_cuda(0), cpu = Executor::create_cpu();
    for (const auto& [type, order] : {std::pair{ElementType::quadrilateral, 8}, std::pair{ElementType::hexahedron, 5},
                                      std::pair{ElementType::hexahedron, 7}}) {
        const Mesh mesh = test::pa_mesh(type, order, true, seed, element_dimension(type) == 2 ? 0.25 : 0.5);
        const std::string what = std::string(element_type_name(type)) + " order " + std::to_string(order);
        const std::vector<double> values = test::random_vector<double>(static_cast<std::size_t>(mesh.num_nodes()), seed);
        const EquispacedConversion on_gpu(gpu, mesh), on_cpu(cpu, mesh);
        const std::vector<double> expected = on_cpu.converted(Array<double>::from_host(cpu, values)).to_host();
        EXPECT_LT(test::max_relative_difference(on_gpu.converted(Array<double>::from_host(gpu, values)).to_host(), expected),
                  1e-13) << what;
        const std::vector<float> narrow(values.begin(), values.end());
        const std::vector<float> expected_float = on_cpu.converted(Array<float>::from_host(cpu, narrow)).to_host();
        EXPECT_LT(test::max_rel_diff(on_gpu.converted(Array<float>::from_host(gpu, narrow)).to_host(), expected_float),
                  1e-6) << what;
        EXPECT_GT(test::max_relative_difference(expected, values), 1e-3) << what;  // the values moved
        // The output's mesh moved on the device (from its device copy, or uploaded) equals the
        // host's, its cells unchanged.
        const Mesh on_host = equispaced_mesh(mesh, cpu);
        Mesh with_copy = mesh;
        with_copy.device = upload_mesh(with_copy, gpu);
        for (const Mesh* from : {&mesh, static_cast<const Mesh*>(&with_copy)}) {
            const Mesh moved = equispaced_mesh(*from, Executor::create_cuda(0));
            EXPECT_LT(test::max_relative_difference(std::vector<double>(moved.coordinates.begin(), moved.coordinates.end()),
                                                    std::vector<double>(on_host.coordinates.begin(), on_host.coordinates.end())),
                      1e-13) << what;
            EXPECT_TRUE(std::equal(moved.cells.begin(), moved.cells.end(), mesh.cells.begin(), mesh.cells.end())) << what;
        }
    }
}
