#include "solver/multigrid/aggregation.hpp"

#include <stdexcept>
#include <utility>

#include "linalg/blas1.hpp"
#include "solver/multigrid/amg_kernels.hpp"

namespace gpufem {

template <typename V>
Array<std::uint8_t> strength_of_connection(const Csr<V>& a, const Array<V>& diag, double theta)
{
    const Executor& exec = *a.executor();
    Array<std::uint8_t> strong(a.executor(), a.nnz());
    GPUFEM_DISPATCH(exec, amg_strength(exec, a, diag.data(), theta, strong.data()));
    return strong;
}

template <typename V>
Aggregates aggregate(const Csr<V>& a, const Array<std::uint8_t>& strong, AmgAggregation distance)
{
    const ExecPtr& ex = a.executor();
    const Executor& exec = *ex;
    const index_type n = a.rows;
    const index_type* ptr = a.row_ptr.data();
    const index_type* col = a.col_idx.data();
    Array<MisState> state(ex, static_cast<std::size_t>(n));
    Array<std::uint64_t> own(ex, static_cast<std::size_t>(n)), once(ex, static_cast<std::size_t>(n)),
        twice(ex, static_cast<std::size_t>(n));
    GPUFEM_DISPATCH(exec, amg_mis_init(exec, n, ptr, strong.data(), state.data()));
    Aggregates out;
    for (index_type undecided = n; undecided > 0;) {
        GPUFEM_DISPATCH(exec, amg_mis_tuples(exec, n, state.data(), own.data()));
        GPUFEM_DISPATCH(exec, amg_mis_propagate(exec, n, ptr, col, strong.data(), own.data(),
                                                once.data()));
        const std::uint64_t* reach = once.data();  // the largest tuple within the distance
        if (distance == AmgAggregation::distance2) {
            GPUFEM_DISPATCH(exec, amg_mis_propagate(exec, n, ptr, col, strong.data(), once.data(),
                                                    twice.data()));
            reach = twice.data();
        }
        undecided = GPUFEM_DISPATCH(exec, amg_mis_select(exec, n, state.data(), own.data(), reach));
        ++out.rounds;
    }
    Array<index_type> agg(ex, static_cast<std::size_t>(n)), next(ex, static_cast<std::size_t>(n));
    Array<index_type> roots(ex, static_cast<std::size_t>(n));
    out.count = GPUFEM_DISPATCH(exec, amg_aggregate_roots(exec, n, state.data(), agg.data(),
                                                          roots.data()));
    out.roots = Array<index_type>(ex, static_cast<std::size_t>(out.count));
    copy_bytes(exec, out.roots.data(), exec, roots.data(), out.roots.bytes());
    // Two passes reach every node: an excluded node has a root within distance 2 along strong
    // entries, so its first-step neighbour joins in the first pass and it in the second (one
    // pass does for distance 1).
    for (int pass = 0; pass < 2; ++pass) {
        const index_type left = GPUFEM_DISPATCH(
            exec, amg_aggregate_join(exec, n, ptr, col, strong.data(), agg.data(), next.data()));
        agg.swap(next);
        if (left == 0) break;
    }
    out.of_node = std::move(agg);
    return out;
}

template <typename V>
Csr<V> tentative_prolongator(const Aggregates& aggregates)
{
    const ExecPtr& ex = aggregates.of_node.executor();
    const Executor& exec = *ex;
    const index_type n = static_cast<index_type>(aggregates.of_node.size());
    Csr<V> p{n, aggregates.count, Array<index_type>(ex, static_cast<std::size_t>(n) + 1), {}, {}};
    const index_type nnz = GPUFEM_DISPATCH(
        exec, amg_tentative_pattern(exec, n, aggregates.of_node.data(), p.row_ptr.data()));
    p.col_idx = Array<index_type>(ex, static_cast<std::size_t>(nnz));
    p.values = Array<V>(ex, static_cast<std::size_t>(nnz));
    GPUFEM_DISPATCH(exec, amg_tentative_columns(exec, n, aggregates.of_node.data(),
                                                p.row_ptr.data(), p.col_idx.data()));
    fill(p.values, V(1));
    return p;
}

template <typename V>
Csr<V> smoothed_prolongator(const Csr<V>& a, const Array<V>& dinv, double omega,
                            const Aggregates& aggregates)
{
    const ExecPtr& ex = a.executor();
    const Executor& exec = *ex;
    const index_type* agg = aggregates.of_node.data();
    if (!aggregates.strong.empty() && aggregates.strong.size() != a.nnz())
        throw std::invalid_argument("smoothed_prolongator: the strong entries are not of this matrix");
    const std::uint8_t* strong = aggregates.strong.empty() ? nullptr : aggregates.strong.data();
    Csr<V> p{a.rows, aggregates.count, Array<index_type>(ex, static_cast<std::size_t>(a.rows) + 1),
             {}, {}};
    const index_type nnz =
        GPUFEM_DISPATCH(exec, amg_prolongator_pattern(exec, a, strong, agg, p.row_ptr.data()));
    if (nnz < 0) {  // a row meets too many aggregates for the row kernel: S P0 by SpGEMM
        Csr<V> s{a.rows, a.cols, Array<index_type>(ex, static_cast<std::size_t>(a.rows) + 1), {}, {}};
        const index_type s_nnz =
            GPUFEM_DISPATCH(exec, amg_jacobi_operator_pattern(exec, a, strong, s.row_ptr.data()));
        s.col_idx = Array<index_type>(ex, static_cast<std::size_t>(s_nnz));
        s.values = Array<V>(ex, static_cast<std::size_t>(s_nnz));
        GPUFEM_DISPATCH(exec, amg_jacobi_operator(exec, a, strong, dinv.data(), static_cast<V>(omega),
                                                  s.row_ptr.data(), s.col_idx.data(), s.values.data()));
        return sparse_product(s, tentative_prolongator<V>(aggregates));
    }
    p.col_idx = Array<index_type>(ex, static_cast<std::size_t>(nnz));
    p.values = Array<V>(ex, static_cast<std::size_t>(nnz));
    GPUFEM_DISPATCH(exec, amg_prolongator_fill(exec, a, strong, agg, dinv.data(), static_cast<V>(omega),
                                               p.row_ptr.data(), p.col_idx.data(), p.values.data()));
    return p;
}

template <typename V>
Csr<V> sparse_product(const Csr<V>& a, const Csr<V>& b, std::size_t block_nnz)
{
    const Executor& exec = *a.executor();
    return GPUFEM_DISPATCH(exec, amg_spgemm(exec, a, b, block_nnz));
}

template <typename V>
Csr<V> sparse_transpose(const Csr<V>& a)
{
    const Executor& exec = *a.executor();
    return GPUFEM_DISPATCH(exec, amg_transpose(exec, a));
}

#define GPUFEM_INSTANTIATE(V)                                                                     \
    template Array<std::uint8_t> strength_of_connection(const Csr<V>&, const Array<V>&, double);  \
    template Aggregates aggregate(const Csr<V>&, const Array<std::uint8_t>&, AmgAggregation);     \
    template Csr<V> tentative_prolongator(const Aggregates&);                                     \
    template Csr<V> smoothed_prolongator(const Csr<V>&, const Array<V>&, double,                  \
                                         const Aggregates&);                                     \
    template Csr<V> sparse_product(const Csr<V>&, const Csr<V>&, std::size_t);                    \
    template Csr<V> sparse_transpose(const Csr<V>&);
GPUFEM_INSTANTIATE(float)
GPUFEM_INSTANTIATE(double)
#undef GPUFEM_INSTANTIATE

}  // namespace gpufem
