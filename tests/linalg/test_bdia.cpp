// bdia (Wang, Ren & Tian 2013) on the CPU: the layout on hand-made matrices, SpMV through the
// format (RCM numbering) against the long-double CSR reference, and the refusal when the band
// is too big.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "linalg/bdia.hpp"
#include "linalg/float_copy.hpp"
#include "linalg/format_build.hpp"
#include "linalg/reordering.hpp"
#include "random_csr.hpp"
#include "random_values.hpp"
#include "spmv_checks.hpp"
#include "value_types.hpp"

namespace gpufem {
namespace {

using test::HostCsr;

/// Builds a HostCsr from (row, col, value) triplets given row by row, columns sorted.
HostCsr<double> from_rows(index_type n, const std::vector<std::vector<std::pair<index_type, double>>>& rows)
{
    HostCsr<double> m;
    m.rows = m.cols = n;
    m.ptr.push_back(0);
    for (const auto& row : rows) {
        for (auto [c, v] : row) {
            m.col.push_back(c);
            m.val.push_back(v);
        }
        m.ptr.push_back(static_cast<index_type>(m.col.size()));
    }
    return m;
}

/// Random matrix with entries only for -lower <= j - i <= upper, about `density` of the band
/// filled, every empty_every-th row empty (if > 0).
template <typename V>
HostCsr<V> random_banded(index_type n, index_type lower, index_type upper, double density,
                         std::mt19937& rng, int empty_every = 0)
{
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    std::bernoulli_distribution keep(density);
    HostCsr<V> m;
    m.rows = m.cols = n;
    m.ptr.push_back(0);
    for (index_type i = 0; i < n; ++i) {
        if (empty_every == 0 || i % empty_every != 0) {
            for (index_type j = std::max(0, i - lower); j <= std::min(n - 1, i + upper); ++j) {
                if (j != i && !keep(rng)) continue;
                m.col.push_back(j);
                m.val.push_back(static_cast<V>(dist(rng)));
            }
        }
        m.ptr.push_back(static_cast<index_type>(m.col.size()));
    }
    return m;
}

/// y = alpha A x + beta y through the format: x and y permuted to the operator's numbering,
/// applied, the result permuted back.
template <typename V>
std::vector<V> apply_in_original_numbering(const FormatBuild<V>& f, V alpha, const std::vector<V>& x,
                                           V beta, const std::vector<V>& y)
{
    const ExecPtr& exec = f.op->executor();
    const auto n = x.size();
    if (f.permutation.empty()) {  // the matrix's own numbering was kept
        auto x_old = Array<V>::from_host(exec, x);
        auto y_old = Array<V>::from_host(exec, y);
        f.op->apply(alpha, x_old, beta, y_old);
        return y_old.to_host();
    }
    Array<V> x_new(exec, n), y_new(exec, n), y_old(exec, n);
    permute_vector(f.permutation, Array<V>::from_host(exec, x), x_new, false);
    permute_vector(f.permutation, Array<V>::from_host(exec, y), y_new, false);
    f.op->apply(alpha, x_new, beta, y_new);
    permute_vector(f.permutation, y_new, y_old, true);
    return y_old.to_host();
}

/// Builds the format, checks what it reports, and its SpMV against the long-double
/// reference in the original numbering. Returns true when RCM numbering was chosen.
template <typename V>
bool check_format_spmv(const std::string& name, const HostCsr<V>& m, std::mt19937& rng)
{
    SCOPED_TRACE(name + " " + precision_name<V>());
    const auto exec = Executor::create_cpu();
    const auto f = build_bdia_format(test::to_csr(m, exec), BdiaOptions{});
    EXPECT_EQ(f.op->format(), "bdia");
    EXPECT_EQ(f.op->rows(), m.rows);
    EXPECT_FALSE(f.host_steps.empty());
    EXPECT_GT(f.convert_seconds, 0.0);  // measured (RCM and the band take time)
    EXPECT_LT(f.convert_seconds, 10.0);
    const bool rcm = !f.permutation.empty();
    if (rcm) {
        EXPECT_EQ(f.permutation.size(), static_cast<std::size_t>(m.rows));
        auto p = f.permutation.to_host();
        std::sort(p.begin(), p.end());
        std::vector<index_type> identity(m.rows);
        std::iota(identity.begin(), identity.end(), 0);
        EXPECT_EQ(p, identity);
    }

    // The reported half bandwidth is that of the matrix in the operator's numbering.
    const auto own = test::to_csr(m, exec);
    const index_type hb = rcm ? half_bandwidth(permute_symmetric(own, f.permutation)) : half_bandwidth(own);
    const std::string params = f.op->parameters();
    EXPECT_EQ(params.rfind("half_bandwidth=" + std::to_string(hb) + " width=", 0), 0u) << params;
    EXPECT_NE(params.find(rcm ? "order=rcm" : "order=original"), std::string::npos) << params;
    EXPECT_NE(params.find(" bytes=" + std::to_string(f.op->bytes_stored()) + " "), std::string::npos)
        << params;
    EXPECT_EQ(f.op->spmv_min_bytes(), f.op->bytes_stored() + 2 * m.rows * sizeof(V));

    const auto x = test::random_vector<V>(m.rows, rng);
    const auto y = test::random_vector<V>(m.rows, rng);
    for (auto [alpha, beta] : {std::pair<V, V>{1, 0}, {V(-0.75), V(1.5)}}) {
        std::vector<V> y_in = y;
        if (beta == V(0)) y_in.assign(m.rows, std::numeric_limits<V>::quiet_NaN());
        const auto result = apply_in_original_numbering(f, alpha, x, beta, y_in);
        const auto expected = test::dense_reference(m, alpha, x, beta, y);
        EXPECT_LE(test::relative_max_error(result, expected), test::tolerance<V>(2e-5))
            << "alpha " << alpha << " beta " << beta;
    }
    return rcm;
}

TEST(Bdia, LayoutOfHandMadeMatrix)
{
    // Diagonals present: -1 .. 2; row 3 empty.
    const auto m = from_rows(6, {{{0, 1}, {1, 2}},
                                 {{0, 3}, {1, 4}, {3, 5}},
                                 {{2, 6}},
                                 {},
                                 {{3, 7}, {4, 8}, {5, 9}},
                                 {{5, 10}}});
    const auto exec = Executor::create_cpu();
    const auto b = convert_to_bdia(test::to_csr(m, exec), 0);
    EXPECT_EQ(b.rows, 6);
    EXPECT_EQ(b.slabs(), 1);
    EXPECT_EQ(b.half_bandwidth, 2);
    EXPECT_EQ(b.max_width, 4);
    EXPECT_EQ(b.max_bands, 1);
    EXPECT_EQ(b.max_window, bdia_slab - 1 + 4);
    EXPECT_EQ(b.band_ptr.to_host(), (std::vector<index_type>{0, 1}));
    EXPECT_EQ(b.band_offset.to_host(), std::vector<index_type>{-1});
    EXPECT_EQ(b.band_width.to_host(), std::vector<index_type>{4});
    EXPECT_EQ(b.slab_ptr.to_host(), (std::vector<std::int64_t>{0, 4 * bdia_slab}));
    // Entry (i, k) holds A(i, i - 1 + k); everything else in the slab is 0.
    std::vector<double> expected(4 * bdia_slab, 0.0);
    const auto set = [&](index_type i, index_type j, double v) { expected[(j - i + 1) * bdia_slab + i] = v; };
    set(0, 0, 1), set(0, 1, 2), set(1, 0, 3), set(1, 1, 4), set(1, 3, 5), set(2, 2, 6);
    set(4, 3, 7), set(4, 4, 8), set(4, 5, 9), set(5, 5, 10);
    EXPECT_EQ(b.values.to_host(), expected);
    EXPECT_EQ(b.bytes_stored(), 4 * bdia_slab * sizeof(double) + 2 * sizeof(std::int64_t) + 4 * sizeof(index_type));

    const std::vector<double> x{1, -2, 3, -4, 5, -6};
    std::vector<double> y(6, std::numeric_limits<double>::quiet_NaN());
    kernels::cpu::bdia_spmv(*exec, b, 1.0, x.data(), 0.0, y.data(), bdia_default_shared_bytes);
    EXPECT_EQ(y, (std::vector<double>{-3, -25, 18, 0, -42, -60}));
}

TEST(Bdia, LayoutHasBandsPerSlab)
{
    // Slab 0: tridiagonal; slab 1: diagonals 0 and +3 (two empty ones between); slab 2 (88
    // rows): empty rows.
    const index_type n = 2 * bdia_slab + 88;
    std::vector<std::vector<std::pair<index_type, double>>> rows(n);
    for (index_type i = 0; i < bdia_slab; ++i) {
        if (i > 0) rows[i].push_back({i - 1, -1.0});
        rows[i].push_back({i, 2.0 + i});
        rows[i].push_back({i + 1, -1.0});
    }
    for (index_type i = bdia_slab; i < 2 * bdia_slab; ++i) rows[i] = {{i, 1.0}, {i + 3, 0.5 * i}};
    const auto m = from_rows(n, rows);
    const auto exec = Executor::create_cpu();
    std::mt19937 rng(31);
    const auto x = test::random_vector<double>(n, rng);
    const auto y = test::random_vector<double>(n, rng);
    const auto check_spmv = [&](const Bdia<double>& b) {
        std::vector<double> result = y;
        kernels::cpu::bdia_spmv(*exec, b, 2.0, x.data(), -1.0, result.data(), bdia_default_shared_bytes);
        EXPECT_LE(test::relative_max_error(result, test::dense_reference(m, 2.0, x, -1.0, y)), 1e-15);
    };

    // A gap of two empty diagonals stays inside the band (the default gap).
    const auto b = convert_to_bdia(test::to_csr(m, exec), 0);
    EXPECT_EQ(b.slabs(), 3);
    EXPECT_EQ(b.band_ptr.to_host(), (std::vector<index_type>{0, 1, 2, 2}));
    EXPECT_EQ(b.band_offset.to_host(), (std::vector<index_type>{-1, 0}));
    EXPECT_EQ(b.band_width.to_host(), (std::vector<index_type>{3, 4}));
    EXPECT_EQ(b.slab_ptr.to_host(),
              (std::vector<std::int64_t>{0, 3 * bdia_slab, 7 * bdia_slab, 7 * bdia_slab}));
    EXPECT_EQ(b.half_bandwidth, 3);
    EXPECT_EQ(b.max_width, 4);
    EXPECT_EQ(b.max_bands, 1);
    const auto values = b.values.to_host();
    EXPECT_EQ(values[0 * bdia_slab + 0], 0.0);  // A(0, -1): outside the matrix
    EXPECT_EQ(values[1 * bdia_slab + 7], 9.0);  // A(7, 7)
    EXPECT_EQ(values[3 * bdia_slab + 3 * bdia_slab + 5], 0.5 * (bdia_slab + 5));  // A(261, 264)
    EXPECT_EQ(values[3 * bdia_slab + 1 * bdia_slab + 5], 0.0);  // A(261, 262) not stored
    check_spmv(b);

    // With gap 1 slab 1 keeps two bands of one diagonal each.
    const auto split = convert_to_bdia(test::to_csr(m, exec), 0, 1);
    EXPECT_EQ(split.band_ptr.to_host(), (std::vector<index_type>{0, 1, 3, 3}));
    EXPECT_EQ(split.band_offset.to_host(), (std::vector<index_type>{-1, 0, 3}));
    EXPECT_EQ(split.band_width.to_host(), (std::vector<index_type>{3, 1, 1}));
    EXPECT_EQ(split.slab_ptr.to_host(),
              (std::vector<std::int64_t>{0, 3 * bdia_slab, 5 * bdia_slab, 5 * bdia_slab}));
    EXPECT_EQ(split.max_width, 3);
    EXPECT_EQ(split.max_bands, 2);
    EXPECT_EQ(split.max_window, 2 * (bdia_slab - 1) + 2);
    const auto split_values = split.values.to_host();
    EXPECT_EQ(split_values[3 * bdia_slab + 5], 1.0);                                // A(261, 261)
    EXPECT_EQ(split_values[3 * bdia_slab + bdia_slab + 5], 0.5 * (bdia_slab + 5));  // A(261, 264)
    check_spmv(split);
}

TEST(Bdia, A3DGridNumberedByLinesStoresItsStencilsDiagonalsInNineBands)
{
    std::mt19937 rng(36);
    const index_type nx = 12, ny = 11, nz = 10;  // 1320 rows: 5 full slabs and one of 40 rows
    const auto grid = test::natural_stencil<double>(nx, ny, nz, 1, rng, 10.0);
    const auto exec = Executor::create_cpu();
    const auto b = convert_to_bdia(test::to_csr(grid, exec), 0);
    // Every slab but the last holds rows of a plane with planes above and below: all 27
    // diagonals, runs of three nx - 3 apart; the last one, rows of the top plane only, six.
    EXPECT_EQ(b.max_width, 27);
    EXPECT_EQ(b.max_bands, 9);
    const auto band_ptr = b.band_ptr.to_host();
    const auto offsets = b.band_offset.to_host();
    const auto widths = b.band_width.to_host();
    std::vector<index_type> expected;
    for (int dz = -1; dz <= 1; ++dz)
        for (int dy = -1; dy <= 1; ++dy) expected.push_back(dz * nx * ny + dy * nx - 1);
    for (index_type s = 0; s < b.slabs(); ++s) {
        const int bands = s + 1 < b.slabs() ? 9 : 6;
        ASSERT_EQ(band_ptr[s + 1] - band_ptr[s], bands) << "slab " << s;
        for (int k = 0; k < bands; ++k) {
            EXPECT_EQ(offsets[band_ptr[s] + k], expected[k]) << "slab " << s;
            EXPECT_EQ(widths[band_ptr[s] + k], 3) << "slab " << s;
        }
    }
    // The format keeps the numbering without trying RCM; a gap of nx - 3 joins the runs of a
    // plane into one band.
    const auto f = build_bdia_format(test::to_csr(grid, exec), BdiaOptions{});
    EXPECT_TRUE(f.permutation.empty());
    EXPECT_NE(f.host_steps.find("reverse Cuthill-McKee not tried"), std::string::npos) << f.host_steps;
    EXPECT_NE(f.op->parameters().find(" width=27 "), std::string::npos) << f.op->parameters();
    EXPECT_NE(f.op->parameters().find(" bands=9 "), std::string::npos) << f.op->parameters();
    const auto joined = convert_to_bdia(test::to_csr(grid, exec), 0, nx - 3);
    EXPECT_EQ(joined.max_bands, 3);
    EXPECT_EQ(joined.max_width, 3 * (2 * nx + 3));
    EXPECT_FALSE(check_format_spmv("natural-3d-grid", grid, rng));
}

TEST(Bdia, ASlabOfMoreDiagonalsThanItListsIsOneBand)
{
    // Slab 0's rows have 8 random columns each over 4,000: far more than
    // bdia_listed_diagonals distinct diagonals; slab 1 is the identity.
    std::mt19937 rng(37);
    const index_type n = 4000;
    std::uniform_int_distribution<index_type> column(0, n - 1);
    std::vector<std::vector<std::pair<index_type, double>>> rows(n);
    index_type lo = n, hi = -n;
    for (index_type i = 0; i < n; ++i) {
        std::vector<index_type> cols{i};
        if (i < bdia_slab)
            for (int k = 0; k < 8; ++k) cols.push_back(column(rng));
        std::sort(cols.begin(), cols.end());
        cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
        for (const index_type c : cols) rows[i].push_back({c, 1.0 + 0.001 * c});
        if (i < bdia_slab) lo = std::min(lo, cols.front() - i), hi = std::max(hi, cols.back() - i);
    }
    const auto m = from_rows(n, rows);
    const auto exec = Executor::create_cpu();
    const auto b = convert_to_bdia(test::to_csr(m, exec), 0);
    const auto band_ptr = b.band_ptr.to_host();
    EXPECT_EQ(band_ptr[1], 1);
    EXPECT_EQ(b.band_offset.to_host()[0], lo);
    EXPECT_EQ(b.band_width.to_host()[0], hi - lo + 1);
    EXPECT_EQ(band_ptr[2], 2);  // slab 1: the main diagonal alone
    EXPECT_EQ(b.band_offset.to_host()[1], 0);
    EXPECT_EQ(b.band_width.to_host()[1], 1);
    EXPECT_EQ(b.max_width, hi - lo + 1);
    const auto x = test::random_vector<double>(n, rng);
    std::vector<double> result(n);
    kernels::cpu::bdia_spmv(*exec, b, 1.0, x.data(), 0.0, result.data(), bdia_default_shared_bytes);
    EXPECT_LE(test::relative_max_error(result, test::dense_reference(m, 1.0, x, 0.0, x)), 1e-14);
}

TEST(Bdia, SpmvEqualsCsrOnFeLikeMatrices)
{
    std::mt19937 rng(32);
    EXPECT_TRUE(check_format_spmv("2d-q1-like", test::shuffled_stencil<double>(37, 23, 1, 1, rng, 10.0), rng));
    check_format_spmv("2d-q1-like", test::shuffled_stencil<float>(29, 31, 1, 1, rng, 10.0), rng);
    check_format_spmv("2d-q2-like", test::shuffled_stencil<double>(19, 17, 1, 2, rng, 10.0), rng);
    check_format_spmv("2d-q2-like", test::shuffled_stencil<float>(13, 21, 1, 2, rng, 10.0), rng);
    check_format_spmv("3d-q1-like", test::shuffled_stencil<double>(9, 8, 7, 1, rng, 10.0), rng);
    check_format_spmv("3d-q1-like", test::shuffled_stencil<float>(7, 6, 11, 1, rng, 10.0), rng);
}

TEST(Bdia, SpmvEqualsCsrOnRandomBandedMatrices)
{
    std::mt19937 rng(33);
    check_format_spmv("one-row", random_banded<double>(1, 0, 0, 1.0, rng), rng);
    check_format_spmv("tridiagonal-255", random_banded<double>(255, 1, 1, 1.0, rng), rng);
    check_format_spmv("skewed-257", random_banded<float>(257, 7, 2, 0.5, rng), rng);
    check_format_spmv("banded-empty-rows", random_banded<double>(1001, 20, 20, 0.3, rng, 7), rng);
    check_format_spmv("banded-empty-rows", random_banded<float>(3001, 12, 30, 0.2, rng, 13), rng);
    // No band structure at all: random rows with empty ones, and a few very long rows.
    check_format_spmv("random-lengths", test::random_csr<double>(777, 777, 10, rng), rng);
    check_format_spmv("long-rows", test::random_csr<float>(1201, 1201, 5, rng, 299, 900), rng);
}

TEST(Bdia, KeepsTheMatrixNumberingWhenItsBandIsNotLarger)
{
    std::mt19937 rng(35);
    // A 9-point grid numbered row by row: half bandwidth nx + 1, where RCM's L-shaped level
    // sets give about 2 nx.
    HostCsr<double> grid;
    const index_type nx = 40, ny = 30;
    grid.rows = grid.cols = nx * ny;
    grid.ptr.push_back(0);
    for (index_type y = 0; y < ny; ++y)
        for (index_type x = 0; x < nx; ++x) {
            for (int dy = -1; dy <= 1; ++dy)
                for (int dx = -1; dx <= 1; ++dx)
                    if (x + dx >= 0 && x + dx < nx && y + dy >= 0 && y + dy < ny) {
                        grid.col.push_back((y + dy) * nx + x + dx);
                        grid.val.push_back(dx == 0 && dy == 0 ? 8.0 : -1.0);
                    }
            grid.ptr.push_back(static_cast<index_type>(grid.col.size()));
        }
    EXPECT_FALSE(check_format_spmv("natural-grid", grid, rng));
    EXPECT_FALSE(check_format_spmv("tridiagonal", random_banded<float>(1000, 1, 1, 1.0, rng), rng));
}

/// The product fused with the dot: the same y as the product, and each slab's sum of x_i y_i
/// added in row order; then CG's direction fused with the product.
template <typename V>
void check_fused_dot(const std::string& name, const HostCsr<V>& m, std::mt19937& rng)
{
    SCOPED_TRACE(name + " " + precision_name<V>());
    const auto exec = Executor::create_cpu();
    const auto f = build_bdia_format(test::to_csr(m, exec), BdiaOptions{});
    const std::size_t slabs = (static_cast<std::size_t>(m.rows) + bdia_slab - 1) / bdia_slab;
    ASSERT_EQ(f.op->dot_partials(), slabs);
    const auto x = Array<V>::from_host(exec, test::random_vector<V>(m.rows, rng));
    Array<V> y(exec, m.rows), y_fused(exec, m.rows);
    f.op->apply(x, y);
    std::vector<double> partials(slabs, std::numeric_limits<double>::quiet_NaN());
    f.op->apply_with_dot(x, y_fused, partials.data());
    EXPECT_EQ(y_fused.to_host(), y.to_host());
    const auto xs = x.to_host();
    const auto ys = y.to_host();
    for (std::size_t s = 0; s < slabs; ++s) {
        double expected = 0;
        for (std::size_t i = s * bdia_slab; i < std::min<std::size_t>(xs.size(), (s + 1) * bdia_slab); ++i)
            expected += double(xs[i]) * double(ys[i]);
        EXPECT_EQ(partials[s], expected) << "slab " << s;
    }
    test::expect_cg_direction(*f.op, xs, bdia_slab, 0, rng);
}

TEST(Bdia, TheProductFusedWithTheDotOrTheDirectionGivesTheProductAndEachSlabsSum)
{
    std::mt19937 rng(test::random_seed());
    check_fused_dot("3d-natural", test::natural_stencil<double>(13, 12, 11, 1, rng, 10.0), rng);
    check_fused_dot("3d-natural", test::natural_stencil<float>(9, 10, 11, 1, rng, 10.0), rng);
    check_fused_dot("one-row", random_banded<double>(1, 0, 0, 1.0, rng), rng);
    check_fused_dot("banded-empty-rows", random_banded<double>(1001, 20, 20, 0.3, rng, 7), rng);
    check_fused_dot("random-lengths", test::random_csr<double>(777, 777, 10, rng), rng);
    // A format without the fused product says so.
    const auto exec = Executor::create_cpu();
    const auto csr = build_format<double>("csr", test::to_csr(random_banded<double>(50, 1, 1, 1.0, rng), exec), {});
    EXPECT_EQ(csr.op->dot_partials(), 0u);
}

TEST(Bdia, TheFloatCopyHasTheSameBandsWithRoundedValues)
{
    std::mt19937 rng(38);
    const auto grid = test::natural_stencil<double>(20, 9, 7, 1, rng, 10.0);
    const auto exec = Executor::create_cpu();
    const auto f = build_bdia_format(test::to_csr(grid, exec), BdiaOptions{});
    const std::unique_ptr<LinearOperator<float>> copy = float_copy_of(*f.op);
    ASSERT_TRUE(copy);
    EXPECT_EQ(copy->format(), "bdia");
    EXPECT_EQ(copy->rows(), f.op->rows());
    EXPECT_EQ(copy->diagonal().size(), f.op->diagonal().size());
    // Values in half the bytes, the same bands (the parameters but the byte count agree).
    const std::string params = f.op->parameters(), copy_params = copy->parameters();
    EXPECT_EQ(copy_params.substr(copy_params.find(" mean_width=")), params.substr(params.find(" mean_width=")));
    ASSERT_TRUE(f.permutation.empty());
    const std::size_t stored = convert_to_bdia(test::to_csr(grid, exec), 0).values.size();
    EXPECT_EQ(f.op->bytes_stored() - copy->bytes_stored(), stored * (sizeof(double) - sizeof(float)));
    // Its product is that of the rounded matrix (the bands' zeros add nothing).
    HostCsr<float> rounded{grid.rows, grid.cols, grid.ptr, grid.col, std::vector<float>(grid.val.begin(), grid.val.end())};
    const auto x = test::random_vector<float>(grid.rows, rng);
    Array<float> y(exec, static_cast<std::size_t>(grid.rows));
    copy->apply(Array<float>::from_host(exec, x), y);
    EXPECT_LE(test::relative_max_error(y.to_host(), test::dense_reference(rounded, 1.0f, x, 0.0f, x)), 1e-6);
}

TEST(Bdia, EmptyMatrix)
{
    const auto exec = Executor::create_cpu();
    Csr<double> empty{0, 0, Array<index_type>::from_host(exec, std::vector<index_type>{0}),
                      Array<index_type>(exec, 0), Array<double>(exec, 0)};
    const auto f = build_bdia_format(std::move(empty), BdiaOptions{});
    EXPECT_EQ(f.op->rows(), 0);
    Array<double> x(exec, 0), y(exec, 0);
    f.op->apply(x, y);
}

TEST(Bdia, RefusesWhenTheBandExceedsTheLimit)
{
    std::mt19937 rng(34);
    const auto m = test::shuffled_stencil<double>(30, 30, 1, 1, rng, 10.0);
    const auto exec = Executor::create_cpu();
    BdiaOptions options;
    options.max_bytes = 64 * 1024;
    try {
        build_bdia_format(test::to_csr(m, exec), options);
        FAIL() << "expected std::invalid_argument";
    } catch (const std::invalid_argument& e) {
        const std::string what = e.what();
        EXPECT_EQ(what.rfind("format 'bdia': band of half width ", 0), 0u) << what;
        EXPECT_NE(what.find(" needs "), std::string::npos) << what;
        EXPECT_NE(what.find("KiB"), std::string::npos) << what;
        EXPECT_NE(what.find("bdia.max_bytes"), std::string::npos) << what;
    }
    // A limit just large enough is accepted.
    options.max_bytes = 0;
    const auto f = build_bdia_format(test::to_csr(m, exec), options);
    options.max_bytes = f.op->bytes_stored();
    EXPECT_NO_THROW(build_bdia_format(test::to_csr(m, exec), options));

    Csr<double> rectangular = test::to_csr(test::random_csr<double>(5, 7, 3, rng), exec);
    EXPECT_THROW(build_bdia_format(std::move(rectangular), BdiaOptions{}), std::invalid_argument);
}

}  // namespace
}  // namespace gpufem
