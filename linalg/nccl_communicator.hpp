#pragma once
// The communicator of ranks with one CUDA device each: sums and neighbour messages of device
// data through NCCL, queued on the executor's stream (no host synchronisation, so a solver
// iteration stays capturable in a CUDA graph). NCCL's ranks are the MPI ranks; MPI starts
// them and hands round NCCL's identifier. Host data goes through MPI.
#include <memory>
#include <string>

#include "linalg/mpi_communicator.hpp"

namespace gpufem {

/// The ranks of an MpiCommunicator, each driving one CUDA device, joined by NCCL.
class NcclCommunicator final : public Communicator {
public:
    /// Joins every rank of mpi (a collective call); `device` is this rank's CUDA device (the
    /// one its executors drive). NCCL's own joining runs on a thread, so the caller goes on
    /// with other work; the first sum or exchange waits for it and throws if it failed.
    /// Throws when gpufem was built without CUDA.
    NcclCommunicator(const MpiCommunicator& mpi, int device);
    ~NcclCommunicator() override;
    NcclCommunicator(const NcclCommunicator&) = delete;
    NcclCommunicator& operator=(const NcclCommunicator&) = delete;

    int rank() const override { return mpi_.rank(); }
    int size() const override { return mpi_.size(); }
    /// Device data moves on the executor's stream.
    bool stream_ordered() const override { return true; }
    /// "NCCL, N ranks (one GPU each)".
    std::string describe() const override;
    /// ncclAllReduce in place on exec's stream (a CUDA executor of this rank's device); a host
    /// executor's values go through MPI.
    void all_reduce_sum(const Executor& exec, double* values, int count) const override;
    /// One NCCL group of sends and receives on exec's stream (device buffers); a host
    /// executor's messages go through MPI.
    void exchange(const Executor& exec, std::span<const ExchangeMessage> sends,
                  std::span<const ExchangeMessage> receives) const override;
    /// The group on a high-priority stream forked from exec's and joined back at finish, so
    /// that the work queued between start and finish runs beside the messages (also in a
    /// CUDA graph); a host executor's messages go through MPI.
    std::unique_ptr<OverlappedExchange> overlapped_exchange(const ExecPtr& exec) const override;

private:
    struct Handle;
    const MpiCommunicator& mpi_;
    std::unique_ptr<Handle> handle_;
};

}  // namespace gpufem
