#include "linalg/distributed_operator.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "linalg/csr_operator.hpp"

namespace gpufem {

template <typename V>
SplitRows<V> split_owned_columns(const Csr<V>& rows, index_type ghosts)
{
    const ExecPtr& exec = rows.executor();
    const index_type owned = rows.rows;
    if (rows.cols != owned + ghosts)
        throw std::invalid_argument("split_owned_columns: the rows' columns are not the owned and ghost unknowns");
    const std::vector<index_type> ptr = rows.row_ptr.to_host(), col = rows.col_idx.to_host();
    const std::vector<V> val = rows.values.to_host();
    std::vector<index_type> lp{0}, lc, np{0}, nc;
    std::vector<V> lv, nv;
    for (index_type i = 0; i < owned; ++i) {
        for (index_type k = ptr[i]; k < ptr[i + 1]; ++k) {
            const bool here = col[k] < owned;
            (here ? lc : nc).push_back(here ? col[k] : col[k] - owned);
            (here ? lv : nv).push_back(val[k]);
        }
        lp.push_back(static_cast<index_type>(lc.size()));
        np.push_back(static_cast<index_type>(nc.size()));
    }
    const auto upload = [&](index_type cols, const auto& p, const auto& c, const auto& v) {
        return Csr<V>{owned, cols, Array<index_type>::from_host(exec, p), Array<index_type>::from_host(exec, c),
                      Array<V>::from_host(exec, v)};
    };
    return {upload(owned, lp, lc, lv), upload(ghosts, np, nc, nv)};
}

template <typename V>
DistributedOperator<V>::DistributedOperator(std::unique_ptr<LinearOperator<V>> local, Csr<V> nonlocal,
                                            const HaloPlan& halo, const Communicator& comm)
    : local_(std::move(local)), halo_(halo, local_->executor(), comm), comm_(comm),
      ghosts_(local_->executor(), static_cast<std::size_t>(halo.ghosts()))
{
    if (nonlocal.rows != local_->rows() || nonlocal.cols != halo.ghosts())
        throw std::invalid_argument("DistributedOperator: the non-local block is not owned rows x ghost columns");
    nonlocal_ = std::make_unique<CsrOperator<V>>(std::move(nonlocal));
    if (!local_->diagonal().empty()) this->set_diagonal(local_->diagonal().clone_to(local_->executor()));
}

template <typename V>
std::size_t DistributedOperator<V>::bytes_stored() const
{
    return local_->bytes_stored() + nonlocal_->bytes_stored() + ghosts_.size() * sizeof(V) + halo_.bytes_sent();
}

template <typename V>
std::size_t DistributedOperator<V>::spmv_min_bytes() const
{
    return local_->spmv_min_bytes() + nonlocal_->spmv_min_bytes();
}

template <typename V>
std::string DistributedOperator<V>::parameters() const
{
    return fmt::format("{}{}{} ghosts, {} bytes sent per product", local_->parameters(),
                       local_->parameters().empty() ? "" : "; ", ghosts_.size(), halo_.bytes_sent());
}

template <typename V>
bool DistributedOperator<V>::graph_capturable() const
{
    return local_->graph_capturable() && comm_.stream_ordered();
}

template <typename V>
void DistributedOperator<V>::apply_impl(V alpha, const Array<V>& x, V beta, Array<V>& y) const
{
    halo_.update(x, ghosts_);
    local_->apply(alpha, x, beta, y);
    if (!ghosts_.empty()) nonlocal_->apply(alpha, ghosts_, V(1), y);
}

template SplitRows<float> split_owned_columns(const Csr<float>&, index_type);
template SplitRows<double> split_owned_columns(const Csr<double>&, index_type);
template class DistributedOperator<float>;
template class DistributedOperator<double>;

}  // namespace gpufem
