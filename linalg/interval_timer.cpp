#include "linalg/interval_timer.hpp"

namespace gpufem {

std::unique_ptr<IntervalTimer> make_interval_timer(const ExecPtr& exec)
{
    return GPUFEM_DISPATCH(*exec, make_interval_timer(exec));
}

}  // namespace gpufem
