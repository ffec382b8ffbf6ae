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
    : comm_(comm), exec_(exec), receives_(plan.receives), ghost_count_(plan.ghosts())
{
    std::vector<index_type> gather;
    gather.reserve(static_cast<std::size_t>(plan.sent()));
    send_offsets_.push_back(0);
    for (const HaloPlan::Send& send : plan.sends) {
        send_peers_.push_back(send.peer);
        gather.insert(gather.end(), send.local.begin(), send.local.end());
        send_offsets_.push_back(static_cast<index_type>(gather.size()));
    }
    gather_ = Array<index_type>::from_host(exec, gather);
    send_buffer_ = Array<V>(exec, gather.size());
}

template <typename V>
void HaloExchange<V>::update(const Array<V>& owned, Array<V>& ghosts) const
{
    if (ghosts.size() != static_cast<std::size_t>(ghost_count_))
        throw std::invalid_argument("HaloExchange::update: the ghost vector's length is not the halo's");
    const Executor& e = *exec_;
    // Gather: send_buffer[k] = owned[gather[k]], the permutation kernel over the sent values.
    if (!gather_.empty())
        GPUFEM_DISPATCH(e, permute_vector(e, static_cast<index_type>(gather_.size()), gather_.data(), owned.data(),
                                          send_buffer_.data(), false));
    std::vector<ExchangeMessage> sends, receives;
    for (std::size_t s = 0; s < send_peers_.size(); ++s)
        sends.push_back({send_peers_[s], send_buffer_.data() + send_offsets_[s],
                         static_cast<std::size_t>(send_offsets_[s + 1] - send_offsets_[s]) * sizeof(V)});
    index_type at = 0;
    for (const GhostBlock& block : receives_) {
        receives.push_back({block.owner, ghosts.data() + at, static_cast<std::size_t>(block.count) * sizeof(V)});
        at += block.count;
    }
    comm_.exchange(e, sends, receives);
}

template class HaloExchange<float>;
template class HaloExchange<double>;

}  // namespace gpufem
