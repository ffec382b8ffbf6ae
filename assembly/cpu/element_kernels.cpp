#include "assembly/element_kernels.hpp"
#include "assembly/lma_kernels.hpp"

#include <algorithm>
#include <vector>

#include "assembly/element_geometry.hpp"
#include "assembly/element_math.hpp"

namespace gpufem::kernels::cpu {
namespace {

/// Element-matrix entries computed at once (in parallel) before each sequential scatter.
constexpr std::size_t scatter_batch_entries = std::size_t(1) << 21;

/// The element of cell e of any order, the readable reference: geometric factors at every
/// quadrature point, then every entry as a sum over the points,
/// K_ij = sum_q (dN_i^T G_q + N_i beta_q^T) dN_j + (w |det J| c)_q N_i N_j (beta and c: the
/// lower-order terms, if any), f_i = sum_q (w |det J| f)_q N_i. geo: nq * geometry_stride scratch.
template <int DIM, typename V>
void element_any_order(const ElementArgs<V>& a, index_type e, std::vector<V>& geo, V* ke, V* fe)
{
    const int stride = geometry_stride<DIM>(a.has_lower_order);
    const int n = a.nodes_per_cell, nq = a.num_points;
    for (int q = 0; q < nq; ++q) point_geometry<DIM>(a, e, q, &geo[q * stride]);
    std::fill(ke, ke + n * n, V(0));
    std::fill(fe, fe + n, V(0));
    for (int q = 0; q < nq; ++q) {
        const V* G = &geo[q * stride];
        const V* dN = a.gradients + static_cast<std::size_t>(q) * n * DIM;
        const V* N = a.values + static_cast<std::size_t>(q) * n;
        for (int i = 0; i < n; ++i) {
            V h[DIM];
            apply_packed<DIM>(G, dN + i * DIM, h);  // diffusion: G dN_i
            if (a.has_lower_order)                  // convection: N_i (J^-1 b) w |det J|
                for (int c = 0; c < DIM; ++c) h[c] += N[i] * G[geometry_convection_slot<DIM> + c];
            const V reaction = a.has_lower_order ? N[i] * G[geometry_reaction_slot<DIM>] : V(0);
            for (int j = 0; j < n; ++j) {
                V s = 0;
                for (int d = 0; d < DIM; ++d) s += h[d] * dN[j * DIM + d];
                ke[i * n + j] += a.has_lower_order ? s + reaction * N[j] : s;
            }
            fe[i] += G[geometry_load_slot<DIM>] * N[i];
        }
    }
}

/// Element matrices and loads of cells [begin, end) into ke, fe (cell `begin` first), in
/// parallel: degree 1 with the register kernel of element_math.hpp, higher degrees with
/// element_any_order.
template <typename V>
void compute_cells(const ElementData<V>& data, index_type begin, index_type end, V* ke, V* fe)
{
    const ElementArgs<V> a = data.args();
    if (data.degree == 1) {
        dispatch_element_type(data.type, [&]<int NPE, int DIM>() {
            dispatch_lower_order(a.has_lower_order, [&]<bool LOWER>() {
#pragma omp parallel for schedule(static)
                for (index_type e = begin; e < end; ++e) {
                    const std::size_t local = e - begin;
                    element_stiffness_load<NPE, DIM, LOWER>(a, e, ke + local * NPE * NPE,
                                                                 fe + local * NPE);
                }
            });
        });
        return;
    }
    const std::size_t n = a.nodes_per_cell;
    dispatch_dimension(a.dim, [&]<int DIM>() {
#pragma omp parallel
        {
            std::vector<V> geo(static_cast<std::size_t>(a.num_points) *
                               geometry_stride<DIM>(a.has_lower_order));
#pragma omp for schedule(dynamic, 16)
            for (index_type e = begin; e < end; ++e) {
                const std::size_t local = e - begin;
                element_any_order<DIM>(a, e, geo, ke + local * n * n, fe + local * n);
            }
        }
    });
}

}  // namespace

template <typename V>
void element_matrices(const Executor&, const ElementData<V>& data, V* ke, V* fe)
{
    compute_cells(data, 0, data.num_cells, ke, fe);
}

namespace {

/// Element matrices of batches of cells computed in parallel, then handed to add(e, ke, fe)
/// cell by cell in cell order (sequential: the readable reference, no races, a fixed order of
/// summation).
template <typename V, typename Add>
void for_each_cell_matrix(const ElementData<V>& data, Add&& add)
{
    const std::size_t n = data.nodes_per_cell;
    const index_type batch =
        static_cast<index_type>(std::max<std::size_t>(1, scatter_batch_entries / (n * n)));
    std::vector<V> ke(std::min<std::size_t>(batch, data.num_cells) * n * n);
    std::vector<V> fe(std::min<std::size_t>(batch, data.num_cells) * n);
    for (index_type begin = 0; begin < data.num_cells; begin += batch) {
        const index_type end = std::min(data.num_cells, begin + batch);
        compute_cells(data, begin, end, ke.data(), fe.data());
        for (index_type e = begin; e < end; ++e) {
            const std::size_t local = e - begin;
            add(e, ke.data() + local * n * n, fe.data() + local * n);
        }
    }
}

}  // namespace

template <typename V>
void assemble_csr(const Executor&, const ElementData<V>& data, const index_type* cell_to_csr,
                  V* values, V* rhs)
{
    const std::size_t n = data.nodes_per_cell;
    const index_type* cells = data.cells.data();
    for_each_cell_matrix(data, [&](index_type e, const V* ke, const V* fe) {
        const index_type* pos = cell_to_csr + static_cast<std::size_t>(e) * n * n;
        const index_type* nodes = cells + static_cast<std::size_t>(e) * n;
        for (std::size_t k = 0; k < n * n; ++k) values[pos[k]] += ke[k];
        for (std::size_t i = 0; i < n; ++i) rhs[nodes[i]] += fe[i];
    });
}

namespace {

/// assemble_csr_searched over offsets of type O.
template <typename V, typename O>
void assemble_searched(const ElementData<V>& data, const O* row_ptr, const index_type* col_idx, V* values, V* rhs)
{
    const std::size_t n = data.nodes_per_cell;
    const index_type* cells = data.cells.data();
    for_each_cell_matrix(data, [&](index_type e, const V* ke, const V* fe) {
        const index_type* nodes = cells + static_cast<std::size_t>(e) * n;
        for (std::size_t i = 0; i < n; ++i) {
            const index_type* row_begin = col_idx + row_ptr[nodes[i]];
            const index_type* row_end = col_idx + row_ptr[nodes[i] + 1];
            for (std::size_t j = 0; j < n; ++j)
                values[std::lower_bound(row_begin, row_end, nodes[j]) - col_idx] += ke[i * n + j];
            rhs[nodes[i]] += fe[i];
        }
    });
}

}  // namespace

template <typename V, typename O>
void assemble_csr_searched(const Executor&, const ElementData<V>& data, const O* row_ptr,
                           const index_type* col_idx, V* values, V* rhs)
{
    assemble_searched(data, row_ptr, col_idx, values, rhs);
}

template <typename V>
void element_matrices_interleaved(const Executor&, const ElementData<V>& data, index_type stride,
                                  bool symmetric, V* matrices, V* rhs)
{
    const int n = data.nodes_per_cell;
    const std::size_t block = static_cast<std::size_t>(n) * n;
    const index_type batch = static_cast<index_type>(std::max<std::size_t>(1, scatter_batch_entries / block));
    std::vector<V> ke(std::min<std::size_t>(batch, data.num_cells) * block);
    std::vector<V> fe(std::min<std::size_t>(batch, data.num_cells) * n);
    const index_type* cells = data.cells.data();
    const std::size_t slots = static_cast<std::size_t>(stride);
    for (index_type begin = 0; begin < data.num_cells; begin += batch) {
        const index_type end = std::min(data.num_cells, begin + batch);
        compute_cells(data, begin, end, ke.data(), fe.data());
#pragma omp parallel for schedule(static)
        for (index_type e = begin; e < end; ++e) {
            const V* k = ke.data() + static_cast<std::size_t>(e - begin) * block;
            for (int i = 0; i < n; ++i)
                for (int j = symmetric ? i : 0; j < n; ++j) {
                    matrices[static_cast<std::size_t>(lma_entry_index(n, symmetric, i, j)) * slots + e] = k[i * n + j];
                }
        }
        for (index_type e = begin; e < end; ++e)
            for (int i = 0; i < n; ++i)
                rhs[cells[static_cast<std::size_t>(e) * n + i]] += fe[static_cast<std::size_t>(e - begin) * n + i];
    }
}

template <typename V>
void element_residual(const Executor&, const ElementData<V>& data, const V* u, const std::uint8_t* mask,
                      double* residual)
{
    const std::size_t n = data.nodes_per_cell;
    const index_type* cells = data.cells.data();
    for_each_cell_matrix(data, [&](index_type e, const V* ke, const V* fe) {
        const index_type* nodes = cells + static_cast<std::size_t>(e) * n;
        for (std::size_t i = 0; i < n; ++i) {
            if (mask && !mask[nodes[i]]) continue;
            double s = -static_cast<double>(fe[i]);
            for (std::size_t j = 0; j < n; ++j) s += static_cast<double>(ke[i * n + j]) * static_cast<double>(u[nodes[j]]);
            residual[nodes[i]] += s;
        }
    });
}

GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(element_matrices, assemble_csr, element_matrices_interleaved, element_residual)
GPUFEM_INSTANTIATE_FOR_VALUE_AND_OFFSET_TYPES(assemble_csr_searched)

}  // namespace gpufem::kernels::cpu
