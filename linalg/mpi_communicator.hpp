#pragma once
// The communicator of processes started by an MPI launcher (mpirun, srun): sums and neighbour
// messages through MPI. MPI moves host memory here; values in a device executor's memory are
// staged through the host after the executor's queued work (a device communicator keeps them
// on the device and in stream order).
#include <memory>
#include <string>

#include "linalg/communicator.hpp"

namespace gpufem {

/// Whether this process was started by an MPI launcher (Open MPI's mpirun, or a PMI/PMIx
/// launcher such as srun): then a run is one rank of several, or of one.
bool launched_by_mpi();

/// MPI for the lifetime of a process: initialised (with threads, funnelled) on construction,
/// finalised on destruction; at most one per process, made early in main.
class MpiSession {
public:
    MpiSession(int& argc, char**& argv);
    ~MpiSession();
    MpiSession(const MpiSession&) = delete;
    MpiSession& operator=(const MpiSession&) = delete;
    /// Stops every rank of the run with exit code `code` (a rank that cannot go on would
    /// otherwise leave the others waiting in a collective).
    [[noreturn]] static void abort_all(int code);
};

/// The processes of MPI_COMM_WORLD (MPI must be initialised: MpiSession).
class MpiCommunicator final : public Communicator {
public:
    /// Over every process of the run (a duplicate of MPI_COMM_WORLD, so that its messages
    /// never match another library's).
    MpiCommunicator();
    ~MpiCommunicator() override;
    MpiCommunicator(const MpiCommunicator&) = delete;
    MpiCommunicator& operator=(const MpiCommunicator&) = delete;

    int rank() const override { return rank_; }
    int size() const override { return size_; }
    /// "MPI, N ranks".
    std::string describe() const override;
    /// MPI_Allreduce in place; device values staged through the host.
    void all_reduce_sum(const Executor& exec, double* values, int count) const override;
    /// Non-blocking receives and sends, all completed before returning; device buffers staged
    /// through the host after the executor's queued work.
    void exchange(const Executor& exec, std::span<const ExchangeMessage> sends,
                  std::span<const ExchangeMessage> receives) const override;
    /// Receives and sends posted at start and completed at finish, so that host work between
    /// them overlaps the messages (device data staged through the host).
    std::unique_ptr<OverlappedExchange> overlapped_exchange(const ExecPtr& exec) const override;
    /// Waits until every rank has arrived (for tests and phase timing).
    void barrier() const;
    /// The bytes at data (host memory) of rank root, copied to every rank's data.
    void broadcast(void* data, std::size_t bytes, int root) const;
    /// This rank's number among the ranks on its node (the GPU it takes), 0 .. node size - 1.
    int node_rank() const { return node_rank_; }
    /// The ranks on this rank's node.
    int node_size() const { return node_size_; }

private:
    struct Handle;
    std::unique_ptr<Handle> handle_;
    int rank_ = 0;
    int size_ = 1;
    int node_rank_ = 0;
    int node_size_ = 1;
};

}  // namespace gpufem
