#include <vector>

#include "assembly/lma_kernels.hpp"

namespace gpufem::kernels::cpu {
namespace {

/// Entry (i, j) of the cell at position p (either triangle when symmetric).
template <typename V>
V entry(const LmaArgs<V>& a, index_type p, int i, int j)
{
    const int k = !a.symmetric ? i * a.npe + j
                  : i <= j     ? lma_packed_index(a.npe, i, j)
                               : lma_packed_index(a.npe, j, i);
    return a.matrices[static_cast<std::size_t>(k) * a.num_cells + p];
}

template <typename V>
index_type node(const LmaArgs<V>& a, index_type p, int i)
{
    return a.connectivity[static_cast<std::size_t>(i) * a.num_cells + p];
}

/// y += alpha K_e x_e for the cell at position p; xe and re are scratch of npe values.
template <typename V>
void apply_cell(const LmaArgs<V>& a, index_type p, V alpha, const V* x, V* y, V* xe)
{
    for (int j = 0; j < a.npe; ++j) {
        const index_type n = node(a, p, j);
        xe[j] = a.mask && a.mask[n] ? V(0) : x[n];
    }
    for (int i = 0; i < a.npe; ++i) {
        const index_type n = node(a, p, i);
        if (a.mask && a.mask[n]) continue;
        V sum = 0;
        for (int j = 0; j < a.npe; ++j) sum += entry(a, p, i, j) * xe[j];
        y[n] += alpha * sum;
    }
}

}  // namespace

template <typename V>
void lma_interleave(const Executor&, index_type num_cells, int npe, bool symmetric,
                    const index_type* order, const V* ke, V* out)
{
    const std::size_t n = static_cast<std::size_t>(num_cells);
#pragma omp parallel for schedule(static)
    for (index_type p = 0; p < num_cells; ++p) {
        const V* cell = ke + static_cast<std::size_t>(order[p]) * npe * npe;
        int k = 0;
        for (int i = 0; i < npe; ++i)
            for (int j = symmetric ? i : 0; j < npe; ++j) out[k++ * n + p] = cell[i * npe + j];
    }
}

template <typename V>
void lma_diagonal(const Executor&, const LmaArgs<V>& a, index_type num_nodes, V* diag)
{
    for (index_type i = 0; i < num_nodes; ++i) diag[i] = 0;
    for (index_type p = 0; p < a.num_cells; ++p)
        for (int i = 0; i < a.npe; ++i) diag[node(a, p, i)] += entry(a, p, i, i);
}

template <typename V>
void lma_prepare(const Executor&, index_type num_nodes, V alpha, const V* x, V beta, V* y,
                 const std::uint8_t* mask, const V* diag)
{
#pragma omp parallel for schedule(static)
    for (index_type i = 0; i < num_nodes; ++i) {
        V value = beta == V(0) ? V(0) : beta * y[i];
        if (mask && mask[i]) value += alpha * diag[i] * x[i];
        y[i] = value;
    }
}

template <typename V>
void lma_apply_cells(const Executor&, const LmaArgs<V>& a, index_type begin, index_type end,
                     V alpha, const V* x, V* y, bool atomic)
{
    if (atomic) {  // cells may share nodes: the sequential reference
        std::vector<V> xe(a.npe);
        for (index_type p = begin; p < end; ++p) apply_cell(a, p, alpha, x, y, xe.data());
        return;
    }
#pragma omp parallel
    {
        std::vector<V> xe(a.npe);
#pragma omp for schedule(static)
        for (index_type p = begin; p < end; ++p) apply_cell(a, p, alpha, x, y, xe.data());
    }
}

#define GPUFEM_INSTANTIATE(V)                                                                  \
    template void lma_interleave(const Executor&, index_type, int, bool, const index_type*,   \
                                 const V*, V*);                                                \
    template void lma_diagonal(const Executor&, const LmaArgs<V>&, index_type, V*);            \
    template void lma_prepare(const Executor&, index_type, V, const V*, V, V*,                 \
                              const std::uint8_t*, const V*);                                  \
    template void lma_apply_cells(const Executor&, const LmaArgs<V>&, index_type, index_type, \
                                  V, const V*, V*, bool);
GPUFEM_INSTANTIATE(float)
GPUFEM_INSTANTIATE(double)
#undef GPUFEM_INSTANTIATE

}  // namespace gpufem::kernels::cpu
