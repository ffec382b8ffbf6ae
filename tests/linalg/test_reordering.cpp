// Cuthill–McKee orders, half bandwidth, and symmetric permutation of CSR matrices (CPU).
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/cuthill_mckee_ordering.hpp>

#include "linalg/reordering.hpp"
#include "random_csr.hpp"
#include "random_values.hpp"

namespace gpufem {
namespace {

using test::HostCsr;

/// 5-point Laplacian of an nx x ny grid, row-major numbering.
HostCsr<double> grid_laplacian(index_type nx, index_type ny)
{
    HostCsr<double> m;
    m.rows = m.cols = nx * ny;
    m.ptr.push_back(0);
    for (index_type y = 0; y < ny; ++y) {
        for (index_type x = 0; x < nx; ++x) {
            const index_type i = y * nx + x;
            const auto add = [&](index_type j, double v) {
                m.col.push_back(j);
                m.val.push_back(v);
            };
            if (y > 0) add(i - nx, -1.0);
            if (x > 0) add(i - 1, -1.0);
            add(i, 4.0 + 0.01 * i);
            if (x + 1 < nx) add(i + 1, -1.0);
            if (y + 1 < ny) add(i + nx, -1.0);
            m.ptr.push_back(static_cast<index_type>(m.col.size()));
        }
    }
    return m;
}

/// B = P A P^T on the host, written independently of the library (dense map per row).
template <typename V>
HostCsr<V> permuted_copy(const HostCsr<V>& a, const std::vector<index_type>& perm)
{
    std::vector<index_type> inverse(perm.size());
    for (std::size_t i = 0; i < perm.size(); ++i) inverse[perm[i]] = static_cast<index_type>(i);
    HostCsr<V> b;
    b.rows = a.rows;
    b.cols = a.cols;
    b.ptr.push_back(0);
    for (index_type i = 0; i < a.rows; ++i) {
        std::vector<std::pair<index_type, V>> row;
        for (index_type k = a.ptr[perm[i]]; k < a.ptr[perm[i] + 1]; ++k)
            row.emplace_back(inverse[a.col[k]], a.val[k]);
        std::sort(row.begin(), row.end(), [](auto& l, auto& r) { return l.first < r.first; });
        for (auto& [c, v] : row) {
            b.col.push_back(c);
            b.val.push_back(v);
        }
        b.ptr.push_back(static_cast<index_type>(b.col.size()));
    }
    return b;
}

template <typename V>
HostCsr<V> to_host_csr(const Csr<V>& a)
{
    return HostCsr<V>{a.rows, a.cols, a.row_ptr.to_host(), a.col_idx.to_host(), a.values.to_host()};
}

/// Random symmetric relabelling of a matrix (to destroy its band).
template <typename V>
HostCsr<V> shuffled(const HostCsr<V>& a, std::mt19937& rng)
{
    std::vector<index_type> perm(a.rows);
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    return permuted_copy(a, perm);
}

bool is_permutation_of_n(const std::vector<index_type>& p, index_type n)
{
    if (p.size() != static_cast<std::size_t>(n)) return false;
    std::vector<char> seen(n, 0);
    for (index_type v : p) {
        if (v < 0 || v >= n || seen[v]) return false;
        seen[v] = 1;
    }
    return true;
}

template <typename V>
HostCsr<V> cast(const HostCsr<double>& m)
{
    HostCsr<V> r{m.rows, m.cols, m.ptr, m.col, {}};
    for (double v : m.val) r.val.push_back(static_cast<V>(v));
    return r;
}

/// Cuthill–McKee straight from Boost on an undirected adjacency_list of the symmetrised
/// pattern (edges inserted in sorted order), the oracle for the library's order.
std::vector<index_type> boost_reference_order(const HostCsr<double>& m)
{
    std::vector<std::pair<index_type, index_type>> edges;
    for (index_type i = 0; i < m.rows; ++i)
        for (index_type k = m.ptr[i]; k < m.ptr[i + 1]; ++k)
            if (m.col[k] != i) edges.emplace_back(std::min(i, m.col[k]), std::max(i, m.col[k]));
    std::sort(edges.begin(), edges.end());
    edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
    boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS> g(m.rows);
    for (auto [u, v] : edges) boost::add_edge(u, v, g);
    std::vector<std::size_t> order(m.rows);
    boost::cuthill_mckee_ordering(g, order.begin());
    return std::vector<index_type>(order.begin(), order.end());
}

TEST(Reordering, RcmReducesBandwidthOfShuffledGrid)
{
    std::mt19937 rng(11);
    const index_type nx = 37, ny = 23;
    const auto grid = shuffled(grid_laplacian(nx, ny), rng);
    const auto exec = Executor::create_cpu();
    const auto a = test::to_csr(grid, exec);
    const index_type before = half_bandwidth(a);
    EXPECT_GT(before, 5 * nx);

    const auto order = cuthill_mckee_order(grid.rows, grid.ptr, grid.col, true);
    ASSERT_TRUE(is_permutation_of_n(order, grid.rows));
    const auto b = permute_symmetric(a, Array<index_type>::from_host(exec, order));
    const index_type after = half_bandwidth(b);
    EXPECT_LE(after, std::min(nx, ny) + 2) << "before " << before;
    EXPECT_GE(after, std::min(nx, ny) - 1);
}

/// Vertex v of a as copies(v) consecutive rows with the same pattern: the copies of every
/// neighbour and of the vertex itself (as the nodes inside one edge or cell of a high-order
/// mesh); a Dirichlet-like row (diagonal only) keeps one copy. first: each vertex's first row.
HostCsr<double> with_copies(const HostCsr<double>& a, index_type (*copies)(index_type), std::vector<index_type>& first)
{
    HostCsr<double> m;
    first.assign(static_cast<std::size_t>(a.rows) + 1, 0);
    for (index_type v = 0; v < a.rows; ++v) first[v + 1] = first[v] + (a.ptr[v + 1] - a.ptr[v] > 1 ? copies(v) : 1);
    m.rows = m.cols = first[a.rows];
    m.ptr.push_back(0);
    for (index_type v = 0; v < a.rows; ++v)
        for (index_type c = first[v]; c < first[v + 1]; ++c) {
            for (index_type k = a.ptr[v]; k < a.ptr[v + 1]; ++k)
                for (index_type u = first[a.col[k]]; u < first[a.col[k] + 1]; ++u) {
                    m.col.push_back(u);
                    m.val.push_back(u == c ? 4.0 : -1.0);
                }
            m.ptr.push_back(static_cast<index_type>(m.col.size()));
        }
    return {m.rows, m.cols, m.ptr, m.col, m.val};
}

TEST(Reordering, RowsWithTheSamePatternAreOrderedAsOneVertexAndKeptTogether)
{
    // A shuffled grid (with some rows cut loose, as Dirichlet rows are) whose vertices are each
    // two to four rows with one pattern: its (reverse) Cuthill-McKee order is the grid's, each
    // vertex's rows together in their own order. (Ordered as a graph of all the rows, the
    // copies' degrees would change the order.)
    const unsigned seed = test::random_seed();
    std::mt19937 rng(seed);
    HostCsr<double> grid = shuffled(grid_laplacian(29, 17), rng);
    HostCsr<double> loose{grid.rows, grid.cols, {0}, {}, {}};
    for (index_type i = 0; i < grid.rows; ++i) {
        const bool cut = i % 41 == 0;  // a row alone on its diagonal, and out of its neighbours' rows
        for (index_type k = grid.ptr[i]; k < grid.ptr[i + 1]; ++k) {
            const index_type j = grid.col[k];
            if (j != i && (cut || j % 41 == 0)) continue;
            loose.col.push_back(j);
            loose.val.push_back(grid.val[k]);
        }
        loose.ptr.push_back(static_cast<index_type>(loose.col.size()));
    }
    std::vector<index_type> first;
    const HostCsr<double> copies = with_copies(loose, [](index_type v) { return 2 + v % 3; }, first);
    for (const bool reverse : {false, true}) {
        std::vector<index_type> expected;
        for (const index_type v : cuthill_mckee_order(loose.rows, loose.ptr, loose.col, false))
            for (index_type row = first[v]; row < first[v + 1]; ++row) expected.push_back(row);
        if (reverse) std::reverse(expected.begin(), expected.end());
        const std::vector<index_type> order = cuthill_mckee_order(copies.rows, copies.ptr, copies.col, reverse);
        ASSERT_TRUE(is_permutation_of_n(order, copies.rows));
        EXPECT_EQ(order, expected) << "seed " << seed << (reverse ? " reverse" : "");
    }
}

TEST(Reordering, ReverseFlagGivesTheReversedCuthillMcKeeOrder)
{
    std::mt19937 rng(12);
    const auto grid = shuffled(grid_laplacian(19, 14), rng);
    const auto cm = cuthill_mckee_order(grid.rows, grid.ptr, grid.col, false);
    auto rcm = cuthill_mckee_order(grid.rows, grid.ptr, grid.col, true);
    std::reverse(rcm.begin(), rcm.end());
    EXPECT_EQ(cm, rcm);
    EXPECT_EQ(cm, boost_reference_order(grid));
}

/// Two grids side by side (no coupling), isolated rows (diagonal only) and empty rows
/// scattered among them, all shuffled.
HostCsr<double> disconnected_matrix(std::mt19937& rng)
{
    const auto g1 = grid_laplacian(9, 7);
    const auto g2 = grid_laplacian(5, 12);
    const index_type extra = 17;  // isolated + empty rows
    HostCsr<double> m;
    m.rows = m.cols = g1.rows + g2.rows + extra;
    m.ptr.push_back(0);
    const auto append = [&](const HostCsr<double>& g, index_type i, index_type shift) {
        for (index_type k = g.ptr[i]; k < g.ptr[i + 1]; ++k) {
            m.col.push_back(g.col[k] + shift);
            m.val.push_back(g.val[k]);
        }
    };
    for (index_type i = 0; i < g1.rows; ++i) {
        append(g1, i, 0);
        m.ptr.push_back(static_cast<index_type>(m.col.size()));
    }
    for (index_type i = 0; i < g2.rows; ++i) {
        append(g2, i, g1.rows);
        m.ptr.push_back(static_cast<index_type>(m.col.size()));
    }
    for (index_type i = 0; i < extra; ++i) {
        const index_type row = g1.rows + g2.rows + i;
        if (i % 2 == 0) {  // isolated with a diagonal; odd ones stay empty
            m.col.push_back(row);
            m.val.push_back(1.0 + i);
        }
        m.ptr.push_back(static_cast<index_type>(m.col.size()));
    }
    return shuffled(m, rng);
}

TEST(Reordering, DisconnectedGraphsAndEmptyRows)
{
    std::mt19937 rng(13);
    const auto m = disconnected_matrix(rng);
    for (bool reverse : {false, true}) {
        const auto order = cuthill_mckee_order(m.rows, m.ptr, m.col, reverse);
        ASSERT_TRUE(is_permutation_of_n(order, m.rows));
    }
    // Same order as Boost on the whole graph (isolated vertices handled outside Boost).
    EXPECT_EQ(cuthill_mckee_order(m.rows, m.ptr, m.col, false), boost_reference_order(m));

    const auto exec = Executor::create_cpu();
    const auto order = cuthill_mckee_order(m.rows, m.ptr, m.col, true);
    const auto b = permute_symmetric(test::to_csr(m, exec), Array<index_type>::from_host(exec, order));
    EXPECT_LE(half_bandwidth(b), 9);
    const auto hb = to_host_csr(b);
    const auto ref = permuted_copy(m, order);
    EXPECT_EQ(hb.ptr, ref.ptr);
    EXPECT_EQ(hb.col, ref.col);
    EXPECT_EQ(hb.val, ref.val);
}

TEST(Reordering, EmptyAndTinyMatrices)
{
    using Ids = std::vector<index_type>;
    EXPECT_TRUE(cuthill_mckee_order(0, Ids{0}, Ids{}, true).empty());
    EXPECT_EQ(cuthill_mckee_order(1, Ids{0, 0}, Ids{}, true), Ids{0});
    EXPECT_EQ(cuthill_mckee_order(3, Ids{0, 0, 0, 0}, Ids{}, false), (Ids{0, 1, 2}));
    EXPECT_THROW(cuthill_mckee_order(2, Ids{0, 1, 2}, Ids{0, 5}, true), std::invalid_argument);

    const auto exec = Executor::create_cpu();
    Csr<double> empty{0, 0, Array<index_type>::from_host(exec, std::vector<index_type>{0}),
                      Array<index_type>(exec, 0), Array<double>(exec, 0)};
    const auto b = permute_symmetric(empty, Array<index_type>(exec, 0));
    EXPECT_EQ(b.rows, 0);
    EXPECT_EQ(b.row_ptr.to_host(), std::vector<index_type>{0});
    EXPECT_EQ(half_bandwidth(b), 0);
}

template <typename V>
void check_spmv_commutes_with_permutation(const HostCsr<V>& m, std::mt19937& rng, double tol)
{
    const auto exec = Executor::create_cpu();
    const auto order = cuthill_mckee_order(m.rows, m.ptr, m.col, true);
    ASSERT_TRUE(is_permutation_of_n(order, m.rows));
    const auto perm = Array<index_type>::from_host(exec, order);
    const auto b = permute_symmetric(test::to_csr(m, exec), perm);

    // Rows sorted, same entries.
    const auto hb = to_host_csr(b);
    ASSERT_EQ(hb.ptr.back(), m.ptr.back());
    for (index_type i = 0; i < hb.rows; ++i)
        EXPECT_TRUE(std::is_sorted(hb.col.begin() + hb.ptr[i], hb.col.begin() + hb.ptr[i + 1]));

    // (P A P^T)(P x) == P (A x)
    const auto x = test::random_vector<V>(m.rows, rng);
    const auto ax = test::dense_reference(m, V(1), x, V(0), x);
    Array<V> px(exec, m.rows);
    permute_vector(perm, Array<V>::from_host(exec, x), px, false);
    const auto px_host = px.to_host();
    const auto bpx = test::dense_reference(hb, V(1), px_host, V(0), px_host);
    std::vector<long double> pax(m.rows);
    for (index_type i = 0; i < m.rows; ++i) pax[i] = ax[order[i]];
    EXPECT_LE(test::relative_max_error(bpx, pax), tol);
}

TEST(Reordering, PermutedSpmvEqualsPermutedOriginalSpmv)
{
    std::mt19937 rng(14);
    check_spmv_commutes_with_permutation(shuffled(grid_laplacian(31, 17), rng), rng, 1e-15);
    check_spmv_commutes_with_permutation(cast<float>(shuffled(grid_laplacian(13, 29), rng)), rng,
                                         1e-6);
    // Unsymmetric random pattern with empty rows: the order uses A + A^T.
    check_spmv_commutes_with_permutation(test::random_csr<double>(503, 503, 9, rng), rng, 1e-15);
    check_spmv_commutes_with_permutation(test::random_csr<float>(257, 257, 6, rng, 50, 200), rng,
                                         1e-6);
}

TEST(Reordering, PermuteVectorForwardThenInverseIsIdentity)
{
    std::mt19937 rng(15);
    const auto exec = Executor::create_cpu();
    const index_type n = 1001;
    std::vector<index_type> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    const auto perm = Array<index_type>::from_host(exec, order);
    const auto x = test::random_vector<double>(n, rng);
    Array<double> forward(exec, n), back(exec, n);
    permute_vector(perm, Array<double>::from_host(exec, x), forward, false);
    const auto f = forward.to_host();
    for (index_type i = 0; i < n; ++i) EXPECT_EQ(f[i], x[order[i]]);
    permute_vector(perm, forward, back, true);
    EXPECT_EQ(back.to_host(), x);

    Array<double> wrong(exec, n - 1);
    EXPECT_THROW(permute_vector(perm, forward, wrong, false), std::invalid_argument);
}

TEST(Reordering, AnUnsymmetricPatternIsOrderedAsItsSymmetrisation)
{
    // The symmetric-pattern fast path (rows taken as neighbour lists) and the general path
    // (A + A^T built and sorted) give the same order: the grid with every entry above the
    // diagonal dropped in one row in three is ordered as the full grid.
    const unsigned seed = std::random_device{}();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    const auto grid = shuffled(grid_laplacian(17, 13), rng);
    HostCsr<double> lower = grid;
    lower.col.clear();
    lower.val.clear();
    lower.ptr = {0};
    for (index_type i = 0; i < grid.rows; ++i) {
        for (index_type k = grid.ptr[i]; k < grid.ptr[i + 1]; ++k)
            if (i % 3 != 0 || grid.col[k] <= i) {
                lower.col.push_back(grid.col[k]);
                lower.val.push_back(grid.val[k]);
            }
        lower.ptr.push_back(static_cast<index_type>(lower.col.size()));
    }
    ASSERT_LT(lower.col.size(), grid.col.size());
    for (bool reverse : {false, true})
        EXPECT_EQ(cuthill_mckee_order(lower.rows, lower.ptr, lower.col, reverse),
                  cuthill_mckee_order(grid.rows, grid.ptr, grid.col, reverse));
}

}  // namespace
}  // namespace gpufem
