#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>

#include "assembly/cuda/abs_max.cuh"
#include "assembly/cuda/first_failure.hpp"
#include "assembly/fv_kernels.hpp"
#include "linalg/cuda/cuda_check.hpp"
#include "linalg/cuda/kernel_prelude.cuh"

namespace gpufem::kernels::cuda {
namespace {

using gpufem::cuda::FirstFailure;

__global__ void cell_geometry_kernel(FvMeshView mesh, double* __restrict__ centroid,
                                     double* __restrict__ volume, unsigned long long* first_bad)
{
    const long long c = thread_index();
    if (c >= mesh.num_cells) return;
    double v = 0.0;
    fv_cell_shape(mesh, c, centroid + 3 * c, v);
    volume[c] = v;
    if (!(v > 0)) atomicMin(first_bad, static_cast<unsigned long long>(c));
}

__global__ void row_lengths_kernel(FvMeshView mesh, long long pinned, index_type* __restrict__ lengths)
{
    const long long c = thread_index();
    if (c >= mesh.num_cells) return;
    index_type count = 1;
    if (c != pinned)
        for (int f = 0, faces = fv_shape(mesh, c).faces; f < faces; ++f) {
            const index_type n = mesh.neighbour[c * mesh.faces_per_cell + f];
            count += n >= 0 && n != pinned;
        }
    lengths[c] = count;
}

__global__ void nonorthogonality_kernel(FvMeshView mesh, double* __restrict__ largest)
{
    const long long c = thread_index();
    if (c >= mesh.num_cells) return;
    double value = 0.0;
    for (int f = 0, faces = fv_shape(mesh, c).faces; f < faces; ++f) value = fmax(value, fv_face_nonorthogonality(mesh, c, f));
    largest[c] = value;
}

/// One thread per row: the row gathered in registers, sorted, written (fv_kernels.hpp).
template <typename V>
__global__ void assemble_kernel(FvMeshView mesh, FvProblemView problem,
                                const index_type* __restrict__ row_ptr, index_type* __restrict__ cols,
                                V* __restrict__ values, V* __restrict__ rhs)
{
    const long long c = thread_index();
    if (c < mesh.num_cells) fv_write_row(mesh, problem, c, row_ptr, cols, values, rhs);
}

template <typename V>
__global__ void gradient_kernel(FvMeshView mesh, FvProblemView problem, const V* __restrict__ u, long long cells,
                                double* __restrict__ gradient)
{
    const long long c = thread_index();
    if (c < cells) fv_cell_gradient(mesh, problem, u, c, gradient + 3 * c);
}

template <typename V>
__global__ void corrected_rhs_kernel(FvMeshView mesh, FvProblemView problem, const V* __restrict__ u,
                                     const V* __restrict__ base, const double* __restrict__ gradient,
                                     long long rows, V* __restrict__ rhs)
{
    const long long c = thread_index();
    if (c < rows) rhs[c] = fv_corrected_row_rhs(mesh, problem, c, gradient, u, base);
}

template <typename V>
__global__ void face_fluxes_kernel(FvMeshView mesh, FvProblemView problem, const V* __restrict__ u,
                                   const double* __restrict__ gradient, double* __restrict__ flux)
{
    const long long c = thread_index();
    if (c < mesh.num_cells) fv_cell_fluxes(mesh, problem, c, u, gradient, flux);
}

/// Per cell: the five volume-weighted terms of FvErrorSums (column-major, n apart) and |e|.
template <typename V>
__global__ void errors_kernel(const ExprInstruction* program, const double* __restrict__ centroid,
                              const double* __restrict__ volume, long long n, const V* __restrict__ u,
                              double shift_u, double shift_exact, double* __restrict__ exact,
                              double* __restrict__ error, double* __restrict__ terms)
{
    const long long c = thread_index();
    if (c >= n) return;
    const auto [ue, uh, e] = fv_cell_error(program, centroid, c, u, shift_u, shift_exact);
    if (exact) exact[c] = ue;
    if (error) error[c] = e;
    const double v = volume[c];
    terms[c] = v;
    terms[n + c] = v * uh;
    terms[2 * n + c] = v * ue;
    terms[3 * n + c] = v * e * e;
    terms[4 * n + c] = v * ue * ue;
    terms[5 * n + c] = e;
}

template <typename V>
__global__ void flux_integrals_kernel(long long n, FvProblemView problem, const double* __restrict__ volume,
                                      const V* __restrict__ u, double shift_u, const double* __restrict__ gradient,
                                      double* __restrict__ flux, double* __restrict__ integrals)
{
    const long long c = thread_index();
    if (c < n) fv_cell_flux_integrals(problem, volume, u, shift_u, gradient, c, n, flux, integrals);
}

__global__ void boundary_face_tags_kernel(FvMeshView mesh, const int* __restrict__ conditioned, int others,
                                          const double* __restrict__ flux, int* __restrict__ tag,
                                          unsigned long long* free_faces)
{
    const long long slot = thread_index();
    if (slot >= mesh.num_cells * mesh.faces_per_cell) return;
    const int t = fv_boundary_face_tag(mesh, conditioned, others, flux, slot);
    tag[slot] = t;
    if (t == others) atomicAdd(free_faces, 1ull);
}

__global__ void node_flux_sums_kernel(FvMeshView mesh, long long n, const double* __restrict__ flux,
                                      double* __restrict__ sum, double* __restrict__ weight)
{
    const long long c = thread_index();
    if (c >= n) return;
    const double v = mesh.volume[c];
    const double f[3] = {v * flux[c], v * flux[n + c], v * flux[2 * n + c]};
    for (int k = 0; k < mesh.nodes_per_cell; ++k) {
        const index_type node = mesh.cells[c * mesh.nodes_per_cell + k];
        if (node < 0) continue;
        for (int d = 0; d < 3; ++d) atomicAdd(sum + 3 * node + d, f[d]);
        atomicAdd(weight + node, v);
    }
}

}  // namespace

long long fv_cell_geometry(const Executor& exec, const FvMeshView& mesh, double* centroid, double* volume)
{
    if (mesh.num_cells == 0) return -1;
    FirstFailure first(exec);
    cell_geometry_kernel<<<grid_for(mesh.num_cells), block_size, 0, stream_of(exec)>>>(
        mesh, centroid, volume, first.device());
    GPUFEM_CUDA_CHECK_LAUNCH();
    return first.fetch();
}

long long fv_row_offsets(const Executor& exec, const FvMeshView& mesh, long long pinned, index_type* row_ptr)
{
    auto stream = stream_of(exec);
    GPUFEM_CUDA_CHECK(cudaMemsetAsync(row_ptr, 0, sizeof(index_type), stream));
    if (mesh.num_cells == 0) return 0;
    row_lengths_kernel<<<grid_for(mesh.num_cells), block_size, 0, stream>>>(mesh, pinned, row_ptr + 1);
    GPUFEM_CUDA_CHECK_LAUNCH();
    std::size_t bytes = 0;
    GPUFEM_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, bytes, row_ptr + 1, row_ptr + 1,
                                                    mesh.num_cells, stream));
    DeviceBuffer temp(exec, bytes);
    GPUFEM_CUDA_CHECK(cub::DeviceScan::InclusiveSum(temp.as<void>(), bytes, row_ptr + 1, row_ptr + 1,
                                                    mesh.num_cells, stream));
    index_type nnz = 0;
    GPUFEM_CUDA_CHECK(cudaMemcpyAsync(&nnz, row_ptr + mesh.num_cells, sizeof(nnz),
                                      cudaMemcpyDeviceToHost, stream));
    GPUFEM_CUDA_CHECK(cudaStreamSynchronize(stream));
    return nnz;
}

double fv_max_nonorthogonality(const Executor& exec, const FvMeshView& mesh)
{
    if (mesh.num_cells == 0) return 0.0;
    auto stream = stream_of(exec);
    DeviceBuffer per_cell(exec, static_cast<std::size_t>(mesh.num_cells) * sizeof(double));
    DeviceBuffer result(exec, sizeof(double));
    nonorthogonality_kernel<<<grid_for(mesh.num_cells), block_size, 0, stream>>>(mesh, per_cell.as<double>());
    GPUFEM_CUDA_CHECK_LAUNCH();
    std::size_t bytes = 0;
    GPUFEM_CUDA_CHECK(cub::DeviceReduce::Max(nullptr, bytes, per_cell.as<double>(), result.as<double>(),
                                             mesh.num_cells, stream));
    DeviceBuffer temp(exec, bytes);
    GPUFEM_CUDA_CHECK(cub::DeviceReduce::Max(temp.as<void>(), bytes, per_cell.as<double>(), result.as<double>(),
                                             mesh.num_cells, stream));
    double host = 0.0;
    GPUFEM_CUDA_CHECK(cudaMemcpyAsync(&host, result.as<double>(), sizeof(host), cudaMemcpyDeviceToHost, stream));
    GPUFEM_CUDA_CHECK(cudaStreamSynchronize(stream));
    return host;
}

template <typename V>
void fv_assemble(const Executor& exec, const FvMeshView& mesh, const FvProblemView& problem,
                 const index_type* row_ptr, index_type* cols, V* values, V* rhs)
{
    if (mesh.num_cells == 0) return;
    assemble_kernel<V><<<grid_for(mesh.num_cells), block_size, 0, stream_of(exec)>>>(
        mesh, problem, row_ptr, cols, values, rhs);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

template <typename V>
void fv_cell_gradients(const Executor& exec, const FvMeshView& mesh, const FvProblemView& problem, const V* u,
                       long long cells, double* gradient)
{
    if (cells == 0) return;
    gradient_kernel<V><<<grid_for(cells), block_size, 0, stream_of(exec)>>>(mesh, problem, u, cells, gradient);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

template <typename V>
void fv_corrected_rows(const Executor& exec, const FvMeshView& mesh, const FvProblemView& problem, const V* u,
                       const V* base, const double* gradient, long long rows, V* rhs)
{
    if (rows == 0) return;
    corrected_rhs_kernel<V><<<grid_for(rows), block_size, 0, stream_of(exec)>>>(mesh, problem, u, base, gradient,
                                                                                rows, rhs);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

template <typename V>
void fv_face_fluxes(const Executor& exec, const FvMeshView& mesh, const FvProblemView& problem,
                    const V* u, const double* gradient, double* flux)
{
    if (mesh.num_cells == 0) return;
    face_fluxes_kernel<V><<<grid_for(mesh.num_cells), block_size, 0, stream_of(exec)>>>(
        mesh, problem, u, gradient, flux);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

template <typename V>
void fv_flux_integrals(const Executor& exec, long long n, const FvProblemView& problem, const double* volume,
                       const V* u, double shift_u, const double* gradient, double* flux, double* integrals)
{
    if (n == 0) return;
    flux_integrals_kernel<V><<<grid_for(n), block_size, 0, stream_of(exec)>>>(n, problem, volume, u, shift_u,
                                                                              gradient, flux, integrals);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

long long fv_boundary_face_tags(const Executor& exec, const FvMeshView& mesh, const int* conditioned, int others,
                                const double* flux, int* tag)
{
    const long long slots = mesh.num_cells * mesh.faces_per_cell;
    if (slots == 0) return 0;
    auto stream = stream_of(exec);
    DeviceBuffer count(exec, sizeof(unsigned long long));
    GPUFEM_CUDA_CHECK(cudaMemsetAsync(count.as<void>(), 0, sizeof(unsigned long long), stream));
    boundary_face_tags_kernel<<<grid_for(slots), block_size, 0, stream>>>(mesh, conditioned, others, flux, tag,
                                                                         count.as<unsigned long long>());
    GPUFEM_CUDA_CHECK_LAUNCH();
    unsigned long long host = 0;
    GPUFEM_CUDA_CHECK(cudaMemcpyAsync(&host, count.as<void>(), sizeof(host), cudaMemcpyDeviceToHost, stream));
    GPUFEM_CUDA_CHECK(cudaStreamSynchronize(stream));
    return static_cast<long long>(host);
}

void fv_node_flux_sums(const Executor& exec, const FvMeshView& mesh, long long n, const double* flux, double* sum,
                       double* weight)
{
    if (n == 0) return;
    node_flux_sums_kernel<<<grid_for(n), block_size, 0, stream_of(exec)>>>(mesh, n, flux, sum, weight);
    GPUFEM_CUDA_CHECK_LAUNCH();
}

template <typename V>
FvErrorSums fv_errors(const Executor& exec, const ExprInstruction* program, const double* centroid,
                      const double* volume, long long n, const V* u, double shift_u,
                      double shift_exact, double* exact, double* error)
{
    if (n == 0) return {};
    auto stream = stream_of(exec);
    DeviceBuffer terms(exec, 6 * static_cast<std::size_t>(n) * sizeof(double));
    DeviceBuffer totals(exec, 6 * sizeof(double));
    errors_kernel<V><<<grid_for(n), block_size, 0, stream>>>(program, centroid, volume, n, u, shift_u,
                                                             shift_exact, exact, error, terms.as<double>());
    GPUFEM_CUDA_CHECK_LAUNCH();
    std::size_t sum_bytes = 0, max_bytes = 0;
    GPUFEM_CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, sum_bytes, terms.as<double>(), totals.as<double>(), n, stream));
    GPUFEM_CUDA_CHECK(cub::DeviceReduce::Reduce(nullptr, max_bytes, terms.as<double>(), totals.as<double>(), n,
                                                AbsMax{}, 0.0, stream));
    DeviceBuffer temp(exec, sum_bytes > max_bytes ? sum_bytes : max_bytes);
    for (int k = 0; k < 5; ++k)
        GPUFEM_CUDA_CHECK(cub::DeviceReduce::Sum(temp.as<void>(), sum_bytes, terms.as<double>() + k * n,
                                                 totals.as<double>() + k, n, stream));
    GPUFEM_CUDA_CHECK(cub::DeviceReduce::Reduce(temp.as<void>(), max_bytes, terms.as<double>() + 5 * n,
                                                totals.as<double>() + 5, n, AbsMax{}, 0.0, stream));
    double host[6];
    GPUFEM_CUDA_CHECK(cudaMemcpyAsync(host, totals.as<double>(), sizeof(host), cudaMemcpyDeviceToHost, stream));
    GPUFEM_CUDA_CHECK(cudaStreamSynchronize(stream));
    return {host[0], host[1], host[2], host[3], host[4], host[5]};
}

GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(fv_assemble, fv_cell_gradients, fv_corrected_rows, fv_face_fluxes,
                                  fv_flux_integrals, fv_errors)

}  // namespace gpufem::kernels::cuda
