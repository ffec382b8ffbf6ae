#include "linalg/interval_timer.hpp"

namespace gpufem {

std::unique_ptr<IntervalTimer> make_interval_timer(const ExecPtr& exec)
{
    return exec->is_cuda() ? kernels::cuda::make_interval_timer(exec)
                           : kernels::cpu::make_interval_timer(exec);
}

}  // namespace gpufem
