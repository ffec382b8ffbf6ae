#include <vector>

#include "assembly/lma_kernels.hpp"

namespace gpufem::kernels::cpu {
namespace {

/// Entry (i, j) of the cell at position p (either triangle when symmetric).
template <typename V>
V entry(const LmaArgs<V>& a, index_type p, int i, int j)
{
    return a.matrices[static_cast<std::size_t>(lma_entry_index(a.npe, a.symmetric, i, j)) * a.stride + p];
}

/// The stored node of local i at position p: the node, or ~node for a Dirichlet node.
template <typename V>
index_type stored_node(const LmaArgs<V>& a, index_type p, int i)
{
    return a.connectivity[static_cast<std::size_t>(i) * a.stride + p];
}

/// The node of a stored value, Dirichlet or not.
index_type decoded(index_type stored) { return stored < 0 ? ~stored : stored; }

/// y += alpha K_e x_e for the cell at position p, x_e zero and rows skipped on Dirichlet
/// nodes; xe is scratch of npe values.
template <typename V>
void apply_cell(const LmaArgs<V>& a, index_type p, V alpha, const V* x, V* y, V* xe)
{
    for (int j = 0; j < a.npe; ++j) {
        const index_type n = stored_node(a, p, j);
        xe[j] = n < 0 ? V(0) : x[n];
    }
    for (int i = 0; i < a.npe; ++i) {
        const index_type n = stored_node(a, p, i);
        if (n < 0) continue;
        V sum = 0;
        for (int j = 0; j < a.npe; ++j) sum += entry(a, p, i, j) * xe[j];
        y[n] += alpha * sum;
    }
}

}  // namespace

template <typename V>
void lma_interleave(const Executor&, index_type stride, int npe, bool symmetric,
                    const index_type* order, index_type cells, const V* ke, V* out)
{
    const std::size_t n = static_cast<std::size_t>(stride);
#pragma omp parallel for schedule(static)
    for (index_type p = 0; p < stride; ++p) {
        const index_type e = lma_slot_cell(order, cells, p);
        const V* cell = e >= 0 ? ke + static_cast<std::size_t>(e) * npe * npe : nullptr;
        int k = 0;
        for (int i = 0; i < npe; ++i)
            for (int j = symmetric ? i : 0; j < npe; ++j)
                out[k++ * n + p] = cell ? cell[i * npe + j] : V(0);
    }
}

template <typename V>
void lma_diagonal(const Executor&, const LmaArgs<V>& a, index_type begin, index_type end, V* diag)
{
    for (index_type p = begin; p < end; ++p)
        for (int i = 0; i < a.npe; ++i) diag[decoded(stored_node(a, p, i))] += entry(a, p, i, i);
}

template <typename V>
void lma_prepare(const Executor&, index_type num_nodes, V alpha, const V* x, V beta, V* y,
                 const index_type* dirichlet, index_type dirichlet_count, const V* diag)
{
#pragma omp parallel for schedule(static)
    for (index_type i = 0; i < num_nodes; ++i) y[i] = beta == V(0) ? V(0) : beta * y[i];
    for (index_type k = 0; k < dirichlet_count; ++k) {
        const index_type d = dirichlet[k];
        y[d] += alpha * diag[d] * x[d];
    }
}

template <typename V>
void lma_configure(const Executor&, const LmaArgs<V>&, LmaKernel)
{}

template <typename V>
void lma_apply_cells(const Executor&, const LmaArgs<V>& a, index_type begin, index_type end,
                     V alpha, const V* x, V* y, bool atomic, LmaKernel)
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

template <typename V>
void lma_dirichlet_lift(const Executor&, const LmaArgs<V>& a, index_type begin, index_type end,
                        const V* g, V* rhs)
{
    for (index_type p = begin; p < end; ++p)
        for (int i = 0; i < a.npe; ++i) {
            const index_type n = stored_node(a, p, i);
            if (n < 0) continue;  // Dirichlet row: set by lma_dirichlet_rows
            V sum = 0;
            for (int j = 0; j < a.npe; ++j) {
                const index_type m = stored_node(a, p, j);
                if (m < 0) sum += entry(a, p, i, j) * g[~m];
            }
            rhs[n] -= sum;
        }
}

template <typename V>
void lma_dirichlet_rows(const Executor&, index_type num_nodes, const std::uint8_t* mask,
                        const V* diag, const V* g, V* rhs)
{
    for (index_type i = 0; i < num_nodes; ++i)
        if (mask[i]) rhs[i] = diag[i] * g[i];
}

template <typename V>
void lma_scatter_loads(const Executor&, index_type num_cells, int npe, const index_type* cells,
                       const V* fe, V* rhs)
{
    const std::size_t count = static_cast<std::size_t>(num_cells) * npe;
    for (std::size_t k = 0; k < count; ++k) rhs[cells[k]] += fe[k];
}

GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(
    lma_interleave, lma_diagonal, lma_prepare, lma_configure, lma_apply_cells, lma_dirichlet_lift,
    lma_dirichlet_rows, lma_scatter_loads)

void lma_interleave_connectivity(const Executor&, index_type stride, int npe, const index_type* order,
                                 index_type num_cells, const index_type* cells,
                                 const std::uint8_t* mask, index_type* out)
{
    const std::size_t n = static_cast<std::size_t>(stride);
#pragma omp parallel for schedule(static)
    for (index_type p = 0; p < stride; ++p)
        for (int i = 0; i < npe; ++i) {
            const index_type e = lma_slot_cell(order, num_cells, p);
            index_type node = -1;
            if (e >= 0) {
                node = cells[static_cast<std::size_t>(e) * npe + i];
                if (mask && mask[node]) node = ~node;
            }
            out[static_cast<std::size_t>(i) * n + p] = node;
        }
}

}  // namespace gpufem::kernels::cpu
