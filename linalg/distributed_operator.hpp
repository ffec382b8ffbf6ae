#pragma once
// A matrix whose rows are split among ranks, applied by one rank to its part: the rank owns
// some rows (and the matching unknowns); the columns of those rows are either owned here (the
// local block, in any registered format) or ghosts owned elsewhere (the non-local block, CSR
// over the ghost columns). y = A x fetches the ghost values of x through the halo, applies the
// local block, then adds the non-local block's product (or, for a matrix-free operator, the
// cells that hold a ghost node: linalg/ghost_columns.hpp).
#include <memory>

#include "linalg/csr.hpp"
#include "linalg/ghost_columns.hpp"
#include "linalg/halo.hpp"
#include "linalg/linear_operator.hpp"

namespace gpufem {

/// A rank's rows split by their columns: owned columns (0 .. owned - 1) and ghost columns
/// (renumbered 0 .. ghosts - 1). O: the local block's row offsets (the rows' own: 64 bits past
/// 2^31 - 1 entries); the non-local block, the entries along the part's boundary, has 32-bit
/// ones.
template <typename V, typename O = index_type>
struct SplitRows {
    Csr<V, O> local;  ///< owned rows x owned columns
    Csr<V> nonlocal;  ///< owned rows x ghost columns
};

/// rows (owned rows, columns in the rank's local numbering: owned first, then `ghosts`
/// ghosts) split into its local and non-local blocks, on rows' executor (each row's entries
/// in their order).
template <typename V, typename O>
SplitRows<V, O> split_owned_columns(const Csr<V, O>& rows, index_type ghosts);

/// The same for rows whose owned columns are not as many as the rows (a transfer between two
/// distributed spaces): columns 0 .. owned_columns - 1 local, the `ghosts` after them non-local.
template <typename V, typename O>
SplitRows<V, O> split_owned_columns(const Csr<V, O>& rows, index_type owned_columns, index_type ghosts);

/// The ghost columns of the owned rows that have any: a block of those rows only (a rank's
/// rows with ghost entries are the few along its part's boundary) and the owned row of each.
template <typename V>
struct GhostRows {
    Csr<V> block;              ///< the rows with ghost entries x the ghosts
    Array<index_type> row_of;  ///< the owned row of each of block's rows
};

/// nonlocal (owned rows x ghost columns) kept for its rows with entries only.
template <typename V>
GhostRows<V> compress_ghost_rows(Csr<V> nonlocal);

/// One rank's part of a distributed matrix: vectors hold this rank's owned values only.
template <typename V>
class DistributedOperator final : public LinearOperator<V> {
public:
    /// local: the owned x owned block in any format, with its diagonal attached (becomes the
    /// operator's, for Jacobi); nonlocal: owned x ghost columns; halo: how the ghosts arrive,
    /// through comm (which must outlive the operator).
    DistributedOperator(std::unique_ptr<LinearOperator<V>> local, Csr<V> nonlocal, const HaloPlan& halo,
                        const Communicator& comm);
    /// local as above; ghost_part: what the rows add from the ghosts, applied after the halo.
    DistributedOperator(std::unique_ptr<LinearOperator<V>> local, std::unique_ptr<GhostColumns<V>> ghost_part,
                        const HaloPlan& halo, const Communicator& comm);

    index_type rows() const override { return local_->rows(); }
    index_type cols() const override { return local_->cols(); }
    const ExecPtr& executor() const override { return local_->executor(); }
    /// The local block's format.
    std::string format() const override { return local_->format(); }
    std::size_t bytes_stored() const override;
    std::size_t spmv_min_bytes() const override;
    std::string parameters() const override;
    /// Capturable when the local block is and the communicator moves data in stream order.
    bool graph_capturable() const override;
    /// The halo's bytes sent per product.
    std::size_t halo_bytes() const { return halo_.bytes_sent(); }
    /// The owned x owned block (for benchmarks of the product's parts).
    const LinearOperator<V>& local_block() const { return *local_; }
    /// y += alpha times the ghost columns applied to the ghost values the last product
    /// received (x: the owned values, which a matrix-free operator's boundary cells read too).
    void apply_ghost_columns(V alpha, const Array<V>& x, Array<V>& y) const;
    /// The ghosts' exchange.
    const HaloExchange<V>& halo() const { return halo_; }
    /// The ghost values the last product received.
    Array<V>& ghost_values() const { return ghosts_; }

protected:
    void apply_impl(V alpha, const Array<V>& x, V beta, Array<V>& y) const override;

private:
    std::unique_ptr<LinearOperator<V>> local_;
    std::unique_ptr<GhostColumns<V>> ghost_part_;
    HaloExchange<V> halo_;
    const Communicator& comm_;
    mutable Array<V> ghosts_;
};

}  // namespace gpufem
