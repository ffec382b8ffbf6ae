#include "linalg/distributed_operator.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "linalg/csr_operator.hpp"
#include "linalg/split_kernels.hpp"

namespace gpufem {

template <typename V, typename O>
SplitRows<V, O> split_owned_columns(const Csr<V, O>& rows, index_type ghosts)
{
    return split_owned_columns(rows, rows.rows, ghosts);
}

template <typename V, typename O>
SplitRows<V, O> split_owned_columns(const Csr<V, O>& rows, index_type owned_columns, index_type ghosts)
{
    const ExecPtr& exec = rows.executor();
    const Executor& e = *exec;
    const index_type owned = rows.rows;
    if (rows.cols != owned_columns + ghosts)
        throw std::invalid_argument("split_owned_columns: the rows' columns are not the owned and ghost unknowns");
    const auto offsets = static_cast<std::size_t>(owned) + 1;
    Array<O> local_ptr(exec, offsets);
    Array<index_type> nonlocal_ptr(exec, offsets);
    GPUFEM_DISPATCH(e, split_row_offsets(e, rows, owned_columns, local_ptr.data(), nonlocal_ptr.data()));
    O local_nnz = 0;
    index_type nonlocal_nnz = 0;
    const ExecPtr host = Executor::create_cpu();
    copy_bytes(*host, &local_nnz, e, local_ptr.data() + owned, sizeof(O));
    copy_bytes(*host, &nonlocal_nnz, e, nonlocal_ptr.data() + owned, sizeof(index_type));
    const auto local_entries = static_cast<std::size_t>(local_nnz);
    SplitRows<V, O> out{Csr<V, O>{owned, owned_columns, std::move(local_ptr), Array<index_type>(exec, local_entries),
                                  Array<V>(exec, local_entries)},
                        Csr<V>{owned, ghosts, std::move(nonlocal_ptr), Array<index_type>(exec, nonlocal_nnz),
                               Array<V>(exec, nonlocal_nnz)}};
    GPUFEM_DISPATCH(e, split_rows(e, rows, owned_columns, out.local.row_ptr.data(), out.local.col_idx.data(),
                                  out.local.values.data(), out.nonlocal.row_ptr.data(),
                                  out.nonlocal.col_idx.data(), out.nonlocal.values.data()));
    return out;
}

template <typename V>
GhostRows<V> compress_ghost_rows(Csr<V> nonlocal)
{
    const ExecPtr exec = nonlocal.executor();
    const Executor& e = *exec;
    const auto rows = static_cast<std::size_t>(nonlocal.rows);
    Array<index_type> at(exec, rows), ends(exec, rows + 1);
    zero_bytes(e, ends.data(), sizeof(index_type));
    const index_type count = GPUFEM_DISPATCH(e, nonempty_rows(e, nonlocal, at.data(), ends.data() + 1));
    const auto kept = static_cast<std::size_t>(count);
    Array<index_type> row_of(exec, kept), compressed(exec, kept + 1);
    copy_bytes(e, row_of.data(), e, at.data(), kept * sizeof(index_type));
    copy_bytes(e, compressed.data(), e, ends.data(), (kept + 1) * sizeof(index_type));
    e.synchronize();  // at and ends are freed on return
    // The entries stay where they are: the empty rows held none.
    return {Csr<V>{count, nonlocal.cols, std::move(compressed), std::move(nonlocal.col_idx), std::move(nonlocal.values)},
            std::move(row_of)};
}

namespace {

/// The assembled ghost columns: the owned rows' entries in ghost columns, kept for the rows
/// that have any.
template <typename V>
class CsrGhostColumns final : public GhostColumns<V> {
public:
    explicit CsrGhostColumns(Csr<V> nonlocal) : rows_(compress_ghost_rows(std::move(nonlocal))) {}

    void apply(V alpha, const Array<V>&, const Array<V>& ghosts, Array<V>& y) const override
    {
        if (rows_.block.rows == 0) return;
        const Executor& e = *y.executor();
        GPUFEM_DISPATCH(e, add_compressed_rows(e, rows_.block, rows_.row_of.data(), alpha, ghosts.data(), y.data()));
    }
    std::size_t bytes_stored() const override { return rows_.block.bytes_stored() + rows_.row_of.bytes(); }
    /// The block, its row numbers, and y read and written on its rows.
    std::size_t spmv_min_bytes() const override
    {
        return bytes_stored() + 2 * static_cast<std::size_t>(rows_.block.rows) * sizeof(V);
    }

private:
    GhostRows<V> rows_;
};

}  // namespace

template <typename V>
DistributedOperator<V>::DistributedOperator(std::unique_ptr<LinearOperator<V>> local, Csr<V> nonlocal,
                                            const HaloPlan& halo, const Communicator& comm)
    : DistributedOperator(std::move(local), nullptr, halo, comm)
{
    if (nonlocal.rows != local_->rows() || nonlocal.cols != halo.ghosts())
        throw std::invalid_argument("DistributedOperator: the non-local block is not owned rows x ghost columns");
    ghost_part_ = std::make_unique<CsrGhostColumns<V>>(std::move(nonlocal));
}

template <typename V>
DistributedOperator<V>::DistributedOperator(std::unique_ptr<LinearOperator<V>> local,
                                            std::unique_ptr<GhostColumns<V>> ghost_part, const HaloPlan& halo,
                                            const Communicator& comm)
    : local_(std::move(local)), ghost_part_(std::move(ghost_part)), halo_(halo, local_->executor(), comm),
      comm_(comm), ghosts_(local_->executor(), static_cast<std::size_t>(halo.ghosts()))
{
    if (!local_->diagonal().empty()) this->set_diagonal(local_->diagonal().clone_to(local_->executor()));
}

template <typename V>
std::size_t DistributedOperator<V>::bytes_stored() const
{
    return local_->bytes_stored() + ghost_part_->bytes_stored() + ghosts_.size() * sizeof(V) + halo_.bytes_sent();
}

template <typename V>
std::size_t DistributedOperator<V>::spmv_min_bytes() const
{
    return local_->spmv_min_bytes() + ghost_part_->spmv_min_bytes() + ghosts_.size() * sizeof(V);
}

template <typename V>
std::string DistributedOperator<V>::parameters() const
{
    std::string out = local_->parameters();
    const std::string ghost_part = ghost_part_->parameters();
    if (!ghost_part.empty()) out += (out.empty() ? "" : "; ") + ghost_part;
    return fmt::format("{}{}{} ghosts, {} bytes sent per product", out, out.empty() ? "" : "; ", ghosts_.size(),
                       halo_.bytes_sent());
}

template <typename V>
bool DistributedOperator<V>::graph_capturable() const
{
    return local_->graph_capturable() && comm_.stream_ordered();
}

template <typename V>
void DistributedOperator<V>::apply_impl(V alpha, const Array<V>& x, V beta, Array<V>& y) const
{
    // The halo moves while the local block is multiplied; the ghost columns follow.
    halo_.start(x, ghosts_);
    local_->apply(alpha, x, beta, y);
    halo_.finish();
    apply_ghost_columns(alpha, x, y);
}

template <typename V>
void DistributedOperator<V>::apply_ghost_columns(V alpha, const Array<V>& x, Array<V>& y) const
{
    ghost_part_->apply(alpha, x, ghosts_, y);
}

template GhostRows<float> compress_ghost_rows(Csr<float>);
template GhostRows<double> compress_ghost_rows(Csr<double>);
#define GPUFEM_INSTANTIATE(V, O)                                                                    \
    template SplitRows<V, O> split_owned_columns(const Csr<V, O>&, index_type);                     \
    template SplitRows<V, O> split_owned_columns(const Csr<V, O>&, index_type, index_type);
GPUFEM_INSTANTIATE(float, index_type)
GPUFEM_INSTANTIATE(double, index_type)
GPUFEM_INSTANTIATE(float, wide_offset_type)
GPUFEM_INSTANTIATE(double, wide_offset_type)
#undef GPUFEM_INSTANTIATE
template class DistributedOperator<float>;
template class DistributedOperator<double>;

}  // namespace gpufem
