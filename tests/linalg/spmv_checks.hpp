#pragma once
// The checks the format tests share: random matrices with the x and y to multiply, one product
// against the long-double reference or against the CPU's, and beta = 0 ignoring y.
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <random>
#include <vector>

#include "linalg/linear_operator.hpp"
#include "random_csr.hpp"

namespace gpufem::test {

/// A random matrix as random_csr makes it: rows, cols, the longest row, every how many rows a
/// long row comes (0: none) and its length.
struct RandomSize {
    index_type rows = 0, cols = 0;
    int max_len = 0, long_every = 0, long_len = 0;
};

/// A matrix with the x and y of y = alpha A x + beta y.
template <typename V>
struct SpmvCase {
    HostCsr<V> m;
    std::vector<V> x, y;
};

/// The matrix of `size`, then x (cols) and y (rows), drawn from rng in that order.
template <typename V>
SpmvCase<V> random_spmv_case(const RandomSize& size, std::mt19937& rng)
{
    SpmvCase<V> c;
    c.m = random_csr<V>(size.rows, size.cols, size.max_len, rng, size.long_every, size.long_len);
    c.x = random_vector<V>(static_cast<std::size_t>(size.cols), rng);
    c.y = random_vector<V>(static_cast<std::size_t>(size.rows), rng);
    return c;
}

/// The sizes the device's SpMVs are checked on against the CPU's: one entry, sizes that are
/// not multiples of a block, rows of 2000 entries, and 200003 rows.
inline const std::vector<RandomSize> device_spmv_sizes{
    {1, 1, 1}, {1001, 999, 12}, {33333, 40000, 30, 5000, 2000}, {200003, 200003, 27}};

/// y = alpha A x + beta y through op (in its own numbering) from host x and y.
template <typename V>
std::vector<V> apply_operator(const LinearOperator<V>& op, V alpha, const std::vector<V>& x, V beta,
                              const std::vector<V>& y)
{
    const auto xa = Array<V>::from_host(op.executor(), x);
    auto ya = Array<V>::from_host(op.executor(), y);
    op.apply(alpha, xa, beta, ya);
    return ya.to_host();
}

/// alpha A x + beta y through op against the long-double reference of m (relative_max_error).
template <typename V>
double reference_error(const LinearOperator<V>& op, const HostCsr<V>& m, V alpha, const std::vector<V>& x,
                       V beta, const std::vector<V>& y)
{
    return relative_max_error(apply_operator(op, alpha, x, beta, y), dense_reference(m, alpha, x, beta, y));
}

/// alpha A x + beta y through a device operator against the same through a CPU one
/// (relative_max_error).
template <typename V>
double device_error(const LinearOperator<V>& on_cpu, const LinearOperator<V>& on_device, V alpha,
                    const std::vector<V>& x, V beta, const std::vector<V>& y)
{
    return relative_max_error(apply_operator(on_device, alpha, x, beta, y),
                              apply_operator(on_cpu, alpha, x, beta, y));
}

/// y = A x into a y full of NaN (beta = 0 must ignore y): how many NaN come out.
template <typename V>
std::size_t nans_in_product(const LinearOperator<V>& op, const std::vector<V>& x)
{
    const std::vector<V> nan_y(static_cast<std::size_t>(op.rows()), std::nan(""));
    const auto xa = Array<V>::from_host(op.executor(), x);
    auto y = Array<V>::from_host(op.executor(), nan_y);
    op.apply(xa, y);
    std::size_t nans = 0;
    for (V v : y.to_host()) nans += std::isnan(v) ? 1 : 0;
    return nans;
}

/// The product fused with the dot through op (its own numbering, a square matrix): y, and
/// the dot_partials() partial sums of x_i y_i, both read back to the host.
template <typename V>
std::pair<std::vector<V>, std::vector<double>> fused_product(const LinearOperator<V>& op, const std::vector<V>& x)
{
    const auto xa = Array<V>::from_host(op.executor(), x);
    Array<V> y(op.executor(), x.size());
    auto partials = Array<double>::from_host(op.executor(),
                                             std::vector<double>(op.dot_partials(), std::nan("")));
    op.apply_with_dot(xa, y, partials.data());
    return {y.to_host(), partials.to_host()};
}

/// Partial sums of x_i y_i in blocks of `rows` rows against the row-order sums: exact on the
/// cpu, within tolerance times the sum of |x_i| (max |y| + |y_i|) of the block on a device
/// (whose reductions are trees).
template <typename V>
void expect_block_sums(const LinearOperator<V>& op, const std::vector<double>& partials, const std::vector<V>& x,
                       const std::vector<V>& y, index_type rows, double tolerance)
{
    const std::size_t n = x.size(), block = static_cast<std::size_t>(rows);
    ASSERT_EQ(partials.size(), (n + block - 1) / block);
    double y_max = 0;
    for (V v : y) y_max = std::max(y_max, std::abs(double(v)));
    for (std::size_t k = 0; k < partials.size(); ++k) {
        double expected = 0, magnitude = 0;
        for (std::size_t i = k * block; i < std::min(n, (k + 1) * block); ++i) {
            expected += double(x[i]) * double(y[i]);
            magnitude += std::abs(double(x[i])) * (y_max + std::abs(double(y[i])));
        }
        if (op.executor()->is_cuda())
            EXPECT_LE(std::abs(partials[k] - expected), tolerance * magnitude) << "block " << k;
        else
            EXPECT_EQ(partials[k], expected) << "block " << k;
    }
}

/// The fused product against op's own: the same y bit for bit, and partials that add up, in
/// blocks of `rows` rows, to the row-order sums of x_i y_i (as expect_block_sums).
template <typename V>
void expect_fused_dot(const LinearOperator<V>& op, const std::vector<V>& x, index_type rows, double tolerance)
{
    const auto [y, partials] = fused_product(op, x);
    const std::vector<V> nan_y(x.size(), std::nan(""));
    const auto y_own = apply_operator(op, V(1), x, V(0), nan_y);
    EXPECT_EQ(y, y_own);
    expect_block_sums(op, partials, x, y, rows, tolerance);
}

/// Entries of got that differ from a + b (by more than two roundings of |a| + |b|).
template <typename V>
std::size_t sums_missed(const std::vector<V>& got, const std::vector<V>& a, const std::vector<V>& b)
{
    std::size_t missed = 0;
    const double eps = std::numeric_limits<V>::epsilon();
    for (std::size_t i = 0; i < got.size(); ++i) {
        const double expected = double(a[i]) + double(b[i]);
        missed += std::abs(double(got[i]) - expected) <= 2 * eps * (std::abs(double(a[i])) + std::abs(double(b[i])))
                      ? 0 : 1;
    }
    return missed;
}

/// CG's direction fused with the product through op (square, its own numbering), with beta 0
/// (p and q full of NaN, which it must ignore) and a random beta: p = z + beta p_old and q =
/// A z + beta q_old (A z op's own product) within roundings, and partials that add up, in
/// blocks of `rows` rows, to the sums of p_i q_i (as expect_block_sums).
template <typename V>
void expect_cg_direction(const LinearOperator<V>& op, const std::vector<V>& z, index_type rows, double tolerance,
                         std::mt19937& rng)
{
    const ExecPtr& exec = op.executor();
    const std::size_t n = z.size();
    const std::vector<V> nan_y(n, std::nan(""));
    const std::vector<V> product = apply_operator(op, V(1), z, V(0), nan_y);
    for (const double beta : {0.0, std::uniform_real_distribution<double>(0.1, 0.9)(rng)}) {
        SCOPED_TRACE("beta " + std::to_string(beta));
        const std::vector<V> p_old = beta == 0 ? nan_y : random_vector<V>(n, rng);
        const std::vector<V> q_old = beta == 0 ? nan_y : random_vector<V>(n, rng);
        auto p_dev = Array<V>::from_host(exec, p_old), q_dev = Array<V>::from_host(exec, q_old);
        const auto beta_dev = Array<double>::from_host(exec, std::vector<double>{beta});
        auto partials = Array<double>::from_host(exec, std::vector<double>(op.dot_partials(), std::nan("")));
        op.apply_cg_direction(Array<V>::from_host(exec, z), beta_dev.data(), p_dev, q_dev, partials.data());
        const std::vector<V> p = p_dev.to_host(), q = q_dev.to_host();
        std::vector<V> beta_p(n, V(0)), beta_q(n, V(0));
        if (beta != 0)
            for (std::size_t i = 0; i < n; ++i) {
                beta_p[i] = static_cast<V>(beta) * p_old[i];
                beta_q[i] = static_cast<V>(beta) * q_old[i];
            }
        EXPECT_EQ(sums_missed(p, z, beta_p), 0u) << "p = z + beta p";
        EXPECT_EQ(sums_missed(q, product, beta_q), 0u) << "q = A z + beta q";
        expect_block_sums(op, partials.to_host(), p, q, rows, tolerance);
    }
}

/// A rows x cols matrix with nothing stored.
template <typename V>
HostCsr<V> empty_csr(index_type rows, index_type cols)
{
    HostCsr<V> m;
    m.rows = rows;
    m.cols = cols;
    m.ptr.assign(static_cast<std::size_t>(rows) + 1, 0);
    return m;
}

}  // namespace gpufem::test
