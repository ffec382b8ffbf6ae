#pragma once
// Where the CUDA element kernels put a computed row block of K_e and a load entry: stored
// per cell (element_matrices) or added into CSR values and rhs with atomics (assemble_csr).
#include "assembly/element_data.hpp"
#include "assembly/lma_kernels.hpp"

namespace gpufem::kernels::cuda {

/// Stores K_e row-major per cell (ke: cells * npe * npe) and f_e (fe: cells * npe).
template <typename V>
struct StoreSink {
    V* ke;
    V* fe;
    int npe;

    /// Entries (i, jc + jj), jj < count <= JT, of cell e.
    template <int JT>
    __device__ void add_row(index_type e, int i, int jc, int count, const V* row) const
    {
        V* out = ke + (static_cast<long long>(e) * npe + i) * npe + jc;
#pragma unroll
        for (int jj = 0; jj < JT; ++jj)
            if (jj < count) out[jj] = row[jj];
    }
    /// Load entry i of cell e.
    __device__ void add_load(index_type e, int i, V value) const
    {
        fe[static_cast<long long>(e) * npe + i] = value;
    }
};

/// Adds f_e into rhs at the cell's nodes with atomicAdd: the loads of the sinks below.
template <typename V>
struct AtomicLoads {
    const index_type* cells;
    V* rhs;
    int npe;

    /// Load entry i of cell e.
    __device__ void add_load(index_type e, int i, V value) const
    {
        atomicAdd(rhs + cells[static_cast<long long>(e) * npe + i], value);
    }
};

/// Adds K_e into CSR values through cell_to_csr (cells * npe * npe positions) and f_e into
/// rhs at the cell's nodes, with atomicAdd.
template <typename V>
struct CsrSink : AtomicLoads<V> {
    const index_type* cell_to_csr;
    V* values;

    /// Entries (i, jc + jj), jj < count <= JT, of cell e.
    template <int JT>
    __device__ void add_row(index_type e, int i, int jc, int count, const V* row) const
    {
        const int npe = this->npe;
        const index_type* pos = cell_to_csr + (static_cast<long long>(e) * npe + i) * npe + jc;
#pragma unroll
        for (int jj = 0; jj < JT; ++jj)
            if (jj < count) atomicAdd(values + pos[jj], row[jj]);
    }
};

/// Adds K_e into CSR values with no cell_to_csr map (each column found in its row by binary
/// search; offsets of type O) and f_e into rhs, with atomicAdd.
template <typename V, typename O>
struct SearchedCsrSink : AtomicLoads<V> {
    const O* row_ptr;
    const index_type* col_idx;
    V* values;

    /// Entries (i, jc + jj), jj < count <= JT, of cell e.
    template <int JT>
    __device__ void add_row(index_type e, int i, int jc, int count, const V* row) const
    {
        const index_type* nodes = this->cells + static_cast<long long>(e) * this->npe;
        const index_type r = nodes[i];
        const O first = row_ptr[r], last = row_ptr[r + 1];
#pragma unroll
        for (int jj = 0; jj < JT; ++jj) {
            if (jj >= count) continue;
            const index_type column = nodes[jc + jj];
            O lo = first, hi = last;
            while (lo < hi) {
                const O mid = lo + (hi - lo) / 2;
                if (col_idx[mid] < column) lo = mid + 1; else hi = mid;
            }
            atomicAdd(values + lo, row[jj]);
        }
    }
};

/// Stores K_e in the lma format's interleaved layout (entry k of cell e at k * stride + e,
/// symmetric: the packed upper triangle only) and adds f_e into rhs with atomicAdd.
template <typename V>
struct InterleavedSink : AtomicLoads<V> {
    V* matrices;
    index_type stride;
    bool symmetric;

    /// Entries (i, jc + jj), jj < count <= JT, of cell e.
    template <int JT>
    __device__ void add_row(index_type e, int i, int jc, int count, const V* row) const
    {
#pragma unroll
        for (int jj = 0; jj < JT; ++jj) {
            const int j = jc + jj;
            if (jj >= count || (symmetric && j < i)) continue;
            matrices[static_cast<long long>(lma_entry_index(this->npe, symmetric, i, j)) * stride + e] = row[jj];
        }
    }
};

/// Adds the residual K_e u_e - f_e into residual at the cell's nodes with mask[node] != 0 (mask
/// null: every node), with atomicAdd (in double).
template <typename V>
struct ResidualSink {
    const index_type* cells;
    int npe;
    const V* u;
    const std::uint8_t* mask;
    double* residual;
    /// The cells with a node in the mask (one byte per cell), or null: the others' geometry
    /// is skipped.
    const std::uint8_t* cells_wanted = nullptr;

    /// Whether row i of cell e is wanted: its node is in the mask (the row kernel skips the
    /// others, most of the cells at high degree).
    __device__ bool needs_row(index_type e, int i) const
    {
        return !mask || mask[cells[static_cast<long long>(e) * npe + i]];
    }
    /// Entries (i, jc + jj), jj < count <= JT, of cell e, times u, into row i's residual.
    template <int JT>
    __device__ void add_row(index_type e, int i, int jc, int count, const V* row) const
    {
        if (!needs_row(e, i)) return;
        const index_type* nodes = cells + static_cast<long long>(e) * npe;
        double s = 0;
#pragma unroll
        for (int jj = 0; jj < JT; ++jj)
            if (jj < count) s += static_cast<double>(row[jj]) * static_cast<double>(u[nodes[jc + jj]]);
        atomicAdd(residual + nodes[i], s);
    }
    /// Load entry i of cell e, subtracted.
    __device__ void add_load(index_type e, int i, V value) const
    {
        const index_type node = cells[static_cast<long long>(e) * npe + i];
        if (!mask || mask[node]) atomicAdd(residual + node, -static_cast<double>(value));
    }
};

}  // namespace gpufem::kernels::cuda
