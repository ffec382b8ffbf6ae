#include "solver/krylov/iteration_runner.hpp"

namespace gpufem {

std::unique_ptr<IterationRunner> make_iteration_runner(const ExecPtr& exec)
{
    return exec->is_cuda() ? kernels::cuda::make_iteration_runner(exec)
                           : kernels::cpu::make_iteration_runner(exec);
}

}  // namespace gpufem
