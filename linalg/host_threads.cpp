#include "linalg/host_threads.hpp"

#include <omp.h>
#include <unistd.h>

#include <cstdlib>
#include <stdexcept>
#include <string>

namespace gpufem {

int host_threads() { return omp_get_max_threads(); }

void set_host_threads(int n)
{
    if (n < 1 || n > 4096)
        throw std::invalid_argument("--threads must be between 1 and 4096, got " +
                                    std::to_string(n));
    omp_set_num_threads(n);
}

void ensure_passive_thread_wait(char** argv)
{
    if (std::getenv("OMP_WAIT_POLICY") != nullptr) return;  // the user's choice (or done)
    if (setenv("OMP_WAIT_POLICY", "passive", 1) != 0) return;
    execv("/proc/self/exe", argv);
    // Still here: no /proc or not executable; keep the runtime's default policy.
}

}  // namespace gpufem
