#include "linalg/halo.hpp"

#include <stdexcept>

#include "linalg/reordering_kernels.hpp"

namespace gpufem {

index_type HaloPlan::ghosts() const
{
    index_type total = 0;
    for (const GhostBlock& block : receives) total += block.count;
    return total;
}

index_type HaloPlan::sent() const
{
    index_type total = 0;
    for (const Send& send : sends) total += static_cast<index_type>(send.local.size());
    return total;
}

template <typename V>
HaloExchange<V>::HaloExchange(const HaloPlan& plan, const ExecPtr& exec, const Communicator& comm)
    : exec_(exec), ghost_count_(plan.ghosts()), overlapped_(comm.overlapped_exchange(exec))
{
    std::vector<index_type> gather;
    gather.reserve(static_cast<std::size_t>(plan.sent()));
    for (const HaloPlan::Send& send : plan.sends) gather.insert(gather.end(), send.local.begin(), send.local.end());
    gather_ = Array<index_type>::from_host(exec, gather);
    send_buffer_ = Array<V>(exec, gather.size());
    std::size_t at = 0;
    for (const HaloPlan::Send& send : plan.sends) {
        sends_.push_back({send.peer, send_buffer_.data() + at, send.local.size() * sizeof(V)});
        at += send.local.size();
    }
    index_type ghost = 0;
    for (const GhostBlock& block : plan.receives) {
        receives_.push_back({block.owner, nullptr, static_cast<std::size_t>(block.count) * sizeof(V)});
        receive_offsets_.push_back(ghost);
        ghost += block.count;
    }
}

template <typename V>
void HaloExchange<V>::update(const Array<V>& owned, Array<V>& ghosts) const
{
    start(owned, ghosts);
    finish();
}

template <typename V>
void HaloExchange<V>::start(const Array<V>& owned, Array<V>& ghosts) const
{
    if (ghosts.size() != static_cast<std::size_t>(ghost_count_))
        throw std::invalid_argument("HaloExchange::update: the ghost vector's length is not the halo's");
    const Executor& e = *exec_;
    // Gather: send_buffer[k] = owned[gather[k]], the permutation kernel over the sent values.
    if (!gather_.empty())
        GPUFEM_DISPATCH(e, permute_vector(e, static_cast<index_type>(gather_.size()), gather_.data(), owned.data(),
                                          send_buffer_.data(), false));
    for (std::size_t r = 0; r < receives_.size(); ++r) receives_[r].data = ghosts.data() + receive_offsets_[r];
    overlapped_->start(sends_, receives_);
}

template <typename V>
void HaloExchange<V>::finish() const
{
    overlapped_->finish();
}

template class HaloExchange<float>;
template class HaloExchange<double>;

}  // namespace gpufem
