#pragma once
// Internal to assembly/: the kernels that build p-multigrid's transfers between the Lagrange
// spaces of one mesh, and from a nested coarser grid (lagrange_interpolation.cpp), declared
// once for both backends.
//
// The degree-c space of a degree-k mesh (assembly/lagrange_space.hpp) has as its nodes the
// mesh nodes on each cell's degree-c lattice (rounded to the degree-k one), numbered in node
// order. A row of the interpolation from it is read
// off one cell around the row's node: the first cell that holds the node (the smallest
// (cell, local node) slot, whatever the thread count or backend), whose degree-c basis at the
// node's reference point gives the weights (conforming meshes give the same row from any cell).
// From a nested coarser grid the same, the weights those of the cell's parent at the node.
#include <cstdint>

#include "linalg/backend_kernels.hpp"
#include "linalg/host_device.hpp"
#include "linalg/types.hpp"

namespace gpufem {

/// A mesh's cells and where each cell's coarse nodes are, on the kernels' executor: the
/// degree-c positions among its own degree-k nodes (p-coarsening: column of the mesh node at
/// local position fine_local[m]), or, with coarse_cells set, the coarse nodes of its parent
/// cell on a nested coarser mesh (h-coarsening: coarse_cells[parent[e] ncl + m], the weights
/// chosen by the cell's child index). A mesh of several cell types (cell_types set) pads each
/// cell's row of `cells` with -1, and its tables (fine_local, the reference interpolation) are
/// one per cell type, by the type's number: a smaller type's padding has fine_local -1.
struct CoarseLatticeView {
    const index_type* cells = nullptr;  ///< nodes_per_cell mesh nodes per cell (-1: padding)
    long long num_cells = 0;
    int nodes_per_cell = 0;              ///< npc
    long long num_nodes = 0;             ///< mesh nodes
    const int* fine_local = nullptr;     ///< ncl (per table): the local degree-k index of each degree-c node, or -1
    /// ncl (one table), or null: the other degree-k node as near to degree-c node m where its
    /// point is no degree-k node (LagrangeEmbedding::fine_twin), else -1.
    const int* fine_twin = nullptr;
    const double* coordinates = nullptr;  ///< 3 per mesh node, where fine_twin is set
    int coarse_per_cell = 0;             ///< ncl
    const std::uint8_t* cell_types = nullptr;  ///< each cell's table (its ElementType), or null: one table
    const index_type* coarse_cells = nullptr;  ///< h-coarsening: ncl coarse nodes per coarse cell
    const index_type* parent = nullptr;        ///< h-coarsening: the coarse cell of each cell
    const std::uint8_t* child = nullptr;       ///< h-coarsening: each cell's child index
};

/// The reference interpolation on the kernels' executor: the coarse basis functions at a
/// cell's reference nodes, the same for every cell (p-coarsening), for every cell of one type
/// (p-coarsening on a mesh of several types: one table per type number) or for every cell of
/// one child index (h-coarsening: one table per child, child-major).
struct ReferenceInterpolationView {
    const double* weights = nullptr;  ///< (tables x) npc x ncl, row-major
    const int* row_length = nullptr;  ///< (tables x) npc: the weights of each row above 1e-14
};

#define GPUFEM_KERNEL_LIST "assembly/interpolation_kernel_list.hpp"
#include "linalg/declare_kernels.hpp"

/// Whether an interpolation weight is kept as an entry (the kernels' one test).
GPUFEM_HOST_DEVICE inline bool interpolation_weight_kept(double w) { return w > 1e-14 || w < -1e-14; }

/// The mesh node of interpolation row i (row_nodes null: the rows are the mesh nodes).
GPUFEM_HOST_DEVICE inline index_type interpolation_row_node(const index_type* row_nodes, long long i)
{
    return row_nodes ? row_nodes[i] : static_cast<index_type>(i);
}

/// The table cell e reads: its child index (h-coarsening), its type (a mesh of several
/// types), else the one.
GPUFEM_HOST_DEVICE inline long long cell_table(const CoarseLatticeView& view, long long e)
{
    if (view.child) return view.child[e];
    return view.cell_types ? view.cell_types[e] : 0;
}

/// Whether mesh node a lies before mesh node b in the order of their coordinates (x, then y,
/// then z): an order every cell and every rank sees alike.
GPUFEM_HOST_DEVICE inline bool node_before(const double* coordinates, index_type a, index_type b)
{
    for (int d = 0; d < 3; ++d) {
        const double xa = coordinates[3 * static_cast<long long>(a) + d], xb = coordinates[3 * static_cast<long long>(b) + d];
        if (xa != xb) return xa < xb;
    }
    return false;
}

/// The local degree-k node of cell e at which its degree-c node m sits, or -1 (a smaller
/// type's padding). Where m's point is between two degree-k nodes (fine_twin), the one of
/// them first in node_before's order, so that every cell around it names it alike.
GPUFEM_HOST_DEVICE inline int coarse_local_node(const CoarseLatticeView& view, long long e, int m)
{
    const int local =
        view.fine_local[(view.cell_types ? view.cell_types[e] * static_cast<long long>(view.coarse_per_cell) : 0) + m];
    const int twin = view.fine_twin ? view.fine_twin[m] : -1;
    if (twin < 0) return local;
    const index_type* cell = view.cells + e * view.nodes_per_cell;
    return node_before(view.coordinates, cell[twin], cell[local]) ? twin : local;
}

/// The row of the reference interpolation that cell slot e npc + j reads (its table's row j).
GPUFEM_HOST_DEVICE inline long long reference_row(const CoarseLatticeView& view, long long slot)
{
    const long long e = slot / view.nodes_per_cell;
    return cell_table(view, e) * view.nodes_per_cell + slot % view.nodes_per_cell;
}

/// Where row i of the interpolation reads its weights: its owner cell e (-1: the row's node is
/// in no cell), that cell's mesh nodes and coarse nodes, and the weights of its local row.
struct InterpolationRowSource {
    long long e = -1;
    const index_type* cell = nullptr;
    const index_type* coarse = nullptr;  ///< h-coarsening: the parent's coarse nodes, else null
    const double* weights = nullptr;     ///< ncl weights
};

/// The source of row i (see InterpolationRowSource).
GPUFEM_HOST_DEVICE inline InterpolationRowSource interpolation_row_source(const CoarseLatticeView& view,
                                                                          const ReferenceInterpolationView& reference,
                                                                          const long long* owner,
                                                                          const index_type* row_nodes, long long i)
{
    InterpolationRowSource s;
    const long long slot = owner[interpolation_row_node(row_nodes, i)];
    if (slot < 0) return s;
    const int npc = view.nodes_per_cell, ncl = view.coarse_per_cell;
    s.e = slot / npc;
    s.cell = view.cells + s.e * npc;
    s.coarse = view.coarse_cells ? view.coarse_cells + view.parent[s.e] * static_cast<long long>(ncl) : nullptr;
    s.weights = reference.weights + reference_row(view, slot) * ncl;
    return s;
}

/// The column of coarse node m of a row's source.
GPUFEM_HOST_DEVICE inline index_type interpolation_column(const CoarseLatticeView& view,
                                                          const InterpolationRowSource& s, int m,
                                                          const index_type* column)
{
    return s.coarse ? s.coarse[m] : column[s.cell[coarse_local_node(view, s.e, m)]];
}

/// Writes row i of the interpolation at col/val[ptr[i]...] (see interpolation_entries): the
/// kept weights of its owner's local row, inserted in column order (equal columns in the
/// order of m). The CPU's body; the CUDA kernel ranks the entries with a warp per row.
template <typename V>
GPUFEM_HOST_DEVICE inline void write_interpolation_row(const CoarseLatticeView& view,
                                                       const ReferenceInterpolationView& reference,
                                                       const long long* owner, const index_type* row_nodes,
                                                       long long i, const index_type* column,
                                                       const index_type* ptr, index_type* col, V* val)
{
    const InterpolationRowSource s = interpolation_row_source(view, reference, owner, row_nodes, i);
    if (s.e < 0) return;
    const index_type begin = ptr[i];
    index_type end = begin;
    for (int m = 0; m < view.coarse_per_cell; ++m) {
        if (!interpolation_weight_kept(s.weights[m])) continue;
        const index_type c = interpolation_column(view, s, m, column);
        index_type at = end++;
        while (at > begin && col[at - 1] > c) {
            col[at] = col[at - 1];
            val[at] = val[at - 1];
            --at;
        }
        col[at] = c;
        val[at] = static_cast<V>(s.weights[m]);
    }
}

}  // namespace gpufem
