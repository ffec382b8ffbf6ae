#include "linalg/cpu/chunked_loops.hpp"
#include "linalg/precision.hpp"

namespace gpufem::kernels::cpu {

void round_to_float(const Executor&, std::size_t n, const double* x, float* y)
{
    chunked_for(static_cast<long long>(n), [&](long long i) { y[i] = static_cast<float>(x[i]); });
}

void widen_to_double(const Executor&, std::size_t n, const float* x, double* y)
{
    chunked_for(static_cast<long long>(n), [&](long long i) { y[i] = static_cast<double>(x[i]); });
}

}  // namespace gpufem::kernels::cpu
