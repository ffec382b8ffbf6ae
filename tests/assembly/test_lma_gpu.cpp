// The LMA operator on CUDA (label gpu): every apply kernel, scatter and storage against the
// assembled CSR SpMV and against the CPU operator on random element matrices, the colour
// variant bitwise reproducible, and the matrix-free system against the assembled one.
#include <gtest/gtest.h>

#include <cstring>

#include "gpu_test.hpp"
#include "lma_test_support.hpp"
#include "simple_meshes.hpp"
#include "random_values.hpp"

using namespace gpufem;

TEST(LmaOperatorGpu, EveryKernelMatchesCsrDouble)
{
    GPUFEM_REQUIRE_GPU();
    test::check_lma_against_csr<double>(Executor::create_cuda(), test::lma_kernels);
}

TEST(LmaOperatorGpu, EveryKernelMatchesCsrFloat)
{
    GPUFEM_REQUIRE_GPU();
    test::check_lma_against_csr<float>(Executor::create_cuda(), test::lma_kernels);
}

TEST(LmaOperatorGpu, EveryKernelGivesAFloatCopy)
{
    GPUFEM_REQUIRE_GPU();
    test::check_lma_float_copies(Executor::create_cuda(), test::lma_kernels);
}

TEST(LmaOperatorGpu, AutoKernelMatchesCsr)
{
    GPUFEM_REQUIRE_GPU();
    constexpr LmaKernel automatic[] = {LmaKernel::automatic};
    test::check_lma_against_csr<double>(Executor::create_cuda(), automatic);
}

/// Meshes with many 32-cell tiles and colours ending mid-tile, of every npe class.
std::vector<Mesh> larger_meshes()
{
    std::vector<Mesh> meshes;
    meshes.push_back(test::grid_mesh(ElementType::quadrilateral, 23));      // npe 4, 529 cells
    meshes.push_back(test::grid_mesh(ElementType::hexahedron, 7));          // npe 8, 343 cells
    meshes.push_back(test::unit_box_mesh(ElementType::triangle, 3, 0.1));   // npe 10
    meshes.push_back(test::unit_box_mesh(ElementType::quadrilateral, 3, 0.08));  // npe 16
    meshes.push_back(test::unit_box_mesh(ElementType::quadrilateral, 4, 0.1));   // npe 25
    meshes.push_back(test::unit_box_mesh(ElementType::hexahedron, 2, 0.2));      // npe 27
    meshes.push_back(test::unit_box_mesh(ElementType::tetrahedron, 3, 0.3));     // npe 20
    meshes.push_back(test::unit_box_mesh(ElementType::hexahedron, 3, 0.25));     // npe 64
    return meshes;
}

TEST(LmaOperatorGpu, EveryKernelMatchesCpuOnRandomMatricesDouble)
{
    GPUFEM_REQUIRE_GPU();
    unsigned seed = test::random_seed();
    for (const Mesh& mesh : larger_meshes())
        test::check_lma_random_against_cpu<double>(Executor::create_cuda(), mesh, test::lma_kernels,
                                                   seed += 10);
}

TEST(LmaOperatorGpu, EveryKernelMatchesCpuOnRandomMatricesFloat)
{
    GPUFEM_REQUIRE_GPU();
    unsigned seed = test::random_seed();
    for (const Mesh& mesh : larger_meshes())
        test::check_lma_random_against_cpu<float>(Executor::create_cuda(), mesh, test::lma_kernels,
                                                  seed += 10);
}

TEST(LmaOperatorGpu, TileSizesMatchCpu)
{
    // The tile and twin kernels take tiles of 32, 16 or 8 cells by the number of cells of a
    // launch (atomic: all cells; colour: one colour): meshes large enough for each size on a
    // GPU of up to 132 multiprocessors (32: >= 16896 cells, 16: >= 8448).
    GPUFEM_REQUIRE_GPU();
    constexpr LmaKernel twin[] = {LmaKernel::tile, LmaKernel::twin};
    for (double h : {1.0 / 131, 1.0 / 100}) {
        const Mesh mesh = test::unit_box_mesh(ElementType::quadrilateral, 3, h);
        test::check_lma_random_against_cpu<double>(Executor::create_cuda(), mesh, twin, 5);
        test::check_lma_random_against_cpu<float>(Executor::create_cuda(), mesh, twin, 6);
    }
}

TEST(LmaOperatorGpu, Q4HexahedraMatchCpu)
{
    // npe 125: the largest element matrices (tile: 48 KB of shared memory in double; cell:
    // above the default 48 KB limit; twin: 32 groups of 32 cells, 1024 threads).
    GPUFEM_REQUIRE_GPU();
    const Mesh mesh = test::unit_box_mesh(ElementType::hexahedron, 4, 0.34);
    test::check_lma_random_against_cpu<double>(Executor::create_cuda(), mesh, test::lma_kernels, 77);
    test::check_lma_random_against_cpu<float>(Executor::create_cuda(), mesh, test::lma_kernels, 78);
}

template <typename V>
void expect_colour_apply_reproducible(ElementType type, int order)
{
    const auto exec = Executor::create_cuda();
    const auto p = test::make_lma_problem<V>(exec, test::lma_mesh(type, order), true);
    for (LmaKernel kernel : test::lma_kernels)
        for (bool symmetric : {false, true}) {
            const auto op = make_lma_operator<V>(exec, p.cells, p.npe, p.num_nodes, p.ke, p.mask,
                                                 {LmaScatter::colour, symmetric, kernel});
            const Array<V> x = Array<V>::from_host(exec, test::random_vector<V>(p.num_nodes, 7));
            Array<V> y1(exec, p.num_nodes), y2(exec, p.num_nodes);
            op->apply(x, y1);
            op->apply(x, y2);
            const std::vector<V> a = y1.to_host(), b = y2.to_host();
            for (std::size_t i = 0; i < a.size(); ++i)
                ASSERT_EQ(std::memcmp(&a[i], &b[i], sizeof(V)), 0) << op->parameters() << " row " << i;
        }
}

TEST(LmaOperatorGpu, ColourVariantIsBitwiseReproducible)
{
    GPUFEM_REQUIRE_GPU();
    for (ElementType type : test::lma_types) {
        expect_colour_apply_reproducible<double>(type, 2);
        expect_colour_apply_reproducible<float>(type, 2);
    }
}

TEST(LmaSystemGpu, MatchesAssembledSystemDouble)
{
    GPUFEM_REQUIRE_GPU();
    test::check_lma_system_against_assembly<double>(Executor::create_cuda());
}

TEST(LmaSystemGpu, MatchesAssembledSystemFloat)
{
    GPUFEM_REQUIRE_GPU();
    test::check_lma_system_against_assembly<float>(Executor::create_cuda());
}

TEST(LmaSystemGpu, MatchesAssembledSystemWithConvection)
{
    GPUFEM_REQUIRE_GPU();
    test::check_lma_system_against_assembly<double>(Executor::create_cuda(), {1.0, -0.5, 0.25});
}
