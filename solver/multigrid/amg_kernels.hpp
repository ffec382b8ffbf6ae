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

/// The aggregate node i has after one joining round: its own (in[i]) if it has one, else that
/// of its first strong neighbour in a root's aggregate (in[j] >= 0), else -1 (still
/// unassigned). The same on both backends.
GPUFEM_HOST_DEVICE inline index_type joined_aggregate(index_type i, const index_type* row_ptr, const index_type* col_idx,
                                                      const std::uint8_t* strong, const index_type* in)
{
    index_type a = in[i];
    if (a == -1) {
        for (index_type k = row_ptr[i]; k < row_ptr[i + 1]; ++k)
            if (strong[k] && in[col_idx[k]] >= 0) {
                a = in[col_idx[k]];
                break;
            }
    }
    return a;
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

/// Whether entry k of row i stays in the filtered matrix A_F: the diagonal and, with strong
/// given, the strong entries (all of them with strong null).
GPUFEM_HOST_DEVICE inline bool amg_kept_entry(index_type i, index_type column, const std::uint8_t* strong,
                                              index_type k)
{
    return strong == nullptr || column == i || strong[k] != 0;
}

/// Row i of S = I - scale A_F (scale = omega / a_ii) from A's row (entries [begin, end)),
/// written from s_col / s_val on in A's column order: A_F's diagonal is a_ii plus the weak
/// entries, summed in column order on both backends.
template <typename V>
GPUFEM_HOST_DEVICE inline void amg_jacobi_row(index_type i, index_type begin, index_type end,
                                              const index_type* col, const V* val,
                                              const std::uint8_t* strong, V scale, index_type* s_col,
                                              V* s_val)
{
    V diagonal = 0;
    index_type out = 0, at = -1;
    for (index_type k = begin; k < end; ++k) {
        const bool on_diagonal = col[k] == i;
        const bool kept = amg_kept_entry(i, col[k], strong, k);
        if (on_diagonal || !kept) diagonal += val[k];
        if (!kept) continue;
        if (on_diagonal) at = out;
        s_col[out] = col[k];
        s_val[out++] = on_diagonal ? V(0) : -scale * val[k];
    }
    if (at >= 0) s_val[at] = V(1) - scale * diagonal;
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

/// A box of points of a grid level: its first point and its points per axis; point i in
/// x-fastest order.
struct GridBox {
    long long lo[3] = {0, 0, 0};
    long long extent[3] = {1, 1, 1};

    GPUFEM_HOST_DEVICE long long count() const { return extent[0] * extent[1] * extent[2]; }
    GPUFEM_HOST_DEVICE void point(long long i, long long p[3]) const
    {
        p[0] = lo[0] + i % extent[0];
        p[1] = lo[1] + (i / extent[0]) % extent[1];
        p[2] = lo[2] + i / (extent[0] * extent[1]);
    }
};

/// A level of a generated grid of boxes split among ranks in blocks (p-multigrid across ranks):
/// per axis each coordinate's block and its place in it, per axis and block how many points it
/// owns, per part its first global number (the parts' points numbered part after part, each
/// part's in x-fastest order); pointers in the kernel's backend's memory, all three axes given.
struct GridLevelView {
    int blocks[3] = {1, 1, 1};
    const int* block[3] = {nullptr, nullptr, nullptr};
    const index_type* place[3] = {nullptr, nullptr, nullptr};
    const index_type* extent[3] = {nullptr, nullptr, nullptr};
    const index_type* offsets = nullptr;

    /// The global number of point c.
    GPUFEM_HOST_DEVICE index_type global(const long long c[3]) const
    {
        int q[3];
        index_type at[3];
        for (int a = 0; a < 3; ++a) {
            q[a] = block[a][c[a]];
            at[a] = place[a][c[a]];
        }
        const int part = q[0] + blocks[0] * (q[1] + blocks[1] * q[2]);
        return offsets[part] + at[0] + extent[0][q[0]] * (at[1] + extent[1][q[1]] * at[2]);
    }
};

/// The local number of global column c (see amg_localize_columns).
GPUFEM_HOST_DEVICE inline index_type local_column(index_type c, index_type first, index_type owned,
                                                  const index_type* ghosts, index_type count)
{
    if (c >= first && c < first + owned) return c - first;
    index_type lo = 0, hi = count;  // the first ghost >= c
    while (lo < hi) {
        const index_type mid = lo + (hi - lo) / 2;
        if (ghosts[mid] < c) lo = mid + 1;
        else hi = mid;
    }
    return owned + lo;
}

/// The interpolation at finer point f (its level's coordinates) from the corners of the box of
/// the grid of half the boxes around it (one corner along an axis where f lies on that grid):
/// the corners' coordinates and weights into corner and weight; returns how many.
GPUFEM_HOST_DEVICE inline int grid_corner_weights(const long long f[3], int dim, long long corner[8][3],
                                                  double weight[8])
{
    int count = 0;
    for (int c = 0; c < (1 << dim); ++c) {
        bool used = true;
        double w = 1;
        for (int a = 0; a < 3; ++a) {
            const int up = a < dim ? (c >> a) & 1 : 0;
            if (f[a] % 2 == 0) {
                used = used && up == 0;
                corner[count][a] = f[a] / 2;
            } else {
                corner[count][a] = (f[a] - 1) / 2 + up;
                w *= 0.5;
            }
        }
        if (used) weight[count++] = w;
    }
    return count;
}

/// Row i of the interpolation into box's points from the grid of half the boxes: its
/// corners' global numbers in coarse and weights, from row_ptr[i] on.
template <typename V>
GPUFEM_HOST_DEVICE inline void grid_transfer_row(const GridBox& box, int dim, const GridLevelView& coarse, long long i,
                                                 const index_type* row_ptr, index_type* columns, V* values)
{
    long long f[3], corner[8][3];
    double weight[8];
    box.point(i, f);
    const int count = grid_corner_weights(f, dim, corner, weight);
    for (int c = 0; c < count; ++c) {
        columns[row_ptr[i] + c] = coarse.global(corner[c]);
        values[row_ptr[i] + c] = static_cast<V>(weight[c]);
    }
}

#define GPUFEM_KERNEL_LIST "solver/multigrid/amg_kernel_list.hpp"
#include "linalg/declare_kernels.hpp"

}  // namespace gpufem
