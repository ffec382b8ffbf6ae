// Every format on CUDA against the CPU reference on the battery (label gpu), and the tuned
// CSR operator's tuner settling during a run of SpMVs.
#include <gtest/gtest.h>

#include "format_battery.hpp"
#include "gpu_test.hpp"
#include "linalg/csr_tuned_operator.hpp"
#include "random_values.hpp"

using namespace gpufem;

GPUFEM_GPU_TYPED_SUITE(FormatsGpu);

TYPED_TEST(FormatsGpu, EveryFormatMatchesTheCpuReference)
{
    using V = TypeParam;
    const double tol = test::tolerance<V>(2e-5);
    std::mt19937 rng(test::random_seed());
    const auto gpu = Executor::create_cuda();
    for (const auto& m : test::format_battery<V>(rng, true)) {
        const auto x = test::random_vector<V>(m.csr.cols, rng), y = test::random_vector<V>(m.csr.rows, rng);
        const auto expect = test::dense_reference(m.csr, V(0.75), x, V(2), y);
        for (const std::string& name : assembled_formats().names()) {
            SCOPED_TRACE(name + " on " + m.name);
            const FormatBuild<V> f = build_format<V>(name, test::to_csr(m.csr, gpu), {});
            // Several applications: the csr tuner changes parameters between them.
            for (int rep = 0; rep < 20; ++rep)
                ASSERT_LT(test::relative_max_error(test::apply_format(f, V(0.75), x, V(2), y), expect), tol)
                    << "application " << rep;
        }
    }
}

TEST(CsrTunedGpu, TunerSettlesAndKeepsResultsExact)
{
    GPUFEM_REQUIRE_GPU();
    std::mt19937 rng(test::random_seed());
    const auto gpu = Executor::create_cuda();
    const auto m = test::stencil_matrix<double>(3, 60, 1, false, rng);
    CsrTunedOperator<double> op(test::to_csr(m, gpu), CsrOptions{});
    const auto xh = test::random_vector<double>(m.cols, rng);
    const auto x = Array<double>::from_host(gpu, xh);
    Array<double> y(gpu, m.rows);
    const auto expect = test::dense_reference(m, 1.0, xh, 0.0, xh);
    int applications = 0;
    while (op.tuning() && applications < 100) {
        op.apply(x, y);
        ASSERT_LT(test::relative_max_error(y.to_host(), expect), 1e-13) << op.parameters();
        ++applications;
    }
    EXPECT_FALSE(op.tuning()) << op.parameters();
    EXPECT_NE(op.parameters().find("tuned over"), std::string::npos) << op.parameters();
}
