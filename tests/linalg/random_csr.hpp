#pragma once
// Random test data for linalg tests: vectors and CSR matrices with chosen row lengths.
#include <algorithm>
#include <random>
#include <vector>

#include "linalg/csr.hpp"

namespace gpufem::test {

/// Uniform values in [-1, 1].
template <typename V>
std::vector<V> random_vector(std::size_t n, std::mt19937& rng)
{
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    std::vector<V> v(n);
    for (auto& x : v) x = static_cast<V>(dist(rng));
    return v;
}

/// Host CSR arrays.
template <typename V>
struct HostCsr {
    index_type rows = 0, cols = 0;
    std::vector<index_type> ptr, col;
    std::vector<V> val;
};

/// Random CSR: row i has a random length in [0, max_len] (empty rows included), a few rows
/// (every long_every-th, if > 0) have long_len entries; distinct sorted columns.
template <typename V>
HostCsr<V> random_csr(index_type rows, index_type cols, int max_len, std::mt19937& rng,
                      int long_every = 0, int long_len = 0)
{
    HostCsr<V> m;
    m.rows = rows;
    m.cols = cols;
    m.ptr.push_back(0);
    std::uniform_int_distribution<int> len_dist(0, max_len);
    std::uniform_int_distribution<index_type> col_dist(0, cols - 1);
    std::uniform_real_distribution<double> val_dist(-1.0, 1.0);
    for (index_type i = 0; i < rows; ++i) {
        int len = len_dist(rng);
        if (long_every > 0 && i % long_every == 0) len = long_len;
        len = std::min<int>(len, cols);
        std::vector<index_type> c;
        while (static_cast<int>(c.size()) < len) {
            c.push_back(col_dist(rng));
            std::sort(c.begin(), c.end());
            c.erase(std::unique(c.begin(), c.end()), c.end());
        }
        for (index_type j : c) {
            m.col.push_back(j);
            m.val.push_back(static_cast<V>(val_dist(rng)));
        }
        m.ptr.push_back(static_cast<index_type>(m.col.size()));
    }
    return m;
}

/// Uploads host arrays as a Csr on exec.
template <typename V>
Csr<V> to_csr(const HostCsr<V>& m, const ExecPtr& exec)
{
    return Csr<V>{m.rows, m.cols, Array<index_type>::from_host(exec, m.ptr),
                  Array<index_type>::from_host(exec, m.col), Array<V>::from_host(exec, m.val)};
}

/// Uploads host arrays as a Csr with 64-bit row offsets on exec.
template <typename V>
WideCsr<V> to_wide_csr(const HostCsr<V>& m, const ExecPtr& exec)
{
    return WideCsr<V>{m.rows, m.cols,
                      Array<wide_offset_type>::from_host(exec, std::vector<wide_offset_type>(m.ptr.begin(), m.ptr.end())),
                      Array<index_type>::from_host(exec, m.col), Array<V>::from_host(exec, m.val)};
}

/// y = alpha A x + beta y in long double, the oracle.
template <typename V>
std::vector<long double> dense_reference(const HostCsr<V>& m, V alpha, const std::vector<V>& x, V beta,
                                         const std::vector<V>& y)
{
    std::vector<long double> out(m.rows);
    for (index_type i = 0; i < m.rows; ++i) {
        long double s = 0;
        for (index_type k = m.ptr[i]; k < m.ptr[i + 1]; ++k) s += (long double)m.val[k] * x[m.col[k]];
        out[i] = alpha * s + (beta == V(0) ? 0.0L : (long double)beta * y[i]);
    }
    return out;
}

/// max_i |a_i - b_i| / max(1, max_i |b_i|)
template <typename A, typename B>
double relative_max_error(const std::vector<A>& a, const std::vector<B>& b)
{
    long double diff = 0, scale = 1;
    for (std::size_t i = 0; i < a.size(); ++i) {
        diff = std::max<long double>(diff, std::abs((long double)a[i] - (long double)b[i]));
        scale = std::max<long double>(scale, std::abs((long double)b[i]));
    }
    return static_cast<double>(diff / scale);
}

}  // namespace gpufem::test
