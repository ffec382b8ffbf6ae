// p-multigrid's transfers by sum factorisation on the CPU: the readable reference. A cell's
// interpolation is three (two in 2D) one-dimensional contractions with the table T, forward
// from the coarse nodes to the fine ones, transposed back for the restriction.
#include <array>
#include <vector>

#include "assembly/cpu/tensor_contraction.hpp"
#include "assembly/pa_transfer_kernels.hpp"

namespace gpufem::kernels::cpu {
namespace {

/// The cell's interpolation applied to values: coarse to fine (P_e), or fine to coarse (P_e^T).
template <typename V>
std::vector<V> cell_interpolation(const PaTransferArgs<V>& a, bool transposed, std::vector<V> values)
{
    std::array<int, 3> extent{1, 1, 1};
    for (int c = 0; c < a.dim; ++c) extent[c] = transposed ? a.pf : a.pc;
    for (int c = 0; c < a.dim; ++c) values = contract_1d(a.table, a.pf, a.pc, transposed, c, extent, values);
    return values;
}

/// n^dim.
int per_cell(int dim, int n)
{
    return dim == 2 ? n * n : n * n * n;
}

}  // namespace

void pa_transfer_unknowns(const Executor& /*exec*/, index_type cells, int per_cell, const index_type* unknowns,
                          const int* of_lex, int n, const long long* owner, index_type* out)
{
#pragma omp parallel for schedule(static)
    for (index_type e = 0; e < cells; ++e)
        for (int t = 0; t < n; ++t) {
            const long long slot = static_cast<long long>(e) * per_cell + of_lex[t];
            const index_type u = unknowns[slot];
            out[static_cast<long long>(e) * n + t] = owner && owner[u] != slot ? ~u : u;
        }
}

template <typename V>
void pa_prolongate(const Executor& /*exec*/, const PaTransferArgs<V>& a, V alpha, const V* x, V* y)
{
    const int nf = per_cell(a.dim, a.pf), nc = per_cell(a.dim, a.pc);
    // Each fine unknown has one owner: the cells write disjoint entries of y.
#pragma omp parallel for schedule(static)
    for (index_type e = 0; e < a.cells; ++e) {
        std::vector<V> xe(static_cast<std::size_t>(nc));
        for (int m = 0; m < nc; ++m) {
            const index_type c = a.coarse[static_cast<long long>(e) * nc + m];
            xe[m] = c >= 0 ? x[c] : V(0);
        }
        const std::vector<V> fine = cell_interpolation(a, false, std::move(xe));
        for (int l = 0; l < nf; ++l) {
            const index_type u = a.fine[static_cast<long long>(e) * nf + l];
            if (u >= 0) y[u] += alpha * fine[l];
        }
    }
}

template <typename V>
void pa_restrict(const Executor& /*exec*/, const PaTransferArgs<V>& a, V alpha, const V* x, V* y)
{
    const int nf = per_cell(a.dim, a.pf), nc = per_cell(a.dim, a.pc);
    for (index_type e = 0; e < a.cells; ++e) {  // cells share coarse unknowns: in order
        std::vector<V> re(static_cast<std::size_t>(nf));
        for (int l = 0; l < nf; ++l) {
            const index_type u = a.fine[static_cast<long long>(e) * nf + l];
            re[l] = u >= 0 ? x[u] : V(0);
        }
        const std::vector<V> coarse = cell_interpolation(a, true, std::move(re));
        for (int m = 0; m < nc; ++m) {
            const index_type c = a.coarse[static_cast<long long>(e) * nc + m];
            if (c >= 0) y[c] += alpha * coarse[m];
        }
    }
}

GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(pa_prolongate, pa_restrict)

}  // namespace gpufem::kernels::cpu
