#include <algorithm>
#include <cmath>

#include "assembly/robin_kernels.hpp"

namespace gpufem::kernels::cpu {

template <typename V>
long long robin_facet_terms(const Executor&, const ExprInstruction* h, const ExprInstruction* u_inf,
                            const double* coordinates, const index_type* facet_nodes, index_type num_facets,
                            const FacetTables& t, double* matrices, V* rhs)
{
    const int npf = t.nodes_per_facet, nq = t.num_points;
    for (index_type f = 0; f < num_facets; ++f) {
        const index_type* nodes = facet_nodes + static_cast<long long>(f) * npf;
        double* m = matrices + static_cast<long long>(f) * npf * npf;
        std::fill(m, m + npf * npf, 0.0);
        for (int q = 0; q < nq; ++q) {
            double x[3];
            const double measure = facet_point(t, coordinates, nodes, q, x);
            const double hq = evaluate_program(h, x[0], x[1], x[2]);
            const double uq = evaluate_program(u_inf, x[0], x[1], x[2]);
            if (!(hq >= 0.0) || !std::isfinite(hq) || !std::isfinite(uq)) return static_cast<long long>(f) * nq + q;
            const double w = t.weights[q] * measure * hq;
            const double* n = t.values + q * npf;
            for (int i = 0; i < npf; ++i) {
                for (int j = 0; j < npf; ++j) m[i * npf + j] += w * n[i] * n[j];
                rhs[nodes[i]] += static_cast<V>(w * uq * n[i]);
            }
        }
    }
    return -1;
}

void find_facet_owners(const Executor&, const FacetOwnerSearch& search, index_type* owner)
{
    const index_type* facets = search.facet_of_key;
    for (index_type k = 0; k < search.num_keys; ++k) owner[facets[k]] = -1;
    for (long long c = 0; c < search.num_cells; ++c)
        for_each_owned_facet(search, c, [&](index_type facet) {
            if (owner[facet] < 0) owner[facet] = static_cast<index_type>(c);
        });
}

long long facet_places(const Executor&, const FacetMatrices& facets, const index_type* cells, int npe,
                       const index_type* owner, index_type* local)
{
    for (index_type k = 0; k < facets.count; ++k)
        if (!place_facet(facets, cells, npe, owner, k, local)) return k;
    return -1;
}

template <typename V, typename O>
void add_facet_matrices_csr(const Executor&, const FacetMatrices& facets, const O* row_ptr,
                            const index_type* col_idx, V* values)
{
    const int npf = facets.nodes_per_facet;
    for (index_type k = 0; k < facets.count; ++k) {
        const index_type* nodes = facets.nodes + static_cast<long long>(k) * npf;
        const double* m = facets.values + static_cast<long long>(k) * npf * npf;
        for (int i = 0; i < npf; ++i) {
            const index_type* begin = col_idx + row_ptr[nodes[i]];
            const index_type* end = col_idx + row_ptr[nodes[i] + 1];
            for (int j = 0; j < npf; ++j)
                values[std::lower_bound(begin, end, nodes[j]) - col_idx] += static_cast<V>(m[i * npf + j]);
        }
    }
}

template <typename V>
void add_facet_matrices_to_cells(const Executor&, const FacetMatrices& facets, const index_type* owner,
                                 const index_type* local, const index_type* cell_map, int npe,
                                 index_type stride, bool symmetric, V* matrices)
{
    const int npf = facets.nodes_per_facet;
    for (index_type k = 0; k < facets.count; ++k) {
        const index_type e = cell_map ? cell_map[owner[k]] : owner[k];
        if (e < 0) continue;
        const index_type* places = local + static_cast<long long>(k) * npf;
        const double* m = facets.values + static_cast<long long>(k) * npf * npf;
        for (int i = 0; i < npf; ++i)
            for (int j = 0; j < npf; ++j) {
                const long long at = cell_entry_position(npe, stride, symmetric, e, places[i], places[j]);
                if (at >= 0) matrices[at] += static_cast<V>(m[i * npf + j]);
            }
    }
}

template <typename V>
void add_facet_products(const Executor&, const FacetMatrices& facets, const V* u, double* y)
{
    const int npf = facets.nodes_per_facet;
    for (index_type k = 0; k < facets.count; ++k)
        for (int i = 0; i < npf; ++i) y[facets.nodes[static_cast<long long>(k) * npf + i]] += facets.row_product(k, i, u);
}

template <typename V>
void add_facet_action(const Executor&, const FacetMatrices& facets, V alpha, const V* x, const std::uint8_t* mask,
                      bool dirichlet_columns, V* y)
{
    const int npf = facets.nodes_per_facet;
    for (index_type k = 0; k < facets.count; ++k)
        for (int i = 0; i < npf; ++i) {
            const index_type node = facets.nodes[static_cast<long long>(k) * npf + i];
            if (!mask || !mask[node])
                y[node] += alpha * static_cast<V>(facets.masked_row_product(k, i, x, mask, dirichlet_columns));
        }
}

template <typename V>
void add_facet_diagonal(const Executor&, const FacetMatrices& facets, V* diag)
{
    const long long npf = facets.nodes_per_facet;
    for (index_type k = 0; k < facets.count; ++k)
        for (long long i = 0; i < npf; ++i)
            diag[facets.nodes[k * npf + i]] += static_cast<V>(facets.values[(k * npf + i) * npf + i]);
}

GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(robin_facet_terms, add_facet_matrices_to_cells, add_facet_products,
                                   add_facet_action, add_facet_diagonal)
GPUFEM_INSTANTIATE_FOR_VALUE_AND_OFFSET_TYPES(add_facet_matrices_csr)

}  // namespace gpufem::kernels::cpu
