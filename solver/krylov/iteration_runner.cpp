#include "solver/krylov/iteration_runner.hpp"

namespace gpufem {

std::unique_ptr<IterationRunner> make_iteration_runner(const ExecPtr& exec)
{
    return GPUFEM_DISPATCH(*exec, make_iteration_runner(exec));
}

}  // namespace gpufem
