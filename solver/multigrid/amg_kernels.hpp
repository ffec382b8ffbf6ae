#pragma once
// Kernels of smoothed-aggregation AMG: declared once, implemented in cpu/amg_kernels.cpp (the
// readable reference) and cuda/amg_kernels.cu. The aggregation kernels work on the pattern
// only and are the same parallel algorithm on both backends, so the CPU and CUDA hierarchies
// have identical structure.
//
// Aggregation is a distance-2 maximal independent set (MIS-2) over the strength graph, found
// in rounds as in Bell, Dalton & Olson (2012): every node carries a tuple (state, hash, index)
// packed in 64 bits; two max-propagations over strong edges give each node the largest tuple
// within distance 2; an undecided node whose own tuple is that maximum joins the set, an
// undecided node that sees a set member within distance 2 leaves. Aggregates are the set
// members (roots), numbered in index order, plus their strong neighbours, then those
// neighbours' strong neighbours. With AmgAggregation::distance1 one propagation replaces the
// two (a distance-1 set; aggregates are the roots and their strong neighbours). Nodes without
// strong connections (Dirichlet rows) are left out of every aggregate: their row of P is
// empty and the smoother solves them exactly.
#include <cmath>
#include <cstdint>

#include "linalg/backend_kernels.hpp"
#include "linalg/csr.hpp"
#include "linalg/host_device.hpp"

namespace gpufem {

/// State of a node during aggregation.
enum class MisState : std::int8_t {
    isolated = -2,   ///< no strong connection: in no aggregate
    excluded = -1,   ///< a set member lies within distance 2
    undecided = 0,
    selected = 1,    ///< in the independent set: the root of an aggregate
};

/// The MIS tuple of node i in state s: rank (selected 3 > undecided 2 > excluded or isolated
/// 1) in bits 62-63, a 30-bit hash of i (a fixed pseudo-random priority) in bits 32-61, i in
/// bits 0-31. The same on both backends.
GPUFEM_HOST_DEVICE inline std::uint64_t mis_tuple(index_type i, MisState s)
{
    std::uint32_t h = static_cast<std::uint32_t>(i);  // a 32-bit integer mix (Murmur3's fmix)
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    const std::uint64_t rank = s == MisState::selected ? 3 : s == MisState::undecided ? 2 : 1;
    return (rank << 62) | (static_cast<std::uint64_t>(h & 0x3fffffffu) << 32) |
           static_cast<std::uint32_t>(i);
}

/// A fixed pseudo-random value in [-1, 1) for index i (the Lanczos start vector), the same on
/// both backends.
GPUFEM_HOST_DEVICE inline double hashed_unit(index_type i)
{
    std::uint32_t h = static_cast<std::uint32_t>(i) * 2654435761u + 0x9e3779b9u;
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    h *= 0x846ca68bu;
    h ^= h >> 16;
    return static_cast<double>(h) * (2.0 / 4294967296.0) - 1.0;
}

/// The strength measure of entry a_ij: |a_ij| / sqrt(|a_ii a_jj|) (0 for a zero entry or a
/// zero diagonal). Computed the same way on both backends, so equal measures compare equal.
template <typename V>
GPUFEM_HOST_DEVICE inline double amg_coupling(V aij, V aii, V ajj)
{
    const double value = aij < V(0) ? -static_cast<double>(aij) : static_cast<double>(aij);
    const double di = aii < V(0) ? -static_cast<double>(aii) : static_cast<double>(aii);
    const double dj = ajj < V(0) ? -static_cast<double>(ajj) : static_cast<double>(ajj);
    const double scale = di * dj;
    return value > 0 && scale > 0 ? value / sqrt(scale) : 0.0;
}

/// Whether a coupling of measure m between rows i and j is strong: above theta, or the
/// strongest of row i or of row j (strongest_i, strongest_j: the rows' largest measures). So
/// every row with a non-zero coupling has a strong one whatever theta is (a threshold above
/// all of a row's couplings would otherwise leave it out of every aggregate and of the coarse
/// correction), and the relation stays symmetric for a symmetric matrix.
GPUFEM_HOST_DEVICE inline bool amg_is_strong(double m, double theta, double strongest_i,
                                             double strongest_j)
{
    return m > 0 && (m > theta || m >= strongest_i || m >= strongest_j);
}

/// True when a tuple belongs to a selected node.
GPUFEM_HOST_DEVICE inline bool mis_tuple_selected(std::uint64_t t) { return (t >> 62) == 3; }

/// The most distinct aggregates one row of the prolongator may meet in the CUDA kernels (a
/// per-thread list); more sends the product to cuSPARSE.
inline constexpr int amg_row_aggregates_limit = 64;

/// Block size of the CUDA sparse product meaning "gpufem's hash product, or cuSPARSE in blocks
/// from the free device memory" (see amg_spgemm).
inline constexpr std::size_t amg_spgemm_block_nnz = 0;
/// Device bytes cuSPARSE's SpGEMM was seen to need per product a_ik b_kj (about 67 on the
/// 64M-unknown cube), with a margin: the automatic block holds free memory / this products.
inline constexpr std::size_t amg_spgemm_bytes_per_product = 120;

/// The pattern-only kernels (not templated on the value type).
#define GPUFEM_AMG_GRAPH_KERNELS(PREFIX, BODY)                                               \
    /** state[i] = isolated when row i has no strong entry, undecided otherwise. */          \
    PREFIX void amg_mis_init(const Executor& exec, index_type n, const index_type* row_ptr,  \
                             const std::uint8_t* strong, MisState* state) BODY               \
    /** tuple[i] = (state rank, hash(i), i) packed so that larger is preferred: selected >   \
        undecided > excluded/isolated, then the hash, then the index. */                     \
    PREFIX void amg_mis_tuples(const Executor& exec, index_type n, const MisState* state,    \
                               std::uint64_t* tuple) BODY                                    \
    /** out[i] = max(in[i], in[j] for the strong entries (i, j)). */                         \
    PREFIX void amg_mis_propagate(const Executor& exec, index_type n,                        \
                                  const index_type* row_ptr, const index_type* col_idx,      \
                                  const std::uint8_t* strong, const std::uint64_t* in,       \
                                  std::uint64_t* out) BODY                                   \
    /** For undecided i: selected when max2[i] == own[i], excluded when max2[i] comes from a \
        selected node. Returns how many nodes are still undecided (synchronises). */         \
    PREFIX index_type amg_mis_select(const Executor& exec, index_type n, MisState* state,    \
                                     const std::uint64_t* own, const std::uint64_t* max2)    \
        BODY                                                                                 \
    /** agg[i] = the rank of i among the selected nodes (index order) for selected i, -2 for \
        isolated i, -1 otherwise; roots[rank] = i (roots holds n entries). Returns the       \
        number of selected nodes (synchronises). */                                          \
    PREFIX index_type amg_aggregate_roots(const Executor& exec, index_type n,                \
                                          const MisState* state, index_type* agg,            \
                                          index_type* roots) BODY                            \
    /** out[i] = in[i] where in[i] != -1; otherwise the aggregate of the first strong        \
        neighbour j (in column order) with in[j] >= 0, or -1 when there is none. Returns how \
        many nodes are still -1 (synchronises). */                                           \
    PREFIX index_type amg_aggregate_join(const Executor& exec, index_type n,                 \
                                         const index_type* row_ptr, const index_type* col_idx, \
                                         const std::uint8_t* strong, const index_type* in,    \
                                         index_type* out) BODY                               \
    /** row_ptr of the tentative prolongator: one entry in row i when agg[i] >= 0. Returns   \
        its number of entries (synchronises). */                                             \
    PREFIX index_type amg_tentative_pattern(const Executor& exec, index_type n,              \
                                            const index_type* agg, index_type* row_ptr) BODY \
    /** col_idx of the tentative prolongator: agg[i] for the rows that have an entry. */     \
    PREFIX void amg_tentative_columns(const Executor& exec, index_type n,                    \
                                      const index_type* agg, const index_type* row_ptr,      \
                                      index_type* col_idx) BODY

/// The kernels templated on the value type.
#define GPUFEM_AMG_KERNELS(V, PREFIX, BODY)                                                  \
    /** strong[k] = 1 for the off-diagonal entries (i, j) of a that amg_is_strong accepts  \
        (measure above theta, or row i's or row j's strongest), 0 for the others. */         \
    PREFIX void amg_strength(const Executor& exec, const Csr<V>& a, const V* diag,           \
                             double theta, std::uint8_t* strong) BODY                        \
    /** s_values = the values of I - omega D^-1 A in a's pattern (a stores every diagonal    \
        entry; dinv = 1 / diag(A)): S for the sparse product S P0. */                        \
    PREFIX void amg_jacobi_operator(const Executor& exec, const Csr<V>& a, const V* dinv,    \
                                    V omega, V* s_values) BODY                               \
    /** The row offsets of P = (I - omega D^-1 A) P0 for P0 the aggregates' indicator: row i \
        holds the distinct aggregates among its columns' and its own (p_ptr: rows + 1        \
        entries). Returns P's entries, or -1 when some row meets more than                   \
        amg_row_aggregates_limit aggregates (cuda only; then use the sparse product). */     \
    PREFIX index_type amg_prolongator_pattern(const Executor& exec, const Csr<V>& a,        \
                                              const index_type* agg, index_type* p_ptr) BODY \
    /** The entries of that P (p_ptr complete): column g gets [agg(i) == g] - omega dinv_i   \
        sum of a_ij over the columns j with agg(j) == g; columns sorted. */                  \
    PREFIX void amg_prolongator_fill(const Executor& exec, const Csr<V>& a,                 \
                                     const index_type* agg, const V* dinv, V omega,          \
                                     const index_type* p_ptr, index_type* p_col, V* p_val)   \
        BODY                                                                                 \
    /** One Chebyshev step: d = c_d d + c_r dinv (b - ax); x += d. With ax null the current  \
        x is taken as zero: d = c_r dinv b and x = d (x is not read). */                     \
    PREFIX void amg_chebyshev_step(const Executor& exec, index_type n, const V* b,           \
                                   const V* ax, const V* dinv, V c_d, V c_r, V* d, V* x) BODY \
    /** x[i] = hashed_unit(i) (a fixed pseudo-random start vector). */                       \
    PREFIX void amg_start_vector(const Executor& exec, index_type n, V* x) BODY              \
    /** r = b - r (r holds A x on entry). */                                                 \
    PREFIX void amg_residual(const Executor& exec, index_type n, const V* b, V* r) BODY      \
    /** y = M x for a dense row-major n x n matrix M. */                                     \
    PREFIX void amg_dense_matvec(const Executor& exec, index_type n, const V* m, const V* x, \
                                 V* y) BODY                                                  \
    /** C = A B (columns sorted within each row, structural entries kept even when their     \
        value is zero). cpu: Gustavson's row-by-row product; cuda with block_nnz 0: gpufem's \
        hash product (cuda/hash_product.cuh), or, when a row of C has more than its limit of \
        columns, as with block_nnz > 0: cuSPARSE SpGEMM over blocks of A's rows of at most   \
        block_nnz entries (0: as many as the free device memory allows at                    \
        amg_spgemm_bytes_per_product per expected product; cuSPARSE's buffers grow with the  \
        block), written straight into C: one pass for one block, two (sizes, then entries)   \
        for several. */                                                                      \
    PREFIX Csr<V> amg_spgemm(const Executor& exec, const Csr<V>& a, const Csr<V>& b,        \
                             std::size_t block_nnz) BODY                                     \
    /** A^T (columns sorted). cpu: counting transpose; cuda: a stable radix sort of the     \
        entries by column (cuda/radix_transpose.cuh). */                                     \
    PREFIX Csr<V> amg_transpose(const Executor& exec, const Csr<V>& a) BODY

GPUFEM_DECLARE_PLAIN_KERNELS(GPUFEM_AMG_GRAPH_KERNELS)
GPUFEM_DECLARE_KERNELS(GPUFEM_AMG_KERNELS)

}  // namespace gpufem
