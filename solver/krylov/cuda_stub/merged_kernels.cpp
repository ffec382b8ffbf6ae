// Stand-in for cuda/merged_kernels.cu and cuda/iteration_runner.cpp when gpufem is built
// without CUDA.
#include "linalg/cuda_stub/stub.hpp"
#include "solver/krylov/iteration_runner.hpp"
#include "solver/krylov/merged_kernels.hpp"

namespace gpufem::kernels::cuda {
using detail::no_cuda;

std::unique_ptr<IterationRunner> make_iteration_runner(const ExecPtr&) { no_cuda(); }

template <typename V>
void multi_dot(const Executor&, const MergedWorkspace&, std::size_t, int, const V* const*,
               const V* const*, double*) { no_cuda(); }
template <typename V>
long long invert_diagonal(const Executor&, std::size_t, const V*, V*) { no_cuda(); }
template <typename V>
void cg_start(const Executor&, const MergedWorkspace&, std::size_t, const V*, const V*, V*, V*) { no_cuda(); }
template <typename V>
void cg_alpha(const Executor&, const MergedWorkspace&, std::size_t, const V*, const V*) { no_cuda(); }
template <typename V>
void cg_update_xr(const Executor&, const MergedWorkspace&, std::size_t, const V*, const V*,
                  const V*, V*, V*) { no_cuda(); }
template <typename V>
void cg_update_xr_residual(const Executor&, const MergedWorkspace&, std::size_t, const V*,
                           const V*, V*, V*) { no_cuda(); }
template <typename V>
void cg_rho(const Executor&, const MergedWorkspace&, std::size_t, const V*, const V*, bool) { no_cuda(); }
template <typename V>
void cg_update_p(const Executor&, const MergedWorkspace&, std::size_t, const V*, const V*, V*) { no_cuda(); }
template <typename V>
void bicgstab_start(const Executor&, const MergedWorkspace&, std::size_t, const V*, V*, V*, V*,
                    V*) { no_cuda(); }
template <typename V>
void bicgstab_update_p(const Executor&, const MergedWorkspace&, std::size_t, const V*, const V*,
                       const V*, V*, V*) { no_cuda(); }
template <typename V>
void bicgstab_alpha(const Executor&, const MergedWorkspace&, std::size_t, const V*, const V*) { no_cuda(); }
template <typename V>
void bicgstab_update_s(const Executor&, const MergedWorkspace&, std::size_t, const V*, const V*,
                       const V*, V*, V*) { no_cuda(); }
template <typename V>
void bicgstab_omega(const Executor&, const MergedWorkspace&, std::size_t, const V*, const V*) { no_cuda(); }
template <typename V>
void bicgstab_update_xr(const Executor&, const MergedWorkspace&, std::size_t, const V*, const V*,
                        const V*, const V*, const V*, V*, V*) { no_cuda(); }

GPUFEM_INSTANTIATE_MERGED_KERNELS(float)
GPUFEM_INSTANTIATE_MERGED_KERNELS(double)

}  // namespace gpufem::kernels::cuda
