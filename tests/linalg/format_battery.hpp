#pragma once
// The matrices every format is checked on, and a format-independent way to apply a format
// (undoing the renumbering of bdia / staircase) so results compare with CSR's.
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "linalg/format_build.hpp"
#include "linalg/reordering.hpp"
#include "random_csr.hpp"

namespace gpufem::test {

/// A named test matrix.
template <typename V>
struct BatteryMatrix {
    std::string name;
    HostCsr<V> csr;
};

/// Symmetric-pattern stencil matrix on an n^dim grid with stencil radius r (r = 1: the Q1
/// coupling, 9 / 27 entries per row; r = 2: like Q2, 25 / 125), random values, optionally
/// with the grid nodes shuffled (an unstructured numbering).
template <typename V>
HostCsr<V> stencil_matrix(int dim, int n, int r, bool shuffle, std::mt19937& rng)
{
    const index_type rows = dim == 2 ? n * n : n * n * n;
    std::vector<index_type> label(rows);
    std::iota(label.begin(), label.end(), 0);
    if (shuffle) std::shuffle(label.begin(), label.end(), rng);
    std::vector<index_type> inverse(rows);
    for (index_type i = 0; i < rows; ++i) inverse[label[i]] = i;
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    HostCsr<V> m;
    m.rows = m.cols = rows;
    m.ptr.push_back(0);
    for (index_type new_row = 0; new_row < rows; ++new_row) {
        const index_type old = inverse[new_row];
        const int i = old % n, j = (old / n) % n, k = dim == 3 ? old / (n * n) : 0;
        std::vector<index_type> cols;
        for (int dk = (dim == 3 ? -r : 0); dk <= (dim == 3 ? r : 0); ++dk)
            for (int dj = -r; dj <= r; ++dj)
                for (int di = -r; di <= r; ++di) {
                    const int ii = i + di, jj = j + dj, kk = k + dk;
                    if (ii < 0 || jj < 0 || kk < 0 || ii >= n || jj >= n || kk >= (dim == 3 ? n : 1)) continue;
                    cols.push_back(label[ii + n * (jj + n * kk)]);
                }
        std::sort(cols.begin(), cols.end());
        for (index_type c : cols) {
            m.col.push_back(c);
            m.val.push_back(static_cast<V>(c == new_row ? 10.0 + dist(rng) : dist(rng)));
        }
        m.ptr.push_back(static_cast<index_type>(m.col.size()));
    }
    return m;
}

/// FE-like stencils in 2D and 3D, random row lengths with empty rows, a few very long rows
/// (like dc1), sizes that are not multiples of any slice or block.
template <typename V>
std::vector<BatteryMatrix<V>> format_battery(std::mt19937& rng, bool large = false)
{
    std::vector<BatteryMatrix<V>> b;
    const int s = large ? 3 : 1;
    b.push_back({"2d-q1-like", stencil_matrix<V>(2, 37 * s, 1, false, rng)});
    b.push_back({"2d-q2-like-shuffled", stencil_matrix<V>(2, 23 * s, 2, true, rng)});
    b.push_back({"3d-q1-like", stencil_matrix<V>(3, 11 * s, 1, false, rng)});
    b.push_back({"3d-q1-like-shuffled", stencil_matrix<V>(3, 9 * s, 1, true, rng)});
    b.push_back({"random-lengths-empty-rows", random_csr<V>(1001 * s, 1001 * s, 12, rng)});
    b.push_back({"long-rows", random_csr<V>(2999 * s, 2999 * s, 6, rng, 997, 2500)});
    b.push_back({"one-row", random_csr<V>(1, 1, 1, rng)});
    return b;
}

/// y = alpha A x + beta y through a built format, in the original numbering.
template <typename V>
std::vector<V> apply_format(const FormatBuild<V>& f, V alpha, const std::vector<V>& x, V beta,
                            const std::vector<V>& y)
{
    const ExecPtr& exec = f.op->executor();
    const auto xa = Array<V>::from_host(exec, x);
    auto ya = Array<V>::from_host(exec, y);
    apply_in_original_order(f, alpha, xa, beta, ya);
    return ya.to_host();
}

}  // namespace gpufem::test
