// CUDA symmetric permutation against the CPU reference: bit-identical results.
#include <gtest/gtest.h>

#include <numeric>
#include <random>
#include <vector>

#include "linalg/reordering.hpp"
#include "gpu_test.hpp"
#include "random_csr.hpp"
#include "random_values.hpp"

namespace gpufem {
namespace {

template <typename V>
void check_permute_symmetric(index_type n, int max_len, std::mt19937& rng, int long_every = 0,
                             int long_len = 0)
{
    const auto cpu = Executor::create_cpu();
    const auto gpu = Executor::create_cuda();
    const auto m = test::random_csr<V>(n, n, max_len, rng, long_every, long_len);
    const auto order = cuthill_mckee_order(m.rows, m.ptr, m.col, true);

    const auto expected = permute_symmetric(test::to_csr(m, cpu), Array<index_type>::from_host(cpu, order));
    const auto actual = permute_symmetric(test::to_csr(m, gpu), Array<index_type>::from_host(gpu, order));
    EXPECT_EQ(actual.rows, expected.rows);
    EXPECT_EQ(actual.row_ptr.to_host(), expected.row_ptr.to_host());
    EXPECT_EQ(actual.col_idx.to_host(), expected.col_idx.to_host());
    EXPECT_EQ(actual.values.to_host(), expected.values.to_host());
}

TEST(ReorderingGpu, PermuteSymmetricMatchesCpu)
{
    GPUFEM_REQUIRE_GPU();
    std::mt19937 rng(test::random_seed());
    check_permute_symmetric<double>(1, 1, rng);
    check_permute_symmetric<double>(777, 12, rng);
    check_permute_symmetric<float>(4099, 20, rng);
    check_permute_symmetric<double>(3001, 8, rng, 97, 600);  // a few very long rows
    check_permute_symmetric<float>(50000, 27, rng);
}

TEST(ReorderingGpu, PermuteVectorMatchesCpu)
{
    GPUFEM_REQUIRE_GPU();
    std::mt19937 rng(test::random_seed());
    const auto cpu = Executor::create_cpu();
    const auto gpu = Executor::create_cuda();
    for (index_type n : {1, 255, 100003}) {
        std::vector<index_type> order(n);
        std::iota(order.begin(), order.end(), 0);
        std::shuffle(order.begin(), order.end(), rng);
        const auto x = test::random_vector<double>(n, rng);
        for (bool inverse : {false, true}) {
            Array<double> y_cpu(cpu, n), y_gpu(gpu, n);
            permute_vector(Array<index_type>::from_host(cpu, order), Array<double>::from_host(cpu, x),
                           y_cpu, inverse);
            permute_vector(Array<index_type>::from_host(gpu, order), Array<double>::from_host(gpu, x),
                           y_gpu, inverse);
            EXPECT_EQ(y_gpu.to_host(), y_cpu.to_host()) << "n " << n << " inverse " << inverse;
        }
    }
}

}  // namespace
}  // namespace gpufem
