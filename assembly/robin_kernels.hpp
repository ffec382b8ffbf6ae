#pragma once
// Robin-condition kernels: declared once, implemented in cpu/robin_kernels.cpp and
// cuda/robin_kernels.cu. The boundary mass matrix of a Robin group's facets is computed once
// per facet and then added where the operator keeps its values: into an assembled CSR matrix,
// or into the element matrix of the cell that owns the facet (the lma format, p-multigrid's
// coarse operators), so that every operator of the problem holds the same term.
#include <cstdint>

#include "assembly/boundary_kernels.hpp"
#include "assembly/expression_program.hpp"
#include "assembly/lma_kernels.hpp"
#include "linalg/backend_kernels.hpp"
#include "linalg/host_device.hpp"
#include "linalg/types.hpp"
#include "mesh/kernel_shapes.hpp"

namespace gpufem {

/// Facets of one shape with their Robin matrices, on the executor.
struct FacetMatrices {
    index_type count = 0;
    int nodes_per_facet = 0;
    const index_type* nodes = nullptr;  ///< nodes_per_facet per facet
    const double* values = nullptr;     ///< nodes_per_facet^2 per facet, row-major

    /// Row i of facet k's matrix times u at the facet's nodes.
    template <typename V>
    GPUFEM_HOST_DEVICE double row_product(long long k, int i, const V* u) const
    {
        const index_type* at = nodes + k * nodes_per_facet;
        const double* row = values + (k * nodes_per_facet + i) * nodes_per_facet;
        double sum = 0;
        for (int j = 0; j < nodes_per_facet; ++j) sum += row[j] * static_cast<double>(u[at[j]]);
        return sum;
    }
    /// Row i of facet k's matrix times x at the facet's nodes that are free (mask[node] 0;
    /// dirichlet_columns: at those that are fixed instead); mask null: every node free.
    template <typename V>
    GPUFEM_HOST_DEVICE double masked_row_product(long long k, int i, const V* x, const std::uint8_t* mask,
                                                 bool dirichlet_columns) const
    {
        const index_type* at = nodes + k * nodes_per_facet;
        const double* row = values + (k * nodes_per_facet + i) * nodes_per_facet;
        double sum = 0;
        for (int j = 0; j < nodes_per_facet; ++j) {
            const bool fixed = mask && mask[at[j]];
            if (fixed == dirichlet_columns) sum += row[j] * static_cast<double>(x[at[j]]);
        }
        return sum;
    }
};

/// Corners per facet key (a quadrilateral's four; shorter facets padded with
/// facet_key_padding).
inline constexpr int facet_key_size = 4;
/// The padding of a facet key past its corners (sorts after every node).
inline constexpr index_type facet_key_padding = 0x7fffffff;

/// What find_facet_owners reads: the cells of a mesh (any order; their corners first), and
/// the facets to find as keys (their corners ascending, padded), sorted, with each key's facet.
struct FacetOwnerSearch {
    const index_type* cells = nullptr;
    long long num_cells = 0;
    int nodes_per_cell = 0;
    KernelShapes shapes;
    const std::uint8_t* cell_types = nullptr;  ///< each cell's ElementType number, or null:
    ElementType cell_type = ElementType::triangle;  ///< every cell's type
    const std::uint8_t* marked = nullptr;  ///< per node: 1 if some facet has it as a corner
    const index_type* keys = nullptr;      ///< facet_key_size per key, keys ascending
    const index_type* facet_of_key = nullptr;
    index_type num_keys = 0;
};

#define GPUFEM_KERNEL_LIST "assembly/robin_kernel_list.hpp"
#include "linalg/declare_kernels.hpp"

/// Sorts a facet key's corners ascending (at most facet_key_size; shared by both backends).
GPUFEM_HOST_DEVICE inline void sort_facet_key(index_type (&key)[facet_key_size])
{
    for (int i = 1; i < facet_key_size; ++i)
        for (int j = i; j > 0 && key[j] < key[j - 1]; --j) {
            const index_type t = key[j];
            key[j] = key[j - 1];
            key[j - 1] = t;
        }
}

/// The facet whose key is `key` among the search's sorted keys, or -1 (binary search).
GPUFEM_HOST_DEVICE inline index_type find_facet_key(const FacetOwnerSearch& s, const index_type (&key)[facet_key_size])
{
    index_type lo = 0, hi = s.num_keys;
    while (lo < hi) {
        const index_type mid = lo + (hi - lo) / 2;
        const index_type* k = s.keys + static_cast<long long>(mid) * facet_key_size;
        int order = 0;
        for (int a = 0; a < facet_key_size && order == 0; ++a) order = k[a] < key[a] ? -1 : (k[a] > key[a] ? 1 : 0);
        if (order == 0) return s.facet_of_key[mid];
        if (order < 0) lo = mid + 1;
        else hi = mid;
    }
    return -1;
}

/// Calls found(facet) for every face of cell c whose corners are a facet's of the search.
template <typename Found>
GPUFEM_HOST_DEVICE inline void for_each_owned_facet(const FacetOwnerSearch& s, long long c, Found&& found)
{
    const KernelShape& shape = shape_of_cell(s.shapes, s.cell_types, s.cell_type, c);
    const index_type* nodes = s.cells + c * s.nodes_per_cell;
    for (int f = 0; f < shape.faces; ++f) {
        index_type key[facet_key_size];
        bool all = true;
        for (int a = 0; a < facet_key_size; ++a) {
            const int corner = shape.face_corners[f][a];
            key[a] = corner < 0 ? facet_key_padding : nodes[corner];
            if (corner >= 0 && !s.marked[key[a]]) all = false;
        }
        if (!all) continue;
        sort_facet_key(key);
        const index_type facet = find_facet_key(s, key);
        if (facet >= 0) found(facet);
    }
}

/// The places of facet k's nodes in its owner's row (facet_places for one facet); false when
/// the owner is -1 or a node is missing.
GPUFEM_HOST_DEVICE inline bool place_facet(const FacetMatrices& facets, const index_type* cells, int npe,
                                           const index_type* owner, index_type k, index_type* local)
{
    const index_type c = owner[k];
    if (c < 0) return false;
    const index_type* row = cells + static_cast<long long>(c) * npe;
    for (int i = 0; i < facets.nodes_per_facet; ++i) {
        const index_type node = facets.nodes[static_cast<long long>(k) * facets.nodes_per_facet + i];
        int place = -1;
        for (int j = 0; j < npe && place < 0; ++j)
            if (row[j] == node) place = j;
        if (place < 0) return false;
        local[static_cast<long long>(k) * facets.nodes_per_facet + i] = place;
    }
    return true;
}

/// Where entry (i, j) of cell e's element matrix lives: cell-major (stride 0) or in the lma
/// format's interleaved layout; -1 for the lower triangle of symmetric storage (not stored).
GPUFEM_HOST_DEVICE inline long long cell_entry_position(int npe, index_type stride, bool symmetric,
                                                        index_type e, int i, int j)
{
    if (stride == 0) return (static_cast<long long>(e) * npe + i) * npe + j;
    if (symmetric && j < i) return -1;
    return static_cast<long long>(lma_entry_index(npe, symmetric, i, j)) * stride + e;
}

}  // namespace gpufem
