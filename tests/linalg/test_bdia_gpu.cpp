// bdia on CUDA against the CPU reference: identical layout and permutation, SpMV equal to
// rounding on fresh random inputs, with the x windows in shared memory and from global memory.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gpu_test.hpp"
#include "linalg/bdia.hpp"
#include "linalg/blas1.hpp"
#include "linalg/format_build.hpp"
#include "linalg/reordering.hpp"
#include "random_csr.hpp"
#include "random_values.hpp"
#include "spmv_checks.hpp"

namespace gpufem {
namespace {

using test::HostCsr;

/// The product fused with the dot on the device: y equal to the device's own product, each
/// slab's partial sum equal to the CPU reference's to rounding.
template <typename V>
void check_fused_dot(const Bdia<V>& b_cpu, const Bdia<V>& b_gpu, std::size_t cap, std::mt19937& rng)
{
    SCOPED_TRACE("fused dot, cap " + std::to_string(cap));
    const auto cpu = Executor::create_cpu();
    const auto gpu = Executor::create_cuda();
    const auto x = test::random_vector<V>(b_cpu.rows, rng);
    const std::size_t slabs = static_cast<std::size_t>(b_cpu.slabs());
    std::vector<V> y_cpu(x.size());
    std::vector<double> partials_cpu(slabs);
    kernels::cpu::bdia_spmv_dot(*cpu, b_cpu, x.data(), y_cpu.data(), partials_cpu.data(), cap);
    const auto x_dev = Array<V>::from_host(gpu, x);
    Array<V> y_dev(gpu, x.size()), y_plain(gpu, x.size());
    Array<double> partials_dev(gpu, slabs);
    fill(partials_dev, std::numeric_limits<double>::quiet_NaN());
    kernels::cuda::bdia_spmv_dot(*gpu, b_gpu, x_dev.data(), y_dev.data(), partials_dev.data(), cap);
    kernels::cuda::bdia_spmv(*gpu, b_gpu, V(1), x_dev.data(), V(0), y_plain.data(), cap);
    EXPECT_EQ(y_dev.to_host(), y_plain.to_host());
    EXPECT_LE(test::relative_max_error(y_dev.to_host(), y_cpu), test::tolerance<V>(2e-5));
    // Each slab's sum to the rounding y carries (as above, against the largest |y|) times its
    // |x_i|, and that of the sum itself.
    const auto partials = partials_dev.to_host();
    double y_max = 0;
    for (V v : y_cpu) y_max = std::max(y_max, std::abs(double(v)));
    for (std::size_t s = 0; s < slabs; ++s) {
        double magnitude = 0;
        for (std::size_t i = s * bdia_slab; i < std::min(x.size(), (s + 1) * bdia_slab); ++i)
            magnitude += std::abs(double(x[i])) * (y_max + std::abs(double(y_cpu[i])));
        EXPECT_LE(std::abs(partials[s] - partials_cpu[s]), test::tolerance<V>(2e-5) * (magnitude + 1e-300))
            << "slab " << s << ": " << partials[s] << " vs " << partials_cpu[s];
    }
}

/// Same layout on both executors (bit for bit), SpMV on the device equal to the CPU's with
/// the default shared-memory cap, with every slab on the global path, and with a cap that
/// splits the slabs between both paths.
template <typename V>
void check_against_cpu(const std::string& name, const HostCsr<V>& m, std::mt19937& rng,
                       index_type gap = bdia_default_gap)
{
    SCOPED_TRACE(name + " " + precision_name<V>() + " gap " + std::to_string(gap));
    const auto cpu = Executor::create_cpu();
    const auto gpu = Executor::create_cuda();

    BdiaOptions options;
    options.gap = gap;
    const auto f_cpu = build_bdia_format(test::to_csr(m, cpu), options);
    const auto f_gpu = build_bdia_format(test::to_csr(m, gpu), options);
    EXPECT_EQ(f_gpu.permutation.to_host(), f_cpu.permutation.to_host());
    EXPECT_EQ(f_gpu.op->bytes_stored(), f_cpu.op->bytes_stored());
    EXPECT_EQ(f_gpu.op->parameters().rfind(f_cpu.op->parameters(), 0), 0u)
        << f_gpu.op->parameters() << " vs " << f_cpu.op->parameters();

    // The layouts, from the matrix in the numbering the format chose.
    const bool rcm = !f_cpu.permutation.empty();
    const auto a_cpu = rcm ? permute_symmetric(test::to_csr(m, cpu), f_cpu.permutation) : test::to_csr(m, cpu);
    const auto a_gpu = rcm ? permute_symmetric(test::to_csr(m, gpu), f_gpu.permutation) : test::to_csr(m, gpu);
    const auto b_cpu = convert_to_bdia(a_cpu, 0, gap);
    const auto b_gpu = convert_to_bdia(a_gpu, 0, gap);
    EXPECT_EQ(b_gpu.half_bandwidth, b_cpu.half_bandwidth);
    EXPECT_EQ(b_gpu.max_width, b_cpu.max_width);
    EXPECT_EQ(b_gpu.max_bands, b_cpu.max_bands);
    EXPECT_EQ(b_gpu.max_window, b_cpu.max_window);
    EXPECT_EQ(b_gpu.slab_ptr.to_host(), b_cpu.slab_ptr.to_host());
    EXPECT_EQ(b_gpu.band_ptr.to_host(), b_cpu.band_ptr.to_host());
    EXPECT_EQ(b_gpu.band_offset.to_host(), b_cpu.band_offset.to_host());
    EXPECT_EQ(b_gpu.band_width.to_host(), b_cpu.band_width.to_host());
    EXPECT_EQ(b_gpu.values.to_host(), b_cpu.values.to_host());

    // SpMV in the format's numbering, fresh inputs for each case.
    const std::size_t split_cap = (b_cpu.max_window / 2 + 1) * sizeof(V);
    for (std::size_t cap : {bdia_default_shared_bytes, std::size_t{0}, split_cap}) {
        for (auto [alpha, beta] : {std::pair<V, V>{1, 0}, {V(0.5), V(-2)}}) {
            const auto x = test::random_vector<V>(m.rows, rng);
            auto y = test::random_vector<V>(m.rows, rng);
            std::vector<V> y_cpu = y;
            kernels::cpu::bdia_spmv(*cpu, b_cpu, alpha, x.data(), beta, y_cpu.data(), cap);
            if (beta == V(0)) y.assign(m.rows, std::numeric_limits<V>::quiet_NaN());
            const auto x_dev = Array<V>::from_host(gpu, x);
            auto y_dev = Array<V>::from_host(gpu, y);
            kernels::cuda::bdia_spmv(*gpu, b_gpu, alpha, x_dev.data(), beta, y_dev.data(), cap);
            EXPECT_LE(test::relative_max_error(y_dev.to_host(), y_cpu), test::tolerance<V>(2e-5))
                << "cap " << cap << " alpha " << alpha << " beta " << beta;
        }
        check_fused_dot(b_cpu, b_gpu, cap, rng);
    }

    // Through the operator as the solvers use it.
    const auto x = test::random_vector<V>(m.rows, rng);
    Array<V> y_cpu(cpu, m.rows), y_gpu(gpu, m.rows);
    f_cpu.op->apply(Array<V>::from_host(cpu, x), y_cpu);
    f_gpu.op->apply(Array<V>::from_host(gpu, x), y_gpu);
    EXPECT_LE(test::relative_max_error(y_gpu.to_host(), y_cpu.to_host()), test::tolerance<V>(2e-5));
    test::expect_cg_direction(*f_gpu.op, x, bdia_slab, test::tolerance<V>(2e-5), rng);
}

TEST(BdiaGpu, MatchesCpuOnFeLikeMatrices)
{
    GPUFEM_REQUIRE_GPU();
    std::mt19937 rng(test::random_seed());
    check_against_cpu("2d-q1-like", test::shuffled_stencil<double>(61, 47, 1, 1, rng), rng);
    check_against_cpu("2d-q1-like", test::shuffled_stencil<float>(53, 41, 1, 1, rng), rng);
    check_against_cpu("2d-q2-like", test::shuffled_stencil<double>(29, 33, 1, 2, rng), rng);
    check_against_cpu("3d-q1-like", test::shuffled_stencil<double>(13, 11, 9, 1, rng), rng);
    check_against_cpu("3d-q1-like", test::shuffled_stencil<float>(9, 14, 10, 1, rng), rng);
    check_against_cpu("strip", test::shuffled_stencil<double>(3001, 7, 1, 1, rng), rng);
}

TEST(BdiaGpu, MatchesCpuOnGridsNumberedByLinesWithEveryGap)
{
    GPUFEM_REQUIRE_GPU();
    std::mt19937 rng(test::random_seed());
    for (const index_type gap : {0, 2, 9, 200}) {
        check_against_cpu("3d-natural", test::natural_stencil<double>(12, 11, 10, 1, rng, 10.0), rng, gap);
        check_against_cpu("3d-natural", test::natural_stencil<float>(33, 17, 9, 1, rng, 10.0), rng, gap);
    }
    check_against_cpu("3d-natural-strip", test::natural_stencil<double>(300, 3, 3, 1, rng, 10.0), rng);
}

TEST(BdiaGpu, MatchesCpuOnRandomMatrices)
{
    GPUFEM_REQUIRE_GPU();
    std::mt19937 rng(test::random_seed());
    check_against_cpu("one-row", test::random_csr<double>(1, 1, 1, rng), rng);
    check_against_cpu("random-lengths-empty-rows", test::random_csr<double>(1001, 1001, 12, rng), rng);
    check_against_cpu("random-lengths-empty-rows", test::random_csr<float>(2049, 2049, 6, rng), rng);
    // A few very long rows (like dc1): bands nearly as wide as the matrix, slabs of more
    // diagonals than they list.
    check_against_cpu("long-rows", test::random_csr<double>(2001, 2001, 4, rng, 667, 1800), rng);
    check_against_cpu("long-rows", test::random_csr<float>(5001, 5001, 9, rng, 101, 4000), rng, 0);
}

TEST(BdiaGpu, TheL2WindowChangesNoValue)
{
    // The band values marked as persisting in the L2 cache: a hint to the cache only, so the
    // product, the fused dot and the fused direction are bitwise those without it (a 3D grid
    // whose bands (about 1.9 MB) fit the set-aside, and one of 16 MB that does not).
    GPUFEM_REQUIRE_GPU();
    std::mt19937 rng(test::random_seed());
    const auto gpu = Executor::create_cuda();
    for (const index_type nx : {30, 60}) {
        const auto m = test::natural_stencil<double>(nx, nx, nx / 3, 1, rng, 10.0);
        BdiaOptions kept;
        kept.l2_window = true;
        const auto plain = build_bdia_format(test::to_csr(m, gpu), BdiaOptions{});
        const auto windowed = build_bdia_format(test::to_csr(m, gpu), kept);
        const auto x = test::random_vector<double>(m.rows, rng);
        const std::vector<double> nan_y(x.size(), std::nan(""));
        EXPECT_EQ(test::apply_operator(*windowed.op, 1.0, x, 0.0, nan_y), test::apply_operator(*plain.op, 1.0, x, 0.0, nan_y));
        EXPECT_EQ(test::fused_product(*windowed.op, x), test::fused_product(*plain.op, x));
        test::expect_cg_direction(*windowed.op, x, bdia_slab, test::tolerance<double>(2e-5), rng);
    }
}

TEST(BdiaGpu, RefusesWhenTheBandExceedsTheLimit)
{
    GPUFEM_REQUIRE_GPU();
    std::mt19937 rng(test::random_seed());
    const auto gpu = Executor::create_cuda();
    BdiaOptions options;
    options.max_bytes = 4096;
    try {
        build_bdia_format(test::to_csr(test::shuffled_stencil<double>(40, 40, 1, 1, rng), gpu), options);
        FAIL() << "expected std::invalid_argument";
    } catch (const std::invalid_argument& e) {
        EXPECT_EQ(std::string(e.what()).rfind("format 'bdia': band of half width ", 0), 0u) << e.what();
    }
}

}  // namespace
}  // namespace gpufem
