#pragma once
// The communicator: how the processes of one run combine their partial results and exchange
// the values their neighbours own. Everything that crosses processes goes through it — the
// Krylov solvers' reductions (dots, norms, the merged kernels' sums before their scalar step),
// a distributed operator's input exchange, the output's gathering — so that one process, MPI
// on the host and NCCL on the devices are implementations of one small interface. On one
// process (serial_communicator) every operation is a no-op and costs nothing.
#include <cstddef>
#include <memory>
#include <span>
#include <string>

#include "linalg/executor.hpp"

namespace gpufem {

/// One message of a neighbour exchange: bytes in an executor's memory sent to, or received
/// from, the process peer.
struct ExchangeMessage {
    int peer = 0;
    void* data = nullptr;  ///< read for a send, written for a receive
    std::size_t bytes = 0;
};

/// A neighbour exchange in two steps, so that the executor's other work runs while the
/// messages move: start queues the sends and receives after the work queued so far, finish
/// makes the work queued after it see the received data. Made once for a halo (its streams,
/// events, requests and host buffers) and used for every update; one exchange in flight at a
/// time, and the buffers untouched between start and finish.
class OverlappedExchange {
public:
    virtual ~OverlappedExchange() = default;
    /// Queues every message of sends and receives (buffers in the executor's memory).
    virtual void start(std::span<const ExchangeMessage> sends, std::span<const ExchangeMessage> receives) = 0;
    /// Completes the exchange started last.
    virtual void finish() = 0;
};

/// The processes of a run and the collective operations between them.
class Communicator {
public:
    virtual ~Communicator() = default;

    /// This process's rank, 0 .. size() - 1.
    virtual int rank() const = 0;
    /// The number of processes.
    virtual int size() const = 0;
    /// What it is, for logs and report.json ("one process", "MPI, 4 ranks", ...).
    virtual std::string describe() const = 0;
    /// Whether sums must be combined across processes: the reductions then go through
    /// all_reduce_sum, and the merged solvers split each fused reduction at it. False for one
    /// process, where the solvers keep their fused kernels.
    virtual bool reduces() const { return size() > 1; }
    /// Whether device data moves in the executor's stream order without host
    /// synchronisation (then an iteration that crosses processes can be captured in a CUDA
    /// graph). False unless an implementation says so.
    virtual bool stream_ordered() const { return false; }
    /// values[0 .. count) replaced by their sums over every process, in place, in exec's
    /// memory (device memory for a CUDA executor), ordered with exec's other work: no host
    /// synchronisation on a device, so a solver iteration stays capturable in a CUDA graph.
    virtual void all_reduce_sum(const Executor& exec, double* values, int count) const = 0;
    /// Sends every message of sends and receives every message of receives (buffers in exec's
    /// memory), as one group ordered with exec's other work; the receives' data is in place
    /// when the work queued after the call runs.
    virtual void exchange(const Executor& exec, std::span<const ExchangeMessage> sends,
                          std::span<const ExchangeMessage> receives) const = 0;
    /// An exchange on exec that overlaps the work queued between its start and finish (the
    /// communicator must outlive it). By default its start does the whole exchange.
    virtual std::unique_ptr<OverlappedExchange> overlapped_exchange(const ExecPtr& exec) const;
};

/// The communicator of a run on one process: rank 0 of 1, sums are already total, and there
/// is no neighbour to exchange with (a message to any peer is a logic error).
class SerialCommunicator final : public Communicator {
public:
    int rank() const override { return 0; }
    int size() const override { return 1; }
    std::string describe() const override { return "one process"; }
    bool stream_ordered() const override { return true; }
    void all_reduce_sum(const Executor&, double*, int) const override {}
    void exchange(const Executor& exec, std::span<const ExchangeMessage> sends,
                  std::span<const ExchangeMessage> receives) const override;
};

/// The one-process communicator every single-process run shares.
const Communicator& serial_communicator();

/// The global sum of a value in host memory: value itself on one process, otherwise
/// all_reduce_sum on the host.
double sum_over_processes(const Communicator& comm, double value);

}  // namespace gpufem
