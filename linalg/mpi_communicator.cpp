#include "linalg/mpi_communicator.hpp"

#include <cstdlib>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <vector>

#include <mpi.h>

namespace gpufem {
namespace {

/// Throws naming the MPI call when it failed.
void check(int code, const char* call)
{
    if (code == MPI_SUCCESS) return;
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(code, text, &length);
    throw std::runtime_error(std::string("MPI: ") + call + " failed: " + std::string(text, length));
}

/// A message's byte count as MPI's int count, or a clear error.
int message_count(std::size_t bytes)
{
    if (bytes > static_cast<std::size_t>(std::numeric_limits<int>::max()))
        throw std::length_error("MPI: a message of " + std::to_string(bytes) + " bytes exceeds 2^31 - 1");
    return static_cast<int>(bytes);
}

/// Host copies of device buffers for MPI, and their way back.
struct HostStaging {
    const Executor& exec;
    std::vector<std::vector<char>> buffers;

    /// A host pointer for data (data itself on a host executor), filled from data when `read`.
    void* host(void* data, std::size_t bytes, bool read)
    {
        if (!exec.is_cuda()) return data;
        std::vector<char>& buffer = buffers.emplace_back(bytes);
        if (read && bytes) copy_bytes(*Executor::create_cpu(), buffer.data(), exec, data, bytes);
        return buffer.data();
    }
};

}  // namespace

struct MpiCommunicator::Handle {
    MPI_Comm comm = MPI_COMM_NULL;
};

namespace {

/// Non-blocking receives and sends posted at start (device data staged through host buffers
/// kept from one exchange to the next), completed at finish.
class MpiOverlappedExchange final : public OverlappedExchange {
public:
    MpiOverlappedExchange(MPI_Comm comm, ExecPtr exec) : comm_(comm), exec_(std::move(exec)) {}

    void start(std::span<const ExchangeMessage> sends, std::span<const ExchangeMessage> receives) override
    {
        constexpr int tag = 8;
        receives_.assign(receives.begin(), receives.end());
        received_.resize(receives.size());
        sent_.resize(sends.size());
        requests_.clear();
        for (std::size_t m = 0; m < receives.size(); ++m)
            check(MPI_Irecv(host_buffer(receives[m], received_[m], false), message_count(receives[m].bytes), MPI_BYTE,
                            receives[m].peer, tag, comm_, &requests_.emplace_back()),
                  "MPI_Irecv");
        for (std::size_t m = 0; m < sends.size(); ++m)
            check(MPI_Isend(host_buffer(sends[m], sent_[m], true), message_count(sends[m].bytes), MPI_BYTE,
                            sends[m].peer, tag, comm_, &requests_.emplace_back()),
                  "MPI_Isend");
    }

    void finish() override
    {
        check(MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
        requests_.clear();
        if (!exec_->is_cuda()) return;
        for (std::size_t m = 0; m < receives_.size(); ++m)
            copy_bytes(*exec_, receives_[m].data, *Executor::create_cpu(), received_[m].data(), receives_[m].bytes);
    }

private:
    /// The host memory MPI uses for message m: its own on the host, else `buffer` (filled
    /// from the device when `read`, after the executor's queued work).
    void* host_buffer(const ExchangeMessage& m, std::vector<char>& buffer, bool read) const
    {
        if (!exec_->is_cuda()) return m.data;
        buffer.resize(m.bytes);
        if (read && m.bytes) copy_bytes(*Executor::create_cpu(), buffer.data(), *exec_, m.data, m.bytes);
        return buffer.data();
    }

    MPI_Comm comm_;
    ExecPtr exec_;
    std::vector<ExchangeMessage> receives_;
    std::vector<std::vector<char>> received_, sent_;
    std::vector<MPI_Request> requests_;
};

}  // namespace

bool launched_by_mpi()
{
    for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS"})
        if (std::getenv(name)) return true;
    return false;
}

MpiSession::MpiSession(int& argc, char**& argv)
{
    int provided = 0;
    check(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
}

MpiSession::~MpiSession()
{
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
}

void MpiSession::abort_all(int code)
{
    MPI_Abort(MPI_COMM_WORLD, code);
    std::_Exit(code);
}

MpiCommunicator::MpiCommunicator() : handle_(std::make_unique<Handle>())
{
    check(MPI_Comm_dup(MPI_COMM_WORLD, &handle_->comm), "MPI_Comm_dup");
    check(MPI_Comm_rank(handle_->comm, &rank_), "MPI_Comm_rank");
    check(MPI_Comm_size(handle_->comm, &size_), "MPI_Comm_size");
    MPI_Comm node = MPI_COMM_NULL;
    check(MPI_Comm_split_type(handle_->comm, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node),
          "MPI_Comm_split_type");
    MPI_Comm_rank(node, &node_rank_);
    MPI_Comm_size(node, &node_size_);
    MPI_Comm_free(&node);
}

MpiCommunicator::~MpiCommunicator()
{
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized && handle_->comm != MPI_COMM_NULL) MPI_Comm_free(&handle_->comm);
}

std::string MpiCommunicator::describe() const
{
    return "MPI, " + std::to_string(size_) + (size_ == 1 ? " rank" : " ranks");
}

void MpiCommunicator::all_reduce_sum(const Executor& exec, double* values, int count) const
{
    if (count <= 0) return;
    const std::size_t bytes = static_cast<std::size_t>(count) * sizeof(double);
    HostStaging staging{exec, {}};
    void* host = staging.host(values, bytes, true);
    check(MPI_Allreduce(MPI_IN_PLACE, host, count, MPI_DOUBLE, MPI_SUM, handle_->comm), "MPI_Allreduce");
    if (host != values) copy_bytes(exec, values, *Executor::create_cpu(), host, bytes);
}

void MpiCommunicator::exchange(const Executor& exec, std::span<const ExchangeMessage> sends,
                               std::span<const ExchangeMessage> receives) const
{
    constexpr int tag = 7;
    HostStaging staging{exec, {}};
    std::vector<void*> received(receives.size());
    std::vector<MPI_Request> requests;
    requests.reserve(sends.size() + receives.size());
    for (std::size_t m = 0; m < receives.size(); ++m) {
        const ExchangeMessage& r = receives[m];
        received[m] = staging.host(r.data, r.bytes, false);
        check(MPI_Irecv(received[m], message_count(r.bytes), MPI_BYTE, r.peer, tag, handle_->comm,
                        &requests.emplace_back()),
              "MPI_Irecv");
    }
    for (const ExchangeMessage& s : sends)
        check(MPI_Isend(staging.host(s.data, s.bytes, true), message_count(s.bytes), MPI_BYTE, s.peer, tag,
                        handle_->comm, &requests.emplace_back()),
              "MPI_Isend");
    check(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
    for (std::size_t m = 0; m < receives.size(); ++m)
        if (received[m] != receives[m].data)
            copy_bytes(exec, receives[m].data, *Executor::create_cpu(), received[m], receives[m].bytes);
}

std::unique_ptr<OverlappedExchange> MpiCommunicator::overlapped_exchange(const ExecPtr& exec) const
{
    return std::make_unique<MpiOverlappedExchange>(handle_->comm, exec);
}

void MpiCommunicator::barrier() const
{
    check(MPI_Barrier(handle_->comm), "MPI_Barrier");
}

void MpiCommunicator::broadcast(void* data, std::size_t bytes, int root) const
{
    check(MPI_Bcast(data, message_count(bytes), MPI_BYTE, root, handle_->comm), "MPI_Bcast");
}

}  // namespace gpufem
