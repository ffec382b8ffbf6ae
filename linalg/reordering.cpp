// Cuthill–McKee orders (Boost.Graph, on the graph of a symmetric pattern's neighbour lists
// built in parallel, or of its runs of rows with one pattern), half bandwidth, and the
// dispatch of the symmetric permutation kernels to the matrix's executor.
#include "linalg/reordering.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <stdexcept>
#include <string>
#include <utility>

#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <boost/graph/cuthill_mckee_ordering.hpp>

#include "linalg/host_vector.hpp"
#include "linalg/reordering_kernels.hpp"

namespace gpufem {

namespace {

/// Neighbour lists of the symmetrised pattern A + A^T without self loops, in CSR form,
/// each list sorted and free of duplicates.
struct Adjacency {
    HostVector<std::int64_t> ptr;
    HostVector<index_type> adj;
};

/// True when every row is sorted and free of duplicates, every column in range, and a_ij
/// is stored exactly when a_ji is (the usual finite-element and finite-volume pattern): then
/// the neighbour lists are the rows without their diagonal. Checked in parallel.
bool sorted_symmetric_pattern(index_type rows, std::span<const index_type> row_ptr,
                              std::span<const index_type> col_idx)
{
    bool symmetric = true;
#pragma omp parallel for schedule(dynamic, 4096) reduction(&& : symmetric)
    for (index_type i = 0; i < rows; ++i) {
        for (index_type k = row_ptr[i]; symmetric && k < row_ptr[i + 1]; ++k) {
            const index_type j = col_idx[k];
            if (j < 0 || j >= rows || (k > row_ptr[i] && col_idx[k - 1] >= j)) symmetric = false;
            else if (j != i)
                symmetric = std::binary_search(col_idx.begin() + row_ptr[j], col_idx.begin() + row_ptr[j + 1], i);
        }
    }
    return symmetric;
}

/// The neighbour lists of a sorted symmetric pattern: its rows without the diagonal (by the
/// host's threads, into arrays they touch first).
Adjacency adjacency_of_symmetric_pattern(index_type rows, std::span<const index_type> row_ptr,
                                         std::span<const index_type> col_idx)
{
    Adjacency result;
    result.ptr.resize(static_cast<std::size_t>(rows) + 1);
    result.ptr[0] = 0;
#pragma omp parallel for schedule(static)
    for (index_type i = 0; i < rows; ++i) {
        const bool diagonal = std::binary_search(col_idx.begin() + row_ptr[i], col_idx.begin() + row_ptr[i + 1], i);
        result.ptr[i + 1] = row_ptr[i + 1] - row_ptr[i] - (diagonal ? 1 : 0);
    }
    for (index_type i = 0; i < rows; ++i) result.ptr[i + 1] += result.ptr[i];
    result.adj.resize(static_cast<std::size_t>(result.ptr[rows]));
#pragma omp parallel for schedule(static)
    for (index_type i = 0; i < rows; ++i) {
        std::int64_t out = result.ptr[i];
        for (index_type k = row_ptr[i]; k < row_ptr[i + 1]; ++k)
            if (col_idx[k] != i) result.adj[out++] = col_idx[k];
    }
    return result;
}

/// The neighbour lists of A + A^T for a pattern that is not sorted and symmetric.
Adjacency symmetrised_adjacency(index_type rows, std::span<const index_type> row_ptr,
                                std::span<const index_type> col_idx)
{
    std::vector<std::int64_t> count(static_cast<std::size_t>(rows) + 1, 0);
    for (index_type i = 0; i < rows; ++i) {
        for (index_type k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
            const index_type j = col_idx[k];
            if (j < 0 || j >= rows)
                throw std::invalid_argument("cuthill_mckee_order: column " + std::to_string(j) +
                                            " out of range in row " + std::to_string(i));
            if (j == i) continue;
            ++count[i + 1];
            ++count[j + 1];
        }
    }
    for (index_type i = 0; i < rows; ++i) count[i + 1] += count[i];
    HostVector<index_type> adj(static_cast<std::size_t>(count[rows]));
    std::vector<std::int64_t> fill(count.begin(), count.end() - 1);
    for (index_type i = 0; i < rows; ++i) {
        for (index_type k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
            const index_type j = col_idx[k];
            if (j == i) continue;
            adj[fill[i]++] = j;
            adj[fill[j]++] = i;
        }
    }
    // Sort each list and drop duplicates (a_ij and a_ji both stored give the pair twice).
    std::vector<std::int64_t> unique_len(static_cast<std::size_t>(rows));
#pragma omp parallel for schedule(dynamic, 1024)
    for (index_type i = 0; i < rows; ++i) {
        auto first = adj.begin() + count[i];
        auto last = adj.begin() + count[i + 1];
        std::sort(first, last);
        unique_len[i] = std::unique(first, last) - first;
    }
    Adjacency result;
    result.ptr.assign(static_cast<std::size_t>(rows) + 1, 0);
    std::int64_t out = 0;
    for (index_type i = 0; i < rows; ++i) {
        for (std::int64_t k = 0; k < unique_len[i]; ++k) adj[out + k] = adj[count[i] + k];
        out += unique_len[i];
        result.ptr[i + 1] = out;
    }
    adj.resize(static_cast<std::size_t>(out));
    result.adj = std::move(adj);
    return result;
}

/// Runs of consecutive rows with the same pattern: indistinguishable vertices (the nodes
/// inside one edge, face or cell of a high-order mesh, numbered together), each run a vertex
/// of the quotient graph.
struct RowRuns {
    HostVector<index_type> run_of;  ///< per row
    std::vector<index_type> first;  ///< each run's first row, then rows
    index_type count() const { return static_cast<index_type>(first.size()) - 1; }
};

/// The runs of a sorted symmetric pattern (each row compared with the one before it, by the
/// host's threads).
RowRuns identical_row_runs(index_type rows, std::span<const index_type> row_ptr, std::span<const index_type> col_idx)
{
    RowRuns runs;
    runs.run_of.resize(static_cast<std::size_t>(rows));
#pragma omp parallel for schedule(static)
    for (index_type i = 0; i < rows; ++i) {
        const index_type length = row_ptr[i + 1] - row_ptr[i];
        runs.run_of[i] = i == 0 || length != row_ptr[i] - row_ptr[i - 1] ||
                         !std::equal(col_idx.begin() + row_ptr[i], col_idx.begin() + row_ptr[i + 1],
                                     col_idx.begin() + row_ptr[i - 1]);
    }
    index_type run = -1;
    for (index_type i = 0; i < rows; ++i) {
        if (runs.run_of[i]) runs.first.push_back(i);
        run += runs.run_of[i];
        runs.run_of[i] = run;
    }
    runs.first.push_back(rows);
    return runs;
}

/// The quotient graph's neighbour lists: run s's the runs its first row reaches but s. A
/// neighbour of one member reaches every member, and a run's members are consecutive, so the
/// row's columns give each run once, in a block, in increasing order.
Adjacency quotient_adjacency(const RowRuns& runs, std::span<const index_type> row_ptr,
                             std::span<const index_type> col_idx)
{
    const index_type count = runs.count();
    const auto each_neighbour = [&](index_type s, auto&& visit) {
        const index_type row = runs.first[static_cast<std::size_t>(s)];
        index_type previous = s;
        for (index_type k = row_ptr[row]; k < row_ptr[row + 1]; ++k) {
            const index_type t = runs.run_of[col_idx[k]];
            if (t != previous && t != s) visit(t);
            previous = t;
        }
    };
    Adjacency result;
    result.ptr.resize(static_cast<std::size_t>(count) + 1);
    result.ptr[0] = 0;
#pragma omp parallel for schedule(static)
    for (index_type s = 0; s < count; ++s) {
        std::int64_t n = 0;
        each_neighbour(s, [&](index_type) { ++n; });
        result.ptr[s + 1] = n;
    }
    for (index_type s = 0; s < count; ++s) result.ptr[s + 1] += result.ptr[s];
    result.adj.resize(static_cast<std::size_t>(result.ptr[count]));
#pragma omp parallel for schedule(static)
    for (index_type s = 0; s < count; ++s) {
        std::int64_t out = result.ptr[s];
        each_neighbour(s, [&](index_type t) { result.adj[out++] = t; });
    }
    return result;
}

/// The graph's edges (source, target) in compact vertex labels, source by source in the
/// neighbour lists' order: an input iterator for Boost's sorted-edge constructor, so that no
/// arrays of sources and targets are made (22M edges: two 88 MB arrays filled, then sorted in
/// place by Boost).
class CompactEdges {
public:
    using iterator_category = std::input_iterator_tag;
    using value_type = std::pair<std::uint32_t, std::uint32_t>;
    using difference_type = std::ptrdiff_t;
    using pointer = const value_type*;
    using reference = const value_type&;

    /// The edges from position k of the lists on (k = the total count: the end).
    CompactEdges(const Adjacency& graph, const std::vector<index_type>& compact, std::int64_t k)
        : graph_(&graph), compact_(&compact), k_(k)
    {
        settle();
    }
    reference operator*() const { return edge_; }
    pointer operator->() const { return &edge_; }
    CompactEdges& operator++()
    {
        ++k_;
        settle();
        return *this;
    }
    bool operator==(const CompactEdges& other) const { return k_ == other.k_; }
    bool operator!=(const CompactEdges& other) const { return k_ != other.k_; }

private:
    /// Moves the source on to the vertex whose list holds position k, and forms the edge.
    void settle()
    {
        const auto& ptr = graph_->ptr;
        const auto rows = static_cast<index_type>(ptr.size() - 1);
        if (k_ >= ptr[rows]) return;
        while (ptr[v_ + 1] <= k_) ++v_;
        edge_ = {static_cast<std::uint32_t>((*compact_)[v_]),
                 static_cast<std::uint32_t>((*compact_)[graph_->adj[k_]])};
    }

    const Adjacency* graph_;
    const std::vector<index_type>* compact_;
    std::int64_t k_;
    index_type v_ = 0;
    value_type edge_{};
};

/// The Cuthill–McKee order of a graph given by its neighbour lists (new -> old).
std::vector<index_type> cuthill_mckee_of(const Adjacency& graph_adj, index_type rows)
{
    const auto degree = [&](index_type v) { return graph_adj.ptr[v + 1] - graph_adj.ptr[v]; };

    // Isolated vertices (rows without off-diagonal entries) are kept out of the Boost graph:
    // Boost resets a colour map over all vertices for every component it starts, so n
    // one-vertex components would cost O(n^2). They are merged back below exactly where
    // Boost would have put them. The others get compact labels (order preserving).
    std::vector<index_type> compact(static_cast<std::size_t>(rows), -1);
    std::vector<index_type> original;  // compact label -> original vertex
    for (index_type v = 0; v < rows; ++v) {
        if (degree(v) == 0) continue;
        compact[v] = static_cast<index_type>(original.size());
        original.push_back(v);
    }
    const auto connected = static_cast<std::uint32_t>(original.size());

    // Boost.Graph's compressed_sparse_row_graph, directed with every undirected edge stored
    // in both directions and 32-bit descriptors: two int arrays, far leaner than an
    // adjacency_list for millions of rows. Out-edges are then exactly the neighbours, which
    // is all cuthill_mckee_ordering and its pseudo-peripheral search walk. The edges come
    // sorted by source (the lists in vertex order), each list in its own order.
    using Graph = boost::compressed_sparse_row_graph<boost::directedS, boost::no_property,
                                                     boost::no_property, boost::no_property,
                                                     std::uint32_t, std::uint32_t>;
    const auto edges = static_cast<std::int64_t>(graph_adj.adj.size());
    const Graph graph(boost::edges_are_sorted, CompactEdges(graph_adj, compact, 0),
                      CompactEdges(graph_adj, compact, edges), connected, static_cast<std::uint32_t>(edges));

    // Boost emits vertices in Cuthill–McKee order (new -> old): one BFS per connected
    // component, components by increasing lowest vertex, each from a pseudo-peripheral
    // vertex, newly reached neighbours by increasing degree.
    std::vector<std::uint32_t> order(connected);
    if (connected > 0) {
        const auto end = boost::cuthill_mckee_ordering(graph, order.begin());
        if (end != order.end())
            throw std::logic_error("cuthill_mckee_order: ordering does not cover every vertex");
    }

    // Merge the isolated vertices back. A component's block in `order` starts at the one
    // vertex with no neighbour placed before it (every other vertex was reached through an
    // earlier one). Boost would have emitted each isolated vertex as its own component, in
    // the order of the components' lowest vertices.
    std::vector<std::int64_t> position(static_cast<std::size_t>(rows), -1);
    for (std::size_t p = 0; p < order.size(); ++p) position[original[order[p]]] = static_cast<std::int64_t>(p);
    std::vector<index_type> result;
    result.reserve(static_cast<std::size_t>(rows));
    index_type next_isolated = 0;  // isolated vertices below this one are emitted
    const auto emit_isolated_below = [&](index_type limit) {
        for (; next_isolated < limit; ++next_isolated)
            if (degree(next_isolated) == 0) result.push_back(next_isolated);
    };
    for (std::size_t block = 0; block < order.size();) {
        std::size_t block_end = block + 1;
        index_type lowest = original[order[block]];
        for (; block_end < order.size(); ++block_end) {
            const index_type v = original[order[block_end]];
            bool starts_component = true;
            for (std::int64_t k = graph_adj.ptr[v]; k < graph_adj.ptr[v + 1]; ++k)
                if (position[graph_adj.adj[k]] < static_cast<std::int64_t>(block_end)) {
                    starts_component = false;
                    break;
                }
            if (starts_component) break;
            lowest = std::min(lowest, v);
        }
        emit_isolated_below(lowest);
        for (std::size_t p = block; p < block_end; ++p) result.push_back(original[order[p]]);
        block = block_end;
    }
    emit_isolated_below(rows);
    return result;
}

}  // namespace

std::vector<index_type> cuthill_mckee_order(index_type rows, std::span<const index_type> row_ptr,
                                            std::span<const index_type> col_idx, bool reverse)
{
    if (rows < 0 || row_ptr.size() != static_cast<std::size_t>(rows) + 1 ||
        col_idx.size() != static_cast<std::size_t>(row_ptr.back()))
        throw std::invalid_argument("cuthill_mckee_order: inconsistent CSR arrays");
    if (rows == 0) return {};
    std::vector<index_type> result;
    // Where a quarter of the rows or more repeat the pattern of the row before them (meshes of
    // degree 2 and up), the order is the quotient graph's, each run of rows kept together: a
    // graph with several times fewer vertices and edges for Boost to walk.
    const bool symmetric = sorted_symmetric_pattern(rows, row_ptr, col_idx);
    RowRuns runs;
    if (symmetric) runs = identical_row_runs(rows, row_ptr, col_idx);
    if (symmetric && runs.count() <= rows - rows / 4) {
        const std::vector<index_type> order = cuthill_mckee_of(quotient_adjacency(runs, row_ptr, col_idx), runs.count());
        result.reserve(static_cast<std::size_t>(rows));
        for (const index_type run : order)
            for (index_type row = runs.first[run]; row < runs.first[run + 1]; ++row) result.push_back(row);
    } else {
        result = cuthill_mckee_of(symmetric ? adjacency_of_symmetric_pattern(rows, row_ptr, col_idx)
                                            : symmetrised_adjacency(rows, row_ptr, col_idx),
                                  rows);
    }
    if (reverse) std::reverse(result.begin(), result.end());
    return result;
}

template <typename V>
std::vector<index_type> cuthill_mckee_order(const Csr<V>& matrix, bool reverse)
{
    const auto span_of = [](const Array<index_type>& a) { return std::span<const index_type>(a.data(), a.size()); };
    if (!matrix.executor()->is_cuda())
        return cuthill_mckee_order(matrix.rows, span_of(matrix.row_ptr), span_of(matrix.col_idx), reverse);
    const HostVector<index_type> row_ptr = matrix.row_ptr.to_host_vector(), col_idx = matrix.col_idx.to_host_vector();
    return cuthill_mckee_order(matrix.rows, row_ptr, col_idx, reverse);
}

template <typename V>
index_type half_bandwidth(const Csr<V>& matrix)
{
    const auto ptr = matrix.row_ptr.to_host();
    const auto col = matrix.col_idx.to_host();
    index_type hb = 0;
    for (index_type i = 0; i < matrix.rows; ++i)
        for (index_type k = ptr[i]; k < ptr[i + 1]; ++k) hb = std::max(hb, std::abs(col[k] - i));
    return hb;
}

template <typename V>
Csr<V> permute_symmetric(const Csr<V>& a, const Array<index_type>& perm)
{
    if (a.rows != a.cols)
        throw std::invalid_argument("permute_symmetric: the matrix is not square");
    if (perm.size() != static_cast<std::size_t>(a.rows))
        throw std::invalid_argument("permute_symmetric: permutation size " +
                                    std::to_string(perm.size()) + " != rows " +
                                    std::to_string(a.rows));
    const ExecPtr& exec = a.executor();
    if (perm.executor()->backend() != exec->backend())
        throw std::invalid_argument("permute_symmetric: permutation on another executor");
    Csr<V> b{a.rows, a.cols, Array<index_type>(exec, static_cast<std::size_t>(a.rows) + 1),
             Array<index_type>(exec, a.nnz()), Array<V>(exec, a.nnz())};
    GPUFEM_DISPATCH(*exec, permute_symmetric(*exec, a, perm.data(), b.row_ptr.data(),
                                             b.col_idx.data(), b.values.data()));
    return b;
}

template <typename V>
void permute_vector(const Array<index_type>& perm, const Array<V>& x, Array<V>& y, bool inverse)
{
    if (x.size() != perm.size() || y.size() != perm.size())
        throw std::invalid_argument("permute_vector: sizes of permutation and vectors differ");
    if (x.data() == y.data() && !x.empty())
        throw std::invalid_argument("permute_vector: x and y must be distinct arrays");
    const ExecPtr& exec = x.executor();
    if (x.empty()) return;
    if (perm.executor()->backend() != exec->backend() ||
        y.executor()->backend() != exec->backend())
        throw std::invalid_argument("permute_vector: arrays on different executors");
    const auto n = static_cast<index_type>(perm.size());
    GPUFEM_DISPATCH(*exec, permute_vector(*exec, n, perm.data(), x.data(), y.data(), inverse));
}

#define GPUFEM_INSTANTIATE(V)                                                                \
    template std::vector<index_type> cuthill_mckee_order(const Csr<V>&, bool);               \
    template index_type half_bandwidth(const Csr<V>&);                                       \
    template Csr<V> permute_symmetric(const Csr<V>&, const Array<index_type>&);              \
    template void permute_vector(const Array<index_type>&, const Array<V>&, Array<V>&, bool);
GPUFEM_INSTANTIATE(float)
GPUFEM_INSTANTIATE(double)
#undef GPUFEM_INSTANTIATE

template <typename V>
Csr<V> permute_rows(const Csr<V>& a, const Array<index_type>& perm)
{
    if (perm.size() != static_cast<std::size_t>(a.rows))
        throw std::invalid_argument("permute_rows: the permutation does not match the rows");
    const auto p = perm.to_host();
    const auto ptr = a.row_ptr.to_host();
    const auto col = a.col_idx.to_host();
    const auto val = a.values.to_host();
    std::vector<index_type> b_ptr(ptr.size(), 0), b_col(col.size());
    std::vector<V> b_val(val.size());
    for (index_type i = 0; i < a.rows; ++i) b_ptr[i + 1] = b_ptr[i] + (ptr[p[i] + 1] - ptr[p[i]]);
    for (index_type i = 0; i < a.rows; ++i)
        for (index_type k = 0; k < ptr[p[i] + 1] - ptr[p[i]]; ++k) {
            b_col[b_ptr[i] + k] = col[ptr[p[i]] + k];
            b_val[b_ptr[i] + k] = val[ptr[p[i]] + k];
        }
    const ExecPtr& exec = a.executor();
    return Csr<V>{a.rows, a.cols, Array<index_type>::from_host(exec, b_ptr),
                  Array<index_type>::from_host(exec, b_col), Array<V>::from_host(exec, b_val)};
}

template Csr<float> permute_rows(const Csr<float>&, const Array<index_type>&);
template Csr<double> permute_rows(const Csr<double>&, const Array<index_type>&);

}  // namespace gpufem
