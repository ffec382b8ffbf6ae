#pragma once
// IterationRunner: how the merged solvers queue their iterations and read their state. On
// CUDA the host reads the device scalars through pinned memory with an asynchronous copy and
// an event (no stall of the stream), and a batch of iterations can be captured once as a CUDA
// graph and replayed. On the CPU both are plain calls.
#include <functional>
#include <memory>

#include "linalg/backend_kernels.hpp"
#include "linalg/executor.hpp"
#include "solver/krylov/merged_scalars.hpp"

namespace gpufem {

/// Queues batches of solver iterations and reads the solver state back.
class IterationRunner {
public:
    virtual ~IterationRunner() = default;
    /// Queues the copy of *device_state into slot (0 or 1) of the host mailbox.
    virtual void post_state(const KrylovScalars* device_state, int slot) = 0;
    /// Waits until slot's copy has arrived and returns it.
    virtual KrylovScalars wait_state(int slot) = 0;
    /// Captures `batch()` (which queues a fixed number of iterations) as a graph to replay.
    /// Returns false (and queues nothing) when graphs are unavailable or the capture failed;
    /// why is in graph_failure().
    virtual bool capture(const std::function<void()>& batch) = 0;
    /// Replays the captured batch.
    virtual void replay() = 0;
    /// Why capture returned false ("" if it did not).
    virtual const std::string& graph_failure() const = 0;
};

#define GPUFEM_KERNEL_LIST "solver/krylov/iteration_runner_kernel_list.hpp"
#include "linalg/declare_kernels.hpp"

/// The runner suited to exec.
std::unique_ptr<IterationRunner> make_iteration_runner(const ExecPtr& exec);

}  // namespace gpufem
