#pragma once
// MergedBuffers: the device memory behind a MergedWorkspace (state, residual history,
// per-block partial sums, the reduction counter, the totals handed to the communicator), sized
// for one merged solve.
#include <cstdint>
#include <vector>

#include "linalg/array.hpp"
#include "linalg/communicator.hpp"
#include "solver/krylov/merged_kernels.hpp"

namespace gpufem {

/// Blocks of every merged reduction for n rows on exec: enough to fill the device (8 blocks
/// of 256 threads per SM), fewer for short vectors; 1 on the CPU.
int merged_grid(const Executor& exec, std::size_t n);

/// After a kernel whose reduction ends in step: on several processes (ws.split) its totals
/// are summed over them by comm and the step runs on its own; on one the kernel has done it.
void finish_reduction_across(const Executor& exec, const MergedWorkspace& ws, const Communicator& comm,
                             ScalarStep step);

/// Owns the buffers of one merged solve and hands out their MergedWorkspace view.
class MergedBuffers {
public:
    /// State initialised with tolerance and max_iterations (history has max_iterations + 1);
    /// split: the reductions end in MergedWorkspace::sums for an all-reduce.
    MergedBuffers(const ExecPtr& exec, std::size_t n, double tolerance, int max_iterations,
                  bool split = false);
    const MergedWorkspace& workspace() const { return ws_; }
    /// ||r_k|| / ||b|| for k = 0..iterations (waits for the device).
    std::vector<double> history(int iterations) const;

private:
    Array<std::uint8_t> state_;
    Array<double> history_;
    Array<double> partials_;
    Array<unsigned> counter_;
    Array<double> sums_;
    MergedWorkspace ws_;
};

}  // namespace gpufem
