// CPU reference of the element Galerkin kernel (assembly/element_galerkin_kernels.hpp).
#include <algorithm>
#include <vector>

#include "assembly/element_galerkin_access.hpp"
#include "assembly/element_galerkin_kernels.hpp"

namespace gpufem::kernels::cpu {

namespace {

/// The element Galerkin product of every cell (see element_galerkin_kernels.hpp), its
/// matrices read through k (CellMajorElements or StoredElements). Batches of cells: their
/// coarse matrices computed in parallel, then added in cell order, so the sums do not depend
/// on the thread count.
template <typename V, typename Elements>
void galerkin_cells(index_type cells, int npe, int ncl, const Elements& k, const V* projections,
                    const CellCoarsening& coarsening, const index_type* cell_to_csr, V* values)
{
    constexpr index_type batch = 4096;
    const std::size_t coarse = static_cast<std::size_t>(ncl) * ncl;
    std::vector<V> products(static_cast<std::size_t>(batch) * coarse);
    for (index_type first = 0; first < cells; first += batch) {
        const index_type last = std::min(cells, first + batch);
#pragma omp parallel
        {
            std::vector<V> kp(static_cast<std::size_t>(npe) * ncl);  // K_e P
            std::vector<char> fixed(static_cast<std::size_t>(npe));   // Dirichlet local nodes
#pragma omp for schedule(static)
            for (index_type e = first; e < last; ++e) {
                const V* p = projections + static_cast<std::size_t>(coarsening.child_of(e)) * npe * ncl;
                for (int i = 0; i < npe; ++i) fixed[i] = k.fixed(e, i);
                for (int i = 0; i < npe; ++i)
                    for (int b = 0; b < ncl; ++b) {
                        V sum = 0;
                        for (int j = 0; j < npe; ++j)
                            if ((!fixed[i] && !fixed[j]) || i == j) sum += k.entry(e, i, j) * p[j * ncl + b];
                        kp[static_cast<std::size_t>(i) * ncl + b] = sum;
                    }
                V* out = products.data() + static_cast<std::size_t>(e - first) * coarse;
                for (int a = 0; a < ncl; ++a)
                    for (int b = 0; b < ncl; ++b) {
                        V sum = 0;
                        for (int i = 0; i < npe; ++i) sum += p[i * ncl + a] * kp[static_cast<std::size_t>(i) * ncl + b];
                        out[a * ncl + b] = sum;
                    }
            }
        }
        for (index_type e = first; e < last; ++e) {
            const V* out = products.data() + static_cast<std::size_t>(e - first) * coarse;
            const index_type* at = cell_to_csr + static_cast<std::size_t>(coarsening.coarse_cell(e)) * coarse;
            for (std::size_t m = 0; m < coarse; ++m) values[at[m]] += out[m];
        }
    }
}

}  // namespace

template <typename V>
void element_galerkin_add(const Executor&, index_type cells, int npe, int ncl, const V* ke,
                          const index_type* cell_nodes, const std::uint8_t* mask, const V* p,
                          const CellCoarsening& coarsening, const index_type* cell_to_csr, V* values)
{
    galerkin_cells(cells, npe, ncl, CellMajorElements<V>{ke, cell_nodes, mask, npe}, p, coarsening, cell_to_csr,
                   values);
}

template <typename V>
void element_galerkin_add_stored(const Executor&, index_type cells, const LmaArgs<V>& stored, int ncl,
                                 const V* p, const CellCoarsening& coarsening, const index_type* cell_to_csr,
                                 V* values)
{
    galerkin_cells(cells, stored.npe, ncl, StoredElements<V>{stored}, p, coarsening, cell_to_csr, values);
}

GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(element_galerkin_add, element_galerkin_add_stored)

}  // namespace gpufem::kernels::cpu
