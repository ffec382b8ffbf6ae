// Without CUDA there is no device to join: the NCCL communicator refuses to be made.
#include <stdexcept>

#include "linalg/nccl_communicator.hpp"

namespace gpufem {

struct NcclCommunicator::Handle {};

NcclCommunicator::NcclCommunicator(const MpiCommunicator& mpi, int) : mpi_(mpi)
{
    throw std::runtime_error("NCCL needs the CUDA backend: gpufem was built without CUDA");
}

NcclCommunicator::~NcclCommunicator() = default;

std::string NcclCommunicator::describe() const { return "NCCL (not built)"; }

void NcclCommunicator::all_reduce_sum(const Executor&, double*, int) const {}

void NcclCommunicator::exchange(const Executor&, std::span<const ExchangeMessage>,
                                std::span<const ExchangeMessage>) const
{
}

std::unique_ptr<OverlappedExchange> NcclCommunicator::overlapped_exchange(const ExecPtr& exec) const
{
    return mpi_.overlapped_exchange(exec);
}

}  // namespace gpufem
