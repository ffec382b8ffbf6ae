#pragma once
// The setup steps of a multigrid level whose rows are split among ranks
// (solver/multigrid/distributed_amg.hpp): each rank's aggregates are its own, so its
// prolongator P maps its owned fine rows to its own coarse unknowns, and the Galerkin product
// R A P needs, beside its own P, the rows of P that its ghost columns name (exchanged once
// through the level's halo). Coarse unknowns are numbered rank after rank: rank r's are
// offsets[r] .. offsets[r + 1] - 1.
#include <vector>

#include "linalg/communicator.hpp"
#include "linalg/csr.hpp"
#include "linalg/distributed_operator.hpp"
#include "linalg/halo.hpp"
#include "solver/multigrid/aggregation.hpp"
#include "solver/multigrid/part_space.hpp"

namespace gpufem {

/// The matrix with a single 1 in each row i, at column columns[i] (of cols), on exec: S A
/// picks (and orders) rows of A, A S^T renumbers its columns.
template <typename V>
Csr<V> unit_rows(const std::vector<index_type>& columns, index_type cols, const ExecPtr& exec);

/// Rows begin .. end - 1 of a, on a's executor.
template <typename V>
Csr<V> row_slice(const Csr<V>& a, index_type begin, index_type end);

/// a with column c renumbered to[c] (of cols), in place on a's executor (rows keep their
/// entries' order).
template <typename V>
Csr<V> renumbered_columns(Csr<V> a, const std::vector<index_type>& to, index_type cols);

/// The halo of a rank with `owned` unknowns numbered rank after rank (rank r's from
/// offsets[r]) and the ghosts of these global numbers (increasing), which their owners send.
/// Collective over host.
HaloPlan ghost_halo(const Communicator& host, index_type owned, const std::vector<index_type>& offsets,
                    const std::vector<index_type>& ghosts);

/// Each rank's first coarse unknown and, last, their total: count is this rank's (ranks + 1
/// values, the same on every rank). Collective over host.
std::vector<index_type> rank_offsets(const Communicator& host, index_type count);

/// A rank's smoothed prolongator P = (I - omega D^-1 A_f) P0 for its aggregates, A_f its owned
/// block local with the row sums of its ghost columns nonlocal added to the diagonal (so that
/// a constant is still interpolated exactly: the couplings to other ranks' unknowns lumped
/// onto the diagonal instead of dropped). dinv: 1 / diag(A). No copy of local is made.
template <typename V>
Csr<V> rank_prolongator(const Csr<V>& local, const Csr<V>& nonlocal, const Array<V>& dinv, double omega,
                        const Aggregates& aggregates);

/// The rows of the ranks' prolongators that this rank's ghosts name: row g of the result is
/// ghost g's row of its owner's P, with global coarse columns (of total). p: this rank's P
/// (owned rows x its own coarse unknowns, numbered from first). The row lengths go over host,
/// the entries over device in p's executor's memory (they never come to the host). Collective
/// over both; the result lives on p's executor.
template <typename V>
Csr<V> ghost_prolongator_rows(const Csr<V>& p, index_type first, index_type total, const HaloPlan& halo,
                              const Communicator& host, const Communicator& device);

/// A coarse level's ghost columns as a distributed operator takes them: renumbered
/// 0 .. ghosts - 1 (in increasing global order, so grouped by owner in rank order), and the
/// halo that brings them.
template <typename V>
struct CoarseGhosts {
    Csr<V> nonlocal;  ///< owned x ghosts
    HaloPlan halo;
};

/// The ghost columns of a rank's owned coarse rows from wide (owned rows x every coarse
/// unknown, holding other ranks' columns only). Collective over host.
template <typename V>
CoarseGhosts<V> coarse_ghost_columns(const Csr<V>& wide, const std::vector<index_type>& offsets,
                                     const Communicator& host);

/// The whole coarse matrix on every rank (offsets.back() rows, in the global numbering): each
/// rank's rows are local (its own columns) and wide (the other ranks' columns). Collective over
/// host (the sizes) and device (the rows, in local's executor's memory); on local's executor.
template <typename V>
Csr<V> gathered_matrix(const Csr<V>& local, const Csr<V>& wide, const std::vector<index_type>& offsets,
                       const Communicator& host, const Communicator& device);

/// A level of p-multigrid across ranks made from a given coarse space: the prolongation P
/// (this rank's owned finer rows x owned and ghost coarse columns) and the restriction
/// R = P^T (owned coarse rows x owned and ghost finer columns), each split into its local and
/// non-local blocks, and the Galerkin operator R A P (owned coarse rows) as its own columns
/// and the other ranks' (global numbers, as coarse_ghost_columns takes them).
template <typename V>
struct SpaceTransfer {
    SplitRows<V> prolongation, restriction;
    Csr<V> coarse_local, coarse_wide;
};

/// The level below the finer one whose owned rows are local (owned columns; O: its row
/// offsets, 64 bits past 2^31 - 1 entries) and nonlocal (the ghosts of halo), for the coarse
/// space (its transfer's rows: the finer owned unknowns).
/// The ghosts' rows of P and of A P come from their owners (through halo, once each).
/// Collective over host and device; on local's executor. Throws std::logic_error when a finer
/// unknown that interpolates from a coarse one is neither owned by nor a ghost of the coarse
/// one's owner.
template <typename V, typename O>
SpaceTransfer<V> space_transfer(const Csr<V, O>& local, const Csr<V>& nonlocal, const HaloPlan& halo,
                                const PartSpace<V>& space, const Communicator& host, const Communicator& device);

}  // namespace gpufem
