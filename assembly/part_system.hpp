#pragma once
// A rank's part of a matrix-free system (lma, pa) of a distributed problem
// (assembly/part_mesh.hpp: its own cells and the cells around the nodes it owns, owned nodes
// numbered first), split for the halo's overlap: the cells whose nodes are all owned are
// applied while the ghost values travel (the interior), the cells that hold a ghost node after
// they have arrived (the boundary, linalg/ghost_columns.hpp). Together they are the owned rows
// of the one-rank operator. What differs between the operator levels is only how a range of
// cells is applied; the split, the Dirichlet rows and the staging are here.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "assembly/lma_system.hpp"
#include "linalg/array_prefix.hpp"
#include "linalg/ghost_columns.hpp"
#include "linalg/linear_operator.hpp"

namespace gpufem {

/// A rank's owned rows of a matrix-free system.
template <typename V>
struct PartMatrixFreeSystem {
    /// Owned x owned: the cells whose nodes are all owned (some operators keep a few of them
    /// for the boundary), the Dirichlet rows, and the owned rows' diagonal (every cell around them).
    std::unique_ptr<LinearOperator<V>> interior;
    /// The cells that hold a ghost node (and those few interior ones), their owned rows.
    std::unique_ptr<GhostColumns<V>> boundary;
    Array<V> rhs;            ///< the owned rows' right-hand side, Dirichlet conditions eliminated
    Array<V> initial_guess;  ///< the owned Dirichlet values, 0 elsewhere
    index_type dirichlet_count = 0;  ///< constrained owned rows
    index_type interior_cells = 0;   ///< cells applied before the halo arrives
    index_type boundary_cells = 0;   ///< cells applied after it
    AssemblyTimes times;
};

/// Adds alpha K_e x_e of a part's cells into y, in the part's numbering: those applied before
/// the halo (before_halo: x and y hold the owned nodes) or after it (x and y hold the owned
/// nodes and then the ghosts). Dirichlet rows are skipped (their rows are the diagonal's).
template <typename V>
using PartCellsApply = std::function<void(bool before_halo, V alpha, const V* x, V* y)>;

/// What the two halves of a part's operator move at least per product (LinearOperator::spmv_min_bytes
/// without the vectors and Dirichlet rows the halves add themselves).
struct PartCellBytes {
    std::size_t before_halo = 0;
    std::size_t after_halo = 0;
};

/// The two halves of a part's operator from the whole part's operator (its diagonal, format,
/// parameters and storage) and apply: owned rows; dirichlet: the owned Dirichlet rows (host);
/// after_rows: the owned nodes of the cells applied after the halo, ascending; ghosts: the
/// part's ghost nodes.
template <typename V>
void split_part_operator(PartMatrixFreeSystem<V>& out, std::shared_ptr<const LinearOperator<V>> whole,
                         PartCellsApply<V> apply, PartCellBytes bytes, index_type owned, index_type ghosts,
                         const std::vector<index_type>& dirichlet, const std::vector<index_type>& after_rows);

/// owners_dirichlet (the ghosts' Dirichlet data as their owners have it), then the mask kept
/// on the host in mask and the count made the masked nodes': the adjustment a part's system
/// is built with.
template <typename V>
DirichletAdjustment<V> recorded_adjustment(const DirichletAdjustment<V>& owners_dirichlet, std::vector<std::uint8_t>& mask)
{
    return [&owners_dirichlet, &mask](DirichletData<V>& data) {
        if (owners_dirichlet) owners_dirichlet(data);
        mask = data.mask.to_host();
        data.count = static_cast<index_type>(std::count(mask.begin(), mask.end(), std::uint8_t(1)));
    };
}

/// The owned rows' right-hand side and initial guess of the whole part's, and its times.
template <typename V>
void keep_owned_rows(PartMatrixFreeSystem<V>& out, const Array<V>& rhs, const Array<V>& initial_guess,
                     const AssemblyTimes& times, index_type owned)
{
    out.rhs = leading(rhs, static_cast<std::size_t>(owned));
    out.initial_guess = leading(initial_guess, static_cast<std::size_t>(owned));
    out.times = times;
    rhs.executor()->synchronize();
}

/// The mesh with the cells whose nodes are all owned first, then the others (each group in
/// its order); every per-cell array (types, groups, cell data) and the device copy follow
/// (the grid and refinement parents are dropped). interior: the first group's size.
Mesh interior_cells_first(const Mesh& mesh, index_type owned, index_type& interior);

/// The owned nodes (below owned) of the mesh's cells for which take(cell) holds, ascending.
std::vector<index_type> owned_nodes_of_cells(const Mesh& mesh, index_type owned,
                                             const std::function<bool(index_type)>& take);

/// The rows i < owned with mask[i] set (the owned Dirichlet rows), ascending.
std::vector<index_type> owned_masked_rows(const std::vector<std::uint8_t>& mask, index_type owned);

}  // namespace gpufem
