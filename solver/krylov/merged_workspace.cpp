#include "solver/krylov/merged_workspace.hpp"

#include <algorithm>

namespace gpufem {

int merged_grid(const Executor& exec, std::size_t n)
{
    if (!exec.is_cuda()) return 1;
    const std::size_t blocks = (n + 255) / 256;
    const std::size_t most = 8 * static_cast<std::size_t>(std::max(1, exec.compute_units()));
    return static_cast<int>(std::max<std::size_t>(1, std::min(blocks, most)));
}

MergedBuffers::MergedBuffers(const ExecPtr& exec, std::size_t n, double tolerance,
                             int max_iterations, bool split)
    : state_(exec, sizeof(KrylovScalars)),
      history_(exec, static_cast<std::size_t>(max_iterations) + 1),
      counter_(exec, 1),
      sums_(exec, max_dots)
{
    ws_.split = split;
    ws_.sums = sums_.data();
    ws_.grid = merged_grid(*exec, n);
    partials_ = Array<double>(exec, static_cast<std::size_t>(max_dots) * ws_.grid);
    ws_.state = reinterpret_cast<KrylovScalars*>(state_.data());
    ws_.history = history_.data();
    ws_.partials = partials_.data();
    ws_.counter = counter_.data();
    const Executor& e = *exec;
    GPUFEM_DISPATCH(e, merged_init(e, ws_, tolerance, max_iterations));  // queued, no round trip
}

void finish_reduction_across(const Executor& exec, const MergedWorkspace& ws, const Communicator& comm,
                             ScalarStep step)
{
    if (!ws.split) return;
    comm.all_reduce_sum(exec, ws.sums, scalar_step_sums(step));
    GPUFEM_DISPATCH(exec, scalar_step(exec, ws, step));
}

std::vector<double> MergedBuffers::history(int iterations) const
{
    std::vector<double> host(static_cast<std::size_t>(iterations) + 1);
    copy_bytes(*Executor::create_cpu(), host.data(), *history_.executor(), history_.data(),
               host.size() * sizeof(double));
    return host;
}

}  // namespace gpufem
