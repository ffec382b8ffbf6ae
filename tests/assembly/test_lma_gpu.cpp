// The LMA operator on CUDA (label gpu): every variant against the assembled CSR SpMV on the
// device, and the colour variant bitwise reproducible from apply to apply.
#include <gtest/gtest.h>

#include <cstring>

#include "gpu_test.hpp"
#include "lma_test_support.hpp"

using namespace gpufem;

TEST(LmaOperatorGpu, MatchesCsrDouble)
{
    GPUFEM_REQUIRE_GPU();
    test::check_lma_against_csr<double>(Executor::create_cuda());
}

TEST(LmaOperatorGpu, MatchesCsrFloat)
{
    GPUFEM_REQUIRE_GPU();
    test::check_lma_against_csr<float>(Executor::create_cuda());
}

template <typename V>
void expect_colour_apply_reproducible(ElementType type, int order)
{
    const auto exec = Executor::create_cuda();
    const auto p = test::make_lma_problem<V>(exec, test::lma_mesh(type, order), true);
    for (bool symmetric : {false, true}) {
        const auto op = make_lma_operator<V>(exec, p.cells, p.npe, p.num_nodes, p.ke, p.mask,
                                             {LmaScatter::colour, symmetric});
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
