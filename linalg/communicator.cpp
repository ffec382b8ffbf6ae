#include "linalg/communicator.hpp"

#include <stdexcept>

namespace gpufem {
namespace {

/// An exchange done whole when it starts.
class ExchangeAtStart final : public OverlappedExchange {
public:
    ExchangeAtStart(const Communicator& comm, ExecPtr exec) : comm_(comm), exec_(std::move(exec)) {}
    void start(std::span<const ExchangeMessage> sends, std::span<const ExchangeMessage> receives) override
    {
        comm_.exchange(*exec_, sends, receives);
    }
    void finish() override {}

private:
    const Communicator& comm_;
    ExecPtr exec_;
};

}  // namespace

std::unique_ptr<OverlappedExchange> Communicator::overlapped_exchange(const ExecPtr& exec) const
{
    return std::make_unique<ExchangeAtStart>(*this, exec);
}

void SerialCommunicator::exchange(const Executor&, std::span<const ExchangeMessage> sends,
                                  std::span<const ExchangeMessage> receives) const
{
    if (!sends.empty() || !receives.empty())
        throw std::logic_error("communicator: a run on one process has no neighbour to exchange with");
}

const Communicator& serial_communicator()
{
    static const SerialCommunicator one;
    return one;
}

double sum_over_processes(const Communicator& comm, double value)
{
    if (!comm.reduces()) return value;
    comm.all_reduce_sum(*Executor::create_cpu(), &value, 1);
    return value;
}

}  // namespace gpufem
