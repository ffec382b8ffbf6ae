#include "linalg/cuda/cuda_check.hpp"
#include "linalg/cuda/device_buffer.hpp"
#include "linalg/cuda/kernel_prelude.cuh"
#include "mesh/cad_snap_kernels.hpp"

namespace gpufem::kernels::cuda {
namespace {

/// A thread per facet node: its lattice point's CAD position, or a count of the unmatched.
/// Nodes shared by several facets get the same point from each (the worker made the points
/// of shared edges and corners once).
__global__ void snap_kernel(CadSnapView view, const double* __restrict__ from, double* __restrict__ to,
                            unsigned long long* __restrict__ unmatched)
{
    const long long t = thread_index();
    if (t >= view.num_facets * view.nodes_per_facet) return;
    const long long f = t / view.nodes_per_facet;
    const index_type n = view.facets[t];
    if (n < 0) return;
    const long long coarse = f / view.children;
    const int k = nearest_lattice_point(view, coarse, from + 3 * static_cast<long long>(n));
    if (k < 0) {
        atomicAdd(unmatched, 1ULL);
        return;
    }
    const double* cad = view.cad_points + 3 * (coarse * view.lattice_points + k);
    for (int c = 0; c < 3; ++c) to[3 * static_cast<long long>(n) + c] = cad[c];
}

}  // namespace

long long snap_facet_nodes(const Executor& exec, const CadSnapView& view, const double* from, double* to)
{
    const long long count = view.num_facets * view.nodes_per_facet;
    if (count == 0) return 0;
    auto stream = stream_of(exec);
    DeviceBuffer unmatched(exec, sizeof(unsigned long long));
    GPUFEM_CUDA_CHECK(cudaMemsetAsync(unmatched.as<void>(), 0, sizeof(unsigned long long), stream));
    snap_kernel<<<grid_for(count), block_size, 0, stream>>>(view, from, to, unmatched.as<unsigned long long>());
    GPUFEM_CUDA_CHECK_LAUNCH();
    unsigned long long value = 0;
    GPUFEM_CUDA_CHECK(cudaMemcpyAsync(&value, unmatched.as<unsigned long long>(), sizeof(value),
                                      cudaMemcpyDeviceToHost, stream));
    GPUFEM_CUDA_CHECK(cudaStreamSynchronize(stream));
    return static_cast<long long>(value);
}

}  // namespace gpufem::kernels::cuda
