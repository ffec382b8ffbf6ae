// Smoothed-aggregation AMG on CUDA against the CPU reference: the same aggregates, the same
// prolongator, transpose and Galerkin patterns with values within rounding, the same
// hierarchy, and PCG with the V-cycle converging like the CPU's for every format.
#include <algorithm>
#include <iostream>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <tuple>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "amg_test_support.hpp"
#include "tests/mesh/mesh_test_support.hpp"
#include "tests/mixed_mesh_geometries.hpp"
#include "assembly/lagrange_interpolation.hpp"
#include "assembly/pa_coarse_level.hpp"
#include "assembly/pa_operator.hpp"
#include "gpu_test.hpp"
#include "linalg/distributed_operator.hpp"
#include "linalg/format_build.hpp"
#include "linalg/precision.hpp"
#include "linalg/reordering.hpp"
#include "mesh/mesh_refinement.hpp"
#include "random_values.hpp"
#include "solver/case/case_file.hpp"
#include "solver/krylov/krylov.hpp"
#include "solver/multigrid/aggregation.hpp"
#include "solver/multigrid/amg_kernels.hpp"
#include "solver/multigrid/amg_preconditioner.hpp"
#include "solver/multigrid/classical_coarsening.hpp"
#include "solver/multigrid/lattice_product.hpp"
#include "solver/run/pipeline.hpp"

namespace gpufem {
namespace {

using test::HostMatrix;

using test::diagonal_of;
using test::inverse_of;

void expect_same_pattern_close_values(const HostMatrix& gpu, const HostMatrix& cpu, double tol,
                                      const std::string& what)
{
    EXPECT_EQ(gpu.rows, cpu.rows) << what;
    EXPECT_EQ(gpu.cols, cpu.cols) << what;
    ASSERT_EQ(gpu.ptr, cpu.ptr) << what;
    ASSERT_EQ(gpu.col, cpu.col) << what;
    EXPECT_LT(test::max_relative_difference(gpu.val, cpu.val), tol) << what;
}

TEST(AmgGpu, AggregatesProlongatorAndGalerkinProductEqualTheCpuReference)
{
    GPUFEM_REQUIRE_GPU();
    const unsigned seed = test::random_seed();
    const ExecPtr host = Executor::create_cpu(), device = Executor::create_cuda();
    const Csr<double> a_cpu = test::weighted_laplacian_3d<double>(host, 23, 19, 17, seed);
    const Csr<double> a_gpu = a_cpu.clone_to(device);
    const Array<double> d_cpu = diagonal_of(a_cpu), d_gpu = diagonal_of(a_gpu);
    // The default threshold, and one above every coupling (each row's strongest kept).
    for (const double theta : {0.02, 0.9}) {
        const auto s_cpu = strength_of_connection(a_cpu, d_cpu, theta);
        const auto s_gpu = strength_of_connection(a_gpu, d_gpu, theta);
        ASSERT_EQ(s_gpu.to_host(), s_cpu.to_host()) << "theta " << theta;
        for (const AmgAggregation distance : {AmgAggregation::distance2, AmgAggregation::distance1}) {
            const std::string what = fmt::format("theta {}, {}", theta, enum_name(amg_aggregation_names, distance));
            const Aggregates g_cpu = aggregate(a_cpu, s_cpu, distance), g_gpu = aggregate(a_gpu, s_gpu, distance);
            EXPECT_EQ(g_gpu.count, g_cpu.count) << what;
            EXPECT_EQ(g_gpu.rounds, g_cpu.rounds) << what;
            ASSERT_EQ(g_gpu.of_node.to_host(), g_cpu.of_node.to_host()) << what;
            Aggregates f_cpu = aggregate(a_cpu, s_cpu, distance), f_gpu = aggregate(a_gpu, s_gpu, distance);
            f_cpu.strong = s_cpu.clone_to(host);
            f_gpu.strong = s_gpu.clone_to(device);
            expect_same_pattern_close_values(test::to_host(smoothed_prolongator(a_gpu, inverse_of(d_gpu), 0.6, f_gpu)),
                                             test::to_host(smoothed_prolongator(a_cpu, inverse_of(d_cpu), 0.6, f_cpu)),
                                             1e-15, "filtered P, " + what);
            const Csr<double> p_cpu = smoothed_prolongator(a_cpu, inverse_of(d_cpu), 0.6, g_cpu);
            const Csr<double> p_gpu = smoothed_prolongator(a_gpu, inverse_of(d_gpu), 0.6, g_gpu);
            expect_same_pattern_close_values(test::to_host(p_gpu), test::to_host(p_cpu), 1e-15, "P, " + what);
            const Csr<double> r_cpu = sparse_transpose(p_cpu), r_gpu = sparse_transpose(p_gpu);
            expect_same_pattern_close_values(test::to_host(r_gpu), test::to_host(r_cpu), 1e-15, "R, " + what);
            const Csr<double> c_cpu = sparse_product(r_cpu, sparse_product(a_cpu, p_cpu));
            const Csr<double> c_gpu = sparse_product(r_gpu, sparse_product(a_gpu, p_gpu));
            expect_same_pattern_close_values(test::to_host(c_gpu), test::to_host(c_cpu), 1e-13, "R A P, " + what);
        }
    }
}

TEST(AmgGpu, ProlongatorOfRowsMeetingManyAggregatesTakesTheSparseProductAndAgrees)
{
    GPUFEM_REQUIRE_GPU();
    const unsigned seed = test::random_seed();
    std::mt19937 rng(seed);
    const ExecPtr host = Executor::create_cpu(), device = Executor::create_cuda();
    // Rows of up to 300 entries (every 10th row) over 200 aggregates: more than the row
    // kernel's amg_row_aggregates_limit, so CUDA takes cuSPARSE's SpGEMM; the CPU its rows.
    const index_type n = 2000, count = 200;
    std::vector<index_type> ptr{0}, col;
    std::vector<double> val;
    std::uniform_real_distribution<double> value(-1, 1);
    for (index_type i = 0; i < n; ++i) {
        std::set<index_type> c{i};
        const int len = i % 10 == 0 ? 300 : 7;
        while (static_cast<int>(c.size()) < len) c.insert(static_cast<index_type>(rng() % n));
        for (index_type j : c) {
            col.push_back(j);
            val.push_back(j == i ? 10.0 : value(rng));
        }
        ptr.push_back(static_cast<index_type>(col.size()));
    }
    std::vector<index_type> of(n);
    for (index_type i = 0; i < n; ++i) of[i] = i % 17 == 0 ? -2 : static_cast<index_type>(rng() % count);
    std::vector<double> dinv(n, 0.1);
    std::vector<std::uint8_t> strong(col.size());  // every third entry weak
    for (std::size_t k = 0; k < col.size(); ++k) strong[k] = rng() % 3 != 0;
    HostMatrix results[2], filtered[2];
    for (int k = 0; k < 2; ++k) {
        const ExecPtr exec = k == 0 ? host : device;
        const Csr<double> a{n, n, Array<index_type>::from_host(exec, ptr),
                            Array<index_type>::from_host(exec, col), Array<double>::from_host(exec, val)};
        Aggregates agg;
        agg.of_node = Array<index_type>::from_host(exec, of);
        agg.count = count;
        results[k] = test::to_host(smoothed_prolongator(a, Array<double>::from_host(exec, dinv), 0.7, agg));
        agg.strong = Array<std::uint8_t>::from_host(exec, strong);
        filtered[k] = test::to_host(smoothed_prolongator(a, Array<double>::from_host(exec, dinv), 0.7, agg));
    }
    expect_same_pattern_close_values(results[1], results[0], 1e-14, "P with long rows");
    expect_same_pattern_close_values(filtered[1], filtered[0], 1e-14, "filtered P with long rows");
}

TEST(AmgGpu, SparseProductOverBlocksOfRowsEqualsTheCpuProduct)
{
    GPUFEM_REQUIRE_GPU();
    const unsigned seed = test::random_seed();
    const ExecPtr host = Executor::create_cpu(), device = Executor::create_cuda();
    const Csr<double> a_cpu = test::weighted_laplacian_3d<double>(host, 21, 17, 13, seed);
    const Aggregates agg = aggregate(a_cpu, strength_of_connection(a_cpu, diagonal_of(a_cpu), 0.02));
    const Csr<double> p_cpu = smoothed_prolongator(a_cpu, inverse_of(diagonal_of(a_cpu)), 0.6, agg);
    const HostMatrix expected = test::to_host(sparse_product(a_cpu, p_cpu));
    const Csr<double> a_gpu = a_cpu.clone_to(device), p_gpu = p_cpu.clone_to(device);
    // One block, blocks of a few rows, and blocks of a single row (a row longer than the block).
    for (std::size_t block : {amg_spgemm_block_nnz, std::size_t(997), std::size_t(3)})
        expect_same_pattern_close_values(test::to_host(sparse_product(a_gpu, p_gpu, block)), expected,
                                         1e-14, "A P in blocks");
}

/// A random n x m matrix whose row i has length(i) distinct columns (values in [-1, 1)).
template <typename Length>
HostMatrix random_sparse(index_type n, index_type m, std::mt19937& rng, Length length)
{
    HostMatrix h{n, m, {0}, {}, {}};
    std::uniform_real_distribution<double> value(-1, 1);
    for (index_type i = 0; i < n; ++i) {
        std::set<index_type> cols;
        const int len = std::min<int>(length(i), m);
        while (static_cast<int>(cols.size()) < len) cols.insert(static_cast<index_type>(rng() % m));
        for (index_type j : cols) {
            h.col.push_back(j);
            h.val.push_back(value(rng));
        }
        h.ptr.push_back(static_cast<index_type>(h.col.size()));
    }
    return h;
}

Csr<double> upload(const ExecPtr& exec, const HostMatrix& h)
{
    return {h.rows, h.cols, Array<index_type>::from_host(exec, h.ptr), Array<index_type>::from_host(exec, h.col),
            Array<double>::from_host(exec, h.val)};
}

TEST(AmgGpu, HashProductEqualsTheCpuProductAndHandsLongRowsToCusparse)
{
    GPUFEM_REQUIRE_GPU();
    const unsigned seed = test::random_seed();
    std::mt19937 rng(seed);
    const ExecPtr host = Executor::create_cpu(), device = Executor::create_cuda();
    // Rows of B up to 90 entries (several 32-lane steps), empty rows in A and B; the rows of
    // A B from none to a few hundred columns (the hash table's limit is 512).
    const HostMatrix b = random_sparse(600, 900, rng, [](index_type i) { return i % 13 == 0 ? 0 : i % 7 == 0 ? 90 : 6; });
    const HostMatrix a_short = random_sparse(700, 600, rng, [](index_type i) { return i % 11 == 0 ? 0 : i % 5 == 0 ? 8 : 4; });
    // Rows of A B past the limit (60 rows of B with about 15 columns each): cuSPARSE's product.
    const HostMatrix a_long = random_sparse(300, 600, rng, [](index_type i) { return i % 3 == 0 ? 60 : 3; });
    for (const HostMatrix* a : {&a_short, &a_long}) {
        const HostMatrix expected = test::to_host(sparse_product(upload(host, *a), upload(host, b)));
        std::size_t longest = 0;
        for (index_type i = 0; i < expected.rows; ++i)
            longest = std::max<std::size_t>(longest, static_cast<std::size_t>(expected.ptr[i + 1] - expected.ptr[i]));
        std::cout << "[ product  ] " << expected.rows << " rows, " << expected.col.size() << " entries, longest row "
                  << longest << "\n";
        EXPECT_TRUE(a == &a_short ? longest <= 512 : longest > 512) << longest;
        expect_same_pattern_close_values(test::to_host(sparse_product(upload(device, *a), upload(device, b))),
                                         expected, 1e-13, a == &a_short ? "hash product" : "past the hash limit");
    }
}

TEST(AmgGpu, RadixTransposeEqualsTheCpuTranspose)
{
    GPUFEM_REQUIRE_GPU();
    const unsigned seed = test::random_seed();
    std::mt19937 rng(seed);
    const ExecPtr host = Executor::create_cpu(), device = Executor::create_cuda();
    // Empty rows, and columns that no row names (the transpose's empty rows), a dense row.
    const HostMatrix a = random_sparse(1500, 4000, rng, [](index_type i) { return i == 7 ? 4000 : i % 9 == 0 ? 0 : 5; });
    const HostMatrix expected = test::to_host(sparse_transpose(upload(host, a)));
    const HostMatrix got = test::to_host(sparse_transpose(upload(device, a)));
    EXPECT_EQ(got.rows, 4000);
    EXPECT_EQ(got.ptr, expected.ptr);
    EXPECT_EQ(got.col, expected.col);
    EXPECT_EQ(got.val, expected.val);
}

TEST(AmgGpu, JoinedBlocksAndShiftedColumnsEqualTheCpus)
{
    GPUFEM_REQUIRE_GPU();
    const unsigned seed = test::random_seed();
    std::mt19937 rng(seed);
    const ExecPtr host = Executor::create_cpu(), device = Executor::create_cuda();
    // [left | right] (a rank's owned and ghost columns side by side): empty rows on either
    // side, rows longer than a warp's 32 lanes on both.
    const index_type n = 900;
    const HostMatrix left = random_sparse(n, 700, rng, [](index_type i) { return i % 17 == 0 ? 0 : i % 9 == 0 ? 70 : 27; });
    const HostMatrix right = random_sparse(n, 300, rng, [](index_type i) { return i % 5 == 0 ? 0 : i % 23 == 0 ? 40 : 3; });
    const auto joined_on = [&](const ExecPtr& exec) {
        const Csr<double> l = upload(exec, left), r = upload(exec, right);
        Array<index_type> ptr(exec, static_cast<std::size_t>(n) + 1), col(exec, left.col.size() + right.col.size());
        Array<double> val(exec, col.size());
        const Executor& e = *exec;
        GPUFEM_DISPATCH(e, amg_join_columns(e, l, r, left.cols, ptr.data(), col.data(), val.data()));
        return HostMatrix{n, left.cols + right.cols, ptr.to_host(), col.to_host(), val.to_host()};
    };
    const HostMatrix expected = joined_on(host), got = joined_on(device);
    EXPECT_EQ(expected.col.size(), left.col.size() + right.col.size());
    EXPECT_EQ(got.ptr, expected.ptr);
    EXPECT_EQ(got.col, expected.col);
    EXPECT_EQ(got.val, expected.val);
    // Left with 64-bit row offsets (a rank's rows past 2^31 - 1 entries), on both: the same rows.
    for (const ExecPtr& exec : {host, device}) {
        const WideCsr<double> l = test::with_wide_offsets(upload(exec, left));
        const Csr<double> r = upload(exec, right);
        Array<wide_offset_type> ptr(exec, static_cast<std::size_t>(n) + 1);
        Array<index_type> col(exec, left.col.size() + right.col.size());
        Array<double> val(exec, col.size());
        const Executor& e = *exec;
        GPUFEM_DISPATCH(e, amg_join_columns(e, l, r, left.cols, ptr.data(), col.data(), val.data()));
        const std::vector<wide_offset_type> wide_ptr = ptr.to_host();
        EXPECT_EQ(std::vector<index_type>(wide_ptr.begin(), wide_ptr.end()), expected.ptr);
        EXPECT_EQ(col.to_host(), expected.col);
        EXPECT_EQ(val.to_host(), expected.val);
    }
    // A range of columns moved one way and the rest another (own columns first).
    std::vector<index_type> columns(5000);
    for (index_type& c : columns) c = static_cast<index_type>(rng() % 100000);
    const auto shifted_on = [&](const ExecPtr& exec) {
        Array<index_type> c = Array<index_type>::from_host(exec, columns);
        const Executor& e = *exec;
        GPUFEM_DISPATCH(e, amg_shift_columns(e, columns.size(), 40000, 60000, -40000, 20000, c.data()));
        return c.to_host();
    };
    const std::vector<index_type> moved = shifted_on(host);
    for (std::size_t k = 0; k < columns.size(); ++k)
        ASSERT_EQ(moved[k], columns[k] >= 40000 && columns[k] < 60000 ? columns[k] - 40000 : columns[k] + 20000);
    EXPECT_EQ(shifted_on(device), moved);
}

TEST(AmgGpu, DistinctColumnsAndTheirPlacesEqualTheCpus)
{
    GPUFEM_REQUIRE_GPU();
    const unsigned seed = test::random_seed();
    std::mt19937 rng(seed);
    const ExecPtr host = Executor::create_cpu(), device = Executor::create_cuda();
    // A coarse operator's ghost columns: many repeats of few global numbers spread over a
    // wide range (and the empty case).
    for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{70000}}) {
        std::vector<index_type> columns(n);
        for (index_type& c : columns) c = static_cast<index_type>(rng() % 3000) * 7919 + 13;
        std::vector<index_type> expected = columns;
        std::sort(expected.begin(), expected.end());
        expected.erase(std::unique(expected.begin(), expected.end()), expected.end());
        const auto on = [&](const ExecPtr& exec) {
            const Executor& e = *exec;
            const Array<index_type> values = Array<index_type>::from_host(exec, columns);
            Array<index_type> distinct(exec, n), places = values.clone_to(exec);
            const index_type count = GPUFEM_DISPATCH(e, amg_distinct_values(e, n, values.data(), distinct.data()));
            GPUFEM_DISPATCH(e, amg_localize_columns(e, n, 0, 0, distinct.data(), count, places.data()));
            std::vector<index_type> all = distinct.to_host();
            all.resize(static_cast<std::size_t>(count));
            return std::make_pair(all, places.to_host());
        };
        const auto [cpu_distinct, cpu_places] = on(host);
        const auto [gpu_distinct, gpu_places] = on(device);
        ASSERT_EQ(cpu_distinct, expected) << "seed " << seed;
        EXPECT_EQ(gpu_distinct, expected) << "seed " << seed;
        for (std::size_t k = 0; k < n; ++k) ASSERT_EQ(expected[static_cast<std::size_t>(cpu_places[k])], columns[k]);
        EXPECT_EQ(gpu_places, cpu_places) << "seed " << seed;
    }
}

TEST(AmgGpu, HierarchiesAgreeAndPcgConvergesLikeTheCpuForEveryFormat)
{
    GPUFEM_REQUIRE_GPU();
    const unsigned seed = test::random_seed();
    const ExecPtr host = Executor::create_cpu(), device = Executor::create_cuda();
    const Csr<double> a_cpu = test::weighted_laplacian_3d<double>(host, 40, 36, 32, seed);
    const std::vector<double> b_host = test::random_vector<double>(static_cast<std::size_t>(a_cpu.rows), seed);
    AmgOptions amg_options;
    amg_options.coarse_size = 200;
    SolveOptions options;
    options.tolerance = 1e-10;
    options.max_iterations = 200;

    const auto op_cpu = build_format("csr", a_cpu.clone_to(host), FormatOptions{});
    const AmgPreconditioner<double> amg_cpu(*op_cpu.op, a_cpu, amg_options);
    const Array<double> b_cpu = Array<double>::from_host(host, b_host);
    Array<double> x_cpu = Array<double>::from_host(host, std::vector<double>(b_host.size(), 0.0));
    const SolveResult r_cpu = solve(KrylovMethod::cg, KrylovVariant::merged, *op_cpu.op, b_cpu, x_cpu, options, &amg_cpu);
    ASSERT_TRUE(r_cpu.converged()) << r_cpu.message;

    for (const std::string format : {"csr", "csr-scalar", "cusparse", "ell", "ellr", "sellp", "bdia", "staircase"}) {
        const Csr<double> a_gpu = a_cpu.clone_to(device);
        const FormatBuild<double> built = build_format(format, a_gpu.clone_to(device), FormatOptions{});
        const Csr<double> matrix = built.permutation.empty() ? a_gpu.clone_to(device)
                                                             : permute_symmetric(a_gpu, built.permutation);
        const AmgPreconditioner<double> amg(*built.op, matrix, amg_options);
        ASSERT_EQ(amg.levels().size(), amg_cpu.levels().size()) << format;
        if (built.permutation.empty())
            for (std::size_t l = 0; l < amg.levels().size(); ++l) {
                EXPECT_EQ(amg.levels()[l].rows, amg_cpu.levels()[l].rows) << format << " level " << l;
                EXPECT_EQ(amg.levels()[l].nnz, amg_cpu.levels()[l].nnz) << format << " level " << l;
                EXPECT_NEAR(amg.levels()[l].lambda_max, amg_cpu.levels()[l].lambda_max,
                            1e-8 * amg_cpu.levels()[l].lambda_max) << format;
            }
        const Array<double> b_gpu = reordered(built, Array<double>::from_host(device, b_host), false);
        Array<double> x_gpu = Array<double>::from_host(device, std::vector<double>(b_host.size(), 0.0));
        const SolveResult r = solve(KrylovMethod::cg, KrylovVariant::merged, *built.op, b_gpu, x_gpu, options, &amg);
        ASSERT_TRUE(r.converged()) << format << ": " << r.message;
        EXPECT_NEAR(r.iterations, r_cpu.iterations, built.permutation.empty() ? 1 : 3) << format;
        EXPECT_LE(r.iterations, 15) << format;
        const std::vector<double> x = reordered(built, x_gpu, true).to_host();
        EXPECT_LT(test::max_relative_difference(x, x_cpu.to_host()), 1e-8) << format;
    }
}

/// A random weighted 3D Laplacian with a fifth of its off-diagonal couplings made positive
/// (weak, and read by extended+i's distribution as the other sign), on the host.
Csr<double> laplacian_with_positive_couplings(index_type nx, index_type ny, index_type nz, unsigned seed)
{
    const ExecPtr host = Executor::create_cpu();
    const Csr<double> base = test::weighted_laplacian_3d<double>(host, nx, ny, nz, seed);
    const test::HostMatrix h = test::to_host(base);
    std::vector<double> values = h.val;
    std::mt19937 random(seed + 1);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    for (index_type i = 0; i < h.rows; ++i)
        for (index_type k = h.ptr[i]; k < h.ptr[i + 1]; ++k)
            if (h.col[k] != i && unit(random) < 0.2) values[k] = 0.3 * std::abs(values[k]);
    return Csr<double>{base.rows, base.cols, base.row_ptr.clone_to(host), base.col_idx.clone_to(host),
                       Array<double>::from_host(host, values)};
}

/// Strength, splitting and interpolation of a (on the host) made on both backends: identical,
/// the weights to the last bit (the device follows the CPU's order of operations). Returns the
/// host's interpolation and prints the longest row met.
Csr<double> expect_classical_level_equal(const Csr<double>& a, int entries_kept, unsigned seed, const char* what)
{
    SCOPED_TRACE(fmt::format("{}, seed {}", what, seed));
    const ExecPtr device = Executor::create_cuda();
    const Csr<double> a_gpu = a.clone_to(device);
    const Array<std::uint8_t> strong = classical_strength(a, 0.25), strong_gpu = classical_strength(a_gpu, 0.25);
    EXPECT_EQ(strong_gpu.to_host(), strong.to_host());
    const CoarseSplitting s = pmis_splitting(a, strong), s_gpu = pmis_splitting(a_gpu, strong_gpu);
    EXPECT_EQ(s_gpu.count, s.count);
    EXPECT_EQ(s_gpu.rounds, s.rounds);
    EXPECT_EQ(s_gpu.coarse_of.to_host(), s.coarse_of.to_host());
    for (const int entries : {0, 4, 2}) {
        const test::HostMatrix p = test::to_host(extended_interpolation(a, strong, s, entries));
        const test::HostMatrix p_gpu = test::to_host(extended_interpolation(a_gpu, strong_gpu, s_gpu, entries));
        EXPECT_EQ(p_gpu.ptr, p.ptr) << "entries " << entries;
        EXPECT_EQ(p_gpu.col, p.col) << "entries " << entries;
        EXPECT_EQ(p_gpu.val, p.val) << "entries " << entries;
    }
    const test::HostMatrix h = test::to_host(a);
    index_type longest = 0;
    for (index_type i = 0; i < h.rows; ++i) longest = std::max(longest, h.ptr[i + 1] - h.ptr[i]);
    std::cout << "[ classical] " << what << ": " << a.rows << " rows (longest " << longest << " entries), " << s.count
              << " C points, " << s.rounds << " PMIS rounds, seed " << seed << "\n";
    return extended_interpolation(a, strong, s, entries_kept);
}

TEST(AmgGpu, ClassicalStrengthSplittingAndInterpolationOnTheDeviceEqualTheCpus)
{
    // The fine level, one with positive couplings, and two Galerkin levels below the fine one
    // (rows of 20-100 entries: the interpolation's warp walks rows of several chunks).
    GPUFEM_REQUIRE_GPU();
    const unsigned seed = test::random_seed();
    const ExecPtr host = Executor::create_cpu();
    expect_classical_level_equal(laplacian_with_positive_couplings(40, 36, 32, seed), 4, seed, "positive couplings");
    Csr<double> level = test::weighted_laplacian_3d<double>(host, 40, 36, 32, seed);
    index_type longest = 0;
    for (int l = 0; l < 3; ++l) {
        const Csr<double> p = expect_classical_level_equal(level, 4, seed, l == 0 ? "level 0" : l == 1 ? "level 1" : "level 2");
        if (l == 2) {
            const test::HostMatrix h = test::to_host(level);
            for (index_type i = 0; i < h.rows; ++i) longest = std::max(longest, h.ptr[i + 1] - h.ptr[i]);
        }
        level = sparse_product(sparse_transpose(p), sparse_product(level, p));
    }
    EXPECT_GT(longest, 32) << "a level with rows longer than a warp";
}

/// PCG with classical AMG on the CPU and on the device: the hierarchy set up on built_on
/// (updated with the values of updated_to when given, then solving with it), the same first
/// coarse level, the iterations within one and the solutions within 1e-8.
void expect_classical_pcg_alike(const Csr<double>& built_on, const Csr<double>* updated_to, unsigned seed)
{
    const ExecPtr host = Executor::create_cpu(), device = Executor::create_cuda();
    AmgOptions amg_options;
    amg_options.coarse_size = 200;
    amg_options.coarsening = AmgCoarsening::classical;
    SolveOptions options;
    options.tolerance = 1e-10;
    options.max_iterations = 200;
    const std::vector<double> b_host = test::random_vector<double>(static_cast<std::size_t>(built_on.rows), seed);
    std::vector<double> x[2];
    int iterations[2] = {0, 0};
    std::vector<AmgLevelSummary> levels[2];
    for (int k = 0; k < 2; ++k) {
        const ExecPtr exec = k == 0 ? host : device;
        const auto built = build_format("csr", built_on.clone_to(exec), FormatOptions{});
        AmgPreconditioner<double> amg(*built.op, built_on.clone_to(exec), amg_options);
        std::optional<FormatBuild<double>> updated;
        if (updated_to) {
            updated = build_format("csr", updated_to->clone_to(exec), FormatOptions{});
            amg.update(*updated->op, updated_to->clone_to(exec));
        }
        levels[k] = amg.levels();
        const Array<double> b = Array<double>::from_host(exec, b_host);
        Array<double> xk = Array<double>::from_host(exec, std::vector<double>(b_host.size(), 0.0));
        const LinearOperator<double>& a = updated ? *updated->op : *built.op;
        const SolveResult r = solve(KrylovMethod::cg, KrylovVariant::merged, a, b, xk, options, &amg);
        ASSERT_TRUE(r.converged()) << r.message << " seed " << seed;
        iterations[k] = r.iterations;
        x[k] = xk.to_host();
    }
    ASSERT_GE(levels[0].size(), 3u);
    EXPECT_EQ(levels[1][1].rows, levels[0][1].rows) << "seed " << seed;
    EXPECT_EQ(levels[1][1].nnz, levels[0][1].nnz) << "seed " << seed;
    EXPECT_NEAR(static_cast<double>(levels[1].size()), static_cast<double>(levels[0].size()), 1) << "seed " << seed;
    EXPECT_NEAR(iterations[1], iterations[0], 1) << "seed " << seed;
    EXPECT_LT(test::max_relative_difference(x[1], x[0]), 1e-8) << "seed " << seed;
}

TEST(AmgGpu, ClassicalCoarseningOnTheDeviceMatchesTheCpu)
{
    // Each backend makes the splitting and the interpolation from its level's matrix; the
    // device's Galerkin products round differently, so below the first coarse level a
    // borderline coupling may be judged otherwise: the first level exactly, then PCG.
    GPUFEM_REQUIRE_GPU();
    const unsigned seed = test::random_seed();
    expect_classical_pcg_alike(test::weighted_laplacian_3d<double>(Executor::create_cpu(), 40, 36, 32, seed), nullptr,
                               seed);
}

TEST(AmgGpu, UpdateWithNewValuesMatchesTheCpuUpdate)
{
    GPUFEM_REQUIRE_GPU();
    const unsigned seed = test::random_seed();
    const ExecPtr host = Executor::create_cpu(), device = Executor::create_cuda();
    const Csr<double> first = test::weighted_laplacian_3d<double>(host, 22, 19, 17, seed);
    const Csr<double> second = test::weighted_laplacian_3d<double>(host, 22, 19, 17, seed + 1);
    AmgOptions options;
    options.coarse_size = 200;
    const std::vector<double> r_host = test::random_vector<double>(static_cast<std::size_t>(first.rows), seed + 2);
    std::vector<double> z[2];
    for (int k = 0; k < 2; ++k) {
        const ExecPtr exec = k == 0 ? host : device;
        const Csr<double> a = first.clone_to(exec), b = second.clone_to(exec);
        const auto op_a = build_format("csr", a.clone_to(exec), FormatOptions{});
        const auto op_b = build_format("csr", b.clone_to(exec), FormatOptions{});
        AmgPreconditioner<double> amg(*op_a.op, a, options);
        amg.update(*op_b.op, b);
        const Array<double> r = Array<double>::from_host(exec, r_host);
        Array<double> out(exec, r.size());
        amg.apply(r, out);
        z[k] = out.to_host();
    }
    EXPECT_LT(test::max_relative_difference(z[1], z[0]), 1e-10) << "CUDA's updated cycle is the CPU's";
}

TEST(AmgGpu, ClassicalUpdateOnTheDeviceSolvesAsOnTheCpu)
{
    // An update keeps each level's splitting and makes the strength and the interpolation
    // again from the new values, on the level's backend.
    GPUFEM_REQUIRE_GPU();
    const unsigned seed = test::random_seed();
    const ExecPtr host = Executor::create_cpu();
    const Csr<double> second = test::weighted_laplacian_3d<double>(host, 30, 28, 26, seed + 1);
    expect_classical_pcg_alike(test::weighted_laplacian_3d<double>(host, 30, 28, 26, seed), &second, seed);
}

TEST(AmgGpu, GivenFirstProlongatorPathMatchesTheCpu)
{
    GPUFEM_REQUIRE_GPU();
    const unsigned seed = test::random_seed();
    const ExecPtr host = Executor::create_cpu(), device = Executor::create_cuda();
    const Csr<double> a_cpu = test::weighted_laplacian_3d<double>(host, 30, 28, 26, seed);
    // A given first transfer (as p-multigrid's interpolation): the tentative prolongator.
    const Csr<double> p_cpu = tentative_prolongator<double>(
        aggregate(a_cpu, strength_of_connection(a_cpu, diagonal_of(a_cpu), 0.02)));
    const std::vector<double> b_host = test::random_vector<double>(static_cast<std::size_t>(a_cpu.rows), seed);
    SolveOptions options;
    options.tolerance = 1e-10;
    options.max_iterations = 300;
    int iterations[2] = {0, 0};
    std::vector<double> solutions[2];
    for (int k = 0; k < 2; ++k) {
        const ExecPtr exec = k == 0 ? host : device;
        const Csr<double> a = a_cpu.clone_to(exec);
        std::vector<Csr<double>> given;
        given.push_back(p_cpu.clone_to(exec));
        const auto op = build_format("csr", a.clone_to(exec), FormatOptions{});
        const AmgPreconditioner<double> pmg(*op.op, a, AmgOptions{}, &given);
        EXPECT_EQ(pmg.name(), "pmg");
        EXPECT_EQ(pmg.levels().at(1).rows, p_cpu.cols);
        const Array<double> b = Array<double>::from_host(exec, b_host);
        Array<double> x = Array<double>::from_host(exec, std::vector<double>(b_host.size(), 0.0));
        const SolveResult r = solve(KrylovMethod::cg, KrylovVariant::merged, *op.op, b, x, options, &pmg);
        ASSERT_TRUE(r.converged()) << r.message;
        iterations[k] = r.iterations;
        solutions[k] = x.to_host();
    }
    EXPECT_NEAR(iterations[1], iterations[0], 1);
    EXPECT_LT(test::max_relative_difference(solutions[1], solutions[0]), 1e-8);
}

TEST(AmgGpu, ElementCoarseOperatorsAndTheMatrixFreePmgMatchTheCpu)
{
    GPUFEM_REQUIRE_GPU();
    // Hexahedra Q4: 125 nodes, projected onto 27 and 8 (one cell per block, the largest
    // shared memory), from symmetric (packed) storage. Q6 (343 nodes onto 64): K_e P does not
    // fit a block's shared memory, so its columns are taken a few at a time.
    for (const auto& [shape, elements, size, degree, symmetric] :
         {std::tuple<std::string, std::string, double, int, bool>{"unit_square", "quadrilateral", 1.0 / 24, 4, false},
          std::tuple<std::string, std::string, double, int, bool>{"unit_cube", "tetrahedron", 0.2, 3, false},
          std::tuple<std::string, std::string, double, int, bool>{"unit_cube", "hexahedron", 0.25, 4, true},
          std::tuple<std::string, std::string, double, int, bool>{"unit_cube", "hexahedron", 0.5, 6, false}}) {
        const std::string text = test::partial_dirichlet_case(
            shape, elements, size, degree,
            std::string("format: lma\nsolver: {preconditioner: pmg, tolerance: 1e-10}\n") +
                (symmetric ? "format_options: {lma: {symmetric: true}}\n" : ""));
        const std::string what = fmt::format("{} degree {}", elements, degree);
        int iterations[2] = {0, 0};
        std::vector<double> solutions[2];
        std::vector<HostMatrix> operators[2], stored[2];
        for (int k = 0; k < 2; ++k) {
            CaseSpec spec = parse_case_text(text, "p", "");
            spec.backend = k == 0 ? BackendChoice::cpu : BackendChoice::cuda;
            const ExecPtr exec = make_executor(spec.backend);
            const CaseMesh mesh = load_case_mesh(spec, exec);
            const auto disc = make_discretisation<double>(spec, mesh);
            for (const Csr<double>& op : disc->pmg_coarse_operators(exec)) operators[k].push_back(test::to_host(op));
            const DiscreteSystem<double> system = build_case_system(exec, *disc, spec);
            ASSERT_TRUE(system.coarse_from_elements) << what;
            // From the lma operator's storage (the solve's path).
            for (const Csr<double>& op : disc->pmg_coarse_operators(exec, system.op.op.get())) stored[k].push_back(test::to_host(op));
            const SystemSolution<double> solved = solve_system(system, spec.solver);
            ASSERT_TRUE(solved.result.converged()) << what << ": " << solved.result.message;
            EXPECT_EQ(solved.preconditioner["coarse_operators"], "element galerkin");
            iterations[k] = solved.result.iterations;
            solutions[k] = solved.x.to_host();
        }
        ASSERT_EQ(operators[1].size(), operators[0].size()) << what;
        ASSERT_EQ(stored[1].size(), operators[0].size()) << what;
        ASSERT_EQ(stored[0].size(), operators[0].size()) << what;
        for (std::size_t l = 0; l < operators[0].size(); ++l) {
            expect_same_pattern_close_values(operators[1][l], operators[0][l], 1e-12,
                                             what + ", level " + std::to_string(l + 1));
            expect_same_pattern_close_values(stored[1][l], operators[0][l], 1e-12,
                                             what + ", from the lma storage, level " + std::to_string(l + 1));
            expect_same_pattern_close_values(stored[0][l], operators[0][l], 1e-12,
                                             what + ", from the lma storage on the CPU, level " + std::to_string(l + 1));
        }
        EXPECT_NEAR(iterations[1], iterations[0], 1) << what;
        EXPECT_LT(test::max_relative_difference(solutions[1], solutions[0]), 1e-8) << what;
    }
}

TEST(AmgGpu, PaCoarseLevelAndItsHeldTransferMatchTheCpu)
{
    GPUFEM_REQUIRE_GPU();
    // The first coarse level of pa from its own factors (the coarse kernels: 3, 4 and 5 nodes
    // on 5, 7 and 9 points per direction, 4 on 8 under degree 7) and its transfer held at zero on the coarse Dirichlet
    // nodes, on the device against the CPU: the same random vectors through both; then pmg's
    // solve with it, in double and with the float cycle. Every kernel the level uses (2D and
    // 3D, with and without lower-order terms) on an odd number of cells (a block's last slots
    // empty where it takes several cells).
    const unsigned seed = test::random_seed();
    std::vector<std::tuple<std::string, int, bool>> cases;
    for (const std::string elements : {"quadrilateral", "hexahedron"})
        for (const int degree : {4, 6, 7, 8})
            for (const bool convection : {false, true}) cases.emplace_back(elements, degree, convection);
    for (const auto& [elements, degree, convection] : cases) {
        const bool cube = elements == "hexahedron";
        const std::string what = fmt::format("{} degree {}{} seed {}", elements, degree, convection ? " convection" : "", seed);
        std::vector<double> applied[2], diagonal[2], prolonged[2], restricted[2], solutions[2];
        std::vector<std::uint8_t> masks[2];
        int iterations[2] = {0, 0};
        for (int k = 0; k < 2; ++k) {
            CaseSpec spec = parse_case_text(
                test::partial_dirichlet_case(cube ? "unit_cube" : "unit_square", elements, cube ? 1.0 / 3 : 0.2, degree,
                                             "format: pa\nsolver: {preconditioner: pmg, tolerance: 1e-10}\n"),
                "p", "");
            if (convection) {
                spec.problem.convection = cube ? std::vector<double>{1.0, 0.5, 0.25} : std::vector<double>{1.0, 0.5};
                spec.solver.method = KrylovMethod::bicgstab;
            }
            spec.backend = k == 0 ? BackendChoice::cpu : BackendChoice::cuda;
            const ExecPtr exec = make_executor(spec.backend);
            const CaseMesh mesh = load_case_mesh(spec, exec);
            const auto disc = make_discretisation<double>(spec, mesh);
            const DiscreteSystem<double> system = build_case_system(exec, *disc, spec);
            const LinearOperator<double>& op = *system.op.op;
            std::optional<PmgMatrixFreeTransfers<double>> transfers = disc->pmg_matrix_free_transfers(exec);
            ASSERT_TRUE(transfers) << what;
            const std::unique_ptr<LinearOperator<double>> coarse = pa_coarse_level(op, transfers->first);
            ASSERT_TRUE(coarse) << what;
            const auto n = static_cast<std::size_t>(coarse->rows()), fine = static_cast<std::size_t>(op.rows());
            Array<double> y(exec, n), z(exec, fine), w(exec, n);
            const Array<double> x = Array<double>::from_host(exec, test::random_vector<double>(n, seed));
            coarse->apply(x, y);
            transfers->first.prolongation->apply(x, z);
            transfers->first.restriction->apply(Array<double>::from_host(exec, test::random_vector<double>(fine, seed + 1)), w);
            applied[k] = y.to_host();
            diagonal[k] = coarse->diagonal().to_host();
            prolonged[k] = z.to_host();
            restricted[k] = w.to_host();
            masks[k] = dynamic_cast<const PaOperator<double>&>(*coarse).dirichlet_mask().to_host();
            const SystemSolution<double> solved = solve_system(system, spec.solver, disc.get());
            ASSERT_TRUE(solved.result.converged()) << what << ": " << solved.result.message;
            EXPECT_EQ(solved.preconditioner["levels"][1]["format"], "pa") << what;
            EXPECT_EQ(solved.preconditioner["coarse_operators"], pa_coarse_level_origin) << what;
            iterations[k] = solved.result.iterations;
            solutions[k] = solved.x.to_host();
            if (k == 1 && !convection) {  // the float cycle on the device: the same solution
                CaseSpec in_float = spec;
                in_float.solver.amg.precision = AmgPrecision::single;
                const SystemSolution<double> cycled = solve_system(system, in_float.solver, disc.get());
                ASSERT_TRUE(cycled.result.converged()) << what << " float: " << cycled.result.message;
                EXPECT_EQ(cycled.preconditioner["precision"], "float") << what;
                EXPECT_LE(cycled.result.iterations, iterations[0] + 2) << what;
                EXPECT_LT(test::max_relative_difference(cycled.x.to_host(), solutions[0]), 1e-8) << what;
            }
        }
        EXPECT_EQ(masks[1], masks[0]) << what;
        EXPECT_LT(test::max_relative_difference(applied[1], applied[0]), 1e-12) << what;
        EXPECT_LT(test::max_relative_difference(diagonal[1], diagonal[0]), 1e-12) << what;
        EXPECT_LT(test::max_relative_difference(prolonged[1], prolonged[0]), 1e-13) << what;
        EXPECT_LT(test::max_relative_difference(restricted[1], restricted[0]), 1e-13) << what;
        EXPECT_NEAR(iterations[1], iterations[0], 1) << what;
        EXPECT_LT(test::max_relative_difference(solutions[1], solutions[0]), 1e-8) << what;
    }
}

TEST(AmgGpu, PmgTransfersAndCoarseSpacesBuiltOnTheDeviceEqualTheCpus)
{
    GPUFEM_REQUIRE_GPU();
    const ExecPtr gpu = make_executor(BackendChoice::cuda);
    const ExecPtr host = make_executor(BackendChoice::cpu);
    const auto same = [](const Csr<double>& a, const Csr<double>& b, const std::string& what) {
        const HostMatrix ha = test::to_host(a), hb = test::to_host(b);
        EXPECT_EQ(ha.rows, hb.rows) << what;
        EXPECT_EQ(ha.cols, hb.cols) << what;
        EXPECT_EQ(ha.ptr, hb.ptr) << what;
        EXPECT_EQ(ha.col, hb.col) << what;
        EXPECT_EQ(ha.val, hb.val) << what;  // the same reference weights, copied
    };
    for (const std::string elements : {"triangle", "quadrilateral", "tetrahedron", "hexahedron"})
        for (int degree : {2, 3, 4, 5, 6, 7, 8}) {
            const bool boxes = elements == "quadrilateral" || elements == "hexahedron";
            if (degree > 4 && !boxes) continue;  // degrees 5-8: GLL nodes on boxes only
            const bool cube = elements == "tetrahedron" || elements == "hexahedron";
            const std::string text =
                test::partial_dirichlet_case(cube ? "unit_cube" : "unit_square", elements, cube ? 0.34 : 0.15, degree);
            CaseSpec spec = parse_case_text(text, "p", "");
            const CaseMesh on_host = load_case_mesh(spec, host);
            spec.backend = BackendChoice::cuda;
            const CaseMesh on_gpu = load_case_mesh(spec, gpu);  // with its device copy
            // Cubic simplices through degree 2 (its edge unknowns named by the nodes' order).
            const std::vector<int> degrees = pmg_coarse_degrees(degree, false, !boxes);
            const std::vector<Csr<double>> reference = pmg_interpolations<double>(on_host.mesh, host, true, degrees);
            ASSERT_FALSE(reference.empty());
            // From the mesh's device copy, and from a mesh without one (its cells uploaded).
            for (const Mesh* mesh : {&on_gpu.mesh, &on_host.mesh}) {
                const std::string what = fmt::format("{} degree {}{}", elements, degree,
                                                     mesh->device ? "" : ", cells uploaded");
                const std::vector<Csr<double>> chain = pmg_interpolations<double>(*mesh, gpu, true, degrees);
                ASSERT_EQ(chain.size(), reference.size()) << what;
                for (std::size_t l = 0; l < chain.size(); ++l)
                    same(chain[l], reference[l], what + ", transfer " + std::to_string(l + 1));
                same(degree_one_interpolation<double>(*mesh, gpu), degree_one_interpolation<double>(on_host.mesh, host),
                     what + ", degree one");
                for (const int c : degrees) {
                    const LagrangeSpace a = lagrange_space(*mesh, c, gpu);
                    const LagrangeSpace b = lagrange_space(on_host.mesh, c, host);
                    EXPECT_EQ(a.node_dofs.to_host(), b.node_dofs.to_host()) << what << ", degree-" << c << " numbering";
                    EXPECT_EQ(a.dof_nodes.to_host(), b.dof_nodes.to_host()) << what << ", degree-" << c << " nodes";
                    EXPECT_EQ(a.cell_dofs.to_host(), b.cell_dofs.to_host()) << what << ", degree-" << c << " dof map";
                }
            }
            EXPECT_TRUE(on_gpu.mesh.device) << "the generated shape should keep a device copy";
        }
}

TEST(AmgGpu, PmgTransfersOnMeshesOfSeveralCellTypesEqualTheCpus)
{
    // Each cell's rows by its own type's tables, its padding skipped: the device's transfers,
    // numbering and dof maps are the CPU's, entry for entry.
    GPUFEM_REQUIRE_GPU();
    const ExecPtr gpu = make_executor(BackendChoice::cuda);
    const ExecPtr host = make_executor(BackendChoice::cpu);
    const test::TempFolder folder;
    const auto four = folder.write("four.geo", test::cube_four_types(6));
    const auto square = folder.write("square.geo", test::square_triangles_quadrilaterals(8));
    for (const auto& [geo, degree] : {std::pair{four, 2}, std::pair{square, 4}}) {
        const std::string what = geo.filename().string() + " degree " + std::to_string(degree);
        CaseSpec spec = parse_case_text(fmt::format("mesh: {{geo: {}, gmsh_threads: 1}}\ndegree: {}\nproblem: "
                                                    "{{kappa: 1, f: 1, dirichlet: {{boundary: 0}}}}\nbackend: cpu\n",
                                                    geo.string(), degree),
                                        "p", "");
        const CaseMesh on_host = load_case_mesh(spec, host);
        ASSERT_TRUE(on_host.mesh.is_mixed()) << what;
        const std::vector<Csr<double>> reference = pmg_interpolations<double>(on_host.mesh, host);
        const std::vector<Csr<double>> chain = pmg_interpolations<double>(on_host.mesh, gpu);
        ASSERT_EQ(reference.size(), pmg_coarse_degrees(degree).size()) << what;
        ASSERT_EQ(chain.size(), reference.size()) << what;
        for (std::size_t l = 0; l < chain.size(); ++l) {
            const HostMatrix a = test::to_host(chain[l]), b = test::to_host(reference[l]);
            EXPECT_EQ(a.rows, b.rows) << what;
            EXPECT_EQ(a.cols, b.cols) << what;
            EXPECT_EQ(a.ptr, b.ptr) << what << ", transfer " << l + 1;
            EXPECT_EQ(a.col, b.col) << what << ", transfer " << l + 1;
            EXPECT_EQ(a.val, b.val) << what << ", transfer " << l + 1;
        }
        for (const int c : pmg_coarse_degrees(degree)) {
            const LagrangeSpace a = lagrange_space(on_host.mesh, c, gpu);
            const LagrangeSpace b = lagrange_space(on_host.mesh, c, host);
            EXPECT_EQ(a.node_dofs.to_host(), b.node_dofs.to_host()) << what << ", degree-" << c << " numbering";
            EXPECT_EQ(a.dof_nodes.to_host(), b.dof_nodes.to_host()) << what << ", degree-" << c << " nodes";
            EXPECT_EQ(a.cell_dofs.to_host(), b.cell_dofs.to_host()) << what << ", degree-" << c << " dof map";
        }
    }
}

TEST(AmgGpu, GalerkinProductsByWindowsOnTheDeviceMatchTheCpu)
{
    GPUFEM_REQUIRE_GPU();
    // Down every halving of generated grids, R (A P) by windows on the device equals the CPU
    // reference (pattern exactly, values to rounding) for a random matrix with the node
    // graph's pattern, in double and in float from the double matrix; a matrix reaching two
    // steps leaves the windows on the device too.
    const ExecPtr host = Executor::create_cpu(), device = Executor::create_cuda();
    const unsigned seed = test::random_seed();
    std::mt19937 random(seed);
    for (const auto& [shape, elements, size] :
         {std::tuple<std::string, std::string, double>{"unit_square", "quadrilateral", 1.0 / 32},
          std::tuple<std::string, std::string, double>{"l_shape", "triangle", 1.0 / 16},
          std::tuple<std::string, std::string, double>{"unit_cube", "hexahedron", 1.0 / 16},
          std::tuple<std::string, std::string, double>{"unit_cube", "tetrahedron", 1.0 / 8}}) {
        const std::string what = shape + " " + elements;
        const CaseMesh mesh = load_case_mesh(parse_case_text(test::partial_dirichlet_case(shape, elements, size, 1), "p", ""), host);
        const std::vector<Csr<double>> chain = pmg_interpolations<double>(mesh.mesh, host);
        const std::vector<std::optional<StructuredGrid>> grids = pmg_coarse_grids(mesh.mesh);
        ASSERT_EQ(grids.size(), chain.size()) << what;
        ASSERT_FALSE(chain.empty()) << what;
        Csr<double> a = test::random_node_graph_matrix(mesh.mesh, host, random);
        for (std::size_t l = 0; l < chain.size(); ++l) {
            const std::string level = what + " level " + std::to_string(l);
            ASSERT_TRUE(grids[l].has_value()) << level;
            const Csr<double>& p = chain[l];
            const Csr<double> r = sparse_transpose(p);
            const CoarseLattice on_device = coarse_lattice(*grids[l], device);
            EXPECT_EQ(on_device.points.to_host(), coarse_lattice(*grids[l], host).points.to_host()) << level;
            const Csr<double> a_d = a.clone_to(device), p_d = p.clone_to(device), r_d = r.clone_to(device);
            ASSERT_FALSE(on_device.narrow.empty()) << level;
            EXPECT_EQ(on_device.narrow.to_host(), coarse_lattice(*grids[l], host).narrow.to_host()) << level;
            Csr<double> ap{a.rows, p.cols, Array<index_type>(device, static_cast<std::size_t>(a.rows) + 1), {}, {}};
            ASSERT_TRUE(kernels::cuda::amg_lattice_product(*device, a_d, test::no_ghosts, p_d, on_device.points.data(),
                                                           on_device.narrow.data(), on_device.dim,
                                                           WindowCentre::lowest_of_b_row, 0, ap)) << level;
            // The 64-bit points (a lattice past 2^10 - 1 points a side): the same A P to the bit.
            Csr<double> wide_point_ap{a.rows, p.cols, Array<index_type>(device, static_cast<std::size_t>(a.rows) + 1), {}, {}};
            ASSERT_TRUE(kernels::cuda::amg_lattice_product(*device, a_d, test::no_ghosts, p_d, on_device.points.data(),
                                                           nullptr, on_device.dim, WindowCentre::lowest_of_b_row, 0,
                                                           wide_point_ap)) << level;
            {
                const HostMatrix narrow_h = test::to_host(ap), wide_h = test::to_host(wide_point_ap);
                EXPECT_EQ(wide_h.ptr, narrow_h.ptr) << level;
                EXPECT_EQ(wide_h.col, narrow_h.col) << level;
                EXPECT_EQ(wide_h.val, narrow_h.val) << level;
            }
            Csr<double> rap = lattice_galerkin(r, a, p, coarse_lattice(*grids[l], host));
            const HostMatrix d = test::to_host(lattice_galerkin(r_d, a_d, p_d, on_device)), h = test::to_host(rap);
            EXPECT_EQ(d.ptr, h.ptr) << level;
            EXPECT_EQ(d.col, h.col) << level;
            EXPECT_LE(test::max_relative_difference(d.val, h.val), 1e-14) << level;
            const HostMatrix ap_d = test::to_host(ap), ap_h = test::to_host(sparse_product(a, p));
            EXPECT_EQ(ap_d.col, ap_h.col) << level;
            EXPECT_LE(test::max_relative_difference(ap_d.val, ap_h.val), 1e-14) << level;
            // A with 64-bit row offsets (a rank's rows past 2^31 - 1 entries): the same A P.
            const HostMatrix wide_ap =
                test::to_host(lattice_product(test::with_wide_offsets(a_d), p_d, on_device, WindowCentre::lowest_of_b_row));
            EXPECT_EQ(wide_ap.ptr, ap_d.ptr) << level;
            EXPECT_EQ(wide_ap.col, ap_d.col) << level;
            EXPECT_EQ(wide_ap.val, ap_d.val) << level;
            // A rank's owned and ghost columns read side by side (a's first and last columns).
            const SplitRows<double> blocks = split_owned_columns(a_d, a.cols / 2, a.cols - a.cols / 2);
            const HostMatrix blocks_ap = test::to_host(
                lattice_product(blocks.local, blocks.nonlocal, p_d, on_device, WindowCentre::lowest_of_b_row));
            EXPECT_EQ(blocks_ap.ptr, ap_d.ptr) << level;
            EXPECT_EQ(blocks_ap.col, ap_d.col) << level;
            EXPECT_EQ(blocks_ap.val, ap_d.val) << level;
            const Csr<double> wide = sparse_product(a_d, a_d);
            Csr<double> refused{a.rows, p.cols, Array<index_type>(device, static_cast<std::size_t>(a.rows) + 1), {}, {}};
            for (const std::uint32_t* narrow : {static_cast<const std::uint32_t*>(nullptr), on_device.narrow.data()})
                EXPECT_FALSE(kernels::cuda::amg_lattice_product(*device, wide, test::no_ghosts, p_d, on_device.points.data(),
                                                                narrow, on_device.dim, WindowCentre::lowest_of_b_row, 0,
                                                                refused)) << level;
            // R A P in float with A read in double and rounded as the product goes: bit for bit
            // the product of A's rounded copy on the device (the same kernels, the same order of
            // sums), and the CPU's to float rounding (its sums in another order).
            const Csr<float> p_f = rounded_to_float(p), r_f = sparse_transpose(p_f);
            const Csr<float> p_fd = p_f.clone_to(device), r_fd = r_f.clone_to(device);
            const HostMatrix mixed = test::to_host(lattice_galerkin(r_fd, a_d, p_fd, on_device));
            const HostMatrix copy = test::to_host(lattice_galerkin(r_fd, rounded_to_float(a_d), p_fd, on_device));
            const HostMatrix mixed_h = test::to_host(lattice_galerkin(r_f, a, p_f, coarse_lattice(*grids[l], host)));
            EXPECT_EQ(mixed.ptr, copy.ptr) << level;
            EXPECT_EQ(mixed.col, copy.col) << level;
            EXPECT_EQ(mixed.val, copy.val) << level;
            EXPECT_EQ(mixed.col, mixed_h.col) << level;
            EXPECT_LE(test::max_relative_difference(mixed.val, mixed_h.val), 1e-5) << level;
            a = std::move(rap);
        }
    }
}

TEST(AmgGpu, PmgGridLevelOnTheDeviceMatchesTheCpu)
{
    GPUFEM_REQUIRE_GPU();
    // First-order quadrilaterals, hexahedra and Kuhn tetrahedra under lma (symmetric storage
    // for the cubes): the coarser grid, its transfer and its operator from the element
    // matrices, and the solve.
    for (const auto& [shape, elements, size, symmetric] :
         {std::tuple<std::string, std::string, double, bool>{"unit_square", "quadrilateral", 1.0 / 64, false},
          std::tuple<std::string, std::string, double, bool>{"unit_cube", "hexahedron", 1.0 / 16, true},
          std::tuple<std::string, std::string, double, bool>{"unit_cube", "tetrahedron", 1.0 / 16, true}}) {
        const std::string text = test::partial_dirichlet_case(
            shape, elements, size, 1,
            std::string("format: lma\nsolver: {preconditioner: pmg, tolerance: 1e-10}\n") +
                (symmetric ? "format_options: {lma: {symmetric: true}}\n" : ""));
        const std::string what = shape + " " + elements;
        int iterations[2] = {0, 0};
        std::vector<double> solutions[2];
        HostMatrix transfers[2], operators[2];
        std::vector<index_type> parents[2], coarse_cells[2];
        std::vector<std::uint8_t> children[2];
        for (int k = 0; k < 2; ++k) {
            CaseSpec spec = parse_case_text(text, "p", "");
            spec.backend = k == 0 ? BackendChoice::cpu : BackendChoice::cuda;
            const ExecPtr exec = make_executor(spec.backend);
            const CaseMesh mesh = load_case_mesh(spec, exec);
            const GridCoarsening coarse = coarsen_grid(mesh.mesh, exec);
            parents[k] = coarse.parent.to_host();
            children[k] = coarse.child.to_host();
            coarse_cells[k] = coarse.coarse_cells.to_host();
            const auto disc = make_discretisation<double>(spec, mesh);
            const DiscreteSystem<double> system = build_case_system(exec, *disc, spec);
            ASSERT_TRUE(system.coarse_from_elements) << what;
            const std::vector<Csr<double>> ops = disc->pmg_coarse_operators(exec, system.op.op.get());  // from the lma storage
            ASSERT_EQ(ops.size(), 1u) << what;
            operators[k] = test::to_host(ops[0]);
            transfers[k] = test::to_host(disc->pmg_interpolations(exec).at(0));
            const SystemSolution<double> solved = solve_system(system, spec.solver);
            ASSERT_TRUE(solved.result.converged()) << what << ": " << solved.result.message;
            EXPECT_EQ(solved.preconditioner["coarse_operators"], "element galerkin");
            iterations[k] = solved.result.iterations;
            solutions[k] = solved.x.to_host();
        }
        EXPECT_EQ(parents[1], parents[0]) << what;
        EXPECT_EQ(children[1], children[0]) << what;
        EXPECT_EQ(coarse_cells[1], coarse_cells[0]) << what;
        EXPECT_EQ(transfers[1].ptr, transfers[0].ptr) << what;
        EXPECT_EQ(transfers[1].col, transfers[0].col) << what;
        EXPECT_EQ(transfers[1].val, transfers[0].val) << what;
        expect_same_pattern_close_values(operators[1], operators[0], 1e-12, what + ", coarse operator");
        EXPECT_NEAR(iterations[1], iterations[0], 1) << what;
        EXPECT_LE(iterations[1], 14) << what;
        EXPECT_LT(test::max_relative_difference(solutions[1], solutions[0]), 1e-8) << what;
    }
}

TEST(AmgGpu, RefinedMeshLevelsOnTheDeviceMatchTheCpu)
{
    GPUFEM_REQUIRE_GPU();
    // One Gmsh mesh of tetrahedra refined twice on each backend, P1 and P2: pmg's transfers
    // down both refinements (the children's parents and types by the kernel
    // refinement_children) identical, and the solves with csr and lma alike.
    const std::string text = fmt::format(
        "mesh: {{geo: {}/cases/meshes/cube.geo, size: 0.25}}\nproblem: {{kappa: \"1 + x*y\", f: 1, "
        "dirichlet: {{left: 0, right: 1}}}}\nsolver: {{preconditioner: pmg, tolerance: 1e-10}}\n",
        GPUFEM_SOURCE_DIR);
    const CaseSpec base = parse_case_text(text, "p", "");
    const CaseMesh gmsh = load_case_mesh(base, Executor::create_cpu());
    for (const int degree : {1, 2})
        for (const std::string format : {"csr", "lma"}) {
            const std::string what = "degree " + std::to_string(degree) + ", " + format;
            std::vector<HostMatrix> transfers[2];
            std::vector<double> solutions[2];
            int iterations[2] = {0, 0};
            for (int k = 0; k < 2; ++k) {
                CaseSpec spec = base;
                spec.backend = k == 0 ? BackendChoice::cpu : BackendChoice::cuda;
                spec.mesh.degree = degree;
                spec.format = format;
                const ExecPtr exec = make_executor(spec.backend);
                CaseMesh mesh;
                mesh.mesh = refine_and_number(gmsh.mesh, 2, degree, exec);
                const auto disc = make_discretisation<double>(spec, mesh);
                for (const Csr<double>& t : disc->pmg_interpolations(exec)) transfers[k].push_back(test::to_host(t));
                const DiscreteSystem<double> system = build_case_system(exec, *disc, spec);
                const SystemSolution<double> solved = solve_system(system, spec.solver, disc.get());
                ASSERT_TRUE(solved.result.converged()) << what << ": " << solved.result.message;
                EXPECT_EQ(solved.preconditioner["degree_levels"], degree == 1 ? 2 : 3) << what;
                iterations[k] = solved.result.iterations;
                solutions[k] = solved.x.to_host();
            }
            ASSERT_EQ(transfers[1].size(), transfers[0].size()) << what;
            for (std::size_t l = 0; l < transfers[0].size(); ++l) {
                EXPECT_EQ(transfers[1][l].ptr, transfers[0][l].ptr) << what << ", level " << l;
                EXPECT_EQ(transfers[1][l].col, transfers[0][l].col) << what << ", level " << l;
                EXPECT_EQ(transfers[1][l].val, transfers[0][l].val) << what << ", level " << l;
            }
            EXPECT_NEAR(iterations[1], iterations[0], 1) << what;
            EXPECT_LT(test::max_relative_difference(solutions[1], solutions[0]), 1e-8) << what;
        }
}

TEST(AmgGpu, FloatHierarchyConverges)
{
    GPUFEM_REQUIRE_GPU();
    const unsigned seed = test::random_seed();
    const ExecPtr device = Executor::create_cuda();
    const Csr<float> a = test::weighted_laplacian_3d<float>(device, 30, 30, 30, seed);
    const auto op = build_format("csr", a.clone_to(device), FormatOptions{});
    const AmgPreconditioner<float> amg(*op.op, a, AmgOptions{});
    const std::vector<float> b_host = test::random_vector<float>(static_cast<std::size_t>(a.rows), seed);
    const Array<float> b = Array<float>::from_host(device, b_host);
    Array<float> x = Array<float>::from_host(device, std::vector<float>(b_host.size(), 0.0f));
    SolveOptions options;
    options.tolerance = 1e-5;
    const SolveResult r = solve(KrylovMethod::cg, KrylovVariant::merged, *op.op, b, x, options, &amg);
    EXPECT_TRUE(r.converged()) << r.message;
    EXPECT_LE(r.iterations, 12);
}

TEST(AmgGpu, AFloatCycleInADoubleSolveOnTheDeviceReachesTheCpuSolution)
{
    GPUFEM_REQUIRE_GPU();
    // solver.amg.precision: float on the device (the float copy of the matrix, its hierarchy,
    // the conversions in the merged CG's graph): the double tolerance met and the CPU's double
    // solution reached, for amg and pmg, pmg on pa (the operator's float copy smooths) and pmg
    // on bdia at degree 1 (the bands' float copy smooths, the first coarse level is made from
    // the double matrix).
    for (const std::string variant : {"amg", "pmg", "pmg pa", "pmg bdia"}) {
        const std::string preconditioner = variant.substr(0, 3);
        const std::string format = variant.size() > 4 ? "format: " + variant.substr(4) + "\n" : "";
        const std::string text = test::partial_dirichlet_case(
            "unit_cube", "hexahedron", 1.0 / 16, variant == "pmg bdia" ? 1 : 2,
            format + "solver: {preconditioner: " + preconditioner +
                ", tolerance: 1e-10, amg: {precision: float}}\n");
        std::vector<double> solutions[2];
        int iterations[2] = {0, 0};
        for (int k = 0; k < 2; ++k) {
            CaseSpec spec = parse_case_text(text, "p", "");
            spec.backend = k == 0 ? BackendChoice::cpu : BackendChoice::cuda;
            if (k == 0) spec.solver.amg.precision = AmgPrecision::same;
            const ExecPtr exec = make_executor(spec.backend);
            const CaseMesh mesh = load_case_mesh(spec, exec);
            const auto disc = make_discretisation<double>(spec, mesh);
            const DiscreteSystem<double> system = build_case_system(exec, *disc, spec);
            const SystemSolution<double> solved = solve_system(system, spec.solver, disc.get());
            ASSERT_TRUE(solved.result.converged()) << variant << ": " << solved.result.message;
            if (k == 1) {
                EXPECT_EQ(solved.preconditioner["precision"], "float") << variant;
                // A cycle costs more than a product, even in float: the state is read after
                // every iteration, so no batch of iterations runs past convergence.
                EXPECT_GE(solved.result.host_reads, solved.result.iterations) << variant;
            }
            iterations[k] = solved.result.iterations;
            solutions[k] = solved.x.to_host();
        }
        EXPECT_LE(iterations[1], iterations[0] + 2) << variant;
        EXPECT_LT(test::max_relative_difference(solutions[1], solutions[0]), 1e-8) << variant;
    }
}

}  // namespace
}  // namespace gpufem
