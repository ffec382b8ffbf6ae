#pragma once
// Random test data for linalg tests: vectors and CSR matrices with chosen row lengths.
#include <algorithm>
#include <numeric>
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

/// Grid stencil of radius r on nx x ny x nz nodes (an FE-like pattern: the coupling of Q1
/// elements for r = 1, Q2-like for r = 2), numbered by lines and planes or shuffled, random
/// values in [-1, 1], each diagonal entry shifted by `diagonal` (10: a dominant diagonal).
template <typename V>
HostCsr<V> grid_stencil(index_type nx, index_type ny, index_type nz, int r, std::mt19937& rng, double diagonal,
                        bool shuffled)
{
    const index_type n = nx * ny * nz;
    std::vector<index_type> label(n);
    std::iota(label.begin(), label.end(), 0);
    if (shuffled) std::shuffle(label.begin(), label.end(), rng);
    std::vector<std::vector<index_type>> cols(n);
    for (index_type z = 0; z < nz; ++z)
        for (index_type y = 0; y < ny; ++y)
            for (index_type x = 0; x < nx; ++x)
                for (int dz = (nz > 1 ? -r : 0); dz <= (nz > 1 ? r : 0); ++dz)
                    for (int dy = -r; dy <= r; ++dy)
                        for (int dx = -r; dx <= r; ++dx) {
                            const index_type X = x + dx, Y = y + dy, Z = z + dz;
                            if (X < 0 || Y < 0 || Z < 0 || X >= nx || Y >= ny || Z >= nz) continue;
                            cols[label[(z * ny + y) * nx + x]].push_back(label[(Z * ny + Y) * nx + X]);
                        }
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    HostCsr<V> m;
    m.rows = m.cols = n;
    m.ptr.push_back(0);
    for (index_type i = 0; i < n; ++i) {
        std::sort(cols[i].begin(), cols[i].end());
        for (index_type c : cols[i]) {
            m.col.push_back(c);
            m.val.push_back(static_cast<V>(c == i ? diagonal + dist(rng) : dist(rng)));
        }
        m.ptr.push_back(static_cast<index_type>(m.col.size()));
    }
    return m;
}

/// grid_stencil with shuffled numbering.
template <typename V>
HostCsr<V> shuffled_stencil(index_type nx, index_type ny, index_type nz, int r, std::mt19937& rng,
                            double diagonal = 0.0)
{
    return grid_stencil<V>(nx, ny, nz, r, rng, diagonal, true);
}

/// grid_stencil numbered by lines and planes.
template <typename V>
HostCsr<V> natural_stencil(index_type nx, index_type ny, index_type nz, int r, std::mt19937& rng,
                           double diagonal = 0.0)
{
    return grid_stencil<V>(nx, ny, nz, r, rng, diagonal, false);
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
